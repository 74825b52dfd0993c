// The 32 cuSPARSE gtsv entry points as the tests call them, generated from shim/gtsv_api.def.
//
// Each entry's parameters are filled by name from one GtsvArgs (the names are those of the
// table: handle, m, n, ldb, batchCount, batchStride, algo, dl, d, du, B, x, pBuffer,
// bufferSizeInBytes, pBufferSizeInBytes), so one set of arguments, or one mutation of it, applies
// to every entry that has the parameter. call() returns the status and the arguments as the
// vendor should receive them.
#pragma once

#include <cusparse.h>

#include <cstddef>
#include <string>
#include <vector>

namespace idgpu::test {

struct GtsvArgs {
  cusparseHandle_t handle = nullptr;
  int m = 0;
  int n = 0;
  int ldb = 0;
  int batchCount = 0;
  int batchStride = 0;
  int algo = 0;
  void* dl = nullptr;
  void* d = nullptr;
  void* du = nullptr;
  void* B = nullptr;  // also x
  void* pBuffer = nullptr;
  std::size_t* size = nullptr;  // bufferSizeInBytes / pBufferSizeInBytes
};

// A valid argument set: m = 8 rows, 2 right-hand sides, batches of 3 with stride 8, device
// pointers that are never dereferenced (the fake vendor only records them), a 128-byte aligned
// buffer, and `size` for the size output.
GtsvArgs valid_gtsv_args(std::size_t* size);

struct GtsvCallResult {
  cusparseStatus_t status;
  std::vector<unsigned long long> sent;
};

struct GtsvEntry {
  std::string name;    // e.g. cusparseSgtsv2StridedBatch_bufferSizeExt
  std::string family;  // the table's family, e.g. StridedBatchBufferSize
  std::vector<std::string> parameters;
  bool is_buffer_size;  // a _bufferSizeExt entry (has a size output, no pBuffer)

  bool has(const char* parameter) const;
  GtsvCallResult call(const GtsvArgs& args) const;

  GtsvCallResult (*invoke)(const std::vector<std::string>& parameters, const GtsvArgs& args);
};

const std::vector<GtsvEntry>& gtsv_entries();

}  // namespace idgpu::test
