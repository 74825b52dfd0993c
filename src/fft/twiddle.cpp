#include "fft/twiddle.h"

#include <cmath>

#include "fft/stockham_index.h"

namespace idgpu::fft {
namespace {
constexpr double kHalfPi = 1.57079632679489661923132169163975144;

// e / d = (quarter + r / d) / 4 of a turn, r in [0, d): e reduced exactly first.
struct QuarterTurn {
  long long quarter = 0;
  long long r = 0;
};
QuarterTurn quarter_turn(long long e, long long d) {
  e %= d;
  if (e < 0) e += d;
  const long long quarter = (4 * e) / d;
  return {quarter, 4 * e - quarter * d};
}

// exp(sign 2 pi i e / d) from the cosine and sine (c, s) of the angle within the quarter turn.
template <class Real>
std::complex<Real> turned(Real c, Real s, long long quarter, int sign) {
  std::complex<Real> w;
  switch (quarter) {
    case 0: w = {c, s}; break;
    case 1: w = {-s, c}; break;
    case 2: w = {-c, -s}; break;
    default: w = {s, -c}; break;
  }
  return sign < 0 ? std::conj(w) : w;
}
}  // namespace

std::complex<double> twiddle(long long e, long long d, int sign) {
  const auto [quarter, r] = quarter_turn(e, d);
  const double angle = kHalfPi * static_cast<double>(r) / static_cast<double>(d);
  const double c = r == 0 ? 1.0 : std::cos(angle);
  const double s = r == 0 ? 0.0 : std::sin(angle);
  return turned(c, s, quarter, sign);
}

std::complex<long double> twiddle_long(long long e, long long d, int sign) {
  constexpr long double kHalfPiLong = 1.57079632679489661923132169163975144L;
  const auto [quarter, r] = quarter_turn(e, d);
  // The angle (pi / 2) r / d in [0, pi / 2), taken from its nearer end: beyond pi / 4 as the
  // complement (pi / 2) (d - r) / d, so that sin and cos only see angles up to pi / 4 and a value
  // near zero keeps its relative accuracy.
  const bool upper = 2 * r > d;
  const long double numerator = static_cast<long double>(upper ? d - r : r);
  const long double angle = kHalfPiLong * numerator / static_cast<long double>(d);
  const long double cos_angle = r == 0 ? 1.0L : std::cos(angle);
  const long double sin_angle = r == 0 ? 0.0L : std::sin(angle);
  return turned(upper ? sin_angle : cos_angle, upper ? cos_angle : sin_angle, quarter, sign);
}

std::complex<double> twiddle_nearest(long long e, long long d, int sign) {
  const std::complex<long double> w = twiddle_long(e, d, sign);
  return {static_cast<double>(w.real()), static_cast<double>(w.imag())};
}

TwiddleLayout twiddle_layout(const FftPass& pass, bool interpass) {
  TwiddleLayout layout;
  layout.stage = 0;
  layout.stage_count = static_cast<std::size_t>(pass.size - 1);
  layout.lo = layout.stage + layout.stage_count;
  if (interpass && pass.has_twiddle()) {
    const long long m = pass.span_before * pass.size;
    layout.lo_count = static_cast<std::size_t>(1) << pass.twiddle_lo_bits;
    layout.hi_count = static_cast<std::size_t>(((m - 1) >> pass.twiddle_lo_bits) + 1);
  }
  layout.hi = layout.lo + layout.lo_count;
  layout.real = layout.hi + layout.hi_count;
  if (pass.real_step == RealStep::kPackR2C || pass.real_step == RealStep::kUnpackC2R) {
    layout.real_count = static_cast<std::size_t>(pass.size);
  } else if (paired_real_step(pass.real_step)) {
    layout.real_count = (std::size_t{1} << pass.real_lo_bits) +
                        static_cast<std::size_t>(((pass.transform_n - 1) >> pass.real_lo_bits) + 1);
  }
  layout.total = layout.real + layout.real_count;
  return layout;
}

void write_pass_twiddles(const FftPass& pass, std::size_t stage, std::size_t lo, std::size_t lo_count, std::size_t hi,
                         std::size_t hi_count, std::vector<std::complex<double>>* table, bool nearest) {
  const auto w = nearest ? twiddle_nearest : twiddle;
  int offset = 0;
  int span = 1;
  for (int radix : pass.radices) {
    for (int t = 1; t < radix; ++t) {
      for (int j = 0; j < span; ++j) {
        (*table)[stage + static_cast<std::size_t>(stage_twiddle_index(offset, span, t, j))] =
            w(static_cast<long long>(t) * j, static_cast<long long>(span) * radix, -1);
      }
    }
    offset = next_stage_twiddle_offset(offset, span, radix);
    span *= radix;
  }
  const long long m = pass.span_before * pass.size;
  for (std::size_t x = 0; x < lo_count; ++x) (*table)[lo + x] = w(static_cast<long long>(x), m, -1);
  for (std::size_t x = 0; x < hi_count; ++x) {
    (*table)[hi + x] = w(static_cast<long long>(x) << pass.twiddle_lo_bits, m, -1);
  }
}

std::vector<std::complex<double>> pass_twiddles(const FftPass& pass, bool interpass, bool nearest) {
  const auto w = nearest ? twiddle_nearest : twiddle;
  const TwiddleLayout layout = twiddle_layout(pass, interpass);
  std::vector<std::complex<double>> table(layout.total);
  write_pass_twiddles(pass, layout.stage, layout.lo, layout.lo_count, layout.hi, layout.hi_count, &table, nearest);
  if (paired_real_step(pass.real_step)) {
    const std::size_t lo = std::size_t{1} << pass.real_lo_bits;
    for (std::size_t k = 0; k < layout.real_count; ++k) {
      const long long e = k < lo ? static_cast<long long>(k) : static_cast<long long>(k - lo) << pass.real_lo_bits;
      table[layout.real + k] = w(e, 2 * pass.transform_n, -1);
    }
    return table;
  }
  for (std::size_t k = 0; k < layout.real_count; ++k) {
    table[layout.real + k] = w(static_cast<long long>(k), 2 * pass.size, -1);
  }
  return table;
}

}  // namespace idgpu::fft
