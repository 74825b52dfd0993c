// The f64 cluster column passes (stockham_cluster.cuh, stockham_cluster_lines).
#include "fft/kernels/stockham_cluster.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_cluster_lines_f64(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  return launch_cluster_lines<double>(launch, inverse, stream);
}

}  // namespace idgpu::fft::kernels
