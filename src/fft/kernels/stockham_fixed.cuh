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
template <int... R>
using PaddedSequence = pass_kernel::PaddedFixedStages<R...>;

// Whether the pass's radices are exactly R..., in order, over the length and with the
// shared-memory layout the kernel is compiled for (pass_kernel::FixedConstants; Rows: no padding
// shift and each sub-transform's buffer at least its extent, else the padded layout), with threads
// enough for its stages' butterflies a thread (FixedConstants::covered_by).
template <class Real, bool Rows, int... R>
bool matches(const PassLaunch& pass) {
  using K = pass_kernel::FixedConstants<R...>;
  constexpr int kBytes = static_cast<int>(sizeof(Real)) * 2;
  constexpr int kRadices[] = {R...};
  constexpr int kShift = Rows ? kUnpaddedShift : smem_padding_shift(kBytes);
  constexpr int kBuffer = Rows ? K::extent(kBytes) : K::kSize + ((K::kSize - 1) >> kShift) + 1;
  if (pass.stages != static_cast<int>(sizeof...(R))) return false;
  if (pass.shape.size != K::kSize || pass.shape.shift != kShift || pass.shape.smem_stride < kBuffer) return false;
  if (!K::covered_by(pass.threads_per_transform, pass_kernel::kMaxThreads<Real>)) return false;
  for (int st = 0; st < pass.stages; ++st) {
    if (pass.radices[st] != kRadices[st]) return false;
  }
  return true;
}

template <class Real, int... R>
bool launch_if(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status, Sequence<R...>) {
  if (!matches<Real, true, R...>(pass)) return false;
  *status = inverse ? pass_kernel::launch_kernel<Real, true, Sequence<R...>>(pass, stream)
                    : pass_kernel::launch_kernel<Real, false, Sequence<R...>>(pass, stream);
  return true;
}

template <class Real, int... R>
bool launch_if(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status, PaddedSequence<R...>) {
  if (!matches<Real, false, R...>(pass)) return false;
  *status = inverse ? pass_kernel::launch_kernel<Real, true, PaddedSequence<R...>>(pass, stream)
                    : pass_kernel::launch_kernel<Real, false, PaddedSequence<R...>>(pass, stream);
  return true;
}

template <class Real>
bool launch(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
#define IDGPU_FFT_FIXED_TRY(...) launch_if<Real>(pass, inverse, stream, status, Sequence<__VA_ARGS__>()) ||
#define IDGPU_FFT_PADDED_TRY(...) launch_if<Real>(pass, inverse, stream, status, PaddedSequence<__VA_ARGS__>()) ||
  if constexpr (sizeof(Real) == 4) {
    if (IDGPU_FFT_FIXED_PADDED_F32(IDGPU_FFT_PADDED_TRY) false) return true;
  } else {
    if (IDGPU_FFT_FIXED_PADDED_F64(IDGPU_FFT_PADDED_TRY) false) return true;
  }
  return IDGPU_FFT_FIXED_RADICES(IDGPU_FFT_FIXED_TRY) false;
#undef IDGPU_FFT_PADDED_TRY
#undef IDGPU_FFT_FIXED_TRY
}

}  // namespace
}  // namespace idgpu::fft::kernels::fixed
