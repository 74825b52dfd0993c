// Fixed-sequence Stockham kernels compiled at run time.
//
// The pass kernel specialised for a radix sequence (kernels/stockham_pass.cuh's FixedStages) does
// not spill where the general kernel's run-time radices do, but every 13-smooth length has its own
// sequence: compiling them all into the library (about 1100 sequences up to 16384 points, two
// precisions, two directions, each architecture) would take hours and hundreds of MB. The library
// compiles the common ones (kernels/fixed_radices.h) and compiles any other sequence a plan needs
// with NVRTC (libnvrtc, loaded with dlopen; absent, nothing changes), for the device's own
// architecture, keeping the cubin in an on-disk cache keyed by the kernel sources, the library
// and NVRTC versions and the architecture.
//
// Plan creation never waits for a compile (IDGPU_FFT_RUNTIME_KERNELS=async, the default): a plan
// whose kernel is not in memory or in the cache queues its compile on a background thread and is
// served meanwhile as before (the vendor, or the general kernel under IDGPU_POLICY=native); the
// plans made after it finished use it. `wait` compiles at plan time (tests, benchmarks), `off`
// never compiles. The background thread makes no CUDA call: the cubin is loaded by the next plan
// that asks for it.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "fft/kernels/stockham.h"
#include "fft/planner.h"

namespace idgpu::fft {

// The shared-memory layout of a run-time kernel's pass, as its shift marks it: the row-padded
// exchanges (kUnpaddedShift, FixedStages), the padded layout (PaddedFixedStages) or one transform a
// thread (kThreadShift, ThreadStages); and the row exchanges of a wide pass (FftPass::wide,
// WideStages), whose threads were sized under RuntimeSequence::thread_cap.
enum class RuntimeLayout { kRows, kPadded, kThread, kWide };
RuntimeLayout runtime_layout(int smem_shift);

// One run-time kernel pair (forward and inverse): the pass kernel's Stages for `radices` in
// `layout`.
struct RuntimeSequence {
  int element_bytes = 0;  // 8 (fp32) or 16 (fp64)
  RuntimeLayout layout = RuntimeLayout::kRows;
  std::vector<int> radices;
  int thread_cap = 0;  // kWide: the cap its threads were sized under (FftPass::widened_limit)

  bool operator<(const RuntimeSequence& other) const;
  bool operator==(const RuntimeSequence& other) const;
};

// The sequence a pass of a plan runs on (pass.runtime_kernel set by the planner).
RuntimeSequence runtime_sequence(const FftPass& pass, std::size_t element_bytes);
// The kernel's C++ name (an NVRTC name expression), e.g.
// idgpu::fft::kernels::pass_kernel::stockham_pass<float, false, ...::FixedStages<13, 11, 3>>.
std::string runtime_kernel_name(const RuntimeSequence& sequence, bool inverse);
// "f32-rows-13x11x3" (or -padded-, -thread-, -wide158-): the sequence in a file name.
std::string runtime_sequence_label(const RuntimeSequence& sequence);

// Whether libnvrtc could be loaded (once; the reason in *why otherwise, when given).
bool runtime_compiler_available(std::string* why = nullptr);
// NVRTC's version as major * 1000 + minor * 10 (0 when unavailable).
int runtime_compiler_version();
// A compiled pair: the cubin and its two kernels' mangled names (forward, inverse), as NVRTC
// lowered runtime_kernel_name's.
struct RuntimeBinary {
  std::string cubin;
  std::string names[2];

  // What a cache file holds: a header line, the two names a line each, then the cubin.
  std::string serialized() const;
  // The inverse of serialized(); false for any other text.
  bool parse(const std::string& file_text);
};

// Compiles the sequence's two kernels for sm_<arch> (e.g. 90): the binary, or an empty cubin with
// the compiler's log in *error. No device needed.
RuntimeBinary compile_runtime_sequence(const RuntimeSequence& sequence, int arch, std::string* error);
// The cache file of the sequence for sm_<arch> under `directory`; its name carries a hash of the
// kernel sources, the compile options and the library and NVRTC versions.
std::string runtime_cache_file(const std::string& directory, const RuntimeSequence& sequence, int arch);
// The cache directory: IDGPU_CACHE_DIR, else $XDG_CACHE_HOME/idgpu, else $HOME/.cache/idgpu
// (empty when none of them is set: nothing is kept on disk).
std::string runtime_cache_directory();
// Writes a binary into the cache atomically (a temporary file renamed); false on failure.
bool store_runtime_binary(const std::string& file, const RuntimeBinary& binary);
// Reads one back: false, with nothing read, where the file is missing or not a binary.
bool read_runtime_binary(const std::string& file, RuntimeBinary* binary);

// Whether plans on a device of sm_<arch> may be planned for run-time kernels: the setting is not
// off and NVRTC is available and knows the architecture.
bool runtime_kernels_enabled(int arch);

// Whether every run-time kernel `plan` needs is loaded for sm_<arch> (the current device's),
// loading cached cubins and, for the missing ones, compiling them now (wait) or queueing them
// (async). A plan with no run-time pass is ready.
bool runtime_kernels_ready(const FftPlan& plan, int arch);
// Compiles the sequences on `threads` threads into the cache (those already there are kept), for
// sm_<arch>; what failed goes to *failures. No device needed (idgpu-fft-cache).
int compile_runtime_sequences(const std::vector<RuntimeSequence>& sequences, int arch, int threads,
                              std::vector<std::string>* failures);
// The run-time sequences of `plan`.
std::vector<RuntimeSequence> runtime_sequences_of(const FftPlan& plan);

// This process's run-time kernels: sequences loaded (per architecture) and launches made on them
// (idgpuGetFftRuntimeKernelStats); either pointer may be null.
void runtime_kernel_stats(int* loaded, long long* launches);

// Launches a run-time pass (PassLaunch of a pass with runtime_kernel) on its loaded kernel: true
// with the launch's status, or false, with nothing launched, when no loaded kernel has its
// radices and layout for the current device.
bool launch_runtime_pass(const kernels::PassLaunch& pass, int element_bytes, bool inverse, cudaStream_t stream,
                         cudaError_t* status);

}  // namespace idgpu::fft
