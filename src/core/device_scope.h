// A plan's device made current for a scope, the caller's restored after it: the out-of-core
// plans (src/ooc, src/poisson/ooc_solver.h) run on the device current when they were made.
#pragma once

#include <cuda_runtime_api.h>

namespace idgpu {

class DeviceScope {
 public:
  explicit DeviceScope(int device) : device_(device) {
    if (cudaGetDevice(&caller_) != cudaSuccess) {
      cudaGetLastError();
      caller_ = -1;
    }
    if (caller_ != device_) status_ = cudaSetDevice(device_);
  }
  ~DeviceScope() {
    if (caller_ >= 0 && caller_ != device_) cudaSetDevice(caller_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  // The status of making the plan's device current (cudaSuccess where it already was).
  cudaError_t status() const { return status_; }

 private:
  int device_;
  int caller_ = -1;
  cudaError_t status_ = cudaSuccess;
};

}  // namespace idgpu
