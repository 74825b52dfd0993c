// cuFFT forwarding through libidgpu's exported API to the fake vendor: the vendor function of the
// same name is called, with the plan's vendor handle in place of ours and every other argument
// unchanged, and its status comes back unchanged.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/cufft_calls.h"
#include "support/fake_client.h"

using namespace idgpu::test;

namespace {

struct TestPlan {
  cufftHandle ours = 0;
  cufftHandle vendor = 0;
};

TestPlan created_plan() {
  TestPlan plan;
  fakeVendorReset();
  REQUIRE(cufftCreate(&plan.ours) == CUFFT_SUCCESS);
  const RecordedCall create = last_vendor_call();
  REQUIRE(create.name == "cufftCreate");
  plan.vendor = static_cast<cufftHandle>(create.out);
  REQUIRE(plan.vendor >= FAKE_VENDOR_FIRST_CUFFT_HANDLE);
  fakeVendorReset();
  return plan;
}

TestPlan made_plan(cufftType type, int nx = 8) {
  TestPlan plan;
  fakeVendorReset();
  REQUIRE(cufftPlan1d(&plan.ours, nx, type, 1) == CUFFT_SUCCESS);
  const std::vector<RecordedCall> calls = vendor_calls();
  REQUIRE(calls.size() == 2);
  REQUIRE(calls[0].name == "cufftCreate");
  plan.vendor = static_cast<cufftHandle>(calls[0].out);
  fakeVendorReset();
  return plan;
}

void destroy(const TestPlan& plan) { CHECK(cufftDestroy(plan.ours) == CUFFT_SUCCESS); }

// The statuses a fake vendor is told to fail with, one per call in turn.
const cufftResult kFailures[] = {CUFFT_INTERNAL_ERROR, CUFFT_EXEC_FAILED,   CUFFT_NOT_SUPPORTED,
                                 CUFFT_INVALID_VALUE,  CUFFT_ALLOC_FAILED, CUFFT_INVALID_SIZE,
                                 CUFFT_SETUP_FAILED,   CUFFT_NO_WORKSPACE,  CUFFT_INVALID_DEVICE};

unsigned long long bits_of_ptr(const void* pointer) { return to_bits(pointer); }

}  // namespace

TEST_CASE("the cuFFT table's entries are unique, each of the kind documented", "[cpu][fft][forward]") {
  std::map<CufftKind, int> kinds;
  std::set<std::string> names;
  for (const CufftEntry& entry : cufft_entries()) {
    kinds[entry.kind] += 1;
    names.insert(entry.name);
    // OWN and PLAN entries take a handle, except the five that create one.
    const bool creates = std::string(entry.name) == "cufftCreate" || std::string(entry.name).rfind("cufftPlan", 0) == 0;
    CAPTURE(entry.name);
    CHECK(entry.takes_handle == (entry.kind != CufftKind::kFree && !creates));
  }
  // (The exports test checks the names against the vendor's.)
  CHECK(names.size() == cufft_entries().size());
  CHECK(kinds[CufftKind::kOwn] > 0);
  CHECK(kinds[CufftKind::kPlan] > 0);
  CHECK(kinds[CufftKind::kFree] > 0);
}

TEST_CASE("every PLAN and FREE entry forwards its arguments with the vendor handle", "[cpu][fft][forward]") {
  const TestPlan plan = created_plan();
  CAPTURE(plan.ours, plan.vendor);
  REQUIRE(plan.ours != plan.vendor);
  std::size_t forwarded = 0;
  for (const CufftEntry& entry : cufft_entries()) {
    if (entry.kind == CufftKind::kOwn) continue;
    CAPTURE(entry.name);
    fakeVendorReset();
    const CufftCallResult result = entry.call(plan.ours, plan.vendor);
    CHECK(result.status == CUFFT_SUCCESS);
    REQUIRE(vendor_call_count() == 1);
    const RecordedCall call = last_vendor_call();
    CHECK(call.name == entry.name);
    CHECK(call.args == result.sent);
    if (entry.kind == CufftKind::kPlan) CHECK(call.args.at(0) == to_bits(plan.vendor));
    ++forwarded;
  }
  CHECK(forwarded >= 20);
  CHECK(fakeVendorMisuseCount() == 0);
  destroy(plan);
}

