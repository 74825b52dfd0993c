// The out-of-core cases (--ooc; ooc.h says what they measure): idgpuOocExec (C2C / Z2Z, in
// place), idgpuOocExecR2C / idgpuOocExecC2R (R2C, C2R, D2Z, Z2D) and idgpuOocPoissonExec, on
// arrays in pinned or pageable host memory, each plan made within a device budget.
//
// The budget (deviceBytes) decides how many chunks each phase streams, and that is what a case
// varies. chunks=K: the least budget whose schedule has at most K chunks in every phase, by the
// library's own rule (idgpu::ooc::schedule_for of src/ooc/plan.h, compiled into the benchmark, with
// work areas as large as the chunks, the executor's first try); a batched problem keeps chunks of
// at most 16 MiB however large the budget, so K below that count gets that count (the params say
// so). budget=BYTES: as given (0: the library's default, IDGPU_OOC_DEVICE_BYTES or 80% of the free
// device memory). By default a quarter of the scheduled array's bytes, which forces the
// out-of-core path (slots of a 24th of the array: some 24 to 26 chunks a phase), or the schedule's
// least budget where that is more (a 2D array is one plane, which a slot must hold whole). Where
// the FFT plans ask for larger work areas than the chunks, the library schedules smaller chunks in
// the same budget: the row reports the chunks the plan has.
//
// The scheduled array is complex: the C2C's own; a real transform's half spectrum
// [n0][n1][n2 / 2 + 1]; the Poisson solve's half spectrum [nz][ny][nx / 2 + 1], its pencils phase
// kept (three round trips), unless the in-core solver's memory (about three times the grid's) fits
// the budget: then one round trip (chunks=1 or 2 may give that).
#include <cuComplex.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench.h"
#include "case_text.h"
#include "device_kernels.h"
#include "ooc.h"
#include "ooc/plan.h"  // the library's schedule rule (src/ooc), for chunks=K

namespace idgpu_bench {

// --- The bus --------------------------------------------------------------------------------

namespace {

constexpr int kBusWarmup = 2;
constexpr int kBusCopies = 11;  // timed per figure, the median reported

}  // namespace

BusProbe::BusProbe(std::size_t bytes) : bytes_(bytes) {
  try {
    allocate();
  } catch (...) {
    free_all();
    throw;
  }
}

// Each handle is stored only once made, so that free_all() frees exactly what was made.
void BusProbe::allocate() {
  for (void** host : {&host_in_, &host_out_}) {
    void* made = nullptr;
    BENCH_CUDA(cudaHostAlloc(&made, bytes_, cudaHostAllocDefault));
    *host = made;
  }
  // Values, not zeros, in both directions (a copy does not look at them, but nothing the benchmark
  // hands out is zero).
  std::memset(host_in_, 0x3c, bytes_);
  std::memset(host_out_, 0x3c, bytes_);
  device_in_ = DeviceBuffer(bytes_);
  device_out_ = DeviceBuffer(bytes_);
  for (cudaStream_t& stream : streams_) {
    cudaStream_t made = nullptr;
    BENCH_CUDA(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking));
    stream = made;
  }
  for (cudaEvent_t* event : {&start_, &joined_, &stop_}) {
    cudaEvent_t made = nullptr;
    BENCH_CUDA(cudaEventCreate(&made));
    *event = made;
  }
  BENCH_CUDA(fill_uniform(static_cast<float*>(device_out_.get()), bytes_ / sizeof(float), 7, streams_[1]));
  BENCH_CUDA(cudaStreamSynchronize(streams_[1]));
}

BusProbe::~BusProbe() { free_all(); }

// What allocate() made, as far as it got.
void BusProbe::free_all() noexcept {
  for (cudaEvent_t* event : {&start_, &joined_, &stop_}) {
    if (*event != nullptr) cudaEventDestroy(*event);
    *event = nullptr;
  }
  for (cudaStream_t& stream : streams_) {
    if (stream != nullptr) cudaStreamDestroy(stream);
    stream = nullptr;
  }
  device_in_ = DeviceBuffer();
  device_out_ = DeviceBuffer();
  if (host_in_ != nullptr) cudaFreeHost(host_in_);
  if (host_out_ != nullptr) cudaFreeHost(host_out_);
  host_in_ = nullptr;
  host_out_ = nullptr;
  cudaGetLastError();  // an allocation failure is not sticky: the next case starts clean
}

// Both copies start at one event and the stop event waits for both: the time is that of the
// two directions at once, as the exec's pipeline runs them.
double BusProbe::median_ms(std::size_t to_device, std::size_t to_host) {
  std::vector<double> times;
  for (int copy = 0; copy < kBusWarmup + kBusCopies; ++copy) {
    BENCH_CUDA(cudaEventRecord(start_, streams_[0]));
    BENCH_CUDA(cudaStreamWaitEvent(streams_[1], start_, 0));
    if (to_device > 0) {
      BENCH_CUDA(cudaMemcpyAsync(device_in_.get(), host_in_, to_device, cudaMemcpyHostToDevice, streams_[0]));
    }
    if (to_host > 0) {
      BENCH_CUDA(cudaMemcpyAsync(host_out_, device_out_.get(), to_host, cudaMemcpyDeviceToHost, streams_[1]));
    }
    BENCH_CUDA(cudaEventRecord(joined_, streams_[1]));
    BENCH_CUDA(cudaStreamWaitEvent(streams_[0], joined_, 0));
    BENCH_CUDA(cudaEventRecord(stop_, streams_[0]));
    BENCH_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    if (copy >= kBusWarmup) times.push_back(ms);
  }
  return median(times);
}

