// The out-of-core FFT schedule and its host executor (src/ooc/schedule.h):
//  - the chunks: every element in exactly one chunk of each device phase, no two chunks of a phase
//    overlapping, each staged axis the chunk transforms a whole line of the problem's axis in
//    order, the phases' axes a partition of the problem's, segments no shorter than promised
//    (128 bytes where the axis allows), budgets that force c chunks giving c chunks, slots
//    round-robin within slot_count, every chunk within its slot and the device bytes within the
//    budget;
//  - the pipeline: phases never overlap, three slots never stall, two do, and the executor throws
//    where a schedule lacks a slot dependency;
//  - the host executor against a direct multi-dimensional DFT in double (a triple sum, not
//    composed of line transforms), both schedule kinds forced, both signs, batched 1D;
//  - the automatic choice, refusals with their reasons, and a budget of exactly the minimum.
//
// Random inputs come from one base seed: Catch's --rng-seed when given, else a fixed default. It
// is printed once; every case CAPTUREs what it runs.
//
// Tolerance: the executor's naive line DFTs in double have a relative L2 error of a few eps
// sqrt(n) at most for these sizes (n <= 64 per axis, 3 axes); 1e-12 leaves room and still catches
// any wrong index, line or order (which gives an error of order 1).
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ooc/schedule.h"

namespace ooc = idgpu::ooc;
using Complex = std::complex<double>;
using Extents = std::array<long long, 3>;
using ooc::ScheduleKind;

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kTolerance = 1e-12;
constexpr long long kHugeBudget = 1LL << 50;

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = Catch::rngSeed() != 0 ? Catch::rngSeed() : 20140401u;
    std::cout << "ooc schedule tests: base seed " << s << " (rerun with --rng-seed " << s << ")\n";
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

long long product(const Extents& e) { return e[0] * e[1] * e[2]; }

