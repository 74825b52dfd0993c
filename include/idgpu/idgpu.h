/* idgpu: the library's own C API, beside the cuFFT and cuSPARSE APIs it serves.
 *
 * Version, dispatch policy and dispatch statistics. The same controls exist as environment
 * variables (IDGPU_POLICY, IDGPU_REPORT, IDGPU_LOG), read once when the library loads; the calls
 * here change or read them at run time.
 */
#ifndef IDGPU_IDGPU_H
#define IDGPU_IDGPU_H

#include <stddef.h>
#include <stdio.h>

#include "idgpu/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum idgpuStatus_t {
  IDGPU_STATUS_SUCCESS = 0,
  IDGPU_STATUS_INVALID_VALUE = 1,
  IDGPU_STATUS_NOT_FOUND = 2
} idgpuStatus_t;

/* Which side serves a call: ours where it is faster (the default), always the vendor, or ours
 * wherever a native path exists (the vendor elsewhere, with a log line). */
typedef enum idgpuPolicy_t {
  IDGPU_POLICY_AUTO = 0,
  IDGPU_POLICY_VENDOR = 1,
  IDGPU_POLICY_NATIVE = 2
} idgpuPolicy_t;

/* Which vendor library a call concerns. */
typedef enum idgpuVendorLibrary_t {
  IDGPU_VENDOR_CUFFT = 0,
  IDGPU_VENDOR_CUSPARSE = 1
} idgpuVendorLibrary_t;

/* Dispatch statistics of one exported vendor function. gpuMilliseconds and timedCalls are
 * filled only when IDGPU_REPORT=timing. */
typedef struct idgpuCallStats_t {
  const char *name;
  unsigned long long calls;
  unsigned long long nativeCalls;
  unsigned long long vendorCalls;
  unsigned long long failedCalls;
  unsigned long long timedCalls;
  double gpuMilliseconds;
} idgpuCallStats_t;

/* IDGPU_VERSION_MAJOR * 10000 + IDGPU_VERSION_MINOR * 100 + IDGPU_VERSION_PATCH of the loaded
 * library (which may differ from the header's IDGPU_VERSION). */
int idgpuGetVersion(void);
const char *idgpuGetVersionString(void);

idgpuStatus_t idgpuSetPolicy(idgpuPolicy_t policy);
idgpuStatus_t idgpuGetPolicy(idgpuPolicy_t *policy);

/* The functions with statistics are numbered 0 .. idgpuGetCallStatsCount()-1. */
int idgpuGetCallStatsCount(void);
idgpuStatus_t idgpuGetCallStats(int index, idgpuCallStats_t *stats);
/* By exported name, e.g. "cufftExecC2C"; IDGPU_STATUS_NOT_FOUND for a name we do not export. */
idgpuStatus_t idgpuGetCallStatsByName(const char *name, idgpuCallStats_t *stats);
idgpuStatus_t idgpuResetCallStats(void);
/* Writes the dispatch report (as printed at exit with IDGPU_REPORT=1) to stream. */
idgpuStatus_t idgpuWriteReport(FILE *stream);

/* The path of the vendor library calls are forwarded to, loading it if needed; NULL when it
 * cannot be found (the log says where it looked). */
const char *idgpuGetVendorLibraryPath(idgpuVendorLibrary_t library);

#ifdef __cplusplus
}
#endif

#endif /* IDGPU_IDGPU_H */
