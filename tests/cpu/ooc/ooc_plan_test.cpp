// What an out-of-core FFT plan decides on the host (src/ooc/plan.h), before the GPU executor:
//  - the problems it refuses, and the budget where the call gives none (the call's, then
//    IDGPU_OOC_DEVICE_BYTES's, then 80% of the free device memory);
//  - the schedule: two-phase forced for 3D problems (never the one-round-trip kind, which needs a
//    host FFT), batched for 1D batches, the work factor passed through;
//  - the cuFFT layout of each chunk's transform: the expected rank, lengths, stride, distance and
//    batch for every staged shape the schedules make, and, on every small shape and axis set it
//    accepts, a naive DFT laid out as cuFFT reads that layout equal to the direct DFT of the staged
//    array along the axes; every chunk of the GPU test's schedules has a layout, and a phase needs
//    few distinct ones (the executor makes one plan per slot and layout).
//
// Random inputs from a fixed seed (Catch's --rng-seed where given), printed once.
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ooc/plan.h"
#include "ooc/schedule.h"

namespace ooc = idgpu::ooc;
using Complex = std::complex<double>;
using Extents = std::array<long long, 3>;
using ooc::axis_bit;
using ooc::FftLayout;

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr long long kLongMax = std::numeric_limits<long long>::max();

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = Catch::rngSeed() != 0 ? Catch::rngSeed() : 20140402u;
    std::cout << "ooc plan tests: base seed " << s << " (rerun with --rng-seed " << s << ")\n";
    return s;
  }();
  return seed;
}

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

// The direct DFT of the row-major array `dims` along `axes` (a triple sum, no line transforms).
std::vector<Complex> direct_dft(const std::vector<Complex>& x, const Extents& dims, unsigned axes, int sign) {
  std::vector<Complex> out(x.size());
  for (long long k0 = 0; k0 < dims[0]; ++k0) {
    for (long long k1 = 0; k1 < dims[1]; ++k1) {
      for (long long k2 = 0; k2 < dims[2]; ++k2) {
        const long long k[3] = {k0, k1, k2};
        long long lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
          const bool along = (axes & axis_bit(a)) != 0;
          lo[a] = along ? 0 : k[a];
          hi[a] = along ? dims[static_cast<std::size_t>(a)] : k[a] + 1;
        }
        Complex sum = 0;
        for (long long j0 = lo[0]; j0 < hi[0]; ++j0) {
          for (long long j1 = lo[1]; j1 < hi[1]; ++j1) {
            for (long long j2 = lo[2]; j2 < hi[2]; ++j2) {
              const long long j[3] = {j0, j1, j2};
              double turns = 0;
              for (int a = 0; a < 3; ++a) {
                if ((axes & axis_bit(a)) == 0) continue;
                const long long n = dims[static_cast<std::size_t>(a)];
                turns += static_cast<double>((k[a] * j[a]) % n) / static_cast<double>(n);
              }
              sum += x[static_cast<std::size_t>((j0 * dims[1] + j1) * dims[2] + j2)] *
                     std::polar(1.0, sign * 2.0 * kPi * turns);
            }
          }
        }
        out[static_cast<std::size_t>((k0 * dims[1] + k1) * dims[2] + k2)] = sum;
      }
    }
  }
  return out;
}

// The transform cuFFT runs for `layout` in place on `x`, written from cuFFT's advanced-layout
// formula: element (i_0 .. i_rank-1) of transform b at b * distance + stride * (row-major index of
// i in n), each transform a naive rank-dimensional DFT.
std::vector<Complex> layout_dft(const std::vector<Complex>& x, const FftLayout& layout, int sign) {
  std::vector<Complex> out = x;
  const long long points = layout.points();
  for (long long b = 0; b < layout.batch; ++b) {
    for (long long k = 0; k < points; ++k) {
      Complex sum = 0;
      for (long long j = 0; j < points; ++j) {
        double turns = 0;
        long long kr = k, jr = j;
        for (int a = layout.rank - 1; a >= 0; --a) {
          const long long n = layout.n[static_cast<std::size_t>(a)];
          turns += static_cast<double>(((kr % n) * (jr % n)) % n) / static_cast<double>(n);
          kr /= n;
          jr /= n;
        }
        sum += x[static_cast<std::size_t>(b * layout.distance + j * layout.stride)] *
               std::polar(1.0, sign * 2.0 * kPi * turns);
      }
      out[static_cast<std::size_t>(b * layout.distance + k * layout.stride)] = sum;
    }
  }
  return out;
}

double relative_error(const std::vector<Complex>& y, const std::vector<Complex>& reference) {
  double error = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    error += std::norm(y[i] - reference[i]);
    norm += std::norm(reference[i]);
  }
  return std::sqrt(error / norm);
}

