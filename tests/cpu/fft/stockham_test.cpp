// The native FFT's pass planner (src/fft/planner.h) and its host reference executor
// (src/fft/stockham_reference.h), against independent long-double oracles: a naive O(n^2) DFT and
// a recursive radix-2 FFT.
//
// Random inputs come from one base seed: Catch's --rng-seed when given, else a fixed default so CI
// is reproducible. It is printed once; every case CAPTUREs what it runs.
//
// Tolerance: the reference runs in double with twiddles accurate to about one ulp, so its
// relative L2 error against an exact DFT grows like eps sqrt(log n) to eps log n (Higham,
// "Accuracy and Stability of Numerical Algorithms", Sec. 24.1); for n <= 2^20 that is below
// 30 eps ~ 7e-15. The bound 1e-13 leaves room for the generic O(r^2) radix butterflies and still
// catches any wrong index or twiddle (which gives an error of order 1).
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <catch2/catch.hpp>

#include <cmath>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fft/convolution.h"
#include "fft/convolution_index.h"
#include "fft/convolution_reference.h"
#include "fft/kernels/fixed_radices.h"
#include "fft/kernels/stockham.h"
#include "fft/planner.h"
#include "fft/stockham_reference.h"
#include "fft/tuning.h"
#include "fft/twiddle.h"

namespace fft = idgpu::fft;
using Complex = std::complex<double>;
using ComplexL = std::complex<long double>;

namespace {

constexpr double kTolerance = 1e-13;
constexpr long long kMaxPowerOfTwo = 1LL << 27;

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = Catch::rngSeed() != 0 ? Catch::rngSeed() : 20240612u;
    std::cout << "fft stockham tests: base seed " << s << " (rerun with --rng-seed " << s << ")\n";
    return s;
  }();
  return seed;
}

// Random complex values in [-1, 1)^2, never exactly zero.
std::vector<Complex> random_input(std::size_t count, std::uint64_t salt) {
  std::mt19937_64 engine(base_seed() * 0x9e3779b97f4a7c15ull + salt);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Complex> values(count);
  for (Complex& value : values) {
    do value = {uniform(engine), uniform(engine)};
    while (value == Complex(0.0, 0.0));
  }
  return values;
}

std::vector<Complex> poisoned(std::size_t count) {
  return std::vector<Complex>(count, Complex(std::numeric_limits<double>::quiet_NaN(),
                                             std::numeric_limits<double>::quiet_NaN()));
}

// Naive DFT of `batch` contiguous transforms in long double, exponents reduced mod n.
std::vector<ComplexL> naive_dft(const std::vector<Complex>& x, long long n, long long batch, int sign) {
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<ComplexL> roots(static_cast<std::size_t>(n));
  for (long long e = 0; e < n; ++e) {
    const long double angle = 2.0L * pi * static_cast<long double>(e) / static_cast<long double>(n);
    roots[e] = {std::cos(angle), sign * std::sin(angle)};
  }
  std::vector<ComplexL> result(static_cast<std::size_t>(n * batch));
  for (long long b = 0; b < batch; ++b) {
    for (long long k = 0; k < n; ++k) {
      // Real arithmetic: std::complex<long double>'s operator* goes through the slow, NaN-aware
      // __mulxc3.
      long double re = 0, im = 0;
      long long e = 0;
      for (long long t = 0; t < n; ++t, e = (e + k) % n) {
        const long double a = x[b * n + t].real(), c = x[b * n + t].imag();
        re += roots[e].real() * a - roots[e].imag() * c;
        im += roots[e].real() * c + roots[e].imag() * a;
      }
      result[b * n + k] = {re, im};
    }
  }
  return result;
}

// Recursive radix-2 decimation-in-time FFT in long double (n a power of two); roots[e] =
// exp(sign 2 pi i e / top_n), `step` = top_n / n.
void radix2(const ComplexL* x, std::size_t stride, std::size_t n, ComplexL* out, const std::vector<ComplexL>& roots,
            std::size_t step) {
  if (n == 1) {
    out[0] = x[0];
    return;
  }
  radix2(x, 2 * stride, n / 2, out, roots, 2 * step);
  radix2(x + stride, 2 * stride, n / 2, out + n / 2, roots, 2 * step);
  for (std::size_t k = 0; k < n / 2; ++k) {
    const ComplexL even = out[k];
    const ComplexL odd = roots[k * step] * out[k + n / 2];
    out[k] = even + odd;
    out[k + n / 2] = even - odd;
  }
}

std::vector<ComplexL> radix2_fft(const std::vector<Complex>& x, int sign) {
  const std::size_t n = x.size();
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<ComplexL> roots(n / 2), in(x.begin(), x.end()), out(n);
  for (std::size_t e = 0; e < n / 2; ++e) {
    const long double angle = 2.0L * pi * static_cast<long double>(e) / static_cast<long double>(n);
    roots[e] = {std::cos(angle), sign * std::sin(angle)};
  }
  radix2(in.data(), 1, n, out.data(), roots, 1);
  return out;
}

double relative_error(const std::vector<Complex>& got, const std::vector<ComplexL>& want) {
  long double diff = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    diff += std::norm(ComplexL(got[i]) - want[i]);
    norm += std::norm(want[i]);
  }
  return static_cast<double>(std::sqrt(diff / norm));
}

std::vector<ComplexL> scaled(const std::vector<Complex>& x, long double factor) {
  std::vector<ComplexL> result(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) result[i] = ComplexL(x[i]) * factor;
  return result;
}

// Runs `plan` (sign) on `x` out of place, each of its `batch` transforms of n points checked
// against the long-double radix-2 FFT, then in place; returns both results.
std::pair<std::vector<Complex>, std::vector<Complex>> run_against_radix2(const fft::FftPlan& plan,
                                                                         const std::vector<Complex>& x, long long n,
                                                                         long long batch, int sign) {
  std::vector<Complex> y = poisoned(x.size());
  fft::reference::execute(plan, sign, x.data(), y.data());
  for (long long b = 0; b < batch; ++b) {
    const std::vector<Complex> one(x.begin() + b * n, x.begin() + (b + 1) * n);
    const std::vector<Complex> got(y.begin() + b * n, y.begin() + (b + 1) * n);
    CHECK(relative_error(got, radix2_fft(one, sign)) < kTolerance);
  }
  std::vector<Complex> z = x;
  fft::reference::execute(plan, sign, z.data(), z.data());
  return {std::move(y), std::move(z)};
}

fft::FftPlan must_plan(long long n, long long batch, fft::Precision precision, const fft::DeviceLimits& limits) {
  fft::FftPlanResult result = fft::plan_c2c_1d(n, batch, precision, limits);
  INFO("reason: " << result.reason);
  REQUIRE(result.plan.has_value());
  return *result.plan;
}

// The structural invariants every plan must hold.
void check_plan(const fft::FftPlan& plan, const fft::DeviceLimits& limits) {
  INFO(plan.to_string());
  long long product = 1;
  for (const fft::FftPass& pass : plan.passes) {
    long long radix_product = 1;
    for (int radix : pass.radices) {
      radix_product *= radix;
      bool allowed = false;
      for (int candidate : fft::kFftRadices) allowed = allowed || candidate == radix;
      CHECK(allowed);
    }
    CHECK(radix_product == pass.size);
    CHECK(pass.span_before == product);
    CHECK(pass.sub_transforms * pass.size == plan.n);
    CHECK(pass.in_stride == plan.n / pass.size);
    CHECK(pass.out_stride == pass.span_before);
    CHECK(static_cast<std::size_t>(fft::smem_stride(pass.size, pass.smem_shift)) * plan.element_bytes <=
          limits.shared_bytes_per_block);
    CHECK(pass.shared_bytes == static_cast<std::size_t>(pass.smem_stride) * plan.element_bytes *
                                   static_cast<std::size_t>(pass.transforms_per_block));
    CHECK(pass.shared_bytes <= limits.shared_bytes_per_block);
    CHECK(pass.smem_stride >= fft::smem_stride(pass.size, pass.smem_shift));
    {
      // Each phase of a warp's shared accesses (W = 128 / element bytes lanes) falls on distinct
      // banks, for the kernels' layouts: lane = tr + T tid across the sub-transforms of a column
      // pass, lane = tid + threads tr along those of a single pass, rank tid at offset tid.
      // Checked where a phase holds whole groups (T, or the threads, divide W).
      const long long wavefront = 128 / static_cast<long long>(plan.element_bytes);
      const bool column = pass.sub_transforms > 1;
      const long long per_block = pass.transforms_per_block;
      const long long threads = pass.threads_per_transform;
      const long long group = column ? per_block : threads;
      if (per_block > 1 && group < wavefront && wavefront % group == 0 &&
          (column || per_block * threads >= wavefront)) {
        for (long long phase = 0; phase < 32; phase += wavefront) {
          std::vector<int> lanes_per_bank(static_cast<std::size_t>(wavefront), 0);
          for (long long lane = phase; lane < phase + wavefront; ++lane) {
            const long long tr = column ? lane % per_block : lane / threads;
            const long long tid = column ? lane / per_block : lane % threads;
            ++lanes_per_bank[static_cast<std::size_t>((tr * pass.smem_stride + tid) % wavefront)];
          }
          CHECK(*std::max_element(lanes_per_bank.begin(), lanes_per_bank.end()) == 1);
        }
      }
    }
    CHECK(pass.threads_per_transform >= 1);
    CHECK(pass.transforms_per_block >= 1);
    CHECK(static_cast<long long>(pass.threads_per_transform) * pass.transforms_per_block <=
          std::min(limits.max_threads_per_block, fft::kernel_max_threads(plan.element_bytes)));
    CHECK(pass.blocks * pass.transforms_per_block >= pass.sub_transforms * plan.batch);
    CHECK((pass.blocks - 1) * pass.transforms_per_block < pass.sub_transforms * plan.batch);
    // A block's sub-transforms share one batch entry and one row of the column sides.
    if (pass.sub_transforms > 1) CHECK(pass.sub_transforms % pass.transforms_per_block == 0);
    if (pass.span_before > 1) CHECK(pass.span_before % pass.transforms_per_block == 0);
    // Every stage's butterflies are covered by the threads at butterflies_per_thread(r) each, or,
    // in a widened single pass (fp64 only), at most twice the elements a thread (the sequences'
    // largest widened stage, 10000's radix 16, takes 32).
    for (int radix : pass.radices) {
      const int per_thread = pass.widened_limit > 0
                                 ? fft::stage_butterflies_per_thread(radix, static_cast<int>(pass.size / radix),
                                                                     pass.threads_per_transform)
                                 : fft::butterflies_per_thread(radix);
      CHECK(static_cast<long long>(pass.threads_per_transform) * per_thread >= pass.size / radix);
      CHECK(per_thread * radix <= (pass.widened_limit > 0 ? 2 : 1) * fft::kMaxElementsPerThread);
    }
    if (pass.widened_limit > 0) {
      CHECK(plan.element_bytes == 16);
      CHECK(pass.widened_limit == 512);
      CHECK(pass.sub_transforms == 1);
      CHECK(pass.span_before == 1);
      CHECK(pass.threads_per_transform > 512 / 2);  // widened because 512 did not hold them
    }
    if (pass.span_before > 1) {
      // The inter-pass exponents t j < L N split into lo and hi halves of the tables.
      CHECK((1LL << (2 * pass.twiddle_lo_bits)) >= pass.span_before * pass.size);
    }
    product *= pass.size;
  }
  CHECK(product == plan.n);
}

// Smallest P with max_size^P >= n: the fewest passes any split can have.
int pass_lower_bound(long long n, long long max_size) {
  int passes = 1;
  for (long long reach = max_size; reach < n; reach *= max_size) ++passes;
  return passes;
}

// Limits under which sub-transforms hold at most `max_size` fp32 elements.
fft::DeviceLimits small_limits(long long max_size) {
  fft::DeviceLimits limits = fft::DeviceLimits::h100();
  limits.shared_bytes_per_block = static_cast<std::size_t>(fft::smem_stride(max_size, fft::smem_shift(8))) * 8;
  return limits;
}

// Runs `plan` forward and inverse on random input; checks both against the naive DFT and the round
// trip against n x.
void check_against_naive(const fft::FftPlan& plan, std::uint64_t salt) {
  INFO(plan.to_string());
  const std::size_t total = static_cast<std::size_t>(plan.n * plan.batch);
  const std::vector<Complex> x = random_input(total, salt);
  for (int sign : {-1, +1}) {
    CAPTURE(sign);
    std::vector<Complex> y = poisoned(total);
    fft::reference::execute(plan, sign, x.data(), y.data());
    CHECK(relative_error(y, naive_dft(x, plan.n, plan.batch, sign)) < kTolerance);
    std::vector<Complex> back = poisoned(total);
    fft::reference::execute(plan, -sign, y.data(), back.data());
    CHECK(relative_error(back, scaled(x, static_cast<long double>(plan.n))) < kTolerance);
    // In place: the same results through the in-place buffer turns.
    std::vector<Complex> z = x;
    fft::reference::execute(plan, sign, z.data(), z.data());
    CHECK(z == y);
  }
}

}  // namespace

TEST_CASE("twiddles are exact at quarter turns and accurate elsewhere", "[fft][planner][cpu]") {
  using fft::reference::twiddle;
  CHECK(twiddle(0, 7, -1) == Complex(1, 0));
  CHECK(twiddle(1, 4, -1) == Complex(0, -1));
  CHECK(twiddle(1, 4, +1) == Complex(0, 1));
  CHECK(twiddle(2, 4, -1) == Complex(-1, 0));
  CHECK(twiddle(3, 4, -1) == Complex(0, 1));
  CHECK(twiddle(5, 4, -1) == Complex(0, -1));
  CHECK(twiddle(-1, 4, -1) == Complex(0, 1));
  CHECK(twiddle(1LL << 40, 1LL << 42, +1) == Complex(0, 1));
  const long double pi = 3.141592653589793238462643383279502884L;
  for (long long d : {3LL, 5LL, 12LL, 1000LL, 1LL << 27}) {
    for (long long e : {1LL, d / 3, d / 2 + 1, d - 1, 7 * d + 5}) {
      CAPTURE(d, e);
      const long double angle = 2 * pi * static_cast<long double>(e % d) / static_cast<long double>(d);
      const Complex w = twiddle(e, d, -1);
      CHECK(std::abs(ComplexL(w) - ComplexL(std::cos(angle), -std::sin(angle))) < 2e-16L);
    }
  }
}

// The fp64 plans' tables (twiddle_nearest): the double nearest each w_d^e, checked against another
// long double evaluation (the nearest quarter turn k and a signed remainder, w = i^-k (cos a - i sin
// a), |a| <= pi / 4): the two may round apart only where the value is within long double's error
// of a halfway point, so at most 1 ulp and rarely. The double evaluation (twiddle, the fp32 plans')
// is not the nearest for most entries.
TEST_CASE("twiddle_nearest: the nearest double to every twiddle", "[fft][planner][cpu]") {
  const long double half_pi = 1.57079632679489661923132169163975144L;
  const auto ulp = [](double x) { return std::nextafter(std::fabs(x), 2.0) - std::fabs(x); };
  long long entries = 0, apart = 0, double_apart = 0, double_far = 0;
  for (long long d : {3LL, 7LL, 60LL, 1000LL, 3773LL, 4096LL, 65536LL, 1LL << 24}) {
    const long long step = d > 100000 ? 97 : 1;
    for (long long e = 0; e < d; e += step) {
      const long long k = (8 * e + d) / (2 * d);  // the nearest quarter turn, 0..4
      const long long r = 4 * e - k * d;          // |r| <= d / 2
      const long double a = half_pi * static_cast<long double>(r) / static_cast<long double>(d);
      const std::complex<long double> turn[4] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};  // i^-k
      const std::complex<long double> exact = turn[k % 4] * std::complex<long double>(std::cos(a), -std::sin(a));
      const double c = static_cast<double>(exact.real()), s = static_cast<double>(exact.imag());
      const Complex w = fft::twiddle_nearest(e, d, -1);
      CAPTURE(d, e);
      REQUIRE(std::fabs(w.real() - c) <= ulp(c));
      REQUIRE(std::fabs(w.imag() - s) <= ulp(s));
      apart += (w.real() != c || w.imag() != s) ? 1 : 0;
      const Complex v = fft::twiddle(e, d, -1);
      double_apart += (v.real() != c || v.imag() != s) ? 1 : 0;
      double_far += (std::fabs(v.real() - c) > 1.5 * ulp(c) || std::fabs(v.imag() - s) > 1.5 * ulp(s)) ? 1 : 0;
      ++entries;
    }
    CHECK(fft::twiddle_nearest(d, d, +1) == Complex(1, 0));
    CHECK(fft::twiddle_nearest(-1, d, +1) == std::conj(fft::twiddle_nearest(1, d, +1)));
  }
  CAPTURE(entries, apart, double_apart, double_far);
  CHECK(apart * 1000 < entries);        // halfway cases only
  CHECK(double_apart * 4 > entries);    // what the fp64 tables took before
  CHECK(double_far * 10 > entries);
  CHECK(fft::twiddle_nearest(1, 3, -1).real() == -0.5);
  // The tables: fp64's nearest, fp32's the double evaluation.
  fft::FftPass pass;
  pass.size = 60;
  pass.radices = {5, 4, 3};
  pass.span_before = 7;
  pass.sub_transforms = 1;
  pass.twiddle_lo_bits = 5;
  const std::vector<Complex> fast = fft::pass_twiddles(pass, true, false);
  const std::vector<Complex> exact = fft::pass_twiddles(pass, true, true);
  REQUIRE(fast.size() == exact.size());
  const fft::TwiddleLayout layout = fft::twiddle_layout(pass, true);
  REQUIRE(layout.lo_count > 0);
  CHECK(exact[layout.lo + 1] == fft::twiddle_nearest(1, 7 * 60, -1));
  CHECK(fast[layout.lo + 1] == fft::twiddle(1, 7 * 60, -1));
  int differ = 0;
  for (std::size_t i = 0; i < fast.size(); ++i) {
    CHECK(std::abs(fast[i] - exact[i]) < 1e-15);
    differ += fast[i] != exact[i] ? 1 : 0;
  }
  CHECK(differ > 0);
}

TEST_CASE("planner: powers of two up to 2^27 under H100 limits", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  // fp32: a padded buffer of 2^14 elements (139 KB) and 1024 threads fit one block, 2^15 do not:
  // 2^14 in one pass, 2^28 in two. fp64: 2^13 (147 KB, 512 threads) in one pass, 2^26 in two.
  for (auto precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    const int one_pass_bits = precision == fft::Precision::kSingle ? 14 : 13;
    for (int bits = 1; bits <= 27; ++bits) {
      const long long n = 1LL << bits;
      CAPTURE(bits, static_cast<int>(precision));
      const fft::FftPlan plan = must_plan(n, 1, precision, h100);
      check_plan(plan, h100);
      // 2^14..2^16 are cluster plans: two passes in one kernel (checked below).
      const bool cluster = bits >= fft::kClusterMinBits && bits <= fft::kClusterMaxBits;
      CHECK(plan.cluster.has_value() == cluster);
      const int expected = cluster || (bits > one_pass_bits && bits <= 2 * one_pass_bits) ? 2
                           : bits <= one_pass_bits                                       ? 1
                                                                                         : 3;
      CHECK(static_cast<int>(plan.passes.size()) == expected);
      // Balanced: every pass at least 2^floor(bits / passes), one bit less where a fused plan
      // moves off a 2^9 pass (fft/planner.cpp).
      const int slack = plan.fused ? 1 : 0;
      for (const fft::FftPass& pass : plan.passes) CHECK(pass.size >= (1LL << (bits / expected - slack)));
      CHECK(plan.work_bytes == (expected <= 2 ? 0 : static_cast<std::size_t>(n) * plan.element_bytes));
    }
  }
  // A small batch is spread over every SM; a large one keeps about 256 threads per block.
  for (long long n : {16LL, 64LL, 1024LL}) {
    CAPTURE(n);
    const fft::FftPlan few = must_plan(n, 1000, fft::Precision::kSingle, h100);
    CHECK((few.passes[0].blocks >= h100.multiprocessors || few.passes[0].transforms_per_block == 1));
    const fft::FftPlan many = must_plan(n, 1LL << 20, fft::Precision::kSingle, h100);
    CHECK(many.passes[0].threads_per_transform * many.passes[0].transforms_per_block == 256);
  }
  const fft::FftPlan largest = must_plan(kMaxPowerOfTwo, 1, fft::Precision::kSingle, h100);
  INFO(largest.to_string());
  CHECK(largest.passes.size() == 2);
  // Column passes get rows of at least one 32-byte sector where the divisors allow it.
  const fft::FftPlan two_20 = must_plan(1LL << 20, 64, fft::Precision::kSingle, h100);
  for (const fft::FftPass& pass : two_20.passes) CHECK(pass.transforms_per_block * 8 >= 32);
}

TEST_CASE("planner: cluster plans and their exchange", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  for (auto precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (int bits = fft::kClusterMinBits; bits <= fft::kClusterMaxBits; ++bits) {
      const long long n = 1LL << bits;
      CAPTURE(bits, static_cast<int>(precision));
      const fft::FftPlan plan = must_plan(n, 3, precision, h100);
      INFO(plan.to_string());
      REQUIRE(plan.cluster.has_value());
      REQUIRE(plan.passes.size() == 2);
      const fft::FftCluster& c = *plan.cluster;
      const long long size_a = plan.passes[0].size;
      const long long size_b = plan.passes[1].size;
      CHECK(size_a == 1LL << fft::cluster_bits_a(bits));
      CHECK(size_a * size_b == n);
      CHECK(c.rank_bits == bits - 12);  // 4096 points per block
      CHECK(c.threads == 256);
      CHECK(plan.work_bytes == 0);
      const int ranks = 1 << c.rank_bits;
      CHECK(ranks <= 16);  // the largest cluster sm_90 allows
      const long long columns = size_b / ranks;
      const long long rows = size_a / ranks;
      // Both stages fill the block at 16 elements per thread, and both buffers fit it.
      CHECK(columns * size_a / fft::kMaxElementsPerThread == c.threads);
      CHECK(rows * size_b / fft::kMaxElementsPerThread == c.threads);
      const int shift = plan.passes[0].smem_shift;
      CHECK(c.stride_a >= fft::smem_stride(size_a, shift));
      CHECK(c.stride_b >= fft::smem_stride(size_b, shift));
      CHECK(c.shared_bytes == static_cast<std::size_t>(std::max(columns * c.stride_a, rows * c.stride_b)) *
                                  plan.element_bytes);
      CHECK(c.shared_bytes <= h100.shared_bytes_per_block);
      // The exchange is a bijection from the n intermediate values onto the blocks' stage-B
      // slots, and lands each where stage B reads it: row k2 mod TB, element n1.
      int rows_log2 = 0;
      while ((1LL << rows_log2) < rows) ++rows_log2;
      fft::PassShape shape_b = fft::pass_shape(plan, plan.passes[1]);
      shape_b.per_block = static_cast<int>(rows);
      shape_b.smem_stride = c.stride_b;
      std::vector<char> taken(static_cast<std::size_t>(ranks) * (c.shared_bytes / plan.element_bytes), 0);
      bool all_in_place = true;
      std::size_t collisions = 0;
      for (int n1 = 0; n1 < size_b; ++n1) {
        for (int k2 = 0; k2 < size_a; ++k2) {
          const int rank = fft::cluster_exchange_rank(k2, rows_log2);
          const int slot = fft::cluster_exchange_slot(k2, n1, rows_log2, c.stride_b, shift);
          all_in_place = all_in_place && rank == k2 / rows && slot == fft::smem_index(shape_b, k2 % rows, n1);
          char& mark = taken[static_cast<std::size_t>(rank) * (c.shared_bytes / plan.element_bytes) +
                             static_cast<std::size_t>(slot)];
          collisions += mark;
          mark = 1;
        }
      }
      CHECK(all_in_place);
      CHECK(collisions == 0);
    }
  }
  // Without clusters (sm_80) the same lengths are ordinary plans: 2^14 fp32 in one pass.
  fft::DeviceLimits a100 = h100;
  a100.clusters = false;
  const fft::FftPlan single = must_plan(1LL << 14, 1, fft::Precision::kSingle, a100);
  CHECK_FALSE(single.cluster.has_value());
  CHECK(single.passes.size() == 1);
  CHECK_FALSE(must_plan(1LL << 15, 1, fft::Precision::kDouble, a100).cluster.has_value());
  // Outside 2^14..2^16, and for other than powers of two, no cluster.
  CHECK_FALSE(must_plan(1LL << 13, 1, fft::Precision::kSingle, h100).cluster.has_value());
  CHECK_FALSE(must_plan(1LL << 17, 1, fft::Precision::kSingle, h100).cluster.has_value());
  CHECK_FALSE(must_plan(3LL << 13, 1, fft::Precision::kSingle, h100).cluster.has_value());
}

TEST_CASE("fused schedule: every tile once, each last-pass tile after its transform's first pass", "[fft][planner][cpu]") {
  for (long long batch : {1LL, 2LL, 3LL, 7LL, 64LL}) {
    for (int a : {1, 3, 16}) {
      for (int b : {1, 5, 16}) {
        for (int lag : {1, 2, 3, 100}) {
          CAPTURE(batch, a, b, lag);
          const fft::FusedSchedule schedule{batch, a, b, lag};
          const long long tickets = fft::fused_tickets(schedule);
          REQUIRE(tickets == batch * (a + b));
          std::vector<int> seen(static_cast<std::size_t>(tickets), 0);
          std::vector<int> first_done(static_cast<std::size_t>(batch), 0);
          std::vector<int> last_done(static_cast<std::size_t>(batch), 0);
          long long next_first = 0;  // first-pass tiles come transform after transform
          const long long lead = std::min<long long>(lag, batch);
          bool ordered = true, complete = true, bounded = true, in_range = true;
          for (long long ticket = 0; ticket < tickets; ++ticket) {
            int pass = -1, tile = -1;
            long long transform = -1;
            fft::fused_tile(schedule, ticket, &pass, &transform, &tile);
            const int tiles = pass == 0 ? a : b;
            if ((pass != 0 && pass != 1) || transform < 0 || transform >= batch || tile < 0 || tile >= tiles) {
              in_range = false;
              continue;
            }
            ++seen[static_cast<std::size_t>(transform * (a + b) + (pass == 0 ? 0 : a) + tile)];
            if (pass == 0) {
              if (first_done[static_cast<std::size_t>(transform)] == a) ordered = false;
              if (transform != next_first) ordered = false;
              if (++first_done[static_cast<std::size_t>(transform)] == a) ++next_first;
            } else {
              complete = complete && first_done[static_cast<std::size_t>(transform)] == a;
              ++last_done[static_cast<std::size_t>(transform)];
            }
            // Transforms with a first-pass tile taken and a last-pass tile not yet taken: at most
            // lag + 1 (the L2 footprint the lag is chosen for).
            long long open = 0;
            for (long long t = 0; t < batch; ++t) {
              open += first_done[static_cast<std::size_t>(t)] > 0 && last_done[static_cast<std::size_t>(t)] < b;
            }
            bounded = bounded && open <= lead + 1;
          }
          CHECK(in_range);
          CHECK(ordered);
          CHECK(complete);
          CHECK(bounded);
          CHECK(std::all_of(seen.begin(), seen.end(), [](int count) { return count == 1; }));
        }
      }
    }
  }
}

TEST_CASE("planner: fused plans for the two-pass powers of two", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  for (auto precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    const bool single = precision == fft::Precision::kSingle;
    for (int bits = 4; bits <= 27; ++bits) {
      const long long n = 1LL << bits;
      const long long batch = std::max(1LL, (1LL << 26) / n);
      CAPTURE(bits, static_cast<int>(precision), batch);
      const fft::FftPlan plan = must_plan(n, batch, precision, h100);
      INFO(plan.to_string());
      // Fused: every two-pass plan that is not a cluster one, up to 16 MB per transform (fp32
      // 2^21, fp64 2^20).
      const bool expected = plan.passes.size() == 2 && !plan.cluster && bits <= (single ? 21 : 20);
      CHECK(plan.fused.has_value() == expected);
      if (!plan.fused) continue;
      // No 2^9 pass beside a pass of another length (their fused kernel spills).
      const long long first = plan.passes[0].size, last = plan.passes[1].size;
      CHECK((first == last || (first != 512 && last != 512)));
      const fft::FftFused& fused = *plan.fused;
      CHECK(fused.threads == fft::fused_threads(plan.element_bytes));
      REQUIRE(fused.passes.size() == 2);
      std::size_t shared = 0;
      for (std::size_t i = 0; i < 2; ++i) {
        const fft::FftPass& mine = fused.passes[i];
        const fft::FftPass& planned = plan.passes[i];
        // The same pass, only its blocks cut differently.
        CHECK(mine.size == planned.size);
        CHECK(mine.radices == planned.radices);
        CHECK(mine.span_before == planned.span_before);
        CHECK(mine.threads_per_transform == planned.threads_per_transform);
        CHECK(mine.twiddle_lo_bits == planned.twiddle_lo_bits);
        CHECK(mine.threads_per_transform * mine.transforms_per_block == fused.threads);
        CHECK(mine.sub_transforms % mine.transforms_per_block == 0);
        CHECK(mine.blocks * mine.transforms_per_block == mine.sub_transforms * batch);
        shared = std::max(shared, mine.shared_bytes);
      }
      CHECK(fused.shared_bytes == shared);
      CHECK(fused.first_tiles * fused.passes[0].transforms_per_block == fused.passes[0].sub_transforms);
      CHECK(fused.last_tiles * fused.passes[1].transforms_per_block == fused.passes[1].sub_transforms);
      // The fused passes hold every invariant of a plan's passes.
      fft::FftPlan as_run = plan;
      as_run.passes = fused.passes;
      as_run.fused.reset();
      check_plan(as_run, h100);
    }
  }
  // Not fused: mixed sizes, batches beyond the counters, devices without the kernel.
  CHECK_FALSE(must_plan(3LL << 18, 4, fft::Precision::kSingle, h100).fused.has_value());
  const fft::FftPlan many = must_plan(1LL << 17, fft::kFusedMaxBatch + 1, fft::Precision::kSingle, h100);
  CHECK_FALSE(many.fused.has_value());
  CHECK(many.passes[0].size * 2 == many.passes[1].size);  // the balanced split, 2^8 x 2^9
  CHECK_FALSE(must_plan(1LL << 22, 2, fft::Precision::kSingle, h100).fused.has_value());
  fft::DeviceLimits without = h100;
  without.fused = false;
  CHECK_FALSE(must_plan(1LL << 20, 4, fft::Precision::kSingle, without).fused.has_value());
}

TEST_CASE("planner: mixed radices up to 2^27", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  // 16 elements per thread and 1024 threads: no pass exceeds 2^14 in fp32.
  const long long max_size = 1LL << 14;
  const std::vector<long long> sizes = {
      2, 3, 5, 6, 7, 11, 12, 13, 100, 143, 243, 1000, 2187, 3125, 6561, 10000, 14336, 14641, 15625, 28561,
      59049, 78125, 117649, 1000000, 1594323, 1953125, 3 * (1LL << 20), 11LL * 13 * 16 * 7 * 5 * 9 * 64,
      13LL * 13 * 13 * 13 * 13 * 13, 100000000, 3LL * (1LL << 25), 2LL * 3 * 5 * 7 * 11 * 13 * 16 * 81,
      129140163};
  for (long long n : sizes) {
    CAPTURE(n);
    const fft::FftPlan plan = must_plan(n, 2, fft::Precision::kSingle, h100);
    check_plan(plan, h100);
    // Never more than one pass above the bound no factorization can beat (the split needs
    // 13-smooth factors that fit the threads, so it can miss max_size^P by a small factor).
    const int bound = pass_lower_bound(n, max_size);
    CHECK(static_cast<int>(plan.passes.size()) >= bound);
    CHECK(static_cast<int>(plan.passes.size()) <= bound + 1);
  }
  // Exact pass counts where the split is forced.
  CHECK(must_plan(12288, 1, fft::Precision::kSingle, h100).passes.size() == 1);       // 3 2^12: 820 threads
  CHECK(must_plan(14336, 1, fft::Precision::kSingle, h100).passes.size() == 2);       // 7 2^11: 2048 threads
  CHECK(must_plan(14641, 1, fft::Precision::kSingle, h100).passes.size() == 2);       // 11^4: 1331 threads
  CHECK(must_plan(1000000, 1, fft::Precision::kSingle, h100).passes.size() == 2);     // 1000 x 1000
  CHECK(must_plan(100000000, 1, fft::Precision::kSingle, h100).passes.size() == 2);   // 10^4 x 10^4
  CHECK(must_plan(129140163, 1, fft::Precision::kSingle, h100).passes.size() == 3);   // 3^17: 3^9 needs 1313
  CHECK(must_plan(3LL << 25, 1, fft::Precision::kSingle, h100).passes.size() == 2);   // 2^13 x 3 2^12
}

TEST_CASE("planner: buffer turns never make a pass write what it reads", "[fft][planner][cpu]") {
  using fft::Buffer;
  for (std::size_t passes = 1; passes <= 6; ++passes) {
    for (bool in_place : {false, true}) {
      CAPTURE(passes, in_place);
      const std::vector<fft::PassBuffers> turns = fft::pass_buffers(passes, in_place);
      REQUIRE(turns.size() == passes);
      CHECK(turns.front().from == Buffer::kInput);
      CHECK(turns.back().to == Buffer::kOutput);
      // In place, input and output are one buffer.
      const auto same = [in_place](Buffer a, Buffer b) {
        const auto canon = [in_place](Buffer x) { return in_place && x == Buffer::kInput ? Buffer::kOutput : x; };
        return canon(a) == canon(b);
      };
      for (std::size_t i = 0; i < passes; ++i) {
        if (i > 0) CHECK(turns[i].from == turns[i - 1].to);
        CHECK(turns[i].to != Buffer::kInput);
        // Only the last pass may run in place (its blocks read and write the same elements).
        if (i + 1 < passes) CHECK_FALSE(same(turns[i].from, turns[i].to));
      }
    }
  }
  // Two passes out of place need no work area.
  for (const fft::PassBuffers& turn : fft::pass_buffers(2, false)) {
    CHECK(turn.from != Buffer::kWork);
    CHECK(turn.to != Buffer::kWork);
  }
}

