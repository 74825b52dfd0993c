// The child process of the exit-report test (test_capi.cpp): makes a known set of calls, or none,
// and exits normally so that IDGPU_REPORT's exit handler runs.
//   idgpu_cpu_report_child calls   cufftCreate, cufftDestroy, a refused cufftPlan1d (no plan pointer),
//                                 one gtsv size query
//   idgpu_cpu_report_child none    no call at all
//   idgpu_cpu_report_child atexit  cufftCreate, then cufftGetVersion and cufftDestroy from an exit
//                                  handler (as a framework's static plan cache does at exit)
#include <cufft.h>
#include <cusparse.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
cufftHandle g_exit_plan = 0;
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  if (std::strcmp(argv[1], "none") == 0) return 0;
  if (std::strcmp(argv[1], "atexit") == 0) {
    if (cufftCreate(&g_exit_plan) != CUFFT_SUCCESS) return 3;
    // Registered after the first call, so it runs before the report is printed.
    std::atexit([] {
      int version = 0;
      cufftGetVersion(&version);
      cufftDestroy(g_exit_plan);
    });
    return 0;
  }
  if (std::strcmp(argv[1], "calls") != 0) return 2;
  cufftHandle plan = 0;
  if (cufftCreate(&plan) != CUFFT_SUCCESS) return 3;
  if (cufftDestroy(plan) != CUFFT_SUCCESS) return 4;
  if (cufftPlan1d(nullptr, 8, CUFFT_C2C, 1) != CUFFT_INVALID_VALUE) return 5;
  std::size_t size = 0;
  auto* handle = reinterpret_cast<cusparseHandle_t>(static_cast<std::uintptr_t>(0xC5A0F00D));
  auto* data = reinterpret_cast<float*>(static_cast<std::uintptr_t>(0x7d0000000000ull));
  if (cusparseSgtsv2_bufferSizeExt(handle, 8, 1, data, data, data, data, 8, &size) != CUSPARSE_STATUS_SUCCESS) return 6;
  std::printf("child done\n");  // on stdout: the report goes to stderr only
  return 0;
}
