#include "core/scratch.h"

#include <array>
#include <cstdint>
#include <mutex>

#include "core/config.h"
#include "core/log.h"

namespace idgpu {
namespace {

constexpr int kDevices = 64;

// One pool per device, made on first use; null where it could not be made (the default pool
// serves then).
struct Pools {
  std::mutex mutex;
  std::array<bool, kDevices> tried{};
  std::array<cudaMemPool_t, kDevices> pool{};
};

Pools& pools() {
  static Pools* all = new Pools();  // never destroyed: frees may run from other libraries' exit paths
  return *all;
}

cudaMemPool_t make_pool(int device) {
  cudaMemPoolProps properties{};
  properties.allocType = cudaMemAllocationTypePinned;
  properties.handleTypes = cudaMemHandleTypeNone;
  properties.location.type = cudaMemLocationTypeDevice;
  properties.location.id = device;
  cudaMemPool_t pool = nullptr;
  if (cudaMemPoolCreate(&pool, &properties) != cudaSuccess) {
    cudaGetLastError();
    log::api().info("no memory pool of its own on device {}; scratch comes from the default pool", device);
    return nullptr;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    total_bytes = 0;
  }
  auto keep = static_cast<std::uint64_t>(scratch_keep_bytes(config().scratch_keep_bytes, total_bytes));
  if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
    cudaGetLastError();
    log::api().info("device {}: the scratch pool keeps nothing between calls", device);
  }
  return pool;
}

cudaMemPool_t device_pool() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  if (device < 0 || device >= kDevices) return nullptr;
  Pools& all = pools();
  const std::lock_guard<std::mutex> lock(all.mutex);
  if (!all.tried[device]) {
    all.pool[device] = make_pool(device);
    all.tried[device] = true;
  }
  return all.pool[device];
}

}  // namespace

long long scratch_keep_bytes(long long configured, std::size_t device_bytes) {
  if (configured >= 0) return configured;
  return static_cast<long long>(device_bytes / 16);
}

cudaError_t scratch_allocate(void** pointer, std::size_t bytes, cudaStream_t stream) {
  *pointer = nullptr;
  cudaMemPool_t pool = device_pool();
  const cudaError_t status =
      pool != nullptr ? cudaMallocFromPoolAsync(pointer, bytes, pool, stream) : cudaMallocAsync(pointer, bytes, stream);
  if (status != cudaSuccess) *pointer = nullptr;
  return status;
}

cudaError_t scratch_free(void* pointer, cudaStream_t stream) {
  return pointer == nullptr ? cudaSuccess : cudaFreeAsync(pointer, stream);
}

}  // namespace idgpu
