// The cuFFT API behind the exported entry points: one C++ function per OWN entry of
// shim/cufft_api.def (same name and parameters, plus the Call being served), and the two generic
// forwards for PLAN and FREE entries.
#pragma once

#include <cufft.h>
#include <cufftXt.h>

#include "core/api.h"
#include "core/log.h"
#include "core/vendor.h"
#include "fft/plan.h"

namespace idgpu::fft {

#define IDGPU_UNPACK_(...) __VA_ARGS__
#define IDGPU_CUFFT_DECLARE_OWN(name, params) cufftResult name(Call& call, IDGPU_UNPACK_ params);
#define IDGPU_CUFFT_DECLARE_PLAN(name, params)
#define IDGPU_CUFFT_DECLARE_FREE(name, params)
#define IDGPU_CUFFT(KIND, name, params, args) IDGPU_CUFFT_DECLARE_##KIND(name, params)
#include "cufft_api.def"
#undef IDGPU_CUFFT
#undef IDGPU_CUFFT_DECLARE_OWN
#undef IDGPU_CUFFT_DECLARE_PLAN
#undef IDGPU_CUFFT_DECLARE_FREE

// Status returned when the vendor library cannot be found.
constexpr cufftResult kVendorMissing = CUFFT_SETUP_FAILED;

// Makes the vendor plan behind a native plan (from its descriptor, with its settings), once.
cufftResult make_vendor_plan(Plan& plan, Api api);

// Marks a plan as served by the vendor from now on (a vendor-only feature was used on it).
cufftResult pin_to_vendor(Plan& plan, Api api);

// A PLAN entry: maps our handle to the plan's vendor handle and forwards.
template <class Fn, class... Args>
cufftResult forward_plan(Call& call, Fn vendor::CufftTable::*entry, cufftHandle handle, Args... args) {
  const vendor::CufftTable* table = vendor::cufft();
  if (table == nullptr || table->*entry == nullptr) return kVendorMissing;
  Plan* plan = handles().find(handle);
  if (plan == nullptr) return CUFFT_INVALID_PLAN;
  if (const cufftResult pinned = pin_to_vendor(*plan, call.api); pinned != CUFFT_SUCCESS) return pinned;
  call.path = Path::kVendor;
  call.reason = "vendor-only feature";
  return (table->*entry)(plan->vendor, args...);
}

// A FREE entry: forwarded unchanged.
template <class Fn, class... Args>
cufftResult forward_free(Call& call, Fn vendor::CufftTable::*entry, Args... args) {
  const vendor::CufftTable* table = vendor::cufft();
  if (table == nullptr || table->*entry == nullptr) return kVendorMissing;
  call.path = Path::kVendor;
  call.reason = "forwarded";
  return (table->*entry)(args...);
}

}  // namespace idgpu::fft
