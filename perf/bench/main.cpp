// idgpu-bench: the vendor libraries and libidgpu side by side, in one process.
//
//   idgpu-bench [--quick | --full] [--filter SUBSTR]... [--csv FILE] [--runs N] ...
//
// See usage() for every option. Exit status: 0 when every case ran and both sides agreed,
// 1 when a case failed or the sides' outputs differ, 2 when there is no CUDA device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench.h"

namespace idgpu_bench {
namespace {

struct Cli {
  Options options;
  bool quick = false;
  bool full = false;
  bool list = false;
  bool show_libraries = false;
  std::vector<std::string> filters;
  std::string csv_path;
  std::string lib_path;
  std::string vendor_cufft;
  std::string vendor_cusparse;
  double check_rtol = -1;  // < 0: per part precision (kDefaultRtolF32 for f32/c32, kDefaultRtolF64 for f64/c64)
};

struct IdgpuVendorLibrary {
  idgpuVendorLibrary_t library;
  const char* name;
};

constexpr double kDefaultRtolF32 = 1e-4;
constexpr double kDefaultRtolF64 = 1e-10;

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: idgpu-bench [options]\n"
               "Times the vendor libraries (cuFFT, cuSPARSE gtsv) and libidgpu side by side in one process.\n"
               "\n"
               "Grid:\n"
               "  --quick                 a handful of cases, under a minute (the default)\n"
               "  --full                  the whole grid\n"
               "  --filter SUBSTR         only cases whose id (family/case) contains SUBSTR; repeatable;\n"
               "                          without --quick it selects from the full grid\n"
               "  --list                  print the selected cases and exit (needs no GPU)\n"
               "  --show-libraries        load both sides, print what each resolves to and exit (needs no GPU)\n"
               "Timing:\n"
               "  --runs N                timed runs per side, median reported (default 20)\n"
               "  --warmup N              untimed calls per side first (default 3, at least 2)\n"
               "  --seed N                seed of the random inputs (default 0x1d69)\n"
               "  --spin-us N             GPU busy-wait queued before each timed call (default 200)\n"
               "  --slow-ms X             a case whose second call takes longer runs --slow-runs (default 250)\n"
               "  --slow-runs N           runs of such a slow case (default 5)\n"
               "  --overhead-calls N      back-to-back calls per host-overhead sample (default 200)\n"
               "  --overhead-reps N       host-overhead samples per side (default 7)\n"
               "  --plan-times N          FFT cases: also time N plan create+destroy cycles per side and print\n"
               "                          the medians (default 0: not measured)\n"
               "  --no-check              do not compare the two sides' outputs\n"
               "  --check-rtol X          allowed max|a-b|/max|a| over real parts (default 1e-4 f32/c32,\n"
               "                          1e-10 f64/c64)\n"
               "Tridiagonal grid:\n"
               "  --interleaved-algos L   gtsvInterleavedBatch algorithms, e.g. 0,1,2 (default)\n"
               "  --interleaved-max-m N   largest m of interleaved cases (default 65536)\n"
               "  --interleaved-pivot-max-m N  largest m for algorithms 1 and 2 (default 4096)\n"
               "  --gtsv-unknowns N       unknowns per call of the batched full grid (default 2^24); other\n"
               "                          than the default, case names gain the batch (_bN)\n"
               "Libraries:\n"
               "  --lib PATH              libidgpu to load (default: beside this executable)\n"
               "  --vendor-cufft PATH     vendor cuFFT (default: %s by SONAME)\n"
               "  --vendor-cusparse PATH  vendor cuSPARSE (default: %s by SONAME)\n"
               "Output:\n"
               "  --csv FILE              every row as CSV\n"
               "Environment:\n"
               "  IDGPU_POLICY            the idgpu side's dispatch (auto, native, vendor; read by libidgpu at\n"
               "                          load, shown in the header); 2D/3D and real FFTs run natively under\n"
               "                          native only\n",
               IDGPU_BENCH_CUFFT_SONAME, IDGPU_BENCH_CUSPARSE_SONAME);
}

