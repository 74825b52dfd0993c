#include "ooc/executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "core/api.h"
#include "core/device_scope.h"
#include "core/log.h"
#include "fft/api.h"

namespace idgpu::ooc {
namespace {

// One host thread's memcpy reaches a fraction of the host's memory bandwidth (and of the bus's),
// so gathers and scatters of large chunks are split over up to kMaxCopyThreads threads, each with
// at least kBytesPerCopyThread (below that a thread's wake-up costs more than it saves).
constexpr int kMaxCopyThreads = 8;
constexpr long long kBytesPerCopyThread = 1LL << 20;
// Parts of a copy start on page boundaries of the staged buffer, so no two threads write one line.
constexpr long long kCopyPartAlignment = 4096;
// The sub-buffers of the device allocation: cudaMalloc's own alignment.
constexpr long long kDeviceAlignment = 256;
// Schedules tried where the FFT plans ask for more work area than the schedule gave them.
constexpr int kPlanAttempts = 4;

long long align_up(long long bytes, long long alignment) { return (bytes + alignment - 1) / alignment * alignment; }

std::string cuda_failure(const std::string& what, cudaError_t status) {
  cudaGetLastError();
  return "out-of-core FFT: " + what + ": " + cudaGetErrorString(status);
}

std::string cufft_failure(const std::string& what, cufftResult status) {
  return "out-of-core FFT: " + what + ": cuFFT status " + std::to_string(static_cast<int>(status));
}

std::string staged_text(const Chunk& chunk) {
  return "[" + std::to_string(chunk.staged[0]) + "][" + std::to_string(chunk.staged[1]) + "][" +
         std::to_string(chunk.staged[2]) + "]";
}

int copy_threads(long long bytes) {
  const long long hardware = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp(bytes / kBytesPerCopyThread, 1LL, std::min<long long>(kMaxCopyThreads, hardware)));
}

// Host threads for the gathers and scatters of one exec: size() - 1 workers and the calling
// thread. Fewer workers where a thread cannot be started.
class CopyTeam {
 public:
  explicit CopyTeam(int threads) {
    for (int index = 1; index < threads; ++index) {
      try {
        workers_.emplace_back([this, index] { work(index); });
      } catch (const std::system_error&) {
        break;
      }
    }
  }
  ~CopyTeam() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }
  CopyTeam(const CopyTeam&) = delete;
  CopyTeam& operator=(const CopyTeam&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(part) for every part in [0, parts) (parts <= size()), part 0 on the calling thread;
  // returns when all have ended.
  void run(int parts, const std::function<void(int)>& task) {
    parts = std::clamp(parts, 1, size());
    if (parts == 1) {
      task(0);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      parts_ = parts;
      remaining_ = parts - 1;
      ++generation_;
    }
    start_.notify_all();
    task(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return remaining_ == 0; });
    task_ = nullptr;
  }

 private:
  void work(int index) {
    long long seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= parts_) continue;
      const std::function<void(int)>* task = task_;
      lock.unlock();
      (*task)(index);
      lock.lock();
      if (--remaining_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int)>* task_ = nullptr;
  int parts_ = 0;
  int remaining_ = 0;
  long long generation_ = 0;
  bool stop_ = false;
};

// Copies the staged elements [begin, end) of `run` between the user's data and a staged buffer:
// staged element e is host element run.first + (e / length) * stride + e % length.
void copy_staged(bool gather, unsigned char* host, unsigned char* staged, const HostRun& run, long long begin,
                 long long end, long long element_bytes) {
  for (long long e = begin; e < end;) {
    const long long segment = e / run.length, offset = e % run.length;
    const long long count = std::min(run.length - offset, end - e);
    unsigned char* at_host = host + (run.first + segment * run.stride + offset) * element_bytes;
    unsigned char* at_staged = staged + e * element_bytes;
    const std::size_t bytes = static_cast<std::size_t>(count * element_bytes);
    if (gather) {
      std::memcpy(at_staged, at_host, bytes);
    } else {
      std::memcpy(at_host, at_staged, bytes);
    }
    e += count;
  }
}