BusBandwidth BusProbe::measure() {
  BusBandwidth bandwidth;
  bandwidth.bytes = bytes_;
  bandwidth.copies = kBusCopies;
  const double bytes = static_cast<double>(bytes_);
  bandwidth.host_to_device = bytes / (median_ms(bytes_, 0) * 1e-3);
  bandwidth.device_to_host = bytes / (median_ms(0, bytes_) * 1e-3);
  bandwidth.both = 2 * bytes / (median_ms(bytes_, bytes_) * 1e-3);
  return bandwidth;
}

double BusProbe::round_trip_ms(double to_device, double to_host) {
  const double largest = std::max(to_device, to_host);
  if (!(largest > 0)) return 0;
  const double scale = std::min(1.0, static_cast<double>(bytes_) / largest);
  const auto scaled = [&](double bytes) {
    return std::min(bytes_, static_cast<std::size_t>(std::llround(bytes * scale)));
  };
  return median_ms(scaled(to_device), scaled(to_host)) / scale;
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point begin) {
  return 1e3 * std::chrono::duration<double>(Clock::now() - begin).count();
}

// check_idgpu, with a hint where the library refuses a plan (most often a budget below the least
// chunk's, which its log names).
void check_ooc(idgpuStatus_t status, const char* what) {
  if (status == IDGPU_STATUS_INVALID_VALUE) {
    throw BenchError(std::string("idgpu ") + what + ": " + idgpu_status_name(status) +
                     " (a budget below the least chunk's? IDGPU_LOG=info says why)");
  }
  check_idgpu(status, what);
}

// Two timing events, destroyed with the scope.
struct TimingEvents {
  TimingEvents() {
    BENCH_CUDA(cudaEventCreate(&start));
    if (const cudaError_t status = cudaEventCreate(&stop); status != cudaSuccess) {
      cudaEventDestroy(start);
      check_cuda(status, "cudaEventCreate(&stop)");
    }
  }
  ~TimingEvents() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  TimingEvents(const TimingEvents&) = delete;
  TimingEvents& operator=(const TimingEvents&) = delete;

  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
};

// --- Host memory ----------------------------------------------------------------------------

// An exec's host array: pinned (cudaHostAlloc) or pageable (page-aligned malloc, its pages
// touched by the fill before any exec).
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t bytes, bool pinned) : bytes_(bytes), pinned_(pinned) {
    if (bytes == 0) return;
    if (pinned) {
      const cudaError_t status = cudaHostAlloc(&pointer_, bytes, cudaHostAllocDefault);
      if (status != cudaSuccess) {
        pointer_ = nullptr;
        cudaGetLastError();
        throw BenchError("cudaHostAlloc(" + std::to_string(bytes) + " bytes): " + cudaGetErrorName(status));
      }
    } else if (posix_memalign(&pointer_, 4096, bytes) != 0) {
      pointer_ = nullptr;
      throw BenchError("posix_memalign(" + std::to_string(bytes) + " bytes) failed");
    }
  }
  ~HostBuffer() { reset(); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  HostBuffer(HostBuffer&& other) noexcept { *this = std::move(other); }
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      pointer_ = std::exchange(other.pointer_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
      pinned_ = other.pinned_;
    }
    return *this;
  }

  void* get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }
  void reset() {
    if (pointer_ != nullptr) {
      if (pinned_) {
        cudaFreeHost(pointer_);
      } else {
        std::free(pointer_);
      }
    }
    pointer_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
  bool pinned_ = false;
};

// Uniform values in (-1, 1), never zero, from splitmix64 of (seed, index): (2k + 1 - 2^b) / 2^b
// for a b-bit k has an odd numerator, exact in the type (b = 24 in float, 53 in double).
std::uint64_t splitmix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
void set_uniform(float* value, std::uint64_t bits) {
  const auto k = static_cast<long long>(bits >> 40);
  *value = static_cast<float>(static_cast<double>(2 * k + 1 - (1ll << 24)) / 16777216.0);
}
void set_uniform(double* value, std::uint64_t bits) {
  const auto k = static_cast<long long>(bits >> 11);
  *value = static_cast<double>(2 * k + 1 - (1ll << 53)) / 9007199254740992.0;
}

// Fills `count` reals (complex data: twice its elements) on the host's cores: the arrays are
// hundreds of MiB to many GiB.
template <class Real>
void fill_host_uniform(void* data, std::size_t count, std::uint64_t seed) {
  Real* const values = static_cast<Real*>(data);
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>({cores, 32, count / (std::size_t(1) << 20) + 1});
  const std::size_t part = (count + threads - 1) / threads;
  std::vector<std::thread> team;
  for (std::size_t thread = 0; thread < threads; ++thread) {
    const std::size_t begin = std::min(count, thread * part);
    const std::size_t end = std::min(count, begin + part);
    team.emplace_back([=] {
      for (std::size_t index = begin; index < end; ++index) {
        set_uniform(values + index, splitmix(seed + 0x9E3779B97F4A7C15ull * (index + 1)));
      }
    });
  }
  for (std::thread& thread : team) thread.join();
}

// --- Shapes and budgets ----------------------------------------------------------------------

