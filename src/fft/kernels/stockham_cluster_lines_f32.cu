// The f32 cluster column passes (stockham_cluster.cuh, stockham_cluster_lines), in a unit of
// their own so that they compile beside the cluster plans' kernels.
#include "fft/kernels/stockham_cluster.cuh"

namespace idgpu::fft::kernels {

cudaError_t launch_cluster_lines_f32(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  if (launch.real_step != kClusterComplex) return cudaErrorInvalidValue;
  const auto line_bits = std::make_integer_sequence<int, kClusterColumnMaxBits - kClusterColumnMinBits + 1>();
  return inverse ? launch_cluster_lines_bits<true>(launch, stream, line_bits)
                 : launch_cluster_lines_bits<false>(launch, stream, line_bits);
}

}  // namespace idgpu::fft::kernels
