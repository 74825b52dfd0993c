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

// No row yet: every plan stays with the vendor unless IDGPU_POLICY=native.
constexpr TuningRow kRows[] = {
    {Precision::kSingle, 0, -1, true, 0, 0, 0, "placeholder: matches nothing"},
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
