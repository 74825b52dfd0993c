// Argument validation (support/validation_table.cpp) against the fake vendor: each refused call
// returns the table's status, reaches no vendor function and writes no output; each argument
// left to the vendor reaches it unchanged and the vendor's status comes back.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/fake_client.h"
#include "support/policy_guard.h"
#include "support/validation_table.h"

using namespace idgpu::test;

namespace {

// The vendor handle behind one of our plans: the first argument the vendor sees for it.
cufftHandle vendor_handle_of(cufftHandle plan) {
  fakeVendorReset();
  REQUIRE(cufftSetStream(plan, nullptr) == CUFFT_SUCCESS);
  const RecordedCall call = last_vendor_call();
  REQUIRE(call.name == "cufftSetStream");
  fakeVendorReset();
  return static_cast<cufftHandle>(call.args.at(0));
}

ValidationContext& context() {
  static ValidationContext* instance = [] {
    auto* made = new ValidationContext();
    REQUIRE(make_validation_context(made, from_bits<void*>(0x7dd000000000ull),
                                    from_bits<cusparseHandle_t>(0xC5A0F00Dull)));
    for (cufftHandle plan : {made->c2c_plan, made->r2c_plan, made->c2r_plan, made->z2z_plan, made->d2z_plan,
                             made->z2d_plan, made->created_plan}) {
      made->vendor_of[plan] = vendor_handle_of(plan);
    }
    return made;
  }();
  return *instance;
}

// A row that should have been refused but made a plan: destroy it, so that the handle (which the
// handle table may have taken from the context's destroyed plan) is not live for later rows.
void destroy_unexpected_plan(ValidationContext& c) {
  if (c.out_plan != kSentinelPlan) {
    cufftDestroy(c.out_plan);
    c.out_plan = kSentinelPlan;
  }
}

// True when `actual` is `expected` but for the markers of PassThroughCase.
bool same_arguments(const std::vector<unsigned long long>& expected, const std::vector<unsigned long long>& actual,
                    unsigned long long new_plan) {
  if (expected.size() != actual.size()) return false;
  for (std::size_t index = 0; index < expected.size(); ++index) {
    if (expected[index] == kAnyValue) continue;
    const unsigned long long wanted = expected[index] == kNewVendorPlan ? new_plan : expected[index];
    if (actual[index] != wanted) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every refused row of the validation table is refused before the vendor is called",
          "[cpu][validation]") {
  ValidationContext& c = context();
  const std::vector<ValidationCase>& rows = validation_cases();
  std::size_t cufft_rows = 0;
  std::size_t cusparse_rows = 0;
  for (const ValidationCase& row : rows) {
    CAPTURE(row.name);
    c.reset_outputs();
    fakeVendorReset();
    const int status = row.call(c);
    CHECK(status == row.expected);
    CHECK(c.outputs_untouched());
    CHECK(vendor_call_names() == std::vector<std::string>{});
    destroy_unexpected_plan(c);
    (row.library == ApiLibrary::kCufft ? cufft_rows : cusparse_rows) += 1;
  }
  CHECK(fakeVendorMisuseCount() == 0);
  // Every gtsv entry has refused rows (a solve at least its null data, a size query its null
  // output), and every handle-taking cuFFT entry its two handle rows.
  CHECK(cusparse_rows >= 32 * 2);
  CHECK(cufft_rows >= 100);
}

TEST_CASE("the refused rows are counted as failed calls that reached neither side", "[cpu][validation][stats]") {
  ValidationContext& c = context();
  for (const ValidationCase& row : validation_cases()) {
    // The name of the exported function is the row's prefix up to '(' or ':'.
    const std::string function = row.name.substr(0, row.name.find_first_of("(:"));
    // cufftDestroy counts a refused call as a vendor call (see the known-bug test in test_capi.cpp).
    if (function == "cufftDestroy") continue;
    CAPTURE(row.name);
    idgpuCallStats_t before{};
    REQUIRE(idgpuGetCallStatsByName(function.c_str(), &before) == IDGPU_STATUS_SUCCESS);
    c.reset_outputs();
    row.call(c);
    destroy_unexpected_plan(c);
    idgpuCallStats_t after{};
    REQUIRE(idgpuGetCallStatsByName(function.c_str(), &after) == IDGPU_STATUS_SUCCESS);
    CHECK(after.calls == before.calls + 1);
    CHECK(after.failedCalls == before.failedCalls + 1);
    CHECK(after.vendorCalls == before.vendorCalls);
    CHECK(after.nativeCalls == before.nativeCalls);
  }
}

TEST_CASE("arguments left to the vendor reach it unchanged, and its status comes back", "[cpu][validation]") {
  ValidationContext& c = context();
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  std::size_t cufft_rows = 0;
  std::size_t cusparse_rows = 0;
  for (const PassThroughCase& row : pass_through_cases()) {
    CAPTURE(row.name);
    const bool fft = row.library == ApiLibrary::kCufft;
    // Once as the vendor refusing the arguments, once as the vendor accepting them (it does
    // accept some odd ones: measured, cufftPlan3d with nz = 0 succeeds).
    for (const int vendor_status : {fft ? static_cast<int>(CUFFT_INVALID_SIZE)
                                        : static_cast<int>(CUSPARSE_STATUS_INVALID_VALUE),
                                    0}) {
      CAPTURE(vendor_status);
      c.reset_outputs();
      fakeVendorReset();
      const long long live_before = fakeVendorLiveCufftHandles();
      fakeVendorSetStatus(row.vendor_function.c_str(), vendor_status);
      const PassThroughOutcome outcome = row.call(c);
      CHECK(outcome.status == vendor_status);

      const std::vector<RecordedCall> calls = vendor_calls();
      std::vector<std::string> expected_names;
      if (row.creates_plan) expected_names.push_back("cufftCreate");
      expected_names.push_back(row.vendor_function);
      if (row.creates_plan && vendor_status != 0) expected_names.push_back("cufftDestroy");
      std::vector<std::string> names;
      for (const RecordedCall& call : calls) names.push_back(call.name);
      REQUIRE(names == expected_names);
      const RecordedCall& reached = calls[row.creates_plan ? 1 : 0];
      const unsigned long long new_plan = row.creates_plan ? calls[0].out : 0;
      CAPTURE(reached.args, outcome.expected_args);
      CHECK(same_arguments(outcome.expected_args, reached.args, new_plan));

      if (vendor_status != 0) {
        CHECK(c.outputs_untouched());
        destroy_unexpected_plan(c);
        CHECK(fakeVendorLiveCufftHandles() == live_before);
      } else if (row.creates_plan) {
        // Accepted: the application has a plan of ours now.
        CHECK(c.out_plan != kSentinelPlan);
        CHECK(static_cast<unsigned long long>(c.out_plan) != new_plan);
        CHECK(cufftDestroy(c.out_plan) == CUFFT_SUCCESS);
        CHECK(fakeVendorLiveCufftHandles() == live_before);
      }
    }
    (fft ? cufft_rows : cusparse_rows) += 1;
  }
  fakeVendorReset();
  CHECK(fakeVendorMisuseCount() == 0);
  CHECK(cufft_rows >= 30);
  CHECK(cusparse_rows >= 32 * 3);
}
