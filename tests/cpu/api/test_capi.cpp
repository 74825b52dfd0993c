// idgpu's own C API (include/idgpu/idgpu.h): version, policy, statistics, the vendor path, the
// report printed at exit with IDGPU_REPORT=1, and the out-of-core calls' refusals judged on the host
// (complex and real FFT plans, the Poisson solve: bad sizes, precision, budget, null pointers).
#include <catch2/catch.hpp>

#include <cufft.h>
#include <cufftXt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/cufft_calls.h"
#include "support/fake_client.h"
#include "support/gtsv_calls.h"
#include "support/policy_guard.h"

using namespace idgpu::test;

namespace {

constexpr cufftHandle kUnknownPlanForStats = 0x2fffff;

idgpuCallStats_t stats_of(const char* name) {
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName(name, &stats) == IDGPU_STATUS_SUCCESS);
  return stats;
}

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Runs a shell command and returns what it wrote to its stdout.
CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The report's row of `function`: calls, native, vendor, failed; empty when it has no row.
std::vector<unsigned long long> report_row(const std::string& report, const std::string& function) {
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    if (name != function) continue;
    std::vector<unsigned long long> values;
    unsigned long long value = 0;
    while (fields >> value) values.push_back(value);
    return values;
  }
  return {};
}

}  // namespace

TEST_CASE("idgpuGetVersion matches the VERSION file and the header", "[cpu][capi]") {
  std::ifstream file(IDGPU_TEST_VERSION_FILE);
  REQUIRE(file.good());
  std::string text;
  std::getline(file, text);
  CAPTURE(text);
  int major = -1, minor = -1, patch = -1;
  REQUIRE(std::sscanf(text.c_str(), "%d.%d.%d", &major, &minor, &patch) == 3);
  CHECK(idgpuGetVersion() == major * 10000 + minor * 100 + patch);
  CHECK(idgpuGetVersion() / 10000 == major);
  CHECK(idgpuGetVersion() / 100 % 100 == minor);
  CHECK(std::string(idgpuGetVersionString()) == text);
  CHECK(IDGPU_VERSION == idgpuGetVersion());
  CHECK(IDGPU_VERSION_MAJOR == major);
  CHECK(IDGPU_VERSION_MINOR == minor);
}

TEST_CASE("the dispatch policy can be set, read back and refuses unknown values", "[cpu][capi]") {
  idgpuPolicy_t policy = static_cast<idgpuPolicy_t>(-1);
  REQUIRE(idgpuGetPolicy(&policy) == IDGPU_STATUS_SUCCESS);
  CHECK(policy == IDGPU_POLICY_AUTO);  // IDGPU_POLICY is unset for this test
  for (idgpuPolicy_t wanted : {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE, IDGPU_POLICY_AUTO}) {
    CAPTURE(wanted);
    CHECK(idgpuSetPolicy(wanted) == IDGPU_STATUS_SUCCESS);
    REQUIRE(idgpuGetPolicy(&policy) == IDGPU_STATUS_SUCCESS);
    CHECK(policy == wanted);
  }
  REQUIRE(idgpuSetPolicy(IDGPU_POLICY_NATIVE) == IDGPU_STATUS_SUCCESS);
  for (int bad : {-1, 3, 100}) {
    CAPTURE(bad);
    CHECK(idgpuSetPolicy(static_cast<idgpuPolicy_t>(bad)) == IDGPU_STATUS_INVALID_VALUE);
    REQUIRE(idgpuGetPolicy(&policy) == IDGPU_STATUS_SUCCESS);
    CHECK(policy == IDGPU_POLICY_NATIVE);  // unchanged
  }
  CHECK(idgpuGetPolicy(nullptr) == IDGPU_STATUS_INVALID_VALUE);

  // These calls have no native path under any policy (a half-precision FFT; a gtsv buffer size):
  // every policy reaches the same vendor calls, on a machine with a GPU too. (Every C2C length
  // has a native path, so an FFT of single or double precision would not do here.)
  for (idgpuPolicy_t mode : {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE, IDGPU_POLICY_AUTO}) {
    CAPTURE(mode);
    REQUIRE(idgpuSetPolicy(mode) == IDGPU_STATUS_SUCCESS);
    fakeVendorReset();
    cufftHandle plan = 0;
    REQUIRE(cufftCreate(&plan) == CUFFT_SUCCESS);
    long long n = 256;
    std::size_t work = 0;
    CHECK(cufftXtMakePlanMany(plan, 1, &n, nullptr, 1, 0, CUDA_C_16F, nullptr, 1, 0, CUDA_C_16F, 1, &work,
                              CUDA_C_16F) == CUFFT_SUCCESS);
    std::size_t size = 0;
    CHECK(gtsv_entries().front().call(valid_gtsv_args(&size)).status == CUSPARSE_STATUS_SUCCESS);
    CHECK(cufftDestroy(plan) == CUFFT_SUCCESS);
    CHECK(vendor_call_names() ==
          std::vector<std::string>{"cufftCreate", "cufftXtMakePlanMany", gtsv_entries().front().name, "cufftDestroy"});
  }
  CHECK(idgpuSetPolicy(IDGPU_POLICY_AUTO) == IDGPU_STATUS_SUCCESS);
}

