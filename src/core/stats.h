// Dispatch statistics: per exported function, how many calls, served by which side, how many
// failed, and (IDGPU_REPORT=timing) the GPU time between CUDA events around each call on the
// call's stream; and per (function, side, problem shape, reason) how many calls and failures.
// The report is written at process exit when IDGPU_REPORT is set (to stderr or IDGPU_REPORT_FILE,
// as a table or as JSON), and read through idgpuGetCallStats and idgpuWriteReport*.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/api.h"

namespace idgpu::stats {

struct Snapshot {
  std::uint64_t calls = 0;
  std::uint64_t native = 0;
  std::uint64_t vendor = 0;
  std::uint64_t failed = 0;
  std::uint64_t timed = 0;  // calls whose GPU time is included in gpu_ms
  double gpu_ms = 0.0;
};

// Counts one call: plain increments on the calling thread's counters, a hash of the call's
// (function, side, reason pointer, shape) into the thread's detail table and two more; no lock,
// no formatting (except the first time a thread meets a key, which copies the reason's text).
void record(const Call& call, bool failed);
Snapshot snapshot(Api api);
void reset();

// Text the report keeps for the process's lifetime, one copy per distinct text (a lock and a hash
// lookup: for plan time, never per call). intern_shape gives the id a Call's shape.fft carries.
const char* intern_text(std::string_view text);
std::uint32_t intern_shape(std::string_view text);

// One row of the detail: the calls of one function, served by one side, for one problem shape,
// for one reason. Calls a thread could not itemise (its table full) have the reason kNotItemised.
struct DetailRow {
  Api api;
  Path path;
  std::string shape;   // "" where the call's shape is not known (refused, or outside the descriptor)
  std::string reason;  // "" where the layer gave none
  std::uint64_t calls = 0;
  std::uint64_t failed = 0;
};
inline constexpr const char* kNotItemised = "(not itemised: the thread's detail table was full)";

// The detail since the last reset, by function (table order), side, then most calls first.
std::vector<DetailRow> detail();

const char* path_name(Path path);  // "native", "vendor" or "none"

// Writes the report (functions with at least one call, then the detail) to `out`: a table, or one
// JSON object.
void write_report(std::FILE* out);
void write_report_json(std::FILE* out);
std::string report_json();

// IDGPU_REPORT_FILE's pattern with %p replaced by `pid` and %% by %.
std::string report_path(const std::string& pattern, long pid);

bool timing_enabled();

// Times one call on `stream` when IDGPU_REPORT=timing (and the stream is not being captured into
// a graph); otherwise costs one branch.
class GpuTimer {
 public:
  GpuTimer(Api api, cudaStream_t stream);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

 private:
  Api api_;
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr;
};

}  // namespace idgpu::stats
