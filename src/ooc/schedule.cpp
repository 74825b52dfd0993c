#include "ooc/schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace idgpu::ooc {
namespace {

using Complex = std::complex<double>;
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr long long kLongMax = std::numeric_limits<long long>::max();

std::string bytes_text(long long bytes) { return std::to_string(bytes) + " bytes"; }

std::string shape_text(const Problem& problem) {
  const auto& e = problem.extents;
  if (problem.batched) return std::to_string(e[0]) + " transforms of " + std::to_string(e[2]);
  return std::to_string(e[0]) + " x " + std::to_string(e[1]) + " x " + std::to_string(e[2]);
}

// How an extent E splits into chunk widths (see "Segments" in schedule.h): multiples of `granule`
// (min(E, g)), the remainder E mod granule added to the last chunk.
struct Split {
  long long granule = 1;
  long long units = 0;      // E / granule
  long long remainder = 0;  // E mod granule

  long long least_width() const { return granule + remainder; }
};

Split split_of(long long extent, long long granule) {
  Split split;
  split.granule = std::min(granule, extent);
  split.units = extent / split.granule;
  split.remainder = extent % split.granule;
  return split;
}

// The fewest chunks of at most `capacity` elements of width: units spread evenly, larger chunks
// first, so the last (which takes the remainder) is a smaller one. Needs capacity >= least_width.
long long chunks_for(const Split& split, long long capacity) {
  const long long units_per_chunk = capacity / split.granule;
  long long chunks = (split.units + units_per_chunk - 1) / units_per_chunk;
  // Units divided exactly leave the last chunk no room for the remainder: one chunk more (at most
  // `units`, since one unit per chunk leaves it least_width).
  if ((split.units / chunks) * split.granule + split.remainder > capacity) ++chunks;
  return chunks;
}

// [begin, end) of each of `chunks` chunks over the split's extent (chunks_for).
std::vector<std::pair<long long, long long>> ranges_of(const Split& split, long long chunks) {
  std::vector<std::pair<long long, long long>> ranges;
  ranges.reserve(static_cast<std::size_t>(chunks));
  const long long base = split.units / chunks, larger = split.units % chunks;
  long long begin = 0;
  for (long long c = 0; c < chunks; ++c) {
    long long width = (base + (c < larger ? 1 : 0)) * split.granule;
    if (c == chunks - 1) width += split.remainder;
    ranges.emplace_back(begin, begin + width);
    begin += width;
  }
  return ranges;
}

unsigned axes_longer_than_one(const Problem& problem, unsigned axes) {
  unsigned kept = 0;
  for (int a = 0; a < 3; ++a) {
    if ((axes & axis_bit(a)) != 0 && problem.extents[a] > 1) kept |= axis_bit(a);
  }
  return kept;
}

// The largest slot (elements) whose device_bytes_for_slot fits the budget.
long long slot_capacity(const Options& options, int element_bytes) {
  const auto fits = [&](long long elements) {
    return device_bytes_for_slot(elements * element_bytes, options.slot_count, options.work_factor) <=
           options.device_bytes;
  };
  const long double estimate =
      static_cast<long double>(options.device_bytes) /
      (static_cast<long double>(options.slot_count) * element_bytes * (1.0L + options.work_factor));
  const long long most = kLongMax / element_bytes - 1;
  long long elements = static_cast<long long>(std::min<long double>(estimate, static_cast<long double>(most)));
  while (elements > 0 && !fits(elements)) --elements;
  while (elements < most && fits(elements + 1)) ++elements;
  return elements;
}

// A device phase before slots are assigned, with the least segment it promises.
struct PhasePlan {
  PhaseKind kind = PhaseKind::kDevice;
  unsigned axes = 0;
  std::vector<Chunk> chunks;
  long long least_segment = 0;  // elements
};

// The least chunk (elements) of each schedule kind, -1 where the kind does not apply.
struct LeastChunks {
  long long two_phase = -1;
  long long one_round_trip = -1;
  long long batched = -1;

