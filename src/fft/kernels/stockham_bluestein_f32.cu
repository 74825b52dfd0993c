// The f32 instantiations of the one-pass Bluestein kernels (stockham_bluestein.cuh), in a file of
// their own so that they compile in parallel with the other kernels.
#include "fft/kernels/stockham_bluestein.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_bluestein_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  return launch_bluestein<float>(pass, inverse, stream);
}

bool bluestein_pass_served_f32(const PassLaunch& pass) { return bluestein_served<float>(pass); }

}  // namespace idgpu::fft::kernels
