// Argument validation: the one table of calls libidgpu refuses itself, with the status each
// returns, and beside it the table of bad arguments it deliberately leaves to the vendor.
//
// Refused rows (validation_cases): refused by libidgpu's own checks, before any vendor call,
// with the status the implementation uses today (src/fft/api.cpp, src/tridiag/gtsv.{h,cpp}).
// The CPU test runs each row against the fake vendor and checks the status, that the vendor was
// not called and that no output was written. The same rows can be run against the real vendor
// on a GPU (fill a ValidationContext with real plans, a real cuSPARSE handle and real device
// memory) to compare the codes.
//
// Pass-through rows (pass_through_cases): arguments the vendor judges with its own, irregular
// codes (measured on a GPU: see the commit "Match the vendor's measured status codes"), so
// libidgpu passes them on exactly as they came; the CPU test checks that they reach the vendor
// function unchanged and that the vendor's status comes back.
#pragma once

#include <cufft.h>
#include <cusparse.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/gtsv_calls.h"

namespace idgpu::test {

enum class ApiLibrary { kCufft, kCusparse };

// Values the refused calls must leave alone.
constexpr cufftHandle kSentinelPlan = 0x5a5a5a5a;
constexpr std::size_t kSentinelSize = 0xdeadbeefcafeull;
// A handle no cufftCreate handed out (its chunk of the handle table is never allocated).
constexpr cufftHandle kUnknownPlan = 0x2fffff;

struct ValidationContext {
  // Made 1D plans of n = 8, one per type, and one created but not made.
  cufftHandle c2c_plan = 0;
  cufftHandle r2c_plan = 0;
  cufftHandle c2r_plan = 0;
  cufftHandle z2z_plan = 0;
  cufftHandle d2z_plan = 0;
  cufftHandle z2d_plan = 0;
  cufftHandle created_plan = 0;
  cufftHandle destroyed_plan = 0;  // handed out by cufftCreate, then destroyed
  void* data = nullptr;           // a device pointer (never dereferenced by a refused call)
  cudaStream_t stream = nullptr;

  // The outputs of the calls (reset to the sentinels before each row).
  cufftHandle out_plan = kSentinelPlan;
  std::size_t work_size = kSentinelSize;
  std::size_t buffer_size = kSentinelSize;

  // A valid set of gtsv arguments (handle, sizes, pointers); rows change one thing.
  GtsvArgs gtsv;

  // For the pass-through rows: the vendor's handle behind each of our plans (the CPU test learns
  // them from the fake vendor).
  std::map<cufftHandle, cufftHandle> vendor_of;

  void reset_outputs();
  bool outputs_untouched() const;
};

// Builds the context through the exported C API (cufftCreate, cufftPlan1d, cufftDestroy).
// `data` and `sparse_handle` are what the rows pass as device data and cuSPARSE handle.
bool make_validation_context(ValidationContext* context, void* data, cusparseHandle_t sparse_handle);
// Destroys the plans the context made.
void destroy_validation_context(ValidationContext* context);

struct ValidationCase {
  std::string name;
  ApiLibrary library;
  std::function<int(ValidationContext&)> call;
  int expected;  // a cufftResult or cusparseStatus_t
};

// The refused rows: hand-written cuFFT rows, generated rows for every handle-taking cuFFT entry
// (every one refuses a handle that is not live), and the gtsv rows (every one of the 32 entries
// under every change of its arguments that it refuses).
const std::vector<ValidationCase>& validation_cases();

// Markers in PassThroughCase::expected_args for values the row cannot know in advance.
constexpr unsigned long long kAnyValue = 0xa11a11a11a11a11aull;   // a pointer of libidgpu's own
constexpr unsigned long long kNewVendorPlan = 0x9e39e39e39e39e3ull;  // the plan the call's cufftCreate made

struct PassThroughOutcome {
  int status;
  std::vector<unsigned long long> expected_args;  // as the vendor function must receive them
};

struct PassThroughCase {
  std::string name;
  ApiLibrary library;
  std::string vendor_function;  // the one vendor function the arguments reach
  bool creates_plan;            // a cufftPlan*: cufftCreate before, cufftDestroy after a refusal
  std::function<PassThroughOutcome(ValidationContext&)> call;
};

const std::vector<PassThroughCase>& pass_through_cases();

}  // namespace idgpu::test
