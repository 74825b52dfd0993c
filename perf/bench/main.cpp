// idgpu-bench: the vendor libraries and libidgpu side by side, in one process.
//
//   idgpu-bench [--quick | --full] [--fft SPEC]... [--gtsv SPEC]... [--poisson SPEC]...
//               [--ooc SPEC]... [--filter SUBSTR]... [--csv FILE] [--json FILE] [--runs N] ...
//
// Three two-sided case families: fft (cuFFT plans on both sides), gtsv (cuSPARSE's tridiagonal
// solvers on both sides) and poisson (idgpu's FFT Poisson solver, idgpuPoisson*, against the same
// solve written with cuFFT and cuSPARSE: poisson_cases.cpp), e.g.
//   --poisson periodic,n=256x256x256,precision=s   (n = the solver's nx x ny x nz, x first; or 256^3)
//   --poisson dirichlet,n=512x512x128,precision=d  (z boundary periodic, neumann or dirichlet)
// And one with idgpu's side only, ooc (ooc.h, ooc_cases.cpp): the out-of-core FFTs (idgpuOoc*)
// and Poisson solve (idgpuOocPoisson*) of host data, whose reference is the bus: the time one
// round trip of the data takes over it, measured in the same run (the fraction of that bound an
// exec reaches is the row's figure), e.g.
//   --ooc c2c,n=256^3                   (in place, a budget of a quarter of the array)
//   --ooc r2c,n=4096,batch=8192,chunks=16,memory=pageable
//   --ooc poisson,n=256^3,z=neumann,precision=d
// The user-given ooc cases are the only ones (no grid has them); the bus bandwidths (H2D, D2H,
// both at once) are measured and printed once, where the selection has one.
//
// See --help (cli.cpp) for every option. Exit status: 0 when every case ran and both sides
// agreed, 1 when a case failed or the sides' outputs differ, 2 on a usage error or when there is
// no CUDA device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench.h"
#include "cli.h"
#include "ooc.h"
#include "report.h"

