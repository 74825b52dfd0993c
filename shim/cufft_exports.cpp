// The exported cuFFT entry points, generated from shim/cufft_api.def.
#include <cufft.h>
#include <cufftXt.h>

#include "boundary.h"
#include "fft/api.h"

#define IDGPU_EXPORT extern "C" __attribute__((visibility("default")))

#define IDGPU_CUFFT_BODY_OWN(name, args) ::idgpu::fft::name(call, IDGPU_UNPACK_ args)
#define IDGPU_CUFFT_BODY_PLAN(name, args) \
  ::idgpu::fft::forward_plan(call, &::idgpu::vendor::CufftTable::name, IDGPU_UNPACK_ args)
#define IDGPU_CUFFT_BODY_FREE(name, args) \
  ::idgpu::fft::forward_free(call, &::idgpu::vendor::CufftTable::name, IDGPU_UNPACK_ args)

#define IDGPU_CUFFT(KIND, name, params, args)                                                         \
  IDGPU_EXPORT cufftResult name params {                                                              \
    return ::idgpu::shim::enter<cufftResult>(                                                         \
        ::idgpu::Api::name, #args,                                                                    \
        [&](::idgpu::Call & call) -> cufftResult { return IDGPU_CUFFT_BODY_##KIND(name, args); }, \
        IDGPU_UNPACK_ args);                                                                          \
  }
#include "cufft_api.def"
#undef IDGPU_CUFFT
