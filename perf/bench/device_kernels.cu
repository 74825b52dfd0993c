#include "device_kernels.h"

#include <cmath>
#include <cstring>

namespace idgpu_bench {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 8192;  // grid-stride loops beyond this

unsigned int blocks_for(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks == 0 ? 1 : (blocks < kMaxBlocks ? blocks : kMaxBlocks));
}

// splitmix64's finalizer over a counter: independent values for every (seed, index).
__device__ __forceinline__ unsigned long long hash(unsigned long long seed, unsigned long long index) {
  unsigned long long z = seed + (index + 1ull) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// (2k + 1 - 2^bits) / 2^bits for a random k of `bits` bits: an odd numerator, so never zero,
// and exact in the target type.
template <class T>
__device__ __forceinline__ T uniform(unsigned long long seed, unsigned long long index);

template <>
__device__ __forceinline__ float uniform<float>(unsigned long long seed, unsigned long long index) {
  const long long k = static_cast<long long>(hash(seed, index) >> 40);  // 24 bits
  return static_cast<float>(2 * k + 1 - (1ll << 24)) * 0x1p-24f;
}

template <>
__device__ __forceinline__ double uniform<double>(unsigned long long seed, unsigned long long index) {
  const long long k = static_cast<long long>(hash(seed, index) >> 11);  // 53 bits
  return static_cast<double>(2 * k + 1 - (1ll << 53)) * 0x1p-53;
}

template <class T>
__global__ void fill_uniform_kernel(T* data, std::size_t count, unsigned long long seed) {
  for (std::size_t index = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; index < count;
       index += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[index] = uniform<T>(seed, index);
  }
}

template <class T>
__global__ void fill_tridiagonal_kernel(T* dl, T* d, T* du, T* x, std::size_t count, long long m, long long batch,
                                        bool interleaved, unsigned long long seed, bool dominant) {
  for (std::size_t index = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; index < count;
       index += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const long long row = interleaved ? static_cast<long long>(index) / batch : static_cast<long long>(index) % m;
    const unsigned long long base = 4ull * index;
    const T lower = row == 0 ? T(0) : uniform<T>(seed, base);
    const T upper = row == m - 1 ? T(0) : uniform<T>(seed, base + 1);
    const T extra = uniform<T>(seed, base + 2);
    // |d| exceeds |dl| + |du| by at least 1/2: strictly dominant, so every algorithm is stable
    // (unless `dominant` is false: then d is uniform too).
    const T magnitude = fabs(lower) + fabs(upper) + T(0.5) + fabs(extra);
    dl[index] = lower;
    du[index] = upper;
    d[index] = !dominant ? extra : extra < T(0) ? -magnitude : magnitude;
    x[index] = uniform<T>(seed, base + 3);
  }
}

__device__ __forceinline__ float modulus(float re, float im) { return hypotf(re, im); }
__device__ __forceinline__ double modulus(double re, double im) { return hypot(re, im); }

// The complex counterpart: C is float2 (cuComplex) or double2 (cuDoubleComplex), R its part type.
template <class R, class C>
__global__ void fill_tridiagonal_complex_kernel(C* dl, C* d, C* du, C* x, std::size_t count, long long m,
                                                long long batch, bool interleaved, unsigned long long seed,
                                                bool dominant) {
  for (std::size_t index = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; index < count;
       index += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const long long row = interleaved ? static_cast<long long>(index) / batch : static_cast<long long>(index) % m;
    const unsigned long long base = 8ull * index;
    C lower;
    lower.x = row == 0 ? R(0) : uniform<R>(seed, base);
    lower.y = row == 0 ? R(0) : uniform<R>(seed, base + 1);
    C upper;
    upper.x = row == m - 1 ? R(0) : uniform<R>(seed, base + 2);
    upper.y = row == m - 1 ? R(0) : uniform<R>(seed, base + 3);
    // A random direction (both parts non-zero), scaled to |d| = 1.5 (|dl| + |du|) + 1/2: strictly
    // dominant by at least 1/2, so every algorithm is stable (unless `dominant` is false: then
    // both parts of d are uniform in [-1, 1)).
    const R direction_re = uniform<R>(seed, base + 4);
    const R direction_im = uniform<R>(seed, base + 5);
    const R magnitude = R(1.5) * (modulus(lower.x, lower.y) + modulus(upper.x, upper.y)) + R(0.5);
    const R scale = dominant ? magnitude / modulus(direction_re, direction_im) : R(1);
    C diagonal;
    diagonal.x = direction_re * scale;
    diagonal.y = direction_im * scale;
    C rhs;
    rhs.x = uniform<R>(seed, base + 6);
    rhs.y = uniform<R>(seed, base + 7);
    dl[index] = lower;
    du[index] = upper;
    d[index] = diagonal;
    x[index] = rhs;
  }
}

// C is float2 (cuComplex) or double2 (cuDoubleComplex), R its part type. Indices in 32 bits: the
// cases keep nx * ny * nz below 2^31 (the solver's limit), so the divisions stay cheap.
template <class R, class C>
__global__ void scale_poisson_spectrum_kernel(C* spectrum, unsigned half, unsigned ny, unsigned count, const R* ex,
                                              const R* ey, const R* ez, R scale) {
  for (unsigned index = blockIdx.x * blockDim.x + threadIdx.x; index < count; index += gridDim.x * blockDim.x) {
    const unsigned kx = index % half;
    const unsigned row = index / half;
    const unsigned ky = row % ny;
    const unsigned kz = row / ny;
    // Every eigenvalue is negative but the zero mode's (0 + 0 + 0): no other sum can vanish.
    const R factor = index == 0 ? R(0) : scale / (ex[kx] + ey[ky] + ez[kz]);
    C value = spectrum[index];
    value.x *= factor;
    value.y *= factor;
    spectrum[index] = value;
  }
}

template <class R, class C>
__global__ void fill_poisson_z_systems_kernel(C* dl, C* d, C* du, unsigned m, unsigned half, unsigned count,
                                              const double* ex, const double* ey, double off, double fold,
                                              bool neumann) {
  for (unsigned index = blockIdx.x * blockDim.x + threadIdx.x; index < count; index += gridDim.x * blockDim.x) {
    const unsigned row = index % m;
    const unsigned system = index / m;
    const double lambda_xy = ex[system % half] + ey[system / half];
    double lower = row == 0 ? 0.0 : (neumann && row == m - 1 ? 2.0 * off : off);
    double upper = row == m - 1 ? 0.0 : (neumann && row == 0 ? 2.0 * off : off);
    double diagonal = lambda_xy - 2.0 * off;
    lower *= fold;
    upper *= fold;
    diagonal *= fold;
    if (neumann && system == 0 && row == 0) {
      // The singular (kx, ky) = (0, 0) system: u_0 pinned (to the right-hand side's row 0).
      lower = 0.0;
      upper = 0.0;
      diagonal = 1.0;
    }
    C value;
    value.y = R(0);
    value.x = static_cast<R>(lower);
    dl[index] = value;
    value.x = static_cast<R>(diagonal);
    d[index] = value;
    value.x = static_cast<R>(upper);
    du[index] = value;
  }
}

__global__ void spin_kernel(unsigned long long nanoseconds) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start >= nanoseconds) break;
  }
}