// The direct DFT over the problem's axes: X[k] = sum over j of x[j] prod_a w_a^(k_a j_a), where
// j_a runs over the axis for a transformed axis and is k_a otherwise (a triple sum).
std::vector<Complex> direct_dft(const std::vector<Complex>& x, const ooc::Problem& problem, int sign) {
  const Extents& n = problem.extents;
  const unsigned axes = problem.axes();
  std::array<std::vector<Complex>, 3> roots;
  for (int a = 0; a < 3; ++a) {  // ones along an axis not transformed
    const double turn = (axes & ooc::axis_bit(a)) != 0 ? sign * 2.0 * kPi / n[a] : 0.0;
    for (long long e = 0; e < n[a]; ++e) roots[a].push_back(std::polar(1.0, turn * e));
  }
  const auto range = [&](int a, long long k) {
    return (axes & ooc::axis_bit(a)) != 0 ? std::pair<long long, long long>{0, n[a]}
                                          : std::pair<long long, long long>{k, k + 1};
  };
  std::vector<Complex> out(x.size());
  for (long long k0 = 0; k0 < n[0]; ++k0) {
    for (long long k1 = 0; k1 < n[1]; ++k1) {
      for (long long k2 = 0; k2 < n[2]; ++k2) {
        Complex sum = 0;
        const auto [b0, e0] = range(0, k0);
        const auto [b1, e1] = range(1, k1);
        const auto [b2, e2] = range(2, k2);
        for (long long j0 = b0; j0 < e0; ++j0) {
          const Complex w0 = roots[0][(k0 * j0) % n[0]];
          for (long long j1 = b1; j1 < e1; ++j1) {
            const Complex w01 = w0 * roots[1][(k1 * j1) % n[1]];
            for (long long j2 = b2; j2 < e2; ++j2) {
              sum += x[(j0 * n[1] + j1) * n[2] + j2] * (w01 * roots[2][(k2 * j2) % n[2]]);
            }
          }
        }
        out[(k0 * n[1] + k1) * n[2] + k2] = sum;
      }
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

ooc::Options options_with(long long budget, std::optional<ScheduleKind> force = std::nullopt, int slots = 3,
                          int sign = -1, long long min_segment_bytes = ooc::kSegmentBytes) {
  ooc::Options options;
  options.device_bytes = budget;
  options.force = force;
  options.slot_count = slots;
  options.sign = sign;
  options.min_segment_bytes = min_segment_bytes;
  return options;
}

// What is wrong with the chunks of `schedule`, or "" (coverage, overlap, lines, axes, slots).
std::string chunk_problems(const ooc::Schedule& schedule) {
  const Extents& n = schedule.problem.extents;
  const long long elements = product(n);
  unsigned covered_axes = 0;
  for (std::size_t p = 0; p < schedule.phases.size(); ++p) {
    const ooc::Phase& phase = schedule.phases[p];
    const std::string where = "phase " + std::to_string(p);
    if ((covered_axes & phase.axes) != 0) return where + ": an axis transformed twice";
    covered_axes |= phase.axes;
    if (phase.kind == ooc::PhaseKind::kHost) continue;
    if (phase.chunk_count < 1) return where + ": a device phase without chunks";
    std::vector<int> count(static_cast<std::size_t>(elements), 0);
    for (int c = phase.first_chunk; c < phase.first_chunk + phase.chunk_count; ++c) {
      const ooc::Chunk& chunk = schedule.chunks[static_cast<std::size_t>(c)];
      const ooc::HostRun& run = chunk.run;
      const std::string name = where + ", chunk " + std::to_string(c);
      if (chunk.phase != static_cast<int>(p)) return name + ": names phase " + std::to_string(chunk.phase);
      if (chunk.axes != phase.axes) return name + ": axes differ from its phase's";
      if (chunk.staged[0] * chunk.staged[1] * chunk.staged[2] != run.elements()) return name + ": staged != run";
      // The staged element q is host element first + (q / length) stride + q % length.
      const auto host_of = [&](long long q) { return run.first + (q / run.length) * run.stride + q % run.length; };
      for (long long q = 0; q < run.elements(); ++q) {
        const long long h = host_of(q);
        if (h < 0 || h >= elements) return name + ": leaves the array";
        ++count[static_cast<std::size_t>(h)];
      }
      // Each transformed staged axis is a whole line of the problem's axis, in order.
      const std::array<long long, 3> staged_strides = {chunk.staged[1] * chunk.staged[2], chunk.staged[2], 1};
      const std::array<long long, 3> host_strides = {n[1] * n[2], n[2], 1};
      for (int a = 0; a < 3; ++a) {
        if ((chunk.axes & ooc::axis_bit(a)) == 0) continue;
        if (chunk.staged[a] != n[a]) return name + ": staged axis " + std::to_string(a) + " is not whole";
        for (long long q = 0; q < run.elements(); ++q) {
          if ((q / staged_strides[a]) % chunk.staged[a] == chunk.staged[a] - 1) continue;
          if (host_of(q + staged_strides[a]) - host_of(q) != host_strides[a]) {
            return name + ": staged axis " + std::to_string(a) + " is not problem axis " + std::to_string(a);
          }
        }
      }
    }
    for (long long h = 0; h < elements; ++h) {
      if (count[static_cast<std::size_t>(h)] == 0) return where + ": element " + std::to_string(h) + " in no chunk";
      if (count[static_cast<std::size_t>(h)] > 1) {
        return where + ": element " + std::to_string(h) + " in " + std::to_string(count[static_cast<std::size_t>(h)]) +
               " chunks (overlap)";
      }
    }
  }
  unsigned wanted = 0;
  for (int a = 0; a < 3; ++a) {
    if ((schedule.problem.axes() & ooc::axis_bit(a)) != 0 && n[a] > 1) wanted |= ooc::axis_bit(a);
  }
  if (covered_axes != wanted) return "the phases transform other axes than the problem's";
  // Slots: round-robin, previous_on_slot the chunk slot_count before, each chunk within its slot.
  for (std::size_t c = 0; c < schedule.chunks.size(); ++c) {
    const ooc::Chunk& chunk = schedule.chunks[c];
    const int index = static_cast<int>(c);
    if (chunk.slot != index % schedule.slot_count || chunk.stream != chunk.slot)
      return "chunk " + std::to_string(c) + ": slot";
    if (chunk.previous_on_slot != (index >= schedule.slot_count ? index - schedule.slot_count : -1)) {
      return "chunk " + std::to_string(c) + ": previous_on_slot";
    }
    if (chunk.run.elements() * schedule.problem.element_bytes > schedule.slot_bytes) {
      return "chunk " + std::to_string(c) + ": larger than its slot";
    }
    if (chunk.run.length * schedule.problem.element_bytes < schedule.segment_bytes_promised) {
      return "chunk " + std::to_string(c) + ": a segment shorter than promised";
    }
  }
  return "";
}

ooc::Schedule make(const ooc::Problem& problem, const ooc::Options& options) {
  const ooc::ScheduleResult result = ooc::make_schedule(problem, options);
  INFO(result.reason);
  REQUIRE(result.schedule);
  return *result.schedule;
}

// The least budget of `kind` for `problem`, from the result of a huge budget.
long long least_budget(const ooc::Problem& problem, const ooc::Options& options) {
  ooc::Options huge = options;
  huge.device_bytes = kHugeBudget;
  const ooc::ScheduleResult result = ooc::make_schedule(problem, huge);
  INFO(result.reason);
  REQUIRE(result.schedule);
  REQUIRE(result.minimum_device_bytes > 0);
  return result.minimum_device_bytes;
}

const std::vector<Extents> kShapes = {{8, 8, 8},  {16, 12, 10}, {5, 7, 9},  {1, 8, 8}, {32, 4, 4},
                                      {3, 1, 20}, {7, 1, 1},    {2, 3, 64}, {6, 5, 1}};

}  // namespace

TEST_CASE("ooc schedule: every element in one chunk per phase, whole lines, round-robin slots", "[ooc][cpu]") {
  for (const Extents& n : kShapes) {
    for (int element_bytes : {8, 16}) {
      const ooc::Problem problem = ooc::three_d(n[0], n[1], n[2], element_bytes);
      for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip}) {
        if (kind == ScheduleKind::kOneRoundTrip && n[0] * n[1] == 1) continue;
        for (long long segment : {ooc::kSegmentBytes, 16LL}) {
          for (int slots : {1, 2, 3, 5}) {
            for (int sign : {-1, 1}) {
              const ooc::Options base = options_with(0, kind, slots, sign, segment);
              const long long least = least_budget(problem, base);
              for (long long budget : {least, least + 1, 2 * least, 3 * least + 17, 7 * least, kHugeBudget}) {
                CAPTURE(n[0], n[1], n[2], element_bytes, ooc::to_string(kind), segment, slots, sign, budget);
                ooc::Options options = base;
                options.device_bytes = budget;
                const ooc::Schedule schedule = make(problem, options);
                CAPTURE(schedule.to_string());
                CHECK(schedule.kind == kind);
                CHECK(chunk_problems(schedule) == "");
                CHECK(schedule.device_bytes <= budget);
                CHECK(schedule.work_bytes ==
                      static_cast<long long>(std::ceil(options.work_factor * schedule.slot_bytes)));
                CHECK(schedule.device_bytes == slots * (schedule.slot_bytes + schedule.work_bytes));
                CHECK(schedule.stream_count == slots);
                long long device_phases = 0;
                for (const ooc::Phase& phase : schedule.phases) device_phases += phase.kind == ooc::PhaseKind::kDevice;
                CHECK(schedule.round_trips == device_phases);
                if (kind == ScheduleKind::kOneRoundTrip) CHECK(schedule.round_trips == 1);
                if (kind == ScheduleKind::kTwoPhase) CHECK(schedule.round_trips <= 2);
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ooc schedule: the contiguous axis's phase first forward, last inverse", "[ooc][cpu]") {
  const ooc::Problem problem = ooc::three_d(16, 12, 10, 16);
  for (int sign : {-1, 1}) {
    CAPTURE(sign);
    const ooc::Options one_options = options_with(0, ScheduleKind::kOneRoundTrip, 3, sign, 16);
    const ooc::Schedule one =
        make(problem, options_with(2 * least_budget(problem, one_options), ScheduleKind::kOneRoundTrip, 3, sign, 16));
    CAPTURE(one.to_string());
    REQUIRE(one.phases.size() == 2);
    const std::size_t host = sign < 0 ? 0 : 1;
    CHECK(one.phases[host].kind == ooc::PhaseKind::kHost);
    CHECK(one.phases[host].axes == ooc::axis_bit(2));
    CHECK(one.phases[1 - host].kind == ooc::PhaseKind::kDevice);
    CHECK(one.phases[1 - host].axes == (ooc::axis_bit(0) | ooc::axis_bit(1)));
    CHECK(one.phases[1 - host].chunk_count >= 2);

    const ooc::Options two_options = options_with(0, ScheduleKind::kTwoPhase, 3, sign, 16);
    const ooc::Schedule two =
        make(problem, options_with(2 * least_budget(problem, two_options), ScheduleKind::kTwoPhase, 3, sign, 16));
    CAPTURE(two.to_string());
    REQUIRE(two.phases.size() == 2);
    CHECK(two.round_trips == 2);
    const std::size_t planes = sign < 0 ? 0 : 1;
    CHECK(two.phases[planes].axes == (ooc::axis_bit(1) | ooc::axis_bit(2)));
    CHECK(two.phases[1 - planes].axes == ooc::axis_bit(0));
  }
}

TEST_CASE("ooc schedule: segments of at least 128 bytes where the axis allows", "[ooc][cpu]") {
  // Extents at least one granule wide (8 or 16 elements), multiples and not.
  const std::vector<Extents> shapes = {{8, 8, 16}, {16, 12, 20}, {5, 7, 33}, {4, 4, 129}, {9, 3, 17}};
  for (const Extents& n : shapes) {
    for (int element_bytes : {8, 16}) {
      const ooc::Problem problem = ooc::three_d(n[0], n[1], n[2], element_bytes);
      for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip}) {
        const ooc::Options base = options_with(0, kind);
        const long long least = least_budget(problem, base);
        for (long long budget : {least, 2 * least, 5 * least}) {
          CAPTURE(n[0], n[1], n[2], element_bytes, ooc::to_string(kind), budget);
          ooc::Options options = base;
          options.device_bytes = budget;
          const ooc::Schedule schedule = make(problem, options);
          CAPTURE(schedule.to_string());
          if (n[2] * element_bytes < ooc::kSegmentBytes) continue;
          CHECK(schedule.segment_bytes_promised >= ooc::kSegmentBytes);
          for (const ooc::Chunk& chunk : schedule.chunks) {
            CHECK(chunk.run.length * element_bytes >= ooc::kSegmentBytes);
          }
          // Pencil and x-slab widths are whole granules but for the last chunk of a phase.
          for (const ooc::Phase& phase : schedule.phases) {
            if ((phase.axes & ooc::axis_bit(2)) != 0) continue;
            for (int c = phase.first_chunk; c + 1 < phase.first_chunk + phase.chunk_count; ++c) {
              CHECK(schedule.chunks[static_cast<std::size_t>(c)].run.length * element_bytes % ooc::kSegmentBytes == 0);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ooc schedule: budgets that force 4 to 16 chunks give that many", "[ooc][cpu]") {
  for (int element_bytes : {8, 16}) {
    const long long granule = ooc::kSegmentBytes / element_bytes;
    for (long long c = 4; c <= 16; ++c) {
      CAPTURE(element_bytes, c);
      // One round trip: x-slabs of two granules over 3 x 2 rows, 2c granules of n2.
      {
        const ooc::Problem problem = ooc::three_d(3, 2, 2 * granule * c, element_bytes);
        const long long slot = 3 * 2 * 2 * granule * element_bytes;
        const long long budget = ooc::device_bytes_for_slot(slot, 3, 1.0);
        const ooc::Schedule schedule = make(problem, options_with(budget, ScheduleKind::kOneRoundTrip));
        CAPTURE(schedule.to_string());
        CHECK(schedule.chunks.size() == static_cast<std::size_t>(c));
        CHECK(schedule.slot_bytes == slot);
        CHECK(chunk_problems(schedule) == "");
        // One byte less: more chunks.
        const ooc::Schedule tighter = make(problem, options_with(budget - 1, ScheduleKind::kOneRoundTrip));
        CHECK(tighter.chunks.size() > static_cast<std::size_t>(c));
        // And the automatic choice takes it (one round trip, the x-slab fits).
        CHECK(make(problem, options_with(budget)).kind == ScheduleKind::kOneRoundTrip);
      }
      // Two phases: c x c x granule, one plane per slot: c plane slabs, then c pencils of one granule.
      {
        const ooc::Problem problem = ooc::three_d(c, c, granule, element_bytes);
        const long long budget = ooc::device_bytes_for_slot(c * granule * element_bytes, 3, 1.0);
        const ooc::Schedule schedule = make(problem, options_with(budget, ScheduleKind::kTwoPhase));
        CAPTURE(schedule.to_string());
        REQUIRE(schedule.phases.size() == 2);
        CHECK(schedule.phases[0].chunk_count == c);
        CHECK(schedule.phases[1].chunk_count == c);
        CHECK(chunk_problems(schedule) == "");
      }
      // Batched: 3c transforms of 64, three per slot.
      {
        const ooc::Problem problem = ooc::batched_1d(3 * c, 64, element_bytes);
        const long long budget = ooc::device_bytes_for_slot(3 * 64 * element_bytes, 3, 1.0);
        const ooc::Schedule schedule = make(problem, options_with(budget));
        CAPTURE(schedule.to_string());
        CHECK(schedule.kind == ScheduleKind::kBatched);
        CHECK(schedule.chunks.size() == static_cast<std::size_t>(c));
        CHECK(chunk_problems(schedule) == "");
      }
    }
  }
}

TEST_CASE("ooc schedule: the host executor equals a direct 3D DFT", "[ooc][cpu]") {
  const std::vector<Extents> shapes = {{8, 8, 8},  {16, 12, 10}, {5, 7, 9}, {1, 8, 8},
                                       {32, 4, 4}, {3, 1, 20},   {7, 1, 1}};
  std::uint64_t salt = 0;
  for (const Extents& n : shapes) {
    const std::vector<Complex> input = random_input(static_cast<std::size_t>(product(n)), ++salt);
    for (int sign : {-1, 1}) {
      const ooc::Problem problem = ooc::three_d(n[0], n[1], n[2], 16);
      const std::vector<Complex> expected = direct_dft(input, problem, sign);
      for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip}) {
        if (kind == ScheduleKind::kOneRoundTrip && n[0] * n[1] == 1) continue;
        for (int element_bytes : {8, 16}) {
          for (long long segment : {ooc::kSegmentBytes, 16LL}) {
            for (int slots : {1, 3}) {
              const ooc::Problem sized = ooc::three_d(n[0], n[1], n[2], element_bytes);
              const ooc::Options base = options_with(0, kind, slots, sign, segment);
              const long long least = least_budget(sized, base);
              for (long long budget : {least, 3 * least}) {
                CAPTURE(n[0], n[1], n[2], sign, ooc::to_string(kind), element_bytes, segment, slots, budget);
                ooc::Options options = base;
                options.device_bytes = budget;
                const ooc::Schedule schedule = make(sized, options);
                CAPTURE(schedule.to_string());
                std::vector<Complex> data = input;
                ooc::execute_on_host(schedule, data, sign);
                CHECK(relative_error(data, expected) < kTolerance);
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ooc schedule: the least budgets give several chunks on small shapes", "[ooc][cpu]") {
  // So that the executor test above runs real chunking, not one chunk per phase.
  const ooc::Problem problem = ooc::three_d(16, 12, 10, 16);
  for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip}) {
    CAPTURE(ooc::to_string(kind));
    const ooc::Options base = options_with(0, kind, 3, -1, 16);
    ooc::Options options = base;
    options.device_bytes = least_budget(problem, base);
    const ooc::Schedule schedule = make(problem, options);
    CAPTURE(schedule.to_string());
    for (const ooc::Phase& phase : schedule.phases) {
      if (phase.kind == ooc::PhaseKind::kDevice) CHECK(phase.chunk_count >= 10);
    }
  }
}

TEST_CASE("ooc schedule: a C2C schedule of either direction gives either sign's transform", "[ooc][cpu]") {
  // The axes commute: the phase order chosen for the direction does not change a C2C result.
  const ooc::Problem problem = ooc::three_d(6, 5, 12, 16);
  const std::vector<Complex> input = random_input(static_cast<std::size_t>(product(problem.extents)), 101);
  for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip}) {
    for (int planned : {-1, 1}) {
      const ooc::Options base = options_with(0, kind, 3, planned, 16);
      ooc::Options options = base;
      options.device_bytes = least_budget(problem, base);
      const ooc::Schedule schedule = make(problem, options);
      for (int sign : {-1, 1}) {
        CAPTURE(ooc::to_string(kind), planned, sign);
        std::vector<Complex> data = input;
        ooc::execute_on_host(schedule, data, sign);
        CHECK(relative_error(data, direct_dft(input, problem, sign)) < kTolerance);
      }
    }
  }
}

TEST_CASE("ooc schedule: batched 1D against direct DFTs", "[ooc][cpu]") {
  std::uint64_t salt = 1000;
  for (long long batch : {1LL, 7LL, 16LL}) {
    for (long long n : {1LL, 5LL, 8LL, 12LL, 64LL}) {
      for (int element_bytes : {8, 16}) {
        const ooc::Problem problem = ooc::batched_1d(batch, n, element_bytes);
        const std::vector<Complex> input = random_input(static_cast<std::size_t>(batch * n), ++salt);
        for (int sign : {-1, 1}) {
          const std::vector<Complex> expected = direct_dft(input, problem, sign);
          for (int slots : {1, 3}) {
            const ooc::Options base = options_with(0, std::nullopt, slots, sign);
            const long long least = n > 1 ? least_budget(problem, base) : 1;
            for (long long budget : {least, 3 * least, kHugeBudget}) {
              CAPTURE(batch, n, element_bytes, sign, slots, budget);
              ooc::Options options = base;
              options.device_bytes = budget;
              const ooc::Schedule schedule = make(problem, options);
              CAPTURE(schedule.to_string());
              CHECK(schedule.kind == ScheduleKind::kBatched);
              CHECK(chunk_problems(schedule) == "");
              CHECK(schedule.round_trips == (n > 1 ? 1 : 0));
              if (n > 1 && budget == least) CHECK(schedule.chunks.size() == static_cast<std::size_t>(batch));
              for (const ooc::Chunk& chunk : schedule.chunks) {
                CHECK(chunk.run.length == n);  // whole transforms
                CHECK(chunk.run.stride == n);
              }
              std::vector<Complex> data = input;
              ooc::execute_on_host(schedule, data, sign);
              CHECK(relative_error(data, expected) < kTolerance);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ooc schedule: the pipeline keeps phases apart; three slots never stall, two do", "[ooc][cpu]") {
  const ooc::Problem problem = ooc::three_d(16, 12, 10, 16);
  for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip}) {
    for (int slots : {1, 2, 3, 4, 8}) {
      CAPTURE(ooc::to_string(kind), slots);
      const ooc::Options base = options_with(0, kind, slots, -1, 16);
      ooc::Options options = base;
      options.device_bytes = least_budget(problem, base);
      const ooc::Schedule schedule = make(problem, options);
      CAPTURE(schedule.to_string());
      const std::vector<ooc::TimedStage> timeline = ooc::pipeline_timeline(schedule);
      // Each chunk's five stages once, in order; the phases one after another.
      std::map<int, std::vector<ooc::TimedStage>> of_chunk;
      std::vector<long long> phase_first(schedule.phases.size(), std::numeric_limits<long long>::max());
      std::vector<long long> phase_last(schedule.phases.size(), -1);
      for (const ooc::TimedStage& stage : timeline) {
        if (stage.chunk >= 0) of_chunk[stage.chunk].push_back(stage);
        phase_first[stage.phase] = std::min(phase_first[stage.phase], stage.step);
        phase_last[stage.phase] = std::max(phase_last[stage.phase], stage.step);
      }
      REQUIRE(of_chunk.size() == schedule.chunks.size());
      for (const auto& [chunk, stages] : of_chunk) {
        REQUIRE(stages.size() == 5);
        for (std::size_t s = 0; s < 5; ++s) {
          CHECK(stages[s].stage == static_cast<ooc::Stage>(s));
          if (s > 0) CHECK(stages[s].step > stages[s - 1].step);
        }
      }
      for (std::size_t p = 1; p < schedule.phases.size(); ++p) CHECK(phase_first[p] > phase_last[p - 1]);
      // Steps per device phase: chunks + 4 when nothing stalls.
      for (std::size_t p = 0; p < schedule.phases.size(); ++p) {
        const ooc::Phase& phase = schedule.phases[p];
        if (phase.kind == ooc::PhaseKind::kHost) {
          CHECK(phase_last[p] == phase_first[p]);
          continue;
        }
        REQUIRE(phase.chunk_count >= 3);
        const long long steps = phase_last[p] - phase_first[p] + 1;
        if (slots >= 3) {
          CHECK(steps == phase.chunk_count + 4);
        } else {
          CHECK(steps > phase.chunk_count + 4);
        }
      }
    }
  }
}

TEST_CASE("ooc schedule: the executor throws where a slot dependency is missing", "[ooc][cpu]") {
  const ooc::Problem problem = ooc::three_d(8, 8, 8, 16);
  const std::vector<Complex> input = random_input(512, 7);
  for (int slots : {1, 2}) {
    CAPTURE(slots);
    const ooc::Options base = options_with(0, ScheduleKind::kOneRoundTrip, slots, -1, 16);
    ooc::Options options = base;
    options.device_bytes = least_budget(problem, base);
    ooc::Schedule schedule = make(problem, options);
    REQUIRE(schedule.chunks.size() >= 3);
    std::vector<Complex> data = input;
    REQUIRE_NOTHROW(ooc::execute_on_host(schedule, data, -1));
    for (ooc::Chunk& chunk : schedule.chunks) chunk.previous_on_slot = -1;
    data = input;
    CHECK_THROWS_AS(ooc::execute_on_host(schedule, data, -1), std::logic_error);
  }
}

TEST_CASE("ooc schedule: the chunk checks fail on broken schedules", "[ooc][cpu]") {
  const ooc::Problem problem = ooc::three_d(8, 6, 16, 16);
  const ooc::Options base = options_with(0, ScheduleKind::kTwoPhase, 3, -1, 16);
  ooc::Options options = base;
  options.device_bytes = least_budget(problem, base);
  const ooc::Schedule good = make(problem, options);
  REQUIRE(chunk_problems(good) == "");
  REQUIRE(good.chunks.size() >= 4);
  const std::vector<Complex> input = random_input(static_cast<std::size_t>(product(problem.extents)), 11);
  const std::vector<Complex> expected = direct_dft(input, problem, -1);

  ooc::Schedule shifted = good;  // a chunk one element off: one element twice, one never
  shifted.chunks[1].run.first += 1;
  CHECK(chunk_problems(shifted) != "");
  std::vector<Complex> data = input;
  ooc::execute_on_host(shifted, data, -1);
  CHECK(relative_error(data, expected) > 1e-3);

  ooc::Schedule narrowed = good;  // a pencil chunk one column short
  const int pencil = narrowed.phases[1].first_chunk;
  narrowed.chunks[static_cast<std::size_t>(pencil)].run.length -= 1;
  narrowed.chunks[static_cast<std::size_t>(pencil)].staged[2] -= 1;
  CHECK(chunk_problems(narrowed) != "");

  ooc::Schedule claims = good;  // plane slabs that claim axis 0, which they do not hold whole
  claims.phases[0].axes |= ooc::axis_bit(0);
  for (int c = 0; c < claims.phases[0].chunk_count; ++c) {
    claims.chunks[static_cast<std::size_t>(c)].axes = claims.phases[0].axes;
  }
  CHECK(chunk_problems(claims) != "");

  ooc::Schedule crowded = good;  // four slots' worth of round-robin in three slots
  crowded.chunks[3].slot = 2;
  CHECK(chunk_problems(crowded) != "");
}

TEST_CASE("ooc schedule: the automatic choice", "[ooc][cpu]") {
  // 64 x 64 x 32 of 16 bytes: a plane 2048 elements, a pencil 64 x 8, an x-slab 64 x 64 x 8 = 32768,
  // the array 131072.
  const ooc::Problem problem = ooc::three_d(64, 64, 32, 16);
  const auto with_slot = [](long long elements) { return ooc::device_bytes_for_slot(elements * 16, 3, 1.0); };
  {
    const ooc::Schedule s = make(problem, options_with(with_slot(40000)));
    CAPTURE(s.to_string());
    CHECK(s.kind == ScheduleKind::kOneRoundTrip);
    CHECK(s.round_trips == 1);
    CHECK(s.chunks.size() == 4);
  }
  {
    const ooc::Schedule s = make(problem, options_with(with_slot(32767)));  // the x-slab does not fit
    CAPTURE(s.to_string());
    CHECK(s.kind == ScheduleKind::kTwoPhase);
    CHECK(s.round_trips == 2);
  }
  {
    const ooc::Schedule s = make(problem, options_with(with_slot(131072)));  // the whole array fits
    CAPTURE(s.to_string());
    CHECK(s.kind == ScheduleKind::kTwoPhase);
    CHECK(s.round_trips == 1);
    REQUIRE(s.chunks.size() == 1);
    CHECK(s.chunks[0].axes == (ooc::axis_bit(0) | ooc::axis_bit(1) | ooc::axis_bit(2)));
  }
  {
    // A 2D problem (n0 = 1) whose planes fit: the device does both axes, one round trip.
    const ooc::Schedule s = make(ooc::three_d(1, 64, 32, 16), options_with(with_slot(2048)));
    CAPTURE(s.to_string());
    CHECK(s.kind == ScheduleKind::kTwoPhase);
    CHECK(s.round_trips == 1);
    // ... and one whose planes do not: rows on the host, columns on the device.
    const ooc::Schedule t = make(ooc::three_d(1, 64, 32, 16), options_with(with_slot(1024)));
    CAPTURE(t.to_string());
    CHECK(t.kind == ScheduleKind::kOneRoundTrip);
    CHECK(t.chunks.size() == 2);
  }
  {
    const ooc::ScheduleResult r = ooc::make_schedule(problem, options_with(with_slot(2047)));
    CHECK_FALSE(r.schedule);
    CHECK(r.minimum_device_bytes == with_slot(2048));
    CHECK(r.reason.find("least budget is " + std::to_string(with_slot(2048))) != std::string::npos);
  }
}

TEST_CASE("ooc schedule: a budget of exactly the minimum works, one byte less does not", "[ooc][cpu]") {
  for (const Extents& n : kShapes) {
    for (int element_bytes : {8, 16}) {
      const ooc::Problem problem = ooc::three_d(n[0], n[1], n[2], element_bytes);
      for (std::optional<ScheduleKind> kind :
           {std::optional<ScheduleKind>(), std::optional<ScheduleKind>(ScheduleKind::kTwoPhase),
            std::optional<ScheduleKind>(ScheduleKind::kOneRoundTrip)}) {
        if (kind == ScheduleKind::kOneRoundTrip && n[0] * n[1] == 1) continue;
        for (double work_factor : {0.0, 1.0, 0.37}) {
          CAPTURE(n[0], n[1], n[2], element_bytes, kind ? ooc::to_string(*kind) : "auto", work_factor);
          ooc::Options options = options_with(0, kind);
          options.work_factor = work_factor;
          const long long least = least_budget(problem, options);
          options.device_bytes = least;
          const ooc::Schedule schedule = make(problem, options);
          CHECK(schedule.device_bytes == least);
          CHECK(chunk_problems(schedule) == "");
          options.device_bytes = least - 1;
          const ooc::ScheduleResult below = ooc::make_schedule(problem, options);
          CHECK_FALSE(below.schedule);
          CHECK(below.minimum_device_bytes == least);
          CHECK(below.reason.find("least budget is " + std::to_string(least)) != std::string::npos);
        }
      }
    }
  }
  // Batched.
  const ooc::Problem batched = ooc::batched_1d(10, 100, 8);
  const long long least = least_budget(batched, options_with(0));
  CHECK(least == ooc::device_bytes_for_slot(100 * 8, 3, 1.0));
  CHECK(make(batched, options_with(least)).chunks.size() == 10);
  CHECK_FALSE(ooc::make_schedule(batched, options_with(least - 1)).schedule);
}

TEST_CASE("ooc schedule: refusals and their reasons", "[ooc][cpu]") {
  const auto reason = [](const ooc::Problem& problem, const ooc::Options& options) {
    const ooc::ScheduleResult result = ooc::make_schedule(problem, options);
    CHECK_FALSE(result.schedule);
    return result.reason;
  };
  const auto contains = [](const std::string& text, const std::string& part) {
    INFO(text);
    return text.find(part) != std::string::npos;
  };
  const ooc::Options fine = options_with(kHugeBudget);
  CHECK(contains(reason(ooc::three_d(0, 8, 8, 16), fine), "sizes must be positive"));
  CHECK(contains(reason(ooc::three_d(8, -1, 8, 16), fine), "sizes must be positive"));
  CHECK(contains(reason(ooc::batched_1d(4, 0, 16), fine), "sizes must be positive"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 4), fine), "element_bytes"));
  CHECK(contains(reason(ooc::three_d(1LL << 31, 1LL << 31, 8, 16), fine), "elements overflow"));
  CHECK(contains(reason(ooc::three_d(1LL << 30, 1LL << 30, 4, 16), fine), "bytes of"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(0)), "budget must be positive"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(-5)), "budget must be positive"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(kHugeBudget, std::nullopt, 0)), "slot_count"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(kHugeBudget, std::nullopt, 65)), "slot_count"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(kHugeBudget, std::nullopt, 3, 0)), "sign"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(kHugeBudget, std::nullopt, 3, -1, 0)),
                 "min_segment_bytes"));
  ooc::Options negative_work = fine;
  negative_work.work_factor = -0.5;
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), negative_work), "work_factor"));
  negative_work.work_factor = std::numeric_limits<double>::quiet_NaN();
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), negative_work), "work_factor"));
  CHECK(contains(reason(ooc::three_d(8, 8, 8, 16), options_with(kHugeBudget, ScheduleKind::kBatched)),
                 "no batched schedule"));
  CHECK(contains(reason(ooc::batched_1d(8, 8, 16), options_with(kHugeBudget, ScheduleKind::kTwoPhase)),
                 "no two-phase schedule"));
  CHECK(contains(reason(ooc::three_d(1, 1, 8, 16), options_with(kHugeBudget, ScheduleKind::kOneRoundTrip)),
                 "nothing for the device"));
  // Budgets too small: the least chunk named, and the least budget.
  CHECK(contains(reason(ooc::batched_1d(4, 1024, 16), options_with(ooc::device_bytes_for_slot(1023 * 16, 3, 1.0))),
                 "out-of-core 1D algorithm"));
  CHECK(contains(reason(ooc::three_d(64, 64, 64, 16), options_with(1000)), "least budget is"));
  CHECK(contains(reason(ooc::three_d(64, 64, 64, 16), options_with(1000, ScheduleKind::kOneRoundTrip)),
                 "x-slab of 4096 segments"));
  // So many chunks that per-chunk costs would dominate.
  CHECK(contains(reason(ooc::batched_1d(1LL << 24, 2, 16), options_with(ooc::device_bytes_for_slot(64, 3, 1.0))),
                 "more than the"));
  // The executor's arguments.
  const ooc::Schedule schedule = make(ooc::three_d(4, 4, 4, 16), fine);
  std::vector<Complex> wrong_size(63);
  CHECK_THROWS_AS(ooc::execute_on_host(schedule, wrong_size, -1), std::invalid_argument);
  std::vector<Complex> data(64, Complex(1, 0));
  CHECK_THROWS_AS(ooc::execute_on_host(schedule, data, 0), std::invalid_argument);
}

