// FFTs of lengths with prime factors above 13: Rader's and Bluestein's algorithms as steps of the
// Stockham passes (fft/planner.h: ConvolutionStep, BluesteinStep, plan_c2c_any), and the tables
// they read, computed on the host: twiddles and chirps correctly rounded doubles (fft/twiddle.h),
// kernel spectra formed in double or long double and rounded once (TableAccuracy).
//
// Both turn a DFT into a cyclic convolution, done by FFT in shared memory: forward FFT (the
// transform's sign s), pointwise product with the spectrum of a fixed kernel, inverse FFT (-s).
// The kernel's spectrum is computed once per plan, with the 1 / (convolution length) of the
// unnormalised inverse folded in, so the result is the unnormalised DFT. Every table holds the
// forward sign's values and the inverse transform conjugates them, as for the twiddles: with both
// FFTs' signs swapped too, the inverse is the conjugate of the forward computation.
//
// Rader ("Discrete Fourier transforms when the number of data samples is prime", Rader): for a
// prime p and a generator g of (Z/p)^*, write t = g^-q and k = g^m (q, m in [0, p - 1)); then
//   X[g^m] = x[0] + sum_q x[g^-q] w^(g^(m-q)),   X[0] = x[0] + sum_t x[t],   w = exp(s 2 pi i / p),
// a cyclic convolution of a[q] = x[g^-q] with b[r] = w^(g^r), both of length p - 1. In shared
// memory (fft/convolution_index.h: p + 1 slots): load x[e] into rader_input_slot(e) (x[0] into
// slot p - 1), forward FFT of the p - 1 slots, X[0] = x[0] + A[0] into slot p, multiply by the
// spectrum B = DFT(b) / (p - 1), add x[0] to bin 0 (the unnormalised inverse FFT then adds it to
// every output: no pass over the outputs for it), inverse FFT, store X[k] from
// rader_output_slot(k). The permutation is a table of discrete logarithms (log_g e, e < p).
//
// Bluestein ("A linear filtering approach to the computation of discrete Fourier transform",
// Bluestein): with t k = (t^2 + k^2 - (k - t)^2) / 2 and the chirp c[k] = exp(s pi i k^2 / n),
//   X[k] = c[k] sum_t (x[t] c[t]) conj(c[k - t]),
// a linear convolution of length 2n - 1, done as a cyclic one of M >= 2n - 1 points: a = x c
// padded with zeros, b[m] = conj(c[m]) at m and M - m (m < n), zeros between. The chirp's
// exponent k^2 is reduced mod 2n exactly in integers (chirp_exponent) before the angle is
// formed, so the chirp is as accurate for n = 10^6 as for n = 17. Its spectrum B = DFT_M(b) / M.
// Where M fits a block, that is one pass (ConvolutionStep::kBluestein); above, the M-point FFTs
// are Stockham passes over device memory with the chirps and the spectrum product as steps of
// the first, last and middle ones (BluesteinStep, fft/planner.h).
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

#include "fft/planner.h"

namespace idgpu::fft {

// Where a step pass's tables sit in its block of tables (offsets and counts in complex elements),
// as TwiddleLayout for the Stockham passes, of which it is the same layout plus the steps':
//  - stage: the stage twiddles of the stages the pass runs (stage_twiddle_index order): of its
//    convolution for a convolution pass (convolution_size - 1 entries), else of its size;
//  - lo, hi: the inter-pass twiddles w_{L N}^e = lo[e mod 2^b] hi[e >> b], as TwiddleLayout's;
//  - chirp: exp(-pi i k^2 / n) for k < n, the length the chirp runs over (a Bluestein
//    convolution pass: its size; a multi-pass Bluestein plan's first and last passes: the true
//    length);
//  - spectrum: the kernel's spectrum, one entry per convolution point (Rader: p - 1, a
//    Bluestein convolution pass: M), in natural order; for a multi-pass plan's spectrum pass, M
//    entries indexed by the bin (spectrum_position);
//  - real: a convolution pass of a real plan with an even real length n = 2 N (RealStep::kPackR2C,
//    kUnpackC2R): w_n^k = exp(-2 pi i k / n) for k < N, as TwiddleLayout's real table.
// Rader's discrete logarithms are an integer table of p entries beside it (StepTables::logs).
struct StepLayout {
  std::size_t stage = 0, stage_count = 0;
  std::size_t lo = 0, lo_count = 0;
  std::size_t hi = 0, hi_count = 0;
  std::size_t chirp = 0, chirp_count = 0;
  std::size_t spectrum = 0, spectrum_count = 0;
  std::size_t real = 0, real_count = 0;
  std::size_t total = 0;
};
StepLayout step_layout(const FftPass& pass);

struct StepTables {
  StepLayout layout;
  std::vector<std::complex<double>> values;  // layout.total entries
  std::vector<int> logs;                     // Rader: log_g e for e in [1, p), 0 at e = 0; else empty
};
// How the plan-time kernel spectra are formed: in double, or in long double and rounded to double
// once (kExtended: for fp64 plans, whose transforms see the double FFT's rounding in the spectrum;
// 4-5x the plan-time cost with x86-64's 80-bit long double, more where long double is a software
// binary128 (aarch64; not measured); where long double has no more digits than double, the same
// as kDouble). The twiddles and the chirp are correctly rounded doubles either way.
enum class TableAccuracy { kDouble, kExtended };

// The pass's tables in that layout (any pass: an ordinary one's are its pass_twiddles).
// `multi_pass_steps` false leaves a multi-pass Bluestein pass's chirp and spectrum out (`values`
// then ends where the chirp begins; the layout is the same), for the caller to form: the native
// plans form them on the device (fft/native.cpp), where the host would spend most of a large
// plan's creation on them.
StepTables step_tables(const FftPass& pass, TableAccuracy accuracy, bool multi_pass_steps = true);

// The pieces, for the tests and the kernels' set-up:
// exp(-pi i k^2 / n) for k < n, each from the exact exponent k^2 mod 2n.
std::vector<std::complex<double>> chirp_table(long long n);
// Bluestein's kernel spectrum for n points padded to m: DFT_m(b) / m, b as above (sign -1).
// Kept per (n, m, accuracy) for the process, up to 32 MiB of spectra, oldest dropped first.
std::vector<std::complex<double>> bluestein_spectrum(long long n, long long m,
                                                     TableAccuracy accuracy = TableAccuracy::kExtended);
// What the Bluestein spectrum cache has done in this process (for the tests): spectra formed,
// spectra served from the cache, and what it holds now.
struct SpectrumCacheStats {
  unsigned long long formed = 0;
  unsigned long long reused = 0;
  std::size_t entries = 0;
  std::size_t bytes = 0;
};
SpectrumCacheStats bluestein_spectrum_cache_stats();
// Rader's kernel spectrum for the prime p and generator g: DFT_{p-1}(b) / (p - 1),
// b[r] = exp(-2 pi i g^r / p).
std::vector<std::complex<double>> rader_spectrum(long long p, int g,
                                                 TableAccuracy accuracy = TableAccuracy::kExtended);
// log_g e for e in [1, p) (entry 0: 0).
std::vector<int> rader_logs(long long p, int g);

// The DFT (sign -1) in double, by recursive decimation in time with twiddles reduced exactly
// (fft/twiddle.h): the plan-time spectra (13-smooth lengths; a prime factor p costs O(n p)).
std::vector<std::complex<double>> smooth_dft(const std::vector<std::complex<double>>& x);

}  // namespace idgpu::fft
