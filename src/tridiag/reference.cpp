// Host reference implementations of the tridiagonal algorithms (see reference.h).
#include "tridiag/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

// The per-row arithmetic (Thomas's forward and backward steps, the PCR elimination) is kept out of
// line so that the compiler makes one decision about FMA contraction for each: every caller (the
// layouts, the padding modes, the global and the tiled PCR) then agrees bit for bit even in builds
// that contract (GCC's default -ffp-contract=fast with an FMA-capable -march).
#if defined(__GNUC__) || defined(__clang__)
#define IDGPU_REFERENCE_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define IDGPU_REFERENCE_NOINLINE __declspec(noinline)
#else
#define IDGPU_REFERENCE_NOINLINE
#endif

namespace idgpu::tridiag::reference {
namespace {

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};

// The oracle's wider type: long double, or complex<long double>.
template <class T>
struct wide {
  using type = long double;
};
template <class R>
struct wide<std::complex<R>> {
  using type = std::complex<long double>;
};
template <class T>
using wide_t = typename wide<T>::type;

// std::conj(double) returns a complex; the solvers need T back.
inline double conj_of(double v) { return v; }
template <class R>
std::complex<R> conj_of(const std::complex<R>& v) {
  return std::conj(v);
}

inline bool finite(double v) { return std::isfinite(v); }
template <class R>
bool finite(const std::complex<R>& v) {
  return std::isfinite(v.real()) && std::isfinite(v.imag());
}

// |re| + |im|: LAPACK's CABS1, the pivot test of zgtsv. For real values it is |v|.
inline double abs1(double v) { return std::fabs(v); }
inline double abs1(const std::complex<double>& v) { return std::fabs(v.real()) + std::fabs(v.imag()); }

template <class W, class T>
W widen(const T& v) {
  return W(v);
}
template <>
std::complex<long double> widen<std::complex<long double>, std::complex<double>>(const std::complex<double>& v) {
  return {static_cast<long double>(v.real()), static_cast<long double>(v.imag())};
}
template <class T, class W>
T narrow(const W& v) {
  return static_cast<T>(v);
}
template <>
std::complex<double> narrow<std::complex<double>, std::complex<long double>>(const std::complex<long double>& v) {
  return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
}

void check_size(int m) {
  if (m < 0) throw std::invalid_argument("idgpu::tridiag::reference: m < 0");
}

// ---------------------------------------------------------------------------------------------
// Thomas. Each row's arithmetic is one out-of-line function, shared by every layout and by both
// padding modes, so that they all agree bit for bit whatever the compiler contracts.
// ---------------------------------------------------------------------------------------------
template <class T>
struct ThomasRow {
  T denom, cp, xp;  // b_i - c'_{i-1} a_i, c'_i, x'_i
};

// Forward elimination of row i given c'_{i-1}, x'_{i-1} (both 0 for row 0, where the expressions
// reduce exactly to d_0 - 0 and x_0 - 0). For the last row c = 0 is passed and c' is unused.
template <class T>
IDGPU_REFERENCE_NOINLINE ThomasRow<T> thomas_forward(const T& a, const T& b, const T& c, const T& r,
                                                     const T& cp_prev, const T& xp_prev) {
  ThomasRow<T> out;
  out.denom = b - cp_prev * a;
  out.cp = c / out.denom;
  out.xp = (r - xp_prev * a) / out.denom;
  return out;
}

// Back substitution: x_i = x'_i - c'_i x_{i+1}.
template <class T>
IDGPU_REFERENCE_NOINLINE T thomas_backward(const T& xp, const T& cp, const T& x_next) {
  return xp - cp * x_next;
}

// Thomas on one system whose element i is at base[i * step] (step 1: contiguous; step batch:
// interleaved; step 2^k: a PCR subsystem). cp is scratch of at least m elements. dl[0] and
// du[m-1] are never read.
template <class T>
int thomas_core(int m, std::ptrdiff_t step, const T* dl, const T* d, const T* du, T* x, T* cp) {
  if (m <= 0) return 0;
  int info = 0;
  T cp_prev = T(0), xp_prev = T(0);
  for (int i = 0; i < m; ++i) {
    const std::ptrdiff_t at = i * step;
    const T a = i > 0 ? dl[at] : T(0);
    const T c = i < m - 1 ? du[at] : T(0);
    const ThomasRow<T> row = thomas_forward(a, d[at], c, x[at], cp_prev, xp_prev);
    if (row.denom == T(0) && info == 0) info = i + 1;
    cp[i] = cp_prev = row.cp;
    x[at] = xp_prev = row.xp;
  }
  // x_{m-1} = x'_{m-1}.
  for (int i = m - 2; i >= 0; --i) x[i * step] = thomas_backward(x[i * step], cp[i], x[(i + 1) * step]);
  return info;
}

// ---------------------------------------------------------------------------------------------
// PCR
// ---------------------------------------------------------------------------------------------
template <class T>
struct Row {
  T a, b, c, d;
};

template <class T>
Row<T> identity_row() {
  return {T(0), T(1), T(0), T(0)};
}

// One elimination, "A Scalable Tridiagonal Solver for GPUs" eqs. 5-6 at stride s: `lo` is row
// i - s, `hi` row i + s (identity rows outside the system). Evaluated left to right as written.
template <class T>
IDGPU_REFERENCE_NOINLINE Row<T> pcr_eliminate(const Row<T>& lo, const Row<T>& mid, const Row<T>& hi) {
  const T k1 = mid.a / lo.b;
  const T k2 = mid.c / hi.b;
  Row<T> out;
  out.a = -(lo.a * k1);
  out.b = mid.b - lo.c * k1 - hi.a * k2;
  out.c = -(hi.c * k2);
  out.d = mid.d - lo.d * k1 - hi.d * k2;
  return out;
}

// Input row i with the ignored entries (a_0, c_{m-1}) replaced by 0.
template <class T>
Row<T> load_row(int m, int i, const T* a, const T* b, const T* c, const T* d) {
  return {i == 0 ? T(0) : a[i], b[i], i == m - 1 ? T(0) : c[i], d[i]};
}

// p-Thomas: after k PCR steps, Thomas on each subsystem r = 0 .. min(2^k, m) - 1, whose rows are
// r, r + 2^k, r + 2 * 2^k, ... ("PCR naturally produces interleaved results"). The reduced x
// overwrites `d`.
template <class T>
int p_thomas(int m, int k, const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
             std::vector<T>& d) {
  const int stride = 1 << k;
  const int systems = std::min(stride, m);
  std::vector<T> cp(static_cast<std::size_t>(m / stride + 1));
  int info = 0;
  for (int r = 0; r < systems; ++r) {
    const int rows = (m - r + stride - 1) / stride;
    const int sub_info = thomas_core(rows, stride, a.data() + r, b.data() + r, c.data() + r, d.data() + r, cp.data());
    // Report the zero pivot as a row of the original system.
    if (sub_info != 0) {
      const int row = r + (sub_info - 1) * stride + 1;
      if (info == 0 || row < info) info = row;
    }
  }
  return info;
}

// ---------------------------------------------------------------------------------------------
// General band LU with partial pivoting in the oracle's precision (kl sub-, ku superdiagonals;
// after pivoting U has kl + ku superdiagonals). Written for any band, used with kl = ku = 1.
// ---------------------------------------------------------------------------------------------
template <class W>
class BandLu {
 public:
  BandLu(int n, int kl, int ku) : n_(n), kl_(kl), ku_(ku), width_(2 * kl + ku + 1) {
    ab_.assign(static_cast<std::size_t>(n) * width_, W(0));
    pivot_.assign(static_cast<std::size_t>(n), 0);
  }
  // Element (i, j) of the matrix (|i - j| within the band, columns up to i + kl + ku for fill-in).
  W& at(int i, int j) { return ab_[static_cast<std::size_t>(i) * width_ + (j - i + kl_)]; }

  // Returns 0 or the 1-based column of the first exactly zero pivot (the factorisation goes on).
  int factor() {
    int info = 0;
    for (int j = 0; j < n_; ++j) {
      const int last = std::min(n_ - 1, j + kl_);
      int p = j;
      long double best = std::abs(at(j, j));
      for (int i = j + 1; i <= last; ++i) {
        if (std::abs(at(i, j)) > best) {
          best = std::abs(at(i, j));
          p = i;
        }
      }
      pivot_[j] = p;
      if (best == 0) {
        if (info == 0) info = j + 1;
        continue;
      }
      const int right = std::min(n_ - 1, j + kl_ + ku_);
      if (p != j) {
        for (int col = j; col <= right; ++col) std::swap(at(j, col), at(p, col));
      }
      for (int i = j + 1; i <= last; ++i) {
        const W l = at(i, j) / at(j, j);
        at(i, j) = l;
        for (int col = j + 1; col <= right; ++col) at(i, col) -= l * at(j, col);
      }
    }
    return info;
  }

  void solve(W* x) const {
    auto get = [&](int i, int j) { return ab_[static_cast<std::size_t>(i) * width_ + (j - i + kl_)]; };
    for (int j = 0; j < n_; ++j) {
      if (pivot_[j] != j) std::swap(x[j], x[pivot_[j]]);
      const int last = std::min(n_ - 1, j + kl_);
      for (int i = j + 1; i <= last; ++i) x[i] -= get(i, j) * x[j];
    }
    for (int i = n_ - 1; i >= 0; --i) {
      const int right = std::min(n_ - 1, i + kl_ + ku_);
      W sum = x[i];
      for (int col = i + 1; col <= right; ++col) sum -= get(i, col) * x[col];
      x[i] = sum / get(i, i);
    }
  }