// A gather (host data -> staged) or scatter (staged -> host data) of a whole chunk on the team.
void copy_chunk(CopyTeam& team, bool gather, unsigned char* host, void* staged, const HostRun& run,
                long long element_bytes) {
  const long long elements = run.elements();
  const int parts = std::min(team.size(), copy_threads(elements * element_bytes));
  const long long unit = std::max(1LL, kCopyPartAlignment / element_bytes);
  const long long per_part = align_up((elements + parts - 1) / parts, unit);
  team.run(parts, [&](int part) {
    const long long begin = std::min(elements, part * per_part);
    const long long end = std::min(elements, begin + per_part);
    copy_staged(gather, host, static_cast<unsigned char*>(staged), run, begin, end, element_bytes);
  });
}

}  // namespace

std::unique_ptr<Executor> Executor::make(const Request& request, long long device_bytes, Status* status,
                                         std::string* error) {
  *status = Status::kFailed;
  std::unique_ptr<Executor> executor(new Executor());
  executor->request_ = request;
  double work_factor = 1.0;
  for (int attempt = 0;; ++attempt) {
    ScheduleResult result =
        schedule_for(request.problem, device_bytes, work_factor, request.kind == Kind::kPoisson);
    if (!result.schedule) {
      *status = Status::kBudget;
      *error = result.reason;
      if (attempt > 0) *error += " (work factor " + std::to_string(work_factor) + ": what the FFT plans ask for)";
      return nullptr;
    }
    // The device only once the budget is known to suffice: a refusal touches no device.
    if (attempt == 0) {
      if (const cudaError_t got = cudaGetDevice(&executor->device_); got != cudaSuccess) {
        executor->device_ = -1;
        *error = cuda_failure("no current device", got);
        return nullptr;
      }
    }
    executor->schedule_ = std::move(*result.schedule);
    try {
      executor->make_jobs();
    } catch (const std::invalid_argument& failure) {
      *error = failure.what();
      return nullptr;
    }
    double needed = 0;
    if (!executor->make_plans(error, &needed)) return nullptr;
    std::size_t largest = 0;
    for (const Slot& slot : executor->slots_) largest = std::max(largest, slot.work_bytes);
    if (static_cast<long long>(largest) <= executor->schedule_.work_bytes) break;
    if (attempt + 1 == kPlanAttempts) {
      *status = Status::kBudget;
      *error = "out-of-core FFT: the FFT plans of " + std::to_string(kPlanAttempts) +
               " schedules each asked for more work area than their schedule left (last: " +
               std::to_string(largest) + " bytes against " + std::to_string(executor->schedule_.work_bytes) +
               "); give a larger budget";
      return nullptr;
    }
    // Smaller chunks in the same budget, each with the work area its plan asks for (plus a margin:
    // the new chunks' plans may ask a slightly larger share).
    log::plan().info("out-of-core FFT: a plan asks for {} work bytes per chunk byte, more than the {} given; "
                     "scheduling again",
                     needed, work_factor);
    work_factor = std::max(work_factor, needed) * 1.0625;
  }
  if (!executor->allocate(error)) return nullptr;
  *status = Status::kOk;
  return executor;
}

void Executor::make_jobs() {
  jobs_.clear();
  switch (request_.kind) {
    case Kind::kComplex:
      jobs_.push_back(complex_job(schedule_));
      break;
    case Kind::kReal:
      jobs_.push_back(real_job(schedule_, request_.real_length, false, false));
      jobs_.push_back(real_job(schedule_, request_.real_length, true, false));
      break;
    case Kind::kPoisson:
      if (request_.columns == nullptr) throw std::invalid_argument("out-of-core Poisson: no column work");
      jobs_.push_back(poisson_job(schedule_, request_.real_length));
      break;
  }
}

const Executor::Plan* Executor::find_plan(const Slot& slot, const StepPlan& key) const {
  for (const Plan& plan : slot.plans) {
    if (plan.key == key) return &plan;
  }
  return nullptr;
}

namespace {

cufftType type_of(Work work, bool fp64) {
  switch (work) {
    case Work::kR2C: return fp64 ? CUFFT_D2Z : CUFFT_R2C;
    case Work::kC2R: return fp64 ? CUFFT_Z2D : CUFFT_C2R;
    case Work::kC2C:
    case Work::kColumns: break;
  }
  return fp64 ? CUFFT_Z2Z : CUFFT_C2C;
}

long long staged_bytes(const Step& step, long long element_bytes) {
  return step.staged[0] * step.staged[1] * step.staged[2] * element_bytes;
}

}  // namespace

