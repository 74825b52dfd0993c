// The fixed-sequence Stockham kernels (stockham_pass.cuh's FixedStages) for one precision: one
// kernel per sequence of fft/kernels/fixed_radices.h and direction. Included by
// stockham_fixed_f32.cu and stockham_fixed_f64.cu (two translation units, built in parallel).
#pragma once

#include "fft/kernels/fixed_radices.h"
#include "fft/kernels/stockham_pass.cuh"

namespace idgpu::fft::kernels::fixed {
namespace {  // as stockham_pass.cuh's kernels: each including translation unit its own

template <int... R>
using Sequence = pass_kernel::FixedStages<R...>;

// Whether the pass's radices are exactly R..., in order, over the length and with the
// shared-memory layout the kernel is compiled for (pass_kernel::FixedConstants: no padding, each
// sub-transform's buffer at least its extent).
template <class Real, int... R>
bool matches(const PassLaunch& pass, Sequence<R...>) {
  using K = pass_kernel::FixedConstants<R...>;
  constexpr int kRadices[] = {R...};
  constexpr int kExtent = K::extent(static_cast<int>(sizeof(Real)) * 2);
  if (pass.stages != static_cast<int>(sizeof...(R))) return false;
  if (pass.shape.size != K::kSize || pass.shape.shift != kUnpaddedShift || pass.shape.smem_stride < kExtent) {
    return false;
  }
  for (int st = 0; st < pass.stages; ++st) {
    if (pass.radices[st] != kRadices[st]) return false;
  }
  return true;
}

template <class Real, int... R>
bool launch_if(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status, Sequence<R...> sequence) {
  if (!matches<Real>(pass, sequence)) return false;
  *status = inverse ? pass_kernel::launch_kernel<Real, true, Sequence<R...>>(pass, stream)
                    : pass_kernel::launch_kernel<Real, false, Sequence<R...>>(pass, stream);
  return true;
}

template <class Real>
bool launch(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
#define IDGPU_FFT_FIXED_TRY(...) launch_if<Real>(pass, inverse, stream, status, Sequence<__VA_ARGS__>()) ||
  return IDGPU_FFT_FIXED_RADICES(IDGPU_FFT_FIXED_TRY) false;
#undef IDGPU_FFT_FIXED_TRY
}

}  // namespace
}  // namespace idgpu::fft::kernels::fixed