bool parse_long(const char* text, long long* value) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(text, &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *value = parsed;
  return true;
}

bool parse_double(const char* text, double* value) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(text, &end);
  if (errno != 0 || *end != '\0') return false;
  *value = parsed;
  return true;
}

// Returns false (after a message) on a bad command line.
bool parse_cli(int argc, char** argv, Cli* cli, bool* help) {
  Options& options = cli->options;
  for (int index = 1; index < argc; ++index) {
    const std::string arg = argv[index];
    auto value = [&]() -> const char* {
      if (index + 1 >= argc) return nullptr;
      return argv[++index];
    };
    auto int_option = [&](int minimum, int* target) {
      long long parsed = 0;
      if (!parse_long(value(), &parsed) || parsed < minimum || parsed > 1000000000) return false;
      *target = static_cast<int>(parsed);
      return true;
    };
    auto long_option = [&](long long minimum, long long* target) {
      long long parsed = 0;
      if (!parse_long(value(), &parsed) || parsed < minimum) return false;
      *target = parsed;
      return true;
    };
    auto double_option = [&](double* target) {
      double parsed = 0;
      if (!parse_double(value(), &parsed) || parsed < 0) return false;
      *target = parsed;
      return true;
    };
    auto string_option = [&](std::string* target) {
      const char* text = value();
      if (text == nullptr) return false;
      *target = text;
      return true;
    };
    bool ok = true;
    if (arg == "-h" || arg == "--help") {
      *help = true;
    } else if (arg == "--quick") {
      cli->quick = true;
    } else if (arg == "--full") {
      cli->full = true;
    } else if (arg == "--list") {
      cli->list = true;
    } else if (arg == "--show-libraries") {
      cli->show_libraries = true;
    } else if (arg == "--no-check") {
      options.check = false;
    } else if (arg == "--filter") {
      std::string filter;
      ok = string_option(&filter);
      if (ok) cli->filters.push_back(filter);
    } else if (arg == "--csv") {
      ok = string_option(&cli->csv_path);
    } else if (arg == "--lib") {
      ok = string_option(&cli->lib_path);
    } else if (arg == "--vendor-cufft") {
      ok = string_option(&cli->vendor_cufft);
    } else if (arg == "--vendor-cusparse") {
      ok = string_option(&cli->vendor_cusparse);
    } else if (arg == "--runs") {
      ok = int_option(1, &options.runs);
    } else if (arg == "--plan-times") {
      ok = int_option(0, &options.plan_times);
    } else if (arg == "--warmup") {
      ok = int_option(2, &options.warmup);
    } else if (arg == "--seed") {
      long long seed = 0;
      ok = long_option(0, &seed);
      options.seed = static_cast<std::uint64_t>(seed);
    } else if (arg == "--spin-us") {
      ok = int_option(0, &options.spin_us);
    } else if (arg == "--slow-ms") {
      ok = double_option(&options.slow_ms);
    } else if (arg == "--slow-runs") {
      ok = int_option(1, &options.slow_runs);
    } else if (arg == "--overhead-calls") {
      ok = int_option(1, &options.overhead_calls);
    } else if (arg == "--overhead-reps") {
      ok = int_option(1, &options.overhead_reps);
    } else if (arg == "--check-rtol") {
      ok = double_option(&cli->check_rtol);
    } else if (arg == "--interleaved-max-m") {
      ok = long_option(3, &options.interleaved_max_m);
    } else if (arg == "--interleaved-pivot-max-m") {
      ok = long_option(0, &options.interleaved_pivot_max_m);
    } else if (arg == "--gtsv-unknowns") {
      ok = long_option(1, &options.gtsv_unknowns);
    } else if (arg == "--interleaved-algos") {
      const char* text = value();
      ok = text != nullptr;
      options.interleaved_algos.clear();
      for (const char* cursor = text; ok && *cursor != '\0'; ++cursor) {
        if (*cursor == ',') continue;
        if (*cursor < '0' || *cursor > '2') {
          ok = false;
        } else {
          options.interleaved_algos.push_back(*cursor - '0');
        }
      }
    } else {
      std::fprintf(stderr, "idgpu-bench: unknown option %s (see --help)\n", arg.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "idgpu-bench: %s needs a valid value (see --help)\n", arg.c_str());
      return false;
    }
  }
  if (cli->quick && cli->full) {
    std::fprintf(stderr, "idgpu-bench: --quick and --full exclude each other\n");
    return false;
  }
  return true;
}