bool Executor::make_plans(std::string* error, double* needed_factor) {
  destroy_plans();
  const long long element_bytes = schedule_.problem.element_bytes;
  const bool fp64 = element_bytes == 16;
  std::size_t used = 0;
  for (const Job& job : jobs_) {
    for (const Step& step : job.steps) used = std::max(used, static_cast<std::size_t>(step.slot) + 1);
  }
  slots_.assign(used, Slot{});
  *needed_factor = 0;
  const auto need = [&](std::size_t bytes, const Step& step) {
    *needed_factor = std::max(*needed_factor, static_cast<double>(bytes) /
                                                  static_cast<double>(staged_bytes(step, element_bytes)));
  };
  for (const Job& job : jobs_) {
    for (std::size_t j = 0; j < job.steps.size(); ++j) {
      const Step& step = job.steps[j];
      Slot& slot = slots_[static_cast<std::size_t>(step.slot)];
      if (step.work == Work::kColumns) {
        const std::size_t scratch = request_.columns->scratch_bytes(step.staged[2]);
        slot.work_bytes = std::max(slot.work_bytes, scratch);
        need(scratch, step);
        if (!request_.columns->wants_fft()) continue;
      }
      const std::optional<StepPlan> key = step_plan(step);
      if (!key) {
        *error = "out-of-core FFT: step " + std::to_string(j) + " (" + to_string(step.work) + ", staged " +
                 std::to_string(step.staged[0]) + " x " + std::to_string(step.staged[1]) + " x " +
                 std::to_string(step.staged[2]) + ") is not one cuFFT plan";
        return false;
      }
      if (find_plan(slot, *key) != nullptr) continue;
      Plan& plan = slot.plans.emplace_back();
      plan.key = *key;
      const FftLayout& layout = key->layout;
      Call create{Api::cufftCreate};
      if (const cufftResult made = fft::cufftCreate(create, &plan.handle); made != CUFFT_SUCCESS) {
        plan.handle = -1;
        *error = cufft_failure("cufftCreate", made);
        return false;
      }
      Call automatic{Api::cufftSetAutoAllocation};
      if (const cufftResult set = fft::cufftSetAutoAllocation(automatic, plan.handle, 0); set != CUFFT_SUCCESS) {
        *error = cufft_failure("cufftSetAutoAllocation", set);
        return false;
      }
      long long n[3] = {layout.n[0], layout.n[1], layout.n[2]};
      // Real plans in place: cuFFT's padded layout, which its basic layout (no embed) implies.
      const bool real = key->work != Work::kC2C;
      long long* embed = real || layout.basic() ? nullptr : n;
      const long long stride = real ? 1 : layout.stride;
      const long long distance = real ? 0 : layout.distance;
      Call make{Api::cufftMakePlanMany64};
      if (const cufftResult made =
              fft::cufftMakePlanMany64(make, plan.handle, layout.rank, n, embed, stride, distance, embed, stride,
                                       distance, type_of(key->work, fp64), layout.batch, &plan.work_bytes);
          made != CUFFT_SUCCESS) {
        *error = cufft_failure("the " + std::string(to_string(key->work)) + " plan of " + layout.to_string(), made);
        return false;
      }
      log::plan().debug("out-of-core FFT: slot {} {} plan {} ({}), {} work bytes", step.slot, to_string(key->work),
                        layout.to_string(), make.path == Path::kNative ? "native" : "vendor", plan.work_bytes);
      slot.work_bytes = std::max(slot.work_bytes, plan.work_bytes);
      need(plan.work_bytes, step);
    }
  }
  return true;
}

void Executor::destroy_plans() {
  for (Slot& slot : slots_) {
    for (Plan& plan : slot.plans) {
      if (plan.handle < 0) continue;
      Call destroy{Api::cufftDestroy};
      fft::cufftDestroy(destroy, plan.handle);
      plan.handle = -1;
    }
    slot.plans.clear();
  }
}

