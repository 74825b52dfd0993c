#include "ooc/plan.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

namespace idgpu::ooc {

std::string problem_refusal(const Problem& problem) {
  const std::string prefix = "out-of-core FFT: ";
  if (problem.element_bytes != 8 && problem.element_bytes != 16) {
    return prefix + "element_bytes must be 8 (complex float) or 16 (complex double)";
  }
  const auto& e = problem.extents;
  const std::string shape = std::to_string(e[0]) + " x " + std::to_string(e[1]) + " x " + std::to_string(e[2]);
  for (long long extent : e) {
    if (extent < 1) return prefix + "sizes must be positive (" + shape + ")";
  }
  if (problem.batched && e[1] != 1) return prefix + "a batched 1D problem is [batch][1][n]";
  long long elements = 1, bytes = 0;
  for (long long extent : e) {
    if (__builtin_mul_overflow(elements, extent, &elements)) return prefix + "the elements of " + shape + " overflow";
  }
  if (__builtin_mul_overflow(elements, static_cast<long long>(problem.element_bytes), &bytes)) {
    return prefix + "the bytes of " + shape + " overflow";
  }
  return "";
}

long long resolve_device_bytes(std::size_t requested, long long configured, std::size_t free_bytes) {
  constexpr long long kMost = std::numeric_limits<long long>::max();
  const auto clamped = [](long double bytes) {
    return bytes >= static_cast<long double>(kMost) ? kMost : static_cast<long long>(bytes);
  };
  if (requested != 0) return clamped(static_cast<long double>(requested));
  if (configured > 0) return configured;
  return clamped(std::floor(static_cast<long double>(free_bytes) * static_cast<long double>(kFreeMemoryShare)));
}

ScheduleResult schedule_for(const Problem& problem, long long device_bytes, double work_factor, bool keep_pencils) {
  Options options;
  options.keep_pencils = keep_pencils;
  options.device_bytes = device_bytes;
  options.work_factor = work_factor;
  options.sign = -1;
  if (!problem.batched) options.force = ScheduleKind::kTwoPhase;
  return make_schedule(problem, options);
}

std::string FftLayout::to_string() const {
  std::string text = "rank " + std::to_string(rank) + " n {";
  for (int a = 0; a < rank; ++a) text += (a > 0 ? ", " : "") + std::to_string(n[static_cast<std::size_t>(a)]);
  return text + "} stride " + std::to_string(stride) + " distance " + std::to_string(distance) + " batch " +
         std::to_string(batch);
}

std::optional<FftLayout> fft_layout(const std::array<long long, 3>& staged, unsigned axes) {
  // The axes of length > 1, outermost first, and whether each is transformed.
  std::vector<long long> lengths;
  std::vector<bool> transformed;
  for (int a = 0; a < 3; ++a) {
    const long long length = staged[static_cast<std::size_t>(a)];
    if (length < 1) return std::nullopt;
    if (length == 1) continue;
    lengths.push_back(length);
    transformed.push_back((axes & axis_bit(a)) != 0);
  }
  const std::size_t count = lengths.size();
  std::size_t first = count, last = 0, rank = 0;  // the transformed axes' span
  for (std::size_t i = 0; i < count; ++i) {
    if (!transformed[i]) continue;
    first = std::min(first, i);
    last = i;
    ++rank;
  }
  if (rank == 0 || last - first + 1 != rank) return std::nullopt;  // none, or not adjacent
  FftLayout layout;
  layout.rank = static_cast<int>(rank);
  for (std::size_t i = 0; i < rank; ++i) layout.n[i] = lengths[first + i];
  long long outer = 1, inner = 1;  // the untransformed axes before and after them
  for (std::size_t i = 0; i < first; ++i) outer *= lengths[i];
  for (std::size_t i = last + 1; i < count; ++i) inner *= lengths[i];
  if (inner == 1) {  // a batch of whole contiguous transforms
    layout.stride = 1;
    layout.distance = layout.points();
    layout.batch = outer;
  } else if (outer == 1) {  // `inner` columns side by side, each transform strided by them
    layout.stride = inner;
    layout.distance = 1;
    layout.batch = inner;
  } else {
    return std::nullopt;  // batches both outside and inside: not one cuFFT plan
  }
  return layout;
}

}  // namespace idgpu::ooc

