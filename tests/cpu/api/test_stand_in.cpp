// The stand-in libraries (lib/idgpu-stubs/libcufft.so.N, libcusparse.so.N), opened by path as a
// program that dlopens the vendor by name would, with the fake vendor behind libidgpu: a name
// libidgpu exports reaches libidgpu (and through it the vendor), any other name reaches the vendor
// directly, a name neither has returns the vendor's "not initialised" status, and the trampolines
// carry arguments in registers and on the stack unchanged.
// CTest entry cpu.api.stand_in (hidden tag: it loads libraries with the vendor's SONAMEs).
#include <catch2/catch.hpp>

#include <cufft.h>
#include <cusparse.h>
#include <dlfcn.h>

#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/cufft_calls.h"
#include "support/fake_client.h"
#include "support/gtsv_calls.h"

using namespace idgpu::test;

#if defined(IDGPU_TEST_STUB_CUFFT) && defined(IDGPU_TEST_STUB_CUSPARSE)

namespace {

void* open_stand_in(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  INFO((handle == nullptr ? dlerror() : ""));
  REQUIRE(handle != nullptr);
  return handle;
}

template <class Fn>
Fn symbol(void* library, const char* name) {
  void* address = dlsym(library, name);
  INFO(name);
  REQUIRE(address != nullptr);
  return reinterpret_cast<Fn>(address);
}

unsigned long long calls_of(const char* name) {
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName(name, &stats) == IDGPU_STATUS_SUCCESS);
  return stats.calls;
}

}  // namespace

TEST_CASE("the cuFFT stand-in routes every cuFFT name through libidgpu", "[cpu][.stand-in]") {
  void* library = open_stand_in(IDGPU_TEST_STUB_CUFFT);
  for (const CufftEntry& entry : cufft_entries()) {
    CAPTURE(entry.name);
    // The stand-in's own trampoline, not libidgpu's function (which it finds on its first call).
    CHECK(dlsym(library, entry.name) != nullptr);
  }
  // The first call through a stand-in binds all of its slots on the way (the slow path of the
  // trampolines): make it one with eleven arguments, five of them on the stack, so that the
  // registers and the stack the slow path must preserve are all in use.
  auto estimate_many = symbol<decltype(&cufftEstimateMany)>(library, "cufftEstimateMany");
  {
    int n[2] = {6, 10};
    int inembed[2] = {7, 11};
    int onembed[2] = {8, 12};
    size_t work = 0;
    fakeVendorReset();
    CHECK(estimate_many(2, n, inembed, 3, 1000, onembed, 5, 2000, CUFFT_D2Z, 9, &work) == CUFFT_SUCCESS);
    CHECK(work == FAKE_VENDOR_WORK_SIZE);
    CHECK(last_vendor_call().name == "cufftEstimateMany");
    CHECK(last_vendor_call().args == std::vector<unsigned long long>{2, to_bits(n), to_bits(inembed), 3, 1000,
                                                                     to_bits(onembed), 5, 2000, to_bits(CUFFT_D2Z), 9,
                                                                     to_bits(&work)});
  }
  auto create = symbol<cufftResult (*)(cufftHandle*)>(library, "cufftCreate");
  auto set_stream = symbol<cufftResult (*)(cufftHandle, cudaStream_t)>(library, "cufftSetStream");
  auto destroy = symbol<cufftResult (*)(cufftHandle)>(library, "cufftDestroy");
  auto make_many64 = symbol<decltype(&cufftMakePlanMany64)>(library, "cufftMakePlanMany64");

  fakeVendorReset();
  const unsigned long long creates_before = calls_of("cufftCreate");
  cufftHandle plan = 0;
  REQUIRE(create(&plan) == CUFFT_SUCCESS);
  CHECK(calls_of("cufftCreate") == creates_before + 1);  // libidgpu served it
  const RecordedCall created = last_vendor_call();
  REQUIRE(created.name == "cufftCreate");
  CHECK(static_cast<unsigned long long>(plan) != created.out);  // our handle, not the vendor's

  const auto stream = from_bits<cudaStream_t>(0x7f00000011ull);
  CHECK(set_stream(plan, stream) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{created.out, to_bits(stream)});

  // Twelve arguments: six in registers, six on the stack, through the trampoline.
  long long n[2] = {6, 10};
  long long inembed[2] = {7, 11};
  long long onembed[2] = {8, 12};
  size_t work = 0;
  CHECK(make_many64(plan, 2, n, inembed, 3, 1LL << 40, onembed, 5, (1LL << 41) + 3, CUFFT_Z2Z, 9, &work) ==
        CUFFT_SUCCESS);
  CHECK(work == FAKE_VENDOR_WORK_SIZE);
  CHECK(last_vendor_call().args ==
        std::vector<unsigned long long>{created.out, 2, to_bits(n), to_bits(inembed), 3, 1ULL << 40, to_bits(onembed),
                                        5, (1ULL << 41) + 3, to_bits(CUFFT_Z2Z), 9, to_bits(&work)});

  CHECK(destroy(plan) == CUFFT_SUCCESS);
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{created.out});
  CHECK(destroy(plan) == CUFFT_INVALID_PLAN);
  CHECK(fakeVendorMisuseCount() == 0);
  dlclose(library);
}

