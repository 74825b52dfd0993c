// Native kernel launches: which failures leave a call for the vendor to redo, the count of this
// call's launches that ran, and a test aid that makes launches fail (IDGPU_FAULT_INJECT).
//
// A native call (one cufftExec*, one gtsv solve) issues its launches from one host thread, in
// order, each checked before the next: begin_call() starts the count, and every launch goes
// through counted(), so launches_ran() == 0 after a failure says exactly that nothing of the call
// ran on the device, and the vendor may serve it from the caller's untouched arrays.
#pragma once

#include <cuda_runtime_api.h>

#include <type_traits>

#include "core/config.h"

namespace idgpu::launch {

// True for the errors that mean "this kernel could not be launched" and leave the context usable
// (no image or PTX for this device, a shape or resources it refuses, a launch attribute it lacks;
// or the call's stream-ordered scratch could not be allocated).
// Errors a kernel raises while it runs (cudaErrorIllegalAddress, cudaErrorLaunchFailure, ...)
// poison the context: they are never on this list, and a call that meets one fails.
inline bool not_launched(cudaError_t status) {
  switch (status) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorInvalidPtx:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorJitCompilerNotFound:
    case cudaErrorJitCompilationDisabled:
    case cudaErrorInvalidSource:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidClusterSize:
    case cudaErrorCooperativeLaunchTooLarge:
    case cudaErrorNotSupported:
    case cudaErrorInvalidValue:
    case cudaErrorMemoryAllocation:
      return true;
    default:
      return false;
  }
}

// IDGPU_FAULT_INJECT (a test aid, core/config.h): `launch` fails every native launch as if the
// device had no kernel image for it; `second-launch` fails the second launch of each native call,
// after the first could have written the caller's arrays. Nothing is launched where a fault is
// injected.
inline FaultInject injected_fault() { return config().fault_inject; }

// This thread's native call in progress: launches tried and launches that ran.
struct CallLaunches {
  int tried = 0;
  int ran = 0;
};
inline thread_local CallLaunches t_call_launches;

// Starts a native call: none of its launches has run. An error an earlier runtime call left
// behind (not sticky) is cleared, so that it is not taken for one of this call's launches.
inline void begin_call() {
  t_call_launches = CallLaunches{};
  cudaGetLastError();
}

// How many launches of the call in progress ran (were enqueued).
inline int launches_ran() { return t_call_launches.ran; }

// One launch of a native call. `enqueue` either launches with <<<>>> and returns nothing (the
// status is then cudaGetLastError's) or returns the status of its launch call; a launch that
// succeeds is counted.
template <class Enqueue>
cudaError_t counted(Enqueue&& enqueue) {
  const int attempt = ++t_call_launches.tried;
  const FaultInject fault = injected_fault();
  if (fault == FaultInject::kLaunch || (fault == FaultInject::kSecondLaunch && attempt == 2)) {
    return cudaErrorNoKernelImageForDevice;
  }
  cudaError_t status = cudaSuccess;
  if constexpr (std::is_void_v<std::invoke_result_t<Enqueue&>>) {
    enqueue();
    status = cudaGetLastError();
  } else {
    status = enqueue();
  }
  if (status == cudaSuccess) ++t_call_launches.ran;
  return status;
}

}  // namespace idgpu::launch
