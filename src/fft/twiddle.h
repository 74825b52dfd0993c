// Twiddle factors of the native FFT, computed on the host and read by the kernels from tables (in
// the plan's precision), a kernel forming at most one product of two entries. fp64 plans take each
// entry as the double nearest exp(-2 pi i e / d) (twiddle_nearest, in long double); fp32 plans the
// faster double evaluation (twiddle: a few ulps of double off in absolute terms, far below float's
// rounding).
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

#include "fft/planner.h"

namespace idgpu::fft {

// exp(sign 2 pi i e / d), computed in double with the exponent reduced exactly first: e mod d, then
// the quarter turn q = floor(4 e / d) in integers, so that only an angle in [0, pi/2) reaches
// cos/sin and quarter, half and full turns are exact. d >= 1, d < 2^61.
std::complex<double> twiddle(long long e, long long d, int sign);
// The same in long double (equal to double where long double is no wider), the angle reduced to at
// most pi / 4 (its complement beyond), and rounded once from it to the nearest double. Evaluated in
// double (twiddle), 52% of the entries of w_d^e over d = 3..2^24 are not the nearest double and 17%
// are more than 1.5 ulps off; a double Stockham FFT over such tables (n = 1000, 2187, 3003, 3773,
// 4096) had 8-35% more rms error against a long double DFT than over the nearest doubles. About 4x
// twiddle's time: the tables of a two-pass fp64 plan of 2^26 points (32766 entries) 0.9 -> 3.7 ms
// on an x86-64 host.
std::complex<long double> twiddle_long(long long e, long long d, int sign);
std::complex<double> twiddle_nearest(long long e, long long d, int sign);

// Where a pass's tables sit in its block of twiddles (offsets and counts in elements):
//  - stage: the twiddles w_{l r}^{t j} of the Stockham stages inside the pass, N - 1 entries
//    in the stage-major order of stage_twiddle_index (fft/stockham_index.h);
//  - lo, hi: the inter-pass twiddles w_M^e (M = L N, e = t j < M) as lo[e mod 2^b] hi[e >> b]
//    with b = pass.twiddle_lo_bits; absent (count 0) in the first pass.
// Every table is the forward sign; the inverse transform conjugates.
//  - real: a real pass's w_n^k = exp(-2 pi i k / n), k < n / 2 (n = 2 N, the real length), for
//    its real step (RealStep); a paired real step's (n = 2 M, M = the pass's transform_n) as
//    lo[k mod 2^b] (2^b entries) then hi[k >> b] (ceil(M / 2^b)), b = pass.real_lo_bits;
//    absent elsewhere.
struct TwiddleLayout {
  std::size_t stage = 0, stage_count = 0;
  std::size_t lo = 0, lo_count = 0;
  std::size_t hi = 0, hi_count = 0;
  std::size_t real = 0, real_count = 0;
  std::size_t total = 0;
};
// `interpass` false leaves the lo and hi tables out (count 0), for a kernel that computes the
// inter-pass twiddles itself.
TwiddleLayout twiddle_layout(const FftPass& pass, bool interpass = true);

// The stage twiddles of pass.radices at `stage` and the inter-pass tables (lo_count, hi_count
// entries) at `lo` and `hi` of `table`: what every pass's table layout holds first. `nearest`:
// each entry twiddle_nearest's (fp64 plans), else twiddle's.
void write_pass_twiddles(const FftPass& pass, std::size_t stage, std::size_t lo, std::size_t lo_count, std::size_t hi,
                         std::size_t hi_count, std::vector<std::complex<double>>* table, bool nearest = false);

// The pass's tables in that layout.
std::vector<std::complex<double>> pass_twiddles(const FftPass& pass, bool interpass = true, bool nearest = false);

}  // namespace idgpu::fft
