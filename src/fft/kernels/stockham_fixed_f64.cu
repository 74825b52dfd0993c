// The f64 fixed-sequence Stockham kernels (stockham_fixed.cuh).
#include "fft/kernels/stockham_fixed.cuh"

namespace idgpu::fft::kernels {

bool launch_fixed_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
  return fixed::launch<double>(pass, inverse, stream, status);
}

}  // namespace idgpu::fft::kernels