  long long of(ScheduleKind kind) const {
    switch (kind) {
      case ScheduleKind::kTwoPhase:
        return two_phase;
      case ScheduleKind::kOneRoundTrip:
        return one_round_trip;
      case ScheduleKind::kBatched:
        return batched;
    }
    return -1;
  }
};

class Planner {
 public:
  Planner(const Problem& problem, const Options& options)
      : problem_(problem),
        options_(options),
        n0_(problem.extents[0]),
        n1_(problem.extents[1]),
        n2_(problem.extents[2]),
        granule_((options.min_segment_bytes + problem.element_bytes - 1) / problem.element_bytes) {}

  LeastChunks least_chunks() const {
    LeastChunks least;
    if (problem_.batched) {
      least.batched = n2_ > 1 ? n2_ : 0;
      return least;
    }
    const long long plane = n1_ * n2_;
    least.two_phase = std::max(plane > 1 ? plane : 0, n0_ > 1 ? n0_ * split_of(plane, granule_).least_width() : 0);
    if (n0_ * n1_ > 1) least.one_round_trip = n0_ * n1_ * split_of(n2_, granule_).least_width();
    return least;
  }

  // The phases of `kind` with slots of `capacity` elements (>= the kind's least chunk), in
  // forward order; empty phases left out. Sets reason_ and returns false where there would be
  // too many chunks.
  bool plan(ScheduleKind kind, long long capacity, std::vector<PhasePlan>* phases) {
    phases->clear();
    switch (kind) {
      case ScheduleKind::kBatched:
        return plane_slabs(capacity, phases);
      case ScheduleKind::kTwoPhase:
        if (!plane_slabs(capacity, phases)) return false;
        if (n0_ > 1 && (phases->empty() || (phases->front().axes & axis_bit(0)) == 0)) return pencils(capacity, phases);
        return true;
      case ScheduleKind::kOneRoundTrip:
        if (n2_ > 1) phases->push_back(PhasePlan{PhaseKind::kHost, axis_bit(2), {}, 0});
        return x_slabs(capacity, phases);
    }
    return false;
  }

  const std::string& reason() const { return reason_; }

 private:
  bool too_many(long long chunks, const char* what) {
    if (chunks <= kMaxChunks) return false;
    reason_ = "out-of-core FFT: " + std::to_string(chunks) + " " + what + " chunks for a budget of " +
              bytes_text(options_.device_bytes) + ", more than the " + std::to_string(kMaxChunks) +
              " allowed (give a larger budget)";
    return true;
  }

  Chunk chunk(HostRun run, std::array<long long, 3> staged, unsigned axes) const {
    Chunk c;
    c.run = run;
    c.staged = staged;
    c.axes = axes;
    return c;
  }

  // Slabs of whole planes [n1][n2] (batched: whole transforms [1][n]), axes 1 and 2; axis 0 too
  // where one chunk holds the whole array.
  bool plane_slabs(long long capacity, std::vector<PhasePlan>* phases) {
    const long long plane = n1_ * n2_;
    PhasePlan phase;
    phase.axes = axes_longer_than_one(problem_, problem_.axes() & (axis_bit(1) | axis_bit(2)));
    if (phase.axes == 0) return true;
    long long chunks = chunks_for(split_of(n0_, 1), capacity / plane);
    if (problem_.batched) {
      // Chunks of at most kPipelineChunkBytes where the transforms allow, however large the
      // budget: one chunk cannot overlap its copies with each other (see "Pipelining").
      const long long bytes = n0_ * plane * problem_.element_bytes;
      chunks = std::max(chunks, std::min(n0_, (bytes + kPipelineChunkBytes - 1) / kPipelineChunkBytes));
    }
    if (too_many(chunks, problem_.batched ? "transform" : "plane-slab")) return false;
    if (chunks == 1 && !options_.keep_pencils) phase.axes = axes_longer_than_one(problem_, problem_.axes());
    phase.least_segment = plane;
    for (const auto& [begin, end] : ranges_of(split_of(n0_, 1), chunks)) {
      phase.chunks.push_back(chunk({begin * plane, plane, end - begin, plane}, {end - begin, n1_, n2_}, phase.axes));
    }
    phases->push_back(std::move(phase));
    return true;
  }

