// The exported cuSPARSE tridiagonal entry points, generated from shim/gtsv_api.def.
#include <cusparse.h>

#include "boundary.h"
#include "core/vendor.h"
#include "tridiag/gtsv.h"

#define IDGPU_EXPORT extern "C" __attribute__((visibility("default")))
#define IDGPU_UNPACK_(...) __VA_ARGS__

namespace idgpu::shim {
namespace {

// The families of gtsv_api.def, each a call of its src/tridiag template.
#define IDGPU_GTSV_FAMILY_Gtsv2BufferSize(T, fn, args) \
  tridiag::gtsv2_buffer_size<T>(call, fn, tridiag::Layout::kSingle, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_Gtsv2(T, fn, args) \
  tridiag::gtsv2_solve<T>(call, fn, tridiag::Layout::kSingle, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_Gtsv2NopivotBufferSize(T, fn, args) \
  tridiag::gtsv2_buffer_size<T>(call, fn, tridiag::Layout::kSingleNopivot, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_Gtsv2Nopivot(T, fn, args) \
  tridiag::gtsv2_solve<T>(call, fn, tridiag::Layout::kSingleNopivot, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_StridedBatchBufferSize(T, fn, args) \
  tridiag::strided_buffer_size<T>(call, fn, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_StridedBatch(T, fn, args) tridiag::strided_solve<T>(call, fn, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_InterleavedBatchBufferSize(T, fn, args) \
  tridiag::interleaved_buffer_size<T>(call, fn, IDGPU_UNPACK_ args)
#define IDGPU_GTSV_FAMILY_InterleavedBatch(T, fn, args) \
  tridiag::interleaved_solve<T>(call, fn, IDGPU_UNPACK_ args)

}  // namespace
}  // namespace idgpu::shim

#define IDGPU_GTSV_SHAPE_(P, T, shape, family, params, args)                                         \
  IDGPU_EXPORT cusparseStatus_t cusparse##P##shape params {                                         \
    return ::idgpu::shim::enter<cusparseStatus_t>(                                                   \
        ::idgpu::Api::cusparse##P##shape, #args,                                                     \
        [&](::idgpu::Call & call) -> cusparseStatus_t {                                              \
          const ::idgpu::vendor::CusparseTable* table = ::idgpu::vendor::cusparse();                 \
          const auto vendor_fn = table != nullptr ? table->cusparse##P##shape : nullptr;            \
          using namespace ::idgpu;                                                                   \
          return IDGPU_GTSV_FAMILY_##family(T, vendor_fn, args);                                     \
        },                                                                                           \
        IDGPU_UNPACK_ args);                                                                         \
  }
#define IDGPU_GTSV_PRECISION_(P, T) IDGPU_GTSV_SHAPES(IDGPU_GTSV_SHAPE_, P, T)
#include "gtsv_api.def"
IDGPU_GTSV_PRECISIONS(IDGPU_GTSV_PRECISION_)
