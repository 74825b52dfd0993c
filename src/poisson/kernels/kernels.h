// The FFT Poisson solver's own kernels (src/poisson/solver.cpp); the FFTs along x and y are the
// library's cuFFT plans and the z systems the tridiagonal partition solver
// (tridiag/kernels/kernels.h, partition_solve_shifted). Each launcher enqueues on `stream` and
// returns the launch's status; none synchronises.
#pragma once

#include <cuda_runtime_api.h>

namespace idgpu::poisson::kernels {

// Periodic along the outer axis (z, or y on a 2D grid) of N = 2^log_n points: the half spectrum
// the forward real-to-complex FFTs of the inner axes left, [N][columns] complex values (column c
// = the inner axes' mode (ky, kx)), in place. A block takes `per_block` adjacent columns: it
// reads their N rows (rows of per_block consecutive elements, each thread's points straight into
// its registers), runs the forward FFT along the
// outer axis, multiplies mode (c, k) by scale / (column_eigenvalues[c] + outer_eigenvalues[k])
// (the zero mode, both 0, set to `mean`), runs the inverse FFT and writes the rows back: one read
// and one write. The FFTs are the native power-of-two Stockham single pass's (fft/kernels/
// stockham_pow2.cuh, Pow2Pass), with its stage twiddle table (fft/twiddle.h) for N points.
struct PeriodicColumns {
  int log_n = 0;
  long long columns = 0;
  int per_block = 0;      // a power of two
  int log_per_block = 0;
  int stride = 0;  // shared-memory elements per column, padded (one padding element every 2^shift)
  int shift = 0;
  unsigned shared_bytes = 0;
  const void* stage_twiddles = nullptr;      // complex, the precision's
  const void* column_eigenvalues = nullptr;  // `columns` reals
  const void* outer_eigenvalues = nullptr;   // N reals
  double scale = 1;
  double mean = 0;
  void* data = nullptr;
};

// The outer lengths compiled: 2^kPeriodicMinLog .. 2^kPeriodicMaxLog.
inline constexpr int kPeriodicMinLog = 2;
inline constexpr int kPeriodicMaxLog = 11;
// Threads of one column's FFT (N / 16 from 16 points on, else 1) and the block shape: adjacent
// columns for rows of 128 bytes, at most 512 threads.
inline constexpr int periodic_column_threads(int log_n) { return log_n < 4 ? 1 : 1 << (log_n - 4); }
inline constexpr int periodic_per_block(int log_n, bool fp64) {
  const int row = fp64 ? 8 : 16;  // columns a 128-byte row holds
  const int threads = periodic_column_threads(log_n);
  const int wanted = row > 256 / threads ? row : 256 / threads;
  return wanted < 512 / threads ? wanted : 512 / threads;
}
cudaError_t launch_periodic_columns_f32(const PeriodicColumns& launch, cudaStream_t stream);
cudaError_t launch_periodic_columns_f64(const PeriodicColumns& launch, cudaStream_t stream);

// The general periodic path: the half spectrum of a full-rank real-to-complex FFT, [nz][ny][half]
// (half = nx / 2 + 1), mode (kz, ky, kx) times scale / (ex[kx] + ey[ky] + ez[kz]), the zero mode
// set to `mean`. Or a pencil of it (the out-of-core solve): [nz][width] holding columns
// [first_column, first_column + width) of the flattened (ky, kx) index (width 0: all ny half).
struct SpectrumScale {
  long long half = 0, ny = 0, nz = 0;
  long long first_column = 0;
  long long width = 0;
  const void* ex = nullptr;  // half reals
  const void* ey = nullptr;  // ny reals
  const void* ez = nullptr;  // nz reals
  double scale = 1;
  double mean = 0;
  void* data = nullptr;
};
cudaError_t launch_scale_spectrum_f32(const SpectrumScale& launch, cudaStream_t stream);
cudaError_t launch_scale_spectrum_f64(const SpectrumScale& launch, cudaStream_t stream);

// The weighted mean (weights 1/2 at rows 0 and m-1, 1 between; m >= 2) of one interleaved column:
// m complex values `stride` apart from `data`.
//  - column_mean: into *mean (one complex value);
//  - set_column_mean: shifts the column so that the real part's weighted mean is `target` and the
//    imaginary part's zero.
cudaError_t column_mean_f32(const void* data, long long stride, int m, void* mean, cudaStream_t stream);
cudaError_t column_mean_f64(const void* data, long long stride, int m, void* mean, cudaStream_t stream);
cudaError_t set_column_mean_f32(void* data, long long stride, int m, double target, cudaStream_t stream);
cudaError_t set_column_mean_f64(void* data, long long stride, int m, double target, cudaStream_t stream);

}  // namespace idgpu::poisson::kernels
