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