 private:
  int n_, kl_, ku_, width_;
  std::vector<W> ab_;
  std::vector<int> pivot_;
};

template <class T>
BandLu<wide_t<T>> band_from(int m, const T* dl, const T* d, const T* du) {
  using W = wide_t<T>;
  BandLu<W> lu(m, 1, 1);
  for (int i = 0; i < m; ++i) {
    if (i > 0) lu.at(i, i - 1) = widen<W>(dl[i]);
    lu.at(i, i) = widen<W>(d[i]);
    if (i < m - 1) lu.at(i, i + 1) = widen<W>(du[i]);
  }
  return lu;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Thomas
// ---------------------------------------------------------------------------------------------
template <class T>
int thomas(int m, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  std::vector<T> cp(static_cast<std::size_t>(std::max(m, 1)));
  return thomas_core(m, 1, dl, d, du, x, cp.data());
}

template <class T>
int thomas_strided(int m, int batch, int stride, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (batch < 0 || stride < m) throw std::invalid_argument("thomas_strided: batch < 0 or stride < m");
  std::vector<T> cp(static_cast<std::size_t>(std::max(m, 1)));
  int failed = 0;
  for (int j = 0; j < batch; ++j) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(j) * stride;
    failed += thomas_core(m, 1, dl + base, d + base, du + base, x + base, cp.data()) != 0;
  }
  return failed;
}

template <class T>
int thomas_interleaved(int m, int batch, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (batch < 0) throw std::invalid_argument("thomas_interleaved: batch < 0");
  std::vector<T> cp(static_cast<std::size_t>(std::max(m, 1)));
  int failed = 0;
  // One system per GPU thread in cuThomasBatch: system j is element j of every row.
  for (int j = 0; j < batch; ++j) failed += thomas_core(m, batch, dl + j, d + j, du + j, x + j, cp.data()) != 0;
  return failed;
}

// ---------------------------------------------------------------------------------------------
// PCR
// ---------------------------------------------------------------------------------------------
int effective_pcr_steps(int m, int steps) {
  int k = 0;
  // A step at stride 2^k couples rows only when 2^k < m.
  while (k < steps && k < 30 && (1 << k) < m) ++k;
  return k;
}

template <class T>
void pcr_steps(int m, int steps, T* a, T* b, T* c, T* d) {
  check_size(m);
  if (m == 0) return;
  const int k = effective_pcr_steps(m, steps);
  std::vector<Row<T>> cur(static_cast<std::size_t>(m)), next(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) cur[i] = load_row(m, i, a, b, c, d);
  const Row<T> id = identity_row<T>();
  for (int level = 0; level < k; ++level) {
    const int s = 1 << level;
    // Every row of a level is computed from the previous level only (PCR's parallel step).
    for (int i = 0; i < m; ++i) {
      const Row<T>& lo = i - s >= 0 ? cur[i - s] : id;
      const Row<T>& hi = i + s < m ? cur[i + s] : id;
      next[i] = pcr_eliminate(lo, cur[i], hi);
    }
    cur.swap(next);
  }
  for (int i = 0; i < m; ++i) {
    a[i] = cur[i].a;
    b[i] = cur[i].b;
    c[i] = cur[i].c;
    d[i] = cur[i].d;
  }
}

template <class T>
int pcr_thomas(int m, int steps, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (m == 0) return 0;
  const int k = effective_pcr_steps(m, steps);
  std::vector<T> a(dl, dl + m), b(d, d + m), c(du, du + m), r(x, x + m);
  pcr_steps(m, k, a.data(), b.data(), c.data(), r.data());
  const int info = p_thomas(m, k, a, b, c, r);
  std::copy(r.begin(), r.end(), x);
  return info;
}

template <class T>
void tiled_pcr_steps(int m, int steps, int tile, int sub_tile, const T* a, const T* b, const T* c, const T* d,
                     T* a_out, T* b_out, T* c_out, T* d_out, TiledPcrStats* stats) {
  check_size(m);
  if (tile < 1 || sub_tile < 1) throw std::invalid_argument("tiled_pcr_steps: tile and sub_tile must be >= 1");
  TiledPcrStats local;
  TiledPcrStats& st = stats != nullptr ? *stats : local;
  st = TiledPcrStats{};
  const int k = effective_pcr_steps(m, steps);
  const Row<T> id = identity_row<T>();
  // halo(l): how far beyond the tile the level-l rows are needed, 2^k - 2^l (halo(0) = f(k) =
  // 2^k - 1, the redundant loads per tile boundary of the paper's eq. 8; halo(k) = 0).
  auto halo = [k](int l) { return (1 << k) - (1 << l); };
  auto inside = [m](std::int64_t i) { return i >= 0 && i < m; };

  for (int ts = 0; ts < m; ts += tile) {
    const int te = std::min(m, ts + tile);
    ++st.tiles;
    // window[l] holds the level-l rows [base[l], base[l] + window[l].size()); rows outside [0, m)
    // are identity rows, held so that the index math has no special cases (a GPU pads the same).
    std::vector<std::vector<Row<T>>> window(static_cast<std::size_t>(k));
    std::vector<std::int64_t> base(static_cast<std::size_t>(k));
    for (int l = 0; l < k; ++l) base[l] = static_cast<std::int64_t>(ts) - halo(l);
    auto frontier = [&](int l) { return base[l] + static_cast<std::int64_t>(window[l].size()); };

    for (int o = ts; o < te; o += sub_tile) {
      const int oe = std::min(te, o + sub_tile);
      ++st.sub_tiles;
      if (k == 0) {
        for (int i = o; i < oe; ++i) {
          const Row<T> r = load_row(m, i, a, b, c, d);
          ++st.loads;
          a_out[i] = r.a;
          b_out[i] = r.b;
          c_out[i] = r.c;
          d_out[i] = r.d;
        }
        continue;
      }
      // Level 0: load the new input rows (the paper's bottom buffer). On the first sub-tile this
      // is the lead-in that also fills the halo.
      while (frontier(0) < oe + halo(0)) {
        const std::int64_t i = frontier(0);
        if (inside(i)) {
          window[0].push_back(load_row(m, static_cast<int>(i), a, b, c, d));
          ++st.loads;
        } else {
          window[0].push_back(id);
        }
      }
      // Levels 1..k: each advances as far as the level below allows; level k rows are the outputs
      // (not cached: nothing depends on them).
      for (int l = 1; l <= k; ++l) {
        const int s = 1 << (l - 1);
        const std::vector<Row<T>>& below = window[l - 1];
        const std::int64_t below_base = base[l - 1];
        const std::int64_t begin = l < k ? frontier(l) : o;
        for (std::int64_t i = begin; i < oe + halo(l); ++i) {
          Row<T> r = id;
          if (inside(i)) {
            const std::size_t at = static_cast<std::size_t>(i - below_base);
            r = pcr_eliminate(below[at - s], below[at], below[at + s]);
            ++st.eliminations;
          }
          if (l < k) {
            window[l].push_back(r);
          } else {
            a_out[i] = r.a;
            b_out[i] = r.b;
            c_out[i] = r.c;
            d_out[i] = r.d;
          }
        }
      }
      std::int64_t held = 0;
      for (int l = 0; l < k; ++l) held += static_cast<std::int64_t>(window[l].size());
      st.peak_window_rows = std::max(st.peak_window_rows, held);
      // Slide: level l keeps only what level l + 1's next rows need, rows from
      // frontier(l + 1) - 2^l on, which is 2 * 2^l rows (2 f(k) over all levels: the paper's
      // minimum cache). Dropping the rest is the paper's shift of the buffers by one sub-tile.
      std::int64_t cached = 0;
      for (int l = 0; l < k; ++l) {
        const std::int64_t next_frontier = l + 1 < k ? frontier(l + 1) : static_cast<std::int64_t>(oe);
        const std::int64_t keep_from = next_frontier - (1 << l);
        const std::int64_t drop = keep_from - base[l];
        window[l].erase(window[l].begin(), window[l].begin() + drop);
        base[l] = keep_from;
        cached += static_cast<std::int64_t>(window[l].size());
      }
      st.cached_rows = std::max(st.cached_rows, cached);
    }
  }
}

template <class T>
int tiled_pcr_thomas(int m, int steps, int tile, int sub_tile, const T* dl, const T* d, const T* du, T* x,
                     TiledPcrStats* stats) {
  check_size(m);
  if (m == 0) return 0;
  const int k = effective_pcr_steps(m, steps);
  std::vector<T> a(static_cast<std::size_t>(m)), b(a), c(a), r(a);
  tiled_pcr_steps(m, k, tile, sub_tile, dl, d, du, x, a.data(), b.data(), c.data(), r.data(), stats);
  const int info = p_thomas(m, k, a, b, c, r);
  std::copy(r.begin(), r.end(), x);
  return info;
}

// ---------------------------------------------------------------------------------------------
// The partition solver. The per-row arithmetic is out of line (one FMA decision each, as above) and
// mirrors partition.cu's Chunk, block_kernel and ReducedSource expression by expression.
// ---------------------------------------------------------------------------------------------
namespace {

// The kernel's mul_sub: a - b*c.
template <class T>
T mul_sub(const T& a, const T& b, const T& c) {
  return a - b * c;
}

template <class T>
struct SweepRow {
  T pivot, cp, dp, gp;  // b - a c'_prev, c', d', g'
};

// One interior row of the forward sweep (Chunk::sweep's loop body).
template <class T>
IDGPU_REFERENCE_NOINLINE SweepRow<T> partition_forward(const Row<T>& r, const T& c_prev, const T& d_prev,
                                                       const T& g_prev) {
  SweepRow<T> out;
  out.pivot = mul_sub(r.b, r.a, c_prev);
  const T inverse = T(1) / out.pivot;
  out.cp = r.c * inverse;
  out.dp = mul_sub(r.d, r.a, d_prev) * inverse;
  out.gp = -((r.a * g_prev) * inverse);
  return out;
}

// One step of Chunk::first_row's backward recurrence, from row i+1's (alpha, beta, gamma) to row i's.
template <class T>
IDGPU_REFERENCE_NOINLINE void partition_first_row_step(const T& cp, const T& dp, const T& gp, T* alpha, T* beta,
                                                       T* gamma) {
  *alpha = mul_sub(dp, cp, *alpha);
  *beta = mul_sub(gp, cp, *beta);
  *gamma = -(cp * *gamma);
}

// The separator row without the next chunk's terms (Chunk::partial_row), as a Row: lower, diag,
// upper 0, rhs.
template <class T>
IDGPU_REFERENCE_NOINLINE Row<T> partition_partial_row(const Row<T>& separator, const T& cp_last, const T& dp_last,
                                                      const T& gp_last) {
  const T a = separator.a;
  return {a * gp_last, mul_sub(separator.b, a, cp_last), T(0), mul_sub(separator.d, a, dp_last)};
}

// Adds the next chunk's terms to a separator row whose upper coefficient is c: block_kernel's and
// ReducedSource::load's identical three lines.
template <class T>
IDGPU_REFERENCE_NOINLINE void partition_couple(const T& c, const T& alpha_next, const T& beta_next,
                                               const T& gamma_next, Row<T>* row) {
  row->b = mul_sub(row->b, -c, beta_next);
  row->c = c * gamma_next;
  row->d = mul_sub(row->d, c, alpha_next);
}

// One PCR step of block_kernel on a reduced row: `lo` / `hi` are the rows step chunks away in the
// previous step, nullptr where the kernel skips the side. *zero counts exactly zero divisors.
template <class T>
IDGPU_REFERENCE_NOINLINE Row<T> partition_pcr(const Row<T>* lo, const Row<T>& mid, const Row<T>* hi, int* zero) {
  T diag = mid.b;
  T rhs = mid.d;
  T new_lower = T(0);
  T new_upper = T(0);
  if (lo != nullptr) {
    if (lo->b == T(0)) ++*zero;
    const T f = mid.a / lo->b;
    diag = mul_sub(diag, f, lo->c);
    rhs = mul_sub(rhs, f, lo->d);
    new_lower = -(f * lo->a);
  }
  if (hi != nullptr) {
    if (hi->b == T(0)) ++*zero;
    const T f = mid.c / hi->b;
    diag = mul_sub(diag, f, hi->a);
    rhs = mul_sub(rhs, f, hi->d);
    new_upper = -(f * hi->c);
  }
  return {new_lower, diag, new_upper, rhs};
}

// One interior row of Chunk::finish's back substitution.
template <class T>
IDGPU_REFERENCE_NOINLINE T partition_backward(const T& cp, const T& dp, const T& gp, const T& next, const T& left) {
  const T x = mul_sub(dp, cp, next);
  return mul_sub(x, -gp, left);
}

// The caller's arrays (the kernel's ArraySource): dl[0] and du[m-1] are never read.
template <class T>
struct PartitionArrays {
  std::int64_t m;
  const T* dl;
  const T* d;
  const T* du;
  const T* x;
  Row<T> load(std::int64_t row) const {
    return {row > 0 ? dl[row] : T(0), d[row], row + 1 < m ? du[row] : T(0), x[row]};
  }
};

// A reduced level as the reduce kernel leaves it: seven values per chunk.
template <class T>
struct PartitionReduced {
  std::int64_t m;
  std::vector<T> lower, diag, rhs, upper, alpha, beta, gamma;
  explicit PartitionReduced(std::int64_t rows)
      : m(rows),
        lower(static_cast<std::size_t>(rows)),
        diag(lower),
        rhs(lower),
        upper(lower),
        alpha(lower),
        beta(lower),
        gamma(lower) {}
  // ReducedSource::load: row k of the level, with the next chunk's terms when there is one.
  Row<T> load(std::int64_t row) const {
    const std::size_t at = static_cast<std::size_t>(row);
    Row<T> r{lower[at], diag[at], T(0), rhs[at]};
    if (row + 1 < m) partition_couple(upper[at], alpha[at + 1], beta[at + 1], gamma[at + 1], &r);
    return r;
  }
};

// One chunk's sweep state (the kernel's Chunk<T, L>, L at run time).
template <class T>
struct PartitionChunk {
  std::vector<T> cp, dp, gp;  // interior rows 0 .. L-2
  Row<T> separator;

