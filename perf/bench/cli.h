// idgpu-bench's command line (CLI11) and the selection of cases it makes.
#pragma once

#include <string>
#include <vector>

#include "bench.h"

namespace idgpu_bench {

// Exit statuses: every case ran and both sides agreed; a case failed or the sides' outputs
// differ; the benchmark could not start (a usage error, or no CUDA device).
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct Cli {
  Options options;
  bool quick = false;
  bool full = false;
  bool list = false;
  bool show_libraries = false;
  bool progress = false;  // also when stderr is not a terminal
  std::vector<std::string> filters;
  std::vector<std::string> fft_texts;      // --fft, as given
  std::vector<std::string> gtsv_texts;     // --gtsv, as given
  std::vector<std::string> poisson_texts;  // --poisson, as given
  std::vector<std::string> ooc_texts;      // --ooc, as given
  std::vector<CaseSpec> user_cases;        // parsed from all four, in that order
  std::string csv_path;
  std::string json_path;  // "-": stdout (the table then goes to stderr)
  std::string lib_path;
  std::string vendor_cufft;
  std::string vendor_cusparse;
  double check_rtol = -1;            // < 0: per the output's precision (main.cpp)
  std::vector<std::string> command;  // as given, for the JSON document
};

// Parses the command line into *cli. Returns -1 when the benchmark should go on, else the exit
// status: kExitOk after --help or --version, kExitUsage after a message on stderr.
int parse_command_line(int argc, char** argv, Cli* cli);

// The cases the command line selects: the user-given ones, instead of the grid unless --quick or
// --full asks for it too (--quick is the default; a filter alone selects from the full grid), then
// only those whose id contains a --filter.
std::vector<CaseSpec> select_cases(const Cli& cli);

}  // namespace idgpu_bench
