// idgpu-bench's out-of-core family (--ooc; ooc_cases.cpp): idgpuOoc* (complex and real FFTs) and
// idgpuOocPoisson* on data in host memory. No vendor library has out-of-core transforms, so these
// cases have one side, and their reference is the bus: the time one round trip of the data takes
// over it (the exec's input copied to the device while its output is copied back, both at once),
// measured here with plain cudaMemcpyAsync of pinned memory. An exec cannot beat that time by
// more than the overlap of the two directions it already assumes, so copy time / exec time is the
// fraction of the bound one round trip sets (the target: 0.8 and above; a schedule of two
// or three round trips is bounded by a half or a third of it).
//
// The calls are synchronous (they return with the result in host memory), so an exec is timed by
// the host's clock, the median of --runs after --warmup calls, as the two-sided cases are; the
// inputs an exec overwrites are restored from a pristine copy before each call, untimed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "bench.h"

namespace idgpu_bench {

// The bus bandwidths of one run, in bytes per second.
struct BusBandwidth {
  double host_to_device = 0;  // H2D alone
  double device_to_host = 0;  // D2H alone
  double both = 0;            // H2D and D2H of the same bytes at once, on two streams: 2 bytes / time
  std::size_t bytes = 0;      // of each copy
  int copies = 0;             // timed per figure (the median reported)
};

// Pinned host buffers, device buffers and two streams, allocated once a run, to time copies over
// the bus. Throws BenchError when they cannot be had.
class BusProbe {
 public:
  // Buffers of `bytes` in each direction (the largest copy timed as it is; larger ones scaled).
  explicit BusProbe(std::size_t bytes);
  ~BusProbe();
  BusProbe(const BusProbe&) = delete;
  BusProbe& operator=(const BusProbe&) = delete;

  // Copies of the buffers' size: H2D alone, D2H alone, both at once.
  BusBandwidth measure();
  // Milliseconds of `to_device` bytes H2D and `to_host` bytes D2H at once, on two streams (median
  // of several). Beyond the buffers the copies are scaled down in proportion and the time scaled
  // back up (a copy of hundreds of MiB runs at its bandwidth: the time is linear in the bytes).
  double round_trip_ms(double to_device, double to_host);

 private:
  void allocate();
  void free_all() noexcept;
  double median_ms(std::size_t to_device, std::size_t to_host);

  std::size_t bytes_ = 0;
  void* host_in_ = nullptr;   // pinned, the H2D source
  void* host_out_ = nullptr;  // pinned, the D2H target
  DeviceBuffer device_in_;
  DeviceBuffer device_out_;
  cudaStream_t streams_[2] = {nullptr, nullptr};
  cudaEvent_t start_ = nullptr;
  cudaEvent_t joined_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// One out-of-core case. run_ooc_case calls setup() once, then restore() and exec() for each call
// (only exec() timed), then release() and time_in_core().
class OocCase {
 public:
  virtual ~OocCase() = default;
  // Makes the host arrays (pinned or pageable; random values, never zeros) and the plan within the
  // case's budget. Throws BenchError.
  virtual void setup(Environment& env) = 0;
  // Copies back what the exec overwrites (the complex array in place, a C2R's input, an in-place
  // input); untimed.
  virtual void restore() {}
  // One exec: returns with the result in host memory.
  virtual void exec() = 0;
  // The bytes one round trip moves: the exec's input to the device, its output back.
  virtual double bytes_to_device() const = 0;
  virtual double bytes_to_host() const = 0;
  // The plan's schedule (idgpuOocGetSchedule, idgpuOocPoissonGetSchedule).
  virtual void schedule(int* round_trips, long long* chunks) const = 0;
  virtual long long budget_bytes() const = 0;  // deviceBytes given to the plan (0: the library's default)
  virtual bool pinned() const = 0;
  // Frees the plan and the host arrays.
  virtual void release() = 0;
  // The same problem solved in core on device data, for context (Poisson: idgpuPoissonExec, the
  // median of `runs` solves), or empty with *why ("" where the kind has none).
  virtual std::optional<double> time_in_core(Environment& env, int runs, std::string* why) {
    (void)env;
    (void)runs;
    why->clear();
    return std::nullopt;
  }
};

struct OocResult {
  int runs = 0;
  double exec_ms = 0;  // median
  double exec_min_ms = 0;
  double bytes = 0;   // of one round trip: to the device and back
  double bus_ms = 0;  // the bus's time for them (BusProbe::round_trip_ms)
  int round_trips = 0;
  long long chunks = 0;
  long long budget_bytes = 0;
  bool pinned = true;
  std::optional<double> in_core_ms;
  std::string in_core_note;  // why in_core_ms is absent ("" where the kind has none)

  double bound_fraction() const { return bus_ms / exec_ms; }
};

// Sets the case up, times its execs and the bus's round trip for the same bytes.
OocResult run_ooc_case(OocCase& ooc_case, Environment& env);

}  // namespace idgpu_bench
