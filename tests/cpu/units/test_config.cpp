// src/core/config.cpp parse_config: every environment variable's accepted spellings, defaults and
// warnings, and README.md's Environment table against the variables the sources read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/scratch.h"

using idgpu::Config;
using idgpu::FaultInject;
using idgpu::LogLevel;
using idgpu::PartitionResident;
using idgpu::Policy;
using idgpu::ReportMode;
using idgpu::RuntimeKernels;
using idgpu::TridiagSolver;

namespace {

struct Parsed {
  Config config;
  std::vector<std::string> warnings;
};

Parsed parse(const std::map<std::string, std::string>& environment) {
  Parsed parsed;
  parsed.config = idgpu::parse_config(
      [&](const char* name) -> const char* {
        const auto found = environment.find(name);
        return found == environment.end() ? nullptr : found->second.c_str();
      },
      &parsed.warnings);
  return parsed;
}

Parsed parse(const char* name, const char* value) { return parse({{name, value}}); }

// Every field at an unset environment's value.
void check_defaults(const Config& config) {
  CHECK(config.log_level == LogLevel::kError);
  CHECK(config.report == ReportMode::kOff);
  CHECK_FALSE(config.report_json);
  CHECK(config.report_file.empty());
  CHECK(config.initial_policy == Policy::kAuto);
  CHECK_FALSE(config.sync_check);
  CHECK(config.tridiag_solver == TridiagSolver::kAuto);
  CHECK_FALSE(config.fft_measure);
  CHECK(config.fft_fused);
  CHECK(config.fft_fused_lag == 0);
  CHECK(config.fft_column_lines == 0);
  CHECK(config.fft_runtime_kernels == RuntimeKernels::kAsync);
  CHECK(config.cache_dir.empty());
  CHECK(config.vendor_cufft.empty());
  CHECK(config.vendor_cusparse.empty());
  CHECK(config.partition_rows == 0);
  CHECK(config.partition_cluster == -1);
  CHECK(config.partition_resident == PartitionResident::kOn);
  CHECK(config.partition_tile_chunks == 0);
  CHECK(config.partition_lane_chunks == 0);
  CHECK(config.pivot_block_rows == 0);
  CHECK(config.pivot_serial_rows == -1);
  CHECK(config.pivot_refine == 1);
  CHECK(config.pivot_dominant);
  CHECK(config.pivot_dominant_rows == 0);
  CHECK(config.pivot_one_block == -1);
  CHECK(config.fault_inject == FaultInject::kOff);
  CHECK(config.ooc_device_bytes == 0);
  CHECK(config.scratch_keep_bytes == -1);
}

bool is_path(const std::string& name) {
  return name == "IDGPU_VENDOR_CUFFT" || name == "IDGPU_VENDOR_CUSPARSE" || name == "IDGPU_REPORT_FILE" ||
         name == "IDGPU_CACHE_DIR";
}

}  // namespace

TEST_CASE("an empty environment gives the defaults", "[cpu][config]") {
  const Parsed unset = parse({});
  check_defaults(unset.config);
  CHECK(unset.warnings.empty());
  std::map<std::string, std::string> empty;
  for (const char* name : idgpu::config_variable_names()) empty[name] = "";
  const Parsed empty_strings = parse(empty);
  check_defaults(empty_strings.config);
  CHECK(empty_strings.warnings.empty());
}

TEST_CASE("the variable list", "[cpu][config]") {
  const std::vector<const char*>& names = idgpu::config_variable_names();
  std::set<std::string> unique(names.begin(), names.end());
  CHECK(unique.size() == names.size());
  for (const char* name :
       {"IDGPU_LOG", "IDGPU_REPORT", "IDGPU_REPORT_FILE", "IDGPU_POLICY", "IDGPU_SYNC_CHECK", "IDGPU_TRIDIAG_SOLVER", "IDGPU_FFT_MEASURE",
        "IDGPU_FFT_FUSED", "IDGPU_FFT_FUSED_LAG", "IDGPU_FFT_CLUSTER_COLUMNS", "IDGPU_FFT_COLUMN_LINES", "IDGPU_FFT_THREAD_TRANSFORMS", "IDGPU_FFT_WIDE_ELEMENTS", "IDGPU_VENDOR_CUFFT", "IDGPU_VENDOR_CUSPARSE", "IDGPU_PARTITION_ROWS",
        "IDGPU_PARTITION_CLUSTER", "IDGPU_PARTITION_RESIDENT", "IDGPU_PARTITION_TILE_CHUNKS",
        "IDGPU_PARTITION_LANE_CHUNKS", "IDGPU_PIVOT_BLOCK_ROWS", "IDGPU_PIVOT_SERIAL_ROWS", "IDGPU_PIVOT_REFINE", "IDGPU_PIVOT_DOMINANT",
        "IDGPU_PIVOT_DOMINANT_ROWS", "IDGPU_PIVOT_ONE_BLOCK", "IDGPU_FAULT_INJECT",
        "IDGPU_OOC_DEVICE_BYTES", "IDGPU_SCRATCH_KEEP"}) {
    CAPTURE(name);
    CHECK(unique.count(name) == 1);
  }
}