  explicit PartitionChunk(int rows_per_chunk)
      : cp(static_cast<std::size_t>(rows_per_chunk - 1)), dp(cp), gp(cp), separator(identity_row<T>()) {}

  // Loads rows first .. first+L-1 (identity beyond the level's m) and sweeps the interior.
  // Returns the number of exactly zero pivots.
  template <class Source>
  int sweep(const Source& source, std::int64_t first) {
    const int interior = static_cast<int>(cp.size());
    auto load = [&](std::int64_t row) { return row < source.m ? source.load(row) : identity_row<T>(); };
    int zero = 0;
    T c_prev = T(0), d_prev = T(0), g_prev = T(1);
    for (int k = 0; k < interior; ++k) {
      const SweepRow<T> r = partition_forward(load(first + k), c_prev, d_prev, g_prev);
      if (r.pivot == T(0)) ++zero;
      cp[k] = c_prev = r.cp;
      dp[k] = d_prev = r.dp;
      gp[k] = g_prev = r.gp;
    }
    separator = load(first + interior);
    return zero;
  }

  // The first interior row as alpha + beta E_{k-1} + gamma E_k.
  void first_row(T* alpha, T* beta, T* gamma) const {
    const int last = static_cast<int>(cp.size()) - 1;
    *alpha = dp[last];
    *beta = gp[last];
    *gamma = -cp[last];
    for (int k = last - 1; k >= 0; --k) partition_first_row_step(cp[k], dp[k], gp[k], alpha, beta, gamma);
  }

  Row<T> partial_row() const {
    const std::size_t last = cp.size() - 1;
    return partition_partial_row(separator, cp[last], dp[last], gp[last]);
  }

  // Writes the chunk's rows below m of `out`: the separator `right`, then the interior.
  void finish(T* out, std::int64_t m, std::int64_t first, const T& left, const T& right) const {
    const int interior = static_cast<int>(cp.size());
    if (first + interior < m) out[first + interior] = right;
    T next = right;
    for (int k = interior - 1; k >= 0; --k) {
      next = partition_backward(cp[k], dp[k], gp[k], next, left);
      if (first + k < m) out[first + k] = next;
    }
  }
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// One PCR step over rows with two more right-hand sides (block_kernel's kReduce): q and r take the
// same eliminations as the rhs, in the same order.
template <class T>
struct PcrColumns {
  Row<T> row;
  T q, r;
};

template <class T>
IDGPU_REFERENCE_NOINLINE PcrColumns<T> partition_pcr_columns(const PcrColumns<T>* lo, const PcrColumns<T>& mid,
                                                             const PcrColumns<T>* hi, int* zero) {
  PcrColumns<T> out{{T(0), mid.row.b, T(0), mid.row.d}, mid.q, mid.r};
  if (lo != nullptr) {
    if (lo->row.b == T(0)) ++*zero;
    const T f = mid.row.a / lo->row.b;
    out.row.b = mul_sub(out.row.b, f, lo->row.c);
    out.row.d = mul_sub(out.row.d, f, lo->row.d);
    out.q = mul_sub(out.q, f, lo->q);
    out.r = mul_sub(out.r, f, lo->r);
    out.row.a = -(f * lo->row.a);
  }
  if (hi != nullptr) {
    if (hi->row.b == T(0)) ++*zero;
    const T f = mid.row.c / hi->row.b;
    out.row.b = mul_sub(out.row.b, f, hi->row.a);
    out.row.d = mul_sub(out.row.d, f, hi->row.d);
    out.q = mul_sub(out.q, f, hi->q);
    out.r = mul_sub(out.r, f, hi->r);
    out.row.c = -(f * hi->row.c);
  }
  return out;
}

// A tile of C chunks of a reduced level (block_kernel's kReduce and kFinish). Its inner separators
// S_0..S_{C-2} form a tridiagonal system whose first row also holds the previous tile's separator
// E_{t-1} and whose last the tile's own E_t (the last chunk's separator, made an identity row).
template <class T>
struct PartitionTile {
  int L, C;
  std::vector<PartitionChunk<T>> work;
  std::vector<T> alpha, beta, gamma;
  Row<T> tile_row;  // the tile's separator row without the next tile's terms

  PartitionTile(int rows_per_chunk, int chunks)
      : L(rows_per_chunk),
        C(chunks),
        work(static_cast<std::size_t>(chunks), PartitionChunk<T>(rows_per_chunk)),
        alpha(static_cast<std::size_t>(chunks)),
        beta(alpha),
        gamma(alpha) {}

  // Sweeps every chunk and builds the separator rows (the last one an identity row); chunk 0's
  // lower coefficient, the coupling to E_{t-1}, is returned apart and zeroed.
  template <class Source>
  std::vector<Row<T>> rows(const Source& source, std::int64_t first, T* first_lower, int* zero) {
    for (int k = 0; k < C; ++k) {
      *zero += work[k].sweep(source, first + static_cast<std::int64_t>(k) * L);
      work[k].first_row(&alpha[k], &beta[k], &gamma[k]);
    }
    std::vector<Row<T>> cur(static_cast<std::size_t>(C));
    for (int k = 0; k < C; ++k) {
      cur[k] = work[k].partial_row();
      if (k + 1 < C) partition_couple(work[k].separator.c, alpha[k + 1], beta[k + 1], gamma[k + 1], &cur[k]);
    }
    tile_row = cur[C - 1];
    *first_lower = T(0);
    if (C > 1) {
      *first_lower = cur[0].a;
      cur[0].a = T(0);
    }
    cur[C - 1] = identity_row<T>();
    return cur;
  }

  // kReduce: the tile's reduced row (the seven values) at reduced[at].
  template <class Source>
  int reduce(const Source& source, std::int64_t first, PartitionReduced<T>* reduced, std::size_t at) {
    int zero = 0;
    T first_lower;
    const std::vector<Row<T>> rows_ = rows(source, first, &first_lower, &zero);
    std::vector<PcrColumns<T>> cur(static_cast<std::size_t>(C)), next(cur);
    for (int k = 0; k < C; ++k) cur[k] = {rows_[k], T(0), T(0)};
    cur[C - 1].r = T(1);
    if (C > 1) cur[0].q = -first_lower;
    for (int step = 1; step < C; step <<= 1) {
      for (int k = 0; k < C; ++k) {
        next[k] = partition_pcr_columns(k >= step ? &cur[k - step] : nullptr, cur[k],
                                        k + step < C ? &cur[k + step] : nullptr, &zero);
      }
      cur.swap(next);
    }
    // S_j = p_j + q_j E_{t-1} + r_j E_t.
    std::vector<T> p(static_cast<std::size_t>(C)), q(p), r(p);
    for (int k = 0; k < C; ++k) {
      if (cur[k].row.b == T(0)) ++zero;
      p[k] = cur[k].row.d / cur[k].row.b;
      q[k] = cur[k].q / cur[k].row.b;
      r[k] = cur[k].r / cur[k].row.b;
    }
    const T g = gamma[0];
    reduced->alpha[at] = mul_sub(alpha[0], -g, p[0]);
    reduced->beta[at] = mul_sub(beta[0], -g, q[0]);
    reduced->gamma[at] = g * r[0];
    if (C > 1) {
      reduced->lower[at] = tile_row.a * q[C - 2];
      reduced->diag[at] = mul_sub(tile_row.b, -tile_row.a, r[C - 2]);
      reduced->rhs[at] = mul_sub(tile_row.d, tile_row.a, p[C - 2]);
    } else {
      reduced->lower[at] = tile_row.a;
      reduced->diag[at] = tile_row.b;
      reduced->rhs[at] = tile_row.d;
    }
    reduced->upper[at] = work[C - 1].separator.c;
    return zero;
  }

