// Process-wide configuration, read once from the environment when the library is first used.
#pragma once

#include <atomic>
#include <string>

namespace idgpu {

// Which side serves a call: our kernels where they win (auto), always the vendor, or ours
// wherever a native path exists (falling back to the vendor, with a log line, where none does).
enum class Policy : int { kAuto = 0, kVendor = 1, kNative = 2 };

enum class LogLevel : int { kTrace = 0, kDebug = 1, kInfo = 2, kWarn = 3, kError = 4, kOff = 6 };

// IDGPU_TRIDIAG_SOLVER: which native algorithm gtsv2_nopivot runs (idgpuTridiagSolver_t's values).
enum class TridiagSolver : int { kAuto = 0, kPartition = 1, kWangMou = 2, kPcrThomas = 3 };

// IDGPU_REPORT: nothing, call counts at exit, or counts plus GPU time per function.
enum class ReportMode : int { kOff = 0, kCounts = 1, kTiming = 2 };

struct Config {
  LogLevel log_level = LogLevel::kError;  // IDGPU_LOG=off|error|warn|info|debug|trace
  ReportMode report = ReportMode::kOff;   // IDGPU_REPORT=0|1|timing
  Policy initial_policy = Policy::kAuto;  // IDGPU_POLICY=auto|vendor|native
  bool sync_check = false;                // IDGPU_SYNC_CHECK=1: synchronise and check after each launch
  TridiagSolver tridiag_solver = TridiagSolver::kAuto;  // IDGPU_TRIDIAG_SOLVER=auto|partition|wang-mou|pcr-thomas
  bool fft_measure = false;               // IDGPU_FFT_MEASURE=1: time native vs vendor FFT plans the
                                          // tuning table does not cover, at plan time
  std::string vendor_cufft;               // IDGPU_VENDOR_CUFFT: path of the real libcufft
  std::string vendor_cusparse;            // IDGPU_VENDOR_CUSPARSE: path of the real libcusparse
};

// Parses one environment snapshot; exposed so the CPU tests can check the parsing.
Config parse_config(const char* log, const char* report, const char* policy, const char* sync_check,
                    const char* vendor_cufft, const char* vendor_cusparse, const char* fft_measure = nullptr,
                    const char* tridiag_solver = nullptr);

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
