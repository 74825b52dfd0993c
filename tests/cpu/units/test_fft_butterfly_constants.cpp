// fft/butterfly_constants.h: every cosine and sine the kernels' radix-R DFTs take as constants is
// the double nearest its exact value (cos and sin of 2 pi m / r evaluated in long double, whose
// 64-bit significand leaves the rounding to double exact for these arguments), and the tables
// cover every (r, m) the odd DFTs ask for.
#include <catch2/catch.hpp>

#include <cmath>

#include "fft/butterfly_constants.h"

namespace {

constexpr long double kTwoPi = 6.28318530717958647692528676655900577L;

// The double nearest a value computed in long double; a zero (cos pi / 2) comes out of long double
// as about 1e-20, and is exactly zero.
double nearest(long double value) { return std::fabs(value) < 1e-18L ? 0.0 : static_cast<double>(value); }
double nearest_cos(long double turns) { return nearest(std::cos(kTwoPi * turns)); }
double nearest_sin(long double turns) { return nearest(std::sin(kTwoPi * turns)); }

}  // namespace

TEST_CASE("butterfly constants: the odd radices' cosines and sines are the nearest doubles", "[cpu][fft][butterfly]") {
  int checked = 0;
  for (const int r : {3, 5, 7, 9, 11, 13}) {
    for (int m = 1; m <= (r - 1) / 2; ++m) {
      CAPTURE(r, m);
      const long double turns = static_cast<long double>(m) / static_cast<long double>(r);
      CHECK(idgpu::fft::cos_odd(r, m) == nearest_cos(turns));
      CHECK(idgpu::fft::sin_odd(r, m) == nearest_sin(turns));
      ++checked;
    }
    CHECK(idgpu::fft::cos_odd(r, 0) == 1.0);
  }
  CHECK(checked == 1 + 2 + 3 + 4 + 5 + 6);
  // The exact ones exactly: cos 2 pi / 3 = -1/2 (radix 3, and radix 9's m = 3).
  CHECK(idgpu::fft::cos_odd(3, 1) == -0.5);
  CHECK(idgpu::fft::cos_odd(9, 3) == -0.5);
  CHECK(idgpu::fft::sin_odd(9, 3) == idgpu::fft::sin_odd(3, 1));
}

TEST_CASE("butterfly constants: the radix-16 cosines and sines are the nearest doubles", "[cpu][fft][butterfly]") {
  for (int k = 0; k < 8; ++k) {
    CAPTURE(k);
    const long double turns = static_cast<long double>(k) / 16.0L;
    CHECK(idgpu::fft::cos16(k) == nearest_cos(turns));
    CHECK(idgpu::fft::sin16(k) == nearest_sin(turns));
  }
}