  // kFinish: with E_{t-1} = left and E_t = right known, the inner separators and every row.
  template <class Source>
  void finish(const Source& source, T* out, std::int64_t first, const T& left, const T& right) {
    int zero = 0;
    T first_lower;
    std::vector<Row<T>> cur = rows(source, first, &first_lower, &zero);
    cur[C - 1].d = right;
    if (C > 1) cur[0].d = mul_sub(cur[0].d, first_lower, left);
    std::vector<Row<T>> next(cur.size());
    for (int step = 1; step < C; step <<= 1) {
      for (int k = 0; k < C; ++k) {
        next[k] = partition_pcr(k >= step ? &cur[k - step] : nullptr, cur[k], k + step < C ? &cur[k + step] : nullptr,
                                &zero);
      }
      cur.swap(next);
    }
    std::vector<T> separators(static_cast<std::size_t>(C));
    for (int k = 0; k < C; ++k) separators[k] = cur[k].d / cur[k].b;
    for (int k = 0; k < C; ++k) {
      work[k].finish(out, source.m, first + static_cast<std::int64_t>(k) * L, k > 0 ? separators[k - 1] : left,
                     separators[k]);
    }
  }
};

// block_shape: the level's chunk count padded to a power of two.
std::int64_t block_chunks(std::int64_t rows, int rows_per_chunk) {
  const std::int64_t chunks = std::max<std::int64_t>(1, ceil_div(rows, rows_per_chunk));
  std::int64_t padded = 1;
  while (padded < chunks) padded <<= 1;
  return padded;
}

// Solves the level `source` (source.m rows) into out[0 .. source.m), recursing through the reduced
// levels as partition.cu's solve_level does. Returns the number of exactly zero divisors.
template <class T, class Source>
int partition_level(const Source& source, T* out, int rows_per_chunk, int max_block_chunks, int tile_chunks,
                    PartitionStats& stats) {
  const std::int64_t m = source.m;
  const int L = rows_per_chunk;
  int zero = 0;
  const std::int64_t padded = block_chunks(m, L);
  if (padded <= max_block_chunks) {
    // block_kernel: every chunk sweeps and publishes its first row, then builds its reduced row.
    const int chunks = static_cast<int>(padded);
    stats.block_rows = static_cast<int>(m);
    stats.block_chunks = chunks;
    std::vector<PartitionChunk<T>> work(static_cast<std::size_t>(chunks), PartitionChunk<T>(L));
    std::vector<T> alpha(static_cast<std::size_t>(chunks)), beta(alpha), gamma(alpha);
    for (int k = 0; k < chunks; ++k) {
      zero += work[k].sweep(source, static_cast<std::int64_t>(k) * L);
      work[k].first_row(&alpha[k], &beta[k], &gamma[k]);
    }
    std::vector<Row<T>> cur(static_cast<std::size_t>(chunks)), next(cur);
    for (int k = 0; k < chunks; ++k) {
      cur[k] = work[k].partial_row();
      if (k + 1 < chunks) partition_couple(work[k].separator.c, alpha[k + 1], beta[k + 1], gamma[k + 1], &cur[k]);
    }
    // Parallel cyclic reduction over the separators, every row from the previous step's rows.
    for (int step = 1; step < chunks; step <<= 1) {
      for (int k = 0; k < chunks; ++k) {
        next[k] = partition_pcr(k >= step ? &cur[k - step] : nullptr, cur[k], k + step < chunks ? &cur[k + step] : nullptr,
                                &zero);
      }
      cur.swap(next);
    }
    std::vector<T> separators(static_cast<std::size_t>(chunks));
    for (int k = 0; k < chunks; ++k) {
      if (cur[k].b == T(0)) ++zero;
      separators[k] = cur[k].d / cur[k].b;
    }
    for (int k = 0; k < chunks; ++k) {
      work[k].finish(out, m, static_cast<std::int64_t>(k) * L, k > 0 ? separators[k - 1] : T(0), separators[k]);
    }
    return zero;
  }
  // Tiled: one reduced row per tile of tile_chunks chunks (no padding tiles: exactly
  // ceil(m / (L tile_chunks)) of them), block_kernel's kReduce; then the reduced level, then kFinish.
  const int C = tile_chunks;
  const std::int64_t tile_rows = static_cast<std::int64_t>(L) * C;
  const std::int64_t rows = ceil_div(m, tile_rows);
  ++stats.levels;
  stats.level_rows.push_back(static_cast<int>(rows));
  PartitionReduced<T> reduced(rows);
  PartitionTile<T> tile(L, C);
  for (std::int64_t k = 0; k < rows; ++k) {
    zero += tile.reduce(source, k * tile_rows, &reduced, static_cast<std::size_t>(k));
  }
  std::vector<T> separators(static_cast<std::size_t>(rows));
  zero += partition_level(reduced, separators.data(), L, max_block_chunks, tile_chunks, stats);
  for (std::int64_t k = 0; k < rows; ++k) {
    const std::size_t at = static_cast<std::size_t>(k);
    tile.finish(source, out, k * tile_rows, k > 0 ? separators[at - 1] : T(0), separators[at]);
  }
  return zero;
}

}  // namespace

template <class T>
int partition(int m, int rows_per_chunk, int max_block_chunks, const T* dl, const T* d, const T* du, T* x,
              PartitionStats* stats, int tile_chunks) {
  check_size(m);
  if (rows_per_chunk < 2) throw std::invalid_argument("partition: rows_per_chunk must be >= 2");
  if (max_block_chunks < 1) throw std::invalid_argument("partition: max_block_chunks must be >= 1");
  if (tile_chunks < 1) throw std::invalid_argument("partition: tile_chunks must be >= 1");
  PartitionStats local;
  PartitionStats& st = stats != nullptr ? *stats : local;
  st = PartitionStats{};
  if (m == 0) return 0;
  const PartitionArrays<T> source{m, dl, d, du, x};
  return partition_level(source, x, rows_per_chunk, max_block_chunks, tile_chunks, st);
}

// ---------------------------------------------------------------------------------------------
// Wang-Mou
// ---------------------------------------------------------------------------------------------
template <class T>
int wang_mou(int m, int first_stage_levels, int later_stage_levels, const T* dl, const T* d, const T* du, T* x,
             WangMouStats* stats) {
  check_size(m);
  if (first_stage_levels < 1 || later_stage_levels < 1) {
    throw std::invalid_argument("wang_mou: stages need at least one level");
  }
  WangMouStats local;
  WangMouStats& st = stats != nullptr ? *stats : local;
  st = WangMouStats{};
  if (m == 0) return 0;
  // Level 0: every row its own block, normalised by its diagonal.
  std::vector<T> a(static_cast<std::size_t>(m)), c(static_cast<std::size_t>(m)), r(static_cast<std::size_t>(m));
  int zero = 0;
  for (int i = 0; i < m; ++i) {
    if (d[i] == T(0)) ++zero;
    const T inv = T(1) / d[i];
    a[static_cast<std::size_t>(i)] = i > 0 ? dl[i] * inv : T(0);
    c[static_cast<std::size_t>(i)] = i + 1 < m ? du[i] * inv : T(0);
    r[static_cast<std::size_t>(i)] = x[i] * inv;
  }
  int levels = 0;
  while ((1LL << levels) < m) ++levels;
  st.levels = levels;
  // The stages (kernel launches) the levels would take; the arithmetic below does not depend on it.
  for (int done = 0; done < levels; ++st.stages) {
    const int take = std::min(st.stages == 0 ? first_stage_levels : later_stage_levels, levels - done);
    st.levels_per_stage.push_back(take);
    done += take;
  }
  for (int level = 1; level <= levels; ++level) {
    const int half = 1 << (level - 1);
    for (int first = 0; first + half < m; first += 2 * half) {
      const int mid = first + half - 1;  // the left block's last row
      const int last = std::min(first + 2 * half, m) - 1;
      const std::size_t l = static_cast<std::size_t>(mid), rr = static_cast<std::size_t>(mid + 1);
      const T det = T(1) - c[l] * a[rr];
      if (det == T(0)) ++zero;
      // x_{mid+1} = P + Q x_{first-1} + R x_{last+1};  x_mid = S + U x_{first-1} + V x_{last+1}.
      // One reciprocal of the determinant, then products (as the GPU kernel computes them).
      const T inv = T(1) / det;
      const T p_ = (r[rr] - a[rr] * r[l]) * inv;
      const T q_ = a[rr] * a[l] * inv;
      const T r_ = -c[rr] * inv;
      const T s_ = (r[l] - c[l] * r[rr]) * inv;
      const T u_ = -a[l] * inv;
      const T v_ = c[l] * c[rr] * inv;
      for (int i = first; i <= mid; ++i) {
        const std::size_t k = static_cast<std::size_t>(i);
        const T ci = c[k];
        r[k] = r[k] - ci * p_;
        a[k] = a[k] + ci * q_;
        c[k] = ci * r_;
      }
      for (int j = mid + 1; j <= last; ++j) {
        const std::size_t k = static_cast<std::size_t>(j);
        const T aj = a[k];
        r[k] = r[k] - aj * s_;
        a[k] = aj * u_;
        c[k] = c[k] + aj * v_;
      }
    }
  }
  for (int i = 0; i < m; ++i) x[i] = r[static_cast<std::size_t>(i)];
  return zero;
}

namespace {

// One row of a Wang-Mou block: x_i + a x_{first-1} + c x_{last+1} = r.
template <class T>
struct MergedRow {
  T a, c, r;
};

// Merges rows[0, count) from `first_level` on (blocks of 2^(first_level - 1) rows already merged)
// until one block holds them all; wang_mou()'s merge, operation for operation. Returns the number
// of zero determinants.
template <class T>
int merge_tile(std::vector<MergedRow<T>>& rows, int first_level) {
  const int count = static_cast<int>(rows.size());
  int zero = 0;
  for (int level = first_level; (1 << (level - 1)) < count; ++level) {
    const int half = 1 << (level - 1);
    for (int first = 0; first + half < count; first += 2 * half) {
      const int mid = first + half - 1;
      const int last = std::min(first + 2 * half, count) - 1;
      const MergedRow<T> left = rows[static_cast<std::size_t>(mid)];
      const MergedRow<T> right = rows[static_cast<std::size_t>(mid + 1)];
      const T det = T(1) - left.c * right.a;
      if (det == T(0)) ++zero;
      const T inv = T(1) / det;
      const T p_ = (right.r - right.a * left.r) * inv;
      const T q_ = right.a * left.a * inv;
      const T r_ = -right.c * inv;
      const T s_ = (left.r - left.c * right.r) * inv;
      const T u_ = -left.a * inv;
      const T v_ = left.c * right.c * inv;
      for (int i = first; i <= mid; ++i) {
        MergedRow<T>& row = rows[static_cast<std::size_t>(i)];
        const T ci = row.c;
        row.r = row.r - ci * p_;
        row.a = row.a + ci * q_;
        row.c = ci * r_;
      }
      for (int j = mid + 1; j <= last; ++j) {
        MergedRow<T>& row = rows[static_cast<std::size_t>(j)];
        const T aj = row.a;
        row.r = row.r - aj * s_;
        row.a = aj * u_;
        row.c = row.c + aj * v_;
      }
    }
  }
  return zero;
}

}  // namespace

template <class T>
int wang_mou_tiled(int m, int tile_rows, const T* dl, const T* d, const T* du, T* x, WangMouTiledStats* stats) {
  check_size(m);
  // A tile of 2 rows would pass both on: the lists would never shrink.
  if (tile_rows < 4 || (tile_rows & (tile_rows - 1)) != 0) {
    throw std::invalid_argument("wang_mou_tiled: tile_rows must be a power of two >= 4");
  }
  WangMouTiledStats local;
  WangMouTiledStats& st = stats != nullptr ? *stats : local;
  st = WangMouTiledStats{};
  if (m == 0) return 0;
  int zero = 0;
  // Stage 0's list: the normalised rows (dl[0] and du[m-1] never read).
  std::vector<std::vector<MergedRow<T>>> lists(1);
  lists[0].resize(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) {
    if (d[i] == T(0)) ++zero;
    const T inv = T(1) / d[i];
    lists[0][static_cast<std::size_t>(i)] = {i > 0 ? dl[i] * inv : T(0), i + 1 < m ? du[i] * inv : T(0), x[i] * inv};
  }
  // A tile of list k merged, from its inputs.
  const auto merged_tile = [&](std::size_t k, std::size_t tile, int* zeros) {
    const std::vector<MergedRow<T>>& list = lists[k];
    const std::size_t begin = tile * static_cast<std::size_t>(tile_rows);
    const std::size_t end = std::min(list.size(), begin + static_cast<std::size_t>(tile_rows));
    std::vector<MergedRow<T>> rows(list.begin() + static_cast<std::ptrdiff_t>(begin),
                                   list.begin() + static_cast<std::ptrdiff_t>(end));
    const int found = merge_tile(rows, k == 0 ? 1 : 2);
    if (zeros != nullptr) *zeros += found;
    return rows;
  };
  // Up: each list longer than a tile yields the next, its tiles' first and last rows.
  while (lists.back().size() > static_cast<std::size_t>(tile_rows)) {
    const std::size_t k = lists.size() - 1;
    const std::size_t tiles = (lists[k].size() + tile_rows - 1) / tile_rows;
    std::vector<MergedRow<T>> next;
    for (std::size_t tile = 0; tile < tiles; ++tile) {
      const std::vector<MergedRow<T>> rows = merged_tile(k, tile, &zero);
      next.push_back(rows.front());
      if (rows.size() > 1) next.push_back(rows.back());
      ++st.tiles;
    }
    lists.push_back(std::move(next));
  }
  for (const auto& list : lists) st.list_rows.push_back(static_cast<long long>(list.size()));
  // Down: the top list in one tile, then every list's tiles with their outside unknowns known.
  std::vector<T> solved;  // the solution of list k + 1
  for (std::size_t k = lists.size(); k-- > 0;) {
    const std::size_t tiles = (lists[k].size() + tile_rows - 1) / tile_rows;
    std::vector<T> out(lists[k].size());
    for (std::size_t tile = 0; tile < tiles; ++tile) {
      const std::vector<MergedRow<T>> rows = merged_tile(k, tile, k + 1 == lists.size() ? &zero : nullptr);
      const T before = tile > 0 ? solved[2 * tile - 1] : T(0);
      const T after = tile + 1 < tiles ? solved[2 * tile + 2] : T(0);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        out[tile * static_cast<std::size_t>(tile_rows) + i] = rows[i].r - rows[i].a * before - rows[i].c * after;
      }
    }
    solved = std::move(out);
  }
  for (int i = 0; i < m; ++i) x[i] = solved[static_cast<std::size_t>(i)];
  return zero;
}

// ---------------------------------------------------------------------------------------------
// Gaussian elimination with partial pivoting, xGTSV's way
// ---------------------------------------------------------------------------------------------
template <class T>
int lu_partial_pivot(int m, const T* dl_in, const T* d_in, const T* du_in, T* x) {
  check_size(m);
  if (m == 0) return 0;
  // Working copies: after step i, d[i], du[i], du2[i] are row i of U; lower[i+1] holds the
  // subdiagonal entry of row i+1 still to be eliminated (cuSPARSE's dl is LAPACK's DL shifted by
  // one: dl[i+1] = A(i+1, i)).
  std::vector<T> lower(dl_in, dl_in + m), d(d_in, d_in + m), du(du_in, du_in + m), du2(static_cast<std::size_t>(m), T(0));
  du[m - 1] = T(0);
  for (int i = 0; i + 1 < m; ++i) {
    const T sub = lower[i + 1];
    if (sub == T(0)) {
      // Nothing to eliminate (xGTSV skips the update, so 0 * inf cannot make a NaN).
      if (d[i] == T(0)) return i + 1;
    } else if (abs1(d[i]) >= abs1(sub)) {
      // No interchange: row i is the pivot row (|d_i| >= |dl_{i+1}| > 0, so d_i != 0).
      const T fact = sub / d[i];
      d[i + 1] = d[i + 1] - fact * du[i];
      x[i + 1] = x[i + 1] - fact * x[i];
      du2[i] = T(0);
    } else {
      // Interchange rows i and i+1: the old row i+1 (sub, d[i+1], du[i+1]) becomes the pivot row
      // and reaches two columns right, hence du2.
      const T fact = d[i] / sub;
      d[i] = sub;
      const T temp = d[i + 1];
      d[i + 1] = du[i] - fact * temp;
      if (i + 2 < m) {
        du2[i] = du[i + 1];
        du[i + 1] = -fact * du[i + 1];
      }
      du[i] = temp;
      const T xi = x[i];
      x[i] = x[i + 1];
      x[i + 1] = xi - fact * x[i + 1];
    }
  }
  if (d[m - 1] == T(0)) return m;
  // Back substitution with U's three diagonals.
  x[m - 1] = x[m - 1] / d[m - 1];
  if (m > 1) x[m - 2] = (x[m - 2] - du[m - 2] * x[m - 1]) / d[m - 2];
  for (int i = m - 3; i >= 0; --i) x[i] = (x[i] - du[i] * x[i + 1] - du2[i] * x[i + 2]) / d[i];
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Diagonal pivoting and SPIKE
// ---------------------------------------------------------------------------------------------
namespace {

// Forward elimination of diagonal pivoting on rows [0, m) of (a, b, c) with `columns` right-hand
// sides r (column j at r + j m), in place on b and r; pivot_size[k] = 1 or 2 for a pivot block
// starting at k (0 inside a 2 x 2 block). Returns the first zero pivot's 1-based row, or 0.
template <class T>
int diagonal_pivoting_forward(int m, const T* a, T* b, const T* c, T* r, int columns, std::vector<int>* pivot_size) {
  const double kappa = (std::sqrt(5.0) - 1.0) / 2.0;
  pivot_size->assign(static_cast<std::size_t>(m), 0);
  int k = 0;
  while (k < m) {
    if (k + 1 == m) {
      (*pivot_size)[static_cast<std::size_t>(k)] = 1;
      if (b[k] == T(0)) return k + 1;
      break;
    }
    double sigma = std::max({abs1(b[k]), abs1(c[k]), abs1(a[k + 1]), abs1(b[k + 1])});
    if (k + 2 < m) sigma = std::max({sigma, abs1(c[k + 1]), abs1(a[k + 2])});
    if (abs1(b[k]) * sigma >= kappa * abs1(a[k + 1]) * abs1(c[k])) {
      // 1 x 1 pivot: eliminate a[k+1] with row k.
      (*pivot_size)[static_cast<std::size_t>(k)] = 1;
      if (b[k] == T(0)) return k + 1;  // only when a[k+1] c[k] == 0 too: nothing to eliminate
      const T factor = a[k + 1] / b[k];
      b[k + 1] = b[k + 1] - factor * c[k];
      for (int j = 0; j < columns; ++j) r[j * m + k + 1] = r[j * m + k + 1] - factor * r[j * m + k];
      k += 1;
      continue;
    }
    // 2 x 2 pivot B = [b_k c_k; a_{k+1} b_{k+1}]: x_{k+1} = (b_k r_{k+1} - a_{k+1} r_k) / det
    // - (b_k c_{k+1} / det) x_{k+2}, substituted into row k+2.
    (*pivot_size)[static_cast<std::size_t>(k)] = 2;
    const T det = b[k] * b[k + 1] - c[k] * a[k + 1];
    if (det == T(0)) return k + 1;
    if (k + 2 < m) {
      b[k + 2] = b[k + 2] - a[k + 2] * b[k] * c[k + 1] / det;
      for (int j = 0; j < columns; ++j) {
        const T tail = (b[k] * r[j * m + k + 1] - a[k + 1] * r[j * m + k]) / det;
        r[j * m + k + 2] = r[j * m + k + 2] - a[k + 2] * tail;
      }
    }
    k += 2;
  }
  return 0;
}

// Back substitution after diagonal_pivoting_forward; r becomes the solution.
template <class T>
void diagonal_pivoting_backward(int m, const T* a, const T* b, const T* c, T* r, int columns,
                                const std::vector<int>& pivot_size) {
  // Pivot blocks from the last: find their starts first.
  std::vector<int> starts;
  for (int k = 0; k < m; k += pivot_size[static_cast<std::size_t>(k)]) starts.push_back(k);
  for (int j = 0; j < columns; ++j) {
    T* x = r + static_cast<std::ptrdiff_t>(j) * m;
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
      const int k = *it;
      if (pivot_size[static_cast<std::size_t>(k)] == 1) {
        x[k] = (x[k] - (k + 1 < m ? c[k] * x[k + 1] : T(0))) / b[k];
      } else {
        const T det = b[k] * b[k + 1] - c[k] * a[k + 1];
        const T r0 = x[k];
        const T r1 = x[k + 1] - (k + 2 < m ? c[k + 1] * x[k + 2] : T(0));
        x[k] = (b[k + 1] * r0 - c[k] * r1) / det;
        x[k + 1] = (b[k] * r1 - a[k + 1] * r0) / det;
      }
    }
  }
}

// Dense Gaussian elimination with partial pivoting of an n x n row-major system, in place.
template <class T>
int dense_partial_pivot(int n, std::vector<T>& matrix, std::vector<T>& rhs) {
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int row = col + 1; row < n; ++row) {
      if (std::abs(matrix[row * n + col]) > std::abs(matrix[pivot * n + col])) pivot = row;
    }
    if (matrix[pivot * n + col] == T(0)) return col + 1;
    if (pivot != col) {
      for (int j = 0; j < n; ++j) std::swap(matrix[col * n + j], matrix[pivot * n + j]);
      std::swap(rhs[col], rhs[pivot]);
    }
    for (int row = col + 1; row < n; ++row) {
      const T factor = matrix[row * n + col] / matrix[col * n + col];
      if (factor == T(0)) continue;
      for (int j = col; j < n; ++j) matrix[row * n + j] = matrix[row * n + j] - factor * matrix[col * n + j];
      rhs[row] = rhs[row] - factor * rhs[col];
    }
  }
  for (int row = n - 1; row >= 0; --row) {
    T sum = rhs[row];
    for (int j = row + 1; j < n; ++j) sum = sum - matrix[row * n + j] * rhs[j];
    rhs[row] = sum / matrix[row * n + row];
  }
  return 0;
}

}  // namespace

