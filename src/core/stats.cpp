#include "core/stats.h"

#include <array>
#include <memory>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "core/vendor.h"

namespace idgpu::stats {
namespace {

// Counters are per thread, so that counting a call costs plain increments (no locked
// read-modify-write on a cache line every thread shares): the forwarding overhead budget of a
// call is tens of nanoseconds. Each thread's block registers itself; a snapshot sums the live
// blocks and what exited threads left behind.
enum Counter : int { kCalls = 0, kNative = 1, kVendor = 2, kFailed = 3, kCounters = 4 };
using CounterTable = std::array<std::array<std::uint64_t, kCounters>, kApiCount>;

struct ThreadCounters;

struct CounterRegistry {
  std::mutex mutex;
  std::vector<ThreadCounters*> live;   // blocks owned by running threads (summed by snapshots)
  std::vector<ThreadCounters*> spare;  // blocks of exited threads, zeroed, for reuse
  CounterTable retired{};              // what exited threads counted
  CounterTable baseline{};             // what idgpuResetCallStats subtracts
};

CounterRegistry& registry() {
  static CounterRegistry* instance = new CounterRegistry();  // used by exiting threads and exit handlers
  return *instance;
}

// Written by the owning thread only (relaxed load + store: no locked instruction), read by
// snapshots from any thread. Blocks are never freed: an exited thread's block is folded into
// `retired`, zeroed and reused by a later thread.
struct ThreadCounters {
  std::array<std::array<std::atomic<std::uint64_t>, kCounters>, kApiCount> counts{};

  void bump(Api api, int counter) {
    std::atomic<std::uint64_t>& slot = counts[static_cast<std::size_t>(api)][counter];
    slot.store(slot.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

ThreadCounters* acquire_counters() {
  CounterRegistry& all = registry();
  std::lock_guard<std::mutex> lock(all.mutex);
  ThreadCounters* block = nullptr;
  if (!all.spare.empty()) {
    block = all.spare.back();
    all.spare.pop_back();
  } else {
    block = new ThreadCounters();
  }
  all.live.push_back(block);
  return block;
}

void retire_counters(ThreadCounters* block) {
  CounterRegistry& all = registry();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (std::size_t api = 0; api < kApiCount; ++api) {
    for (int counter = 0; counter < kCounters; ++counter) {
      all.retired[api][counter] += block->counts[api][counter].exchange(0, std::memory_order_relaxed);
    }
  }
  for (auto& entry : all.live) {
    if (entry == block) {
      entry = all.live.back();
      all.live.pop_back();
      break;
    }
  }
  all.spare.push_back(block);
}

// Sum over every thread that ever counted, less the baseline.
CounterTable totals() {
  CounterRegistry& all = registry();
  std::lock_guard<std::mutex> lock(all.mutex);
  CounterTable sum = all.retired;
  for (const ThreadCounters* thread : all.live) {
    for (std::size_t api = 0; api < kApiCount; ++api) {
      for (int counter = 0; counter < kCounters; ++counter) {
        sum[api][counter] += thread->counts[api][counter].load(std::memory_order_relaxed);
      }
    }
  }
  return sum;
}

// Event pairs recorded around calls are harvested when they complete (polled on later calls,
// waited for at exit), so timing never synchronises the host inside a call.
struct PendingTiming {
  Api api;
  cudaEvent_t start;
  cudaEvent_t stop;
};

class TimingBook {
 public:
  static TimingBook& timing_book();

  cudaEvent_t take_event() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_events_.empty()) {
      cudaEvent_t event = free_events_.back();
      free_events_.pop_back();
      return event;
    }
    cudaEvent_t event = nullptr;
    if (cudaEventCreate(&event) != cudaSuccess) return nullptr;
    ensure_exit_hook();
    return event;
  }

  void give_event(cudaEvent_t event) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_events_.push_back(event);
  }

  void add(Api api, cudaEvent_t start, cudaEvent_t stop) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back({api, start, stop});
    harvest_locked(false);
  }

  void harvest(bool wait) {
    std::lock_guard<std::mutex> lock(mutex_);
    harvest_locked(wait);
  }

