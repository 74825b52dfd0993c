// The f32 instantiations of the one-pass Bluestein kernels over mixed lengths
// (stockham_bluestein_mixed.cuh, IDGPU_FFT_BLUESTEIN_MIXED_F32), in a file of their own so that
// they compile in parallel with the other kernels.
#include "fft/kernels/stockham_bluestein_mixed.cuh"

namespace idgpu::fft::kernels {

bool launch_bluestein_mixed_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
#define IDGPU_FFT_MIXED_TRY(...) bluestein_mixed::try_length<float, __VA_ARGS__>(pass, inverse, stream, status) ||
  return IDGPU_FFT_BLUESTEIN_MIXED_F32(IDGPU_FFT_MIXED_TRY) false;
#undef IDGPU_FFT_MIXED_TRY
}

}  // namespace idgpu::fft::kernels
