// The fp64 passes of multi-pass Bluestein plans (stockham_pow2.cuh's Bluestein kinds), in a file
// of their own so that they compile beside the other pass kernels.
#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_bluestein_step_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  return inverse ? launch_pow2_bluestein<double, true>(pass, stream) : launch_pow2_bluestein<double, false>(pass, stream);
}

}  // namespace idgpu::fft::kernels