TEST_CASE("IDGPU_LOG", "[cpu][config]") {
  struct Row {
    const char* value;
    LogLevel level;
  };
  const Row rows[] = {
      {"off", LogLevel::kOff},     {"OFF", LogLevel::kOff},      {"0", LogLevel::kOff},
      {"none", LogLevel::kOff},    {"error", LogLevel::kError},  {"Error", LogLevel::kError},
      {"warn", LogLevel::kWarn},   {"warning", LogLevel::kWarn}, {"info", LogLevel::kInfo},
      {"1", LogLevel::kInfo},      {"debug", LogLevel::kDebug},  {"DEBUG", LogLevel::kDebug},
      {"trace", LogLevel::kTrace},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value);
    const Parsed parsed = parse("IDGPU_LOG", row.value);
    CHECK(parsed.config.log_level == row.level);
    CHECK(parsed.warnings.empty());
  }
  for (const char* unknown : {"verbose", "2", " debug"}) {
    CAPTURE(unknown);
    const Parsed parsed = parse("IDGPU_LOG", unknown);
    CHECK(parsed.config.log_level == LogLevel::kError);
    REQUIRE(parsed.warnings.size() == 1);
    CHECK(parsed.warnings[0] == std::string("idgpu: IDGPU_LOG=") + unknown +
                                    " is not one of off, error, warn, info, debug, trace; using error");
  }
}

TEST_CASE("IDGPU_REPORT", "[cpu][config]") {
  struct Row {
    const char* value;
    ReportMode mode;
  };
  const Row rows[] = {
      {"0", ReportMode::kOff},         {"off", ReportMode::kOff},       {"OFF", ReportMode::kOff},
      {"false", ReportMode::kOff},     {"1", ReportMode::kCounts},      {"yes", ReportMode::kCounts},
      {"on", ReportMode::kCounts},     {"counts", ReportMode::kCounts}, {"timing", ReportMode::kTiming},
      {"TIMING", ReportMode::kTiming}, {"time", ReportMode::kTiming},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value);
    const Parsed parsed = parse("IDGPU_REPORT", row.value);
    CHECK(parsed.config.report == row.mode);
    CHECK(parsed.warnings.empty());
  }
  for (const Row& row : rows) CHECK_FALSE(parse("IDGPU_REPORT", row.value).config.report_json);
  struct JsonRow {
    const char* value;
    ReportMode mode;
  };
  const JsonRow json_rows[] = {{"json", ReportMode::kCounts},        {"JSON", ReportMode::kCounts},
                               {"counts,json", ReportMode::kCounts}, {"timing,json", ReportMode::kTiming},
                               {"json,timing", ReportMode::kTiming}};
  for (const JsonRow& row : json_rows) {
    CAPTURE(row.value);
    const Parsed parsed = parse("IDGPU_REPORT", row.value);
    CHECK(parsed.config.report == row.mode);
    CHECK(parsed.config.report_json);
    CHECK(parsed.warnings.empty());
  }
  for (const char* unknown : {"yes?", "json,json", "timing,counts", "timing,", ",json", "1,json", "jsonl"}) {
    CAPTURE(unknown);
    const Parsed parsed = parse("IDGPU_REPORT", unknown);
    CHECK(parsed.config.report == ReportMode::kOff);
    CHECK_FALSE(parsed.config.report_json);
    CHECK(parsed.warnings == std::vector<std::string>{std::string("idgpu: IDGPU_REPORT=") + unknown +
                                                      " is not one of 0, 1, counts, timing, json, timing,json; using 0"});
  }
}

