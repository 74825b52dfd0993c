// cuSPARSE gtsv forwarding: every one of the 32 entries, given valid arguments, reaches the fake
// vendor's function of the same name with every argument unchanged, and the vendor's status (and
// buffer size) comes back unchanged.
#include <catch2/catch.hpp>

#include <cufft.h>

#include <set>
#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/fake_client.h"
#include "support/gtsv_calls.h"
#include "support/policy_guard.h"

using namespace idgpu::test;

namespace {

// Calls `entry` with `args`, checks it reached the vendor unchanged, and returns the status.
cusparseStatus_t check_forwarded(const GtsvEntry& entry, const GtsvArgs& args) {
  fakeVendorReset();
  const GtsvCallResult result = entry.call(args);
  CHECK(vendor_call_count() == 1);
  const RecordedCall call = last_vendor_call();
  CHECK(call.name == entry.name);
  CHECK(call.args == result.sent);
  return result.status;
}

}  // namespace

TEST_CASE("the gtsv table has the 32 entries, 4 precisions by 8 shapes", "[cpu][gtsv][forward]") {
  std::set<std::string> names;
  int buffer_sizes = 0;
  for (const GtsvEntry& entry : gtsv_entries()) {
    names.insert(entry.name);
    buffer_sizes += entry.is_buffer_size ? 1 : 0;
    CAPTURE(entry.name);
    CHECK(entry.has("handle"));
    CHECK(entry.has("m"));
    // Exactly one of: a buffer (the solves) or a size output (the _bufferSizeExt queries).
    CHECK(entry.has("pBuffer") != entry.is_buffer_size);
  }
  CHECK(names.size() == 32);
  CHECK(buffer_sizes == 16);
}

TEST_CASE("every gtsv entry forwards valid arguments unchanged", "[cpu][gtsv][forward]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  std::size_t size = 0;
  for (const GtsvEntry& entry : gtsv_entries()) {
    CAPTURE(entry.name);
    const std::vector<int> algos = entry.has("algo") ? std::vector<int>{0, 1, 2} : std::vector<int>{0};
    for (int algo : algos) {
      CAPTURE(algo);
      GtsvArgs args = valid_gtsv_args(&size);
      args.algo = algo;
      size = 0;
      CHECK(check_forwarded(entry, args) == CUSPARSE_STATUS_SUCCESS);
      if (entry.is_buffer_size) CHECK(size == FAKE_VENDOR_WORK_SIZE);
    }
  }
  CHECK(fakeVendorCallCount("cusparseGetStream") == 0);  // only asked for when timing
}

TEST_CASE("gtsv arguments on the edge of validity are forwarded", "[cpu][gtsv][forward]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  std::size_t size = 0;
  struct Edge {
    const char* name;
    void (*apply)(GtsvArgs&);
  };
  const Edge edges[] = {
      {"m = 3 (the smallest system)", [](GtsvArgs& a) { a.m = a.ldb = a.batchStride = 3; }},
      {"n = 0 right-hand sides", [](GtsvArgs& a) { a.n = 0; }},
      {"ldb = m", [](GtsvArgs& a) { a.ldb = a.m; }},
      {"ldb > m", [](GtsvArgs& a) { a.ldb = a.m + 5; }},
      {"batchStride = m", [](GtsvArgs& a) { a.batchStride = a.m; }},
      {"batchStride > m", [](GtsvArgs& a) { a.batchStride = 3 * a.m; }},
      {"batchCount = 1", [](GtsvArgs& a) { a.batchCount = 1; }},
      {"a large system", [](GtsvArgs& a) { a.m = a.ldb = a.batchStride = 1 << 30; }},
      {"pBuffer at a 128-byte boundary", [](GtsvArgs& a) { a.pBuffer = from_bits<void*>(0x7d6000000000ull + 128); }},
      // The vendor documents 128-byte alignment but accepts any buffer (measured on an H200), and
      // a null one where it needs none: pBuffer is the vendor's to judge.
      {"pBuffer 8 bytes past 128-byte alignment", [](GtsvArgs& a) { a.pBuffer = static_cast<char*>(a.pBuffer) + 8; }},
      {"pBuffer 64 bytes past 128-byte alignment",
       [](GtsvArgs& a) { a.pBuffer = static_cast<char*>(a.pBuffer) + 64; }},
      {"pBuffer = NULL", [](GtsvArgs& a) { a.pBuffer = nullptr; }},
  };
  for (const GtsvEntry& entry : gtsv_entries()) {
    for (const Edge& edge : edges) {
      CAPTURE(entry.name, edge.name);
      GtsvArgs args = valid_gtsv_args(&size);
      edge.apply(args);
      CHECK(check_forwarded(entry, args) == CUSPARSE_STATUS_SUCCESS);
    }
  }
}