  // Pencils: W consecutive flattened (n1, n2) positions across all n0 planes, axis 0.
  bool pencils(long long capacity, std::vector<PhasePlan>* phases) {
    const long long plane = n1_ * n2_;
    const Split split = split_of(plane, granule_);
    const long long chunks = chunks_for(split, capacity / n0_);
    if (too_many(chunks, "pencil")) return false;
    PhasePlan phase;
    phase.axes = axis_bit(0);
    phase.least_segment = split.granule;
    for (const auto& [begin, end] : ranges_of(split, chunks)) {
      phase.chunks.push_back(chunk({begin, end - begin, n0_, plane}, {n0_, 1, end - begin}, phase.axes));
    }
    phases->push_back(std::move(phase));
    return true;
  }

  // X-slabs: XW consecutive n2 positions across all n0 x n1 rows, axes 0 and 1.
  bool x_slabs(long long capacity, std::vector<PhasePlan>* phases) {
    const Split split = split_of(n2_, granule_);
    const long long chunks = chunks_for(split, capacity / (n0_ * n1_));
    if (too_many(chunks, "x-slab")) return false;
    PhasePlan phase;
    phase.axes = axes_longer_than_one(problem_, axis_bit(0) | axis_bit(1));
    phase.least_segment = split.granule;
    for (const auto& [begin, end] : ranges_of(split, chunks)) {
      phase.chunks.push_back(chunk({begin, end - begin, n0_ * n1_, n2_}, {n0_, n1_, end - begin}, phase.axes));
    }
    phases->push_back(std::move(phase));
    return true;
  }

