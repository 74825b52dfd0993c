// The cuFFT entry points as the tests call them, generated from shim/cufft_api.def.
//
// Every entry is declared again from the table (a declaration that disagrees with the vendor
// header does not compile) and listed with its kind, so a test can sweep all PLAN or FREE entries.
// call_with_distinct_arguments calls one with a different, recognisable value in every
// parameter, and returns the values as the vendor should receive them.
#pragma once

#include <cufft.h>
#include <cufftXt.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/bits.h"

extern "C" {
#define IDGPU_CUFFT(KIND, name, params, args) cufftResult name params;
#include "cufft_api.def"
#undef IDGPU_CUFFT
}

namespace idgpu::test {

enum class CufftKind { kOwn, kPlan, kFree };

struct CufftCallResult {
  cufftResult status;
  std::vector<unsigned long long> sent;  // the arguments as the vendor should see them
};

// A value for parameter `index` that no other parameter of the call has and no plausible bug
// produces by accident: pointers into an unmapped range, 64-bit integers above 2^32 (a narrowing
// shows), small enums (cuFFT's enums are validated by the vendor, not by us).
template <class T>
T distinct_value(std::size_t index) {
  if constexpr (std::is_same<T, std::size_t*>::value) {
    // Size outputs are written by the fake vendor: real storage, one slot per parameter.
    static std::size_t slots[32];
    return &slots[index];
  } else if constexpr (std::is_pointer<T>::value) {
    return reinterpret_cast<T>(static_cast<std::uintptr_t>(0x7e5700000000ull + 0x1000ull * (index + 1) + 0x40));
  } else if constexpr (std::is_enum<T>::value) {
    return static_cast<T>(0x40 + index);
  } else if constexpr (sizeof(T) >= 8) {
    return static_cast<T>(0x123400000000ull + 0x11ull * (index + 1));
  } else {
    return static_cast<T>(0x3000 + 7 * static_cast<int>(index + 1));
  }
}

// `handle`: for an entry that takes a plan first, what goes in that parameter (our handle);
// `vendor_handle`: what the vendor should receive there instead.
template <class... Params, std::size_t... I>
CufftCallResult call_distinct(cufftResult (*fn)(Params...), std::index_sequence<I...>, bool takes_handle,
                              cufftHandle handle, cufftHandle vendor_handle) {
  std::tuple<Params...> arguments{distinct_value<Params>(I)...};
  CufftCallResult result;
  result.sent = {to_bits(std::get<I>(arguments))...};
  if constexpr (sizeof...(Params) > 0) {
    using First = std::tuple_element_t<0, std::tuple<Params...>>;
    if constexpr (std::is_same<First, cufftHandle>::value) {
      if (takes_handle) {
        std::get<0>(arguments) = handle;
        result.sent[0] = to_bits(vendor_handle);
      }
    }
  }
  result.status = fn(std::get<I>(arguments)...);
  return result;
}

template <class... Params>
CufftCallResult call_with_distinct_arguments(cufftResult (*fn)(Params...), bool takes_handle, cufftHandle handle = 0,
                                             cufftHandle vendor_handle = 0) {
  return call_distinct(fn, std::index_sequence_for<Params...>{}, takes_handle, handle, vendor_handle);
}

// True for an entry whose first parameter is a plan handle (OWN and PLAN entries other than
// cufftCreate and cufftPlan*, which take a cufftHandle* to fill).
template <class... Params>
constexpr bool first_is_handle(cufftResult (*)(Params...)) {
  if constexpr (sizeof...(Params) == 0) {
    return false;
  } else {
    return std::is_same<std::tuple_element_t<0, std::tuple<Params...>>, cufftHandle>::value;
  }
}

struct CufftEntry {
  const char* name;
  CufftKind kind;
  bool takes_handle;
  // Calls the entry with distinct arguments (see above).
  CufftCallResult (*call)(cufftHandle handle, cufftHandle vendor_handle);
};

inline const std::vector<CufftEntry>& cufft_entries() {
  static const std::vector<CufftEntry> entries = {
#define IDGPU_TEST_KIND_OWN CufftKind::kOwn
#define IDGPU_TEST_KIND_PLAN CufftKind::kPlan
#define IDGPU_TEST_KIND_FREE CufftKind::kFree
#define IDGPU_CUFFT(KIND, name, params, args)                                                                \
  {#name, IDGPU_TEST_KIND_##KIND,                                                                           \
   IDGPU_TEST_KIND_##KIND != CufftKind::kFree && first_is_handle(&::name),                                   \
   [](cufftHandle handle, cufftHandle vendor_handle) {                                                       \
     return call_with_distinct_arguments(&::name, IDGPU_TEST_KIND_##KIND != CufftKind::kFree, handle,        \
                                         vendor_handle);                                                     \
   }},
#include "cufft_api.def"
#undef IDGPU_CUFFT
#undef IDGPU_TEST_KIND_OWN
#undef IDGPU_TEST_KIND_PLAN
#undef IDGPU_TEST_KIND_FREE
  };
  return entries;
}

}  // namespace idgpu::test
