// What idgpu-bench writes besides its table: the run's header (device, driver, runtime and library
// versions, copy bandwidth), every row as CSV and as JSON, and the progress line.
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench.h"

namespace idgpu_bench {

// What was measured where: printed above the table, a JSON document's "header", CSV columns.
struct RunHeader {
  bool has_device = false;  // false under --list (nothing touched the GPU)
  std::string device;       // cudaDeviceProp::name
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
  double memory_gib = 0;
  double l2_mib = 0;
  int driver_version = 0;   // cudaDriverGetVersion: 1000 major + 10 minor; 0 without a driver
  int runtime_version = 0;  // cudaRuntimeGetVersion, the same encoding
  bool has_libraries = false;
  std::string cufft_path;  // the vendor libraries as loaded; empty when not
  int cufft_version = 0;   // cufftGetVersion: 1000 major + 100 minor + patch
  std::string cusparse_path;
  int cusparse_version = 0;  // cusparseGetVersion, the same encoding
  std::string idgpu_path;
  std::string idgpu_version;
  std::string policy;          // the idgpu side's dispatch: auto, native, vendor
  std::string tridiag_solver;  // its gtsv2_nopivot solver
  double copy_bandwidth = 0;   // bytes per second, read + write (0: not measured)
  std::size_t copy_bytes = 0;
  // The bus, between pinned host memory and the device, measured where the selection has ooc
  // cases (0: not measured): bytes per second of H2D alone, D2H alone, and both directions at
  // once (2 x bytes / time), copies of bus_bytes, the median of bus_copies.
  double bus_host_to_device = 0;
  double bus_device_to_host = 0;
  double bus_both = 0;
  std::size_t bus_bytes = 0;
  int bus_copies = 0;
};

// 13000 -> "13.0" (CUDA driver and runtime); "" for 0.
std::string cuda_version_text(int version);
// 12600 -> "12.6.0" (cuFFT, cuSPARSE); "" for 0.
std::string library_version_text(int version);

// The header lines above the table.
void print_header(std::FILE* out, const RunHeader& header);

// One result line (a case, a failure, or a host-overhead measurement); absent numbers are empty
// CSV fields and JSON nulls.
struct Row {
  std::string family;
  std::string name;
  std::string params;
  std::optional<double> vendor_ms;
  std::optional<double> idgpu_ms;
  std::optional<double> speedup;
  std::optional<double> bytes;
  std::optional<double> frac_copy_bw_vendor;
  std::optional<double> frac_copy_bw_idgpu;
  std::optional<double> vendor_min_ms;
  std::optional<double> idgpu_min_ms;
  std::optional<int> runs;
  std::optional<int> sets;
  std::optional<double> max_rel_diff;
  std::optional<bool> identical;
  std::string status;
  // The ooc family (ooc.h), which has one side: its exec time is idgpu_ms (median) and
  // idgpu_min_ms, the bytes of one round trip over the bus `bytes`; vendor_ms, speedup and the
  // copy-bandwidth fractions stay empty.
  std::optional<int> round_trips;  // the plan's schedule
  std::optional<long long> chunks;
  std::optional<long long> budget_bytes;  // deviceBytes given to the plan (0: the library's default)
  std::string memory;                     // the host arrays': pinned or pageable
  std::optional<double> bus_ms;           // one round trip of `bytes` over the bus, copies alone
  std::optional<double> frac_round_trip_bound;  // bus_ms / idgpu_ms
  std::optional<double> in_core_ms;             // the same problem in core on device data (Poisson)
};

// Every row as CSV, written as each case ends so that a run cut short keeps what it measured.
// The columns of earlier versions keep their places; the run's versions follow as columns of
// every row, so concatenated files keep each row's provenance. The columns, in order:
//   family, case, params, vendor_ms, idgpu_ms, speedup, bytes, frac_copy_bw_vendor,
//   frac_copy_bw_idgpu, device, vendor_min_ms, idgpu_min_ms, runs, sets, max_rel_diff, identical,
//   status; the run's: copy_bw_gbs, driver, runtime, cufft, cusparse, idgpu, policy, bus_h2d_gbs,
//   bus_d2h_gbs, bus_both_gbs (the bus, empty unless the run has ooc cases); the ooc family's own
//   (empty in the other families' rows): round_trips, chunks, budget_bytes, memory, bus_ms,
//   frac_round_trip_bound, in_core_ms.
// An ooc row (one side, no vendor) fills family, case, params, idgpu_ms (the exec's median),
// idgpu_min_ms, bytes (one round trip: the exec's input and output), device, runs, status and its
// own columns: the plan's round trips and chunks, its device budget, the host memory (pinned or
// pageable), bus_ms (the same bytes copied H2D and D2H at once, from and to pinned memory),
// frac_round_trip_bound = bus_ms / idgpu_ms, and in_core_ms (Poisson: idgpuPoissonExec on device
// data, for context).
class CsvWriter {
 public:
  CsvWriter() = default;
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;
  ~CsvWriter();

  bool open(const std::string& path, const RunHeader& header);
  void row(const Row& row);

 private:
  std::FILE* file_ = nullptr;
  std::string device_;
  std::vector<std::string> run_fields_;  // the header's columns, the same in every row
};

// The selection a run works through, as the JSON document lists it.
struct ListedCase {
  std::string id;
  std::string params;
  bool overhead = false;
};

// The whole run as one JSON document: the header, the options, the selected cases, every row
// and the summary. A file is rewritten after each case (with "complete": false until the end), so
// a run cut short still leaves a valid document; stdout ("-") gets it once, at the end.
class JsonReport {
 public:
  JsonReport(std::string path, std::vector<std::string> command, const Options& options, double check_rtol);

  bool to_stdout() const { return path_ == "-"; }
  void set_header(const RunHeader& header) { header_ = header; }
  void set_cases(std::vector<ListedCase> cases) { cases_ = std::move(cases); }
  void add_row(const Row& row);
  // Rewrites a file (not stdout). Returns false with errno set when it cannot be written.
  bool save_partial();
  // The document of --list: the cases, nothing run ("summary": null).
  bool save_listing() { return write(true, "null"); }
  // The final document, with the summary and the exit status.
  bool save_final(int ok, int failed, int mismatched, const std::vector<std::pair<std::string, double>>& geomeans,
                  int exit_status);

 private:
  bool write(bool complete, const std::string& summary);

  std::string path_;
  std::vector<std::string> command_;
  std::string started_utc_;
  std::string options_json_;
  RunHeader header_;
  std::vector<ListedCase> cases_;
  std::vector<std::string> rows_json_;
};

// "[12/180] fft/c2c_f32_n4096" on stderr before each case: on a terminal one line rewritten in
// place (the next output overwrites it), elsewhere (--progress) one line per case.
class Progress {
 public:
  Progress(bool enabled, int total);
  void begin(int index, const std::string& id);
  void end();

 private:
  bool enabled_;
  bool terminal_;
  int total_;
};

}  // namespace idgpu_bench