TEST_CASE("IDGPU_REPORT_FILE", "[cpu][config]") {
  for (const char* path : {"report.txt", "/tmp/idgpu-%p.json", "100%%-%p", "a b/c"}) {
    CAPTURE(path);
    const Parsed parsed = parse("IDGPU_REPORT_FILE", path);
    CHECK(parsed.config.report_file == path);
    CHECK(parsed.warnings.empty());
    // Alone, it turns the report on; IDGPU_REPORT still says what the report holds, or that there is none.
    CHECK(parsed.config.report == ReportMode::kCounts);
    CHECK(parse({{"IDGPU_REPORT_FILE", path}, {"IDGPU_REPORT", ""}}).config.report == ReportMode::kCounts);
    CHECK(parse({{"IDGPU_REPORT_FILE", path}, {"IDGPU_REPORT", "timing"}}).config.report == ReportMode::kTiming);
    CHECK(parse({{"IDGPU_REPORT_FILE", path}, {"IDGPU_REPORT", "0"}}).config.report == ReportMode::kOff);
  }
  for (const char* bad : {"report-%d.txt", "trailing%", "%s"}) {
    CAPTURE(bad);
    const Parsed parsed = parse("IDGPU_REPORT_FILE", bad);
    CHECK(parsed.config.report_file.empty());
    CHECK(parsed.config.report == ReportMode::kOff);
    CHECK(parsed.warnings == std::vector<std::string>{std::string("idgpu: IDGPU_REPORT_FILE=") + bad +
                                                      " is not a path (%p: the process id, %%: a %); using stderr"});
  }
}

TEST_CASE("IDGPU_POLICY", "[cpu][config]") {
  CHECK(parse("IDGPU_POLICY", "vendor").config.initial_policy == Policy::kVendor);
  CHECK(parse("IDGPU_POLICY", "VENDOR").config.initial_policy == Policy::kVendor);
  CHECK(parse("IDGPU_POLICY", "native").config.initial_policy == Policy::kNative);
  CHECK(parse("IDGPU_POLICY", "Native").config.initial_policy == Policy::kNative);
  CHECK(parse("IDGPU_POLICY", "auto").config.initial_policy == Policy::kAuto);
  CHECK(parse("IDGPU_POLICY", "auto").warnings.empty());
  for (const char* unknown : {"natve", "fastest", "1"}) {
    CAPTURE(unknown);
    const Parsed parsed = parse("IDGPU_POLICY", unknown);
    CHECK(parsed.config.initial_policy == Policy::kAuto);
    CHECK(parsed.warnings ==
          std::vector<std::string>{std::string("idgpu: IDGPU_POLICY=") + unknown +
                                   " is not one of auto, vendor, native; using auto"});
  }
  CHECK(std::string(idgpu::to_string(Policy::kAuto)) == "auto");
  CHECK(std::string(idgpu::to_string(Policy::kVendor)) == "vendor");
  CHECK(std::string(idgpu::to_string(Policy::kNative)) == "native");
  CHECK(std::string(idgpu::to_string(static_cast<Policy>(9))) == "?");
}

TEST_CASE("on/off switches", "[cpu][config]") {
  struct Switch {
    const char* name;
    bool Config::*field;
    bool fallback;
  };
  const Switch switches[] = {
      {"IDGPU_SYNC_CHECK", &Config::sync_check, false},
      {"IDGPU_FFT_MEASURE", &Config::fft_measure, false},
      {"IDGPU_FFT_FUSED", &Config::fft_fused, true},
      {"IDGPU_FFT_CLUSTER_COLUMNS", &Config::fft_cluster_columns, true},
      {"IDGPU_FFT_PAIR_REAL_ROWS", &Config::fft_pair_real_rows, false},
      {"IDGPU_PIVOT_DOMINANT", &Config::pivot_dominant, true},
  };
  for (const Switch& variable : switches) {
    CAPTURE(variable.name);
    for (const char* on : {"1", "on", "ON", "yes", "true", "True"}) {
      CAPTURE(on);
      const Parsed parsed = parse(variable.name, on);
      CHECK(parsed.config.*variable.field);
      CHECK(parsed.warnings.empty());
    }
    for (const char* off : {"0", "off", "OFF", "no", "false", "False"}) {
      CAPTURE(off);
      const Parsed parsed = parse(variable.name, off);
      CHECK_FALSE(parsed.config.*variable.field);
      CHECK(parsed.warnings.empty());
    }
    for (const char* unknown : {"2", "enable", "-1"}) {
      CAPTURE(unknown);
      const Parsed parsed = parse(variable.name, unknown);
      CHECK(parsed.config.*variable.field == variable.fallback);
      CHECK(parsed.warnings == std::vector<std::string>{std::string("idgpu: ") + variable.name + "=" + unknown +
                                                        " is not one of 0, 1; using " +
                                                        (variable.fallback ? "1" : "0")});
    }
  }
  // One switch does not set another.
  CHECK_FALSE(parse("IDGPU_FFT_MEASURE", "1").config.sync_check);
}