TEST_CASE("every PLAN and FREE entry passes a vendor failure back unchanged", "[cpu][fft][forward]") {
  const TestPlan plan = created_plan();
  std::size_t turn = 0;
  for (const CufftEntry& entry : cufft_entries()) {
    if (entry.kind == CufftKind::kOwn) continue;
    const cufftResult failure = kFailures[turn++ % (sizeof(kFailures) / sizeof(kFailures[0]))];
    CAPTURE(entry.name, failure);
    fakeVendorReset();
    fakeVendorSetStatus(entry.name, failure);
    const CufftCallResult result = entry.call(plan.ours, plan.vendor);
    CHECK(result.status == failure);
    CHECK(vendor_call_count(entry.name) == 1);
  }
  fakeVendorReset();
  // A plan that has been through vendor-only features keeps working.
  cudaStream_t stream = from_bits<cudaStream_t>(0x51);
  CHECK(cufftSetStream(plan.ours, stream) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), to_bits(stream)});
  destroy(plan);
}

TEST_CASE("every OWN entry reaches the vendor function of the same name with the vendor handle",
          "[cpu][fft][forward]") {
  // One valid call per OWN entry; each gets a fresh plan (made with the right type for an exec).
  struct OwnCall {
    const char* name;
    cufftType made_as;  // 0: created, not made
    std::function<cufftResult(cufftHandle)> call;
  };
  static int n1[1] = {8};
  static long long n1_64[1] = {8};
  static size_t work = 0;
  static void* area = from_bits<void*>(0x7a00000000ull);
  static void* data = from_bits<void*>(0x7b00000000ull);
  const cufftType kCreated = static_cast<cufftType>(0);
  const std::vector<OwnCall> calls = {
      {"cufftDestroy", kCreated, [](cufftHandle p) { return cufftDestroy(p); }},
      {"cufftMakePlan1d", kCreated, [](cufftHandle p) { return cufftMakePlan1d(p, 8, CUFFT_C2C, 1, &work); }},
      {"cufftMakePlan2d", kCreated, [](cufftHandle p) { return cufftMakePlan2d(p, 8, 8, CUFFT_C2C, &work); }},
      {"cufftMakePlan3d", kCreated, [](cufftHandle p) { return cufftMakePlan3d(p, 4, 4, 4, CUFFT_C2C, &work); }},
      {"cufftMakePlanMany", kCreated,
       [](cufftHandle p) { return cufftMakePlanMany(p, 1, n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1, &work); }},
      {"cufftMakePlanMany64", kCreated,
       [](cufftHandle p) {
         return cufftMakePlanMany64(p, 1, n1_64, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1, &work);
       }},
      {"cufftXtMakePlanMany", kCreated,
       [](cufftHandle p) {
         return cufftXtMakePlanMany(p, 1, n1_64, nullptr, 1, 0, CUDA_C_32F, nullptr, 1, 0, CUDA_C_32F, 1, &work,
                                    CUDA_C_32F);
       }},
      {"cufftGetSize1d", kCreated, [](cufftHandle p) { return cufftGetSize1d(p, 8, CUFFT_C2C, 1, &work); }},
      {"cufftGetSize2d", kCreated, [](cufftHandle p) { return cufftGetSize2d(p, 8, 8, CUFFT_C2C, &work); }},
      {"cufftGetSize3d", kCreated, [](cufftHandle p) { return cufftGetSize3d(p, 4, 4, 4, CUFFT_C2C, &work); }},
      {"cufftGetSizeMany", kCreated,
       [](cufftHandle p) { return cufftGetSizeMany(p, 1, n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1, &work); }},
      {"cufftGetSizeMany64", kCreated,
       [](cufftHandle p) {
         return cufftGetSizeMany64(p, 1, n1_64, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1, &work);
       }},
      {"cufftXtGetSizeMany", kCreated,
       [](cufftHandle p) {
         return cufftXtGetSizeMany(p, 1, n1_64, nullptr, 1, 0, CUDA_C_32F, nullptr, 1, 0, CUDA_C_32F, 1, &work,
                                   CUDA_C_32F);
       }},
      {"cufftGetSize", CUFFT_C2C, [](cufftHandle p) { return cufftGetSize(p, &work); }},
      {"cufftSetWorkArea", CUFFT_C2C, [](cufftHandle p) { return cufftSetWorkArea(p, area); }},
      {"cufftXtSetWorkArea", CUFFT_C2C, [](cufftHandle p) { return cufftXtSetWorkArea(p, &area); }},
      {"cufftSetAutoAllocation", CUFFT_C2C, [](cufftHandle p) { return cufftSetAutoAllocation(p, 0); }},
      {"cufftSetStream", CUFFT_C2C, [](cufftHandle p) { return cufftSetStream(p, from_bits<cudaStream_t>(0x77)); }},
      {"cufftExecC2C", CUFFT_C2C,
       [](cufftHandle p) {
         return cufftExecC2C(p, static_cast<cufftComplex*>(data), static_cast<cufftComplex*>(data), CUFFT_FORWARD);
       }},
      {"cufftExecR2C", CUFFT_R2C,
       [](cufftHandle p) {
         return cufftExecR2C(p, static_cast<cufftReal*>(data), static_cast<cufftComplex*>(data));
       }},
      {"cufftExecC2R", CUFFT_C2R,
       [](cufftHandle p) {
         return cufftExecC2R(p, static_cast<cufftComplex*>(data), static_cast<cufftReal*>(data));
       }},
      {"cufftExecZ2Z", CUFFT_Z2Z,
       [](cufftHandle p) {
         return cufftExecZ2Z(p, static_cast<cufftDoubleComplex*>(data), static_cast<cufftDoubleComplex*>(data),
                             CUFFT_INVERSE);
       }},
      {"cufftExecD2Z", CUFFT_D2Z,
       [](cufftHandle p) {
         return cufftExecD2Z(p, static_cast<cufftDoubleReal*>(data), static_cast<cufftDoubleComplex*>(data));
       }},
      {"cufftExecZ2D", CUFFT_Z2D,
       [](cufftHandle p) {
         return cufftExecZ2D(p, static_cast<cufftDoubleComplex*>(data), static_cast<cufftDoubleReal*>(data));
       }},
      {"cufftXtExec", CUFFT_C2C, [](cufftHandle p) { return cufftXtExec(p, data, data, CUFFT_FORWARD); }},
  };

  // The list covers every OWN entry that takes a handle (the creating ones have their own tests).
  std::set<std::string> covered;
  for (const OwnCall& own : calls) covered.insert(own.name);
  for (const CufftEntry& entry : cufft_entries()) {
    if (entry.kind == CufftKind::kOwn && entry.takes_handle) {
      CAPTURE(entry.name);
      CHECK(covered.count(entry.name) == 1);
    }
  }

  std::size_t turn = 0;
  for (const OwnCall& own : calls) {
    CAPTURE(own.name);
    const TestPlan plan = own.made_as == kCreated ? created_plan() : made_plan(own.made_as);
    CAPTURE(plan.ours, plan.vendor);
    CHECK(own.call(plan.ours) == CUFFT_SUCCESS);
    REQUIRE(vendor_call_count() == 1);
    const RecordedCall call = last_vendor_call();
    CHECK(call.name == own.name);
    REQUIRE(!call.args.empty());
    CHECK(call.args[0] == to_bits(plan.vendor));

    // The vendor's failure comes back unchanged.
    const cufftResult failure = kFailures[turn++ % (sizeof(kFailures) / sizeof(kFailures[0]))];
    CAPTURE(failure);
    const TestPlan failing = own.made_as == kCreated ? created_plan() : made_plan(own.made_as);
    fakeVendorSetStatus(own.name, failure);
    CHECK(own.call(failing.ours) == failure);
    CHECK(vendor_call_count(own.name) == 1);
    fakeVendorReset();
    if (std::string(own.name) != "cufftDestroy") {
      destroy(plan);
      destroy(failing);
    } else {
      // The vendor refused to destroy: our handle is gone all the same.
      CHECK(cufftDestroy(failing.ours) == CUFFT_INVALID_PLAN);
    }
  }
  CHECK(fakeVendorMisuseCount() == 0);
}

