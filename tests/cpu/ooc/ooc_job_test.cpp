// The jobs of the out-of-core real transforms and Poisson solve (src/ooc/plan.h: real_job,
// poisson_job, step_plan) over the schedules of their half spectra [n0][n1][n2 / 2 + 1]:
//  - structure: phases in order (forward: R2C slabs, then C2C pencils in the output; inverse: C2C
//    pencils in place in the input, then C2R slabs; Poisson: R2C into the scratch, columns in it,
//    C2R out of it), every step its chunk's run, staged shape and axes, real rows n2 reals (host
//    pitch n2 out of place, 2 (n2 / 2 + 1) in place, device pitch 2 (n2 / 2 + 1)), every transfer
//    within its slot, slots round-robin, a step plan for every step (real steps: the real length
//    last, cuFFT's basic layout);
//  - coverage: per phase, every real element once, no real row's padding, every half-spectrum
//    element once, and no step writes what another step of its phase reads or writes (the GPU
//    pipelines a phase's steps in any overlap);
//  - values: a host executor of a Job moves each step as the GPU executor (src/ooc/executor.cpp,
//    run_job) does: the in transfer's segment c at c * device_pitch of a slot poisoned with NaN
//    before each step, the work from step_plan's layout (C2C by cuFFT's advanced-layout formula;
//    R2C / C2R in place on rows 2 h reals apart, padding left NaN), the out transfer back. Its
//    results must match a direct multi-dimensional real DFT (and its inverse via the Hermitian
//    extension), and, for the Poisson job with the periodic z solve in its columns steps, the host
//    reference solve (src/poisson/reference.h). Tampered copies of the executor (device pitch, host
//    pitch, first column) must fail, so the checks are shown to bite.
//
// Schedules: schedule_for's options (two-phase forced for 3D, sign -1, work factor 1), built with
// make_schedule so that the segment granule and the slot count can shrink to give several chunks
// per phase from small arrays; checked equal to schedule_for's where the options coincide.
// Random inputs from a fixed seed (Catch's --rng-seed where given), printed once.
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ooc/plan.h"
#include "ooc/schedule.h"
#include "poisson/layout.h"
#include "poisson/reference.h"

namespace ooc = idgpu::ooc;
namespace reference = idgpu::poisson::reference;
using Complex = std::complex<double>;
using Extents = std::array<long long, 3>;
using ooc::axis_bit;
using ooc::Work;

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;
const double kNan = std::numeric_limits<double>::quiet_NaN();

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = Catch::rngSeed() != 0 ? Catch::rngSeed() : 20140402u;
    std::cout << "ooc job tests: base seed " << s << " (rerun with --rng-seed " << s << ")\n";
    return s;
  }();
  return seed;
}

// Uniform in [-1, 1], never exactly zero.
std::vector<double> random_doubles(std::size_t count, std::uint64_t salt) {
  std::mt19937_64 engine(base_seed() * 0x9e3779b97f4a7c15ull + salt);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(count);
  for (double& value : values) {
    do value = uniform(engine);
    while (value == 0.0);
  }
  return values;
}

std::size_t at(long long index) { return static_cast<std::size_t>(index); }

long long product(const Extents& e) { return e[0] * e[1] * e[2]; }

// ---------------------------------------------------------------------------------------------
// Problems and schedules.

// A real problem: [n0][n1][n2] reals transformed along every axis, or a batch [n0][1][n2] of 1D
// transforms; its half spectrum is [n0][n1][n2 / 2 + 1].
struct RealShape {
  long long n0 = 1, n1 = 1, n2 = 1;
  bool batched = false;

  long long half() const { return n2 / 2 + 1; }
  long long rows() const { return n0 * n1; }
  unsigned axes() const { return batched ? axis_bit(2) : axis_bit(0) | axis_bit(1) | axis_bit(2); }
  // The points the unnormalised forward and inverse transforms multiply by.
  long long points() const { return batched ? n2 : n0 * n1 * n2; }
  ooc::Problem half_problem(int element_bytes) const {
    return batched ? ooc::batched_1d(n0, half(), element_bytes) : ooc::three_d(n0, n1, half(), element_bytes);
  }
  std::string text() const {
    return batched ? std::to_string(n0) + " real transforms of " + std::to_string(n2)
                   : std::to_string(n0) + " x " + std::to_string(n1) + " x " + std::to_string(n2) + " reals";
  }
};

// schedule_for's options (src/ooc/plan.cpp), with the granule and slots the tests vary.
ooc::Options schedule_for_options(const ooc::Problem& problem, long long budget, bool keep_pencils,
                                  long long min_segment_bytes = ooc::kSegmentBytes,
                                  int slots = ooc::kDefaultSlotCount) {
  ooc::Options options;
  options.device_bytes = budget;
  options.work_factor = 1.0;
  options.sign = -1;
  options.keep_pencils = keep_pencils;
  options.min_segment_bytes = min_segment_bytes;
  options.slot_count = slots;
  if (!problem.batched) options.force = ooc::ScheduleKind::kTwoPhase;
  return options;
}

bool same_chunks(const ooc::Schedule& a, const ooc::Schedule& b) {
  if (a.to_string() != b.to_string() || a.chunks.size() != b.chunks.size()) return false;
  for (std::size_t j = 0; j < a.chunks.size(); ++j) {
    const ooc::Chunk &x = a.chunks[j], &y = b.chunks[j];
    if (x.run.first != y.run.first || x.run.length != y.run.length || x.run.count != y.run.count ||
        x.run.stride != y.run.stride || x.staged != y.staged || x.axes != y.axes || x.slot != y.slot) {
      return false;
    }
  }
  return true;
}

// Budgets from the least to the whole array in one slot: the least, slots of 1, 2 and 3 planes
// (batched: transforms) where above the least, and the whole array.
std::vector<long long> budgets_of(const ooc::Problem& problem, bool keep_pencils, long long min_segment_bytes,
                                  int slots) {
  const long long least =
      ooc::make_schedule(problem, schedule_for_options(problem, 1, keep_pencils, min_segment_bytes, slots))
          .minimum_device_bytes;
  const Extents& e = problem.extents;
  const long long plane_bytes = e[1] * e[2] * problem.element_bytes;
  std::vector<long long> budgets{least};
  for (long long planes : {1LL, 2LL, 3LL}) {
    budgets.push_back(std::max(least, ooc::device_bytes_for_slot(planes * plane_bytes, slots, 1.0)));
  }
  budgets.push_back(ooc::device_bytes_for_slot(product(e) * problem.element_bytes, slots, 1.0));
  std::sort(budgets.begin(), budgets.end());
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  return budgets;
}

// The second least of budgets_of (granule of 16 bytes, 3 slots): several chunks where the
// problem has planes to split.
long long second_budget(const ooc::Problem& problem, bool keep_pencils) {
  const std::vector<long long> budgets = budgets_of(problem, keep_pencils, 16, ooc::kDefaultSlotCount);
  return budgets[std::min<std::size_t>(1, budgets.size() - 1)];
}

// ---------------------------------------------------------------------------------------------
// Naive DFTs and the direct references.

std::vector<Complex> roots_of(long long n, int sign) {
  std::vector<Complex> roots(at(n));
  for (long long e = 0; e < n; ++e) roots[at(e)] = std::polar(1.0, sign * 2.0 * kPi * static_cast<double>(e) / n);
  return roots;
}

