/* The fake vendor's call log and controls (libidgpu_fake_vendor_log.so).
 *
 * The fake libcufft.so.N and libcusparse.so.N the CPU tests load in place of NVIDIA's libraries
 * record every call here: its name, its arguments (as 64-bit values, see support/bits.h), what
 * the fake wrote through an output pointer and the status it returned. The log is a library of
 * its own so that the two fakes (opened by libidgpu with RTLD_LOCAL) and the test program (which
 * links it) share one instance.
 */
#ifndef IDGPU_TEST_FAKE_VENDOR_H
#define IDGPU_TEST_FAKE_VENDOR_H

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_VENDOR_EXPORT __attribute__((visibility("default")))

enum {
  FAKE_VENDOR_MAX_ARGS = 16,
  FAKE_VENDOR_MAX_NAME = 64,
  /* Calls kept since the last reset (counting continues beyond). */
  FAKE_VENDOR_HISTORY = 4096
};

/* Vendor cuFFT handles are FAKE_VENDOR_FIRST_CUFFT_HANDLE, +1, ...: never a value libidgpu hands
 * out first, so a handle that reaches the fake untranslated is noticed. */
#define FAKE_VENDOR_FIRST_CUFFT_HANDLE 1000
/* What every fake writes through a size_t* output (work sizes, buffer sizes). */
#define FAKE_VENDOR_WORK_SIZE 0x5EED5A17ull
/* cusparseCreate's handles and cusparseGetStream's stream. */
#define FAKE_VENDOR_FIRST_CUSPARSE_HANDLE 0xC5A0000ull
/* cudaStreamLegacy: a stream the CUDA runtime accepts, should these tests run where a GPU is. */
#define FAKE_VENDOR_STREAM 0x1ull

typedef struct FakeVendorCall {
  char name[FAKE_VENDOR_MAX_NAME];
  int argc;
  unsigned long long args[FAKE_VENDOR_MAX_ARGS];
  unsigned long long out; /* the handle, size or stream written; 0 when nothing was written */
  int status;
  unsigned long long sequence; /* 1, 2, ... in the order calls were recorded */
} FakeVendorCall;

/* Forgets calls, counts, chosen statuses and misuse; live handles are kept. */
FAKE_VENDOR_EXPORT void fakeVendorReset(void);
/* 1 and *call filled when a call was recorded since the reset (by any thread / by this thread). */
FAKE_VENDOR_EXPORT int fakeVendorLastCall(FakeVendorCall *call);
FAKE_VENDOR_EXPORT int fakeVendorThreadLastCall(FakeVendorCall *call);
/* The index-th call since the reset (0-based), while index < FAKE_VENDOR_HISTORY. */
FAKE_VENDOR_EXPORT int fakeVendorCallAt(unsigned long long index, FakeVendorCall *call);
/* Calls of `name` since the reset; every call when name is NULL. */
FAKE_VENDOR_EXPORT unsigned long long fakeVendorCallCount(const char *name);
/* The status `name` returns from now on (until the reset); the default is success. */
FAKE_VENDOR_EXPORT void fakeVendorSetStatus(const char *name, int status);
/* Calls that passed a cuFFT handle the fake never handed out or had already destroyed. */
FAKE_VENDOR_EXPORT unsigned long long fakeVendorMisuseCount(void);
/* cuFFT handles created and not yet destroyed. */
FAKE_VENDOR_EXPORT long long fakeVendorLiveCufftHandles(void);

/* For the fakes themselves. */
FAKE_VENDOR_EXPORT int fakeVendorChosenStatus(const char *name, int *status);
FAKE_VENDOR_EXPORT void fakeVendorRecord(const FakeVendorCall *call);
FAKE_VENDOR_EXPORT int fakeVendorNewCufftHandle(void);
/* 1 when the handle was live (it is not any more). */
FAKE_VENDOR_EXPORT int fakeVendorReleaseCufftHandle(int handle);
FAKE_VENDOR_EXPORT int fakeVendorIsLiveCufftHandle(int handle);
FAKE_VENDOR_EXPORT void fakeVendorNoteMisuse(void);
FAKE_VENDOR_EXPORT unsigned long long fakeVendorNewCusparseHandle(void);

#ifdef __cplusplus
}
#endif

#endif /* IDGPU_TEST_FAKE_VENDOR_H */