TEST_CASE("twiddle tables: layout and the lo x hi split", "[fft][planner][cpu]") {
  const fft::FftPlan plan = must_plan(3LL << 20, 1, fft::Precision::kSingle, fft::DeviceLimits::h100());
  INFO(plan.to_string());
  REQUIRE(plan.passes.size() == 2);
  const fft::FftPass& first = plan.passes[0];
  const fft::TwiddleLayout first_layout = fft::twiddle_layout(first);
  CHECK(first_layout.stage_count == static_cast<std::size_t>(first.size - 1));
  CHECK(first_layout.lo_count == 0);
  CHECK(first_layout.hi_count == 0);
  const fft::FftPass& second = plan.passes[1];
  const fft::TwiddleLayout layout = fft::twiddle_layout(second);
  const std::vector<Complex> table = fft::pass_twiddles(second);
  REQUIRE(table.size() == layout.total);
  const long long m = second.span_before * second.size;
  std::mt19937_64 engine(base_seed());
  std::uniform_int_distribution<long long> exponent(0, m - 1);
  for (int trial = 0; trial < 2000; ++trial) {
    const long long e = trial < 3 ? (trial == 0 ? 0 : trial == 1 ? m - 1 : m / 4) : exponent(engine);
    CAPTURE(e, m);
    const Complex w = table[layout.lo + static_cast<std::size_t>(e & ((1LL << second.twiddle_lo_bits) - 1))] *
                      table[layout.hi + static_cast<std::size_t>(e >> second.twiddle_lo_bits)];
    CHECK(std::abs(w - fft::twiddle(e, m, -1)) < 8e-16);  // two roundings of unit values: a few eps
  }
  // Stage-major stage twiddles: every (stage, t, j) once, each w_{l r}^{t j}, N - 1 in all.
  std::vector<int> seen(layout.stage_count, 0);
  int offset = 0;
  int span = 1;
  for (int radix : second.radices) {
    for (int t = 1; t < radix; ++t) {
      for (int j = 0; j < span; ++j) {
        const int index = fft::stage_twiddle_index(offset, span, t, j);
        REQUIRE(index >= 0);
        REQUIRE(static_cast<std::size_t>(index) < layout.stage_count);
        ++seen[static_cast<std::size_t>(index)];
        CHECK(table[layout.stage + static_cast<std::size_t>(index)] ==
              fft::twiddle(static_cast<long long>(t) * j, static_cast<long long>(span) * radix, -1));
      }
    }
    offset = fft::next_stage_twiddle_offset(offset, span, radix);
    span *= radix;
  }
  CHECK(static_cast<std::size_t>(offset) == layout.stage_count);
  CHECK(std::all_of(seen.begin(), seen.end(), [](int count) { return count == 1; }));
}

TEST_CASE("planner: no plan for unsupported lengths and precisions", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  for (long long n : {0LL, 1LL, 17LL, 19LL, 23LL, 34LL, 17LL * 1024, 19LL * 3 * 5, 23LL * 1000000, 29LL, 31LL * 64,
                      (1LL << 26) * 17}) {
    CAPTURE(n);
    const fft::FftPlanResult result = fft::plan_c2c_1d(n, 1, fft::Precision::kSingle, h100);
    CHECK_FALSE(result.plan.has_value());
    CHECK_FALSE(result.reason.empty());
  }
  CHECK_FALSE(fft::plan_c2c_1d(64, 1, fft::Precision::kHalf, h100).plan.has_value());
  CHECK_FALSE(fft::plan_c2c_1d(64, 0, fft::Precision::kSingle, h100).plan.has_value());
  // 16 fp64 elements per thread need 64 registers, more than half of 100.
  fft::DeviceLimits few_registers = h100;
  few_registers.registers_per_thread = 100;
  CHECK_FALSE(fft::plan_c2c_1d(256, 1, fft::Precision::kDouble, few_registers).plan.has_value());
  CHECK(fft::plan_c2c_1d(256, 1, fft::Precision::kSingle, few_registers).plan.has_value());
  // Shared memory too small for even a radix-2 sub-transform.
  CHECK_FALSE(fft::plan_c2c_1d(64, 1, fft::Precision::kSingle, small_limits(1)).plan.has_value());
  // 13 cannot be split below 13.
  CHECK_FALSE(fft::plan_c2c_1d(13 * 4, 1, fft::Precision::kSingle, small_limits(8)).plan.has_value());
}

TEST_CASE("executor: one pass against the naive DFT", "[fft][executor][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const std::vector<long long> sizes = {2,   3,   4,   5,   6,   7,   8,   9,    10,   11,   12,   13,   15,  16,
                                        30,  32,  49,  60,  64,  77,  100, 121,  128,  143,  169,  210,  243, 256,
                                        343, 500, 512, 625, 729, 1000, 1001, 1024, 1331, 2048, 2187, 2197, 4096};
  std::uint64_t salt = 0;
  for (long long n : sizes) {
    const long long batch = 1 + static_cast<long long>(salt % 3);
    CAPTURE(n, batch);
    const fft::FftPlan plan = must_plan(n, batch, fft::Precision::kDouble, h100);
    REQUIRE(plan.passes.size() == 1);
    check_against_naive(plan, ++salt);
  }
}

// The fixed sequences whose fp64 pass needs more threads than a block's 512 at
// butterflies_per_thread(r) take more butterflies a thread in the stages that need them
// (sequence_threads); the executor runs them with the kernel's threads and butterflies a thread.
TEST_CASE("executor: fp64 widened fixed-sequence passes against the naive DFT", "[fft][executor][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  struct Case {
    long long n;
    int threads;                  // under fp64's 512 threads a block
    std::vector<int> per_thread;  // butterflies a thread, stage by stage (the kernel's loop bounds)
  };
  // Worked by hand: 3850 = 11 7 5 5 2 needs 550 threads at one radix-7 butterfly a thread; two
  // bring it to 350 (the radix-11 stage's); 4004 = 13 11 7 4: 572 -> 364; 4095 = 13 9 7 5: 585 ->
  // 455 (radix 9); 6561 = 9^4: 729 -> 365 (two radix-9 butterflies in every stage); 10000 = 16 5^4:
  // 625 radix-16 and 667 radix-5 threads -> two and four a thread, 500.
  const std::vector<Case> cases = {{3850, 350, {1, 2, 3, 3, 8}},
                                   {4004, 364, {1, 1, 2, 4}},
                                   {4095, 455, {1, 1, 2, 3}},
                                   {6561, 365, {2, 2, 2, 2}},
                                   {10000, 500, {2, 4, 4, 4, 4}}};
  std::uint64_t salt = 500;
  for (const Case& c : cases) {
    CAPTURE(c.n);
    const fft::FftPlan plan = must_plan(c.n, 1, fft::Precision::kDouble, h100);
    INFO(plan.to_string());
    check_plan(plan, h100);
    REQUIRE(plan.passes.size() == 1);
    const fft::FftPass& pass = plan.passes[0];
    CHECK(pass.threads_per_transform == c.threads);
    CHECK(pass.widened_limit == 512);
    CHECK(plan.to_string().find("stages widened to 512 threads a block") != std::string::npos);
    REQUIRE(pass.radices.size() == c.per_thread.size());
    for (std::size_t st = 0; st < pass.radices.size(); ++st) {
      const int radix = pass.radices[st];
      CAPTURE(radix);
      CHECK(fft::stage_butterflies_per_thread(radix, static_cast<int>(c.n / radix), c.threads) == c.per_thread[st]);
    }
    check_against_naive(plan, ++salt);
    // fp32 keeps the plain threads (at most 1024): no stage widens.
    const fft::FftPlan single = must_plan(c.n, 1, fft::Precision::kSingle, h100);
    REQUIRE(single.passes.size() == 1);
    CHECK(single.passes[0].widened_limit == 0);
  }
  // A device limit below the kernels' 512 leaves the widened pass out (the kernel's stages are
  // compiled for 512) rather than plan threads no kernel covers.
  fft::DeviceLimits narrow = h100;
  narrow.max_threads_per_block = 256;
  const fft::FftPlanResult narrowed = fft::plan_c2c_1d(4095, 1, fft::Precision::kDouble, narrow);
  REQUIRE(narrowed.plan.has_value());
  CHECK(narrowed.plan->passes.size() == 2);
  for (const fft::FftPass& pass : narrowed.plan->passes) CHECK(pass.widened_limit == 0);
  // Only single passes widen: a two-pass plan's sizes are those of the plain threads (3^16 =
  // 6561^2 would otherwise be one split), and a multi-dimensional axis does not widen.
  const fft::FftPlanResult two = fft::plan_c2c_1d(43046721, 1, fft::Precision::kDouble, h100);
  REQUIRE(two.plan.has_value());
  for (const fft::FftPass& pass : two.plan->passes) {
    CHECK(pass.widened_limit == 0);
    CHECK(pass.size != 6561);
  }
  const long long dims[2] = {4095, 4095};
  const fft::FftPlanResult plane = fft::plan_c2c(2, dims, 1, fft::Precision::kDouble, h100);
  CHECK_FALSE(plane.plan.has_value());
  CHECK(plane.reason.find("widened") != std::string::npos);
  // A real transform's half widens as a complex single pass does (D2Z 8190, half 4095).
  const fft::FftPlanResult real = fft::plan_real_1d(fft::Kind::kR2C, 8190, 4, fft::Precision::kDouble, h100);
  REQUIRE(real.plan.has_value());
  REQUIRE(real.plan->passes.size() == 1);
  CHECK(real.plan->passes[0].widened_limit == 512);
  CHECK(real.plan->passes[0].threads_per_transform == 455);
}

TEST_CASE("executor: two and three passes (small shared memory) against the naive DFT", "[fft][executor][cpu]") {
  struct Case {
    long long n;
    long long max_size;
    std::size_t passes;
  };
  const std::vector<Case> cases = {
      {64, 16, 2},   {100, 16, 2},  {256, 16, 2},   {240, 16, 2},   {4096, 64, 2},  {3125, 125, 2},
      {2401, 64, 2}, {1000, 16, 3}, {4096, 16, 3},  {2310, 16, 3},  {1728, 16, 3},  {2197, 16, 3},
      {512, 8, 3},   {729, 9, 3},   {1331, 11, 3},  {4096, 8, 4},   {3003, 13, 4},  {4096, 4, 6}};
  std::uint64_t salt = 1000;
  for (const Case& c : cases) {
    const long long batch = 1 + static_cast<long long>(salt % 3);
    CAPTURE(c.n, c.max_size, batch);
    const fft::DeviceLimits limits = small_limits(c.max_size);
    const fft::FftPlan plan = must_plan(c.n, batch, fft::Precision::kSingle, limits);
    check_plan(plan, limits);
    INFO(plan.to_string());
    REQUIRE(plan.passes.size() == c.passes);
    check_against_naive(plan, ++salt);
  }
}

TEST_CASE("executor: 2^20 in two passes against a long-double radix-2 FFT", "[fft][executor][cpu]") {
  const long long n = 1LL << 20;
  const fft::FftPlan plan = must_plan(n, 1, fft::Precision::kSingle, fft::DeviceLimits::h100());
  INFO(plan.to_string());
  REQUIRE(plan.passes.size() == 2);
  const std::vector<Complex> x = random_input(static_cast<std::size_t>(n), 777);
  std::vector<Complex> y = poisoned(x.size());
  fft::reference::execute(plan, -1, x.data(), y.data());
  CHECK(relative_error(y, radix2_fft(x, -1)) < kTolerance);
  std::vector<Complex> back = poisoned(x.size());
  fft::reference::execute(plan, +1, y.data(), back.data());
  CHECK(relative_error(back, scaled(x, static_cast<long double>(n))) < kTolerance);
}

TEST_CASE("executor: fused plans in ticket order against a long-double radix-2 FFT", "[fft][executor][cpu]") {
  // Out of place the tiles run in the kernel's ticket order, the first pass into the (poisoned)
  // output and the last pass in place there; a tile reading an element no earlier tile wrote
  // spoils the result. In place the passes run as two launches; both must give the same bits.
  std::uint64_t salt = 3000;
  for (auto precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (int bits : {17, 18, 19}) {
      const long long n = 1LL << bits;
      const long long batch = bits == 17 ? 3 : 1;
      CAPTURE(bits, static_cast<int>(precision), batch);
      const fft::FftPlan plan = must_plan(n, batch, precision, fft::DeviceLimits::h100());
      INFO(plan.to_string());
      REQUIRE(plan.fused.has_value());
      const std::vector<Complex> x = random_input(static_cast<std::size_t>(n * batch), ++salt);
      const int sign = bits % 2 == 0 ? -1 : +1;
      const auto [y, z] = run_against_radix2(plan, x, n, batch, sign);
      CHECK(z == y);
    }
  }
}

TEST_CASE("executor: cluster plans against a long-double radix-2 FFT", "[fft][executor][cpu]") {
  // The kernel's data flow (stage A per column, twiddle, exchange, stage B per row) with the
  // plan's strides; poisoned buffers make a slot the exchange misses spoil the result.
  std::uint64_t salt = 2000;
  for (auto precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (int bits = fft::kClusterMinBits; bits <= fft::kClusterMaxBits; ++bits) {
      const long long n = 1LL << bits;
      const long long batch = bits == fft::kClusterMinBits ? 2 : 1;
      CAPTURE(bits, static_cast<int>(precision), batch);
      const fft::FftPlan plan = must_plan(n, batch, precision, fft::DeviceLimits::h100());
      INFO(plan.to_string());
      REQUIRE(plan.cluster.has_value());
      const std::vector<Complex> x = random_input(static_cast<std::size_t>(n * batch), ++salt);
      const int sign = bits % 2 == 0 ? -1 : +1;
      const auto [y, z] = run_against_radix2(plan, x, n, batch, sign);
      CHECK(z == y);
    }
  }
}

TEST_CASE("planner: cluster column passes", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  // 128-byte rows: 16 fp32 lines, 8 fp64.
  CHECK(fft::cluster_column_lines_log2(8) == 4);
  CHECK(fft::cluster_column_lines_log2(16) == 3);
  // Checks a pass the planner made a cluster column pass: its shape, and a cluster that fits.
  const auto check_cluster = [&](const fft::FftPlan& plan, const fft::FftPass& pass) {
    REQUIRE(pass.cluster.has_value());
    const fft::FftCluster& c = *pass.cluster;
    const long long lines = 1LL << fft::cluster_column_lines_log2(static_cast<int>(plan.element_bytes));
    int bits = 0;
    while ((1LL << bits) < pass.size) ++bits;
    CHECK(bits >= fft::kClusterColumnMinBits);
    CHECK(bits <= fft::kClusterColumnMaxBits);
    CHECK(c.lines_log2 == fft::cluster_column_lines_log2(static_cast<int>(plan.element_bytes)));
    // (A packed pass tiles all its lines but the last.)
    CHECK((pass.nyquist_packed ? pass.sub_transforms - 1 : pass.sub_transforms) % lines == 0);
    // The real and packed steps pair rows within a block: TB >= 2.
    if (pass.real_step != fft::RealStep::kNone || pass.nyquist_packed) {
      const long long size_a_bits = c.contiguous_out ? fft::cluster_first_bits_a(bits) : fft::cluster_bits_a(bits);
      CHECK((size_a_bits - c.rank_bits) >= 1);
    }
    // Column out (sub = span), or a first pass whose lines' outputs are contiguous.
    CHECK(c.contiguous_out == (pass.span_before == 1));
    if (!c.contiguous_out) CHECK(pass.span_before == pass.sub_transforms);
    CHECK(c.rank_bits == fft::cluster_rank_bits(bits + c.lines_log2));
    // 16 points a thread: the cluster's threads hold its T lines exactly.
    CHECK((static_cast<long long>(c.threads) << (c.rank_bits + 4)) == pass.size * lines);
    CHECK(c.threads <= (plan.element_bytes > 8 ? 256 : 512));
    const long long size_a = 1LL << (c.contiguous_out ? fft::cluster_first_bits_a(bits) : fft::cluster_bits_a(bits));
    const long long size_b = pass.size / size_a;
    CHECK((size_a >> c.rank_bits) >= 1);
    CHECK((size_b >> c.rank_bits) >= 1);
    CHECK(c.stride_a >= size_a);
    // A first pass: runs of TB >= 16 outputs (128 bytes), stage B one radix-16 butterfly.
    if (c.contiguous_out) {
      CHECK(size_b == 16);
      CHECK((size_a >> c.rank_bits) >= 16);
    } else {
      CHECK(c.stride_b >= size_b);
    }
    // Stage B's exchange rows (TB NB T elements, and a first pass's padding) and both stages'
    // padded buffers fit.
    const long long rows = size_a >> c.rank_bits;
    const int rows_log2 = (c.contiguous_out ? fft::cluster_first_bits_a(bits) : fft::cluster_bits_a(bits)) - c.rank_bits;
    const long long last_slot = c.contiguous_out ? fft::cluster_rows_slot(static_cast<int>(rows - 1), 15,
                                                                          static_cast<int>(lines - 1), rows_log2, 4)
                                                 : rows * size_b * lines - 1;
    CHECK(static_cast<std::size_t>(last_slot + 1) * plan.element_bytes <= c.shared_bytes);
    CHECK(c.shared_bytes >= static_cast<std::size_t>((size_b >> c.rank_bits) * lines * c.stride_a) * plan.element_bytes);
    CHECK(c.shared_bytes <= h100.shared_bytes_per_block);
  };
  // 1D two-pass plans above the fused range: both passes where their sizes are 2^11..2^13 (the
  // first with its lines' outputs contiguous). fp32 to 2^27, fp64 (16 MB fused: to 2^20) to 2^26.
  for (int bits = 21; bits <= 27; ++bits) {
    const fft::Precision precision = bits == 21 ? fft::Precision::kDouble : fft::Precision::kSingle;
    CAPTURE(bits);
    const fft::FftPlan plan = must_plan(1LL << bits, 2, precision, h100);
    INFO(plan.to_string());
    REQUIRE(plan.passes.size() == 2);
    CHECK_FALSE(plan.fused.has_value());
    for (const fft::FftPass& pass : plan.passes) {
      const bool expected =
          pass.size >= (1LL << fft::kClusterColumnMinBits) && pass.size <= (1LL << fft::kClusterColumnMaxBits);
      CHECK(pass.cluster.has_value() == expected);
      if (expected) check_cluster(plan, pass);
    }
    CHECK(plan.to_string().find("cluster column pass") != std::string::npos);
  }
  for (int bits = 22; bits <= 26; ++bits) {
    CAPTURE(bits);
    const fft::FftPlan plan = must_plan(1LL << bits, 3, fft::Precision::kDouble, h100);
    INFO(plan.to_string());
    REQUIRE(plan.passes.size() == 2);
    for (const fft::FftPass& pass : plan.passes) check_cluster(plan, pass);
    CHECK(plan.passes[0].cluster->lines_log2 == 3);
  }
  // Fused plans (fp32 2^17..2^21) and limits without them keep their passes.
  CHECK_FALSE(must_plan(1LL << 21, 1, fft::Precision::kSingle, h100).passes[1].cluster.has_value());
  fft::DeviceLimits without = h100;
  without.cluster_columns = false;
  CHECK_FALSE(must_plan(1LL << 24, 1, fft::Precision::kSingle, without).passes[1].cluster.has_value());
  // Multi-dimensional: the outer axes of 2^11..2^13 points over lines in multiples of 16 (fp32)
  // or 8 (fp64).
  struct Case {
    std::vector<long long> dims;
    std::vector<bool> clustered;    // per pass, innermost axis first, fp32
    std::vector<bool> clustered64;  // fp64, where it differs
  };
  const std::vector<Case> cases = {
      {{4096, 4096}, {false, true}, {}},  {{2048, 2048}, {false, true}, {}}, {{8192, 8192}, {false, true}, {}},
      {{1024, 1024}, {false, false}, {}},  // fused axes
      {{2048, 100}, {false, false}, {}},   // 100 lines: not a multiple of 16 or 8
      {{1024, 2048, 16}, {false, true, false}, {}},  // 1024 points: below kClusterColumnMinBits
      {{512, 512, 512}, {false, false, false}, {}},
      {{4096, 8}, {false, false}, {false, true}},    // 8 lines: an fp64 cluster's, not an fp32 one's
      {{4096, 24}, {false, false}, {false, true}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.dims);
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      fft::FftPlanResult result = fft::plan_c2c(static_cast<int>(c.dims.size()), c.dims.data(), 1, precision, h100);
      REQUIRE(result.plan.has_value());
      const fft::FftPlan& plan = *result.plan;
      INFO(plan.to_string());
      REQUIRE(plan.passes.size() == c.clustered.size());
      const std::vector<bool>& clustered =
          precision == fft::Precision::kDouble && !c.clustered64.empty() ? c.clustered64 : c.clustered;
      for (std::size_t i = 0; i < plan.passes.size(); ++i) {
        CAPTURE(i);
        const bool expected = clustered[i];
        CHECK(plan.passes[i].cluster.has_value() == expected);
        if (expected) check_cluster(plan, plan.passes[i]);
      }
    }
  }
  // Real 1D plans (two passes of the half): every pass of 2^11..2^13 points a cluster column
  // pass, the paired one keeping its step (R2C's last, C2R's first).
  for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (int bits = 22; bits <= 27; ++bits) {
      for (fft::Kind kind : {fft::Kind::kR2C, fft::Kind::kC2R}) {
        CAPTURE(bits, static_cast<int>(precision), static_cast<int>(kind));
        const fft::FftPlanResult result = fft::plan_real_1d(kind, 1LL << bits, 1, precision, h100);
        INFO(result.reason);
        REQUIRE(result.plan.has_value());
        const fft::FftPlan& plan = *result.plan;
        INFO(plan.to_string());
        REQUIRE(plan.passes.size() == 2);
        const std::size_t paired = kind == fft::Kind::kR2C ? 1 : 0;
        CHECK(plan.passes[paired].real_step ==
              (kind == fft::Kind::kR2C ? fft::RealStep::kPairedR2C : fft::RealStep::kPairedC2R));
        for (const fft::FftPass& pass : plan.passes) {
          const bool expected =
              pass.size >= (1LL << fft::kClusterColumnMinBits) && pass.size <= (1LL << fft::kClusterColumnMaxBits);
          CHECK(pass.cluster.has_value() == expected);
          if (expected) check_cluster(plan, pass);
        }
      }
    }
  }
  // Real planes: an R2C's outer axis of 2^11..2^13 points packed (line n / 2 into line 0) where
  // n / 2 is a multiple of T; C2R's never (n / 2 + 1 lines); fused planes keep their pair.
  struct RealCase {
    std::vector<long long> dims;
    bool packed32;
    bool packed64;
  };
  for (const RealCase& c : {RealCase{{2048, 2048}, true, true}, RealCase{{4096, 4096}, true, true},
                            RealCase{{8192, 8192}, true, true}, RealCase{{4096, 48}, false, true},
                            RealCase{{4096, 100}, false, false}, RealCase{{1024, 1024}, false, false},
                            RealCase{{2, 2048, 64}, true, true}}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      CAPTURE(c.dims, static_cast<int>(precision));
      const int rank = static_cast<int>(c.dims.size());
      const fft::FftPlanResult r2c = fft::plan_real(fft::Kind::kR2C, rank, c.dims.data(), 1, precision, h100);
      const fft::FftPlanResult c2r = fft::plan_real(fft::Kind::kC2R, rank, c.dims.data(), 1, precision, h100);
      REQUIRE(r2c.plan.has_value());
      REQUIRE(c2r.plan.has_value());
      INFO(r2c.plan->to_string());
      const fft::FftPass& axis = r2c.plan->passes[1];
      const bool packed = precision == fft::Precision::kSingle ? c.packed32 : c.packed64;
      CHECK(axis.cluster.has_value() == packed);
      CHECK(axis.nyquist_packed == packed);
      if (packed) {
        check_cluster(*r2c.plan, axis);
        CHECK_FALSE(axis.straddles);
      }
      for (const fft::FftPass& pass : c2r.plan->passes) CHECK_FALSE(pass.nyquist_packed);
      CHECK_FALSE(c2r.plan->passes[rank - 2].cluster.has_value());  // the axis over n / 2 + 1 lines
    }
  }
  // The exchange slots of a cluster (cluster_lines_slot): every (row, element, line) of every
  // block exactly once, within the block's exchange rows, lines innermost.
  for (int bits = fft::kClusterColumnMinBits; bits <= fft::kClusterColumnMaxBits; ++bits)
  for (int lines_log2 : {3, 4}) {
    CAPTURE(bits, lines_log2);
    const int rank_bits = fft::cluster_rank_bits(bits + lines_log2);
    const int bits_a = fft::cluster_bits_a(bits);
    const int bits_b = bits - bits_a;
    const int rows_log2 = bits_a - rank_bits;
    std::vector<int> seen(static_cast<std::size_t>(1) << (bits + lines_log2), 0);
    for (int k2 = 0; k2 < (1 << bits_a); ++k2) {
      for (int n1 = 0; n1 < (1 << bits_b); ++n1) {
        for (int line = 0; line < (1 << lines_log2); ++line) {
          const int rank = fft::cluster_exchange_rank(k2, rows_log2);
          const int slot = fft::cluster_lines_slot(k2, n1, line, rows_log2, bits_b, lines_log2);
          REQUIRE(slot >= 0);
          REQUIRE(slot < (1 << (rows_log2 + bits_b + lines_log2)));
          ++seen[(static_cast<std::size_t>(rank) << (rows_log2 + bits_b + lines_log2)) + static_cast<std::size_t>(slot)];
          if (line > 0) CHECK(slot == fft::cluster_lines_slot(k2, n1, line - 1, rows_log2, bits_b, lines_log2) + 1);
        }
      }
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long long>(seen.size()));
    // A first pass's (cluster_rows_slot): N / 16 x 16, rows innermost (a stage-B lane's rows
    // consecutive), one padding slot a line that nothing takes.
    const int first_bits_a = fft::cluster_first_bits_a(bits);
    const int first_rows_log2 = first_bits_a - rank_bits;
    const int line_slots = (16 << first_rows_log2) + 1;
    std::vector<int> first_seen(static_cast<std::size_t>(1 << rank_bits) * static_cast<std::size_t>(line_slots << lines_log2), 0);
    for (int k2 = 0; k2 < (1 << first_bits_a); ++k2) {
      for (int n1 = 0; n1 < 16; ++n1) {
        for (int line = 0; line < (1 << lines_log2); ++line) {
          const int rank = fft::cluster_exchange_rank(k2, first_rows_log2);
          const int slot = fft::cluster_rows_slot(k2, n1, line, first_rows_log2, 4);
          REQUIRE(slot >= 0);
          REQUIRE(slot < (line_slots << lines_log2));
          REQUIRE(slot % line_slots != line_slots - 1);
          ++first_seen[static_cast<std::size_t>(rank) * static_cast<std::size_t>(line_slots << lines_log2) +
                       static_cast<std::size_t>(slot)];
          if ((k2 & ((1 << first_rows_log2) - 1)) > 0) CHECK(slot == fft::cluster_rows_slot(k2 - 1, n1, line, first_rows_log2, 4) + 1);
        }
      }
    }
    CHECK(std::count(first_seen.begin(), first_seen.end(), 1) == (1LL << (bits + lines_log2)));
    CHECK(std::count(first_seen.begin(), first_seen.end(), 0) == (1LL << (rank_bits + lines_log2)));
  }
}

TEST_CASE("tuning table: native only where it measured faster", "[fft][tuning][cpu]") {
  const char* reason = nullptr;
  const long long points = 1LL << 26;
  const fft::DeviceClass h100{90, 3352};  // H100 SXM as CUDA reports it
  const fft::DeviceClass h200{90, 4800};
  const auto wins = [&](long long n, long long batch, fft::Precision precision, fft::DeviceClass device) {
    return fft::native_fft_wins(n, batch, precision, device, &reason);
  };
  // The measured rows. H100: fp32 powers of two 2^15..2^20 at 2^26 points per call, fp64
  // 2^14..2^19 at 2^25. H200: fp32 16..32 and 2^15..2^16, fp64 2^14..2^15, 2^17, 2^20.
  for (long long n : {16LL, 32LL}) {
    CAPTURE(n);
    CHECK(wins(n, points / n, fft::Precision::kSingle, h200));
    CHECK_FALSE(wins(n, points / n, fft::Precision::kSingle, h100));
    CHECK_FALSE(wins(n, (points / 2) / n, fft::Precision::kDouble, h200));
  }
  CHECK_FALSE(wins(64, points / 64, fft::Precision::kSingle, h200));
  for (int bits = 15; bits <= 20; ++bits) {
    CAPTURE(bits);
    CHECK(wins(1LL << bits, points >> bits, fft::Precision::kSingle, h100));
    CHECK(wins(1LL << bits, points >> bits, fft::Precision::kSingle, h200) == (bits <= 16));
  }
  // H100 fp32 2^25, 2^26 (cluster column passes); 2^21..2^24 lost or tied.
  for (int bits = 21; bits <= 26; ++bits) {
    CAPTURE(bits);
    CHECK(wins(1LL << bits, points >> bits, fft::Precision::kSingle, h100) == (bits >= 25));
    CHECK_FALSE(wins(1LL << bits, points >> bits, fft::Precision::kSingle, h200));
  }
  for (int bits = 14; bits <= 25; ++bits) {
    CAPTURE(bits);
    // 2^14..2^19, and 2^23..2^24 (cluster column passes).
    CHECK(wins(1LL << bits, (points / 2) >> bits, fft::Precision::kDouble, h100) ==
          (bits <= 19 || bits == 23 || bits == 24));
    CHECK(wins(1LL << bits, (points / 2) >> bits, fft::Precision::kDouble, h200) ==
          (bits == 14 || bits == 15 || bits == 17 || bits == 20));
  }
  // Primes (one Bluestein pass), H100 and H200: fp32 4099..8191, fp64 2053..4093.
  CHECK(wins(400, points / 400, fft::Precision::kSingle, h100));  // the fixed kernel of 400
  CHECK(wins(400, points / 400, fft::Precision::kSingle, h200));
  CHECK_FALSE(wins(400, (points / 2) / 400, fft::Precision::kDouble, h200));  // Z2Z 400 lost there
  // The fixed-sequence lengths with factors 11 and 13, and 2835 (fp64 also 384), H200 only, listed per precision.
  const auto about = [](long long total, long long n) { return std::llround(static_cast<double>(total) / n); };
  for (long long n : {312LL, 429LL, 2288LL, 2496LL, 3432LL, 3861LL}) {
    CAPTURE(n);
    CHECK(wins(n, about(points, n), fft::Precision::kSingle, h200));
    CHECK(wins(n, about(points / 2, n), fft::Precision::kDouble, h200));
    CHECK_FALSE(wins(n, about(points, n), fft::Precision::kSingle, h100));  // not measured there
    CHECK_FALSE(wins(n, about(points, n) / 4, fft::Precision::kSingle, h200));  // a smaller call
  }
  for (long long n : {384LL}) {  // fp32 ties, fp64 wins
    CAPTURE(n);
    CHECK_FALSE(wins(n, about(points, n), fft::Precision::kSingle, h200));
    CHECK(wins(n, about(points / 2, n), fft::Precision::kDouble, h200));
  }
  // fp32 wins since its stages' constants, fp64 too: 3003, 3042, 3718; fp32 only: 960, 2002;
  // since the row-padded exchanges fp64 240 and 3575 too, and fp32 4004 (fp64 4004 once its
  // radix-7 stage widened to one pass).
  for (long long n : {3003LL, 3042LL, 3718LL, 240LL, 960LL, 2002LL, 3575LL, 4004LL}) {
    CAPTURE(n);
    CHECK(wins(n, about(points, n), fft::Precision::kSingle, h200));
    CHECK_FALSE(wins(n, about(points, n), fft::Precision::kSingle, h100));
    CHECK_FALSE(wins(n, about(points, n) / 4, fft::Precision::kSingle, h200));  // a smaller call
    const bool fp64 = n == 3003 || n == 3042 || n == 3718 || n == 240 || n == 3575 || n == 4004;
    CHECK(wins(n, about(points / 2, n), fft::Precision::kDouble, h200) == fp64);
  }
  // fp64 4095 wins once widened (2.34x), fp32 4095 loses.
  CHECK(wins(4095, about(points / 2, 4095), fft::Precision::kDouble, h200));
  CHECK_FALSE(wins(4095, about(points / 2, 4095), fft::Precision::kDouble, h100));
  CHECK_FALSE(wins(4095, about(points, 4095), fft::Precision::kSingle, h200));
  // fp64 lengths the wide layout took past the vendor (H200 only); fp32 ones it did not, nor
  // fp64 3780 or 3920 (0.64x, 0.93x).
  for (long long n : {1820LL, 2240LL, 3300LL, 3773LL, 4032LL}) {
    CAPTURE(n);
    CHECK(wins(n, about(points / 2, n), fft::Precision::kDouble, h200));
    CHECK_FALSE(wins(n, about(points / 2, n), fft::Precision::kDouble, h100));
    CHECK_FALSE(wins(n, about(points / 2, n) / 4, fft::Precision::kDouble, h200));
    CHECK_FALSE(wins(n, about(points, n), fft::Precision::kSingle, h200));
  }
  for (long long n : {3780LL, 3920LL}) {
    CAPTURE(n);
    CHECK_FALSE(wins(n, about(points / 2, n), fft::Precision::kDouble, h200));
  }
  for (long long n : {1000LL, 1080LL, 1920LL, 2730LL, 3850LL, 6561LL}) {  // lost or tied in both
    CAPTURE(n);
    CHECK_FALSE(wins(n, about(points, n), fft::Precision::kSingle, h200));
    CHECK_FALSE(wins(n, about(points / 2, n), fft::Precision::kDouble, h200));
  }
  for (long long n : {4099LL, 5003LL, 6151LL, 8191LL}) {
    CAPTURE(n);
    CHECK(wins(n, points / n, fft::Precision::kSingle, h100));
    CHECK(wins(n, points / n, fft::Precision::kSingle, h200));
  }
  for (long long n : {2053LL, 3001LL, 4093LL}) {
    CAPTURE(n);
    CHECK(wins(n, (points / 2) / n, fft::Precision::kDouble, h100));
    CHECK(wins(n, (points / 2) / n, fft::Precision::kDouble, h200));
  }
  // Primes past one block (two-pass Bluestein over M, the power of two from 2n - 1), H100 and
  // H200: fp32 to 2^16 at any padding, to 2^22 padded at most 2.8x; fp64 to 2^16 at any padding,
  // to 2^19 padded at most 2.8x, to 2^20 at most 2.4x.
  const struct {
    long long n;
    fft::Precision precision;
    bool native;
  } two_pass[] = {
      {8209, fft::Precision::kSingle, true},       // padded 4x
      {32771, fft::Precision::kSingle, true},      // padded 4x
      {65521, fft::Precision::kSingle, true},      // 2x
      {100003, fft::Precision::kSingle, true},     // 2.62x
      {93629, fft::Precision::kSingle, true},      // 2.8x
      {81929, fft::Precision::kSingle, false},     // 3.2x: a tie on the H200
      {72817, fft::Precision::kSingle, false},     // 3.6x: lost on the H200
      {131101, fft::Precision::kSingle, false},    // 4x
      {1048573, fft::Precision::kSingle, true},    // 2x
      {4194301, fft::Precision::kSingle, true},    // 2x
      {5991883, fft::Precision::kSingle, false},   // n past 2^22, the last fp32 row's max_n (padded 2.8x, within its max_padding)
      {16777213, fft::Precision::kSingle, false},  // n past 2^22, the last fp32 row's max_n (padded 2x; 0.95x on the H200)
      {30011 * 3, fft::Precision::kSingle, false},  // 3 x 30011: not a prime
      {4099, fft::Precision::kDouble, true},       // padded 4x
      {65521, fft::Precision::kDouble, true},      // 2x
      {93629, fft::Precision::kDouble, true},      // 2.8x
      {163841, fft::Precision::kDouble, false},    // 3.2x
      {131101, fft::Precision::kDouble, false},    // 4x: lost on the H200
      {436913, fft::Precision::kDouble, true},     // 2.4x, M = 2^20
      {873863, fft::Precision::kDouble, true},     // 2.4x, M = 2^21
      {748987, fft::Precision::kDouble, false},    // 2.8x at M = 2^21: a tie
      {1048573, fft::Precision::kDouble, true},    // 2x
      {1747633, fft::Precision::kDouble, false},   // n past 2^20, the last fp64 row's max_n (padded 2.4x, within its max_padding)
      {4194301, fft::Precision::kDouble, false},   // n past 2^20, the last fp64 row's max_n (padded 2x; 0.97x on the H200)
  };
  for (const auto& c : two_pass) {
    CAPTURE(c.n, static_cast<int>(c.precision));
    const long long total = c.precision == fft::Precision::kSingle ? points : points / 2;
    for (const fft::DeviceClass& device : {h100, h200}) {
      CHECK(wins(c.n, about(total, c.n), c.precision, device) == c.native);
      CHECK_FALSE(wins(c.n, std::max(1LL, about(total, c.n) / 4), c.precision, device));  // a smaller call
    }
  }
  // Outside them the vendor keeps the plan, with a reason.
  const struct {
    long long n;
    long long batch;
    fft::Precision precision;
    fft::DeviceClass device;
  } vendor_cases[] = {
      {1LL << 14, points >> 14, fft::Precision::kSingle, h100},  // below the range
      {1LL << 21, points >> 21, fft::Precision::kSingle, h100},  // above it
      {1LL << 20, points >> 21, fft::Precision::kDouble, h100},  // fp64 2^20: a tie
      {1LL << 17, points >> 17, fft::Precision::kSingle, h200},  // H200: a tie at 2^17
      {3LL << 15, points / (3LL << 15), fft::Precision::kSingle, h100},  // not a power of two
      {1LL << 13, points >> 14, fft::Precision::kDouble, h100},  // fp64 below its range
      {1LL << 21, points >> 22, fft::Precision::kDouble, h100},  // fp64 above the fused range
      {1LL << 16, points >> 17, fft::Precision::kDouble, h200},  // H200 fp64 2^16: lost
      {1LL << 14, 64, fft::Precision::kDouble, h100},  // fp64, fewer points than measured
      {1LL << 16, points >> 16, fft::Precision::kSingle, {80, 2039}},  // A100: not measured
      {1LL << 16, points >> 16, fft::Precision::kSingle, {90, 2000}},  // H100 PCIe: not measured
      {1LL << 16, points >> 16, fft::Precision::kSingle, {90, 0}},  // bandwidth unknown
      {1LL << 16, 64, fft::Precision::kSingle, h100},  // fewer points per call than measured
      {400, points / 400 / 2, fft::Precision::kSingle, h100},  // n = 400: fewer points than measured
      {400, (points / 2) / 400, fft::Precision::kDouble, h100},  // Z2Z 400 lost (0.93x)
      {1000, points / 1000, fft::Precision::kSingle, h100},    // another fixed length: lost
      {4093, points / 4093, fft::Precision::kSingle, h100},  // fp32 prime below 4096: the vendor's
      {4100, points / 4100, fft::Precision::kSingle, h100},  // 2^2 5^2 41: not a prime
      {8209, points / 8209 / 2, fft::Precision::kSingle, h100},  // two-pass Bluestein, half the call
      {4097, points / 4097, fft::Precision::kSingle, h100},  // 17 x 241 in the range: not a prime
      {2039, (points / 2) / 2039, fft::Precision::kDouble, h100},  // fp64 prime below 2048
      {4099, (points / 2) / 4099 / 2, fft::Precision::kDouble, h100},  // fp64 two-pass, half the call
      {6151, 64, fft::Precision::kSingle, h100},  // fewer points per call than measured
      {4093, points / 4093, fft::Precision::kSingle, h200},  // H200 fp32 prime below 4096: 0.98x
  };
  for (const auto& c : vendor_cases) {
    CAPTURE(c.n, c.batch, c.device.arch, c.device.memory_gbs);
    reason = nullptr;
    CHECK_FALSE(wins(c.n, c.batch, c.precision, c.device));
    REQUIRE(reason != nullptr);
    CHECK(std::string(reason).find("vendor") != std::string::npos);
  }
}

