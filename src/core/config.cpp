#include "core/config.h"

#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace idgpu {
namespace {

bool equals(const char* value, const char* word) { return value != nullptr && strcasecmp(value, word) == 0; }

LogLevel parse_log_level(const char* value) {
  if (value == nullptr || *value == '\0') return LogLevel::kError;
  if (equals(value, "off") || equals(value, "0") || equals(value, "none")) return LogLevel::kOff;
  if (equals(value, "error")) return LogLevel::kError;
  if (equals(value, "warn") || equals(value, "warning")) return LogLevel::kWarn;
  if (equals(value, "info") || equals(value, "1")) return LogLevel::kInfo;
  if (equals(value, "debug")) return LogLevel::kDebug;
  if (equals(value, "trace")) return LogLevel::kTrace;
  return LogLevel::kError;
}

ReportMode parse_report(const char* value) {
  if (value == nullptr || *value == '\0' || equals(value, "0") || equals(value, "off")) return ReportMode::kOff;
  if (equals(value, "timing") || equals(value, "time")) return ReportMode::kTiming;
  return ReportMode::kCounts;
}

Policy parse_policy(const char* value) {
  if (equals(value, "vendor")) return Policy::kVendor;
  if (equals(value, "native")) return Policy::kNative;
  return Policy::kAuto;
}

TridiagSolver parse_tridiag_solver(const char* value) {
  if (equals(value, "partition")) return TridiagSolver::kPartition;
  if (equals(value, "wang-mou")) return TridiagSolver::kWangMou;
  if (equals(value, "pcr-thomas")) return TridiagSolver::kPcrThomas;
  return TridiagSolver::kAuto;
}

bool parse_flag(const char* value) {
  return value != nullptr && *value != '\0' && !equals(value, "0") && !equals(value, "off") &&
         !equals(value, "false");
}

HotState g_hot{};

__attribute__((noinline, cold)) void load_hot() {
  static const bool loaded = [] {
    const Config& settings = config();
    g_hot.policy.store(static_cast<int>(settings.initial_policy), std::memory_order_relaxed);
    g_hot.api_log_level = static_cast<int>(settings.log_level);
    g_hot.timing = settings.report == ReportMode::kTiming;
    g_hot.ready.store(true, std::memory_order_release);
    return true;
  }();
  (void)loaded;
}

}  // namespace

Config parse_config(const char* log, const char* report, const char* policy, const char* sync_check,
                    const char* vendor_cufft, const char* vendor_cusparse, const char* fft_measure,
                    const char* tridiag_solver) {
  Config parsed;
  parsed.log_level = parse_log_level(log);
  parsed.report = parse_report(report);
  parsed.initial_policy = parse_policy(policy);
  parsed.sync_check = parse_flag(sync_check);
  parsed.fft_measure = parse_flag(fft_measure);
  parsed.tridiag_solver = parse_tridiag_solver(tridiag_solver);
  parsed.vendor_cufft = vendor_cufft != nullptr ? vendor_cufft : "";
  parsed.vendor_cusparse = vendor_cusparse != nullptr ? vendor_cusparse : "";
  return parsed;
}

namespace {

// Kept out of line so that config()'s fast path (on every call's hot path) is a guard check.
__attribute__((noinline, cold)) const Config* load_config() {
  static const Config loaded =
      parse_config(std::getenv("IDGPU_LOG"), std::getenv("IDGPU_REPORT"), std::getenv("IDGPU_POLICY"),
                   std::getenv("IDGPU_SYNC_CHECK"), std::getenv("IDGPU_VENDOR_CUFFT"),
                   std::getenv("IDGPU_VENDOR_CUSPARSE"), std::getenv("IDGPU_FFT_MEASURE"),
                   std::getenv("IDGPU_TRIDIAG_SOLVER"));
  return &loaded;
}

}  // namespace

const Config& config() {
  static const Config* const loaded = load_config();
  return *loaded;
}

const HotState& hot() {
  if (__builtin_expect(!g_hot.ready.load(std::memory_order_acquire), 0)) load_hot();
  return g_hot;
}

Policy policy() { return static_cast<Policy>(hot().policy.load(std::memory_order_relaxed)); }

void set_policy(Policy policy) {
  hot();
  g_hot.policy.store(static_cast<int>(policy), std::memory_order_relaxed);
}

namespace {
// -1 until the first read or write, then the current TridiagSolver.
std::atomic<int> g_tridiag_solver{-1};
}  // namespace

TridiagSolver tridiag_solver() {
  int value = g_tridiag_solver.load(std::memory_order_relaxed);
  if (value < 0) {
    int unset = -1;
    value = static_cast<int>(config().tridiag_solver);
    if (!g_tridiag_solver.compare_exchange_strong(unset, value, std::memory_order_relaxed)) value = unset;
  }
  return static_cast<TridiagSolver>(value);
}

void set_tridiag_solver(TridiagSolver solver) {
  g_tridiag_solver.store(static_cast<int>(solver), std::memory_order_relaxed);
}

const char* to_string(Policy policy) {
  switch (policy) {
    case Policy::kAuto: return "auto";
    case Policy::kVendor: return "vendor";
    case Policy::kNative: return "native";
  }
  return "?";
}

}  // namespace idgpu
