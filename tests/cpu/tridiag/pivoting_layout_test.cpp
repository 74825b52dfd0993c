// The pivoting gtsv2 solver's reduced levels as laid out in pBuffer (pivoting_levels, a host
// function of src/tridiag/kernels/pivoting.cu that carves a host buffer exactly as the solve does).
// No kernel is launched, no GPU needed.
//
// What the kernels need of the layout:
//  - the level sizes of the plan: 2 ceil(R / 8) rows after a level of R, down to at most 8;
//  - every array a kernel reads or writes (the three matrix arrays and diag_next, each column of
//    rhs, x and rhs_next, the chunk factors, the choice bytes) inside the buffer, no two
//    overlapping;
//  - where the buffer is 16-byte aligned, every chunk of the next level that load_matrix moves as
//    vectors (first row > 0 and before the last chunk) starting on a 16-byte boundary in lower,
//    diag and upper, and its odd rows' diag_next terms too; every chunk that load_rows / store_x
//    move (first row >= 0) likewise in each column of rhs, x and rhs_next; a chunk's first row
//    even, so that its odd rows are 1, 3, 5, 7;
//  - where it is not (the dispatch asks pBuffer to be aligned only to the element), no vectors;
//  - the serial solve's factor (the first reduced level of at most 128 rows) inside the buffer, not
//    overlapping the levels' arrays;
//  - for one column, room from the buffer's start for the partition solver's levels (the solve of a
//    diagonally dominant matrix without pivoting), and the two int flags past it and past every
//    array, inside the buffer.
// The chunk rows are restated here (chunk_first's formula), not taken from the kernels: that the
// kernels index the levels as laid out is the GPU tests' part (tests/gpu, [pivot]).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "tridiag/kernels/kernels.h"

namespace kernels = idgpu::tridiag::kernels;

namespace {

constexpr long long kRows = 8;          // the kernel's P
constexpr long long kFactorTerms = 11;  // stored terms of a chunk's factor

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

std::vector<int> layout_sizes() {
  std::vector<int> out = {9, 15, 16, 17, 31, 33, 64, 100, 999, 1000, 1023, 1024, 1025, 4095, 4096, 4097,
                          65535, 65537, 262144, 300001};
  std::mt19937 rng(20261129);
  std::uniform_int_distribution<int> pick(9, 200000);
  for (int i = 0; i < 40; ++i) out.push_back(pick(rng));
  return out;
}

}  // namespace