  Snapshot add_times(Api api, Snapshot snap) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto index = static_cast<std::size_t>(api);
    snap.gpu_ms = gpu_ms_[index];
    snap.timed = timed_[index];
    return snap;
  }

  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    gpu_ms_.fill(0.0);
    timed_.fill(0);
  }

 private:
  void harvest_locked(bool wait) {
    std::size_t kept = 0;
    for (const PendingTiming& timing : pending_) {
      cudaError_t state = wait ? cudaEventSynchronize(timing.stop) : cudaEventQuery(timing.stop);
      if (state == cudaErrorNotReady) {
        pending_[kept++] = timing;
        continue;
      }
      float ms = 0.0f;
      if (state == cudaSuccess && cudaEventElapsedTime(&ms, timing.start, timing.stop) == cudaSuccess) {
        const auto index = static_cast<std::size_t>(timing.api);
        gpu_ms_[index] += ms;
        timed_[index] += 1;
      }
      free_events_.push_back(timing.start);
      free_events_.push_back(timing.stop);
    }
    pending_.resize(kept);
  }

  // Registered after the CUDA runtime has initialised (we have just created an event), so it
  // runs before the runtime's own exit teardown.
  void ensure_exit_hook() {
    if (!exit_hook_) {
      exit_hook_ = true;
      std::atexit([] { timing_book().harvest(true); });
    }
  }

  std::mutex mutex_;
  std::vector<PendingTiming> pending_;
  std::vector<cudaEvent_t> free_events_;
  std::array<double, kApiCount> gpu_ms_{};
  std::array<std::uint64_t, kApiCount> timed_{};
  bool exit_hook_ = false;
};

TimingBook& TimingBook::timing_book() {
  static TimingBook* instance = new TimingBook();  // never destroyed: used from exit handlers
  return *instance;
}

TimingBook& book() { return TimingBook::timing_book(); }

void print_report_at_exit() {
  if (config().report == ReportMode::kOff) return;
  if (config().report == ReportMode::kTiming) book().harvest(true);
  write_report(stderr);
}

// The exit report is armed by the first recorded call, so processes that never call us (the
// children a preloaded library is inherited by) print nothing.
void arm_report() {
  static const bool armed = [] {
    if (config().report != ReportMode::kOff) std::atexit(print_report_at_exit);
    return true;
  }();
  (void)armed;
}

}  // namespace

// The calling thread's counters: a thread-local pointer with a trivial initialiser (no guard on
// the hot path), set on the thread's first call. A second thread-local object hands the block back
// when the thread exits. A call made after that (from an exit handler, after the main thread's
// thread-local destructors ran) takes a new block that simply stays live, still counted.
thread_local ThreadCounters* t_counters = nullptr;
thread_local bool t_exited = false;

struct ThreadRetirer {
  ThreadCounters* block = nullptr;
  ~ThreadRetirer() {
    if (block != nullptr) retire_counters(block);
    t_counters = nullptr;
    t_exited = true;
  }
};

__attribute__((noinline)) ThreadCounters& first_counters() {
  t_counters = acquire_counters();
  if (!t_exited) {
    static thread_local ThreadRetirer retirer;
    retirer.block = t_counters;
  }
  arm_report();
  return *t_counters;
}

inline ThreadCounters& thread_counters() {
  ThreadCounters* mine = t_counters;
  return __builtin_expect(mine != nullptr, 1) ? *mine : first_counters();
}

void record(Api api, Path path, bool failed) {
  ThreadCounters& mine = thread_counters();
  mine.bump(api, kCalls);
  if (path == Path::kNative) mine.bump(api, kNative);
  if (path == Path::kVendor) mine.bump(api, kVendor);
  if (failed) mine.bump(api, kFailed);
}

Snapshot snapshot(Api api) {
  const CounterTable sum = totals();
  const auto index = static_cast<std::size_t>(api);
  std::array<std::uint64_t, kCounters> base;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    base = registry().baseline[index];
  }
  Snapshot snap;
  snap.calls = sum[index][kCalls] - base[kCalls];
  snap.native = sum[index][kNative] - base[kNative];
  snap.vendor = sum[index][kVendor] - base[kVendor];
  snap.failed = sum[index][kFailed] - base[kFailed];
  if (config().report == ReportMode::kTiming) snap = book().add_times(api, snap);
  return snap;
}

void reset() {
  const CounterTable sum = totals();
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().baseline = sum;
  }
  book().reset();
}

