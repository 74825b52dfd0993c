#include "cli.h"

#include <CLI/CLI.hpp>
#include <climits>
#include <cmath>
#include <cstdio>
#include <utility>

#include "case_text.h"
#include "idgpu/version.h"

namespace idgpu_bench {
namespace {

// Limits are stated in the help text itself, so the validators add nothing to the type names.
CLI::Validator within(long long minimum, long long maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        long long value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "'" + text + "' is not an integer";
        if (value < minimum || value > maximum) {
          return text + " is out of range [" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]";
        }
        return {};
      },
      "");
}

CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "'" + text + "' is not a number";
        if (!(value >= 0)) return text + " is not a number >= 0";
        return {};
      },
      "");
}

constexpr long long kMaxCount = 1000000000;

// CLI11 prints descriptions as given (indenting after each newline): word-wrapped here so that
// --help fits 100 columns; a newline in TEXT starts a new line.
constexpr std::size_t kNameColumns = 30;
std::string wrap(const std::string& text, std::size_t width = 100 - kNameColumns) {
  std::string wrapped;
  for (const std::string& paragraph : split(text, '\n')) {
    if (!wrapped.empty()) wrapped += '\n';
    std::size_t line = 0;
    for (const std::string& word : split(paragraph, ' ')) {
      if (line > 0 && line + 1 + word.size() > width) {
        wrapped += '\n';
        line = 0;
      } else if (line > 0) {
        wrapped += ' ';
        ++line;
      }
      wrapped += word;
      line += word.size();
    }
  }
  return wrapped;
}

}  // namespace