TEST_CASE("tuning table: devices of no measured class keep the vendor", "[fft][tuning][cpu]") {
  const char* reason = nullptr;
  const fft::DeviceClass h100{90, 3352};
  const fft::DeviceClass h200{90, 4800};
  // A case of each row (fp32 2^15 and 2^16 win on both classes measured; the rest on one).
  const struct {
    long long n;
    fft::Precision precision;
  } measured[] = {{1LL << 15, fft::Precision::kSingle}, {1LL << 16, fft::Precision::kSingle},
                  {1LL << 18, fft::Precision::kSingle}, {32, fft::Precision::kSingle},
                  {1LL << 14, fft::Precision::kDouble}, {1LL << 17, fft::Precision::kDouble},
                  {1LL << 20, fft::Precision::kDouble}, {4099, fft::Precision::kSingle},
                  {2053, fft::Precision::kDouble}};
  // Architectures the kernels run on (sm_80 and sm_89 built, sm_100 and sm_120 from PTX) but no
  // row was timed on, and sm_90 parts outside both measured bandwidth bands.
  const fft::DeviceClass unmeasured[] = {{80, 2039}, {89, 864},  {100, 8000}, {100, 3352}, {120, 1792},
                                         {120, 4800}, {90, 2000}, {90, 4200},  {90, 6000},  {90, 0}};
  for (const auto& c : measured) {
    const long long points = c.precision == fft::Precision::kSingle ? 1LL << 26 : 1LL << 25;
    const long long batch = points / c.n;
    CAPTURE(c.n, static_cast<int>(c.precision));
    CHECK((fft::native_fft_wins(c.n, batch, c.precision, h100, &reason) ||
           fft::native_fft_wins(c.n, batch, c.precision, h200, &reason)));
    CHECK(fft::native_fft_wins(c.n, batch, c.precision, idgpu::kAnyDevice, &reason));
    for (const fft::DeviceClass& device : unmeasured) {
      CAPTURE(device.arch, device.memory_gbs);
      reason = nullptr;
      CHECK_FALSE(fft::native_fft_wins(c.n, batch, c.precision, device, &reason));
      REQUIRE(reason != nullptr);
      CHECK(std::string(reason).find("never measured") != std::string::npos);
    }
  }
}

TEST_CASE("fused lag: the resident blocks' wait against a quarter of the L2", "[fft][planner][cpu]") {
  // An H100: 132 SMs x 2 fused blocks, 50 MB of L2; the lags measured best there.
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const long long resident = 264;
  const std::size_t l2 = 50u << 20;
  const auto lag = [&](int bits, fft::Precision precision) {
    const long long n = 1LL << bits;
    const long long points = precision == fft::Precision::kSingle ? 1LL << 26 : 1LL << 25;
    const fft::FftPlan plan = must_plan(n, points / n, precision, h100);
    REQUIRE(plan.fused.has_value());
    return fft::fused_lag(plan, resident, l2);
  };
  CHECK(lag(17, fft::Precision::kSingle) == 9);   // waiting: (264 + 16) / 32 -> 9; L2: 12.5 of 1 MB
  CHECK(lag(18, fft::Precision::kSingle) == 5);   // (264 + 32) / 64 -> 5; 6 of 2 MB
  CHECK(lag(19, fft::Precision::kSingle) == 3);   // (264 + 64) / 128 -> 3; 3 of 4 MB
  CHECK(lag(20, fft::Precision::kSingle) == 1);   // (264 + 128) / 256 -> 2; 1 of 8 MB
  CHECK(lag(19, fft::Precision::kDouble) == 1);   // 1 of 8 MB
  // Never below 1 nor above the batch.
  const fft::FftPlan one = must_plan(1LL << 17, 1, fft::Precision::kSingle, h100);
  CHECK(fft::fused_lag(one, resident, l2) == 1);
  CHECK(fft::fused_lag(one, 0, 0) == 1);
}

namespace {

// The naive DFT of `batch` contiguous row-major arrays of shape dims (outermost first), in long
// double: a naive 1D DFT along each axis in turn (exact arithmetic is separable; this shares no
// code with the planner's passes).
std::vector<ComplexL> naive_dft_nd(const std::vector<Complex>& x, const std::vector<long long>& dims, long long batch,
                                   int sign) {
  long long total = 1;
  for (long long d : dims) total *= d;
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<ComplexL> data(x.begin(), x.end());
  long long inner = 1;
  for (int axis = static_cast<int>(dims.size()) - 1; axis >= 0; --axis) {
    const long long n = dims[static_cast<std::size_t>(axis)];
    const long long outer = total / (n * inner) * batch;
    std::vector<ComplexL> roots(static_cast<std::size_t>(n));
    for (long long e = 0; e < n; ++e) {
      const long double angle = 2.0L * pi * static_cast<long double>(e) / static_cast<long double>(n);
      roots[static_cast<std::size_t>(e)] = {std::cos(angle), sign * std::sin(angle)};
    }
    std::vector<ComplexL> line(static_cast<std::size_t>(n));
    for (long long o = 0; o < outer; ++o) {
      for (long long i = 0; i < inner; ++i) {
        const long long base = o * n * inner + i;
        for (long long k = 0; k < n; ++k) {
          long double re = 0, im = 0;
          for (long long t = 0; t < n; ++t) {
            const ComplexL v = data[static_cast<std::size_t>(base + t * inner)];
            const ComplexL w = roots[static_cast<std::size_t>((t * k) % n)];
            re += w.real() * v.real() - w.imag() * v.imag();
            im += w.real() * v.imag() + w.imag() * v.real();
          }
          line[static_cast<std::size_t>(k)] = {re, im};
        }
        for (long long k = 0; k < n; ++k) data[static_cast<std::size_t>(base + k * inner)] = line[static_cast<std::size_t>(k)];
      }
    }
    inner *= n;
  }
  return data;
}

// Runs the multi-dimensional `plan` (of `dims`, outermost first, `batch` transforms) by the host
// executor out of place on `input` in direction `sign` into a poisoned output, checks it against
// the naive DFT and returns it.
std::vector<Complex> executed_against_naive(const fft::FftPlan& plan, const std::vector<Complex>& input,
                                            const std::vector<long long>& dims, long long batch, int sign) {
  const std::vector<ComplexL> want = naive_dft_nd(input, dims, batch, sign);
  std::vector<Complex> out = poisoned(input.size());
  fft::reference::execute(plan, sign, input.data(), out.data());
  CHECK(relative_error(out, want) < kTolerance);
  return out;
}

// The same in both directions, on random input.
void check_nd_against_naive(const fft::FftPlan& plan, const std::vector<long long>& dims, long long batch,
                            std::uint64_t salt) {
  const std::vector<Complex> input = random_input(static_cast<std::size_t>(plan.n * batch), salt);
  for (int sign : {-1, +1}) {
    CAPTURE(sign);
    executed_against_naive(plan, input, dims, batch, sign);
  }
}

}  // namespace

TEST_CASE("executor: cluster column passes as their kernel runs them", "[fft][executor][cpu]") {
  // The kernel's data flow (per cluster of T lines: stage A per column, the twiddles, the
  // exchange at cluster_lines_slot, stage B per row) in poisoned buffers: a slot the exchange
  // misses spoils the result.
  fft::DeviceLimits limits = fft::DeviceLimits::h100();
  fft::DeviceLimits plain = limits;
  plain.cluster_columns = false;
  std::uint64_t salt = 9100;
  {
    // 2^22 = 2^11 x 2^11: both passes cluster column passes, the first with contiguous lines out.
    const long long n = 1LL << 22;
    const long long batch = 1;
    const fft::FftPlan plan = must_plan(n, batch, fft::Precision::kSingle, limits);
    INFO(plan.to_string());
    REQUIRE(plan.passes.size() == 2);
    REQUIRE(plan.passes[0].cluster.has_value());
    REQUIRE(plan.passes[0].cluster->contiguous_out);
    REQUIRE(plan.passes[1].cluster.has_value());
    const std::vector<Complex> x = random_input(static_cast<std::size_t>(n * batch), ++salt);
    for (int sign : {-1}) {
      CAPTURE(sign);
      const auto [y, z] = run_against_radix2(plan, x, n, batch, sign);
      CHECK(relative_error(z, std::vector<ComplexL>(y.begin(), y.end())) < 1e-15);
    }
  }
  // Axis passes: against the naive DFT where it is cheap, else against the same plan's passes
  // as their own kernels run them (checked against the naive DFT above).
  // fp64: 8 lines a cluster (a cluster of 4-16 blocks of 256 threads).
  struct AxisCase {
    std::vector<long long> dims;
    fft::Precision precision;
  };
  const std::vector<AxisCase> shapes = {{{2048, 16, 2}, fft::Precision::kSingle}, {{2048, 48}, fft::Precision::kSingle},
                                        {{4096, 32}, fft::Precision::kSingle},    {{8192, 16}, fft::Precision::kSingle},
                                        {{2048, 8, 2}, fft::Precision::kDouble},  {{4096, 24}, fft::Precision::kDouble},
                                        {{8192, 8}, fft::Precision::kDouble}};
  for (const auto& [dims, precision] : shapes) {
    CAPTURE(dims, static_cast<int>(precision));
    const int rank = static_cast<int>(dims.size());
    const long long batch = dims.size() == 2 && dims[1] == 48 ? 2 : 1;
    fft::FftPlanResult result = fft::plan_c2c(rank, dims.data(), batch, precision, limits);
    fft::FftPlanResult reference = fft::plan_c2c(rank, dims.data(), batch, precision, plain);
    REQUIRE(result.plan.has_value());
    REQUIRE(reference.plan.has_value());
    const fft::FftPlan& plan = *result.plan;
    INFO(plan.to_string());
    REQUIRE(plan.passes.back().cluster.has_value());
    REQUIRE_FALSE(reference.plan->passes.back().cluster.has_value());
    const std::size_t count = static_cast<std::size_t>(plan.n * batch);
    const std::vector<Complex> input = random_input(count, ++salt);
    const int sign = dims[0] == 2048 ? +1 : -1;
    std::vector<Complex> out = poisoned(count);
    fft::reference::execute(plan, sign, input.data(), out.data());
    if (dims.size() == 3) {
      CHECK(relative_error(out, naive_dft_nd(input, dims, batch, sign)) < kTolerance);
    } else {
      std::vector<Complex> want = poisoned(count);
      fft::reference::execute(*reference.plan, sign, input.data(), want.data());
      CHECK(relative_error(out, std::vector<ComplexL>(want.begin(), want.end())) < kTolerance);
    }
    std::vector<Complex> in_place = input;
    fft::reference::execute(plan, sign, in_place.data(), in_place.data());
    CHECK(relative_error(in_place, std::vector<ComplexL>(out.begin(), out.end())) < 1e-15);
  }
}

TEST_CASE("planner: 2D and 3D plans take one axis pass per axis, innermost first", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  for (const std::vector<long long>& dims :
       std::vector<std::vector<long long>>{{1024, 1024}, {4096, 4096}, {8192, 8192}, {128, 128, 128}, {512, 512, 512},
                                           {100, 60}, {7, 11, 13}}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const long long batch = 3;
      fft::FftPlanResult result = fft::plan_c2c(static_cast<int>(dims.size()), dims.data(), batch, precision, h100);
      CAPTURE(dims, static_cast<int>(precision), result.reason);
      if (precision == fft::Precision::kDouble && dims[0] == 8192) {
        // 2^13 fits one fp64 pass; longer axes would not.
        REQUIRE(result.plan.has_value());
      }
      REQUIRE(result.plan.has_value());
      const fft::FftPlan& plan = *result.plan;
      INFO(plan.to_string());
      CHECK(plan.passes_in_place);
      CHECK(plan.work_bytes == 0);
      CHECK(!plan.cluster);
      // The two innermost axes fused where they are square powers of two of 2^7 .. 2^10 a side
      // ("planner: fused axes" below).
      const long long side = dims[dims.size() - 1];
      const bool square = dims[dims.size() - 2] == side && (side & (side - 1)) == 0;
      CHECK(plan.fused.has_value() == (square && side >= 128 && side <= 1024));
      REQUIRE(plan.passes.size() == dims.size());
      long long inner = 1;
      long long total = 1;
      for (long long d : dims) total *= d;
      CHECK(plan.n == total);
      for (std::size_t i = 0; i < plan.passes.size(); ++i) {
        const fft::FftPass& pass = plan.passes[i];
        const long long size = dims[dims.size() - 1 - i];
        CHECK(pass.size == size);
        CHECK(!pass.twiddled);
        CHECK(!pass.has_twiddle());
        CHECK(pass.sub_transforms == inner);
        CHECK(pass.span_before == inner);
        CHECK(pass.transform_n == size * inner);
        CHECK(plan.pass_transforms(pass) == total / (size * inner) * batch);
        CHECK(pass.blocks * pass.transforms_per_block >= pass.sub_transforms * plan.pass_transforms(pass));
        if (inner > 1) {
          // Rows of T adjacent lines: T divides the lines of one transform, or the blocks straddle
          // two transforms' lines (T a power of two up to the lines).
          if (pass.straddles) {
            CHECK(pass.transforms_per_block <= inner);
            CHECK((pass.transforms_per_block & (pass.transforms_per_block - 1)) == 0);
            CHECK(inner % pass.transforms_per_block != 0);
          } else {
            CHECK(inner % pass.transforms_per_block == 0);
          }
          // Rows of at least one 32-byte sector wherever such a T divides the lines and fits the
          // shared memory (fp32 8192-point columns hold only 2 lines: 139 KB).
          const auto row_bytes = static_cast<std::size_t>(pass.transforms_per_block) * plan.element_bytes;
          const long long sector_lines = 32 / static_cast<long long>(plan.element_bytes);
          const std::size_t sector_bytes = static_cast<std::size_t>(fft::smem_stride(size, pass.smem_shift)) *
                                           plan.element_bytes * static_cast<std::size_t>(sector_lines);
          if (inner % sector_lines == 0 && sector_bytes <= h100.shared_bytes_per_block) CHECK(row_bytes >= 32);
        }
        inner *= size;
      }
    }
  }
  // An axis that needs two passes is declined (with the reason), as is a rank outside 1..3.
  const long long wide[2] = {1LL << 16, 64};
  fft::FftPlanResult declined = fft::plan_c2c(2, wide, 1, fft::Precision::kSingle, h100);
  CHECK(!declined.plan);
  CHECK(declined.reason.find("more than one pass") != std::string::npos);
  const long long four[4] = {2, 2, 2, 2};
  CHECK(!fft::plan_c2c(4, four, 1, fft::Precision::kSingle, h100).plan);
  const long long prime[2] = {17, 16};
  CHECK(!fft::plan_c2c(2, prime, 1, fft::Precision::kSingle, h100).plan);
}

TEST_CASE("planner: fused axes, the two innermost of a multi-dimensional plan in one kernel", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (const std::vector<long long>& dims : std::vector<std::vector<long long>>{
             {128, 128}, {256, 256}, {512, 512}, {1024, 1024}, {128, 128, 128}, {256, 256, 256},
             {3, 512, 512}, {64, 1024, 1024}}) {
      const long long side = dims.back();
      long long total = 1;
      for (long long d : dims) total *= d;
      const long long batch = std::max(1LL, (1LL << 24) / total);
      CAPTURE(dims, static_cast<int>(precision), batch);
      fft::FftPlanResult result = fft::plan_c2c(static_cast<int>(dims.size()), dims.data(), batch, precision, h100);
      REQUIRE(result.plan.has_value());
      const fft::FftPlan& plan = *result.plan;
      INFO(plan.to_string());
      REQUIRE(plan.fused.has_value());
      const fft::FftFused& fused = *plan.fused;
      CHECK(fused.kind == fft::FusedKind::kAxes);
      CHECK(fused.first_pass == 0);
      CHECK(fused.first_count == side);
      CHECK(fused.last_count == side);
      CHECK(fused.threads == fft::fused_threads(plan.element_bytes));
      CHECK(fused.transform_n == side * side);
      CHECK(fused.transforms == total / (side * side) * batch);
      REQUIRE(fused.passes.size() == 2);
      std::size_t shared = 0;
      for (std::size_t i = 0; i < 2; ++i) {
        const fft::FftPass& mine = fused.passes[i];
        const fft::FftPass& planned = plan.passes[i];
        // The same axis pass, only its blocks cut differently: whole rows of one plane (the
        // first), T adjacent columns of one plane (the last).
        CHECK(mine.size == planned.size);
        CHECK(mine.radices == planned.radices);
        CHECK(mine.sub_transforms == planned.sub_transforms);
        CHECK(mine.span_before == planned.span_before);
        CHECK(mine.transforms == planned.transforms);
        CHECK(!mine.twiddled);
        CHECK(mine.threads_per_transform * mine.transforms_per_block == fused.threads);
        CHECK(side % mine.transforms_per_block == 0);
        CHECK(mine.blocks * mine.transforms_per_block == mine.sub_transforms * plan.pass_transforms(mine));
        CHECK(mine.shared_bytes <= h100.shared_bytes_per_block);
        shared = std::max(shared, mine.shared_bytes);
      }
      CHECK(fused.shared_bytes == shared);
      CHECK(fused.first_tiles * fused.passes[0].transforms_per_block == side);
      CHECK(fused.last_tiles * fused.passes[1].transforms_per_block == side);
      // Both passes' blocks are the kernel's tiles, transform after transform.
      CHECK(fused.passes[0].blocks == fused.transforms * fused.first_tiles);
      CHECK(fused.passes[1].blocks == fused.transforms * fused.last_tiles);
      // A 3D plan keeps its outermost axis as a pass of its own.
      CHECK(plan.passes.size() == dims.size());
      // The lag keeps the planes in flight within a quarter of the L2.
      const int lag = fft::fused_lag(plan, 264, 50u << 20);
      CHECK(lag >= 1);
      CHECK(lag <= fused.transforms);
      CHECK((lag == 1 || static_cast<std::size_t>(lag) * fused.transform_n * plan.element_bytes <= (50u << 20) / 4));
    }
  }
  // Not fused: non-square or non-power-of-two planes, sides outside the compiled range, devices
  // without the kernel.
  const auto fused = [&](std::vector<long long> dims, fft::Precision precision, const fft::DeviceLimits& limits) {
    fft::FftPlanResult result = fft::plan_c2c(static_cast<int>(dims.size()), dims.data(), 2, precision, limits);
    REQUIRE(result.plan.has_value());
    return result.plan->fused.has_value();
  };
  CHECK_FALSE(fused({1024, 512}, fft::Precision::kSingle, h100));
  CHECK_FALSE(fused({1000, 1000}, fft::Precision::kSingle, h100));
  CHECK_FALSE(fused({64, 64}, fft::Precision::kSingle, h100));
  CHECK_FALSE(fused({4096, 4096}, fft::Precision::kSingle, h100));
  CHECK_FALSE(fused({2048, 2048}, fft::Precision::kSingle, h100));
  CHECK_FALSE(fused({2048, 2048}, fft::Precision::kDouble, h100));
  CHECK_FALSE(fused({128, 64, 64}, fft::Precision::kSingle, h100));
  CHECK(fused({64, 128, 128}, fft::Precision::kSingle, h100));
  fft::DeviceLimits without = h100;
  without.fused = false;
  CHECK_FALSE(fused({1024, 1024}, fft::Precision::kSingle, without));
  // Real pairs: half the threads a block (their kernels hold more registers) but on 256^2 planes.
  for (fft::Kind kind : {fft::Kind::kR2C, fft::Kind::kC2R}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      for (long long side : {128LL, 256LL, 512LL, 1024LL}) {
        CAPTURE(static_cast<int>(kind), static_cast<int>(precision), side);
        const long long dims[2] = {side, side};
        fft::FftPlanResult real = fft::plan_real(kind, 2, dims, 4, precision, h100);
        REQUIRE(real.plan.has_value());
        REQUIRE(real.plan->fused.has_value());
        const int full = precision == fft::Precision::kSingle ? 512 : 256;
        CHECK(real.plan->fused->threads == (side == 256 ? full : full / 2));
        for (const fft::FftPass& pass : real.plan->fused->passes) {
          CHECK(pass.threads_per_transform * pass.transforms_per_block == real.plan->fused->threads);
        }
      }
    }
  }
}

TEST_CASE("executor: fused axes in ticket order against the naive multi-dimensional DFT", "[fft][executor][cpu]") {
  // The planes' tiles run in the kernel's ticket order, the rows into the (poisoned) output and
  // the columns in place there, then a 3D plan's outermost axis; in place the same, on the input.
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::uint64_t salt = 5500;
  for (const std::vector<long long>& dims : std::vector<std::vector<long long>>{{128, 128}, {3, 128, 128}}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const long long batch = 2;
      fft::FftPlanResult result = fft::plan_c2c(static_cast<int>(dims.size()), dims.data(), batch, precision, h100);
      CAPTURE(dims, static_cast<int>(precision));
      REQUIRE(result.plan.has_value());
      const fft::FftPlan& plan = *result.plan;
      INFO(plan.to_string());
      REQUIRE(plan.fused.has_value());
      REQUIRE(plan.fused->kind == fft::FusedKind::kAxes);
      const std::size_t count = static_cast<std::size_t>(plan.n * batch);
      const std::vector<Complex> input = random_input(count, ++salt);
      for (int sign : {-1, +1}) {
        CAPTURE(sign);
        const std::vector<Complex> out = executed_against_naive(plan, input, dims, batch, sign);
        std::vector<Complex> in_place = input;
        fft::reference::execute(plan, sign, in_place.data(), in_place.data());
        CHECK(in_place == out);
        // The same passes run one after the other give the same bits.
        fft::FftPlan unfused = plan;
        unfused.fused.reset();
        std::vector<Complex> separate = poisoned(count);
        fft::reference::execute(unfused, sign, input.data(), separate.data());
        CHECK(separate == out);
      }
    }
  }
}

TEST_CASE("executor: fused pairs match their passes run one after the other, in any tile order",
          "[fft][executor][cpu]") {
  // The tuned 256^2 planes, and fp64 1024^2 (column tiles of T = 2), where a naive DFT would be
  // slow: fused (ticket order, short column tiles) against the same passes as separate launches,
  // out of place and in place. A C2R overwrites its input, so each run gets a fresh copy. C2C
  // and C2R pairs give the same bits; R2C pairs run their axis pass's last column packed into
  // column 0 (FftPass::nyquist_packed), so they agree within rounding. Any tile order gives
  // the same bits.
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::uint64_t salt = 5700;
  struct Case {
    fft::Kind kind;
    std::vector<long long> dims;
    fft::Precision precision;
  };
  const std::vector<Case> cases = {
      {fft::Kind::kC2C, {256, 256}, fft::Precision::kSingle},    {fft::Kind::kR2C, {256, 256}, fft::Precision::kSingle},
      {fft::Kind::kC2R, {256, 256}, fft::Precision::kDouble},    {fft::Kind::kR2C, {1024, 1024}, fft::Precision::kDouble},
      {fft::Kind::kC2R, {1024, 1024}, fft::Precision::kDouble}, {fft::Kind::kC2R, {2, 256, 256}, fft::Precision::kSingle}};
  for (const Case& c : cases) {
    const int rank = static_cast<int>(c.dims.size());
    const long long batch = 2;
    CAPTURE(static_cast<int>(c.kind), c.dims, static_cast<int>(c.precision));
    fft::FftPlanResult result = c.kind == fft::Kind::kC2C
                                    ? fft::plan_c2c(rank, c.dims.data(), batch, c.precision, h100)
                                    : fft::plan_real(c.kind, rank, c.dims.data(), batch, c.precision, h100);
    REQUIRE(result.plan.has_value());
    const fft::FftPlan& plan = *result.plan;
    INFO(plan.to_string());
    REQUIRE(plan.fused.has_value());
    fft::FftPlan unfused = plan;
    unfused.fused.reset();
    long long rows = batch;
    for (int axis = 0; axis + 1 < rank; ++axis) rows *= c.dims[static_cast<std::size_t>(axis)];
    const long long n = c.dims.back();
    // Complex values a row on each side (real side: n / 2 out of place, n / 2 + 1 in place).
    const long long complex_row = c.kind == fft::Kind::kC2C ? n : n / 2 + 1;
    const long long in_row = c.kind == fft::Kind::kR2C ? n / 2 : complex_row;
    const long long out_row = c.kind == fft::Kind::kC2R ? n / 2 : complex_row;
    const int sign = c.kind == fft::Kind::kC2R ? +1 : -1;
    const std::vector<Complex> input = random_input(static_cast<std::size_t>(rows * in_row), ++salt);
    // C2C, C2R: the same bits; R2C: within rounding.
    const auto agree = [&](const std::vector<Complex>& got, const std::vector<Complex>& want) {
      if (c.kind != fft::Kind::kR2C) return got == want;
      return relative_error(got, std::vector<ComplexL>(want.begin(), want.end())) < kTolerance;
    };
    CHECK(plan.fused->passes[1].nyquist_packed == (c.kind == fft::Kind::kR2C));
    CHECK_FALSE(plan.fused->passes[0].nyquist_packed);
    std::vector<Complex> in_a = input, in_b = input;
    std::vector<Complex> out_a = poisoned(static_cast<std::size_t>(rows * out_row)), out_b = out_a;
    fft::reference::execute(plan, sign, in_a.data(), out_a.data());
    fft::reference::execute(unfused, sign, in_b.data(), out_b.data());
    CHECK(agree(out_a, out_b));
    // Tiles the kernel may run at once, met in the opposite order: no tile reads what another
    // writes.
    std::vector<Complex> in_c = input;
    std::vector<Complex> out_c = poisoned(out_a.size());
    fft::reference::execute(plan, sign, in_c.data(), out_c.data(), fft::reference::TileOrder::kReversed);
    CHECK(out_c == out_a);
    // In place: the padded layout on a real side.
    std::vector<Complex> place_a = poisoned(static_cast<std::size_t>(rows * complex_row));
    for (long long r = 0; r < rows; ++r) {
      for (long long k = 0; k < in_row; ++k) place_a[r * complex_row + k] = input[r * in_row + k];
    }
    std::vector<Complex> place_b = place_a;
    std::vector<Complex> place_c = place_a;
    fft::reference::execute(plan, sign, place_a.data(), place_a.data());
    fft::reference::execute(unfused, sign, place_b.data(), place_b.data());
    fft::reference::execute(plan, sign, place_c.data(), place_c.data(), fft::reference::TileOrder::kReversed);
    // Compared where the results lie (a C2R's padding slots are not written).
    std::vector<Complex> lie_a, lie_b, lie_c;
    for (long long r = 0; r < rows; ++r) {
      for (long long k = 0; k < out_row; ++k) {
        lie_a.push_back(place_a[r * complex_row + k]);
        lie_b.push_back(place_b[r * complex_row + k]);
        lie_c.push_back(place_c[r * complex_row + k]);
      }
    }
    CHECK(agree(lie_a, lie_b));
    CHECK(lie_c == lie_a);
  }
}

TEST_CASE("executor: 2D and 3D plans against the naive multi-dimensional DFT", "[fft][executor][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const std::vector<std::vector<long long>> shapes = {{4, 8},   {16, 16},   {32, 64},  {64, 2},   {3, 5},
                                                      {12, 10}, {7, 11},    {128, 13}, {4, 4, 4}, {8, 16, 32},
                                                      {3, 5, 7}, {2, 9, 16}, {6, 10, 12}};
  std::uint64_t salt = 5000;
  for (const std::vector<long long>& dims : shapes) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const long long batch = 1 + static_cast<long long>(salt % 3);
      fft::FftPlanResult result = fft::plan_c2c(static_cast<int>(dims.size()), dims.data(), batch, precision, h100);
      CAPTURE(dims, batch, static_cast<int>(precision), result.reason);
      REQUIRE(result.plan.has_value());
      const fft::FftPlan& plan = *result.plan;
      INFO(plan.to_string());
      const std::size_t count = static_cast<std::size_t>(plan.n * batch);
      const std::vector<Complex> input = random_input(count, ++salt);
      for (int sign : {-1, +1}) {
        CAPTURE(sign);
        const std::vector<ComplexL> want = naive_dft_nd(input, dims, batch, sign);
        std::vector<Complex> out = poisoned(count);
        fft::reference::execute(plan, sign, input.data(), out.data());
        CHECK(relative_error(out, want) < kTolerance);
        std::vector<Complex> in_place = input;
        fft::reference::execute(plan, sign, in_place.data(), in_place.data());
        CHECK(relative_error(in_place, want) < kTolerance);
      }
    }
  }
}

