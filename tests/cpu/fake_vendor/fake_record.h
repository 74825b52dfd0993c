// The body every fake vendor function shares: pick the status, apply the function's effect on
// its outputs when it succeeds, record the call.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "fake_vendor.h"
#include "support/bits.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))
#define FAKE_UNPACK(...) __VA_ARGS__

namespace idgpu::test::fake {

// Writes FAKE_VENDOR_WORK_SIZE through every size_t* argument: each entry point that reports a
// work area or buffer size has exactly one. Returns what was written (0: nothing).
template <class... Args>
unsigned long long write_sizes(Args... args) {
  unsigned long long written = 0;
  auto one = [&](auto value) {
    if constexpr (std::is_same<decltype(value), std::size_t*>::value) {
      if (value != nullptr) {
        *value = static_cast<std::size_t>(FAKE_VENDOR_WORK_SIZE);
        written = FAKE_VENDOR_WORK_SIZE;
      }
    }
  };
  (one(args), ...);
  return written;
}

template <class... Args>
FakeVendorCall describe(const char* name, Args... args) {
  static_assert(sizeof...(Args) <= FAKE_VENDOR_MAX_ARGS, "raise FAKE_VENDOR_MAX_ARGS");
  FakeVendorCall call{};
  std::strncpy(call.name, name, sizeof(call.name) - 1);
  call.argc = static_cast<int>(sizeof...(Args));
  int index = 0;
  ((call.args[index++] = to_bits(args)), ...);
  return call;
}

// `effect` runs only when the chosen status is success (a failing vendor writes nothing).
template <class Status, class Effect, class... Args>
Status run(const char* name, Status fallback_status, Effect&& effect, Args... args) {
  FakeVendorCall call = describe(name, args...);
  int chosen = 0;
  Status status = fakeVendorChosenStatus(name, &chosen) ? static_cast<Status>(chosen) : fallback_status;
  if (status == Status{}) call.out = effect(args...);
  call.status = static_cast<int>(status);
  fakeVendorRecord(&call);
  return status;
}

}  // namespace idgpu::test::fake
