#include "core/config.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "core/config_variables.h"

namespace idgpu {
namespace {

bool equals(const char* value, const char* word) { return value != nullptr && strcasecmp(value, word) == 0; }

// The parsers of core/config_variables.h: each sets its field from a value that is neither unset
// nor empty, and answers false (leaving the field alone) for a value it does not accept.

bool parse_log_level(const char* value, Config* config) {
  LogLevel& level = config->log_level;
  if (equals(value, "off") || equals(value, "0") || equals(value, "none")) {
    level = LogLevel::kOff;
  } else if (equals(value, "error")) {
    level = LogLevel::kError;
  } else if (equals(value, "warn") || equals(value, "warning")) {
    level = LogLevel::kWarn;
  } else if (equals(value, "info") || equals(value, "1")) {
    level = LogLevel::kInfo;
  } else if (equals(value, "debug")) {
    level = LogLevel::kDebug;
  } else if (equals(value, "trace")) {
    level = LogLevel::kTrace;
  } else {
    return false;
  }
  return true;
}

// On/off switches: 1, on, true, yes / 0, off, false, no.
bool parse_switch(const char* value, bool* on) {
  if (equals(value, "1") || equals(value, "on") || equals(value, "true") || equals(value, "yes")) {
    *on = true;
  } else if (equals(value, "0") || equals(value, "off") || equals(value, "false") || equals(value, "no")) {
    *on = false;
  } else {
    return false;
  }
  return true;
}

// A decimal integer in [low, high], nothing around it.
bool parse_integer(const char* value, long long low, long long high, long long* number) {
  if (!((*value >= '0' && *value <= '9') || *value == '-')) return false;
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || parsed < low || parsed > high) return false;
  *number = parsed;
  return true;
}

bool parse_power_of_two(const char* value, int low, int high, int* number) {
  long long parsed = 0;
  if (!parse_integer(value, low, high, &parsed) || (parsed & (parsed - 1)) != 0) return false;
  *number = static_cast<int>(parsed);
  return true;
}

// A switch, `counts`, `timing` or `json`, or `timing,json` (either order): what the report holds
// and whether it is written as JSON (`json` alone: the counts).
bool parse_report(const char* value, Config* config) {
  bool on = false;
  if (parse_switch(value, &on)) {
    config->report = on ? ReportMode::kCounts : ReportMode::kOff;
    return true;
  }
  ReportMode mode = ReportMode::kCounts;
  bool json = false;
  bool content = false;  // counts or timing named (at most one of them)
  const std::string text = value;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string word = text.substr(start, end - start);
    if ((equals(word.c_str(), "timing") || equals(word.c_str(), "time")) && !content) {
      mode = ReportMode::kTiming;
      content = true;
    } else if (equals(word.c_str(), "counts") && !content) {
      content = true;
    } else if (equals(word.c_str(), "json") && !json) {
      json = true;
    } else {
      return false;
    }
    start = end + 1;
  }
  config->report = mode;
  config->report_json = json;
  return true;
}

// A path; `%p` stands for the process id and `%%` for a percent sign, any other `%` is refused.
bool parse_report_file(const char* value, Config* config) {
  for (const char* cursor = value; *cursor != '\0'; ++cursor) {
    if (*cursor != '%') continue;
    if (cursor[1] != 'p' && cursor[1] != '%') return false;
    ++cursor;
  }
  config->report_file = value;
  return true;
}

bool parse_policy(const char* value, Config* config) {
  if (equals(value, "auto")) {
    config->initial_policy = Policy::kAuto;
  } else if (equals(value, "vendor")) {
    config->initial_policy = Policy::kVendor;
  } else if (equals(value, "native")) {
    config->initial_policy = Policy::kNative;
  } else {
    return false;
  }
  return true;
}

bool parse_sync_check(const char* value, Config* config) { return parse_switch(value, &config->sync_check); }

bool parse_tridiag_solver(const char* value, Config* config) {
  if (equals(value, "auto")) {
    config->tridiag_solver = TridiagSolver::kAuto;
  } else if (equals(value, "partition")) {
    config->tridiag_solver = TridiagSolver::kPartition;
  } else if (equals(value, "wang-mou")) {
    config->tridiag_solver = TridiagSolver::kWangMou;
  } else if (equals(value, "pcr-thomas")) {
    config->tridiag_solver = TridiagSolver::kPcrThomas;
  } else {
    return false;
  }
  return true;
}

bool parse_fft_measure(const char* value, Config* config) { return parse_switch(value, &config->fft_measure); }

bool parse_fft_fused(const char* value, Config* config) { return parse_switch(value, &config->fft_fused); }