TEST_CASE("planner and executor: IDGPU_FFT_COLUMN_LINES sets the lines of passes over lines where they fit",
          "[fft][planner][executor][cpu]") {
  // 1000 x 1000 fp32: the outer axis's 1000 lines, 67 threads each, take 4 a block by the sizing
  // rules (32-byte rows). 2, 5 and 8 divide 1000 and fit a block; 16 would need 1072 threads,
  // and 3 neither divides 1000 nor is a power of two: those keep the rules' 4. The rows pass is
  // not a pass over lines and keeps its transforms.
  fft::DeviceLimits limits = fft::DeviceLimits::h100();
  const long long plane[2] = {1000, 1000};
  const auto planned = [&](int lines) {
    limits.column_lines = lines;
    fft::FftPlanResult result = fft::plan_c2c(2, plane, 3, fft::Precision::kSingle, limits);
    REQUIRE(result.plan.has_value());
    REQUIRE(result.plan->passes.size() == 2);
    return *result.plan;
  };
  const fft::FftPlan rules = planned(0);
  REQUIRE(rules.passes[1].sub_transforms == 1000);
  CHECK(rules.passes[1].transforms_per_block == 4);
  const std::vector<std::pair<int, int>> counts = {{2, 2}, {5, 5}, {8, 8}, {16, 4}, {3, 4}, {2000, 4}};
  for (const auto& [lines, want] : counts) {
    CAPTURE(lines);
    const fft::FftPlan plan = planned(lines);
    INFO(plan.to_string());
    CHECK(plan.passes[0].transforms_per_block == rules.passes[0].transforms_per_block);
    CHECK(plan.passes[1].transforms_per_block == want);
    CHECK(!plan.passes[1].straddles);
    CHECK(plan.passes[1].blocks * plan.passes[1].transforms_per_block >= 1000 * 3);
  }

  // Small shapes run by the host executor as the kernels index them, against the naive DFT: the
  // lines divide (T = 8 of 40, 4 of 12 and of 120) or, along an axis, straddle (16 of 40, of 120).
  struct Case {
    std::vector<long long> dims;
    int lines;
    std::vector<int> want;  // transforms per block of each pass, innermost first
    std::vector<bool> straddles;
  };
  const std::vector<Case> cases = {{{20, 40}, 8, {0, 8}, {false, false}},
                                   {{20, 40}, 16, {0, 16}, {false, true}},
                                   {{6, 10, 12}, 4, {0, 4, 4}, {false, false, false}},
                                   {{6, 10, 12}, 16, {0, 0, 16}, {false, false, true}}};
  std::uint64_t salt = 7000;
  for (const Case& c : cases) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      CAPTURE(c.dims, c.lines, static_cast<int>(precision));
      const int rank = static_cast<int>(c.dims.size());
      const long long batch = 2;
      limits.column_lines = 0;
      const fft::FftPlanResult by_rules = fft::plan_c2c(rank, c.dims.data(), batch, precision, limits);
      limits.column_lines = c.lines;
      const fft::FftPlanResult result = fft::plan_c2c(rank, c.dims.data(), batch, precision, limits);
      REQUIRE(by_rules.plan.has_value());
      REQUIRE(result.plan.has_value());
      const fft::FftPlan& plan = *result.plan;
      INFO(plan.to_string());
      REQUIRE(plan.passes.size() == c.dims.size());
      for (std::size_t i = 0; i < plan.passes.size(); ++i) {
        CAPTURE(i);
        // 0: the rules' choice (a pass of whole transforms, or lines the count does not fit).
        const int want = c.want[i] != 0 ? c.want[i] : by_rules.plan->passes[i].transforms_per_block;
        CHECK(plan.passes[i].transforms_per_block == want);
        CHECK(plan.passes[i].straddles == c.straddles[i]);
      }
      check_nd_against_naive(plan, c.dims, batch, ++salt);
    }
  }
}

TEST_CASE("planner and executor: passes over lines take rows of whole 32-byte sectors where a divisor gives them",
          "[fft][planner][executor][cpu]") {
  // The lines a block of a pass over lines: the largest divisor of the lines that fits a block,
  // unless, in fp32, that is 5-7 lines (40-56-byte rows, straddling 32-byte sectors) and 4 divides
  // the lines. Outer axes of 1000 points (67 threads a line, so at most 7 lines a block): 1000 x
  // 1000 and 1000 x 20 take 4 lines where their divisor 5 gave 40 bytes; 40 x 20 keeps 10 lines
  // (80 bytes: rows of 64 bytes or more stay), 64 x 24 keeps 12 (96 bytes). fp64 keeps the
  // largest divisor: 5 (80 bytes) of 1000 and of 20, 8 (128 bytes) of 24.
  struct Case {
    std::vector<long long> dims;  // outermost first
    fft::Precision precision;
    int want;  // the outer axis's lines a block
  };
  const std::vector<Case> cases = {
      {{1000, 1000}, fft::Precision::kSingle, 4}, {{1000, 1000}, fft::Precision::kDouble, 5},
      {{1000, 20}, fft::Precision::kSingle, 4},   {{1000, 20}, fft::Precision::kDouble, 5},
      {{40, 20}, fft::Precision::kSingle, 10},    {{40, 20}, fft::Precision::kDouble, 5},
      {{64, 24}, fft::Precision::kSingle, 12},    {{64, 24}, fft::Precision::kDouble, 8}};
  const fft::DeviceLimits limits = fft::DeviceLimits::h100();
  std::uint64_t salt = 7100;
  for (const Case& c : cases) {
    CAPTURE(c.dims, static_cast<int>(c.precision));
    const long long batch = 2;
    const fft::FftPlanResult result = fft::plan_c2c(2, c.dims.data(), batch, c.precision, limits);
    REQUIRE(result.plan.has_value());
    const fft::FftPlan& plan = *result.plan;
    INFO(plan.to_string());
    REQUIRE(plan.passes.size() == 2);
    REQUIRE(plan.passes[1].sub_transforms == c.dims[1]);
    CHECK(plan.passes[1].transforms_per_block == c.want);
    CHECK(!plan.passes[1].straddles);
    if (c.dims[0] * c.dims[1] <= 20000) check_nd_against_naive(plan, c.dims, batch, ++salt);  // the small shapes
  }
}

// Runs a 1D R2C plan and a C2R plan of length n on `batch` random real sequences, out of place
// and in place (cuFFT's padded layout), against the naive DFT; C2R out of place must leave its
// input as it was.
// Fused plans' tiles run in `order` (reference::TileOrder). Powers of two above 2^12 are checked
// against the radix-2 FFT in long double, other lengths against the naive DFT.
// A pairing of a cluster's NA rows over its blocks of TB = 2^rows_log2 rows (place: k2 -> (rank,
// row); k2_of its inverse): every row in one place, the places a bijection, and the row that
// partner_row gives in the same block holding partner_of(k2).
template <class Place, class K2Of, class PartnerRow, class PartnerOf>
void check_row_pairing(int bits_a, int rows_log2, Place place, K2Of k2_of, PartnerRow partner_row, PartnerOf partner_of) {
  const int na = 1 << bits_a;
  const int rows = 1 << rows_log2;
  std::vector<int> seen(static_cast<std::size_t>(na), 0);
  bool consistent = true;
  for (int k2 = 0; k2 < na; ++k2) {
    int rank = -1, row = -1;
    place(k2, rows_log2, bits_a, &rank, &row);
    const bool inside = rank >= 0 && rank < na / rows && row >= 0 && row < rows;
    consistent = consistent && inside && k2_of(rank, row, rows_log2, bits_a) == k2 &&
                 k2_of(rank, partner_row(rank, row), rows_log2, bits_a) == partner_of(k2);
    if (inside) ++seen[static_cast<std::size_t>(rank * rows + row)];
  }
  CHECK(consistent);
  CHECK(std::all_of(seen.begin(), seen.end(), [](int count) { return count == 1; }));
}

void check_real_1d(const fft::FftPlan& r2c, const fft::FftPlan& c2r, long long n, long long batch, std::uint64_t salt,
                   fft::reference::TileOrder order = fft::reference::TileOrder::kTickets) {
  const long long half = n / 2;
  INFO(r2c.to_string() << "\n" << c2r.to_string());
  // Random reals, and their exact spectrum (the DFT of the real sequence as complex).
  const std::vector<Complex> noise = random_input(static_cast<std::size_t>(n * batch), ++salt);
  std::vector<Complex> real_as_complex(static_cast<std::size_t>(n * batch));
  for (std::size_t i = 0; i < real_as_complex.size(); ++i) real_as_complex[i] = {noise[i].real(), 0.0};
  std::vector<ComplexL> spectrum;
  if ((n & (n - 1)) == 0 && n > 4096) {
    for (long long b = 0; b < batch; ++b) {
      const std::vector<Complex> one(real_as_complex.begin() + b * n, real_as_complex.begin() + (b + 1) * n);
      const std::vector<ComplexL> part = radix2_fft(one, -1);
      spectrum.insert(spectrum.end(), part.begin(), part.end());
    }
  } else {
    spectrum = naive_dft(real_as_complex, n, batch, -1);
  }
  std::vector<ComplexL> want_half(static_cast<std::size_t>((half + 1) * batch));
  for (long long b = 0; b < batch; ++b) {
    for (long long k = 0; k <= half; ++k) want_half[b * (half + 1) + k] = spectrum[b * n + k];
  }
  // R2C out of place: n reals (n / 2 complex) a transform in, n / 2 + 1 out.
  std::vector<Complex> packed(static_cast<std::size_t>(half * batch));
  for (long long b = 0; b < batch; ++b) {
    for (long long m = 0; m < half; ++m) packed[b * half + m] = {noise[b * n + 2 * m].real(), noise[b * n + 2 * m + 1].real()};
  }
  std::vector<Complex> out = poisoned(static_cast<std::size_t>((half + 1) * batch));
  fft::reference::execute(r2c, -1, packed.data(), out.data(), order);
  CHECK(relative_error(out, want_half) < kTolerance);
  // In place, cuFFT's padded layout: 2 (n / 2 + 1) reals a transform.
  std::vector<Complex> padded = poisoned(static_cast<std::size_t>((half + 1) * batch));
  for (long long b = 0; b < batch; ++b) {
    for (long long m = 0; m < half; ++m) padded[b * (half + 1) + m] = packed[b * half + m];
  }
  fft::reference::execute(r2c, -1, padded.data(), padded.data());
  CHECK(relative_error(padded, want_half) < kTolerance);
  // C2R of that spectrum: n times the reals, out of place (n / 2 complex out) and in place.
  std::vector<Complex> spectrum_in(want_half.size());
  for (std::size_t i = 0; i < spectrum_in.size(); ++i) spectrum_in[i] = Complex(want_half[i]);
  std::vector<ComplexL> want_real(static_cast<std::size_t>(half * batch));
  for (std::size_t i = 0; i < want_real.size(); ++i) want_real[i] = ComplexL(packed[i]) * static_cast<long double>(n);
  std::vector<Complex> back = poisoned(static_cast<std::size_t>(half * batch));
  const std::vector<Complex> spectrum_copy = spectrum_in;
  fft::reference::execute(c2r, +1, spectrum_in.data(), back.data(), order);
  CHECK(relative_error(back, want_real) < kTolerance);
  CHECK(spectrum_in == spectrum_copy);  // out of place, the input is left as it was
  fft::reference::execute(c2r, +1, spectrum_in.data(), spectrum_in.data());
  std::vector<Complex> unpadded(static_cast<std::size_t>(half * batch));
  for (long long b = 0; b < batch; ++b) {
    for (long long m = 0; m < half; ++m) unpadded[b * half + m] = spectrum_in[b * (half + 1) + m];
  }
  CHECK(relative_error(unpadded, want_real) < kTolerance);
}

TEST_CASE("executor: real plans (R2C, C2R) against the naive DFT, in and out of place", "[fft][executor][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::uint64_t salt = 7000;
  for (long long n : {4LL, 6LL, 8LL, 10LL, 16LL, 30LL, 64LL, 100LL, 256LL, 1000LL, 2048LL, 4096LL, 8192LL}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const long long batch = 1 + static_cast<long long>(salt % 3);
      const long long half = n / 2;
      CAPTURE(n, batch, static_cast<int>(precision));
      fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, n, batch, precision, h100);
      fft::FftPlanResult c2r = fft::plan_real_1d(fft::Kind::kC2R, n, batch, precision, h100);
      INFO(r2c.reason << c2r.reason);
      REQUIRE(r2c.plan.has_value());
      REQUIRE(c2r.plan.has_value());
      REQUIRE(r2c.plan->passes.size() == 1);
      CHECK(r2c.plan->passes[0].real_step == fft::RealStep::kPackR2C);
      CHECK(c2r.plan->passes[0].real_step == fft::RealStep::kUnpackC2R);
      CHECK(r2c.plan->passes[0].size == half);
      check_real_1d(*r2c.plan, *c2r.plan, n, batch, salt);
      salt += 2;
    }
  }
  // Lengths below 3 are declined, and so is a kind that is not real. (A half with a prime factor
  // above 13: the Bluestein case further on.)
  CHECK(!fft::plan_real_1d(fft::Kind::kC2R, 2, 1, fft::Precision::kSingle, h100).plan);
  CHECK(!fft::plan_real_1d(fft::Kind::kC2C, 16, 1, fft::Precision::kSingle, h100).plan);
}

TEST_CASE("executor: two-pass real plans, the real step paired across columns", "[fft][executor][cpu][real]") {
  // Limits under which a pass holds about 256 fp32 points (128 fp64): n / 2 above that takes two
  // passes, the real step in the last (R2C) or first (C2R) pass, columns paired (paired_frame).
  const fft::DeviceLimits small = small_limits(64);
  std::uint64_t salt = 8000;
  int planned = 0;
  for (long long n : {1024LL, 2048LL, 4096LL, 1200LL, 2000LL, 1536LL, 4608LL, 1458LL}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const long long batch = 1 + static_cast<long long>(salt % 3);
      CAPTURE(n, batch, static_cast<int>(precision));
      fft::DeviceLimits limits = small;  // room for two columns of the largest pass
      limits.shared_bytes_per_block *= precision == fft::Precision::kDouble ? 8 : 4;
      fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, n, batch, precision, limits);
      fft::FftPlanResult c2r = fft::plan_real_1d(fft::Kind::kC2R, n, batch, precision, limits);
      INFO(r2c.reason << " / " << c2r.reason);
      if (!r2c.plan) {
        // 1458 = 2 x 729: 27 x 27, odd columns.
        CHECK(r2c.reason.find("odd number of columns") != std::string::npos);
        CHECK(!c2r.plan);
        continue;
      }
      REQUIRE(c2r.plan.has_value());
      REQUIRE(r2c.plan->passes.size() == 2);
      REQUIRE(c2r.plan->passes.size() == 2);
      CHECK(r2c.plan->passes[1].real_step == fft::RealStep::kPairedR2C);
      CHECK(c2r.plan->passes[0].real_step == fft::RealStep::kPairedC2R);
      CHECK(r2c.plan->passes[0].size * r2c.plan->passes[1].size == n / 2);
      CHECK(r2c.plan->work_bytes == 0);
      CHECK(r2c.plan->passes[1].transforms_per_block % 2 == 0);
      check_real_1d(*r2c.plan, *c2r.plan, n, batch, salt);
      salt += 2;
      ++planned;
    }
  }
  CHECK(planned >= 12);
  // The groups each execution gives the passes (execution_pass): R2C out of place reads n / 2 a
  // transform and keeps n / 2 + 1 for the intermediate (in the output) and the output; in place
  // it reads n / 2 + 1 and keeps n / 2 (in a temporary array).
  fft::DeviceLimits limits = small;
  limits.shared_bytes_per_block *= 4;
  fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, 4096, 3, fft::Precision::kSingle, limits);
  REQUIRE(r2c.plan.has_value());
  CHECK(fft::execution_pass(*r2c.plan, 0, false).in_group == 2048);
  CHECK(fft::execution_pass(*r2c.plan, 0, false).out_group == 2049);
  CHECK(fft::execution_pass(*r2c.plan, 1, false).in_group == 2049);
  CHECK(fft::execution_pass(*r2c.plan, 1, false).out_group == 2049);
  CHECK(fft::execution_pass(*r2c.plan, 0, true).out_group == 2048);
  CHECK(fft::execution_pass(*r2c.plan, 1, true).in_group == 2048);
  CHECK(fft::execution_pass(*r2c.plan, 1, true).out_group == 2049);
  CHECK(fft::execution_pass(*r2c.plan, 0, true).in_group == 2049);
  // Every column of a transform in exactly one block, its partner in the same block.
  const fft::FftPass& last = r2c.plan->passes[1];
  const fft::PassShape shape = fft::pass_shape(*r2c.plan, last);
  std::vector<int> seen(static_cast<std::size_t>(last.sub_transforms), 0);
  for (long long g0 = 0; g0 < last.sub_transforms; g0 += shape.per_block) {
    const fft::PairedFrame frame = fft::paired_frame(shape, g0);
    std::vector<long long> columns;
    for (int tr = 0; tr < shape.per_block; ++tr) columns.push_back(fft::paired_column(shape, frame.j0, tr));
    for (int tr = 0; tr < shape.per_block; ++tr) {
      ++seen[static_cast<std::size_t>(columns[tr])];
      int ptr = 0, pe = 0;
      fft::paired_partner(shape, columns[tr], tr, 1, &ptr, &pe);
      CHECK((columns[tr] + columns[ptr]) % last.sub_transforms == 0);
    }
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int count) { return count == 1; }));
}

TEST_CASE("executor: 1D real plans whose half is a cluster length", "[fft][executor][cpu][real]") {
  // n = 2^15..2^18 (M = 2^14..2^17) under the H100's limits: one cluster kernel whose stages are
  // the two-pass real plan's passes, the real step across the cluster's blocks
  // (cluster_real_partner); in and out of place, against a long-double FFT. M = 2^17: 16 blocks
  // of 512 threads (complex plans stop at 2^16).
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::uint64_t salt = 8300;
  for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (int bits = fft::kClusterMinBits + 1; bits <= fft::kClusterRealMaxBits + 1; ++bits) {
      const long long n = 1LL << bits;
      const long long batch = bits == fft::kClusterMinBits + 1 ? 2 : 1;
      CAPTURE(n, batch, static_cast<int>(precision));
      fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, n, batch, precision, h100);
      fft::FftPlanResult c2r = fft::plan_real_1d(fft::Kind::kC2R, n, batch, precision, h100);
      INFO(r2c.reason << " / " << c2r.reason);
      REQUIRE(r2c.plan.has_value());
      REQUIRE(c2r.plan.has_value());
      CHECK(r2c.plan->cluster.has_value());
      CHECK(c2r.plan->cluster.has_value());
      CHECK_FALSE(r2c.plan->fused.has_value());
      REQUIRE(r2c.plan->passes.size() == 2);
      CHECK(r2c.plan->passes[1].real_step == fft::RealStep::kPairedR2C);
      CHECK(c2r.plan->passes[0].real_step == fft::RealStep::kPairedC2R);
      CHECK(r2c.plan->passes[0].size == 1LL << fft::cluster_bits_a(bits - 1));
      CHECK(r2c.plan->cluster->rank_bits == std::min(bits - 13, 4));
      CHECK(r2c.plan->cluster->threads == (bits - 1 <= fft::kClusterMaxBits ? 256 : 512));
      CHECK(r2c.plan->cluster->shared_bytes <= h100.shared_bytes_per_block);
      CHECK(r2c.plan->work_bytes == 0);
      check_real_1d(*r2c.plan, *c2r.plan, n, batch, salt);
      salt += 2;
    }
  }
  // The partner of output k = k2 + NA k1 is M - k (mod M), for every k of a split.
  for (const auto& [bits_a, bits_b] : {std::pair{7, 7}, std::pair{8, 7}, std::pair{8, 8}}) {
    const long long half = 1LL << (bits_a + bits_b);
    bool all = true;
    for (int k2 = 0; k2 < (1 << bits_a); ++k2) {
      for (int k1 = 0; k1 < (1 << bits_b); ++k1) {
        int partner_k2 = 0, partner_k1 = 0;
        fft::cluster_real_partner(k2, k1, bits_a, bits_b, &partner_k2, &partner_k1);
        const long long k = k2 + (static_cast<long long>(k1) << bits_a);
        const long long partner = partner_k2 + (static_cast<long long>(partner_k1) << bits_a);
        all = all && partner_k2 >= 0 && partner_k2 < (1 << bits_a) && partner_k1 >= 0 &&
              partner_k1 < (1 << bits_b) && (k + partner) % half == 0;
      }
    }
    CAPTURE(bits_a, bits_b);
    CHECK(all);
  }
  // R2C's rows paired within the blocks (cluster_paired_row): each row's partner NA - k2 (mod
  // NA) in the same block at cluster_paired_partner_row.
  for (const auto& [bits_a, rows_log2] : {std::pair{7, 5}, std::pair{8, 5}, std::pair{8, 4}, std::pair{8, 1}}) {
    CAPTURE(bits_a, rows_log2);
    check_row_pairing(bits_a, rows_log2, fft::cluster_paired_row, fft::cluster_paired_k2,
                      [&](int rank, int row) { return fft::cluster_paired_partner_row(rank, row, rows_log2); },
                      [&](int k2) { return ((1 << bits_a) - k2) % (1 << bits_a); });
  }
  // Without clusters (sm_80), and from n = 2^19, the two passes of plan_real's two-pass plan; a
  // complex 2^17 is no cluster plan either.
  fft::DeviceLimits a100 = h100;
  a100.clusters = false;
  const auto clustered = [](const fft::FftPlanResult& planned) {
    REQUIRE(planned.plan.has_value());
    return planned.plan->cluster.has_value();
  };
  CHECK_FALSE(clustered(fft::plan_real_1d(fft::Kind::kR2C, 1LL << 17, 1, fft::Precision::kSingle, a100)));
  CHECK_FALSE(clustered(fft::plan_real_1d(fft::Kind::kR2C, 1LL << 19, 1, fft::Precision::kSingle, h100)));
  CHECK(clustered(fft::plan_real_1d(fft::Kind::kC2R, 1LL << 18, 1, fft::Precision::kDouble, h100)));
  CHECK_FALSE(fft::plan_c2c_1d(1LL << 17, 1, fft::Precision::kSingle, h100).plan->cluster.has_value());
  // An even length that is not a power of two keeps its plan; so do ranks 2 and 3.
  CHECK_FALSE(clustered(fft::plan_real_1d(fft::Kind::kR2C, 3LL << 15, 1, fft::Precision::kSingle, h100)));
  const long long plane[2] = {4, 1LL << 15};
  const fft::FftPlanResult two_d = fft::plan_real(fft::Kind::kR2C, 2, plane, 1, fft::Precision::kSingle, h100);
  CHECK((!two_d.plan || !two_d.plan->cluster));
}

TEST_CASE("executor: two-pass real plans over cluster column passes", "[fft][executor][cpu][real][cluster-columns]") {
  // n = 2^23 (M = 2^11 x 2^11) under the H100's limits: both passes cluster column passes, the
  // paired one with its real step (R2C's last pass, column out; C2R's first, contiguous out), in
  // poisoned buffers as the kernel's data flow; in and out of place against a long-double FFT.
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::uint64_t salt = 8400;
  for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    const long long n = 1LL << 23;
    CAPTURE(static_cast<int>(precision));
    fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, n, 1, precision, h100);
    fft::FftPlanResult c2r = fft::plan_real_1d(fft::Kind::kC2R, n, 1, precision, h100);
    INFO(r2c.reason << " / " << c2r.reason);
    REQUIRE(r2c.plan.has_value());
    REQUIRE(c2r.plan.has_value());
    INFO(r2c.plan->to_string() << "\n" << c2r.plan->to_string());
    for (const fft::FftPlan* plan : {&*r2c.plan, &*c2r.plan}) {
      REQUIRE(plan->passes.size() == 2);
      CHECK_FALSE(plan->cluster.has_value());
      CHECK_FALSE(plan->fused.has_value());
      for (const fft::FftPass& pass : plan->passes) {
        REQUIRE(pass.cluster.has_value());
        CHECK(pass.cluster->contiguous_out == (pass.span_before == 1));
      }
    }
    CHECK(r2c.plan->passes[1].real_step == fft::RealStep::kPairedR2C);
    CHECK(c2r.plan->passes[0].real_step == fft::RealStep::kPairedC2R);
    check_real_1d(*r2c.plan, *c2r.plan, n, 1, salt);
    salt += 2;
  }
  // n = 2^22 (M = 2^10 x 2^11): only the 2^11-point pass clusters (R2C's paired last pass, C2R's
  // complex last pass), beside a pass kernel's paired or complex pass.
  {
    const long long n = 1LL << 22;
    fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, n, 1, fft::Precision::kSingle, h100);
    fft::FftPlanResult c2r = fft::plan_real_1d(fft::Kind::kC2R, n, 1, fft::Precision::kSingle, h100);
    REQUIRE(r2c.plan.has_value());
    REQUIRE(c2r.plan.has_value());
    INFO(r2c.plan->to_string() << "\n" << c2r.plan->to_string());
    int clustered = 0;
    for (const fft::FftPlan* plan : {&*r2c.plan, &*c2r.plan}) {
      REQUIRE(plan->passes.size() == 2);
      for (const fft::FftPass& pass : plan->passes) {
        CHECK(pass.cluster.has_value() == (pass.size >= (1LL << fft::kClusterColumnMinBits)));
        clustered += pass.cluster.has_value() ? 1 : 0;
      }
    }
    CHECK(clustered == 2);
    check_real_1d(*r2c.plan, *c2r.plan, n, 1, salt);
    salt += 2;
  }
  // Without cluster columns the same lengths keep the paired pass kernels.
  fft::DeviceLimits plain = h100;
  plain.cluster_columns = false;
  const fft::FftPlanResult kept = fft::plan_real_1d(fft::Kind::kR2C, 1LL << 23, 1, fft::Precision::kSingle, plain);
  REQUIRE(kept.plan.has_value());
  for (const fft::FftPass& pass : kept.plan->passes) CHECK_FALSE(pass.cluster.has_value());
  // A paired group of T lines: the columns j0 .. j0 + T/2 - 1 and their partners, every column of
  // S once over the groups, line l's partner line (cluster_paired_line) holding S - c (mod S).
  for (const auto& [sub, lines_log2] : {std::pair{16LL, 4}, std::pair{64LL, 4}, std::pair{2048LL, 4}, std::pair{64LL, 3}}) {
    const int lines = 1 << lines_log2;
    std::vector<int> seen(static_cast<std::size_t>(sub), 0);
    bool consistent = true;
    for (long long j0 = 0; j0 < sub / 2; j0 += lines / 2) {
      for (int line = 0; line < lines; ++line) {
        const long long column = fft::cluster_paired_column(sub, j0, line, lines_log2);
        consistent = consistent && column >= 0 && column < sub;
        if (column < 0 || column >= sub) continue;
        ++seen[static_cast<std::size_t>(column)];
        const int partner = fft::cluster_paired_line(sub, column, line, lines_log2);
        consistent = consistent && partner >= 0 && partner < lines &&
                     (column + fft::cluster_paired_column(sub, j0, partner, lines_log2)) % sub == 0;
      }
    }
    CAPTURE(sub, lines_log2);
    CHECK(consistent);
    CHECK(std::all_of(seen.begin(), seen.end(), [](int count) { return count == 1; }));
  }
  // R2C's mirrored rows (cluster_mirror_row): row r's partner NA - 1 - k2 at row TB - 1 - r of
  // the same block.
  for (const auto& [bits_a, rows_log2] : {std::pair{6, 3}, std::pair{6, 2}, std::pair{7, 3}, std::pair{6, 1}}) {
    CAPTURE(bits_a, rows_log2);
    check_row_pairing(bits_a, rows_log2, fft::cluster_mirror_row, fft::cluster_mirror_k2,
                      [&](int, int row) { return (1 << rows_log2) - 1 - row; },
                      [&](int k2) { return (1 << bits_a) - 1 - k2; });
  }
}

TEST_CASE("executor: real planes whose outer axis is a cluster column pass (R2C packed, C2R where T divides n / 2 + 1)",
          "[fft][executor][cpu][real][cluster-columns]") {
  // An R2C plane's axis of 2^11..2^13 points over its n / 2 + 1 lines: line n / 2 packed into
  // line 0 (nyquist_packed), clusters over the n / 2 others; against the same plan with the axis
  // as the pass kernels run it, out of place and in place (cuFFT's padded layout).
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  fft::DeviceLimits plain = h100;
  plain.cluster_columns = false;
  struct Shape {
    std::vector<long long> dims;
    long long batch;
    fft::Precision precision;
  };
  std::uint64_t salt = 9400;
  for (const auto& [dims, batch, precision] : {Shape{{2048, 32}, 2, fft::Precision::kSingle},
                                               Shape{{4096, 64}, 1, fft::Precision::kSingle},
                                               Shape{{8192, 32}, 1, fft::Precision::kSingle},
                                               Shape{{2048, 16}, 1, fft::Precision::kDouble},
                                               Shape{{3, 2048, 32}, 1, fft::Precision::kSingle}}) {
    CAPTURE(dims, batch, static_cast<int>(precision));
    const int rank = static_cast<int>(dims.size());
    const long long n = dims.back();
    const long long slots = n / 2 + 1;
    long long rows = 1;  // rows of the innermost axis a transform
    for (int axis = 0; axis + 1 < rank; ++axis) rows *= dims[static_cast<std::size_t>(axis)];
    fft::FftPlanResult r2c = fft::plan_real(fft::Kind::kR2C, rank, dims.data(), batch, precision, h100);
    fft::FftPlanResult reference = fft::plan_real(fft::Kind::kR2C, rank, dims.data(), batch, precision, plain);
    fft::FftPlanResult c2r = fft::plan_real(fft::Kind::kC2R, rank, dims.data(), batch, precision, h100);
    REQUIRE(r2c.plan.has_value());
    REQUIRE(reference.plan.has_value());
    REQUIRE(c2r.plan.has_value());
    INFO(r2c.plan->to_string());
    REQUIRE(r2c.plan->passes.size() == dims.size());
    const fft::FftPass& axis = r2c.plan->passes[1];
    REQUIRE(axis.cluster.has_value());
    CHECK(axis.nyquist_packed);
    CHECK_FALSE(axis.straddles);
    CHECK_FALSE(axis.cluster->contiguous_out);
    CHECK(axis.sub_transforms == slots);
    CHECK_FALSE(reference.plan->passes[1].cluster.has_value());
    CHECK_FALSE(reference.plan->passes[1].nyquist_packed);
    // C2R keeps its odd line count: no packed form (its inputs need not be Hermitian).
    CHECK_FALSE(c2r.plan->passes[static_cast<std::size_t>(rank - 2)].cluster.has_value());
    for (const fft::FftPass& pass : c2r.plan->passes) CHECK_FALSE(pass.nyquist_packed);
    const long long all_rows = rows * batch;
    const std::vector<Complex> noise = random_input(static_cast<std::size_t>(all_rows * n / 2), ++salt);
    std::vector<Complex> padded = poisoned(static_cast<std::size_t>(all_rows * slots));
    for (long long r = 0; r < all_rows; ++r) {
      for (long long m = 0; m < n / 2; ++m) padded[r * slots + m] = noise[r * (n / 2) + m];
    }
    std::vector<Complex> want = poisoned(padded.size());
    fft::reference::execute(*reference.plan, -1, noise.data(), want.data());
    std::vector<Complex> out = poisoned(padded.size());
    fft::reference::execute(*r2c.plan, -1, noise.data(), out.data());
    CHECK(relative_error(out, std::vector<ComplexL>(want.begin(), want.end())) < kTolerance);
    fft::reference::execute(*r2c.plan, -1, padded.data(), padded.data());
    CHECK(relative_error(padded, std::vector<ComplexL>(out.begin(), out.end())) < 1e-15);
  }
  // A C2R plane whose n / 2 + 1 lines T divides (n = 30: 16 fp32 lines; n = 14: 8 fp64 lines):
  // its axis an ordinary (inverse) cluster column pass, against the pass kernels' plan, out of
  // place and in place.
  for (const Shape& shape : {Shape{{2048, 30}, 2, fft::Precision::kSingle}, Shape{{4096, 14}, 1, fft::Precision::kDouble}}) {
    CAPTURE(shape.dims, static_cast<int>(shape.precision));
    const fft::FftPlanResult c2r = fft::plan_real(fft::Kind::kC2R, 2, shape.dims.data(), shape.batch, shape.precision, h100);
    const fft::FftPlanResult reference =
        fft::plan_real(fft::Kind::kC2R, 2, shape.dims.data(), shape.batch, shape.precision, plain);
    REQUIRE(c2r.plan.has_value());
    REQUIRE(reference.plan.has_value());
    INFO(c2r.plan->to_string());
    REQUIRE(c2r.plan->passes[0].cluster.has_value());
    CHECK_FALSE(c2r.plan->passes[0].nyquist_packed);
    CHECK_FALSE(reference.plan->passes[0].cluster.has_value());
    const long long slots = shape.dims[1] / 2 + 1;
    const long long count = shape.dims[0] * slots * shape.batch;
    const std::vector<Complex> spectrum = random_input(static_cast<std::size_t>(count), ++salt);
    const long long reals = shape.dims[0] * (shape.dims[1] / 2) * shape.batch;  // complex pairs out
    std::vector<Complex> input = spectrum;  // a multi-dimensional C2R overwrites its input
    std::vector<Complex> want = poisoned(static_cast<std::size_t>(reals));
    fft::reference::execute(*reference.plan, +1, input.data(), want.data());
    input = spectrum;
    std::vector<Complex> out = poisoned(static_cast<std::size_t>(reals));
    fft::reference::execute(*c2r.plan, +1, input.data(), out.data());
    CHECK(relative_error(out, std::vector<ComplexL>(want.begin(), want.end())) < kTolerance);
    std::vector<Complex> in_place = spectrum;
    fft::reference::execute(*c2r.plan, +1, in_place.data(), in_place.data());
    std::vector<Complex> unpadded(static_cast<std::size_t>(reals));
    const long long half = shape.dims[1] / 2;
    for (long long r = 0; r < shape.dims[0] * shape.batch; ++r) {
      for (long long m = 0; m < half; ++m) unpadded[r * half + m] = in_place[r * slots + m];
    }
    CHECK(relative_error(unpadded, std::vector<ComplexL>(out.begin(), out.end())) < 1e-15);
  }
  // An odd n / 2 + 1 - 1 that T does not divide (n = 40: 20 lines) keeps the pass kernels.
  const long long narrow[2] = {2048, 40};
  const fft::FftPlanResult kept = fft::plan_real(fft::Kind::kR2C, 2, narrow, 1, fft::Precision::kSingle, h100);
  REQUIRE(kept.plan.has_value());
  CHECK_FALSE(kept.plan->passes[1].cluster.has_value());
  CHECK_FALSE(kept.plan->passes[1].nyquist_packed);
}

