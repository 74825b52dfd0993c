// The benchmark's own small kernels (device_kernels.cu): input generation on the device (the
// grids move gigabytes; generating them on the host would dominate the run), the busy-wait that
// keeps the GPU occupied while a timed call is submitted, and the comparison of the two sides.
#pragma once

#include <cuComplex.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace idgpu_bench {

// Uniform values in (-1, 1), never zero, from a counter-based hash of (seed, index): the same
// seed gives the same data on every run and device.
cudaError_t fill_uniform(float* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);
cudaError_t fill_uniform(double* data, std::size_t count, std::uint64_t seed, cudaStream_t stream);

// A batch of strictly diagonally dominant tridiagonal systems and right-hand sides (x).
// Element e of every array belongs to row e % m (strided layout) or row e / batch (interleaved);
// dl of row 0 and du of row m-1 are zero, as cuSPARSE requires; everything else is random. With
// dominant false, d is as random as dl and du (uniform in [-1, 1), each part for complex types):
// systems that need pivoting.
cudaError_t fill_tridiagonal(float* dl, float* d, float* du, float* x, std::size_t count, long long m, long long batch,
                             bool interleaved, std::uint64_t seed, cudaStream_t stream, bool dominant = true);
cudaError_t fill_tridiagonal(double* dl, double* d, double* du, double* x, std::size_t count, long long m,
                             long long batch, bool interleaved, std::uint64_t seed, cudaStream_t stream,
                             bool dominant = true);
// Complex systems: real and imaginary parts of dl, du and x random; d has a random phase and the
// modulus 1.5 * (|dl| + |du|) + 0.5, so no part of any element is zero (but dl of row 0 and du of
// row m-1, as above).
cudaError_t fill_tridiagonal(cuComplex* dl, cuComplex* d, cuComplex* du, cuComplex* x, std::size_t count, long long m,
                             long long batch, bool interleaved, std::uint64_t seed, cudaStream_t stream,
                             bool dominant = true);
cudaError_t fill_tridiagonal(cuDoubleComplex* dl, cuDoubleComplex* d, cuDoubleComplex* du, cuDoubleComplex* x,
                             std::size_t count, long long m, long long batch, bool interleaved, std::uint64_t seed,
                             cudaStream_t stream, bool dominant = true);

// The Poisson cases' vendor side (poisson_cases.cpp): what a cuFFT and cuSPARSE user writes
// between the library calls.
//
// Periodic z: multiplies mode (kz, ky, kx) of the half spectrum [nz][ny][half] (half = nx/2 + 1)
// by scale / (ex[kx] + ey[ky] + ez[kz]), the eigenvalues of the discrete Laplacian (tables of
// the precision, computed on the host in double), and sets the zero mode to 0: the solution with
// mean zero. One read and one write of the spectrum (the bandwidth fraction not measured yet).
cudaError_t scale_poisson_spectrum(cuComplex* spectrum, int half, int ny, int nz, const float* ex, const float* ey,
                                   const float* ez, float scale, cudaStream_t stream);
cudaError_t scale_poisson_spectrum(cuDoubleComplex* spectrum, int half, int ny, int nz, const double* ex,
                                   const double* ey, const double* ez, double scale, cudaStream_t stream);

// Neumann or Dirichlet z: the tridiagonal systems along z of every (ky, kx) for
// gtsv2StridedBatch: system j = ky * half + kx, row i at j * m + i (m = nz), imaginary parts 0.
// Off-diagonals off = 1 / hz^2, diagonal ex[kx] + ey[ky] - 2 off (ex, ey in double); with Neumann
// row 0's upper and row m-1's lower entry 2 off, and the singular system (j = 0) pinned: its
// row 0 replaced by the identity. Every entry but the pinned one is multiplied by `fold` (the
// inverse FFT's normalisation folded into the matrix: (A / s) u = F solves A u = s F).
cudaError_t fill_poisson_z_systems(cuComplex* dl, cuComplex* d, cuComplex* du, int m, int half, int ny,
                                   const double* ex, const double* ey, double off, double fold, bool neumann,
                                   cudaStream_t stream);
cudaError_t fill_poisson_z_systems(cuDoubleComplex* dl, cuDoubleComplex* d, cuDoubleComplex* du, int m, int half,
                                   int ny, const double* ex, const double* ey, double off, double fold, bool neumann,
                                   cudaStream_t stream);

// One thread that spins for `microseconds` of GPU time.
cudaError_t launch_spin(int microseconds, cudaStream_t stream);

struct Comparison {
  double max_abs_reference = 0;  // max |a|
  double max_abs_difference = 0;  // max |a - b| (NaN or infinity where only one side is NaN)
  unsigned long long differing = 0;  // elements whose bits differ
};

// Compares b against the reference a (real elements; complex data as interleaved parts).
// Synchronizes the stream.
cudaError_t compare_arrays(const void* a, const void* b, std::size_t count, bool f64, cudaStream_t stream,
                           Comparison* result);

}  // namespace idgpu_bench
