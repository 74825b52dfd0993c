// The f64 instantiations of the one-pass Bluestein kernels over powers of two
// (stockham_bluestein.cuh), in a file of their own so that they compile in parallel with the other
// kernels, and the entry points that send a one-pass Bluestein pass to its kernel.
#include "fft/kernels/stockham_bluestein.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_bluestein_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  return launch_one_pass<double>(pass, inverse, stream, launch_bluestein_mixed_f64);
}

bool bluestein_pass_served_f64(const PassLaunch& pass) { return one_pass_served<double>(pass, launch_bluestein_mixed_f64); }

}  // namespace idgpu::fft::kernels