namespace idgpu_bench {
namespace {

struct IdgpuVendorLibrary {
  idgpuVendorLibrary_t library;
  const char* name;
};

constexpr double kDefaultRtolF32 = 1e-4;
constexpr double kDefaultRtolF64 = 1e-10;

std::string number(double value, const char* format = "%.6g") {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

// The versions and paths of both sides, from the loaded libraries alone (no GPU needed).
void describe_libraries(const Libraries& libraries, RunHeader* header) {
  header->has_libraries = true;
  if (libraries.vendor_cufft.handle != nullptr) {
    header->cufft_path = libraries.vendor_cufft.path;
    if (libraries.cufft[0].cufftGetVersion != nullptr) libraries.cufft[0].cufftGetVersion(&header->cufft_version);
  }
  const VendorSparseApi& sparse = libraries.vendor_sparse;
  if (libraries.vendor_cusparse.handle != nullptr) {
    header->cusparse_path = libraries.vendor_cusparse.path;
    int major = 0;
    int minor = 0;
    int patch = 0;
    if (sparse.cusparseGetProperty != nullptr &&
        sparse.cusparseGetProperty(MAJOR_VERSION, &major) == CUSPARSE_STATUS_SUCCESS &&
        sparse.cusparseGetProperty(MINOR_VERSION, &minor) == CUSPARSE_STATUS_SUCCESS &&
        sparse.cusparseGetProperty(PATCH_LEVEL, &patch) == CUSPARSE_STATUS_SUCCESS) {
      header->cusparse_version = 1000 * major + 100 * minor + patch;
    }
  }
  const IdgpuApi& idgpu = libraries.idgpu_api;
  header->idgpu_path = libraries.idgpu.path;
  header->idgpu_version = idgpu.idgpuGetVersionString != nullptr ? idgpu.idgpuGetVersionString() : "?";
  idgpuPolicy_t policy = IDGPU_POLICY_AUTO;
  if (idgpu.idgpuGetPolicy != nullptr) idgpu.idgpuGetPolicy(&policy);
  header->policy = policy == IDGPU_POLICY_VENDOR ? "vendor" : policy == IDGPU_POLICY_NATIVE ? "native" : "auto";
  idgpuTridiagSolver_t solver = IDGPU_TRIDIAG_SOLVER_AUTO;
  if (idgpu.idgpuGetTridiagSolver != nullptr) idgpu.idgpuGetTridiagSolver(&solver);
  const char* solver_names[] = {"auto", "partition", "wang-mou", "pcr-thomas"};
  header->tridiag_solver = solver >= 0 && solver < 4 ? solver_names[solver] : "?";
}

// The CUDA driver and runtime versions; both calls work without a device.
void describe_cuda(RunHeader* header) {
  if (cudaDriverGetVersion(&header->driver_version) != cudaSuccess) header->driver_version = 0;
  if (cudaRuntimeGetVersion(&header->runtime_version) != cudaSuccess) header->runtime_version = 0;
  cudaGetLastError();
}

void print_table_header(std::FILE* out) {
  std::fprintf(out, "%-7s %-32s %11s %11s %8s %10s %7s %7s  %-12s %s\n", "family", "case", "vendor_ms", "idgpu_ms",
               "speedup", "MB", "v_%bw", "i_%bw", "check", "params");
}

// The ooc rows' table: the exec's median, the bus's time for one round trip of the same bytes,
// their ratio (the fraction of that bound reached), the bytes, the plan's schedule and budget.
void print_ooc_table_header(std::FILE* out) {
  std::fprintf(out, "%-7s %-32s %11s %11s %7s %10s %5s %7s %10s %-8s %s\n", "family", "case", "exec_ms", "bus_ms",
               "bound", "MB", "trips", "chunks", "budget_MiB", "memory", "params");
}

void print_ooc_row(std::FILE* out, const CaseSpec& spec, const OocResult& result) {
  std::fprintf(out, "%-7s %-32s %11.3f %11.3f %6.1f%% %10.1f %5d %7lld %10.1f %-8s %s\n", spec.family.c_str(),
               spec.name.c_str(), result.exec_ms, result.bus_ms, 100 * result.bound_fraction(), result.bytes / 1e6,
               result.round_trips, result.chunks, static_cast<double>(result.budget_bytes) / 1048576.0,
               result.pinned ? "pinned" : "pageable", spec.params.c_str());
  if (result.in_core_ms) {
    std::fprintf(out, "        in core (idgpuPoissonExec on device data, no bus): %.3f ms\n", *result.in_core_ms);
  } else if (!result.in_core_note.empty()) {
    std::fprintf(out, "        in core: not measured (%s)\n", result.in_core_note.c_str());
  }
}

Row ooc_row(const CaseSpec& spec, const OocResult& result) {
  Row row;
  row.family = spec.family;
  row.name = spec.name;
  row.params = spec.params;
  row.idgpu_ms = result.exec_ms;
  row.idgpu_min_ms = result.exec_min_ms;
  row.bytes = result.bytes;
  row.runs = result.runs;
  row.status = "ok";
  row.round_trips = result.round_trips;
  row.chunks = result.chunks;
  row.budget_bytes = result.budget_bytes;
  row.memory = result.pinned ? "pinned" : "pageable";
  row.bus_ms = result.bus_ms;
  row.frac_round_trip_bound = result.bound_fraction();
  row.in_core_ms = result.in_core_ms;
  return row;
}

// The target for an out-of-core exec: this fraction of one round trip's bound.
constexpr double kOocBoundTarget = 0.8;

struct OocSummary {
  int count = 0;
  double log_sum = 0;
  double lowest = INFINITY;
  double highest = 0;

  void add(double fraction) {
    if (!(fraction > 0) || !std::isfinite(fraction)) return;
    ++count;
    log_sum += std::log(fraction);
    lowest = std::min(lowest, fraction);
    highest = std::max(highest, fraction);
  }
  double geomean() const { return std::exp(log_sum / count); }
};

// The dispatch report of the idgpu side, through idgpu's own API.
void print_idgpu_report(std::FILE* out, const Libraries& libraries) {
  std::fprintf(out, "\n");
  std::fflush(out);
  if (libraries.idgpu_api.idgpuWriteReport == nullptr) {
    std::fprintf(out, "(libidgpu has no idgpuWriteReport)\n");
    return;
  }
  libraries.idgpu_api.idgpuWriteReport(out);
  std::fflush(out);
}

// --show-libraries: the loading and symbol lookup of both sides, without touching the GPU.
int show_libraries(const Cli& cli) {
  Libraries libraries;
  std::string error;
  if (!load_libraries(cli.vendor_cufft, cli.vendor_cusparse, cli.lib_path, &libraries, &error)) {
    std::fprintf(stderr, "idgpu-bench: %s\n", error.c_str());
    return kExitFailed;
  }
  RunHeader header;
  describe_cuda(&header);
  describe_libraries(libraries, &header);
  auto path = [](const LoadedLibrary& library) {
    return library.handle != nullptr ? library.path : "not loaded: " + library.error;
  };
  auto version = [](int value) { return value > 0 ? " (version " + library_version_text(value) + ")" : std::string(); };
  std::printf("CUDA driver %s, runtime %s\n",
              header.driver_version > 0 ? cuda_version_text(header.driver_version).c_str() : "(none)",
              cuda_version_text(header.runtime_version).c_str());
  std::printf("vendor cuFFT:    %s%s\n", path(libraries.vendor_cufft).c_str(), version(header.cufft_version).c_str());
  std::printf("vendor cuSPARSE: %s%s\n", path(libraries.vendor_cusparse).c_str(),
              version(header.cusparse_version).c_str());
  std::printf("idgpu:           %s (version %s, policy %s)\n", header.idgpu_path.c_str(), header.idgpu_version.c_str(),
              header.policy.c_str());
  for (const IdgpuVendorLibrary& entry :
       {IdgpuVendorLibrary{IDGPU_VENDOR_CUFFT, "cuFFT"}, IdgpuVendorLibrary{IDGPU_VENDOR_CUSPARSE, "cuSPARSE"}}) {
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
  const bool poisson = libraries.poisson_unavailable.empty();
  // The periodic ones need cuFFT only; Neumann and Dirichlet z the vendor cuSPARSE handle too.
  std::printf("Poisson cases:     %s\n", poisson ? (gtsv ? "can run" : "periodic z only (tridiagonal cases cannot run)")
                                                 : libraries.poisson_unavailable.c_str());
  // The out-of-core cases need libidgpu only; the real transforms' calls may be missing where the
  // complex ones are there.
  const std::string& ooc_fft = libraries.ooc_fft_unavailable;
  const std::string& ooc_real = libraries.ooc_real_unavailable;
  const std::string& ooc_poisson = libraries.ooc_poisson_unavailable;
  std::printf("ooc FFT cases:     %s\n",
              !ooc_fft.empty()    ? ooc_fft.c_str()
              : ooc_real.empty() ? "can run"
                                 : ("c2c only (r2c, c2r: " + ooc_real + ")").c_str());
  std::printf("ooc Poisson cases: %s\n", ooc_poisson.empty() ? "can run" : ooc_poisson.c_str());
  const bool ooc = ooc_fft.empty() && ooc_real.empty() && ooc_poisson.empty();
  if (fft && gtsv && libraries.fft_warning.empty()) std::printf("both sides share the vendor instances\n");
  return fft && gtsv && poisson && ooc ? kExitOk : kExitFailed;
}

std::vector<ListedCase> listed(const std::vector<CaseSpec>& cases) {
  std::vector<ListedCase> list;
  for (const CaseSpec& spec : cases) list.push_back({spec.id(), spec.params, spec.overhead});
  return list;
}

// --list: the selection, as text or (with --json) as a JSON document whose header holds what is
// known without a GPU (driver, runtime and, where they load, the libraries).
int list_cases(const Cli& cli, const std::vector<CaseSpec>& cases) {
  if (cli.json_path != "-") {
    for (const CaseSpec& spec : cases) {
      std::printf("%-44s %s%s\n", spec.id().c_str(), spec.params.c_str(), spec.overhead ? " (+ host overhead)" : "");
    }
  }
  if (cli.json_path.empty()) return kExitOk;
  RunHeader header;
  describe_cuda(&header);
  Libraries libraries;
  std::string error;
  if (load_libraries(cli.vendor_cufft, cli.vendor_cusparse, cli.lib_path, &libraries, &error)) {
    describe_libraries(libraries, &header);
  }
  JsonReport json(cli.json_path, cli.command, cli.options, cli.check_rtol);
  json.set_header(header);
  json.set_cases(listed(cases));
  if (!json.save_listing()) {
    std::fprintf(stderr, "idgpu-bench: cannot write %s: %s\n", cli.json_path.c_str(), std::strerror(errno));
    return kExitFailed;
  }
  return kExitOk;
}

// The case families, as the summary's geometric means name them.
constexpr const char* kFamilies[] = {"fft", "gtsv", "poisson"};

int family_index(const std::string& family) {
  for (int index = 0; index < 3; ++index) {
    if (family == kFamilies[index]) return index;
  }
  return 0;
}

struct Summary {
  int ok = 0;
  int failed = 0;
  int mismatched = 0;
  std::vector<std::string> failures;
  double log_speedup_sum[3] = {0, 0, 0};  // kFamilies
  int speedup_count[3] = {0, 0, 0};
};

int run(const Cli& cli, std::vector<CaseSpec>& cases) {
  // With the JSON document on stdout, the human-readable report goes to stderr.
  std::FILE* const out = cli.json_path == "-" ? stderr : stdout;
  int device_count = 0;
  const cudaError_t probe = cudaGetDeviceCount(&device_count);
  if (probe != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "idgpu-bench: no CUDA device\n");
    if (probe != cudaSuccess) std::fprintf(stderr, "idgpu-bench: cudaGetDeviceCount: %s\n", cudaGetErrorString(probe));
    return kExitUsage;
  }
  if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && std::strstr(preload, "idgpu") != nullptr) {
    std::fprintf(stderr,
                 "idgpu-bench: LD_PRELOAD names idgpu (%s); run the benchmark directly, not under idgpu-run: it "
                 "loads both sides itself\n",
                 preload);
    return kExitFailed;
  }

  Libraries libraries;
  std::string error;
  if (!load_libraries(cli.vendor_cufft, cli.vendor_cusparse, cli.lib_path, &libraries, &error)) {
    std::fprintf(stderr, "idgpu-bench: %s\n", error.c_str());
    return kExitFailed;
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
    env.text_out = out;
    std::string gtsv_unavailable = libraries.gtsv_unavailable;
    const VendorSparseApi& sparse = libraries.vendor_sparse;
    if (gtsv_unavailable.empty()) {
      cusparseStatus_t status = sparse.cusparseCreate(&env.sparse);
      if (status == CUSPARSE_STATUS_SUCCESS) status = sparse.cusparseSetStream(env.sparse, stream);
      if (status != CUSPARSE_STATUS_SUCCESS) {
        gtsv_unavailable = std::string("vendor cusparseCreate/SetStream: ") + sparse.cusparseGetErrorString(status);
      }
    }

    // The header: what was measured where.
    RunHeader header;
    header.has_device = true;
    header.device = properties.name;
    header.sm_major = properties.major;
    header.sm_minor = properties.minor;
    header.multiprocessors = properties.multiProcessorCount;
    header.memory_gib = static_cast<double>(properties.totalGlobalMem) / (1u << 30);
    header.l2_mib = l2 / 1048576.0;
    describe_cuda(&header);
    describe_libraries(libraries, &header);
    header.copy_bandwidth = measure_copy_bandwidth(stream, &header.copy_bytes);
    const double copy_bandwidth = header.copy_bandwidth;
    // The bus, once, where an ooc case will need its times (pinned buffers of up to 256 MiB each
    // way, and as much device memory).
    std::unique_ptr<BusProbe> bus;
    std::string bus_unavailable;
    if (std::any_of(cases.begin(), cases.end(), [](const CaseSpec& spec) { return spec.family == "ooc"; })) {
      try {
        constexpr std::size_t kMiB = std::size_t(1) << 20;
        std::size_t free_bytes = 0;
        std::size_t total_bytes = 0;
        BENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        const std::size_t bytes = std::max(16 * kMiB, std::min(256 * kMiB, free_bytes / 8) / kMiB * kMiB);
        bus = std::make_unique<BusProbe>(bytes);
        const BusBandwidth bandwidth = bus->measure();
        header.bus_host_to_device = bandwidth.host_to_device;
        header.bus_device_to_host = bandwidth.device_to_host;
        header.bus_both = bandwidth.both;
        header.bus_bytes = bandwidth.bytes;
        header.bus_copies = bandwidth.copies;
        env.bus = bus.get();
      } catch (const BenchError& failure) {
        bus.reset();
        bus_unavailable = std::string("the bus could not be measured: ") + failure.what();
      }
    }
    print_header(out, header);
    std::fprintf(out,
                 "seed 0x%llx, %d runs (median), %d warm-up, rotation sets >= %.0fx L2, timed calls on a non-default "
                 "stream\n",
                 static_cast<unsigned long long>(cli.options.seed), cli.options.runs, cli.options.warmup,
                 cli.options.l2_factor);
    if (!libraries.fft_unavailable.empty()) {
      std::fprintf(out, "FFT cases cannot run: %s\n", libraries.fft_unavailable.c_str());
    }
    if (!libraries.fft_warning.empty()) std::fprintf(out, "warning: %s\n", libraries.fft_warning.c_str());
    if (!gtsv_unavailable.empty()) std::fprintf(out, "tridiagonal cases cannot run: %s\n", gtsv_unavailable.c_str());
    if (!bus_unavailable.empty()) std::fprintf(out, "out-of-core cases cannot run: %s\n", bus_unavailable.c_str());
    std::fprintf(out,
                 "speedup = vendor_ms / idgpu_ms; %%bw = bytes that must move / time, against the copy bandwidth\n\n");

    CsvWriter csv;
    if (!cli.csv_path.empty() && !csv.open(cli.csv_path, header)) {
      std::fprintf(stderr, "idgpu-bench: cannot write %s: %s\n", cli.csv_path.c_str(), std::strerror(errno));
      return kExitFailed;
    }
    std::unique_ptr<JsonReport> json;
    if (!cli.json_path.empty()) {
      json = std::make_unique<JsonReport>(cli.json_path, cli.command, cli.options, cli.check_rtol);
      json->set_header(header);
      json->set_cases(listed(cases));
      if (!json->save_partial()) {
        std::fprintf(stderr, "idgpu-bench: cannot write %s: %s\n", cli.json_path.c_str(), std::strerror(errno));
        return kExitFailed;
      }
    }
    auto record = [&](const Row& row) {
      csv.row(row);
      if (json) json->add_row(row);
    };

    Summary summary;
    OocSummary ooc_summary;
    std::vector<std::string> overhead_lines;
    Progress progress(cli.progress, static_cast<int>(cases.size()));
    std::fflush(out);
    for (std::size_t index = 0; index < cases.size(); ++index) {
      const CaseSpec& spec = cases[index];
      progress.begin(static_cast<int>(index) + 1, spec.id());
      const std::string unavailable = spec.unavailable              ? spec.unavailable(libraries)
                                      : spec.family == "fft"       ? libraries.fft_unavailable
                                      : spec.family == "poisson"   ? libraries.poisson_unavailable
                                                                   : gtsv_unavailable;
      auto fail = [&](const std::string& why) {
        std::fprintf(out, "%-7s %-32s FAILED: %s\n", spec.family.c_str(), spec.name.c_str(), why.c_str());
        std::fflush(out);
        std::fprintf(stderr, "idgpu-bench: case %s failed: %s\n", spec.id().c_str(), why.c_str());
        Row row;
        row.family = spec.family;
        row.name = spec.name;
        row.params = spec.params;
        row.status = "error: " + why;
        record(row);
        ++summary.failed;
        summary.failures.push_back(spec.id());
      };
      // The ooc rows have columns of their own (one side, the bus as the reference): a table
      // header wherever the kind of row changes.
      const bool ooc_table = static_cast<bool>(spec.make_ooc);
      if (index == 0 || ooc_table != static_cast<bool>(cases[index - 1].make_ooc)) {
        if (index > 0) std::fprintf(out, "\n");
        if (ooc_table) {
          print_ooc_table_header(out);
        } else {
          print_table_header(out);
        }
      }
      if (!unavailable.empty() || (spec.make_ooc && !bus_unavailable.empty())) {
        fail(!unavailable.empty() ? unavailable : bus_unavailable);
        if (json) json->save_partial();
        continue;
      }
      if (spec.make_ooc) {
        try {
          std::unique_ptr<OocCase> ooc_case = spec.make_ooc(env);
          const OocResult result = run_ooc_case(*ooc_case, env);
          print_ooc_row(out, spec, result);
          record(ooc_row(spec, result));
          ooc_summary.add(result.bound_fraction());
          ++summary.ok;
        } catch (const std::exception& failure) {
          fail(failure.what());
        }
        std::fflush(out);
        if (json) json->save_partial();
        cudaDeviceSynchronize();
        cudaGetLastError();
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
        std::fprintf(out, "%-7s %-32s %11.4f %11.4f %7.3fx %10.1f %6.1f%% %6.1f%%  %-12s %s\n", spec.family.c_str(),
                     spec.name.c_str(), result.vendor_ms, result.idgpu_ms, speedup, result.bytes / 1e6,
                     100 * frac_vendor, 100 * frac_idgpu, check.c_str(), spec.params.c_str());
        Row row;
        row.family = spec.family;
        row.name = spec.name;
        row.params = spec.params;
        row.vendor_ms = result.vendor_ms;
        row.idgpu_ms = result.idgpu_ms;
        row.speedup = speedup;
        row.bytes = result.bytes;
        row.frac_copy_bw_vendor = frac_vendor;
        row.frac_copy_bw_idgpu = frac_idgpu;
        row.vendor_min_ms = result.vendor_min_ms;
        row.idgpu_min_ms = result.idgpu_min_ms;
        row.runs = result.runs;
        row.sets = result.sets;
        if (result.checked) {
          row.max_rel_diff = result.max_rel_diff;
          row.identical = result.identical;
        }
        row.status = status;
        record(row);
        const int family = family_index(spec.family);
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
            std::fprintf(out, "       host overhead FAILED: %s\n", failure.what());
            std::fprintf(stderr, "idgpu-bench: overhead of %s failed: %s\n", spec.id().c_str(), failure.what());
            Row failed;
            failed.family = "overhead";
            failed.name = spec.id() + "/host";
            failed.params = spec.params;
            failed.status = std::string("error: ") + failure.what();
            record(failed);
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
          std::fprintf(out,
                       "       host per call: vendor %.2f us, idgpu %.2f us (%+.2f us); back-to-back GPU per call: "
                       "vendor %.2f us, idgpu %.2f us\n",
                       overhead.vendor_host_us, overhead.idgpu_host_us,
                       overhead.idgpu_host_us - overhead.vendor_host_us, overhead.vendor_pipelined_us,
                       overhead.idgpu_pipelined_us);
          const std::string params = std::to_string(overhead.calls) + " back-to-back calls, median of " +
                                     std::to_string(overhead.reps) + " samples; " + spec.params;
          Row host;
          host.family = "overhead";
          host.name = spec.id() + "/host";
          host.params = "host time per call; " + params;
          host.vendor_ms = overhead.vendor_host_us * 1e-3;
          host.idgpu_ms = overhead.idgpu_host_us * 1e-3;
          host.speedup = overhead.vendor_host_us / overhead.idgpu_host_us;
          host.runs = overhead.reps;
          host.status = "ok";
          record(host);
          Row pipelined = host;
          pipelined.name = spec.id() + "/pipelined";
          pipelined.params = "GPU time per call; " + params;
          pipelined.vendor_ms = overhead.vendor_pipelined_us * 1e-3;
          pipelined.idgpu_ms = overhead.idgpu_pipelined_us * 1e-3;
          pipelined.speedup = overhead.vendor_pipelined_us / overhead.idgpu_pipelined_us;
          record(pipelined);
        }
      } catch (const std::exception& failure) {
        fail(failure.what());
      }
      std::fflush(out);
      if (json) json->save_partial();
      // Leave the next case a clean slate: finish queued work and clear a non-sticky error.
      cudaStreamSynchronize(stream);
      cudaGetLastError();
    }
    progress.end();

    std::fprintf(out, "\n%d cases: %d ran, %d failed, %d with differing outputs\n", static_cast<int>(cases.size()),
                 summary.ok, summary.failed, summary.mismatched);
    std::vector<std::pair<std::string, double>> geomeans;
    for (int family = 0; family < 3; ++family) {
      if (summary.speedup_count[family] == 0) continue;
      const double geomean = std::exp(summary.log_speedup_sum[family] / summary.speedup_count[family]);
      geomeans.emplace_back(kFamilies[family], geomean);
      std::fprintf(out, "geometric-mean speedup %-7s: %.3fx over %d cases\n", kFamilies[family], geomean,
                   summary.speedup_count[family]);
    }
    if (ooc_summary.count > 0) {
      std::fprintf(out,
                   "out-of-core: fraction of one round trip's bound (bus_ms / exec_ms) %.2f to %.2f, geometric mean "
                   "%.2f over %d cases (target >= %.1f)\n",
                   ooc_summary.lowest, ooc_summary.highest, ooc_summary.geomean(), ooc_summary.count,
                   kOocBoundTarget);
    }
    if (!overhead_lines.empty()) {
      std::fprintf(out,
                   "\nhost time per call (us, %d back-to-back calls, median of %d samples) and GPU time per call of "
                   "the same sequence:\n",
                   cli.options.overhead_calls, cli.options.overhead_reps);
      std::fprintf(out, "%-40s %10s %10s %9s %12s %12s\n", "case", "vendor", "idgpu", "idgpu-v", "vendor_gpu",
                   "idgpu_gpu");
      for (const std::string& line : overhead_lines) std::fprintf(out, "%s\n", line.c_str());
    }
    for (const std::string& failure : summary.failures) std::fprintf(out, "FAILED: %s\n", failure.c_str());
    print_idgpu_report(out, libraries);

    if (env.sparse != nullptr) sparse.cusparseDestroy(env.sparse);
    cudaStreamDestroy(stream);
    const int status = summary.failed > 0 || summary.mismatched > 0 ? kExitFailed : kExitOk;
    if (json && !json->save_final(summary.ok, summary.failed, summary.mismatched, geomeans, status)) {
      std::fprintf(stderr, "idgpu-bench: cannot write %s: %s\n", cli.json_path.c_str(), std::strerror(errno));
      return kExitFailed;
    }
    return status;
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "idgpu-bench: %s\n", failure.what());
    print_idgpu_report(out, libraries);
    return kExitFailed;
  }
}

}  // namespace
}  // namespace idgpu_bench

int main(int argc, char** argv) {
  using namespace idgpu_bench;
  Cli cli;
  const int parsed = parse_command_line(argc, argv, &cli);
  if (parsed >= 0) return parsed;
  if (cli.show_libraries) return show_libraries(cli);
  std::vector<CaseSpec> cases = select_cases(cli);
  if (cli.list) return list_cases(cli, cases);
  if (cases.empty()) {
    std::fprintf(stderr, "idgpu-bench: no case matches the filter (see --list)\n");
    return kExitUsage;
  }
  return run(cli, cases);
}