std::vector<CaseSpec> select_cases(const Cli& cli) {
  // --quick is the default; a filter alone selects from the full grid.
  const bool full = cli.full || (!cli.quick && !cli.filters.empty());
  std::vector<CaseSpec> all = full ? fft_full_cases() : fft_quick_cases();
  for (CaseSpec& spec : full ? gtsv_full_cases(cli.options) : gtsv_quick_cases(cli.options)) {
    all.push_back(std::move(spec));
  }
  if (cli.filters.empty()) return all;
  std::vector<CaseSpec> selected;
  for (CaseSpec& spec : all) {
    const std::string id = spec.id();
    for (const std::string& filter : cli.filters) {
      if (id.find(filter) != std::string::npos) {
        selected.push_back(std::move(spec));
        break;
      }
    }
  }
  return selected;
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

std::string number(double value, const char* format = "%.6g") {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

class CsvWriter {
 public:
  bool open(const std::string& path, const std::string& device) {
    device_ = device;
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) return false;
    std::fprintf(file_,
                 "family,case,params,vendor_ms,idgpu_ms,speedup,bytes,frac_copy_bw_vendor,frac_copy_bw_idgpu,device,"
                 "vendor_min_ms,idgpu_min_ms,runs,sets,max_rel_diff,identical,status\n");
    std::fflush(file_);
    return true;
  }
  ~CsvWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }

  // Written as each case ends, so a run cut short keeps what it measured.
  void row(const std::vector<std::string>& fields) {
    if (file_ == nullptr) return;
    std::string line;
    for (std::size_t index = 0; index < fields.size(); ++index) {
      line += (index > 0 ? "," : "") + csv_field(index == 9 ? device_ : fields[index]);
    }
    std::fprintf(file_, "%s\n", line.c_str());
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
  std::string device_;
};

struct Summary {
  int ok = 0;
  int failed = 0;
  int mismatched = 0;
  std::vector<std::string> failures;
  double log_speedup_sum[2] = {0, 0};  // fft, gtsv
  int speedup_count[2] = {0, 0};
};

void print_table_header() {
  std::printf("%-6s %-32s %11s %11s %8s %10s %7s %7s  %-12s %s\n", "family", "case", "vendor_ms", "idgpu_ms",
              "speedup", "MB", "v_%bw", "i_%bw", "check", "params");
}

// The dispatch report of the idgpu side, through idgpu's own API.
void print_idgpu_report(const Libraries& libraries) {
  std::printf("\n");
  std::fflush(stdout);
  if (libraries.idgpu_api.idgpuWriteReport == nullptr) {
    std::printf("(libidgpu has no idgpuWriteReport)\n");
    return;
  }
  libraries.idgpu_api.idgpuWriteReport(stdout);
  std::fflush(stdout);
}

// --show-libraries: the loading and symbol lookup of both sides, without touching the GPU.
int show_libraries(const Cli& cli) {
  Libraries libraries;
  std::string error;
  if (!load_libraries(cli.vendor_cufft, cli.vendor_cusparse, cli.lib_path, &libraries, &error)) {
    std::fprintf(stderr, "idgpu-bench: %s\n", error.c_str());
    return 1;
  }
  auto path = [](const LoadedLibrary& library) {
    return library.handle != nullptr ? library.path : "not loaded: " + library.error;
  };
  std::printf("vendor cuFFT:    %s\n", path(libraries.vendor_cufft).c_str());
  std::printf("vendor cuSPARSE: %s\n", path(libraries.vendor_cusparse).c_str());
  std::printf("idgpu:           %s (version %s)\n", libraries.idgpu.path.c_str(),
              libraries.idgpu_api.idgpuGetVersionString != nullptr ? libraries.idgpu_api.idgpuGetVersionString() : "?");
  for (const IdgpuVendorLibrary& entry : {IdgpuVendorLibrary{IDGPU_VENDOR_CUFFT, "cuFFT"},
                                          IdgpuVendorLibrary{IDGPU_VENDOR_CUSPARSE, "cuSPARSE"}}) {
    const char* forwarded = libraries.idgpu_api.idgpuGetVendorLibraryPath != nullptr
                                ? libraries.idgpu_api.idgpuGetVendorLibraryPath(entry.library)
                                : nullptr;
    std::printf("idgpu forwards %-8s to %s\n", entry.name, forwarded != nullptr ? forwarded : "(none)");
  }
  std::printf("vendor cufftPlanMany in %s\n",
              object_path_of(reinterpret_cast<const void*>(libraries.cufft[0].cufftPlanMany)).c_str());
  std::printf("idgpu  cufftPlanMany in %s\n",
              object_path_of(reinterpret_cast<const void*>(libraries.cufft[1].cufftPlanMany)).c_str());
  const bool fft = libraries.fft_unavailable.empty();
  const bool gtsv = libraries.gtsv_unavailable.empty();
  std::printf("FFT cases:         %s\n", fft ? "can run" : libraries.fft_unavailable.c_str());
  if (!libraries.fft_warning.empty()) std::printf("warning: %s\n", libraries.fft_warning.c_str());
  std::printf("tridiagonal cases: %s\n", gtsv ? "can run" : libraries.gtsv_unavailable.c_str());
  if (fft && gtsv && libraries.fft_warning.empty()) std::printf("both sides share the vendor instances\n");
  return fft && gtsv ? 0 : 1;
}

int run(const Cli& cli, std::vector<CaseSpec>& cases) {
  int device_count = 0;
  const cudaError_t probe = cudaGetDeviceCount(&device_count);
  if (probe != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "idgpu-bench: no CUDA device\n");
    if (probe != cudaSuccess) std::fprintf(stderr, "idgpu-bench: cudaGetDeviceCount: %s\n", cudaGetErrorString(probe));
    return 2;
  }
  if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && std::strstr(preload, "idgpu") != nullptr) {
    std::fprintf(stderr,
                 "idgpu-bench: LD_PRELOAD names idgpu (%s); run the benchmark directly, not under idgpu-run: it "
                 "loads both sides itself\n",
                 preload);
    return 1;
  }

  Libraries libraries;
  std::string error;
  if (!load_libraries(cli.vendor_cufft, cli.vendor_cusparse, cli.lib_path, &libraries, &error)) {
    std::fprintf(stderr, "idgpu-bench: %s\n", error.c_str());
    return 1;
  }

  try {
    BENCH_CUDA(cudaSetDevice(0));
    cudaDeviceProp properties{};
    BENCH_CUDA(cudaGetDeviceProperties(&properties, 0));
    int l2 = 0;
    BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    cudaStream_t stream = nullptr;
    BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    Environment env;
    env.options = &cli.options;
    env.libraries = &libraries;
    env.stream = stream;
    env.l2_bytes = static_cast<std::size_t>(l2);
    std::string gtsv_unavailable = libraries.gtsv_unavailable;
    const VendorSparseApi& sparse = libraries.vendor_sparse;
    if (gtsv_unavailable.empty()) {
      cusparseStatus_t status = sparse.cusparseCreate(&env.sparse);
      if (status == CUSPARSE_STATUS_SUCCESS) status = sparse.cusparseSetStream(env.sparse, stream);
      if (status != CUSPARSE_STATUS_SUCCESS) {
        gtsv_unavailable = std::string("vendor cusparseCreate/SetStream: ") + sparse.cusparseGetErrorString(status);
      }
    }

    std::size_t copy_bytes = 0;
    const double copy_bandwidth = measure_copy_bandwidth(stream, &copy_bytes);

    // The header: what was measured where.
    std::printf("idgpu-bench  device: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %.1f MiB)\n", properties.name,
                properties.major, properties.minor, properties.multiProcessorCount,
                static_cast<double>(properties.totalGlobalMem) / (1u << 30), l2 / 1048576.0);
    std::printf("device-to-device copy bandwidth: %.1f GB/s (read+write, median of 20 copies of %.0f MiB)\n",
                copy_bandwidth * 1e-9, static_cast<double>(copy_bytes) / 1048576.0);
    int cufft_version = 0;
    if (libraries.cufft[0].cufftGetVersion != nullptr) libraries.cufft[0].cufftGetVersion(&cufft_version);
    int cusparse_version = 0;
    if (env.sparse != nullptr) sparse.cusparseGetVersion(env.sparse, &cusparse_version);
    std::printf("vendor cuFFT:    %s (version %d)\n",
                libraries.vendor_cufft.handle != nullptr ? libraries.vendor_cufft.path.c_str() : "not loaded",
                cufft_version);
    std::printf("vendor cuSPARSE: %s (version %d)\n",
                libraries.vendor_cusparse.handle != nullptr ? libraries.vendor_cusparse.path.c_str() : "not loaded",
                cusparse_version);
    idgpuPolicy_t policy = IDGPU_POLICY_AUTO;
    if (libraries.idgpu_api.idgpuGetPolicy != nullptr) libraries.idgpu_api.idgpuGetPolicy(&policy);
    idgpuTridiagSolver_t solver = IDGPU_TRIDIAG_SOLVER_AUTO;
    if (libraries.idgpu_api.idgpuGetTridiagSolver != nullptr) libraries.idgpu_api.idgpuGetTridiagSolver(&solver);
    const char* solver_names[] = {"auto", "partition", "wang-mou", "pcr-thomas"};
    std::printf("idgpu:           %s (version %s, policy %s, gtsv2_nopivot solver %s)\n", libraries.idgpu.path.c_str(),
                libraries.idgpu_api.idgpuGetVersionString != nullptr ? libraries.idgpu_api.idgpuGetVersionString()
                                                                     : "?",
                policy == IDGPU_POLICY_VENDOR ? "vendor" : policy == IDGPU_POLICY_NATIVE ? "native" : "auto",
                solver >= 0 && solver < 4 ? solver_names[solver] : "?");
    std::printf("seed 0x%llx, %d runs (median), %d warm-up, rotation sets >= %.0fx L2, timed calls on a non-default "
                "stream\n",
                static_cast<unsigned long long>(cli.options.seed), cli.options.runs, cli.options.warmup,
                cli.options.l2_factor);
    if (!libraries.fft_unavailable.empty()) {
      std::printf("FFT cases cannot run: %s\n", libraries.fft_unavailable.c_str());
    }
    if (!libraries.fft_warning.empty()) std::printf("warning: %s\n", libraries.fft_warning.c_str());
    if (!gtsv_unavailable.empty()) std::printf("tridiagonal cases cannot run: %s\n", gtsv_unavailable.c_str());
    std::printf("speedup = vendor_ms / idgpu_ms; %%bw = bytes that must move / time, against the copy bandwidth\n\n");

    CsvWriter csv;
    if (!cli.csv_path.empty() && !csv.open(cli.csv_path, properties.name)) {
      std::fprintf(stderr, "idgpu-bench: cannot write %s: %s\n", cli.csv_path.c_str(), std::strerror(errno));
      return 1;
    }

    Summary summary;
    std::vector<std::string> overhead_lines;
    print_table_header();
    std::fflush(stdout);
    for (const CaseSpec& spec : cases) {
      const std::string& unavailable = spec.family == "fft" ? libraries.fft_unavailable : gtsv_unavailable;
      auto fail = [&](const std::string& why) {
        std::printf("%-6s %-32s FAILED: %s\n", spec.family.c_str(), spec.name.c_str(), why.c_str());
        std::fprintf(stderr, "idgpu-bench: case %s failed: %s\n", spec.id().c_str(), why.c_str());
        csv.row({spec.family, spec.name, spec.params, "", "", "", "", "", "", "", "", "", "", "", "", "",
                 "error: " + why});
        ++summary.failed;
        summary.failures.push_back(spec.id());
      };
      if (!unavailable.empty()) {
        fail(unavailable);
        continue;
      }
      try {
        std::unique_ptr<Case> bench_case = spec.make(env);
        bench_case->setup(env);
        const CaseResult result = measure_case(*bench_case, env);
        const double speedup = result.vendor_ms / result.idgpu_ms;
        const double frac_vendor = result.bytes / (result.vendor_ms * 1e-3) / copy_bandwidth;
        const double frac_idgpu = result.bytes / (result.idgpu_ms * 1e-3) / copy_bandwidth;
        const double rtol = cli.check_rtol >= 0 ? cli.check_rtol : result.f64 ? kDefaultRtolF64 : kDefaultRtolF32;
        std::string check = "-";
        std::string status = "ok";
        if (result.checked) {
          if (result.identical) {
            check = "identical";
          } else {
            check = number(result.max_rel_diff, "%.1e");
            if (!(result.max_rel_diff <= rtol)) {
              check += " BAD";
              status = "mismatch: max_rel_diff " + number(result.max_rel_diff) + " > " + number(rtol);
              ++summary.mismatched;
              summary.failures.push_back(spec.id() + " (outputs differ)");
            }
          }
        }
        std::printf("%-6s %-32s %11.4f %11.4f %7.3fx %10.1f %6.1f%% %6.1f%%  %-12s %s\n", spec.family.c_str(),
                    spec.name.c_str(), result.vendor_ms, result.idgpu_ms, speedup, result.bytes / 1e6,
                    100 * frac_vendor, 100 * frac_idgpu, check.c_str(), spec.params.c_str());
        csv.row({spec.family, spec.name, spec.params, number(result.vendor_ms), number(result.idgpu_ms),
                 number(speedup), number(result.bytes, "%.0f"), number(frac_vendor), number(frac_idgpu), "",
                 number(result.vendor_min_ms), number(result.idgpu_min_ms), std::to_string(result.runs),
                 std::to_string(result.sets), result.checked ? number(result.max_rel_diff) : "",
                 result.checked ? (result.identical ? "1" : "0") : "", status});
        const int family = spec.family == "fft" ? 0 : 1;
        if (speedup > 0 && std::isfinite(speedup)) {
          summary.log_speedup_sum[family] += std::log(speedup);
          ++summary.speedup_count[family];
        }
        ++summary.ok;

        OverheadResult overhead;
        if (spec.overhead) {
          try {
            overhead = measure_overhead(*bench_case, env);
          } catch (const std::exception& failure) {
            std::printf("       host overhead FAILED: %s\n", failure.what());
            std::fprintf(stderr, "idgpu-bench: overhead of %s failed: %s\n", spec.id().c_str(), failure.what());
            csv.row({"overhead", spec.id() + "/host", spec.params, "", "", "", "", "", "", "", "", "", "", "", "", "",
                     std::string("error: ") + failure.what()});
            ++summary.failed;
            summary.failures.push_back(spec.id() + " (host overhead)");
            overhead.ok = false;
          }
        }
        if (spec.overhead && overhead.ok) {
          char line[512];
          std::snprintf(line, sizeof(line), "%-40s %10.2f %10.2f %+9.2f %12.2f %12.2f", spec.id().c_str(),
                        overhead.vendor_host_us, overhead.idgpu_host_us,
                        overhead.idgpu_host_us - overhead.vendor_host_us, overhead.vendor_pipelined_us,
                        overhead.idgpu_pipelined_us);
          overhead_lines.push_back(line);
          std::printf("       host per call: vendor %.2f us, idgpu %.2f us (%+.2f us); back-to-back GPU per call: "
                      "vendor %.2f us, idgpu %.2f us\n",
                      overhead.vendor_host_us, overhead.idgpu_host_us, overhead.idgpu_host_us - overhead.vendor_host_us,
                      overhead.vendor_pipelined_us, overhead.idgpu_pipelined_us);
          const std::string params = std::to_string(overhead.calls) + " back-to-back calls, median of " +
                                     std::to_string(overhead.reps) + " samples; " + spec.params;
          csv.row({"overhead", spec.id() + "/host", "host time per call; " + params,
                   number(overhead.vendor_host_us * 1e-3), number(overhead.idgpu_host_us * 1e-3),
                   number(overhead.vendor_host_us / overhead.idgpu_host_us), "", "", "", "", "", "",
                   std::to_string(overhead.reps), "", "", "", "ok"});
          csv.row({"overhead", spec.id() + "/pipelined", "GPU time per call; " + params,
                   number(overhead.vendor_pipelined_us * 1e-3), number(overhead.idgpu_pipelined_us * 1e-3),
                   number(overhead.vendor_pipelined_us / overhead.idgpu_pipelined_us), "", "", "", "", "", "",
                   std::to_string(overhead.reps), "", "", "", "ok"});
        }
      } catch (const std::exception& failure) {
        fail(failure.what());
      }
      std::fflush(stdout);
      // Leave the next case a clean slate: finish queued work and clear a non-sticky error.
      cudaStreamSynchronize(stream);
      cudaGetLastError();
    }

    std::printf("\n%d cases: %d ran, %d failed, %d with differing outputs\n", static_cast<int>(cases.size()),
                summary.ok, summary.failed, summary.mismatched);
    const char* family_names[] = {"fft", "gtsv"};
    for (int family = 0; family < 2; ++family) {
      if (summary.speedup_count[family] == 0) continue;
      std::printf("geometric-mean speedup %-4s: %.3fx over %d cases\n", family_names[family],
                  std::exp(summary.log_speedup_sum[family] / summary.speedup_count[family]),
                  summary.speedup_count[family]);
    }
    if (!overhead_lines.empty()) {
      std::printf("\nhost time per call (us, %d back-to-back calls, median of %d samples) and GPU time per call of the "
                  "same sequence:\n",
                  cli.options.overhead_calls, cli.options.overhead_reps);
      std::printf("%-40s %10s %10s %9s %12s %12s\n", "case", "vendor", "idgpu", "idgpu-v", "vendor_gpu", "idgpu_gpu");
      for (const std::string& line : overhead_lines) std::printf("%s\n", line.c_str());
    }
    for (const std::string& failure : summary.failures) std::printf("FAILED: %s\n", failure.c_str());
    print_idgpu_report(libraries);

    if (env.sparse != nullptr) sparse.cusparseDestroy(env.sparse);
    cudaStreamDestroy(stream);
    return summary.failed > 0 || summary.mismatched > 0 ? 1 : 0;
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "idgpu-bench: %s\n", failure.what());
    print_idgpu_report(libraries);
    return 1;
  }
}

}  // namespace
}  // namespace idgpu_bench

int main(int argc, char** argv) {
  using namespace idgpu_bench;
  Cli cli;
  bool help = false;
  if (!parse_cli(argc, argv, &cli, &help)) return 1;
  if (help) {
    usage(stdout);
    return 0;
  }
  if (cli.show_libraries) return show_libraries(cli);
  std::vector<CaseSpec> cases = select_cases(cli);
  if (cli.list) {
    for (const CaseSpec& spec : cases) {
      std::printf("%-44s %s%s\n", spec.id().c_str(), spec.params.c_str(), spec.overhead ? " (+ host overhead)" : "");
    }
    return 0;
  }
  if (cases.empty()) {
    std::fprintf(stderr, "idgpu-bench: no case matches the filter (see --list)\n");
    return 1;
  }
  return run(cli, cases);
}
