// What an out-of-core FFT plan (idgpuOoc*, include/idgpu/idgpu.h) decides on the host before it
// touches the device, kept apart from the GPU executor (ooc/executor.h) so that the CPU tests check
// it: the problem's validity, the budget where the caller gives none, the schedule (ooc/schedule.h)
// and the cuFFT layout of each chunk's transform.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "ooc/schedule.h"

namespace idgpu::ooc {

// Why `problem` cannot be planned (a size below 1, a batched problem not [batch][1][n], bad element
// bytes, elements or bytes that overflow), or "".
std::string problem_refusal(const Problem& problem);

// The share of the free device memory a plan takes when neither the caller nor
// IDGPU_OOC_DEVICE_BYTES gives a budget.
constexpr double kFreeMemoryShare = 0.8;

// The budget of a plan: `requested` (idgpuOoc*'s deviceBytes) where nonzero, else `configured`
// (IDGPU_OOC_DEVICE_BYTES, 0 when unset) where nonzero, else kFreeMemoryShare of `free_bytes`
// (cudaMemGetInfo). Clamped to the largest long long (a budget is only a bound).
long long resolve_device_bytes(std::size_t requested, long long configured, std::size_t free_bytes);

// The schedule a plan runs: make_schedule with the budget and `work_factor`, sign -1 (one
// schedule serves both signs: see ooc/executor.h), the batched kind for a batched problem and the
// two-phase kind forced for a 3D one. The one-round-trip kind transforms the contiguous axis on the
// host, and the library has no fast host FFT yet; the two-phase kind is one round trip too where
// the whole array fits a slot.
// keep_pencils: Options::keep_pencils (the Poisson solve's schedules).
ScheduleResult schedule_for(const Problem& problem, long long device_bytes, double work_factor,
                            bool keep_pencils = false);

// A cuFFT advanced layout (cufftMakePlanMany64), in place: `batch` transforms of the row-major
// array n[0..rank), element (i_0 .. i_rank-1) of transform b at b * distance + stride * (the
// row-major index of i in n), inembed = onembed = n (or NULL where stride is 1 and distance the
// transform's points: the basic layout).
struct FftLayout {
  int rank = 1;
  std::array<long long, 3> n{1, 1, 1};
  long long stride = 1;
  long long distance = 1;
  long long batch = 1;

  long long points() const { return n[0] * n[1] * n[2]; }     // of one transform (unused n are 1)
  long long elements() const { return points() * batch; }     // of the staged chunk
  bool basic() const { return stride == 1 && distance == points(); }
  bool operator==(const FftLayout& other) const {
    return rank == other.rank && n == other.n && stride == other.stride && distance == other.distance &&
           batch == other.batch;
  }
  std::string to_string() const;
};

// A job: what an exec runs, as phases of device steps built from a schedule. The complex
// transform's job is its schedule's chunks as they are. A real transform is scheduled as the
// complex transform of its half spectrum [n0][n1][h], h = n2 / 2 + 1 (axis 2 halved), and its job
// adds the real side: the steps that transform axis 2 (plane slabs, batches, the whole array) read
// or write the real array's rows, n2 reals each, padded on the device to 2 h reals (the in-place
// real-to-complex layout: the complex chunk's bytes exactly), and run a real FFT there; a forward
// job runs those steps first, an inverse one last. The out-of-core Poisson solve's job is three
// phases over a two-phase schedule of [nz][ny][h]: the slabs as a forward real transform from f into
// the plan's host spectrum, the pencils as `kColumns` steps on it (the z solve of whole columns),
// the slabs as an inverse real transform into u.
enum class Work { kC2C, kR2C, kC2R, kColumns };
const char* to_string(Work work);

// Host arrays a step's copies address: the exec's input and output (the same array in place) and
// the plan's own host scratch (the Poisson spectrum).
enum HostArray : int { kInput = 0, kOutput = 1, kScratch = 2 };
constexpr int kHostArrays = 3;

// One direction of a step's copies: `run`'s segments of host array `array`, in elements of
// `element_bytes`; on the device segment c starts at element c * device_pitch of the slot
// (device_pitch >= run.length). On the host segment c starts at run.first + c * run.stride.
struct Transfer {
  int array = kInput;
  HostRun run;
  long long element_bytes = 8;
  long long device_pitch = 0;

  long long host_pitch() const { return run.count > 1 ? run.stride : run.length; }
  bool operator==(const Transfer& other) const {
    return array == other.array && run.first == other.run.first && run.length == other.run.length &&
           run.count == other.run.count && run.stride == other.run.stride && element_bytes == other.element_bytes &&
           device_pitch == other.device_pitch;
  }
};

struct Step {
  int phase = 0;
  Work work = Work::kC2C;
  Transfer in;   // host -> slot
  Transfer out;  // slot -> host
  std::array<long long, 3> staged{1, 1, 1};  // the complex staged shape (schedule.h, "Staged layout")
  unsigned axes = 0;                         // transformed (kColumns: axis 0, the columns' axis)
  long long real_length = 0;                 // kR2C / kC2R: the real points of axis 2
  long long first_column = 0;                // kColumns: the flattened (n1, n2) index of column 0
  int slot = 0;                              // step i of the job: i mod slot_count
};

struct JobPhase {
  int first_step = 0;
  int step_count = 0;
};

struct Job {
  std::vector<JobPhase> phases;
  std::vector<Step> steps;
  int round_trips = 0;  // phases
};

// The complex transform's job: the schedule's phases, in and out the input array in place.
Job complex_job(const Schedule& schedule);
// A real transform's job from the schedule of its half spectrum [n0][n1][n2 / 2 + 1]: forward
// (R2C: the input's reals to the output's half spectrum) or inverse (C2R: axis 0's pencils in place
// in the input, then the slabs from the input to the output's reals); `in_place`: real rows
// 2 (n2 / 2 + 1) reals apart on the host (cuFFT's padded layout), else n2. Real elements are
// element_bytes / 2 bytes. Throws std::invalid_argument where a slab's run is not whole
// contiguous rows (no schedule makes one).
Job real_job(const Schedule& schedule, long long n2, bool inverse, bool in_place);
// The out-of-core Poisson solve's job from the two-phase schedule of [nz][ny][nx / 2 + 1]: slabs
// kR2C from the input (f) to the scratch, pencils kColumns in place in the scratch, slabs kC2R from
// the scratch to the output (u). Throws std::invalid_argument for a schedule without both phases.
Job poisson_job(const Schedule& schedule, long long nx);

// The cuFFT plan of a step (kColumns: the C2C plan along the pencil's axis 0, used where the
// column solve needs the FFT): fft_layout of the staged shape, for real steps with the last
// length the real points (always a batch of contiguous transforms, cuFFT's basic layout).
struct StepPlan {
  Work work = Work::kC2C;  // kColumns plans are kC2C
  FftLayout layout;
  bool operator==(const StepPlan& other) const { return work == other.work && layout == other.layout; }
};
std::optional<StepPlan> step_plan(const Step& step);

// The in-place transform of a staged chunk (ooc/schedule.h, "Staged layout") of shape `staged`
// along `axes`, as one cuFFT plan: axes of length 1 are dropped; the transformed axes must then be
// the last ones (the others a batch of whole transforms: plane slabs, batched 1D, a whole array)
// or the first ones (the others columns side by side: pencils, x-slabs). Empty for any other
// shape, and where no axis is transformed.
std::optional<FftLayout> fft_layout(const std::array<long long, 3>& staged, unsigned axes);

}  // namespace idgpu::ooc
