// The f64 instantiations of the cluster kernel (stockham_cluster.cuh).
#include "fft/kernels/stockham_cluster.cuh"

namespace idgpu::fft::kernels {

bool cluster_kernels_usable_f64() { return cluster_kernels_usable<double>(); }

cudaError_t launch_cluster_f64(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  return launch_cluster<double>(launch, inverse, stream);
}

}  // namespace idgpu::fft::kernels