enum class OocKind { kC2C, kR2C, kC2R, kPoisson };

struct OocShape {
  OocKind kind = OocKind::kC2C;
  bool fp64 = false;
  // FFTs: rank 1, `batch` transforms of n[0] points; rank 2, [n[0]][n[1]] (a [1][n0][n1] array);
  // rank 3, [n[0]][n[1]][n[2]]; outermost first. Poisson: n = {nx, ny, nz}, x first.
  int rank = 1;
  std::array<long long, 3> n{1, 1, 1};
  long long batch = 1;
  idgpuPoissonBoundary_t boundary = IDGPU_POISSON_PERIODIC;
  bool in_place = false;  // R2C, C2R: cuFFT's padded layout; Poisson: f == u. C2C is always in place
  bool inverse = false;   // C2C: IDGPU_OOC_INVERSE
  bool pinned = true;
  long long budget = 0;  // deviceBytes (0: the library's default)

  bool real() const { return kind == OocKind::kR2C || kind == OocKind::kC2R; }
  std::size_t real_bytes() const { return fp64 ? sizeof(double) : sizeof(float); }
  std::size_t complex_bytes() const { return 2 * real_bytes(); }
  // The FFTs' array as the plan calls take it: [n0][n1][n2], or batch x n.
  long long n0() const { return rank == 3 ? n[0] : 1; }
  long long n1() const { return rank == 3 ? n[1] : rank == 2 ? n[0] : 1; }
  long long last() const { return n[static_cast<std::size_t>(rank - 1)]; }  // the contiguous axis
  long long rows() const { return rank == 1 ? batch : n0() * n1(); }        // of `last` points
  // Points of the real (or complex) array, and complex values of the half spectrum (R2C, C2R,
  // Poisson: along its contiguous axis, nx).
  long long points() const { return kind == OocKind::kPoisson ? n[0] * n[1] * n[2] : rows() * last(); }
  long long half_points() const {
    return kind == OocKind::kPoisson ? (n[0] / 2 + 1) * n[1] * n[2] : rows() * (last() / 2 + 1);
  }
};

const char* boundary_name(idgpuPoissonBoundary_t boundary) {
  switch (boundary) {
    case IDGPU_POISSON_PERIODIC: return "periodic";
    case IDGPU_POISSON_NEUMANN: return "neumann";
    case IDGPU_POISSON_DIRICHLET: return "dirichlet";
  }
  return "?";
}

// The complex array the library schedules (see the top of this file).
idgpu::ooc::Problem scheduled_problem(const OocShape& shape) {
  const int bytes = static_cast<int>(shape.complex_bytes());
  if (shape.kind == OocKind::kPoisson) return idgpu::ooc::three_d(shape.n[2], shape.n[1], shape.n[0] / 2 + 1, bytes);
  const long long last = shape.real() ? shape.last() / 2 + 1 : shape.last();
  if (shape.rank == 1) return idgpu::ooc::batched_1d(shape.batch, last, bytes);
  return idgpu::ooc::three_d(shape.n0(), shape.n1(), last, bytes);
}

idgpu::ooc::ScheduleResult schedule_at(const OocShape& shape, long long budget) {
  // Work areas as large as the chunks (the executor's first try), the Poisson solve's pencils kept.
  return idgpu::ooc::schedule_for(scheduled_problem(shape), budget, 1.0, shape.kind == OocKind::kPoisson);
}

long long largest_phase(const idgpu::ooc::Schedule& schedule) {
  long long most = 0;
  for (const idgpu::ooc::Phase& phase : schedule.phases) {
    if (phase.kind == idgpu::ooc::PhaseKind::kDevice) most = std::max<long long>(most, phase.chunk_count);
  }
  return most;
}

long long problem_bytes(const idgpu::ooc::Problem& problem) {
  return problem.extents[0] * problem.extents[1] * problem.extents[2] * problem.element_bytes;
}

// The least budget whose schedule has at most `chunks` chunks in every phase: more budget never
// gives more chunks, so a bisection between the schedule's least budget and one whose slot holds
// the whole array. A batched problem keeps chunks of a bounded size however large the budget (the
// pipeline needs several to overlap its copies): where that gives more than `chunks`, the least
// budget of that many instead, and *note says so.
long long budget_for_chunks(const OocShape& shape, long long chunks, std::string* note) {
  const idgpu::ooc::Problem problem = scheduled_problem(shape);
  const long long whole = idgpu::ooc::device_bytes_for_slot(problem_bytes(problem), idgpu::ooc::kDefaultSlotCount, 1.0);
  const idgpu::ooc::ScheduleResult most = schedule_at(shape, whole);
  if (!most.schedule) throw CaseTextError(most.reason);
  const long long fewest = largest_phase(*most.schedule);
  *note = "at most " + std::to_string(chunks) + " chunks a phase";
  if (fewest > chunks) {
    *note += ", but the schedule keeps " + std::to_string(fewest) + " at any budget";
    chunks = fewest;
  }
  const auto within = [&](long long budget) {
    const idgpu::ooc::ScheduleResult result = schedule_at(shape, budget);
    return result.schedule && largest_phase(*result.schedule) <= chunks;
  };
  const idgpu::ooc::ScheduleResult least = schedule_at(shape, 1);
  if (least.minimum_device_bytes <= 0) throw CaseTextError(least.reason);
  long long low = least.minimum_device_bytes;
  if (within(low)) return low;
  long long high = whole;
  while (high - low > 1) {
    const long long middle = low + (high - low) / 2;
    if (within(middle)) {
      high = middle;
    } else {
      low = middle;
    }
  }
  return high;
}