TEST_CASE("pivoting gtsv2: the reduced levels' layout in pBuffer", "[cpu][tridiag][pivoting_layout]") {
  for (const int element : {4, 8, 16}) {
    for (const int n : {1, 3}) {
      for (const int m : layout_sizes()) {
        CAPTURE(element, n, m);
        const auto levels = kernels::pivoting_levels(m, n, element, 0);
        REQUIRE(!levels.empty());
        CHECK(levels.front().total == kernels::pivoting_buffer_bytes(m, n, element));
        long long previous = m;
        std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end) in bytes
        const auto span = [&](std::size_t begin, long long elements, long long size) {
          spans.emplace_back(begin, begin + static_cast<std::size_t>(elements * size));
        };
        for (std::size_t level = 0; level < levels.size(); ++level) {
          const auto& l = levels[level];
          CAPTURE(level, l.rows);
          const long long R = l.rows;
          REQUIRE(R == 2 * ceil_div(previous, kRows));
          previous = R;
          CHECK(l.vectors);
          const long long chunks = ceil_div(R, kRows);
          CHECK(l.pad == chunks * kRows - R);
          CHECK(l.pad % 2 == 0);
          CHECK(l.ld >= R);
          CHECK(l.ld_next >= R / 2);
          for (const std::size_t array : {l.lower, l.diag, l.upper}) span(array, R, element);
          span(l.diag_next, R / 2, element);
          for (int j = 0; j < n; ++j) {
            span(l.rhs + static_cast<std::size_t>(j * l.ld * element), R, element);
            span(l.x + static_cast<std::size_t>(j * l.ld * element), R, element);
            span(l.rhs_next + static_cast<std::size_t>(j * l.ld_next * element), R / 2, element);
          }
          span(l.factor, kFactorTerms * (R / 2), element);
          span(l.choice, R / 2, 1);
          // The next level's chunks over this one's arrays (the top solve's, where R <= 8: one).
          for (long long k = 0; k < chunks; ++k) {
            const long long first = k * kRows - l.pad;  // chunk_first
            CAPTURE(k, first);
            REQUIRE(first + kRows <= R);
            CHECK(first % 2 == 0);
            const auto aligned = [&](std::size_t array, long long index) {
              return (array + static_cast<std::size_t>(index * element)) % 16 == 0;
            };
            if (first > 0 && first + kRows < R) {
              CHECK(aligned(l.lower, first));
              CHECK(aligned(l.diag, first));
              CHECK(aligned(l.upper, first));
              CHECK(aligned(l.diag_next, first / 2));
            }
            if (first >= 0) {
              for (int j = 0; j < n; ++j) {
                CHECK(aligned(l.rhs, j * l.ld + first));
                CHECK(aligned(l.x, j * l.ld + first));
                CHECK(aligned(l.rhs_next, j * l.ld_next + first / 2));
              }
            }
          }
        }
        CHECK(levels.back().rows <= kRows);
        const auto& first = levels.front();
        // The serial solve's factor: for the first level of at most 128 rows (the default
        // IDGPU_PIVOT_SERIAL_ROWS), four arrays of its rows and a bit a step.
        long long serial_rows = 0;
        for (const auto& l : levels) {
          if (l.rows <= 128) {
            serial_rows = l.rows;
            break;
          }
        }
        CHECK(first.serial_rows == serial_rows);
        if (serial_rows > 0) {
          for (const std::size_t array : {first.serial_mult, first.serial_inv, first.serial_u1, first.serial_u2}) {
            span(array, serial_rows, element);
          }
          span(first.serial_swaps, ceil_div(serial_rows, 32), 4);
        }
        CHECK(first.reserve == (n == 1 ? kernels::partition_columns_buffer_bytes(m, 1, element) : 0));
        CHECK(first.flags >= first.reserve);
        CHECK(first.flag_bytes >= 2 * sizeof(int));
        CHECK(first.flags + first.flag_bytes <= first.total);
        for (const auto& l : levels) CHECK((l.reserve == first.reserve && l.flags == first.flags));
        for (const auto& [begin, end] : spans) CHECK((end <= first.flags || begin >= first.flags + first.flag_bytes));
        std::sort(spans.begin(), spans.end());
        for (std::size_t i = 0; i < spans.size(); ++i) {
          CAPTURE(i, spans[i].first, spans[i].second);
          CHECK(spans[i].second <= levels.front().total);
          if (i > 0) CHECK(spans[i - 1].second <= spans[i].first);
        }
      }
    }
  }
}

TEST_CASE("pivoting gtsv2: a pBuffer aligned only to its element keeps scalar moves",
          "[cpu][tridiag][pivoting_layout]") {
  // Every offset a buffer aligned to its element can have but 16-byte alignment (a 16-byte element
  // is always 16-byte aligned, and the first test case covers it).
  for (const auto& [element, misalign] : {std::pair{4, std::size_t{4}}, {4, std::size_t{8}}, {4, std::size_t{12}},
                                          {8, std::size_t{8}}}) {
    CAPTURE(element, misalign);
    for (const int m : {1000, 4096, 65537}) {
      CAPTURE(m);
      const auto levels = kernels::pivoting_levels(m, 1, element, misalign);
      REQUIRE(!levels.empty());
      for (const auto& l : levels) CHECK_FALSE(l.vectors);
    }
  }
}
