// idgpu-bench: the pieces the case families, the harness and main() share.
//
// The benchmark times two sides in one process: the vendor library (cuFFT / cuSPARSE, opened
// with dlopen by SONAME) and idgpu (libidgpu, opened with dlopen afterwards). libidgpu forwards to
// the vendor instance the process already loaded, so today both sides run the same vendor code
// and the difference is our forwarding; later, where idgpu serves a call natively, it is our
// kernels against the vendor's.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>
#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "libraries.h"

namespace idgpu_bench {

enum class Side : int { kVendor = 0, kIdgpu = 1 };
constexpr Side kSides[] = {Side::kVendor, Side::kIdgpu};
const char* side_name(Side side);

// Any failed CUDA, cuFFT, cuSPARSE or idgpu status inside a case: the case is reported as failed and
// the benchmark goes on with the next one.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* cufft_status_name(cufftResult status);
void check_cuda(cudaError_t status, const char* what);
void check_cufft(cufftResult status, Side side, const char* what);
void check_cusparse(cusparseStatus_t status, Side side, const char* what, const VendorSparseApi* vendor);
const char* idgpu_status_name(idgpuStatus_t status);
void check_idgpu(idgpuStatus_t status, const char* what);  // idgpu's own API (idgpu.h)

#define BENCH_CUDA(expr) ::idgpu_bench::check_cuda((expr), #expr)

// One cudaMalloc'ed block, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  void* get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

// `count` equal slices of one allocation, one per rotation set: a case touches slice k only in
// the call that uses set k, so consecutive calls read and write memory that is not in L2.
class RotatingBuffer {
 public:
  RotatingBuffer() = default;
  RotatingBuffer(std::size_t slice_bytes, int count);

  void* slice(int index) const;
  template <class T>
  T* as(int index) const {
    return static_cast<T*>(slice(index));
  }
  std::size_t slice_bytes() const { return slice_bytes_; }
  int count() const { return count_; }

 private:
  DeviceBuffer storage_;
  std::size_t slice_bytes_ = 0;
  std::size_t stride_ = 0;
  int count_ = 0;
};

// What the harness compares between the two sides after timing: the real-valued elements
// (complex data as interleaved parts) a call wrote.
struct OutputView {
  const void* data = nullptr;
  std::size_t count = 0;
  bool f64 = false;
};

struct Options {
  int runs = 20;
  int warmup = 3;
  std::uint64_t seed = 0x1d69u;
  bool check = true;
  int spin_us = 200;  // GPU busy time queued before each timed call (see harness.cpp)
  double slow_ms = 250.0;
  int slow_runs = 5;
  int overhead_calls = 1000;
  int overhead_reps = 21;
  int plan_times = 0;  // FFT cases: create-and-destroy cycles timed per side (0: not measured)
  double l2_factor = 2.0;      // rotation sets together hold at least this many L2s
  int max_sets = 512;
  double memory_fraction = 0.45;  // of free device memory the rotation may use
  std::vector<int> interleaved_algos = {0, 1, 2};
  long long interleaved_max_m = 65536;
  long long interleaved_pivot_max_m = 4096;  // algorithms 1 and 2
  long long gtsv_unknowns = 1ll << 24;      // unknowns per call of the batched full grid
};

class BusProbe;  // ooc.h
class OocCase;   // ooc.h

// The process-wide state a case works in.
struct Environment {
  const Options* options = nullptr;
  const Libraries* libraries = nullptr;
  cudaStream_t stream = nullptr;
  std::size_t l2_bytes = 0;
  cusparseHandle_t sparse = nullptr;  // the vendor's handle: both sides use it (see libraries.h)
  std::FILE* text_out = stdout;       // the human-readable report (stderr when --json - takes stdout)
  BusProbe* bus = nullptr;            // the bus's copy times, where the selection has ooc cases

  const CufftApi& cufft(Side side) const { return libraries->cufft[static_cast<int>(side)]; }
  const GtsvApi& gtsv(Side side) const { return libraries->gtsv[static_cast<int>(side)]; }