  const Problem& problem_;
  const Options& options_;
  const long long n0_, n1_, n2_;
  const long long granule_;  // elements of min_segment_bytes, rounded up
  std::string reason_;
};

std::string check(const Problem& problem, const Options& options) {
  const std::string prefix = "out-of-core FFT: ";
  if (problem.element_bytes != 8 && problem.element_bytes != 16) {
    return prefix + "element_bytes must be 8 (complex float) or 16 (complex double), not " +
           std::to_string(problem.element_bytes);
  }
  for (long long extent : problem.extents) {
    if (extent < 1) return prefix + "sizes must be positive (" + shape_text(problem) + ")";
  }
  if (problem.batched && problem.extents[1] != 1) return prefix + "a batched 1D problem is [batch][1][n]";
  long long elements = 1, bytes = 0;
  for (long long extent : problem.extents) {
    if (__builtin_mul_overflow(elements, extent, &elements)) return prefix + shape_text(problem) + " elements overflow";
  }
  if (__builtin_mul_overflow(elements, static_cast<long long>(problem.element_bytes), &bytes)) {
    return prefix + "the bytes of " + shape_text(problem) + " elements overflow";
  }
  if (options.device_bytes < 1) return prefix + "the device memory budget must be positive";
  if (options.slot_count < 1 || options.slot_count > kMaxSlotCount) {
    return prefix + "slot_count must be 1.." + std::to_string(kMaxSlotCount) + ", not " +
           std::to_string(options.slot_count);
  }
  if (!std::isfinite(options.work_factor) || options.work_factor < 0) {
    return prefix + "work_factor must be finite and >= 0";
  }
  if (options.min_segment_bytes < 1) return prefix + "min_segment_bytes must be positive";
  if (options.sign != -1 && options.sign != 1) return prefix + "sign must be -1 (forward) or +1 (inverse)";
  if (options.force) {
    const bool batched_kind = *options.force == ScheduleKind::kBatched;
    if (batched_kind != problem.batched) {
      return prefix + "a " + (problem.batched ? "batched 1D" : "3D") + " problem has no " + to_string(*options.force) +
             " schedule";
    }
  }
  return "";
}

std::string least_chunk_text(const Problem& problem, ScheduleKind kind, long long least) {
  const auto& e = problem.extents;
  switch (kind) {
    case ScheduleKind::kBatched:
      return "one transform of " + std::to_string(e[2]) + " elements";
    case ScheduleKind::kTwoPhase:
      return "two-phase: a plane of " + std::to_string(e[1]) + " x " + std::to_string(e[2]) + " or a pencil of " +
             std::to_string(e[0]) + " segments, " + std::to_string(least) + " elements";
    case ScheduleKind::kOneRoundTrip:
      if (least < 0) return "one-round-trip: none, n0 = n1 = 1 leaves nothing for the device";
      return "one-round-trip: an x-slab of " + std::to_string(e[0] * e[1]) + " segments, " + std::to_string(least) +
             " elements";
  }
  return "";
}

Schedule assemble(const Problem& problem, const Options& options, ScheduleKind kind, std::vector<PhasePlan> plans) {
  if (options.sign == 1) std::reverse(plans.begin(), plans.end());  // the contiguous axis's phase last
  Schedule schedule;
  schedule.kind = kind;
  schedule.problem = problem;
  schedule.sign = options.sign;
  schedule.slot_count = options.slot_count;
  schedule.stream_count = options.slot_count;
  long long largest = 0, least_segment = 0;
  for (PhasePlan& plan : plans) {
    Phase phase;
    phase.kind = plan.kind;
    phase.axes = plan.axes;
    phase.first_chunk = static_cast<int>(schedule.chunks.size());
    phase.chunk_count = static_cast<int>(plan.chunks.size());
    const int phase_index = static_cast<int>(schedule.phases.size());
    if (plan.kind == PhaseKind::kDevice) {
      ++schedule.round_trips;
      least_segment = least_segment == 0 ? plan.least_segment : std::min(least_segment, plan.least_segment);
    }
    for (Chunk& chunk : plan.chunks) {
      const int index = static_cast<int>(schedule.chunks.size());
      chunk.phase = phase_index;
      chunk.slot = index % options.slot_count;
      chunk.stream = chunk.slot;
      chunk.previous_on_slot = index >= options.slot_count ? index - options.slot_count : -1;
      largest = std::max(largest, chunk.run.elements());
      schedule.chunks.push_back(chunk);
    }
    schedule.phases.push_back(phase);
  }
  schedule.slot_bytes = largest * problem.element_bytes;
  schedule.work_bytes =
      static_cast<long long>(std::ceil(options.work_factor * static_cast<long double>(schedule.slot_bytes)));
  schedule.device_bytes = device_bytes_for_slot(schedule.slot_bytes, options.slot_count, options.work_factor);
  schedule.segment_bytes_promised = least_segment * problem.element_bytes;
  return schedule;
}

// A naive DFT (exp(sign 2 pi i j k / n), unnormalised) of every line along `axis` of the
// row-major array `dims` at `values`.
void dft_axis(Complex* values, const std::array<long long, 3>& dims, int axis, int sign) {
  const long long n = dims[axis];
  if (n == 1) return;
  long long stride = 1, outer = 1;
  for (int a = axis + 1; a < 3; ++a) stride *= dims[a];
  for (int a = 0; a < axis; ++a) outer *= dims[a];
  std::vector<Complex> roots(static_cast<std::size_t>(n)), line(static_cast<std::size_t>(n));
  for (long long e = 0; e < n; ++e) {
    roots[static_cast<std::size_t>(e)] =
        std::polar(1.0, sign * 2.0 * kPi * static_cast<double>(e) / static_cast<double>(n));
  }
  for (long long o = 0; o < outer; ++o) {
    for (long long i = 0; i < stride; ++i) {
      Complex* start = values + o * n * stride + i;
      for (long long k = 0; k < n; ++k) {
        Complex sum = 0;
        for (long long j = 0; j < n; ++j) sum += start[j * stride] * roots[static_cast<std::size_t>((j * k) % n)];
        line[static_cast<std::size_t>(k)] = sum;
      }
      for (long long k = 0; k < n; ++k) start[k * stride] = line[static_cast<std::size_t>(k)];
    }
  }
}

// `axes` of the array, the contiguous axis first in a forward transform and last in an inverse one
// (the phase order of schedule.h, kept inside a chunk).
void dft_axes(Complex* values, const std::array<long long, 3>& dims, unsigned axes, int sign) {
  for (int step = 0; step < 3; ++step) {
    const int axis = sign < 0 ? 2 - step : step;
    if ((axes & axis_bit(axis)) != 0) dft_axis(values, dims, axis, sign);
  }
}

void check_schedule(const Schedule& schedule) {
  const auto bad = [](const std::string& what) { throw std::invalid_argument("out-of-core host executor: " + what); };
  if (schedule.slot_count < 1 || schedule.problem.element_bytes < 1) bad("no slots");
  const long long slot_elements = schedule.slot_bytes / schedule.problem.element_bytes;
  const long long elements = schedule.elements();
  for (std::size_t p = 0; p < schedule.phases.size(); ++p) {
    const Phase& phase = schedule.phases[p];
    if (phase.first_chunk < 0 || phase.chunk_count < 0 ||
        static_cast<std::size_t>(phase.first_chunk) + phase.chunk_count > schedule.chunks.size()) {
      bad("phase " + std::to_string(p) + " names chunks the schedule lacks");
    }
    if (phase.kind == PhaseKind::kHost && phase.chunk_count != 0) bad("a host phase with chunks");
  }
  for (std::size_t c = 0; c < schedule.chunks.size(); ++c) {
    const Chunk& chunk = schedule.chunks[c];
    const HostRun& run = chunk.run;
    const std::string name = "chunk " + std::to_string(c);
    if (chunk.phase < 0 || static_cast<std::size_t>(chunk.phase) >= schedule.phases.size()) bad(name + ": no phase");
    const Phase& phase = schedule.phases[static_cast<std::size_t>(chunk.phase)];
    if (static_cast<long long>(c) < phase.first_chunk ||
        static_cast<long long>(c) >= phase.first_chunk + phase.chunk_count) {
      bad(name + ": not among its phase's chunks");
    }
    if (chunk.slot < 0 || chunk.slot >= schedule.slot_count) bad(name + ": slot out of range");
    if (chunk.previous_on_slot >= static_cast<int>(c)) bad(name + ": previous_on_slot is not earlier");
    if (chunk.previous_on_slot >= 0 &&
        schedule.chunks[static_cast<std::size_t>(chunk.previous_on_slot)].slot != chunk.slot) {
      bad(name + ": previous_on_slot used another slot");
    }
    if (run.length < 1 || run.count < 1 || run.first < 0 || (run.count > 1 && run.stride < run.length) ||
        run.first + (run.count - 1) * run.stride + run.length > elements) {
      bad(name + ": its run leaves the array or overlaps itself");
    }
    if (run.elements() > slot_elements) bad(name + ": larger than a slot");
    if (chunk.staged[0] * chunk.staged[1] * chunk.staged[2] != run.elements()) bad(name + ": staged shape != run");
  }
}

}  // namespace

