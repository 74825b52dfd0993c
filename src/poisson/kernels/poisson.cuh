// The Poisson solver's kernels (kernels.h), templated on the precision; poisson_f32.cu and
// poisson_f64.cu instantiate them.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <utility>

#include "fft/kernels/launch.cuh"
#include "fft/kernels/stockham_pow2.cuh"
#include "poisson/kernels/kernels.h"

namespace idgpu::poisson::kernels {

namespace fk = ::idgpu::fft::kernels;

// Threads run across the block's columns first (thread = tid per_block + column), so that for
// each of its E points a warp reads and writes rows of adjacent columns: every thread takes its
// points straight from device memory into registers (E loads in flight), the FFTs' stages
// exchange through shared memory as a column pass's do, and the inverse FFT's last stage writes
// its points straight back.
template <class Real, int LogN>
__global__ void __maxnreg__(fk::kPow2Registers<Real>) periodic_columns(const __grid_constant__ PeriodicColumns p) {
  using Ahead = fk::Pow2Pass<Real, false, LogN, fk::kSingle>;  // the last stage's outputs stay in v[]
  using Back = fk::Pow2Pass<Real, true, LogN, fk::kSingle>;
  using C = typename Ahead::C;
  constexpr int kE = Ahead::kE;
  constexpr int kThreads = Ahead::kThreads;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const int per_block = p.per_block;
  const int thread = static_cast<int>(threadIdx.x);
  const long long c0 = static_cast<long long>(blockIdx.x) * per_block;
  const int valid = static_cast<int>(min(static_cast<long long>(per_block), p.columns - c0));
  const int tr = thread & (per_block - 1);
  const int tid = thread >> p.log_per_block;
  const bool active = tr < valid;
  C* data = static_cast<C*>(p.data) + c0 + tr;
  C* mine = sm + tr * p.stride;

  // Point tid + k N / E of the column in v[k], as a pass's first stage takes them.
  C v[kE];
  if (active) {
#pragma unroll
    for (int k = 0; k < kE; ++k) v[k] = data[static_cast<long long>(tid + k * kThreads) * p.columns];
  }
  const Ahead ahead{p.stage_twiddles, mine, p.shift, tid, active};
  ahead.stages(v, std::make_integer_sequence<int, Ahead::kStages>());
  if (active) {
    // The forward FFT's last stage leaves mode tid + k N / E in v[k].
    const Real column_lambda = __ldg(static_cast<const Real*>(p.column_eigenvalues) + c0 + tr);
    const Real* __restrict__ outer = static_cast<const Real*>(p.outer_eigenvalues);
    const Real scale = static_cast<Real>(p.scale);
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const Real lambda = column_lambda + __ldg(&outer[tid + k * kThreads]);
      if (lambda == Real(0)) {
        v[k] = fk::make<C>(static_cast<Real>(p.mean), Real(0));
      } else {
        const Real factor = scale / lambda;
        v[k] = fk::make<C>(v[k].x * factor, v[k].y * factor);
      }
    }
  }
  __syncthreads();  // every thread read its last-stage inputs before the inverse's first stage writes
  const Back back{p.stage_twiddles, mine, p.shift, tid, active};
  back.stages(v, std::make_integer_sequence<int, Back::kStages>());
  if (active) {
    // The inverse FFT's last stage leaves point tid + k N / E in v[k].
#pragma unroll
    for (int k = 0; k < kE; ++k) data[static_cast<long long>(tid + k * kThreads) * p.columns] = v[k];
  }
}

template <class Real, int LogN>
cudaError_t launch_periodic_kernel(const PeriodicColumns& launch, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  const auto kernel = periodic_columns<Real, LogN>;
  if (const cudaError_t status = fk::allow_shared(kernel, launch.shared_bytes, allowed); status != cudaSuccess) {
    return status;
  }
  const long long blocks = (launch.columns + launch.per_block - 1) / launch.per_block;
  const unsigned threads = static_cast<unsigned>(launch.per_block * periodic_column_threads(LogN));
  kernel<<<static_cast<unsigned>(blocks), threads, launch.shared_bytes, stream>>>(launch);
  return cudaGetLastError();
}

template <class Real, int... Log>
cudaError_t launch_periodic_log(const PeriodicColumns& launch, cudaStream_t stream, std::integer_sequence<int, Log...>) {
  cudaError_t status = cudaErrorNotSupported;
  const auto launch_if = [&](auto log) {
    constexpr int kLog = decltype(log)::value;
    if (launch.log_n != kLog) return false;
    status = launch_periodic_kernel<Real, kLog>(launch, stream);
    return true;
  };
  (launch_if(std::integral_constant<int, Log + kPeriodicMinLog>()) || ...);
  return status;
}