TEST_CASE("cufftCreate and cufftDestroy translate between our handles and the vendor's", "[cpu][fft][forward]") {
  fakeVendorReset();
  const long long live_before = fakeVendorLiveCufftHandles();
  cufftHandle first = 0;
  cufftHandle second = 0;
  REQUIRE(cufftCreate(&first) == CUFFT_SUCCESS);
  const RecordedCall create_first = last_vendor_call();
  REQUIRE(cufftCreate(&second) == CUFFT_SUCCESS);
  const RecordedCall create_second = last_vendor_call();
  CHECK(create_first.name == "cufftCreate");
  // Our handle is ours: positive, not the vendor's, not the address the application passed.
  CHECK(first >= 1);
  CHECK(first != second);
  CHECK(static_cast<unsigned long long>(first) != create_first.out);
  CHECK(create_first.out != create_second.out);
  CHECK(create_first.args.at(0) != bits_of_ptr(&first));
  CHECK(fakeVendorLiveCufftHandles() == live_before + 2);

  fakeVendorReset();
  CHECK(cufftDestroy(second) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().name == "cufftDestroy");
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{create_second.out});
  CHECK(cufftDestroy(first) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{create_first.out});
  CHECK(fakeVendorLiveCufftHandles() == live_before);
  // Destroyed: refused without a vendor call.
  fakeVendorReset();
  CHECK(cufftDestroy(first) == CUFFT_INVALID_PLAN);
  CHECK(vendor_call_count() == 0);
  CHECK(fakeVendorMisuseCount() == 0);
}