Problem three_d(long long n0, long long n1, long long n2, int element_bytes) {
  Problem problem;
  problem.extents = {n0, n1, n2};
  problem.element_bytes = element_bytes;
  return problem;
}

Problem batched_1d(long long batch, long long n, int element_bytes) {
  Problem problem;
  problem.extents = {batch, 1, n};
  problem.batched = true;
  problem.element_bytes = element_bytes;
  return problem;
}

const char* to_string(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::kTwoPhase:
      return "two-phase";
    case ScheduleKind::kOneRoundTrip:
      return "one-round-trip";
    case ScheduleKind::kBatched:
      return "batched";
  }
  return "?";
}

const char* to_string(Stage stage) {
  switch (stage) {
    case Stage::kGather:
      return "gather";
    case Stage::kHostToDevice:
      return "H2D";
    case Stage::kKernels:
      return "kernels";
    case Stage::kDeviceToHost:
      return "D2H";
    case Stage::kScatter:
      return "scatter";
    case Stage::kHostPass:
      return "host pass";
  }
  return "?";
}

long long device_bytes_for_slot(long long slot_bytes, int slot_count, double work_factor) {
  const long double work = std::ceil(static_cast<long double>(work_factor) * static_cast<long double>(slot_bytes));
  const long double total = static_cast<long double>(slot_count) * (static_cast<long double>(slot_bytes) + work);
  if (!(total < static_cast<long double>(kLongMax))) return kLongMax;
  return static_cast<long long>(total);
}

long long Schedule::elements() const { return problem.extents[0] * problem.extents[1] * problem.extents[2]; }

