#include "tridiag/gtsv.h"

#include "core/config.h"
#include "core/log.h"

namespace idgpu::tridiag {

cudaStream_t stream_of(cusparseHandle_t handle) {
  const vendor::CusparseTable* table = vendor::cusparse();
  cudaStream_t stream = nullptr;
  if (table != nullptr && table->cusparseGetStream != nullptr) table->cusparseGetStream(handle, &stream);
  return stream;
}

cusparseStatus_t refuse_buffer_size(const Problem& problem, bool has_handle, bool has_size) {
  if (!has_handle && problem.layout == Layout::kSingle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!has_size) return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t refuse_solve(const Problem& problem, bool has_handle, bool has_data) {
  if (!has_handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  switch (problem.layout) {
    case Layout::kSingle:
    case Layout::kSingleNopivot:
      if (problem.m < 3 || problem.n < 0 || problem.ldb < (problem.m > 1 ? problem.m : 1)) {
        return CUSPARSE_STATUS_INVALID_VALUE;
      }
      break;
    case Layout::kStrided:
      if (problem.m < 3 || problem.batch <= 0 || problem.batch_stride < problem.m) {
        return CUSPARSE_STATUS_INVALID_VALUE;
      }
      break;
    case Layout::kInterleaved:
      if (problem.algo < 0 || problem.algo > 2 || problem.batch < 0) return CUSPARSE_STATUS_INVALID_VALUE;
      break;
  }
  return has_data ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

}  // namespace idgpu::tridiag