bool parse_fft_cluster_columns(const char* value, Config* config) {
  return parse_switch(value, &config->fft_cluster_columns);
}

bool parse_fft_pair_real_rows(const char* value, Config* config) {
  return parse_switch(value, &config->fft_pair_real_rows);
}

bool parse_fft_runtime_kernels(const char* value, Config* config) {
  if (equals(value, "off")) {
    config->fft_runtime_kernels = RuntimeKernels::kOff;
  } else if (equals(value, "async")) {
    config->fft_runtime_kernels = RuntimeKernels::kAsync;
  } else if (equals(value, "wait")) {
    config->fft_runtime_kernels = RuntimeKernels::kWait;
  } else {
    return false;
  }
  return true;
}

bool parse_cache_dir(const char* value, Config* config) {
  config->cache_dir = value;
  return true;
}

bool parse_fft_thread_transforms(const char* value, Config* config) {
  long long threads = 0;
  if (!parse_integer(value, 0, 256, &threads)) return false;
  if (threads > 1 && (threads < 32 || (threads & (threads - 1)) != 0)) return false;
  config->fft_thread_transforms = static_cast<int>(threads);
  return true;
}

bool parse_fft_wide_elements(const char* value, Config* config) {
  long long elements = 0;
  if (!parse_integer(value, 0, 64, &elements)) return false;
  if (elements > 0 && elements < 8) return false;
  config->fft_wide_elements = static_cast<int>(elements);
  return true;
}

bool parse_fft_column_lines(const char* value, Config* config) {
  long long lines = 0;
  if (!parse_integer(value, 0, 1024, &lines)) return false;
  config->fft_column_lines = static_cast<int>(lines);
  return true;
}

bool parse_fft_fused_lag(const char* value, Config* config) {
  long long lag = 0;
  if (!parse_integer(value, 0, 1LL << 30, &lag)) return false;
  config->fft_fused_lag = static_cast<int>(lag);
  return true;
}

bool parse_vendor_cufft(const char* value, Config* config) {
  config->vendor_cufft = value;
  return true;
}

bool parse_vendor_cusparse(const char* value, Config* config) {
  config->vendor_cusparse = value;
  return true;
}

bool parse_partition_rows(const char* value, Config* config) {
  return parse_power_of_two(value, 2, 16, &config->partition_rows);
}

bool parse_partition_cluster(const char* value, Config* config) {
  long long tiles = 0;
  if (!parse_integer(value, 0, 8, &tiles)) return false;
  config->partition_cluster = static_cast<int>(tiles);
  return true;
}

bool parse_partition_resident(const char* value, Config* config) {
  if (equals(value, "stream")) {
    config->partition_resident = PartitionResident::kStreamOnly;
    return true;
  }
  bool on = false;
  if (!parse_switch(value, &on)) return false;
  config->partition_resident = on ? PartitionResident::kOn : PartitionResident::kOff;
  return true;
}

// The upper bounds are those of partition.cu's default block (512 threads, 32 systems a lane block).
bool parse_partition_tile_chunks(const char* value, Config* config) {
  return parse_power_of_two(value, 2, 512, &config->partition_tile_chunks);
}

bool parse_partition_lane_chunks(const char* value, Config* config) {
  return parse_power_of_two(value, 1, 16, &config->partition_lane_chunks);
}

bool parse_pivot_block_rows(const char* value, Config* config) {
  return parse_integer(value, 1, 2147483647, &config->pivot_block_rows);
}

bool parse_pivot_serial_rows(const char* value, Config* config) {
  long long rows = 0;
  if (!parse_integer(value, 0, 256, &rows)) return false;
  config->pivot_serial_rows = static_cast<int>(rows);
  return true;
}

bool parse_pivot_refine(const char* value, Config* config) {
  long long mode = 0;
  if (!parse_integer(value, 0, 2, &mode)) return false;
  config->pivot_refine = static_cast<int>(mode);
  return true;
}

bool parse_pivot_dominant(const char* value, Config* config) { return parse_switch(value, &config->pivot_dominant); }

bool parse_pivot_dominant_rows(const char* value, Config* config) {
  return parse_integer(value, 1, 2147483647, &config->pivot_dominant_rows);
}

bool parse_interleaved_pivoting(const char* value, Config* config) {
  if (equals(value, "auto")) {
    config->interleaved_pivoting = InterleavedPivoting::kAuto;
  } else if (equals(value, "gathered")) {
    config->interleaved_pivoting = InterleavedPivoting::kGathered;
  } else if (equals(value, "stored")) {
    config->interleaved_pivoting = InterleavedPivoting::kStored;
  } else if (equals(value, "recompute")) {
    config->interleaved_pivoting = InterleavedPivoting::kRecompute;
  } else {
    return false;
  }
  return true;
}