FftLayout layout_of(int rank, Extents n, long long stride, long long distance, long long batch) {
  FftLayout layout;
  layout.rank = rank;
  layout.n = n;
  layout.stride = stride;
  layout.distance = distance;
  layout.batch = batch;
  return layout;
}

std::string text(const std::optional<FftLayout>& layout) { return layout ? layout->to_string() : "none"; }

}  // namespace

TEST_CASE("ooc plan: problems refused, with a reason", "[ooc][cpu]") {
  CHECK(ooc::problem_refusal(ooc::three_d(64, 64, 64, 8)).empty());
  CHECK(ooc::problem_refusal(ooc::three_d(1, 1, 1, 16)).empty());
  CHECK(ooc::problem_refusal(ooc::batched_1d(3000, 1000, 16)).empty());
  for (const Extents& e : {Extents{0, 4, 4}, Extents{4, -1, 4}, Extents{4, 4, 0}, Extents{-5, -5, -5}}) {
    CAPTURE(e[0], e[1], e[2]);
    CHECK_THAT(ooc::problem_refusal(ooc::three_d(e[0], e[1], e[2], 8)), Catch::Contains("positive"));
  }
  CHECK_THAT(ooc::problem_refusal(ooc::batched_1d(0, 16, 8)), Catch::Contains("positive"));
  CHECK_THAT(ooc::problem_refusal(ooc::batched_1d(16, -1, 8)), Catch::Contains("positive"));
  CHECK_THAT(ooc::problem_refusal(ooc::three_d(4, 4, 4, 4)), Catch::Contains("element_bytes"));
  CHECK_THAT(ooc::problem_refusal(ooc::three_d(1LL << 31, 1LL << 31, 1LL << 2, 8)), Catch::Contains("overflow"));
  CHECK_THAT(ooc::problem_refusal(ooc::three_d(1LL << 30, 1LL << 30, 1LL << 2, 8)), Catch::Contains("overflow"));
  CHECK(ooc::problem_refusal(ooc::three_d(1LL << 20, 1LL << 20, 1LL << 19, 8)).empty());
  ooc::Problem not_batched = ooc::batched_1d(4, 4, 8);
  not_batched.extents[1] = 2;
  CHECK_THAT(ooc::problem_refusal(not_batched), Catch::Contains("[batch][1][n]"));
}

TEST_CASE("ooc plan: the budget is the call's, else IDGPU_OOC_DEVICE_BYTES's, else 80% of the free memory",
          "[ooc][cpu]") {
  CHECK(ooc::resolve_device_bytes(12345, 999, 1000000) == 12345);
  CHECK(ooc::resolve_device_bytes(0, 999, 1000000) == 999);
  CHECK(ooc::resolve_device_bytes(0, 0, 1000000) == 800000);
  CHECK(ooc::resolve_device_bytes(0, 0, 1000001) == 800000);  // rounded down
  CHECK(ooc::resolve_device_bytes(0, 0, 80ull << 30) == 64LL << 30);
  CHECK(ooc::resolve_device_bytes(0, 0, 0) == 0);  // no free memory: make_schedule refuses it
  CHECK(ooc::resolve_device_bytes(std::numeric_limits<std::size_t>::max(), 0, 0) == kLongMax);
  CHECK(ooc::resolve_device_bytes(1, 0, std::numeric_limits<std::size_t>::max()) == 1);
  CHECK(ooc::resolve_device_bytes(0, 0, std::numeric_limits<std::size_t>::max()) > (1LL << 62));
}

