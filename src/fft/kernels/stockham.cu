// The Stockham pass kernel's general instantiations (stockham_pass.cuh): powers of two and any
// radices, and the entry points that send a pass to the kernel that serves it.
#include "fft/kernels/stockham_pass.cuh"
#include "fft/runtime_kernels.h"

namespace idgpu::fft::kernels {
namespace {

using pass_kernel::AnyStages;
using pass_kernel::launch_kernel;
using pass_kernel::PowersOfTwoStages;

// Whether butterflies_per_thread(r) a thread, as the general kernels take, covers every stage's
// butterflies with the pass's threads (a widened pass, FftPass::widened_limit, needs its fixed
// sequence's kernel).
bool plain_threads(const PassLaunch& pass) {
  for (int st = 0; st < pass.stages; ++st) {
    const long long butterflies = pass.shape.size / pass.radices[st];
    if (static_cast<long long>(butterflies_per_thread(pass.radices[st])) * pass.threads_per_transform < butterflies) {
      return false;
    }
  }
  return true;
}

// Mixed radices: a fixed-sequence kernel where one is compiled for the pass's radices
// (stockham_fixed_f32.cu, stockham_fixed_f64.cu) or loaded for them and the pass's layout
// (fft/runtime_kernels.h), else the run-time switch.
template <class Real, bool Inverse>
cudaError_t launch(const PassLaunch& pass, cudaStream_t stream) {
  bool powers_of_two = true;
  for (int st = 0; st < pass.stages; ++st) powers_of_two = powers_of_two && (pass.radices[st] & (pass.radices[st] - 1)) == 0;
  cudaError_t status = cudaSuccess;
  // A wide pass runs only on its run-time kernel (WideStages, sized under its cap).
  const bool fixed = !powers_of_two && pass.wide_cap == 0 &&
                     (sizeof(Real) == 4 ? launch_fixed_pass_f32(pass, Inverse, stream, &status)
                                        : launch_fixed_pass_f64(pass, Inverse, stream, &status));
  if (fixed) return status;
  // The row, wide or thread layout on a pass no compiled kernel took: planned for a run-time
  // kernel (FftPass::runtime_kernel); the general passes keep the padded layout and never look.
  if (!powers_of_two && (pass.shape.shift == kUnpaddedShift || thread_layout(pass.shape.shift)) &&
      launch_runtime_pass(pass, static_cast<int>(2 * sizeof(Real)), Inverse, stream, &status)) {
    return status;
  }
  if (!plain_threads(pass)) return cudaErrorNotSupported;
  return powers_of_two ? launch_kernel<Real, Inverse, PowersOfTwoStages>(pass, stream)
                       : launch_kernel<Real, Inverse, AnyStages>(pass, stream);
}

}  // namespace

// Real passes (PassLaunch::real_step) of power-of-two halves run on the power-of-two kernels, the
// others (other even lengths, odd ones) here: single passes only, the real step needs the whole
// transform in the block.
cudaError_t launch_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  if (pass.convolution != 0) return launch_bluestein_pass_f32(pass, inverse, stream);
  if (pass.bluestein != 0) return launch_bluestein_step_f32(pass, inverse, stream);
  if (cudaError_t status = cudaSuccess; launch_pow2_pass_f32(pass, inverse, stream, &status)) return status;
  if (pass.real_step != 0 && (pass.shape.sub != 1 || pass.shape.span != 1)) return cudaErrorNotSupported;
  return inverse ? launch<float, true>(pass, stream) : launch<float, false>(pass, stream);
}

cudaError_t launch_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  if (pass.convolution != 0) return launch_bluestein_pass_f64(pass, inverse, stream);
  if (pass.bluestein != 0) return launch_bluestein_step_f64(pass, inverse, stream);
  if (cudaError_t status = cudaSuccess; launch_pow2_pass_f64(pass, inverse, stream, &status)) return status;
  if (pass.real_step != 0 && (pass.shape.sub != 1 || pass.shape.span != 1)) return cudaErrorNotSupported;
  return inverse ? launch<double, true>(pass, stream) : launch<double, false>(pass, stream);
}

}  // namespace idgpu::fft::kernels
