/* An application built against one cuFFT release and linked against the fake of that release
 * (DT_NEEDED libcufft.so.N, its cufft* symbols asked for in that release's version node), which
 * run_cufft_client.sh runs under LD_PRELOAD=libidgpu or under idgpu-run.
 *   IDGPU_CLIENT_CUFFT_MAJOR  the SONAME's number: 12 (CUDA 13), 11 (CUDA 12), 10 (CUDA 11)
 * It makes a fixed set of calls and prints, on stdout, one line per call, then every call the
 * fake vendor recorded (one log for all the copies of the fake in the process):
 *   client: pid <pid>
 *   client: <symbol called> -> <status>
 *   fake call: <symbol>(<argument>, ...) -> <status>      (arguments in hex)
 *   fake: <calls> calls, <misuse> misuse
 * Exits 0 when every call succeeded. The device pointers are made up: the fake never touches
 * memory (run it with IDGPU_POLICY=vendor, so that no call goes to a native kernel). */
#include <cufft.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fake_vendor.h"

/* The JIT callback entry points as each release's headers bind them; declared here, not taken
 * from the toolkit's cufftXt.h, which declares cuFFT 12's (a callback type is an int-sized enum). */
#if IDGPU_CLIENT_CUFFT_MAJOR == 11
/* cuFFT 11.3-11.4: the function with the symbol-name argument is __cufftXtSetJITCallback_12_7,
 * and cufftXtSetJITCallback keeps the older ABI without it. */
cufftResult __cufftXtSetJITCallback_12_7(cufftHandle plan, const char *lto_callback_symbol_name,
                                         const void *lto_callback_fatbin, size_t lto_callback_fatbin_size,
                                         int type, void **caller_info);
cufftResult cufftXtSetJITCallback(cufftHandle plan, const void *lto_callback_fatbin,
                                  size_t lto_callback_fatbin_size, int type, void **caller_info);
#elif IDGPU_CLIENT_CUFFT_MAJOR == 12
cufftResult cufftXtSetJITCallback(cufftHandle plan, const char *lto_callback_symbol_name,
                                  const void *lto_callback_fatbin, size_t lto_callback_fatbin_size, int type,
                                  void **caller_info);
#endif

/* Values the driver looks for in the fake's log (run_cufft_client.sh). */
#define CLIENT_LEGACY_FATBIN ((const void *)(uintptr_t)0xfa7b1000u)
#define CLIENT_LEGACY_FATBIN_SIZE ((size_t)0x1234)
#define CLIENT_FATBIN ((const void *)(uintptr_t)0xfa7b2000u)
#define CLIENT_FATBIN_SIZE ((size_t)0x5678)
#define CLIENT_CALLBACK_TYPE 4 /* CUFFT_CB_ST_COMPLEX */
#define CLIENT_CALLER_INFO ((void **)(uintptr_t)0xca11e40u)

static int g_failed = 0;

static void report(const char *symbol, cufftResult status) {
  printf("client: %s -> %d\n", symbol, (int)status);
  if (status != CUFFT_SUCCESS) g_failed = 1;
}

int main(void) {
  cufftComplex *in = (cufftComplex *)(uintptr_t)0x7d0000000000ull;
  cufftComplex *out = (cufftComplex *)(uintptr_t)0x7d0000100000ull;
  cufftHandle plan = 0;
  cufftHandle plan1d = 0;
  size_t work_size = 0;
  int version = 0;

  printf("client: pid %ld\n", (long)getpid());
  report("cufftCreate", cufftCreate(&plan));
  /* Callbacks are set between creation and planning, as cuFFT asks. */
#if IDGPU_CLIENT_CUFFT_MAJOR == 11
  report("cufftXtSetJITCallback", cufftXtSetJITCallback(plan, CLIENT_LEGACY_FATBIN, CLIENT_LEGACY_FATBIN_SIZE,
                                                        CLIENT_CALLBACK_TYPE, CLIENT_CALLER_INFO));
  report("__cufftXtSetJITCallback_12_7",
         __cufftXtSetJITCallback_12_7(plan, "store_callback", CLIENT_FATBIN, CLIENT_FATBIN_SIZE, CLIENT_CALLBACK_TYPE,
                                      CLIENT_CALLER_INFO));
#elif IDGPU_CLIENT_CUFFT_MAJOR == 12
  report("cufftXtSetJITCallback", cufftXtSetJITCallback(plan, "store_callback", CLIENT_FATBIN, CLIENT_FATBIN_SIZE,
                                                        CLIENT_CALLBACK_TYPE, CLIENT_CALLER_INFO));
#endif
  report("cufftMakePlan1d", cufftMakePlan1d(plan, 8, CUFFT_C2C, 1, &work_size));
  report("cufftPlan1d", cufftPlan1d(&plan1d, 16, CUFFT_C2C, 1));
  report("cufftExecC2C", cufftExecC2C(plan, in, out, CUFFT_FORWARD));
  report("cufftGetVersion", cufftGetVersion(&version));
  report("cufftDestroy", cufftDestroy(plan1d));
  report("cufftDestroy", cufftDestroy(plan));

  const unsigned long long calls = fakeVendorCallCount(NULL);
  for (unsigned long long index = 0; index < calls; ++index) {
    FakeVendorCall call;
    if (!fakeVendorCallAt(index, &call)) break;
    printf("fake call: %s(", call.name);
    for (int arg = 0; arg < call.argc; ++arg) printf("%s0x%llx", arg > 0 ? ", " : "", call.args[arg]);
    printf(") -> %d\n", call.status);
  }
  printf("fake: %llu calls, %llu misuse\n", calls, fakeVendorMisuseCount());
  fflush(stdout);
  return g_failed;
}