__device__ __forceinline__ bool same_bits(float a, float b) { return __float_as_uint(a) == __float_as_uint(b); }
__device__ __forceinline__ bool same_bits(double a, double b) {
  return __double_as_longlong(a) == __double_as_longlong(b);
}

// out[0], out[1]: bit patterns of max |a| and max |a-b| (non-negative doubles order as their
// bits do, so atomicMax on the bits is a max on the values); out[2]: differing elements.
template <class T>
__global__ void compare_kernel(const T* a, const T* b, std::size_t count, unsigned long long* out) {
  double max_reference = 0;
  double max_difference = 0;
  unsigned long long differing = 0;
  for (std::size_t index = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; index < count;
       index += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const T va = a[index];
    const T vb = b[index];
    if (!same_bits(va, vb)) ++differing;
    const bool nan_a = isnan(va);
    const bool nan_b = isnan(vb);
    double difference = 0;
    if (nan_a != nan_b) {
      difference = INFINITY;
    } else if (!nan_a && va != vb) {
      difference = fabs(static_cast<double>(va) - static_cast<double>(vb));
    }
    if (!nan_a) max_reference = fmax(max_reference, fabs(static_cast<double>(va)));
    max_difference = fmax(max_difference, difference);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    max_reference = fmax(max_reference, __shfl_down_sync(0xffffffffu, max_reference, offset));
    max_difference = fmax(max_difference, __shfl_down_sync(0xffffffffu, max_difference, offset));
    differing += __shfl_down_sync(0xffffffffu, differing, offset);
  }
  if ((threadIdx.x & 31u) == 0) {
    atomicMax(&out[0], static_cast<unsigned long long>(__double_as_longlong(max_reference)));
    atomicMax(&out[1], static_cast<unsigned long long>(__double_as_longlong(max_difference)));
    atomicAdd(&out[2], differing);
  }
}

