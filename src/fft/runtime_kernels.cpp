// Fixed-sequence Stockham kernels compiled at run time (fft/runtime_kernels.h).
#include "fft/runtime_kernels.h"

#include <dlfcn.h>
#include <pthread.h>
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>

#include "core/config.h"
#include "core/log.h"
#include "idgpu/version.h"

namespace idgpu::fft {

namespace {

// The kernel headers, embedded at build time (CMakeLists.txt, IDGPU_RUNTIME_SOURCES).
struct EmbeddedSource {
  const char* name;
  const char* text;
};
constexpr EmbeddedSource kSources[] = {
#include "fft_runtime_sources.inc"
};

constexpr const char* kProgram = "#include \"fft/kernels/stockham_pass.cuh\"\n";
constexpr const char* kNamespace = "idgpu::fft::kernels::pass_kernel::";

// The pass kernel's Stages of a layout, and the layout in a cache file's name.
struct LayoutNames {
  const char* stages;
  const char* label;
};
LayoutNames layout_names(RuntimeLayout layout) {
  switch (layout) {
    case RuntimeLayout::kRows: return {"FixedStages", "rows"};
    case RuntimeLayout::kPadded: return {"PaddedFixedStages", "padded"};
    case RuntimeLayout::kThread: return {"ThreadStages", "thread"};
    case RuntimeLayout::kWide: return {"WideStages", "wide"};
  }
  return {"", ""};
}

// libnvrtc, loaded once with dlopen: the library works without it.
struct Nvrtc {
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcGetNumSupportedArchs) num_archs = nullptr;
  decltype(&nvrtcGetSupportedArchs) archs = nullptr;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcAddNameExpression) add_name = nullptr;
  decltype(&nvrtcGetLoweredName) lowered = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  int major = 0;
  int minor = 0;
  std::vector<int> supported;
  std::string why;  // empty when loaded
};

template <class F>
bool bind(void* handle, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  return *out != nullptr;
}

const Nvrtc& nvrtc() {
  static const Nvrtc loaded = [] {
    Nvrtc n;
    void* handle = nullptr;
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) break;
    }
    if (handle == nullptr) {
      n.why = "libnvrtc.so.13 / .12 not found";
      return n;
    }
    const bool bound = bind(handle, "nvrtcVersion", &n.version) &&
                       bind(handle, "nvrtcGetNumSupportedArchs", &n.num_archs) &&
                       bind(handle, "nvrtcGetSupportedArchs", &n.archs) &&
                       bind(handle, "nvrtcCreateProgram", &n.create) &&
                       bind(handle, "nvrtcDestroyProgram", &n.destroy) &&
                       bind(handle, "nvrtcAddNameExpression", &n.add_name) &&
                       bind(handle, "nvrtcGetLoweredName", &n.lowered) &&
                       bind(handle, "nvrtcCompileProgram", &n.compile) &&
                       bind(handle, "nvrtcGetProgramLogSize", &n.log_size) &&
                       bind(handle, "nvrtcGetProgramLog", &n.log) && bind(handle, "nvrtcGetCUBINSize", &n.cubin_size) &&
                       bind(handle, "nvrtcGetCUBIN", &n.cubin);
    if (!bound || n.version(&n.major, &n.minor) != NVRTC_SUCCESS) {
      n = Nvrtc();
      n.why = "libnvrtc lacks the functions it needs (NVRTC 12 or newer)";
      return n;
    }
    int count = 0;
    if (n.num_archs(&count) == NVRTC_SUCCESS && count > 0) {
      n.supported.resize(static_cast<std::size_t>(count));
      if (n.archs(n.supported.data()) != NVRTC_SUCCESS) n.supported.clear();
    }
    return n;
  }();
  return loaded;
}

// The options besides the architecture. -default-device: the headers' unannotated inline helpers
// (host code to nvcc) are device functions here; NVRTC compiles no host code.
constexpr const char* kOptions[] = {"-std=c++17", "-DNDEBUG", "-default-device"};

std::vector<const char*> compile_options(int arch, std::string* arch_option) {
  *arch_option = "-arch=sm_" + std::to_string(arch);
  std::vector<const char*> options = {arch_option->c_str()};
  options.insert(options.end(), std::begin(kOptions), std::end(kOptions));
  return options;
}

