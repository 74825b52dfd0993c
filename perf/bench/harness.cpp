// Timing and the shared plumbing of the cases.
//
// How a call is timed: a short busy-wait kernel is queued first, then the start event, the call,
// the stop event. While the GPU spins, the host submits the call, so the events enclose the
// call's GPU work and not its submission; the host side of a call (where forwarding costs show)
// is measured separately, by measure_overhead(). Each timed call uses the next rotation set, and
// inputs the call overwrote are restored right after it, outside the events, so by the time a
// set comes round again the restore has long left L2.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "bench.h"
#include "device_kernels.h"

namespace idgpu_bench {
namespace {

// Two events, destroyed with the scope.
class EventPair {
 public:
  EventPair() {
    BENCH_CUDA(cudaEventCreate(&start));
    const cudaError_t status = cudaEventCreate(&stop);
    if (status != cudaSuccess) {
      cudaEventDestroy(start);
      check_cuda(status, "cudaEventCreate(&stop)");
    }
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  double elapsed_ms() const {
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }

  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
};

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point begin, Clock::time_point end) {
  return std::chrono::duration<double>(end - begin).count();
}

// Round-robin over a case's rotation sets.
class Rotation {
 public:
  explicit Rotation(int sets) : sets_(sets < 1 ? 1 : sets) {}
  int next() {
    const int set = next_;
    next_ = (next_ + 1) % sets_;
    return set;
  }

 private:
  int sets_;
  int next_ = 0;
};

}  // namespace

const char* side_name(Side side) { return side == Side::kVendor ? "vendor" : "idgpu"; }

const char* cufft_status_name(cufftResult status) {
  switch (status) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cufftResult";
  }
}

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  throw BenchError(std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

void check_cufft(cufftResult status, Side side, const char* what) {
  if (status == CUFFT_SUCCESS) return;
  throw BenchError(std::string(side_name(side)) + " " + what + ": " + cufft_status_name(status) + " (" +
                   std::to_string(static_cast<int>(status)) + ")");
}

void check_cusparse(cusparseStatus_t status, Side side, const char* what, const VendorSparseApi* vendor) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  const char* name = vendor != nullptr && vendor->cusparseGetErrorString != nullptr
                         ? vendor->cusparseGetErrorString(status)
                         : "cusparseStatus_t";
  throw BenchError(std::string(side_name(side)) + " " + what + ": " + name + " (" +
                   std::to_string(static_cast<int>(status)) + ")");
}

const char* idgpu_status_name(idgpuStatus_t status) {
  switch (status) {
    case IDGPU_STATUS_SUCCESS: return "IDGPU_STATUS_SUCCESS";
    case IDGPU_STATUS_INVALID_VALUE: return "IDGPU_STATUS_INVALID_VALUE";
    case IDGPU_STATUS_NOT_FOUND: return "IDGPU_STATUS_NOT_FOUND";
    case IDGPU_STATUS_EXECUTION_FAILED: return "IDGPU_STATUS_EXECUTION_FAILED";
  }
  return "unknown idgpuStatus_t";
}

