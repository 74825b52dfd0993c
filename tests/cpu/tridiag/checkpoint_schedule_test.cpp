// The recomputing thread-per-system solver's order of work (src/tridiag/kernels/
// checkpoint_schedule.h, the template the kernel of interleaved.cu runs) on the host, with host
// versions of the kernel's two elimination steps (LU with partial pivoting as LAPACK's xGTSV
// chooses pivots, Givens QR), for every segment length the kernels use (16, 8, 4) and the
// smallest the scratch allows (3):
//  - the result equals, to the bit, the same elimination with U stored and read back (the
//    thread-per-system kernel it replaces), on random non-dominant systems where both branches of
//    the pivot choice are taken;
//  - it solves the system: backward error within 16 eps (reference_test.cpp's bound for one-pass
//    pivoting eliminations) and agreement with ref::lu_partial_pivot / ref::givens_qr;
//  - the kernel's own accessor (InterleavedSystem) on a host batch in the interleaved layout gives
//    the same bits, writes the scratch only where checkpoint_elements says and nothing past x;
//  - the accesses are the ones the kernel's traffic figures assume: every coefficient row read
//    twice where it lies in a segment before the last and once otherwise, b read as often, x
//    written once a row, b never read after its row's x was written, checkpoints loaded only after
//    they were saved and inside the m elements a system has in the scratch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "tridiag/kernels/checkpoint_schedule.h"
#include "tridiag/reference.h"

namespace {

namespace k = idgpu::tridiag::kernels;
namespace ref = idgpu::tridiag::reference;

template <class T>
struct Traits {
  using Real = T;
  using Wide = double;
};
template <class R>
struct Traits<std::complex<R>> {
  using Real = R;
  using Wide = std::complex<double>;
};

template <class T>
typename Traits<T>::Real abs1(T a) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::abs(a);
  } else {
    return std::abs(a.real()) + std::abs(a.imag());
  }
}
template <class T>
T conj_of(T a) {
  if constexpr (std::is_floating_point<T>::value) {
    return a;
  } else {
    return std::conj(a);
  }
}

// The back substitution both kernels' steps share (interleaved.cu's UpperSolve).
struct UpperSolve {
  template <class T>
  static T last(const k::PivotRow<T>& row) {
    return row.rhs / row.diagonal;
  }
  template <class T>
  static T back(const k::FactorRow<T>& row, T x1, T x2) {
    return ((row.rhs - row.u1 * x1) - row.u2 * x2) / row.u0;
  }
};

long long g_interchanges = 0;  // pivot steps that swapped rows, so the tests know both branches ran

// interleaved.cu's PartialPivotStep.
struct LuStep : UpperSolve {
  template <class T>
  static k::FactorRow<T> apply(k::PivotRow<T>& current, const k::RawRow<T>& next) {
    if (abs1(current.diagonal) >= abs1(next.lower)) {
      const T factor = next.lower / current.diagonal;
      const k::FactorRow<T> done{current.diagonal, current.upper, T(0), current.rhs};
      current = {next.diagonal - factor * current.upper, next.upper, next.rhs - factor * current.rhs};
      return done;
    }
    ++g_interchanges;
    const T factor = current.diagonal / next.lower;
    current = {current.upper - factor * next.diagonal, -(factor * next.upper), current.rhs - factor * next.rhs};
    return {next.lower, next.diagonal, next.upper, next.rhs};
  }
};

// interleaved.cu's GivensStep: G = [c s; -conj(s) c], c real, G [a; b] = [r; 0] (the kernel forms
// c, s and r from reciprocal square roots; here the library's hypot and one division serve).
struct GivensStep : UpperSolve {
  template <class T>
  static k::FactorRow<T> apply(k::PivotRow<T>& current, const k::RawRow<T>& next) {
    using Real = typename Traits<T>::Real;
    const T a = current.diagonal, b = next.lower;
    const Real a_modulus = std::abs(a), b_modulus = std::abs(b);
    Real c;
    T s, r;
    if (b_modulus == Real(0)) {
      c = Real(1);
      s = T(0);
      r = a;
    } else if (a_modulus == Real(0)) {
      c = Real(0);
      s = T(1);
      r = b;
    } else {
      const Real norm = std::hypot(a_modulus, b_modulus);
      const Real inverse = Real(1) / norm;
      T phase;
      if constexpr (std::is_floating_point<T>::value) {
        phase = std::copysign(Real(1), a);
      } else {
        phase = a * (Real(1) / a_modulus);
      }
      c = a_modulus * inverse;
      s = (phase * conj_of(b)) * inverse;
      r = phase * norm;
    }
    const k::FactorRow<T> done{r, current.upper * c + s * next.diagonal, s * next.upper, current.rhs * c + s * next.rhs};
    const T minus_s_conj = -conj_of(s);
    current = {minus_s_conj * current.upper + next.diagonal * c, next.upper * c, minus_s_conj * current.rhs + next.rhs * c};
    return done;
  }
};