template <class T>
int diagonal_pivoting(int m, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (m == 0) return 0;
  std::vector<T> a(dl, dl + m), b(d, d + m), c(du, du + m);
  a[0] = T(0);
  c[static_cast<std::size_t>(m - 1)] = T(0);
  std::vector<int> pivot_size;
  const int zero = diagonal_pivoting_forward(m, a.data(), b.data(), c.data(), x, 1, &pivot_size);
  if (zero != 0) return zero;
  diagonal_pivoting_backward(m, a.data(), b.data(), c.data(), x, 1, pivot_size);
  return 0;
}

namespace {

template <class T>
int spike_once(int m, int partitions, const T* dl, const T* d, const T* du, T* x) {
  const int p = std::max(1, std::min(partitions, m / 2));
  // Partition i holds rows [first[i], first[i+1]): sizes m / p, the remainder spread over the first.
  std::vector<int> first(static_cast<std::size_t>(p + 1), 0);
  for (int i = 0; i < p; ++i) first[i + 1] = first[i] + m / p + (i < m % p ? 1 : 0);
  // Per partition: y (A_i y = r_i), w (A_i w = a_first e_0, the left spike) and v (A_i v =
  // c_last e_last, the right spike), three right-hand sides of one diagonal-pivoting elimination.
  std::vector<std::vector<T>> solved(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    const int s = first[i], n = first[i + 1] - first[i];
    std::vector<T> a(dl + s, dl + s + n), b(d + s, d + s + n), c(du + s, du + s + n);
    const T left = i > 0 ? dl[s] : T(0);
    const T right = i + 1 < p ? du[s + n - 1] : T(0);
    a[0] = T(0);
    c[static_cast<std::size_t>(n - 1)] = T(0);
    std::vector<T>& r = solved[static_cast<std::size_t>(i)];
    r.assign(static_cast<std::size_t>(3 * n), T(0));
    std::copy(x + s, x + s + n, r.begin());
    r[static_cast<std::size_t>(n)] = left;
    r[static_cast<std::size_t>(3 * n - 1)] = right;
    std::vector<int> pivot_size;
    const int zero = diagonal_pivoting_forward(n, a.data(), b.data(), c.data(), r.data(), 3, &pivot_size);
    if (zero != 0) return s + zero;
    diagonal_pivoting_backward(n, a.data(), b.data(), c.data(), r.data(), 3, pivot_size);
  }
  // The reduced system in the partitions' first and last unknowns, ordered (top_0, bottom_0,
  // top_1, ...): x_i = y_i - w_i bottom_{i-1} - v_i top_{i+1} at rows 0 and n_i - 1.
  const int unknowns = 2 * p;
  std::vector<T> matrix(static_cast<std::size_t>(unknowns * unknowns), T(0));
  std::vector<T> rhs(static_cast<std::size_t>(unknowns), T(0));
  for (int i = 0; i < p; ++i) {
    const int n = first[i + 1] - first[i];
    const std::vector<T>& r = solved[static_cast<std::size_t>(i)];
    for (int end = 0; end < 2; ++end) {
      const int row = end == 0 ? 0 : n - 1;
      const int eq = 2 * i + end;
      matrix[eq * unknowns + eq] = T(1);
      if (i > 0) matrix[eq * unknowns + 2 * i - 1] = r[static_cast<std::size_t>(n + row)];
      if (i + 1 < p) matrix[eq * unknowns + 2 * i + 2] = r[static_cast<std::size_t>(2 * n + row)];
      rhs[eq] = r[static_cast<std::size_t>(row)];
    }
  }
  if (const int zero = dense_partial_pivot(unknowns, matrix, rhs); zero != 0) return m + zero;
  for (int i = 0; i < p; ++i) {
    const int s = first[i], n = first[i + 1] - first[i];
    const std::vector<T>& r = solved[static_cast<std::size_t>(i)];
    const T bottom_before = i > 0 ? rhs[2 * i - 1] : T(0);
    const T top_after = i + 1 < p ? rhs[2 * i + 2] : T(0);
    for (int row = 0; row < n; ++row) {
      x[s + row] = r[static_cast<std::size_t>(row)] - r[static_cast<std::size_t>(n + row)] * bottom_before -
                   r[static_cast<std::size_t>(2 * n + row)] * top_after;
    }
  }
  return 0;
}

}  // namespace