TEST_CASE("a failed vendor cufftCreate is passed back and leaves no handle", "[cpu][fft][forward]") {
  for (const cufftResult failure : {CUFFT_ALLOC_FAILED, CUFFT_INTERNAL_ERROR, CUFFT_SETUP_FAILED}) {
    CAPTURE(failure);
    fakeVendorReset();
    fakeVendorSetStatus("cufftCreate", failure);
    cufftHandle plan = 0x5a5a;
    CHECK(cufftCreate(&plan) == failure);
    CHECK(plan == 0x5a5a);
    CHECK(cufftPlan1d(&plan, 8, CUFFT_C2C, 1) == failure);
    CHECK(plan == 0x5a5a);
    CHECK(vendor_call_names() == std::vector<std::string>{"cufftCreate", "cufftCreate"});
  }
  fakeVendorReset();
}

TEST_CASE("cufftPlan1d/2d/3d/Many create a vendor plan and make it with the caller's arguments",
          "[cpu][fft][forward]") {
  static int n[2] = {12, 10};
  static int inembed[2] = {99, 16};
  static int onembed[2] = {98, 11};
  struct Creation {
    const char* name;
    const char* make;
    std::function<cufftResult(cufftHandle*)> call;
    // The expected make arguments after the vendor handle, up to the work-size pointer.
    std::vector<unsigned long long> arguments;
  };
  const std::vector<Creation> creations = {
      {"cufftPlan1d", "cufftMakePlan1d", [](cufftHandle* p) { return cufftPlan1d(p, 16, CUFFT_R2C, 4); },
       {16, to_bits(CUFFT_R2C), 4}},
      {"cufftPlan2d", "cufftMakePlan2d", [](cufftHandle* p) { return cufftPlan2d(p, 8, 12, CUFFT_Z2Z); },
       {8, 12, to_bits(CUFFT_Z2Z)}},
      {"cufftPlan3d", "cufftMakePlan3d", [](cufftHandle* p) { return cufftPlan3d(p, 2, 3, 5, CUFFT_C2R); },
       {2, 3, 5, to_bits(CUFFT_C2R)}},
      {"cufftPlanMany", "cufftMakePlanMany",
       [](cufftHandle* p) { return cufftPlanMany(p, 2, n, inembed, 2, 1000, onembed, 3, 2000, CUFFT_D2Z, 5); },
       {2, bits_of_ptr(n), bits_of_ptr(inembed), 2, 1000, bits_of_ptr(onembed), 3, 2000, to_bits(CUFFT_D2Z), 5}},
  };
  for (const Creation& creation : creations) {
    CAPTURE(creation.name);
    fakeVendorReset();
    const long long live_before = fakeVendorLiveCufftHandles();
    cufftHandle plan = 0;
    REQUIRE(creation.call(&plan) == CUFFT_SUCCESS);
    const std::vector<RecordedCall> calls = vendor_calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].name == "cufftCreate");
    CHECK(calls[1].name == creation.make);
    const unsigned long long vendor = calls[0].out;
    CHECK(plan >= 1);
    CHECK(static_cast<unsigned long long>(plan) != vendor);
    REQUIRE(calls[1].args.size() == creation.arguments.size() + 2);
    CHECK(calls[1].args.front() == vendor);
    CHECK(std::vector<unsigned long long>(calls[1].args.begin() + 1, calls[1].args.end() - 1) == creation.arguments);
    CHECK(calls[1].args.back() != 0);  // a work-size pointer of ours
    // The made plan executes on the same vendor handle.
    fakeVendorReset();
    CHECK(cufftSetStream(plan, nullptr) == CUFFT_SUCCESS);
    CHECK(last_vendor_call().args.at(0) == vendor);
    CHECK(cufftDestroy(plan) == CUFFT_SUCCESS);
    CHECK(fakeVendorLiveCufftHandles() == live_before);

    // A vendor refusal of the make: its status, no handle out, the vendor plan destroyed again.
    fakeVendorReset();
    fakeVendorSetStatus(creation.make, CUFFT_INVALID_SIZE);
    cufftHandle refused = 0x5a5a;
    CHECK(creation.call(&refused) == CUFFT_INVALID_SIZE);
    CHECK(refused == 0x5a5a);
    const std::vector<RecordedCall> refusal = vendor_calls();
    REQUIRE(refusal.size() == 3);
    CHECK(refusal[2].name == "cufftDestroy");
    CHECK(refusal[2].args == std::vector<unsigned long long>{refusal[0].out});
    CHECK(fakeVendorLiveCufftHandles() == live_before);
  }
  fakeVendorReset();
}