bool Executor::allocate(std::string* error) {
  const long long slot_bytes = schedule_.slot_bytes;
  // One device allocation: per slot its buffer, then its work area (the largest its plans and its
  // column work ask for, at most the schedule's work_bytes).
  std::vector<long long> offsets;
  long long total = 0;
  for (Slot& slot : slots_) {
    offsets.push_back(total);
    total += align_up(slot_bytes, kDeviceAlignment) +
             align_up(static_cast<long long>(slot.work_bytes), kDeviceAlignment);
  }
  if (total > 0) {
    if (const cudaError_t got = cudaMalloc(&device_memory_, static_cast<std::size_t>(total)); got != cudaSuccess) {
      device_memory_ = nullptr;
      *error = cuda_failure("device memory (" + std::to_string(total) + " bytes)", got);
      return false;
    }
  }
  device_bytes_held_ = total;
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    Slot& slot = slots_[s];
    unsigned char* base = static_cast<unsigned char*>(device_memory_) + offsets[s];
    slot.device = base;
    slot.work = slot.work_bytes > 0 ? base + align_up(slot_bytes, kDeviceAlignment) : nullptr;
    const std::size_t bytes = static_cast<std::size_t>(slot_bytes);
    // Write-combined for H2D (the host only writes it, and the copy engine reads it fast); ordinary
    // for D2H, whose reads from write-combined memory would be slow (Wu).
    if (const cudaError_t got = cudaHostAlloc(&slot.pinned_in, bytes, cudaHostAllocWriteCombined); got != cudaSuccess) {
      slot.pinned_in = nullptr;
      *error = cuda_failure("pinned memory (" + std::to_string(bytes) + " bytes)", got);
      return false;
    }
    if (const cudaError_t got = cudaHostAlloc(&slot.pinned_out, bytes, cudaHostAllocDefault); got != cudaSuccess) {
      slot.pinned_out = nullptr;
      *error = cuda_failure("pinned memory (" + std::to_string(bytes) + " bytes)", got);
      return false;
    }
    pinned_bytes_ += 2 * slot_bytes;
    if (const cudaError_t got = cudaStreamCreateWithFlags(&slot.stream, cudaStreamNonBlocking); got != cudaSuccess) {
      slot.stream = nullptr;
      *error = cuda_failure("stream", got);
      return false;
    }
    // Blocking: the host thread that waits sleeps, leaving its core to the copy threads.
    for (cudaEvent_t* event : {&slot.h2d_done, &slot.d2h_done}) {
      if (const cudaError_t got = cudaEventCreateWithFlags(event, cudaEventDisableTiming | cudaEventBlockingSync);
          got != cudaSuccess) {
        *event = nullptr;
        *error = cuda_failure("event", got);
        return false;
      }
    }
    for (const Plan& plan : slot.plans) {
      Call stream{Api::cufftSetStream};
      if (const cufftResult set = fft::cufftSetStream(stream, plan.handle, slot.stream); set != CUFFT_SUCCESS) {
        *error = cufft_failure("cufftSetStream", set);
        return false;
      }
      if (slot.work == nullptr) continue;
      Call area{Api::cufftSetWorkArea};
      if (const cufftResult set = fft::cufftSetWorkArea(area, plan.handle, slot.work); set != CUFFT_SUCCESS) {
        *error = cufft_failure("cufftSetWorkArea", set);
        return false;
      }
    }
  }
  return true;
}

Executor::~Executor() {
  if (device_ < 0) return;  // refused before any CUDA call: nothing to release
  DeviceScope scope(device_);
  drain();
  destroy_plans();
  for (Slot& slot : slots_) {
    if (slot.h2d_done != nullptr) cudaEventDestroy(slot.h2d_done);
    if (slot.d2h_done != nullptr) cudaEventDestroy(slot.d2h_done);
    if (slot.stream != nullptr) cudaStreamDestroy(slot.stream);
    if (slot.pinned_in != nullptr) cudaFreeHost(slot.pinned_in);
    if (slot.pinned_out != nullptr) cudaFreeHost(slot.pinned_out);
  }
  if (device_memory_ != nullptr) cudaFree(device_memory_);
  cudaGetLastError();
}

int Executor::plan_count() const {
  int count = 0;
  for (const Slot& slot : slots_) count += static_cast<int>(slot.plans.size());
  return count;
}

