// The f64 instantiations of the one-pass Bluestein kernels over powers of two
// (stockham_bluestein.cuh), in a file of their own so that they compile in parallel with the other
// kernels, and the entry points that send a one-pass Bluestein pass to its kernel.
#include "fft/kernels/stockham_bluestein.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_bluestein_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  if (bluestein_served<double>(pass)) return launch_bluestein<double>(pass, inverse, stream);
  if (pass.chirp == nullptr || pass.spectrum == nullptr ||
      ((pass.real_step == kBluesteinPackR2C || pass.real_step == kBluesteinUnpackC2R) && pass.real_twiddles == nullptr)) {
    return cudaErrorNotSupported;
  }
  cudaError_t status = cudaErrorNotSupported;
  launch_bluestein_mixed_f64(pass, inverse, stream, &status);
  return status;
}

bool bluestein_pass_served_f64(const PassLaunch& pass) {
  return bluestein_served<double>(pass) || launch_bluestein_mixed_f64(pass, false, nullptr, nullptr);
}

}  // namespace idgpu::fft::kernels