TEST_CASE("cufftMakePlan* and cufftGetSize* forward the caller's arguments and return the vendor's size",
          "[cpu][fft][forward]") {
  static int n[3] = {4, 6, 10};
  static int inembed[3] = {7, 8, 12};
  static int onembed[3] = {5, 9, 13};
  static long long n64[3] = {4, 6, 10};
  static long long inembed64[3] = {7, 8, 12};
  static long long onembed64[3] = {5, 9, 13};
  struct SizedCall {
    const char* name;
    std::function<cufftResult(cufftHandle, size_t*)> call;
    std::function<std::vector<unsigned long long>(unsigned long long vendor, size_t* work)> expected;
  };
  const std::vector<SizedCall> sized = {
      {"cufftMakePlan1d", [](cufftHandle p, size_t* w) { return cufftMakePlan1d(p, 30, CUFFT_Z2D, 7, w); },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 30, to_bits(CUFFT_Z2D), 7, to_bits(w)};
       }},
      {"cufftMakePlan2d", [](cufftHandle p, size_t* w) { return cufftMakePlan2d(p, 30, 31, CUFFT_C2C, w); },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 30, 31, to_bits(CUFFT_C2C), to_bits(w)};
       }},
      {"cufftMakePlan3d", [](cufftHandle p, size_t* w) { return cufftMakePlan3d(p, 3, 5, 7, CUFFT_D2Z, w); },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 3, 5, 7, to_bits(CUFFT_D2Z), to_bits(w)};
       }},
      {"cufftMakePlanMany",
       [](cufftHandle p, size_t* w) {
         return cufftMakePlanMany(p, 3, n, inembed, 2, 700, onembed, 3, 800, CUFFT_R2C, 9, w);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v,   3, to_bits(n), to_bits(inembed), 2, 700, to_bits(onembed),
                                                3, 800, to_bits(CUFFT_R2C),  9, to_bits(w)};
       }},
      {"cufftMakePlanMany64",
       [](cufftHandle p, size_t* w) {
         return cufftMakePlanMany64(p, 3, n64, inembed64, 2, 1LL << 33, onembed64, 3, 1LL << 34, CUFFT_C2C,
                                    (1LL << 32) + 1, w);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v,
                                                3,
                                                to_bits(n64),
                                                to_bits(inembed64),
                                                2,
                                                1ULL << 33,
                                                to_bits(onembed64),
                                                3,
                                                1ULL << 34,
                                                to_bits(CUFFT_C2C),
                                                (1ULL << 32) + 1,
                                                to_bits(w)};
       }},
      // A type triple the descriptor cannot express still reaches the vendor unchanged.
      {"cufftXtMakePlanMany",
       [](cufftHandle p, size_t* w) {
         return cufftXtMakePlanMany(p, 1, n64, nullptr, 1, 0, CUDA_R_16F, nullptr, 1, 0, CUDA_C_32F, 3, w,
                                    CUDA_C_64F);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v,       1, to_bits(n64), 0, 1, 0, to_bits(CUDA_R_16F), 0, 1, 0,
                                                to_bits(CUDA_C_32F), 3, to_bits(w), to_bits(CUDA_C_64F)};
       }},
      {"cufftXtMakePlanMany",
       [](cufftHandle p, size_t* w) {
         return cufftXtMakePlanMany(p, 2, n64, nullptr, 1, 0, CUDA_C_16F, nullptr, 1, 0, CUDA_C_16F, 3, w,
                                    CUDA_C_16F);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v,       2, to_bits(n64), 0, 1, 0, to_bits(CUDA_C_16F), 0, 1, 0,
                                                to_bits(CUDA_C_16F), 3, to_bits(w), to_bits(CUDA_C_16F)};
       }},
      {"cufftGetSize1d", [](cufftHandle p, size_t* w) { return cufftGetSize1d(p, 64, CUFFT_C2R, 2, w); },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 64, to_bits(CUFFT_C2R), 2, to_bits(w)};
       }},
      {"cufftGetSize2d", [](cufftHandle p, size_t* w) { return cufftGetSize2d(p, 64, 65, CUFFT_Z2Z, w); },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 64, 65, to_bits(CUFFT_Z2Z), to_bits(w)};
       }},
      {"cufftGetSize3d", [](cufftHandle p, size_t* w) { return cufftGetSize3d(p, 6, 7, 8, CUFFT_R2C, w); },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 6, 7, 8, to_bits(CUFFT_R2C), to_bits(w)};
       }},
      {"cufftGetSizeMany",
       [](cufftHandle p, size_t* w) {
         return cufftGetSizeMany(p, 2, n, inembed, 1, 70, onembed, 1, 80, CUFFT_C2C, 11, w);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v,  2, to_bits(n), to_bits(inembed), 1, 70, to_bits(onembed),
                                                1, 80, to_bits(CUFFT_C2C),  11, to_bits(w)};
       }},
      {"cufftGetSizeMany64",
       [](cufftHandle p, size_t* w) {
         return cufftGetSizeMany64(p, 1, n64, nullptr, 5, 6, nullptr, 7, 8, CUFFT_Z2Z, 1LL << 31, w);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 1, to_bits(n64), 0, 5, 6, 0, 7, 8, to_bits(CUFFT_Z2Z),
                                                1ULL << 31, to_bits(w)};
       }},
      {"cufftXtGetSizeMany",
       [](cufftHandle p, size_t* w) {
         return cufftXtGetSizeMany(p, 1, n64, inembed64, 1, 0, CUDA_R_64F, onembed64, 1, 0, CUDA_C_64F, 3, w,
                                   CUDA_C_64F);
       },
       [](unsigned long long v, size_t* w) {
         return std::vector<unsigned long long>{v, 1, to_bits(n64), to_bits(inembed64), 1, 0, to_bits(CUDA_R_64F),
                                                to_bits(onembed64), 1, 0, to_bits(CUDA_C_64F), 3, to_bits(w),
                                                to_bits(CUDA_C_64F)};
       }},
  };
  for (const SizedCall& one : sized) {
    CAPTURE(one.name);
    const TestPlan plan = created_plan();
    size_t work = 0;
    CHECK(one.call(plan.ours, &work) == CUFFT_SUCCESS);
    CHECK(work == FAKE_VENDOR_WORK_SIZE);
    REQUIRE(vendor_call_count() == 1);
    const RecordedCall call = last_vendor_call();
    CHECK(call.name == one.name);
    CHECK(call.args == one.expected(static_cast<unsigned long long>(plan.vendor), &work));

    // Failure: the vendor's status, the caller's size untouched (the fake writes nothing then).
    const TestPlan failing = created_plan();
    fakeVendorSetStatus(one.name, CUFFT_INTERNAL_ERROR);
    size_t untouched = 12345;
    CHECK(one.call(failing.ours, &untouched) == CUFFT_INTERNAL_ERROR);
    CHECK(untouched == 12345);
    fakeVendorReset();
    destroy(plan);
    destroy(failing);
  }

  // cufftGetSize of a made plan asks the vendor plan.
  const TestPlan plan = made_plan(CUFFT_C2C);
  size_t work = 0;
  CHECK(cufftGetSize(plan.ours, &work) == CUFFT_SUCCESS);
  CHECK(work == FAKE_VENDOR_WORK_SIZE);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), to_bits(&work)});
  destroy(plan);
}

