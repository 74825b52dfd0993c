// The Poisson solver's kernels in double (poisson.cuh).
#include "poisson/kernels/poisson.cuh"

namespace idgpu::poisson::kernels {

cudaError_t launch_periodic_columns_f64(const PeriodicColumns& launch, cudaStream_t stream) {
  return launch_periodic<double>(launch, stream);
}

cudaError_t launch_scale_spectrum_f64(const SpectrumScale& launch, cudaStream_t stream) {
  return launch_scale<double>(launch, stream);
}

cudaError_t column_mean_f64(const void* data, long long stride, int m, void* mean, cudaStream_t stream) {
  return launch_column_mean<double>(data, stride, m, false, 0.0, mean, stream);
}

cudaError_t set_column_mean_f64(void* data, long long stride, int m, double target, cudaStream_t stream) {
  return launch_column_mean<double>(data, stride, m, true, target, nullptr, stream);
}

}  // namespace idgpu::poisson::kernels
