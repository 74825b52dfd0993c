// The canonical tridiagonal problem a dispatch decision is made on.
#pragma once

namespace idgpu::tridiag {

enum class Layout : int { kSingle = 0, kSingleNopivot = 1, kStrided = 2, kInterleaved = 3 };

struct Problem {
  Layout layout;
  int element_bytes;  // 4, 8, 8 (complex float) or 16
  bool complex;
  int m;
  int n;      // right-hand sides (gtsv2, gtsv2_nopivot)
  int ldb;    // leading dimension of B
  int batch;  // batchCount (batched layouts)
  int batch_stride;
  int algo;  // gtsvInterleavedBatch
};

}  // namespace idgpu::tridiag
