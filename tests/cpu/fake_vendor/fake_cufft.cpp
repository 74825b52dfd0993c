// A fake libcufft: every function of shim/cufft_api.def, generated from that table, records its
// call and returns the status the test chose (success by default). cufftCreate and
// cufftPlan1d/2d/3d/Many hand out handles FAKE_VENDOR_FIRST_CUFFT_HANDLE, +1, ... (a program that
// links the fake calls those directly); the entry points that report a work size write
// FAKE_VENDOR_WORK_SIZE. Like the real library, a call on a handle it never handed out (or
// already destroyed) fails with CUFFT_INVALID_PLAN; the log also counts it as misuse, since
// libidgpu must never pass one.
//
// Built once per cuFFT release the tests play (tests/cpu/CMakeLists.txt), each with that release's
// SONAME and version node. With IDGPU_FAKE_CUFFT11 it is cuFFT 11 (CUDA 12.8-12.9): as that
// release's headers do, the JIT callback with the symbol-name argument is exported as
// __cufftXtSetJITCallback_12_7, and cufftXtSetJITCallback is the older ABI without it.
#ifdef IDGPU_FAKE_CUFFT11
#define cufftXtSetJITCallback __cufftXtSetJITCallback_12_7
#endif
#include <cufft.h>
#include <cufftXt.h>

#include <type_traits>

#include "fake_record.h"

// The two exports the vendor headers do not declare (see shim/cufft_api.def).
extern "C" {
cufftResult cufftXtMakePlanGuru64(cufftHandle plan, unsigned long long a1, unsigned long long a2,
                                  unsigned long long a3, unsigned long long a4, unsigned long long a5,
                                  unsigned long long a6, unsigned long long a7, unsigned long long a8,
                                  unsigned long long a9);
cufftResult cufftDebug(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3,
                       unsigned long long a4, unsigned long long a5);
}

namespace {

using namespace idgpu::test;

enum class Fn {
#define IDGPU_CUFFT(KIND, name, params, args) name,
#include "cufft_api.def"
#undef IDGPU_CUFFT
};

// Entries of a handle (kTakesHandle): cufftCreate and cufftPlan1d/2d/3d/Many (a cufftHandle*
// first) hand out a new one; the others write their sizes. (cufftHandle is an int: the FREE
// entries' int and int* arguments are not handles.)
template <Fn F, bool kTakesHandle>
struct Effect {
  template <class First, class... Rest>
  unsigned long long operator()(First first, Rest... rest) const {
    if constexpr (kTakesHandle && std::is_same<First, cufftHandle*>::value) {
      if (first == nullptr) return 0;
      *first = fakeVendorNewCufftHandle();
      return static_cast<unsigned long long>(*first);
    } else {
      return fake::write_sizes(first, rest...);
    }
  }
};

template <>
struct Effect<Fn::cufftDestroy, true> {
  unsigned long long operator()(cufftHandle plan) const {
    fakeVendorReleaseCufftHandle(plan);
    return 0;
  }
};

template <Fn F, bool kTakesHandle, class First, class... Rest>
cufftResult fake_cufft(const char* name, First first, Rest... rest) {
  cufftResult fallback = CUFFT_SUCCESS;
  if constexpr (kTakesHandle && std::is_same<First, cufftHandle>::value) {
    if (fakeVendorIsLiveCufftHandle(first) == 0) {
      fakeVendorNoteMisuse();
      fallback = CUFFT_INVALID_PLAN;
    }
  }
  return fake::run<cufftResult>(name, fallback, Effect<F, kTakesHandle>{}, first, rest...);
}

}  // namespace

// OWN and PLAN entries take the plan handle (or a pointer to one) first; FREE entries take none.
#define FAKE_TAKES_HANDLE_OWN true
#define FAKE_TAKES_HANDLE_PLAN true
#define FAKE_TAKES_HANDLE_FREE false
// The name recorded is the symbol's (expanded: __cufftXtSetJITCallback_12_7 for cuFFT 11).
#define FAKE_SYMBOL_NAME(name) FAKE_STRING(name)
#define FAKE_STRING(text) #text
#define IDGPU_CUFFT(KIND, name, params, args)                                                       \
  FAKE_EXPORT cufftResult name params {                                                             \
    return fake_cufft<Fn::name, FAKE_TAKES_HANDLE_##KIND>(FAKE_SYMBOL_NAME(name), FAKE_UNPACK args); \
  }
#include "cufft_api.def"
#undef IDGPU_CUFFT

#ifdef IDGPU_FAKE_CUFFT11
#undef cufftXtSetJITCallback
// cuFFT 11's own cufftXtSetJITCallback: (plan, fatbin, size, type, caller_info), no symbol name.
FAKE_EXPORT cufftResult cufftXtSetJITCallback(cufftHandle plan, const void* lto_callback_fatbin,
                                              size_t lto_callback_fatbin_size, cufftXtCallbackType type,
                                              void** caller_info) {
  cufftResult fallback = CUFFT_SUCCESS;
  if (fakeVendorIsLiveCufftHandle(plan) == 0) {
    fakeVendorNoteMisuse();
    fallback = CUFFT_INVALID_PLAN;
  }
  return fake::run<cufftResult>(
      "cufftXtSetJITCallback", fallback, [](auto...) { return 0ull; }, plan, lto_callback_fatbin,
      lto_callback_fatbin_size, type, caller_info);
}
#endif
