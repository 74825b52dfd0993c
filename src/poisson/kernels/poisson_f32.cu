// The Poisson solver's kernels in float (poisson.cuh).
#include "poisson/kernels/poisson.cuh"

namespace idgpu::poisson::kernels {

cudaError_t launch_periodic_columns_f32(const PeriodicColumns& launch, cudaStream_t stream) {
  return launch_periodic<float>(launch, stream);
}

cudaError_t launch_scale_spectrum_f32(const SpectrumScale& launch, cudaStream_t stream) {
  return launch_scale<float>(launch, stream);
}

cudaError_t column_mean_f32(const void* data, long long stride, int m, void* mean, cudaStream_t stream) {
  return launch_column_mean<float>(data, stride, m, false, 0.0, mean, stream);
}

cudaError_t set_column_mean_f32(void* data, long long stride, int m, double target, cudaStream_t stream) {
  return launch_column_mean<float>(data, stride, m, true, target, nullptr, stream);
}

}  // namespace idgpu::poisson::kernels