TEST_CASE("plan settings forward the caller's values with the vendor handle", "[cpu][fft][forward]") {
  const TestPlan plan = made_plan(CUFFT_Z2Z);
  void* area = from_bits<void*>(0x7e0000001000ull);
  void* areas[2] = {area, from_bits<void*>(0x7e0000002000ull)};
  cudaStream_t stream = from_bits<cudaStream_t>(0x7e0000003000ull);

  fakeVendorReset();
  CHECK(cufftSetStream(plan.ours, stream) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().name == "cufftSetStream");
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), to_bits(stream)});
  CHECK(cufftSetWorkArea(plan.ours, area) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), to_bits(area)});
  CHECK(cufftXtSetWorkArea(plan.ours, areas) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), to_bits(&areas[0])});
  CHECK(cufftXtSetWorkArea(plan.ours, nullptr) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), 0});
  for (int automatic : {0, 1, 7}) {
    CHECK(cufftSetAutoAllocation(plan.ours, automatic) == CUFFT_SUCCESS);
    CHECK(last_vendor_call().args ==
          std::vector<unsigned long long>{to_bits(plan.vendor), static_cast<unsigned long long>(automatic)});
  }
  CHECK(vendor_call_count() == 7);
  // The stream the plan runs on is the one set: an exec afterwards goes to the same vendor plan.
  double2 buffer[8];
  CHECK(cufftExecZ2Z(plan.ours, buffer, buffer, CUFFT_FORWARD) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args ==
        std::vector<unsigned long long>{to_bits(plan.vendor), to_bits(&buffer[0]), to_bits(&buffer[0]),
                                        to_bits(CUFFT_FORWARD)});
  fakeVendorReset();
  destroy(plan);
}

