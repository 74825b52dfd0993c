// shim/boundary.h: the argument text of log lines, the status names, and enter(), the guard every
// exported function runs in (no exception crosses the C ABI; every call is counted).
#include <catch2/catch.hpp>

#include <cufft.h>
#include <cusparse.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "boundary.h"
#include "core/api.h"
#include "core/stats.h"

using idgpu::Api;
using idgpu::Call;
using idgpu::Path;
using idgpu::shim::StatusCodes;
using idgpu::shim::enter;
using idgpu::shim::format_arguments;
using idgpu::shim::format_value;

TEST_CASE("format_arguments pairs the table's names with the values", "[cpu][boundary]") {
  int* pointer = reinterpret_cast<int*>(static_cast<std::uintptr_t>(0x1234));
  CHECK(format_arguments("(plan, nx, type, batch)", 3, 64, CUFFT_R2C, 2) == "plan=3, nx=64, type=42, batch=2");
  CHECK(format_arguments("(plan, idata)", 7, pointer) == "plan=7, idata=0x1234");
  CHECK(format_arguments("(plan, idata)", 7, static_cast<int*>(nullptr)) == "plan=7, idata=0x0");
  CHECK(format_arguments("()") == "");
  CHECK(format_arguments("(n)", -5) == "n=-5");
  // Without the parentheses, and with the spacing the preprocessor leaves in multi-line tables.
  CHECK(format_arguments("a,b, c", 1, 2, 3) == "a=1, b=2, c=3");
  CHECK(format_arguments("(handle, m,  n)", static_cast<void*>(nullptr), 8, 0) == "handle=0x0, m=8, n=0");
  // 64-bit values and sizes are printed whole.
  CHECK(format_arguments("(istride, size)", 1LL << 40, static_cast<std::size_t>(1) << 63) ==
        "istride=1099511627776, size=9223372036854775808");
}

TEST_CASE("format_value prints strings as addresses (it never reads through a pointer)", "[cpu][boundary]") {
  const char* text = "not read";
  const std::string printed = format_value(text);
  CHECK(printed.rfind("0x", 0) == 0);
  CHECK(printed.find("not read") == std::string::npos);
  CHECK(format_value(static_cast<const char*>(nullptr)) == "0x0");
  CHECK(format_value(CUSPARSE_STATUS_INVALID_VALUE) == "3");
  CHECK(format_value(static_cast<cufftType>(0x7f)) == "127");
  CHECK(format_value(-1LL) == "-1");
}

TEST_CASE("every cuFFT and cuSPARSE status has its name", "[cpu][boundary]") {
  const cufftResult results[] = {CUFFT_SUCCESS,        CUFFT_INVALID_PLAN,   CUFFT_ALLOC_FAILED,
                                 CUFFT_INVALID_TYPE,   CUFFT_INVALID_VALUE,  CUFFT_INTERNAL_ERROR,
                                 CUFFT_EXEC_FAILED,    CUFFT_SETUP_FAILED,   CUFFT_INVALID_SIZE,
                                 CUFFT_UNALIGNED_DATA, CUFFT_INVALID_DEVICE, CUFFT_NO_WORKSPACE,
                                 CUFFT_NOT_IMPLEMENTED, CUFFT_NOT_SUPPORTED};
  for (cufftResult result : results) {
    CAPTURE(result);
    const std::string name = StatusCodes<cufftResult>::name(result);
    CHECK(name.rfind("CUFFT_", 0) == 0);
  }
  CHECK(std::string(StatusCodes<cufftResult>::name(CUFFT_INVALID_SIZE)) == "CUFFT_INVALID_SIZE");
  CHECK(std::string(StatusCodes<cufftResult>::name(static_cast<cufftResult>(999))) == "cufftResult(?)");
  CHECK(std::string(StatusCodes<cusparseStatus_t>::name(CUSPARSE_STATUS_NOT_INITIALIZED)) ==
        "CUSPARSE_STATUS_NOT_INITIALIZED");
  CHECK(std::string(StatusCodes<cusparseStatus_t>::name(static_cast<cusparseStatus_t>(999))) ==
        "cusparseStatus_t(?)");
}

TEST_CASE("api_name names every entry of the tables", "[cpu][boundary]") {
  CHECK(std::string(idgpu::api_name(Api::cufftCreate)) == "cufftCreate");
  CHECK(std::string(idgpu::api_name(Api::cufftDebug)) == "cufftDebug");
  CHECK(std::string(idgpu::api_name(Api::cusparseSgtsv2_bufferSizeExt)) == "cusparseSgtsv2_bufferSizeExt");
  CHECK(std::string(idgpu::api_name(Api::cusparseZgtsvInterleavedBatch)) == "cusparseZgtsvInterleavedBatch");
  CHECK(std::string(idgpu::api_name(Api::kCount)) == "?");
  for (std::size_t index = 0; index < idgpu::kApiCount; ++index) {
    const std::string name = idgpu::api_name(static_cast<Api>(index));
    CAPTURE(index, name);
    CHECK((name.rfind("cufft", 0) == 0 || name.rfind("cusparse", 0) == 0));
    for (std::size_t other = 0; other < index; ++other) {
      if (name == idgpu::api_name(static_cast<Api>(other))) FAIL_CHECK("duplicate name " << name);
    }
  }
}

TEST_CASE("enter maps exceptions to the vendor's statuses and counts every call", "[cpu][boundary]") {
  idgpu::stats::reset();
  const Api api = Api::cufftEstimate1d;
  CHECK(enter<cufftResult>(api, "(x)", [](Call& call) {
          call.path = Path::kVendor;
          return CUFFT_SUCCESS;
        }, 1) == CUFFT_SUCCESS);
  CHECK(enter<cufftResult>(api, "(x)", [](Call&) -> cufftResult { throw std::bad_alloc(); }, 2) ==
        CUFFT_ALLOC_FAILED);
  CHECK(enter<cufftResult>(api, "(x)", [](Call&) -> cufftResult { throw std::runtime_error("boom"); }, 3) ==
        CUFFT_INTERNAL_ERROR);
  CHECK(enter<cufftResult>(api, "(x)", [](Call&) -> cufftResult { throw 42; }, 4) == CUFFT_INTERNAL_ERROR);
  CHECK(enter<cufftResult>(api, "(x)", [](Call& call) {
          call.path = Path::kNative;
          return CUFFT_EXEC_FAILED;
        }, 5) == CUFFT_EXEC_FAILED);
  const idgpu::stats::Snapshot snap = idgpu::stats::snapshot(api);
  CHECK(snap.calls == 5);
  CHECK(snap.vendor == 1);
  CHECK(snap.native == 1);
  CHECK(snap.failed == 4);

  const Api sparse = Api::cusparseDgtsv2;
  CHECK(enter<cusparseStatus_t>(sparse, "()", [](Call&) -> cusparseStatus_t { throw std::bad_alloc(); }) ==
        CUSPARSE_STATUS_ALLOC_FAILED);
  CHECK(enter<cusparseStatus_t>(sparse, "()", [](Call&) -> cusparseStatus_t { throw std::logic_error("x"); }) ==
        CUSPARSE_STATUS_INTERNAL_ERROR);
  CHECK(idgpu::stats::snapshot(sparse).failed == 2);
  idgpu::stats::reset();
  CHECK(idgpu::stats::snapshot(api).calls == 0);
}