// FNV-1a over the kernel sources, the compile options' fixed part and the versions: a cache file
// of another source or compiler is never read.
std::uint64_t source_hash() {
  static const std::uint64_t hash = [] {
    std::uint64_t h = 1469598103934665603ULL;
    const auto mix = [&h](const std::string& text) {
      for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
      }
      h ^= 0xff;
      h *= 1099511628211ULL;
    };
    for (const EmbeddedSource& source : kSources) {
      mix(source.name);
      mix(source.text);
    }
    mix(kProgram);
    for (const char* option : kOptions) mix(option);
    mix(IDGPU_VERSION_STRING);
    mix(std::to_string(runtime_compiler_version()));
    return h;
  }();
  return hash;
}

int current_arch(int device) {
  static std::atomic<int> archs[64] = {};
  if (device >= 0 && device < 64) {
    if (const int known = archs[device].load(std::memory_order_relaxed); known > 0) return known;
  }
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  const int arch = major * 10 + minor;
  if (device >= 0 && device < 64) archs[device].store(arch, std::memory_order_relaxed);
  return arch;
}

std::atomic<int> g_loaded{0};
std::atomic<long long> g_launches{0};

// What the registry holds of one sequence on one architecture.
enum class State : int { kQueued, kCompiled, kLoaded, kFailed };

struct Entry {
  State state = State::kQueued;
  RuntimeBinary binary;  // kCompiled: waiting to be loaded by the next plan that asks
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernels[2] = {};  // forward, inverse
  std::atomic<unsigned> allowed[2][64] = {};
};

using Key = std::pair<int, RuntimeSequence>;  // arch, sequence

