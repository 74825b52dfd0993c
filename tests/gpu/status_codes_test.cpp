// Differential status codes: every bad-input case of status_cases.h runs on the vendor's
// libcufft / libcusparse and on libidgpu, both dlopen'ed by absolute path into this process, and
// the two statuses must be equal. Every case is printed with both codes, equal or not, so the
// output is the full table of where idgpu's validation agrees with the vendor's.
//
// The vendor libraries are the toolkit files the build read its export lists from
// (IDGPU_VENDOR_cufft_PATH / IDGPU_VENDOR_cusparse_PATH); libidgpu is told to forward to the same
// files (IDGPU_VENDOR_CUFFT / IDGPU_VENDOR_CUSPARSE), so both sides share one vendor instance and
// the cuSPARSE handle (always the vendor's cusparseCreate) is valid for both. Environment
// overrides: IDGPU_TEST_VENDOR_CUFFT, IDGPU_TEST_VENDOR_CUSPARSE, IDGPU_TEST_LIBIDGPU.
//
// Cases that may crash the process or fault the CUDA context run in a child process each (this
// program with --isolated-case NAME vendor|idgpu); a crash reads "signal:N". Where the vendor
// crashes, any idgpu status is accepted (and printed).
//
// Exit status 77 (skipped) without a CUDA device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "status_cases.h"

extern char** environ;

#ifndef IDGPU_TEST_VENDOR_CUFFT_PATH
#error "IDGPU_TEST_VENDOR_CUFFT_PATH must name the vendor's libcufft (set by tests/gpu/CMakeLists.txt)"
#endif
#ifndef IDGPU_TEST_VENDOR_CUSPARSE_PATH
#error "IDGPU_TEST_VENDOR_CUSPARSE_PATH must name the vendor's libcusparse"
#endif
#ifndef IDGPU_TEST_LIBIDGPU_PATH
#error "IDGPU_TEST_LIBIDGPU_PATH must name libidgpu"
#endif

namespace {

struct Environment {
  std::string self;
  std::string cufft_path;
  std::string cusparse_path;
  std::string idgpu_path;
  void* cufft = nullptr;
  void* cusparse = nullptr;
  void* idgpu = nullptr;
  IdgpuTestApi vendor{};
  IdgpuTestApi ours{};
  IdgpuStatusFixture fixture{};
};

Environment g_env;

std::string setting(const char* variable, const char* built_in) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? std::string(value) : std::string(built_in);
}

template <class Fn>
void bind_symbol(Fn& slot, void* handle, const char* name, std::vector<std::string>& missing) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
  if (slot == nullptr) missing.push_back(name);
}