TEST_CASE("the gtsv size queries do not look at the data pointers", "[cpu][gtsv][forward]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  // Only the solves read the matrices; a size query with null data is the vendor's to judge.
  std::size_t size = 0;
  for (const GtsvEntry& entry : gtsv_entries()) {
    if (!entry.is_buffer_size) continue;
    CAPTURE(entry.name);
    GtsvArgs args = valid_gtsv_args(&size);
    args.dl = args.d = args.du = args.B = nullptr;
    CHECK(check_forwarded(entry, args) == CUSPARSE_STATUS_SUCCESS);
  }
}

TEST_CASE("every gtsv entry passes a vendor failure back unchanged", "[cpu][gtsv][forward]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  const cusparseStatus_t failures[] = {CUSPARSE_STATUS_EXECUTION_FAILED, CUSPARSE_STATUS_INTERNAL_ERROR,
                                       CUSPARSE_STATUS_NOT_SUPPORTED,    CUSPARSE_STATUS_ALLOC_FAILED,
                                       CUSPARSE_STATUS_INVALID_VALUE,    CUSPARSE_STATUS_ARCH_MISMATCH,
                                       CUSPARSE_STATUS_INSUFFICIENT_RESOURCES};
  std::size_t turn = 0;
  for (const GtsvEntry& entry : gtsv_entries()) {
    const cusparseStatus_t failure = failures[turn++ % (sizeof(failures) / sizeof(failures[0]))];
    CAPTURE(entry.name, failure);
    std::size_t size = 777;
    const GtsvArgs args = valid_gtsv_args(&size);
    fakeVendorReset();
    fakeVendorSetStatus(entry.name.c_str(), failure);
    const GtsvCallResult result = entry.call(args);
    CHECK(result.status == failure);
    CHECK(vendor_call_count(entry.name.c_str()) == 1);
    CHECK(last_vendor_call().args == result.sent);
    CHECK(size == 777);
  }
  fakeVendorReset();
}

TEST_CASE("gtsv calls are counted as vendor calls of their own name", "[cpu][gtsv][forward][stats]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  std::size_t size = 0;
  for (const GtsvEntry& entry : gtsv_entries()) {
    CAPTURE(entry.name);
    idgpuCallStats_t before{};
    REQUIRE(idgpuGetCallStatsByName(entry.name.c_str(), &before) == IDGPU_STATUS_SUCCESS);
    entry.call(valid_gtsv_args(&size));
    idgpuCallStats_t after{};
    REQUIRE(idgpuGetCallStatsByName(entry.name.c_str(), &after) == IDGPU_STATUS_SUCCESS);
    CHECK(after.calls == before.calls + 1);
    CHECK(after.vendorCalls == before.vendorCalls + 1);
    CHECK(after.failedCalls == before.failedCalls);
    CHECK(after.nativeCalls == before.nativeCalls);
  }
}

// Run with IDGPU_REPORT=timing (CTest entry cpu.api.timing): the GPU timer asks the vendor for
// the handle's stream; without a GPU the timer gives up quietly and the call is unchanged.
TEST_CASE("with IDGPU_REPORT=timing and no GPU, gtsv and exec calls still forward unchanged", "[cpu][.timing]") {
  const PolicyGuard vendor_only(IDGPU_POLICY_VENDOR);
  std::size_t size = 0;
  for (const GtsvEntry& entry : gtsv_entries()) {
    CAPTURE(entry.name);
    const GtsvArgs args = valid_gtsv_args(&size);
    fakeVendorReset();
    const GtsvCallResult result = entry.call(args);
    CHECK(result.status == CUSPARSE_STATUS_SUCCESS);
    const std::vector<RecordedCall> calls = vendor_calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].name == "cusparseGetStream");
    CHECK(calls[0].args.at(0) == to_bits(args.handle));
    CHECK(calls[1].name == entry.name);
    CHECK(calls[1].args == result.sent);
  }
  cufftHandle plan = 0;
  REQUIRE(cufftPlan1d(&plan, 8, CUFFT_C2C, 1) == CUFFT_SUCCESS);
  REQUIRE(cufftSetStream(plan, nullptr) == CUFFT_SUCCESS);
  fakeVendorReset();
  CHECK(cufftExecC2C(plan, nullptr, nullptr, CUFFT_FORWARD) == CUFFT_SUCCESS);
  CHECK(vendor_call_names() == std::vector<std::string>{"cufftExecC2C"});
  CHECK(cufftDestroy(plan) == CUFFT_SUCCESS);
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName("cufftExecC2C", &stats) == IDGPU_STATUS_SUCCESS);
  CHECK(stats.calls == 1);
  CHECK(stats.timedCalls <= stats.calls);  // none without a GPU
  CHECK(stats.gpuMilliseconds >= 0.0);
}