TEST_CASE("IDGPU_VENDOR_CUFFT and IDGPU_VENDOR_CUSPARSE are taken verbatim", "[cpu][config]") {
  const Parsed parsed = parse({{"IDGPU_VENDOR_CUFFT", "/opt/a b/libcufft.so.12"}, {"IDGPU_VENDOR_CUSPARSE", "relative/x.so"}});
  CHECK(parsed.config.vendor_cufft == "/opt/a b/libcufft.so.12");
  CHECK(parsed.config.vendor_cusparse == "relative/x.so");
  CHECK(parsed.warnings.empty());
}

TEST_CASE("the policy can be changed at run time", "[cpu][config]") {
  const Policy initial = idgpu::policy();
  idgpu::set_policy(Policy::kNative);
  CHECK(idgpu::policy() == Policy::kNative);
  idgpu::set_policy(Policy::kVendor);
  CHECK(idgpu::policy() == Policy::kVendor);
  idgpu::set_policy(initial);
  CHECK(idgpu::policy() == initial);
}

TEST_CASE("IDGPU_TRIDIAG_SOLVER", "[cpu][config]") {
  struct Row {
    const char* value;
    TridiagSolver solver;
  };
  const Row rows[] = {
      {"", TridiagSolver::kAuto},
      {"auto", TridiagSolver::kAuto},           {"partition", TridiagSolver::kPartition},
      {"Partition", TridiagSolver::kPartition}, {"wang-mou", TridiagSolver::kWangMou},
      {"WANG-MOU", TridiagSolver::kWangMou},    {"pcr-thomas", TridiagSolver::kPcrThomas},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value);
    const Parsed parsed = parse("IDGPU_TRIDIAG_SOLVER", row.value);
    CHECK(parsed.config.tridiag_solver == row.solver);
    CHECK(parsed.warnings.empty());
  }
  for (const char* unknown : {"foo", "wangmou", "pcr", "thomas"}) {
    CAPTURE(unknown);
    const Parsed parsed = parse("IDGPU_TRIDIAG_SOLVER", unknown);
    CHECK(parsed.config.tridiag_solver == TridiagSolver::kAuto);
    CHECK(parsed.warnings == std::vector<std::string>{std::string("idgpu: IDGPU_TRIDIAG_SOLVER=") + unknown +
                                                      " is not one of auto, partition, wang-mou, pcr-thomas; "
                                                      "using auto"});
  }
}