// The default: a quarter of the scheduled array's bytes, or the schedule's least budget where a
// quarter is less (a 2D array, [1][n1][n2], is one plane: its slot holds it whole).
long long default_budget(const OocShape& shape, std::string* note) {
  const long long quarter = problem_bytes(scheduled_problem(shape)) / 4;
  const idgpu::ooc::ScheduleResult result = schedule_at(shape, std::max(quarter, 1ll));
  *note = "a quarter of the scheduled array";
  if (result.schedule) return quarter;
  if (result.minimum_device_bytes > quarter) {
    *note = "the least budget, above a quarter of the scheduled array";
    return result.minimum_device_bytes;
  }
  throw CaseTextError(result.reason);
}

// --- The cases ------------------------------------------------------------------------------

// What an out-of-core plan of either API shares: the host arrays, restored from a pristine copy
// where the exec overwrites its input.
class OocCaseBase : public OocCase {
 public:
  OocCaseBase(std::string id, OocShape shape) : id_(std::move(id)), shape_(shape) {}

  void restore() override {
    if (pristine_.get() != nullptr) std::memcpy(input_.get(), pristine_.get(), pristine_.bytes());
  }
  long long budget_bytes() const override { return shape_.budget; }
  bool pinned() const override { return shape_.pinned; }

 protected:
  // The input (random) and, out of place, the output (random too: nothing handed out is zero);
  // the pristine copy where the exec may overwrite the input.
  void make_arrays(const Environment& env, std::size_t input_bytes, std::size_t output_bytes, bool keep_pristine) {
    input_ = HostBuffer(input_bytes, shape_.pinned);
    fill(input_, env, 0);
    if (output_bytes > 0) {
      output_ = HostBuffer(output_bytes, shape_.pinned);
      fill(output_, env, 1);
    }
    if (keep_pristine) {
      pristine_ = HostBuffer(input_bytes, false);
      std::memcpy(pristine_.get(), input_.get(), input_bytes);
    }
  }
  void* output() const { return output_.get() != nullptr ? output_.get() : input_.get(); }
  void release_arrays() {
    input_.reset();
    output_.reset();
    pristine_.reset();
  }

  std::string id_;
  OocShape shape_;
  const IdgpuApi* api_ = nullptr;
  HostBuffer input_;
  HostBuffer output_;

 private:
  void fill(HostBuffer& buffer, const Environment& env, int role) {
    const std::uint64_t seed = derive_seed(env.options->seed, id_, role);
    if (shape_.fp64) {
      fill_host_uniform<double>(buffer.get(), buffer.bytes() / sizeof(double), seed);
    } else {
      fill_host_uniform<float>(buffer.get(), buffer.bytes() / sizeof(float), seed);
    }
  }

  HostBuffer pristine_;
};

// idgpuOocExec (C2C, in place), idgpuOocExecR2C and idgpuOocExecC2R.
class OocFftCase final : public OocCaseBase {
 public:
  using OocCaseBase::OocCaseBase;
  ~OocFftCase() override { release(); }

  void setup(Environment& env) override {
    api_ = &env.libraries->idgpu_api;
    const OocShape& s = shape_;
    const auto half_bytes = static_cast<std::size_t>(s.half_points()) * s.complex_bytes();
    const auto real_bytes = static_cast<std::size_t>(s.points()) * s.real_bytes();
    // In place, one array of the half spectrum's bytes holds the real rows padded to 2 (n/2 + 1).
    switch (s.kind) {
      case OocKind::kC2C:
        make_arrays(env, static_cast<std::size_t>(s.points()) * s.complex_bytes(), 0, true);
        break;
      case OocKind::kR2C:
        make_arrays(env, s.in_place ? half_bytes : real_bytes, s.in_place ? 0 : half_bytes, s.in_place);
        break;
      case OocKind::kC2R:  // may overwrite its input in either layout
        make_arrays(env, half_bytes, s.in_place ? 0 : real_bytes, true);
        break;
      case OocKind::kPoisson: throw BenchError("not an FFT case");
    }
    const idgpuPrecision_t precision = s.fp64 ? IDGPU_PRECISION_DOUBLE : IDGPU_PRECISION_SINGLE;
    const auto budget = static_cast<std::size_t>(s.budget);
    if (s.real()) {
      check_ooc(s.rank == 1 ? api_->idgpuOocPlanRealMany1d(&plan_, s.n[0], s.batch, precision, budget)
                            : api_->idgpuOocPlanReal3d(&plan_, s.n0(), s.n1(), s.last(), precision, budget),
                s.rank == 1 ? "idgpuOocPlanRealMany1d" : "idgpuOocPlanReal3d");
    } else {
      check_ooc(s.rank == 1 ? api_->idgpuOocPlanMany1d(&plan_, s.n[0], s.batch, precision, budget)
                            : api_->idgpuOocPlan3d(&plan_, s.n0(), s.n1(), s.last(), precision, budget),
                s.rank == 1 ? "idgpuOocPlanMany1d" : "idgpuOocPlan3d");
    }
  }