// The unnormalised DFT, exp(sign 2 pi i j k / n), of every line along `axis` of the row-major
// array `dims` at `values`.
void dft_lines(Complex* values, const std::vector<long long>& dims, std::size_t axis, int sign) {
  const long long n = dims[axis];
  if (n == 1) return;
  long long stride = 1, outer = 1;
  for (std::size_t a = axis + 1; a < dims.size(); ++a) stride *= dims[a];
  for (std::size_t a = 0; a < axis; ++a) outer *= dims[a];
  const std::vector<Complex> roots = roots_of(n, sign);
  std::vector<Complex> line(at(n));
  for (long long o = 0; o < outer; ++o) {
    for (long long i = 0; i < stride; ++i) {
      Complex* start = values + o * n * stride + i;
      for (long long k = 0; k < n; ++k) {
        Complex sum = 0;
        for (long long j = 0; j < n; ++j) sum += start[j * stride] * roots[at((j * k) % n)];
        line[at(k)] = sum;
      }
      for (long long k = 0; k < n; ++k) start[k * stride] = line[at(k)];
    }
  }
}

// The direct R2C of the reals [d0][d1][n2] along `axes` (axis 2 among them): the half spectrum
// [d0][d1][n2 / 2 + 1], each output a sum over every input (no line transforms).
std::vector<Complex> direct_r2c(const std::vector<double>& x, const Extents& d, unsigned axes) {
  const long long h = d[2] / 2 + 1;
  std::array<std::vector<Complex>, 3> roots;
  for (std::size_t a = 0; a < 3; ++a) roots[a] = roots_of(d[a], -1);
  std::vector<Complex> out(at(d[0] * d[1] * h));
  for (long long k0 = 0; k0 < d[0]; ++k0) {
    for (long long k1 = 0; k1 < d[1]; ++k1) {
      for (long long k2 = 0; k2 < h; ++k2) {
        const long long k[3] = {k0, k1, k2};
        long long lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
          const bool along = (axes & axis_bit(a)) != 0;
          lo[a] = along ? 0 : k[a];
          hi[a] = along ? d[at(a)] : k[a] + 1;
        }
        Complex sum = 0;
        for (long long j0 = lo[0]; j0 < hi[0]; ++j0) {
          for (long long j1 = lo[1]; j1 < hi[1]; ++j1) {
            for (long long j2 = 0; j2 < d[2]; ++j2) {
              Complex w = roots[2][at((k2 * j2) % d[2])];
              if ((axes & axis_bit(0)) != 0) w *= roots[0][at((k0 * j0) % d[0])];
              if ((axes & axis_bit(1)) != 0) w *= roots[1][at((k1 * j1) % d[1])];
              sum += x[at((j0 * d[1] + j1) * d[2] + j2)] * w;
            }
          }
        }
        out[at((k0 * d[1] + k1) * h + k2)] = sum;
      }
    }
  }
  return out;
}

// The direct C2R of the half spectrum [d0][d1][n2 / 2 + 1] along `axes` into the reals
// [d0][d1][n2]: the half spectrum extended to [d0][d1][n2] by Hermitian symmetry (element k with
// k2 >= n2 / 2 + 1 is conj of element -k, negated along the transformed axes), the full inverse
// DFT, its real part.
std::vector<double> direct_c2r(const std::vector<Complex>& half_spectrum, const Extents& d, unsigned axes) {
  const long long h = d[2] / 2 + 1;
  std::vector<Complex> full(at(product(d)));
  for (long long k0 = 0; k0 < d[0]; ++k0) {
    for (long long k1 = 0; k1 < d[1]; ++k1) {
      for (long long k2 = 0; k2 < d[2]; ++k2) {
        Complex value;
        if (k2 < h) {
          value = half_spectrum[at((k0 * d[1] + k1) * h + k2)];
        } else {
          const long long m0 = (axes & axis_bit(0)) != 0 ? (d[0] - k0) % d[0] : k0;
          const long long m1 = (axes & axis_bit(1)) != 0 ? (d[1] - k1) % d[1] : k1;
          value = std::conj(half_spectrum[at((m0 * d[1] + m1) * h + (d[2] - k2))]);
        }
        full[at((k0 * d[1] + k1) * d[2] + k2)] = value;
      }
    }
  }
  std::array<std::vector<Complex>, 3> roots;
  for (std::size_t a = 0; a < 3; ++a) roots[a] = roots_of(d[a], +1);
  std::vector<double> out(at(product(d)));
  for (long long j0 = 0; j0 < d[0]; ++j0) {
    for (long long j1 = 0; j1 < d[1]; ++j1) {
      for (long long j2 = 0; j2 < d[2]; ++j2) {
        const long long j[3] = {j0, j1, j2};
        long long lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
          const bool along = (axes & axis_bit(a)) != 0;
          lo[a] = along ? 0 : j[a];
          hi[a] = along ? d[at(a)] : j[a] + 1;
        }
        Complex sum = 0;
        for (long long k0 = lo[0]; k0 < hi[0]; ++k0) {
          for (long long k1 = lo[1]; k1 < hi[1]; ++k1) {
            for (long long k2 = 0; k2 < d[2]; ++k2) {
              Complex w = roots[2][at((k2 * j2) % d[2])];
              if ((axes & axis_bit(0)) != 0) w *= roots[0][at((k0 * j0) % d[0])];
              if ((axes & axis_bit(1)) != 0) w *= roots[1][at((k1 * j1) % d[1])];
              sum += full[at((k0 * d[1] + k1) * d[2] + k2)] * w;
            }
          }
        }
        out[at((j0 * d[1] + j1) * d[2] + j2)] = sum.real();
      }
    }
  }
  return out;
}

// ||y - reference|| / ||reference|| over doubles; NaN anywhere makes it NaN (never below a bound).
double relative_error(const std::vector<double>& y, const std::vector<double>& reference) {
  if (y.size() != reference.size()) return kNan;
  double error = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    error += (y[i] - reference[i]) * (y[i] - reference[i]);
    norm += reference[i] * reference[i];
  }
  return std::sqrt(error / norm);
}

std::vector<double> interleaved(const std::vector<Complex>& values) {
  std::vector<double> doubles;
  doubles.reserve(2 * values.size());
  for (const Complex& value : values) doubles.insert(doubles.end(), {value.real(), value.imag()});
  return doubles;
}

std::vector<Complex> complex_of(const std::vector<double>& doubles, std::size_t first, std::size_t count) {
  if (2 * (first + count) > doubles.size()) throw std::logic_error("complex_of: out of range");
  std::vector<Complex> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = {doubles[2 * (first + i)], doubles[2 * (first + i) + 1]};
  return values;
}

// Rows of n reals `pitch` apart -> packed [rows][n]; and back into a pitched array.
std::vector<double> unpitched(const std::vector<double>& pitched, long long rows, long long n, long long pitch) {
  std::vector<double> packed(at(rows * n));
  for (long long r = 0; r < rows; ++r) {
    for (long long x = 0; x < n; ++x) packed[at(r * n + x)] = pitched[at(r * pitch + x)];
  }
  return packed;
}

// ---------------------------------------------------------------------------------------------
// The host executor of a job.

// How a copy of the executor is broken on purpose, to show that the value checks catch it.
enum class Tamper {
  kNone,
  kDevicePitchIsLength,  // device segment c at c * length, not c * device_pitch
  kHostPitchIsLength,    // host segment c at first + c * length, not first + c * stride
  kFirstColumnPlusOne,   // the columns work told the pencil starts one column later
};

// The kColumns work on a pencil's staged complex values (the step's C2C layout along its columns'
// axis, its first column and its columns as the GPU executor passes them: step.first_column and
// step.staged[2]).
using ColumnWork =
    std::function<void(std::vector<Complex>& pencil, const ooc::FftLayout& layout, long long first_column,
                       long long columns)>;

