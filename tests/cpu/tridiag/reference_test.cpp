// The host reference tridiagonal algorithms (src/tridiag/reference.h) against an independent
// long-double oracle, and against each other where they must agree bit for bit.
//
// Random systems come from one base seed: Catch's --rng-seed when given, else a fixed default so CI
// is reproducible. It is printed once; every case CAPTUREs its own derived seed.
//
// Tolerances are scaling laws, not fitted numbers:
//  - eta = ||A x - b|| / (||A|| ||x|| + ||b||) is the normwise backward error. A one-pass
//    tridiagonal elimination (Thomas on a diagonally dominant matrix, partial pivoting, Givens QR,
//    the oracle) touches each row O(1) times, so eta <= c eps with c independent of m (no-pivot
//    elimination of a dominant tridiagonal matrix has |L||U| bounded by a small multiple of |A|,
//    partial pivoting on a tridiagonal matrix has growth factor <= 2, and Givens QR is backward
//    stable). c = 16.
//  - PCR recombines three rows per step, so its rounding accumulates over the k steps: 16 (k+1) eps.
//  - Forward error: ||x - x*|| / ||x*|| <= cond eta / (1 - cond eta) <= 2 cond eta while
//    cond eta <= 1/2, with cond = ||A|| ||A^-1|| in the infinity norm: Varah's bound for dominant
//    matrices (rigorous, cheap), computed exactly by the oracle otherwise.
// Catch's main lives here so that the file builds on its own; the project's CMake links the shared
// main instead (IDGPU_TEST_EXTERNAL_CATCH_MAIN), as compiling Catch's main is most of the build time.
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tridiag/reference.h"

namespace ref = idgpu::tridiag::reference;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kOnePassTol = 16 * kEps;
double pcr_tol(int k) { return 16.0 * (k + 1) * kEps; }
double forward_tol(double cond, double eta_tol) { return 2.0 * cond * eta_tol; }

// The system sizes: tiny, around powers of two, a prime.
const std::vector<int> kSizes = {1, 2, 3, 4, 5, 7, 31, 32, 33, 100, 127, 512, 1000, 1021};

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = Catch::rngSeed() != 0 ? Catch::rngSeed() : 20240611u;
    std::cout << "tridiag reference tests: base seed " << s << " (rerun with --rng-seed " << s << ")\n";
    return s;
  }();
  return seed;
}

// A per-case seed: the base seed mixed with the case's name (splitmix64 finaliser), so that cases
// do not depend on the order they run in.
std::uint64_t case_seed(const std::string& name) {
  std::uint64_t h = base_seed() ^ 0x9e3779b97f4a7c15ull;
  for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

template <class T>
std::string type_name() {
  return std::is_same<T, double>::value ? "double" : "complex<double>";
}

int ceil_log2(int m) {
  int k = 0;
  while ((1 << k) < m) ++k;
  return k;
}

template <class T>
bool is_finite(const T& v) {
  return std::isfinite(std::abs(v));
}

template <class T>
bool same_bits(const T& x, const T& y) {
  // Bit equality, with NaN equal to NaN: the references must agree exactly, not just numerically.
  auto eq = [](double a, double b) { return a == b ? std::signbit(a) == std::signbit(b) || a != 0 : a != a && b != b; };
  if constexpr (std::is_same<T, double>::value) {
    return eq(x, y);
  } else {
    return eq(x.real(), y.real()) && eq(x.imag(), y.imag());
  }
}

template <class T>
bool all_same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!same_bits(x[i], y[i])) return false;
  }
  return true;
}

template <class T>
std::vector<T> oracle(const ref::System<T>& s) {
  std::vector<T> x = s.b;
  REQUIRE(ref::dense_solve(s.m, s.dl.data(), s.d.data(), s.du.data(), x.data()) == 0);
  return x;
}

template <class T>
double eta(const ref::System<T>& s, const std::vector<T>& x) {
  return ref::backward_error(s.m, s.dl.data(), s.d.data(), s.du.data(), x.data(), s.b.data());
}

// Runs `solve(m, dl, d, du, x)` on a copy of b; returns x and stores the return value in *info.
template <class T, class Solve>
std::vector<T> run(const ref::System<T>& s, Solve solve, int* info) {
  std::vector<T> x = s.b;
  *info = solve(s.m, s.dl.data(), s.d.data(), s.du.data(), x.data());
  return x;
}

// A non-dominant system the oracle can solve (exactly singular draws are redrawn).
template <class T>
ref::System<T> nonsingular_nondominant(int m, std::mt19937_64& rng, double zero_fraction, double tiny_fraction,
                                       double tiny) {
  for (;;) {
    ref::System<T> s = ref::random_nondominant_system<T>(m, rng, zero_fraction, tiny_fraction, tiny);
    std::vector<T> x = s.b;
    if (ref::dense_solve(m, s.dl.data(), s.d.data(), s.du.data(), x.data()) == 0) return s;
  }
}

// Worst ratios seen, printed once per test case for the record.
struct Worst {
  std::string what;
  double value = 0;
  void see(double v) { value = std::max(value, v); }
};