template <class Real>
cudaError_t launch_periodic(const PeriodicColumns& launch, cudaStream_t stream) {
  if (launch.columns < 1 || launch.per_block < 1 || launch.data == nullptr) return cudaErrorInvalidValue;
  using Logs = std::make_integer_sequence<int, kPeriodicMaxLog - kPeriodicMinLog + 1>;
  return launch_periodic_log<Real>(launch, stream, Logs());
}

template <class Real>
__global__ void scale_spectrum(const SpectrumScale p) {
  using C = typename fk::ComplexOf<Real>::type;
  C* data = static_cast<C*>(p.data);
  const Real* __restrict__ ex = static_cast<const Real*>(p.ex);
  const Real* __restrict__ ey = static_cast<const Real*>(p.ey);
  const Real* __restrict__ ez = static_cast<const Real*>(p.ez);
  const long long width = p.width > 0 ? p.width : p.half * p.ny;
  const long long total = width * p.nz;
  const Real scale = static_cast<Real>(p.scale);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long column = p.first_column + i % width;
    const long long kx = column % p.half;
    const long long ky = column / p.half;
    const long long kz = i / width;
    const Real lambda = __ldg(&ex[kx]) + __ldg(&ey[ky]) + __ldg(&ez[kz]);
    if (lambda == Real(0)) {
      data[i] = fk::make<C>(static_cast<Real>(p.mean), Real(0));
    } else {
      const Real factor = scale / lambda;
      const C value = data[i];
      data[i] = fk::make<C>(value.x * factor, value.y * factor);
    }
  }
}

template <class Real>
cudaError_t launch_scale(const SpectrumScale& launch, cudaStream_t stream) {
  const long long width = launch.width > 0 ? launch.width : launch.half * launch.ny;
  const long long total = width * launch.nz;
  if (total < 1 || launch.data == nullptr || launch.first_column < 0 ||
      launch.first_column + width > launch.half * launch.ny) {
    return cudaErrorInvalidValue;
  }
  constexpr int kThreads = 256;
  const long long blocks = std::min<long long>((total + kThreads - 1) / kThreads, 1LL << 16);
  scale_spectrum<Real><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(launch);
  return cudaGetLastError();
}

// One block: the weighted mean of the column into shared memory's total; with `adjust`, the
// column shifted to `target`, else the mean written to *mean.
template <class Real>
__global__ void column_mean_kernel(typename fk::ComplexOf<Real>::type* data, long long stride, int m, bool adjust,
                                   Real target, typename fk::ComplexOf<Real>::type* mean) {
  using C = typename fk::ComplexOf<Real>::type;
  constexpr int kThreads = 256;
  __shared__ Real sums[2][kThreads];
  const int thread = static_cast<int>(threadIdx.x);
  Real re = 0;
  Real im = 0;
  for (int k = thread; k < m; k += kThreads) {
    const Real w = k == 0 || k == m - 1 ? Real(0.5) : Real(1);
    const C value = data[k * stride];
    re += w * value.x;
    im += w * value.y;
  }
  sums[0][thread] = re;
  sums[1][thread] = im;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (thread < half) {
      sums[0][thread] += sums[0][thread + half];
      sums[1][thread] += sums[1][thread + half];
    }
    __syncthreads();
  }
  const Real total = static_cast<Real>(m - 1);
  const C average = fk::make<C>(sums[0][0] / total, sums[1][0] / total);
  if (!adjust) {
    if (thread == 0) *mean = average;
    return;
  }
  for (int k = thread; k < m; k += kThreads) {
    const C value = data[k * stride];
    data[k * stride] = fk::make<C>(value.x - average.x + target, value.y - average.y);
  }
}

template <class Real>
cudaError_t launch_column_mean(const void* data, long long stride, int m, bool adjust, double target, void* mean,
                               cudaStream_t stream) {
  using C = typename fk::ComplexOf<Real>::type;
  if (m < 2 || data == nullptr || (!adjust && mean == nullptr)) return cudaErrorInvalidValue;
  column_mean_kernel<Real><<<1, 256, 0, stream>>>(const_cast<C*>(static_cast<const C*>(data)), stride, m, adjust,
                                                  static_cast<Real>(target), static_cast<C*>(mean));
  return cudaGetLastError();
}

}  // namespace idgpu::poisson::kernels