// The C2C transform of cuFFT's advanced layout in place on `values`: element i (row-major in
// n[0..rank)) of transform b at b * distance + i * stride.
void layout_c2c(std::vector<Complex>& values, const ooc::FftLayout& layout, int sign) {
  const long long points = layout.points();
  const std::vector<long long> dims(layout.n.begin(), layout.n.begin() + layout.rank);
  std::vector<Complex> transform(at(points));
  for (long long b = 0; b < layout.batch; ++b) {
    for (long long i = 0; i < points; ++i) {
      const long long index = b * layout.distance + i * layout.stride;
      if (index >= static_cast<long long>(values.size())) throw std::logic_error("C2C layout leaves the slot");
      transform[at(i)] = values[at(index)];
    }
    for (std::size_t a = 0; a < dims.size(); ++a) dft_lines(transform.data(), dims, a, sign);
    for (long long i = 0; i < points; ++i) values[at(b * layout.distance + i * layout.stride)] = transform[at(i)];
  }
}

// cuFFT's in-place real transforms of the basic layout (what the GPU executor plans for real
// steps: rank, n and batch only): `batch` transforms of n[0..rank) reals, the last axis real, as
// rows of n_last reals 2 (n_last / 2 + 1) reals apart, each transform's rows consecutive; the half
// spectrum of a transform [n_0]..[n_rank-2][n_last / 2 + 1] complex in the same bytes.
struct RealLayout {
  std::vector<long long> complex_dims;  // [batch][n_0]..[n_rank-2][h]
  long long rows = 0;                   // batch * n_0 * .. * n_rank-2
  long long n = 0;                      // the real points of the last axis
  long long half = 0;
};

RealLayout real_layout(const ooc::FftLayout& layout) {
  RealLayout real;
  real.n = layout.n[at(layout.rank - 1)];
  real.half = real.n / 2 + 1;
  real.complex_dims.push_back(layout.batch);
  real.rows = layout.batch;
  for (int a = 0; a + 1 < layout.rank; ++a) {
    real.complex_dims.push_back(layout.n[at(a)]);
    real.rows *= layout.n[at(a)];
  }
  real.complex_dims.push_back(real.half);
  return real;
}

void slot_r2c(std::vector<double>& slot, const ooc::FftLayout& layout) {
  const RealLayout real = real_layout(layout);
  if (real.rows * 2 * real.half > static_cast<long long>(slot.size())) throw std::logic_error("R2C leaves the slot");
  const std::vector<Complex> roots = roots_of(real.n, -1);
  std::vector<Complex> spectrum(at(real.rows * real.half));
  for (long long r = 0; r < real.rows; ++r) {
    for (long long k = 0; k < real.half; ++k) {
      Complex sum = 0;
      for (long long j = 0; j < real.n; ++j) sum += slot[at(r * 2 * real.half + j)] * roots[at((j * k) % real.n)];
      spectrum[at(r * real.half + k)] = sum;
    }
  }
  for (std::size_t a = 1; a + 1 < real.complex_dims.size(); ++a) dft_lines(spectrum.data(), real.complex_dims, a, -1);
  for (std::size_t i = 0; i < spectrum.size(); ++i) {
    slot[2 * i] = spectrum[i].real();
    slot[2 * i + 1] = spectrum[i].imag();
  }
}

void slot_c2r(std::vector<double>& slot, const ooc::FftLayout& layout) {
  const RealLayout real = real_layout(layout);
  std::vector<Complex> spectrum = complex_of(slot, 0, at(real.rows * real.half));
  for (std::size_t a = 1; a + 1 < real.complex_dims.size(); ++a) dft_lines(spectrum.data(), real.complex_dims, a, +1);
  const std::vector<Complex> roots = roots_of(real.n, +1);
  // The padding of every row is left NaN, so an out transfer that reads it poisons the result.
  std::fill(slot.begin(), slot.end(), kNan);
  for (long long r = 0; r < real.rows; ++r) {
    const Complex* line = spectrum.data() + r * real.half;
    for (long long j = 0; j < real.n; ++j) {
      Complex sum = 0;
      for (long long k = 0; k < real.n; ++k) {
        const Complex value = k < real.half ? line[k] : std::conj(line[real.n - k]);
        sum += value * roots[at((j * k) % real.n)];
      }
      slot[at(r * 2 * real.half + j)] = sum.real();
    }
  }
}

// Host arrays of doubles (a complex element is two, a real one); in place, kInput and kOutput are
// the same vector.
using HostArrays = std::array<std::vector<double>*, ooc::kHostArrays>;

// Moves `transfer`'s segments between a host array and the slot (doubles), as cudaMemcpy2DAsync
// does in run_job: segment c of run.length elements between host element run.first + c * stride
// and slot element c * device_pitch.
void copy_transfer(const ooc::Transfer& transfer, std::vector<double>& host, std::vector<double>& slot,
                   long long real_bytes, bool to_slot, Tamper tamper) {
  if (transfer.element_bytes != real_bytes && transfer.element_bytes != 2 * real_bytes) {
    throw std::logic_error("a transfer of " + std::to_string(transfer.element_bytes) + "-byte elements");
  }
  const long long unit = transfer.element_bytes / real_bytes;  // doubles per element
  const ooc::HostRun& run = transfer.run;
  const long long host_pitch = tamper == Tamper::kHostPitchIsLength ? run.length : run.stride;
  const long long device_pitch = tamper == Tamper::kDevicePitchIsLength ? run.length : transfer.device_pitch;
  for (long long c = 0; c < run.count; ++c) {
    const long long host_first = (run.first + c * host_pitch) * unit;
    const long long slot_first = c * device_pitch * unit;
    const long long width = run.length * unit;
    if (host_first < 0 || host_first + width > static_cast<long long>(host.size())) {
      throw std::logic_error("a transfer leaves its host array");
    }
    if (slot_first + width > static_cast<long long>(slot.size())) throw std::logic_error("a transfer leaves the slot");
    if (to_slot) {
      std::copy_n(host.begin() + host_first, width, slot.begin() + slot_first);
    } else {
      std::copy_n(slot.begin() + slot_first, width, host.begin() + host_first);
    }
  }
}