void check_idgpu(idgpuStatus_t status, const char* what) {
  if (status == IDGPU_STATUS_SUCCESS) return;
  throw BenchError(std::string("idgpu ") + what + ": " + idgpu_status_name(status) + " (" +
                   std::to_string(static_cast<int>(status)) + ")");
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMalloc(&pointer_, bytes);
  if (status != cudaSuccess) {
    pointer_ = nullptr;
    // An allocation failure is not sticky: clear it so the next case starts clean.
    cudaGetLastError();
    throw BenchError("cudaMalloc(" + std::to_string(bytes) + " bytes): " + cudaGetErrorName(status));
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer_ != nullptr) cudaFree(pointer_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (pointer_ != nullptr) cudaFree(pointer_);
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

namespace {
// Slices start on 512-byte boundaries: every cuFFT and cuSPARSE alignment rule is met, and no
// two sets share a cache line.
constexpr std::size_t kSliceAlignment = 512;
}  // namespace

RotatingBuffer::RotatingBuffer(std::size_t slice_bytes, int count)
    : slice_bytes_(slice_bytes),
      stride_((slice_bytes + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment),
      count_(count) {
  storage_ = DeviceBuffer(stride_ * static_cast<std::size_t>(count));
}

void* RotatingBuffer::slice(int index) const {
  return static_cast<char*>(storage_.get()) + stride_ * static_cast<std::size_t>(index);
}

int Environment::rotation_sets(std::size_t set_bytes) const {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  // What the case allocated already (pristine copies, work areas) is no longer free.
  const double budget = static_cast<double>(free_bytes) * options->memory_fraction;
  const double per_set = static_cast<double>(std::max<std::size_t>(set_bytes, 1));
  const double needed = std::ceil(options->l2_factor * static_cast<double>(l2_bytes) / per_set);
  int sets = static_cast<int>(std::min<double>(std::max(needed, 2.0), options->max_sets));
  const double fit = std::floor(budget / per_set);
  if (fit < sets) sets = static_cast<int>(std::max(fit, 1.0));
  return sets;
}

std::uint64_t derive_seed(std::uint64_t seed, const std::string& case_id, int role) {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the case id
  for (const char c : case_id) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return seed ^ (hash + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(role + 1));
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

CaseResult measure_case(Case& bench_case, Environment& env) {
  const Options& options = *env.options;
  cudaStream_t stream = env.stream;
  CaseResult result;
  result.bytes = bench_case.bytes();
  result.sets = bench_case.sets();
  Rotation rotation(bench_case.sets());
  EventPair events;

  auto untimed_call = [&](Side side) {
    const int set = rotation.next();
    bench_case.run(side, set);
    bench_case.after_use(set);
  };
  // The first call of each side pays one-time costs (lazy module loading, the library's first
  // use of a kernel); the second, timed on the host to the end of its work, says whether the
  // case is slow enough to deserve fewer runs. Both count as warm-up.
  for (const Side side : kSides) untimed_call(side);
  auto probe_call = [&](Side side) {
    BENCH_CUDA(cudaStreamSynchronize(stream));
    const int set = rotation.next();
    const auto begin = Clock::now();
    bench_case.run(side, set);
    BENCH_CUDA(cudaStreamSynchronize(stream));
    const double ms = 1e3 * seconds_between(begin, Clock::now());
    bench_case.after_use(set);
    return ms;
  };
  const double probe_ms = std::max(probe_call(Side::kVendor), probe_call(Side::kIdgpu));
  int warmup = options.warmup;
  int runs = options.runs;
  if (probe_ms > options.slow_ms) {
    warmup = 2;
    runs = std::min(runs, options.slow_runs);
  }
  for (int round = 2; round < warmup; ++round) {
    for (const Side side : kSides) untimed_call(side);
  }

  auto timed_call = [&](Side side) {
    const int set = rotation.next();
    BENCH_CUDA(launch_spin(options.spin_us, stream));
    BENCH_CUDA(cudaEventRecord(events.start, stream));
    bench_case.run(side, set);
    BENCH_CUDA(cudaEventRecord(events.stop, stream));
    bench_case.after_use(set);
    BENCH_CUDA(cudaEventSynchronize(events.stop));
    return events.elapsed_ms();
  };
  std::vector<double> times[2];
  for (int run = 0; run < runs; ++run) {
    // Alternate which side goes first, so drift (clocks, temperature) hits both alike.
    const Side first = run % 2 == 0 ? Side::kVendor : Side::kIdgpu;
    const Side second = run % 2 == 0 ? Side::kIdgpu : Side::kVendor;
    times[static_cast<int>(first)].push_back(timed_call(first));
    times[static_cast<int>(second)].push_back(timed_call(second));
  }
  BENCH_CUDA(cudaStreamSynchronize(stream));
  result.runs = runs;
  result.vendor_ms = median(times[0]);
  result.idgpu_ms = median(times[1]);
  result.vendor_min_ms = *std::min_element(times[0].begin(), times[0].end());
  result.idgpu_min_ms = *std::min_element(times[1].begin(), times[1].end());

  if (options.check && bench_case.comparable()) {
    // Both sides on the same input (set 0, restored after each call); the vendor's output is
    // kept aside as the reference.
    const OutputView output = bench_case.output(0);
    result.f64 = output.f64;
    const std::size_t output_bytes = output.count * (output.f64 ? sizeof(double) : sizeof(float));
    void* reference = nullptr;
    const cudaError_t allocated = cudaMalloc(&reference, output_bytes);
    if (allocated != cudaSuccess) {
      cudaGetLastError();  // not sticky; the case's timings stand, unchecked
      std::fprintf(stderr, "idgpu-bench: no memory to compare the sides' outputs; unchecked\n");
    } else {
      try {
        bench_case.run(Side::kVendor, 0);
        bench_case.clear_undefined_output(0);
        BENCH_CUDA(cudaMemcpyAsync(reference, output.data, output_bytes, cudaMemcpyDeviceToDevice, stream));
        bench_case.after_use(0);
        bench_case.run(Side::kIdgpu, 0);
        bench_case.clear_undefined_output(0);
        Comparison comparison;
        BENCH_CUDA(compare_arrays(reference, output.data, output.count, output.f64, stream, &comparison));
        bench_case.after_use(0);
        BENCH_CUDA(cudaStreamSynchronize(stream));
        cudaFree(reference);
        result.checked = true;
        result.identical = comparison.differing == 0;
        if (comparison.max_abs_difference == 0) {
          result.max_rel_diff = 0;
        } else if (comparison.max_abs_reference > 0) {
          result.max_rel_diff = comparison.max_abs_difference / comparison.max_abs_reference;
        } else {
          result.max_rel_diff = INFINITY;
        }
      } catch (...) {
        cudaFree(reference);
        throw;
      }
    }
  }
  result.ok = true;
  return result;
}

OverheadResult measure_overhead(Case& bench_case, Environment& env) {
  const Options& options = *env.options;
  cudaStream_t stream = env.stream;
  OverheadResult result;
  result.calls = std::max(options.overhead_calls, 1);
  result.reps = std::max(options.overhead_reps, 1);
  Rotation rotation(bench_case.sets());
  EventPair events;
  std::vector<double> host_us[2];
  std::vector<double> gpu_us[2];
  // Calls back to back, as an application issues them: inputs are not restored between calls
  // (the restores would be host work of their own); every set is restored at the end.
  for (int rep = 0; rep < result.reps; ++rep) {
    for (int order = 0; order < 2; ++order) {
      const Side side = kSides[rep % 2 == 0 ? order : 1 - order];
      BENCH_CUDA(cudaStreamSynchronize(stream));
      BENCH_CUDA(cudaEventRecord(events.start, stream));
      const auto begin = Clock::now();
      for (int call = 0; call < result.calls; ++call) bench_case.run(side, rotation.next());
      const auto end = Clock::now();
      BENCH_CUDA(cudaEventRecord(events.stop, stream));
      BENCH_CUDA(cudaEventSynchronize(events.stop));
      host_us[static_cast<int>(side)].push_back(1e6 * seconds_between(begin, end) / result.calls);
      gpu_us[static_cast<int>(side)].push_back(1e3 * events.elapsed_ms() / result.calls);
    }
  }
  for (int set = 0; set < bench_case.sets(); ++set) bench_case.after_use(set);
  BENCH_CUDA(cudaStreamSynchronize(stream));
  result.vendor_host_us = median(host_us[0]);
  result.idgpu_host_us = median(host_us[1]);
  result.vendor_pipelined_us = median(gpu_us[0]);
  result.idgpu_pipelined_us = median(gpu_us[1]);
  result.ok = true;
  return result;
}

double measure_copy_bandwidth(cudaStream_t stream, std::size_t* bytes_used) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  std::size_t bytes = std::min<std::size_t>(std::size_t(1) << 30, free_bytes / 4) / kMiB * kMiB;
  if (bytes < 16 * kMiB) bytes = 16 * kMiB;
  DeviceBuffer source(bytes);
  DeviceBuffer target(bytes);
  BENCH_CUDA(fill_uniform(static_cast<float*>(source.get()), bytes / sizeof(float), 1, stream));
  EventPair events;
  std::vector<double> times;
  for (int run = 0; run < 23; ++run) {
    BENCH_CUDA(cudaEventRecord(events.start, stream));
    BENCH_CUDA(cudaMemcpyAsync(target.get(), source.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    BENCH_CUDA(cudaEventRecord(events.stop, stream));
    BENCH_CUDA(cudaEventSynchronize(events.stop));
    if (run >= 3) times.push_back(events.elapsed_ms());  // the first three warm up
  }
  *bytes_used = bytes;
  // A copy reads and writes every byte.
  return 2.0 * static_cast<double>(bytes) / (median(times) * 1e-3);
}

}  // namespace idgpu_bench
