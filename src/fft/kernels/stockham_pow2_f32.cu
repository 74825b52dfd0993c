// The f32 instantiations of the power-of-two pass kernels (stockham_pow2.cuh), in a file of
// their own so that the two precisions compile in parallel.
#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

bool launch_pow2_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
  return inverse ? launch_pow2<float, true>(pass, stream, status) : launch_pow2<float, false>(pass, stream, status);
}

bool computes_interpass_twiddles_f32(const PassLaunch& pass) {
  const int kind = pow2_kind<float>(pass);
  return kind == kColumn || kind == kPairedPack || kind == kSpectrumTurn || kind == kChirpLast;
}
bool pow2_pass_served_f32(const PassLaunch& pass) { return pow2_kind<float>(pass) >= 0; }

}  // namespace idgpu::fft::kernels
