#include "core/stats.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/config.h"
#include "core/log.h"
#include "core/vendor.h"
#include "idgpu/version.h"

namespace idgpu::stats {
namespace {

// Counters are per thread, so that counting a call costs plain increments (no locked
// read-modify-write on a cache line every thread shares): the forwarding overhead budget of a
// call is tens of nanoseconds. Each thread's block registers itself; a snapshot sums the live
// blocks and what exited threads left behind.
enum Counter : int { kCalls = 0, kNative = 1, kVendor = 2, kFailed = 3, kCounters = 4 };
using CounterTable = std::array<std::array<std::uint64_t, kCounters>, kApiCount>;

// Text kept for the process's lifetime: reasons copied when first met, FFT descriptors interned at
// plan time. One copy per distinct text, so that the report can aggregate by pointer.
struct InternTable {
  std::mutex mutex;
  std::unordered_set<std::string> texts;  // nodes: their strings never move
  std::vector<const char*> shapes;        // shape id - 1 -> its text
  std::unordered_map<const char*, std::uint32_t> shape_ids;
};

InternTable& interned() {
  static InternTable* instance = new InternTable();  // used by exit handlers
  return *instance;
}

// The detail key: function and side in one tag (0: an empty slot), the reason's interned text and
// the shape.
std::uint32_t detail_tag(Api api, Path path) {
  return 1u + ((static_cast<std::uint32_t>(api) << 2) | static_cast<std::uint32_t>(path));
}
Api tag_api(std::uint32_t tag) { return static_cast<Api>((tag - 1u) >> 2); }
Path tag_path(std::uint32_t tag) { return static_cast<Path>((tag - 1u) & 3u); }

bool same_shape(const Shape& a, const Shape& b) {
  return a.fft == b.fft && a.m == b.m && a.count == b.count && a.algo == b.algo;
}

struct DetailKey {
  std::uint32_t tag;
  const char* text;
  Shape shape;
  auto tied() const { return std::tie(tag, text, shape.fft, shape.m, shape.count, shape.algo); }
  bool operator<(const DetailKey& other) const { return tied() < other.tied(); }
};
struct DetailCounts {
  std::uint64_t calls = 0;
  std::uint64_t failed = 0;
};
using DetailTable = std::map<DetailKey, DetailCounts>;

struct ThreadCounters;

struct CounterRegistry {
  std::mutex mutex;
  std::vector<ThreadCounters*> live;   // blocks owned by running threads (summed by snapshots)
  std::vector<ThreadCounters*> spare;  // blocks of exited threads, zeroed, for reuse
  CounterTable retired{};              // what exited threads counted
  CounterTable baseline{};             // what idgpuResetCallStats subtracts
  DetailTable retired_detail;          // the same, for the detail
  DetailTable baseline_detail;
};

CounterRegistry& registry() {
  static CounterRegistry* instance = new CounterRegistry();  // used by exiting threads and exit handlers
  return *instance;
}

void increment(std::atomic<std::uint64_t>& counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// One key of a thread's detail, on a cache line of its own. The key fields are written once, by
// the owning thread, before the tag is published (release); a snapshot reads them only after
// loading a non-zero tag (acquire). Blocks are cleared only while no thread owns them.
struct alignas(64) DetailSlot {
  std::atomic<std::uint32_t> tag{0};
  Shape shape;
  const char* reason = nullptr;  // the call's pointer: the key a probe compares
  const char* text = nullptr;    // its interned copy: what the report prints and aggregates by
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> failed{0};
};

// A thread's detail: open addressing with linear probing, at most half full. A process has a few
// dozen keys (functions x sides x shapes x reasons), a test program a few hundred; the table starts
// small and grows (under the registry's lock, which every reader holds: no reader sees a table
// being replaced) up to kMaxDetailSlots. A key that finds no room then is counted in the
// per-function counters only, and the report shows it as kNotItemised.
constexpr std::size_t kFirstDetailSlots = 64;  // powers of two
constexpr std::size_t kMaxDetailSlots = 1 << 16;

std::size_t detail_hash(std::uint32_t tag, const char* reason, const Shape& shape) {
  std::uint64_t hash = tag * 0x9E3779B97F4A7C15ull;
  hash ^= static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(reason)) * 0xC2B2AE3D27D4EB4Full;
  hash ^= (static_cast<std::uint64_t>(shape.fft) << 32 | static_cast<std::uint32_t>(shape.m)) * 0x165667B19E3779F9ull;
  hash ^= (static_cast<std::uint64_t>(static_cast<std::uint32_t>(shape.count)) << 32 |
           static_cast<std::uint32_t>(shape.algo)) *
          0x27D4EB2F165667C5ull;
  return static_cast<std::size_t>(hash ^ (hash >> 31));
}

// Written by the owning thread only (relaxed load + store: no locked instruction), read by
// snapshots from any thread. Blocks are never freed: an exited thread's block is folded into
// `retired`, zeroed and reused by a later thread.
struct ThreadCounters {
  std::array<std::array<std::atomic<std::uint64_t>, kCounters>, kApiCount> counts{};
  // The detail table: replaced only by the owner, under the registry's lock.
  std::unique_ptr<DetailSlot[]> slots = std::make_unique<DetailSlot[]>(kFirstDetailSlots);
  std::size_t capacity = kFirstDetailSlots;
  std::size_t used = 0;