TEST_CASE("the tuning aids' ranges", "[cpu][config]") {
  struct Row {
    const char* name;
    const char* value;
    long long expected;  // the field's value; the default where the value is refused
    bool accepted;
  };
  const auto field = [](const Config& config, const std::string& name) -> long long {
    if (name == "IDGPU_PARTITION_ROWS") return config.partition_rows;
    if (name == "IDGPU_PARTITION_CLUSTER") return config.partition_cluster;
    if (name == "IDGPU_PARTITION_TILE_CHUNKS") return config.partition_tile_chunks;
    if (name == "IDGPU_PARTITION_LANE_CHUNKS") return config.partition_lane_chunks;
    if (name == "IDGPU_PIVOT_BLOCK_ROWS") return config.pivot_block_rows;
    if (name == "IDGPU_PIVOT_SERIAL_ROWS") return config.pivot_serial_rows;
    if (name == "IDGPU_PIVOT_DOMINANT_ROWS") return config.pivot_dominant_rows;
    if (name == "IDGPU_PIVOT_REFINE") return config.pivot_refine;
    if (name == "IDGPU_PIVOT_ONE_BLOCK") return config.pivot_one_block;
    if (name == "IDGPU_FFT_FUSED_LAG") return config.fft_fused_lag;
    if (name == "IDGPU_FFT_COLUMN_LINES") return config.fft_column_lines;
    if (name == "IDGPU_FFT_THREAD_TRANSFORMS") return config.fft_thread_transforms;
    if (name == "IDGPU_FFT_WIDE_ELEMENTS") return config.fft_wide_elements;
    return -999;
  };
  const Row rows[] = {
      {"IDGPU_PARTITION_ROWS", "2", 2, true},
      {"IDGPU_PARTITION_ROWS", "4", 4, true},
      {"IDGPU_PARTITION_ROWS", "8", 8, true},
      {"IDGPU_PARTITION_ROWS", "16", 16, true},
      {"IDGPU_PARTITION_ROWS", "0", 0, false},
      {"IDGPU_PARTITION_ROWS", "1", 0, false},
      {"IDGPU_PARTITION_ROWS", "6", 0, false},
      {"IDGPU_PARTITION_ROWS", "32", 0, false},
      {"IDGPU_PARTITION_ROWS", "8x", 0, false},
      {"IDGPU_PARTITION_CLUSTER", "0", 0, true},
      {"IDGPU_PARTITION_CLUSTER", "3", 3, true},
      {"IDGPU_PARTITION_CLUSTER", "8", 8, true},
      {"IDGPU_PARTITION_CLUSTER", "9", -1, false},
      {"IDGPU_PARTITION_CLUSTER", "-1", -1, false},
      {"IDGPU_PARTITION_CLUSTER", "abc", -1, false},
      {"IDGPU_PARTITION_TILE_CHUNKS", "2", 2, true},
      {"IDGPU_PARTITION_TILE_CHUNKS", "64", 64, true},
      {"IDGPU_PARTITION_TILE_CHUNKS", "512", 512, true},
      {"IDGPU_PARTITION_TILE_CHUNKS", "1", 0, false},
      {"IDGPU_PARTITION_TILE_CHUNKS", "48", 0, false},
      {"IDGPU_PARTITION_TILE_CHUNKS", "1024", 0, false},
      {"IDGPU_PARTITION_LANE_CHUNKS", "1", 1, true},
      {"IDGPU_PARTITION_LANE_CHUNKS", "16", 16, true},
      {"IDGPU_PARTITION_LANE_CHUNKS", "0", 0, false},
      {"IDGPU_PARTITION_LANE_CHUNKS", "3", 0, false},
      {"IDGPU_PARTITION_LANE_CHUNKS", "32", 0, false},
      {"IDGPU_PIVOT_BLOCK_ROWS", "1", 1, true},
      {"IDGPU_PIVOT_BLOCK_ROWS", "4096", 4096, true},
      {"IDGPU_PIVOT_BLOCK_ROWS", "2147483647", 2147483647, true},
      {"IDGPU_PIVOT_BLOCK_ROWS", "0", 0, false},
      {"IDGPU_PIVOT_BLOCK_ROWS", "2147483648", 0, false},
      {"IDGPU_PIVOT_BLOCK_ROWS", "99999999999999999999999", 0, false},
      {"IDGPU_PIVOT_BLOCK_ROWS", " 12", 0, false},
      {"IDGPU_PIVOT_SERIAL_ROWS", "0", 0, true},
      {"IDGPU_PIVOT_SERIAL_ROWS", "64", 64, true},
      {"IDGPU_PIVOT_SERIAL_ROWS", "256", 256, true},
      {"IDGPU_PIVOT_SERIAL_ROWS", "257", -1, false},
      {"IDGPU_PIVOT_SERIAL_ROWS", "-1", -1, false},
      {"IDGPU_PIVOT_DOMINANT_ROWS", "16777216", 16777216, true},
      {"IDGPU_PIVOT_DOMINANT_ROWS", "0", 0, false},
      {"IDGPU_PIVOT_REFINE", "1", 1, true},
      {"IDGPU_PIVOT_REFINE", "2", 2, true},
      {"IDGPU_PIVOT_REFINE", "3", 1, false},
      {"IDGPU_PIVOT_REFINE", "off", 1, false},
      {"IDGPU_PIVOT_ONE_BLOCK", "auto", -1, true},
      {"IDGPU_PIVOT_ONE_BLOCK", "0", 0, true},
      {"IDGPU_PIVOT_ONE_BLOCK", "1", 1, true},
      {"IDGPU_PIVOT_ONE_BLOCK", "2", -1, false},
      {"IDGPU_PIVOT_ONE_BLOCK", "yes", -1, false},
      {"IDGPU_FFT_FUSED_LAG", "0", 0, true},
      {"IDGPU_FFT_FUSED_LAG", "5", 5, true},
      {"IDGPU_FFT_FUSED_LAG", "1073741824", 1073741824, true},
      {"IDGPU_FFT_FUSED_LAG", "1073741825", 0, false},
      {"IDGPU_FFT_FUSED_LAG", "-2", 0, false},
      {"IDGPU_FFT_COLUMN_LINES", "8", 8, true},
      {"IDGPU_FFT_COLUMN_LINES", "1024", 1024, true},
      {"IDGPU_FFT_COLUMN_LINES", "1025", 0, false},
      {"IDGPU_FFT_THREAD_TRANSFORMS", "0", 0, true},
      {"IDGPU_FFT_THREAD_TRANSFORMS", "128", 128, true},
      {"IDGPU_FFT_THREAD_TRANSFORMS", "256", 256, true},
      {"IDGPU_FFT_THREAD_TRANSFORMS", "48", 1, false},
      {"IDGPU_FFT_THREAD_TRANSFORMS", "16", 1, false},
      {"IDGPU_FFT_THREAD_TRANSFORMS", "512", 1, false},
      {"IDGPU_FFT_WIDE_ELEMENTS", "0", 0, true},
      {"IDGPU_FFT_WIDE_ELEMENTS", "8", 8, true},
      {"IDGPU_FFT_WIDE_ELEMENTS", "32", 32, true},
      {"IDGPU_FFT_WIDE_ELEMENTS", "64", 64, true},
      {"IDGPU_FFT_WIDE_ELEMENTS", "7", 24, false},
      {"IDGPU_FFT_WIDE_ELEMENTS", "65", 24, false},
      {"IDGPU_FFT_WIDE_ELEMENTS", "-1", 24, false},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name, row.value);
    const Parsed parsed = parse(row.name, row.value);
    CHECK(field(parsed.config, row.name) == row.expected);
    if (row.accepted) {
      CHECK(parsed.warnings.empty());
    } else {
      REQUIRE(parsed.warnings.size() == 1);
      CHECK(parsed.warnings[0].rfind(std::string("idgpu: ") + row.name + "=" + row.value + " is not ", 0) == 0);
    }
  }
  CHECK(parse("IDGPU_PARTITION_CLUSTER", "9").warnings ==
        std::vector<std::string>{"idgpu: IDGPU_PARTITION_CLUSTER=9 is not an integer in 0..8; using 8"});
  CHECK(parse("IDGPU_PARTITION_TILE_CHUNKS", "48").warnings ==
        std::vector<std::string>{
            "idgpu: IDGPU_PARTITION_TILE_CHUNKS=48 is not a power of two in 2..512; using the measured choice"});
  CHECK(parse("IDGPU_PARTITION_ROWS", "6").warnings ==
        std::vector<std::string>{"idgpu: IDGPU_PARTITION_ROWS=6 is not one of 2, 4, 8, 16; using the measured choice"});
}