// One system as the kernel's InterleavedSystem presents it, counting every access.
template <class T>
struct TrackedSystem {
  using Value = T;
  int m;
  std::vector<T> dl, d, du, x, checkpoints;
  std::vector<int> coefficient_reads, rhs_reads, stores;
  std::vector<char> saved;
  int violations = 0;

  TrackedSystem(int rows, const std::vector<T>& lower, const std::vector<T>& diagonal, const std::vector<T>& upper,
                const std::vector<T>& b)
      : m(rows), dl(lower), d(diagonal), du(upper), x(b),
        checkpoints(static_cast<std::size_t>(rows), T(std::numeric_limits<typename Traits<T>::Real>::quiet_NaN())),
        coefficient_reads(static_cast<std::size_t>(rows)), rhs_reads(static_cast<std::size_t>(rows)),
        stores(static_cast<std::size_t>(rows)), saved(static_cast<std::size_t>(rows)) {}

  T rhs(int row) {
    if (stores[static_cast<std::size_t>(row)] != 0) ++violations;  // b read after x overwrote it
    ++rhs_reads[static_cast<std::size_t>(row)];
    return x[static_cast<std::size_t>(row)];
  }
  k::PivotRow<T> first() {
    ++coefficient_reads[0];
    return {d[0], m > 1 ? du[0] : T(0), rhs(0)};
  }
  k::RawRow<T> coefficients(int row) {
    ++coefficient_reads[static_cast<std::size_t>(row)];
    const auto i = static_cast<std::size_t>(row);
    return {dl[i], d[i], row + 1 < m ? du[i] : T(0), T(0)};
  }
  void save(int checkpoint, const k::PivotRow<T>& row) {
    const int base = 3 * checkpoint;
    if (checkpoint < 0 || base + 2 >= m) {
      ++violations;
      return;
    }
    saved[static_cast<std::size_t>(checkpoint)] = 1;
    checkpoints[static_cast<std::size_t>(base)] = row.diagonal;
    checkpoints[static_cast<std::size_t>(base + 1)] = row.upper;
    checkpoints[static_cast<std::size_t>(base + 2)] = row.rhs;
  }
  k::PivotRow<T> load(int checkpoint) {
    const int base = 3 * checkpoint;
    if (checkpoint < 0 || base + 2 >= m || saved[static_cast<std::size_t>(checkpoint)] == 0) {
      ++violations;
      return {T(0), T(0), T(0)};
    }
    return {checkpoints[static_cast<std::size_t>(base)], checkpoints[static_cast<std::size_t>(base + 1)],
            checkpoints[static_cast<std::size_t>(base + 2)]};
  }
  void store(int row, T value) {
    ++stores[static_cast<std::size_t>(row)];
    x[static_cast<std::size_t>(row)] = value;
  }
};

// The stored-factor order (interleaved.cu's factor_kernel): eliminate once keeping U, then
// back-substitute.
template <class Step, class T>
std::vector<T> solve_stored(int m, const std::vector<T>& dl, const std::vector<T>& d, const std::vector<T>& du,
                            const std::vector<T>& b) {
  std::vector<T> x(static_cast<std::size_t>(m));
  k::PivotRow<T> current{d[0], m > 1 ? du[0] : T(0), b[0]};
  std::vector<k::FactorRow<T>> u;
  for (int row = 1; row < m; ++row) {
    const auto i = static_cast<std::size_t>(row);
    u.push_back(Step::apply(current, k::RawRow<T>{dl[i], d[i], row + 1 < m ? du[i] : T(0), b[i]}));
  }
  T x1 = Step::last(current), x2{};
  x[static_cast<std::size_t>(m - 1)] = x1;
  for (int row = m - 2; row >= 0; --row) {
    const T value = Step::back(u[static_cast<std::size_t>(row)], x1, x2);
    x[static_cast<std::size_t>(row)] = value;
    x2 = x1;
    x1 = value;
  }
  return x;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(uniform(rng));
  } else {
    using R = typename Traits<T>::Real;
    const R re = static_cast<R>(uniform(rng));
    return T(re, static_cast<R>(uniform(rng)));
  }
}

// ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf), accumulated in long double.
template <class T>
double backward_error(int m, const std::vector<T>& dl, const std::vector<T>& d, const std::vector<T>& du,
                      const std::vector<T>& b, const std::vector<T>& x) {
  using W = std::complex<long double>;
  const auto w = [](T v) {
    if constexpr (std::is_floating_point<T>::value) {
      return W(static_cast<long double>(v), 0.0L);
    } else {
      return W(static_cast<long double>(v.real()), static_cast<long double>(v.imag()));
    }
  };
  long double residual = 0, a_norm = 0, x_norm = 0, b_norm = 0;
  for (int i = 0; i < m; ++i) {
    const auto r = static_cast<std::size_t>(i);
    W ax = w(d[r]) * w(x[r]);
    long double row_norm = std::abs(w(d[r]));
    if (i > 0) {
      ax += w(dl[r]) * w(x[r - 1]);
      row_norm += std::abs(w(dl[r]));
    }
    if (i + 1 < m) {
      ax += w(du[r]) * w(x[r + 1]);
      row_norm += std::abs(w(du[r]));
    }
    residual = std::max(residual, std::abs(ax - w(b[r])));
    a_norm = std::max(a_norm, row_norm);
    x_norm = std::max(x_norm, std::abs(w(x[r])));
    b_norm = std::max(b_norm, std::abs(w(b[r])));
  }
  return static_cast<double>(residual / (a_norm * x_norm + b_norm));
}

template <class T>
using Wide = typename Traits<T>::Wide;