// The loaded kernels and the background compiles. Entries are never removed: a plan keeps
// launching the kernels it was made with. The registry itself is never destroyed (a static
// object's destructor may still run an FFT at exit); at exit only its worker stops (stop()).
class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Stops the worker thread and waits for it (a compile in progress finishes first); later
  // compiles are not queued. Called at exit, before what the worker uses is destroyed.
  void stop() {
    std::thread* worker = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      queue_.clear();
      worker = worker_;
      worker_ = nullptr;
    }
    wake_.notify_all();
    if (worker != nullptr) {
      worker->join();
      delete worker;
    }
  }

  // In a child process after fork(): the parent's worker thread does not exist here and the
  // mutex may have been held by it. Start afresh (the handle is dropped, not joined); entries
  // that were being compiled stay queued and unserved, so those plans keep the fallback.
  void forget_worker_after_fork() {
    new (&mutex_) std::mutex();
    new (&wake_) std::condition_variable();
    worker_ = nullptr;
  }

  // Whether the sequence's kernels are loaded for `arch` (the current device's), loading,
  // compiling or queueing them as the setting says.
  bool ready(const RuntimeSequence& sequence, int arch, bool wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto found = entries_.find({arch, sequence});
    if (found == entries_.end()) {
      auto entry = std::make_unique<Entry>();
      Entry* raw = entry.get();
      entries_.emplace(Key{arch, sequence}, std::move(entry));
      lock.unlock();
      RuntimeBinary binary = read_cache(sequence, arch);
      if (binary.cubin.empty() && wait) binary = compile_and_store(sequence, arch);
      lock.lock();
      if (!binary.cubin.empty()) {
        raw->binary = std::move(binary);
        raw->state = State::kCompiled;
      } else if (wait || !enqueue({arch, sequence})) {
        raw->state = State::kFailed;
      }
      found = entries_.find({arch, sequence});
    }
    Entry& entry = *found->second;
    if (entry.state == State::kCompiled) load(sequence, arch, &entry);
    return entry.state == State::kLoaded;
  }

  bool launch(const kernels::PassLaunch& pass, int element_bytes, bool inverse, cudaStream_t stream,
              cudaError_t* status) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    RuntimeSequence sequence;
    sequence.element_bytes = element_bytes;
    sequence.layout = pass.wide_cap > 0 ? RuntimeLayout::kWide : runtime_layout(pass.shape.shift);
    sequence.radices.assign(pass.radices, pass.radices + pass.stages);
    sequence.thread_cap = pass.wide_cap;
    Entry* entry = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = entries_.find({current_arch(device), sequence});
      if (found == entries_.end() || found->second->state != State::kLoaded) return false;
      entry = found->second.get();
    }
    if (!serves(sequence, pass)) return false;
    const cudaKernel_t kernel = entry->kernels[inverse ? 1 : 0];
    if (pass.shared_bytes > 48 * 1024 &&
        (device < 0 || device >= 64 || entry->allowed[inverse ? 1 : 0][device].load() < pass.shared_bytes)) {
      *status = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(pass.shared_bytes), device);
      if (*status != cudaSuccess) return true;
      if (device >= 0 && device < 64) entry->allowed[inverse ? 1 : 0][device].store(pass.shared_bytes);
    }
    kernels::PassLaunch copy = pass;
    void* args[] = {&copy};
    const unsigned threads = static_cast<unsigned>(pass.threads_per_transform * pass.shape.per_block);
    *status = cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(pass.blocks)),
                               dim3(threads), args, pass.shared_bytes, stream);
    if (*status == cudaSuccess) g_launches.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

 private:
  // The kernel's host checks (stockham_fixed.cuh's matches): the pass's length, layout and
  // threads are the ones the kernel was compiled for.
  static bool serves(const RuntimeSequence& sequence, const kernels::PassLaunch& pass) {
    const int stages = static_cast<int>(sequence.radices.size());
    int size = 1;
    for (int radix : sequence.radices) size *= radix;
    if (sequence.layout == RuntimeLayout::kThread) {
      // One transform a thread, of a single pass contiguous on both sides, no real step
      // (ThreadStages), in a block within the kernel's launch bound.
      return pass.shape.size == size && thread_layout(pass.shape.shift) &&
             pass.shape.smem_stride >= thread_transform_stride(size) && pass.threads_per_transform == 1 &&
             pass.shape.per_block >= 1 && pass.shape.per_block <= kThreadTransformThreads && pass.shape.sub == 1 &&
             pass.shape.span == 1 && pass.real_step == 0 && pass.convolution == 0 && pass.bluestein == 0;
    }
    const bool wide = sequence.layout == RuntimeLayout::kWide;
    const bool rows = sequence.layout == RuntimeLayout::kRows || wide;
    const int shift = rows ? kUnpaddedShift : smem_padding_shift(sequence.element_bytes);
    const int buffer = rows ? fixed_sequence_extent(sequence.radices.data(), stages, sequence.element_bytes)
                            : size + ((size - 1) >> shift) + 1;
    if (pass.shape.size != size || pass.shape.shift != shift || pass.shape.smem_stride < buffer) return false;
    // A wide pass: a block within the kernel's launch bound (WideStages, kWideThreads).
    if (wide && static_cast<long long>(pass.threads_per_transform) * pass.shape.per_block > kWideThreads) return false;
    const int max_threads = wide ? sequence.thread_cap : sequence.element_bytes >= 16 ? 512 : 1024;
    const int threads = sequence_threads(sequence.radices.data(), stages, max_threads);
    for (int radix : sequence.radices) {
      const long long per_thread = stage_butterflies_per_thread(radix, size / radix, threads);
      if (per_thread * pass.threads_per_transform < size / radix) return false;
    }
    return true;
  }

  static RuntimeBinary read_cache(const RuntimeSequence& sequence, int arch) {
    RuntimeBinary binary;
    const std::string directory = runtime_cache_directory();
    if (!directory.empty()) read_runtime_binary(runtime_cache_file(directory, sequence, arch), &binary);
    return binary;
  }

  static RuntimeBinary compile_and_store(const RuntimeSequence& sequence, int arch) {
    std::string error;
    RuntimeBinary binary = compile_runtime_sequence(sequence, arch, &error);
    if (binary.cubin.empty()) {
      log::plan().warn("native FFT: run-time kernel {} for sm_{} did not compile: {}",
                       runtime_sequence_label(sequence), arch, error);
      return binary;
    }
    log::plan().info("native FFT: run-time kernel {} compiled for sm_{}", runtime_sequence_label(sequence), arch);
    const std::string directory = runtime_cache_directory();
    if (!directory.empty()) store_runtime_binary(runtime_cache_file(directory, sequence, arch), binary);
    return binary;
  }

  // Loads a compiled entry's cubin (mutex held; a few milliseconds, once per sequence). A cubin
  // that does not load (a damaged cache file, a driver older than NVRTC) leaves the entry failed
  // and its cache file removed, so that the next process compiles it again.
  static void load(const RuntimeSequence& sequence, int arch, Entry* entry) {
    cudaError_t status = cudaLibraryLoadData(&entry->library, entry->binary.cubin.data(), nullptr, nullptr, 0,
                                             nullptr, nullptr, 0);
    for (int inverse = 0; status == cudaSuccess && inverse < 2; ++inverse) {
      status = cudaLibraryGetKernel(&entry->kernels[inverse], entry->library, entry->binary.names[inverse].c_str());
    }
    entry->binary = RuntimeBinary();
    if (status != cudaSuccess) {
      log::plan().warn("native FFT: run-time kernel {} did not load: {}", runtime_sequence_label(sequence),
                       cudaGetErrorString(status));
      cudaGetLastError();
      entry->state = State::kFailed;
      if (const std::string directory = runtime_cache_directory(); !directory.empty()) {
        std::error_code ignored;
        std::filesystem::remove(runtime_cache_file(directory, sequence, arch), ignored);
      }
      return;
    }
    entry->state = State::kLoaded;
    g_loaded.fetch_add(1, std::memory_order_relaxed);
    log::plan().info("native FFT: run-time kernel {} loaded", runtime_sequence_label(sequence));
  }

  // Queues a compile (mutex held); false, with nothing queued, after stop() or where no thread
  // can be started.
  bool enqueue(Key key) {
    if (stop_) return false;
    if (worker_ == nullptr) {
      try {
        worker_ = new std::thread([this] { work(); });
      } catch (...) {
        worker_ = nullptr;
        return false;
      }
    }
    queue_.push_back(std::move(key));
    wake_.notify_one();
    return true;
  }

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Key key = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      RuntimeBinary binary = compile_and_store(key.second, key.first);
      lock.lock();
      Entry& entry = *entries_.at(key);
      if (binary.cubin.empty()) {
        entry.state = State::kFailed;
      } else {
        entry.binary = std::move(binary);
        entry.state = State::kCompiled;
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::map<Key, std::unique_ptr<Entry>> entries_;
  std::deque<Key> queue_;
  std::thread* worker_ = nullptr;  // started by the first compile queued
  bool stop_ = false;
};