TEST_CASE("executor: two-pass real plans fused out of place, tiles in either order", "[fft][executor][cpu][real]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::uint64_t salt = 8500;
  fft::DeviceLimits no_clusters = h100;
  no_clusters.clusters = false;
  const struct {
    long long n;
    fft::Precision precision;
    long long batch;
    bool clusters;
  } cases[] = {{1LL << 19, fft::Precision::kDouble, 2, true},
               // 2^15..2^18 are cluster plans where clusters are allowed (the test case above),
               // fused two-pass plans where not (sm_80).
               {1LL << 18, fft::Precision::kDouble, 1, false},
               {1LL << 16, fft::Precision::kDouble, 2, false}};
  for (const auto& c : cases) {
    CAPTURE(c.n, c.batch, static_cast<int>(c.precision), c.clusters);
    const fft::DeviceLimits& limits = c.clusters ? h100 : no_clusters;
    fft::FftPlanResult r2c = fft::plan_real_1d(fft::Kind::kR2C, c.n, c.batch, c.precision, limits);
    fft::FftPlanResult c2r = fft::plan_real_1d(fft::Kind::kC2R, c.n, c.batch, c.precision, limits);
    INFO(r2c.reason << " / " << c2r.reason);
    REQUIRE(r2c.plan.has_value());
    REQUIRE(c2r.plan.has_value());
    REQUIRE(r2c.plan->fused.has_value());
    REQUIRE(c2r.plan->fused.has_value());
    CHECK(r2c.plan->fused->kind == fft::FusedKind::kRealPairedForward);
    CHECK(c2r.plan->fused->kind == fft::FusedKind::kRealPairedInverse);
    CHECK(r2c.plan->fused->passes[1].real_step == fft::RealStep::kPairedR2C);
    CHECK(c2r.plan->fused->passes[0].real_step == fft::RealStep::kPairedC2R);
    for (fft::reference::TileOrder order : {fft::reference::TileOrder::kTickets, fft::reference::TileOrder::kReversed}) {
      check_real_1d(*r2c.plan, *c2r.plan, c.n, c.batch, salt, order);
      salt += 2;
    }
  }
  // fp32 runs its two passes as launches of their own (measured faster; plan_real_two_pass).
  for (fft::Kind kind : {fft::Kind::kR2C, fft::Kind::kC2R}) {
    fft::FftPlanResult single = fft::plan_real_1d(kind, 1LL << 19, 4, fft::Precision::kSingle, h100);
    REQUIRE(single.plan.has_value());
    CHECK(single.plan->passes.size() == 2);
    CHECK(!single.plan->fused);
  }
  // Under an H100's limits every pass of a two-pass real plan has at least 2^7 points: the paired
  // kernels are compiled from there on (kPow2MinPairedLog, kernels/stockham_pow2.cuh).
  int two_pass = 0;
  for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (int bits = 15; bits <= 28; ++bits) {
      for (fft::Kind kind : {fft::Kind::kR2C, fft::Kind::kC2R}) {
        CAPTURE(bits, static_cast<int>(precision), static_cast<int>(kind));
        fft::FftPlanResult planned = fft::plan_real_1d(kind, 1LL << bits, 1, precision, h100);
        if (!planned.plan || planned.plan->passes.size() != 2) continue;
        ++two_pass;
        for (const fft::FftPass& pass : planned.plan->passes) CHECK(pass.size >= 128);
      }
    }
  }
  CHECK(two_pass >= 40);
}

namespace {

// A real plan's test data: random reals (the real parts of `noise`, batch transforms of `dims`)
// and their exact half spectrum, n / 2 + 1 values a row (the naive N-D DFT of the reals as
// complex values).
struct RealCase {
  int rank;
  long long n, rows, points, all_rows, slots;
  std::vector<Complex> noise;
  std::vector<ComplexL> want_half;

  RealCase(const std::vector<long long>& dims, long long batch, std::uint64_t salt)
      : rank(static_cast<int>(dims.size())), n(dims.back()), rows(1) {
    for (int axis = 0; axis + 1 < rank; ++axis) rows *= dims[static_cast<std::size_t>(axis)];
    points = rows * n;
    all_rows = rows * batch;
    slots = n / 2 + 1;
    noise = random_input(static_cast<std::size_t>(points * batch), salt);
    std::vector<Complex> real_as_complex(noise.size());
    for (std::size_t i = 0; i < noise.size(); ++i) real_as_complex[i] = {noise[i].real(), 0.0};
    const std::vector<ComplexL> spectrum = naive_dft_nd(real_as_complex, dims, batch, -1);
    want_half.resize(static_cast<std::size_t>(all_rows * slots));
    for (long long r = 0; r < all_rows; ++r) {
      for (long long k = 0; k < slots; ++k) want_half[r * slots + k] = spectrum[r * n + k];
    }
  }
};

// `r2c` out of place from `input` (left untouched) and in place on `padded` (cuFFT's padded
// layout), each against `want`.
void check_r2c_both_ways(const fft::FftPlan& r2c, const std::vector<Complex>& input, std::vector<Complex> padded,
                         const std::vector<ComplexL>& want) {
  std::vector<Complex> out = poisoned(want.size());
  std::vector<Complex> in = input;
  fft::reference::execute_any(r2c, -1, in.data(), out.data());
  CHECK(relative_error(out, want) < kTolerance);
  CHECK(in == input);
  fft::reference::execute_any(r2c, -1, padded.data(), padded.data());
  CHECK(relative_error(padded, want) < kTolerance);
}

// R2C and C2R plans of an even innermost length (plan_real) run by the host executor on random
// reals, in and out of place (cuFFT's padded layout), against the naive N-D DFT; the C2R of that
// spectrum gives `points` times the reals back.
void check_even_real_plans(const fft::FftPlan& r2c, const fft::FftPlan& c2r, const std::vector<long long>& dims,
                           long long batch, std::uint64_t salt) {
  INFO(r2c.to_string() << c2r.to_string());
  const RealCase c(dims, batch, salt);
  const int rank = c.rank;
  const long long n = c.n, points = c.points, all_rows = c.all_rows, slots = c.slots;
  const long long half = n / 2;
  const std::vector<Complex>& noise = c.noise;
  const std::vector<ComplexL>& want_half = c.want_half;
  std::vector<Complex> packed(static_cast<std::size_t>(all_rows * half));  // the reals as pairs
  std::vector<Complex> padded = poisoned(static_cast<std::size_t>(all_rows * slots));
  for (long long r = 0; r < all_rows; ++r) {
    for (long long m = 0; m < half; ++m) {
      packed[r * half + m] = {noise[r * n + 2 * m].real(), noise[r * n + 2 * m + 1].real()};
      padded[r * slots + m] = packed[r * half + m];  // the padding (slot half) stays NaN
    }
  }
  check_r2c_both_ways(r2c, packed, padded, want_half);

  // C2R of that spectrum: N times the reals (N = the points of a transform).
  std::vector<Complex> spectrum_in(want_half.size());
  for (std::size_t i = 0; i < spectrum_in.size(); ++i) spectrum_in[i] = Complex(want_half[i]);
  std::vector<ComplexL> want_real(packed.size());
  for (std::size_t i = 0; i < want_real.size(); ++i) want_real[i] = ComplexL(packed[i]) * static_cast<long double>(points);
  std::vector<Complex> c2r_input = spectrum_in;  // overwritten, as cuFFT's multi-dimensional C2R
  std::vector<Complex> back = poisoned(packed.size());
  fft::reference::execute_any(c2r, +1, c2r_input.data(), back.data());
  CHECK(relative_error(back, want_real) < kTolerance);
  if (rank == 1) CHECK(c2r_input == spectrum_in);  // 1D: the input left as it was
  std::vector<Complex> in_place = spectrum_in;
  fft::reference::execute_any(c2r, +1, in_place.data(), in_place.data());
  std::vector<Complex> unpadded(packed.size());
  for (long long r = 0; r < all_rows; ++r) {
    for (long long m = 0; m < half; ++m) unpadded[r * half + m] = in_place[r * slots + m];
  }
  CHECK(relative_error(unpadded, want_real) < kTolerance);
}

// The same for an odd innermost length: the real side in reals, n a row out of place, n + 1 in
// place; a 1D C2R leaves its input as it was.
void check_odd_real_plans(const fft::FftPlan& r2c, const fft::FftPlan& c2r, const std::vector<long long>& dims,
                          long long batch, std::uint64_t salt) {
  INFO(r2c.to_string() << c2r.to_string());
  const RealCase c(dims, batch, salt);
  const int rank = c.rank;
  const long long n = c.n, points = c.points, all_rows = c.all_rows, slots = c.slots;
  const std::vector<Complex>& noise = c.noise;
  const std::vector<ComplexL>& want_half = c.want_half;
  // The reals in complex storage (viewed as doubles): out of place n a row, in place n + 1
  // (= 2 slots) a row, the padding real NaN.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Complex> reals(static_cast<std::size_t>((all_rows * n + 1) / 2));
  std::vector<Complex> padded = poisoned(static_cast<std::size_t>(all_rows * slots));
  double* flat = reinterpret_cast<double*>(reals.data());
  double* flat_padded = reinterpret_cast<double*>(padded.data());
  for (long long r = 0; r < all_rows; ++r) {
    for (long long e = 0; e < n; ++e) {
      flat[r * n + e] = noise[r * n + e].real();
      flat_padded[r * (n + 1) + e] = noise[r * n + e].real();
    }
    flat_padded[r * (n + 1) + n] = nan;
  }
  check_r2c_both_ways(r2c, reals, padded, want_half);

  // C2R of that spectrum: `points` times the reals, out of place and in place.
  std::vector<Complex> spectrum_in(want_half.size());
  for (std::size_t i = 0; i < spectrum_in.size(); ++i) spectrum_in[i] = Complex(want_half[i]);
  const auto check_reals = [&](const double* got, long long dist) {
    long double diff = 0, norm = 0;
    for (long long r = 0; r < all_rows; ++r) {
      for (long long e = 0; e < n; ++e) {
        const long double want = static_cast<long double>(noise[r * n + e].real()) * points;
        diff += (got[r * dist + e] - want) * (got[r * dist + e] - want);
        norm += want * want;
      }
    }
    CHECK(static_cast<double>(std::sqrt(diff / norm)) < kTolerance);
  };
  std::vector<Complex> c2r_input = spectrum_in;
  std::vector<Complex> back = poisoned(reals.size());
  fft::reference::execute_any(c2r, +1, c2r_input.data(), back.data());
  check_reals(reinterpret_cast<const double*>(back.data()), n);
  if (rank == 1) CHECK(c2r_input == spectrum_in);  // 1D: the input left as it was
  std::vector<Complex> in_place = spectrum_in;
  fft::reference::execute_any(c2r, +1, in_place.data(), in_place.data());
  check_reals(reinterpret_cast<const double*>(in_place.data()), n + 1);
}

}  // namespace

TEST_CASE("executor: 2D and 3D real plans (R2C, C2R) against the naive DFT, in and out of place",
          "[fft][executor][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  // {128, 128} and {2, 128, 128}: the real pass and the axis next to it fused (FusedKind), their
  // tiles run in the kernel's ticket order.
  const std::vector<std::vector<long long>> shapes = {{4, 8},     {3, 16},    {5, 6},      {12, 10},
                                                      {7, 4},     {16, 32},   {2, 2, 4},   {3, 5, 8},
                                                      {4, 6, 10}, {8, 16, 32}, {128, 128}, {2, 128, 128}};
  std::uint64_t salt = 9000;
  for (const std::vector<long long>& dims : shapes) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const int rank = static_cast<int>(dims.size());
      const long long batch = 1 + static_cast<long long>(salt % 3);
      const long long n = dims.back();
      const long long half = n / 2;
      const long long slots = half + 1;
      long long rows = 1;  // rows of the innermost axis a transform
      for (int axis = 0; axis + 1 < rank; ++axis) rows *= dims[static_cast<std::size_t>(axis)];
      const long long all_rows = rows * batch;
      CAPTURE(dims, batch, static_cast<int>(precision));
      fft::FftPlanResult r2c = fft::plan_real(fft::Kind::kR2C, rank, dims.data(), batch, precision, h100);
      fft::FftPlanResult c2r = fft::plan_real(fft::Kind::kC2R, rank, dims.data(), batch, precision, h100);
      INFO(r2c.reason << c2r.reason);
      REQUIRE(r2c.plan.has_value());
      REQUIRE(c2r.plan.has_value());
      INFO(r2c.plan->to_string() << c2r.plan->to_string());
      // One real pass over every row, one axis pass per outer axis: R2C real first, C2R real last.
      REQUIRE(r2c.plan->passes.size() == static_cast<std::size_t>(rank));
      REQUIRE(c2r.plan->passes.size() == static_cast<std::size_t>(rank));
      CHECK(r2c.plan->passes_in_place);
      CHECK(fft::real_pass_index(*r2c.plan) == 0);
      CHECK(fft::real_pass_index(*c2r.plan) == static_cast<std::size_t>(rank - 1));
      CHECK(r2c.plan->passes[0].real_step == fft::RealStep::kPackR2C);
      CHECK(c2r.plan->passes.back().real_step == fft::RealStep::kUnpackC2R);
      CHECK(r2c.plan->pass_transforms(r2c.plan->passes[0]) == all_rows);
      long long inner = slots;
      for (int axis = rank - 2, index = 1; axis >= 0; --axis, ++index) {
        const fft::FftPass& pass = r2c.plan->passes[static_cast<std::size_t>(index)];
        CHECK(pass.size == dims[static_cast<std::size_t>(axis)]);
        CHECK(pass.span_before == inner);
        CHECK(pass.real_step == fft::RealStep::kNone);
        CHECK(r2c.plan->pass_transforms(pass) * pass.transform_n == rows * slots * batch);
        inner *= pass.size;
      }
      CHECK(r2c.plan->work_bytes == 0);
      CHECK(c2r.plan->work_bytes == 0);
      const bool fused = dims[static_cast<std::size_t>(rank - 2)] == n && n == 128;
      CHECK(r2c.plan->fused.has_value() == fused);
      CHECK(c2r.plan->fused.has_value() == fused);
      if (fused) {
        REQUIRE(r2c.plan->fused.has_value());
        REQUIRE(c2r.plan->fused.has_value());
        const fft::FftFused& forward = *r2c.plan->fused;
        const fft::FftFused& inverse = *c2r.plan->fused;
        CHECK(forward.kind == fft::FusedKind::kRealForward);
        CHECK(inverse.kind == fft::FusedKind::kRealInverse);
        CHECK(forward.first_pass == 0);
        CHECK(inverse.first_pass == static_cast<std::size_t>(rank - 2));  // the real pass last
        CHECK(forward.transforms == all_rows / n);
        CHECK(forward.first_count == n);      // rows of a plane
        CHECK(forward.last_count == slots);   // its n / 2 + 1 columns
        CHECK(inverse.first_count == slots);
        CHECK(inverse.last_count == n);
        // R2C: the last column packed into column 0, tiles over n / 2 columns, all full. C2R:
        // n / 2 + 1 columns, the last tile of one.
        CHECK(forward.passes[1].nyquist_packed);
        CHECK_FALSE(forward.passes[0].nyquist_packed);
        CHECK_FALSE(inverse.passes[0].nyquist_packed);
        CHECK_FALSE(inverse.passes[1].nyquist_packed);
        CHECK(forward.last_tiles * forward.passes[1].transforms_per_block == half);
        CHECK(inverse.first_tiles == (slots + inverse.passes[0].transforms_per_block - 1) /
                                         inverse.passes[0].transforms_per_block);
        CHECK_FALSE(r2c.plan->passes[1].nyquist_packed);  // the plan's own passes (unfused runs)
        CHECK(forward.passes[0].real_step == fft::RealStep::kPackR2C);
        CHECK(inverse.passes[1].real_step == fft::RealStep::kUnpackC2R);
      }

      check_even_real_plans(*r2c.plan, *c2r.plan, dims, batch, ++salt);
    }
  }
  // Declined with the reason: an outer axis with a prime factor above 13, an outer axis that
  // takes two passes, a rank outside 1..3. (An innermost one: the Bluestein case below.)
  const fft::Precision single = fft::Precision::kSingle;
  const long long prime[2] = {17, 16};
  fft::FftPlanResult declined = fft::plan_real(fft::Kind::kC2R, 2, prime, 1, single, h100);
  CHECK(!declined.plan);
  CHECK(declined.reason.find("axis 0") != std::string::npos);
  const long long wide[2] = {1LL << 16, 64};
  declined = fft::plan_real(fft::Kind::kR2C, 2, wide, 1, single, h100);
  CHECK(!declined.plan);
  CHECK(declined.reason.find("more than one pass") != std::string::npos);
  const long long four[4] = {2, 2, 2, 4};
  CHECK(!fft::plan_real(fft::Kind::kR2C, 4, four, 1, single, h100).plan);
  // An axis pass over 1153 lines (a prime above the 1024 a block holds) of one thread each takes
  // 256 lines a block, straddling the transforms, so a large batch still fits a grid; a pass of
  // one line a block would need more blocks than a grid holds at that batch: grid_refusal says
  // so (the native plan is then declined).
  const long long narrow[2] = {2, 2304};
  fft::FftPlanResult huge = fft::plan_real(fft::Kind::kR2C, 2, narrow, 1LL << 21, single, h100);
  REQUIRE(huge.plan.has_value());
  CHECK(huge.plan->passes[1].transforms_per_block == 256);
  CHECK(huge.plan->passes[1].straddles);
  CHECK(fft::grid_refusal(*huge.plan).empty());
  fft::FftPlan one_line = *huge.plan;
  one_line.passes[1].transforms_per_block = 1;
  one_line.passes[1].blocks = 1153LL << 21;
  CHECK(fft::grid_refusal(one_line).find("pass 2 takes") != std::string::npos);
  CHECK(fft::grid_refusal(one_line).find("beyond a grid") != std::string::npos);
  // 257 lines (512 / 2 + 1, prime) of one thread each: rows of 256 lines (2 KB), straddling.
  const long long prime_lines[2] = {2, 512};
  CHECK(fft::plan_real(fft::Kind::kR2C, 2, prime_lines, 4, single, h100).plan->passes[1].transforms_per_block == 256);
  const long long even[2] = {8, 16};
  CHECK(!fft::plan_real(fft::Kind::kC2C, 2, even, 1, single, h100).plan);
}

// Odd real lengths: the pass is the complex transform of n points (RealStep::kOddR2C/kOddC2R), its
// real side in reals: n a row out of place, n + 1 in place (cuFFT's padded layout).
TEST_CASE("executor: odd real lengths (R2C, C2R) in 1D, 2D and 3D against the naive DFT", "[fft][executor][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const std::vector<std::vector<long long>> shapes = {{3},     {5},     {9},      {15},      {27},      {45},
                                                      {99},    {143},   {1001},   {4, 5},    {6, 15},   {3, 7},
                                                      {12, 9}, {2, 3, 5}, {4, 6, 9}};
  std::uint64_t salt = 11000;
  for (const std::vector<long long>& dims : shapes) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const int rank = static_cast<int>(dims.size());
      const long long batch = 1 + static_cast<long long>(salt % 3);
      const long long n = dims.back();
      CAPTURE(dims, batch, static_cast<int>(precision));
      fft::FftPlanResult r2c = fft::plan_real(fft::Kind::kR2C, rank, dims.data(), batch, precision, h100);
      fft::FftPlanResult c2r = fft::plan_real(fft::Kind::kC2R, rank, dims.data(), batch, precision, h100);
      INFO(r2c.reason << c2r.reason);
      REQUIRE(r2c.plan.has_value());
      REQUIRE(c2r.plan.has_value());
      const fft::FftPass& r2c_real = r2c.plan->passes[fft::real_pass_index(*r2c.plan)];
      CHECK(r2c_real.real_step == fft::RealStep::kOddR2C);
      CHECK(c2r.plan->passes[fft::real_pass_index(*c2r.plan)].real_step == fft::RealStep::kOddC2R);
      CHECK(r2c_real.size == n);
      CHECK(fft::real_pass_for(*r2c.plan, false).in_dist == n);
      CHECK(fft::real_pass_for(*r2c.plan, true).in_dist == n + 1);
      CHECK(fft::real_pass_for(*c2r.plan, true).out_dist == n + 1);

      check_odd_real_plans(*r2c.plan, *c2r.plan, dims, batch, ++salt);
    }
  }
}

namespace {

// plan_real's plans of a real length with a prime factor above 13 under `limits`: the real pass
// one Bluestein convolution over the power of two M >= 2 N - 1 (or a shorter mixed M with a
// compiled kernel) with the real step, its rows paired
// where the limits ask for it (odd n), its tables; run by the host executor against the naive DFT.
// An odd C2R drops X[0]'s imaginary part (paired, it would otherwise reach the other row): a half
// spectrum with it gives the bits of one without it.
void check_bluestein_real_plans(const std::vector<long long>& dims, long long batch, fft::Precision precision,
                                const fft::DeviceLimits& limits, std::uint64_t* salt) {
  const int rank = static_cast<int>(dims.size());
  const long long n = dims.back();
  const bool odd = n % 2 != 0;
  const long long points = odd ? n : n / 2;
  const bool paired = odd && limits.pair_odd_real_rows;
  CAPTURE(dims, batch, static_cast<int>(precision), paired);
  fft::FftPlanResult r2c = fft::plan_real(fft::Kind::kR2C, rank, dims.data(), batch, precision, limits);
  fft::FftPlanResult c2r = fft::plan_real(fft::Kind::kC2R, rank, dims.data(), batch, precision, limits);
  INFO(r2c.reason << c2r.reason);
  REQUIRE(r2c.plan.has_value());
  REQUIRE(c2r.plan.has_value());
  REQUIRE(r2c.plan->passes.size() == static_cast<std::size_t>(rank));
  REQUIRE(c2r.plan->passes.size() == static_cast<std::size_t>(rank));
  CHECK(r2c.plan->work_bytes == 0);
  CHECK(c2r.plan->work_bytes == 0);
  // The next power of two, or a shorter mixed length with a compiled kernel.
  long long m = 1;
  while (m < 2 * points - 1) m *= 2;
  for (long long mixed = 2 * points - 1; mixed < m; ++mixed) {
    if (fft::bluestein_mixed_kernel(mixed, fft::complex_element_bytes(precision))) m = mixed;
  }
  long long rows = batch;
  for (int axis = 0; axis + 1 < rank; ++axis) rows *= dims[static_cast<std::size_t>(axis)];
  for (const fft::FftPlan* plan : {&*r2c.plan, &*c2r.plan}) {
    const fft::FftPass& real = plan->passes[fft::real_pass_index(*plan)];
    CHECK(real.convolution == fft::ConvolutionStep::kBluestein);
    CHECK(real.size == points);
    CHECK(real.convolution_size == m);
    CHECK(real.transform_n == points);
    const bool forward = plan->kind == fft::Kind::kR2C;
    CHECK(real.real_step == (odd ? (forward ? fft::RealStep::kOddR2C : fft::RealStep::kOddC2R)
                                 : (forward ? fft::RealStep::kPackR2C : fft::RealStep::kUnpackC2R)));
    // Paired: two rows a convolution, the last alone where their count is odd.
    CHECK(real.real_rows == (paired ? rows : 0));
    CHECK(plan->pass_transforms(real) == (paired ? (rows + 1) / 2 : rows));
    // The even steps' w_n^k (n = 2N) after the convolution's tables.
    const fft::StepTables tables = fft::step_tables(real, fft::TableAccuracy::kDouble);
    REQUIRE(tables.layout.real_count == (odd ? 0u : static_cast<std::size_t>(points)));
    CHECK(tables.layout.real >= tables.layout.spectrum + tables.layout.spectrum_count);
    for (std::size_t k = 0; k < tables.layout.real_count; ++k) {
      CHECK(tables.values[tables.layout.real + k] == fft::twiddle(static_cast<long long>(k), 2 * points, -1));
    }
  }
  if (!odd) {
    check_even_real_plans(*r2c.plan, *c2r.plan, dims, batch, ++*salt);
    return;
  }
  check_odd_real_plans(*r2c.plan, *c2r.plan, dims, batch, ++*salt);
  if (rank != 1) return;
  const long long slots = n / 2 + 1;
  const std::vector<Complex> with = random_input(static_cast<std::size_t>(batch * slots), ++*salt);
  std::vector<Complex> without = with;
  for (long long r = 0; r < batch; ++r) without[static_cast<std::size_t>(r * slots)].imag(0.0);
  std::vector<Complex> a = poisoned(static_cast<std::size_t>((batch * n + 1) / 2));
  std::vector<Complex> b = a;
  fft::reference::execute_any(*c2r.plan, +1, with.data(), a.data());
  fft::reference::execute_any(*c2r.plan, +1, without.data(), b.data());
  const double* x = reinterpret_cast<const double*>(a.data());
  const double* y = reinterpret_cast<const double*>(b.data());
  for (long long i = 0; i < batch * n; ++i) REQUIRE(x[i] == y[i]);
}

}  // namespace

// Real lengths with a prime factor above 13 (the half's, for even n): the real pass is one
// Bluestein convolution over the power of two M >= 2 N - 1 (N = n / 2, odd n: n), the real step
// on its loads and stores (kernels/stockham_bluestein.cuh), odd rows one a convolution or, where
// asked for, two, in 1D, 2D and 3D; the outer axes as in the smooth case.
TEST_CASE("executor: real lengths with a prime factor above 13 as one Bluestein pass against the naive DFT",
          "[fft][executor][bluestein][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const std::vector<std::vector<long long>> shapes = {{34},     {17},    {46},       {23},       {202},
                                                      {101},    {2062},  {1031},     {8, 34},    {3, 17},
                                                      {2, 4, 38}, {3, 5, 19}, {6, 254}, {4, 2 * 3 * 37}};
  std::uint64_t salt = 13000;
  for (const std::vector<long long>& dims : shapes) {
    const long long n = dims.back();
    const bool odd = n % 2 != 0;
    // Odd rows one a convolution, or two where asked for (DeviceLimits::pair_odd_real_rows).
    for (const bool pair : odd ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      fft::DeviceLimits limits = h100;
      limits.pair_odd_real_rows = pair;
      for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
        check_bluestein_real_plans(dims, 1 + static_cast<long long>(salt % 3), precision, limits, &salt);
      }
    }
  }
  // Declined with the reason: a length whose M passes what one block holds (fp32 2^14, fp64
  // 2^13 points under the H100's limits), the half of an even one too.
  for (long long n : {8209LL, 2 * 8209LL}) {
    CAPTURE(n);
    const fft::FftPlanResult declined = fft::plan_real_1d(fft::Kind::kR2C, n, 4, fft::Precision::kSingle, h100);
    CHECK(!declined.plan);
    CHECK(declined.reason.find("not one convolution pass") != std::string::npos);
  }
  const fft::FftPlanResult fp64 = fft::plan_real_1d(fft::Kind::kC2R, 2 * 4099, 4, fft::Precision::kDouble, h100);
  CHECK(!fp64.plan);
  CHECK(fp64.reason.find("not one convolution pass") != std::string::npos);
}

// Real lengths with a prime factor above 13 (one Bluestein pass with the real step): native under
// auto on an H200 where measured, n = 2p for fp32 primes 4097..8191 and fp64 2049..4095, and fp32
// n = 202; the vendor for odd n (one row a convolution), below those primes, on an H100 and at
// smaller calls.
TEST_CASE("tuning table: real lengths of a prime or twice a prime native where measured", "[fft][tuning][cpu]") {
  const fft::DeviceClass h100{90, 3352};
  const fft::DeviceClass h200{90, 4800};
  const auto wins = [&](fft::Kind kind, fft::Precision precision, long long n, long long points,
                        fft::DeviceClass device) {
    const char* reason = nullptr;
    const long long batch = std::max(1LL, points / n);
    const bool native = fft::native_layout_wins(kind, precision, 1, &n, batch, device, &reason);
    if (!native) CHECK(reason != nullptr);
    return native;
  };
  using fft::Kind;
  const fft::Precision single = fft::Precision::kSingle;
  const fft::Precision fp64 = fft::Precision::kDouble;
  for (Kind kind : {Kind::kR2C, Kind::kC2R}) {
    CAPTURE(static_cast<int>(kind));
    for (long long p : {4099LL, 5003LL, 6007LL, 7001LL, 8191LL}) {
      CAPTURE(p);
      CHECK_FALSE(wins(kind, single, p, 1LL << 26, h200));  // odd: one row a convolution lost
      CHECK(wins(kind, single, 2 * p, 1LL << 26, h200));
      CHECK_FALSE(wins(kind, single, 2 * p, 1LL << 26, h100));  // not measured there
      CHECK(wins(kind, single, 2 * p, 1LL << 20, h200));        // from 2^20 reals a call
      CHECK_FALSE(wins(kind, single, 2 * p, 1LL << 19, h200));  // a smaller call
      CHECK_FALSE(wins(kind, fp64, p, 1LL << 25, h200));        // fp64's primes stop at 4095
    }
    for (long long p : {2053LL, 3001LL, 4093LL}) {
      CAPTURE(p);
      CHECK_FALSE(wins(kind, fp64, p, 1LL << 25, h200));
      CHECK(wins(kind, fp64, 2 * p, 1LL << 25, h200));
      CHECK(wins(kind, fp64, 2 * p, 1LL << 19, h200));
      CHECK_FALSE(wins(kind, fp64, 2 * p, 1LL << 18, h200));
      CHECK_FALSE(wins(kind, single, p, 1LL << 26, h200));  // fp32 lost there
      CHECK_FALSE(wins(kind, single, 2 * p, 1LL << 26, h200));
    }
    // Composites with those primes, and lost primes, keep the vendor.
    for (long long n : {3LL * 4099, 4LL * 4099, 1031LL, 2062LL, 257LL, 514LL, 8209LL, 2 * 8209LL}) {
      CAPTURE(n);
      CHECK_FALSE(wins(kind, single, n, 1LL << 26, h200));
    }
    CHECK_FALSE(wins(kind, single, 101, 1LL << 26, h200));  // won with its rows paired only
    CHECK(wins(kind, single, 202, 1LL << 26, h200));
    CHECK_FALSE(wins(kind, fp64, 202, 1LL << 25, h200));
  }
  // A complex transform of such a length is not a real row.
  const long long n = 8198;
  const char* reason = nullptr;
  CHECK_FALSE(fft::native_layout_wins(Kind::kC2C, single, 1, &n, 8192, h200, &reason));
}

// The Bluestein spectrum cache (32 MiB): a spectrum asked for again is served from it, not formed
// again; past its size the oldest spectra are dropped and formed again when asked for. Spectra
// of 2^20 points (16 MiB each) fill it with two.
TEST_CASE("the Bluestein spectrum cache reuses spectra and drops the oldest past 32 MiB", "[fft][convolution][cpu]") {
  constexpr long long kM = 1LL << 20;
  const fft::TableAccuracy accuracy = fft::TableAccuracy::kDouble;
  const auto stats = [] { return fft::bluestein_spectrum_cache_stats(); };
  const fft::SpectrumCacheStats start = stats();
  const std::vector<Complex> first = fft::bluestein_spectrum(300000, kM, accuracy);
  CHECK(stats().formed == start.formed + 1);
  const std::vector<Complex> again = fft::bluestein_spectrum(300000, kM, accuracy);
  CHECK(stats().formed == start.formed + 1);
  CHECK(stats().reused == start.reused + 1);
  CHECK(again == first);
  fft::bluestein_spectrum(300001, kM, accuracy);
  fft::bluestein_spectrum(300002, kM, accuracy);
  const fft::SpectrumCacheStats full = stats();
  CHECK(full.formed == start.formed + 3);
  CHECK(full.bytes <= (std::size_t{32} << 20));
  CHECK(full.entries >= 2);
  // 300000 was the oldest: dropped, so formed again (with the same values); 300002 is still there.
  CHECK(fft::bluestein_spectrum(300000, kM, accuracy) == first);
  CHECK(stats().formed == start.formed + 4);
  fft::bluestein_spectrum(300002, kM, accuracy);
  CHECK(stats().formed == start.formed + 4);
  CHECK(stats().reused == start.reused + 2);
}

