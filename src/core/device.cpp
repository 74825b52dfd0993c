#include "core/device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>

namespace idgpu {
namespace {

// The current device's ordinal, or -1 (the runtime's error cleared) when there is none.
int current_device() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) {
    cudaGetLastError();
    return -1;
  }
  return device;
}

int attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, which, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return value;
}

}  // namespace

int current_device_arch() {
  static std::array<std::atomic<int>, 64> cache{};  // arch + 1; 0 = not read yet
  const int device = current_device();
  if (device < 0 || device >= static_cast<int>(cache.size())) return 0;
  int known = cache[device].load(std::memory_order_relaxed);
  if (known == 0) {
    known = attribute(cudaDevAttrComputeCapabilityMajor, device) * 10 +
            attribute(cudaDevAttrComputeCapabilityMinor, device) + 1;
    cache[device].store(known, std::memory_order_relaxed);
  }
  return known - 1;
}

int current_device_memory_gbs() {
  static std::array<std::atomic<int>, 64> cache{};  // GB/s + 1; 0 = not read yet
  const int device = current_device();
  if (device < 0 || device >= static_cast<int>(cache.size())) return 0;
  int known = cache[device].load(std::memory_order_relaxed);
  if (known == 0) {
    const double khz = attribute(cudaDevAttrMemoryClockRate, device);
    const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    known = static_cast<int>(2.0 * khz * 1e3 * bus_bits / 8.0 / 1e9 + 0.5) + 1;
    cache[device].store(known, std::memory_order_relaxed);
  }
  return known - 1;
}

bool current_device_block_limits(std::size_t* shared_bytes, int* threads, int* multiprocessors) {
  const int device = current_device();
  if (device < 0) return false;
  *shared_bytes = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  *threads = attribute(cudaDevAttrMaxThreadsPerBlock, device);
  *multiprocessors = attribute(cudaDevAttrMultiProcessorCount, device);
  return *shared_bytes > 0 && *threads > 0;
}

std::size_t current_device_l2_bytes() {
  const int device = current_device();
  if (device < 0) return 0;
  return static_cast<std::size_t>(std::max(attribute(cudaDevAttrL2CacheSize, device), 0));
}

int copy_to_device(void* device, const void* host, std::size_t bytes) {
  cudaStream_t stream = nullptr;
  cudaError_t status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (status == cudaSuccess) status = cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream);
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  if (stream != nullptr) cudaStreamDestroy(stream);
  return static_cast<int>(status);
}

}  // namespace idgpu