bool parse_pivot_one_block(const char* value, Config* config) {
  if (equals(value, "auto")) {
    config->pivot_one_block = -1;
    return true;
  }
  long long mode = 0;
  if (!parse_integer(value, 0, 1, &mode)) return false;
  config->pivot_one_block = static_cast<int>(mode);
  return true;
}

bool parse_fault_inject(const char* value, Config* config) {
  if (equals(value, "off") || equals(value, "0")) {
    config->fault_inject = FaultInject::kOff;
  } else if (equals(value, "launch")) {
    config->fault_inject = FaultInject::kLaunch;
  } else if (equals(value, "second-launch")) {
    config->fault_inject = FaultInject::kSecondLaunch;
  } else {
    return false;
  }
  return true;
}

// Bytes, with an optional binary suffix (K, M, G, T: 1024^1..4; a trailing B or iB allowed), in
// low..2^62.
bool parse_bytes(const char* value, long long low, long long* bytes) {
  std::string text = value;
  long long unit = 1;
  const auto strip = [&](const char* suffix) {
    const std::size_t length = std::strlen(suffix);
    if (text.size() <= length || strcasecmp(text.c_str() + text.size() - length, suffix) != 0) return false;
    text.resize(text.size() - length);
    return true;
  };
  if (!strip("iB")) strip("B");
  const char* const units = "KMGT";
  for (int power = 0; power < 4; ++power) {
    const char upper = units[power], lower = static_cast<char>(upper - 'A' + 'a');
    if (!text.empty() && (text.back() == upper || text.back() == lower)) {
      text.pop_back();
      unit = 1LL << (10 * (power + 1));
      break;
    }
  }
  constexpr long long kMost = 1LL << 62;
  long long count = 0;
  if (text.empty() || !parse_integer(text.c_str(), low, kMost / unit, &count)) return false;
  *bytes = count * unit;
  return true;
}

bool parse_ooc_device_bytes(const char* value, Config* config) {
  return parse_bytes(value, 1, &config->ooc_device_bytes);
}

bool parse_scratch_keep(const char* value, Config* config) {
  return parse_bytes(value, 0, &config->scratch_keep_bytes);
}

struct Variable {
  const char* name;
  bool (*parse)(const char* value, Config* config);
  const char* accepted;
  const char* fallback;
};

constexpr Variable kVariables[] = {
#define IDGPU_CONFIG_ROW(name, parser, accepted, fallback) {#name, parser, accepted, fallback},
    IDGPU_CONFIG_VARIABLES(IDGPU_CONFIG_ROW)
#undef IDGPU_CONFIG_ROW
};

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

Config parse_config(const EnvironmentLookup& lookup, std::vector<std::string>* warnings) {
  Config parsed;
  for (const Variable& variable : kVariables) {
    const char* value = lookup(variable.name);
    if (value == nullptr || *value == '\0' || variable.parse(value, &parsed)) continue;
    if (warnings != nullptr) {
      warnings->push_back(std::string("idgpu: ") + variable.name + "=" + value + " is not " + variable.accepted +
                          "; using " + variable.fallback);
    }
  }
  // A report file asks for the report: IDGPU_REPORT_FILE alone turns it on (IDGPU_REPORT=0 still
  // turns it off).
  if (!parsed.report_file.empty()) {
    const char* report = lookup("IDGPU_REPORT");
    if (report == nullptr || *report == '\0') parsed.report = ReportMode::kCounts;
  }
  if (parsed.pivot_refine == 0 && warnings != nullptr) {
    warnings->push_back(
        "idgpu: IDGPU_PIVOT_REFINE=0 leaves out gtsv2's iterative refinement (a test aid); results may be less "
        "accurate than the vendor's");
  }
  return parsed;
}

const std::vector<const char*>& config_variable_names() {
  static const std::vector<const char*> names = [] {
    std::vector<const char*> list;
    for (const Variable& variable : kVariables) list.push_back(variable.name);
    return list;
  }();
  return names;
}

namespace {

// Kept out of line so that config()'s fast path (on every call's hot path) is a guard check. The
// warnings go straight to stderr: the loggers are set up from this configuration, and the default
// level (error) would hide them.
__attribute__((noinline, cold)) const Config* load_config() {
  static const Config loaded = [] {
    std::vector<std::string> warnings;
    Config parsed = parse_config([](const char* name) -> const char* { return std::getenv(name); }, &warnings);
    if (parsed.log_level != LogLevel::kOff) {
      for (const std::string& warning : warnings) std::fprintf(stderr, "%s\n", warning.c_str());
    }
    return parsed;
  }();
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