template <int K, class Step, class T>
void check_system(int m, std::uint64_t seed,
                  int (*reference)(int, const Wide<T>*, const Wide<T>*, const Wide<T>*, Wide<T>*)) {
  CAPTURE(K, m, seed);
  std::mt19937_64 rng(seed);
  std::vector<T> dl(static_cast<std::size_t>(m)), d(dl.size()), du(dl.size()), b(dl.size());
  for (std::size_t i = 0; i < dl.size(); ++i) {
    // Not dominant: the diagonal as large as the off-diagonals, so rows interchange about half
    // the time.
    dl[i] = i == 0 ? T(0) : random_value<T>(rng);
    d[i] = random_value<T>(rng);
    du[i] = i + 1 == dl.size() ? T(0) : random_value<T>(rng);
    b[i] = random_value<T>(rng);
  }
  TrackedSystem<T> tracked(m, dl, d, du, b);
  k::solve_by_checkpoints<K, Step>(m, tracked);
  const std::vector<T> stored = solve_stored<Step>(m, dl, d, du, b);
  REQUIRE(tracked.violations == 0);
  CHECK(std::memcmp(tracked.x.data(), stored.data(), stored.size() * sizeof(T)) == 0);

  // Accesses: see the file's comment.
  const int segments = k::checkpoint_segments(m, K);
  const int forward_rows = (segments - 1) * K;
  for (int row = 0; row < m; ++row) {
    CAPTURE(row);
    const int expected = row == 0 ? (segments > 1 ? 2 : 1) : (row <= forward_rows ? 2 : 1);
    CHECK(tracked.coefficient_reads[static_cast<std::size_t>(row)] == expected);
    CHECK(tracked.rhs_reads[static_cast<std::size_t>(row)] == expected);
    CHECK(tracked.stores[static_cast<std::size_t>(row)] == 1);
  }
  CHECK(k::checkpoint_elements(m, K) <= m);

  using Real = typename Traits<T>::Real;
  const double eps = std::numeric_limits<Real>::epsilon();
  CHECK(backward_error(m, dl, d, du, b, tracked.x) <= 16.0 * eps);
  // The reference elimination in double on the same (rounded) system, and a bound on how far the
  // two solutions may be apart that no tolerance was fitted to: each is within ||A^-1||_inf times
  // its residual of the exact solution, so |x - x_ref| <= ||A^-1||_inf (|r| + |r_ref|), the
  // residuals formed in long double (exact enough for double's) and ||A^-1||_inf from the
  // reference's solves of the unit vectors (accurate to far better than the 1% allowed).
  const auto widen = [](const std::vector<T>& v) { return std::vector<Wide<T>>(v.begin(), v.end()); };
  const std::vector<Wide<T>> wide_dl = widen(dl), wide_d = widen(d), wide_du = widen(du);
  std::vector<Wide<T>> expected = widen(b);
  REQUIRE(reference(m, wide_dl.data(), wide_d.data(), wide_du.data(), expected.data()) == 0);
  std::vector<double> inverse_rows(static_cast<std::size_t>(m));
  for (int column = 0; column < m; ++column) {
    std::vector<Wide<T>> unit(static_cast<std::size_t>(m));
    unit[static_cast<std::size_t>(column)] = Wide<T>(1);
    REQUIRE(reference(m, wide_dl.data(), wide_d.data(), wide_du.data(), unit.data()) == 0);
    for (std::size_t i = 0; i < unit.size(); ++i) inverse_rows[i] += static_cast<double>(std::abs(unit[i]));
  }
  const double inverse_norm = *std::max_element(inverse_rows.begin(), inverse_rows.end());
  using Long = std::complex<long double>;
  const auto to_long = [](auto v) { return Long(v); };
  const auto residual_of = [&](const auto& x) {
    long double worst = 0;
    for (int i = 0; i < m; ++i) {
      const auto r = static_cast<std::size_t>(i);
      Long ax = to_long(wide_d[r]) * to_long(x[r]);
      if (i > 0) ax += to_long(wide_dl[r]) * to_long(x[r - 1]);
      if (i + 1 < m) ax += to_long(wide_du[r]) * to_long(x[r + 1]);
      worst = std::max(worst, std::abs(ax - to_long(Wide<T>(b[r]))));
    }
    return static_cast<double>(worst);
  };
  const std::vector<Wide<T>> ours = widen(tracked.x);
  double difference = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    difference = std::max(difference, static_cast<double>(std::abs(ours[i] - expected[i])));
  }
  CHECK(difference <= 1.01 * inverse_norm * (residual_of(ours) + residual_of(expected)));
}

template <class T>
void check_lengths(std::uint64_t seed) {
  const int lengths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 15, 16, 17, 18, 19, 31, 32,
                         33, 34, 47, 48, 49, 50, 63, 64, 65, 66, 100, 127, 128, 129, 255, 256, 1000};
  for (const int m : lengths) {
    check_system<3, LuStep, T>(m, seed++, ref::lu_partial_pivot<Wide<T>>);
    check_system<4, LuStep, T>(m, seed++, ref::lu_partial_pivot<Wide<T>>);
    check_system<8, LuStep, T>(m, seed++, ref::lu_partial_pivot<Wide<T>>);
    check_system<16, LuStep, T>(m, seed++, ref::lu_partial_pivot<Wide<T>>);
    check_system<4, GivensStep, T>(m, seed++, ref::givens_qr<Wide<T>>);
    check_system<8, GivensStep, T>(m, seed++, ref::givens_qr<Wide<T>>);
    check_system<16, GivensStep, T>(m, seed++, ref::givens_qr<Wide<T>>);
  }
}

}  // namespace

TEST_CASE("checkpointed thread-per-system solves match the stored factor and read as planned",
          "[tridiag][checkpoint]") {
  g_interchanges = 0;
  check_lengths<float>(0x6a09e667u);
  check_lengths<double>(0xbb67ae85u);
  check_lengths<std::complex<float>>(0x3c6ef372u);
  check_lengths<std::complex<double>>(0xa54ff53au);
  // Both branches of the pivot choice ran many times.
  CHECK(g_interchanges > 10000);
}