TEST_CASE("IDGPU_FFT_RUNTIME_KERNELS and IDGPU_CACHE_DIR", "[cpu][config]") {
  CHECK(parse("IDGPU_FFT_RUNTIME_KERNELS", "off").config.fft_runtime_kernels == RuntimeKernels::kOff);
  CHECK(parse("IDGPU_FFT_RUNTIME_KERNELS", "async").config.fft_runtime_kernels == RuntimeKernels::kAsync);
  CHECK(parse("IDGPU_FFT_RUNTIME_KERNELS", "wait").config.fft_runtime_kernels == RuntimeKernels::kWait);
  const Parsed unknown = parse("IDGPU_FFT_RUNTIME_KERNELS", "sync");
  CHECK(unknown.config.fft_runtime_kernels == RuntimeKernels::kAsync);
  CHECK(unknown.warnings == std::vector<std::string>{
                                "idgpu: IDGPU_FFT_RUNTIME_KERNELS=sync is not one of off, async, wait; using async"});
  const Parsed dir = parse("IDGPU_CACHE_DIR", "/tmp/kernels dir");
  CHECK(dir.config.cache_dir == "/tmp/kernels dir");
  CHECK(dir.warnings.empty());
}

TEST_CASE("IDGPU_PARTITION_RESIDENT", "[cpu][config]") {
  CHECK(parse("IDGPU_PARTITION_RESIDENT", "1").config.partition_resident == PartitionResident::kOn);
  CHECK(parse("IDGPU_PARTITION_RESIDENT", "0").config.partition_resident == PartitionResident::kOff);
  CHECK(parse("IDGPU_PARTITION_RESIDENT", "off").config.partition_resident == PartitionResident::kOff);
  CHECK(parse("IDGPU_PARTITION_RESIDENT", "stream").config.partition_resident == PartitionResident::kStreamOnly);
  CHECK(parse("IDGPU_PARTITION_RESIDENT", "stream").warnings.empty());
  const Parsed unknown = parse("IDGPU_PARTITION_RESIDENT", "streamed");
  CHECK(unknown.config.partition_resident == PartitionResident::kOn);
  CHECK(unknown.warnings ==
        std::vector<std::string>{"idgpu: IDGPU_PARTITION_RESIDENT=streamed is not one of 0, 1, stream; using 1"});
}

TEST_CASE("IDGPU_PIVOT_REFINE=0 warns that results may be less accurate", "[cpu][config]") {
  const Parsed parsed = parse("IDGPU_PIVOT_REFINE", "0");
  CHECK(parsed.config.pivot_refine == 0);
  REQUIRE(parsed.warnings.size() == 1);
  CHECK(parsed.warnings[0].rfind("idgpu: IDGPU_PIVOT_REFINE=0 ", 0) == 0);
  CHECK(parsed.warnings[0].find("less accurate than the vendor's") != std::string::npos);
}