  void bump(Api api, int counter) { increment(counts[static_cast<std::size_t>(api)][counter]); }

  void itemise(const Call& call, bool failed) {
    const std::uint32_t tag = detail_tag(call.api, call.path);
    const std::size_t hash = detail_hash(tag, call.reason, call.shape);
    for (std::size_t index = hash & (capacity - 1);; index = (index + 1) & (capacity - 1)) {
      DetailSlot& slot = slots[index];
      const std::uint32_t seen = slot.tag.load(std::memory_order_relaxed);  // ours: no other writer
      if (seen == tag && slot.reason == call.reason && same_shape(slot.shape, call.shape)) {
        increment(slot.calls);
        if (failed) increment(slot.failed);
        return;
      }
      if (seen == 0) {
        if (DetailSlot* added = add(hash, tag, call)) {
          increment(added->calls);
          if (failed) increment(added->failed);
        }
        return;
      }
    }
  }

  // The first call of a key on this thread: the reason's text is copied now, while the layer that
  // set it still holds it (a plan's name lives as long as the plan). Null when the table is full.
  __attribute__((noinline)) DetailSlot* add(std::size_t hash, std::uint32_t tag, const Call& call) {
    if (2 * (used + 1) > capacity) {
      if (capacity >= kMaxDetailSlots) return nullptr;
      grow();
    }
    std::size_t index = hash & (capacity - 1);
    while (slots[index].tag.load(std::memory_order_relaxed) != 0) index = (index + 1) & (capacity - 1);
    DetailSlot& slot = slots[index];
    slot.shape = call.shape;
    slot.reason = call.reason;
    slot.text = intern_text(call.reason != nullptr ? call.reason : "");
    slot.tag.store(tag, std::memory_order_release);
    ++used;
    return &slot;
  }

  void grow() {
    const std::size_t larger = capacity * 4;
    auto table = std::make_unique<DetailSlot[]>(larger);
    std::lock_guard<std::mutex> lock(registry().mutex);
    for (std::size_t old = 0; old < capacity; ++old) {
      const DetailSlot& from = slots[old];
      const std::uint32_t tag = from.tag.load(std::memory_order_relaxed);
      if (tag == 0) continue;
      std::size_t index = detail_hash(tag, from.reason, from.shape) & (larger - 1);
      while (table[index].tag.load(std::memory_order_relaxed) != 0) index = (index + 1) & (larger - 1);
      DetailSlot& to = table[index];
      to.shape = from.shape;
      to.reason = from.reason;
      to.text = from.text;
      to.calls.store(from.calls.load(std::memory_order_relaxed), std::memory_order_relaxed);
      to.failed.store(from.failed.load(std::memory_order_relaxed), std::memory_order_relaxed);
      to.tag.store(tag, std::memory_order_relaxed);
    }
    slots = std::move(table);
    capacity = larger;
  }

  // Under the registry's lock, by a thread that does not own the block (or owns none of it now).
  void add_detail_to(DetailTable* table) const {
    for (std::size_t index = 0; index < capacity; ++index) {
      const DetailSlot& slot = slots[index];
      const std::uint32_t tag = slot.tag.load(std::memory_order_acquire);
      if (tag == 0) continue;
      DetailCounts& counts = (*table)[DetailKey{tag, slot.text, slot.shape}];
      counts.calls += slot.calls.load(std::memory_order_relaxed);
      counts.failed += slot.failed.load(std::memory_order_relaxed);
    }
  }