bool Executor::is_device_memory(const void* data) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice;
}

bool Executor::is_pinned_memory(const void* data) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

void Executor::drain() {
  for (Slot& slot : slots_) {
    if (slot.stream != nullptr) cudaStreamSynchronize(slot.stream);
  }
  cudaGetLastError();
}

bool Executor::execute(void* data, int sign, std::string* error) {
  if (request_.kind != Kind::kComplex) {
    *error = "out-of-core FFT: a real plan's exec is idgpuOocExecR2C / idgpuOocExecC2R";
    return false;
  }
  if (sign != -1 && sign != 1) {
    *error = "out-of-core FFT: the sign must be -1 or +1, not " + std::to_string(sign);
    return false;
  }
  unsigned char* arrays[kHostArrays] = {static_cast<unsigned char*>(data), static_cast<unsigned char*>(data), nullptr};
  return execute_job(jobs_.front(), arrays, sign, error);
}

bool Executor::execute_real(const void* in, void* out, bool inverse, std::string* error) {
  if (request_.kind != Kind::kReal) {
    *error = "out-of-core FFT: a complex plan's exec is idgpuOocExec";
    return false;
  }
  // The input is read only where the job never writes it: R2C, and C2R of one phase.
  unsigned char* arrays[kHostArrays] = {static_cast<unsigned char*>(const_cast<void*>(in)),
                                        static_cast<unsigned char*>(out), nullptr};
  const bool in_place = in == out;
  if (!in_place) return execute_job(jobs_[inverse ? 1 : 0], arrays, inverse ? 1 : -1, error);
  const Job job = real_job(schedule_, request_.real_length, inverse, true);
  return execute_job(job, arrays, inverse ? 1 : -1, error);
}

bool Executor::execute_poisson(const void* f, void* u, void* spectrum, std::string* error) {
  if (request_.kind != Kind::kPoisson) {
    *error = "out-of-core Poisson: not a Poisson plan";
    return false;
  }
  unsigned char* arrays[kHostArrays] = {static_cast<unsigned char*>(const_cast<void*>(f)),
                                        static_cast<unsigned char*>(u), static_cast<unsigned char*>(spectrum)};
  return execute_job(jobs_.front(), arrays, -1, error);
}

bool Executor::execute_job(const Job& job, unsigned char* const arrays[kHostArrays], int sign, std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (job.steps.empty()) {
    // Every axis of length 1: a complex array is its own DFT; a real one's copies still run.
    if (request_.kind == Kind::kComplex) return true;
  }
  DeviceScope scope(device_);
  if (scope.status() != cudaSuccess) {
    *error = cuda_failure("setting the plan's device " + std::to_string(device_), scope.status());
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string failure;
  try {
    failure = run_job(job, arrays, sign);
  } catch (...) {
    drain();
    throw;
  }
  if (!failure.empty()) {
    drain();
    *error = failure;
    return false;
  }
  if (log::api().should_log(spdlog::level::debug)) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double bytes = 0;
    for (const Step& step : job.steps) {
      bytes += static_cast<double>(step.in.run.elements() * step.in.element_bytes +
                                   step.out.run.elements() * step.out.element_bytes);
    }
    log::api().debug("out-of-core FFT, sign {}: {} round trip(s), {} steps in {:.3f} ms; {:.2f} GB/s over the bus "
                     "({} bytes both ways / time)",
                     sign, job.round_trips, job.steps.size(), seconds * 1e3, bytes / seconds * 1e-9, bytes);
  }
  return true;
}

