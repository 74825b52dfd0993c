// The exported cuFFT entry points, generated from shim/cufft_api.def, in the two symbol-version
// nodes of the cuFFT releases idgpu serves: libcufft.so.12 (CUDA 13; the default node, which the
// version script assigns) and libcufft.so.11 (CUDA 12; bound with .symver below), so that an
// application built against either binds to libidgpu. Both run the same body; the first call
// records which release its caller was built against, so that the vendor library idgpu loads is
// that release (the one whose ABI the caller uses).
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

namespace {
#define IDGPU_CUFFT(KIND, name, params, args)                                                         \
  inline cufftResult serve_##name params {                                                            \
    return ::idgpu::shim::enter<cufftResult>(                                                         \
        ::idgpu::Api::name, #args,                                                                    \
        [&](::idgpu::Call & call) -> cufftResult { return IDGPU_CUFFT_BODY_##KIND(name, args); }, \
        IDGPU_UNPACK_ args);                                                                          \
  }
#include "cufft_api.def"
#undef IDGPU_CUFFT
}  // namespace

// libcufft.so.12 (the version script puts these names in that node).
#define IDGPU_CUFFT(KIND, name, params, args)                             \
  IDGPU_EXPORT cufftResult name params {                                  \
    ::idgpu::vendor::note_cufft_client(IDGPU_VENDOR_CUFFT_SONAME);        \
    return serve_##name args;                                             \
  }
#include "cufft_api.def"
#undef IDGPU_CUFFT

// libcufft.so.11: one entry per function (exported under its own name only through the .symver
// aliases; the version script keeps the cufft11_ names themselves local).
#define IDGPU_CUFFT(KIND, name, params, args)                               \
  IDGPU_EXPORT cufftResult cufft11_##name params {                          \
    ::idgpu::vendor::note_cufft_client(IDGPU_VENDOR_CUFFT11_SONAME);          \
    return serve_##name args;                                               \
  }
#include "cufft_api.def"
#undef IDGPU_CUFFT

// cuFFT 11's cufftXtSetJITCallback: the ABI before the symbol-name argument (cuFFT 11.2 to
// 11.4). Forwarded as it came where the vendor loaded is cuFFT 11; cuFFT 12 has no function of
// that ABI, so there the call is refused with the vendor's "not supported".
IDGPU_EXPORT cufftResult cufft11_legacy_cufftXtSetJITCallback(cufftHandle plan, const void* lto_callback_fatbin,
                                                               size_t lto_callback_fatbin_size,
                                                               cufftXtCallbackType type, void** caller_info) {
  ::idgpu::vendor::note_cufft_client(IDGPU_VENDOR_CUFFT11_SONAME);
  return ::idgpu::shim::enter<cufftResult>(
      ::idgpu::Api::cufftXtSetJITCallback, "(plan, lto_callback_fatbin, lto_callback_fatbin_size, type, caller_info)",
      [&](::idgpu::Call& call) -> cufftResult {
        const ::idgpu::vendor::CufftTable* table = ::idgpu::vendor::cufft();
        if (table != nullptr && table->legacy_cufftXtSetJITCallback == nullptr) {
          ::idgpu::log::api().error(
              "cufftXtSetJITCallback of cuFFT 11 (without a symbol name) called, but the vendor library loaded is "
              "{}, which has no function of that ABI",
              ::idgpu::vendor::cufft_library().soname());
          return CUFFT_NOT_SUPPORTED;
        }
        return ::idgpu::fft::forward_plan(call, &::idgpu::vendor::CufftTable::legacy_cufftXtSetJITCallback, plan,
                                          lto_callback_fatbin, lto_callback_fatbin_size, type, caller_info);
      },
      plan, lto_callback_fatbin, lto_callback_fatbin_size, type, caller_info);
}

#define IDGPU_CUFFT_NODE_SYMBOL(node, symbol, entry) __asm__(".symver cufft11_" #entry ", " #symbol "@" #node);
#include "cufft11_symbols.inc"
#undef IDGPU_CUFFT_NODE_SYMBOL
