// Bluestein's tables of a multi-pass plan (fft/convolution.h), formed on the device at plan time
// (fft/native.cpp), where forming them on the host took most of a plan's creation (an M-point
// DFT in long double: 0.4 s at M = 2^21, 12-32 s at 2^25 on the H100's host):
//  - the chirp c[k] = exp(-pi i k^2 / n), k < n, from the exact exponent k^2 mod 2n
//    (chirp_exponent) with double sincospi, rounded once to the plan's precision;
//  - the kernel b[k] = conj c[k] at k and M - k (k < n), zeros between, in double, whose DFT the
//    caller takes with a double FFT of its own;
//  - the spectrum: that DFT times 1 / M (exact: M is a power of two), rounded to the precision.
#include <cuda_runtime.h>

#include "fft/convolution_index.h"
#include "fft/kernels/bluestein_tables.h"

namespace idgpu::fft::kernels {
namespace {

constexpr unsigned kThreads = 256;

unsigned grid_for(long long count) {
  const long long blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
}

template <class Stored>
__device__ void store_rounded(void* table, long long k, double re, double im) {
  Stored value;
  value.x = static_cast<decltype(value.x)>(re);
  value.y = static_cast<decltype(value.y)>(im);
  static_cast<Stored*>(table)[k] = value;
}

template <class Stored>
__global__ void chirp_and_kernel(long long n, long long m, void* chirp, double2* kernel) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < m; k += step) {
    const long long t = k < n ? k : k > m - n ? m - k : -1;
    double2 b = make_double2(0.0, 0.0);
    if (t >= 0) {
      double s = 0.0, c = 0.0;
      sincospi(static_cast<double>(chirp_exponent(t, n)) / static_cast<double>(n), &s, &c);
      b = make_double2(c, s);  // conj exp(-pi i e / n)
      if (k < n) store_rounded<Stored>(chirp, k, c, -s);
    }
    kernel[k] = b;
  }
}

template <class Stored>
__global__ void scaled_spectrum(long long m, const double2* dft, void* spectrum) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  const double scale = 1.0 / static_cast<double>(m);
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < m; k += step) {
    store_rounded<Stored>(spectrum, k, dft[k].x * scale, dft[k].y * scale);
  }
}

}  // namespace

cudaError_t bluestein_chirp_and_kernel(long long n, long long m, bool single, void* chirp, double2* kernel,
                                       cudaStream_t stream) {
  if (single) {
    chirp_and_kernel<float2><<<grid_for(m), kThreads, 0, stream>>>(n, m, chirp, kernel);
  } else {
    chirp_and_kernel<double2><<<grid_for(m), kThreads, 0, stream>>>(n, m, chirp, kernel);
  }
  return cudaGetLastError();
}

cudaError_t bluestein_scaled_spectrum(long long m, const double2* dft, bool single, void* spectrum,
                                      cudaStream_t stream) {
  if (single) {
    scaled_spectrum<float2><<<grid_for(m), kThreads, 0, stream>>>(m, dft, spectrum);
  } else {
    scaled_spectrum<double2><<<grid_for(m), kThreads, 0, stream>>>(m, dft, spectrum);
  }
  return cudaGetLastError();
}

}  // namespace idgpu::fft::kernels