std::string Executor::work(const Step& step, int index, int sign) {
  Slot& slot = slots_[static_cast<std::size_t>(step.slot)];
  const bool fp64 = schedule_.problem.element_bytes == 16;
  const std::string name = "step " + std::to_string(index);
  const auto exec = [&](Work kind, int direction) -> std::string {
    const std::optional<StepPlan> key = step_plan(step);
    const Plan* plan = key ? find_plan(slot, StepPlan{kind, key->layout}) : nullptr;
    if (plan == nullptr) return "out-of-core FFT: no plan for " + name;
    void* device = slot.device;
    cufftResult done = CUFFT_SUCCESS;
    Call call{Api::cufftExecC2C};
    switch (kind) {
      case Work::kR2C:
        call.api = fp64 ? Api::cufftExecD2Z : Api::cufftExecR2C;
        done = fp64 ? fft::cufftExecD2Z(call, plan->handle, static_cast<cufftDoubleReal*>(device),
                                        static_cast<cufftDoubleComplex*>(device))
                    : fft::cufftExecR2C(call, plan->handle, static_cast<cufftReal*>(device),
                                        static_cast<cufftComplex*>(device));
        break;
      case Work::kC2R:
        call.api = fp64 ? Api::cufftExecZ2D : Api::cufftExecC2R;
        done = fp64 ? fft::cufftExecZ2D(call, plan->handle, static_cast<cufftDoubleComplex*>(device),
                                        static_cast<cufftDoubleReal*>(device))
                    : fft::cufftExecC2R(call, plan->handle, static_cast<cufftComplex*>(device),
                                        static_cast<cufftReal*>(device));
        break;
      case Work::kC2C:
      case Work::kColumns:
        call.api = fp64 ? Api::cufftExecZ2Z : Api::cufftExecC2C;
        done = fp64 ? fft::cufftExecZ2Z(call, plan->handle, static_cast<cufftDoubleComplex*>(device),
                                        static_cast<cufftDoubleComplex*>(device), direction)
                    : fft::cufftExecC2C(call, plan->handle, static_cast<cufftComplex*>(device),
                                        static_cast<cufftComplex*>(device), direction);
        break;
    }
    if (done != CUFFT_SUCCESS) {
      return cufft_failure("the " + std::string(to_string(kind)) + " FFT of " + name + " (" +
                               plan->key.layout.to_string() + ")",
                           done);
    }
    return "";
  };
  switch (step.work) {
    case Work::kC2C: return exec(Work::kC2C, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE);
    case Work::kR2C: return exec(Work::kR2C, CUFFT_FORWARD);
    case Work::kC2R: return exec(Work::kC2R, CUFFT_INVERSE);
    case Work::kColumns: {
      const bool around = request_.columns->wants_fft();
      if (around) {
        if (std::string failed = exec(Work::kC2C, CUFFT_FORWARD); !failed.empty()) return failed;
      }
      if (std::string failed =
              request_.columns->enqueue(slot.device, step.first_column, step.staged[2], slot.work, slot.stream);
          !failed.empty()) {
        return "out-of-core Poisson: " + name + ": " + failed;
      }
      if (around) return exec(Work::kC2C, CUFFT_INVERSE);
      return "";
    }
  }
  return "";
}