template <class T>
cudaError_t fill_uniform_impl(T* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  fill_uniform_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(data, count, seed);
  return cudaGetLastError();
}

template <class T>
cudaError_t fill_tridiagonal_impl(T* dl, T* d, T* du, T* x, std::size_t count, long long m, long long batch,
                                  bool interleaved, std::uint64_t seed, cudaStream_t stream, bool dominant) {
  if (count == 0) return cudaSuccess;
  fill_tridiagonal_kernel<T>
      <<<blocks_for(count), kThreads, 0, stream>>>(dl, d, du, x, count, m, batch, interleaved, seed, dominant);
  return cudaGetLastError();
}

template <class R, class C>
cudaError_t fill_tridiagonal_complex_impl(C* dl, C* d, C* du, C* x, std::size_t count, long long m, long long batch,
                                          bool interleaved, std::uint64_t seed, cudaStream_t stream, bool dominant) {
  if (count == 0) return cudaSuccess;
  fill_tridiagonal_complex_kernel<R, C>
      <<<blocks_for(count), kThreads, 0, stream>>>(dl, d, du, x, count, m, batch, interleaved, seed, dominant);
  return cudaGetLastError();
}

template <class R, class C>
cudaError_t scale_poisson_spectrum_impl(C* spectrum, int half, int ny, int nz, const R* ex, const R* ey, const R* ez,
                                        R scale, cudaStream_t stream) {
  const std::size_t count =
      static_cast<std::size_t>(half) * static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz);
  if (count == 0) return cudaSuccess;
  if (count > 0x7fffffffu) return cudaErrorInvalidValue;
  scale_poisson_spectrum_kernel<R, C>
      <<<blocks_for(count), kThreads, 0, stream>>>(spectrum, static_cast<unsigned>(half), static_cast<unsigned>(ny),
                                                   static_cast<unsigned>(count), ex, ey, ez, scale);
  return cudaGetLastError();
}

template <class R, class C>
cudaError_t fill_poisson_z_systems_impl(C* dl, C* d, C* du, int m, int half, int ny, const double* ex, const double* ey,
                                        double off, double fold, bool neumann, cudaStream_t stream) {
  const std::size_t count = static_cast<std::size_t>(m) * static_cast<std::size_t>(half) * static_cast<std::size_t>(ny);
  if (count == 0) return cudaSuccess;
  if (count > 0x7fffffffu) return cudaErrorInvalidValue;
  fill_poisson_z_systems_kernel<R, C>
      <<<blocks_for(count), kThreads, 0, stream>>>(dl, d, du, static_cast<unsigned>(m), static_cast<unsigned>(half),
                                                   static_cast<unsigned>(count), ex, ey, off, fold, neumann);
  return cudaGetLastError();
}

}  // namespace

cudaError_t fill_uniform(float* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  return fill_uniform_impl(data, count, seed, stream);
}

cudaError_t fill_uniform(double* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  return fill_uniform_impl(data, count, seed, stream);
}

cudaError_t fill_tridiagonal(float* dl, float* d, float* du, float* x, std::size_t count, long long m, long long batch,
                             bool interleaved, std::uint64_t seed, cudaStream_t stream, bool dominant) {
  return fill_tridiagonal_impl(dl, d, du, x, count, m, batch, interleaved, seed, stream, dominant);
}

