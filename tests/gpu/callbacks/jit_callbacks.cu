// The JIT (LTO) callbacks of gpu.fft.jit_callbacks, compiled to LTO-IR (nvcc -dc -fatbin with
// code=lto_XX) once per callback: the build defines one of IDGPU_JIT_CALLBACK_{LOAD,STORE}_{C,Z},
// so each fatbin holds a single callback symbol and a plan given a load and a store fatbin never
// sees a symbol twice at link time. Signatures: cufftJITCallbackLoadC / StoreC / LoadZ / StoreZ
// of cufftXt.h (CUDA 13). The arithmetic lives in jit_callbacks.h, shared with the host check.
#include <type_traits>

#include <cufftXt.h>

#include "jit_callbacks.h"

#if defined(IDGPU_JIT_CALLBACK_LOAD_C)
__device__ cufftComplex idgpu_jit_load_c(void* data_in, unsigned long long offset, void* caller_info,
                                         void* shared_pointer) {
  return idgpu_jit_load_value_c(static_cast<const cufftComplex*>(data_in)[offset], offset,
                                static_cast<const IdgpuJitCallbackInfo*>(caller_info));
}
#elif defined(IDGPU_JIT_CALLBACK_STORE_C)
__device__ void idgpu_jit_store_c(void* data_out, unsigned long long offset, cufftComplex element, void* caller_info,
                                  void* shared_pointer) {
  static_cast<cufftComplex*>(data_out)[offset] =
      idgpu_jit_store_value_c(element, offset, static_cast<const IdgpuJitCallbackInfo*>(caller_info));
}
#elif defined(IDGPU_JIT_CALLBACK_LOAD_Z)
__device__ cufftDoubleComplex idgpu_jit_load_z(void* data_in, unsigned long long offset, void* caller_info,
                                               void* shared_pointer) {
  return idgpu_jit_load_value_z(static_cast<const cufftDoubleComplex*>(data_in)[offset], offset,
                                static_cast<const IdgpuJitCallbackInfo*>(caller_info));
}
#elif defined(IDGPU_JIT_CALLBACK_STORE_Z)
__device__ void idgpu_jit_store_z(void* data_out, unsigned long long offset, cufftDoubleComplex element,
                                  void* caller_info, void* shared_pointer) {
  static_cast<cufftDoubleComplex*>(data_out)[offset] =
      idgpu_jit_store_value_z(element, offset, static_cast<const IdgpuJitCallbackInfo*>(caller_info));
}
#else
#error "define one of IDGPU_JIT_CALLBACK_LOAD_C, _STORE_C, _LOAD_Z, _STORE_Z"
#endif

// The signatures cuFFT calls them through: a mismatch fails the build, not the plan.
#if defined(IDGPU_JIT_CALLBACK_LOAD_C)
static_assert(std::is_same<decltype(&idgpu_jit_load_c), cufftJITCallbackLoadC>::value, "cufftJITCallbackLoadC");
#elif defined(IDGPU_JIT_CALLBACK_STORE_C)
static_assert(std::is_same<decltype(&idgpu_jit_store_c), cufftJITCallbackStoreC>::value, "cufftJITCallbackStoreC");
#elif defined(IDGPU_JIT_CALLBACK_LOAD_Z)
static_assert(std::is_same<decltype(&idgpu_jit_load_z), cufftJITCallbackLoadZ>::value, "cufftJITCallbackLoadZ");
#elif defined(IDGPU_JIT_CALLBACK_STORE_Z)
static_assert(std::is_same<decltype(&idgpu_jit_store_z), cufftJITCallbackStoreZ>::value, "cufftJITCallbackStoreZ");
#endif