std::string Executor::run_job(const Job& job, unsigned char* const arrays[kHostArrays], int sign) {
  // Pinned arrays (cudaHostAlloc'ed or registered) need no staging: the copy engines move each
  // run's segments between them and the slot as one pitched copy.
  bool pinned[kHostArrays] = {};
  bool any_staged = false;
  for (const Step& step : job.steps) {
    for (const Transfer* transfer : {&step.in, &step.out}) {
      const int a = transfer->array;
      if (arrays[a] == nullptr) return "out-of-core FFT: host array " + std::to_string(a) + " is missing";
    }
  }
  for (int a = 0; a < kHostArrays; ++a) {
    pinned[a] = arrays[a] != nullptr && is_pinned_memory(arrays[a]);
    any_staged = any_staged || (arrays[a] != nullptr && !pinned[a]);
  }
  std::unique_ptr<CopyTeam> team;
  if (any_staged) team = std::make_unique<CopyTeam>(copy_threads(schedule_.slot_bytes));
  // Per slot: the step whose result waits in its pinned D2H buffer to be scattered (-1: none), and
  // whether its pinned H2D buffer feeds an H2D that may not have completed.
  std::vector<int> pending(slots_.size(), -1);
  std::vector<bool> staged_in(slots_.size(), false);

  const auto wait = [&](cudaEvent_t event, const char* stage, int step) -> std::string {
    if (const cudaError_t got = cudaEventSynchronize(event); got != cudaSuccess) {
      return cuda_failure(std::string(stage) + " of step " + std::to_string(step), got);
    }
    return "";
  };
  const auto scatter_pending = [&](std::size_t s) -> std::string {
    const int previous = pending[s];
    if (previous < 0) return "";
    if (std::string failed = wait(slots_[s].d2h_done, "D2H", previous); !failed.empty()) return failed;
    const Transfer& out = job.steps[static_cast<std::size_t>(previous)].out;
    copy_chunk(*team, false, arrays[out.array], slots_[s].pinned_out, out.run, out.element_bytes);
    pending[s] = -1;
    return "";
  };

  for (std::size_t p = 0; p < job.phases.size(); ++p) {
    const JobPhase& phase = job.phases[p];
    for (int j = phase.first_step; j < phase.first_step + phase.step_count; ++j) {
      const Step& step = job.steps[static_cast<std::size_t>(j)];
      const std::size_t s = static_cast<std::size_t>(step.slot);
      Slot& slot = slots_[s];
      const std::string name = "step " + std::to_string(j);
      const Transfer& in = step.in;
      const Transfer& out = step.out;
      const auto width_in = static_cast<std::size_t>(in.run.length * in.element_bytes);
      const auto width_out = static_cast<std::size_t>(out.run.length * out.element_bytes);
      // In: straight from a pinned array; else gathered into the pinned H2D buffer once the slot's
      // previous H2D from it has completed (rule 3).
      const void* source = nullptr;
      std::size_t source_pitch = 0;
      if (pinned[in.array]) {
        source = arrays[in.array] + in.run.first * in.element_bytes;
        source_pitch = static_cast<std::size_t>(in.host_pitch() * in.element_bytes);
      } else {
        if (staged_in[s]) {
          if (std::string failed = wait(slot.h2d_done, "H2D", j); !failed.empty()) return failed;
        }
        copy_chunk(*team, true, arrays[in.array], slot.pinned_in, in.run, in.element_bytes);
        source = slot.pinned_in;
        source_pitch = width_in;
        staged_in[s] = true;
      }
      // H2D after the slot's previous D2H in stream order (rule 2).
      if (const cudaError_t got = cudaMemcpy2DAsync(
              slot.device, static_cast<std::size_t>(in.device_pitch * in.element_bytes), source, source_pitch,
              width_in, static_cast<std::size_t>(in.run.count), cudaMemcpyHostToDevice, slot.stream);
          got != cudaSuccess) {
        return cuda_failure("H2D of " + name, got);
      }
      if (const cudaError_t got = cudaEventRecord(slot.h2d_done, slot.stream); got != cudaSuccess) {
        return cuda_failure("event after the H2D of " + name, got);
      }
      if (std::string failed = work(step, j, sign); !failed.empty()) return failed;
      // Out: straight into a pinned array; else through the pinned D2H buffer, freed by the slot's
      // previous scatter (rule 4).
      void* target = nullptr;
      std::size_t target_pitch = 0;
      if (pinned[out.array]) {
        target = arrays[out.array] + out.run.first * out.element_bytes;
        target_pitch = static_cast<std::size_t>(out.host_pitch() * out.element_bytes);
      } else {
        if (std::string failed = scatter_pending(s); !failed.empty()) return failed;
        target = slot.pinned_out;
        target_pitch = width_out;
      }
      if (const cudaError_t got = cudaMemcpy2DAsync(
              target, target_pitch, slot.device, static_cast<std::size_t>(out.device_pitch * out.element_bytes),
              width_out, static_cast<std::size_t>(out.run.count), cudaMemcpyDeviceToHost, slot.stream);
          got != cudaSuccess) {
        return cuda_failure("D2H of " + name, got);
      }
      if (const cudaError_t got = cudaEventRecord(slot.d2h_done, slot.stream); got != cudaSuccess) {
        return cuda_failure("event after the D2H of " + name, got);
      }
      if (!pinned[out.array]) pending[s] = j;
    }
    // The phase's barrier (rule 5): every step scattered and every stream done before the next
    // phase reads what this one wrote.
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      if (std::string failed = scatter_pending(s); !failed.empty()) return failed;
    }
    for (Slot& slot : slots_) {
      if (const cudaError_t got = cudaStreamSynchronize(slot.stream); got != cudaSuccess) {
        return cuda_failure("phase " + std::to_string(p), got);
      }
    }
    staged_in.assign(staged_in.size(), false);
  }
  return "";
}

}  // namespace idgpu::ooc