TEST_CASE("the cuSPARSE stand-in: gtsv through libidgpu, the rest to the vendor", "[cpu][.stand-in]") {
  void* library = open_stand_in(IDGPU_TEST_STUB_CUSPARSE);

  // A gtsv entry first (it binds the slots, see above): through libidgpu (counted, validated),
  // nine arguments, three of them on the stack, unchanged.
  auto strided = symbol<decltype(&cusparseZgtsv2StridedBatch)>(library, "cusparseZgtsv2StridedBatch");
  std::size_t size = 0;
  GtsvArgs args = valid_gtsv_args(&size);
  const cusparseHandle_t handle = args.handle;
  const unsigned long long before = calls_of("cusparseZgtsv2StridedBatch");
  fakeVendorReset();
  CHECK(strided(handle, 8, static_cast<cuDoubleComplex*>(args.dl), static_cast<cuDoubleComplex*>(args.d),
                static_cast<cuDoubleComplex*>(args.du), static_cast<cuDoubleComplex*>(args.B), 5, 9,
                args.pBuffer) == CUSPARSE_STATUS_SUCCESS);
  CHECK(calls_of("cusparseZgtsv2StridedBatch") == before + 1);
  CHECK(last_vendor_call().name == "cusparseZgtsv2StridedBatch");
  CHECK(last_vendor_call().args == std::vector<unsigned long long>{to_bits(handle), 8, to_bits(args.dl),
                                                                   to_bits(args.d), to_bits(args.du), to_bits(args.B),
                                                                   5, 9, to_bits(args.pBuffer)});
  // libidgpu's validation applies: refused without a vendor call.
  fakeVendorReset();
  CHECK(strided(handle, 8, static_cast<cuDoubleComplex*>(args.dl), static_cast<cuDoubleComplex*>(args.d),
                static_cast<cuDoubleComplex*>(args.du), static_cast<cuDoubleComplex*>(args.B), 5, 7,
                args.pBuffer) == CUSPARSE_STATUS_INVALID_VALUE);
  CHECK(vendor_call_count() == 0);

  // Not exported by libidgpu: straight to the vendor's function.
  auto create = symbol<cusparseStatus_t (*)(cusparseHandle_t*)>(library, "cusparseCreate");
  cusparseHandle_t created = nullptr;
  REQUIRE(create(&created) == CUSPARSE_STATUS_SUCCESS);
  CHECK(last_vendor_call().name == "cusparseCreate");
  CHECK(to_bits(created) == last_vendor_call().out);

  // Every gtsv name resolves in the stand-in.
  for (const GtsvEntry& entry : gtsv_entries()) {
    CAPTURE(entry.name);
    CHECK(dlsym(library, entry.name.c_str()) != nullptr);
  }

  // Names the fake vendor does not define: the vendor's "missing" answers, no crash.
  auto destroy = symbol<cusparseStatus_t (*)(cusparseHandle_t)>(library, "cusparseDestroy");
  CHECK(destroy(created) == CUSPARSE_STATUS_NOT_INITIALIZED);
  auto error_string = symbol<const char* (*)(cusparseStatus_t)>(library, "cusparseGetErrorString");
  const char* message = error_string(CUSPARSE_STATUS_SUCCESS);
  REQUIRE(message != nullptr);
  CHECK(std::string(message).find("idgpu") != std::string::npos);
  dlclose(library);
}

#endif
