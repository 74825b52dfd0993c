// The f32 instantiations of the cluster kernel (stockham_cluster.cuh).
#include "fft/kernels/stockham_cluster.cuh"

namespace idgpu::fft::kernels {

bool cluster_kernels_usable_f32() { return cluster_kernels_usable<float>(); }

cudaError_t launch_cluster_f32(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  return launch_cluster<float>(launch, inverse, stream);
}

}  // namespace idgpu::fft::kernels
