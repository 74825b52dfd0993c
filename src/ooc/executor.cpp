#include "ooc/executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <system_error>
#include <thread>

#include "core/api.h"
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

// The plan's device current for a scope, the caller's restored after it.
class DeviceScope {
 public:
  explicit DeviceScope(int device) : device_(device) {
    if (cudaGetDevice(&caller_) != cudaSuccess) {
      cudaGetLastError();
      caller_ = -1;
    }
    if (caller_ != device_) status_ = cudaSetDevice(device_);
  }
  ~DeviceScope() {
    if (caller_ >= 0 && caller_ != device_) cudaSetDevice(caller_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  cudaError_t status() const { return status_; }

 private:
  int device_;
  int caller_ = -1;
  cudaError_t status_ = cudaSuccess;
};

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

std::unique_ptr<Executor> Executor::make(const Problem& problem, long long device_bytes, Status* status,
                                         std::string* error) {
  *status = Status::kFailed;
  std::unique_ptr<Executor> executor(new Executor());
  double work_factor = 1.0;
  for (int attempt = 0;; ++attempt) {
    ScheduleResult result = schedule_for(problem, device_bytes, work_factor);
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
    double needed = 0;
    if (!executor->make_plans(error, &needed)) return nullptr;
    std::size_t largest = 0;
    for (const Slot& slot : executor->slots_) {
      for (const Plan& plan : slot.plans) largest = std::max(largest, plan.work_bytes);
    }
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

bool Executor::make_plans(std::string* error, double* needed_factor) {
  destroy_plans();
  const Schedule& schedule = schedule_;
  const long long element_bytes = schedule.problem.element_bytes;
  const cufftType type = element_bytes == 8 ? CUFFT_C2C : CUFFT_Z2Z;
  const std::size_t used = std::min(static_cast<std::size_t>(schedule.slot_count), schedule.chunks.size());
  slots_.assign(used, Slot{});
  chunk_plan_.assign(schedule.chunks.size(), -1);
  *needed_factor = 0;
  for (std::size_t j = 0; j < schedule.chunks.size(); ++j) {
    const Chunk& chunk = schedule.chunks[j];
    const std::optional<FftLayout> layout = fft_layout(chunk.staged, chunk.axes);
    if (!layout) {
      *error = "out-of-core FFT: chunk " + std::to_string(j) + " (staged " + staged_text(chunk) +
               ") is not one cuFFT plan";
      return false;
    }
    Slot& slot = slots_[static_cast<std::size_t>(chunk.slot)];
    const auto found = std::find_if(slot.plans.begin(), slot.plans.end(),
                                    [&](const Plan& plan) { return plan.layout == *layout; });
    if (found != slot.plans.end()) {
      chunk_plan_[j] = static_cast<int>(found - slot.plans.begin());
      continue;
    }
    Plan& plan = slot.plans.emplace_back();
    plan.layout = *layout;
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
    long long n[3] = {layout->n[0], layout->n[1], layout->n[2]};
    long long* embed = layout->basic() ? nullptr : n;
    Call make{Api::cufftMakePlanMany64};
    if (const cufftResult made =
            fft::cufftMakePlanMany64(make, plan.handle, layout->rank, n, embed, layout->stride, layout->distance,
                                     embed, layout->stride, layout->distance, type, layout->batch, &plan.work_bytes);
        made != CUFFT_SUCCESS) {
      *error = cufft_failure("the plan of " + layout->to_string(), made);
      return false;
    }
    log::plan().debug("out-of-core FFT: slot {} plan {} ({}), {} work bytes", chunk.slot, layout->to_string(),
                      make.path == Path::kNative ? "native" : "vendor", plan.work_bytes);
    *needed_factor = std::max(*needed_factor, static_cast<double>(plan.work_bytes) /
                                                  static_cast<double>(layout->elements() * element_bytes));
    chunk_plan_[j] = static_cast<int>(slot.plans.size() - 1);
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
  // One device allocation: per slot its buffer, then its work area (the largest its plans ask for,
  // at most the schedule's work_bytes).
  std::vector<long long> offsets;
  long long total = 0;
  for (Slot& slot : slots_) {
    for (const Plan& plan : slot.plans) slot.work_bytes = std::max(slot.work_bytes, plan.work_bytes);
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

void Executor::drain() {
  for (Slot& slot : slots_) {
    if (slot.stream != nullptr) cudaStreamSynchronize(slot.stream);
  }
  cudaGetLastError();
}

bool Executor::execute(void* data, int sign, std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (sign != -1 && sign != 1) {
    *error = "out-of-core FFT: the sign must be -1 or +1, not " + std::to_string(sign);
    return false;
  }
  if (schedule_.chunks.empty()) return true;  // every axis of length 1: the data are their own DFT
  DeviceScope scope(device_);
  if (scope.status() != cudaSuccess) {
    *error = cuda_failure("setting the plan's device " + std::to_string(device_), scope.status());
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string failure;
  try {
    failure = run(static_cast<unsigned char*>(data), sign);
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
    const double bytes = static_cast<double>(schedule_.elements()) * schedule_.problem.element_bytes;
    log::api().debug("out-of-core FFT, sign {}: {} round trip(s), {} chunks in {:.3f} ms; {:.2f} GB/s over the bus "
                     "(2 x {} bytes x round trips / time)",
                     sign, schedule_.round_trips, schedule_.chunks.size(), seconds * 1e3,
                     2.0 * bytes * schedule_.round_trips / seconds * 1e-9, bytes);
  }
  return true;
}

bool Executor::is_pinned_memory(const void* data) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

std::string Executor::run_direct(unsigned char* data, int sign) {
  const Schedule& schedule = schedule_;
  const long long element_bytes = schedule.problem.element_bytes;
  const bool fp64 = element_bytes == 16;
  const int direction = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
  for (std::size_t p = 0; p < schedule.phases.size(); ++p) {
    const Phase& phase = schedule.phases[p];
    if (phase.kind != PhaseKind::kDevice) return "out-of-core FFT: phase " + std::to_string(p) + " is a host phase";
    for (int j = phase.first_chunk; j < phase.first_chunk + phase.chunk_count; ++j) {
      const Chunk& chunk = schedule.chunks[static_cast<std::size_t>(j)];
      Slot& slot = slots_[static_cast<std::size_t>(chunk.slot)];
      const std::string name = "chunk " + std::to_string(j);
      const auto width = static_cast<std::size_t>(chunk.run.length * element_bytes);
      const auto pitch = static_cast<std::size_t>(std::max(chunk.run.stride, chunk.run.length) * element_bytes);
      const auto rows = static_cast<std::size_t>(chunk.run.count);
      unsigned char* host = data + chunk.run.first * element_bytes;
      // The run's segments straight from the caller's pinned memory into the slot, after the slot's
      // previous chunk left it (stream order: rule 2).
      if (const cudaError_t got =
              cudaMemcpy2DAsync(slot.device, width, host, pitch, width, rows, cudaMemcpyHostToDevice, slot.stream);
          got != cudaSuccess) {
        return cuda_failure("H2D of " + name, got);
      }
      const Plan& plan = slot.plans[static_cast<std::size_t>(chunk_plan_[static_cast<std::size_t>(j)])];
      Call exec{fp64 ? Api::cufftExecZ2Z : Api::cufftExecC2C};
      const cufftResult transformed =
          fp64 ? fft::cufftExecZ2Z(exec, plan.handle, static_cast<cufftDoubleComplex*>(slot.device),
                                   static_cast<cufftDoubleComplex*>(slot.device), direction)
               : fft::cufftExecC2C(exec, plan.handle, static_cast<cufftComplex*>(slot.device),
                                   static_cast<cufftComplex*>(slot.device), direction);
      if (transformed != CUFFT_SUCCESS) {
        return cufft_failure("the FFT of " + name + " (" + plan.layout.to_string() + ")", transformed);
      }
      if (const cudaError_t got =
              cudaMemcpy2DAsync(host, pitch, slot.device, width, width, rows, cudaMemcpyDeviceToHost, slot.stream);
          got != cudaSuccess) {
        return cuda_failure("D2H of " + name, got);
      }
    }
    // The phase's barrier (rule 5): the next phase reads what every stream of this one wrote.
    for (Slot& slot : slots_) {
      if (const cudaError_t got = cudaStreamSynchronize(slot.stream); got != cudaSuccess) {
        return cuda_failure("phase " + std::to_string(p), got);
      }
    }
  }
  return "";
}

std::string Executor::run(unsigned char* data, int sign) {
  // Pinned data (cudaHostAlloc'ed or registered) needs no staging: the copy engines move each
  // run's segments directly as a pitched copy, and every stage is enqueued at once.
  if (is_pinned_memory(data)) return run_direct(data, sign);
  const Schedule& schedule = schedule_;
  const long long element_bytes = schedule.problem.element_bytes;
  const bool fp64 = element_bytes == 16;
  const int direction = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
  CopyTeam team(copy_threads(schedule.slot_bytes));
  // Per slot, the chunk whose result waits in its pinned D2H buffer to be scattered, or -1.
  std::vector<int> pending(slots_.size(), -1);

  const auto wait = [&](cudaEvent_t event, const char* stage, int chunk) -> std::string {
    if (const cudaError_t got = cudaEventSynchronize(event); got != cudaSuccess) {
      return cuda_failure(std::string(stage) + " of chunk " + std::to_string(chunk), got);
    }
    return "";
  };
  const auto scatter_pending = [&](std::size_t s) -> std::string {
    const int previous = pending[s];
    if (previous < 0) return "";
    if (std::string failed = wait(slots_[s].d2h_done, "D2H", previous); !failed.empty()) return failed;
    copy_chunk(team, false, data, slots_[s].pinned_out, schedule.chunks[static_cast<std::size_t>(previous)].run,
               element_bytes);
    pending[s] = -1;
    return "";
  };

  for (std::size_t p = 0; p < schedule.phases.size(); ++p) {
    const Phase& phase = schedule.phases[p];
    if (phase.kind != PhaseKind::kDevice) return "out-of-core FFT: phase " + std::to_string(p) + " is a host phase";
    for (int j = phase.first_chunk; j < phase.first_chunk + phase.chunk_count; ++j) {
      const Chunk& chunk = schedule.chunks[static_cast<std::size_t>(j)];
      const std::size_t s = static_cast<std::size_t>(chunk.slot);
      Slot& slot = slots_[s];
      const std::size_t bytes = static_cast<std::size_t>(chunk.run.elements() * element_bytes);
      const std::string name = "chunk " + std::to_string(j);
      // (a) the pinned H2D buffer is free once the previous chunk's H2D has completed (rule 3).
      if (pending[s] >= 0) {
        if (std::string failed = wait(slot.h2d_done, "H2D", pending[s]); !failed.empty()) return failed;
      }
      // (b) gather.
      copy_chunk(team, true, data, slot.pinned_in, chunk.run, element_bytes);
      // (c) H2D and the transform, after the slot's previous D2H in stream order (rule 2).
      if (const cudaError_t got =
              cudaMemcpyAsync(slot.device, slot.pinned_in, bytes, cudaMemcpyHostToDevice, slot.stream);
          got != cudaSuccess) {
        return cuda_failure("H2D of " + name, got);
      }
      if (const cudaError_t got = cudaEventRecord(slot.h2d_done, slot.stream); got != cudaSuccess) {
        return cuda_failure("event after the H2D of " + name, got);
      }
      const Plan& plan = slot.plans[static_cast<std::size_t>(chunk_plan_[static_cast<std::size_t>(j)])];
      Call exec{fp64 ? Api::cufftExecZ2Z : Api::cufftExecC2C};
      const cufftResult transformed =
          fp64 ? fft::cufftExecZ2Z(exec, plan.handle, static_cast<cufftDoubleComplex*>(slot.device),
                                   static_cast<cufftDoubleComplex*>(slot.device), direction)
               : fft::cufftExecC2C(exec, plan.handle, static_cast<cufftComplex*>(slot.device),
                                   static_cast<cufftComplex*>(slot.device), direction);
      if (transformed != CUFFT_SUCCESS) {
        return cufft_failure("the FFT of " + name + " (" + plan.layout.to_string() + ")", transformed);
      }
      // (d) the previous chunk's scatter frees the pinned D2H buffer (rule 4).
      if (std::string failed = scatter_pending(s); !failed.empty()) return failed;
      // (e) D2H.
      if (const cudaError_t got =
              cudaMemcpyAsync(slot.pinned_out, slot.device, bytes, cudaMemcpyDeviceToHost, slot.stream);
          got != cudaSuccess) {
        return cuda_failure("D2H of " + name, got);
      }
      if (const cudaError_t got = cudaEventRecord(slot.d2h_done, slot.stream); got != cudaSuccess) {
        return cuda_failure("event after the D2H of " + name, got);
      }
      pending[s] = j;
    }
    // The phase's barrier (rule 5): every chunk scattered before the next phase gathers.
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      if (std::string failed = scatter_pending(s); !failed.empty()) return failed;
    }
  }
  return "";
}

}  // namespace idgpu::ooc
