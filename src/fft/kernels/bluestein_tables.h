// Plan-time kernels forming a multi-pass Bluestein plan's chirp and kernel spectrum on the device
// (bluestein_tables.cu; fft/native.cpp calls them).
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

namespace idgpu::fft::kernels {

// chirp[k] = exp(-pi i k^2 / n) for k < n in the plan's precision (float2 when `single`, else
// double2), and kernel[k] for k < m (double): conj chirp at k and m - k, zeros between.
cudaError_t bluestein_chirp_and_kernel(long long n, long long m, bool single, void* chirp, double2* kernel,
                                       cudaStream_t stream);
// spectrum[k] = dft[k] / m in the plan's precision.
cudaError_t bluestein_scaled_spectrum(long long m, const double2* dft, bool single, void* spectrum,
                                      cudaStream_t stream);

}  // namespace idgpu::fft::kernels
