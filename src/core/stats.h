// Dispatch statistics: per exported function, how many calls, served by which side, how many
// failed, and (IDGPU_REPORT=timing) the GPU time between CUDA events around each call on the
// call's stream. The table is printed at process exit when IDGPU_REPORT is set, and read through
// idgpuGetCallStats.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>

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

void record(Api api, Path path, bool failed);
Snapshot snapshot(Api api);
void reset();

// Writes the report table (functions with at least one call) to `out`.
void write_report(std::FILE* out);

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