void registry_after_fork();

Registry& registry() {
  static Registry* const instance = [] {
    // What the worker thread uses is constructed first, so that the stopper below, constructed
    // after it, runs (at exit) before it is destroyed.
    (void)config();
    (void)log::plan();
    (void)nvrtc();
    auto* registry = new Registry();
    pthread_atfork(nullptr, nullptr, [] { registry_after_fork(); });
    return registry;
  }();
  static const struct Stopper {
    ~Stopper() { instance->stop(); }
  } stopper;
  (void)stopper;
  return *instance;
}

void registry_after_fork() { registry().forget_worker_after_fork(); }

}  // namespace

RuntimeLayout runtime_layout(int smem_shift) {
  return smem_shift == kUnpaddedShift ? RuntimeLayout::kRows
         : thread_layout(smem_shift)  ? RuntimeLayout::kThread
                                      : RuntimeLayout::kPadded;
}

bool RuntimeSequence::operator<(const RuntimeSequence& other) const {
  if (element_bytes != other.element_bytes) return element_bytes < other.element_bytes;
  if (layout != other.layout) return layout < other.layout;
  if (thread_cap != other.thread_cap) return thread_cap < other.thread_cap;
  return radices < other.radices;
}

bool RuntimeSequence::operator==(const RuntimeSequence& other) const {
  return element_bytes == other.element_bytes && layout == other.layout && thread_cap == other.thread_cap &&
         radices == other.radices;
}

RuntimeSequence runtime_sequence(const FftPass& pass, std::size_t element_bytes) {
  RuntimeSequence sequence;
  sequence.element_bytes = static_cast<int>(element_bytes);
  sequence.layout = pass.wide ? RuntimeLayout::kWide : runtime_layout(pass.smem_shift);
  sequence.radices = pass.radices;
  if (pass.wide) sequence.thread_cap = pass.widened_limit;
  return sequence;
}