std::string Schedule::to_string() const {
  const auto axes_text = [](unsigned axes) {
    std::string text;
    for (int a = 0; a < 3; ++a) {
      if ((axes & axis_bit(a)) != 0) text += (text.empty() ? "" : ",") + std::to_string(a);
    }
    return text.empty() ? std::string("none") : text;
  };
  const auto run_text = [](const Chunk& chunk) {
    return "run {" + std::to_string(chunk.run.first) + ", " + std::to_string(chunk.run.length) + ", " +
           std::to_string(chunk.run.count) + ", " + std::to_string(chunk.run.stride) + "} staged [" +
           std::to_string(chunk.staged[0]) + "][" + std::to_string(chunk.staged[1]) + "][" +
           std::to_string(chunk.staged[2]) + "]";
  };
  std::ostringstream out;
  out << ooc::to_string(kind) << " " << shape_text(problem) << " of " << problem.element_bytes << " bytes, sign "
      << sign << ": " << slot_count << " slots of " << slot_bytes << " + " << work_bytes
      << " work bytes = " << device_bytes << " device bytes, segments >= " << segment_bytes_promised << " bytes, "
      << round_trips << " round trip" << (round_trips == 1 ? "" : "s");
  for (std::size_t p = 0; p < phases.size(); ++p) {
    const Phase& phase = phases[p];
    out << "\n  phase " << p << ": " << (phase.kind == PhaseKind::kHost ? "host" : "device") << " axes "
        << axes_text(phase.axes);
    if (phase.chunk_count > 0) {
      out << ", " << phase.chunk_count << " chunks, first "
          << run_text(chunks[static_cast<std::size_t>(phase.first_chunk)]) << ", last "
          << run_text(chunks[static_cast<std::size_t>(phase.first_chunk + phase.chunk_count - 1)]);
    }
  }
  return out.str();
}

ScheduleResult make_schedule(const Problem& problem, const Options& options) {
  ScheduleResult result;
  result.reason = check(problem, options);
  if (!result.reason.empty()) return result;

  Planner planner(problem, options);
  const LeastChunks least = planner.least_chunks();
  const int element_bytes = problem.element_bytes;
  const auto budget_for = [&](long long elements) {
    return device_bytes_for_slot(elements * element_bytes, options.slot_count, options.work_factor);
  };
  const long long capacity = slot_capacity(options, element_bytes);

  // The kinds to try, in order of preference (see "Which one" in schedule.h).
  std::vector<ScheduleKind> kinds;
  if (options.force) {
    kinds = {*options.force};
  } else if (problem.batched) {
    kinds = {ScheduleKind::kBatched};
  } else {
    kinds = {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip, ScheduleKind::kTwoPhase};
  }
  result.minimum_device_bytes = kLongMax;
  for (ScheduleKind kind : kinds) {
    if (least.of(kind) >= 0)
      result.minimum_device_bytes = std::min(result.minimum_device_bytes, budget_for(least.of(kind)));
  }

  std::vector<PhasePlan> phases;
  std::string too_many_chunks;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const ScheduleKind kind = kinds[k];
    if (least.of(kind) < 0 || capacity < least.of(kind)) continue;
    if (!planner.plan(kind, capacity, &phases)) {
      too_many_chunks = planner.reason();
      continue;
    }
    const long long device_phases = std::count_if(
        phases.begin(), phases.end(), [](const PhasePlan& phase) { return phase.kind == PhaseKind::kDevice; });
    // The first try of the automatic choice takes the two-phase schedule only where it needs one
    // round trip.
    if (!options.force && !problem.batched && k == 0 && device_phases > 1) continue;
    result.schedule = assemble(problem, options, kind, std::move(phases));
    return result;
  }
  if (!too_many_chunks.empty()) {
    result.reason = too_many_chunks;
    return result;
  }

  if (result.minimum_device_bytes == kLongMax) {  // only a forced one-round-trip of n0 = n1 = 1
    result.minimum_device_bytes = 0;
    result.reason =
        "out-of-core FFT: " + shape_text(problem) + ": " + least_chunk_text(problem, ScheduleKind::kOneRoundTrip, -1);
    return result;
  }
  std::string needs;
  for (ScheduleKind kind : {ScheduleKind::kTwoPhase, ScheduleKind::kOneRoundTrip, ScheduleKind::kBatched}) {
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
    needs += (needs.empty() ? "" : "; ") + least_chunk_text(problem, kind, least.of(kind));
  }
  std::ostringstream reason;
  reason << "out-of-core FFT: " << shape_text(problem) << " of " << element_bytes << " bytes: a budget of "
         << options.device_bytes << " bytes gives " << options.slot_count << " slots of at most " << capacity
         << " elements (work factor " << options.work_factor << "); the least chunk is " << needs
         << "; the least budget is " << result.minimum_device_bytes << " bytes";
  if (problem.batched) reason << " (a 1D transform larger than a slot needs an out-of-core 1D algorithm)";
  result.reason = reason.str();
  return result;
}