// The fixed-sequence kernels (fft/kernels/fixed_radices.h) serve a pass only where its radices
// are the sequence's exactly: each sequence must be what the planner makes of its length, or
// the kernel is dead weight. Every sequence's length plans as one pass with those radices, in
// both precisions, and no two sequences are the same.
TEST_CASE("fixed radix sequences are the planner's radices of their lengths", "[fft][planner][cpu]") {
  std::vector<std::vector<int>> sequences;
#define IDGPU_TEST_FIXED_SEQUENCE(...) sequences.push_back({__VA_ARGS__});
  IDGPU_FFT_FIXED_RADICES(IDGPU_TEST_FIXED_SEQUENCE)
#undef IDGPU_TEST_FIXED_SEQUENCE
  REQUIRE(sequences.size() == 54);
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::set<std::vector<int>> distinct;
  for (const std::vector<int>& radices : sequences) {
    CAPTURE(radices);
    long long size = 1;
    bool powers_of_two = true;
    for (int radix : radices) {
      size *= radix;
      powers_of_two = powers_of_two && (radix & (radix - 1)) == 0;
    }
    CHECK_FALSE(powers_of_two);  // those have kernels of their own
    CHECK(distinct.insert(radices).second);
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      CAPTURE(static_cast<int>(precision));
      const fft::FftPlanResult planned = fft::plan_c2c_1d(size, 1, precision, h100);
      REQUIRE(planned.plan.has_value());
      // Every sequence is one pass in both precisions: fp64's 512 threads a block widen the
      // stages of 3850, 4004, 4095, 6561 and 10000 (sequence_threads), which took two passes
      // before.
      const int max_threads = precision == fft::Precision::kSingle ? 1024 : 512;
      const int threads = fft::sequence_threads(radices.data(), static_cast<int>(radices.size()), max_threads);
      CHECK(threads <= max_threads);
      REQUIRE(planned.plan->passes.size() == 1);
      const fft::FftPass& pass = planned.plan->passes[0];
      CHECK(pass.radices == radices);
      CHECK(pass.threads_per_transform == threads);
      for (int radix : radices) {
        const int butterflies = static_cast<int>(size / radix);
        const int per_thread = fft::stage_butterflies_per_thread(radix, butterflies, pass.threads_per_transform);
        CHECK(static_cast<long long>(per_thread) * pass.threads_per_transform >= butterflies);
        // Only fp64 widens, only where the stage's butterflies need more than 512 threads.
        const int plain_per_thread = fft::butterflies_per_thread(radix);
        const int plain_threads = (butterflies + plain_per_thread - 1) / plain_per_thread;
        const bool widened = max_threads == 512 && plain_threads > 512 && per_thread * 512 >= butterflies;
        CHECK((per_thread == fft::butterflies_per_thread(radix) || widened));
        CHECK(per_thread * radix <= 2 * fft::kMaxElementsPerThread);
      }
    }
  }
  // The longer lengths the table names are split into its sequences' passes.
  for (long long n : {59049LL, 78125LL, 117649LL, 1000000LL, 10000000LL}) {
    CAPTURE(n);
    const fft::FftPlanResult planned = fft::plan_c2c_1d(n, 64, fft::Precision::kSingle, h100);
    REQUIRE(planned.plan.has_value());
    for (const fft::FftPass& pass : planned.plan->passes) {
      CAPTURE(pass.radices);
      CHECK(distinct.count(pass.radices) == 1);
    }
  }
}

// The fixed sequences' row-padded exchanges (fft/stockham_index.h, fixed_sequence_extent): at
// every exchange, the slot stage k writes each element to (exchange_write_slot, the kernel's map)
// is the slot stage k + 1 reads it from (exchange_read_slot), distinct elements get distinct
// slots, all within the extent; and the chosen paddings cost a sequence's
// bank phases no more wavefronts in all than the padded layout e + (e >> shift) the other kernels
// use (counted here on their own, lane by lane; one exchange may cost more, 8 x 5 x 5 x 5's first).
TEST_CASE("fixed sequences: row-padded exchanges read what was written, within the extent", "[fft][planner][cpu]") {
  // A known case of the counter: 16 lanes at stride 8 fall on two bank pairs (8 each), at 9 on 16.
  CHECK(fft::exchange_wavefronts(1, 8, 16, 16) == 8);
  CHECK(fft::exchange_wavefronts(1, 9, 16, 16) == 1);
  CHECK(fft::exchange_wavefronts(5, 25, 16, 16) == 2);  // runs 0-4, 25-29 (9-13), 50-54 (2-6), 75 (11)
  std::vector<std::vector<int>> sequences;
#define IDGPU_TEST_FIXED_SEQUENCE(...) sequences.push_back({__VA_ARGS__});
  IDGPU_FFT_FIXED_RADICES(IDGPU_TEST_FIXED_SEQUENCE)
#undef IDGPU_TEST_FIXED_SEQUENCE
  // Wavefronts of `lanes`-lane phases over the first `count` butterflies, address(b) given.
  const auto wavefronts = [](int lanes, int count, const auto& address) {
    int total = 0;
    for (int b0 = 0; b0 < count; b0 += lanes) {
      std::map<int, int> on_group;
      int most = 0;
      for (int b = b0; b < std::min(b0 + lanes, count); ++b) most = std::max(most, ++on_group[address(b) % lanes]);
      total += most;
    }
    return total;
  };
  for (int bytes : {8, 16}) {
    const int lanes = 128 / bytes;
    const int shift = fft::smem_padding_shift(bytes);
    for (const std::vector<int>& radices : sequences) {
      CAPTURE(bytes, radices);
      const int stages = static_cast<int>(radices.size());
      int size = 1;
      for (int r : radices) size *= r;
      const int extent = fft::fixed_sequence_extent(radices.data(), stages, bytes);
      CHECK(extent >= size);
      CHECK(extent < 2 * size);
      int span = 1;
      int chosen_total = 0;
      int old_total = 0;
      for (int k = 0; k + 1 < stages; ++k) {
        const int r = radices[k];
        const int next = radices[k + 1];
        const int row = span * r;
        const int c = fft::exchange_padding(span, r, next, size, bytes);
        CAPTURE(k, c);
        REQUIRE(c >= 0);
        REQUIRE(c < lanes);
        std::vector<int> written(static_cast<std::size_t>(size), -1);
        std::set<int> slots;
        int outside = 0;
        for (int b = 0; b < size / r; ++b) {  // butterfly b = j + q l writes j + p l + q l r
          for (int p = 0; p < r; ++p) {
            const int slot = fft::exchange_write_slot(b, p, span, r, c);
            written[static_cast<std::size_t>(b % span + p * span + (b / span) * row)] = slot;
            slots.insert(slot);
            outside += slot < 0 || slot >= extent;
          }
        }
        CHECK(outside == 0);
        CHECK(std::count(written.begin(), written.end(), -1) == 0);
        CHECK(static_cast<int>(slots.size()) == size);
        const int butterflies = size / next;
        REQUIRE(butterflies % row == 0);
        int mismatched = 0;
        for (int b = 0; b < butterflies; ++b) {
          for (int t = 0; t < next; ++t) {
            const int slot = fft::exchange_read_slot(b, t, row, butterflies, c);
            mismatched += slot != written[static_cast<std::size_t>(b + t * butterflies)];
          }
        }
        CHECK(mismatched == 0);
        // The bank model: writes (runs of `span`) and reads (runs of `row`) against the padded layout.
        const int writes = std::min(size / r, 16 * lanes);
        const int reads = std::min(butterflies, 16 * lanes);
        const int chosen = wavefronts(lanes, writes, [&](int b) { return b % span + (b / span) * (row + c); }) +
                           wavefronts(lanes, reads, [&](int b) { return b + c * (b / row); });
        const auto padded = [&](int e) { return e + (e >> shift); };
        const int old = wavefronts(lanes, writes, [&](int b) { return padded(b % span + (b / span) * row); }) +
                        wavefronts(lanes, reads, [&](int b) { return padded(b); });
        chosen_total += chosen;
        old_total += old;
        CHECK(chosen == fft::exchange_wavefronts(span, row + c, lanes, writes) +
                            fft::exchange_wavefronts(row, row + c, lanes, reads));
        span = row;
      }
      CHECK(chosen_total <= old_total);
    }
  }
}

// Which layout the planner gives a fixed sequence's pass: the row-padded one (no padding shift,
// a stride of at least its extent), except the complex passes of the sequences listed per
// precision in fixed_radices.h, which keep the padded layout (and their real passes do not);
// other passes keep the padding shift.
TEST_CASE("planner: fixed sequences' passes take the layout their kernels are compiled for", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  struct Case {
    long long n;
    fft::Precision precision;
    bool rows;
  };
  for (const Case& c : {Case{1000, fft::Precision::kSingle, true}, Case{625, fft::Precision::kDouble, true},
                        Case{3575, fft::Precision::kSingle, true}, Case{240, fft::Precision::kSingle, false},
                        Case{1920, fft::Precision::kSingle, false}, Case{1920, fft::Precision::kDouble, true},
                        Case{243, fft::Precision::kDouble, false}, Case{243, fft::Precision::kSingle, true},
                        Case{1001, fft::Precision::kSingle, false}, Case{1024, fft::Precision::kSingle, false}}) {
    CAPTURE(c.n, c.precision == fft::Precision::kSingle);
    const fft::FftPlanResult planned = fft::plan_c2c_1d(c.n, 512, c.precision, h100);
    REQUIRE(planned.plan.has_value());
    REQUIRE(planned.plan->passes.size() == 1);
    const fft::FftPass& pass = planned.plan->passes[0];
    const std::size_t bytes = planned.plan->element_bytes;
    CHECK(fft::fixed_sequence_rows(pass, bytes) == c.rows);
    if (c.rows) {
      CHECK(pass.smem_shift == fft::kUnpaddedShift);
      CHECK(pass.smem_stride >= fft::fixed_sequence_buffer(pass, bytes));
      CHECK(pass.smem_stride >= fft::pass_buffer_elements(pass, bytes));
    } else {
      CHECK(pass.smem_shift == fft::smem_shift(bytes));
      CHECK(pass.smem_stride >= fft::smem_stride(pass.size, pass.smem_shift));
    }
    CHECK(pass.shared_bytes == static_cast<std::size_t>(pass.smem_stride) * bytes *
                                   static_cast<std::size_t>(pass.transforms_per_block));
  }
  // The real passes of halves whose complex passes keep the padding: rows.
  for (long long n : {480LL, 800LL, 3840LL}) {
    CAPTURE(n);
    for (fft::Kind kind : {fft::Kind::kR2C, fft::Kind::kC2R}) {
      const fft::FftPlanResult planned = fft::plan_real_1d(kind, n, 512, fft::Precision::kSingle, h100);
      REQUIRE(planned.plan.has_value());
      REQUIRE(planned.plan->passes.size() == 1);
      const fft::FftPass& pass = planned.plan->passes[0];
      CHECK(pass.real_step != fft::RealStep::kNone);
      CHECK(pass.smem_shift == fft::kUnpaddedShift);
      CHECK(pass.smem_stride >= fft::fixed_sequence_buffer(pass, 8));
    }
  }
}

// Every pass of every kind of plan has the layout the launch will find a kernel for: a pass with
// no padding shift is a fixed sequence's with the row layout and a stride of at least its extent,
// the other fixed-sequence and general passes keep the padding shift (cluster passes have their
// own strides), and each block's bytes are its stride's. 1D, real (one-pass, odd, two-pass with
// the real step paired into a fixed-sequence pass), 2D and 3D, in both precisions.
TEST_CASE("planner: every pass's shared-memory layout is its kernel's", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  std::vector<fft::FftPlan> plans;
  const auto keep = [&](fft::FftPlanResult result) {
    REQUIRE(result.plan.has_value());
    plans.push_back(std::move(*result.plan));
  };
  for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    for (long long n : {240LL, 243LL, 480LL, 1000LL, 1920LL, 3575LL, 1000000LL}) keep(fft::plan_c2c_1d(n, 64, precision, h100));
    for (fft::Kind kind : {fft::Kind::kR2C, fft::Kind::kC2R}) {
      for (long long n : {480LL, 486LL, 1250LL, 3840LL, 2000000LL, 115200LL, 1215LL}) keep(fft::plan_real_1d(kind, n, 8, precision, h100));
      const long long plane[] = {1080, 1920};
      keep(fft::plan_real(kind, 2, plane, 2, precision, h100));
    }
    const long long plane[] = {1080, 1920};
    keep(fft::plan_c2c(2, plane, 2, precision, h100));
    const long long cube[] = {100, 100, 100};
    keep(fft::plan_c2c(3, cube, 2, precision, h100));
    const long long lines[] = {243, 240};
    keep(fft::plan_c2c(2, lines, 4, precision, h100));
  }
  int rows = 0;
  int padded_fixed = 0;
  for (const fft::FftPlan& plan : plans) {
    const std::size_t bytes = plan.element_bytes;
    for (const fft::FftPass& pass : plan.passes) {
      CAPTURE(plan.n, plan.dims, pass.radices, pass.sub_transforms, static_cast<int>(pass.real_step), bytes);
      if (pass.cluster) continue;
      const long long extent = fft::fixed_sequence_buffer(pass, bytes);
      CHECK(pass.shared_bytes ==
            static_cast<std::size_t>(pass.smem_stride) * bytes * static_cast<std::size_t>(pass.transforms_per_block));
      if (pass.smem_shift == fft::kUnpaddedShift) {
        ++rows;
        CHECK(fft::fixed_sequence_rows(pass, bytes));
        CHECK(pass.smem_stride >= extent);
      } else {
        CHECK(pass.smem_shift == fft::smem_shift(bytes));
        CHECK(pass.smem_stride >= fft::smem_stride(pass.size, pass.smem_shift));
        CHECK_FALSE(fft::fixed_sequence_rows(pass, bytes));  // the rows fit every block here
        padded_fixed += extent > 0;
      }
    }
  }
  CHECK(rows >= 20);
  CHECK(padded_fixed >= 4);
}

// Which passes meet device memory from their stages (PassLaunch::direct_in / direct_out, the
// fixed-sequence kernels): a side only where it is contiguous, no real step stages it and a
// transform has at least kDirectMinThreads threads. A wrong answer either way is a wrong result
// on the GPU (a column side read as rows) or a pack / unpack step fed from the wrong buffer.
TEST_CASE("direct sides: contiguous, unstaged and wide enough only", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const auto launch_of = [](const fft::FftPlan& plan, std::size_t i) {
    fft::kernels::PassLaunch launch;
    launch.shape = fft::pass_shape(plan, plan.passes[i]);
    launch.threads_per_transform = plan.passes[i].threads_per_transform;
    launch.real_step = static_cast<int>(plan.passes[i].real_step);
    launch.convolution = static_cast<int>(plan.passes[i].convolution);
    return launch;
  };
  struct Sides {
    bool in, out;
  };
  const auto sides = [&](const fft::FftPlan& plan, std::size_t i) {
    const fft::kernels::PassLaunch launch = launch_of(plan, i);
    return Sides{fft::kernels::direct_in_eligible(launch), fft::kernels::direct_out_eligible(launch)};
  };
  // One pass: both sides (1000 = 8 5 5 5, at least 4 threads a transform).
  const fft::FftPlan single = must_plan(1000, 64, fft::Precision::kSingle, h100);
  REQUIRE(single.passes.size() == 1);
  CHECK(sides(single, 0).in);
  CHECK(sides(single, 0).out);
  // Too few threads a transform (12 = 4 3: one thread): both staged.
  const fft::FftPlan narrow = must_plan(12, 64, fft::Precision::kSingle, h100);
  REQUIRE(narrow.passes.size() == 1);
  CHECK(narrow.passes[0].threads_per_transform < fft::kernels::kDirectMinThreads);
  CHECK_FALSE(sides(narrow, 0).in);
  CHECK_FALSE(sides(narrow, 0).out);
  // Two passes (10^6 = 1000 x 1000): the first reads columns and writes whole sub-transforms, the
  // last reads and writes columns.
  const fft::FftPlan two = must_plan(1000000, 4, fft::Precision::kSingle, h100);
  REQUIRE(two.passes.size() == 2);
  CHECK_FALSE(sides(two, 0).in);
  CHECK(sides(two, 0).out);
  CHECK_FALSE(sides(two, 1).in);
  CHECK_FALSE(sides(two, 1).out);
  // 2D: the innermost axis is a single pass over rows, the outer one an axis pass over columns.
  const long long dims[] = {100, 1000};
  const fft::FftPlanResult plane = fft::plan_c2c(2, dims, 2, fft::Precision::kSingle, h100);
  REQUIRE(plane.plan.has_value());
  REQUIRE(plane.plan->passes.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const fft::kernels::PassLaunch launch = launch_of(*plane.plan, i);
    CAPTURE(i, launch.shape.sub, launch.shape.span);
    const bool rows = launch.shape.sub == 1 && launch.shape.span == 1;
    CHECK(sides(*plane.plan, i).in == rows);
    CHECK(sides(*plane.plan, i).out == rows);
  }
  // Real steps: R2C packs its outputs in pairs (input direct only), C2R unpacks its inputs
  // (output direct only); odd lengths load or store reals (neither).
  const auto real_sides = [&](fft::Kind kind, long long n) {
    const fft::FftPlanResult planned = fft::plan_real_1d(kind, n, 16, fft::Precision::kSingle, h100);
    REQUIRE(planned.plan.has_value());
    REQUIRE(planned.plan->passes.size() == 1);
    return sides(*planned.plan, 0);
  };
  CHECK(real_sides(fft::Kind::kR2C, 2000).in);
  CHECK_FALSE(real_sides(fft::Kind::kR2C, 2000).out);
  CHECK_FALSE(real_sides(fft::Kind::kC2R, 2000).in);
  CHECK(real_sides(fft::Kind::kC2R, 2000).out);
  CHECK_FALSE(real_sides(fft::Kind::kR2C, 243).in);
  CHECK_FALSE(real_sides(fft::Kind::kR2C, 243).out);
  CHECK_FALSE(real_sides(fft::Kind::kC2R, 243).in);
  CHECK_FALSE(real_sides(fft::Kind::kC2R, 243).out);
}

TEST_CASE("tuning table: 2D/3D lines of a strided array native where measured", "[fft][tuning][lines][cpu]") {
  const fft::DeviceClass h100{90, 3352};
  const fft::DeviceClass h200{90, 4800};
  const auto f32 = fft::Precision::kSingle;
  const auto f64 = fft::Precision::kDouble;
  const char* reason = nullptr;
  const auto wins = [&](fft::Precision precision, int rank, long long lines, bool contiguous, long long points,
                        fft::DeviceClass device) {
    reason = nullptr;
    const bool native = fft::native_lines_wins(precision, rank, lines, contiguous, points, device, &reason);
    if (!native) CHECK(reason != nullptr);
    return native;
  };
  // Same layout out: every measured shape won (2.5-17x), odd S too.
  CHECK(wins(f32, 2, 1024, false, 1LL << 26, h100));
  CHECK(wins(f32, 2, 129, false, 256LL * 256 * 129, h100));
  CHECK(wins(f64, 3, 2, false, 1LL << 25, h100));
  CHECK(wins(f32, 2, 16, false, 1LL << 20, h100));
  // Contiguous out: even S from 2^20 points, odd S from 2^22 (256^2 x 129 1.43x; 128^2 x 65,
  // 2^20 points, 0.82x).
  CHECK(wins(f32, 2, 64, true, 1LL << 22, h100));
  CHECK(wins(f64, 3, 2, true, 1LL << 25, h100));
  CHECK(wins(f32, 2, 16, true, 1LL << 20, h100));
  CHECK(wins(f32, 2, 129, true, 256LL * 256 * 129, h100));
  CHECK(wins(f64, 2, 129, true, 512LL * 512 * 129, h100));
  CHECK(wins(f32, 3, 33, true, 64LL * 64 * 64 * 33, h100));
  CHECK_FALSE(wins(f32, 2, 65, true, 128LL * 128 * 65, h100));
  CHECK_FALSE(wins(f32, 2, 3, true, 2048LL * 2048 * 3, h100));  // rows of 3 lines: the shape that lost
  CHECK_FALSE(wins(f32, 2, 7, true, 2048LL * 2048 * 7, h100));
  CHECK(wins(f32, 2, 17, true, 512LL * 512 * 17, h100));
  // H200: the same layout from 16 lines and 2^20 points; contiguous out, even S at 2^26 points,
  // odd S from 129 lines and 2^22 points (33 lines lost or tied in fp32).
  CHECK(wins(f32, 2, 1024, false, 1LL << 26, h200));
  CHECK(wins(f64, 2, 16, false, 1LL << 20, h200));
  CHECK_FALSE(wins(f32, 2, 2, false, 1LL << 26, h200));  // fewer lines than measured
  CHECK(wins(f32, 2, 1024, true, 1LL << 26, h200));
  CHECK_FALSE(wins(f32, 2, 16, true, 1LL << 20, h200));  // a smaller call than measured
  CHECK(wins(f32, 2, 129, true, 256LL * 256 * 129, h200));
  CHECK(wins(f64, 2, 257, true, 128LL * 128 * 257, h200));
  CHECK_FALSE(wins(f32, 3, 33, true, 64LL * 64 * 64 * 33, h200));
  CHECK_FALSE(wins(f32, 2, 65, true, 128LL * 128 * 65, h200));
  // Even S from 130 lines below 2^26 points was not measured on the H200.
  CHECK_FALSE(wins(f32, 2, 256, true, 1LL << 22, h200));
  CHECK_FALSE(wins(f64, 3, 130, true, 1LL << 24, h200));
  CHECK(wins(f32, 2, 256, true, 1LL << 26, h200));
  // Not measured: small calls, rank 1, other precisions, other devices.
  CHECK_FALSE(wins(f32, 2, 1024, false, (1LL << 20) - 1, h100));
  CHECK_FALSE(wins(f32, 1, 1024, false, 1LL << 26, h100));
  CHECK_FALSE(wins(fft::Precision::kHalf, 2, 1024, false, 1LL << 26, h100));
  CHECK_FALSE(wins(f32, 2, 1024, false, (1LL << 20) - 1, h200));
  CHECK_FALSE(wins(f32, 2, 1024, false, 1LL << 26, {80, 2039}));
}

TEST_CASE("tuning table: multi-dimensional and real transforms native only at the measured shapes",
          "[fft][tuning][cpu]") {
  const fft::DeviceClass h100{90, 3352};
  const fft::DeviceClass h200{90, 4800};
  const char* reason = nullptr;
  const auto wins = [&](fft::Kind kind, fft::Precision precision, std::vector<long long> dims, long long batch,
                        fft::DeviceClass device) {
    reason = nullptr;
    const bool native =
        fft::native_layout_wins(kind, precision, static_cast<int>(dims.size()), dims.data(), batch, device, &reason);
    if (!native) CHECK(reason != nullptr);
    return native;
  };
  using fft::Kind;
  using fft::Precision;
  // Real lengths whose half is a cluster length, and two-pass ones: the measured wins, per
  // device class, at the measured call sizes. H200: fp32 2^16..2^18, fp64 2^15..2^17.
  for (int bits = 15; bits <= 18; ++bits) {
    CAPTURE(bits);
    for (Kind kind : {Kind::kR2C, Kind::kC2R}) {
      CHECK(wins(kind, Precision::kSingle, {1LL << bits}, (1LL << 26) >> bits, h100) == (bits > 15));
      CHECK(wins(kind, Precision::kDouble, {1LL << bits}, (1LL << 25) >> bits, h100));
      CHECK(wins(kind, Precision::kSingle, {1LL << bits}, (1LL << 26) >> bits, h200) == (bits > 15));
      CHECK(wins(kind, Precision::kDouble, {1LL << bits}, (1LL << 25) >> bits, h200) == (bits < 18));
      CHECK_FALSE(wins(kind, Precision::kSingle, {1LL << bits}, (1LL << 24) >> bits, h200));  // a smaller call
    }
  }
  // H200's own rows: n = 64 (all four), D2Z 2^14, 2^19, 2^21, R2C 2^22; not C2R 2^19 .. 2^22.
  for (Kind kind : {Kind::kR2C, Kind::kC2R}) {
    CHECK(wins(kind, Precision::kSingle, {64}, 1LL << 20, h200));
    CHECK(wins(kind, Precision::kDouble, {64}, 1LL << 19, h200));
    CHECK_FALSE(wins(kind, Precision::kSingle, {64}, 1LL << 20, h100));
  }
  CHECK(wins(Kind::kR2C, Precision::kDouble, {1LL << 14}, 2048, h200));
  CHECK_FALSE(wins(Kind::kC2R, Precision::kDouble, {1LL << 14}, 2048, h200));  // a tie (1.04x)
  CHECK(wins(Kind::kR2C, Precision::kDouble, {1LL << 21}, 16, h200));
  CHECK(wins(Kind::kR2C, Precision::kSingle, {1LL << 22}, 16, h200));
  CHECK_FALSE(wins(Kind::kR2C, Precision::kSingle, {1LL << 22}, 16, h100));  // lost there
  for (int bits = 19; bits <= 22; ++bits) CHECK_FALSE(wins(Kind::kC2R, Precision::kSingle, {1LL << bits}, (1LL << 26) >> bits, h200));
  CHECK_FALSE(wins(Kind::kR2C, Precision::kSingle, {1LL << 19}, 128, h100));  // two passes lost (0.83-1.04x)
  CHECK(wins(Kind::kC2R, Precision::kSingle, {1LL << 20}, 64, h100));
  CHECK_FALSE(wins(Kind::kC2R, Precision::kSingle, {1LL << 20}, 64, h200));  // a tie (1.00x)
  CHECK_FALSE(wins(Kind::kC2R, Precision::kSingle, {1LL << 20}, 16, h100));  // below the measured call
  CHECK(wins(Kind::kC2R, Precision::kDouble, {1LL << 19}, 64, h100));
  CHECK(wins(Kind::kC2R, Precision::kDouble, {1LL << 19}, 64, h200));
  CHECK(wins(Kind::kR2C, Precision::kDouble, {1LL << 19}, 64, h100));
  // Halves from 2^22: cluster column passes (H100). R2C from one transform a call, the others
  // at 2^26 / 2^25 reals; Z2D 2^23 tied, 2^26 not measured.
  for (int bits = 23; bits <= 27; ++bits) {
    CAPTURE(bits);
    const long long batch32 = std::max(1LL, (1LL << 26) >> bits);
    const long long batch64 = std::max(1LL, (1LL << 25) >> bits);
    for (Kind kind : {Kind::kR2C, Kind::kC2R}) CHECK(wins(kind, Precision::kSingle, {1LL << bits}, batch32, h100));
    // H200: R2C 2^23..2^26, C2R 2^23..2^25 at 2^26 reals a call (2^27 not measured, C2R 2^26 tied).
    CHECK(wins(Kind::kR2C, Precision::kSingle, {1LL << bits}, batch32, h200) == (bits <= 26));
    CHECK(wins(Kind::kC2R, Precision::kSingle, {1LL << bits}, batch32, h200) == (bits <= 25));
    if (bits <= 25) CHECK_FALSE(wins(Kind::kR2C, Precision::kSingle, {1LL << bits}, 1, h200));  // one transform
    CHECK(wins(Kind::kR2C, Precision::kSingle, {1LL << bits}, 1, h100));
    if (bits < 26) CHECK_FALSE(wins(Kind::kC2R, Precision::kSingle, {1LL << bits}, batch32 / 2, h100));
    CHECK(wins(Kind::kR2C, Precision::kDouble, {1LL << bits}, batch64, h100) == (bits <= 26));
    CHECK(wins(Kind::kC2R, Precision::kDouble, {1LL << bits}, batch64, h100) == (bits == 24 || bits == 25));
  }
  CHECK_FALSE(wins(Kind::kR2C, Precision::kDouble, {1LL << 23}, 2, h100));  // below the measured call
  // The measured wins (H100).
  CHECK(wins(Kind::kR2C, Precision::kDouble, {8192}, 4096, h100));
  CHECK(wins(Kind::kC2R, Precision::kDouble, {8192}, 4096, h100));
  CHECK(wins(Kind::kC2R, Precision::kDouble, {16384}, 2048, h100));
  CHECK(wins(Kind::kC2C, Precision::kDouble, {4096, 4096}, 2, h100));
  CHECK(wins(Kind::kC2C, Precision::kSingle, {256, 256, 256}, 4, h100));
  CHECK(wins(Kind::kC2C, Precision::kSingle, {512, 512, 512}, 1, h100));
  // Fused planes (H100 and H200 where each won, 2^26 / 2^25 points a call).
  for (long long side : {128LL, 256LL, 512LL, 1024LL}) {
    CAPTURE(side);
    CHECK(wins(Kind::kC2C, Precision::kSingle, {side, side}, (1LL << 26) / (side * side), h100));
    CHECK(wins(Kind::kC2C, Precision::kDouble, {side, side}, (1LL << 25) / (side * side), h100));
    CHECK(wins(Kind::kC2C, Precision::kSingle, {side, side}, (1LL << 26) / (side * side), h200) == (side <= 256));
    CHECK(wins(Kind::kC2C, Precision::kDouble, {side, side}, (1LL << 25) / (side * side), h200) ==
          (side != 512));
    // Smaller calls than measured stay with the vendor (latency-bound there).
    CHECK(!wins(Kind::kC2C, Precision::kSingle, {side, side}, (1LL << 22) / (side * side), h100));
  }
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {2048, 2048}, 16, h100));
  // Real planes: 256^2 fused (H100 only); the other sides lost.
  for (Kind kind : {Kind::kR2C, Kind::kC2R}) {
    CHECK(wins(kind, Precision::kSingle, {256, 256}, 1024, h100));
    CHECK(wins(kind, Precision::kSingle, {256, 256}, 2048, h100));  // torch.fft.rfft2's call
    CHECK(wins(kind, Precision::kDouble, {256, 256}, 512, h100));
    CHECK(wins(kind, Precision::kSingle, {256, 256, 256}, 4, h100));
    CHECK(wins(kind, Precision::kDouble, {256, 256, 256}, 2, h100));
    CHECK(!wins(kind, Precision::kSingle, {256, 256}, 64, h100));
    CHECK(!wins(kind, Precision::kSingle, {256, 256}, 1024, h200));
    for (long long side : {128LL, 512LL, 1024LL}) {
      CHECK(!wins(kind, Precision::kSingle, {side, side}, (1LL << 26) / (side * side), h100));
    }
  }
  // A packed cluster column pass (H100): D2Z 4096^2 won; the fp32 planes and C2R tied.
  CHECK(wins(Kind::kR2C, Precision::kDouble, {4096, 4096}, 2, h100));
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {4096, 4096}, 4, h100));
  CHECK(!wins(Kind::kC2R, Precision::kDouble, {4096, 4096}, 2, h100));
  CHECK(!wins(Kind::kR2C, Precision::kDouble, {4096, 4096}, 2, h200));
  // The outer axis a cluster column pass (H100).
  CHECK(wins(Kind::kC2C, Precision::kSingle, {4096, 4096}, 4, h100));
  CHECK(wins(Kind::kC2C, Precision::kSingle, {8192, 8192}, 1, h100));
  for (fft::DeviceClass device : {h100, h200}) {
    CHECK(wins(Kind::kC2C, Precision::kSingle, {128, 128, 128}, 32, device));
    CHECK(wins(Kind::kC2C, Precision::kSingle, {256, 256, 256}, 4, device));
    CHECK(wins(Kind::kC2C, Precision::kSingle, {512, 512, 512}, 1, device));
    CHECK(wins(Kind::kC2C, Precision::kDouble, {128, 128, 128}, 16, device));
    CHECK(wins(Kind::kC2C, Precision::kDouble, {256, 256, 256}, 2, device));
    CHECK(!wins(Kind::kC2C, Precision::kSingle, {128, 128, 128}, 1, device));
  }
  // Where it lost or tied, smaller calls than measured, other shapes, precisions and devices.
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {8192}, 8192, h100));
  CHECK(!wins(Kind::kR2C, Precision::kDouble, {16384}, 2048, h100));
  CHECK(!wins(Kind::kR2C, Precision::kDouble, {8192}, 16, h100));
  CHECK(wins(Kind::kC2C, Precision::kSingle, {4096, 4096}, 4, h200));
  CHECK(wins(Kind::kC2C, Precision::kDouble, {4096, 4096}, 2, h200));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {8192, 8192}, 1, h200));  // lost there (0.92-0.93x)
  CHECK(wins(Kind::kR2C, Precision::kDouble, {8192, 8192}, 1, h200));
  CHECK(!wins(Kind::kR2C, Precision::kDouble, {8192, 8192}, 1, h100));  // not measured there
  CHECK(wins(Kind::kR2C, Precision::kDouble, {128, 128}, 2048, h200));
  CHECK(wins(Kind::kC2R, Precision::kDouble, {128, 128}, 2048, h200));
  CHECK(wins(Kind::kC2C, Precision::kDouble, {64, 64, 64}, 128, h200));
  CHECK(wins(Kind::kR2C, Precision::kDouble, {64, 64, 64}, 128, h200));
  CHECK(!wins(Kind::kC2R, Precision::kDouble, {64, 64, 64}, 128, h200));  // a tie (1.05x)
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {64, 64, 64}, 256, h200));  // a tie (1.04x)
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {1000, 1000}, 67, h200));   // lost (0.38x)
  // 1080 x 1920 real planes (H200): R2C, D2Z and C2R, not the transposed shape, Z2D, C2C or smaller calls.
  CHECK(wins(Kind::kR2C, Precision::kSingle, {1080, 1920}, 32, h200));
  CHECK(wins(Kind::kR2C, Precision::kDouble, {1080, 1920}, 16, h200));
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {1920, 1080}, 32, h200));
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {1920, 1920}, 32, h200));
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {1080, 1920}, 8, h200));
  CHECK(wins(Kind::kC2R, Precision::kSingle, {1080, 1920}, 32, h200));  // since the row-padded exchanges
  CHECK(!wins(Kind::kC2R, Precision::kDouble, {1080, 1920}, 16, h200));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {1080, 1920}, 32, h200));
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {1080, 1920}, 32, h100));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {4096, 4096}, 1, h100));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {2048, 2048}, 16, h100));
  CHECK(!wins(Kind::kC2C, Precision::kDouble, {4096, 2048}, 4, h100));
  CHECK(!wins(Kind::kC2C, Precision::kDouble, {256, 256, 256}, 1, h100));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {256, 256, 256}, 1, h100));
  // Even real lengths whose half has a fixed-sequence kernel (H100, 2^26 / 2^25 reals a call).
  const long long reals32 = 1LL << 26;
  const long long reals64 = 1LL << 25;
  for (long long n : {240LL, 400LL, 480LL, 500LL, 800LL, 1250LL, 1920LL, 2000LL, 3840LL, 4000LL, 4374LL, 4802LL,
                      6400LL}) {
    CAPTURE(n);
    CHECK(wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n, h100));
    CHECK(wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n, h100));
    CHECK(wins(Kind::kC2R, Precision::kSingle, {n}, reals32 / n, h100) == (n == 400 || n == 800 || n == 1920));
    CHECK(wins(Kind::kC2R, Precision::kDouble, {n}, reals64 / n, h100) == (n == 1920));
    CHECK(!wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n / 2, h100));  // half the measured call
    const bool h200_r2c = n == 240 || n == 400 || n == 480 || n == 800 || n == 1920 || n == 3840;
    // fp32 R2C 500 since the fixed-sequence stages' constants (fp32 only), 1250 since the
    // row-padded exchanges.
    CHECK(wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n, h200) == (h200_r2c || n == 500 || n == 1250));
    CHECK(wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n, h200) == (h200_r2c || n == 6400));
    CHECK(wins(Kind::kC2R, Precision::kSingle, {n}, reals32 / n, h200) == (n == 400 || n == 800 || n == 1920));
    CHECK(wins(Kind::kC2R, Precision::kDouble, {n}, reals64 / n, h200) == (n == 400 || n == 800 || n == 1920));
  }
  // The rows' threshold: n x batch at least 2^26 - 8192 reals (fp32), larger calls included.
  const long long threshold32 = reals32 - 8192;
  CHECK(!wins(Kind::kR2C, Precision::kSingle, {400}, (threshold32 - 1) / 400, h100));
  CHECK(wins(Kind::kR2C, Precision::kSingle, {400}, (threshold32 + 399) / 400, h100));
  CHECK(wins(Kind::kR2C, Precision::kSingle, {400}, 4 * reals32 / 400, h100));
  const long long threshold64 = reals64 - 8192;
  CHECK(!wins(Kind::kR2C, Precision::kDouble, {6400}, (threshold64 - 1) / 6400, h100));
  CHECK(wins(Kind::kR2C, Precision::kDouble, {6400}, (threshold64 + 6399) / 6400, h100));
  // H200 fp64 halves that widen their radix-7 stage: D2Z 7700, 8008, 8190 and Z2D 8190 win; Z2D
  // 7700, 8008 and both sides of 13122 (half 6561) do not; not measured on an H100.
  for (long long n : {7700LL, 8008LL, 8190LL, 13122LL}) {
    CAPTURE(n);
    CHECK(wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n, h200) == (n != 13122));
    CHECK(wins(Kind::kC2R, Precision::kDouble, {n}, reals64 / n, h200) == (n == 8190));
    CHECK(!wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n / 2, h200));  // half the measured call
    CHECK(!wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n, h100));
    CHECK(!wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n, h200));
  }
  for (long long n : {600LL, 960LL, 1000LL, 6250LL, 8000LL, 10000LL}) {  // lost or tied (H100)
    CAPTURE(n);
    CHECK(!wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n, h100));
    CHECK(!wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n, h100));
    // H200: fp32 R2C 960 wins since the fixed-sequence stages' constants, 600 and 6250 since the
    // row-padded exchanges; the others lose there.
    CHECK(wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n, h200) == (n == 960 || n == 600 || n == 6250));
    CHECK(!wins(Kind::kR2C, Precision::kSingle, {n}, reals32 / n / 2, h200));  // half the measured call
    CHECK(!wins(Kind::kR2C, Precision::kDouble, {n}, reals64 / n, h200));
    CHECK(!wins(Kind::kC2R, Precision::kSingle, {n}, reals32 / n, h200));
  }
  // Not measured on an H200 nor on any other device.
  CHECK(!wins(Kind::kR2C, Precision::kDouble, {8192}, 4096, h200));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {512, 512, 512}, 1, {100, 8000}));
  CHECK(!wins(Kind::kC2C, Precision::kSingle, {256, 256}, 1024, {80, 2000}));
  CHECK(std::string(reason).find("never measured") != std::string::npos);
}