TEST_CASE("IDGPU_FAULT_INJECT", "[cpu][config]") {
  CHECK(parse("IDGPU_FAULT_INJECT", "off").config.fault_inject == FaultInject::kOff);
  CHECK(parse("IDGPU_FAULT_INJECT", "launch").config.fault_inject == FaultInject::kLaunch);
  CHECK(parse("IDGPU_FAULT_INJECT", "second-launch").config.fault_inject == FaultInject::kSecondLaunch);
  CHECK(parse("IDGPU_FAULT_INJECT", "Launch").warnings.empty());
  const Parsed unknown = parse("IDGPU_FAULT_INJECT", "1");
  CHECK(unknown.config.fault_inject == FaultInject::kOff);
  CHECK(unknown.warnings ==
        std::vector<std::string>{"idgpu: IDGPU_FAULT_INJECT=1 is not one of off, launch, second-launch; using off"});
}

TEST_CASE("IDGPU_OOC_DEVICE_BYTES", "[cpu][config]") {
  struct Row {
    const char* value;
    long long bytes;  // 0: refused
  };
  const Row rows[] = {
      {"1", 1},
      {"123456789", 123456789},
      {"4611686018427387904", 1LL << 62},
      {"512K", 512LL << 10},
      {"512k", 512LL << 10},
      {"64M", 64LL << 20},
      {"16G", 16LL << 30},
      {"16g", 16LL << 30},
      {"16GB", 16LL << 30},
      {"16GiB", 16LL << 30},
      {"2T", 2LL << 40},
      {"1000B", 1000},
      {"4194304T", 1LL << 62},
      {"0", 0},
      {"-1", 0},
      {"4611686018427387905", 0},
      {"4194305T", 0},
      {"1.5G", 0},
      {"G", 0},
      {"B", 0},
      {"16 G", 0},
      {" 16G", 0},
      {"16P", 0},
      {"16GG", 0},
      {"lots", 0},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value);
    const Parsed parsed = parse("IDGPU_OOC_DEVICE_BYTES", row.value);
    CHECK(parsed.config.ooc_device_bytes == row.bytes);
    CHECK(parsed.warnings.size() == (row.bytes == 0 ? 1u : 0u));
  }
  CHECK(parse("IDGPU_OOC_DEVICE_BYTES", "0").warnings ==
        std::vector<std::string>{"idgpu: IDGPU_OOC_DEVICE_BYTES=0 is not a byte count in 1..2^62 (suffix K, M, G or "
                                 "T: x 1024^k); using 80% of the free device memory"});
}

TEST_CASE("IDGPU_SCRATCH_KEEP: the byte count of IDGPU_OOC_DEVICE_BYTES, 0 allowed", "[cpu][config]") {
  CHECK(parse("IDGPU_SCRATCH_KEEP", "0").config.scratch_keep_bytes == 0);
  CHECK(parse("IDGPU_SCRATCH_KEEP", "0").warnings.empty());
  CHECK(parse("IDGPU_SCRATCH_KEEP", "2G").config.scratch_keep_bytes == 2LL << 30);
  CHECK(parse("IDGPU_SCRATCH_KEEP", "4611686018427387904").config.scratch_keep_bytes == 1LL << 62);
  for (const char* refused : {"-1", "4611686018427387905", "1.5G", "16P", "lots"}) {
    CAPTURE(refused);
    const Parsed parsed = parse("IDGPU_SCRATCH_KEEP", refused);
    CHECK(parsed.config.scratch_keep_bytes == -1);
    CHECK(parsed.warnings.size() == 1u);
  }
  CHECK(parse("IDGPU_SCRATCH_KEEP", "-1").warnings ==
        std::vector<std::string>{"idgpu: IDGPU_SCRATCH_KEEP=-1 is not a byte count in 0..2^62 (suffix K, M, G or "
                                 "T: x 1024^k); using 1/16 of the device memory"});
}

TEST_CASE("the scratch pool keeps IDGPU_SCRATCH_KEEP bytes, else 1/16 of the device memory", "[cpu][config]") {
  constexpr std::size_t kH100Bytes = 85520809984;  // what an H100 80GB reports
  CHECK(idgpu::scratch_keep_bytes(-1, kH100Bytes) == static_cast<long long>(kH100Bytes / 16));
  CHECK(idgpu::scratch_keep_bytes(-1, 0) == 0);  // no device memory known: keep nothing
  CHECK(idgpu::scratch_keep_bytes(0, kH100Bytes) == 0);
  CHECK(idgpu::scratch_keep_bytes(2LL << 30, kH100Bytes) == 2LL << 30);
  CHECK(idgpu::scratch_keep_bytes(1LL << 62, kH100Bytes) == 1LL << 62);
}