std::vector<TimedStage> pipeline_timeline(const Schedule& schedule) {
  constexpr int kStages = 5;  // gather, H2D, kernels, D2H, scatter
  std::vector<TimedStage> timeline;
  std::vector<std::array<long long, kStages>> step_of(schedule.chunks.size());
  long long phase_start = 0;
  for (std::size_t p = 0; p < schedule.phases.size(); ++p) {
    const Phase& phase = schedule.phases[p];
    if (phase.kind == PhaseKind::kHost) {
      timeline.push_back({phase_start, Stage::kHostPass, static_cast<int>(p), -1});
      ++phase_start;
      continue;
    }
    // Rule 5: every engine starts the phase after the previous one has ended.
    std::array<long long, kStages> engine_free;
    engine_free.fill(phase_start);
    long long phase_end = phase_start;
    for (int c = phase.first_chunk; c < phase.first_chunk + phase.chunk_count; ++c) {
      const int previous = schedule.chunks[static_cast<std::size_t>(c)].previous_on_slot;
      const auto after_previous = [&](Stage stage) {
        return previous >= 0 && previous < c ? step_of[static_cast<std::size_t>(previous)][static_cast<int>(stage)] + 1
                                             : 0;
      };
      auto& at = step_of[static_cast<std::size_t>(c)];
      // Rules 1 to 4 of schedule.h.
      at[0] = std::max(engine_free[0], after_previous(Stage::kHostToDevice));
      at[1] = std::max({engine_free[1], at[0] + 1, after_previous(Stage::kDeviceToHost)});
      at[2] = std::max(engine_free[2], at[1] + 1);
      at[3] = std::max({engine_free[3], at[2] + 1, after_previous(Stage::kScatter)});
      at[4] = std::max(engine_free[4], at[3] + 1);
      for (int s = 0; s < kStages; ++s) {
        engine_free[static_cast<std::size_t>(s)] = at[static_cast<std::size_t>(s)] + 1;
        timeline.push_back({at[static_cast<std::size_t>(s)], static_cast<Stage>(s), static_cast<int>(p), c});
      }
      phase_end = std::max(phase_end, at[4] + 1);
    }
    phase_start = phase_end;
  }
  std::stable_sort(timeline.begin(), timeline.end(), [](const TimedStage& a, const TimedStage& b) {
    return a.step != b.step ? a.step < b.step : a.stage < b.stage;
  });
  return timeline;
}

