// src/core/config.cpp parse_config: every environment variable's accepted spellings and defaults.
#include <catch2/catch.hpp>

#include <string>

#include "core/config.h"

using idgpu::Config;
using idgpu::LogLevel;
using idgpu::Policy;
using idgpu::ReportMode;
using idgpu::parse_config;

namespace {

Config parse_log(const char* value) { return parse_config(value, nullptr, nullptr, nullptr, nullptr, nullptr); }
Config parse_report(const char* value) { return parse_config(nullptr, value, nullptr, nullptr, nullptr, nullptr); }
Config parse_policy(const char* value) { return parse_config(nullptr, nullptr, value, nullptr, nullptr, nullptr); }
Config parse_sync(const char* value) { return parse_config(nullptr, nullptr, nullptr, value, nullptr, nullptr); }
Config parse_measure(const char* value) {
  return parse_config(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, value);
}

}  // namespace

TEST_CASE("an empty environment gives the defaults", "[cpu][config]") {
  const Config config = parse_config(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  CHECK(config.log_level == LogLevel::kError);
  CHECK(config.report == ReportMode::kOff);
  CHECK(config.initial_policy == Policy::kAuto);
  CHECK_FALSE(config.sync_check);
  CHECK_FALSE(config.fft_measure);
  CHECK(config.vendor_cufft.empty());
  CHECK(config.vendor_cusparse.empty());
  const Config empty_strings = parse_config("", "", "", "", "", "");
  CHECK(empty_strings.log_level == LogLevel::kError);
  CHECK(empty_strings.report == ReportMode::kOff);
  CHECK(empty_strings.initial_policy == Policy::kAuto);
  CHECK_FALSE(empty_strings.sync_check);
  CHECK(empty_strings.vendor_cufft.empty());
}

TEST_CASE("IDGPU_LOG", "[cpu][config]") {
  struct Row {
    const char* value;
    LogLevel level;
  };
  const Row rows[] = {
      {"off", LogLevel::kOff},     {"OFF", LogLevel::kOff},       {"0", LogLevel::kOff},
      {"none", LogLevel::kOff},    {"error", LogLevel::kError},   {"Error", LogLevel::kError},
      {"warn", LogLevel::kWarn},   {"warning", LogLevel::kWarn},  {"info", LogLevel::kInfo},
      {"1", LogLevel::kInfo},      {"debug", LogLevel::kDebug},   {"DEBUG", LogLevel::kDebug},
      {"trace", LogLevel::kTrace}, {"verbose", LogLevel::kError}, {"2", LogLevel::kError},
      {" debug", LogLevel::kError},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value);
    CHECK(parse_log(row.value).log_level == row.level);
  }
}

TEST_CASE("IDGPU_REPORT", "[cpu][config]") {
  struct Row {
    const char* value;
    ReportMode mode;
  };
  const Row rows[] = {
      {"0", ReportMode::kOff},         {"off", ReportMode::kOff},       {"OFF", ReportMode::kOff},
      {"1", ReportMode::kCounts},      {"yes", ReportMode::kCounts},    {"counts", ReportMode::kCounts},
      {"timing", ReportMode::kTiming}, {"TIMING", ReportMode::kTiming}, {"time", ReportMode::kTiming},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value);
    CHECK(parse_report(row.value).report == row.mode);
  }
}

TEST_CASE("IDGPU_POLICY", "[cpu][config]") {
  CHECK(parse_policy("vendor").initial_policy == Policy::kVendor);
  CHECK(parse_policy("VENDOR").initial_policy == Policy::kVendor);
  CHECK(parse_policy("native").initial_policy == Policy::kNative);
  CHECK(parse_policy("Native").initial_policy == Policy::kNative);
  CHECK(parse_policy("auto").initial_policy == Policy::kAuto);
  CHECK(parse_policy("fastest").initial_policy == Policy::kAuto);
  CHECK(parse_policy("1").initial_policy == Policy::kAuto);
  CHECK(std::string(idgpu::to_string(Policy::kAuto)) == "auto");
  CHECK(std::string(idgpu::to_string(Policy::kVendor)) == "vendor");
  CHECK(std::string(idgpu::to_string(Policy::kNative)) == "native");
  CHECK(std::string(idgpu::to_string(static_cast<Policy>(9))) == "?");
}

TEST_CASE("IDGPU_SYNC_CHECK", "[cpu][config]") {
  for (const char* on : {"1", "on", "yes", "true", "2"}) {
    CAPTURE(on);
    CHECK(parse_sync(on).sync_check);
  }
  for (const char* off : {"0", "off", "OFF", "false", "False", ""}) {
    CAPTURE(off);
    CHECK_FALSE(parse_sync(off).sync_check);
  }
}

TEST_CASE("IDGPU_FFT_MEASURE", "[cpu][config]") {
  for (const char* on : {"1", "on", "yes", "true"}) {
    CAPTURE(on);
    CHECK(parse_measure(on).fft_measure);
    CHECK_FALSE(parse_measure(on).sync_check);
  }
  for (const char* off : {"0", "off", "false", ""}) {
    CAPTURE(off);
    CHECK_FALSE(parse_measure(off).fft_measure);
  }
}

TEST_CASE("IDGPU_VENDOR_CUFFT and IDGPU_VENDOR_CUSPARSE are taken verbatim", "[cpu][config]") {
  const Config config = parse_config(nullptr, nullptr, nullptr, nullptr, "/opt/a b/libcufft.so.12", "relative/x.so");
  CHECK(config.vendor_cufft == "/opt/a b/libcufft.so.12");
  CHECK(config.vendor_cusparse == "relative/x.so");
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
  using idgpu::TridiagSolver;
  struct Row {
    const char* value;
    TridiagSolver solver;
  };
  const Row rows[] = {
      {nullptr, TridiagSolver::kAuto},          {"", TridiagSolver::kAuto},
      {"auto", TridiagSolver::kAuto},           {"partition", TridiagSolver::kPartition},
      {"Partition", TridiagSolver::kPartition}, {"wang-mou", TridiagSolver::kWangMou},
      {"WANG-MOU", TridiagSolver::kWangMou},    {"pcr-thomas", TridiagSolver::kPcrThomas},
      {"wangmou", TridiagSolver::kAuto},        {"pcr", TridiagSolver::kAuto},
      {"thomas", TridiagSolver::kAuto},
  };
  for (const Row& row : rows) {
    CAPTURE(row.value == nullptr ? "(unset)" : row.value);
    const Config config = parse_config(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, row.value);
    CHECK(config.tridiag_solver == row.solver);
  }
}