std::string runtime_kernel_name(const RuntimeSequence& sequence, bool inverse) {
  std::string name = std::string(kNamespace) + "stockham_pass<" +
                     (sequence.element_bytes >= 16 ? "double" : "float") + ", " + (inverse ? "true" : "false") +
                     ", " + kNamespace + layout_names(sequence.layout).stages + "<";
  if (sequence.layout == RuntimeLayout::kWide) name += std::to_string(sequence.thread_cap) + ", ";
  for (std::size_t i = 0; i < sequence.radices.size(); ++i) {
    name += (i > 0 ? ", " : "") + std::to_string(sequence.radices[i]);
  }
  return name + ">>";
}

std::string runtime_sequence_label(const RuntimeSequence& sequence) {
  std::string label = std::string(sequence.element_bytes >= 16 ? "f64" : "f32") + "-" +
                      layout_names(sequence.layout).label +
                      (sequence.layout == RuntimeLayout::kWide ? std::to_string(sequence.thread_cap) : "") + "-";
  for (std::size_t i = 0; i < sequence.radices.size(); ++i) {
    label += (i > 0 ? "x" : "") + std::to_string(sequence.radices[i]);
  }
  return label;
}

bool runtime_compiler_available(std::string* why) {
  const Nvrtc& n = nvrtc();
  if (why != nullptr) *why = n.why;
  return n.why.empty();
}

int runtime_compiler_version() {
  const Nvrtc& n = nvrtc();
  return n.why.empty() ? n.major * 1000 + n.minor * 10 : 0;
}

constexpr const char* kBinaryHeader = "idgpu fft runtime kernels 1";

std::string RuntimeBinary::serialized() const {
  return std::string(kBinaryHeader) + "\n" + names[0] + "\n" + names[1] + "\n" + cubin;
}

bool RuntimeBinary::parse(const std::string& file_text) {
  const std::size_t header = file_text.find('\n');
  if (header == std::string::npos || file_text.compare(0, header, kBinaryHeader) != 0) return false;
  const std::size_t first = file_text.find('\n', header + 1);
  const std::size_t second = first == std::string::npos ? first : file_text.find('\n', first + 1);
  if (second == std::string::npos || second + 1 >= file_text.size()) return false;
  names[0] = file_text.substr(header + 1, first - header - 1);
  names[1] = file_text.substr(first + 1, second - first - 1);
  cubin = file_text.substr(second + 1);
  return !names[0].empty() && !names[1].empty();
}

RuntimeBinary compile_runtime_sequence(const RuntimeSequence& sequence, int arch, std::string* error) {
  RuntimeBinary binary;
  const Nvrtc& n = nvrtc();
  if (!n.why.empty()) {
    *error = n.why;
    return binary;
  }
  std::vector<const char*> names, texts;
  for (const EmbeddedSource& source : kSources) {
    names.push_back(source.name);
    texts.push_back(source.text);
  }
  nvrtcProgram program = nullptr;
  if (n.create(&program, kProgram, "idgpu_runtime_pass.cu", static_cast<int>(names.size()), texts.data(),
               names.data()) != NVRTC_SUCCESS) {
    *error = "nvrtcCreateProgram failed";
    return binary;
  }
  const std::string expressions[2] = {runtime_kernel_name(sequence, false), runtime_kernel_name(sequence, true)};
  for (const std::string& expression : expressions) n.add_name(program, expression.c_str());
  std::string arch_option;
  const std::vector<const char*> options = compile_options(arch, &arch_option);
  const nvrtcResult result = n.compile(program, static_cast<int>(options.size()), options.data());
  if (result == NVRTC_SUCCESS) {
    for (int i = 0; i < 2; ++i) {
      const char* lowered = nullptr;
      if (n.lowered(program, expressions[i].c_str(), &lowered) == NVRTC_SUCCESS && lowered != nullptr) {
        binary.names[i] = lowered;
      }
    }
    std::size_t size = 0;
    if (!binary.names[0].empty() && !binary.names[1].empty() && n.cubin_size(program, &size) == NVRTC_SUCCESS &&
        size > 0) {
      binary.cubin.resize(size);
      if (n.cubin(program, binary.cubin.data()) != NVRTC_SUCCESS) binary.cubin.clear();
    }
    if (binary.cubin.empty()) *error = "no cubin or kernel names from NVRTC";
  } else {
    std::size_t size = 0;
    std::string log;
    if (n.log_size(program, &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      n.log(program, log.data());
      log.resize(size - 1);
    }
    *error = log.empty() ? "compilation failed" : log;
  }
  n.destroy(&program);
  return binary;
}

std::string runtime_cache_file(const std::string& directory, const RuntimeSequence& sequence, int arch) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(source_hash()));
  return directory + "/fft-" + hash + "-sm" + std::to_string(arch) + "-" + runtime_sequence_label(sequence) + ".cubin";
}