void write_report(std::FILE* out) {
  const bool timing = config().report == ReportMode::kTiming;
  std::fprintf(out, "idgpu dispatch report (pid %d)\n", static_cast<int>(getpid()));
  std::fprintf(out, "%-44s %10s %10s %10s %8s", "function", "calls", "native", "vendor", "failed");
  if (timing) std::fprintf(out, " %12s %10s", "gpu_ms", "timed");
  std::fprintf(out, "\n");
  std::uint64_t total = 0;
  for (std::size_t index = 0; index < kApiCount; ++index) {
    const Api api = static_cast<Api>(index);
    const Snapshot snap = snapshot(api);
    if (snap.calls == 0) continue;
    total += snap.calls;
    std::fprintf(out, "%-44s %10llu %10llu %10llu %8llu", api_name(api),
                 static_cast<unsigned long long>(snap.calls), static_cast<unsigned long long>(snap.native),
                 static_cast<unsigned long long>(snap.vendor), static_cast<unsigned long long>(snap.failed));
    if (timing) std::fprintf(out, " %12.3f %10llu", snap.gpu_ms, static_cast<unsigned long long>(snap.timed));
    std::fprintf(out, "\n");
  }
  if (total == 0) std::fprintf(out, "(no calls)\n");
  for (const std::string& library : vendor::unserved_vendor_libraries()) {
    std::fprintf(out,
                 "the process loaded %s, a vendor release idgpu does not serve (it serves %s, %s and %s): "
                 "calls to it never reach idgpu\n",
                 library.c_str(), IDGPU_VENDOR_CUFFT_SONAME, IDGPU_VENDOR_CUFFT11_SONAME, IDGPU_VENDOR_CUSPARSE_SONAME);
  }
  std::fflush(out);
}

namespace {
// A process whose vendor calls all went to a release idgpu does not serve never records a call,
// so the report above is never armed. At exit it still says so: once at info, and as the report
// when IDGPU_REPORT is set. Registered at load (a constant-time atexit), it does nothing in the
// processes that load no vendor library (the children a preloaded library is inherited by).
void report_unserved_at_exit() {
  for (std::size_t index = 0; index < kApiCount; ++index) {
    if (snapshot(static_cast<Api>(index)).calls > 0) return;  // the report was armed
  }
  const std::vector<std::string> unserved = vendor::unserved_vendor_libraries();
  if (unserved.empty()) return;
  // Read here, not at load: the configuration's warnings belong to processes that use idgpu.
  std::vector<std::string> warnings;  // said by config() in the processes that use idgpu
  const Config settings = parse_config([](const char* name) -> const char* { return std::getenv(name); }, &warnings);
  for (const std::string& library : unserved) {
    // The loggers are gone by now (their destructors ran first): the same line, written directly.
    if (settings.log_level <= LogLevel::kInfo) {
      std::fprintf(stderr,
                   "[idgpu vendor] info: no call reached idgpu: the process loaded %s, a vendor release idgpu "
                   "does not serve (it serves %s, %s and %s)\n",
                   library.c_str(), IDGPU_VENDOR_CUFFT_SONAME, IDGPU_VENDOR_CUFFT11_SONAME, IDGPU_VENDOR_CUSPARSE_SONAME);
    }
  }
  if (settings.report != ReportMode::kOff) write_report(stderr);
}

__attribute__((constructor)) void arm_unserved_report() { std::atexit(report_unserved_at_exit); }
}  // namespace

bool timing_enabled() { return hot().timing; }

GpuTimer::GpuTimer(Api api, cudaStream_t stream) : api_(api), stream_(stream) {
  if (!hot().timing) return;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone) return;
  start_ = book().take_event();
  if (start_ != nullptr && cudaEventRecord(start_, stream) != cudaSuccess) {
    book().give_event(start_);
    start_ = nullptr;
  }
}

GpuTimer::~GpuTimer() {
  if (start_ == nullptr) return;
  cudaEvent_t stop = book().take_event();
  if (stop == nullptr || cudaEventRecord(stop, stream_) != cudaSuccess) {
    book().give_event(start_);
    if (stop != nullptr) book().give_event(stop);
    return;
  }
  book().add(api_, start_, stop);
}

}  // namespace idgpu::stats