// Runs `job` on `arrays` step by step (one step's transfers and work at a time: the GPU runs a
// phase's steps overlapped, which the coverage checks show cannot change the result), each step in
// a slot of schedule.slot_bytes poisoned with NaN. `sign`: the C2C steps' direction.
void run_job_on_host(const ooc::Job& job, const ooc::Schedule& schedule, const HostArrays& arrays, int sign,
                     const ColumnWork& columns = {}, Tamper tamper = Tamper::kNone) {
  const long long real_bytes = schedule.problem.element_bytes / 2;
  std::vector<double> slot(at(schedule.slot_bytes / real_bytes));
  const auto host = [&](int array) -> std::vector<double>& {
    if (array < 0 || array >= ooc::kHostArrays || arrays[at(array)] == nullptr) {
      throw std::logic_error("a step names host array " + std::to_string(array) + ", which this exec lacks");
    }
    return *arrays[at(array)];
  };
  for (std::size_t p = 0; p < job.phases.size(); ++p) {
    const ooc::JobPhase& phase = job.phases[p];
    for (int j = phase.first_step; j < phase.first_step + phase.step_count; ++j) {
      const ooc::Step& step = job.steps[at(j)];
      std::fill(slot.begin(), slot.end(), kNan);
      copy_transfer(step.in, host(step.in.array), slot, real_bytes, true, tamper);
      const std::optional<ooc::StepPlan> plan = ooc::step_plan(step);
      if (!plan) throw std::logic_error("step " + std::to_string(j) + " has no plan");
      const ooc::FftLayout& layout = plan->layout;
      switch (step.work) {
        case Work::kC2C: {
          std::vector<Complex> values = complex_of(slot, 0, slot.size() / 2);
          layout_c2c(values, layout, sign);
          std::copy_n(interleaved(values).begin(), slot.size(), slot.begin());
          break;
        }
        case Work::kR2C:
          slot_r2c(slot, layout);
          break;
        case Work::kC2R:
          slot_c2r(slot, layout);
          break;
        case Work::kColumns: {
          if (!columns) throw std::logic_error("a columns step without columns work");
          std::vector<Complex> values = complex_of(slot, 0, slot.size() / 2);
          const long long first = step.first_column + (tamper == Tamper::kFirstColumnPlusOne ? 1 : 0);
          columns(values, layout, first, step.staged[2]);
          std::copy_n(interleaved(values).begin(), slot.size(), slot.begin());
          break;
        }
      }
      copy_transfer(step.out, host(step.out.array), slot, real_bytes, false, tamper);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The structure of a job.

// What a phase of a job is: its work, which schedule phase its steps come from (the slabs, which
// transform axis 2, or the pencils), and its transfers' arrays (the real side where marked).
struct PhaseSpec {
  Work work = Work::kC2C;
  bool slabs = true;
  int in_array = ooc::kInput;
  bool in_real = false;
  int out_array = ooc::kInput;
  bool out_real = false;
};

// The real side of the host arrays: rows of n2 reals, `real_pitch` apart; `in_place`: kInput and
// kOutput one array (its real rows 2 h apart, its half spectrum the same bytes).
struct RealSide {
  long long n2 = 0;
  long long real_pitch = 0;
  bool in_place = false;
};

std::string transfer_text(const ooc::Transfer& t) {
  return "array " + std::to_string(t.array) + " run {" + std::to_string(t.run.first) + ", " +
         std::to_string(t.run.length) + ", " + std::to_string(t.run.count) + ", " + std::to_string(t.run.stride) +
         "} of " + std::to_string(t.element_bytes) + " bytes, device pitch " + std::to_string(t.device_pitch);
}

// What is wrong with `job` against `specs` over `schedule` (of the half spectrum [n0][n1][h]), or "".
std::string job_problems(const ooc::Job& job, const ooc::Schedule& schedule, const std::vector<PhaseSpec>& specs,
                         const RealSide& side) {
  const Extents& e = schedule.problem.extents;
  const long long h = e[2], rows = e[0] * e[1], complex_elements = rows * h;
  const long long eb = schedule.problem.element_bytes, real_bytes = eb / 2;
  // Doubles of each physical array: the real side rows * pitch, the complex side 2 rows h.
  const long long real_doubles = rows * side.real_pitch, complex_doubles = 2 * complex_elements;
  if (side.in_place && real_doubles != complex_doubles) return "test setup: in place needs pitch 2 h";

  const ooc::Phase* slabs = nullptr;
  const ooc::Phase* pencils = nullptr;
  for (const ooc::Phase& phase : schedule.phases) {
    if ((phase.axes & axis_bit(2)) != 0) slabs = &phase;
    if (phase.axes == axis_bit(0)) pencils = &phase;
  }
  if (job.phases.size() != specs.size()) {
    return "job has " + std::to_string(job.phases.size()) + " phases, expected " + std::to_string(specs.size());
  }
  if (job.round_trips != static_cast<int>(job.phases.size())) return "round_trips != phases";

  int next_step = 0;
  for (std::size_t p = 0; p < specs.size(); ++p) {
    const PhaseSpec& spec = specs[p];
    const ooc::JobPhase& phase = job.phases[p];
    const std::string where = "phase " + std::to_string(p);
    const ooc::Phase* source = spec.slabs ? slabs : pencils;
    if (source == nullptr) return where + ": the schedule has no such phase";
    if (phase.first_step != next_step || phase.step_count != source->chunk_count) {
      return where + ": steps [" + std::to_string(phase.first_step) + ", +" + std::to_string(phase.step_count) +
             "), expected [" + std::to_string(next_step) + ", +" + std::to_string(source->chunk_count) + ")";
    }
    next_step += phase.step_count;
    // Per physical array, the doubles each step of this phase reads and writes (-1: none, -2: two
    // steps), and the coverage counts of the real rows and of the half spectrum.
    const auto physical = [&](int array) { return side.in_place && array == ooc::kOutput ? ooc::kInput : array; };
    std::vector<std::vector<int>> reader(ooc::kHostArrays), writer(ooc::kHostArrays);
    std::vector<int> real_count(at(real_doubles), 0), complex_count(at(complex_elements), 0);
    for (int j = phase.first_step; j < phase.first_step + phase.step_count; ++j) {
      const ooc::Step& step = job.steps[at(j)];
      const ooc::Chunk& chunk = schedule.chunks[at(source->first_chunk + j - phase.first_step)];
      const std::string at_step = where + " step " + std::to_string(j);
      if (step.phase != static_cast<int>(p)) return at_step + ": phase " + std::to_string(step.phase);
      if (step.work != spec.work) return at_step + ": work " + ooc::to_string(step.work);
      if (step.slot != j % schedule.slot_count) return at_step + ": slot " + std::to_string(step.slot);
      if (step.staged != chunk.staged || step.axes != chunk.axes) return at_step + ": not its chunk's staged shape";
      const bool real_work = step.work == Work::kR2C || step.work == Work::kC2R;
      if (step.real_length != (real_work ? side.n2 : 0)) return at_step + ": real_length";
      if (step.first_column != (step.work == Work::kColumns ? chunk.run.first : 0)) return at_step + ": first_column";
      if (spec.in_real == spec.out_real && !(step.in == step.out)) return at_step + ": in != out";

      for (const bool is_in : {true, false}) {
        const ooc::Transfer& t = is_in ? step.in : step.out;
        const bool real = is_in ? spec.in_real : spec.out_real;
        const int array = is_in ? spec.in_array : spec.out_array;
        const std::string what = at_step + (is_in ? " in " : " out ") + transfer_text(t);
        if (t.array != array) return what + ": wrong array";
        const ooc::HostRun& run = t.run;
        if (run.length < 1 || run.count < 1 || (run.count > 1 && run.stride < run.length)) return what + ": bad run";
        // Within the slot, segments apart, and the slot image of the staged chunk.
        if (t.device_pitch < run.length) return what + ": device pitch below the length";
        if (((run.count - 1) * t.device_pitch + run.length) * t.element_bytes > schedule.slot_bytes) {
          return what + ": leaves the slot of " + std::to_string(schedule.slot_bytes) + " bytes";
        }
        const long long staged = product(step.staged);
        if (real) {
          // Whole rows of the chunk: n2 reals each, the chunk's rows, 2 h reals apart in the slot.
          if (t.element_bytes != real_bytes || run.length != side.n2 || t.device_pitch != 2 * h ||
              (run.count > 1 && run.stride != side.real_pitch) || run.first % side.real_pitch != 0 ||
              run.first / side.real_pitch * h != chunk.run.first || run.count * h != chunk.run.elements() ||
              run.count * t.device_pitch * real_bytes != staged * eb) {
            return what + ": not the real rows of chunk run {" + std::to_string(chunk.run.first) + ", " +
                   std::to_string(chunk.run.length) + ", " + std::to_string(chunk.run.count) + ", " +
                   std::to_string(chunk.run.stride) + "}";
          }
          if (t.host_pitch() != (run.count > 1 ? side.real_pitch : side.n2)) return what + ": host pitch";
        } else {
          if (t.element_bytes != eb || t.device_pitch != run.length || run.first != chunk.run.first ||
              run.length != chunk.run.length || run.count != chunk.run.count ||
              (run.count > 1 && run.stride != chunk.run.stride) || run.elements() != staged) {
            return what + ": not its chunk's complex run, contiguous in the slot";
          }
        }
        // Coverage and hazards, in doubles of the physical array.
        const long long unit = real ? 1 : 2;
        const long long limit = real ? real_doubles : complex_doubles;
        std::vector<int>& owners = (is_in ? reader : writer)[at(physical(array))];
        if (owners.size() < at(limit)) owners.resize(at(limit), -1);
        // A transfer that moves both ways (in == out) counts once.
        const bool counted = is_in || spec.in_real != spec.out_real;
        for (long long c = 0; c < run.count; ++c) {
          for (long long i = 0; i < run.length; ++i) {
            const long long element = run.first + c * run.stride + i;
            if ((element + 1) * unit > limit) return what + ": leaves its host array";
            if (counted) ++(real ? real_count : complex_count)[at(element)];
            for (long long d = 0; d < unit; ++d) {
              int& owner = owners[at(element * unit + d)];
              owner = owner == -1 || owner == j ? j : -2;
            }
          }
        }
      }
    }
    // Every real element of the real rows once, their padding never; every half-spectrum element once.
    const bool has_real = spec.in_real || spec.out_real;
    for (long long r = 0; r < rows && has_real; ++r) {
      for (long long x = 0; x < side.real_pitch; ++x) {
        const int expected = x < side.n2 ? 1 : 0;
        if (real_count[at(r * side.real_pitch + x)] != expected) {
          return where + ": real (" + std::to_string(r) + ", " + std::to_string(x) + ") moved " +
                 std::to_string(real_count[at(r * side.real_pitch + x)]) + " times";
        }
      }
    }
    for (long long i = 0; i < complex_elements; ++i) {
      if (complex_count[at(i)] != 1) {
        return where + ": half-spectrum element " + std::to_string(i) + " moved " +
               std::to_string(complex_count[at(i)]) + " times";
      }
    }
    // No step writes what another step of the phase reads or writes.
    for (int a = 0; a < ooc::kHostArrays; ++a) {
      const std::vector<int>& written = writer[at(a)];
      const std::vector<int>& read = reader[at(a)];
      for (std::size_t i = 0; i < written.size(); ++i) {
        if (written[i] == -1) continue;
        if (written[i] == -2) return where + ": two steps write double " + std::to_string(i) + " of array " + std::to_string(a);
        if (i < read.size() && read[i] != -1 && read[i] != written[i]) {
          return where + ": step " + std::to_string(written[i]) + " writes double " + std::to_string(i) +
                 " of array " + std::to_string(a) + ", which another step reads";
        }
      }
    }
  }
  if (next_step != static_cast<int>(job.steps.size())) return "steps outside the phases";
  return "";
}

// What is wrong with a step's plan, or "": C2C (and kColumns) steps fft_layout of their staged
// shape; real steps their work, cuFFT's basic layout with the real length last, as many complex
// elements as the staged chunk.
std::string plan_problems(const ooc::Job& job) {
  for (std::size_t j = 0; j < job.steps.size(); ++j) {
    const ooc::Step& step = job.steps[j];
    const std::string where = "step " + std::to_string(j) + " (" + ooc::to_string(step.work) + ")";
    const std::optional<ooc::StepPlan> plan = ooc::step_plan(step);
    if (!plan) return where + ": no plan";
    const std::optional<ooc::FftLayout> complex = ooc::fft_layout(step.staged, step.axes);
    if (!complex) return where + ": no complex layout";
    const ooc::FftLayout& layout = plan->layout;
    if (step.work == Work::kC2C || step.work == Work::kColumns) {
      if (plan->work != Work::kC2C || !(layout == *complex)) return where + ": plan " + layout.to_string();
      continue;
    }
    const long long last = layout.n[at(layout.rank - 1)];
    if (plan->work != step.work || layout.rank != complex->rank || last != step.real_length ||
        complex->n[at(layout.rank - 1)] != last / 2 + 1 ||
        layout.stride != 1 || layout.distance != layout.points() || layout.batch != complex->batch ||
        real_layout(layout).rows * (last / 2 + 1) != product(step.staged)) {
      return where + ": plan " + layout.to_string() + ", complex " + complex->to_string();
    }
    for (int a = 0; a + 1 < layout.rank; ++a) {
      if (layout.n[at(a)] != complex->n[at(a)]) return where + ": plan " + layout.to_string();
    }
  }
  return "";
}

std::vector<PhaseSpec> real_specs(const ooc::Schedule& schedule, bool inverse) {
  const PhaseSpec r2c{Work::kR2C, true, ooc::kInput, true, ooc::kOutput, false};
  const PhaseSpec c2r{Work::kC2R, true, ooc::kInput, false, ooc::kOutput, true};
  const PhaseSpec forward_pencils{Work::kC2C, false, ooc::kOutput, false, ooc::kOutput, false};
  const PhaseSpec inverse_pencils{Work::kC2C, false, ooc::kInput, false, ooc::kInput, false};
  if (schedule.phases.size() == 1) return {inverse ? c2r : r2c};
  return inverse ? std::vector<PhaseSpec>{inverse_pencils, c2r} : std::vector<PhaseSpec>{r2c, forward_pencils};
}

std::vector<PhaseSpec> poisson_specs() {
  return {{Work::kR2C, true, ooc::kInput, true, ooc::kScratch, false},
          {Work::kColumns, false, ooc::kScratch, false, ooc::kScratch, false},
          {Work::kC2R, true, ooc::kScratch, false, ooc::kOutput, true}};
}

// ---------------------------------------------------------------------------------------------
// A real transform through its job.

struct RealData {
  std::vector<double> reals;              // [rows][n2], random
  std::vector<Complex> spectrum;          // direct_r2c(reals)
  std::vector<Complex> half_spectrum;     // [rows][h], random (no Hermitian symmetry)
  std::vector<double> inverse_reals;      // direct_c2r(half_spectrum)
};

RealData real_data(const RealShape& shape, std::uint64_t salt) {
  const Extents dims{shape.n0, shape.n1, shape.n2};
  RealData data;
  data.reals = random_doubles(at(shape.rows() * shape.n2), salt);
  data.spectrum = direct_r2c(data.reals, dims, shape.axes());
  const std::vector<double> parts = random_doubles(at(2 * shape.rows() * shape.half()), salt + 1000);
  data.half_spectrum = complex_of(parts, 0, parts.size() / 2);
  data.inverse_reals = direct_c2r(data.half_spectrum, dims, shape.axes());
  return data;
}

// The forward job on `reals` into a NaN-poisoned output: the half spectrum.
std::vector<Complex> run_forward(const ooc::Job& job, const ooc::Schedule& schedule, const RealShape& shape,
                                 const std::vector<double>& reals, bool in_place, Tamper tamper = Tamper::kNone) {
  const long long rows = shape.rows(), n2 = shape.n2, h = shape.half();
  std::vector<double> output(at(2 * rows * h), kNan);
  std::vector<double> input;
  if (in_place) {
    for (long long r = 0; r < rows; ++r) {  // the real rows padded to 2 h, the padding NaN
      for (long long x = 0; x < n2; ++x) output[at(r * 2 * h + x)] = reals[at(r * n2 + x)];
    }
  } else {
    input = reals;
  }
  run_job_on_host(job, schedule, {in_place ? &output : &input, &output, nullptr}, -1, {}, tamper);
  return complex_of(output, 0, at(rows * h));
}

// The inverse job on `half_spectrum` into a NaN-poisoned output: the reals [rows][n2].
std::vector<double> run_inverse(const ooc::Job& job, const ooc::Schedule& schedule, const RealShape& shape,
                                const std::vector<Complex>& half_spectrum, bool in_place,
                                Tamper tamper = Tamper::kNone) {
  const long long rows = shape.rows(), n2 = shape.n2, h = shape.half();
  std::vector<double> input = interleaved(half_spectrum);
  std::vector<double> output(at(in_place ? 0 : rows * n2), kNan);
  run_job_on_host(job, schedule, {&input, in_place ? &input : &output, nullptr}, +1, {}, tamper);
  return in_place ? unpitched(input, rows, n2, 2 * h) : output;
}

std::vector<RealShape> real_shapes() {
  return {{6, 10, 14, false}, {5, 7, 9, false}, {1, 12, 30, false}, {4, 1, 10, false}, {3, 5, 2, false},
          {7, 3, 3, false},   {11, 1, 33, true}, {6, 1, 16, true},  {5, 1, 2, true}};
}

// ---------------------------------------------------------------------------------------------
// The Poisson solve through its job.

struct PoissonCase {
  long long nx = 2, ny = 1, nz = 2;
  double hx = 1, hy = 1, hz = 1;
};

// The periodic z solve of a pencil's columns (the GPU's kColumns work for a periodic grid): z DFT,
// mode (kz, ky, kx) times scale / (lambda_x(kx) + lambda_y(ky) + lambda_z(kz)) (the zero mode 0),
// inverse z DFT; column c of the pencil is flattened (ky, kx) = first_column + c.
ColumnWork periodic_columns(const PoissonCase& grid) {
  const long long h = grid.nx / 2 + 1;
  const std::vector<double> lx = idgpu::poisson::eigenvalues(grid.nx, grid.hx, h);
  const std::vector<double> ly = idgpu::poisson::eigenvalues(grid.ny, grid.hy, grid.ny);
  const std::vector<double> lz = idgpu::poisson::eigenvalues(grid.nz, grid.hz, grid.nz);
  const double scale = 1.0 / static_cast<double>(grid.nx * grid.ny * grid.nz);
  return [=](std::vector<Complex>& pencil, const ooc::FftLayout& layout, long long first_column, long long columns) {
    layout_c2c(pencil, layout, -1);
    for (long long kz = 0; kz < grid.nz; ++kz) {
      for (long long c = 0; c < columns; ++c) {
        const long long column = first_column + c;
        Complex& value = pencil.at(at(kz * columns + c));
        if (column >= grid.ny * h) {  // beyond the spectrum: poisoned
          value = Complex(kNan, kNan);
          continue;
        }
        const double lambda = lx[at(column % h)] + ly[at(column / h)] + lz[at(kz)];
        value = kz == 0 && column == 0 ? Complex(0.0) : value * (scale / lambda);
      }
    }
    layout_c2c(pencil, layout, +1);
  };
}

std::vector<double> run_poisson(const ooc::Job& job, const ooc::Schedule& schedule, const PoissonCase& grid,
                                const std::vector<double>& f, Tamper tamper = Tamper::kNone) {
  std::vector<double> input = f;
  std::vector<double> scratch(at(2 * grid.nz * grid.ny * (grid.nx / 2 + 1)), kNan);
  std::vector<double> output(f.size(), kNan);
  run_job_on_host(job, schedule, {&input, &output, &scratch}, -1, periodic_columns(grid), tamper);
  return output;
}

}  // namespace

// =============================================================================================

TEST_CASE("ooc job: real jobs cover the real rows and the half spectrum, phase by phase", "[ooc][job][cpu]") {
  long long jobs = 0;
  for (const RealShape& shape : real_shapes()) {
    long long most_chunks[2] = {0, 0};  // slabs, pencils
    for (int element_bytes : {8, 16}) {
      const ooc::Problem problem = shape.half_problem(element_bytes);
      for (int slots : {2, 3, 4}) {
        for (long long min_segment_bytes : {16LL, 48LL, ooc::kSegmentBytes}) {
          for (long long budget : budgets_of(problem, false, min_segment_bytes, slots)) {
            CAPTURE(shape.text(), element_bytes, slots, min_segment_bytes, budget);
            const ooc::ScheduleResult result =
                ooc::make_schedule(problem, schedule_for_options(problem, budget, false, min_segment_bytes, slots));
            INFO(result.reason);
            REQUIRE(result.schedule);
            const ooc::Schedule& schedule = *result.schedule;
            INFO(schedule.to_string());
            if (min_segment_bytes == ooc::kSegmentBytes && slots == ooc::kDefaultSlotCount) {
              const ooc::ScheduleResult planned = ooc::schedule_for(problem, budget, 1.0);
              REQUIRE(planned.schedule);
              CHECK(same_chunks(*planned.schedule, schedule));
            }
            for (const ooc::Phase& phase : schedule.phases) {
              long long& most = most_chunks[(phase.axes & axis_bit(2)) != 0 ? 0 : 1];
              most = std::max(most, static_cast<long long>(phase.chunk_count));
            }
            for (const bool inverse : {false, true}) {
              std::vector<ooc::Job> made;
              for (const bool in_place : {false, true}) {
                CAPTURE(inverse, in_place);
                const ooc::Job& job = made.emplace_back(ooc::real_job(schedule, shape.n2, inverse, in_place));
                ++jobs;
                const RealSide side{shape.n2, in_place ? 2 * shape.half() : shape.n2, in_place};
                CHECK(job_problems(job, schedule, real_specs(schedule, inverse), side) == "");
                CHECK(plan_problems(job) == "");
              }
              // The GPU executor plans the out-of-place jobs once and builds an in-place job at exec
              // time: its steps must find those plans (same slot, same step plan).
              CAPTURE(inverse);
              REQUIRE(made[0].steps.size() == made[1].steps.size());
              for (std::size_t j = 0; j < made[0].steps.size(); ++j) {
                const ooc::Step &out_of_place = made[0].steps[j], &in_place = made[1].steps[j];
                CAPTURE(j);
                CHECK(in_place.slot == out_of_place.slot);
                CHECK(ooc::step_plan(in_place) == ooc::step_plan(out_of_place));
              }
            }
          }
        }
      }
    }
    // The budgets give several chunks per phase wherever there are planes (batches) to split.
    CAPTURE(shape.text(), most_chunks[0], most_chunks[1]);
    if (shape.n0 >= 3) CHECK(most_chunks[0] >= 3);
    if (shape.n0 >= 3 && !shape.batched) CHECK(most_chunks[1] >= 3);
    if (shape.batched || shape.n0 == 1) CHECK(most_chunks[1] == 0);
  }
  CHECK(jobs > 1000);
}

TEST_CASE("ooc job: a real job is the same from the forward and the inverse schedule", "[ooc][job][cpu]") {
  for (const RealShape& shape : real_shapes()) {
    const ooc::Problem problem = shape.half_problem(8);
    const long long budget = second_budget(problem, false);
    ooc::Options forward = schedule_for_options(problem, budget, false, 16);
    ooc::Options backward = forward;
    backward.sign = 1;
    const ooc::ScheduleResult a = ooc::make_schedule(problem, forward), b = ooc::make_schedule(problem, backward);
    REQUIRE(a.schedule);
    REQUIRE(b.schedule);
    for (const bool inverse : {false, true}) {
      const ooc::Job from_a = ooc::real_job(*a.schedule, shape.n2, inverse, false);
      const ooc::Job from_b = ooc::real_job(*b.schedule, shape.n2, inverse, false);
      CAPTURE(shape.text(), inverse);
      REQUIRE(from_a.steps.size() == from_b.steps.size());
      for (std::size_t j = 0; j < from_a.steps.size(); ++j) {
        const ooc::Step &x = from_a.steps[j], &y = from_b.steps[j];
        CHECK((x.work == y.work && x.in == y.in && x.out == y.out && x.staged == y.staged && x.axes == y.axes &&
               x.slot == y.slot && x.phase == y.phase));
      }
    }
  }
}

TEST_CASE("ooc job: real jobs run on the host equal the direct real DFT and its inverse", "[ooc][job][cpu]") {
  std::uint64_t salt = 0;
  long long runs = 0;
  for (const RealShape& shape : real_shapes()) {
    const RealData data = real_data(shape, ++salt * 7919);
    const std::vector<double> spectrum_doubles = interleaved(data.spectrum);
    const double points = static_cast<double>(shape.points());
    std::vector<double> scaled_reals = data.reals;
    for (double& value : scaled_reals) value *= points;
    for (int element_bytes : {8, 16}) {
      const ooc::Problem problem = shape.half_problem(element_bytes);
      for (int slots : {2, 3}) {
        for (long long min_segment_bytes : {16LL, ooc::kSegmentBytes}) {
          for (long long budget : budgets_of(problem, false, min_segment_bytes, slots)) {
            const ooc::ScheduleResult result =
                ooc::make_schedule(problem, schedule_for_options(problem, budget, false, min_segment_bytes, slots));
            REQUIRE(result.schedule);
            const ooc::Schedule& schedule = *result.schedule;
            CAPTURE(shape.text(), element_bytes, slots, min_segment_bytes, budget, schedule.to_string());
            for (const bool in_place : {false, true}) {
              CAPTURE(in_place);
              const ooc::Job forward = ooc::real_job(schedule, shape.n2, false, in_place);
              const ooc::Job inverse = ooc::real_job(schedule, shape.n2, true, in_place);
              const std::vector<Complex> spectrum = run_forward(forward, schedule, shape, data.reals, in_place);
              CHECK(relative_error(interleaved(spectrum), spectrum_doubles) < 1e-12);
              const std::vector<double> reals = run_inverse(inverse, schedule, shape, data.half_spectrum, in_place);
              CHECK(relative_error(reals, data.inverse_reals) < 1e-12);
              // Reference-free: the inverse of the forward is points times the input.
              const std::vector<double> round_trip = run_inverse(inverse, schedule, shape, spectrum, in_place);
              CHECK(relative_error(round_trip, scaled_reals) < 1e-12);
              ++runs;
            }
          }
        }
      }
    }
  }
  CHECK(runs > 200);
}

TEST_CASE("ooc job: the host executor fails where a pitch is broken", "[ooc][job][cpu]") {
  // The executor's checks bite: a slot pitch of n2 reals instead of 2 h misplaces the real rows
  // (and reads the NaN padding); a host pitch of n2 instead of 2 h in place, or of W instead of
  // n1 h for a pencil, reads the wrong rows.
  const RealShape shape{6, 10, 14, false};
  const RealData data = real_data(shape, 4242);
  const std::vector<double> spectrum_doubles = interleaved(data.spectrum);
  const ooc::Problem problem = shape.half_problem(16);
  const long long budget = second_budget(problem, false);
  const ooc::ScheduleResult result = ooc::make_schedule(problem, schedule_for_options(problem, budget, false, 16));
  REQUIRE(result.schedule);
  const ooc::Schedule& schedule = *result.schedule;
  INFO(schedule.to_string());
  REQUIRE(schedule.phases.size() == 2);
  for (const bool in_place : {false, true}) {
    CAPTURE(in_place);
    const ooc::Job forward = ooc::real_job(schedule, shape.n2, false, in_place);
    const ooc::Job inverse = ooc::real_job(schedule, shape.n2, true, in_place);
    CHECK(relative_error(interleaved(run_forward(forward, schedule, shape, data.reals, in_place)), spectrum_doubles) <
          1e-12);
    for (const Tamper tamper : {Tamper::kDevicePitchIsLength, Tamper::kHostPitchIsLength}) {
      CAPTURE(static_cast<int>(tamper));
      const double forward_error = relative_error(
          interleaved(run_forward(forward, schedule, shape, data.reals, in_place, tamper)), spectrum_doubles);
      const double inverse_error =
          relative_error(run_inverse(inverse, schedule, shape, data.half_spectrum, in_place, tamper), data.inverse_reals);
      CAPTURE(forward_error, inverse_error);
      CHECK_FALSE(forward_error < 1e-12);
      CHECK_FALSE(inverse_error < 1e-12);
    }
  }
}

TEST_CASE("ooc job: real_job and poisson_job refuse what they cannot run", "[ooc][job][cpu]") {
  const ooc::Problem problem = ooc::three_d(6, 10, 8, 16);
  const long long two_planes = ooc::device_bytes_for_slot(2 * 10 * 8 * 16, ooc::kDefaultSlotCount, 1.0);
  const ooc::ScheduleResult two_phase = ooc::schedule_for(problem, two_planes, 1.0);
  REQUIRE(two_phase.schedule);
  REQUIRE(two_phase.schedule->phases.size() == 2);
  CHECK_NOTHROW(ooc::real_job(*two_phase.schedule, 14, false, false));
  CHECK_NOTHROW(ooc::real_job(*two_phase.schedule, 15, true, true));  // 15 / 2 + 1 = 8 too
  CHECK_THROWS_AS(ooc::real_job(*two_phase.schedule, 16, false, false), std::invalid_argument);
  CHECK_THROWS_AS(ooc::real_job(*two_phase.schedule, 13, true, false), std::invalid_argument);
  CHECK_THROWS_AS(ooc::poisson_job(*two_phase.schedule, 12), std::invalid_argument);
  // A host phase: the one-round-trip kind transforms axis 2 on the host.
  ooc::Options host;
  host.device_bytes = 1LL << 16;
  host.force = ooc::ScheduleKind::kOneRoundTrip;
  const ooc::ScheduleResult one_round_trip = ooc::make_schedule(problem, host);
  REQUIRE(one_round_trip.schedule);
  CHECK_THROWS_AS(ooc::real_job(*one_round_trip.schedule, 14, false, false), std::invalid_argument);
  CHECK_THROWS_AS(ooc::poisson_job(*one_round_trip.schedule, 14), std::invalid_argument);
  // Batched: no pencils to solve the columns in.
  const ooc::ScheduleResult batched = ooc::schedule_for(ooc::batched_1d(11, 17, 16), 1LL << 12, 1.0);
  REQUIRE(batched.schedule);
  CHECK_NOTHROW(ooc::real_job(*batched.schedule, 33, false, true));
  CHECK_THROWS_AS(ooc::poisson_job(*batched.schedule, 33), std::invalid_argument);
}

TEST_CASE("ooc job: keep_pencils keeps the pencils phase where one chunk holds the whole array",
          "[ooc][job][cpu]") {
  for (const PoissonCase& grid : {PoissonCase{10, 6, 8}, PoissonCase{9, 1, 12}, PoissonCase{7, 5, 2}}) {
    const long long h = grid.nx / 2 + 1;
    const ooc::Problem problem = ooc::three_d(grid.nz, grid.ny, h, 16);
    const long long whole = ooc::device_bytes_for_slot(product(problem.extents) * 16, ooc::kDefaultSlotCount, 1.0);
    CAPTURE(grid.nx, grid.ny, grid.nz);
    const ooc::ScheduleResult merged = ooc::schedule_for(problem, whole, 1.0, false);
    const ooc::ScheduleResult kept = ooc::schedule_for(problem, whole, 1.0, true);
    REQUIRE(merged.schedule);
    REQUIRE(kept.schedule);
    INFO(merged.schedule->to_string() << "\n" << kept.schedule->to_string());
    REQUIRE(merged.schedule->phases.size() == 1);
    CHECK(merged.schedule->phases[0].axes == (axis_bit(0) | (grid.ny > 1 ? axis_bit(1) : 0u) | axis_bit(2)));
    CHECK_THROWS_AS(ooc::poisson_job(*merged.schedule, grid.nx), std::invalid_argument);
    REQUIRE(kept.schedule->phases.size() == 2);
    CHECK(kept.schedule->round_trips == 2);
    CHECK(kept.schedule->phases[0].axes == ((grid.ny > 1 ? axis_bit(1) : 0u) | axis_bit(2)));
    CHECK(kept.schedule->phases[1].axes == axis_bit(0));
    CHECK(kept.schedule->phases[0].chunk_count == 1);
    CHECK(kept.schedule->phases[1].chunk_count == 1);
    CHECK(kept.schedule->slot_bytes == merged.schedule->slot_bytes);
    const ooc::Job job = ooc::poisson_job(*kept.schedule, grid.nx);
    CHECK(job_problems(job, *kept.schedule, poisson_specs(), RealSide{grid.nx, grid.nx, false}) == "");
    // A real transform runs over either.
    for (const ooc::Schedule* schedule : {&*merged.schedule, &*kept.schedule}) {
      const ooc::Job real = ooc::real_job(*schedule, grid.nx, false, false);
      CHECK(job_problems(real, *schedule, real_specs(*schedule, false), RealSide{grid.nx, grid.nx, false}) == "");
    }
  }
}

TEST_CASE("ooc job: the Poisson job covers f, the spectrum and u, and solves as the reference does",
          "[ooc][job][cpu]") {
  std::uint64_t salt = 100000;
  long long solves = 0;
  for (const PoissonCase& grid : {PoissonCase{10, 6, 8, 0.5, 0.75, 1.25}, PoissonCase{9, 1, 12, 0.8, 1.0, 0.6},
                                  PoissonCase{7, 5, 3, 1.0, 1.0, 1.0}, PoissonCase{16, 4, 2, 1.5, 0.5, 0.9}}) {
    const long long h = grid.nx / 2 + 1;
    reference::Grid reference_grid;
    reference_grid.nx = grid.nx;
    reference_grid.ny = grid.ny;
    reference_grid.nz = grid.nz;
    reference_grid.hx = grid.hx;
    reference_grid.hy = grid.hy;
    reference_grid.hz = grid.hz;
    reference_grid.z = reference::ZBoundary::kPeriodic;
    std::vector<double> f = random_doubles(at(reference_grid.points()), ++salt);
    double mean = 0;
    for (double value : f) mean += value;
    mean /= static_cast<double>(f.size());
    for (double& value : f) value -= mean;
    const std::vector<double> u = reference::solve(reference_grid, f);
    long long most_chunks[2] = {0, 0};
    for (int element_bytes : {8, 16}) {
      const ooc::Problem problem = ooc::three_d(grid.nz, grid.ny, h, element_bytes);
      for (int slots : {2, 3}) {
        for (long long min_segment_bytes : {16LL, 48LL, ooc::kSegmentBytes}) {
          for (long long budget : budgets_of(problem, true, min_segment_bytes, slots)) {
            CAPTURE(grid.nx, grid.ny, grid.nz, element_bytes, slots, min_segment_bytes, budget);
            const ooc::ScheduleResult result =
                ooc::make_schedule(problem, schedule_for_options(problem, budget, true, min_segment_bytes, slots));
            INFO(result.reason);
            REQUIRE(result.schedule);
            const ooc::Schedule& schedule = *result.schedule;
            INFO(schedule.to_string());
            if (min_segment_bytes == ooc::kSegmentBytes && slots == ooc::kDefaultSlotCount) {
              const ooc::ScheduleResult planned = ooc::schedule_for(problem, budget, 1.0, true);
              REQUIRE(planned.schedule);
              CHECK(same_chunks(*planned.schedule, schedule));
            }
            REQUIRE(schedule.phases.size() == 2);
            most_chunks[0] = std::max<long long>(most_chunks[0], schedule.phases[0].chunk_count);
            most_chunks[1] = std::max<long long>(most_chunks[1], schedule.phases[1].chunk_count);
            const ooc::Job job = ooc::poisson_job(schedule, grid.nx);
            CHECK(job_problems(job, schedule, poisson_specs(), RealSide{grid.nx, grid.nx, false}) == "");
            CHECK(plan_problems(job) == "");
            CHECK(relative_error(run_poisson(job, schedule, grid, f), u) < 1e-10);
            ++solves;
          }
        }
      }
    }
    CAPTURE(grid.nx, grid.ny, grid.nz, most_chunks[0], most_chunks[1]);
    if (grid.nz >= 3) CHECK(most_chunks[0] >= 3);
    CHECK(most_chunks[1] >= 3);
  }
  CHECK(solves > 50);
}

TEST_CASE("ooc job: the Poisson host executor fails where the first column or a pitch is broken",
          "[ooc][job][cpu]") {
  const PoissonCase grid{10, 6, 8, 0.5, 0.75, 1.25};
  reference::Grid reference_grid;
  reference_grid.nx = grid.nx;
  reference_grid.ny = grid.ny;
  reference_grid.nz = grid.nz;
  reference_grid.hx = grid.hx;
  reference_grid.hy = grid.hy;
  reference_grid.hz = grid.hz;
  std::vector<double> f = random_doubles(at(reference_grid.points()), 777);
  double mean = 0;
  for (double value : f) mean += value;
  for (double& value : f) value -= mean / static_cast<double>(f.size());
  const std::vector<double> u = reference::solve(reference_grid, f);
  const ooc::Problem problem = ooc::three_d(grid.nz, grid.ny, grid.nx / 2 + 1, 16);
  const long long budget = second_budget(problem, true);
  const ooc::ScheduleResult result = ooc::make_schedule(problem, schedule_for_options(problem, budget, true, 16));
  REQUIRE(result.schedule);
  INFO(result.schedule->to_string());
  REQUIRE(result.schedule->phases[1].chunk_count > 1);
  const ooc::Job job = ooc::poisson_job(*result.schedule, grid.nx);
  CHECK(relative_error(run_poisson(job, *result.schedule, grid, f), u) < 1e-10);
  for (const Tamper tamper : {Tamper::kFirstColumnPlusOne, Tamper::kHostPitchIsLength, Tamper::kDevicePitchIsLength}) {
    CAPTURE(static_cast<int>(tamper));
    const double error = relative_error(run_poisson(job, *result.schedule, grid, f, tamper), u);
    CAPTURE(error);
    CHECK_FALSE(error < 1e-10);
  }
}
