#include "report.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <ctime>
#include <type_traits>
#include <utility>

namespace idgpu_bench {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Measurements with six significant digits (CSV and JSON alike); bytes as whole numbers.
std::string csv_number(const std::optional<double>& value, const char* pattern = "%.6g") {
  return value ? format(pattern, *value) : std::string();
}

std::string json_string(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        quoted += "\\\"";
        break;
      case '\\':
        quoted += "\\\\";
        break;
      case '\n':
        quoted += "\\n";
        break;
      case '\r':
        quoted += "\\r";
        break;
      case '\t':
        quoted += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          quoted += escaped;
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

// JSON has no NaN or infinity: those are null.
std::string json_number(double value, const char* pattern = "%.6g") {
  return std::isfinite(value) ? format(pattern, value) : "null";
}

template <class T>
std::string json_optional(const std::optional<T>& value, const char* pattern = "%.6g") {
  if (!value) return "null";
  if constexpr (std::is_same_v<T, bool>) {
    return *value ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(*value);
  } else {
    return json_number(*value, pattern);
  }
}

std::string json_text_or_null(const std::string& text) { return text.empty() ? "null" : json_string(text); }

// Members of one object, written on one line ("a": 1, "b": 2) or one per line.
class JsonObject {
 public:
  JsonObject& add(const std::string& key, const std::string& json_value) {
    members_.emplace_back(key, json_value);
    return *this;
  }
  std::string inline_text() const {
    std::string text = "{";
    for (std::size_t index = 0; index < members_.size(); ++index) {
      text += (index > 0 ? ", " : "") + json_string(members_[index].first) + ": " + members_[index].second;
    }
    return text + "}";
  }
  std::string block_text(const std::string& indent) const {
    std::string text = "{\n";
    for (std::size_t index = 0; index < members_.size(); ++index) {
      text += indent + "  " + json_string(members_[index].first) + ": " + members_[index].second +
              (index + 1 < members_.size() ? ",\n" : "\n");
    }
    return text + indent + "}";
  }

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

std::string json_array(const std::vector<std::string>& elements, const std::string& indent) {
  if (elements.empty()) return "[]";
  std::string text = "[\n";
  for (std::size_t index = 0; index < elements.size(); ++index) {
    text += indent + "  " + elements[index] + (index + 1 < elements.size() ? ",\n" : "\n");
  }
  return text + indent + "]";
}

std::string header_json(const RunHeader& header) {
  JsonObject device;
  if (header.has_device) {
    device.add("name", json_string(header.device))
        .add("compute_capability", json_string(std::to_string(header.sm_major) + "." + std::to_string(header.sm_minor)))
        .add("multiprocessors", std::to_string(header.multiprocessors))
        .add("memory_gib", json_number(header.memory_gib, "%.2f"))
        .add("l2_mib", json_number(header.l2_mib, "%.2f"));
  }
  auto library = [](const std::string& path, int version) {
    return JsonObject()
        .add("path", json_text_or_null(path))
        .add("version", json_text_or_null(library_version_text(version)))
        .add("version_number", version != 0 ? std::to_string(version) : "null")
        .inline_text();
  };
  JsonObject idgpu;
  idgpu.add("path", json_text_or_null(header.idgpu_path))
      .add("version", json_text_or_null(header.idgpu_version))
      .add("policy", json_text_or_null(header.policy))
      .add("gtsv2_nopivot_solver", json_text_or_null(header.tridiag_solver));
  JsonObject object;
  object.add("device", header.has_device ? device.block_text("    ") : "null")
      .add("driver_version", json_text_or_null(cuda_version_text(header.driver_version)))
      .add("runtime_version", json_text_or_null(cuda_version_text(header.runtime_version)))
      .add("vendor_cufft", header.has_libraries ? library(header.cufft_path, header.cufft_version) : "null")
      .add("vendor_cusparse", header.has_libraries ? library(header.cusparse_path, header.cusparse_version) : "null")
      .add("idgpu", header.has_libraries ? idgpu.inline_text() : "null")
      .add("copy_bandwidth_gbs", header.copy_bandwidth > 0 ? json_number(header.copy_bandwidth * 1e-9, "%.1f") : "null")
      .add("copy_bytes", header.copy_bytes > 0 ? std::to_string(header.copy_bytes) : "null");
  JsonObject bus;
  bus.add("h2d_gbs", json_number(header.bus_host_to_device * 1e-9, "%.2f"))
      .add("d2h_gbs", json_number(header.bus_device_to_host * 1e-9, "%.2f"))
      .add("both_gbs", json_number(header.bus_both * 1e-9, "%.2f"))
      .add("bytes", std::to_string(header.bus_bytes))
      .add("copies", std::to_string(header.bus_copies));
  object.add("bus", header.bus_both > 0 ? bus.inline_text() : "null");
  return object.block_text("  ");
}

std::string options_json(const Options& options, double check_rtol) {
  std::vector<std::string> algos;
  for (const int algo : options.interleaved_algos) algos.push_back(std::to_string(algo));
  std::string algo_list;
  for (const std::string& algo : algos) algo_list += (algo_list.empty() ? "" : ", ") + algo;
  return JsonObject()
      .add("runs", std::to_string(options.runs))
      .add("warmup", std::to_string(options.warmup))
      .add("seed", std::to_string(options.seed))
      .add("spin_us", std::to_string(options.spin_us))
      .add("slow_ms", json_number(options.slow_ms))
      .add("slow_runs", std::to_string(options.slow_runs))
      .add("overhead_calls", std::to_string(options.overhead_calls))
      .add("overhead_reps", std::to_string(options.overhead_reps))
      .add("plan_times", std::to_string(options.plan_times))
      .add("check", options.check ? "true" : "false")
      .add("check_rtol", check_rtol >= 0 ? json_number(check_rtol) : "null")
      .add("interleaved_algos", "[" + algo_list + "]")
      .add("interleaved_max_m", std::to_string(options.interleaved_max_m))
      .add("interleaved_pivot_max_m", std::to_string(options.interleaved_pivot_max_m))
      .add("gtsv_unknowns", std::to_string(options.gtsv_unknowns))
      .block_text("  ");
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

}  // namespace

std::string cuda_version_text(int version) {
  if (version <= 0) return {};
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string library_version_text(int version) {
  if (version <= 0) return {};
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 100) + "." +
         std::to_string(version % 100);
}

void print_header(std::FILE* out, const RunHeader& header) {
  if (header.has_device) {
    std::fprintf(out, "idgpu-bench  device: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %.1f MiB)\n", header.device.c_str(),
                 header.sm_major, header.sm_minor, header.multiprocessors, header.memory_gib, header.l2_mib);
  }
  std::fprintf(out, "CUDA driver %s, runtime %s\n",
               header.driver_version > 0 ? cuda_version_text(header.driver_version).c_str() : "(none)",
               cuda_version_text(header.runtime_version).c_str());
  if (header.copy_bandwidth > 0) {
    std::fprintf(out, "device-to-device copy bandwidth: %.1f GB/s (read+write, median of 20 copies of %.0f MiB)\n",
                 header.copy_bandwidth * 1e-9, static_cast<double>(header.copy_bytes) / 1048576.0);
  }
  if (header.bus_both > 0) {
    std::fprintf(out,
                 "bus (pinned host memory, copies of %.0f MiB, median of %d): H2D %.1f GB/s, D2H %.1f GB/s, both at "
                 "once %.1f GB/s (H2D + D2H of the same bytes on two streams)\n",
                 static_cast<double>(header.bus_bytes) / 1048576.0, header.bus_copies,
                 header.bus_host_to_device * 1e-9, header.bus_device_to_host * 1e-9, header.bus_both * 1e-9);
  }
  if (!header.has_libraries) return;
  std::fprintf(out, "vendor cuFFT:    %s (version %s)\n",
               header.cufft_path.empty() ? "not loaded" : header.cufft_path.c_str(),
               header.cufft_version > 0 ? library_version_text(header.cufft_version).c_str() : "?");
  std::fprintf(out, "vendor cuSPARSE: %s (version %s)\n",
               header.cusparse_path.empty() ? "not loaded" : header.cusparse_path.c_str(),
               header.cusparse_version > 0 ? library_version_text(header.cusparse_version).c_str() : "?");
  std::fprintf(out, "idgpu:           %s (version %s, policy %s, gtsv2_nopivot solver %s)\n", header.idgpu_path.c_str(),
               header.idgpu_version.c_str(), header.policy.c_str(), header.tridiag_solver.c_str());
}

CsvWriter::~CsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

bool CsvWriter::open(const std::string& path, const RunHeader& header) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) return false;
  run_fields_ = {header.copy_bandwidth > 0 ? format("%.1f", header.copy_bandwidth * 1e-9) : "",
                 cuda_version_text(header.driver_version),
                 cuda_version_text(header.runtime_version),
                 library_version_text(header.cufft_version),
                 library_version_text(header.cusparse_version),
                 header.idgpu_version,
                 header.policy,
                 header.bus_both > 0 ? format("%.2f", header.bus_host_to_device * 1e-9) : "",
                 header.bus_both > 0 ? format("%.2f", header.bus_device_to_host * 1e-9) : "",
                 header.bus_both > 0 ? format("%.2f", header.bus_both * 1e-9) : ""};
  device_ = header.device;
  std::fprintf(file_,
               "family,case,params,vendor_ms,idgpu_ms,speedup,bytes,frac_copy_bw_vendor,frac_copy_bw_idgpu,device,"
               "vendor_min_ms,idgpu_min_ms,runs,sets,max_rel_diff,identical,status,"
               "copy_bw_gbs,driver,runtime,cufft,cusparse,idgpu,policy,bus_h2d_gbs,bus_d2h_gbs,bus_both_gbs,"
               "round_trips,chunks,budget_bytes,memory,bus_ms,frac_round_trip_bound,in_core_ms\n");
  std::fflush(file_);
  return true;
}

void CsvWriter::row(const Row& row) {
  if (file_ == nullptr) return;
  std::vector<std::string> fields = {row.family,
                                     row.name,
                                     row.params,
                                     csv_number(row.vendor_ms),
                                     csv_number(row.idgpu_ms),
                                     csv_number(row.speedup),
                                     csv_number(row.bytes, "%.0f"),
                                     csv_number(row.frac_copy_bw_vendor),
                                     csv_number(row.frac_copy_bw_idgpu),
                                     device_,
                                     csv_number(row.vendor_min_ms),
                                     csv_number(row.idgpu_min_ms),
                                     row.runs ? std::to_string(*row.runs) : "",
                                     row.sets ? std::to_string(*row.sets) : "",
                                     csv_number(row.max_rel_diff),
                                     row.identical ? (*row.identical ? "1" : "0") : "",
                                     row.status};
  fields.insert(fields.end(), run_fields_.begin(), run_fields_.end());
  // The ooc family's own columns.
  fields.push_back(row.round_trips ? std::to_string(*row.round_trips) : "");
  fields.push_back(row.chunks ? std::to_string(*row.chunks) : "");
  fields.push_back(row.budget_bytes ? std::to_string(*row.budget_bytes) : "");
  fields.push_back(row.memory);
  fields.push_back(csv_number(row.bus_ms));
  fields.push_back(csv_number(row.frac_round_trip_bound));
  fields.push_back(csv_number(row.in_core_ms));
  std::string line;
  for (std::size_t index = 0; index < fields.size(); ++index) line += (index > 0 ? "," : "") + csv_field(fields[index]);
  std::fprintf(file_, "%s\n", line.c_str());
  std::fflush(file_);
}

JsonReport::JsonReport(std::string path, std::vector<std::string> command, const Options& options, double check_rtol)
    : path_(std::move(path)),
      command_(std::move(command)),
      started_utc_(utc_now()),
      options_json_(options_json(options, check_rtol)) {}

void JsonReport::add_row(const Row& row) {
  rows_json_.push_back(JsonObject()
                           .add("family", json_string(row.family))
                           .add("case", json_string(row.name))
                           .add("params", json_string(row.params))
                           .add("vendor_ms", json_optional(row.vendor_ms))
                           .add("idgpu_ms", json_optional(row.idgpu_ms))
                           .add("speedup", json_optional(row.speedup))
                           .add("bytes", json_optional(row.bytes, "%.0f"))
                           .add("frac_copy_bw_vendor", json_optional(row.frac_copy_bw_vendor))
                           .add("frac_copy_bw_idgpu", json_optional(row.frac_copy_bw_idgpu))
                           .add("vendor_min_ms", json_optional(row.vendor_min_ms))
                           .add("idgpu_min_ms", json_optional(row.idgpu_min_ms))
                           .add("runs", json_optional(row.runs))
                           .add("sets", json_optional(row.sets))
                           .add("max_rel_diff", json_optional(row.max_rel_diff))
                           .add("identical", json_optional(row.identical))
                           .add("status", json_string(row.status))
                           .add("round_trips", json_optional(row.round_trips))
                           .add("chunks", json_optional(row.chunks))
                           .add("budget_bytes", json_optional(row.budget_bytes))
                           .add("memory", json_text_or_null(row.memory))
                           .add("bus_ms", json_optional(row.bus_ms))
                           .add("frac_round_trip_bound", json_optional(row.frac_round_trip_bound))
                           .add("in_core_ms", json_optional(row.in_core_ms))
                           .inline_text());
}

bool JsonReport::save_partial() { return to_stdout() || write(false, "null"); }

bool JsonReport::save_final(int ok, int failed, int mismatched,
                            const std::vector<std::pair<std::string, double>>& geomeans, int exit_status) {
  JsonObject geomean;
  for (const auto& [family, value] : geomeans) geomean.add(family, json_number(value));
  const std::string summary = JsonObject()
                                  .add("cases", std::to_string(cases_.size()))
                                  .add("ran", std::to_string(ok))
                                  .add("failed", std::to_string(failed))
                                  .add("mismatched", std::to_string(mismatched))
                                  .add("geomean_speedup", geomean.inline_text())
                                  .add("exit_status", std::to_string(exit_status))
                                  .block_text("  ");
  return write(true, summary);
}

bool JsonReport::write(bool complete, const std::string& summary) {
  std::vector<std::string> command;
  for (const std::string& word : command_) command.push_back(json_string(word));
  std::string command_list;
  for (const std::string& word : command) command_list += (command_list.empty() ? "" : ", ") + word;
  std::vector<std::string> cases;
  for (const ListedCase& listed : cases_) {
    cases.push_back(JsonObject()
                        .add("id", json_string(listed.id))
                        .add("params", json_string(listed.params))
                        .add("overhead", listed.overhead ? "true" : "false")
                        .inline_text());
  }
  const std::string document = JsonObject()
                                   .add("tool", json_string("idgpu-bench"))
                                   .add("format_version", "1")
                                   .add("command", "[" + command_list + "]")
                                   .add("started_utc", json_string(started_utc_))
                                   .add("complete", complete ? "true" : "false")
                                   .add("header", header_json(header_))
                                   .add("options", options_json_)
                                   .add("cases", json_array(cases, "  "))
                                   .add("rows", json_array(rows_json_, "  "))
                                   .add("summary", summary)
                                   .block_text("") +
                               "\n";
  if (to_stdout()) {
    std::fwrite(document.data(), 1, document.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::FILE* file = std::fopen(path_.c_str(), "w");
  if (file == nullptr) return false;
  const bool written = std::fwrite(document.data(), 1, document.size(), file) == document.size();
  const int saved_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written) errno = saved_errno;
  return written && closed;
}

Progress::Progress(bool enabled, int total)
    : enabled_(enabled || isatty(STDERR_FILENO) == 1), terminal_(isatty(STDERR_FILENO) == 1), total_(total) {}

void Progress::begin(int index, const std::string& id) {
  if (!enabled_) return;
  std::fflush(stdout);
  if (terminal_) {
    // Cleared to the end of the line, the cursor back at its start: whatever is written next
    // (the case's row, the next progress line) replaces it.
    std::fprintf(stderr, "\033[K[%d/%d] %s\r", index, total_, id.c_str());
  } else {
    std::fprintf(stderr, "[%d/%d] %s\n", index, total_, id.c_str());
  }
  std::fflush(stderr);
}

void Progress::end() {
  if (enabled_ && terminal_) std::fprintf(stderr, "\033[K");
}

}  // namespace idgpu_bench