#define IDGPU_BIND_GTSV(api, P, handle, missing)                                                             \
  do {                                                                                                       \
    bind_symbol(api.P.gtsv2_bufferSizeExt, handle, "cusparse" #P "gtsv2_bufferSizeExt", missing);                   \
    bind_symbol(api.P.gtsv2, handle, "cusparse" #P "gtsv2", missing);                                               \
    bind_symbol(api.P.gtsv2_nopivot_bufferSizeExt, handle, "cusparse" #P "gtsv2_nopivot_bufferSizeExt", missing);   \
    bind_symbol(api.P.gtsv2_nopivot, handle, "cusparse" #P "gtsv2_nopivot", missing);                               \
    bind_symbol(api.P.gtsv2StridedBatch_bufferSizeExt, handle, "cusparse" #P "gtsv2StridedBatch_bufferSizeExt",     \
         missing);                                                                                           \
    bind_symbol(api.P.gtsv2StridedBatch, handle, "cusparse" #P "gtsv2StridedBatch", missing);                       \
    bind_symbol(api.P.gtsvInterleavedBatch_bufferSizeExt, handle, "cusparse" #P "gtsvInterleavedBatch_bufferSizeExt", \
         missing);                                                                                           \
    bind_symbol(api.P.gtsvInterleavedBatch, handle, "cusparse" #P "gtsvInterleavedBatch", missing);                 \
  } while (0)

// cuFFT and gtsv from `fft` / `gtsv`; the cuSPARSE handle functions always from the vendor.
std::vector<std::string> fill(IdgpuTestApi& api, const char* label, void* fft, void* gtsv, void* handles) {
  std::vector<std::string> missing;
  api.label = label;
  bind_symbol(api.cufftCreate, fft, "cufftCreate", missing);
  bind_symbol(api.cufftDestroy, fft, "cufftDestroy", missing);
  bind_symbol(api.cufftPlan1d, fft, "cufftPlan1d", missing);
  bind_symbol(api.cufftPlan2d, fft, "cufftPlan2d", missing);
  bind_symbol(api.cufftPlan3d, fft, "cufftPlan3d", missing);
  bind_symbol(api.cufftPlanMany, fft, "cufftPlanMany", missing);
  bind_symbol(api.cufftMakePlan1d, fft, "cufftMakePlan1d", missing);
  bind_symbol(api.cufftMakePlan2d, fft, "cufftMakePlan2d", missing);
  bind_symbol(api.cufftMakePlan3d, fft, "cufftMakePlan3d", missing);
  bind_symbol(api.cufftMakePlanMany, fft, "cufftMakePlanMany", missing);
  bind_symbol(api.cufftMakePlanMany64, fft, "cufftMakePlanMany64", missing);
  bind_symbol(api.cufftXtMakePlanMany, fft, "cufftXtMakePlanMany", missing);
  bind_symbol(api.cufftGetSize, fft, "cufftGetSize", missing);
  bind_symbol(api.cufftGetSize1d, fft, "cufftGetSize1d", missing);
  bind_symbol(api.cufftEstimate1d, fft, "cufftEstimate1d", missing);
  bind_symbol(api.cufftSetStream, fft, "cufftSetStream", missing);
  bind_symbol(api.cufftSetWorkArea, fft, "cufftSetWorkArea", missing);
  bind_symbol(api.cufftSetAutoAllocation, fft, "cufftSetAutoAllocation", missing);
  bind_symbol(api.cufftExecC2C, fft, "cufftExecC2C", missing);
  bind_symbol(api.cufftExecZ2Z, fft, "cufftExecZ2Z", missing);
  bind_symbol(api.cufftExecR2C, fft, "cufftExecR2C", missing);
  bind_symbol(api.cufftExecD2Z, fft, "cufftExecD2Z", missing);
  bind_symbol(api.cufftExecC2R, fft, "cufftExecC2R", missing);
  bind_symbol(api.cufftExecZ2D, fft, "cufftExecZ2D", missing);
  bind_symbol(api.cufftXtExec, fft, "cufftXtExec", missing);
  bind_symbol(api.cufftGetVersion, fft, "cufftGetVersion", missing);
  bind_symbol(api.cusparseCreate, handles, "cusparseCreate", missing);
  bind_symbol(api.cusparseDestroy, handles, "cusparseDestroy", missing);
  bind_symbol(api.cusparseSetStream, handles, "cusparseSetStream", missing);
  IDGPU_BIND_GTSV(api, S, gtsv, missing);
  IDGPU_BIND_GTSV(api, D, gtsv, missing);
  IDGPU_BIND_GTSV(api, C, gtsv, missing);
  IDGPU_BIND_GTSV(api, Z, gtsv, missing);
  return missing;
}

// Loads the vendor libraries, then libidgpu (told to forward to the very same files), and the
// fixture. Empty on success, else the reason.
std::string load_everything() {
  g_env.cufft_path = setting("IDGPU_TEST_VENDOR_CUFFT", IDGPU_TEST_VENDOR_CUFFT_PATH);
  g_env.cusparse_path = setting("IDGPU_TEST_VENDOR_CUSPARSE", IDGPU_TEST_VENDOR_CUSPARSE_PATH);
  g_env.idgpu_path = setting("IDGPU_TEST_LIBIDGPU", IDGPU_TEST_LIBIDGPU_PATH);
  g_env.cufft = dlopen(g_env.cufft_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (g_env.cufft == nullptr) return std::string("dlopen vendor cuFFT: ") + dlerror();
  g_env.cusparse = dlopen(g_env.cusparse_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (g_env.cusparse == nullptr) return std::string("dlopen vendor cuSPARSE: ") + dlerror();
  setenv("IDGPU_VENDOR_CUFFT", g_env.cufft_path.c_str(), 1);
  setenv("IDGPU_VENDOR_CUSPARSE", g_env.cusparse_path.c_str(), 1);
  g_env.idgpu = dlopen(g_env.idgpu_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (g_env.idgpu == nullptr) return std::string("dlopen libidgpu: ") + dlerror();
  if (dlsym(g_env.idgpu, "idgpuGetVersion") == nullptr) return g_env.idgpu_path + " is not libidgpu (no idgpuGetVersion)";

  std::vector<std::string> missing = fill(g_env.vendor, "vendor", g_env.cufft, g_env.cusparse, g_env.cusparse);
  std::vector<std::string> missing_ours = fill(g_env.ours, "idgpu", g_env.idgpu, g_env.idgpu, g_env.cusparse);
  std::string error;
  for (const std::string& name : missing) error += " vendor:" + name;
  for (const std::string& name : missing_ours) error += " idgpu:" + name;
  if (!error.empty()) return "missing functions:" + error;
  if (const char* message = idgpu_status_fixture_init(&g_env.fixture, &g_env.vendor)) return message;

  using PathFn = const char* (*)(int);
  if (auto path_of = reinterpret_cast<PathFn>(dlsym(g_env.idgpu, "idgpuGetVendorLibraryPath"))) {
    const char* fft = path_of(0);
    const char* sparse = path_of(1);
    std::printf("libidgpu forwards to: %s, %s\n", fft != nullptr ? fft : "(none)", sparse != nullptr ? sparse : "(none)");
  }
  return {};
}

const char* cufft_name(int code) {
  switch (code) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "?";
  }
}

const char* cusparse_name(int code) {
  switch (code) {
    case CUSPARSE_STATUS_SUCCESS: return "SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "NOT_INITIALIZED";
    case CUSPARSE_STATUS_ALLOC_FAILED: return "ALLOC_FAILED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "INVALID_VALUE";
    case CUSPARSE_STATUS_ARCH_MISMATCH: return "ARCH_MISMATCH";
    case CUSPARSE_STATUS_EXECUTION_FAILED: return "EXECUTION_FAILED";
    case CUSPARSE_STATUS_INTERNAL_ERROR: return "INTERNAL_ERROR";
    case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "MATRIX_TYPE_NOT_SUPPORTED";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "NOT_SUPPORTED";
    case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "INSUFFICIENT_RESOURCES";
    default: return "?";
  }
}

// "4 (CUFFT_INVALID_VALUE)", or the crash text as it is.
std::string describe(const IdgpuStatusCase& entry, const std::string& code) {
  if (code.empty() || !(code[0] == '-' || (code[0] >= '0' && code[0] <= '9'))) return code;
  const int value = std::atoi(code.c_str());
  const bool fft = std::strncmp(entry.name, "cufft.", 6) == 0;
  return code + " (" + (fft ? cufft_name(value) : cusparse_name(value)) + ")";
}

struct SideResult {
  std::string code;
  std::string note;
};

SideResult run_isolated(const IdgpuStatusCase& entry, const char* side) {
  SideResult result{"spawn-failed", ""};
  int fds[2];
  if (pipe(fds) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::string self = g_env.self;
  std::string flag = "--isolated-case";
  std::string name = entry.name;
  std::string which = side;
  char* argv[] = {&self[0], &flag[0], &name[0], &which[0], nullptr};
  pid_t pid = 0;
  std::fflush(stdout);
  const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string output;
  if (spawned == 0) {
    char chunk[1024];
    for (;;) {
      const ssize_t got = read(fds[0], chunk, sizeof(chunk));
      if (got <= 0) break;
      output.append(chunk, static_cast<std::size_t>(got));
    }
  }
  close(fds[0]);
  if (spawned != 0) return result;
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  const std::size_t status_at = output.find("IDGPU_CASE_STATUS ");
  const std::size_t sync_at = output.find("IDGPU_CASE_SYNC ");
  if (sync_at != std::string::npos) {
    const std::size_t begin = sync_at + 16;
    result.note = "sync=" + output.substr(begin, output.find('\n', begin) - begin);
  }
  if (status_at != std::string::npos) {
    result.code = std::to_string(std::atoi(output.c_str() + status_at + 18));
    if (WIFSIGNALED(wait_status)) result.note += " then signal:" + std::to_string(WTERMSIG(wait_status));
  } else if (WIFSIGNALED(wait_status)) {
    result.code = "signal:" + std::to_string(WTERMSIG(wait_status));
  } else {
    result.code = "exit:" + std::to_string(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
  }
  return result;
}

SideResult run_here(const IdgpuStatusCase& entry, const IdgpuTestApi& api) {
  idgpu_status_fixture_refill(&g_env.fixture, entry.prec);
  SideResult result;
  result.code = std::to_string(entry.fn(&api, &g_env.fixture, entry.prec));
  const cudaError_t last = cudaGetLastError();
  if (last != cudaSuccess) result.note = std::string("last_error=") + cudaGetErrorName(last);
  return result;
}

// Runs the cases whose names start with `prefix` (or do not, when `invert`), prints each with
// both codes, and checks them. Returns the number that differ.
int compare_cases(const char* prefix, bool invert) {
  int compared = 0;
  int differ = 0;
  int vendor_crashed = 0;
  for (int index = 0; index < IDGPU_STATUS_CASE_COUNT; ++index) {
    const IdgpuStatusCase& entry = idgpu_status_cases[index];
    const bool matches = std::strncmp(entry.name, prefix, std::strlen(prefix)) == 0;
    if (matches == invert) continue;
    const bool isolated = (entry.flags & IDGPU_CASE_ISOLATED) != 0;
    // Isolated cases: idgpu first, so a vendor fault cannot be blamed on the order.
    const SideResult ours = isolated ? run_isolated(entry, "idgpu") : run_here(entry, g_env.ours);
    const SideResult vendor = isolated ? run_isolated(entry, "vendor") : run_here(entry, g_env.vendor);
    // The vendor crashed the process, or accepted the call and then faulted on the device.
    const bool crash = vendor.code.rfind("signal:", 0) == 0 || std::atoi(vendor.code.c_str()) >= IDGPU_CASE_DEVICE_FAULT;
    const bool same = vendor.code == ours.code;
    const char* verdict = same ? "same" : (crash ? "VENDOR-CRASHED/FAULTED (accepted)" : "DIFFERENT");
    std::printf("%-62s vendor=%-30s idgpu=%-30s %s%s%s%s%s\n", entry.name, describe(entry, vendor.code).c_str(),
                describe(entry, ours.code).c_str(), verdict, isolated ? " [isolated]" : "",
                vendor.note.empty() ? "" : (" vendor:" + vendor.note).c_str(),
                ours.note.empty() ? "" : " idgpu:", ours.note.c_str());
    std::fflush(stdout);
    ++compared;
    if (crash && !same) {
      ++vendor_crashed;
      continue;
    }
    INFO("case " << entry.name << ": vendor " << describe(entry, vendor.code) << ", idgpu "
                 << describe(entry, ours.code));
    CHECK(vendor.code == ours.code);
    if (!same) ++differ;
  }
  std::printf("== %d cases compared, %d differ, %d where only the vendor crashed\n", compared, differ, vendor_crashed);
  std::fflush(stdout);
  return differ;
}

int isolated_main(const char* name, const char* side) {
  const IdgpuStatusCase* entry = idgpu_find_status_case(name);
  if (entry == nullptr) {
    std::fprintf(stderr, "unknown case %s\n", name);
    return 2;
  }
  alarm(120);  // a hung case ends as signal:14
  const std::string error = load_everything();
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 3;
  }
  const IdgpuTestApi& api = std::strcmp(side, "vendor") == 0 ? g_env.vendor : g_env.ours;
  idgpu_status_fixture_refill(&g_env.fixture, entry->prec);
  const int status = entry->fn(&api, &g_env.fixture, entry->prec);
  std::printf("IDGPU_CASE_STATUS %d\n", status);
  std::fflush(stdout);
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("IDGPU_CASE_SYNC %s\n", cudaGetErrorName(sync));
  std::fflush(stdout);
  return 0;
}

}  // namespace

TEST_CASE("cuFFT bad inputs: idgpu returns the vendor's status", "[gpu][status]") {
  std::printf("\n== cuFFT: %s vs %s\n", g_env.cufft_path.c_str(), g_env.idgpu_path.c_str());
  const int differ = compare_cases("cufft.", false);
  REQUIRE(differ == 0);
}

TEST_CASE("cuSPARSE gtsv bad inputs: idgpu returns the vendor's status", "[gpu][status]") {
  std::printf("\n== cuSPARSE gtsv: %s vs %s\n", g_env.cusparse_path.c_str(), g_env.idgpu_path.c_str());
  const int differ = compare_cases("cufft.", true);
  REQUIRE(differ == 0);
}

TEST_CASE("in-process cases left the device usable", "[gpu][status]") {
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("device after the in-process cases: %s\n", cudaGetErrorName(sync));
  REQUIRE(sync == cudaSuccess);
}

int main(int argc, char** argv) {
  char self[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  g_env.self = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string(argv[0]);
  if (argc == 4 && std::strcmp(argv[1], "--isolated-case") == 0) return isolated_main(argv[2], argv[3]);

  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("no CUDA device (cudaGetDeviceCount: %s, %d devices): skipped\n", cudaGetErrorName(status), devices);
    return 77;
  }
  const std::string error = load_everything();
  if (error.empty()) {
    std::printf("vendor: %s, %s\nidgpu: %s\n", g_env.cufft_path.c_str(), g_env.cusparse_path.c_str(),
                g_env.idgpu_path.c_str());
  } else {
    std::fprintf(stderr, "setup failed: %s\n", error.c_str());
    return 1;
  }
  // Catch returns the number of failed assertions: 77 of them would read as "skipped" to CTest.
  const int failed = Catch::Session().run(argc, argv);
  return failed == 0 ? 0 : 1;
}