template <class T>
int spike_diagonal_pivoting(int m, int partitions, const T* dl, const T* d, const T* du, T* x, int refinements) {
  check_size(m);
  if (partitions < 1) throw std::invalid_argument("spike: partitions must be >= 1");
  if (refinements < 0) throw std::invalid_argument("spike: refinements must be >= 0");
  if (m == 0) return 0;
  const std::vector<T> b(x, x + m);
  if (const int zero = spike_once(m, partitions, dl, d, du, x); zero != 0) return zero;
  std::vector<T> r(static_cast<std::size_t>(m));
  for (int step = 0; step < refinements; ++step) {
    // r = b - A x, solved the same way, added to x.
    for (int i = 0; i < m; ++i) {
      T ax = d[i] * x[i];
      if (i > 0) ax += dl[i] * x[i - 1];
      if (i + 1 < m) ax += du[i] * x[i + 1];
      r[static_cast<std::size_t>(i)] = b[static_cast<std::size_t>(i)] - ax;
    }
    if (const int zero = spike_once(m, partitions, dl, d, du, r.data()); zero != 0) return zero;
    for (int i = 0; i < m; ++i) x[i] += r[static_cast<std::size_t>(i)];
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Chunked diagonal pivoting (the native gtsv2 kernel's algorithm)
// ---------------------------------------------------------------------------------------------
namespace {

// One level: M rows (a[0] = c[M-1] = 0) and `columns` right-hand sides, column j at r + j M.
template <class T>
struct PivotingLevel {
  int m = 0;
  int columns = 0;
  std::vector<T> a, b, c, r;
  PivotingLevel(int rows, int cols)
      : m(rows),
        columns(cols),
        a(static_cast<std::size_t>(rows)),
        b(a),
        c(a),
        r(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {}
  T& rhs(int column, int row) { return r[static_cast<std::size_t>(column) * m + row]; }
};

// Chunk k of a level of m rows: rows [first, separator), then the separator row. Chunks are
// counted from the level's end, so that only the first one is short (as the kernel pads it in
// front with identity rows).
struct PivotingChunk {
  int first, separator;
  int interior() const { return separator - first; }
};
PivotingChunk pivoting_chunk(int m, int rows_per_chunk, int k) {
  const int chunks = static_cast<int>(ceil_div(m, rows_per_chunk));
  const int end = m - (chunks - 1 - k) * rows_per_chunk;  // one past the separator
  return {std::max(0, end - rows_per_chunk), end - 1};
}

// Diagonal pivoting of a chunk's interior block, its first a and last c taken as 0, for the
// `columns` right-hand sides in r (column j at r + j n, n = the interior's rows), in place: r
// becomes the solution. Returns 0 or the block's 1-based row of a singular pivot block.
template <class T>
int pivoting_interior_solve(const PivotingLevel<T>& level, const PivotingChunk& chunk, int columns,
                            std::vector<T>* r) {
  const int n = chunk.interior();
  auto block = [&](const std::vector<T>& v) {
    return std::vector<T>(v.begin() + chunk.first, v.begin() + chunk.first + n);
  };
  std::vector<T> a = block(level.a), b = block(level.b), c = block(level.c);
  a[0] = T(0);
  c[static_cast<std::size_t>(n - 1)] = T(0);
  std::vector<int> pivot_size;
  const int zero = diagonal_pivoting_forward(n, a.data(), b.data(), c.data(), r->data(), columns, &pivot_size);
  if (zero != 0) return zero;
  diagonal_pivoting_backward(n, a.data(), b.data(), c.data(), r->data(), columns, pivot_size);
  return 0;
}

// An interior's first (F) and last (L) rows of y (per column), w and v, after the first pass.
template <class T>
struct InteriorEnds {
  std::vector<T> y_first, y_last;
  T w_first = T(0), w_last = T(0), v_first = T(0), v_last = T(0);
};

// How well a window of n rows from `first` factors by diagonal pivoting (its first a and last c taken
// as 0): the smallest pivot block relative to the entries around it, |b_k| / max(|b_k|, |c_k|, |a_k|)
// for a 1 x 1 block and sqrt|det| / (its largest entry) for a 2 x 2 one; -1 when a block is
// exactly singular.
template <class T>
double pivoting_window_quality(const PivotingLevel<T>& level, int first, int n) {
  std::vector<T> a(level.a.begin() + first, level.a.begin() + first + n);
  std::vector<T> b(level.b.begin() + first, level.b.begin() + first + n);
  std::vector<T> c(level.c.begin() + first, level.c.begin() + first + n);
  a[0] = T(0);
  c[static_cast<std::size_t>(n - 1)] = T(0);
  std::vector<int> pivot_size;
  if (diagonal_pivoting_forward(n, a.data(), b.data(), c.data(), static_cast<T*>(nullptr), 0, &pivot_size) != 0) {
    return -1.0;
  }
  double quality = std::numeric_limits<double>::infinity();
  for (int k = 0; k < n; k += pivot_size[static_cast<std::size_t>(k)]) {
    if (pivot_size[static_cast<std::size_t>(k)] == 1) {
      const double scale = std::max({abs1(b[k]), abs1(c[k]), k > 0 ? abs1(a[k]) : 0.0});
      quality = std::min(quality, abs1(b[k]) / scale);
    } else {
      const double scale = std::max({abs1(b[k]), abs1(c[k]), abs1(a[k + 1]), abs1(b[k + 1])});
      quality = std::min(quality, std::sqrt(abs1(b[k] * b[k + 1] - c[k] * a[k + 1])) / scale);
    }
  }
  return quality;
}

// A window whose smallest pivot is at least half the entries around it is taken without comparing
// (the GPU kernel's kSureQuality, which is this squared).
constexpr double kSureWindow = 0.5;

// The level's separators in row order: every chunk's last row and, with kTwoChosen, a second one
// per chunk of at least 3 rows (see ChunkSeparators).
template <class T>
std::vector<int> pivoting_separators(const PivotingLevel<T>& level, int rows_per_chunk, ChunkSeparators choice) {
  const int K = static_cast<int>(ceil_div(level.m, rows_per_chunk));
  std::vector<int> separators;
  separators.reserve(static_cast<std::size_t>(choice == ChunkSeparators::kOne ? K : 2 * K));
  for (int k = 0; k < K; ++k) {
    const PivotingChunk chunk = pivoting_chunk(level.m, rows_per_chunk, k);
    const int n = chunk.interior();
    const bool short_first = n + 1 < rows_per_chunk;  // chunk 0, as if padded in front with identity rows
    if (choice == ChunkSeparators::kTwoChosen && (n >= 2 || (short_first && n == 1))) {
      // Window A: rows [first, separator - 1), with separator - 1 the second separator; window B:
      // rows [first + 1, separator), with first the second separator (a short chunk 0: rows
      // [first, separator) after the padding, and no second separator). B only when strictly
      // better; an empty window A (a short chunk of 2 rows) is taken, and so is a window A whose
      // every pivot is at least half the entries around it (kSureWindow), B not looked at.
      const double quality_a = n == 1 ? std::numeric_limits<double>::infinity()
                                      : pivoting_window_quality(level, chunk.first, n - 1);
      const double quality_b = quality_a >= kSureWindow ? -1.0
                               : short_first            ? pivoting_window_quality(level, chunk.first, n)
                                                        : pivoting_window_quality(level, chunk.first + 1, n - 1);
      if (quality_b <= quality_a) {
        separators.push_back(chunk.separator - 1);
      } else if (!short_first) {
        separators.push_back(chunk.first);
      }
    }
    separators.push_back(chunk.separator);
  }
  return separators;
}

// Solves the level in place (level.r becomes the solution). Returns 0 or the level's 1-based row
// where a singular pivot block starts (for a block of a reduced level, the row of the separator
// that its first row stands for).
template <class T>
int chunk_pivoting_level(PivotingLevel<T>& level, int rows_per_chunk, ChunkSeparators choice,
                         ChunkPivotingStats& stats, int serial_rows, bool is_reduced) {
  const int m = level.m, columns = level.columns, P = rows_per_chunk;
  if (is_reduced && m <= serial_rows) {
    // The GPU kernel's serial solve: LU with partial pivoting, column by column.
    stats.serial_rows = m;
    for (int j = 0; j < columns; ++j) {
      std::vector<T> y(static_cast<std::size_t>(m));
      for (int i = 0; i < m; ++i) y[static_cast<std::size_t>(i)] = level.rhs(j, i);
      if (const int zero = lu_partial_pivot(m, level.a.data(), level.b.data(), level.c.data(), y.data()); zero != 0) {
        return zero;
      }
      for (int i = 0; i < m; ++i) level.rhs(j, i) = y[static_cast<std::size_t>(i)];
    }
    return 0;
  }
  if (m <= P) {
    // One chunk: the whole level by diagonal pivoting.
    std::vector<int> pivot_size;
    const int zero = diagonal_pivoting_forward(m, level.a.data(), level.b.data(), level.c.data(), level.r.data(),
                                               columns, &pivot_size);
    if (zero != 0) return zero;
    diagonal_pivoting_backward(m, level.a.data(), level.b.data(), level.c.data(), level.r.data(), columns, pivot_size);
    return 0;
  }
  const std::vector<int> separators = pivoting_separators(level, P, choice);
  const int K = static_cast<int>(separators.size());
  ++stats.levels;
  stats.level_rows.push_back(K);
  // Block k: the interior rows [first, separators[k]) after the previous separator.
  const auto block = [&](int k) { return PivotingChunk{k == 0 ? 0 : separators[k - 1] + 1, separators[k]}; };

  // First pass: every interior block for its columns + 2 right-hand sides (y_0 .. y_{columns-1},
  // w, v); only the ends of each are kept.
  std::vector<InteriorEnds<T>> ends(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) {
    const PivotingChunk chunk = block(k);
    const int n = chunk.interior();
    if (n == 0) continue;
    std::vector<T> r(static_cast<std::size_t>(n) * (columns + 2), T(0));
    for (int j = 0; j < columns; ++j) {
      for (int i = 0; i < n; ++i) r[static_cast<std::size_t>(j) * n + i] = level.rhs(j, chunk.first + i);
    }
    // w: the first interior row's coupling to the previous separator (a[0] = 0 for block 0);
    // v: the last interior row's coupling to this block's separator.
    r[static_cast<std::size_t>(columns) * n] = level.a[static_cast<std::size_t>(chunk.first)];
    r[static_cast<std::size_t>(columns + 1) * n + n - 1] = level.c[static_cast<std::size_t>(chunk.separator - 1)];
    if (const int zero = pivoting_interior_solve(level, chunk, columns + 2, &r); zero != 0) return chunk.first + zero;
    InteriorEnds<T>& e = ends[static_cast<std::size_t>(k)];
    e.y_first.resize(static_cast<std::size_t>(columns));
    e.y_last.resize(static_cast<std::size_t>(columns));
    for (int j = 0; j < columns; ++j) {
      e.y_first[j] = r[static_cast<std::size_t>(j) * n];
      e.y_last[j] = r[static_cast<std::size_t>(j) * n + n - 1];
    }
    e.w_first = r[static_cast<std::size_t>(columns) * n];
    e.w_last = r[static_cast<std::size_t>(columns) * n + n - 1];
    e.v_first = r[static_cast<std::size_t>(columns + 1) * n];
    e.v_last = r[static_cast<std::size_t>(columns + 1) * n + n - 1];
  }

  // The reduced level: separator row s of block k with x_L = y_L - w_L x_{s_{k-1}} - v_L x_s and
  // x_F = y_F - w_F x_s - v_F x_{s_{k+1}} substituted (L, F: the interior rows next to s).
  PivotingLevel<T> reduced(K, columns);
  for (int k = 0; k < K; ++k) {
    const PivotingChunk chunk = block(k);
    const std::size_t s = static_cast<std::size_t>(chunk.separator);
    const T a_s = level.a[s], b_s = level.b[s], c_s = level.c[s];
    const bool has_left = chunk.interior() >= 1;
    const bool has_next = k + 1 < K;
    const bool has_right = has_next && block(k + 1).interior() >= 1;
    const InteriorEnds<T>& left = ends[static_cast<std::size_t>(k)];
    const InteriorEnds<T>* right = has_right ? &ends[static_cast<std::size_t>(k + 1)] : nullptr;
    // An empty block k: row s - 1 is the previous separator itself; an empty block k + 1: row s + 1
    // is the next one.
    reduced.a[static_cast<std::size_t>(k)] = k == 0 ? T(0) : has_left ? -(a_s * left.w_last) : a_s;
    T diag = b_s;
    if (has_left) diag = diag - a_s * left.v_last;
    if (has_right) diag = diag - c_s * right->w_first;
    reduced.b[static_cast<std::size_t>(k)] = diag;
    reduced.c[static_cast<std::size_t>(k)] = !has_next ? T(0) : has_right ? -(c_s * right->v_first) : c_s;
    for (int j = 0; j < columns; ++j) {
      T rhs = level.rhs(j, chunk.separator);
      if (has_left) rhs = rhs - a_s * left.y_last[j];
      if (has_right) rhs = rhs - c_s * right->y_first[j];
      reduced.rhs(j, k) = rhs;
    }
  }
  if (const int zero = chunk_pivoting_level(reduced, P, choice, stats, serial_rows, true); zero != 0) {
    // Reduced row zero - 1 is separator zero - 1.
    return separators[static_cast<std::size_t>(zero - 1)] + 1;
  }

  // Second pass: each interior block again, its end rows' right-hand sides less the couplings to
  // the now known separators; the separators take the reduced solution.
  for (int k = 0; k < K; ++k) {
    const PivotingChunk chunk = block(k);
    const int n = chunk.interior();
    if (n >= 1) {
      const T a_first = level.a[static_cast<std::size_t>(chunk.first)];
      const T c_last = level.c[static_cast<std::size_t>(chunk.separator - 1)];
      std::vector<T> r(static_cast<std::size_t>(n) * columns);
      for (int j = 0; j < columns; ++j) {
        T* y = r.data() + static_cast<std::ptrdiff_t>(j) * n;
        for (int i = 0; i < n; ++i) y[i] = level.rhs(j, chunk.first + i);
        if (k > 0) y[0] = y[0] - a_first * reduced.rhs(j, k - 1);
        y[n - 1] = y[n - 1] - c_last * reduced.rhs(j, k);
      }
      // The first pass met no singular block, and this one pivots alike.
      pivoting_interior_solve(level, chunk, columns, &r);
      for (int j = 0; j < columns; ++j) {
        for (int i = 0; i < n; ++i) level.rhs(j, chunk.first + i) = r[static_cast<std::size_t>(j) * n + i];
      }
    }
    for (int j = 0; j < columns; ++j) level.rhs(j, chunk.separator) = reduced.rhs(j, k);
  }
  return 0;
}

}  // namespace

template <class T>
int chunk_pivoting(int m, int rows_per_chunk, int columns, int ldb, const T* dl, const T* d, const T* du, T* x,
                   ChunkPivotingStats* stats, ChunkSeparators separators, int serial_rows) {
  check_size(m);
  if (rows_per_chunk < 2) throw std::invalid_argument("chunk_pivoting: rows_per_chunk must be >= 2");
  if (columns < 0) throw std::invalid_argument("chunk_pivoting: columns < 0");
  if (ldb < m) throw std::invalid_argument("chunk_pivoting: ldb < m");
  ChunkPivotingStats local;
  ChunkPivotingStats& st = stats != nullptr ? *stats : local;
  st = ChunkPivotingStats{};
  if (m == 0 || columns == 0) return 0;
  PivotingLevel<T> level(m, columns);
  for (int i = 0; i < m; ++i) {
    const std::size_t at = static_cast<std::size_t>(i);
    level.a[at] = i > 0 ? dl[i] : T(0);
    level.b[at] = d[i];
    level.c[at] = i + 1 < m ? du[i] : T(0);
  }
  for (int j = 0; j < columns; ++j) {
    for (int i = 0; i < m; ++i) level.rhs(j, i) = x[static_cast<std::ptrdiff_t>(j) * ldb + i];
  }
  if (const int zero = chunk_pivoting_level(level, rows_per_chunk, separators, st, serial_rows, false); zero != 0) {
    return zero;
  }
  for (int j = 0; j < columns; ++j) {
    for (int i = 0; i < m; ++i) x[static_cast<std::ptrdiff_t>(j) * ldb + i] = level.rhs(j, i);
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Givens QR
// ---------------------------------------------------------------------------------------------
template <class T>
int givens_qr(int m, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (m == 0) return 0;
  // R's diagonals: r0[i] = R(i,i), r1[i] = R(i,i+1), r2[i] = R(i,i+2).
  std::vector<T> r0(static_cast<std::size_t>(m)), r1(static_cast<std::size_t>(m), T(0)),
      r2(static_cast<std::size_t>(m), T(0));
  // The row being carried down: its entries in columns i and i+1 (column i+2 is still zero).
  T f = d[0];
  T g_next = m > 1 ? du[0] : T(0);
  for (int i = 0; i + 1 < m; ++i) {
    const T g = dl[i + 1];           // the entry to annihilate, A(i+1, i)
    const T below_d = d[i + 1];      // A(i+1, i+1)
    const T below_du = i + 2 < m ? du[i + 1] : T(0);  // A(i+1, i+2)
    // A rotation [c s; -conj(s) c] with c real and c f + s g = r, -conj(s) f + c g = 0.
    using R = double;
    R c;
    T s;
    T r;
    const R af = std::abs(f), ag = std::abs(g);
    if (ag == 0) {
      c = 1, s = T(0), r = f;
    } else if (af == 0) {
      c = 0, s = conj_of(g) / ag, r = T(ag);
    } else {
      const R norm = std::hypot(af, ag);
      const T phase = f / af;
      c = af / norm;
      s = phase * conj_of(g) / norm;
      r = phase * norm;
    }
    r0[i] = r;
    r1[i] = c * g_next + s * below_d;
    r2[i] = s * below_du;
    f = -conj_of(s) * g_next + c * below_d;
    g_next = c * below_du;
    const T xi = x[i], xn = x[i + 1];
    x[i] = c * xi + s * xn;
    x[i + 1] = -conj_of(s) * xi + c * xn;
  }
  r0[m - 1] = f;
  for (int i = 0; i < m; ++i) {
    if (r0[i] == T(0)) return i + 1;
  }
  x[m - 1] = x[m - 1] / r0[m - 1];
  if (m > 1) x[m - 2] = (x[m - 2] - r1[m - 2] * x[m - 1]) / r0[m - 2];
  for (int i = m - 3; i >= 0; --i) x[i] = (x[i] - r1[i] * x[i + 1] - r2[i] * x[i + 2]) / r0[i];
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------
template <class T>
int dense_solve(int m, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (m == 0) return 0;
  using W = wide_t<T>;
  BandLu<W> lu = band_from(m, dl, d, du);
  const int info = lu.factor();
  if (info != 0) return info;
  std::vector<W> w(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) w[i] = widen<W>(x[i]);
  lu.solve(w.data());
  for (int i = 0; i < m; ++i) x[i] = narrow<T>(w[i]);
  return 0;
}

template <class T>
int dense_solve_full(int m, const T* dl, const T* d, const T* du, T* x) {
  check_size(m);
  if (m == 0) return 0;
  using W = wide_t<T>;
  const std::size_t n = static_cast<std::size_t>(m);
  std::vector<W> a(n * n, W(0)), w(n);
  auto at = [&](int i, int j) -> W& { return a[static_cast<std::size_t>(i) * n + j]; };
  for (int i = 0; i < m; ++i) {
    if (i > 0) at(i, i - 1) = widen<W>(dl[i]);
    at(i, i) = widen<W>(d[i]);
    if (i < m - 1) at(i, i + 1) = widen<W>(du[i]);
    w[i] = widen<W>(x[i]);
  }
  // Textbook elimination over the whole matrix: no use of the band structure at all.
  for (int j = 0; j < m; ++j) {
    int p = j;
    for (int i = j + 1; i < m; ++i) {
      if (std::abs(at(i, j)) > std::abs(at(p, j))) p = i;
    }
    if (std::abs(at(p, j)) == 0) return j + 1;
    if (p != j) {
      for (int col = 0; col < m; ++col) std::swap(at(j, col), at(p, col));
      std::swap(w[j], w[p]);
    }
    for (int i = j + 1; i < m; ++i) {
      const W l = at(i, j) / at(j, j);
      if (l == W(0)) continue;
      for (int col = j; col < m; ++col) at(i, col) -= l * at(j, col);
      w[i] -= l * w[j];
    }
  }
  for (int i = m - 1; i >= 0; --i) {
    W sum = w[i];
    for (int col = i + 1; col < m; ++col) sum -= at(i, col) * w[col];
    w[i] = sum / at(i, i);
  }
  for (int i = 0; i < m; ++i) x[i] = narrow<T>(w[i]);
  return 0;
}

template <class T>
double condition_number_inf(int m, const T* dl, const T* d, const T* du) {
  check_size(m);
  if (m == 0) return 0;
  using W = wide_t<T>;
  BandLu<W> lu = band_from(m, dl, d, du);
  if (lu.factor() != 0) return std::numeric_limits<double>::infinity();
  // ||A^-1||_inf is the largest row sum of |A^-1|: accumulate it column by column.
  std::vector<long double> row_sum(static_cast<std::size_t>(m), 0.0L);
  std::vector<W> e(static_cast<std::size_t>(m));
  for (int j = 0; j < m; ++j) {
    std::fill(e.begin(), e.end(), W(0));
    e[j] = W(1);
    lu.solve(e.data());
    for (int i = 0; i < m; ++i) row_sum[i] += std::abs(e[i]);
  }
  const long double inv_norm = *std::max_element(row_sum.begin(), row_sum.end());
  return static_cast<double>(static_cast<long double>(norm_inf(m, dl, d, du)) * inv_norm);
}

// ---------------------------------------------------------------------------------------------
// Variable-size batches
// ---------------------------------------------------------------------------------------------
template <class T>
int thomas_var_batch(int batch, const int* sizes, const T* dl, const T* d, const T* du, T* x, PaddingMode mode) {
  if (batch < 0) throw std::invalid_argument("thomas_var_batch: batch < 0");
  int rows = 0;
  for (int j = 0; j < batch; ++j) {
    if (sizes[j] < 0) throw std::invalid_argument("thomas_var_batch: negative size");
    rows = std::max(rows, sizes[j]);
  }
  std::vector<T> cp(static_cast<std::size_t>(std::max(rows, 1)));
  int failed = 0;
  for (int j = 0; j < batch; ++j) {
    const int n = sizes[j];
    if (mode == PaddingMode::kSkip) {
      // cuThomasVBatch's NCP: the thread of system j stops at its own size.
      failed += thomas_core(n, batch, dl + j, d + j, du + j, x + j, cp.data()) != 0;
      continue;
    }
    // cuThomasVBatch's CP: uniform loops to `rows`. A padding row is an identity row chosen by a
    // select, so whatever the padding holds is never an operand; the coupling of the last row into
    // the padding (du[n-1]) and of the first padding row back (its dl) is 0 by construction. The
    // real rows go through the same thomas_forward as thomas_core; the last real row's c' is
    // 0 / denom = 0 and the padding below it solves to 0, so its back substitution x' - 0 * 0 is
    // exactly thomas_core's x_{n-1} = x'_{n-1}: the two modes agree bit for bit.
    int info = 0;
    T cp_prev = T(0), xp_prev = T(0);
    for (int i = 0; i < rows; ++i) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(i) * batch + j;
      const bool real = i < n;
      const T a = real && i > 0 ? dl[at] : T(0);
      const T b = real ? d[at] : T(1);
      const T c = real && i < n - 1 ? du[at] : T(0);
      const T r = real ? x[at] : T(0);
      const ThomasRow<T> row = thomas_forward(a, b, c, r, cp_prev, xp_prev);
      if (real && row.denom == T(0) && info == 0) info = i + 1;
      cp[i] = cp_prev = row.cp;
      x[at] = xp_prev = row.xp;
    }
    for (int i = rows - 2; i >= 0; --i) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(i) * batch + j;
      x[at] = thomas_backward(x[at], cp[i], x[at + batch]);
    }
    failed += info != 0;
  }
  return failed;
}

// ---------------------------------------------------------------------------------------------
// Test helpers
// ---------------------------------------------------------------------------------------------
double uniform_pm1(std::mt19937_64& rng) {
  // 53 random bits -> [0, 1) -> [-1, 1).
  const double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
  return 2.0 * u - 1.0;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (is_complex<T>::value) {
    const double re = uniform_pm1(rng);  // sequenced: real part first, on every compiler
    const double im = uniform_pm1(rng);
    return {re, im};
  } else {
    return uniform_pm1(rng);
  }
}

namespace {
template <class T>
System<T> empty_system(int m) {
  System<T> s;
  s.m = m;
  s.dl.assign(static_cast<std::size_t>(m), T(0));
  s.d = s.du = s.b = s.dl;
  return s;
}
template <class T>
void poison_ignored(System<T>& s) {
  if (s.m == 0) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.dl[0] = T(nan);
  s.du[s.m - 1] = T(nan);
}
// A value of modulus `magnitude` and random sign (complex: random phase).
template <class T>
T random_direction(std::mt19937_64& rng, double magnitude) {
  if constexpr (is_complex<T>::value) {
    const double angle = 3.141592653589793 * uniform_pm1(rng);
    return std::polar(magnitude, angle);
  } else {
    return uniform_pm1(rng) < 0 ? -magnitude : magnitude;
  }
}
}  // namespace

template <class T>
System<T> random_dominant_system(int m, std::mt19937_64& rng, double margin) {
  check_size(m);
  System<T> s = empty_system<T>(m);
  for (int i = 0; i < m; ++i) {
    s.dl[i] = i > 0 ? random_value<T>(rng) : T(0);
    s.du[i] = i < m - 1 ? random_value<T>(rng) : T(0);
    const double off = std::abs(s.dl[i]) + std::abs(s.du[i]);
    s.d[i] = random_direction<T>(rng, (1.0 + margin) * off + margin);
    s.b[i] = random_value<T>(rng);
  }
  poison_ignored(s);
  return s;
}

template <class T>
System<T> random_nondominant_system(int m, std::mt19937_64& rng, double zero_fraction, double tiny_fraction,
                                    double tiny) {
  check_size(m);
  System<T> s = empty_system<T>(m);
  for (int i = 0; i < m; ++i) {
    s.dl[i] = i > 0 ? random_value<T>(rng) : T(0);
    s.du[i] = i < m - 1 ? random_value<T>(rng) : T(0);
    const double u = 0.5 * (uniform_pm1(rng) + 1.0);
    if (u < zero_fraction) {
      s.d[i] = T(0);
    } else if (u < zero_fraction + tiny_fraction) {
      s.d[i] = tiny * random_value<T>(rng);
    } else {
      s.d[i] = random_value<T>(rng);
    }
  }
  // b = A x_t for a random x_t of modulus <= 1, so that the solution is O(1). With a random b the
  // solution is typically O(1 / tiny) and a tiny pivot's damage hides in ||A|| ||x||; with an O(1)
  // solution it costs elimination without pivoting about eps / tiny in backward error (the classic
  // [[tiny, 1], [1, 1]] example).
  std::vector<T> xt(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) xt[i] = random_value<T>(rng);
  using W = wide_t<T>;
  for (int i = 0; i < m; ++i) {
    W sum = widen<W>(s.d[i]) * widen<W>(xt[i]);
    if (i > 0) sum += widen<W>(s.dl[i]) * widen<W>(xt[i - 1]);
    if (i < m - 1) sum += widen<W>(s.du[i]) * widen<W>(xt[i + 1]);
    s.b[i] = narrow<T>(sum);
  }
  poison_ignored(s);
  return s;
}

template <class T>
double norm_inf(int m, const T* dl, const T* d, const T* du) {
  long double best = 0;
  for (int i = 0; i < m; ++i) {
    long double sum = std::abs(widen<wide_t<T>>(d[i]));
    if (i > 0) sum += std::abs(widen<wide_t<T>>(dl[i]));
    if (i < m - 1) sum += std::abs(widen<wide_t<T>>(du[i]));
    best = std::max(best, sum);
  }
  return static_cast<double>(best);
}

template <class T>
double backward_error(int m, const T* dl, const T* d, const T* du, const T* x, const T* b) {
  using W = wide_t<T>;
  long double r_norm = 0, x_norm = 0, b_norm = 0;
  for (int i = 0; i < m; ++i) {
    if (!finite(x[i])) return std::numeric_limits<double>::infinity();
    W ax = widen<W>(d[i]) * widen<W>(x[i]);
    if (i > 0) ax += widen<W>(dl[i]) * widen<W>(x[i - 1]);
    if (i < m - 1) ax += widen<W>(du[i]) * widen<W>(x[i + 1]);
    r_norm = std::max(r_norm, static_cast<long double>(std::abs(ax - widen<W>(b[i]))));
    x_norm = std::max(x_norm, static_cast<long double>(std::abs(widen<W>(x[i]))));
    b_norm = std::max(b_norm, static_cast<long double>(std::abs(widen<W>(b[i]))));
  }
  const long double scale = static_cast<long double>(norm_inf(m, dl, d, du)) * x_norm + b_norm;
  if (scale == 0) return r_norm == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return static_cast<double>(r_norm / scale);
}

template <class T>
double dominant_condition_bound(int m, const T* dl, const T* d, const T* du) {
  double gap = std::numeric_limits<double>::infinity();
  for (int i = 0; i < m; ++i) {
    double g = std::abs(d[i]);
    if (i > 0) g -= std::abs(dl[i]);
    if (i < m - 1) g -= std::abs(du[i]);
    gap = std::min(gap, g);
  }
  if (m == 0) return 0;
  if (!(gap > 0)) return std::numeric_limits<double>::infinity();
  return norm_inf(m, dl, d, du) / gap;
}

template <class T>
double relative_error(int m, const T* x, const T* y) {
  double diff = 0, ref = 0;
  for (int i = 0; i < m; ++i) {
    if (!finite(x[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, static_cast<double>(std::abs(x[i] - y[i])));
    ref = std::max(ref, static_cast<double>(std::abs(y[i])));
  }
  return ref == 0 ? diff : diff / ref;
}

// ---------------------------------------------------------------------------------------------
// Explicit instantiations
// ---------------------------------------------------------------------------------------------
template <class T>
Gathered<T> gather_interleaved(int m, int batch, const T* dl, const T* d, const T* du, const T* b) {
  const std::size_t rows = static_cast<std::size_t>(m) * static_cast<std::size_t>(batch);
  Gathered<T> g{std::vector<T>(rows), std::vector<T>(rows), std::vector<T>(rows), std::vector<T>(rows)};
  for (int j = 0; j < batch; ++j) {
    for (int i = 0; i < m; ++i) {
      const std::size_t from = static_cast<std::size_t>(i) * batch + j;
      const std::size_t to = static_cast<std::size_t>(j) * m + i;
      g.dl[to] = i == 0 ? T(0) : dl[from];
      g.d[to] = d[from];
      g.du[to] = i + 1 == m ? T(0) : du[from];
      g.b[to] = b[from];
    }
  }
  return g;
}

#define IDGPU_REFERENCE_INSTANTIATE(T)                                                                           \
  template int thomas<T>(int, const T*, const T*, const T*, T*);                                                 \
  template int thomas_strided<T>(int, int, int, const T*, const T*, const T*, T*);                               \
  template int thomas_interleaved<T>(int, int, const T*, const T*, const T*, T*);                                \
  template void pcr_steps<T>(int, int, T*, T*, T*, T*);                                                          \
  template int pcr_thomas<T>(int, int, const T*, const T*, const T*, T*);                                        \
  template void tiled_pcr_steps<T>(int, int, int, int, const T*, const T*, const T*, const T*, T*, T*, T*, T*,   \
                                   TiledPcrStats*);                                                              \
  template int tiled_pcr_thomas<T>(int, int, int, int, const T*, const T*, const T*, T*, TiledPcrStats*);        \
  template int partition<T>(int, int, int, const T*, const T*, const T*, T*, PartitionStats*, int);                   \
  template int lu_partial_pivot<T>(int, const T*, const T*, const T*, T*);                                       \
  template int wang_mou<T>(int, int, int, const T*, const T*, const T*, T*, WangMouStats*);                      \
  template int wang_mou_tiled<T>(int, int, const T*, const T*, const T*, T*, WangMouTiledStats*);                \
  template int givens_qr<T>(int, const T*, const T*, const T*, T*);                                              \
  template int diagonal_pivoting<T>(int, const T*, const T*, const T*, T*);                                      \
  template int spike_diagonal_pivoting<T>(int, int, const T*, const T*, const T*, T*, int);                      \
  template int chunk_pivoting<T>(int, int, int, int, const T*, const T*, const T*, T*, ChunkPivotingStats*,        \
                                 ChunkSeparators, int);                                                          \
  template Gathered<T> gather_interleaved<T>(int, int, const T*, const T*, const T*, const T*);                  \
  template int dense_solve<T>(int, const T*, const T*, const T*, T*);                                            \
  template int dense_solve_full<T>(int, const T*, const T*, const T*, T*);                                       \
  template double condition_number_inf<T>(int, const T*, const T*, const T*);                                    \
  template int thomas_var_batch<T>(int, const int*, const T*, const T*, const T*, T*, PaddingMode);              \
  template T random_value<T>(std::mt19937_64&);                                                                  \
  template System<T> random_dominant_system<T>(int, std::mt19937_64&, double);                                   \
  template System<T> random_nondominant_system<T>(int, std::mt19937_64&, double, double, double);                \
  template double norm_inf<T>(int, const T*, const T*, const T*);                                                \
  template double backward_error<T>(int, const T*, const T*, const T*, const T*, const T*);                      \
  template double dominant_condition_bound<T>(int, const T*, const T*, const T*);                                \
  template double relative_error<T>(int, const T*, const T*);

IDGPU_REFERENCE_INSTANTIATE(double)
IDGPU_REFERENCE_INSTANTIATE(std::complex<double>)

#undef IDGPU_REFERENCE_INSTANTIATE

}  // namespace idgpu::tridiag::reference