// The kernel's accessor (InterleavedSystem) on a host batch in gtsvInterleavedBatch's layout: every
// system's solution equals, to the bit, the tracked solve of the same system; the scratch is
// written only in its first checkpoint_elements(m, K) rows; nothing is written past x's end; the
// matrix is untouched.
template <int K, class Step, class T>
void check_interleaved_batch(int m, int batch, std::uint64_t seed) {
  CAPTURE(K, m, batch, seed);
  std::mt19937_64 rng(seed);
  const std::size_t count = static_cast<std::size_t>(m) * static_cast<std::size_t>(batch);
  const std::size_t guard = 64;
  const T sentinel = T(12345);
  std::vector<T> dl(count), d(count), du(count), b(count);
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t row = index / static_cast<std::size_t>(batch);
    dl[index] = row == 0 ? T(0) : random_value<T>(rng);
    d[index] = random_value<T>(rng);
    du[index] = row + 1 == static_cast<std::size_t>(m) ? T(0) : random_value<T>(rng);
    b[index] = random_value<T>(rng);
  }
  const std::vector<T> dl0 = dl, d0 = d, du0 = du;
  std::vector<T> x(count + guard, sentinel), scratch(count + guard, sentinel);
  std::copy(b.begin(), b.end(), x.begin());
  for (int system = 0; system < batch; ++system) {
    k::InterleavedSystem<T> access{m, static_cast<std::size_t>(batch), static_cast<std::size_t>(system),
                                   dl.data(), d.data(), du.data(), x.data(), scratch.data()};
    k::solve_by_checkpoints<K, Step>(m, access);
  }
  for (int system = 0; system < batch; ++system) {
    CAPTURE(system);
    std::vector<T> sl(static_cast<std::size_t>(m)), sd(sl.size()), su(sl.size()), sb(sl.size()), got(sl.size());
    for (int row = 0; row < m; ++row) {
      const std::size_t index = static_cast<std::size_t>(row) * static_cast<std::size_t>(batch) + static_cast<std::size_t>(system);
      const auto r = static_cast<std::size_t>(row);
      sl[r] = dl[index];
      sd[r] = d[index];
      su[r] = du[index];
      sb[r] = b[index];
      got[r] = x[index];
    }
    TrackedSystem<T> tracked(m, sl, sd, su, sb);
    k::solve_by_checkpoints<K, Step>(m, tracked);
    REQUIRE(tracked.violations == 0);
    CHECK(std::memcmp(got.data(), tracked.x.data(), got.size() * sizeof(T)) == 0);
  }
  const std::size_t written = static_cast<std::size_t>(k::checkpoint_elements(m, K)) * static_cast<std::size_t>(batch);
  bool scratch_kept = true, guard_kept = true;
  for (std::size_t index = written; index < scratch.size(); ++index) scratch_kept = scratch_kept && scratch[index] == sentinel;
  for (std::size_t index = count; index < x.size(); ++index) guard_kept = guard_kept && x[index] == sentinel;
  CHECK(scratch_kept);
  CHECK(guard_kept);
  CHECK(dl == dl0);
  CHECK(d == d0);
  CHECK(du == du0);
}

TEST_CASE("the kernel's accessor on an interleaved batch", "[tridiag][checkpoint]") {
  std::uint64_t seed = 0x510e527fu;
  for (const int m : {1, 2, 3, 5, 17, 18, 33, 64, 100, 257}) {
    for (const int batch : {1, 3, 37}) {
      check_interleaved_batch<16, LuStep, float>(m, batch, seed++);
      check_interleaved_batch<8, LuStep, double>(m, batch, seed++);
      check_interleaved_batch<8, GivensStep, std::complex<float>>(m, batch, seed++);
      check_interleaved_batch<4, GivensStep, std::complex<double>>(m, batch, seed++);
      check_interleaved_batch<4, LuStep, std::complex<double>>(m, batch, seed++);
    }
  }
}

TEST_CASE("checkpoint scratch fits a system's m elements", "[tridiag][checkpoint]") {
  for (int m = 0; m <= 5000; ++m) {
    for (const int K : {3, 4, 8, 16}) {
      CAPTURE(m, K);
      const int segments = k::checkpoint_segments(m, K);
      CHECK(segments == (m < 2 ? 0 : (m - 1 + K - 1) / K));  // ceil((m - 1) / K) steps' segments
      CHECK(k::checkpoint_elements(m, K) <= m);
    }
  }
}
