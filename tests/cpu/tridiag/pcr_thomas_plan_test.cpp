// The tiled PCR + p-Thomas solver's plan (src/tridiag/kernels/pcr_thomas.cu): the number of PCR
// steps k it takes for m rows and the pBuffer it asks for. Host functions only: no kernel is
// launched, no GPU needed.
//
// What the kernels need of the plan:
//  - 0 <= k <= ceil(log2 m) (reference::effective_pcr_steps): a step at stride >= m couples
//    nothing, and p-Thomas's 2^k threads each need a row (2^k <= m);
//  - subsystems long enough for p-Thomas to be Thomas, not PCR in disguise (m / 2^k >= 8 rows);
//  - enough subsystems on a long system to occupy a GPU (2^k elements of a row across the
//    subsystems >= 64 KB at m = 2^27);
//  - a buffer holding c' (k = 0) or one or two sets of a, b, c and the n columns of d (k >= 1),
//    each array padded to 256 bytes: at least that much, at most two sets, and growing by the same
//    amount with every column (one or two padded d arrays).
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tridiag/kernels/kernels.h"

namespace kernels = idgpu::tridiag::kernels;

namespace {

constexpr int kMaxRows = 1 << 27;
constexpr std::size_t kAlignment = 256;

int ceil_log2(long long v) {
  int log = 0;
  while ((1LL << log) < v) ++log;
  return log;
}

std::size_t padded(long long m, int element_bytes) {
  const std::size_t bytes = static_cast<std::size_t>(m) * static_cast<std::size_t>(element_bytes);
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// Every m up to 4096, powers of two and their neighbours up to 2^27, and random m from a fixed
// seed (Catch's --rng-seed does not matter here: a failure names its m).
std::vector<int> sizes() {
  std::vector<int> out;
  for (int m = 1; m <= 4096; ++m) out.push_back(m);
  for (int log = 12; log <= 27; ++log) {
    for (long long delta : {-1LL, 0LL, 1LL}) {
      const long long m = (1LL << log) + delta;
      if (m >= 1 && m <= kMaxRows) out.push_back(static_cast<int>(m));
    }
  }
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> any(1, kMaxRows);
  for (int i = 0; i < 2000; ++i) out.push_back(any(rng));
  return out;
}

}  // namespace

TEST_CASE("pcr_thomas_steps: within [0, ceil(log2 m)], subsystems of at least 8 rows", "[tridiag][pcr]") {
  for (int element_bytes : {4, 8, 16}) {
    for (int m : sizes()) {
      CAPTURE(element_bytes, m);
      const int k = kernels::pcr_thomas_steps(m, element_bytes);
      REQUIRE(k >= 0);
      REQUIRE(k <= ceil_log2(m));
      REQUIRE((1LL << k) <= m);
      if (k > 0) REQUIRE(m >> k >= 8);
    }
  }
}

TEST_CASE("pcr_thomas_steps: non-decreasing in m, Thomas alone for tiny systems", "[tridiag][pcr]") {
  for (int element_bytes : {4, 8, 16}) {
    CAPTURE(element_bytes);
    CHECK(kernels::pcr_thomas_steps(1, element_bytes) == 0);
    CHECK(kernels::pcr_thomas_steps(2, element_bytes) == 0);
    int previous = 0;
    for (long long m = 1; m <= kMaxRows; m = m < 4096 ? m + 1 : m * 5 / 4) {
      CAPTURE(m);
      const int k = kernels::pcr_thomas_steps(static_cast<int>(m), element_bytes);
      REQUIRE(k >= previous);
      previous = k;
    }
    // A long system is split finely enough to occupy a GPU, and wider elements never take more
    // steps than narrower ones (fewer subsystems carry the same bytes).
    const int k = kernels::pcr_thomas_steps(kMaxRows, element_bytes);
    CHECK((1LL << k) * element_bytes >= (1LL << 16));
    if (element_bytes > 4) CHECK(k <= kernels::pcr_thomas_steps(kMaxRows, element_bytes / 2));
  }
}

TEST_CASE("pcr_thomas_buffer_bytes: aligned, large enough, linear in the columns", "[tridiag][pcr]") {
  std::vector<int> ms = sizes();
  std::vector<int> every;  // a thinner sample: the column sweep is 20 calls per m
  for (std::size_t i = 0; i < ms.size(); i += 7) every.push_back(ms[i]);
  for (int element_bytes : {4, 8, 16}) {
    for (int m : every) {
      CAPTURE(element_bytes, m);
      const int k = kernels::pcr_thomas_steps(m, element_bytes);
      const std::size_t array = padded(m, element_bytes);
      std::size_t previous = 0;
      std::size_t step = 0;
      for (int n = 1; n <= 20; ++n) {
        CAPTURE(n);
        const std::size_t bytes = kernels::pcr_thomas_buffer_bytes(m, n, element_bytes);
        REQUIRE(bytes % kAlignment == 0);
        const std::size_t set = (3 + static_cast<std::size_t>(n)) * array;  // a, b, c, n columns of d
        if (k == 0) {
          REQUIRE(bytes >= array);  // c'
          REQUIRE(bytes <= array);
        } else {
          REQUIRE(bytes >= set);
          REQUIRE(bytes <= 2 * set);
        }
        if (n > 1) {
          const std::size_t growth = bytes - previous;
          REQUIRE(bytes >= previous);
          if (n == 2) step = growth;
          REQUIRE(growth == step);
          if (k == 0) REQUIRE(growth == 0);
          if (k > 0) REQUIRE((growth == array || growth == 2 * array));
        }
        previous = bytes;
      }
    }
  }
}

TEST_CASE("pcr_thomas_buffer_bytes: non-decreasing in m, no overflow at the largest sizes", "[tridiag][pcr]") {
  for (int element_bytes : {4, 8, 16}) {
    for (int n : {1, 2, 3, 5, 64}) {
      CAPTURE(element_bytes, n);
      std::size_t previous = 0;
      for (long long m = 1; m <= kMaxRows; m = m < 2048 ? m + 1 : m * 9 / 8) {
        CAPTURE(m);
        const std::size_t bytes = kernels::pcr_thomas_buffer_bytes(static_cast<int>(m), n, element_bytes);
        REQUIRE(bytes >= previous);
        previous = bytes;
      }
    }
    // 2^27 rows, 4096 columns of 16 bytes: more than 2^32 elements, counted in 64 bits.
    CAPTURE(element_bytes);
    const std::size_t bytes = kernels::pcr_thomas_buffer_bytes(kMaxRows, 4096, element_bytes);
    CHECK(bytes >= static_cast<std::size_t>(kMaxRows) * 4099u * static_cast<std::size_t>(element_bytes));
  }
}