TEST_CASE("ooc plan: two-phase forced for 3D, batched for 1D, the work factor passed", "[ooc][cpu]") {
  // 64 x 64 x 64 fp32 (2 MiB) in a budget of 32 planes per slot: an x-slab (64 x 64 x 16) fits,
  // so the automatic choice would take one round trip with a host phase; the plan takes two-phase.
  const ooc::Problem cube = ooc::three_d(64, 64, 64, 8);
  const long long budget = ooc::device_bytes_for_slot(32 * 64 * 64 * 8, ooc::kDefaultSlotCount, 1.0);
  ooc::Options automatic;
  automatic.device_bytes = budget;
  const ooc::ScheduleResult chosen = ooc::make_schedule(cube, automatic);
  REQUIRE(chosen.schedule);
  CHECK(chosen.schedule->kind == ooc::ScheduleKind::kOneRoundTrip);
  const ooc::ScheduleResult planned = ooc::schedule_for(cube, budget, 1.0);
  REQUIRE(planned.schedule);
  CHECK(planned.schedule->kind == ooc::ScheduleKind::kTwoPhase);
  CHECK(planned.schedule->round_trips == 2);
  CHECK(planned.schedule->sign == -1);
  for (const ooc::Phase& phase : planned.schedule->phases) CHECK(phase.kind == ooc::PhaseKind::kDevice);

  // The whole array in one slot: one round trip, one chunk of all three axes.
  const ooc::ScheduleResult whole = ooc::schedule_for(cube, 1LL << 30, 1.0);
  REQUIRE(whole.schedule);
  CHECK(whole.schedule->round_trips == 1);
  REQUIRE(whole.schedule->chunks.size() == 1);
  CHECK(whole.schedule->chunks[0].axes == (axis_bit(0) | axis_bit(1) | axis_bit(2)));

  const ooc::ScheduleResult batched = ooc::schedule_for(ooc::batched_1d(3000, 1000, 16), 1LL << 20, 1.0);
  REQUIRE(batched.schedule);
  CHECK(batched.schedule->kind == ooc::ScheduleKind::kBatched);

  // A larger work factor: smaller slots in the same budget, work areas that large.
  const ooc::ScheduleResult roomy = ooc::schedule_for(cube, budget, 3.0);
  REQUIRE(roomy.schedule);
  CHECK(roomy.schedule->slot_bytes < planned.schedule->slot_bytes);
  CHECK(roomy.schedule->work_bytes == 3 * roomy.schedule->slot_bytes);
  CHECK(roomy.schedule->device_bytes <= budget);

  // Below the least two-phase budget: refused, with the least budget.
  const ooc::ScheduleResult small = ooc::schedule_for(cube, 1000, 1.0);
  CHECK_FALSE(small.schedule);
  CHECK(small.minimum_device_bytes == ooc::device_bytes_for_slot(64 * 64 * 8, ooc::kDefaultSlotCount, 1.0));
  CHECK_THAT(small.reason, Catch::Contains("least budget"));
}

TEST_CASE("ooc plan: the cuFFT layout of each staged shape", "[ooc][cpu]") {
  const unsigned a0 = axis_bit(0), a1 = axis_bit(1), a2 = axis_bit(2);
  struct Row {
    Extents staged;
    unsigned axes;
    std::optional<FftLayout> expected;
  };
  const Row rows[] = {
      // Plane slabs [k][n1][n2], axes 1 and 2: rank 2, batch k.
      {{8, 64, 32}, a1 | a2, layout_of(2, {64, 32, 1}, 1, 64 * 32, 8)},
      {{1, 64, 32}, a1 | a2, layout_of(2, {64, 32, 1}, 1, 64 * 32, 1)},
      // n1 = 1 or n2 = 1: rank 1.
      {{8, 1, 256}, a2, layout_of(1, {256, 1, 1}, 1, 256, 8)},
      {{8, 256, 1}, a1, layout_of(1, {256, 1, 1}, 1, 256, 8)},
      // Pencils [n0][1][W], axis 0: rank 1 of n0, stride W, distance 1, batch W.
      {{100, 1, 48}, a0, layout_of(1, {100, 1, 1}, 48, 1, 48)},
      {{100, 1, 1}, a0, layout_of(1, {100, 1, 1}, 1, 100, 1)},  // one column: contiguous
      // Batched [k][1][n]: rank 1, batch k.
      {{3000, 1, 1000}, a2, layout_of(1, {1000, 1, 1}, 1, 1000, 3000)},
      // The whole array: rank 3, or fewer where axes have length 1.
      {{100, 60, 40}, a0 | a1 | a2, layout_of(3, {100, 60, 40}, 1, 240000, 1)},
      {{100, 1, 40}, a0 | a2, layout_of(2, {100, 40, 1}, 1, 4000, 1)},
      {{1, 256, 256}, a1 | a2, layout_of(2, {256, 256, 1}, 1, 65536, 1)},
      // X-slabs [n0][n1][XW], axes 0 and 1: rank 2, stride XW.
      {{16, 8, 32}, a0 | a1, layout_of(2, {16, 8, 1}, 32, 1, 32)},
      // Not one plan: axes 0 and 2 around an untransformed axis 1; a batch both outside and inside;
      // nothing transformed; a bad extent.
      {{4, 5, 6}, a0 | a2, std::nullopt},
      {{4, 5, 6}, a1, std::nullopt},
      {{4, 5, 6}, 0u, std::nullopt},
      {{4, 1, 1}, a1 | a2, std::nullopt},
      {{0, 5, 6}, a1 | a2, std::nullopt},
  };
  for (const Row& row : rows) {
    CAPTURE(row.staged[0], row.staged[1], row.staged[2], row.axes);
    const std::optional<FftLayout> layout = ooc::fft_layout(row.staged, row.axes);
    INFO("got " << text(layout) << ", expected " << text(row.expected));
    CHECK(layout.has_value() == row.expected.has_value());
    if (layout && row.expected) CHECK(*layout == *row.expected);
    if (layout) CHECK(layout->elements() == row.staged[0] * row.staged[1] * row.staged[2]);
  }
}

