#include "tridiag/tuning.h"

namespace idgpu::tridiag {
namespace {

// One row: for this layout and algorithm, on devices of at least `min_arch`, with an element of
// `element_bytes` (real or complex), the native solver wins for m in [min_m, max_m] when batch >= min_batch.
struct TuningRow {
  Layout layout;
  int algo;
  int min_arch;
  int element_bytes;  // 0: any
  bool complex;
  int min_m;
  int max_m;
  long long min_batch;
  const char* evidence;  // the measurement that chose this row
};

// Measured with idgpu-bench (IDGPU_POLICY=native, 2^24 unknowns, median of 20, inputs rotated past
// the L2) on an NVIDIA H200, CUDA 13.0 (cuSPARSE 12.6); vendor ms / native ms:
//   algo 0 f32: m=32 0.1751/0.1600 (1.09x), m=64 0.2196/0.1670 (1.31x), m=128 0.97x, m>=256 0.95-1.0x
//   algo 0 f64: m=32 0.3045/0.2748 (1.11x), m=64 0.3153/0.2797 (1.13x), m=128 0.99x, m>=256 0.98-1.0x
//   algos 1, 2: 0.83-1.03x (the vendor's algos 1 and 2 are the same thread-per-system sweeps)
//   batch 1000 at m=32: 0.94x (launch-bound)
// Tried and dropped: keeping the factor in shared memory instead of du/x (dl, d, du, x read once,
// x written once) lost at these batches, 0.81x (f32 m=64), 0.47x (f32 m=128), 0.65x (f64 m=64),
// because 2*m elements per thread cap the resident threads at 224-448 per SM; it won only where
// the batch is too small to fill the GPU (f32 m=32, batch 1000: 1.32x).
// Only the clear wins are rows; everything else stays with the vendor.
// gtsv2StridedBatch, staged through shared memory (IDGPU_POLICY=native, 2^24 unknowns, H200):
//   f32: m=32 0.7018/0.1519 (4.62x, 0.11 -> 0.53 of copy bandwidth), m=64 0.4438/0.2372 (1.87x),
//        m=128 0.4545/0.4227 (1.08x); m >= 256 does not fit the staging (vendor)
//   f64: m=32 0.7289/0.3127 (2.33x), m=64 0.7168/0.5453 (1.31x)
//   batch 1000 at m=32: 0.67x (a block per 32 systems leaves the GPU mostly idle)
constexpr TuningRow kRows[] = {
    {Layout::kStrided, -1, 90, 4, false, 32, 128, 131072, "H200: f32 strided m=32 4.62x, m=64 1.87x, m=128 1.08x"},
    {Layout::kStrided, -1, 90, 8, false, 32, 64, 262144, "H200: f64 strided m=32 2.33x, m=64 1.31x"},
    {Layout::kInterleaved, 0, 90, 4, false, 1, 64, 262144, "H200: f32 algo 0 m=32 1.09x, m=64 1.31x"},
    {Layout::kInterleaved, 0, 90, 8, false, 1, 64, 262144, "H200: f64 algo 0 m=32 1.11x, m=64 1.13x"},
};

}  // namespace

bool native_wins(const Problem& problem, int arch, const char** reason) {
  for (const TuningRow& row : kRows) {
    if (row.layout != problem.layout || (row.algo >= 0 && row.algo != problem.algo) || arch < row.min_arch ||
        (row.element_bytes != 0 && row.element_bytes != problem.element_bytes) || row.complex != problem.complex ||
        problem.m < row.min_m ||
        problem.m > row.max_m || problem.batch < row.min_batch) {
      continue;
    }
    return true;
  }
  *reason = "the vendor is faster here on this device class (tuning table)";
  return false;
}

}  // namespace idgpu::tridiag
