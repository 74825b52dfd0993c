// Host-side launch helpers shared by the FFT kernel files.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

namespace idgpu::fft::kernels {

// Opts the kernel into the dynamic shared memory a launch needs, once per device and size.
template <class Kernel>
cudaError_t allow_shared(Kernel kernel, unsigned bytes, std::atomic<unsigned>* allowed) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  int device = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  if (device < 0 || device >= 64) {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  }
  if (allowed[device].load(std::memory_order_relaxed) >= bytes) return cudaSuccess;
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status == cudaSuccess) allowed[device].store(bytes, std::memory_order_relaxed);
  return status;
}

// Clusters beyond the portable size (more than 8 blocks) for `kernel` on the current device,
// asked once per device as allow_shared does: a function's attributes belong to a device.
template <class Kernel>
cudaError_t allow_wide_clusters(Kernel kernel, std::atomic<bool>* allowed) {
  int device = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  if (device >= 0 && device < 64 && allowed[device].load(std::memory_order_relaxed)) return cudaSuccess;
  const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (status == cudaSuccess && device >= 0 && device < 64) allowed[device].store(true, std::memory_order_relaxed);
  return status;
}

}  // namespace idgpu::fft::kernels
