// The f64 instantiations of the fused two-pass kernel (stockham_fused.cuh).
#include "fft/kernels/stockham_fused.cuh"

namespace idgpu::fft::kernels {

int fused_resident_blocks_f64(const FusedLaunch& launch) { return fused_resident_blocks<double>(launch); }

cudaError_t launch_fused_f64(const FusedLaunch& launch, bool inverse, cudaStream_t stream) {
  return launch_fused<double>(launch, inverse, stream);
}

}  // namespace idgpu::fft::kernels
