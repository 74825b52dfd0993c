#include "fft/tuning.h"

#include <algorithm>
#include <iterator>

#include "fft/convolution_index.h"

namespace idgpu::fft {
namespace {

bool power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

// Which lengths of a row's range it covers.
enum class Lengths {
  kPowersOfTwo,
  kPrimes,  // one Bluestein pass each (kernels/stockham_bluestein.cuh)
  kAll,     // every length in the row's range (rows of one length)
};

bool in_class(long long n, Lengths lengths) {
  switch (lengths) {
    case Lengths::kPowersOfTwo: return power_of_two(n);
    case Lengths::kPrimes: return is_prime(n);
    default: return true;
  }
}

// One row: on devices of the classes it was measured on (core/device_class.h), for this
// precision, the native plan wins for the lengths of the class in [min_n, max_n] once a call
// moves at least min_points points (n x batch).
struct TuningRow {
  MeasuredClasses measured_on;
  Precision precision;
  Lengths lengths;
  long long min_n;
  long long max_n;
  long long min_points;
  const char* evidence;  // the measurement that chose this row
  // Primes past one block (two-pass Bluestein over M, the power of two from 2n - 1): the row holds
  // only where M <= max_padding x n; 0: at any padding.
  double max_padding = 0;
};

// The two-pass Bluestein plans' padded length over n (planner.cpp, bluestein_padding on the GPU's
// power-of-two budget): the power of two from 2n - 1.
double bluestein_padding_ratio(long long n) {
  long long padded = 1;
  while (padded < 2 * n - 1) padded *= 2;
  return static_cast<double>(padded) / static_cast<double>(n);
}

constexpr MeasuredClasses kHopper = kH100 | kH200;

// Where the native plan measured faster than the vendor's, in the same process (idgpu-bench,
// IDGPU_POLICY=native, 2^26 points per call in fp32 and 2^25 in fp64, medians of 15-20 runs,
// rotated inputs); everything else stays with the vendor unless IDGPU_POLICY=native. Rows need
// the win in repeated runs: ties within a few percent stay with the vendor. CUDA 13.0 / cuFFT
// 12.0 throughout.
constexpr TuningRow kRows[] = {
    // H100: n = 2^15, 2^16 the cluster kernel (one pass over device memory), 1.38-1.39x and
    // 1.58-1.62x in three runs (81% / 73% of copy bandwidth against the vendor's 58% / 45-46%);
    // 2^14 at 0.85 of copy trails the vendor's 0.89 (0.96x);
    // n = 2^17 .. 2^20 the fused kernel (two passes, the intermediate read back from the L2),
    // 1.27x, 1.19x, 1.15x, 1.07x in three runs (59%, 55%, 52%, 48% of copy bandwidth against the
    // vendor's 45-47%; as two launches 0.94-1.04x). 2^21 fused lost (0.93x).
    {kH100, Precision::kSingle, Lengths::kPowersOfTwo, 1LL << 15, 1LL << 20, 1LL << 26,
     "H100: fp32 C2C 2^15..2^20 at 2^26 points, 1.07-1.39x the vendor"},
    // H100, n = 2^25, 2^26: both passes cluster column passes (FftPass::cluster: rows of 16
    // lines, 128 bytes, where the pass kernels read 2-4; the first pass's outputs staged into
    // runs of 16-32), 1.22x and 1.15-1.18x in three runs (0.33 / 0.31 of copy bandwidth against
    // the vendor's 0.27 / 0.26; as the pass kernels' 0.97-0.98x / 0.79-0.81x). 2^22..2^24 tie
    // (0.99x, 0.99-1.00x, 1.02-1.03x) and stay with the vendor.
    {kH100, Precision::kSingle, Lengths::kPowersOfTwo, 1LL << 25, 1LL << 26, 1LL << 26,
     "H100: fp32 C2C 2^25..2^26 at 2^26 points, 1.15-1.22x the vendor (cluster column passes)"},
    // H100, Z2Z: the cluster kernel at n = 2^14 1.39-1.42x, 2^15 1.48-1.50x, 2^16 1.18-1.24x in
    // three runs (71-73%, 73%, 58-60% of copy bandwidth against the vendor's 51%, 48-49%, 48-49%),
    // since its first barrier is a relaxed arrive before the inter-pass twiddles; with
    // cluster.sync() after them 2^16 (clusters of 16 blocks) tied.
    {kH100, Precision::kDouble, Lengths::kPowersOfTwo, 1LL << 14, 1LL << 16, 1LL << 25,
     "H100: fp64 Z2Z 2^14..2^16 at 2^25 points, 1.18-1.50x the vendor"},
    // H100, Z2Z, the fused kernel: 2^17 1.31x, 2^18 1.09-1.14x, 2^19 1.05x in three runs (63%,
    // 53%, 47% of copy bandwidth against the vendor's 45-48%). 2^16 (the cluster kernel, 0.97x)
    // and 2^20 (1.02-1.03x, a tie) stay with the vendor.
    {kH100, Precision::kDouble, Lengths::kPowersOfTwo, 1LL << 17, 1LL << 19, 1LL << 25,
     "H100: fp64 Z2Z 2^17..2^19 at 2^25 points, 1.05-1.31x the vendor"},
    // H100, Z2Z 2^23, 2^24: both passes cluster column passes (8 lines, 128-byte rows), 1.08-1.09x
    // and 1.06-1.07x in three runs (0.34 / 0.33 of copy bandwidth against the vendor's 0.31 /
    // 0.31; as the pass kernels' 0.91x / 0.88x). 2^21 (its first pass of 2^10 stays a pass
    // kernel's) 0.86-0.87x, 2^22 0.91x and 2^25 0.99-1.00x stay with the vendor.
    {kH100, Precision::kDouble, Lengths::kPowersOfTwo, 1LL << 23, 1LL << 24, 1LL << 25,
     "H100: fp64 Z2Z 2^23..2^24 at 2^25 points, 1.06-1.09x the vendor (cluster column passes)"},
    // H200, three runs: the cluster kernel at n = 2^15 1.24-1.25x, 2^16 1.21x (0.62 / 0.53 of copy
    // bandwidth against the vendor's 0.50 / 0.44); 2^14 0.95-0.96x. The vendor gains more from the
    // faster memory than the cluster kernel, whose blocks wait on cluster barriers rather than
    // on DRAM. 2^17 (the fused kernel) tied at 1.00x, 2^18..2^21 lost (0.87-0.99x):
    // the fused kernel is bound by the L2, which is no faster on the H200, and runs in the same
    // time as on the H100 (0.43 of the H200's copy bandwidth at 2^17).
    {kH200, Precision::kSingle, Lengths::kPowersOfTwo, 1LL << 15, 1LL << 16, 1LL << 26,
     "H200: fp32 C2C 2^15..2^16 at 2^26 points, 1.21-1.25x the vendor"},
    // H200, short transforms: the staged kernel at n = 16 1.08x and n = 32 1.31-1.32x in three runs
    // each (0.98 of copy bandwidth; the vendor's 0.91 and 0.74). On an H100 the vendor is at 0.97-
    // 1.00 there and they tie; fp64 n = 16, 32 lost on the H200 (0.94-0.95x).
    {kH200, Precision::kSingle, Lengths::kPowersOfTwo, 16, 32, 1LL << 26,
     "H200: fp32 C2C n = 16, 32 at 2^26 points, 1.08-1.32x the vendor"},
    // H200, Z2Z, the cluster kernel: 2^14 1.23-1.27x, 2^15 1.13x in three runs (0.54-0.55 / 0.54 of
    // copy bandwidth against the vendor's 0.44 / 0.48); 2^16 lost (0.94-0.95x).
    {kH200, Precision::kDouble, Lengths::kPowersOfTwo, 1LL << 14, 1LL << 15, 1LL << 25,
     "H200: fp64 Z2Z 2^14..2^15 at 2^25 points, 1.13-1.27x the vendor"},
    // H200, Z2Z, the fused kernel, three runs: 2^17 1.07-1.08x and 2^20 1.11x (0.47 / 0.36 of
    // copy bandwidth against the vendor's 0.43 / 0.32); 2^18 tied (0.99-1.01x), 2^19 lost (0.97x).
    {kH200, Precision::kDouble, Lengths::kPowersOfTwo, 1LL << 17, 1LL << 17, 1LL << 25,
     "H200: fp64 Z2Z 2^17 at 2^25 points, 1.07-1.08x the vendor"},
    {kH200, Precision::kDouble, Lengths::kPowersOfTwo, 1LL << 20, 1LL << 20, 1LL << 25,
     "H200: fp64 Z2Z 2^20 at 2^25 points, 1.11x the vendor"},
    // Primes, one Bluestein pass over M = 2^14 (fp32) / 2^13 (fp64), H100: the vendor takes
    // several passes above n = 4096 (fp32) / 2048 (fp64) and runs at 0.056-0.118 (fp32) and
    // 0.071-0.131 (fp64) of copy there. Timed forward, out of place, with 11 fp32 and 4 fp64
    // primes standing for the range (the same kernel serves the inverse and in place).
    // fp32 n = 4099, 4111, 4507, 5003, 5501, 6007, 6151, 6997, 7507, 8009, 8191: 1.50, 1.48,
    // 1.19, 1.37, 2.65, 2.30, 2.16, 2.26, 2.68, 2.46, 1.72x (0.12-0.20 of copy); in two runs
    // 4099, 6151, 8191 within 1%. Below 4096 the vendor is faster or ties for most primes
    // (211 0.78x, 509 0.84x, 2003 0.90x, 2053 0.55x, 3001 0.53x, 4093 0.98x; 97 1.66x, 1009 and
    // 1021 1.09x win), and composites with a large prime factor (4100 = 2^2 5^2 41: 0.48x) keep
    // the vendor's mixed-radix plans.
    // (min_points: n x batch is within n of 2^26, as the benchmark's batches are.)
    {kH100, Precision::kSingle, Lengths::kPrimes, 4097, 8191, (1LL << 26) - 8192,
     "H100: fp32 C2C primes 4099..8191 at 2^26 points, 1.19-2.68x the vendor"},
    // fp64 n = 2053, 3001, 4001, 4093: 2.00, 1.91, 1.76, 1.74x (0.14-0.23 of copy against the
    // vendor's 0.07-0.13); 2039 1.18x, 127 2.11x, 509 1.06x win but 1009 (0.96x) and 1531 (0.58x)
    // lose, so below 2048 the vendor keeps them.
    {kH100, Precision::kDouble, Lengths::kPrimes, 2049, 4096, (1LL << 25) - 4096,
     "H100: fp64 Z2Z primes 2053..4093 at 2^25 points, 1.74-2.00x the vendor"},
    // H200, the same primes: fp32 1.29, 1.29, 1.01, 1.19, 2.30, 2.07, 1.99, 2.06, 2.30, 2.08,
    // 1.55x (0.085-0.147 of copy against the vendor's 0.047-0.095; 4507 ties: the vendor is
    // fastest there, as on the H100, where 4507 won least); 4099, 6151, 8191 within 1% in a
    // second run. fp64 2053, 3001, 4001, 4093: 1.64, 1.58, 1.50, 1.49x (0.10-0.17 of copy against
    // 0.06-0.11); 2039 1.19x. fp32 4093 0.98x. With the mixed convolution lengths
    // (kernels/fixed_radices.h: fp32 4097..6144 over 10240 / 12288 points, fp64 2049..2560 over
    // 5120): fp32 1.59, 1.57, 1.23, 1.40, 2.55, 2.23x for 4099..6007 (0.10-0.12 of copy), the
    // powers of two's 1.96, 2.02, 2.27, 2.08, 1.51x again; fp64 2053 1.70x. The H100 rows are the
    // power-of-two kernel's: the mixed lengths were not timed there.
    {kH200, Precision::kSingle, Lengths::kPrimes, 4097, 8191, (1LL << 26) - 8192,
     "H200: fp32 C2C primes 4099..8191 at 2^26 points, 1.23-2.55x the vendor"},
    {kH200, Precision::kDouble, Lengths::kPrimes, 2049, 4096, (1LL << 25) - 4096,
     "H200: fp64 Z2Z primes 2053..4093 at 2^25 points, 1.46-1.70x the vendor"},
    // Primes past one block: two-pass Bluestein over M, the power of two from 2n - 1 (three launches,
    // 2n + 4M elements moved). Forward, out of place, n x batch within n / 2 of 2^26 (fp32) / 2^25
    // (fp64), medians of 10, two runs each on an H100 and an H200 (within 1% of each other for most
    // lengths and within 4% for all but H200 fp64 524309, 262147, 131101, which lost in both runs and
    // differed by 12.8%, 6.9%, 6.7%). The vendor runs these at 0.04-0.11 of copy bandwidth on the
    // H200 (0.055-0.124 on the H100), the native plans at 0.03-0.16 (0.07-0.19); ours costs about
    // M x batch, the vendor's varies with n, so past 2^16 the rows hold where the padding M / n is
    // small (max_padding, measured per octave of M at 2.4, 2.8, 3.2, 3.6).
    // fp32, n <= 2^16, any padding: H100 8209 .. 65521 1.12-2.31x (8209, 16411, 32771 padded 4x:
    //   1.16x, 1.63x, 1.54-1.58x); H200 1.11-2.55x (8209 1.18x, 16411 1.69-1.70x, 32771 1.35-1.36x).
    {kHopper, Precision::kSingle, Lengths::kPrimes, 8193, 1LL << 16, (1LL << 26) - (1LL << 15),
     "H100/H200: fp32 C2C primes 8209..65521 at 2^26 points, 1.12-2.31x/1.11-2.55x (two-pass Bluestein)"},
    // fp32, 2^16 < n <= 2^22, M <= 2.8 n. H200 (M = 2^18 .. 2^23): padded 2.4x 1.19-1.78x, 2.8x
    //   1.32-1.98x, 2x (1048573, 4194301) 1.24-1.25x and 1.09x, 100003 (2.62x) 1.75-1.76x; padded
    //   3.2x 0.89-1.48x (0.89x at M = 2^23) and 3.6x 0.72-0.97x lose somewhere, as do the octaves
    //   from M = 2^24 at 2x
    //   (16777213 0.95x, 33554393 0.80x; 2.4x and 2.8x at M = 2^24 won, 1.22x and 1.32-1.33x, but
    //   2x there was not measured, so that octave is out). H100, the same code: 100003 1.87-1.91x,
    //   1048573 1.46x, 4194301 1.28x, and 262147 padded 4x 1.12-1.13x (H200 0.95x): at or above the
    //   H200's figure on every length past 2^16, so the H200's bound stands for both.
    {kHopper, Precision::kSingle, Lengths::kPrimes, (1LL << 16) + 1, 1LL << 22, (1LL << 26) - (1LL << 21),
     "H100/H200: fp32 C2C primes 2^16..2^22 padded at most 2.8x, 1.28-1.91x/1.09-1.98x (two-pass Bluestein)",
     2.8},
    // fp64, n <= 2^16, any padding: H100 4099 .. 65521 1.29-1.72x; H200 1.17-1.58x (4099 and 16411,
    //   padded 4x: 1.17-1.20x, 1.43x).
    {kHopper, Precision::kDouble, Lengths::kPrimes, 4097, 1LL << 16, (1LL << 25) - (1LL << 15),
     "H100/H200: fp64 Z2Z primes 4099..65521 at 2^25 points, 1.29-1.72x/1.17-1.58x (two-pass Bluestein)"},
    // fp64, 2^16 < n <= 2^19 (M = 2^18 .. 2^20), M <= 2.8 n: H200 padded 2.4x 1.35-1.59x, 2.8x
    //   1.22-1.50x; 3.2x 0.95-1.16x, 3.6x 0.90-1.03x and 4x 0.80-1.04x lose or tie. 2^19 < n <= 2^20
    //   (M = 2^21), M <= 2.4 n: 2.4x 1.17-1.19x, 2x (1048573) 1.16-1.17x; 2.8x 1.06-1.07x, a tie.
    //   From M = 2^22 the vendor keeps them (2.4x 1.05-1.12x, 2.8x 0.98-1.00x, 4194301 0.97x). H100:
    //   1048573 1.35-1.36x, 4194301 1.16-1.17x; between 2^16 and 2^19 only 131101 padded 4x, 1.14x
    //   (H200 0.88-0.94x): no length inside the first row's bound was timed on an H100, which holds
    //   it on the H200's evidence and on being at or above the H200 on all 12 fp64 primes timed on both.
    {kHopper, Precision::kDouble, Lengths::kPrimes, (1LL << 16) + 1, 1LL << 19, (1LL << 25) - (1LL << 18),
     "H100/H200: fp64 Z2Z primes 2^16..2^19 padded at most 2.8x, H200 1.22-1.59x (two-pass Bluestein)", 2.8},
    {kHopper, Precision::kDouble, Lengths::kPrimes, (1LL << 19) + 1, 1LL << 20, (1LL << 25) - (1LL << 19),
     "H100/H200: fp64 Z2Z primes 2^19..2^20 padded at most 2.4x, 1.35-1.36x/1.16-1.19x (two-pass Bluestein)", 2.4},
    // H100, the fixed-sequence kernel of 400 (16 5 5) with direct sides: 1.19-1.20x in three runs
    // (0.92 of copy bandwidth against the vendor's 0.77). The other fixed lengths from 60 to 4000
    // reach 0.60-0.97 of copy where the vendor reaches 0.86-1.01 (0.61-1.01x; Z2Z 240 1.05-1.06x,
    // within the margin); the vendor keeps them.
    {kH100, Precision::kSingle, Lengths::kAll, 400, 400, (1LL << 26) - 8192,
     "H100: fp32 C2C n=400 at 2^26 points, 1.19-1.20x the vendor"},
    // H200, two runs: C2C 400 1.33-1.34x (0.74 of copy against the vendor's 0.55); Z2Z 400
    // 0.71-0.72x, C2C / Z2Z 1000 0.60-0.61x, 1920 0.94x / 0.83x (the vendor at 0.76-0.98 of copy
    // there).
    {kH200, Precision::kSingle, Lengths::kAll, 400, 400, (1LL << 26) - 8192,
     "H200: fp32 C2C n=400 at 2^26 points, 1.33-1.34x the vendor"},
};

// Single-pass lengths with factors 11 and 13 (and 2835 = 3^4 5 7; fp64 also 384) whose
// fixed-sequence kernels (kernels/fixed_radices.h) measured faster, listed per device class and
// precision. H200, idgpu-bench under IDGPU_POLICY=native, forward out of place, 2^26 (fp32) / 2^25
// (fp64) points a call within n, medians of 10, two runs (within 1% of each other but for fp64
// 1617, 1.1%, and 3850, 5.4%), each listed length won both by at least 6%; the vendor runs these
// at 0.23-0.49 of copy bandwidth (fp64 312, 384: 0.74-0.75), the kernels at 0.39-0.85, where the
// general kernel had reached 0.13-0.31 on the 27 lengths of these kernels (the fp32 sweep at 2^27
// points a call: 0.27-0.91x):
//   fp32 312 2.35-2.36x, 429 1.39-1.40x, 520 1.68x, 572 1.45x, 1617 1.18-1.19x, 2145 1.14-1.15x,
//     2288 1.71x, 2464 1.26x, 2496 1.82x, 2574 1.12x, 2835 1.12x, 3146 1.26-1.27x, 3432
//     1.48-1.49x, 3465 1.07x, 3520 1.36x, 3861 1.06x; ties (1.00-1.05x) 384, 2002, 3003, 3042,
//     3575, 3718; lost 1080 0.73x, 2730 0.88-0.89x, 3850 0.60x, 4004 0.83x, 4095 0.78x (the vendor
//     at 0.43-0.79 of copy, these kernels at 0.29-0.58);
//   fp64 312 1.10-1.11x, 384 1.08-1.09x, 429 2.45x, 520 2.83x, 572 2.48x, 1617 1.80-1.82x, 2145
//     2.47-2.48x, 2288 2.68x, 2464 1.47x, 2496 2.51x, 2835 1.26x, 3003 1.93x, 3042 1.54-1.55x,
//     3146 1.63x, 3432 2.94-2.95x, 3465 1.69x, 3520 1.61-1.62x, 3718 1.47-1.48x, 3861 1.74x; tie
//     3575 1.06x; lost 1080 0.77x, 2002 0.45x, 2574 0.59x, 2730 0.58-0.59x, and 3850, 4004, 4095,
//     which take two passes of the general kernel in fp64 (0.19-0.41x).
// With the fp32 stages' length and padding as constants (kernels/stockham_pass.cuh), the same
// bench, medians of 12, three runs (the listed lengths' times within 0.6% of each other):
// fp32 240 1.17x (0.87-0.88 of copy against 0.74-0.75), 960 1.10x, and the former ties 2002
// 1.12x, 3003 1.10-1.11x, 3042 1.09-1.10x, 3575 1.10-1.11x, 3718 1.10x (0.48-0.54 against
// 0.44-0.48) join the fp32 list; 384 1.01-1.02x, 1920 1.05-1.06x still tie; lost 60 .. 10000
// otherwise (0.46-0.98x: 1000 0.66x, 2000 0.74x, 1080 0.80x; the vendor at 0.43-0.98 of copy
// there).
// With the exchanges row-padded (fft/stockham_index.h, fixed_sequence_extent; the padded layout
// kept where it measured faster, kernels/fixed_radices.h), three runs: fp32 4004 1.36x (0.61 of
// copy against the vendor's 0.45; 0.85x with the padded layout), fp64 240 1.28-1.29x, 3575
// 1.22x join; the listed
// lengths gained 2-42% (fp32 3575 1.55x, 2002 1.40x, 2145 1.52x; fp64 1617 2.07x, 3520 2.64x);
// still tied or lost: fp32 384 1.05x, 1920 1.04x, 2730 1.06x, 1000 0.69x, 2000 0.76x, 1080 0.93x,
// fp64 960 1.06x, 1000 0.66x, 1920 0.95x (docs/data/h200-fixed-exchange-rows.csv).
// With fp64's stages widened to more butterflies a thread where 512 threads would not hold them
// (sequence_threads in fft/stockham_index.h), fp64 3850, 4004, 4095, 6561 and 10000 run one pass
// of their fixed kernels instead of two passes; three runs: 4004 1.26x (0.54 of copy against the
// vendor's 0.43), 4095 2.34-2.35x (0.53 against 0.23) join; 3850 0.93-1.01x ties, 6561
// 0.81-0.82x and 10000 0.64x lose (the vendor at 0.64-0.66 of copy).
// Not measured on an H100: the vendor keeps them there.
constexpr long long kH200FixedF32[] = {240,  312,  429,  520,  572,  960,  1617, 2002, 2145, 2288, 2464, 2496,
                                       2574, 2835, 3003, 3042, 3146, 3432, 3465, 3520, 3575, 3718, 3861, 4004};
constexpr long long kH200FixedF64[] = {240,  312,  384,  429,  520,  572,  1617, 2145, 2288, 2464, 2496, 2835,
                                       3003, 3042, 3146, 3432, 3465, 3520, 3575, 3718, 3861, 4004, 4095};

// Single passes of fixed-sequence kernels compiled at run time (fft/runtime_kernels.h; native only
// once the kernels are loaded, the vendor meanwhile: fft/native.cpp). H200, idgpu-bench under
// IDGPU_POLICY=native, forward out of place, medians of 10, every 13-smooth length 2..4096 in one
// build with these kernels and, for the first sweep, with the general kernel instead
// (docs/data/h200-runtime-kernels.csv, cuFFT 12.0: A the fp32 sweep at 2^27 points a call; B and C
// the fp32 and fp64 sweeps at 2^26 / 2^25 in two processes, B stopped by its time limit at n =
// 3456; D under auto with the first fp32 list, which also held 320, 640, 648, 768, and no fp64
// rows; E fp64 lengths with factors 7, 11 and 13, real transforms and two-pass lengths, F those on
// the general kernel; G the rows below under auto, their kernels cached, as an application
// after idgpu-fft-cache; the general kernel's fp32 sweep is in its summary only):
//   fp32 at 2^27 points a call: geomean 0.33x -> 0.83x the vendor, 38 -> 114 lengths at or above
//     1.0x; at 2^26, two more processes: 0.82-0.83x, 102-108 at or above 1.0x;
//   fp64 at 2^25, two processes: 0.86-0.87x, 103-119 at or above 1.0x.
// Listed: the lengths no compiled kernel has that won by at least 5% in every run (fp32 three,
// fp64 two; the runs within 2% of each other). Where the vendor runs at 0.80-0.95 of copy
// bandwidth (most of the sweep) these kernels reach 0.55-0.75 and lose: fp32 n <= 64 0.67x,
// 1025..4096 0.77-0.82x. Under IDGPU_POLICY=auto with the first fp32 rows the sweep ran at 1.04x
// the vendor (geomean; 0.97-1.43x), and with these rows (G) every listed length ran natively:
// fp32 1.05-1.43x (geomean 1.17x; 0.64-0.89 of copy against the vendor's 0.51-0.79), fp64
// 1.05-3.43x (1.47x; 0.41-0.93 against 0.23-0.84).
constexpr long long kH200RuntimeF32[] = {105,  126,  135,  162,  168,  180,  189,  208,  220,  224,  252,  264,
                                         275,  280,  336,  392,  405,  440,  448,  486,  495,  528,  550,  567,
                                         576,  704,  715,  720,  825,  858,  864,  880,  945,  1001, 1144, 1215,
                                         1248, 1287, 1430, 1452, 1485, 1560, 1573, 1716, 2016, 2197, 2704, 2860};
constexpr long long kH200RuntimeF64[] = {105,  135,  165,  189,  224,  231,  275,  280,  336,  352,  405,  440,
                                         441,  448,  486,  495,  539,  567,  576,  640,  648,  693,  704,  715,
                                         720,  768,  784,  792,  825,  832,  858,  864,  891,  936,  1001, 1053,
                                         1144, 1248, 1287, 1344, 1408, 1430, 1485, 1540, 1650, 1664, 1716, 1950,
                                         2079, 2080, 2430, 2673, 2772, 2816, 2860, 2970, 3000, 3072, 3250, 3328};

// One transform a thread (the thread layout, fft/stockham_index.h; DeviceLimits::thread_transforms):
// the mixed-radix lengths up to 64 (fp32) / 32 (fp64), all stages in a thread's registers, on
// run-time kernels. H200, idgpu-bench under IDGPU_POLICY=native, forward out of place, medians of
// 10, every such length (docs/data/h200-thread-transforms.csv): A at 2^27 / 2^26 points a call (the
// lengths to 32 / 16, blocks of 256 / 128, 64 transforms), B at 2^26 / 2^25 in three processes
// (thread layout, row layout, thread layout again; within 3% of each other). The row layout's
// kernels they replace ran at 0.35-0.91 of copy bandwidth (geomean 0.61x fp32, 0.47x fp64); the
// thread layout at 0.82-1.01 (1.10x fp32, 1.04x fp64), the vendor at 0.50-1.00. Where the vendor
// moves a length at 0.98-1.00 of copy (6, 7, 10-14, 33, 39, 40, 52, 56 and fp64 5-7, 10-14, 22,
// 26, 30) it ties or wins (0.89-1.00x), and keeps it. Listed: at least 5% faster in both B runs.
constexpr long long kH200ThreadF32[] = {3, 5, 9, 15, 18, 20, 21, 24, 25, 26, 27, 28, 35, 42, 44, 45, 49, 50, 55};
constexpr long long kH200ThreadF64[] = {3, 9, 15, 18, 21, 24, 27};

// The wide layout (FftPass::wide, fft/stockham_index.h; IDGPU_FFT_WIDE_ELEMENTS at its default,
// 24 elements a thread in fp32, 12 in fp64): single passes on run-time kernels whose row-layout
// transform took more than 512 (fp32) / 256 (fp64) threads. H200, idgpu-bench under
// IDGPU_POLICY=native, forward out of place, medians of 10, two processes each way within 1%
// (docs/data/h200-wide-layout.csv): fp64, the 113 such 13-smooth lengths at 2^25 points a call,
// 94 of them wide (19 have compiled kernels), 1.21x the row layout (geomean; the wide ones 1.25x;
// 0.51 -> 0.62 of copy bandwidth, the vendor 0.66), 0.82x -> 0.99x the vendor; 2673 lost 18% to the row layout and stays listed (1.07x the
// vendor), 1925, 2340, 3360 2-4%. fp32, the 12 such lengths at 2^27 (9 wide; 3850, 4004, 4095
// have compiled kernels): 1.22x the row layout (0.46 -> 0.56 of copy), still 0.52-0.87x the
// vendor, which moves them at 0.76-0.98; 3773 lost 9%. Listed: the fp64 lengths not in the lists
// above that the wide layout took to at least 1.05x in both processes (1.05-2.66x; the row
// layout had 0.71-2.27x).
constexpr long long kH200WideF64[] = {1820, 2184, 2240, 2275, 2340, 2366, 2688, 2800, 3150, 3159, 3276,
                                      3300, 3510, 3584, 3675, 3696, 3744, 3773, 3900, 4032, 4050};

struct ListedRow {
  MeasuredClasses measured_on;
  Precision precision;
  const long long* lengths;
  std::size_t count;
  long long min_points;
  const char* evidence;
};
constexpr ListedRow kListedRows[] = {
    {kH200, Precision::kSingle, kH200FixedF32, std::size(kH200FixedF32), (1LL << 26) - 8192,
     "H200: fp32 C2C fixed-sequence lengths with factors 11 and 13, and 240, 960, 2835, 1.06-2.70x"},
    {kH200, Precision::kDouble, kH200FixedF64, std::size(kH200FixedF64), (1LL << 25) - 8192,
     "H200: fp64 Z2Z fixed-sequence lengths with factors 11 and 13, and 240, 384, 2835, 3575, 1.08-3.07x"},
    {kH200, Precision::kSingle, kH200RuntimeF32, std::size(kH200RuntimeF32), (1LL << 26) - 8192,
     "H200: fp32 C2C 13-smooth lengths on run-time compiled kernels, 1.05-1.43x"},
    {kH200, Precision::kDouble, kH200RuntimeF64, std::size(kH200RuntimeF64), (1LL << 25) - 8192,
     "H200: fp64 Z2Z 13-smooth lengths on run-time compiled kernels, 1.05-3.44x"},
    {kH200, Precision::kSingle, kH200ThreadF32, std::size(kH200ThreadF32), (1LL << 26) - 8192,
     "H200: fp32 C2C lengths up to 64, one transform a thread, 1.05-1.97x"},
    {kH200, Precision::kDouble, kH200ThreadF64, std::size(kH200ThreadF64), (1LL << 25) - 8192,
     "H200: fp64 Z2Z lengths up to 32, one transform a thread, 1.11-1.31x"},
    {kH200, Precision::kDouble, kH200WideF64, std::size(kH200WideF64), (1LL << 25) - 8192,
     "H200: fp64 Z2Z 13-smooth lengths in the wide layout, 1.05-2.66x"},
};

// Multi-dimensional and real transforms: rows for exact shapes (every axis the same length for
// rank > 1), measured with idgpu-bench under IDGPU_POLICY=native against cuFFT 12.0 in one process
// on an H100 (copy 2980 GB/s), out of place, medians of 10 and 20 runs, three runs; every row won
// all three. Where the native plan lost or tied it is absent (the vendor keeps it):
//   R2C/C2R fp32 n = 2^6..2^15 at 2^26 reals: 0.64-1.05x (the vendor moves these at 0.84-0.98 of
//     copy bandwidth; the native single pass stages through shared memory at 0.44-0.96);
//   D2Z/Z2D fp64 n = 2^8..2^12 at 2^25: 0.67-0.97x; 2^14 D2Z 0.98-0.99x;
//   2D C2C 2048^2 and 2048 x 1024 with the outer axis a cluster column pass 1.01-1.03x (ties;
//   0.97x as pass kernels); Z2Z 2048^2 0.98x. Z2Z 8192 x 4096 won with its outer axis a
//   cluster column pass (1.18-1.20x, 0.87x as pass kernels) but has no row: these rows are
//   square shapes.
// The real rows' calls: n x batch within 8192 of 2^26 reals (fp32) or 2^25 (fp64), as the
// benchmark's batches are for lengths that are not powers of two.
constexpr long long kRealRow32 = (1LL << 26) - 8192;
constexpr long long kRealRow64 = (1LL << 25) - 8192;

struct LayoutRow {
  MeasuredClasses measured_on;
  Kind kind;
  Precision precision;
  int rank;
  long long length;      // every axis (rank 1: n); with `outer`, the inner axis of a plane
  long long min_points;  // elements per call (real length for real kinds) measured at least
  const char* evidence;
  long long outer = 0;   // rank 2: the outer axis where it differs from the inner one
};
constexpr LayoutRow kLayoutRows[] = {
    // D2Z / Z2D n = 8192: one pass at 0.69-0.77 / 0.65 of copy against the vendor's 0.49 (it takes
    // two passes there); Z2D 16384: 0.51 against 0.46.
    {kH100, Kind::kR2C, Precision::kDouble, 1, 8192, 1LL << 25, "H100: D2Z n=8192 at 2^25 reals, 1.42-1.57x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 8192, 1LL << 25, "H100: Z2D n=8192 at 2^25 reals, 1.33-1.34x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 16384, 1LL << 25, "H100: Z2D n=16384 at 2^25 reals, 1.11x"},
    // C2C 4096^2 and 8192^2: the outer axis a cluster column pass (FftPass::cluster), three runs:
    // 1.06x and 1.17-1.18x (0.43 / 0.38 of copy against the vendor's 0.41 / 0.32; as the pass
    // kernel's 0.94-0.95x and 0.85x).
    {kH100, Kind::kC2C, Precision::kSingle, 2, 4096, 1LL << 26, "H100: C2C 4096^2 x 4, 1.06x"},
    {kH100, Kind::kC2C, Precision::kSingle, 2, 8192, 1LL << 26, "H100: C2C 8192^2, 1.17-1.18x"},
    // Z2Z 4096^2: two axis passes, the outer a cluster column pass (8 lines), three runs: 1.24-1.25x
    // (0.40 of copy against the vendor's 0.32; as the pass kernels' 1.17-1.18x).
    {kH100, Kind::kC2C, Precision::kDouble, 2, 4096, 1LL << 25, "H100: Z2Z 4096^2, 2^25 points, 1.24-1.25x"},
    // Square planes of 128^2 .. 1024^2 with both axes in one fused kernel (FusedKind::kAxes), three
    // runs each, 2^26 (fp32) / 2^25 (fp64) points a call. H100: the fused planes at 0.71 (128^2,
    // 256^2), 0.62-0.63 (512^2) and 0.53-0.57 (1024^2) of copy bandwidth against the vendor's
    // 0.47-0.50; as two launches 0.96-1.01x. H200: the fused kernel is bound by the L2, which is
    // no faster there, while the vendor gains from the faster memory: fp32 512^2 and 1024^2 lost
    // (0.98x, 0.93x), Z2Z 512^2 tied (1.04-1.05x). Calls of fewer points lost on both (H100:
    // 0.67-0.86x at 2^20-2^22 fp32 points, latency-bound).
    {kH100, Kind::kC2C, Precision::kSingle, 2, 128, 1LL << 26, "H100: C2C 128^2 fused, 1.43-1.44x"},
    {kH100, Kind::kC2C, Precision::kSingle, 2, 256, 1LL << 26, "H100: C2C 256^2 fused, 1.46x"},
    {kH100, Kind::kC2C, Precision::kSingle, 2, 512, 1LL << 26, "H100: C2C 512^2 fused, 1.29-1.30x"},
    {kH100, Kind::kC2C, Precision::kSingle, 2, 1024, 1LL << 26, "H100: C2C 1024^2 fused, 1.19x"},
    {kH100, Kind::kC2C, Precision::kDouble, 2, 128, 1LL << 25, "H100: Z2Z 128^2 fused, 1.41-1.42x"},
    {kH100, Kind::kC2C, Precision::kDouble, 2, 256, 1LL << 25, "H100: Z2Z 256^2 fused, 1.42-1.43x"},
    {kH100, Kind::kC2C, Precision::kDouble, 2, 512, 1LL << 25, "H100: Z2Z 512^2 fused, 1.24-1.25x"},
    {kH100, Kind::kC2C, Precision::kDouble, 2, 1024, 1LL << 25, "H100: Z2Z 1024^2 fused, 1.11x"},
    {kH200, Kind::kC2C, Precision::kSingle, 2, 128, 1LL << 26, "H200: C2C 128^2 fused, 1.60-1.61x"},
    {kH200, Kind::kC2C, Precision::kSingle, 2, 256, 1LL << 26, "H200: C2C 256^2 fused, 1.19x"},
    {kH200, Kind::kC2C, Precision::kDouble, 2, 128, 1LL << 25, "H200: Z2Z 128^2 fused, 1.13x"},
    {kH200, Kind::kC2C, Precision::kDouble, 2, 256, 1LL << 25, "H200: Z2Z 256^2 fused, 1.14-1.15x"},
    {kH200, Kind::kC2C, Precision::kDouble, 2, 1024, 1LL << 25, "H200: Z2Z 1024^2 fused, 1.08-1.09x"},
    // 3D: the two inner axes' planes fused, then the outermost axis as a pass of its own: one
    // round trip of device memory less than three axis passes. H100, three runs: C2C at 0.37-0.41
    // of copy against the vendor's 0.29-0.35, Z2Z at 0.40 against 0.32-0.33 (three axis passes:
    // C2C 256^3 1.10x, 512^3 1.07-1.08x). H200, three runs: C2C 128^3 1.29x, 256^3 1.22x, 512^3
    // 1.07x; Z2Z 128^3 1.07-1.08x, 256^3 1.10x. 128^3 at 2^21 points a call lost (0.97x, H100).
    {kHopper, Kind::kC2C, Precision::kSingle, 3, 128, 1LL << 26, "H100/H200: C2C 128^3 x 32, 1.15x/1.29x"},
    {kHopper, Kind::kC2C, Precision::kSingle, 3, 256, 1LL << 26, "H100/H200: C2C 256^3 x 4, 1.37-1.38x/1.22x"},
    {kHopper, Kind::kC2C, Precision::kSingle, 3, 512, 1LL << 27, "H100/H200: C2C 512^3, 1.26-1.28x/1.07x"},
    {kHopper, Kind::kC2C, Precision::kDouble, 3, 128, 1LL << 25, "H100/H200: Z2Z 128^3 x 16, 1.23x/1.07-1.08x"},
    {kHopper, Kind::kC2C, Precision::kDouble, 3, 256, 1LL << 25, "H100/H200: Z2Z 256^3 x 2, 1.24x/1.10x"},
    // Real planes of 256^2 with the real pass and the column pass fused (FusedKind::kRealForward /
    // kRealInverse), H100, three runs, 2^26 (fp32) / 2^25 (fp64) reals a call: 0.49-0.60 of copy
    // against the vendor's 0.44-0.47; 3D 256^3 (the outermost axis a pass of its own) 0.32-0.36
    // against 0.28-0.31. 128^2, 512^2 and 1024^2 lost fused (0.67-0.85x: their fused kernels
    // spill, see planner.h) and unfused (0.43-0.67x). On an H200 256^2 lost or tied (R2C / C2R
    // 0.94-0.96x, D2Z / Z2D 1.04-1.05x; the H200 block below), as did 256^3 (1.03-1.04x), so
    // these rows are the H100's. Also at a quarter of those calls (2^24 fp32 reals: 256 planes,
    // the Poisson solver's 256^3 FFTs; 2^23 fp64), three runs: R2C 1.06-1.08x, C2R 1.08-1.09x,
    // D2Z 1.20-1.21x, Z2D 1.08x (0.43 / 0.45-0.51 of copy); 128^2 at 2^24 lost (0.92-0.97x).
    // With the R2C pairs' Nyquist column packed into column 0 (FftPass::nyquist_packed), three
    // runs at 2^26 reals: R2C 256^2 1.15-1.16x (0.51 of copy), R2C 128^2 0.99-1.00x (a tie: the
    // vendor keeps it), D2Z 128^2 1.28x.
    {kH100, Kind::kR2C, Precision::kSingle, 2, 256, 1LL << 24, "H100: R2C 256^2 fused, 1.15-1.16x (2^24: 1.06-1.08x)"},
    {kH100, Kind::kC2R, Precision::kSingle, 2, 256, 1LL << 24, "H100: C2R 256^2 fused, 1.11-1.12x (2^24: 1.08x)"},
    {kH100, Kind::kR2C, Precision::kDouble, 2, 256, 1LL << 23, "H100: D2Z 256^2 fused, 1.27-1.28x (2^23: 1.20x)"},
    {kH100, Kind::kC2R, Precision::kDouble, 2, 256, 1LL << 23, "H100: Z2D 256^2 fused, 1.10-1.11x (2^23: 1.08x)"},
    // The wide-register real pairs (planner.h, fused_real_wide_registers), fp64, three runs at 2^25
    // reals: D2Z 128^2 1.24x (0.59 of copy against the vendor's 0.47), Z2D 128^2 1.10x, D2Z 512^2
    // 1.05-1.07x (the last run with the Nyquist column packed), D2Z 1024^2 1.04x. The fp32 ones (0.71-0.95x) and Z2D 512^2, 1024^2 (0.80-0.92x)
    // stay with the vendor.
    {kH100, Kind::kR2C, Precision::kDouble, 2, 128, 1LL << 25, "H100: D2Z 128^2 fused, 1.24x (packed: 1.28x)"},
    {kH100, Kind::kC2R, Precision::kDouble, 2, 128, 1LL << 25, "H100: Z2D 128^2 fused, 1.10x"},
    {kH100, Kind::kR2C, Precision::kDouble, 2, 512, 1LL << 25, "H100: D2Z 512^2 fused, 1.05-1.07x"},
    {kH100, Kind::kR2C, Precision::kDouble, 2, 1024, 1LL << 25, "H100: D2Z 1024^2 fused, 1.04x"},
    // R2C planes whose outer axis is a packed cluster column pass (line n / 2 packed into line 0,
    // clusters over the n / 2 others), three runs at 2^26 / 2^25 reals: D2Z 4096^2 1.08-1.09x
    // (0.34 of copy, the vendor's 0.31; the pass kernels 0.83x). Ties, so absent: R2C 2048^2
    // 1.01-1.02x, 4096^2 0.99-1.00x, 8192^2 0.99x (the pass kernels 0.93x, 0.63x, 0.56x), D2Z
    // 2048^2 0.95x.
    {kH100, Kind::kR2C, Precision::kDouble, 2, 4096, 1LL << 25, "H100: D2Z 4096^2 packed cluster columns, 1.08-1.09x"},
    {kH100, Kind::kR2C, Precision::kSingle, 3, 256, 1LL << 26, "H100: R2C 256^3 x 4, 1.14x"},
    {kH100, Kind::kC2R, Precision::kSingle, 3, 256, 1LL << 26, "H100: C2R 256^3 x 4, 1.13-1.14x"},
    {kH100, Kind::kR2C, Precision::kDouble, 3, 256, 1LL << 25, "H100: D2Z 256^3 x 2, 1.17x"},
    {kH100, Kind::kC2R, Precision::kDouble, 3, 256, 1LL << 25, "H100: Z2D 256^3 x 2, 1.07x"},
    // Even real lengths whose half has a fixed-sequence kernel (one pass, the real step inside it,
    // the input read by the first stage: PassLaunch::direct_in), three runs each, 2^26 reals
    // (fp32) / 2^25 (fp64) a call within n; the vendor at 0.32-0.68 of copy bandwidth, the native
    // pass at 0.54-0.81. Lost or tied, so absent: R2C/D2Z 600, 960, 1000, 6250, 8000, 10000
    // (0.57-1.07x). C2R / Z2D stage their input (the unpack step pairs X[e] with X[M-e]) and win
    // only at 400, 800 and 1920 (1.10-1.34x; elsewhere 0.39-1.05x).
    {kH100, Kind::kR2C, Precision::kSingle, 1, 240, kRealRow32, "H100: R2C n=240, 1.18-1.19x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 400, kRealRow32, "H100: R2C n=400, 1.59-1.60x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 480, kRealRow32, "H100: R2C n=480, 1.13x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 500, kRealRow32, "H100: R2C n=500, 1.19x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 800, kRealRow32, "H100: R2C n=800, 2.26-2.27x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1250, kRealRow32, "H100: R2C n=1250, 1.17x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1920, kRealRow32, "H100: R2C n=1920, 1.68x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 2000, kRealRow32, "H100: R2C n=2000, 1.16-1.17x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 3840, kRealRow32, "H100: R2C n=3840, 1.39-1.40x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 4000, kRealRow32, "H100: R2C n=4000, 1.14-1.15x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 4374, kRealRow32, "H100: R2C n=4374, 1.18x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 4802, kRealRow32, "H100: R2C n=4802, 1.17-1.18x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 6400, kRealRow32, "H100: R2C n=6400, 1.23-1.24x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 400, kRealRow32, "H100: C2R n=400, 1.10x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 800, kRealRow32, "H100: C2R n=800, 1.34x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1920, kRealRow32, "H100: C2R n=1920, 1.18-1.19x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 240, kRealRow64, "H100: D2Z n=240, 1.38-1.41x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 400, kRealRow64, "H100: D2Z n=400, 1.60-1.61x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 480, kRealRow64, "H100: D2Z n=480, 1.41-1.42x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 500, kRealRow64, "H100: D2Z n=500, 1.11-1.12x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 800, kRealRow64, "H100: D2Z n=800, 1.71x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1250, kRealRow64, "H100: D2Z n=1250, 1.13-1.15x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1920, kRealRow64, "H100: D2Z n=1920, 1.72-1.74x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 2000, kRealRow64, "H100: D2Z n=2000, 1.18x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 3840, kRealRow64, "H100: D2Z n=3840, 1.40-1.43x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 4000, kRealRow64, "H100: D2Z n=4000, 1.26x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 4374, kRealRow64, "H100: D2Z n=4374, 1.21-1.22x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 4802, kRealRow64, "H100: D2Z n=4802, 1.23-1.24x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 6400, kRealRow64, "H100: D2Z n=6400, 1.29-1.30x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1920, kRealRow64, "H100: Z2D n=1920, 1.12-1.13x"},
    // Even real lengths whose half is a cluster length, n = 2^15..2^18 (plan_real: one cluster
    // kernel, the real step in it; the H100's rows here, the H200's in the H200 block below: R2C /
    // C2R 2^16..2^18, D2Z / Z2D 2^15..2^17, where the two-pass plans they replace had won C2R 2^17
    // 1.13x, Z2D 2^15 1.09x and 2^18 1.15x; the cluster plan ties at Z2D 2^18, 1.03-1.04x), 2^26
    // reals (fp32) / 2^25 (fp64) a call, vendor and idgpu in one process, medians of 15:
    // 0.45-0.71 of copy bandwidth against the vendor's 0.24-0.47 (in place 0.23-0.25); n = 2^18
    // (16 blocks of 512 threads) 0.39-0.45 against 0.31-0.32 (in place 0.37-0.43 against 0.23-0.24),
    // where the two-pass plans it replaces ran R2C 0.95x, C2R 1.08-1.22x. fp32 2^15 lost (R2C
    // 0.93x, C2R 0.88x: the vendor moves it at 0.67-0.69 of copy).
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 16, 1LL << 26, "H100: R2C n=2^16 cluster, 1.50-1.51x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 17, 1LL << 26, "H100: R2C n=2^17 cluster, 1.88x (in place 2.44x)"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 16, 1LL << 26, "H100: C2R n=2^16 cluster, 1.04-1.09x (in place 1.06x)"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 17, 1LL << 26, "H100: C2R n=2^17 cluster, 1.74x (in place 2.19x)"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 15, 1LL << 25, "H100: D2Z n=2^15 cluster, 1.85x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 16, 1LL << 25, "H100: D2Z n=2^16 cluster, 1.90x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 17, 1LL << 25, "H100: D2Z n=2^17 cluster, 1.49x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1LL << 15, 1LL << 25, "H100: Z2D n=2^15 cluster, 1.52x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1LL << 16, 1LL << 25, "H100: Z2D n=2^16 cluster, 1.53x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1LL << 17, 1LL << 25, "H100: Z2D n=2^17 cluster, 1.38x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 18, 1LL << 26, "H100: R2C n=2^18 cluster, 1.43x (in place 1.84-1.85x)"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 18, 1LL << 26, "H100: C2R n=2^18 cluster, 1.44-1.46x (in place 1.82x)"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 18, 1LL << 25, "H100: D2Z n=2^18 cluster, 1.25x (in place 1.61x)"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1LL << 18, 1LL << 25, "H100: Z2D n=2^18 cluster, 1.22x (in place 1.55x)"},
    // Even real lengths whose half takes two passes (plan_real: the real step paired into the pass
    // that meets the complex side; fp64 fused where a fused kernel is compiled, n = 2^18..2^21),
    // 2^26 reals (fp32) / 2^25 (fp64) a call, vendor and idgpu in one process, medians of 10; the
    // configuration as built (R2C's intermediate in the output out of place; of an earlier H200
    // run, rows only where that was what ran there: C2R / Z2D, whose layout is the same either way;
    // the H200's D2Z 2^19, 2^21 and R2C 2^22 rows, from a later run as built, are in the H200 block
    // below). The vendor runs these at 0.20-0.35 of copy bandwidth, the native passes at
    // 0.11-0.48; the rest lost or tied (fp32 R2C 2^18..2^26 0.83-1.04x on an H100; C2R 2^21..2^26
    // 0.86-0.99x; D2Z / Z2D 2^23, 2^25 0.86-0.90x). n = 2^18 is a cluster plan now (above); its
    // two-pass rows (H100 C2R 1.22x, H200 Z2D 1.15x) are gone with it.
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 19, 1LL << 26, "H100: C2R n=2^19 two passes, 1.12x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 20, 1LL << 26, "H100: C2R n=2^20 two passes, 1.08x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 19, 1LL << 25, "H100: D2Z n=2^19 fused, 1.47x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 21, 1LL << 25, "H100: D2Z n=2^21 fused, 1.25x"},
    {kHopper, Kind::kC2R, Precision::kDouble, 1, 1LL << 19, 1LL << 25, "H100/H200: Z2D n=2^19 fused, 1.40x/1.12x"},
    {kHopper, Kind::kC2R, Precision::kDouble, 1, 1LL << 21, 1LL << 25, "H100/H200: Z2D n=2^21 fused, 1.21x/1.20x"},
    // Halves from 2^22 (passes of 2^11..2^13 points): both passes cluster column passes, the
    // paired one with the real step (real cluster column passes, fft/stockham_index.h). Three
    // runs at 2^26 reals (fp32) / 2^25 (fp64) a call; fraction of copy bandwidth, the vendor's in
    // brackets; the paired pass kernels these replace ran 0.59-0.89x (fp32) and 0.82-1.00x (fp64):
    //   R2C 2^23..2^27: 1.19x, 1.16x, 1.17-1.18x, 1.32-1.33x, 1.22x (0.33..0.26 [0.28..0.21]);
    //     one transform a call (2^23..2^25): 1.21-1.26x, 1.25x, 1.26x;
    //   C2R 2^23..2^27: 1.23-1.24x, 1.07-1.08x, 1.11x, 1.19-1.20x, 1.13-1.14x (0.34..0.24);
    //   D2Z 2^23..2^26: 1.08x, 1.20x, 1.17x, 1.11-1.12x (0.29..0.26);
    //   Z2D 2^24, 2^25: 1.14-1.16x, 1.11-1.12x; 2^23 ties (1.02-1.03x). Z2D 2^26 had no native
    //   plan in these runs (its paired first pass of 2^13 points was refused for want of a block
    //   of two columns before the cluster planning): planned since, not measured.
    //   In place (one run): R2C 2^24 1.34x, 2^26 1.58x, C2R 2^24 1.25x, D2Z 2^24 1.43x.
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 23, 1LL << 23, "H100: R2C n=2^23 cluster columns, 1.19x (one: 1.21-1.26x)"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 24, 1LL << 24, "H100: R2C n=2^24 cluster columns, 1.16x (one: 1.25x)"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 25, 1LL << 25, "H100: R2C n=2^25 cluster columns, 1.17-1.18x (one: 1.26x)"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 26, 1LL << 26, "H100: R2C n=2^26 cluster columns, 1.32-1.33x"},
    {kH100, Kind::kR2C, Precision::kSingle, 1, 1LL << 27, 1LL << 26, "H100: R2C n=2^27 cluster columns, 1.22x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 23, 1LL << 26, "H100: C2R n=2^23 cluster columns, 1.23-1.24x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 24, 1LL << 26, "H100: C2R n=2^24 cluster columns, 1.07-1.08x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 25, 1LL << 26, "H100: C2R n=2^25 cluster columns, 1.11x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 26, 1LL << 26, "H100: C2R n=2^26 cluster columns, 1.19-1.20x"},
    {kH100, Kind::kC2R, Precision::kSingle, 1, 1LL << 27, 1LL << 26, "H100: C2R n=2^27 cluster columns, 1.13-1.14x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 23, 1LL << 25, "H100: D2Z n=2^23 cluster columns, 1.08x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 24, 1LL << 25, "H100: D2Z n=2^24 cluster columns, 1.20x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 25, 1LL << 25, "H100: D2Z n=2^25 cluster columns, 1.17x"},
    {kH100, Kind::kR2C, Precision::kDouble, 1, 1LL << 26, 1LL << 25, "H100: D2Z n=2^26 cluster columns, 1.11-1.12x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1LL << 24, 1LL << 25, "H100: Z2D n=2^24 cluster columns, 1.14-1.16x"},
    {kH100, Kind::kC2R, Precision::kDouble, 1, 1LL << 25, 1LL << 25, "H100: Z2D n=2^25 cluster columns, 1.11-1.12x"},
    // H200 (copy 4211-4216 GB/s), the same code as the H100 rows above: idgpu-bench under
    // IDGPU_POLICY=native, vendor and idgpu in one process, out of place, medians of 10, two runs
    // (within 2% of each other but for Z2D 4096, 4.4%, and R2C 8192^2, 2.6%, both lost), 2^26 reals
    // (fp32) / 2^25 (fp64) a call (whole transforms: the real fixed lengths within n of it; 8192^2
    // fp64 one plane of 2^26). A row where both runs won by at least 6%; the fraction of copy
    // bandwidth, the vendor's in brackets. Lost or tied on the H200, so absent here (H100 rows
    // above may hold them):
    //   R2C/C2R fp32 n = 2^8 .. 2^15 0.61-0.96x (the vendor at 0.51-0.95 of copy), 2^19 .. 2^21
    //     0.78-0.98x, C2R 2^22 0.90-0.92x, C2R 2^26 1.00-1.01x; D2Z/Z2D 2^8 .. 2^12 0.69-0.97x,
    //     Z2D 2^14 1.04-1.05x, D2Z/Z2D 2^18 1.00-1.04x, D2Z 2^20 0.85-0.87x, Z2D 2^20 1.03x,
    //     2^22 .. 2^26 0.85-1.04x;
    //   real fixed lengths R2C/D2Z 500, 1250, 2000, 4000, 4374, 4802, R2C 6400 (0.81-1.05x;
    //     fp32 R2C 500 has a row since the fp32 stages' constants, below);
    //   2D: R2C/C2R 128^2 .. 8192^2 fp32 0.46-0.96x, D2Z/Z2D 256^2 1.04-1.05x, 512^2 .. 4096^2
    //     0.70-0.95x, Z2D 8192^2 0.86-0.87x; C2C 512^2, 1024^2, 8192^2 0.92-0.97x, 2048^2
    //     1.05-1.06x, Z2Z 512^2, 2048^2, 8192^2 1.01-1.04x; 1000 x 1000 0.38-0.52x; 1080 x 1920
    //     0.66-1.00x with the general kernel's outer axis (R2C / D2Z have rows since its
    //     fixed-sequence pass, at the end of this block; C2C, Z2Z, C2R, Z2D still lose or tie);
    //   3D: C2C 64^3 1.04x, R2C/C2R 64^3, 128^3 0.63-0.87x, 256^3 1.03-1.04x, 512^3 0.93-0.94x;
    //     D2Z/Z2D 128^3 1.04-1.06x, 256^3 1.03-1.04x, 512^3 0.88-0.95x, Z2D 64^3 1.05x; 100^3 and
    //     384^3 0.29-0.52x; Z2Z 512^3 1.03x.
    {kH200, Kind::kR2C, Precision::kSingle, 1, 64, 1LL << 26, "H200: R2C n=64, 1.16x (0.80 [0.69])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 64, 1LL << 26, "H200: C2R n=64, 1.07x (0.71 [0.66])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 64, 1LL << 25, "H200: D2Z n=64, 1.24x (0.75 [0.61])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 64, 1LL << 25, "H200: Z2D n=64, 1.15-1.16x (0.70 [0.60])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1LL << 14, 1LL << 25, "H200: D2Z n=2^14, 1.06-1.07x (0.41 [0.39])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1LL << 15, 1LL << 25, "H200: D2Z n=2^15 cluster, 1.54-1.55x (0.45 [0.29])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 1LL << 15, 1LL << 25, "H200: Z2D n=2^15 cluster, 1.37-1.39x (0.40 [0.29])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 16, 1LL << 26, "H200: R2C n=2^16 cluster, 1.32x (0.51 [0.39])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1LL << 16, 1LL << 26, "H200: C2R n=2^16 cluster, 1.08x (0.47 [0.43])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1LL << 16, 1LL << 25, "H200: D2Z n=2^16 cluster, 1.45-1.47x (0.46 [0.31])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 1LL << 16, 1LL << 25, "H200: Z2D n=2^16 cluster, 1.27-1.29x (0.40 [0.31])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 17, 1LL << 26, "H200: R2C n=2^17 cluster, 1.44x (0.43 [0.30])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1LL << 17, 1LL << 26, "H200: C2R n=2^17 cluster, 1.39-1.41x (0.40 [0.29])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1LL << 17, 1LL << 25, "H200: D2Z n=2^17 cluster, 1.15x (0.36 [0.32])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 1LL << 17, 1LL << 25, "H200: Z2D n=2^17 cluster, 1.13x (0.35 [0.31])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 18, 1LL << 26, "H200: R2C n=2^18 cluster, 1.13-1.14x (0.33 [0.29])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1LL << 18, 1LL << 26, "H200: C2R n=2^18 cluster, 1.16x (0.33 [0.28])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1LL << 19, 1LL << 25, "H200: D2Z n=2^19 fused, 1.16x (0.34 [0.29])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1LL << 21, 1LL << 25, "H200: D2Z n=2^21 fused, 1.13-1.14x (0.26 [0.23])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 22, 1LL << 26, "H200: R2C n=2^22 two passes, 1.06-1.07x (0.28 [0.26])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 23, 1LL << 26, "H200: R2C n=2^23 cluster columns, 1.14x (0.26 [0.23])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1LL << 23, 1LL << 26, "H200: C2R n=2^23 cluster columns, 1.21-1.22x (0.28 [0.23])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 24, 1LL << 26, "H200: R2C n=2^24 cluster columns, 1.12x (0.25 [0.22])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1LL << 24, 1LL << 26, "H200: C2R n=2^24 cluster columns, 1.07x (0.24 [0.22])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 25, 1LL << 26, "H200: R2C n=2^25 cluster columns, 1.12x (0.23 [0.21])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1LL << 25, 1LL << 26, "H200: C2R n=2^25 cluster columns, 1.09-1.10x (0.22 [0.20])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1LL << 26, 1LL << 26, "H200: R2C n=2^26 cluster columns, 1.06x (0.21 [0.20])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 240, kRealRow32, "H200: R2C n=240, 1.28x (0.55 [0.43])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 400, kRealRow32, "H200: R2C n=400, 1.70-1.71x (0.50 [0.30])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 480, kRealRow32, "H200: R2C n=480, 1.14-1.15x (0.55 [0.48])"},
    // With the fp32 fixed-sequence stages' constants, three runs, medians of 12: R2C 500
    // 1.06-1.07x, 960 1.22-1.23x; still lost or tied R2C 600, 1000, 1250, 2000, 4000, 4374, 4802,
    // 6250, 6400, 8000, 10000 (0.70-0.99x) and C2R 240, 480, 500, 1000, 1250, 2000, 3840, 4000
    // (0.50-0.86x: C2R stages its input). With the exchanges row-padded, three runs: R2C 600
    // 1.09x, 1250 1.12x, 6250 1.08-1.09x; still tied or lost R2C 1000 0.83x, 2000 1.06x, 4000
    // 1.06x, C2R 240, 480, 500, 960, 1000, 1250, 2000, 3840, 4000, 6250 (0.54-0.90x).
    {kH200, Kind::kR2C, Precision::kSingle, 1, 500, kRealRow32, "H200: R2C n=500, 1.06-1.07x (0.42 [0.40])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 600, kRealRow32, "H200: R2C n=600, 1.09x (0.45 [0.41])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1250, kRealRow32, "H200: R2C n=1250, 1.12x (0.52 [0.47])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 6250, kRealRow32, "H200: R2C n=6250, 1.08-1.09x (0.44 [0.40])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 800, kRealRow32, "H200: R2C n=800, 2.28x (0.52 [0.23])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 960, kRealRow32, "H200: R2C n=960, 1.22-1.23x (0.46 [0.38])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 1920, kRealRow32, "H200: R2C n=1920, 1.74-1.75x (0.47 [0.27])"},
    {kH200, Kind::kR2C, Precision::kSingle, 1, 3840, kRealRow32, "H200: R2C n=3840, 1.13-1.14x (0.47 [0.41])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 400, kRealRow32, "H200: C2R n=400, 1.12x (0.33 [0.29])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 800, kRealRow32, "H200: C2R n=800, 1.36x (0.32 [0.23])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 1920, kRealRow32, "H200: C2R n=1920, 1.22x (0.33 [0.27])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 240, kRealRow64, "H200: D2Z n=240, 1.58x (0.57 [0.36])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 400, kRealRow64, "H200: D2Z n=400, 1.73-1.74x (0.52 [0.30])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 480, kRealRow64, "H200: D2Z n=480, 1.54-1.55x (0.63 [0.41])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 800, kRealRow64, "H200: D2Z n=800, 1.81-1.83x (0.54 [0.30])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 1920, kRealRow64, "H200: D2Z n=1920, 1.88-1.90x (0.52 [0.27])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 3840, kRealRow64, "H200: D2Z n=3840, 1.14x (0.52 [0.46])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 6400, kRealRow64, "H200: D2Z n=6400, 1.08x (0.46 [0.42])"},
    // Halves whose fp64 pass widens its radix-7 stage (sequence_threads), three runs: D2Z 7700
    // 1.05-1.10x, 8008 1.32-1.33x, 8190 2.19x, Z2D 8190 1.36-1.37x; D2Z 13122 (half 6561)
    // 1.01-1.03x ties, Z2D 7700, 8008, 13122 lose (0.61-0.79x: Z2D stages its input), as do D2Z /
    // Z2D 20000 (half 10000: 0.78x / 0.66x).
    {kH200, Kind::kR2C, Precision::kDouble, 1, 7700, kRealRow64, "H200: D2Z n=7700, 1.05-1.10x (0.34 [0.31])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 8008, kRealRow64, "H200: D2Z n=8008, 1.32-1.33x (0.39 [0.29])"},
    {kH200, Kind::kR2C, Precision::kDouble, 1, 8190, kRealRow64, "H200: D2Z n=8190, 2.19x (0.40 [0.18])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 8190, kRealRow64, "H200: Z2D n=8190, 1.36-1.37x (0.25 [0.18])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 400, kRealRow64, "H200: Z2D n=400, 1.09-1.10x (0.32 [0.29])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 800, kRealRow64, "H200: Z2D n=800, 1.07x (0.32 [0.30])"},
    {kH200, Kind::kC2R, Precision::kDouble, 1, 1920, kRealRow64, "H200: Z2D n=1920, 1.21-1.22x (0.33 [0.27])"},
    {kH200, Kind::kR2C, Precision::kDouble, 2, 128, 1LL << 25, "H200: D2Z 128^2 fused, 1.09x (0.45 [0.41])"},
    {kH200, Kind::kC2R, Precision::kDouble, 2, 128, 1LL << 25, "H200: Z2D 128^2 fused, 1.07x (0.44 [0.41])"},
    {kH200, Kind::kC2C, Precision::kSingle, 2, 4096, 1LL << 26, "H200: C2C 4096^2 x 4, 1.08-1.09x (0.37 [0.34])"},
    {kH200, Kind::kC2C, Precision::kDouble, 2, 4096, 1LL << 25, "H200: Z2Z 4096^2 x 2, 1.07-1.08x (0.34 [0.31])"},
    {kH200, Kind::kR2C, Precision::kDouble, 2, 8192, 1LL << 26, "H200: D2Z 8192^2, 1.08x (0.25 [0.24])"},
    {kH200, Kind::kC2C, Precision::kDouble, 3, 64, 1LL << 25, "H200: Z2Z 64^3 x 128, 1.13-1.14x (0.32 [0.28])"},
    {kH200, Kind::kR2C, Precision::kDouble, 3, 64, 1LL << 25, "H200: D2Z 64^3 x 128, 1.09x (0.28 [0.26])"},
    // 1080 x 1920 planes with the outer axis a fixed-sequence pass (9 8 5 3; the general kernel's
    // before, at 0.97-1.00x), two runs: R2C x 32 1.14-1.15x, D2Z x 16 1.16x (0.16-0.17 of copy
    // against the vendor's 0.14-0.15); C2R / Z2D tie (0.99-1.00x), C2C / Z2Z lose (0.83-0.90x).
    // With the exchanges row-padded (fixed_sequence_extent), three runs: R2C x 32 1.34-1.35x, C2R
    // x 32 1.13-1.14x (0.16 of copy against 0.14), C2C 1.04x, Z2Z 0.91x.
    {kH200, Kind::kR2C, Precision::kSingle, 2, 1920, 1920LL * 1080 * 32, "H200: R2C 1080 x 1920 x 32, 1.34-1.35x", 1080},
    {kH200, Kind::kC2R, Precision::kSingle, 2, 1920, 1920LL * 1080 * 32, "H200: C2R 1080 x 1920 x 32, 1.13-1.14x", 1080},
    {kH200, Kind::kR2C, Precision::kDouble, 2, 1920, 1920LL * 1080 * 16, "H200: D2Z 1080 x 1920 x 16, 1.16x", 1080},
    // Real lengths with a prime factor above 13: one Bluestein pass with the real step (the rows
    // below the prime ones). fp32 n = 202 (M = 256), H200, idgpu-bench, 2^26 reals a call, medians
    // of 15, three runs: R2C / C2R 1.88-1.90x / 2.06x (0.24-0.26 of copy against the vendor's
    // 0.13); smaller calls, 2^24 / 2^22 / 2^20 reals, 1.38-2.00x. (n = 101 won 1.61-3.15x with its
    // rows paired, IDGPU_FFT_PAIR_REAL_ROWS, not measured one row a convolution: no row.)
    {kH200, Kind::kR2C, Precision::kSingle, 1, 202, (1LL << 20) - 256, "H200: R2C n=202, 1.38-1.90x (0.24 [0.13])"},
    {kH200, Kind::kC2R, Precision::kSingle, 1, 202, (1LL << 20) - 256, "H200: C2R n=202, 1.52-2.06x (0.26 [0.13])"},
};

// 1D real transforms of twice a prime, n = 2p (p > 13): the real pass the p-point complex
// transform as one Bluestein convolution over the power of two M >= 2p - 1
// (kernels/stockham_bluestein.cuh), with the real step on its loads and stores. H200, idgpu-bench,
// 2^26 (fp32) / 2^25 (fp64) reals a call, medians of 15, two runs (native, then under auto with
// these rows, within 1.2%), R2C / C2R (fraction of copy bandwidth, the vendor's in brackets):
//  - fp32, p in 4097..8191 (M = 2^14): n = 8198 1.34 / 1.39-1.40x, 10006 1.24-1.25 / 1.30-1.31x,
//    12014 2.07-2.10 / 2.19-2.21x, 14002 2.09 / 2.22x, 16382 1.62 / 1.73-1.74x (0.08-0.15
//    [0.05-0.09]); in place R2C 8198 1.44x. Smaller calls, 2^24 / 2^22 / 2^20 reals: 1.17-1.81x.
//    Below, the vendor is faster: p in 2049..4096 (M = 2^13, n = 4106, 6002) 0.62-0.67x, 2062
//    0.63-0.65x, 514 0.77-0.81x, 1018 0.98 / 1.06x.
//  - fp64, p in 2049..4095 (M = 2^13): n = 4106 1.69 / 1.73-1.74x, 6002 1.64-1.65 / 1.74x, 8186
//    1.60-1.61 / 1.71x (0.10-0.17 [0.06-0.10]); in place Z2D 4106 1.84x; smaller calls, 2^23 /
//    2^21 / 2^19 reals, 1.65-1.94x. Below: 2062 0.57x, 514 0.70-0.72x.
// The vendor's time jumps above p = 4096 (fp32) and 2048 (fp64): 0.55-0.83 ms below, 1.3-2.4 ms
// above. Odd n = p runs the n-point transform, one row a convolution: fp32 4099 0.76-0.77x, 6007
// 1.21x, 8191 1.00-1.01x, fp64 2053 0.96-0.97x, 4093 1.01x (before rows could be paired), so the
// vendor keeps odd lengths; with two rows a convolution (IDGPU_FFT_PAIR_REAL_ROWS=1) they measured
// as their 2p (fp32 1.31-2.16x, fp64 1.49-1.75x), but a row's rounding then follows its partner's
// scale, which the vendor's does not (docs/data/h200-real-bluestein.csv).
struct RealPrimeRow {
  MeasuredClasses measured_on;
  Precision precision;
  long long min_prime;
  long long max_prime;
  long long min_points;  // reals a call
  const char* evidence;
};
constexpr RealPrimeRow kRealPrimeRows[] = {
    // From 2^20 (fp32) / 2^19 (fp64) reals a call, less up to n for the batch's rounding.
    // With the mixed convolution lengths (p = 4097..6144 over 10240 / 12288 points), at 2^26 reals:
    // n = 8198, 10006, 12014 1.65-1.75x, 1.47-1.57x, 2.27-2.44x (1.34-1.40x, 1.24-1.31x,
    // 2.07-2.21x over 16384); fp64 n = 4106 (5120 points) 1.69-1.74x -> 1.77-1.85x (in place Z2D
    // 1.95x). The mixed lengths were timed at 2^26 reals only; the rows' smaller calls (from 2^20)
    // were timed with the powers of two.
    {kH200, Precision::kSingle, 4097, 8191, (1LL << 20) - 16384, "H200: R2C/C2R n = 2p, p prime 4099..8191, 1.17-2.44x"},
    {kH200, Precision::kDouble, 2049, 4095, (1LL << 19) - 8192, "H200: D2Z/Z2D n = 2p, p prime 2053..4093, 1.60-1.95x"},
};

// Whether a 1D real transform of length n is one of kRealPrimeRows' on this device class.
bool real_prime_row_wins(Precision precision, long long n, long long points, MeasuredClasses classes) {
  if (n % 2 != 0 || !is_prime(n / 2)) return false;
  const long long p = n / 2;
  for (const RealPrimeRow& row : kRealPrimeRows) {
    if ((row.measured_on & classes) != 0 && row.precision == precision && p >= row.min_prime && p <= row.max_prime &&
        points >= row.min_points) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool native_layout_wins(Kind kind, Precision precision, int rank, const long long* dims, long long batch,
                        DeviceClass device, const char** reason) {
  const MeasuredClasses classes = classes_of(device);
  if (classes == 0) {
    *reason = kUnmeasuredDevice;
    return false;
  }
  long long points = batch;
  for (int axis = 0; axis < rank; ++axis) points *= dims[axis];
  for (const LayoutRow& row : kLayoutRows) {
    if ((row.measured_on & classes) == 0 || row.kind != kind || row.precision != precision || row.rank != rank ||
        points < row.min_points) {
      continue;
    }
    bool same = true;
    for (int axis = 0; axis < rank; ++axis) {
      const long long want = axis == 0 && rank == 2 && row.outer > 0 ? row.outer : row.length;
      same = same && dims[axis] == want;
    }
    if (same) return true;
  }
  if (rank == 1 && kind != Kind::kC2C && real_prime_row_wins(precision, dims[0], points, classes)) return true;
  *reason = "the vendor is faster here on this device class, or it was not measured (tuning table)";
  return false;
}

// 2D/3D C2C/Z2Z over the lines of a [dims][S] array (plan_c2c_lines). H100, idgpu-bench
// (--fft c2c,n=...,batch=S,layout=lines|lines-to-contiguous), IDGPU_POLICY=native, medians of 10:
//  - the same layout out: the vendor runs these at 0.013-0.14 of copy bandwidth, the axis passes
//    at 0.14-0.48. fp32 2^26 points a call: 128^2 .. 4096^2 5.0x, 5.7x, 12.9x, 15.8x, 8.9x, 4.3x;
//    1000^2 5.4x, 1920 x 1080 14.2x; 32^3 .. 256^3 4.9x, 12.0x, 17.3x, 5.6x. fp64 2^25: 2.5-8.7x.
//    At 2^22 points 3.0-8.1x, at 2^20 (256^2 x 16) 4.1x; S = 129 (odd) 2.8x.
//  - each transform contiguous out: fp32 1.24-3.14x at 2^26 points (1000^2 1.28x, 1920 x 1080
//    1.66x), 1.16-1.71x at 2^22, 1.41x at 2^20; fp64 1.15-1.99x. S = 129 (PyTorch's rfftn of
//    256^3 makes this call: 256^2 x 129) lost at 0.92x while the first pass's rows were T lines
//    with T dividing S (3 lines, 24 bytes); with rows of 16 lines straddling the rows of the
//    first axis (PassShape::straddles), medians of 15 (the ranges: two runs): fp32 256^2 x 129
//    1.43-1.44x (0.44 of copy bandwidth, the vendor 0.30), 128^2 x 257 1.40x, 64^3 x 33 1.14x;
//    fp64 256^2 x 129 1.18x, 512^2 x 129 1.52x; but at 2^20 points 128^2 x 65 0.82-0.84x and
//    64^2 x 33 (2^17) 0.47x, so an odd S is native from 2^22 points, and from 9 lines: below
//    that (3, 5, 7) the first pass keeps rows of S lines (24-56 bytes in fp32), the shape that
//    lost.
// Calls below 2^20 points and other devices were not measured.
// The 1000^2 shapes of these rows (H100 and H200) were measured with 5 lines a block on the
// outer axis (40-byte rows); the planner's fp32 rule now takes 4 (32 bytes, fft/planner.cpp
// size_pass), which took the default layout's 1000 x 1000 from 1.56-1.60 to 1.16 ms on an H200.
// Not re-measured in these layouts.
struct LinesRow {
  MeasuredClasses measured_on;
  bool contiguous_out;
  long long lines_multiple;  // S a multiple of this
  long long min_lines;       // and at least this
  long long min_points;
  const char* evidence;
  bool odd_only = false;  // S odd only
};
constexpr LinesRow kLinesRows[] = {
    {kH100, false, 1, 2, 1LL << 20, "H100: lines, same layout out, 2.5-17x"},
    {kH100, true, 2, 2, 1LL << 20, "H100: lines, contiguous out, even S, 1.15-3.1x"},
    {kH100, true, 1, 9, 1LL << 22, "H100: lines, contiguous out, S >= 9 from 2^22 points, 1.14-1.52x"},
    // H200, two runs, medians of 10: the same layout out 2.6-16x (S = 4, 16, 32, 64, 67, 256 and
    // 1024 lines, 2^20 to 2^26 points; the vendor at 0.011-0.12 of copy, the passes at 0.10-0.45;
    // S = 4 won too, 2.8-5.5x, but the row starts at 16 lines); contiguous out, S = 64 and 1024 at
    // 2^26 points 1.28-3.02x; odd S of 129 and 257 lines from 2^22 points (2^22 .. 2^25 points)
    // fp32 1.43-1.58x, fp64 1.19-1.40x. Odd S = 33 differs by precision (fp32 256^2 x 33
    // 0.79-0.80x, 64^3 x 33 0.99x; fp64 1.19-1.35x) and 128^2 x 65 (2^20 points) lost
    // (0.58-0.78x): from 129 lines only. The last row holds odd S only: even S was measured only
    // at 2^26 points (S = 64 and 1024), the row before.
    {kH200, false, 1, 16, 1LL << 20, "H200: lines, same layout out, 2.6-16x"},
    {kH200, true, 2, 2, 1LL << 26, "H200: lines, contiguous out, even S at 2^26 points, 1.28-3.02x"},
    {kH200, true, 1, 129, 1LL << 22, "H200: lines, contiguous out, odd S >= 129 from 2^22 points, 1.19-1.58x", true},
};

bool native_lines_wins(Precision precision, int rank, long long lines, bool contiguous_out, long long points,
                       DeviceClass device, const char** reason) {
  const MeasuredClasses classes = classes_of(device);
  if (classes == 0) {
    *reason = kUnmeasuredDevice;
    return false;
  }
  if ((precision == Precision::kSingle || precision == Precision::kDouble) && (rank == 2 || rank == 3)) {
    for (const LinesRow& row : kLinesRows) {
      if ((row.measured_on & classes) != 0 && row.contiguous_out == contiguous_out &&
          lines % row.lines_multiple == 0 && (!row.odd_only || lines % 2 != 0) && lines >= row.min_lines &&
          points >= row.min_points) {
        return true;
      }
    }
  }
  *reason = "strided layout: the vendor is faster here on this device class, or it was not measured (tuning table)";
  return false;
}

bool native_fft_wins(long long n, long long batch, Precision precision, DeviceClass device, const char** reason) {
  const MeasuredClasses classes = classes_of(device);
  if (classes == 0) {
    *reason = kUnmeasuredDevice;
    return false;
  }
  for (const TuningRow& row : kRows) {
    if (row.precision != precision || (row.measured_on & classes) == 0 || n < row.min_n || n > row.max_n ||
        n * batch < row.min_points || !in_class(n, row.lengths) ||
        (row.max_padding > 0 && bluestein_padding_ratio(n) > row.max_padding)) {
      continue;
    }
    return true;
  }
  for (const ListedRow& row : kListedRows) {
    if (row.precision != precision || (row.measured_on & classes) == 0 || n * batch < row.min_points) continue;
    if (std::find(row.lengths, row.lengths + row.count, n) != row.lengths + row.count) return true;
  }
  *reason = "the vendor is faster here on this device class (tuning table)";
  return false;
}

}  // namespace idgpu::fft