void execute_on_host(const Schedule& schedule, std::vector<std::complex<double>>& data, int sign) {
  if (sign != -1 && sign != 1) throw std::invalid_argument("out-of-core host executor: sign must be -1 or +1");
  check_schedule(schedule);
  if (static_cast<long long>(data.size()) != schedule.elements()) {
    throw std::invalid_argument("out-of-core host executor: data has " + std::to_string(data.size()) +
                                " elements, the problem " + std::to_string(schedule.elements()));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t slot_elements = static_cast<std::size_t>(schedule.slot_bytes / schedule.problem.element_bytes);
  // A buffer of a slot and the chunk it holds (-1: free). Kinds: 0 pinned H2D, 1 device, 2 pinned D2H.
  struct Buffer {
    std::vector<Complex> values;
    int holder = -1;
  };
  const std::size_t slots = static_cast<std::size_t>(schedule.slot_count);
  std::vector<Buffer> buffers(3 * slots);
  for (Buffer& buffer : buffers) buffer.values.assign(slot_elements, Complex(nan, nan));
  const auto buffer = [&](int kind, const Chunk& chunk) -> Buffer& {
    return buffers[static_cast<std::size_t>(kind) * slots + static_cast<std::size_t>(chunk.slot)];
  };
  const auto release = [&](Buffer& b) {
    b.holder = -1;
    std::fill(b.values.begin(), b.values.end(), Complex(nan, nan));
  };
  const auto hazard = [](const TimedStage& stage, const std::string& what) {
    throw std::logic_error("out-of-core host executor: step " + std::to_string(stage.step) + ", " +
                           to_string(stage.stage) + " of chunk " + std::to_string(stage.chunk) + ": " + what);
  };
  const auto require = [&](const TimedStage& stage, const Buffer& b, int holder, const char* name) {
    if (b.holder != holder) {
      hazard(stage, std::string(name) + " holds chunk " + std::to_string(b.holder) + ", expected " +
                        (holder < 0 ? std::string("free") : "chunk " + std::to_string(holder)));
    }
  };

  const std::vector<TimedStage> timeline = pipeline_timeline(schedule);
  for (std::size_t first = 0; first < timeline.size();) {
    std::size_t last = first;
    while (last < timeline.size() && timeline[last].step == timeline[first].step) ++last;
    // Stages of one step run at once on the GPU: no two may touch the same buffer.
    std::vector<std::size_t> touched;
    for (std::size_t i = first; i < last; ++i) {
      const TimedStage& stage = timeline[i];
      if (stage.chunk < 0) continue;
      const std::size_t slot = static_cast<std::size_t>(schedule.chunks[static_cast<std::size_t>(stage.chunk)].slot);
      switch (stage.stage) {
        case Stage::kGather:
          touched.push_back(slot);
          break;
        case Stage::kHostToDevice:
          touched.insert(touched.end(), {slot, slots + slot});
          break;
        case Stage::kKernels:
          touched.push_back(slots + slot);
          break;
        case Stage::kDeviceToHost:
          touched.insert(touched.end(), {slots + slot, 2 * slots + slot});
          break;
        case Stage::kScatter:
          touched.push_back(2 * slots + slot);
          break;
        case Stage::kHostPass:
          break;
      }
    }
    std::sort(touched.begin(), touched.end());
    if (std::adjacent_find(touched.begin(), touched.end()) != touched.end()) {
      hazard(timeline[first], "two stages of this step share a buffer");
    }

    for (std::size_t i = first; i < last; ++i) {
      const TimedStage& stage = timeline[i];
      if (stage.stage == Stage::kHostPass) {
        dft_axes(data.data(), schedule.problem.extents, schedule.phases[static_cast<std::size_t>(stage.phase)].axes,
                 sign);
        continue;
      }
      const Chunk& chunk = schedule.chunks[static_cast<std::size_t>(stage.chunk)];
      const HostRun& run = chunk.run;
      const std::size_t staged = static_cast<std::size_t>(run.elements());
      Buffer& pinned_in = buffer(0, chunk);
      Buffer& device = buffer(1, chunk);
      Buffer& pinned_out = buffer(2, chunk);
      switch (stage.stage) {
        case Stage::kGather:
          require(stage, pinned_in, -1, "the pinned H2D buffer");
          for (long long c = 0; c < run.count; ++c) {
            std::copy_n(data.begin() + run.first + c * run.stride, run.length,
                        pinned_in.values.begin() + c * run.length);
          }
          pinned_in.holder = stage.chunk;
          break;
        case Stage::kHostToDevice:
          require(stage, pinned_in, stage.chunk, "the pinned H2D buffer");
          require(stage, device, -1, "the device slot");
          std::copy_n(pinned_in.values.begin(), staged, device.values.begin());
          release(pinned_in);
          device.holder = stage.chunk;
          break;
        case Stage::kKernels:
          require(stage, device, stage.chunk, "the device slot");
          dft_axes(device.values.data(), chunk.staged, chunk.axes, sign);
          break;
        case Stage::kDeviceToHost:
          require(stage, device, stage.chunk, "the device slot");
          require(stage, pinned_out, -1, "the pinned D2H buffer");
          std::copy_n(device.values.begin(), staged, pinned_out.values.begin());
          release(device);
          pinned_out.holder = stage.chunk;
          break;
        case Stage::kScatter:
          require(stage, pinned_out, stage.chunk, "the pinned D2H buffer");
          for (long long c = 0; c < run.count; ++c) {
            std::copy_n(pinned_out.values.begin() + c * run.length, run.length,
                        data.begin() + run.first + c * run.stride);
          }
          release(pinned_out);
          break;
        case Stage::kHostPass:
          break;
      }
    }
    first = last;
  }
}

}  // namespace idgpu::ooc
