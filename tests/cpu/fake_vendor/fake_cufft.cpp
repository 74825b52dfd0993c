// A fake libcufft: every function of shim/cufft_api.def, generated from that table, records its
// call and returns the status the test chose (success by default). cufftCreate hands out handles
// FAKE_VENDOR_FIRST_CUFFT_HANDLE, +1, ...; the entry points that report a work size write
// FAKE_VENDOR_WORK_SIZE. Like the real library, a call on a handle it never handed out (or
// already destroyed) fails with CUFFT_INVALID_PLAN; the log also counts it as misuse, since
// libidgpu must never pass one.
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

template <Fn F>
struct Effect {
  template <class... Args>
  unsigned long long operator()(Args... args) const {
    return fake::write_sizes(args...);
  }
};

template <>
struct Effect<Fn::cufftCreate> {
  unsigned long long operator()(cufftHandle* plan) const {
    if (plan == nullptr) return 0;
    *plan = fakeVendorNewCufftHandle();
    return static_cast<unsigned long long>(*plan);
  }
};

template <>
struct Effect<Fn::cufftDestroy> {
  unsigned long long operator()(cufftHandle plan) const {
    fakeVendorReleaseCufftHandle(plan);
    return 0;
  }
};

template <class First, class... Rest>
cufftHandle first_handle(First first, Rest...) {
  if constexpr (std::is_same<First, cufftHandle>::value) {
    return first;
  } else {
    return 0;
  }
}

template <Fn F, class... Args>
cufftResult fake_cufft(const char* name, bool takes_handle, Args... args) {
  cufftResult fallback = CUFFT_SUCCESS;
  if constexpr (F != Fn::cufftCreate && sizeof...(Args) > 0) {
    if (takes_handle && fakeVendorIsLiveCufftHandle(first_handle(args...)) == 0) {
      fakeVendorNoteMisuse();
      fallback = CUFFT_INVALID_PLAN;
    }
  }
  return fake::run<cufftResult>(name, fallback, Effect<F>{}, args...);
}

}  // namespace

// OWN and PLAN entries take the plan handle first; FREE entries take none.
#define FAKE_TAKES_HANDLE_OWN true
#define FAKE_TAKES_HANDLE_PLAN true
#define FAKE_TAKES_HANDLE_FREE false
#define IDGPU_CUFFT(KIND, name, params, args)                                          \
  FAKE_EXPORT cufftResult name params {                                                \
    return fake_cufft<Fn::name>(#name, FAKE_TAKES_HANDLE_##KIND, FAKE_UNPACK args); \
  }
#include "cufft_api.def"
#undef IDGPU_CUFFT