void print(const std::string& title, const std::vector<Worst>& worst) {
  std::cout << title << ":";
  for (const Worst& w : worst) std::cout << " " << w.what << " " << w.value;
  std::cout << "\n";
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// The oracle itself
// -------------------------------------------------------------------------------------------------
TEMPLATE_TEST_CASE("the banded long-double oracle agrees with full dense elimination", "[cpu][tridiag][oracle]",
                   double, std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("oracle" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const double eps_wide = std::numeric_limits<long double>::epsilon();
  for (int m : {1, 2, 3, 4, 5, 7, 31, 32, 33, 100, 127, 257}) {
    for (int kind = 0; kind < 2; ++kind) {
      CAPTURE(m, kind);
      const ref::System<T> s =
          kind == 0 ? ref::random_dominant_system<T>(m, rng) : nonsingular_nondominant<T>(m, rng, 0.2, 0.3, 1e-9);
      const double cond = kind == 0 ? ref::dominant_condition_bound(m, s.dl.data(), s.d.data(), s.du.data())
                                    : ref::condition_number_inf(m, s.dl.data(), s.d.data(), s.du.data());
      CAPTURE(cond);
      int info_band = -1, info_full = -1;
      const std::vector<T> band = run(s, ref::dense_solve<T>, &info_band);
      const std::vector<T> full = run(s, ref::dense_solve_full<T>, &info_full);
      CHECK(info_band == 0);
      CHECK(info_full == 0);
      // Both are rounded to double at the end (eps/2 each), both carry cond * O(eps_wide) errors.
      CHECK(ref::relative_error(m, band.data(), full.data()) <= 2 * kEps + forward_tol(cond, 16 * eps_wide));
      CHECK(eta(s, band) <= kOnePassTol);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// Every algorithm on diagonally dominant systems
// -------------------------------------------------------------------------------------------------
TEMPLATE_TEST_CASE("every solver matches the oracle on diagonally dominant systems", "[cpu][tridiag][solvers]",
                   double, std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("dominant" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<Worst> worst = {{"thomas"}, {"lu"}, {"qr"}, {"pcr/(k+1)"}, {"fwd/cond"}};
  // margin 0.5: comfortably dominant; 0.01: barely dominant, so cond grows with m.
  for (double margin : {0.5, 0.01}) {
    for (int m : kSizes) {
      CAPTURE(margin, m);
      const ref::System<T> s = ref::random_dominant_system<T>(m, rng, margin);
      const std::vector<T> x_star = oracle(s);
      const double cond = ref::dominant_condition_bound(m, s.dl.data(), s.d.data(), s.du.data());
      CAPTURE(cond);
      REQUIRE(std::isfinite(cond));

      auto check_one_pass = [&](const char* name, auto solve, Worst& w) {
        CAPTURE(name);
        int info = -1;
        const std::vector<T> x = run(s, solve, &info);
        CHECK(info == 0);
        const double e = eta(s, x);
        const double f = ref::relative_error(m, x.data(), x_star.data());
        CHECK(e <= kOnePassTol);
        CHECK(f <= forward_tol(cond, kOnePassTol));
        w.see(e / kEps);
        worst[4].see(f / (cond * kEps));
      };
      check_one_pass("thomas", ref::thomas<T>, worst[0]);
      check_one_pass("lu_partial_pivot", ref::lu_partial_pivot<T>, worst[1]);
      check_one_pass("givens_qr", ref::givens_qr<T>, worst[2]);

      // k from 0 (plain Thomas) to one past full PCR (every subsystem a single equation).
      for (int k = 0; k <= ceil_log2(m) + 1; ++k) {
        CAPTURE(k);
        int info = -1;
        const std::vector<T> x =
            run(s, [k](int n, const T* dl, const T* d, const T* du, T* b) { return ref::pcr_thomas(n, k, dl, d, du, b); },
                &info);
        CHECK(info == 0);
        const double e = eta(s, x);
        const double f = ref::relative_error(m, x.data(), x_star.data());
        CHECK(e <= pcr_tol(k));
        CHECK(f <= forward_tol(cond, pcr_tol(k)));
        worst[3].see(e / ((k + 1) * kEps));
        worst[4].see(f / (cond * (k + 1) * kEps));
        if (k == 0) {
          int thomas_info = -1;
          CHECK(all_same_bits(x, run(s, ref::thomas<T>, &thomas_info)));
        }
        // The tiled formulation gives the same solution bit for bit (one tiling here; the tiling
        // sweep is in the tiled PCR case).
        int tiled_info = -1;
        const std::vector<T> xt = run(
            s,
            [k](int n, const T* dl, const T* d, const T* du, T* b) {
              return ref::tiled_pcr_thomas(n, k, 37, 1 << std::min(k, 10), dl, d, du, b);
            },
            &tiled_info);
        CHECK(tiled_info == 0);
        CHECK(all_same_bits(x, xt));
      }
    }
  }
  print("dominant " + type_name<T>() + ", worst eta/eps", worst);
}

// -------------------------------------------------------------------------------------------------
// Batched layouts
// -------------------------------------------------------------------------------------------------
TEMPLATE_TEST_CASE("strided and interleaved batches equal per-system Thomas", "[cpu][tridiag][batch]", double,
                   std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("batch" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  for (int m : {1, 2, 3, 33, 100}) {
    for (int batch : {1, 7, 32}) {
      CAPTURE(m, batch);
      std::vector<ref::System<T>> systems;
      for (int j = 0; j < batch; ++j) systems.push_back(ref::random_dominant_system<T>(m, rng));
      std::vector<std::vector<T>> expected;
      for (const auto& s : systems) {
        int info = -1;
        expected.push_back(run(s, ref::thomas<T>, &info));
        REQUIRE(info == 0);
      }

      // gtsv2StridedBatch: system j at j * stride; the gap rows hold NaN and must stay untouched.
      const int stride = m + 3;
      std::vector<T> dl(static_cast<std::size_t>(stride) * batch, nan), d(dl), du(dl), x(dl);
      for (int j = 0; j < batch; ++j) {
        for (int i = 0; i < m; ++i) {
          const std::size_t at = static_cast<std::size_t>(j) * stride + i;
          dl[at] = systems[j].dl[i], d[at] = systems[j].d[i], du[at] = systems[j].du[i], x[at] = systems[j].b[i];
        }
      }
      CHECK(ref::thomas_strided(m, batch, stride, dl.data(), d.data(), du.data(), x.data()) == 0);
      bool equal = true, gaps_untouched = true;
      for (int j = 0; j < batch; ++j) {
        for (int i = 0; i < stride; ++i) {
          const T v = x[static_cast<std::size_t>(j) * stride + i];
          if (i < m) {
            equal = equal && same_bits(v, expected[j][i]);
          } else {
            gaps_untouched = gaps_untouched && !is_finite(v);
          }
        }
      }
      CHECK(equal);
      CHECK(gaps_untouched);

      // gtsvInterleavedBatch: element i of system j at i * batch + j.
      std::vector<T> il(static_cast<std::size_t>(m) * batch), id(il), iu(il), ix(il);
      for (int j = 0; j < batch; ++j) {
        for (int i = 0; i < m; ++i) {
          const std::size_t at = static_cast<std::size_t>(i) * batch + j;
          il[at] = systems[j].dl[i], id[at] = systems[j].d[i], iu[at] = systems[j].du[i], ix[at] = systems[j].b[i];
        }
      }
      CHECK(ref::thomas_interleaved(m, batch, il.data(), id.data(), iu.data(), ix.data()) == 0);
      equal = true;
      for (int j = 0; j < batch; ++j) {
        for (int i = 0; i < m; ++i) equal = equal && same_bits(ix[static_cast<std::size_t>(i) * batch + j], expected[j][i]);
      }
      CHECK(equal);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// PCR
// -------------------------------------------------------------------------------------------------
TEMPLATE_TEST_CASE("k PCR steps split the system into 2^k strided subsystems", "[cpu][tridiag][pcr]", double,
                   std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("pcr-structure" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int m : kSizes) {
    const ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    const std::vector<T> x_star = oracle(s);
    for (int k = 0; k <= ceil_log2(m) + 1; ++k) {
      CAPTURE(m, k);
      std::vector<T> a = s.dl, b = s.d, c = s.du, d = s.b;
      ref::pcr_steps(m, k, a.data(), b.data(), c.data(), d.data());
      const int stride = 1 << ref::effective_pcr_steps(m, k);
      // The coupling leaving the system is exactly zero: subsystem r is rows r, r + 2^k, ...
      bool decoupled = true;
      for (int i = 0; i < m; ++i) {
        if (i < stride && !(a[i] == T(0))) decoupled = false;
        if (i + stride >= m && !(c[i] == T(0))) decoupled = false;
      }
      CHECK(decoupled);
      // The oracle's solution satisfies the reduced equations a_i x_{i-2^k} + b_i x_i +
      // c_i x_{i+2^k} = d_i, up to PCR's rounding: the normwise backward error of x* for the
      // reduced system (plus x*'s own rounding to double).
      long double r_norm = 0, a_norm = 0, x_norm = 0, d_norm = 0;
      for (int i = 0; i < m; ++i) {
        using W = std::conditional_t<std::is_same<T, double>::value, long double, std::complex<long double>>;
        auto w = [](const T& v) { return W(v); };
        W sum = w(b[i]) * w(x_star[i]) - w(d[i]);
        long double row = std::abs(w(b[i]));
        if (i - stride >= 0) sum += w(a[i]) * w(x_star[i - stride]), row += std::abs(w(a[i]));
        if (i + stride < m) sum += w(c[i]) * w(x_star[i + stride]), row += std::abs(w(c[i]));
        r_norm = std::max<long double>(r_norm, std::abs(sum));
        a_norm = std::max(a_norm, row);
        x_norm = std::max<long double>(x_norm, std::abs(w(x_star[i])));
        d_norm = std::max<long double>(d_norm, std::abs(w(d[i])));
      }
      CHECK(static_cast<double>(r_norm / (a_norm * x_norm + d_norm)) <= pcr_tol(k));
    }
  }
}

TEMPLATE_TEST_CASE("tiled PCR reproduces the global PCR coefficients", "[cpu][tridiag][pcr][tiled]", double,
                   std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("tiled" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // Rows [lo, hi) clipped to the system.
  auto clipped = [](std::int64_t lo, std::int64_t hi, int m) {
    return std::max<std::int64_t>(0, std::min<std::int64_t>(hi, m) - std::max<std::int64_t>(lo, 0));
  };
  int configurations = 0;
  for (int m : {1, 2, 3, 5, 7, 31, 32, 33, 100, 127, 512, 1021}) {
    const ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    for (int k = 0; k <= ceil_log2(m) + 1; ++k) {
      std::vector<T> a = s.dl, b = s.d, c = s.du, d = s.b;
      ref::pcr_steps(m, k, a.data(), b.data(), c.data(), d.data());
      const int ke = ref::effective_pcr_steps(m, k);
      const int p = 1 << ke;
      // Tiles much smaller than the halo (2^k - 1 rows each side) cost O(m 2^k k): only on small m.
      std::vector<int> tiles = {p, 37, 128, m, m + 5};
      if (m <= 127) tiles.insert(tiles.end(), {1, 2, 3});
      for (int tile : tiles) {
        for (int sub_tile : {1, 5, p, 3 * p}) {
          CAPTURE(m, k, tile, sub_tile);
          ++configurations;
          std::vector<T> ta(static_cast<std::size_t>(m)), tb(ta), tc(ta), td(ta);
          ref::TiledPcrStats stats;
          ref::tiled_pcr_steps(m, k, tile, sub_tile, s.dl.data(), s.d.data(), s.du.data(), s.b.data(), ta.data(),
                               tb.data(), tc.data(), td.data(), &stats);
          // Same elimination code, same operands: equal to the last bit, not just to rounding.
          CHECK(all_same_bits(ta, a));
          CHECK(all_same_bits(tb, b));
          CHECK(all_same_bits(tc, c));
          CHECK(all_same_bits(td, d));

          // Data movement ("A Scalable Tridiagonal Solver for GPUs", section III.A): each tile loads
          // its rows plus a halo of f(k) = 2^k - 1 on each side, once; it eliminates each level-l row
          // it needs (halo 2^k - 2^l) once; the window keeps 2 f(k) rows across sub-tiles.
          std::int64_t loads = 0, eliminations = 0, tile_count = 0, sub_tiles = 0;
          for (int ts = 0; ts < m; ts += tile) {
            const int te = std::min(m, ts + tile);
            ++tile_count;
            sub_tiles += (te - ts + sub_tile - 1) / sub_tile;
            loads += clipped(ts - (p - 1), te + (p - 1), m);
            for (int l = 1; l <= ke; ++l) eliminations += clipped(ts - (p - (1 << l)), te + (p - (1 << l)), m);
          }
          CHECK(stats.tiles == tile_count);
          CHECK(stats.sub_tiles == sub_tiles);
          CHECK(stats.loads == loads);
          CHECK(stats.eliminations == eliminations);
          CHECK(stats.cached_rows == (ke == 0 ? 0 : 2 * (p - 1)));
          if (tile >= m) CHECK(stats.loads == m);  // one tile: every input row read exactly once
        }
      }
    }
  }
  std::cout << "tiled PCR " << type_name<T>() << ": " << configurations << " (m, k, tile, sub-tile) configurations\n";
}

// -------------------------------------------------------------------------------------------------
// The partition solver (the GPU's src/tridiag/kernels/partition.cu)
// -------------------------------------------------------------------------------------------------
namespace {

// The level plan the solver must follow, worked out independently of it: a level fits one block
// when its ceil(rows / L) chunks, padded to a power of two, are at most max_block_chunks; else it
// is reduced to ceil(rows / L) rows.
struct PartitionPlan {
  std::vector<int> level_rows;
  int block_rows = 0;
  int block_chunks = 0;
};

PartitionPlan expected_partition_plan(int m, int rows_per_chunk, int max_block_chunks, int tile_chunks) {
  PartitionPlan plan;
  int rows = m;
  for (;;) {
    const int chunks = std::max(1, (rows + rows_per_chunk - 1) / rows_per_chunk);
    if ((1 << ceil_log2(chunks)) <= max_block_chunks) {
      plan.block_rows = rows;
      plan.block_chunks = 1 << ceil_log2(chunks);
      return plan;
    }
    const int tile_rows = rows_per_chunk * tile_chunks;
    rows = (rows + tile_rows - 1) / tile_rows;
    plan.level_rows.push_back(rows);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("the partition solver matches the oracle and Thomas on diagonally dominant systems",
                   "[cpu][tridiag][partition]", double, std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("partition" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  // 1 forces a reduced level wherever there are two chunks or more; 16 and 512 are the GPU's
  // (interleaved and strided); 1024 lets most sizes fit one block.
  const std::vector<int> max_chunks = {1, 2, 4, 16, 512, 1024};
  std::vector<Worst> worst = {{"eta/(k+1)"}, {"fwd/(cond (k+1))"}, {"fwd vs thomas/(cond (k+1))"}};
  int runs = 0, reduced_runs = 0, deep_runs = 0;
  for (double margin : {0.5, 0.01}) {
    for (int m : {1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 100, 257, 1000, 4099}) {
      CAPTURE(margin, m);
      const ref::System<T> s = ref::random_dominant_system<T>(m, rng, margin);
      const std::vector<T> x_star = oracle(s);
      int thomas_info = -1;
      const std::vector<T> x_thomas = run(s, ref::thomas<T>, &thomas_info);
      REQUIRE(thomas_info == 0);
      const double cond = ref::dominant_condition_bound(m, s.dl.data(), s.d.data(), s.du.data());
      CAPTURE(cond);
      REQUIRE(std::isfinite(cond));
      for (int rows_per_chunk : {2, 3, 4, 8}) {
        for (int max_block_chunks : max_chunks) {
          // Tiles of one chunk, of a non-power of two, and of the GPU's interleaved 16.
          for (int tile_chunks : {1, 3, 16}) {
            CAPTURE(rows_per_chunk, max_block_chunks, tile_chunks);
            // x has NaN sentinels past row m: rows of the last chunk beyond m are never written.
            const int guard = rows_per_chunk + 1;
            std::vector<T> x(s.b);
            x.resize(static_cast<std::size_t>(m + guard), nan);
            ref::PartitionStats stats;
            CHECK(ref::partition(m, rows_per_chunk, max_block_chunks, s.dl.data(), s.d.data(), s.du.data(), x.data(),
                                 &stats, tile_chunks) == 0);
            bool guard_untouched = true;
            for (int i = m; i < m + guard; ++i) guard_untouched = guard_untouched && !is_finite(x[i]);
            CHECK(guard_untouched);
            x.resize(static_cast<std::size_t>(m));

            const PartitionPlan plan = expected_partition_plan(m, rows_per_chunk, max_block_chunks, tile_chunks);
            CHECK(stats.levels == static_cast<int>(plan.level_rows.size()));
            CHECK(stats.level_rows == plan.level_rows);
            CHECK(stats.block_rows == plan.block_rows);
            CHECK(stats.block_chunks == plan.block_chunks);
            ++runs;
            reduced_runs += stats.levels >= 1;
            deep_runs += stats.levels >= 2;

            // Each level is a one-pass elimination of the interiors plus the separator rows built
            // from them, and its tiles' log2(tile_chunks) PCR steps; the block adds log2(chunks)
            // PCR steps. The same law as PCR's, with k the levels plus the PCR steps.
            const int k = stats.levels * (1 + ceil_log2(tile_chunks)) + ceil_log2(stats.block_chunks);
            CAPTURE(k);
            const double e = eta(s, x);
            const double f = ref::relative_error(m, x.data(), x_star.data());
            const double ft = ref::relative_error(m, x.data(), x_thomas.data());
            CHECK(e <= pcr_tol(k));
            CHECK(f <= forward_tol(cond, pcr_tol(k)));
            // Against Thomas: both within their forward bounds of x*.
            CHECK(ft <= forward_tol(cond, pcr_tol(k)) + forward_tol(cond, kOnePassTol));
            worst[0].see(e / ((k + 1) * kEps));
            worst[1].see(f / (cond * (k + 1) * kEps));
            worst[2].see(ft / (cond * (k + 1) * kEps));
          }
        }
      }
    }
  }
  // The recursion was exercised, several levels deep.
  CHECK(reduced_runs > 0);
  CHECK(deep_runs > 0);
  std::cout << "partition " << type_name<T>() << ": " << runs << " runs, " << reduced_runs << " with reduced levels, "
            << deep_runs << " with two or more\n";
  print("partition " + type_name<T>() + ", worst ratios (eps units)", worst);
}

// Weak dominance, |d_i| = |dl_i| + |du_i| (random off-diagonals, so irreducible) but for the first
// and last rows, twice that (so nonsingular): the equality case of gtsv2's dominance check, where
// it solves without pivoting by the partition solver (kernels/pivoting.cu, dominance_kernel). No
// pivot may vanish, and the backward error must stay within the same law as on strictly dominant
// systems, at the GPU's shapes among others.
TEMPLATE_TEST_CASE("the partition solver on weakly dominant systems", "[cpu][tridiag][partition]", double,
                   std::complex<double>) {
  using T = TestType;
  std::mt19937_64 rng(case_seed("partition-weak" + type_name<T>()));
  double worst = 0.0;
  for (int m : {3, 33, 1025, 4099, 65536}) {
    ref::System<T> s = ref::random_dominant_system<T>(m, rng, 0.0);
    s.d[0] *= 2.0;
    s.d[static_cast<std::size_t>(m - 1)] *= 2.0;
    for (int rows_per_chunk : {4, 8, 16}) {
      for (int max_block_chunks : {16, 512}) {
        for (int tile_chunks : {1, 16, 64}) {
          CAPTURE(m, rows_per_chunk, max_block_chunks, tile_chunks);
          std::vector<T> x = s.b;
          ref::PartitionStats stats;
          CHECK(ref::partition(m, rows_per_chunk, max_block_chunks, s.dl.data(), s.d.data(), s.du.data(), x.data(),
                               &stats, tile_chunks) == 0);
          const int k = stats.levels * (1 + ceil_log2(tile_chunks)) + ceil_log2(stats.block_chunks);
          CAPTURE(k);
          const double e = eta(s, x);
          CHECK(e <= pcr_tol(k));
          worst = std::max(worst, e / ((k + 1) * kEps));
        }
      }
    }
  }
  std::cout << "partition " << type_name<T>() << ", weakly dominant: worst eta/(k+1) " << worst << " eps\n";
}

TEMPLATE_TEST_CASE("the partition solver's levels: reduced until one block holds the level",
                   "[cpu][tridiag][partition]", double, std::complex<double>) {
  using T = TestType;
  std::mt19937_64 rng(case_seed("partition-levels" + type_name<T>()));
  auto solve = [&](int m, int rows_per_chunk, int max_block_chunks, int tile_chunks = 1) {
    const ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    std::vector<T> x = s.b;
    ref::PartitionStats stats;
    CHECK(ref::partition(m, rows_per_chunk, max_block_chunks, s.dl.data(), s.d.data(), s.du.data(), x.data(), &stats,
                         tile_chunks) == 0);
    CHECK(eta(s, x) <= pcr_tol(stats.levels * (1 + ceil_log2(tile_chunks)) + ceil_log2(stats.block_chunks)));
    return stats;
  };
  SECTION("max 1 chunk: reduced down to a level of one chunk") {
    const ref::PartitionStats st = solve(1000, 2, 1);
    CHECK(st.levels == 9);
    CHECK(st.level_rows == std::vector<int>{500, 250, 125, 63, 32, 16, 8, 4, 2});
    CHECK(st.block_rows == 2);
    CHECK(st.block_chunks == 1);
  }
  SECTION("chunk-sized tiles (1 chunk): one reduced row per chunk") {
    const ref::PartitionStats st = solve(4099, 8, 512);
    CHECK(st.levels == 1);
    CHECK(st.level_rows == std::vector<int>{513});
    CHECK(st.block_rows == 513);
    CHECK(st.block_chunks == 128);
  }
  SECTION("the GPU's strided real shape (L = 8, 512 chunks, tiles of 256): one row per 2048") {
    const ref::PartitionStats st = solve(4099, 8, 512, 256);
    CHECK(st.levels == 1);
    CHECK(st.level_rows == std::vector<int>{3});
    CHECK(st.block_rows == 3);
    CHECK(st.block_chunks == 1);
    const ref::PartitionStats fits = solve(4096, 8, 512, 256);
    CHECK(fits.levels == 0);
    CHECK(fits.block_chunks == 512);
    // A level that no block holds is tiled again: 2^20 rows -> 512 -> one block.
    const ref::PartitionStats deep = solve(1 << 20, 8, 32, 256);
    CHECK(deep.level_rows == std::vector<int>{512, 1});
    CHECK(deep.block_rows == 1);
  }
  SECTION("the GPU's interleaved complex shape (L = 4, 16 chunks, tiles of 16): two reduced levels") {
    const ref::PartitionStats st = solve(4099, 4, 16, 16);
    CHECK(st.levels == 2);
    CHECK(st.level_rows == std::vector<int>{65, 2});
    CHECK(st.block_rows == 2);
    CHECK(st.block_chunks == 1);
  }
  SECTION("one chunk or less always fits") {
    const ref::PartitionStats one = solve(1, 2, 1);
    CHECK(one.levels == 0);
    CHECK(one.block_chunks == 1);
    const ref::PartitionStats two = solve(2, 2, 1);
    CHECK(two.levels == 0);
    CHECK(two.block_chunks == 1);
    ref::PartitionStats empty;
    empty.levels = 7;
    CHECK(ref::partition<T>(0, 2, 1, nullptr, nullptr, nullptr, nullptr, &empty) == 0);
    CHECK(empty.levels == 0);
    CHECK(empty.block_chunks == 0);
  }
  SECTION("exactly zero divisors are counted, and the solve goes on") {
    // A diagonal matrix with a zero on the diagonal: the zero reaches a pivot or a divisor.
    const T nan = T(std::numeric_limits<double>::quiet_NaN());
    const std::vector<T> d = {T(1), T(2), T(3), T(0), T(5), T(6), T(7), T(8)};
    const std::vector<T> dl = {nan, T(0), T(0), T(0), T(0), T(0), T(0), T(0)};
    const std::vector<T> du = {T(0), T(0), T(0), T(0), T(0), T(0), T(0), nan};
    for (int rows_per_chunk : {2, 3, 4, 8}) {
      for (int max_block_chunks : {1, 4}) {
        CAPTURE(rows_per_chunk, max_block_chunks);
        std::vector<T> x(8, T(1));
        CHECK(ref::partition(8, rows_per_chunk, max_block_chunks, dl.data(), d.data(), du.data(), x.data()) > 0);
      }
    }
  }
  SECTION("invalid arguments") {
    std::vector<T> v(4, T(1));
    CHECK_THROWS_AS(ref::partition(4, 1, 4, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
    CHECK_THROWS_AS(ref::partition(4, 2, 0, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
    CHECK_THROWS_AS(ref::partition(-1, 2, 4, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
    CHECK_THROWS_AS(ref::partition(4, 2, 4, v.data(), v.data(), v.data(), v.data(), nullptr, 0), std::invalid_argument);
  }
}

// -------------------------------------------------------------------------------------------------
// Pivoting
// -------------------------------------------------------------------------------------------------
TEMPLATE_TEST_CASE("partial pivoting and Givens QR where Thomas breaks down", "[cpu][tridiag][pivoting]", double,
                   std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("pivoting" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<Worst> worst = {{"lu"}, {"qr"}, {"fwd/cond"}};
  std::vector<double> thomas_tiny;  // Thomas's eta on the tiny-pivot systems
  for (int m : kSizes) {
    if (m < 2) continue;
    CAPTURE(m);
    auto check_pivoting = [&](const ref::System<T>& s) {
      const std::vector<T> x_star = oracle(s);
      const double cond = ref::condition_number_inf(m, s.dl.data(), s.d.data(), s.du.data());
      CAPTURE(cond);
      int info = -1;
      const std::vector<T> lu = run(s, ref::lu_partial_pivot<T>, &info);
      CHECK(info == 0);
      const std::vector<T> qr = run(s, ref::givens_qr<T>, &info);
      CHECK(info == 0);
      CHECK(eta(s, lu) <= kOnePassTol);
      CHECK(eta(s, qr) <= kOnePassTol);
      CHECK(ref::relative_error(m, lu.data(), x_star.data()) <= forward_tol(cond, kOnePassTol));
      CHECK(ref::relative_error(m, qr.data(), x_star.data()) <= forward_tol(cond, kOnePassTol));
      worst[0].see(eta(s, lu) / kEps);
      worst[1].see(eta(s, qr) / kEps);
      worst[2].see(ref::relative_error(m, lu.data(), x_star.data()) / (cond * kEps));
      worst[2].see(ref::relative_error(m, qr.data(), x_star.data()) / (cond * kEps));
    };

    {
      // A zero leading pivot (and exact zeros further down): Thomas divides by zero at row 1.
      INFO("zero pivots");
      ref::System<T> s = nonsingular_nondominant<T>(m, rng, 0.25, 0.25, 1e-9);
      while (!(s.d[0] == T(0))) {
        s.d[0] = T(0);
        std::vector<T> x = s.b;
        if (ref::dense_solve(m, s.dl.data(), s.d.data(), s.du.data(), x.data()) != 0)
          s = nonsingular_nondominant<T>(m, rng, 0.25, 0.25, 1e-9);
      }
      int info = -1;
      const std::vector<T> x = run(s, ref::thomas<T>, &info);
      CHECK(info == 1);
      CHECK(eta(s, x) == std::numeric_limits<double>::infinity());  // not finite
      check_pivoting(s);
    }
    for (int rep = 0; rep < 3; ++rep) {
      // Tiny pivots, O(1) solution: Thomas loses about eps / 1e-9 in backward error.
      INFO("tiny pivots, rep " << rep);
      ref::System<T> s = nonsingular_nondominant<T>(m, rng, 0.0, 0.5, 1e-9);
      s.d[0] = 1e-9 * ref::random_value<T>(rng);
      // Re-make b for the O(1) solution after the change of d[0]: b = A x_t.
      std::vector<T> xt(static_cast<std::size_t>(m));
      for (auto& v : xt) v = ref::random_value<T>(rng);
      for (int i = 0; i < m; ++i) {
        T sum = s.d[i] * xt[i];
        if (i > 0) sum += s.dl[i] * xt[i - 1];
        if (i < m - 1) sum += s.du[i] * xt[i + 1];
        s.b[i] = sum;
      }
      int info = -1;
      const std::vector<T> x = run(s, ref::thomas<T>, &info);
      thomas_tiny.push_back(eta(s, x));
      check_pivoting(s);
    }
  }
  // Thomas is not always hurt (a tiny pivot with a weak coupling is harmless), so judge the typical
  // case: its median backward error is far above what the pivoting solvers are held to.
  std::sort(thomas_tiny.begin(), thomas_tiny.end());
  const double median = thomas_tiny[thomas_tiny.size() / 2];
  CAPTURE(median, thomas_tiny.back());
  CHECK(median >= 1000 * kOnePassTol);
  print("non-dominant " + type_name<T>() + ", worst eta/eps", worst);
  std::cout << "non-dominant " + type_name<T>() + ", Thomas on tiny pivots: median eta/eps " << median / kEps
            << ", max " << thomas_tiny.back() / kEps << "\n";
}

TEMPLATE_TEST_CASE("Wang-Mou matches the oracle on diagonally dominant systems, in any stage split",
                   "[cpu][tridiag][wang-mou]", double, std::complex<double>) {
  // MS-ID-TS's solver: ceil(log2 m) merge levels, each adding about one rounding per coefficient,
  // so it is held to the PCR bound of as many steps. The stage split (the paper's s_1 = 9 or 10
  // levels in the first kernel, then w per kernel) must not change a single bit.
  using T = TestType;
  const std::uint64_t seed = case_seed("wang-mou" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<int> sizes = kSizes;
  sizes.push_back(4099);  // a prime above 2^12 (condition_number_inf is O(m^2))
  for (int m : sizes) {
    CAPTURE(m);
    const ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    const std::vector<T> x_star = oracle(s);
    const double cond = ref::condition_number_inf(m, s.dl.data(), s.d.data(), s.du.data());
    ref::WangMouStats stats;
    std::vector<T> x = s.b;
    CHECK(ref::wang_mou(m, 9, 3, s.dl.data(), s.d.data(), s.du.data(), x.data(), &stats) == 0);
    const int levels = ceil_log2(m);
    CHECK(stats.levels == levels);
    const double e = eta(s, x);
    CHECK(e <= pcr_tol(levels));
    CHECK(ref::relative_error(m, x.data(), x_star.data()) <= forward_tol(cond, pcr_tol(levels)));
    // The stages: s_1 = 9 levels first, then 3 per stage; their sum is every level.
    int total = 0;
    for (int take : stats.levels_per_stage) total += take;
    CHECK(total == levels);
    CHECK(stats.stages == (levels <= 9 ? (levels > 0 ? 1 : 0) : 1 + (levels - 9 + 2) / 3));
    // Another split, the same bits.
    for (const auto& split : {std::pair<int, int>{1, 1}, std::pair<int, int>{10, 4}, std::pair<int, int>{64, 64}}) {
      std::vector<T> y = s.b;
      ref::wang_mou(m, split.first, split.second, s.dl.data(), s.d.data(), s.du.data(), y.data());
      CHECK(y == x);
    }
  }
}

TEMPLATE_TEST_CASE("Wang-Mou in the GPU's tiled multi-stage form matches the oracle", "[cpu][tridiag][wang-mou]",
                   double, std::complex<double>) {
  // wang_mou_tiled: tiles merged completely, their first and last rows merged as the next stage's
  // list, recursively, then the outside unknowns substituted into every row. Small tiles make the
  // lists deep (tile 4: about log2 m stages), sizes one past a multiple of the tile leave a last
  // tile of one row. The bound is wang_mou()'s: ceil(log2 m) merge levels plus one substitution
  // per stage. One tile holding the system is wang_mou() itself, value for value.
  using T = TestType;
  const std::uint64_t seed = case_seed("wang-mou-tiled" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<int> sizes = kSizes;
  for (int extra : {9, 17, 65, 257, 4097, 4099}) sizes.push_back(extra);
  for (int m : sizes) {
    CAPTURE(m);
    const ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    const std::vector<T> x_star = oracle(s);
    const double cond = ref::condition_number_inf(m, s.dl.data(), s.d.data(), s.du.data());
    std::vector<T> whole = s.b;
    REQUIRE(ref::wang_mou(m, 64, 64, s.dl.data(), s.d.data(), s.du.data(), whole.data()) == 0);
    for (int tile : {4, 8, 64, 1024, 4096}) {
      CAPTURE(tile);
      ref::WangMouTiledStats stats;
      std::vector<T> x = s.b;
      CHECK(ref::wang_mou_tiled(m, tile, s.dl.data(), s.d.data(), s.du.data(), x.data(), &stats) == 0);
      // The lists: m first, each next one two rows per tile (one for a last tile of one row), the
      // last one within a tile; every tile of every list but the top one merged once on the way up.
      REQUIRE(!stats.list_rows.empty());
      CHECK(stats.list_rows.front() == m);
      long long tiles = 0;
      for (std::size_t k = 0; k + 1 < stats.list_rows.size(); ++k) {
        const long long rows = stats.list_rows[k];
        const long long count = (rows + tile - 1) / tile;
        tiles += count;
        CHECK(rows > tile);
        CHECK(stats.list_rows[k + 1] == 2 * count - (rows % tile == 1 ? 1 : 0));
      }
      CHECK(stats.list_rows.back() <= std::max(tile, 1));
      CHECK(stats.tiles == tiles);
      const int levels = ceil_log2(m) + static_cast<int>(stats.list_rows.size());
      CHECK(eta(s, x) <= pcr_tol(levels));
      CHECK(ref::relative_error(m, x.data(), x_star.data()) <= forward_tol(cond, pcr_tol(levels)));
      if (tile >= m) CHECK(x == whole);
    }
  }
}

TEMPLATE_TEST_CASE("diagonal pivoting and SPIKE where Thomas breaks down", "[cpu][tridiag][pivoting][spike]",
                   double, std::complex<double>) {
  // The stable building blocks of a native gtsv2: diagonal pivoting (1 x 1 / 2 x 2 blocks, no row
  // interchanges) alone and inside SPIKE partitions, on random non-dominant systems (exact and
  // tiny zeros on the diagonal) and on a zero diagonal (every pivot a 2 x 2 block). Held to the
  // backward error of LU with partial pivoting (xGTSV, what the vendor's gtsv2 computes) on the
  // same system: at most 2x it, plus the one-pass bound, the accuracy rule.
  //
  // SPIKE needs every partition's block to be nonsingular, which a nonsingular matrix does not
  // promise (a zero diagonal of odd order is singular). Then it must say so, with a row inside an
  // exactly singular partition, so that a dispatcher can hand the call to LU. A nearly singular
  // partition is not reported; its error is what the two refinement steps remove (without them
  // SPIKE's backward error reached 1.2e8 x LU's on these systems, with one step 380 x; with two,
  // at most 0.39 x over 12 seeds).
  using T = TestType;
  constexpr int kRefinements = 2;
  const std::uint64_t seed = case_seed("spike" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<Worst> worst = {{"dp/lu"}, {"spike/lu"}};
  int solved = 0, reported = 0;
  for (int m : kSizes) {
    if (m < 2) continue;
    CAPTURE(m);
    const auto check = [&](const ref::System<T>& s) {
      int info = -1;
      const std::vector<T> lu = run(s, ref::lu_partial_pivot<T>, &info);
      REQUIRE(info == 0);
      const double lu_eta = eta(s, lu);
      const std::vector<T> dp = run(s, ref::diagonal_pivoting<T>, &info);
      CHECK(info == 0);
      CHECK(eta(s, dp) <= 2 * lu_eta + kOnePassTol);
      worst[0].see(eta(s, dp) / (lu_eta + kEps));
      for (int partitions : {2, 7, 16}) {
        CAPTURE(partitions);
        const std::vector<T> spike = run(
            s, [partitions](int n, const T* dl, const T* d, const T* du, T* x) {
              return ref::spike_diagonal_pivoting<T>(n, partitions, dl, d, du, x, kRefinements);
            },
            &info);
        if (info == 0) {
          ++solved;
          CHECK(eta(s, spike) <= 2 * lu_eta + kOnePassTol);
          worst[1].see(eta(s, spike) / (lu_eta + kEps));
          continue;
        }
        ++reported;
        // The partition holding row info - 1 (sizes m / p, the remainder over the first ones).
        REQUIRE(info >= 1);
        REQUIRE(info <= m);
        const int p = std::max(1, std::min(partitions, m / 2));
        int first = 0, size = 0;
        for (int i = 0; i < p; ++i) {
          size = m / p + (i < m % p ? 1 : 0);
          if (info - 1 < first + size) break;
          first += size;
        }
        std::vector<T> dl(s.dl.begin() + first, s.dl.begin() + first + size);
        std::vector<T> d(s.d.begin() + first, s.d.begin() + first + size);
        std::vector<T> du(s.du.begin() + first, s.du.begin() + first + size);
        std::vector<T> rhs(static_cast<std::size_t>(size), T(1));
        CAPTURE(info, first, size);
        CHECK(ref::dense_solve(size, dl.data(), d.data(), du.data(), rhs.data()) != 0);
      }
    };
    for (int rep = 0; rep < 3; ++rep) {
      INFO("random non-dominant, exact and tiny zeros, rep " << rep);
      check(nonsingular_nondominant<T>(m, rng, 0.1, 0.1, 1e-9));
    }
    for (int rep = 0; rep < 3; ++rep) {
      INFO("random non-dominant, exact zeros, rep " << rep);
      check(nonsingular_nondominant<T>(m, rng, 0.1, 0.0, 1e-9));
    }
    {
      INFO("zero diagonal");
      ref::System<T> s = nonsingular_nondominant<T>(m, rng, 0.0, 0.0, 1e-9);
      std::fill(s.d.begin(), s.d.end(), T(0));
      std::vector<T> x = s.b;
      if (m % 2 == 0 && ref::dense_solve(m, s.dl.data(), s.d.data(), s.du.data(), x.data()) == 0) {
        // (odd m with a zero diagonal is singular)
        int info = -1;
        const std::vector<T> thomas = run(s, ref::thomas<T>, &info);
        CHECK(info == 1);
        check(s);
      }
    }
  }
  CAPTURE(solved, reported);
  CHECK(solved > 4 * reported);  // the accuracy branch carries the test
  print("non-dominant " + type_name<T>() + ", worst eta / eta(LU)", worst);
  std::cout << "SPIKE: " << solved << " solved, " << reported << " singular partitions reported\n";
}

// -------------------------------------------------------------------------------------------------
// Chunked diagonal pivoting (the native gtsv2 kernel's algorithm)
// -------------------------------------------------------------------------------------------------
namespace {

// The reduced levels the solver must take, worked out independently of it: a level of more than P
// rows becomes one of ceil(rows / P) rows.
std::vector<int> expected_chunk_levels(int m, int rows_per_chunk) {
  std::vector<int> level_rows;
  for (int rows = m; rows > rows_per_chunk;) {
    rows = (rows + rows_per_chunk - 1) / rows_per_chunk;
    level_rows.push_back(rows);
  }
  return level_rows;
}

// chunk_pivoting on `columns` right-hand sides of m rows in columns of ldb rows whose gap rows
// m .. ldb-1 hold NaN. Returns the ldb * columns array; *gaps_untouched says whether every gap
// element came back with the same bits.
template <class T>
std::vector<T> run_chunk_pivoting(const ref::System<T>& s, int rows_per_chunk, const std::vector<std::vector<T>>& rhs,
                                  int ldb, int* info, ref::ChunkPivotingStats* stats, bool* gaps_untouched) {
  const int m = s.m, columns = static_cast<int>(rhs.size());
  std::vector<T> x(static_cast<std::size_t>(ldb) * columns, T(std::numeric_limits<double>::quiet_NaN()));
  const std::vector<T> poisoned = x;
  for (int j = 0; j < columns; ++j) {
    std::copy(rhs[j].begin(), rhs[j].end(), x.begin() + static_cast<std::ptrdiff_t>(j) * ldb);
  }
  *info = ref::chunk_pivoting(m, rows_per_chunk, columns, ldb, s.dl.data(), s.d.data(), s.du.data(), x.data(), stats);
  *gaps_untouched = true;
  for (int j = 0; j < columns; ++j) {
    const std::size_t gap = static_cast<std::size_t>(j) * ldb + m;
    const std::size_t bytes = static_cast<std::size_t>(ldb - m) * sizeof(T);
    *gaps_untouched = *gaps_untouched && std::memcmp(x.data() + gap, poisoned.data() + gap, bytes) == 0;
  }
  return x;
}

// Column j of an ldb-strided array, m rows.
template <class T>
std::vector<T> column(const std::vector<T>& x, int m, int ldb, int j) {
  const auto first = x.begin() + static_cast<std::ptrdiff_t>(j) * ldb;
  return std::vector<T>(first, first + m);
}

}  // namespace

TEMPLATE_TEST_CASE("chunked diagonal pivoting matches the oracle on diagonally dominant systems",
                   "[cpu][tridiag][pivoting][chunk]", double, std::complex<double>) {
  // Each level is a one-pass elimination of the interiors plus the separator rows built from them,
  // and the last level one diagonal pivoting solve (on a dominant matrix, and so on its Schur
  // complements, every pivot is 1 x 1, as in Thomas): the partition solver's law, with k the
  // reduced levels. ldb > m, the gap rows NaN: they must come back with the same bits.
  using T = TestType;
  const std::uint64_t seed = case_seed("chunk-pivoting" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<Worst> worst = {{"eta/(k+1)"}, {"fwd/(cond (k+1))"}};
  int runs = 0, reduced_runs = 0, deep_runs = 0;
  for (double margin : {0.5, 0.01}) {
    for (int m : {1, 2, 3, 5, 7, 16, 17, 31, 97, 1000, 4099, 65537}) {
      CAPTURE(margin, m);
      const ref::System<T> s = ref::random_dominant_system<T>(m, rng, margin);
      // Three right-hand sides: the generator's and two more; each column's oracle solution.
      std::vector<std::vector<T>> rhs = {s.b, s.b, s.b};
      for (int j = 1; j < 3; ++j) {
        for (T& v : rhs[j]) v = ref::random_value<T>(rng);
      }
      std::vector<std::vector<T>> x_star;
      for (const std::vector<T>& b : rhs) {
        x_star.push_back(b);
        REQUIRE(ref::dense_solve(m, s.dl.data(), s.d.data(), s.du.data(), x_star.back().data()) == 0);
      }
      const double cond = ref::dominant_condition_bound(m, s.dl.data(), s.d.data(), s.du.data());
      CAPTURE(cond);
      REQUIRE(std::isfinite(cond));
      for (int rows_per_chunk : {2, 3, 8, 16}) {
        const std::vector<int> plan = expected_chunk_levels(m, rows_per_chunk);
        const int k = static_cast<int>(plan.size());
        // Each column solved alone (ldb = m): a solve of several columns must give the same bits,
        // since the pivots depend on the matrix only.
        std::vector<std::vector<T>> alone;
        for (const std::vector<T>& one : rhs) {
          int info = -1;
          bool gaps_untouched = false;
          alone.push_back(run_chunk_pivoting(s, rows_per_chunk, {one}, m, &info, nullptr, &gaps_untouched));
          CHECK(info == 0);
        }
        for (int columns : {1, 3}) {
          const int ldb = m + (columns == 1 ? 3 : 5);
          CAPTURE(rows_per_chunk, columns, ldb, k);
          const std::vector<std::vector<T>> b(rhs.begin(), rhs.begin() + columns);
          int info = -1;
          ref::ChunkPivotingStats stats;
          bool gaps_untouched = false;
          const std::vector<T> x = run_chunk_pivoting(s, rows_per_chunk, b, ldb, &info, &stats, &gaps_untouched);
          CHECK(info == 0);
          CHECK(gaps_untouched);
          CHECK(stats.levels == k);
          CHECK(stats.level_rows == plan);
          ++runs;
          reduced_runs += stats.levels >= 1;
          deep_runs += stats.levels >= 2;
          for (int j = 0; j < columns; ++j) {
            CAPTURE(j);
            const std::vector<T> xj = column(x, m, ldb, j);
            const double e = ref::backward_error(m, s.dl.data(), s.d.data(), s.du.data(), xj.data(), b[j].data());
            const double f = ref::relative_error(m, xj.data(), x_star[j].data());
            CHECK(e <= pcr_tol(k));
            CHECK(f <= forward_tol(cond, pcr_tol(k)));
            worst[0].see(e / ((k + 1) * kEps));
            worst[1].see(f / (cond * (k + 1) * kEps));
            CHECK(all_same_bits(xj, alone[j]));
          }
        }
      }
    }
  }
  // The recursion was exercised, several levels deep.
  CHECK(reduced_runs > 0);
  CHECK(deep_runs > 0);
  std::cout << "chunk pivoting " << type_name<T>() << ": " << runs << " runs, " << reduced_runs
            << " with reduced levels, " << deep_runs << " with two or more\n";
  print("chunk pivoting dominant " + type_name<T>() + ", worst ratios (eps units)", worst);
}

TEMPLATE_TEST_CASE("chunked diagonal pivoting on non-dominant systems, against partial pivoting",
                   "[cpu][tridiag][pivoting][chunk]", double, std::complex<double>) {
  // The systems of the SPIKE case (exact zeros, and exact and tiny zeros, on the diagonal) and
  // uniform ones, against LU with partial pivoting's backward error on the same system (what the
  // vendor's gtsv2 computes). Like SPIKE, the algorithm factors the chunks' interior blocks, not the
  // matrix, so their conditioning sets its error, and it has no bound of the 2x-LU kind. Over 5,400
  // systems per type and setting (P = 8, 16; m = 97, 1000, 4099; 3 seeds x 300 each), the worst
  // eta / (eta(LU) + eps) without refinement was, double / complex<double>:
  //   uniform 8.1e4 / 148,  exact zeros 1.9e5 / 233,  exact and tiny zeros 2.7e11 / 8.0e14,
  // the median 0.4-150 (growing with m, the number of chunks), except with tiny zeros and P = 8,
  // where it reached 1e6-5e7 at m = 4099: an interior of odd order whose every other diagonal entry
  // is zero or tiny is singular or nearly, and with 7-row interiors about one chunk in 600 has that.
  // The bounds below are about 500x the worst seen; with tiny zeros none holds but eta <= 1.
  // Iterative refinement (r = b - A x solved the same way, added to x) is the remedy: uniform and
  // exact-zero systems met SPIKE's rule (2 eta(LU) + 16 eps) after one step; with tiny zeros, one
  // system of 18,576 still missed it after two steps (2e3 x, P = 8), none of 7,896 after three.
  using T = TestType;
  constexpr int kRefinements = 3;
  const std::uint64_t seed = case_seed("chunk-pivoting-nondominant" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  struct Setting {
    const char* name;
    double zero_fraction, tiny_fraction, bound;
  };
  const std::vector<Setting> settings = {
      {"uniform", 0.0, 0.0, 1e8},
      {"exact zeros", 0.1, 0.0, 1e8},
      {"exact and tiny zeros", 0.1, 0.1, std::numeric_limits<double>::infinity()},
  };
  constexpr int kReps = 8;
  std::vector<Worst> worst, worst_refined = {{"1 step"}, {"2 steps"}, {"3 steps"}};
  std::vector<std::vector<double>> ratios(settings.size());
  for (const Setting& setting : settings) worst.push_back({setting.name});
  int solved = 0, reported = 0;
  for (std::size_t which = 0; which < settings.size(); ++which) {
    const Setting& setting = settings[which];
    for (int m : {97, 1000, 4099}) {
      for (int rep = 0; rep < kReps; ++rep) {
        CAPTURE(setting.name, m, rep);
        const ref::System<T> s =
            nonsingular_nondominant<T>(m, rng, setting.zero_fraction, setting.tiny_fraction, 1e-9);
        int info = -1;
        const std::vector<T> lu = run(s, ref::lu_partial_pivot<T>, &info);
        REQUIRE(info == 0);
        const double lu_eta = eta(s, lu);
        for (int rows_per_chunk : {8, 16}) {
          CAPTURE(rows_per_chunk);
          const auto solve = [rows_per_chunk](int n, const T* dl, const T* d, const T* du, T* b) {
            return ref::chunk_pivoting<T>(n, rows_per_chunk, 1, n, dl, d, du, b);
          };
          std::vector<T> x = run(s, solve, &info);
          if (info != 0) {
            // An exactly singular block, reported with a row of the system. At an interior row, that
            // chunk's interior block must be singular indeed; a separator row stands for a block of
            // a reduced level.
            ++reported;
            REQUIRE(info >= 1);
            REQUIRE(info <= m);
            // Chunks are counted from the end: chunk 0 is the short one.
            const int row = info - 1;
            const int padding = (m + rows_per_chunk - 1) / rows_per_chunk * rows_per_chunk - m;
            const int chunk = (row + padding) / rows_per_chunk;
            const int separator = (chunk + 1) * rows_per_chunk - padding - 1;
            const int first = std::max(0, separator + 1 - rows_per_chunk);
            CAPTURE(info, first, separator);
            if (row != separator) {
              const int n = separator - first;
              std::vector<T> dl(s.dl.begin() + first, s.dl.begin() + separator);
              std::vector<T> d(s.d.begin() + first, s.d.begin() + separator);
              std::vector<T> du(s.du.begin() + first, s.du.begin() + separator);
              std::vector<T> rhs(static_cast<std::size_t>(n), T(1));
              CHECK(ref::dense_solve(n, dl.data(), d.data(), du.data(), rhs.data()) != 0);
            }
            continue;
          }
          ++solved;
          const double e = eta(s, x);
          CHECK(std::isfinite(e));
          CHECK(e <= setting.bound * (lu_eta + kEps));
          worst[which].see(e / (lu_eta + kEps));
          ratios[which].push_back(e / (lu_eta + kEps));
          // The remedy: r = b - A x, solved the same way, added to x.
          for (int step = 0; step < kRefinements; ++step) {
            std::vector<T> r(static_cast<std::size_t>(m));
            for (int i = 0; i < m; ++i) {
              T ax = s.d[i] * x[i];
              if (i > 0) ax += s.dl[i] * x[i - 1];
              if (i + 1 < m) ax += s.du[i] * x[i + 1];
              r[static_cast<std::size_t>(i)] = s.b[i] - ax;
            }
            REQUIRE(solve(m, s.dl.data(), s.d.data(), s.du.data(), r.data()) == 0);
            for (int i = 0; i < m; ++i) x[i] += r[static_cast<std::size_t>(i)];
            worst_refined[static_cast<std::size_t>(step)].see(eta(s, x) / (lu_eta + kEps));
          }
          CHECK(eta(s, x) <= 2 * lu_eta + kOnePassTol);
        }
      }
    }
  }
  CAPTURE(solved, reported);
  CHECK(solved > 4 * reported);  // the accuracy branch carries the test
  // Without refinement it is far from partial pivoting where pivots are tiny: why the GPU refines.
  CHECK(worst[2].value > 1000);
  print("chunk pivoting non-dominant " + type_name<T>() + ", worst eta / (eta(LU) + eps)", worst);
  std::cout << "chunk pivoting non-dominant " << type_name<T>() << ", median eta / (eta(LU) + eps):";
  for (std::size_t which = 0; which < settings.size(); ++which) {
    std::vector<double>& r = ratios[which];
    std::sort(r.begin(), r.end());
    std::cout << " " << settings[which].name << " " << (r.empty() ? 0.0 : r[r.size() / 2]);
  }
  std::cout << "; " << solved << " solved, " << reported << " singular blocks reported\n";
  print("chunk pivoting non-dominant " + type_name<T>() + ", refined, worst eta / (eta(LU) + eps)", worst_refined);
}

TEMPLATE_TEST_CASE("chunked diagonal pivoting's levels, singular blocks and arguments",
                   "[cpu][tridiag][pivoting][chunk]", double, std::complex<double>) {
  using T = TestType;
  std::mt19937_64 rng(case_seed("chunk-pivoting-levels" + type_name<T>()));
  auto solve = [&](int m, int rows_per_chunk) {
    const ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    std::vector<T> x = s.b;
    ref::ChunkPivotingStats stats;
    CHECK(ref::chunk_pivoting(m, rows_per_chunk, 1, m, s.dl.data(), s.d.data(), s.du.data(), x.data(), &stats) == 0);
    CHECK(eta(s, x) <= pcr_tol(stats.levels));
    return stats;
  };
  SECTION("levels worked out by hand") {
    // 1000 rows in chunks of 16: 63 chunks, then 4, which one chunk holds.
    ref::ChunkPivotingStats st = solve(1000, 16);
    CHECK(st.levels == 2);
    CHECK(st.level_rows == std::vector<int>{63, 4});
    // 17 rows: a chunk of one separator alone (row 0), then a chunk of 16 (15 interior rows).
    st = solve(17, 16);
    CHECK(st.levels == 1);
    CHECK(st.level_rows == std::vector<int>{2});
    st = solve(16, 16);
    CHECK(st.levels == 0);
    CHECK(st.level_rows.empty());
    // Chunks of 2: one interior row each, halving down to two rows.
    st = solve(1000, 2);
    CHECK(st.level_rows == std::vector<int>{500, 250, 125, 63, 32, 16, 8, 4, 2});
    // 3 rows in chunks of 2: chunk 0 is the separator row 0 alone (n_0 = 0).
    st = solve(3, 2);
    CHECK(st.level_rows == std::vector<int>{2});
    st = solve(65537, 8);
    CHECK(st.level_rows == std::vector<int>{8193, 1025, 129, 17, 3});
  }
  SECTION("nothing to solve") {
    ref::ChunkPivotingStats st;
    st.levels = 7;
    CHECK(ref::chunk_pivoting<T>(0, 2, 1, 0, nullptr, nullptr, nullptr, nullptr, &st) == 0);
    CHECK(st.levels == 0);
    std::vector<T> v(4, T(1));
    CHECK(ref::chunk_pivoting<T>(4, 2, 0, 4, v.data(), v.data(), v.data(), nullptr, &st) == 0);
    CHECK(st.levels == 0);
  }
  SECTION("exactly singular blocks are reported by a row of the system, and x is left alone") {
    // A diagonal matrix with one zero: in an interior it is that interior's singular block; on a
    // separator it becomes a zero on the reduced level's diagonal, reported as that separator.
    const T nan = T(std::numeric_limits<double>::quiet_NaN());
    const int m = 8;
    for (int zero_row = 0; zero_row < m; ++zero_row) {
      for (int rows_per_chunk : {2, 3, 4, 8}) {
        CAPTURE(zero_row, rows_per_chunk);
        std::vector<T> d = {T(1), T(2), T(3), T(4), T(5), T(6), T(7), T(8)};
        d[static_cast<std::size_t>(zero_row)] = T(0);
        std::vector<T> dl(m, T(0)), du(m, T(0));
        dl[0] = nan;
        du[m - 1] = nan;
        std::vector<T> x(m, T(1));
        CHECK(ref::chunk_pivoting(m, rows_per_chunk, 1, m, dl.data(), d.data(), du.data(), x.data()) == zero_row + 1);
        CHECK(x == std::vector<T>(m, T(1)));
      }
    }
  }
  SECTION("a zero diagonal: every interior of odd order is singular") {
    // A nonsingular matrix (even order, zero diagonal) that partial pivoting solves exactly, but
    // whose interiors of P - 1 rows (P even) are zero-diagonal blocks of odd order, all singular:
    // the first one is reported, at its last row, where its last pivot block (1 x 1, zero) starts.
    // Chunks are counted from the end: with P = 16, chunk 0 is rows 0..7 (1000 = 62 * 16 + 8),
    // whose interior of 7 rows is singular too.
    const int m = 1000;
    ref::System<T> s = nonsingular_nondominant<T>(m, rng, 0.0, 0.0, 1e-9);
    std::fill(s.d.begin(), s.d.end(), T(0));
    std::vector<T> x = s.b;
    REQUIRE(ref::dense_solve(m, s.dl.data(), s.d.data(), s.du.data(), x.data()) == 0);
    for (int rows_per_chunk : {2, 4, 8, 16}) {
      CAPTURE(rows_per_chunk);
      x = s.b;
      const int first_chunk = m % rows_per_chunk == 0 ? rows_per_chunk : m % rows_per_chunk;
      CHECK(ref::chunk_pivoting(m, rows_per_chunk, 1, m, s.dl.data(), s.d.data(), s.du.data(), x.data()) ==
            first_chunk - 1);
    }
  }
  SECTION("invalid arguments") {
    std::vector<T> v(4, T(1));
    CHECK_THROWS_AS(ref::chunk_pivoting(4, 1, 1, 4, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
    CHECK_THROWS_AS(ref::chunk_pivoting(4, 2, -1, 4, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
    CHECK_THROWS_AS(ref::chunk_pivoting(4, 2, 1, 3, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
    CHECK_THROWS_AS(ref::chunk_pivoting(-1, 2, 1, 4, v.data(), v.data(), v.data(), v.data()), std::invalid_argument);
  }
}

TEMPLATE_TEST_CASE("chunked diagonal pivoting with two separators a chunk, chosen: no odd interiors, and one "
                   "refinement step meets partial pivoting's backward error",
                   "[cpu][tridiag][pivoting][chunk]", double, std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("chunk-pivoting-two-separators" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const auto two = [](int rows_per_chunk, ref::ChunkPivotingStats* stats = nullptr) {
    return [rows_per_chunk, stats](int n, const T* dl, const T* d, const T* du, T* b) {
      return ref::chunk_pivoting<T>(n, rows_per_chunk, 1, n, dl, d, du, b, stats, ref::ChunkSeparators::kTwoChosen);
    };
  };
  // One step of iterative refinement: r = b - A x, solved the same way, added to x.
  const auto refine = [](const ref::System<T>& s, auto solve, std::vector<T>& x) {
    const int m = s.m;
    std::vector<T> r(static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i) {
      T ax = s.d[i] * x[i];
      if (i > 0) ax += s.dl[i] * x[i - 1];
      if (i + 1 < m) ax += s.du[i] * x[i + 1];
      r[static_cast<std::size_t>(i)] = s.b[i] - ax;
    }
    REQUIRE(solve(m, s.dl.data(), s.d.data(), s.du.data(), r.data()) == 0);
    for (int i = 0; i < m; ++i) x[i] += r[static_cast<std::size_t>(i)];
  };
  int info = -1;
  SECTION("levels worked out by hand") {
    // 1000 rows in chunks of 8: 125 chunks of 8 rows, two separators each; 250 rows in chunks of 8
    // (chunk 0 has 2 rows, both separators): 31 * 2 + 2 = 64; then 8 chunks: 16; then 2 chunks: 4,
    // which one chunk holds.
    ref::ChunkPivotingStats stats;
    const ref::System<T> s = ref::random_dominant_system<T>(1000, rng);
    const std::vector<T> x = run(s, two(8, &stats), &info);
    REQUIRE(info == 0);
    CHECK(stats.level_rows == std::vector<int>{250, 64, 16, 4});
    CHECK(eta(s, x) <= pcr_tol(stats.levels));
    // Chunks of 2 rows have one interior row: one separator, as kOne, bit for bit.
    const std::vector<T> one = run(
        s, [](int n, const T* dl, const T* d, const T* du, T* b) { return ref::chunk_pivoting<T>(n, 2, 1, n, dl, d, du, b); },
        &info);
    REQUIRE(info == 0);
    CHECK(all_same_bits(run(s, two(2), &info), one));
  }
  SECTION("a window singular one way is taken the other way") {
    // Chunks of 4 rows (windows of 2). In chunk 0 (rows 0..3), window A (rows 0, 1) is
    // [1 1; 1 1], singular, and window B (rows 1, 2) is [1 1; 1 2]: B is taken, and the system is
    // solved as accurately as by partial pivoting. Always taking A would report row 1.
    const int m = 8;
    ref::System<T> s = ref::random_dominant_system<T>(m, rng);
    s.d[0] = T(1), s.du[0] = T(1);
    s.dl[1] = T(1), s.d[1] = T(1), s.du[1] = T(1);
    s.dl[2] = T(1), s.d[2] = T(2);
    std::vector<T> lu = s.b;
    REQUIRE(ref::dense_solve(m, s.dl.data(), s.d.data(), s.du.data(), lu.data()) == 0);
    const std::vector<T> x = run(s, two(4), &info);
    REQUIRE(info == 0);
    CHECK(eta(s, x) <= kOnePassTol);
  }
  SECTION("a zero diagonal: every interior has even order, and the system is solved") {
    // The matrix of the kOne section above that reports its odd interiors singular.
    const int m = 1000;
    ref::System<T> s = nonsingular_nondominant<T>(m, rng, 0.0, 0.0, 1e-9);
    std::fill(s.d.begin(), s.d.end(), T(0));
    std::vector<T> lu = s.b;
    REQUIRE(ref::lu_partial_pivot(m, s.dl.data(), s.d.data(), s.du.data(), lu.data()) == 0);
    for (int rows_per_chunk : {4, 8, 16}) {
      CAPTURE(rows_per_chunk);
      std::vector<T> x = run(s, two(rows_per_chunk), &info);
      REQUIRE(info == 0);
      refine(s, two(rows_per_chunk), x);
      CHECK(eta(s, x) <= 2 * eta(s, lu) + 8 * kEps);
    }
  }
  SECTION("random non-dominant systems, uniform and with exact zeros on the diagonal") {
    // With one separator a chunk, about 1 system in 30 of 65536 rows with 5% zeros has an exactly
    // singular interior (measured: 10 of 300, P = 8), and refinement cannot help there.
    int refined = 0;
    double worst = 0.0;
    for (const double zero_fraction : {0.0, 0.05}) {
      for (const int m : {1000, 4099, 65536}) {
        for (int rep = 0; rep < (m > 5000 ? 3 : 8); ++rep) {
          CAPTURE(zero_fraction, m, rep);
          const ref::System<T> s = nonsingular_nondominant<T>(m, rng, zero_fraction, 0.0, 1e-9);
          const std::vector<T> lu = run(s, ref::lu_partial_pivot<T>, &info);
          REQUIRE(info == 0);
          std::vector<T> x = run(s, two(8), &info);
          REQUIRE(info == 0);
          refine(s, two(8), x);
          const double lu_eta = eta(s, lu);
          CHECK(eta(s, x) <= 2 * lu_eta + 8 * kEps);
          worst = std::max(worst, eta(s, x) / (lu_eta + kEps));
          ++refined;
        }
      }
    }
    std::cout << "chunk pivoting, two separators " << type_name<T>() << ", one refinement step: " << refined
              << " systems, worst eta / (eta(LU) + eps) " << worst << "\n";
  }
  SECTION("the first reduced level of at most 256 or 64 rows by partial pivoting (the GPU's serial solve)") {
    const auto serial = [](int serial_rows, ref::ChunkPivotingStats* stats = nullptr) {
      return [serial_rows, stats](int n, const T* dl, const T* d, const T* du, T* b) {
        return ref::chunk_pivoting<T>(n, 8, 1, n, dl, d, du, b, stats, ref::ChunkSeparators::kTwoChosen, serial_rows);
      };
    };
    // Worked out by hand: 1000 rows reduce to 250 (see above), which 256 takes at once and 64 after
    // one more level of 64; 65536 rows to 16384, 4096, 1024, 256; 8 rows are one chunk, never
    // serial (level 0 always goes by chunks).
    ref::ChunkPivotingStats stats;
    const ref::System<T> s = ref::random_dominant_system<T>(65536, rng);
    for (const auto& [m, serial_rows, rows, taken] :
         {std::tuple{1000, 256, std::vector<int>{250}, 250}, std::tuple{1000, 64, std::vector<int>{250, 64}, 64},
          std::tuple{65536, 256, std::vector<int>{16384, 4096, 1024, 256}, 256},
          std::tuple{8, 256, std::vector<int>{}, 0}}) {
      CAPTURE(m, serial_rows);
      std::vector<T> x(s.b.begin(), s.b.begin() + m);
      REQUIRE(serial(serial_rows, &stats)(m, s.dl.data(), s.d.data(), s.du.data(), x.data()) == 0);
      CHECK(stats.level_rows == rows);
      CHECK(stats.serial_rows == taken);
    }
    // The same backward error as the chunks all the way up, after one refinement step.
    for (const double zero_fraction : {0.0, 0.05}) {
      for (const int m : {1000, 4099, 65536}) {
        for (const int serial_rows : {64, 256}) {
          for (int rep = 0; rep < (m > 5000 ? 2 : 6); ++rep) {
            CAPTURE(zero_fraction, m, serial_rows, rep);
            const ref::System<T> sys = nonsingular_nondominant<T>(m, rng, zero_fraction, 0.0, 1e-9);
            const std::vector<T> lu = run(sys, ref::lu_partial_pivot<T>, &info);
            REQUIRE(info == 0);
            std::vector<T> x = run(sys, serial(serial_rows), &info);
            REQUIRE(info == 0);
            refine(sys, serial(serial_rows), x);
            CHECK(eta(sys, x) <= 2 * eta(sys, lu) + 8 * kEps);
          }
        }
      }
    }
  }
  SECTION("chunks of 32 and 64 rows: fewer levels, the same accuracy after one refinement step") {
    // The candidates for a gtsv2 of fewer levels (each level is a launch and a serial chain; larger
    // chunks, staged through shared memory, take 2-3 levels at 2^20 rows where chunks of 8 take
    // 6 and more): one refinement step meets partial pivoting's backward error as with P = 8.
    for (const int rows_per_chunk : {32, 64}) {
      for (const double zero_fraction : {0.0, 0.05}) {
        for (const int m : {1000, 4099}) {
          for (int rep = 0; rep < 4; ++rep) {
            CAPTURE(rows_per_chunk, zero_fraction, m, rep);
            const ref::System<T> s = nonsingular_nondominant<T>(m, rng, zero_fraction, 0.0, 1e-9);
            const std::vector<T> lu = run(s, ref::lu_partial_pivot<T>, &info);
            REQUIRE(info == 0);
            std::vector<T> x = run(s, two(rows_per_chunk), &info);
            REQUIRE(info == 0);
            refine(s, two(rows_per_chunk), x);
            CHECK(eta(s, x) <= 2 * eta(s, lu) + 8 * kEps);
          }
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("zero pivots are reported with their 1-based row", "[cpu][tridiag][pivoting]", double,
                   std::complex<double>) {
  using T = TestType;
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  auto all = [](int m, std::vector<T> dl, std::vector<T> d, std::vector<T> du, std::vector<int> expected) {
    ref::System<T> s;
    s.m = m, s.dl = dl, s.d = d, s.du = du, s.b.assign(static_cast<std::size_t>(m), T(1));
    int info = -1;
    run(s, ref::thomas<T>, &info);
    CHECK(info == expected[0]);
    run(s, ref::lu_partial_pivot<T>, &info);
    CHECK(info == expected[1]);
    run(s, ref::givens_qr<T>, &info);
    CHECK(info == expected[2]);
    run(s, ref::dense_solve<T>, &info);
    CHECK(info == expected[3]);
    run(s, ref::dense_solve_full<T>, &info);
    CHECK(info == expected[3]);
  };
  SECTION("1 x 1 zero") { all(1, {nan}, {T(0)}, {nan}, {1, 1, 1, 1}); }
  SECTION("a zero column") {
    // Column 2 is zero: U(2,2) and R(2,2) are exactly 0 (R = Q^H A keeps the zero column).
    all(5, {nan, T(0.5), T(0.25), T(0), T(-0.5)}, {T(3), T(-2), T(0), T(4), T(2)},
        {T(0.5), T(0), T(1), T(-1), nan}, {3, 3, 3, 3});
  }
  SECTION("zero diagonal, odd size (singular)") {
    all(3, {nan, T(2), T(-1)}, {T(0), T(0), T(0)}, {T(1), T(3), nan}, {1, 3, 3, 3});
  }
  SECTION("nonsingular but a zero leading pivot: only Thomas fails") {
    all(2, {nan, T(1)}, {T(0), T(1)}, {T(1), nan}, {1, 0, 0, 0});
  }
  SECTION("PCR reports the pivot's row in the original system") {
    // Diagonal matrices: after k steps each subsystem's pivots are the diagonal entries.
    std::vector<T> d8 = {T(1), T(2), T(3), T(4), T(5), T(0), T(7), T(8)};
    std::vector<T> z8(8, T(0)), x8(8, T(1));
    for (int k = 0; k <= 4; ++k) {
      CAPTURE(k);
      std::vector<T> x = x8;
      CHECK(ref::pcr_thomas(8, k, z8.data(), d8.data(), z8.data(), x.data()) == 6);
      x = x8;
      CHECK(ref::tiled_pcr_thomas(8, k, 3, 2, z8.data(), d8.data(), z8.data(), x.data()) == 6);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// Variable-size batches
// -------------------------------------------------------------------------------------------------
TEMPLATE_TEST_CASE("variable-size batches ignore their padding, NaN included", "[cpu][tridiag][vbatch]", double,
                   std::complex<double>) {
  using T = TestType;
  const std::uint64_t seed = case_seed("vbatch" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  for (int batch : {1, 5, 37, 64}) {
    CAPTURE(batch);
    std::vector<int> sizes(static_cast<std::size_t>(batch));
    for (int& n : sizes) n = static_cast<int>(std::floor(41 * 0.5 * (ref::uniform_pm1(rng) + 1)));  // 0..40
    const int special[] = {40, 0, 1, 2};  // the largest, empty, one and two equations
    for (int j = 0; j < std::min(batch, 4); ++j) sizes[j] = special[j];
    const int rows = *std::max_element(sizes.begin(), sizes.end());

    std::vector<ref::System<T>> systems;
    std::vector<std::vector<T>> expected;
    for (int n : sizes) {
      systems.push_back(ref::random_dominant_system<T>(n, rng));
      int info = -1;
      expected.push_back(run(systems.back(), ref::thomas<T>, &info));
      REQUIRE(info == 0);
    }
    // Padded interleaved arrays; `padding` fills the rows i >= n (and, through the generator, the
    // ignored dl[0] and du[n-1] hold NaN too).
    auto layout = [&](T pad_dl, T pad_d, T pad_du, T pad_x, bool zero_last_du) {
      const std::size_t total = static_cast<std::size_t>(rows) * batch;
      std::vector<std::vector<T>> v = {std::vector<T>(total, pad_dl), std::vector<T>(total, pad_d),
                                       std::vector<T>(total, pad_du), std::vector<T>(total, pad_x)};
      for (int j = 0; j < batch; ++j) {
        for (int i = 0; i < sizes[j]; ++i) {
          const std::size_t at = static_cast<std::size_t>(i) * batch + j;
          v[0][at] = systems[j].dl[i], v[1][at] = systems[j].d[i], v[2][at] = systems[j].du[i];
          v[3][at] = systems[j].b[i];
          if (zero_last_du && i == sizes[j] - 1) v[2][at] = T(0);
          if (zero_last_du && i == 0) v[0][at] = T(0);
        }
      }
      return v;
    };
    auto solution_rows_equal = [&](const std::vector<T>& x) {
      bool ok = true;
      for (int j = 0; j < batch; ++j) {
        for (int i = 0; i < sizes[j]; ++i) {
          const T v = x[static_cast<std::size_t>(i) * batch + j];
          ok = ok && is_finite(v) && same_bits(v, expected[j][i]);
        }
      }
      return ok;
    };
    auto padding_all = [&](const std::vector<T>& x, auto predicate) {
      bool ok = true;
      for (int j = 0; j < batch; ++j) {
        for (int i = sizes[j]; i < rows; ++i) ok = ok && predicate(x[static_cast<std::size_t>(i) * batch + j]);
      }
      return ok;
    };

    {
      INFO("NaN padding, no computing padding (NCP)");
      auto v = layout(nan, nan, nan, nan, false);
      CHECK(ref::thomas_var_batch(batch, sizes.data(), v[0].data(), v[1].data(), v[2].data(), v[3].data(),
                                  ref::PaddingMode::kSkip) == 0);
      CHECK(solution_rows_equal(v[3]));
      CHECK(padding_all(v[3], [](const T& p) { return !is_finite(p); }));  // never written
    }
    {
      INFO("NaN padding, computing padding (CP)");
      auto v = layout(nan, nan, nan, nan, false);
      CHECK(ref::thomas_var_batch(batch, sizes.data(), v[0].data(), v[1].data(), v[2].data(), v[3].data(),
                                  ref::PaddingMode::kCompute) == 0);
      CHECK(solution_rows_equal(v[3]));
      CHECK(padding_all(v[3], [](const T& p) { return p == T(0); }));
    }
    {
      // Identity padding rows (a = c = d = 0, b = 1) with du[n-1] = 0 let a plain fixed-size
      // interleaved Thomas over all rows give the same solution rows: what a CP kernel computes.
      INFO("identity padding through plain thomas_interleaved");
      auto v = layout(T(0), T(1), T(0), T(0), true);
      CHECK(ref::thomas_interleaved(rows, batch, v[0].data(), v[1].data(), v[2].data(), v[3].data()) == 0);
      CHECK(solution_rows_equal(v[3]));
    }
    {
      // All-zero padding rows make 0/0 at row n, and 0 * NaN carries it back into row n-1: the
      // failure the masking above exists to prevent.
      INFO("zero padding through plain thomas_interleaved (negative control)");
      auto v = layout(T(0), T(0), T(0), T(0), true);
      ref::thomas_interleaved(rows, batch, v[0].data(), v[1].data(), v[2].data(), v[3].data());
      bool leaked = true;
      for (int j = 0; j < batch; ++j) {
        if (sizes[j] > 0 && sizes[j] < rows) leaked = leaked && !is_finite(v[3][static_cast<std::size_t>(sizes[j] - 1) * batch + j]);
      }
      CHECK(leaked);
    }
  }
}

TEMPLATE_TEST_CASE("algos 1 and 2 on long systems: the gathered batch by chunked diagonal pivoting",
                   "[cpu][tridiag][pivoting][gathered]", double, std::complex<double>) {
  // The host mirror of kernels/interleaved_pivoting.cu: an interleaved batch (element i of system j
  // at i*batch + j) gathered into one block-diagonal system, solved by chunked diagonal pivoting
  // with two separators a chunk and one refinement step, and each system's rows read back. The
  // caller's dl[0] and du[m-1] hold large values that must not couple the systems; m not a
  // multiple of the chunk puts chunks across the systems' boundaries. Each system is judged on its
  // own against LU with partial pivoting (the vendor's algo 1): the backward error within twice
  // LU's plus 16 eps, as gtsv2's; on dominant systems the forward error against the oracle too.
  using T = TestType;
  const std::uint64_t seed = case_seed("gathered-batch" + type_name<T>());
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  constexpr int kRowsPerChunk = 8;
  for (const bool dominant : {true, false}) {
    for (const auto& [m, batch] : std::vector<std::pair<int, int>>{{33, 7}, {100, 5}, {257, 9}, {1000, 3}}) {
      CAPTURE(dominant, m, batch);
      std::vector<ref::System<T>> batch_systems;
      const std::size_t count = static_cast<std::size_t>(m) * batch;
      std::vector<T> dl(count), d(count), du(count), b(count);
      for (int j = 0; j < batch; ++j) {
        batch_systems.push_back(dominant ? ref::random_dominant_system<T>(m, rng)
                                         : nonsingular_nondominant<T>(m, rng, 0.1, 0.0, 1e-9));
        const ref::System<T>& s = batch_systems.back();
        for (int i = 0; i < m; ++i) {
          const std::size_t at = static_cast<std::size_t>(i) * batch + j;
          // What the caller may leave outside the matrix: large, so that a coupling shows.
          dl[at] = i == 0 ? T(1e3) * ref::random_value<T>(rng) : s.dl[i];
          du[at] = i + 1 == m ? T(1e3) * ref::random_value<T>(rng) : s.du[i];
          d[at] = s.d[i];
          b[at] = s.b[i];
        }
      }
      const ref::Gathered<T> g = ref::gather_interleaved(m, batch, dl.data(), d.data(), du.data(), b.data());
      const int rows = m * batch;
      REQUIRE(g.d.size() == static_cast<std::size_t>(rows));
      for (int j = 0; j < batch; ++j) {
        CHECK(g.dl[static_cast<std::size_t>(j) * m] == T(0));
        CHECK(g.du[static_cast<std::size_t>(j) * m + m - 1] == T(0));
        CHECK(g.d[static_cast<std::size_t>(j) * m + m / 2] == batch_systems[j].d[m / 2]);
      }
      const auto solve = [&](T* x) {
        return ref::chunk_pivoting<T>(rows, kRowsPerChunk, 1, rows, g.dl.data(), g.d.data(), g.du.data(), x, nullptr,
                                      ref::ChunkSeparators::kTwoChosen);
      };
      std::vector<T> x = g.b;
      REQUIRE(solve(x.data()) == 0);
      // One refinement step, as the kernel takes where a pivot was small.
      std::vector<T> r(static_cast<std::size_t>(rows));
      for (int i = 0; i < rows; ++i) {
        T ax = g.d[i] * x[i];
        if (i > 0) ax += g.dl[i] * x[i - 1];
        if (i + 1 < rows) ax += g.du[i] * x[i + 1];
        r[static_cast<std::size_t>(i)] = g.b[i] - ax;
      }
      REQUIRE(solve(r.data()) == 0);
      for (int i = 0; i < rows; ++i) x[i] += r[static_cast<std::size_t>(i)];
      for (int j = 0; j < batch; ++j) {
        CAPTURE(j);
        const ref::System<T>& s = batch_systems[j];
        const std::vector<T> xj(x.begin() + static_cast<std::ptrdiff_t>(j) * m,
                                x.begin() + static_cast<std::ptrdiff_t>(j + 1) * m);
        int info = -1;
        const std::vector<T> lu = run(s, ref::lu_partial_pivot<T>, &info);
        REQUIRE(info == 0);
        CHECK(eta(s, xj) <= 2 * eta(s, lu) + kOnePassTol);
        if (dominant) {
          const double cond = ref::dominant_condition_bound(m, s.dl.data(), s.d.data(), s.du.data());
          CHECK(ref::relative_error(m, xj.data(), oracle(s).data()) <= forward_tol(cond, kOnePassTol));
        }
      }
    }
  }
}