cudaError_t fill_tridiagonal(double* dl, double* d, double* du, double* x, std::size_t count, long long m,
                             long long batch, bool interleaved, std::uint64_t seed, cudaStream_t stream,
                             bool dominant) {
  return fill_tridiagonal_impl(dl, d, du, x, count, m, batch, interleaved, seed, stream, dominant);
}

cudaError_t fill_tridiagonal(cuComplex* dl, cuComplex* d, cuComplex* du, cuComplex* x, std::size_t count, long long m,
                             long long batch, bool interleaved, std::uint64_t seed, cudaStream_t stream,
                             bool dominant) {
  return fill_tridiagonal_complex_impl<float>(dl, d, du, x, count, m, batch, interleaved, seed, stream, dominant);
}

cudaError_t fill_tridiagonal(cuDoubleComplex* dl, cuDoubleComplex* d, cuDoubleComplex* du, cuDoubleComplex* x,
                             std::size_t count, long long m, long long batch, bool interleaved, std::uint64_t seed,
                             cudaStream_t stream, bool dominant) {
  return fill_tridiagonal_complex_impl<double>(dl, d, du, x, count, m, batch, interleaved, seed, stream, dominant);
}

cudaError_t scale_poisson_spectrum(cuComplex* spectrum, int half, int ny, int nz, const float* ex, const float* ey,
                                   const float* ez, float scale, cudaStream_t stream) {
  return scale_poisson_spectrum_impl(spectrum, half, ny, nz, ex, ey, ez, scale, stream);
}

cudaError_t scale_poisson_spectrum(cuDoubleComplex* spectrum, int half, int ny, int nz, const double* ex,
                                   const double* ey, const double* ez, double scale, cudaStream_t stream) {
  return scale_poisson_spectrum_impl(spectrum, half, ny, nz, ex, ey, ez, scale, stream);
}

cudaError_t fill_poisson_z_systems(cuComplex* dl, cuComplex* d, cuComplex* du, int m, int half, int ny,
                                   const double* ex, const double* ey, double off, double fold, bool neumann,
                                   cudaStream_t stream) {
  return fill_poisson_z_systems_impl<float>(dl, d, du, m, half, ny, ex, ey, off, fold, neumann, stream);
}

cudaError_t fill_poisson_z_systems(cuDoubleComplex* dl, cuDoubleComplex* d, cuDoubleComplex* du, int m, int half,
                                   int ny, const double* ex, const double* ey, double off, double fold, bool neumann,
                                   cudaStream_t stream) {
  return fill_poisson_z_systems_impl<double>(dl, d, du, m, half, ny, ex, ey, off, fold, neumann, stream);
}

cudaError_t launch_spin(int microseconds, cudaStream_t stream) {
  if (microseconds <= 0) return cudaSuccess;
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(microseconds) * 1000ull);
  return cudaGetLastError();
}

cudaError_t compare_arrays(const void* a, const void* b, std::size_t count, bool f64, cudaStream_t stream,
                           Comparison* result) {
  unsigned long long* partial = nullptr;
  cudaError_t status = cudaMalloc(&partial, 3 * sizeof(unsigned long long));
  if (status != cudaSuccess) return status;
  unsigned long long host[3] = {0, 0, 0};
  status = cudaMemsetAsync(partial, 0, sizeof(host), stream);
  if (status == cudaSuccess && count > 0) {
    if (f64) {
      compare_kernel<double><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const double*>(a),
                                                                         static_cast<const double*>(b), count, partial);
    } else {
      compare_kernel<float><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const float*>(a),
                                                                        static_cast<const float*>(b), count, partial);
    }
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) status = cudaMemcpyAsync(host, partial, sizeof(host), cudaMemcpyDeviceToHost, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  const cudaError_t freed = cudaFree(partial);
  if (status == cudaSuccess) status = freed;
  if (status != cudaSuccess) return status;
  static_assert(sizeof(double) == sizeof(unsigned long long), "double bits");
  std::memcpy(&result->max_abs_reference, &host[0], sizeof(double));
  std::memcpy(&result->max_abs_difference, &host[1], sizeof(double));
  result->differing = host[2];
  return cudaSuccess;
}

}  // namespace idgpu_bench