  void exec() override {
    switch (shape_.kind) {
      case OocKind::kC2C:
        check_ooc(api_->idgpuOocExec(plan_, input_.get(), shape_.inverse ? IDGPU_OOC_INVERSE : IDGPU_OOC_FORWARD),
                  "idgpuOocExec");
        return;
      case OocKind::kR2C: check_ooc(api_->idgpuOocExecR2C(plan_, input_.get(), output()), "idgpuOocExecR2C"); return;
      case OocKind::kC2R: check_ooc(api_->idgpuOocExecC2R(plan_, input_.get(), output()), "idgpuOocExecC2R"); return;
      case OocKind::kPoisson: return;
    }
  }

  // C2C: the array each way; R2C: the reals in, the half spectrum out; C2R: the reverse.
  double bytes_to_device() const override { return shape_.kind == OocKind::kR2C ? real_side() : complex_side(); }
  double bytes_to_host() const override { return shape_.kind == OocKind::kC2R ? real_side() : complex_side(); }

  void schedule(int* round_trips, long long* chunks) const override {
    check_ooc(api_->idgpuOocGetSchedule(plan_, round_trips, chunks), "idgpuOocGetSchedule");
  }

  void release() override {
    if (plan_ != nullptr) api_->idgpuOocDestroy(plan_);
    plan_ = nullptr;
    release_arrays();
  }

 private:
  double real_side() const { return static_cast<double>(shape_.points()) * static_cast<double>(shape_.real_bytes()); }
  double complex_side() const {
    const long long values = shape_.real() ? shape_.half_points() : shape_.points();
    return static_cast<double>(values) * static_cast<double>(shape_.complex_bytes());
  }

  idgpuOocPlan_t plan_ = nullptr;
};

// idgpuOocPoissonExec: f in, u out; spacings 1/nx, 1/ny, 1/nz as the --poisson cases'.
class OocPoissonCase final : public OocCaseBase {
 public:
  using OocCaseBase::OocCaseBase;
  ~OocPoissonCase() override { release(); }

  void setup(Environment& env) override {
    api_ = &env.libraries->idgpu_api;
    const OocShape& s = shape_;
    const auto grid_bytes = static_cast<std::size_t>(s.points()) * s.real_bytes();
    make_arrays(env, grid_bytes, s.in_place ? 0 : grid_bytes, s.in_place);
    check_ooc(api_->idgpuOocPoissonCreate(&plan_, s.n[0], s.n[1], s.n[2], 1.0 / static_cast<double>(s.n[0]),
                                          1.0 / static_cast<double>(s.n[1]), 1.0 / static_cast<double>(s.n[2]),
                                          s.boundary, s.fp64 ? IDGPU_PRECISION_DOUBLE : IDGPU_PRECISION_SINGLE,
                                          static_cast<std::size_t>(s.budget)),
              "idgpuOocPoissonCreate");
  }

  void exec() override { check_ooc(api_->idgpuOocPoissonExec(plan_, input_.get(), output()), "idgpuOocPoissonExec"); }

  double bytes_to_device() const override { return grid_bytes(); }
  double bytes_to_host() const override { return grid_bytes(); }

  void schedule(int* round_trips, long long* chunks) const override {
    check_ooc(api_->idgpuOocPoissonGetSchedule(plan_, round_trips, chunks), "idgpuOocPoissonGetSchedule");
  }

  void release() override {
    if (plan_ != nullptr) api_->idgpuOocPoissonDestroy(plan_);
    plan_ = nullptr;
    release_arrays();
  }

