#include "fft/tuning.h"

namespace idgpu::fft {
namespace {

bool power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

// One row: on devices of compute capability in [min_arch, max_arch], for this precision, the
// native plan wins for n in [min_n, max_n] (powers of two only when `powers_of_two`) once a call
// moves at least min_points points (n x batch).
struct TuningRow {
  Precision precision;
  int min_arch;
  int max_arch;
  bool powers_of_two;
  long long min_n;
  long long max_n;
  long long min_points;
  const char* evidence;  // the measurement that chose this row
};

// Where the native plan measured faster than the vendor's, in the same process (idgpu-bench,
// IDGPU_POLICY=native, 2^26 points per call in fp32 and 2^25 in fp64, medians of 15-20 runs,
// rotated inputs); everything else
// stays with the vendor unless IDGPU_POLICY=native. Rows need the win in repeated runs: ties
// within a percent (fp32 n = 512..4096, fp64 n <= 2^20) stay with the vendor.
constexpr TuningRow kRows[] = {
    // H100 (sm_90), CUDA 13.0 / cuFFT 12.0. n = 2^15, 2^16: the cluster kernel (one pass over
    // device memory), 1.24-1.30x and 1.31-1.39x in three runs (73-76% / 61-64% of copy bandwidth
    // against the vendor's 58% / 46%). n = 2^17, 2^18: two passes, 1.03-1.05x in three runs.
    {Precision::kSingle, 90, 90, true, 1LL << 15, 1LL << 18, 1LL << 26,
     "H100: fp32 C2C 2^15..2^18 at 2^26 points, 1.03-1.39x the vendor"},
    // Z2Z at 2^25 points: the cluster kernel at n = 2^14 1.25x / 1.19x, 2^15 1.22x / 1.21x
    // (60-65% of copy bandwidth against the vendor's 49-52%). 2^16 (16-block clusters) tied.
    {Precision::kDouble, 90, 90, true, 1LL << 14, 1LL << 15, 1LL << 25,
     "H100: fp64 Z2Z 2^14..2^15 at 2^25 points, 1.19-1.25x the vendor"},
};

}  // namespace

bool native_fft_wins(long long n, long long batch, Precision precision, int arch, const char** reason) {
  for (const TuningRow& row : kRows) {
    if (row.precision != precision || arch < row.min_arch || arch > row.max_arch ||
        (row.powers_of_two && !power_of_two(n)) || n < row.min_n || n > row.max_n || n * batch < row.min_points) {
      continue;
    }
    return true;
  }
  *reason = "the vendor is faster here on this device class (tuning table)";
  return false;
}

}  // namespace idgpu::fft
