// A fake libcusparse: cusparseCreate, cusparseGetStream and the 32 gtsv functions of
// shim/gtsv_api.def (generated from that table). Each records its call and returns the status
// the test chose (success by default); the _bufferSizeExt functions write FAKE_VENDOR_WORK_SIZE.
#include <cusparse.h>

#include "fake_record.h"

namespace {

using namespace idgpu::test;

struct WriteSizes {
  template <class... Args>
  unsigned long long operator()(Args... args) const {
    return fake::write_sizes(args...);
  }
};

}  // namespace

FAKE_EXPORT cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) {
  return fake::run<cusparseStatus_t>(
      "cusparseCreate", CUSPARSE_STATUS_SUCCESS,
      [](cusparseHandle_t* out) -> unsigned long long {
        if (out == nullptr) return 0;
        const unsigned long long value = fakeVendorNewCusparseHandle();
        *out = from_bits<cusparseHandle_t>(value);
        return value;
      },
      handle);
}

FAKE_EXPORT cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t* stream) {
  return fake::run<cusparseStatus_t>(
      "cusparseGetStream", CUSPARSE_STATUS_SUCCESS,
      [](cusparseHandle_t, cudaStream_t* out) -> unsigned long long {
        if (out == nullptr) return 0;
        *out = from_bits<cudaStream_t>(FAKE_VENDOR_STREAM);
        return FAKE_VENDOR_STREAM;
      },
      handle, stream);
}

#define FAKE_GTSV_SHAPE(P, T, shape, family, params, args)                                                     \
  FAKE_EXPORT cusparseStatus_t cusparse##P##shape params {                                                    \
    return fake::run<cusparseStatus_t>("cusparse" #P #shape, CUSPARSE_STATUS_SUCCESS, WriteSizes{}, FAKE_UNPACK args); \
  }
#define FAKE_GTSV_PRECISION(P, T) IDGPU_GTSV_SHAPES(FAKE_GTSV_SHAPE, P, T)
#include "gtsv_api.def"
IDGPU_GTSV_PRECISIONS(FAKE_GTSV_PRECISION)