  // idgpuPoissonExec on device data (random f), CUDA events around each solve after a busy-wait,
  // as the --poisson cases are timed; the median of as many solves as the exec's runs.
  std::optional<double> time_in_core(Environment& env, int runs, std::string* why) override {
    const OocShape& s = shape_;
    const IdgpuApi& api = env.libraries->idgpu_api;
    if (api.idgpuPoissonCreate == nullptr || api.idgpuPoissonSetStream == nullptr ||
        api.idgpuPoissonExecS == nullptr || api.idgpuPoissonExecD == nullptr || api.idgpuPoissonDestroy == nullptr) {
      *why = "libidgpu lacks idgpuPoisson*";
      return std::nullopt;
    }
    if (s.n[0] > INT_MAX || s.n[1] > INT_MAX || s.n[2] > INT_MAX || s.points() >= (1ll << 31)) {
      *why = "the in-core solver takes fewer than 2^31 points";
      return std::nullopt;
    }
    idgpuPoissonPlan_t plan = nullptr;
    const idgpuStatus_t created =
        api.idgpuPoissonCreate(&plan, static_cast<int>(s.n[0]), static_cast<int>(s.n[1]), static_cast<int>(s.n[2]),
                               1.0 / static_cast<double>(s.n[0]), 1.0 / static_cast<double>(s.n[1]),
                               1.0 / static_cast<double>(s.n[2]), s.boundary,
                               s.fp64 ? IDGPU_PRECISION_DOUBLE : IDGPU_PRECISION_SINGLE);
    if (created != IDGPU_STATUS_SUCCESS) {
      cudaGetLastError();
      *why = std::string("idgpuPoissonCreate: ") + idgpu_status_name(created) + " (device memory?)";
      return std::nullopt;
    }
    struct PlanGuard {
      const IdgpuApi& api;
      idgpuPoissonPlan_t plan;
      ~PlanGuard() { api.idgpuPoissonDestroy(plan); }
    } guard{api, plan};
    try {
      const auto grid_bytes = static_cast<std::size_t>(s.points()) * s.real_bytes();
      DeviceBuffer f(grid_bytes);
      DeviceBuffer u(grid_bytes);
      const auto count = static_cast<std::size_t>(s.points());
      const std::uint64_t seed = derive_seed(env.options->seed, id_, 2);
      if (s.fp64) {
        BENCH_CUDA(fill_uniform(static_cast<double*>(f.get()), count, seed, env.stream));
        BENCH_CUDA(fill_uniform(static_cast<double*>(u.get()), count, seed + 1, env.stream));
      } else {
        BENCH_CUDA(fill_uniform(static_cast<float*>(f.get()), count, seed, env.stream));
        BENCH_CUDA(fill_uniform(static_cast<float*>(u.get()), count, seed + 1, env.stream));
      }
      check_idgpu(api.idgpuPoissonSetStream(plan, env.stream), "idgpuPoissonSetStream");
      const auto solve = [&] {
        check_idgpu(s.fp64 ? api.idgpuPoissonExecD(plan, static_cast<const double*>(f.get()),
                                                   static_cast<double*>(u.get()))
                           : api.idgpuPoissonExecS(plan, static_cast<const float*>(f.get()),
                                                   static_cast<float*>(u.get())),
                    "idgpuPoissonExec");
      };
      TimingEvents events;
      std::vector<double> times;
      for (int call = 0; call < std::max(2, env.options->warmup); ++call) solve();
      for (int call = 0; call < std::max(1, runs); ++call) {
        BENCH_CUDA(launch_spin(env.options->spin_us, env.stream));
        BENCH_CUDA(cudaEventRecord(events.start, env.stream));
        solve();
        BENCH_CUDA(cudaEventRecord(events.stop, env.stream));
        BENCH_CUDA(cudaEventSynchronize(events.stop));
        float ms = 0;
        BENCH_CUDA(cudaEventElapsedTime(&ms, events.start, events.stop));
        times.push_back(ms);
      }
      return median(times);
    } catch (const BenchError& failure) {
      cudaStreamSynchronize(env.stream);
      cudaGetLastError();
      *why = failure.what();
      return std::nullopt;
    }
  }

 private:
  double grid_bytes() const { return static_cast<double>(shape_.points()) * static_cast<double>(shape_.real_bytes()); }

  idgpuOocPoissonPlan_t plan_ = nullptr;
};

// --- Case texts -----------------------------------------------------------------------------

// n=... : "AxBxC" (each a number or 2^K), or "N^3" / "N^2" for a cube / a square (N not the
// literal 2, which makes 2^K). The dimensions as written.
std::vector<long long> parse_extents(const std::string& text) {
  const std::string::size_type caret = text.rfind('^');
  const std::string base = caret == std::string::npos ? std::string() : text.substr(0, caret);
  const std::string power = caret == std::string::npos ? std::string() : text.substr(caret + 1);
  std::vector<long long> extents;
  if (text.find('x') == std::string::npos && (power == "2" || power == "3") && base != "2") {
    extents.assign(power == "3" ? 3 : 2, parse_case_integer(base, "n"));
  } else {
    for (const std::string& axis : split(text, 'x')) extents.push_back(parse_case_integer(axis, "n"));
  }
  if (extents.size() > 3) throw CaseTextError("n=" + text + ": at most three dimensions");
  long long points = 1;
  for (const long long extent : extents) {
    if (extent < 1) throw CaseTextError("n=" + text + ": every dimension must be at least 1");
    if (__builtin_mul_overflow(points, extent, &points) || points > (1ll << 40)) {
      throw CaseTextError("n=" + text + " is too large");
    }
  }
  return extents;
}

std::string extents_text(const OocShape& shape) {
  const std::size_t rank = shape.kind == OocKind::kPoisson ? 3 : static_cast<std::size_t>(shape.rank);
  const bool cube = rank == 3 && shape.n[0] == shape.n[1] && shape.n[1] == shape.n[2];
  if (cube) return std::to_string(shape.n[0]) + "^3";
  std::string text;
  for (std::size_t axis = 0; axis < rank; ++axis) text += (axis > 0 ? "x" : "") + std::to_string(shape.n[axis]);
  return text;
}