TEST_CASE("every variable warns once for an unknown value and keeps its default", "[cpu][config]") {
  std::map<std::string, std::string> environment;
  std::vector<std::string> checked;
  for (const char* name : idgpu::config_variable_names()) {
    if (is_path(name)) continue;  // any path is accepted
    environment[name] = "no-such-value";
    checked.push_back(name);
  }
  const Parsed parsed = parse(environment);
  check_defaults(parsed.config);
  REQUIRE(parsed.warnings.size() == checked.size());
  for (std::size_t index = 0; index < checked.size(); ++index) {
    const std::string& warning = parsed.warnings[index];
    CAPTURE(warning);
    CHECK(warning.rfind("idgpu: " + checked[index] + "=no-such-value is not ", 0) == 0);
    CHECK(warning.find("; using ") != std::string::npos);
    CHECK(warning.find('\n') == std::string::npos);
  }
}

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

bool is_name_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// The IDGPU_* names that follow each occurrence of `prefix` in `text` (`prefix` then optional
// spaces, an optional quote, the name).
void names_after(const std::string& text, const std::string& prefix, std::set<std::string>* names) {
  for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    std::size_t start = at + prefix.size();
    while (start < text.size() && (text[start] == ' ' || text[start] == '"')) ++start;
    if (text.compare(start, 6, "IDGPU_") != 0) continue;
    std::size_t end = start;
    while (end < text.size() && is_name_char(text[end])) ++end;
    names->insert(text.substr(start, end - start));
  }
}

// The names in the first column of README.md's "## Environment" table.
std::set<std::string> documented_names() {
  const std::string readme = read_text(std::filesystem::path(IDGPU_TEST_SOURCE_DIR) / "README.md");
  const std::size_t section = readme.find("\n## Environment\n");
  REQUIRE(section != std::string::npos);
  const std::size_t next = readme.find("\n## ", section + 1);
  std::istringstream lines(readme.substr(section, next == std::string::npos ? std::string::npos : next - section));
  std::set<std::string> names;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    names_after(line.substr(0, line.find('|', 1)), "`", &names);
  }
  return names;
}

}  // namespace

TEST_CASE("README.md documents every variable the sources read", "[cpu][config]") {
  const std::filesystem::path root = IDGPU_TEST_SOURCE_DIR;
  std::set<std::string> read_directly;  // getenv("IDGPU_...") anywhere
  std::set<std::string> listed;         // the rows of core/config_variables.h
  for (const char* directory : {"src", "shim", "perf"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / directory)) {
      if (!entry.is_regular_file()) continue;
      const std::string extension = entry.path().extension().string();
      if (extension != ".h" && extension != ".cpp" && extension != ".cu" && extension != ".cuh" &&
          extension != ".def" && extension != ".inc") {
        continue;
      }
      const std::string text = read_text(entry.path());
      names_after(text, "getenv(", &read_directly);
      if (entry.path().filename() == "config_variables.h") names_after(text, "X(", &listed);
    }
  }
  const std::set<std::string> documented = documented_names();
  // The Python module (python/idgpu) reads its own variables from os.environ.
  std::set<std::string> read_by_python;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "python")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    const std::string text = read_text(entry.path());
    names_after(text, "environ.get(", &read_by_python);
    names_after(text, "environ[", &read_by_python);
    names_after(text, "getenv(", &read_by_python);
  }
  for (const std::string& name : read_by_python) {
    CAPTURE(name);
    CHECK(documented.count(name) == 1);
  }
  const std::vector<const char*>& compiled = idgpu::config_variable_names();
  CHECK(listed == std::set<std::string>(compiled.begin(), compiled.end()));
  for (const std::string& name : listed) {
    CAPTURE(name);
    CHECK(documented.count(name) == 1);
  }
  for (const std::string& name : read_directly) {
    CAPTURE(name);
    CHECK(documented.count(name) == 1);
    // Read once, through the configuration object, never with getenv where it is used.
    CHECK(listed.count(name) == 1);
  }
  // And nothing documented that the library no longer reads.
  for (const std::string& name : documented) {
    CAPTURE(name);
    CHECK(listed.count(name) + read_directly.count(name) + read_by_python.count(name) > 0);
  }
}