std::string runtime_cache_directory() {
  if (!config().cache_dir.empty()) return config().cache_dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/idgpu";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/idgpu";
  }
  return {};
}

bool store_runtime_binary(const std::string& file, const RuntimeBinary& binary) {
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ignored);
  std::ostringstream suffix;
  suffix << ".tmp." << getpid() << "." << std::this_thread::get_id();
  const std::string temporary = file + suffix.str();
  const std::string text = binary.serialized();
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temporary, ignored);
      return false;
    }
  }
  std::error_code renamed;
  std::filesystem::rename(temporary, file, renamed);
  if (renamed) {
    std::filesystem::remove(temporary, ignored);
    return false;
  }
  return true;
}

bool read_runtime_binary(const std::string& file, RuntimeBinary* binary) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  RuntimeBinary read;
  if (!read.parse(text.str())) return false;
  *binary = std::move(read);
  return true;
}

bool runtime_kernels_enabled(int arch) {
  if (config().fft_runtime_kernels == RuntimeKernels::kOff || arch <= 0) return false;
  const Nvrtc& n = nvrtc();
  if (!n.why.empty()) return false;
  return std::find(n.supported.begin(), n.supported.end(), arch) != n.supported.end();
}

std::vector<RuntimeSequence> runtime_sequences_of(const FftPlan& plan) {
  std::vector<RuntimeSequence> sequences;
  for (const FftPass& pass : plan.passes) {
    if (!pass.runtime_kernel) continue;
    RuntimeSequence sequence = runtime_sequence(pass, plan.element_bytes);
    if (std::find(sequences.begin(), sequences.end(), sequence) == sequences.end()) sequences.push_back(sequence);
  }
  return sequences;
}

bool runtime_kernels_ready(const FftPlan& plan, int arch) {
  const bool wait = config().fft_runtime_kernels == RuntimeKernels::kWait;
  bool ready = true;
  // Every sequence is asked for, so that a multi-pass plan queues all of its compiles at once.
  for (const RuntimeSequence& sequence : runtime_sequences_of(plan)) {
    ready = registry().ready(sequence, arch, wait) && ready;
  }
  return ready;
}

int compile_runtime_sequences(const std::vector<RuntimeSequence>& sequences, int arch, int threads,
                              std::vector<std::string>* failures) {
  const std::string directory = runtime_cache_directory();
  std::atomic<std::size_t> next{0};
  std::atomic<int> compiled{0};
  std::mutex failed;
  const auto work = [&] {
    for (std::size_t i = next++; i < sequences.size(); i = next++) {
      const std::string file = directory.empty() ? std::string() : runtime_cache_file(directory, sequences[i], arch);
      if (!file.empty() && std::filesystem::exists(file)) continue;
      std::string error;
      const RuntimeBinary binary = compile_runtime_sequence(sequences[i], arch, &error);
      if (binary.cubin.empty() || (!file.empty() && !store_runtime_binary(file, binary))) {
        std::lock_guard<std::mutex> lock(failed);
        failures->push_back(runtime_sequence_label(sequences[i]) + ": " + (binary.cubin.empty() ? error : "not stored"));
        continue;
      }
      ++compiled;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return compiled.load();
}

void runtime_kernel_stats(int* loaded, long long* launches) {
  if (loaded != nullptr) *loaded = g_loaded.load(std::memory_order_relaxed);
  if (launches != nullptr) *launches = g_launches.load(std::memory_order_relaxed);
}

bool launch_runtime_pass(const kernels::PassLaunch& pass, int element_bytes, bool inverse, cudaStream_t stream,
                         cudaError_t* status) {
  return registry().launch(pass, element_bytes, inverse, stream, status);
}

}  // namespace idgpu::fft