  void clear_detail() {
    for (std::size_t index = 0; index < capacity; ++index) {
      DetailSlot& slot = slots[index];
      slot.tag.store(0, std::memory_order_relaxed);
      slot.shape = Shape{};
      slot.reason = nullptr;
      slot.text = nullptr;
      slot.calls.store(0, std::memory_order_relaxed);
      slot.failed.store(0, std::memory_order_relaxed);
    }
    used = 0;
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
  block->add_detail_to(&all.retired_detail);
  block->clear_detail();
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

// The detail summed the same way, less its baseline.
DetailTable detail_totals(bool less_baseline) {
  CounterRegistry& all = registry();
  std::lock_guard<std::mutex> lock(all.mutex);
  DetailTable sum = all.retired_detail;
  for (const ThreadCounters* thread : all.live) thread->add_detail_to(&sum);
  if (less_baseline) {
    for (const auto& [key, base] : all.baseline_detail) {
      const auto found = sum.find(key);
      if (found == sum.end()) continue;
      found->second.calls -= std::min(found->second.calls, base.calls);
      found->second.failed -= std::min(found->second.failed, base.failed);
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

// The exit report, to IDGPU_REPORT_FILE (or stderr where it is unset or cannot be written), as a
// table or as JSON.
void emit_report(const Config& settings) {
  std::FILE* out = stderr;
  std::FILE* file = nullptr;
  if (!settings.report_file.empty()) {
    const std::string path = report_path(settings.report_file, static_cast<long>(getpid()));
    file = std::fopen(path.c_str(), "w");
    if (file != nullptr) {
      out = file;
    } else {
      std::fprintf(stderr, "idgpu: the report cannot be written to %s (%s); it follows on stderr\n", path.c_str(),
                   std::strerror(errno));
    }
  }
  if (settings.report_json) {
    write_report_json(out);
  } else {
    write_report(out);
  }
  if (file != nullptr) std::fclose(file);
}

void print_report_at_exit() {
  if (config().report == ReportMode::kOff) return;
  if (config().report == ReportMode::kTiming) book().harvest(true);
  emit_report(config());
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

void record(const Call& call, bool failed) {
  ThreadCounters& mine = thread_counters();
  mine.bump(call.api, kCalls);
  if (call.path == Path::kNative) mine.bump(call.api, kNative);
  if (call.path == Path::kVendor) mine.bump(call.api, kVendor);
  if (failed) mine.bump(call.api, kFailed);
  mine.itemise(call, failed);
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
  DetailTable detail_sum = detail_totals(false);
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().baseline = sum;
    registry().baseline_detail = std::move(detail_sum);
  }
  book().reset();
}

const char* intern_text(std::string_view text) {
  InternTable& table = interned();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.texts.emplace(text).first->c_str();
}

std::uint32_t intern_shape(std::string_view text) {
  const char* kept = intern_text(text);
  InternTable& table = interned();
  std::lock_guard<std::mutex> lock(table.mutex);
  const auto [entry, added] = table.shape_ids.emplace(kept, static_cast<std::uint32_t>(table.shapes.size() + 1));
  if (added) table.shapes.push_back(kept);
  return entry->second;
}

const char* path_name(Path path) {
  switch (path) {
    case Path::kNative: return "native";
    case Path::kVendor: return "vendor";
    case Path::kNone: break;
  }
  return "none";
}

namespace {

// A shape's text, written only for the report: an FFT plan's interned descriptor, or a
// tridiagonal call's numbers with its precision and layout, read from the function's name
// (cusparse<P>gtsv...).
std::string shape_text(Api api, const Shape& shape) {
  if (shape.fft != 0) {
    InternTable& table = interned();
    std::lock_guard<std::mutex> lock(table.mutex);
    return shape.fft <= table.shapes.size() ? table.shapes[shape.fft - 1] : "";
  }
  if (shape.m == 0 && shape.count == 0 && shape.algo == 0) return "";
  const char* name = api_name(api);
  const char* precision = "";
  if (std::strncmp(name, "cusparse", 8) == 0) {
    switch (name[8]) {
      case 'S': precision = "f32 "; break;
      case 'D': precision = "f64 "; break;
      case 'C': precision = "c64 "; break;
      case 'Z': precision = "c128 "; break;
      default: break;
    }
  }
  char text[128];
  if (std::strstr(name, "InterleavedBatch") != nullptr) {
    std::snprintf(text, sizeof(text), "%sinterleaved algo=%d m=%d batch=%d", precision, shape.algo, shape.m,
                  shape.count);
  } else if (std::strstr(name, "StridedBatch") != nullptr) {
    std::snprintf(text, sizeof(text), "%sstrided m=%d batch=%d", precision, shape.m, shape.count);
  } else {
    std::snprintf(text, sizeof(text), "%sm=%d n=%d", precision, shape.m, shape.count);
  }
  return text;
}

int path_order(Path path) { return path == Path::kNative ? 0 : path == Path::kVendor ? 1 : 2; }

// The device of the calling thread's current CUDA context, where the process already has one:
// read through the driver only if the process loaded it (never loaded, nor a context made, here).
struct DeviceInfo {
  std::string name;
  int major = 0;
  int minor = 0;
};

bool current_device_info(DeviceInfo* info) {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (driver == nullptr) return false;
  using GetCurrent = int (*)(void**);
  using GetDevice = int (*)(int*);
  using GetName = int (*)(char*, int, int);
  using GetAttribute = int (*)(int*, int, int);
  const auto get_current = reinterpret_cast<GetCurrent>(dlsym(driver, "cuCtxGetCurrent"));
  const auto get_device = reinterpret_cast<GetDevice>(dlsym(driver, "cuCtxGetDevice"));
  const auto get_name = reinterpret_cast<GetName>(dlsym(driver, "cuDeviceGetName"));
  const auto get_attribute = reinterpret_cast<GetAttribute>(dlsym(driver, "cuDeviceGetAttribute"));
  void* context = nullptr;
  int device = 0;
  char name[256] = {};
  const bool known = get_current != nullptr && get_device != nullptr && get_name != nullptr &&
                     get_current(&context) == 0 && context != nullptr && get_device(&device) == 0 &&
                     get_name(name, static_cast<int>(sizeof(name)), device) == 0;
  if (known) {
    info->name = name;
    // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR
    if (get_attribute == nullptr || get_attribute(&info->major, 75, device) != 0 ||
        get_attribute(&info->minor, 76, device) != 0) {
      info->major = info->minor = 0;
    }
  }
  dlclose(driver);
  return known;
}

void append_json_string(std::string* out, const std::string& text) {
  out->push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          *out += escaped;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

}  // namespace

std::vector<DetailRow> detail() {
  const DetailTable sum = detail_totals(true);
  // Per function and side, what the rows hold: the per-function counters less these are the
  // calls no thread could itemise.
  std::array<std::array<std::uint64_t, 3>, kApiCount> itemised{};
  std::vector<DetailRow> rows;
  for (const auto& [key, counts] : sum) {
    if (counts.calls == 0) continue;
    DetailRow row{tag_api(key.tag), tag_path(key.tag), shape_text(tag_api(key.tag), key.shape),
                  key.text != nullptr ? key.text : "", counts.calls, counts.failed};
    itemised[static_cast<std::size_t>(row.api)][static_cast<std::size_t>(path_order(row.path))] += row.calls;
    rows.push_back(std::move(row));
  }
  for (std::size_t index = 0; index < kApiCount; ++index) {
    const Api api = static_cast<Api>(index);
    const Snapshot snap = snapshot(api);
    if (snap.calls == 0) continue;
    const std::uint64_t by_path[3] = {snap.native, snap.vendor, snap.calls - snap.native - snap.vendor};
    const Path paths[3] = {Path::kNative, Path::kVendor, Path::kNone};
    for (int order = 0; order < 3; ++order) {
      if (by_path[order] > itemised[index][static_cast<std::size_t>(order)]) {
        rows.push_back(DetailRow{api, paths[order], "", kNotItemised,
                                 by_path[order] - itemised[index][static_cast<std::size_t>(order)], 0});
      }
    }
  }
  std::sort(rows.begin(), rows.end(), [](const DetailRow& a, const DetailRow& b) {
    if (a.api != b.api) return a.api < b.api;
    if (a.path != b.path) return path_order(a.path) < path_order(b.path);
    if (a.calls != b.calls) return a.calls > b.calls;
    return std::tie(a.shape, a.reason) < std::tie(b.shape, b.reason);
  });
  return rows;
}

std::string report_path(const std::string& pattern, long pid) {
  std::string path;
  for (std::size_t index = 0; index < pattern.size(); ++index) {
    if (pattern[index] == '%' && index + 1 < pattern.size() && pattern[index + 1] == 'p') {
      path += std::to_string(pid);
      ++index;
    } else if (pattern[index] == '%' && index + 1 < pattern.size() && pattern[index + 1] == '%') {
      path += '%';
      ++index;
    } else {
      path += pattern[index];
    }
  }
  return path;
}

std::string report_json() {
  const bool timing = config().report == ReportMode::kTiming;
  std::string out = "{\"pid\": " + std::to_string(static_cast<long>(getpid())) + ", \"version\": ";
  append_json_string(&out, IDGPU_VERSION_STRING);
  out += ", \"device\": ";
  DeviceInfo device;
  if (current_device_info(&device)) {
    out += "{\"name\": ";
    append_json_string(&out, device.name);
    out += ", \"compute_capability\": ";
    append_json_string(&out, std::to_string(device.major) + "." + std::to_string(device.minor));
    out += "}";
  } else {
    out += "null";
  }
  out += ", \"timing\": ";
  out += timing ? "true" : "false";
  out += ", \"functions\": [";
  bool first = true;
  for (std::size_t index = 0; index < kApiCount; ++index) {
    const Api api = static_cast<Api>(index);
    const Snapshot snap = snapshot(api);
    if (snap.calls == 0) continue;
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"function\": ";
    append_json_string(&out, api_name(api));
    out += ", \"calls\": " + std::to_string(snap.calls) + ", \"native\": " + std::to_string(snap.native) +
           ", \"vendor\": " + std::to_string(snap.vendor) + ", \"failed\": " + std::to_string(snap.failed);
    if (timing) {
      char milliseconds[64];
      std::snprintf(milliseconds, sizeof(milliseconds), "%.6f", snap.gpu_ms);
      out += std::string(", \"gpu_ms\": ") + milliseconds + ", \"timed\": " + std::to_string(snap.timed);
    }
    out += "}";
  }
  out += first ? "]" : "\n]";
  out += ", \"rows\": [";
  first = true;
  for (const DetailRow& row : detail()) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"function\": ";
    append_json_string(&out, api_name(row.api));
    out += ", \"path\": ";
    append_json_string(&out, path_name(row.path));
    out += ", \"shape\": ";
    append_json_string(&out, row.shape);
    out += ", \"reason\": ";
    append_json_string(&out, row.reason);
    out += ", \"calls\": " + std::to_string(row.calls) + ", \"failed\": " + std::to_string(row.failed) + "}";
  }
  out += first ? "]" : "\n]";
  out += ", \"unserved_vendor_libraries\": [";
  first = true;
  for (const std::string& library : vendor::unserved_vendor_libraries()) {
    if (!first) out += ", ";
    first = false;
    append_json_string(&out, library);
  }
  out += "]}";
  return out;
}

void write_report_json(std::FILE* out) {
  const std::string text = report_json();
  std::fprintf(out, "%s\n", text.c_str());
  std::fflush(out);
}

void write_report(std::FILE* out) {
  const bool timing = config().report == ReportMode::kTiming;
  // The header and the table as they always were (tools read them); what follows is new.
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
  std::fprintf(out, "idgpu %s", IDGPU_VERSION_STRING);
  DeviceInfo device;
  if (current_device_info(&device)) {
    std::fprintf(out, " on %s (sm_%d%d)", device.name.c_str(), device.major, device.minor);
  }
  std::fprintf(out, "\n");
  const std::vector<DetailRow> rows = detail();
  if (!rows.empty()) {
    std::fprintf(out, "by function, side, problem shape and reason:\n");
    std::fprintf(out, "%10s %8s  %-44s %-6s  %-32s  %s\n", "calls", "failed", "function", "side", "shape", "reason");
    for (const DetailRow& row : rows) {
      std::fprintf(out, "%10llu %8llu  %-44s %-6s  %-32s  %s\n", static_cast<unsigned long long>(row.calls),
                   static_cast<unsigned long long>(row.failed), api_name(row.api), path_name(row.path),
                   row.shape.empty() ? "-" : row.shape.c_str(), row.reason.empty() ? "-" : row.reason.c_str());
    }
  }
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
  if (settings.report != ReportMode::kOff) emit_report(settings);
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
