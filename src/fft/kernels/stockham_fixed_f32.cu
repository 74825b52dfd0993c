// The f32 fixed-sequence Stockham kernels (stockham_fixed.cuh).
#include "fft/kernels/stockham_fixed.cuh"

namespace idgpu::fft::kernels {

bool launch_fixed_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
  return fixed::launch<float>(pass, inverse, stream, status);
}

}  // namespace idgpu::fft::kernels