TEST_CASE("ooc schedule: trivial axes and a one-element array", "[ooc][cpu]") {
  const ooc::Schedule one = make(ooc::three_d(1, 1, 1, 16), options_with(1));
  CHECK(one.phases.empty());
  CHECK(one.round_trips == 0);
  std::vector<Complex> data = {Complex(0.25, -2)};
  ooc::execute_on_host(one, data, -1);
  CHECK(data[0] == Complex(0.25, -2));
  // n0 only: one pencil phase of the whole column.
  const ooc::Schedule column = make(ooc::three_d(7, 1, 1, 16), options_with(kHugeBudget));
  REQUIRE(column.phases.size() == 1);
  CHECK(column.phases[0].axes == ooc::axis_bit(0));
}

TEST_CASE("ooc schedule: a batch is cut into pipeline chunks however large the budget; a 3D array is not",
          "[ooc][cpu]") {
  // 8192 transforms of 4096 fp32: 256 MiB, 16 chunks of 16 MiB; fp64: 32.
  for (int element_bytes : {8, 16}) {
    const ooc::Schedule batched = make(ooc::batched_1d(8192, 4096, element_bytes), options_with(kHugeBudget));
    CHECK(batched.chunks.size() == static_cast<std::size_t>(8192LL * 4096 * element_bytes / ooc::kPipelineChunkBytes));
    CHECK(batched.slot_bytes == ooc::kPipelineChunkBytes);
    CHECK(batched.round_trips == 1);
  }
  // 16 MB (below 16 MiB): one chunk; 17 MiB of whole transforms: two.
  CHECK(make(ooc::batched_1d(1000, 1000, 16), options_with(kHugeBudget)).chunks.size() == 1);
  CHECK(make(ooc::batched_1d(17, 1 << 16, 16), options_with(kHugeBudget)).chunks.size() == 2);
  // One transform larger than a pipeline chunk is not split.
  CHECK(make(ooc::batched_1d(1, 1 << 22, 16), options_with(kHugeBudget)).chunks.size() == 1);
  // A budget smaller than a pipeline chunk still decides.
  const long long small = ooc::device_bytes_for_slot(4 * 4096 * 8, 3, 1.0);
  CHECK(make(ooc::batched_1d(8192, 4096, 8), options_with(small)).chunks.size() == 2048);
  // 256^3 fp32 (128 MiB) fits one slot of the huge budget: one chunk, one round trip.
  const ooc::Schedule cube = make(ooc::three_d(256, 256, 256, 8), options_with(kHugeBudget));
  CHECK(cube.chunks.size() == 1);
  CHECK(cube.round_trips == 1);
}