TEST_CASE("ooc plan: each accepted layout transforms the staged array along its axes", "[ooc][cpu]") {
  const long long lengths[] = {1, 2, 3, 5};
  std::uint64_t salt = 0;
  int accepted = 0;
  for (long long n0 : lengths) {
    for (long long n1 : lengths) {
      for (long long n2 : {1LL, 4LL, 6LL}) {
        const Extents staged{n0, n1, n2};
        for (unsigned axes = 1; axes < 8; ++axes) {
          const std::optional<FftLayout> layout = ooc::fft_layout(staged, axes);
          if (!layout) continue;
          ++accepted;
          CAPTURE(n0, n1, n2, axes, layout->to_string());
          const std::vector<Complex> x = random_input(static_cast<std::size_t>(n0 * n1 * n2), ++salt);
          for (int sign : {-1, 1}) {
            CAPTURE(sign);
            CHECK(relative_error(layout_dft(x, *layout, sign), direct_dft(x, staged, axes, sign)) < 1e-12);
          }
        }
      }
    }
  }
  CHECK(accepted > 100);
}

TEST_CASE("ooc plan: every chunk of the GPU test's schedules is one plan, few per phase", "[ooc][cpu]") {
  struct Case {
    ooc::Problem problem;
    long long chunks_wanted;  // 0: the least budget
  };
  std::vector<Case> cases;
  for (int element_bytes : {8, 16}) {
    for (const Extents& e : {Extents{64, 64, 64}, Extents{128, 64, 32}, Extents{100, 60, 40}, Extents{1, 256, 256},
                             Extents{256, 256, 256}}) {
      for (long long chunks : {0LL, 4LL, 7LL, 16LL}) {
        cases.push_back({ooc::three_d(e[0], e[1], e[2], element_bytes), chunks});
      }
    }
    for (const auto& [n, batch] : {std::pair<long long, long long>{4096, 8192}, {1000, 3000}}) {
      for (long long chunks : {0LL, 4LL, 7LL, 16LL}) {
        cases.push_back({ooc::batched_1d(batch, n, element_bytes), chunks});
      }
    }
  }
  for (const Case& c : cases) {
    const Extents& e = c.problem.extents;
    CAPTURE(e[0], e[1], e[2], c.problem.batched, c.problem.element_bytes, c.chunks_wanted);
    // A slot of ceil(n0 / chunks) planes (batched: transforms), as the GPU test asks.
    const long long units = e[0];
    const long long per_chunk = c.chunks_wanted == 0 ? 1 : (units + c.chunks_wanted - 1) / c.chunks_wanted;
    long long budget = ooc::device_bytes_for_slot(per_chunk * e[1] * e[2] * c.problem.element_bytes,
                                                  ooc::kDefaultSlotCount, 1.0);
    if (c.chunks_wanted == 0) budget = ooc::schedule_for(c.problem, 1, 1.0).minimum_device_bytes;
    const ooc::ScheduleResult result = ooc::schedule_for(c.problem, budget, 1.0);
    REQUIRE(result.schedule);
    const ooc::Schedule& schedule = *result.schedule;
    INFO(schedule.to_string());
    for (const ooc::Phase& phase : schedule.phases) {
      std::vector<FftLayout> distinct;
      for (int j = phase.first_chunk; j < phase.first_chunk + phase.chunk_count; ++j) {
        const ooc::Chunk& chunk = schedule.chunks[static_cast<std::size_t>(j)];
        const std::optional<FftLayout> layout = ooc::fft_layout(chunk.staged, chunk.axes);
        CAPTURE(j);
        REQUIRE(layout);
        CHECK(layout->elements() == chunk.run.elements());
        bool seen = false;
        for (const FftLayout& other : distinct) seen = seen || other == *layout;
        if (!seen) distinct.push_back(*layout);
      }
      // Chunks differ by one unit at most, the last one also by the remainder: three layouts.
      CHECK(distinct.size() <= 3);
      // The GPU test's budgets give 4 to 16 chunks a phase (a plane is never split: one chunk for
      // 1 x 256 x 256), a batch more where its bytes ask for more pipeline chunks
      // (schedule.h, "Pipelining": 8192 x 4096 fp64, 512 MiB, 32 chunks of 16 MiB).
      if (c.chunks_wanted >= 4 && !(e[0] == 1 && !c.problem.batched)) {
        const long long bytes = e[0] * e[1] * e[2] * c.problem.element_bytes;
        const long long pipeline = c.problem.batched ? (bytes + ooc::kPipelineChunkBytes - 1) / ooc::kPipelineChunkBytes : 0;
        CHECK(phase.chunk_count >= 4);
        CHECK(phase.chunk_count <= std::max(16LL, pipeline));
      }
    }
  }
}