int parse_command_line(int argc, char** argv, Cli* cli) {
  Options& options = cli->options;
  // The program by its name, not by the path it was started from.
  cli->command.emplace_back("idgpu-bench");
  for (int index = 1; index < argc; ++index) cli->command.emplace_back(argv[index]);

  CLI::App app("Times the vendor libraries (cuFFT, cuSPARSE gtsv) and libidgpu side by side in one process.",
               "idgpu-bench");
  app.get_formatter()->column_width(kNameColumns);
  app.set_version_flag("--version", std::string("idgpu-bench ") + IDGPU_VERSION_STRING);

  const std::string grid = "Cases";
  CLI::Option* quick =
      app.add_flag("--quick", cli->quick, wrap("a handful of cases, under a minute (the default)"))->group(grid);
  CLI::Option* full = app.add_flag("--full", cli->full, wrap("the whole grid"))->group(grid);
  quick->excludes(full);
  app.add_option("--fft", cli->fft_texts,
                 wrap("an FFT of your own; repeatable:\n"
                      "KIND,n=N[xM[xK]][,batch=B][,inplace][,precision=f32|f64]\n"
                      "KIND c2c, r2c, c2r (precision=f64 makes them z2z, d2z, z2d) or z2z, d2z, z2d; sizes as "
                      "numbers or 2^K, dimensions outermost first; batch by default about 2^26 points per call "
                      "(2^25 in f64), as in the grids; out of place unless inplace.\n"
                      "User-given cases (--fft, --gtsv, --poisson, --ooc) run instead of the grid unless --quick or "
                      "--full is given too"))
      ->type_name("SPEC")
      ->allow_extra_args(false)
      ->group(grid);
  app.add_option("--gtsv", cli->gtsv_texts,
                 wrap("a tridiagonal solve of your own; repeatable:\n"
                      "API,m=M[,n=N][,batch=B][,precision=s|d|c|z][,algo=A][,nondominant]\n"
                      "API gtsv2 or gtsv2_nopivot (n right-hand sides, default 1), gtsv2StridedBatch or "
                      "gtsvInterleavedBatch (batch systems, default --gtsv-unknowns / m); precision as the API's "
                      "S, D, C, Z (default s); algo of gtsvInterleavedBatch 0, 1 or 2 (default 0); nondominant: "
                      "gtsv2 on random systems that need pivoting (timed, not compared)"))
      ->type_name("SPEC")
      ->allow_extra_args(false)
      ->group(grid);
  app.add_option("--poisson", cli->poisson_texts,
                 wrap("an FFT Poisson solve of your own (idgpuPoissonExec against cuFFT + cuSPARSE); repeatable:\n"
                      "BOUNDARY,n=NXxNYxNZ[,precision=s|d]\n"
                      "BOUNDARY the z boundary: periodic, neumann or dirichlet (x and y are periodic); n the grid, x "
                      "first (the solver's nx, ny, nz; missing axes 1), or N^3 for a cube (N^2: nz = 1); spacings "
                      "1/nx, 1/ny, 1/nz; precision s (default) or d. The vendor side: periodic, the R2C of the "
                      "whole grid, a scaling kernel, the C2R; neumann and dirichlet (nz >= 3), the R2Cs of the z "
                      "planes into z-contiguous columns, C/Zgtsv2StridedBatch, the C2Rs. Neumann is timed, not "
                      "compared (the singular mode is pinned differently), and so is dirichlet beyond nz = 128 in "
                      "f32"))
      ->type_name("SPEC")
      ->allow_extra_args(false)
      ->group(grid);
  app.add_option("--ooc", cli->ooc_texts,
                 wrap("an out-of-core transform or Poisson solve of host data (idgpuOoc*, idgpuOocPoisson*), timed "
                      "against the bus; repeatable:\n"
                      "KIND,n=...[,batch=B][,precision=s|d][,z=BOUNDARY][,inplace][,inverse]\n"
                      "  [,chunks=K|budget=BYTES][,memory=pinned|pageable]\n"
                      "KIND c2c (in place), r2c, c2r (z2z, d2z, z2d: precision=d): n outermost first as --fft, N "
                      "(1D, batch=B transforms, default 1), NxM, NxMxK or N^3; inplace (r2c, c2r): cuFFT's padded "
                      "layout; inverse (c2c). KIND poisson: n=NXxNYxNZ, x first as --poisson (nz >= 2), or N^3; z "
                      "periodic (default), neumann or dirichlet; inplace: f == u. The device budget: chunks=K, the "
                      "least with at most K chunks a phase by the library's schedule rule; budget=BYTES (0: the "
                      "library's default); by default a quarter of the complex array the library schedules. Host "
                      "arrays pinned unless memory=pageable. A row: the exec's median (host clock), the bytes of "
                      "one round trip (input in, output out), the plan's round trips and chunks, and bus_ms / "
                      "exec_ms, the fraction of one round trip's bound (bus_ms: those bytes copied H2D and D2H at "
                      "once, pinned; target >= 0.8); poisson also the in-core solve's time. The run first prints "
                      "the bus's bandwidths (H2D, D2H, both at once)"))
      ->type_name("SPEC")
      ->allow_extra_args(false)
      ->group(grid);
  app.add_option("--filter", cli->filters,
                 wrap("only cases whose id (family/case) contains SUBSTR; repeatable; without --quick it selects from "
                      "the full grid"))
      ->type_name("SUBSTR")
      ->allow_extra_args(false)
      ->group(grid);
  app.add_flag("--list", cli->list, wrap("print the selected cases and exit (needs no GPU)"))->group(grid);
  app.add_flag("--show-libraries", cli->show_libraries,
               wrap("load both sides, print what each resolves to and exit (needs no GPU)"))
      ->group(grid);

  const std::string timing = "Timing";
  app.add_option("--runs", options.runs, wrap("timed runs per side, median reported (default 20)"))
      ->type_name("N")
      ->check(within(1, kMaxCount))
      ->group(timing);
  app.add_option("--warmup", options.warmup, wrap("untimed calls per side first (default 3, at least 2)"))
      ->type_name("N")
      ->check(within(2, kMaxCount))
      ->group(timing);
  long long seed = static_cast<long long>(options.seed);
  app.add_option("--seed", seed, wrap("seed of the random inputs (default 0x1d69)"))
      ->type_name("N")
      ->check(within(0, LLONG_MAX))
      ->group(timing);
  app.add_option("--spin-us", options.spin_us, wrap("GPU busy-wait queued before each timed call (default 200)"))
      ->type_name("N")
      ->check(within(0, kMaxCount))
      ->group(timing);
  app.add_option("--slow-ms", options.slow_ms,
                 wrap("a case whose second call takes longer runs --slow-runs (default 250)"))
      ->type_name("X")
      ->check(non_negative())
      ->group(timing);
  app.add_option("--slow-runs", options.slow_runs, wrap("runs of such a slow case (default 5)"))
      ->type_name("N")
      ->check(within(1, kMaxCount))
      ->group(timing);
  app.add_option(
         "--overhead-calls", options.overhead_calls,
         wrap("back-to-back calls per host-overhead sample (default " + std::to_string(options.overhead_calls) + ")"))
      ->type_name("N")
      ->check(within(1, kMaxCount))
      ->group(timing);
  app.add_option("--overhead-reps", options.overhead_reps,
                 wrap("host-overhead samples per side (default " + std::to_string(options.overhead_reps) + ")"))
      ->type_name("N")
      ->check(within(1, kMaxCount))
      ->group(timing);
  app.add_option("--plan-times", options.plan_times,
                 wrap("FFT cases: also time N plan create+destroy cycles per side and print the medians (default 0: "
                      "not measured)"))
      ->type_name("N")
      ->check(within(0, kMaxCount))
      ->group(timing);
  bool no_check = false;
  app.add_flag("--no-check", no_check, wrap("do not compare the two sides' outputs"))->group(timing);
  app.add_option("--check-rtol", cli->check_rtol,
                 wrap("allowed max|a-b|/max|a| over real parts (default 1e-4 f32/c32, 1e-10 f64/c64)"))
      ->type_name("X")
      ->check(non_negative())
      ->group(timing);

  const std::string tridiagonal = "Tridiagonal grid";
  app.add_option("--interleaved-algos", options.interleaved_algos,
                 wrap("gtsvInterleavedBatch algorithms, e.g. 0,1,2 (the default)"))
      ->type_name("L")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(within(0, 2))
      ->group(tridiagonal);
  app.add_option("--interleaved-max-m", options.interleaved_max_m,
                 wrap("largest m of interleaved cases (default 65536)"))
      ->type_name("N")
      ->check(within(3, LLONG_MAX))
      ->group(tridiagonal);
  app.add_option("--interleaved-pivot-max-m", options.interleaved_pivot_max_m,
                 wrap("largest m for algorithms 1 and 2 (default 4096)"))
      ->type_name("N")
      ->check(within(0, LLONG_MAX))
      ->group(tridiagonal);
  app.add_option("--gtsv-unknowns", options.gtsv_unknowns,
                 wrap("unknowns per call of the batched full grid (default 2^24); other than the default, case names "
                      "gain the batch (_bN)"))
      ->type_name("N")
      ->check(within(1, LLONG_MAX))
      ->group(tridiagonal);

  const std::string libraries = "Libraries";
  app.add_option("--lib", cli->lib_path, wrap("libidgpu to load (default: beside this executable)"))
      ->type_name("PATH")
      ->group(libraries);
  app.add_option("--vendor-cufft", cli->vendor_cufft,
                 wrap(std::string("vendor cuFFT (default: ") + IDGPU_BENCH_CUFFT_SONAME + " by SONAME)"))
      ->type_name("PATH")
      ->group(libraries);
  app.add_option("--vendor-cusparse", cli->vendor_cusparse,
                 wrap(std::string("vendor cuSPARSE (default: ") + IDGPU_BENCH_CUSPARSE_SONAME + " by SONAME)"))
      ->type_name("PATH")
      ->group(libraries);

  const std::string output = "Output";
  app.add_option("--csv", cli->csv_path,
                 wrap("every row as CSV, with the device and the driver, runtime and library versions in columns; "
                      "ooc rows fill idgpu_ms, bytes and their own columns (round_trips, chunks, budget_bytes, "
                      "memory, bus_ms, frac_round_trip_bound, in_core_ms; report.h lists every column)"))
      ->type_name("FILE")
      ->group(output);
  app.add_option("--json", cli->json_path,
                 wrap("the whole run as one JSON document: a header (device, driver, runtime, vendor library versions "
                      "and paths, idgpu version and policy, copy bandwidth, the bus's with ooc cases), the options, "
                      "the cases and every row; '-' writes it to stdout and the table to stderr"))
      ->type_name("FILE")
      ->group(output);
  app.add_flag("--progress", cli->progress,
               wrap("a line per case on stderr ([12/180] fft/c2c_f32_n4096); on by default when stderr is a terminal"))
      ->group(output);

  app.footer(
      "Environment:\n"
      "  IDGPU_POLICY  the idgpu side's dispatch (auto, native, vendor; read by libidgpu at load, shown in the\n"
      "                header); 2D/3D and real FFTs run natively under native only\n"
      "Exit status: 0 when every case ran and both sides agreed, 1 when a case failed or the sides' outputs\n"
      "differ, 2 on a usage error or when there is no CUDA device.\n"
      "Examples:\n"
      "  idgpu-bench --full --csv bench.csv --json bench.json\n"
      "  idgpu-bench --fft r2c,n=4096,batch=1000 --fft c2c,n=1024x1024,inplace,precision=f64\n"
      "  idgpu-bench --gtsv gtsv2StridedBatch,m=256,batch=65536,precision=d --gtsv gtsv2,m=2^20\n"
      "  idgpu-bench --poisson periodic,n=256x256x256 --poisson dirichlet,n=512^3,precision=d\n"
      "  idgpu-bench --ooc c2c,n=256^3 --ooc r2c,n=4096,batch=8192,chunks=16 --ooc poisson,n=256^3\n"
      "  idgpu-bench --ooc z2z,n=512^3,budget=2^30,memory=pageable --csv ooc.csv");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are "errors" whose exit code is success.
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
    std::fprintf(stderr, "idgpu-bench: %s (see --help)\n", error.what());
    return kExitUsage;
  }
  options.seed = static_cast<std::uint64_t>(seed);
  options.check = !no_check;

  // The user-given cases, parsed once the options they depend on (--gtsv-unknowns) are known.
  auto parse_cases = [&](const char* option, const std::vector<std::string>& texts, auto make) {
    for (const std::string& text : texts) {
      try {
        cli->user_cases.push_back(make(text));
      } catch (const CaseTextError& error) {
        std::fprintf(stderr, "idgpu-bench: %s %s: %s (see --help)\n", option, text.c_str(), error.what());
        return false;
      }
    }
    return true;
  };
  if (!parse_cases("--fft", cli->fft_texts, [](const std::string& text) { return fft_user_case(text); }) ||
      !parse_cases("--gtsv", cli->gtsv_texts, [&](const std::string& text) { return gtsv_user_case(text, options); }) ||
      !parse_cases("--poisson", cli->poisson_texts, [](const std::string& text) { return poisson_user_case(text); }) ||
      !parse_cases("--ooc", cli->ooc_texts, [](const std::string& text) { return ooc_user_case(text); })) {
    return kExitUsage;
  }
  return -1;
}

std::vector<CaseSpec> select_cases(const Cli& cli) {
  std::vector<CaseSpec> all;
  const bool grid = cli.quick || cli.full || cli.user_cases.empty();
  if (grid) {
    // --quick is the default; a filter alone selects from the full grid.
    const bool full = cli.full || (!cli.quick && !cli.filters.empty());
    all = full ? fft_full_cases() : fft_quick_cases();
    for (CaseSpec& spec : full ? gtsv_full_cases(cli.options) : gtsv_quick_cases(cli.options)) {
      all.push_back(std::move(spec));
    }
    for (CaseSpec& spec : full ? poisson_full_cases() : poisson_quick_cases()) all.push_back(std::move(spec));
  }
  all.insert(all.end(), cli.user_cases.begin(), cli.user_cases.end());
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

}  // namespace idgpu_bench
