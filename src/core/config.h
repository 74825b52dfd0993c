// Process-wide configuration, read once from the environment when the library is first used.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace idgpu {

// Which side serves a call: our kernels where they win (auto), always the vendor, or ours
// wherever a native path exists (falling back to the vendor, with a log line, where none does).
enum class Policy : int { kAuto = 0, kVendor = 1, kNative = 2 };

enum class LogLevel : int { kTrace = 0, kDebug = 1, kInfo = 2, kWarn = 3, kError = 4, kOff = 6 };

// IDGPU_TRIDIAG_SOLVER: which native algorithm gtsv2_nopivot runs (idgpuTridiagSolver_t's values).
enum class TridiagSolver : int { kAuto = 0, kPartition = 1, kWangMou = 2, kPcrThomas = 3 };
// IDGPU_INTERLEAVED_PIVOTING: how the native gtsvInterleavedBatch algos 1/2 solve (a test and
// measurement aid): as measured, the batch gathered into one system, or one thread a system with U
// stored in device memory or recomputed from checkpoints (tridiag/kernels/checkpoint_schedule.h).
enum class InterleavedPivoting : int { kAuto = 0, kGathered = 1, kStored = 2, kRecompute = 3 };

// IDGPU_REPORT: nothing, call counts at exit, or counts plus GPU time per function (as a table,
// or with `json` as one JSON object).
enum class ReportMode : int { kOff = 0, kCounts = 1, kTiming = 2 };

// IDGPU_PARTITION_RESIDENT (a tuning aid): which one-launch paths the partition solver may take.
enum class PartitionResident : int { kOn = 0, kStreamOnly = 1, kOff = 2 };

// IDGPU_FFT_RUNTIME_KERNELS: fixed-sequence FFT kernels compiled at run time (fft/runtime_kernels.h)
// never, in the background while the vendor (or the general kernel) serves, or at plan time.
enum class RuntimeKernels : int { kOff = 0, kAsync = 1, kWait = 2 };

// IDGPU_FAULT_INJECT (a test aid): native launches fail as if the device had no kernel image.
enum class FaultInject : int { kOff = 0, kLaunch = 1, kSecondLaunch = 2 };

// Every field is one variable of core/config_variables.h; the defaults are an unset variable's.
// IDGPU_FFT_WIDE_ELEMENTS' default, the setting the wide layout's tuning rows were measured at
// (fft/tuning.cpp).
inline constexpr int kDefaultFftWideElements = 24;