TEST_CASE("exec calls forward data pointers and direction on the plan's vendor handle", "[cpu][fft][forward]") {
  void* in = from_bits<void*>(0x7c0000000100ull);
  void* out = from_bits<void*>(0x7c0000000200ull);
  const auto in_bits = to_bits(in);
  const auto out_bits = to_bits(out);
  {
    const TestPlan plan = made_plan(CUFFT_C2C);
    for (int direction : {CUFFT_FORWARD, CUFFT_INVERSE}) {
      CHECK(cufftExecC2C(plan.ours, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), direction) ==
            CUFFT_SUCCESS);
      CHECK(last_vendor_call().name == "cufftExecC2C");
      CHECK(last_vendor_call().args ==
            std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits, to_bits(direction)});
    }
    // In place.
    CHECK(cufftExecC2C(plan.ours, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(in), CUFFT_FORWARD) ==
          CUFFT_SUCCESS);
    CHECK(last_vendor_call().args ==
          std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, in_bits, to_bits(CUFFT_FORWARD)});
    // cufftXtExec is not checked against the plan's type: the vendor judges it.
    CHECK(cufftXtExec(plan.ours, in, out, 5) == CUFFT_SUCCESS);
    CHECK(last_vendor_call().name == "cufftXtExec");
    CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits, 5});
    fakeVendorSetStatus("cufftExecC2C", CUFFT_EXEC_FAILED);
    CHECK(cufftExecC2C(plan.ours, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), CUFFT_FORWARD) ==
          CUFFT_EXEC_FAILED);
    fakeVendorReset();
    destroy(plan);
  }
  {
    const TestPlan plan = made_plan(CUFFT_R2C);
    CHECK(cufftExecR2C(plan.ours, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)) == CUFFT_SUCCESS);
    CHECK(last_vendor_call().name == "cufftExecR2C");
    CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits});
    destroy(plan);
  }
  {
    const TestPlan plan = made_plan(CUFFT_C2R);
    CHECK(cufftExecC2R(plan.ours, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)) == CUFFT_SUCCESS);
    CHECK(last_vendor_call().name == "cufftExecC2R");
    CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits});
    destroy(plan);
  }
  {
    const TestPlan plan = made_plan(CUFFT_Z2Z);
    CHECK(cufftExecZ2Z(plan.ours, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out),
                       CUFFT_INVERSE) == CUFFT_SUCCESS);
    CHECK(last_vendor_call().args ==
          std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits, to_bits(CUFFT_INVERSE)});
    destroy(plan);
  }
  {
    const TestPlan plan = made_plan(CUFFT_D2Z);
    CHECK(cufftExecD2Z(plan.ours, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)) ==
          CUFFT_SUCCESS);
    CHECK(last_vendor_call().name == "cufftExecD2Z");
    CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits});
    destroy(plan);
  }
  {
    const TestPlan plan = made_plan(CUFFT_Z2D);
    CHECK(cufftExecZ2D(plan.ours, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out)) ==
          CUFFT_SUCCESS);
    CHECK(last_vendor_call().name == "cufftExecZ2D");
    CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(plan.vendor), in_bits, out_bits});
    destroy(plan);
  }
  {
    // A plan created but not made has no type yet: any exec reaches the vendor, which judges it.
    const TestPlan plan = created_plan();
    CHECK(cufftExecD2Z(plan.ours, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)) ==
          CUFFT_SUCCESS);
    CHECK(last_vendor_call().name == "cufftExecD2Z");
    CHECK(last_vendor_call().args.at(0) == to_bits(plan.vendor));
    destroy(plan);
  }
  CHECK(fakeVendorMisuseCount() == 0);
}
