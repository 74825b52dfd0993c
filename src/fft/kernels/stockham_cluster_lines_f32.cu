// The f32 cluster column passes (stockham_cluster.cuh, stockham_cluster_lines), in a unit of
// their own so that they compile beside the cluster plans' kernels.
#include "fft/kernels/stockham_cluster.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_cluster_lines_f32(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  return launch_cluster_lines<float>(launch, inverse, stream);
}

}  // namespace idgpu::fft::kernels