struct Config {
  LogLevel log_level = LogLevel::kError;  // IDGPU_LOG=off|error|warn|info|debug|trace
  ReportMode report = ReportMode::kOff;   // IDGPU_REPORT=0|1|counts|timing|json|timing,json
  bool report_json = false;               // IDGPU_REPORT names json: the exit report is one JSON object
  std::string report_file;                // IDGPU_REPORT_FILE: where the exit report goes (%p: the pid);
                                          // set alone, it turns the report on (counts)
  Policy initial_policy = Policy::kAuto;  // IDGPU_POLICY=auto|vendor|native
  bool sync_check = false;                // IDGPU_SYNC_CHECK=1: synchronise and check after each launch
  TridiagSolver tridiag_solver = TridiagSolver::kAuto;  // IDGPU_TRIDIAG_SOLVER=auto|partition|wang-mou|pcr-thomas
  bool fft_measure = false;               // IDGPU_FFT_MEASURE=1: time native vs vendor FFT plans the
                                          // tuning table does not cover, at plan time
  bool fft_fused = true;                  // IDGPU_FFT_FUSED=0: fused FFT plans run as two launches
  int fft_fused_lag = 0;                  // IDGPU_FFT_FUSED_LAG: the fused schedule's lag (0: its own)
  bool fft_cluster_columns = true;        // IDGPU_FFT_CLUSTER_COLUMNS=0: column passes run as their own kernels
  bool fft_pair_real_rows = false;        // IDGPU_FFT_PAIR_REAL_ROWS=1: odd real Bluestein passes take two rows
                                          // a convolution (DeviceLimits::pair_odd_real_rows)
  int fft_thread_transforms = 1;          // IDGPU_FFT_THREAD_TRANSFORMS: 0 off, 1 the planner's block, else its threads
  int fft_wide_elements = kDefaultFftWideElements;  // IDGPU_FFT_WIDE_ELEMENTS: 0 off, else fp32 elements
  int fft_column_lines = 0;               // IDGPU_FFT_COLUMN_LINES: lines a block of a pass over lines
                                          // (0: the planner's choice)
  RuntimeKernels fft_runtime_kernels = RuntimeKernels::kAsync;  // IDGPU_FFT_RUNTIME_KERNELS=off|async|wait
  std::string cache_dir;                  // IDGPU_CACHE_DIR: where run-time compiled kernels are kept
                                          // (empty: $XDG_CACHE_HOME/idgpu, else $HOME/.cache/idgpu)
  std::string vendor_cufft;               // IDGPU_VENDOR_CUFFT: path of the real libcufft
  std::string vendor_cusparse;            // IDGPU_VENDOR_CUSPARSE: path of the real libcusparse
  // Tuning aids of the native tridiagonal solvers; 0 (-1 for the cluster) leaves the kernel
  // file's measured choice.
  int partition_rows = 0;                 // IDGPU_PARTITION_ROWS=2|4|8|16
  int partition_cluster = -1;             // IDGPU_PARTITION_CLUSTER=0..8
  PartitionResident partition_resident = PartitionResident::kOn;  // IDGPU_PARTITION_RESIDENT=0|1|stream
  int partition_tile_chunks = 0;          // IDGPU_PARTITION_TILE_CHUNKS: power of two 2..512
  int partition_lane_chunks = 0;          // IDGPU_PARTITION_LANE_CHUNKS: power of two 1..16
  long long pivot_block_rows = 0;         // IDGPU_PIVOT_BLOCK_ROWS: 1..2^31-1
  int pivot_serial_rows = -1;             // IDGPU_PIVOT_SERIAL_ROWS: 0..256 (0: none; -1: the solver's)
  int pivot_refine = 1;                   // IDGPU_PIVOT_REFINE: 0 never refine gtsv2, 1 where a pivot
                                          // was small, 2 always
  bool pivot_dominant = true;             // IDGPU_PIVOT_DOMINANT=0: gtsv2 always pivots, even where its
                                          // matrix is diagonally dominant
  long long pivot_dominant_rows = 0;      // IDGPU_PIVOT_DOMINANT_ROWS: 1..2^31-1, the longest system
                                          // checked for dominance first (0: the solver's own bound)
  InterleavedPivoting interleaved_pivoting = InterleavedPivoting::kAuto;  // IDGPU_INTERLEAVED_PIVOTING
  int pivot_one_block = -1;               // IDGPU_PIVOT_ONE_BLOCK: the gathered algos 1/2 solve one block a
                                          // system (1), level by level over the GPU (0), or as measured (-1)
  FaultInject fault_inject = FaultInject::kOff;  // IDGPU_FAULT_INJECT=off|launch|second-launch
  long long ooc_device_bytes = 0;         // IDGPU_OOC_DEVICE_BYTES: an out-of-core FFT plan's budget where
                                          // its call gives none (0: 80% of the free device memory)
  long long scratch_keep_bytes = -1;      // IDGPU_SCRATCH_KEEP: freed scratch the native paths' pool keeps
                                          // mapped for the next call (-1: 1/16 of the device memory)
};

// Looks one variable up by name: its value, or nullptr where it is unset.
using EnvironmentLookup = std::function<const char*(const char* name)>;

// Parses one environment snapshot; exposed so the CPU tests can check the parsing. Every value
// that is not accepted adds one line to `warnings` (naming the variable, the value, the accepted
// values and what is used instead), as does a setting that costs accuracy (IDGPU_PIVOT_REFINE=0);
// config() prints them to stderr unless IDGPU_LOG=off. An empty value is an unset one.
Config parse_config(const EnvironmentLookup& lookup, std::vector<std::string>* warnings);

// The names of every variable parse_config reads (core/config_variables.h), in its order.
const std::vector<const char*>& config_variable_names();

const Config& config();

// What every call reads, in one cache line: between two calls the vendor's own host work evicts
// much of ours, so the forwarding path keeps the lines it touches few. Filled from config() on
// first use (hot() itself loads it).
struct alignas(64) HotState {
  std::atomic<int> policy;
  int api_log_level;  // LogLevel of the api logger
  bool timing;        // IDGPU_REPORT=timing
  std::atomic<bool> ready;
};
const HotState& hot();

// The policy can be changed at run time through idgpuSetPolicy.
Policy policy();
void set_policy(Policy policy);

const char* to_string(Policy policy);

// The gtsv2_nopivot algorithm, from IDGPU_TRIDIAG_SOLVER, changed at run time through
// idgpuSetTridiagSolver (read only where a call is served natively).
TridiagSolver tridiag_solver();
void set_tridiag_solver(TridiagSolver solver);

}  // namespace idgpu