  // How many rotation sets of `set_bytes` make the sets together exceed L2 (options->l2_factor
  // times it; at least 2, as free memory allows).
  int rotation_sets(std::size_t set_bytes) const;
};

// One benchmark case. The harness calls setup() once, then run() for timed calls and
// after_use() after each (untimed), then output() for the comparison of the two sides.
class Case {
 public:
  virtual ~Case() = default;
  // Allocates inputs (random, never zeros) and makes both sides' plans. Throws BenchError.
  virtual void setup(Environment& env) = 0;
  virtual int sets() const = 0;
  // Enqueues the call on env.stream: the only thing between the timing events.
  virtual void run(Side side, int set) = 0;
  // Restores inputs the call overwrote, from a pristine copy; outside the timed region.
  virtual void after_use(int set) { (void)set; }
  virtual OutputView output(int set) const = 0;
  // Overwrites what a call leaves undefined inside output(set) (the row padding of an in-place
  // complex-to-real FFT), so that the comparison sees defined values only; untimed.
  virtual void clear_undefined_output(int set) { (void)set; }
  // Bytes a call must move at least once (read + write).
  virtual double bytes() const = 0;
  // Whether the two sides' outputs must agree elementwise (the check): not for systems so ill
  // conditioned that two stable solvers' answers differ by far more than rounding (their accuracy
  // is judged against a float64 reference in tests/gpu instead).
  virtual bool comparable() const { return true; }
};

struct CaseSpec {
  std::string family;  // "fft", "gtsv", "poisson" or "ooc"
  std::string name;    // unique, e.g. "c2c_f32_n1024"
  std::string params;  // human-readable parameters
  bool overhead = false;  // also measure host time per call (the smallest cases)
  std::function<std::unique_ptr<Case>(const Environment&)> make;
  // The ooc family instead (one side, host data, synchronous calls: ooc.h), `make` empty.
  std::function<std::unique_ptr<OocCase>(const Environment&)> make_ooc;
  // Why the case cannot run with these libraries ("" where it can); unset: its family's reason.
  std::function<std::string(const Libraries&)> unavailable;

  std::string id() const { return family + "/" + name; }
};

// The grids (fft_cases.cpp, gtsv_cases.cpp, poisson_cases.cpp).
std::vector<CaseSpec> fft_quick_cases();
std::vector<CaseSpec> fft_full_cases();
std::vector<CaseSpec> gtsv_quick_cases(const Options& options);
std::vector<CaseSpec> gtsv_full_cases(const Options& options);
std::vector<CaseSpec> poisson_quick_cases();
std::vector<CaseSpec> poisson_full_cases();

// User-given cases, from the text of --fft, --gtsv, --poisson and --ooc (the syntax is in each
// function's comment). Throw CaseTextError (case_text.h) for text that describes no valid case.
CaseSpec fft_user_case(const std::string& text);
CaseSpec gtsv_user_case(const std::string& text, const Options& options);
CaseSpec poisson_user_case(const std::string& text);
CaseSpec ooc_user_case(const std::string& text);

// Deterministic per-buffer seeds derived from the run's seed.
std::uint64_t derive_seed(std::uint64_t seed, const std::string& case_id, int role);

struct CaseResult {
  bool ok = false;
  std::string error;
  int runs = 0;
  int sets = 0;
  double vendor_ms = 0;  // medians
  double idgpu_ms = 0;
  double vendor_min_ms = 0;
  double idgpu_min_ms = 0;
  double bytes = 0;
  bool checked = false;
  bool f64 = false;  // precision of the compared output
  bool identical = false;
  double max_rel_diff = 0;
};

struct OverheadResult {
  bool ok = false;
  std::string error;
  int calls = 0;
  int reps = 0;
  double vendor_host_us = 0;  // host time per call, back to back (median over reps)
  double idgpu_host_us = 0;
  double vendor_pipelined_us = 0;  // GPU time per call of the same back-to-back sequence
  double idgpu_pipelined_us = 0;
};

// harness.cpp
CaseResult measure_case(Case& bench_case, Environment& env);
OverheadResult measure_overhead(Case& bench_case, Environment& env);
double measure_copy_bandwidth(cudaStream_t stream, std::size_t* bytes_used);
double median(std::vector<double> values);

}  // namespace idgpu_bench