// --- Lengths with prime factors above 13: plan_c2c_any, Rader and Bluestein ---------------------

namespace {

const long double kPiL = 3.141592653589793238462643383279502884L;

// The naive DFT of transform b (of `batch` contiguous ones) at the given bins only, in long double.
std::vector<ComplexL> naive_bins(const std::vector<Complex>& x, long long n, long long b,
                                 const std::vector<long long>& bins, int sign) {
  std::vector<ComplexL> roots(static_cast<std::size_t>(n));
  for (long long e = 0; e < n; ++e) {
    const long double angle = 2.0L * kPiL * static_cast<long double>(e) / static_cast<long double>(n);
    roots[static_cast<std::size_t>(e)] = {std::cos(angle), sign * std::sin(angle)};
  }
  std::vector<ComplexL> result;
  for (long long k : bins) {
    long double re = 0, im = 0;
    long long e = 0;
    for (long long t = 0; t < n; ++t, e = (e + k) % n) {
      const Complex v = x[static_cast<std::size_t>(b * n + t)];
      const ComplexL w = roots[static_cast<std::size_t>(e)];
      re += w.real() * v.real() - w.imag() * v.imag();
      im += w.real() * v.imag() + w.imag() * v.real();
    }
    result.push_back({re, im});
  }
  return result;
}

bool is_235_smooth(long long m) {
  for (long long q : {2, 3, 5}) {
    while (m % q == 0) m /= q;
  }
  return m == 1;
}

bool is_13_smooth(long long m) {
  for (long long q : {2, 3, 5, 7, 11, 13}) {
    while (m % q == 0) m /= q;
  }
  return m == 1;
}

// The invariants of plan_c2c_any's plans with convolution steps (and of every pass: those of
// check_plan, with the convolution's stages and slots).
void check_step_plan(const fft::FftPlan& plan, const fft::DeviceLimits& limits) {
  INFO(plan.to_string());
  const long long padded = fft::bluestein_padded_length(plan);
  const long long max_threads = std::min(limits.max_threads_per_block, fft::kernel_max_threads(plan.element_bytes));
  for (const fft::FftPass& pass : plan.passes) {
    const bool convolution = pass.convolution != fft::ConvolutionStep::kNone;
    const long long stage_points = convolution ? pass.convolution_size : pass.size;
    long long radix_product = 1;
    for (int radix : pass.radices) {
      radix_product *= radix;
      CHECK(std::find(std::begin(fft::kFftRadices), std::end(fft::kFftRadices), radix) != std::end(fft::kFftRadices));
      CHECK(static_cast<long long>(pass.threads_per_transform) * fft::butterflies_per_thread(radix) >=
            stage_points / radix);
    }
    CHECK(radix_product == stage_points);
    const long long length = pass.transform_n > 0 ? pass.transform_n : plan.n;
    CHECK(pass.sub_transforms * pass.size == length);
    CHECK(pass.in_stride == length / pass.size);
    long long slots = pass.size;
    if (pass.convolution == fft::ConvolutionStep::kRader) {
      slots = pass.size + 1;
      CHECK(fft::is_prime(pass.size));
      CHECK(pass.convolution_size == pass.size - 1);
      CHECK(pass.rader_generator == fft::primitive_root(pass.size));
    }
    if (pass.convolution == fft::ConvolutionStep::kBluestein) {
      slots = pass.convolution_size;
      CHECK(pass.convolution_size >= 2 * pass.size - 1);
      CHECK(is_235_smooth(pass.convolution_size));
    }
    CHECK(pass.smem_stride >= fft::smem_stride(slots, pass.smem_shift));
    CHECK(pass.shared_bytes == static_cast<std::size_t>(pass.smem_stride) * plan.element_bytes *
                                   static_cast<std::size_t>(pass.transforms_per_block));
    CHECK(pass.shared_bytes <= limits.shared_bytes_per_block);
    CHECK(static_cast<long long>(pass.threads_per_transform) * pass.transforms_per_block <= max_threads);
    CHECK(pass.blocks * pass.transforms_per_block >= pass.sub_transforms * plan.batch);
    CHECK((pass.blocks - 1) * pass.transforms_per_block < pass.sub_transforms * plan.batch);
    if (pass.sub_transforms > 1) CHECK(pass.sub_transforms % pass.transforms_per_block == 0);
    if (pass.span_before > 1) {
      CHECK(pass.span_before % pass.transforms_per_block == 0);
      CHECK((1LL << (2 * pass.twiddle_lo_bits)) >= pass.span_before * pass.size);
    }
  }
  if (padded == 0) {
    long long product = 1;
    for (const fft::FftPass& pass : plan.passes) {
      CHECK(pass.bluestein == fft::BluesteinStep::kNone);
      CHECK(pass.span_before == product);
      CHECK(pass.out_stride == product);
      product *= pass.size;
    }
    CHECK(product == plan.n);
    CHECK(plan.work_bytes ==
          (plan.passes.size() <= 2 ? 0 : static_cast<std::size_t>(plan.n * plan.batch) * plan.element_bytes));
    return;
  }
  // A multi-pass Bluestein plan: the forward M-point plan's passes, the last fused with the
  // inverse plan's first (sizes reversed), then the inverse plan's others.
  const std::size_t count = plan.passes.size();
  REQUIRE(count % 2 == 1);
  REQUIRE(count >= 3);
  const std::size_t middle = count / 2;
  CHECK(padded >= 2 * plan.n - 1);
  CHECK(is_235_smooth(padded));
  // Three passes keep one M-point intermediate (the spectrum pass in place), longer plans two.
  CHECK(fft::bluestein_one_buffer(plan) == (count == 3));
  CHECK(plan.work_bytes == (count == 3 ? 1 : 2) * static_cast<std::size_t>(padded * plan.batch) * plan.element_bytes);
  const std::vector<fft::PassTurn> turns = fft::plan_turns(plan, false);
  REQUIRE(turns.size() == count);
  if (count == 3) {
    CHECK((turns[1].from == fft::Buffer::kWork && turns[1].to == fft::Buffer::kWork));
    CHECK(turns[1].from_offset == turns[1].to_offset);
  }
  long long forward = 1, inverse = 1;
  for (std::size_t i = 0; i < count; ++i) {
    const fft::FftPass& pass = plan.passes[i];
    CAPTURE(i);
    CHECK(pass.convolution == fft::ConvolutionStep::kNone);
    CHECK(pass.transform_n == padded);
    CHECK(pass.chirp_length == plan.n);
    const fft::BluesteinStep expected = i == 0          ? fft::BluesteinStep::kChirpLoad
                                        : i < middle    ? fft::BluesteinStep::kForward
                                        : i == middle   ? fft::BluesteinStep::kSpectrum
                                        : i + 1 < count ? fft::BluesteinStep::kInverse
                                                        : fft::BluesteinStep::kChirpStore;
    CHECK(pass.bluestein == expected);
    CHECK(fft::pass_sign(pass, -1) == (i > middle ? +1 : -1));
    if (i <= middle) {
      CHECK(pass.span_before == forward);
      forward *= pass.size;
      // The inverse plan's sizes are the forward ones reversed.
      CHECK(pass.size == plan.passes[count - 1 - i].size);
    }
    if (i >= middle) {
      CHECK((i == middle || pass.span_before == inverse));
      CHECK(pass.out_stride == inverse);
      inverse *= pass.size;
    }
  }
  CHECK(forward == padded);
  CHECK(inverse == padded);
}

fft::FftPlan must_plan_any(long long n, long long batch, fft::Precision precision, const fft::DeviceLimits& limits) {
  fft::FftPlanResult result = fft::plan_c2c_any(n, batch, precision, limits);
  INFO("reason: " << result.reason);
  REQUIRE(result.plan.has_value());
  return *result.plan;
}

// Forward and inverse against the naive DFT (every bin up to 4200 points, else 64 bins of each
// transform), the round trip against n x, and in place against out of place, bit for bit.
void check_any_against_naive(const fft::FftPlan& plan, std::uint64_t salt) {
  INFO(plan.to_string());
  const long long n = plan.n;
  const std::size_t total = static_cast<std::size_t>(n * plan.batch);
  const std::vector<Complex> x = random_input(total, salt);
  const bool every_bin = n <= 4200;
  std::vector<long long> bins = {0, 1, n / 2, n - 1};
  std::mt19937_64 engine(base_seed() + salt);
  while (bins.size() < 64) bins.push_back(static_cast<long long>(engine() % static_cast<std::uint64_t>(n)));
  for (int sign : {-1, +1}) {
    CAPTURE(sign);
    std::vector<Complex> y = poisoned(total);
    fft::reference::execute_any(plan, sign, x.data(), y.data());
    if (every_bin) {
      CHECK(relative_error(y, naive_dft(x, n, plan.batch, sign)) < kTolerance);
    } else {
      for (long long b = 0; b < plan.batch; ++b) {
        CAPTURE(b);
        std::vector<Complex> got;
        for (long long k : bins) got.push_back(y[static_cast<std::size_t>(b * n + k)]);
        CHECK(relative_error(got, naive_bins(x, n, b, bins, sign)) < kTolerance);
      }
    }
    std::vector<Complex> back = poisoned(total);
    fft::reference::execute_any(plan, -sign, y.data(), back.data());
    CHECK(relative_error(back, scaled(x, static_cast<long double>(n))) < kTolerance);
    std::vector<Complex> z = x;
    fft::reference::execute_any(plan, sign, z.data(), z.data());
    CHECK(z == y);
  }
}

}  // namespace

TEST_CASE("chirp: k^2 mod 2n reduced exactly, the table accurate for large n", "[fft][bluestein][cpu]") {
  // The exponent against 128-bit arithmetic, on both sides of the 64-bit product's range.
  std::mt19937_64 engine(base_seed());
  for (long long n : {17LL, 1048573LL, (1LL << 31) - 1, (1LL << 40) + 15, (1LL << 61) - 1}) {
    for (int trial = 0; trial < 200; ++trial) {
      const long long k =
          trial < 2 ? (trial == 0 ? 0 : n - 1) : static_cast<long long>(engine() % static_cast<std::uint64_t>(n));
      CAPTURE(n, k);
      const unsigned __int128 square = static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k);
      CHECK(static_cast<unsigned long long>(fft::chirp_exponent(k, n)) ==
            static_cast<unsigned long long>(square % (2 * static_cast<unsigned __int128>(n))));
    }
  }
  // n = 2^20 - 3 (prime): the table's entries against long double (k^2 < 2^41 is exact there),
  // and the angle pi k^2 / n formed in double without the reduction, which is far off.
  const long long n = 1048573;
  REQUIRE(fft::is_prime(n));
  const std::vector<Complex> chirp = fft::chirp_table(n);
  REQUIRE(chirp.size() == static_cast<std::size_t>(n));
  std::vector<long long> ks = {0, 1, 2, 1000, 65536, 524287, n / 2, n - 2, n - 1};
  for (int trial = 0; trial < 40; ++trial)
    ks.push_back(static_cast<long long>(engine() % static_cast<std::uint64_t>(n)));
  double naive_worst = 0;
  for (long long k : ks) {
    CAPTURE(k);
    const unsigned long long square = static_cast<unsigned long long>(k) * static_cast<unsigned long long>(k);
    const long double angle = kPiL * static_cast<long double>(square % (2ULL * n)) / static_cast<long double>(n);
    const ComplexL want(std::cos(angle), -std::sin(angle));
    CHECK(std::abs(ComplexL(chirp[static_cast<std::size_t>(k)]) - want) < 4e-16L);  // as a twiddle: a few eps
    const double naive_angle =
        3.14159265358979323846 * static_cast<double>(k) * static_cast<double>(k) / static_cast<double>(n);
    naive_worst = std::max(
        naive_worst, static_cast<double>(std::abs(ComplexL(std::cos(naive_angle), -std::sin(naive_angle)) - want)));
  }
  CHECK(naive_worst > 1e-10);  // about n eps
}

TEST_CASE("Rader: generators of (Z/p)^* and the slot permutations", "[fft][rader][cpu]") {
  CHECK(fft::primitive_root(17) == 3);
  CHECK(fft::primitive_root(19) == 2);
  CHECK(fft::primitive_root(23) == 5);
  CHECK(fft::primitive_root(97) == 5);
  CHECK(fft::primitive_root(101) == 2);
  CHECK(fft::primitive_root(257) == 3);
  CHECK(fft::primitive_root(65537) == 3);
  CHECK_FALSE(fft::is_prime(1));
  CHECK_FALSE(fft::is_prime(4097));   // 17 x 241
  CHECK_FALSE(fft::is_prime(10001));  // 73 x 137
  for (long long p : {17LL, 19LL, 23LL, 97LL, 101LL, 257LL, 1009LL, 4099LL, 10007LL, 65537LL, 1048573LL}) {
    CAPTURE(p);
    REQUIRE(fft::is_prime(p));
    const int g = fft::primitive_root(p);
    const auto up = static_cast<unsigned long long>(p);
    // g generates: its p - 1 powers are every residue 1 .. p - 1 once.
    std::vector<char> seen(static_cast<std::size_t>(p), 0);
    unsigned long long power = 1;
    bool once = true;
    for (long long r = 0; r < p - 1; ++r) {
      once = once && power != 0 && !seen[power];
      seen[power] = 1;
      power = fft::mul_mod(power, static_cast<unsigned long long>(g), up);
    }
    CHECK(once);
    CHECK(power == 1);
    if (p > 70000) continue;  // the slot maps below: the lengths a Rader pass may take
    const std::vector<int> logs = fft::rader_logs(p, g);
    const int pi = static_cast<int>(p);
    std::vector<int> input_hits(static_cast<std::size_t>(p + 1), 0), output_hits(static_cast<std::size_t>(p + 1), 0);
    bool inputs_right = true, outputs_right = true;
    for (int e = 0; e < pi; ++e) {
      const int in = fft::rader_input_slot(e, logs[static_cast<std::size_t>(e)], pi);
      const int out = fft::rader_output_slot(e, logs[static_cast<std::size_t>(e)], pi);
      ++input_hits[static_cast<std::size_t>(in)];
      ++output_hits[static_cast<std::size_t>(out)];
      if (e == 0) {
        inputs_right = inputs_right && in == pi - 1;
        outputs_right = outputs_right && out == pi;
      } else {
        // Slot q of the input holds x[g^-q]: e g^q = 1. Slot m of the output holds X[g^m].
        inputs_right =
            inputs_right && fft::mul_mod(static_cast<unsigned long long>(e), fft::pow_mod(g, in, up), up) == 1;
        outputs_right = outputs_right && fft::pow_mod(g, out, up) == static_cast<unsigned long long>(e);
      }
    }
    CHECK(inputs_right);
    CHECK(outputs_right);
    // Every residue once: inputs onto slots 0 .. p - 1, outputs onto 0 .. p - 2 and p.
    for (int slot = 0; slot <= pi; ++slot) {
      CAPTURE(slot);
      CHECK(input_hits[static_cast<std::size_t>(slot)] == (slot < pi ? 1 : 0));
      CHECK(output_hits[static_cast<std::size_t>(slot)] == (slot == pi - 1 ? 0 : 1));
    }
  }
}

TEST_CASE("Rader and Bluestein index maps and kernel spectra against a naive DFT", "[fft][rader][bluestein][cpu]") {
  std::uint64_t salt = 9000;
  // Rader through its slot maps, the convolution naive, in long double.
  for (int p : {17, 23, 97, 101}) {
    CAPTURE(p);
    const int g = fft::primitive_root(p);
    const std::vector<int> logs = fft::rader_logs(p, g);
    const std::vector<Complex> x = random_input(p, ++salt);
    const auto power = [&](long long r) { return static_cast<long long>(fft::pow_mod(g, r, p)); };
    for (int sign : {-1, +1}) {
      CAPTURE(sign);
      std::vector<ComplexL> a(p - 1), b(p - 1), slots(p + 1);
      for (int e = 1; e < p; ++e) a[fft::rader_input_slot(e, logs[e], p)] = x[e];
      for (int r = 0; r < p - 1; ++r) {
        const long double angle = 2 * kPiL * static_cast<long double>(power(r)) / p;
        b[r] = {std::cos(angle), sign * std::sin(angle)};
      }
      slots[p] = x[0];
      for (int m = 0; m < p - 1; ++m) {
        slots[m] = x[0];
        for (int q = 0; q < p - 1; ++q) slots[m] += a[q] * b[(m - q + p - 1) % (p - 1)];
        slots[p] += a[m];
      }
      std::vector<Complex> got(p);
      for (int k = 0; k < p; ++k) got[k] = Complex(slots[fft::rader_output_slot(k, logs[k], p)]);
      CHECK(relative_error(got, naive_dft(x, p, 1, sign)) < 1e-15);
    }
    // The kernel's spectrum table: DFT_{p-1}(b) / (p - 1), forward sign.
    std::vector<Complex> kernel(p - 1);
    for (int r = 0; r < p - 1; ++r) kernel[r] = fft::twiddle(power(r), p, -1);
    std::vector<ComplexL> spectrum = naive_dft(kernel, p - 1, 1, -1);
    for (ComplexL& v : spectrum) v /= static_cast<long double>(p - 1);
    CHECK(relative_error(fft::rader_spectrum(p, g), spectrum) < 1e-15);
  }
  // Bluestein through the chirp table: the linear convolution, and the cyclic one of m points with
  // the kernel wrapped as bluestein_spectrum wraps it.
  const std::vector<std::pair<int, int>> lengths = {{17, 36}, {34, 72}, {100, 200}, {101, 256}, {1009, 2048}};
  for (const auto& [n, m] : lengths) {
    CAPTURE(n, m);
    const std::vector<Complex> chirp = fft::chirp_table(n);
    const std::vector<Complex> x = random_input(n, ++salt);
    for (int sign : {-1, +1}) {
      CAPTURE(sign);
      const auto c = [&](int k) { return ComplexL(sign < 0 ? chirp[std::abs(k)] : std::conj(chirp[std::abs(k)])); };
      std::vector<ComplexL> kernel(m, ComplexL(0, 0));
      for (int k = 0; k < n; ++k) kernel[k] = kernel[(m - k) % m] = std::conj(c(k));
      std::vector<Complex> linear(n), cyclic(n);
      for (int k = 0; k < n; ++k) {
        ComplexL sum_linear = 0, sum_cyclic = 0;
        for (int t = 0; t < n; ++t) {
          const ComplexL a = ComplexL(x[t]) * c(t);
          sum_linear += a * std::conj(c(k - t));
          sum_cyclic += a * kernel[(k - t + m) % m];
        }
        linear[k] = Complex(c(k) * sum_linear);
        cyclic[k] = Complex(c(k) * sum_cyclic);
      }
      const std::vector<ComplexL> want = naive_dft(x, n, 1, sign);
      CHECK(relative_error(linear, want) < 1e-14);
      CHECK(relative_error(cyclic, want) < 1e-14);
    }
    if (m <= 256) {
      std::vector<Complex> kernel(m, Complex(0, 0));
      for (int k = 0; k < n; ++k) kernel[k] = kernel[(m - k) % m] = std::conj(chirp[k]);
      std::vector<ComplexL> spectrum = naive_dft(kernel, m, 1, -1);
      for (ComplexL& v : spectrum) v /= static_cast<long double>(m);
      CHECK(relative_error(fft::bluestein_spectrum(n, m), spectrum) < 1e-15);
    }
  }
  // The plan-time FFT itself, on smooth lengths and one with a large prime factor.
  // Powers of two take the in-place radix-2 path: 4 is the first to use the derived quarter of roots.
  for (long long n : {1LL, 2LL, 4LL, 8LL, 13LL, 36LL, 64LL, 1000LL, 2048LL, 3LL * 17}) {
    CAPTURE(n);
    const std::vector<Complex> x = random_input(static_cast<std::size_t>(n), ++salt);
    CHECK(relative_error(fft::smooth_dft(x), naive_dft(x, n, 1, -1)) < 1e-15);
  }
}

TEST_CASE("kernel spectra: formed in long double from the exact kernel, rounded once", "[fft][rader][bluestein][cpu]") {
  // DFT_m(b) / m in long double, naive, b from exact long-double roots (not the double tables).
  const auto spectrum_of = [](const std::vector<ComplexL>& b) {
    const auto m = static_cast<long long>(b.size());
    std::vector<ComplexL> roots(b.size()), result(b.size());
    for (long long e = 0; e < m; ++e) {
      const long double angle = 2.0L * kPiL * static_cast<long double>(e) / static_cast<long double>(m);
      roots[static_cast<std::size_t>(e)] = {std::cos(angle), -std::sin(angle)};
    }
    for (long long k = 0; k < m; ++k) {
      long double re = 0, im = 0;
      long long e = 0;
      for (long long t = 0; t < m; ++t, e = (e + k) % m) {
        const ComplexL w = roots[static_cast<std::size_t>(e)], v = b[static_cast<std::size_t>(t)];
        re += w.real() * v.real() - w.imag() * v.imag();
        im += w.real() * v.imag() + w.imag() * v.real();
      }
      result[static_cast<std::size_t>(k)] = {re / static_cast<long double>(m), im / static_cast<long double>(m)};
    }
    return result;
  };
  // Relative (L2) error of the spectra on an x86-64 CPU (80-bit long double): the double FFT of
  // the double tables gave 3.19e-16 (Bluestein 2001, 4096), 3.41e-16 (4089, 8192), 3.17e-16
  // (Rader 1009), 3.29e-16 (Rader 4051); long double rounded once gives 4.9e-17, 4.3e-17,
  // 4.5e-17, 4.4e-17 (about eps / 4, the rounding itself). Where long double is double
  // (digits <= 53) the spectra are the double ones: only the old bound holds.
  const double bound = std::numeric_limits<long double>::digits > 53 ? 1e-16 : 1e-15;
  for (const auto& [n, m] : std::vector<std::pair<long long, long long>>{{2001, 4096}, {4089, 8192}}) {
    CAPTURE(n, m);
    std::vector<ComplexL> b(static_cast<std::size_t>(m), ComplexL(0, 0));
    for (long long k = 0; k < n; ++k) {
      const long double angle = kPiL * static_cast<long double>((k * k) % (2 * n)) / static_cast<long double>(n);
      b[static_cast<std::size_t>(k)] = b[static_cast<std::size_t>((m - k) % m)] = {std::cos(angle), std::sin(angle)};
    }
    CHECK(relative_error(fft::bluestein_spectrum(n, m), spectrum_of(b)) < bound);
    // fp32 plans take the double tables: a few eps of error, invisible in single precision.
    const std::vector<Complex> plain = fft::bluestein_spectrum(n, m, fft::TableAccuracy::kDouble);
    CHECK(relative_error(plain, spectrum_of(b)) < 1e-15);
    // Kept per accuracy for the process: asked again, each is returned as first formed, and the
    // two are not mixed up.
    CHECK(fft::bluestein_spectrum(n, m, fft::TableAccuracy::kDouble) == plain);
    CHECK(fft::bluestein_spectrum(n, m, fft::TableAccuracy::kExtended) == fft::bluestein_spectrum(n, m));
    if (std::numeric_limits<long double>::digits > 53) {
      CHECK(fft::bluestein_spectrum(n, m, fft::TableAccuracy::kExtended) != plain);
    }
  }
  for (long long p : {1009LL, 4051LL}) {
    CAPTURE(p);
    const int g = fft::primitive_root(p);
    std::vector<ComplexL> b(static_cast<std::size_t>(p - 1));
    for (long long r = 0; r < p - 1; ++r) {
      const auto power = static_cast<long double>(fft::pow_mod(g, r, p));
      b[static_cast<std::size_t>(r)] = {std::cos(2.0L * kPiL * power / p), -std::sin(2.0L * kPiL * power / p)};
    }
    CHECK(relative_error(fft::rader_spectrum(p, g), spectrum_of(b)) < bound);
  }
}

TEST_CASE("planner: plan_c2c_any by length class", "[fft][planner][cpu]") {
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const auto plan_of = [&](long long n, fft::Precision precision, const fft::DeviceLimits& limits) {
    fft::FftPlanResult result = fft::plan_c2c_any(n, 3, precision, limits);
    CAPTURE(n, static_cast<int>(precision), result.reason);
    REQUIRE(result.plan.has_value());
    CHECK_FALSE(result.reason.empty());
    check_step_plan(*result.plan, limits);
    return result;
  };
  const auto kind_of = [](const fft::FftPlan& plan) -> std::string {
    if (fft::bluestein_padded_length(plan) > 0) return "bluestein-" + std::to_string(plan.passes.size());
    std::string kind;
    for (const fft::FftPass& pass : plan.passes) {
      kind += pass.convolution == fft::ConvolutionStep::kRader       ? "R"
              : pass.convolution == fft::ConvolutionStep::kBluestein ? "B"
                                                                     : "S";
    }
    return kind;
  };
  // 13-smooth: plan_c2c_1d's plan, unchanged.
  for (long long n : {12LL, 1000LL, 1LL << 16, 3LL << 20}) {
    for (fft::Precision precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
      const fft::FftPlanResult any = plan_of(n, precision, h100);
      const fft::FftPlan smooth = must_plan(n, 3, precision, h100);
      CHECK(any.plan->to_string() == smooth.to_string());
      CHECK(any.reason.find("13-smooth") != std::string::npos);
    }
  }
  struct Case {
    long long n;
    fft::Precision precision;
    long long max_size;  // 0: H100 limits, else small_limits (fp32 elements)
    const char* kind;    // per pass: S(tockham), R(ader), B(luestein convolution); or bluestein-<passes>
    long long padded;    // Bluestein's M, where Bluestein
  };
  const auto f64 = fft::Precision::kDouble;
  const auto f32 = fft::Precision::kSingle;
  const std::vector<Case> cases = {
      // Primes: Rader where p - 1 is 13-smooth, in one pass.
      {17, f64, 0, "R", 0},
      {19, f64, 0, "R", 0},
      {23, f32, 0, "R", 0},
      {97, f64, 0, "R", 0},
      {101, f32, 0, "R", 0},
      {257, f64, 0, "R", 0},
      {1009, f64, 0, "R", 0},
      {65537, f32, 0, "bluestein-3", 147456},  // 2^17 < 2 p - 1
      // 4098 = 2 x 3 x 683: Bluestein, in one pass where 9216 fits a block (fp32), else three.
      {4099, f32, 0, "B", 9216},
      {4099, f64, 0, "bluestein-3", 9216},
      {10007, f64, 0, "bluestein-3", 20480},
      // Prime factors above 13 with smooth ones: one Bluestein pass beats two passes.
      {34, f64, 0, "B", 72},
      {51, f64, 0, "B", 128},
      {289, f64, 0, "B", 640},
      {646, f32, 0, "B", 1296},
      {3027, f64, 0, "B", 6144},
      // ... but a mixed plan of two passes beats Bluestein's three.
      {1024 * 17, f64, 0, "SR", 0},
      {1024 * 17, f32, 0, "SR", 0},
      {2 * 4099, f32, 0, "SB", 0},
      // Equal pass counts: the mixed plan (17 x 19 x 23 against 16384 in 3 passes, fp64).
      {17 * 19 * 23, f64, 0, "RRR", 0},
      {17 * 19 * 23, f32, 0, "B", 16384},
      // Small blocks: multi-pass Bluestein, mixed plans with twiddled Rader and Bluestein passes.
      {97, f32, 64, "bluestein-3", 256},
      {1009, f32, 64, "bluestein-3", 2048},
      {4099, f32, 16, "bluestein-7", 9216},
      {3027, f32, 64, "bluestein-5", 6144},
      {646, f32, 64, "SRR", 0},
      {51, f32, 64, "SR", 0},
      {289, f32, 32, "RR", 0},
      {188, f32, 128, "SB", 0},
      {34, f32, 16, "bluestein-3", 72}};
  for (const Case& c : cases) {
    const fft::DeviceLimits limits = c.max_size == 0 ? h100 : small_limits(c.max_size);
    CAPTURE(c.n, static_cast<int>(c.precision), c.max_size);
    const fft::FftPlanResult result = plan_of(c.n, c.precision, limits);
    const fft::FftPlan& plan = *result.plan;
    INFO(result.reason << "\n" << plan.to_string());
    CHECK(kind_of(plan) == c.kind);
    const bool rader = std::string(c.kind).find('R') != std::string::npos;
    const bool bluestein = std::string(c.kind).find('B') != std::string::npos || c.kind[0] == 'b';
    if (rader) CHECK(result.reason.find("Rader") != std::string::npos);
    if (bluestein) CHECK(result.reason.find("Bluestein") != std::string::npos);
    if (c.padded > 0 && c.kind[0] == 'b') CHECK(fft::bluestein_padded_length(plan) == c.padded);
    if (c.padded > 0 && c.kind[0] == 'B') CHECK(plan.passes[0].convolution_size == c.padded);
    CHECK(plan.to_string().find(rader ? "Rader" : bluestein ? "Bluestein" : "pass") != std::string::npos);
  }
  // Declined as plan_c2c_1d declines, with the reason; and where nothing fits.
  CHECK_FALSE(fft::plan_c2c_any(17, 1, fft::Precision::kHalf, h100).plan.has_value());
  CHECK_FALSE(fft::plan_c2c_any(1, 1, fft::Precision::kSingle, h100).plan.has_value());
  CHECK_FALSE(fft::plan_c2c_any(17, 0, fft::Precision::kSingle, h100).plan.has_value());
  const fft::FftPlanResult none = fft::plan_c2c_any(17, 1, fft::Precision::kSingle, small_limits(1));
  CHECK_FALSE(none.plan.has_value());
  CHECK(none.reason.find("no plan") != std::string::npos);
  CHECK_FALSE(fft::plan_c2c_any(fft::kMaxAnyLength + 1, 1, fft::Precision::kSingle, h100).plan.has_value());
}