TEST_CASE("the gtsv2_nopivot algorithm can be set, read back and refuses unknown values", "[cpu][capi]") {
  idgpuTridiagSolver_t solver = static_cast<idgpuTridiagSolver_t>(-1);
  REQUIRE(idgpuGetTridiagSolver(&solver) == IDGPU_STATUS_SUCCESS);
  CHECK(solver == IDGPU_TRIDIAG_SOLVER_AUTO);  // IDGPU_TRIDIAG_SOLVER is unset for this test
  for (idgpuTridiagSolver_t wanted : {IDGPU_TRIDIAG_SOLVER_PARTITION, IDGPU_TRIDIAG_SOLVER_WANG_MOU,
                                      IDGPU_TRIDIAG_SOLVER_PCR_THOMAS, IDGPU_TRIDIAG_SOLVER_AUTO}) {
    CAPTURE(wanted);
    CHECK(idgpuSetTridiagSolver(wanted) == IDGPU_STATUS_SUCCESS);
    REQUIRE(idgpuGetTridiagSolver(&solver) == IDGPU_STATUS_SUCCESS);
    CHECK(solver == wanted);
  }
  REQUIRE(idgpuSetTridiagSolver(IDGPU_TRIDIAG_SOLVER_WANG_MOU) == IDGPU_STATUS_SUCCESS);
  for (int bad : {-1, 4, 100}) {
    CAPTURE(bad);
    CHECK(idgpuSetTridiagSolver(static_cast<idgpuTridiagSolver_t>(bad)) == IDGPU_STATUS_INVALID_VALUE);
    REQUIRE(idgpuGetTridiagSolver(&solver) == IDGPU_STATUS_SUCCESS);
    CHECK(solver == IDGPU_TRIDIAG_SOLVER_WANG_MOU);  // unchanged
  }
  CHECK(idgpuGetTridiagSolver(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuSetTridiagSolver(IDGPU_TRIDIAG_SOLVER_AUTO) == IDGPU_STATUS_SUCCESS);
}

// CTest entry cpu.api.policy_env runs this with IDGPU_POLICY=vendor.
TEST_CASE("the out-of-core FFT refuses bad arguments before it touches a device", "[cpu][capi][ooc]") {
  // Sizes, precision and a budget below the least chunk are judged on the host: INVALID_VALUE and
  // *plan untouched, with or without a GPU (a budget is given, so no free-memory query either).
  const idgpuOocPlan_t sentinel = reinterpret_cast<idgpuOocPlan_t>(static_cast<std::uintptr_t>(0x00c));
  idgpuOocPlan_t plan = sentinel;
  CHECK(idgpuOocPlan3d(&plan, 0, 8, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlan3d(&plan, 8, -8, 8, IDGPU_PRECISION_DOUBLE, 0) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlan3d(&plan, 1LL << 40, 1LL << 40, 8, IDGPU_PRECISION_SINGLE, 1 << 20) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlan3d(&plan, 8, 8, 8, static_cast<idgpuPrecision_t>(2), 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlan3d(&plan, 8, 512, 512, IDGPU_PRECISION_DOUBLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanMany1d(&plan, 0, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanMany1d(&plan, 64, -1, IDGPU_PRECISION_SINGLE, 0) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanMany1d(&plan, 64, 8, static_cast<idgpuPrecision_t>(-1), 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanMany1d(&plan, 1 << 20, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(plan == sentinel);
  CHECK(idgpuOocPlan3d(nullptr, 8, 8, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanMany1d(nullptr, 64, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  int round_trips = -1;
  long long chunks = -1;
  float data[2] = {1, 2};
  CHECK(idgpuOocGetSchedule(nullptr, &round_trips, &chunks) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExec(nullptr, data, IDGPU_OOC_FORWARD) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocDestroy(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(round_trips == -1);
  CHECK(chunks == -1);
  CHECK(data[0] == 1);
  CHECK(data[1] == 2);
}

TEST_CASE("the out-of-core real transforms refuse bad arguments before they touch a device", "[cpu][capi][ooc]") {
  // As idgpuOocPlan3d: sizes (n2 and n below 2 too: a real axis needs two points), precision and a
  // budget below the least chunk are judged on the host, *plan untouched; null pointers everywhere.
  const idgpuOocPlan_t sentinel = reinterpret_cast<idgpuOocPlan_t>(static_cast<std::uintptr_t>(0x00c));
  idgpuOocPlan_t plan = sentinel;
  CHECK(idgpuOocPlanReal3d(&plan, 8, 8, 1, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanReal3d(&plan, 8, 8, 0, IDGPU_PRECISION_DOUBLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanReal3d(&plan, 0, 8, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanReal3d(&plan, 8, -8, 8, IDGPU_PRECISION_DOUBLE, 0) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanReal3d(&plan, 1LL << 40, 1LL << 40, 8, IDGPU_PRECISION_SINGLE, 1 << 20) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanReal3d(&plan, 8, 8, 8, static_cast<idgpuPrecision_t>(2), 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanReal3d(&plan, 8, 8, 8, IDGPU_PRECISION_SINGLE, 1) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanRealMany1d(&plan, 1, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanRealMany1d(&plan, 64, 0, IDGPU_PRECISION_DOUBLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanRealMany1d(&plan, 64, 8, static_cast<idgpuPrecision_t>(-1), 1 << 20) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanRealMany1d(&plan, 64, 8, IDGPU_PRECISION_SINGLE, 1) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(plan == sentinel);
  CHECK(idgpuOocPlanReal3d(nullptr, 8, 8, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPlanRealMany1d(nullptr, 64, 8, IDGPU_PRECISION_SINGLE, 1 << 20) == IDGPU_STATUS_INVALID_VALUE);
  float in[2] = {1, 2};
  float out[2] = {3, 4};
  CHECK(idgpuOocExecR2C(nullptr, in, out) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(nullptr, in, out) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecR2C(nullptr, nullptr, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(nullptr, nullptr, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(in[0] == 1);
  CHECK(in[1] == 2);
  CHECK(out[0] == 3);
  CHECK(out[1] == 4);
}

TEST_CASE("the out-of-core Poisson solve refuses bad arguments before it touches a device", "[cpu][capi][ooc]") {
  // Sizes, spacings, boundary and precision are judged on the host: INVALID_VALUE and *plan
  // untouched (a budget is given, so no free-memory query either); null pointers everywhere.
  const idgpuOocPoissonPlan_t sentinel =
      reinterpret_cast<idgpuOocPoissonPlan_t>(static_cast<std::uintptr_t>(0x5e47));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  constexpr std::size_t kBudget = 1 << 20;
  const idgpuPoissonBoundary_t periodic = IDGPU_POISSON_PERIODIC;
  idgpuOocPoissonPlan_t plan = sentinel;
  CHECK(idgpuOocPoissonCreate(&plan, 1, 8, 8, 1, 1, 1, periodic, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 0, 8, 1, 1, 1, periodic, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 1, 1, 1, 1, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_DOUBLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 1LL << 40, 1LL << 40, 8, 1, 1, 1, periodic, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 8, 0, 1, 1, periodic, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 8, 1, nan, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 8, 1, 1, -inf, periodic, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 8, 1, 1, 1, static_cast<idgpuPoissonBoundary_t>(3),
                              IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 8, 1, 1, 1, periodic, static_cast<idgpuPrecision_t>(2), kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(plan == sentinel);
  CHECK(idgpuOocPoissonCreate(nullptr, 8, 8, 8, 1, 1, 1, periodic, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);
  int round_trips = -1;
  long long chunks = -1;
  std::size_t host_bytes = 12345;
  float f[2] = {1, 2};
  float u[2] = {3, 4};
  CHECK(idgpuOocPoissonSetMean(nullptr, 0.25) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonGetSchedule(nullptr, &round_trips, &chunks) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonGetSchedule(nullptr, nullptr, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonGetHostBytes(nullptr, &host_bytes) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonGetHostBytes(nullptr, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonExec(nullptr, f, u) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonExec(nullptr, nullptr, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonDestroy(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(round_trips == -1);
  CHECK(chunks == -1);
  CHECK(host_bytes == 12345);
  CHECK(f[0] == 1);
  CHECK(f[1] == 2);
  CHECK(u[0] == 3);
  CHECK(u[1] == 4);
}

TEST_CASE("the out-of-core Poisson solve refuses a budget below the least chunk without a device",
          "[cpu][capi][ooc]") {
  // As idgpuOocPlan3d's: whether the in-core solve or the least chunk of the three round trips fits
  // the budget is known from the sizes alone, so a budget of 1 byte is refused (INVALID_VALUE, as
  // with a GPU) before any device call, which here would fail.
  const idgpuOocPoissonPlan_t sentinel =
      reinterpret_cast<idgpuOocPoissonPlan_t>(static_cast<std::uintptr_t>(0x5e47));
  idgpuOocPoissonPlan_t plan = sentinel;
  CHECK(idgpuOocPoissonCreate(&plan, 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, 1) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocPoissonCreate(&plan, 64, 48, 40, 1, 1, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE, 1) ==
        IDGPU_STATUS_INVALID_VALUE);
  CHECK(plan == sentinel);
}

TEST_CASE("IDGPU_POLICY sets the initial policy", "[cpu][.policy-env]") {
  idgpuPolicy_t policy = IDGPU_POLICY_AUTO;
  REQUIRE(idgpuGetPolicy(&policy) == IDGPU_STATUS_SUCCESS);
  CHECK(policy == IDGPU_POLICY_VENDOR);
}

TEST_CASE("the statistics list every exported vendor function, in table order", "[cpu][capi][stats]") {
  std::vector<std::string> expected;
  for (const CufftEntry& entry : cufft_entries()) expected.push_back(entry.name);
  for (const GtsvEntry& entry : gtsv_entries()) expected.push_back(entry.name);
  REQUIRE(idgpuGetCallStatsCount() == static_cast<int>(expected.size()));
  for (int index = 0; index < idgpuGetCallStatsCount(); ++index) {
    CAPTURE(index);
    idgpuCallStats_t stats{};
    REQUIRE(idgpuGetCallStats(index, &stats) == IDGPU_STATUS_SUCCESS);
    REQUIRE(stats.name != nullptr);
    CHECK(stats.name == expected[static_cast<std::size_t>(index)]);
    idgpuCallStats_t by_name{};
    REQUIRE(idgpuGetCallStatsByName(stats.name, &by_name) == IDGPU_STATUS_SUCCESS);
    CHECK(std::string(by_name.name) == stats.name);
  }
  idgpuCallStats_t stats{};
  CHECK(idgpuGetCallStats(-1, &stats) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuGetCallStats(idgpuGetCallStatsCount(), &stats) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuGetCallStats(0, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuGetCallStatsByName("cufftPlan4d", &stats) == IDGPU_STATUS_NOT_FOUND);
  CHECK(idgpuGetCallStatsByName("cusparseCreate", &stats) == IDGPU_STATUS_NOT_FOUND);  // not ours
  CHECK(idgpuGetCallStatsByName("cufftcreate", &stats) == IDGPU_STATUS_NOT_FOUND);    // exact names only
  CHECK(idgpuGetCallStatsByName("", &stats) == IDGPU_STATUS_NOT_FOUND);
  CHECK(idgpuGetCallStatsByName(nullptr, &stats) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuGetCallStatsByName("cufftCreate", nullptr) == IDGPU_STATUS_INVALID_VALUE);
}

TEST_CASE("the counters count each call once, by the side that served it", "[cpu][capi][stats]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  for (int index = 0; index < idgpuGetCallStatsCount(); ++index) {
    idgpuCallStats_t stats{};
    REQUIRE(idgpuGetCallStats(index, &stats) == IDGPU_STATUS_SUCCESS);
    CAPTURE(stats.name);
    CHECK(stats.calls == 0);
    CHECK(stats.nativeCalls == 0);
    CHECK(stats.vendorCalls == 0);
    CHECK(stats.failedCalls == 0);
    CHECK(stats.timedCalls == 0);
  }
  fakeVendorReset();

  cufftHandle plan = 0;
  REQUIRE(cufftCreate(&plan) == CUFFT_SUCCESS);
  REQUIRE(cufftCreate(&plan) == CUFFT_SUCCESS);
  idgpuCallStats_t create = stats_of("cufftCreate");
  CHECK(create.calls == 2);
  CHECK(create.vendorCalls == 2);
  CHECK(create.nativeCalls == 0);
  CHECK(create.failedCalls == 0);

  // Refused by us: a failed call that neither side served.
  cufftHandle unused = 0;
  CHECK(cufftPlan1d(nullptr, 8, CUFFT_C2C, 1) == CUFFT_INVALID_VALUE);
  idgpuCallStats_t plan1d = stats_of("cufftPlan1d");
  CHECK(plan1d.calls == 1);
  CHECK(plan1d.failedCalls == 1);
  CHECK(plan1d.vendorCalls == 0);

  // Served by the vendor, which failed: a vendor call and a failed call.
  fakeVendorSetStatus("cufftSetStream", CUFFT_INTERNAL_ERROR);
  CHECK(cufftSetStream(plan, nullptr) == CUFFT_INTERNAL_ERROR);
  fakeVendorReset();
  CHECK(cufftSetStream(plan, nullptr) == CUFFT_SUCCESS);
  idgpuCallStats_t set_stream = stats_of("cufftSetStream");
  CHECK(set_stream.calls == 2);
  CHECK(set_stream.vendorCalls == 2);
  CHECK(set_stream.failedCalls == 1);

  // A successful cufftPlan1d is one call of cufftPlan1d, though it creates and makes inside.
  REQUIRE(cufftPlan1d(&unused, 8, CUFFT_C2C, 1) == CUFFT_SUCCESS);
  plan1d = stats_of("cufftPlan1d");
  CHECK(plan1d.calls == 2);
  CHECK(plan1d.vendorCalls == 1);
  CHECK(plan1d.failedCalls == 1);
  CHECK(stats_of("cufftCreate").calls == 2);
  CHECK(stats_of("cufftMakePlan1d").calls == 0);

  // A PLAN entry and a FREE entry.
  CHECK(cufftResetPlanProperty(plan, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT) == CUFFT_SUCCESS);
  CHECK(stats_of("cufftResetPlanProperty").vendorCalls == 1);
  CHECK(cufftResetPlanProperty(kUnknownPlanForStats, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT) == CUFFT_INVALID_PLAN);
  CHECK(stats_of("cufftResetPlanProperty").failedCalls == 1);
  CHECK(stats_of("cufftResetPlanProperty").vendorCalls == 1);
  int version = 0;
  CHECK(cufftGetVersion(&version) == CUFFT_SUCCESS);
  CHECK(stats_of("cufftGetVersion").vendorCalls == 1);

  // gtsv: served, refused.
  std::size_t size = 0;
  GtsvArgs args = valid_gtsv_args(&size);
  CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(args.handle, 8, nullptr, nullptr, nullptr, nullptr, 2, 8, &size) ==
        CUSPARSE_STATUS_SUCCESS);
  CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(args.handle, 8, nullptr, nullptr, nullptr, nullptr, 2, 8, nullptr) ==
        CUSPARSE_STATUS_INVALID_VALUE);
  const idgpuCallStats_t strided = stats_of("cusparseDgtsv2StridedBatch_bufferSizeExt");
  CHECK(strided.calls == 2);
  CHECK(strided.vendorCalls == 1);
  CHECK(strided.failedCalls == 1);

  // Nothing else moved.
  unsigned long long total = 0;
  for (int index = 0; index < idgpuGetCallStatsCount(); ++index) {
    idgpuCallStats_t stats{};
    REQUIRE(idgpuGetCallStats(index, &stats) == IDGPU_STATUS_SUCCESS);
    total += stats.calls;
  }
  CHECK(total == 2 + 2 + 2 + 2 + 1 + 2);

  REQUIRE(cufftDestroy(unused) == CUFFT_SUCCESS);
  REQUIRE(cufftDestroy(plan) == CUFFT_SUCCESS);
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  CHECK(stats_of("cufftCreate").calls == 0);
  CHECK(stats_of("cufftDestroy").calls == 0);
  CHECK(stats_of("cusparseDgtsv2StridedBatch_bufferSizeExt").failedCalls == 0);
}

// A destroy refused for an unknown handle never reached the vendor: it must not count as a
// vendor call, and it is logged as refused.
TEST_CASE("a refused cufftDestroy is not counted as a vendor call",
          "[cpu][capi][stats]") {
  const idgpuCallStats_t before = stats_of("cufftDestroy");
  fakeVendorReset();
  CHECK(cufftDestroy(kUnknownPlanForStats) == CUFFT_INVALID_PLAN);
  CHECK(vendor_call_count() == 0);
  const idgpuCallStats_t after = stats_of("cufftDestroy");
  CHECK(after.failedCalls == before.failedCalls + 1);
  CHECK(after.vendorCalls == before.vendorCalls);
}

TEST_CASE("idgpuWriteReport writes the table of the functions called", "[cpu][capi][stats]") {
  CHECK(idgpuWriteReport(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  auto report = [] {
    FILE* file = std::tmpfile();
    REQUIRE(file != nullptr);
    REQUIRE(idgpuWriteReport(file) == IDGPU_STATUS_SUCCESS);
    std::rewind(file);
    std::string text;
    char buffer[4096];
    std::size_t read = 0;
    while ((read = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, read);
    std::fclose(file);
    return text;
  };
  std::string empty = report();
  CHECK(empty.find("idgpu dispatch report") != std::string::npos);
  CHECK(empty.find("(no calls)") != std::string::npos);

  cufftHandle plan = 0;
  REQUIRE(cufftCreate(&plan) == CUFFT_SUCCESS);
  CHECK(cufftExecC2C(plan, nullptr, nullptr, 0) == CUFFT_INVALID_VALUE);
  REQUIRE(cufftDestroy(plan) == CUFFT_SUCCESS);
  const std::string text = report();
  CAPTURE(text);
  CHECK(text.find("(no calls)") == std::string::npos);
  CHECK(text.find("function") != std::string::npos);
  CHECK(report_row(text, "cufftCreate") == std::vector<unsigned long long>{1, 0, 1, 0});
  CHECK(report_row(text, "cufftExecC2C") == std::vector<unsigned long long>{1, 0, 0, 1});
  CHECK(report_row(text, "cufftDestroy") == std::vector<unsigned long long>{1, 0, 1, 0});
  CHECK(report_row(text, "cufftPlan1d").empty());  // not called: no row
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
}

namespace {

std::string report_json() {
  std::size_t length = 0;
  REQUIRE(idgpuGetReportJson(nullptr, 0, &length) == IDGPU_STATUS_SUCCESS);
  std::string text(length + 4096, '\0');  // room for a report that grew in between
  REQUIRE(idgpuGetReportJson(text.data(), text.size(), &length) == IDGPU_STATUS_SUCCESS);
  text.resize(length - 1);
  return text;
}

// One row object of the JSON report, as written.
std::string json_row(const char* function, const char* path, const char* shape, const char* reason,
                     unsigned long long calls, unsigned long long failed) {
  return std::string("{\"function\": \"") + function + "\", \"path\": \"" + path + "\", \"shape\": \"" + shape +
         "\", \"reason\": \"" + reason + "\", \"calls\": " + std::to_string(calls) +
         ", \"failed\": " + std::to_string(failed) + "}";
}

}  // namespace

TEST_CASE("the report itemises calls by function, side, problem shape and reason", "[cpu][capi][stats]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  fakeVendorReset();
  auto* data = from_bits<cufftComplex*>(0x7b0000000000ull);
  cufftHandle small = 0;
  cufftHandle single = 0;
  REQUIRE(cufftPlan1d(&small, 17, CUFFT_C2C, 4) == CUFFT_SUCCESS);
  REQUIRE(cufftPlan1d(&single, 19, CUFFT_C2C, 1) == CUFFT_SUCCESS);
  for (int index = 0; index < 3; ++index) CHECK(cufftExecC2C(small, data, data, CUFFT_FORWARD) == CUFFT_SUCCESS);
  for (int index = 0; index < 2; ++index) CHECK(cufftExecC2C(single, data, data, CUFFT_INVERSE) == CUFFT_SUCCESS);
  CHECK(cufftExecC2C(small, data, data, 5) == CUFFT_INVALID_VALUE);  // refused: no side, no shape
  std::size_t size = 0;
  GtsvArgs args = valid_gtsv_args(&size);
  for (const GtsvEntry& entry : gtsv_entries()) {
    if (entry.name == "cusparseSgtsv2StridedBatch" || entry.name == "cusparseDgtsv2") {
      CHECK(entry.call(args).status == CUSPARSE_STATUS_SUCCESS);
    }
  }
  REQUIRE(cufftDestroy(small) == CUFFT_SUCCESS);
  REQUIRE(cufftDestroy(single) == CUFFT_SUCCESS);

  const std::string json = report_json();
  CAPTURE(json);
  CHECK(json.find(json_row("cufftPlan1d", "vendor", "c2c_f32 n=17 batch=4", "IDGPU_POLICY=vendor", 1, 0)) !=
        std::string::npos);
  CHECK(json.find(json_row("cufftPlan1d", "vendor", "c2c_f32 n=19 batch=1", "IDGPU_POLICY=vendor", 1, 0)) !=
        std::string::npos);
  CHECK(json.find(json_row("cufftExecC2C", "vendor", "c2c_f32 n=17 batch=4", "vendor plan", 3, 0)) !=
        std::string::npos);
  CHECK(json.find(json_row("cufftExecC2C", "vendor", "c2c_f32 n=19 batch=1", "vendor plan", 2, 0)) !=
        std::string::npos);
  CHECK(json.find(json_row("cufftExecC2C", "none", "", "", 1, 1)) != std::string::npos);
  CHECK(json.find(json_row("cusparseSgtsv2StridedBatch", "vendor", "f32 strided m=8 batch=3", "IDGPU_POLICY=vendor",
                           1, 0)) != std::string::npos);
  CHECK(json.find(json_row("cusparseDgtsv2", "vendor", "f64 m=8 n=2", "IDGPU_POLICY=vendor", 1, 0)) !=
        std::string::npos);
  CHECK(json.find("{\"function\": \"cufftExecC2C\", \"calls\": 6, \"native\": 0, \"vendor\": 5, \"failed\": 1}") !=
        std::string::npos);

  // The table says the same, after the per-function rows.
  FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  REQUIRE(idgpuWriteReport(file) == IDGPU_STATUS_SUCCESS);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, read);
  std::fclose(file);
  CAPTURE(text);
  CHECK(report_row(text, "cufftExecC2C") == std::vector<unsigned long long>{6, 0, 5, 1});
  const std::size_t detail = text.find("by function, side, problem shape and reason:");
  REQUIRE(detail != std::string::npos);
  CHECK(text.find("cufftExecC2C") < detail);
  const std::size_t exec_row = text.find("cufftExecC2C", detail);
  REQUIRE(exec_row != std::string::npos);
  const std::string line = text.substr(exec_row, text.find('\n', exec_row) - exec_row);
  CHECK(line.find("vendor") != std::string::npos);
  CHECK(line.find("c2c_f32 n=17 batch=4") != std::string::npos);
  CHECK(line.find("vendor plan") != std::string::npos);
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
}

TEST_CASE("idgpuGetReportJson and idgpuWriteReportJson", "[cpu][capi][stats]") {
  CHECK(idgpuWriteReportJson(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  char small[8] = "unset";
  CHECK(idgpuGetReportJson(small, sizeof(small), nullptr) == IDGPU_STATUS_INVALID_VALUE);
  std::size_t length = 0;
  CHECK(idgpuGetReportJson(nullptr, 4, &length) == IDGPU_STATUS_INVALID_VALUE);
  REQUIRE(idgpuGetReportJson(nullptr, 0, &length) == IDGPU_STATUS_SUCCESS);
  CHECK(length > sizeof(small));
  CHECK(idgpuGetReportJson(small, sizeof(small), &length) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(std::string(small) == "unset");  // untouched
  const std::string text = report_json();
  CHECK(text.rfind("{\"pid\": ", 0) == 0);
  CHECK(text.find(std::string("\"version\": \"") + idgpuGetVersionString() + "\"") != std::string::npos);
  CHECK(text.back() == '}');

  FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  REQUIRE(idgpuWriteReportJson(file) == IDGPU_STATUS_SUCCESS);
  std::rewind(file);
  std::string written;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof(buffer), file)) > 0) written.append(buffer, read);
  std::fclose(file);
  CHECK(written.rfind("{\"pid\": ", 0) == 0);
  CHECK(written.back() == '\n');
}

TEST_CASE("idgpuGetFftRuntimeKernelStats: none loaded or launched without a GPU", "[cpu][capi]") {
  int loaded = -1;
  long long launches = -1;
  REQUIRE(idgpuGetFftRuntimeKernelStats(&loaded, &launches) == IDGPU_STATUS_SUCCESS);
  CHECK(loaded == 0);
  CHECK(launches == 0);
  CHECK(idgpuGetFftRuntimeKernelStats(nullptr, nullptr) == IDGPU_STATUS_SUCCESS);
}

TEST_CASE("idgpuGetVendorLibraryPath names the library calls go to", "[cpu][capi]") {
  const std::string cufft = fake_vendor_path("IDGPU_VENDOR_CUFFT");
  const std::string cusparse = fake_vendor_path("IDGPU_VENDOR_CUSPARSE");
  REQUIRE(!cufft.empty());
  REQUIRE(!cusparse.empty());
  const char* cufft_path = idgpuGetVendorLibraryPath(IDGPU_VENDOR_CUFFT);
  const char* cusparse_path = idgpuGetVendorLibraryPath(IDGPU_VENDOR_CUSPARSE);
  REQUIRE(cufft_path != nullptr);
  REQUIRE(cusparse_path != nullptr);
  CHECK(std::string(cufft_path) == cufft);
  CHECK(std::string(cusparse_path) == cusparse);
  CHECK(idgpuGetVendorLibraryPath(static_cast<idgpuVendorLibrary_t>(2)) == nullptr);
  CHECK(idgpuGetVendorLibraryPath(static_cast<idgpuVendorLibrary_t>(-1)) == nullptr);
}

TEST_CASE("IDGPU_REPORT=1 prints the report at exit, with the functions the process called",
          "[cpu][capi][report]") {
  const std::string child = IDGPU_TEST_REPORT_CHILD;
  // stderr into the pipe, stdout discarded: the report must be on stderr.
  const std::string tail = " 2>&1 >/dev/null";
  {
    const CommandResult result = run_command("env IDGPU_REPORT=1 IDGPU_LOG=off '" + child + "' calls" + tail);
    CAPTURE(result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(result.output.find("idgpu dispatch report (pid ") != std::string::npos);
    CHECK(result.output.find("function") != std::string::npos);
    CHECK(report_row(result.output, "cufftCreate") == std::vector<unsigned long long>{1, 0, 1, 0});
    CHECK(report_row(result.output, "cufftDestroy") == std::vector<unsigned long long>{1, 0, 1, 0});
    CHECK(report_row(result.output, "cufftPlan1d") == std::vector<unsigned long long>{1, 0, 0, 1});
    CHECK(report_row(result.output, "cusparseSgtsv2_bufferSizeExt") == std::vector<unsigned long long>{1, 0, 1, 0});
    CHECK(report_row(result.output, "cufftExecC2C").empty());
    CHECK(result.output.find("child done") == std::string::npos);
  }
  for (const char* setting : {"IDGPU_REPORT=0", "IDGPU_REPORT=off", "IDGPU_REPORT="}) {
    CAPTURE(setting);
    const CommandResult result = run_command(std::string("env ") + setting + " IDGPU_LOG=off '" + child + "' calls" + tail);
    CHECK(result.exit_code == 0);
    CHECK(result.output.empty());
  }
  {
    const CommandResult result = run_command("env -u IDGPU_REPORT IDGPU_LOG=off '" + child + "' calls" + tail);
    CHECK(result.exit_code == 0);
    CHECK(result.output.empty());
  }
  {
    // A process that never calls idgpu prints nothing, even with IDGPU_REPORT=1.
    const CommandResult result = run_command("env IDGPU_REPORT=1 IDGPU_LOG=off '" + child + "' none" + tail);
    CHECK(result.exit_code == 0);
    CHECK(result.output.empty());
  }
}

// IDGPU_REPORT_FILE: the report goes to that file (%p: the pid), not to stderr; IDGPU_REPORT=json
// writes it as one JSON object.
TEST_CASE("IDGPU_REPORT_FILE and IDGPU_REPORT=json write the exit report", "[cpu][capi][report]") {
  const std::string child = IDGPU_TEST_REPORT_CHILD;
  char pattern[] = "/tmp/idgpu-report-test-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string directory = pattern;
  const auto read_text = [](const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  };
  const auto files = [&] {
    std::vector<std::string> names;
    const CommandResult listing = run_command("ls '" + directory + "'");
    std::istringstream lines(listing.output);
    for (std::string name; std::getline(lines, name);) names.push_back(name);
    return names;
  };
  {
    // IDGPU_REPORT_FILE alone turns the report on; nothing on stderr.
    const CommandResult result = run_command("env IDGPU_LOG=off 'IDGPU_REPORT_FILE=" + directory +
                                             "/report-%p.txt' '" + child + "' calls 2>&1 >/dev/null");
    CAPTURE(result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(result.output.empty());
    const std::vector<std::string> names = files();
    REQUIRE(names.size() == 1);
    CAPTURE(names[0]);
    const std::string pid = names[0].substr(7, names[0].size() - 7 - 4);  // report-<pid>.txt
    CHECK(names[0].rfind("report-", 0) == 0);
    CHECK(!pid.empty());
    CHECK(pid.find_first_not_of("0123456789") == std::string::npos);
    const std::string report = read_text(directory + "/" + names[0]);
    CAPTURE(report);
    CHECK(report.find("idgpu dispatch report (pid " + pid + ")") != std::string::npos);
    CHECK(report_row(report, "cufftCreate") == std::vector<unsigned long long>{1, 0, 1, 0});
    CHECK(report_row(report, "cufftPlan1d") == std::vector<unsigned long long>{1, 0, 0, 1});
    CHECK(report.find("by function, side, problem shape and reason:") != std::string::npos);
    std::remove((directory + "/" + names[0]).c_str());
  }
  {
    const CommandResult result = run_command("env IDGPU_LOG=off IDGPU_REPORT=json 'IDGPU_REPORT_FILE=" + directory +
                                             "/report.json' '" + child + "' calls 2>&1 >/dev/null");
    CHECK(result.exit_code == 0);
    CHECK(result.output.empty());
    const std::string report = read_text(directory + "/report.json");
    CAPTURE(report);
    CHECK(report.rfind("{\"pid\": ", 0) == 0);
    CHECK(report.find("{\"function\": \"cufftCreate\", \"calls\": 1, \"native\": 0, \"vendor\": 1, \"failed\": 0}") !=
          std::string::npos);
    CHECK(report.find("{\"function\": \"cufftPlan1d\", \"path\": \"none\", \"shape\": \"\", \"reason\": \"\", "
                      "\"calls\": 1, \"failed\": 1}") != std::string::npos);
    CHECK(report.find("\"shape\": \"f32 m=8 n=1\"") != std::string::npos);  // the gtsv size query
    std::remove((directory + "/report.json").c_str());
  }
  {
    // JSON on stderr, without a file.
    const CommandResult result =
        run_command("env IDGPU_LOG=off IDGPU_REPORT=json '" + child + "' calls 2>&1 >/dev/null");
    CAPTURE(result.output);
    CHECK(result.exit_code == 0);
    CHECK(result.output.rfind("{\"pid\": ", 0) == 0);
    CHECK(result.output.find("idgpu dispatch report") == std::string::npos);
  }
  {
    // A file that cannot be written: the report goes to stderr, with a line that says why.
    const CommandResult result = run_command("env IDGPU_LOG=off IDGPU_REPORT=1 'IDGPU_REPORT_FILE=" + directory +
                                             "/no-such-dir/report.txt' '" + child + "' calls 2>&1 >/dev/null");
    CAPTURE(result.output);
    CHECK(result.exit_code == 0);
    CHECK(result.output.find("idgpu: the report cannot be written to " + directory + "/no-such-dir/report.txt") !=
          std::string::npos);
    CHECK(report_row(result.output, "cufftCreate") == std::vector<unsigned long long>{1, 0, 1, 0});
  }
  CHECK(files().empty());
  rmdir(directory.c_str());
}

// Counters are per thread (src/core/stats.cpp). glibc runs the main thread's thread_local
// destructors before the exit handlers, so a call made while the process exits (an exit handler,
// a static destructor: a framework's plan cache) must still be counted, in a block that is not
// freed, and appear in the report.
TEST_CASE("calls made while the process exits are in the exit report",
          "[cpu][capi][report]") {
  const CommandResult result =
      run_command("env IDGPU_REPORT=1 IDGPU_LOG=off '" + std::string(IDGPU_TEST_REPORT_CHILD) + "' atexit 2>&1 >/dev/null");
  CAPTURE(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(report_row(result.output, "cufftCreate") == std::vector<unsigned long long>{1, 0, 1, 0});
  CHECK(report_row(result.output, "cufftGetVersion") == std::vector<unsigned long long>{1, 0, 1, 0});
  CHECK(report_row(result.output, "cufftDestroy") == std::vector<unsigned long long>{1, 0, 1, 0});
}