namespace idgpu::ooc {

const char* to_string(Work work) {
  switch (work) {
    case Work::kC2C: return "C2C";
    case Work::kR2C: return "R2C";
    case Work::kC2R: return "C2R";
    case Work::kColumns: return "columns";
  }
  return "?";
}

namespace {

Transfer complex_transfer(int array, const Chunk& chunk, long long element_bytes) {
  Transfer transfer;
  transfer.array = array;
  transfer.run = chunk.run;
  transfer.element_bytes = element_bytes;
  transfer.device_pitch = chunk.run.length;
  return transfer;
}

// The real side of a chunk that transforms axis 2: its complex run must be whole contiguous rows of
// `half` elements; the rows' reals (n2 each, `host_pitch` apart on the host, 2 half on the device).
Transfer real_transfer(int array, const Chunk& chunk, long long half, long long n2, long long host_pitch,
                       long long element_bytes) {
  const HostRun& run = chunk.run;
  const bool contiguous = run.count == 1 || run.stride == run.length;
  if (!contiguous || run.first % half != 0 || run.elements() % half != 0) {
    throw std::invalid_argument("out-of-core FFT: a slab of the half spectrum is not whole rows");
  }
  Transfer transfer;
  transfer.array = array;
  transfer.element_bytes = element_bytes / 2;
  transfer.run.first = run.first / half * host_pitch;
  transfer.run.length = n2;
  transfer.run.count = run.elements() / half;
  transfer.run.stride = host_pitch;
  transfer.device_pitch = 2 * half;
  return transfer;
}

void append_phase(Job* job, const Schedule& schedule, const Phase& phase,
                  const std::function<Step(const Chunk&)>& make) {
  JobPhase added;
  added.first_step = static_cast<int>(job->steps.size());
  for (int j = phase.first_chunk; j < phase.first_chunk + phase.chunk_count; ++j) {
    const Chunk& chunk = schedule.chunks[static_cast<std::size_t>(j)];
    Step step = make(chunk);
    step.phase = static_cast<int>(job->phases.size());
    step.staged = chunk.staged;
    step.axes = chunk.axes;
    step.slot = static_cast<int>(job->steps.size()) % schedule.slot_count;
    job->steps.push_back(step);
  }
  added.step_count = static_cast<int>(job->steps.size()) - added.first_step;
  job->phases.push_back(added);
  job->round_trips = static_cast<int>(job->phases.size());
}

void require_device_phases(const Schedule& schedule) {
  for (const Phase& phase : schedule.phases) {
    if (phase.kind != PhaseKind::kDevice) throw std::invalid_argument("out-of-core FFT: a host phase in a job");
  }
}

}  // namespace

Job complex_job(const Schedule& schedule) {
  require_device_phases(schedule);
  Job job;
  const long long bytes = schedule.problem.element_bytes;
  for (const Phase& phase : schedule.phases) {
    append_phase(&job, schedule, phase, [&](const Chunk& chunk) {
      Step step;
      step.work = Work::kC2C;
      step.in = step.out = complex_transfer(kInput, chunk, bytes);
      return step;
    });
  }
  return job;
}

Job real_job(const Schedule& schedule, long long n2, bool inverse, bool in_place) {
  require_device_phases(schedule);
  const long long half = schedule.problem.extents[2];
  if (n2 < 2 || n2 / 2 + 1 != half) throw std::invalid_argument("out-of-core FFT: n2 does not match the half spectrum");
  const long long bytes = schedule.problem.element_bytes;
  const long long host_pitch = in_place ? 2 * half : n2;
  std::vector<const Phase*> order;
  for (const Phase& phase : schedule.phases) order.push_back(&phase);
  // The phase with axis 2 first forward, last inverse (the schedule was made for sign -1).
  std::stable_partition(order.begin(), order.end(),
                        [&](const Phase* phase) { return ((phase->axes & axis_bit(2)) != 0) != inverse; });
  Job job;
  for (const Phase* phase : order) {
    const bool real = (phase->axes & axis_bit(2)) != 0;
    append_phase(&job, schedule, *phase, [&](const Chunk& chunk) {
      Step step;
      if (!real) {
        step.work = Work::kC2C;
        // The pencils of the half spectrum: in the output after the forward slabs, in place in the
        // input before the inverse ones.
        step.in = step.out = complex_transfer(inverse ? kInput : kOutput, chunk, bytes);
      } else if (!inverse) {
        step.work = Work::kR2C;
        step.in = real_transfer(kInput, chunk, half, n2, host_pitch, bytes);
        step.out = complex_transfer(kOutput, chunk, bytes);
      } else {
        step.work = Work::kC2R;
        step.in = complex_transfer(kInput, chunk, bytes);
        step.out = real_transfer(kOutput, chunk, half, n2, host_pitch, bytes);
      }
      step.real_length = real ? n2 : 0;
      return step;
    });
  }
  return job;
}

Job poisson_job(const Schedule& schedule, long long nx) {
  require_device_phases(schedule);
  const long long half = schedule.problem.extents[2];
  if (nx < 2 || nx / 2 + 1 != half) throw std::invalid_argument("out-of-core Poisson: nx does not match the spectrum");
  const Phase* slabs = nullptr;
  const Phase* pencils = nullptr;
  for (const Phase& phase : schedule.phases) {
    if (phase.axes == axis_bit(0)) {
      pencils = &phase;
    } else if ((phase.axes & axis_bit(0)) == 0 && (phase.axes & axis_bit(2)) != 0) {
      slabs = &phase;
    }
  }
  if (slabs == nullptr || pencils == nullptr || schedule.phases.size() != 2) {
    throw std::invalid_argument("out-of-core Poisson: the schedule is not plane slabs and z pencils");
  }
  const long long bytes = schedule.problem.element_bytes;
  Job job;
  append_phase(&job, schedule, *slabs, [&](const Chunk& chunk) {
    Step step;
    step.work = Work::kR2C;
    step.in = real_transfer(kInput, chunk, half, nx, nx, bytes);
    step.out = complex_transfer(kScratch, chunk, bytes);
    step.real_length = nx;
    return step;
  });
  append_phase(&job, schedule, *pencils, [&](const Chunk& chunk) {
    Step step;
    step.work = Work::kColumns;
    step.in = step.out = complex_transfer(kScratch, chunk, bytes);
    step.first_column = chunk.run.first;
    return step;
  });
  append_phase(&job, schedule, *slabs, [&](const Chunk& chunk) {
    Step step;
    step.work = Work::kC2R;
    step.in = complex_transfer(kScratch, chunk, bytes);
    step.out = real_transfer(kOutput, chunk, half, nx, nx, bytes);
    step.real_length = nx;
    return step;
  });
  return job;
}

std::optional<StepPlan> step_plan(const Step& step) {
  std::optional<FftLayout> layout = fft_layout(step.staged, step.axes);
  if (!layout) return std::nullopt;
  StepPlan plan;
  plan.work = step.work == Work::kColumns ? Work::kC2C : step.work;
  plan.layout = *layout;
  if (step.work == Work::kR2C || step.work == Work::kC2R) {
    // Axis 2 is transformed, so it is the layout's last length, and the batch is of whole
    // contiguous transforms (a slab, a batch, the whole array).
    if (layout->stride != 1 || step.real_length / 2 + 1 != layout->n[static_cast<std::size_t>(layout->rank - 1)]) {
      return std::nullopt;
    }
    plan.layout.n[static_cast<std::size_t>(layout->rank - 1)] = step.real_length;
    plan.layout.distance = plan.layout.points();
  }
  return plan;
}

}  // namespace idgpu::ooc