TEST_CASE("step tables: the Stockham layout plus chirps, spectra and Rader's logarithms", "[fft][planner][cpu]") {
  // A multi-pass Bluestein plan's passes: their twiddles are exactly pass_twiddles' (the nearest
  // doubles at kExtended, an fp64 plan's accuracy), then the chirp (first and last) or the
  // spectrum (middle).
  const fft::FftPlan plan = must_plan_any(1009, 2, fft::Precision::kSingle, small_limits(64));
  INFO(plan.to_string());
  REQUIRE(plan.passes.size() == 3);
  const std::vector<Complex> chirp = fft::chirp_table(1009);
  const std::vector<Complex> spectrum = fft::bluestein_spectrum(1009, fft::bluestein_padded_length(plan));
  for (const fft::FftPass& pass : plan.passes) {
    const fft::StepTables tables = fft::step_tables(pass, fft::TableAccuracy::kExtended);
    const std::vector<Complex> twiddles = fft::pass_twiddles(pass, true, true);
    REQUIRE(tables.values.size() == tables.layout.total);
    CHECK(fft::twiddle_layout(pass).total == tables.layout.chirp);
    CHECK(std::equal(twiddles.begin(), twiddles.end(), tables.values.begin()));
    const bool chirped = pass.bluestein != fft::BluesteinStep::kSpectrum;
    CHECK(tables.layout.chirp_count == (chirped ? 1009u : 0u));
    CHECK(tables.layout.spectrum_count == (chirped ? 0u : spectrum.size()));
    if (chirped)
      CHECK(std::equal(chirp.begin(), chirp.end(),
                       tables.values.begin() + static_cast<std::ptrdiff_t>(tables.layout.chirp)));
    else
      CHECK(std::equal(spectrum.begin(), spectrum.end(),
                       tables.values.begin() + static_cast<std::ptrdiff_t>(tables.layout.spectrum)));
  }
  // A twiddled Rader pass: its convolution's stage twiddles, the inter-pass ones, its spectrum
  // and logarithms.
  const fft::FftPlan mixed = must_plan_any(1024 * 17, 1, fft::Precision::kDouble, fft::DeviceLimits::h100());
  REQUIRE(mixed.passes.size() == 2);
  const fft::FftPass& rader = mixed.passes[1];
  REQUIRE(rader.convolution == fft::ConvolutionStep::kRader);
  const fft::StepTables tables = fft::step_tables(rader, fft::TableAccuracy::kExtended);
  CHECK(tables.layout.stage_count == 15u);
  fft::FftPass stages = rader;  // the same tables as a Stockham pass of 16 points at the same span
  stages.size = 16;
  stages.convolution = fft::ConvolutionStep::kNone;
  // (kExtended: the nearest doubles, as an fp64 plan's.)
  const std::vector<Complex> stage_twiddles = fft::pass_twiddles(stages, true, true);
  CHECK(std::equal(stage_twiddles.begin(), stage_twiddles.begin() + 15, tables.values.begin()));
  const long long m = rader.span_before * rader.size;
  for (std::size_t x = 0; x < tables.layout.lo_count; ++x)
    CHECK(tables.values[tables.layout.lo + x] == fft::twiddle_nearest(static_cast<long long>(x), m, -1));
  const std::vector<Complex> rader_spectrum = fft::rader_spectrum(17, 3);
  CHECK(tables.layout.chirp_count == 0u);
  CHECK(std::equal(rader_spectrum.begin(), rader_spectrum.end(),
                   tables.values.begin() + static_cast<std::ptrdiff_t>(tables.layout.spectrum)));
  CHECK(tables.logs == fft::rader_logs(17, 3));
  // Without the multi-pass steps (the native plans form the chirp and the spectrum on the
  // device) the tables stop where the chirp begins, the twiddles before it the same.
  for (const fft::FftPass& pass : plan.passes) {
    const fft::StepTables full = fft::step_tables(pass, fft::TableAccuracy::kDouble);
    const fft::StepTables twiddles = fft::step_tables(pass, fft::TableAccuracy::kDouble, false);
    CHECK(full.layout.total == twiddles.layout.total);
    REQUIRE(twiddles.values.size() == full.layout.chirp);
    CHECK(std::equal(twiddles.values.begin(), twiddles.values.end(), full.values.begin()));
    CHECK((full.layout.chirp_count > 0 || full.layout.spectrum_count > 0));
  }
  // Buffer turns of the multi-pass Bluestein plan: three passes input -> work -> work (the
  // spectrum pass in place) -> output; longer ones input -> half 0 -> half 1 -> ... -> output, no
  // pass writing what it reads; all within the work area.
  for (long long passes_wanted : {3LL, 7LL}) {
    const fft::FftPlan p =
        passes_wanted == 3 ? plan : must_plan_any(4099, 2, fft::Precision::kSingle, small_limits(16));
    REQUIRE(static_cast<long long>(p.passes.size()) == passes_wanted);
    const bool one_buffer = passes_wanted == 3;
    CHECK(fft::bluestein_one_buffer(p) == one_buffer);
    const std::size_t half = one_buffer ? 0 : static_cast<std::size_t>(fft::bluestein_padded_length(p) * p.batch);
    const std::size_t span = static_cast<std::size_t>(fft::bluestein_padded_length(p) * p.batch);
    const std::vector<fft::PassTurn> turns = fft::plan_turns(p, false);
    CHECK(turns.front().from == fft::Buffer::kInput);
    CHECK(turns.back().to == fft::Buffer::kOutput);
    for (std::size_t i = 0; i < turns.size(); ++i) {
      CAPTURE(i);
      if (i > 0) CHECK((turns[i].from == turns[i - 1].to && turns[i].from_offset == turns[i - 1].to_offset));
      if (turns[i].to == fft::Buffer::kWork) {
        CHECK((turns[i].to_offset == 0 || turns[i].to_offset == half));
        CHECK((turns[i].to_offset + span) * p.element_bytes <= p.work_bytes);
        if (turns[i].from == fft::Buffer::kWork) CHECK((turns[i].from_offset != turns[i].to_offset) == !one_buffer);
      }
    }
  }
}

TEST_CASE("executor: plan_c2c_any against the naive DFT for every length class", "[fft][executor][cpu]") {
  struct Case {
    long long n;
    fft::Precision precision;
    long long max_size;  // 0: H100 limits, -1: the same with one SM, else small_limits
  };
  const auto f64 = fft::Precision::kDouble;
  const auto f32 = fft::Precision::kSingle;
  const std::vector<Case> cases = {
      // Smooth (through execute_any too).
      {12, f64, 0},
      {1000, f64, 0},
      // Primes: Rader, one-pass Bluestein, multi-pass Bluestein.
      {17, f64, 0},
      {19, f64, 0},
      {23, f64, 0},
      {97, f64, 0},
      {101, f64, 0},
      {257, f64, 0},
      {1009, f64, 0},
      {4099, f32, 0},
      {4099, f64, 0},
      {10007, f64, 0},
      {97, f32, 64},
      {1009, f32, 64},
      {4099, f32, 16},
      // Prime factors above 13, composite: one-pass Bluestein, mixed plans with Rader and Bluestein passes.
      {34, f64, 0},
      {51, f64, 0},
      {289, f64, 0},
      {2 * 17 * 19, f64, 0},
      {17 * 19 * 23, f64, 0},
      {51, f32, 64},
      {289, f32, 32},
      {2 * 17 * 19, f32, 64},
      {4 * 47, f32, 128},
      {34, f32, 16},
      // Smooth parts with large primes.
      {1024 * 17, f64, 0},
      {3 * 1009, f64, 0},
      {3 * 1009, f32, 64},
      {2 * 4099, f32, 0},
      // Single passes of several transforms a block (a device of one SM): Rader, Bluestein.
      {17, f64, -1},
      {97, f32, -1},
      {34, f64, -1},
      {47, f32, -1}};
  std::uint64_t salt = 11000;
  for (const Case& c : cases) {
    fft::DeviceLimits limits = c.max_size <= 0 ? fft::DeviceLimits::h100() : small_limits(c.max_size);
    if (c.max_size < 0) limits.multiprocessors = 1;
    const long long batch = c.max_size < 0 ? 3 : 1 + static_cast<long long>(salt % (c.n > 5000 ? 2 : 3));
    CAPTURE(c.n, static_cast<int>(c.precision), c.max_size, batch);
    const fft::FftPlan plan = must_plan_any(c.n, batch, c.precision, limits);
    check_step_plan(plan, limits);
    if (c.max_size < 0) CHECK(plan.passes[0].transforms_per_block == 3);
    check_any_against_naive(plan, ++salt);
  }
}

// What the GPU kernels run (DeviceLimits::convolution_powers_of_two): every length with a prime
// factor above 13 whose padded convolution fits a block is one Bluestein pass, never Rader, over
// the least of the next power of two >= 2n - 1 and the mixed lengths with a compiled kernel
// (IDGPU_FFT_BLUESTEIN_MIXED_F32 / _F64) at or above 2n - 1: a power of two staged as the
// power-of-two kernels stage it, a mixed length as the planner's pass_radices with the fixed
// sequence's threads (what the mixed kernels check). Above, the plan is no longer one
// convolution pass. The host executor runs those plans as the kernel does.
TEST_CASE("planner: the kernels' one-pass Bluestein convolutions", "[fft][planner][bluestein][cpu]") {
  fft::DeviceLimits limits = fft::DeviceLimits::h100();
  limits.convolution_powers_of_two = true;
  const auto next_power = [](long long v) {
    long long m = 1;
    while (m < v) m *= 2;
    return m;
  };
  struct Mixed {
    long long length;
    std::vector<int> radices;
  };
#define IDGPU_TEST_MIXED(...) Mixed{radix_product({__VA_ARGS__}), {__VA_ARGS__}},
  const auto radix_product = [](std::initializer_list<int> radices) {
    long long m = 1;
    for (int r : radices) m *= r;
    return m;
  };
  const std::vector<Mixed> mixed_f32 = {IDGPU_FFT_BLUESTEIN_MIXED_F32(IDGPU_TEST_MIXED)};
  const std::vector<Mixed> mixed_f64 = {IDGPU_FFT_BLUESTEIN_MIXED_F64(IDGPU_TEST_MIXED)};
#undef IDGPU_TEST_MIXED
  // The planner's lookup holds exactly the compiled lengths, each in its precision.
  const auto listed = [](const std::vector<Mixed>& list, long long m) {
    return std::any_of(list.begin(), list.end(), [m](const Mixed& entry) { return entry.length == m; });
  };
  for (long long m = 64; m <= 16384; m += 64) {
    CAPTURE(m);
    CHECK(fft::bluestein_mixed_kernel(m, 8) == listed(mixed_f32, m));
    CHECK(fft::bluestein_mixed_kernel(m, 16) == listed(mixed_f64, m));
  }
  int one_pass = 0;
  int mixed = 0;
  for (const auto precision : {fft::Precision::kSingle, fft::Precision::kDouble}) {
    const long long largest = precision == fft::Precision::kSingle ? 8192 : 4096;
    const std::vector<Mixed>& compiled = precision == fft::Precision::kSingle ? mixed_f32 : mixed_f64;
    const int max_threads = precision == fft::Precision::kSingle ? 1024 : 512;
    for (long long n = 17; n <= largest + 200; ++n) {
      if (is_13_smooth(n)) continue;
      CAPTURE(n, static_cast<int>(precision));
      const fft::FftPlan plan = must_plan_any(n, 5, precision, limits);
      for (const fft::FftPass& pass : plan.passes) CHECK(pass.convolution != fft::ConvolutionStep::kRader);
      const bool single = plan.passes.size() == 1 && plan.passes[0].convolution == fft::ConvolutionStep::kBluestein;
      CHECK(single == (n <= largest));
      if (!single) continue;
      ++one_pass;
      const fft::FftPass& pass = plan.passes[0];
      long long m = next_power(2 * n - 1);
      const Mixed* sequence = nullptr;
      for (const Mixed& candidate : compiled) {
        if (candidate.length >= 2 * n - 1 && candidate.length < m) {
          m = candidate.length;
          sequence = &candidate;
        }
      }
      CHECK(pass.convolution_size == m);
      CHECK(pass.span_before == 1);
      CHECK(pass.sub_transforms == 1);
      if (sequence != nullptr) {
        ++mixed;
        CHECK(pass.radices == sequence->radices);
        CHECK(pass.threads_per_transform ==
              fft::sequence_threads(sequence->radices.data(), static_cast<int>(sequence->radices.size()), max_threads));
        CHECK(pass.smem_shift == fft::smem_padding_shift(static_cast<int>(plan.element_bytes)));
        continue;
      }
      int bits = 0;
      while ((1LL << bits) < m) ++bits;
      REQUIRE(pass.radices.size() == static_cast<std::size_t>(fft::pow2_stages(bits)));
      for (std::size_t st = 0; st < pass.radices.size(); ++st) {
        CHECK(pass.radices[st] == 1 << fft::pow2_stage_bits(bits, static_cast<int>(st)));
      }
      CHECK(pass.threads_per_transform == std::max<long long>(1, m / 16));
    }
  }
  // fp32: primes and composites from 2049 to 3072 and 4097 to 6144 take 5120, 6144, 10240 or
  // 12288 points; fp64 those from 2049 to 2560.
  CHECK(mixed > 2000);
  CHECK(one_pass > 7000);
  std::uint64_t salt = 12000;
  for (const long long n : {17LL, 31LL, 34LL, 97LL, 255LL, 1009LL, 2053LL, 2579LL, 4099LL, 5147LL, 8191LL}) {
    CAPTURE(n);
    const fft::FftPlan plan = must_plan_any(n, n < 100 ? 70 : 2, fft::Precision::kSingle, limits);
    check_step_plan(plan, limits);
    check_any_against_naive(plan, ++salt);
  }
}

// Above one block: the two-pass Bluestein plans the power-of-two kernels' Bluestein kinds run
// (kernels/stockham_pow2.cuh: kChirpFirst, kSpectrumTurn, kChirpLast). Every such plan of the
// GPU's limits, from the first length past one block to 2^25 - 39 (M = 2^26, the largest the
// native side forms a spectrum for: its double FFT in two passes), has three passes: a first pass
// over columns (chirp on load), the spectrum pass (the forward plan's last and the inverse plan's
// first, span = S), the chirp-on-store pass (span = S), each of a power of two from 2^7 to 2^13
// (the kinds' compiled range), staged as those kernels stage it. The host executor runs the
// smallest such plans (fp32 8209, fp64 4099) against the naive DFT.
TEST_CASE("planner: two-pass Bluestein plans over a power of two, the kernels' shapes",
          "[fft][planner][bluestein][cpu]") {
  fft::DeviceLimits limits = fft::DeviceLimits::h100();
  limits.convolution_powers_of_two = true;
  struct Case {
    long long n;
    fft::Precision precision;
  };
  const fft::Precision f32 = fft::Precision::kSingle, f64 = fft::Precision::kDouble;
  const Case cases[] = {{8209, f32},     {10007, f32},    {30021, f32},    {65521, f32},    {1048573, f32},
                        {16777213, f32}, {33554393, f32}, {4099, f64},     {8191, f64},     {10007, f64},
                        {65521, f64},    {1048573, f64},  {33554393, f64}};
  for (const Case& c : cases) {
    const bool single = c.precision == f32;
    CAPTURE(c.n, single);
    const fft::FftPlan plan = must_plan_any(c.n, 2, c.precision, limits);
    INFO(plan.to_string());
    check_step_plan(plan, limits);
    REQUIRE(plan.passes.size() == 3);
    const long long m = fft::bluestein_padded_length(plan);
    CHECK((m & (m - 1)) == 0);
    CHECK(m / 2 < 2 * c.n - 1);
    CHECK(m >= 2 * c.n - 1);
    const fft::BluesteinStep steps[] = {fft::BluesteinStep::kChirpLoad, fft::BluesteinStep::kSpectrum,
                                        fft::BluesteinStep::kChirpStore};
    for (std::size_t i = 0; i < 3; ++i) {
      const fft::FftPass& pass = plan.passes[i];
      CAPTURE(i);
      CHECK(pass.bluestein == steps[i]);
      int bits = 0;
      while ((1LL << bits) < pass.size) ++bits;
      CHECK(pass.size == 1LL << bits);
      CHECK(bits >= 7);
      CHECK(bits <= 13);
      REQUIRE(pass.radices.size() == static_cast<std::size_t>(fft::pow2_stages(bits)));
      for (std::size_t st = 0; st < pass.radices.size(); ++st) {
        CHECK(pass.radices[st] == 1 << fft::pow2_stage_bits(bits, static_cast<int>(st)));
      }
      CHECK(pass.threads_per_transform == pass.size / 16);
      CHECK((pass.transforms_per_block & (pass.transforms_per_block - 1)) == 0);
      const fft::PassShape shape = fft::pass_shape(plan, pass);
      CHECK(shape.n == m);
      CHECK_FALSE(shape.straddles);
      CHECK(shape.in_group == 0);
      CHECK(shape.out_group == 0);
      if (i == 0) {
        CHECK(shape.span == 1);
        CHECK(shape.sub > 1);
      } else {
        CHECK(shape.twiddled);
        CHECK(shape.span == shape.sub);
      }
    }
  }
  std::uint64_t salt = 12100;
  for (const Case& c : {Case{8209, f32}, Case{4099, f64}}) {
    const fft::FftPlan plan = must_plan_any(c.n, 2, c.precision, limits);
    check_any_against_naive(plan, ++salt);
  }
}

// --- The advanced data layout: plan_c2c_strided ---------------------------------------------------

namespace {

struct StridedLayout {
  long long n, batch, istride, idist, ostride, odist;
};

long long layout_extent(const StridedLayout& l, bool input) {
  const long long stride = input ? l.istride : l.ostride;
  const long long dist = input ? l.idist : l.odist;
  return (l.batch - 1) * dist + (l.n - 1) * stride + 1;
}

// Runs the strided plan on the host executor (out of place, and in place where the layouts are
// the same) against the naive DFT of each transform gathered from the layout; elements outside
// the output layout must keep what was there (the poison out of place, the input in place).
void check_strided(const StridedLayout& l, fft::Precision precision, std::uint64_t salt) {
  CAPTURE(l.n, l.batch, l.istride, l.idist, l.ostride, l.odist, static_cast<int>(precision));
  const fft::FftPlanResult result = fft::plan_c2c_strided(l.n, l.batch, l.istride, l.idist, l.ostride, l.odist,
                                                          precision, fft::DeviceLimits::h100());
  INFO("reason: " << result.reason);
  REQUIRE(result.plan.has_value());
  const fft::FftPlan& plan = *result.plan;
  INFO(plan.to_string());
  REQUIRE(plan.passes.size() == 1);
  const std::vector<Complex> x = random_input(static_cast<std::size_t>(layout_extent(l, true)), salt);
  std::vector<Complex> gathered;
  for (long long b = 0; b < l.batch; ++b) {
    for (long long e = 0; e < l.n; ++e) gathered.push_back(x[static_cast<std::size_t>(b * l.idist + e * l.istride)]);
  }
  const bool same = l.istride == l.ostride && l.idist == l.odist;
  for (int sign : {-1, +1}) {
    CAPTURE(sign);
    const std::vector<ComplexL> want = naive_dft(gathered, l.n, l.batch, sign);
    for (const bool in_place : {false, true}) {
      if (in_place && !same) continue;
      CAPTURE(in_place);
      std::vector<Complex> y = in_place ? x : poisoned(static_cast<std::size_t>(layout_extent(l, false)));
      const std::vector<Complex> before = y;
      fft::reference::execute(plan, sign, in_place ? y.data() : x.data(), y.data());
      std::vector<Complex> got;
      std::vector<bool> in_layout(y.size(), false);
      for (long long b = 0; b < l.batch; ++b) {
        for (long long e = 0; e < l.n; ++e) {
          const auto at = static_cast<std::size_t>(b * l.odist + e * l.ostride);
          got.push_back(y[at]);
          in_layout[at] = true;
        }
      }
      CHECK(relative_error(got, want) < kTolerance);
      std::size_t touched = 0;
      for (std::size_t i = 0; i < y.size(); ++i) {
        const bool kept = (std::isnan(before[i].real()) && std::isnan(y[i].real())) || before[i] == y[i];
        if (!in_layout[i] && !kept) ++touched;
      }
      CHECK(touched == 0);
    }
  }
}

}  // namespace

TEST_CASE("planner and executor: strided and embedded 1D layouts against the naive DFT", "[fft][strided][cpu]") {
  const auto f32 = fft::Precision::kSingle;
  const auto f64 = fft::Precision::kDouble;
  std::uint64_t salt = 13000;
  // Contiguous transforms spaced apart (padded rows, embeds), mixed radices, both precisions.
  check_strided({64, 5, 1, 70, 1, 80}, f32, ++salt);
  check_strided({64, 5, 1, 70, 1, 70}, f32, ++salt);
  check_strided({100, 3, 1, 100, 1, 128}, f64, ++salt);
  check_strided({16, 40, 1, 17, 1, 16}, f32, ++salt);
  check_strided({1000, 2, 1, 1024, 1, 1000}, f64, ++salt);
  // The lines of an [n][S] array: output in the same layout (in place too) or contiguous.
  check_strided({256, 12, 12, 1, 12, 1}, f32, ++salt);
  check_strided({60, 7, 7, 1, 7, 1}, f64, ++salt);
  check_strided({60, 7, 7, 1, 1, 60}, f32, ++salt);
  check_strided({1024, 32, 32, 1, 1, 1030}, f32, ++salt);
  check_strided({4096, 3, 3, 1, 3, 1}, f64, ++salt);
  check_strided({8, 1000, 1000, 1, 1, 8}, f32, ++salt);
  check_strided({2187, 16, 16, 1, 16, 1}, f32, ++salt);

  // Layouts no pass indexes, and lengths of more than one pass: no plan, with the reason.
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  const auto refused = [&](long long n, long long batch, long long is, long long id, long long os, long long od,
                           fft::Precision precision, const char* why) {
    CAPTURE(n, batch, is, id, os, od);
    const fft::FftPlanResult result = fft::plan_c2c_strided(n, batch, is, id, os, od, precision, h100);
    CHECK_FALSE(result.plan.has_value());
    CHECK_THAT(result.reason, Catch::Matchers::Contains(why));
  };
  refused(64, 3, 2, 1, 2, 1, f32, "neither");            // S = 2 lines but 3 transforms
  refused(64, 4, 4, 2, 4, 2, f32, "neither");            // distance 2 between lines
  refused(64, 4, 4, 1, 2, 1, f32, "neither");            // output stride of neither form
  refused(64, 4, 4, 1, 1, 32, f32, "neither");           // contiguous output overlapping
  refused(64, 3, 1, 32, 1, 64, f32, "below the length");  // overlapping inputs
  refused(1LL << 15, 2, 1, 1LL << 16, 1, 1LL << 16, f32, "more than one pass");
  refused(1LL << 14, 4, 1, 1, 1LL << 14, 1, f64, "more than one pass");  // fp64 2^14: two passes
  refused(4096, 1LL << 20, 1, 4096, 1, 4096, f32, "index range");
  // 64-bit layouts: distances whose products would overflow are refused, not wrapped.
  refused(64, 2, 1, std::numeric_limits<long long>::max(), 1, 64, f32, "index range");
  refused(64, 3, 1, (1LL << 62) + 64, 1, 64, f32, "index range");
  refused(64, 2, 1, 64, 1LL << 40, 1, f32, "index range");
  CHECK_FALSE(fft::plan_c2c_strided(17, 17, 17, 1, 17, 1, f32, h100).plan.has_value());  // prime: no pass
}

// --- Multi-dimensional lines: plan_c2c_lines, plan_c2c_layout ------------------------------------

namespace {

// The descriptor cuFFT's advanced layout gives the transforms along the outer axes of a
// [dims][S] array (inembed = dims, istride = S, idist = 1), written in that layout or (odist > 0)
// each transform contiguous: as PyTorch's fftn over leading dimensions makes it.
fft::Descriptor lines_descriptor(const std::vector<long long>& dims, long long lines, long long odist,
                                 fft::Precision precision) {
  fft::Descriptor d;
  d.rank = static_cast<int>(dims.size());
  d.precision = precision;
  d.default_layout = false;
  long long in_stride = lines;
  long long out_stride = odist > 0 ? 1 : lines;
  for (int axis = d.rank - 1; axis >= 0; --axis) {
    d.dims[axis] = {dims[static_cast<std::size_t>(axis)], in_stride, out_stride};
    in_stride *= dims[static_cast<std::size_t>(axis)];
    out_stride *= dims[static_cast<std::size_t>(axis)];
  }
  d.batch = {lines, 1, odist > 0 ? odist : 1};
  return d;
}

// Runs plan_c2c_layout's plan of that descriptor on the host executor (out of place; in place
// too where both sides share the layout) against the naive DFT of each transform gathered from
// the input; output elements outside the layout keep their poison.
void check_lines(const std::vector<long long>& dims, long long lines, long long odist, fft::Precision precision,
                 std::uint64_t salt) {
  CAPTURE(dims, lines, odist, static_cast<int>(precision));
  const fft::Descriptor d = lines_descriptor(dims, lines, odist, precision);
  const fft::FftPlanResult result = fft::plan_c2c_layout(d, fft::DeviceLimits::h100());
  INFO("reason: " << result.reason);
  REQUIRE(result.plan.has_value());
  const fft::FftPlan& plan = *result.plan;
  INFO(plan.to_string());
  REQUIRE(plan.passes.size() == dims.size());
  long long total = 1;
  for (long long n : dims) total *= n;
  const std::vector<Complex> x = random_input(static_cast<std::size_t>(total * lines), salt);
  std::vector<Complex> gathered;  // transform s contiguous
  for (long long line = 0; line < lines; ++line) {
    for (long long i = 0; i < total; ++i) gathered.push_back(x[static_cast<std::size_t>(line + lines * i)]);
  }
  const auto out_at = [&](long long line, long long i) {
    return static_cast<std::size_t>(odist > 0 ? line * odist + i : line + lines * i);
  };
  const std::size_t out_extent = odist > 0 ? static_cast<std::size_t>((lines - 1) * odist + total) : x.size();
  for (int sign : {-1, +1}) {
    CAPTURE(sign);
    const std::vector<ComplexL> want = naive_dft_nd(gathered, dims, lines, sign);
    for (const bool in_place : {false, true}) {
      if (in_place && odist > 0) continue;
      CAPTURE(in_place);
      std::vector<Complex> y = in_place ? x : poisoned(out_extent);
      fft::reference::execute(plan, sign, in_place ? y.data() : x.data(), y.data());
      std::vector<Complex> got;
      std::vector<bool> in_layout(y.size(), false);
      for (long long line = 0; line < lines; ++line) {
        for (long long i = 0; i < total; ++i) {
          got.push_back(y[out_at(line, i)]);
          in_layout[out_at(line, i)] = true;
        }
      }
      CHECK(relative_error(got, want) < kTolerance);
      std::size_t touched = 0;
      for (std::size_t i = 0; i < y.size(); ++i) {
        if (!in_layout[i] && !std::isnan(y[i].real())) ++touched;
      }
      CHECK(touched == 0);
    }
  }
}

}  // namespace

TEST_CASE("planner and executor: 2D/3D transforms over the lines of a [dims][S] array against the naive DFT",
          "[fft][strided][lines][cpu]") {
  const auto f32 = fft::Precision::kSingle;
  const auto f64 = fft::Precision::kDouble;
  std::uint64_t salt = 14000;
  // Same layout out (in place too); powers of two, mixed radices, odd line counts.
  check_lines({16, 32}, 5, 0, f32, ++salt);
  check_lines({12, 10}, 33, 0, f64, ++salt);
  check_lines({8, 6, 10}, 3, 0, f32, ++salt);
  check_lines({64, 64}, 2, 0, f64, ++salt);
  // Each transform contiguous (PyTorch's rfftn: the R2C's [n0][n1][n2 / 2 + 1] output, then the
  // outer axes' C2C over 129 lines written as contiguous planes).
  check_lines({16, 16}, 9, 256, f32, ++salt);
  check_lines({20, 12}, 7, 240, f64, ++salt);
  check_lines({4, 8, 6}, 5, 192, f32, ++salt);
  check_lines({32, 32}, 17, 1024, f32, ++salt);
  // Line counts without a divisor of 32-byte rows: blocks of T lines straddle two rows of the
  // first axis (PassShape::straddles), in both output layouts and in place.
  check_lines({64, 32}, 129, 0, f32, ++salt);
  check_lines({64, 32}, 129, 2048, f32, ++salt);
  check_lines({8, 16, 4}, 45, 512, f64, ++salt);
  check_lines({32, 8}, 21, 0, f64, ++salt);
  check_lines({12, 20}, 19, 240, f32, ++salt);  // mixed radices: the general kernel's addressing

  // The passes: every axis a pass over adjacent lines; written contiguously, the first stores
  // runs (span 1, out_group = the innermost axis) and the others run on S contiguous transforms.
  const fft::DeviceLimits h100 = fft::DeviceLimits::h100();
  {
    const fft::FftPlanResult r = fft::plan_c2c_layout(lines_descriptor({256, 256}, 129, 65536, f32), h100);
    REQUIRE(r.plan.has_value());
    const fft::FftPlan& plan = *r.plan;
    REQUIRE(plan.passes.size() == 2);
    CHECK(plan.passes_in_place);
    CHECK(plan.passes[0].sub_transforms == 129);
    CHECK(plan.passes[0].span_before == 1);
    CHECK(plan.passes[0].out_dist == 65536);
    CHECK(plan.passes[0].out_group == 256);
    CHECK(plan.passes[0].transforms == 256);
    CHECK(plan.passes[1].sub_transforms == 256);
    CHECK(plan.passes[1].transforms == 129);
    CHECK(plan.passes[1].transform_n == 65536);
    // 129 lines: rows of 16 (128 bytes) straddling the rows of the first axis, not 43 lines.
    CHECK(plan.passes[0].transforms_per_block == 16);
    CHECK(plan.passes[0].straddles);
    CHECK(plan.passes[0].blocks == 129 * 256 / 16);
    CHECK_FALSE(plan.passes[1].straddles);
    CHECK(plan.passes[1].transforms_per_block == 16);
  }
  {
    // fp64 rows of 16 lines (256 threads); lines that a 64-byte row divides do not straddle.
    const fft::FftPlanResult a = fft::plan_c2c_layout(lines_descriptor({256, 256}, 129, 0, f64), h100);
    REQUIRE(a.plan.has_value());
    CHECK(a.plan->passes[0].transforms_per_block == 16);
    CHECK(a.plan->passes[0].straddles);
    const fft::FftPlanResult b = fft::plan_c2c_layout(lines_descriptor({256, 256}, 12, 0, f32), h100);
    REQUIRE(b.plan.has_value());
    CHECK(b.plan->passes[0].transforms_per_block == 12);
    CHECK_FALSE(b.plan->passes[0].straddles);
  }
  {
    // The frame of a straddling block: lines from `split` on are the next row's, in_jump /
    // out_jump further on than the first row's would continue.
    fft::PassShape s;
    s.n = 256 * 129;
    s.sub = 129;
    s.span = 1;
    s.size = 256;
    s.per_block = 16;
    s.twiddled = false;
    s.out_dist = 65536;
    s.out_group = 256;
    s.straddles = true;
    const fft::BlockFrame inside = fft::block_frame(s, 129 + 16);  // row 1, lines 16..31
    CHECK(inside.in_base == 256 * 129 + 16);
    CHECK(inside.out_base == 256 + 16 * 65536);
    CHECK(fft::input_jump(inside, 15) == 0);
    const fft::BlockFrame across = fft::block_frame(s, 129 + 128);  // row 1 line 128, row 2 lines 0..14
    CHECK(across.split == 1);
    CHECK(across.in_base + fft::input_step(s, 3, 5) + fft::input_jump(across, 3) == 2 * 256 * 129 + 2 + 5 * 129);
    CHECK(across.out_base + fft::output_step(s, 3, 5) + fft::output_jump(across, 3) == 2 * 256 + 2 * 65536 + 5);
    CHECK(across.out_base + fft::output_step(s, 0, 5) + fft::output_jump(across, 0) == 256 + 128 * 65536 + 5);
  }
  {
    const fft::FftPlanResult r = fft::plan_c2c_layout(lines_descriptor({64, 32, 16}, 3, 0, f64), h100);
    REQUIRE(r.plan.has_value());
    const fft::FftPlan& plan = *r.plan;
    REQUIRE(plan.passes.size() == 3);
    CHECK(plan.passes[0].sub_transforms == 3);
    CHECK(plan.passes[1].sub_transforms == 3 * 16);
    CHECK(plan.passes[2].sub_transforms == 3 * 16 * 32);
    CHECK(plan.passes[2].transforms == 1);
  }

  // Layouts of another shape: no plan, with the reason.
  const auto refused = [&](fft::Descriptor d, const char* why) {
    const fft::FftPlanResult r = fft::plan_c2c_layout(d, h100);
    CHECK_FALSE(r.plan.has_value());
    CHECK_THAT(r.reason, Catch::Matchers::Contains(why));
  };
  fft::Descriptor padded = lines_descriptor({16, 16}, 4, 0, f32);
  padded.dims[0].in_stride = 4 * 20;  // inembed[1] = 20 > 16
  refused(padded, "not the lines");
  fft::Descriptor spaced = lines_descriptor({16, 16}, 4, 0, f32);
  spaced.batch.in_stride = 2;
  refused(spaced, "not the lines");
  refused(lines_descriptor({16, 16}, 4, 300, f32), "the transform's size");  // padded planes out
  refused(lines_descriptor({16, 16}, 1, 0, f32), "not the lines");
  refused(lines_descriptor({1LL << 15, 4}, 4, 0, f32), "more than one pass");
  refused(lines_descriptor({1024, 1024}, 4096, 0, f32), "index range");
  refused(lines_descriptor({17, 19}, 4, 0, f32), "axis 0");  // primes above 13: no pass
  fft::Descriptor real = lines_descriptor({16, 16}, 4, 0, f32);
  real.kind = fft::Kind::kR2C;
  refused(real, "C2C/Z2Z");

  // What the dispatch reads of a layout (lines_layout).
  bool contiguous = true;
  CHECK(fft::lines_layout(lines_descriptor({256, 256}, 129, 0, f32), &contiguous));
  CHECK_FALSE(contiguous);
  CHECK(fft::lines_layout(lines_descriptor({256, 256}, 129, 65536, f32), &contiguous));
  CHECK(contiguous);
  CHECK_FALSE(fft::lines_layout(padded, &contiguous));
  CHECK_FALSE(fft::lines_layout(spaced, &contiguous));
  CHECK_FALSE(fft::lines_layout(lines_descriptor({16, 16}, 1, 0, f32), &contiguous));
}
