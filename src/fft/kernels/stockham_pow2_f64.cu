// The f64 instantiations of the power-of-two pass kernels (stockham_pow2.cuh), in a file of
// their own so that the two precisions compile in parallel.
#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

bool launch_pow2_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
  return inverse ? launch_pow2<double, true>(pass, stream, status) : launch_pow2<double, false>(pass, stream, status);
}
bool pow2_pass_served_f64(const PassLaunch& pass) { return pow2_kind<double>(pass) >= 0; }

}  // namespace idgpu::fft::kernels