std::string bytes_text(long long bytes) {
  char text[32];
  if (bytes < (1ll << 20)) {
    std::snprintf(text, sizeof(text), "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  }
  return text;
}

}  // namespace

// Runs one case: two untimed execs (the first pays one-time costs; the second, if slower than
// --slow-ms, cuts the runs to --slow-runs), the rest of the warm-up, the timed execs; then the
// schedule, the bus's time for the same bytes, and, with the plan and host arrays freed, the
// in-core time where the kind has one.
OocResult run_ooc_case(OocCase& ooc_case, Environment& env) {
  if (env.bus == nullptr) throw BenchError("no bus probe (the copy buffers could not be had)");
  const Options& options = *env.options;
  OocResult result;
  ooc_case.setup(env);
  const auto timed_exec = [&] {
    ooc_case.restore();
    const Clock::time_point begin = Clock::now();
    ooc_case.exec();
    return ms_since(begin);
  };
  timed_exec();
  const double probe_ms = timed_exec();
  int warmup = options.warmup;
  int runs = options.runs;
  if (probe_ms > options.slow_ms) {
    warmup = 2;
    runs = std::min(runs, options.slow_runs);
  }
  for (int call = 2; call < warmup; ++call) timed_exec();
  std::vector<double> times;
  for (int run = 0; run < runs; ++run) times.push_back(timed_exec());
  result.runs = runs;
  result.exec_ms = median(times);
  result.exec_min_ms = *std::min_element(times.begin(), times.end());
  ooc_case.schedule(&result.round_trips, &result.chunks);
  result.budget_bytes = ooc_case.budget_bytes();
  result.pinned = ooc_case.pinned();
  result.bytes = ooc_case.bytes_to_device() + ooc_case.bytes_to_host();
  result.bus_ms = env.bus->round_trip_ms(ooc_case.bytes_to_device(), ooc_case.bytes_to_host());
  ooc_case.release();
  result.in_core_ms = ooc_case.time_in_core(env, runs, &result.in_core_note);
  return result;
}

// KIND,n=...[,batch=B][,precision=s|d][,z=BOUNDARY][,chunks=K | budget=BYTES][,memory=pinned|pageable]
//   [,inplace][,inverse]
// KIND c2c, r2c, c2r (single precision unless precision=d; z2z, d2z, z2d name the double ones) or
// poisson. FFTs: n outermost first as --fft, N (batch=B transforms of N points, default 1), NxM
// (2D), NxMxK (3D), or N^2 / N^3; batch only in 1D; inplace for r2c / c2r (cuFFT's padded layout;
// c2c is always in place); inverse for c2c. poisson: n the solver's nx x ny x nz, x first as
// --poisson, or N^3; nz >= 2; z the z boundary, periodic (the default), neumann or dirichlet;
// inplace: f == u. chunks and budget: see the top of this file. memory: the host arrays' (pinned
// by default).
CaseSpec ooc_user_case(const std::string& text) {
  struct Kind {
    const char* name;
    OocKind kind;
    bool fp64;
  };
  constexpr Kind kKinds[] = {
      {"c2c", OocKind::kC2C, false},      {"r2c", OocKind::kR2C, false}, {"c2r", OocKind::kC2R, false},
      {"z2z", OocKind::kC2C, true},       {"d2z", OocKind::kR2C, true},  {"z2d", OocKind::kC2R, true},
      {"poisson", OocKind::kPoisson, false},
  };
  CaseText items(text);
  const Kind* kind = nullptr;
  for (const Kind& candidate : kKinds) {
    if (items.head() == candidate.name) kind = &candidate;
  }
  if (kind == nullptr) {
    throw CaseTextError("unknown out-of-core kind '" + items.head() +
                        "' (expected c2c, r2c, c2r, z2z, d2z, z2d or poisson)");
  }
  OocShape shape;
  shape.kind = kind->kind;
  shape.fp64 = kind->fp64;
  const bool poisson = shape.kind == OocKind::kPoisson;

  std::string precision;
  if (items.take("precision", &precision)) {
    const bool single = precision == "s" || precision == "f32";
    if (!single && precision != "d" && precision != "f64") {
      throw CaseTextError("precision=" + precision + ": expected s or d (or f32, f64)");
    }
    if (kind->fp64 && single) {
      throw CaseTextError(items.head() + " is double precision: precision=" + precision + " contradicts it");
    }
    shape.fp64 = !single;
  }

  std::string dims;
  if (!items.take("n", &dims)) {
    throw CaseTextError(poisson ? "the size is missing (n=NXxNYxNZ, x first, or n=N^3)"
                                : "the size is missing (n=N with batch=B, n=NxM, n=NxMxK or n=N^3)");
  }
  const std::vector<long long> extents = parse_extents(dims);
  if (poisson) {
    for (std::size_t axis = 0; axis < extents.size(); ++axis) shape.n[axis] = extents[axis];
    if (shape.n[0] < 2) throw CaseTextError("n=" + dims + ": nx must be at least 2");
    if (shape.n[2] < 2) throw CaseTextError("n=" + dims + ": the out-of-core solve needs nz >= 2 (NXxNYxNZ, x first)");
    std::string boundary;
    if (items.take("z", &boundary)) {
      bool known = false;
      for (const idgpuPoissonBoundary_t candidate :
           {IDGPU_POISSON_PERIODIC, IDGPU_POISSON_NEUMANN, IDGPU_POISSON_DIRICHLET}) {
        if (boundary == boundary_name(candidate)) {
          shape.boundary = candidate;
          known = true;
        }
      }
      if (!known) throw CaseTextError("z=" + boundary + ": expected periodic, neumann or dirichlet");
    }
  } else {
    shape.rank = static_cast<int>(extents.size());
    for (std::size_t axis = 0; axis < extents.size(); ++axis) shape.n[axis] = extents[axis];
    shape.batch = items.take_integer("batch", 1, 1ll << 40, 1);
    if (shape.batch > 1 && shape.rank > 1) {
      throw CaseTextError("batch=" + std::to_string(shape.batch) + ": 1D only (idgpuOocPlan*Many1d)");
    }
    if (shape.real() && shape.last() < 2) {
      throw CaseTextError("n=" + dims + ": a real transform's contiguous axis needs at least 2 points");
    }
    if (shape.points() > (1ll << 40)) throw CaseTextError("n=" + dims + " with batch is too large");
  }
  shape.in_place = items.take_flag("inplace");
  if (shape.in_place && shape.kind == OocKind::kC2C) {
    throw CaseTextError("inplace: the out-of-core C2C is always in place (r2c, c2r and poisson take it)");
  }
  shape.inverse = items.take_flag("inverse");
  if (shape.inverse && shape.kind != OocKind::kC2C) {
    throw CaseTextError("inverse: c2c only (the real transforms' directions are r2c and c2r)");
  }
  std::string memory;
  if (items.take("memory", &memory)) {
    if (memory != "pinned" && memory != "pageable") {
      throw CaseTextError("memory=" + memory + ": expected pinned or pageable");
    }
    shape.pinned = memory == "pinned";
  }

  const std::string refusal = idgpu::ooc::problem_refusal(scheduled_problem(shape));
  if (!refusal.empty()) throw CaseTextError(refusal);
  std::string chunks_text;
  std::string budget_suffix;
  std::string budget_note;
  const bool has_chunks = items.take("chunks", &chunks_text);
  std::string given_budget;
  const bool has_budget = items.take("budget", &given_budget);
  if (has_chunks && has_budget) throw CaseTextError("chunks and budget exclude each other");
  if (has_chunks) {
    const long long chunks = parse_case_integer(chunks_text, "chunks");
    if (chunks < 1 || chunks > idgpu::ooc::kMaxChunks) {
      throw CaseTextError("chunks=" + chunks_text + " is out of range [1, " + std::to_string(idgpu::ooc::kMaxChunks) +
                          "]");
    }
    shape.budget = budget_for_chunks(shape, chunks, &budget_note);
    budget_suffix = "_chunks" + std::to_string(chunks);
  } else if (has_budget) {
    shape.budget = parse_case_integer(given_budget, "budget");
    budget_suffix = "_budget" + std::to_string(shape.budget);
    budget_note = shape.budget == 0 ? "the library's default" : "as given";
  } else {
    shape.budget = default_budget(shape, &budget_note);
  }
  const std::string common = "chunks=K or budget=BYTES, memory=pinned|pageable";
  switch (shape.kind) {
    case OocKind::kC2C: items.finish("n=..., batch=B, precision=s|d, inverse, " + common); break;
    case OocKind::kR2C:
    case OocKind::kC2R: items.finish("n=..., batch=B, precision=s|d, inplace, " + common); break;
    case OocKind::kPoisson: items.finish("n=NXxNYxNZ, precision=s|d, z=periodic|neumann|dirichlet, inplace, " + common);
  }

  const char* tag = nullptr;
  switch (shape.kind) {
    case OocKind::kC2C: tag = shape.fp64 ? "z2z" : "c2c"; break;
    case OocKind::kR2C: tag = shape.fp64 ? "d2z" : "r2c"; break;
    case OocKind::kC2R: tag = shape.fp64 ? "z2d" : "c2r"; break;
    case OocKind::kPoisson: tag = "poisson"; break;
  }
  const std::string precision_tag = shape.fp64 ? "f64" : "f32";
  CaseSpec spec;
  spec.family = "ooc";
  if (poisson) {
    spec.name =
        std::string(tag) + "_" + boundary_name(shape.boundary) + "_" + precision_tag + "_" + extents_text(shape);
  } else if (shape.rank == 1) {
    spec.name = std::string(tag) + "_" + precision_tag + "_n" + std::to_string(shape.n[0]) + "_b" +
                std::to_string(shape.batch);
  } else {
    spec.name = std::string(tag) + std::to_string(shape.rank) + "d_" + precision_tag + "_" + extents_text(shape);
  }
  spec.name += std::string(shape.in_place ? "_inplace" : "") + (shape.inverse ? "_inverse" : "") + budget_suffix +
               (shape.pinned ? "" : "_pageable");

  std::string params;
  if (poisson) {
    params = "n=" + std::to_string(shape.n[0]) + "x" + std::to_string(shape.n[1]) + "x" + std::to_string(shape.n[2]) +
             " z=" + boundary_name(shape.boundary) + " h=1/n" + (shape.in_place ? " f==u" : "");
  } else {
    params = "n=" + extents_text(shape) + (shape.rank == 1 ? " batch=" + std::to_string(shape.batch) : "") +
             (shape.kind == OocKind::kC2C ? (shape.inverse ? " inverse" : " forward") : "") +
             (shape.real() ? (shape.in_place ? " in place" : " out of place") : "");
  }
  params += std::string(" ") + (shape.pinned ? "pinned" : "pageable") + " budget=" + std::to_string(shape.budget) +
            (shape.budget > 0 ? " (" + bytes_text(shape.budget) + ", " + budget_note + ")" : " (" + budget_note + ")");
  spec.params = params;
  const std::string id = spec.id();
  spec.make_ooc = [id, shape](const Environment&) -> std::unique_ptr<OocCase> {
    if (shape.kind == OocKind::kPoisson) return std::unique_ptr<OocCase>(new OocPoissonCase(id, shape));
    return std::unique_ptr<OocCase>(new OocFftCase(id, shape));
  };
  const OocKind case_kind = shape.kind;
  spec.unavailable = [case_kind](const Libraries& libraries) {
    switch (case_kind) {
      case OocKind::kC2C: return libraries.ooc_fft_unavailable;
      case OocKind::kR2C:
      case OocKind::kC2R: return libraries.ooc_real_unavailable;
      case OocKind::kPoisson: return libraries.ooc_poisson_unavailable;
    }
    return std::string();
  };
  return spec;
}

}  // namespace idgpu_bench
