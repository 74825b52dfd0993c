// The exported API when the vendor library cannot be used: IDGPU_VENDOR_CUFFT and
// IDGPU_VENDOR_CUSPARSE point at a path that does not exist, at a library that is not the one
// asked for, or at our own stand-ins (CTest entries cpu.vendor_missing.*). Every call returns
// CUFFT_SETUP_FAILED / CUSPARSE_STATUS_NOT_INITIALIZED (or the status of a check made before the
// vendor is needed), writes no output, and nothing crashes.
#include <catch2/catch.hpp>

#include <cufft.h>
#include <cusparse.h>

#include <string>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/cufft_calls.h"
#include "support/gtsv_calls.h"

using namespace idgpu::test;

namespace {

constexpr cufftHandle kSentinel = 0x5a5a5a;

}  // namespace

TEST_CASE("no vendor path is reported", "[cpu][vendor-missing]") {
  CHECK(idgpuGetVendorLibraryPath(IDGPU_VENDOR_CUFFT) == nullptr);
  CHECK(idgpuGetVendorLibraryPath(IDGPU_VENDOR_CUSPARSE) == nullptr);
  // Asking again does not retry into a crash or a different answer.
  CHECK(idgpuGetVendorLibraryPath(IDGPU_VENDOR_CUFFT) == nullptr);
}

TEST_CASE("cuFFT plan creation returns CUFFT_SETUP_FAILED and writes no handle", "[cpu][vendor-missing]") {
  int n[2] = {8, 8};
  for (int attempt = 0; attempt < 2; ++attempt) {
    CAPTURE(attempt);
    cufftHandle plan = kSentinel;
    CHECK(cufftCreate(&plan) == CUFFT_SETUP_FAILED);
    CHECK(cufftPlan1d(&plan, 8, CUFFT_C2C, 1) == CUFFT_SETUP_FAILED);
    CHECK(cufftPlan2d(&plan, 8, 8, CUFFT_R2C) == CUFFT_SETUP_FAILED);
    CHECK(cufftPlan3d(&plan, 4, 4, 4, CUFFT_Z2Z) == CUFFT_SETUP_FAILED);
    CHECK(cufftPlanMany(&plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, CUFFT_D2Z, 3) == CUFFT_SETUP_FAILED);
    CHECK(plan == kSentinel);
  }
  // Our own check of the plan pointer still comes first; sizes and types are the vendor's to
  // judge, and there is none.
  cufftHandle plan = kSentinel;
  CHECK(cufftCreate(nullptr) == CUFFT_INVALID_VALUE);
  CHECK(cufftPlan1d(nullptr, 8, CUFFT_C2C, 1) == CUFFT_INVALID_VALUE);
  CHECK(cufftPlan1d(&plan, 0, CUFFT_C2C, 1) == CUFFT_SETUP_FAILED);
  CHECK(cufftPlan1d(&plan, 8, static_cast<cufftType>(0x7f), 1) == CUFFT_SETUP_FAILED);
  CHECK(plan == kSentinel);
}

TEST_CASE("every FREE and PLAN entry returns CUFFT_SETUP_FAILED", "[cpu][vendor-missing]") {
  for (const CufftEntry& entry : cufft_entries()) {
    if (entry.kind == CufftKind::kOwn) continue;
    CAPTURE(entry.name);
    // Any handle: none can exist, and the missing vendor is reported first.
    CHECK(entry.call(1, 0).status == CUFFT_SETUP_FAILED);
    CHECK(entry.call(0x2fffff, 0).status == CUFFT_SETUP_FAILED);
  }
}

TEST_CASE("the handle-taking OWN entries refuse every handle (none can be created)", "[cpu][vendor-missing]") {
  for (const CufftEntry& entry : cufft_entries()) {
    if (entry.kind != CufftKind::kOwn || !entry.takes_handle) continue;
    CAPTURE(entry.name);
    for (cufftHandle handle : {1, 2, 1000}) {
      CAPTURE(handle);
      CHECK(entry.call(handle, 0).status == CUFFT_INVALID_PLAN);
    }
  }
}

TEST_CASE("every gtsv entry returns CUSPARSE_STATUS_NOT_INITIALIZED for valid arguments", "[cpu][vendor-missing]") {
  for (const GtsvEntry& entry : gtsv_entries()) {
    CAPTURE(entry.name);
    std::size_t size = 4242;
    CHECK(entry.call(valid_gtsv_args(&size)).status == CUSPARSE_STATUS_NOT_INITIALIZED);
    CHECK(size == 4242);
    // What our own checks refuse is refused as usual: a null size output, null data in a solve.
    GtsvArgs invalid = valid_gtsv_args(&size);
    if (entry.is_buffer_size) {
      invalid.size = nullptr;
    } else {
      invalid.dl = nullptr;
    }
    CHECK(entry.call(invalid).status == CUSPARSE_STATUS_INVALID_VALUE);
  }
}

TEST_CASE("calls with the vendor missing are counted as failed", "[cpu][vendor-missing][stats]") {
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  int version = 0;
  CHECK(cufftGetVersion(&version) == CUFFT_SETUP_FAILED);
  CHECK(version == 0);
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName("cufftGetVersion", &stats) == IDGPU_STATUS_SUCCESS);
  CHECK(stats.calls == 1);
  CHECK(stats.failedCalls == 1);
  CHECK(stats.vendorCalls == 0);
  CHECK(stats.nativeCalls == 0);
}

// With no vendor library nothing reached the vendor: no call may be counted as served by it.
TEST_CASE("with the vendor missing no call is counted as served by the vendor",
          "[cpu][vendor-missing][stats]") {
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  cufftHandle plan = kSentinel;
  CHECK(cufftCreate(&plan) == CUFFT_SETUP_FAILED);
  std::size_t size = 0;
  CHECK(gtsv_entries().front().call(valid_gtsv_args(&size)).status == CUSPARSE_STATUS_NOT_INITIALIZED);
  for (int index = 0; index < idgpuGetCallStatsCount(); ++index) {
    idgpuCallStats_t stats{};
    REQUIRE(idgpuGetCallStats(index, &stats) == IDGPU_STATUS_SUCCESS);
    CAPTURE(stats.name);
    CHECK(stats.vendorCalls == 0);
  }
}
