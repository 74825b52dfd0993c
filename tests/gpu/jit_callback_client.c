/* A cuFFT client with JIT (LTO) load and store callbacks, linked against the vendor libraries
 * (never against idgpu), the way CuPy drives cuFFT: cufftCreate, cufftXtSetJITCallback,
 * cufftMakePlan*. run_jit_callback_compare.sh runs it against the vendor alone and under
 * LD_PRELOAD=libidgpu.so.0 (IDGPU_POLICY unset, then native) and compares. Modes:
 *
 *   jit_callback_client callbacks GROUP OUTDIR
 *       the vendor run: the GROUP's callback plans, each output written to OUTDIR/<case>.bin and
 *       checked against the same plan made without callbacks, run on the host-loaded input with
 *       the store applied on the host (jit_callbacks.h): the callbacks must have run (equal within
 *       rounding to that, far from the plain transform of the same input)
 *   jit_callback_client callbacks GROUP OUTDIR REFDIR
 *       the idgpu runs: the same plans, each output compared in this process with the vendor
 *       run's REFDIR/<case>.bin (relative L2 error within rounding); no outputs written
 *   jit_callback_client plain OUTDIR
 *       the plans of both groups without callbacks, one execution each (where dispatch would send
 *       them without callbacks: the driver reads idgpu's report of this run)
 *
 * GROUP:
 *   before  callbacks set between cufftCreate and cufftMakePlan* (CuPy's order); every execution
 *           of this group is on a plan whose callbacks were accepted (a plan whose callbacks the
 *           library refused is not executed), so a dispatch report of the run must count no
 *           native execution and no native plan at all
 *   after   plan made first, then callbacks set (some cases execute once before that); an
 *           execution on a plan whose callbacks were accepted goes through cufftExecC2C/Z2Z, any
 *           other (before the callbacks, or after the library refused them) through cufftXtExec,
 *           so the report's cufftExecC2C/Z2Z rows must count no native execution
 *
 * Every OUTDIR (which must exist) gets steps.txt ("case step status": the status of each call, to
 * be equal between the runs), called.txt ("function calls calls_on_callback_plans": the calls this
 * process made; make and exec calls on plans with callbacks in effect counted apart) and, in
 * callbacks mode, results.txt (one line per case).
 *
 * Exit status: 0 success, 1 failure, 2 usage, 77 no CUDA device.
 *
 * Inputs are random with fixed seeds (one per case, from its name) and never zero; outputs are
 * poisoned with 0xFF bytes (NaN) before each execution and a NaN left in one fails the case.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cufftXt.h>

#include "callbacks/jit_callbacks.h"
#include "gpu_test_api.h"

/* The callbacks as LTO-IR fatbins, embedded at build time (CMakeLists.txt). */
#include "jit_load_c_fatbin.h"
#include "jit_load_z_fatbin.h"
#include "jit_store_c_fatbin.h"
#include "jit_store_z_fatbin.h"

/* ---- Cases ------------------------------------------------------------------------------------- */

typedef enum Group { GROUP_BEFORE, GROUP_AFTER } Group;
typedef enum MakeApi { MK_MAKE1D, MK_MAKEMANY, MK_MAKEMANY64, MK_XT } MakeApi;
typedef enum ExecApi { EX_TYPED, EX_XT } ExecApi; /* cufftExecC2C / Z2Z, or cufftXtExec */

typedef struct JitCase {
  const char *name;
  Group group;
  MakeApi api;
  int dbl; /* Z2Z (fp64) rather than C2C (fp32) */
  long long n;
  long long batch;
  int direction;
  int exec_first; /* after: one execution without callbacks between the plan and the callbacks */
  int native_by_default; /* without callbacks, dispatch sends this plan native on an H100 */
} JitCase;

enum { FP32 = 0, FP64 = 1 };
enum { ONCE = 0, EXEC_FIRST = 1 };
enum { OPT_IN = 0, DEFAULT = 1 }; /* native only under IDGPU_POLICY=native, or by default (H100) */

/* Every case is 1D, out of place, default layout (unit stride, distance n): the layout idgpu's
 * native planner takes. The first cases of each group are where dispatch picks the native plan by
 * default on an H100 (fp32 2^15..2^20 at 2^26 points, fp64 2^17 at 2^25: src/fft/tuning.cpp);
 * the rest go native only under IDGPU_POLICY=native (1D C2C/Z2Z with factors <= 13). */
/* clang-format off */
static const JitCase g_cases[] = {
  {"before_c2c_make1d_n32768_b2048_fwd",    GROUP_BEFORE, MK_MAKE1D,     FP32, 1LL << 15, 1LL << 11, CUFFT_FORWARD, ONCE, DEFAULT},
  {"before_c2c_makemany_n65536_b1024_inv",  GROUP_BEFORE, MK_MAKEMANY,   FP32, 1LL << 16, 1LL << 10, CUFFT_INVERSE, ONCE, DEFAULT},
  {"before_c2c_makemany64_n131072_b512_fwd",GROUP_BEFORE, MK_MAKEMANY64, FP32, 1LL << 17, 1LL << 9,  CUFFT_FORWARD, ONCE, DEFAULT},
  {"before_c2c_xt_n1048576_b64_fwd",        GROUP_BEFORE, MK_XT,         FP32, 1LL << 20, 1LL << 6,  CUFFT_FORWARD, ONCE, DEFAULT},
  {"before_z2z_makemany64_n131072_b256_inv",GROUP_BEFORE, MK_MAKEMANY64, FP64, 1LL << 17, 1LL << 8,  CUFFT_INVERSE, ONCE, DEFAULT},
  {"before_c2c_make1d_n64_b4096_fwd",       GROUP_BEFORE, MK_MAKE1D,     FP32, 64,        4096,      CUFFT_FORWARD, ONCE, OPT_IN},
  {"before_c2c_makemany_n1000_b1000_inv",   GROUP_BEFORE, MK_MAKEMANY,   FP32, 1000,      1000,      CUFFT_INVERSE, ONCE, OPT_IN},
  {"before_c2c_xt_n4096_b256_fwd",          GROUP_BEFORE, MK_XT,         FP32, 4096,      256,       CUFFT_FORWARD, ONCE, OPT_IN},
  {"before_c2c_makemany64_n16384_b64_fwd",  GROUP_BEFORE, MK_MAKEMANY64, FP32, 1LL << 14, 64,        CUFFT_FORWARD, ONCE, OPT_IN},
  {"before_z2z_make1d_n16384_b64_fwd",      GROUP_BEFORE, MK_MAKE1D,     FP64, 1LL << 14, 64,        CUFFT_FORWARD, ONCE, OPT_IN},
  {"before_z2z_xt_n131072_b8_inv",          GROUP_BEFORE, MK_XT,         FP64, 1LL << 17, 8,         CUFFT_INVERSE, ONCE, OPT_IN},
  {"after_c2c_make1d_n65536_b1024_fwd",     GROUP_AFTER,  MK_MAKE1D,     FP32, 1LL << 16, 1LL << 10, CUFFT_FORWARD, ONCE, DEFAULT},
  {"after_c2c_makemany_n1048576_b64_inv_execfirst", GROUP_AFTER, MK_MAKEMANY, FP32, 1LL << 20, 1LL << 6, CUFFT_INVERSE, EXEC_FIRST, DEFAULT},
  {"after_z2z_makemany64_n16384_b64_fwd",   GROUP_AFTER,  MK_MAKEMANY64, FP64, 1LL << 14, 64,        CUFFT_FORWARD, ONCE, OPT_IN},
  {"after_c2c_make1d_n1000_b64_fwd_execfirst", GROUP_AFTER, MK_MAKE1D,   FP32, 1000,      64,        CUFFT_FORWARD, EXEC_FIRST, OPT_IN},
};
/* clang-format on */
enum { CASE_COUNT = (int)(sizeof(g_cases) / sizeof(g_cases[0])) };

/* ---- Bookkeeping ------------------------------------------------------------------------------- */

static int g_failures = 0;
static FILE *g_steps = NULL;
static FILE *g_results = NULL;
static cudaStream_t g_stream = NULL;
/* caller_info of every callback: an array of device pointers, one per GPU, that lives as long as
 * the process (cuFFT may read it when the plan is made, after cufftXtSetJITCallback returned). */
static void *g_caller_info[1] = {NULL};
static IdgpuJitCallbackInfo g_info_host;

typedef struct CallCount {
  char name[48];
  unsigned long long calls;
  unsigned long long on_callback_plans;
} CallCount;
static CallCount g_calls[32];
static int g_call_kinds = 0;

static void note_call(const char *name, int on_callback_plan) {
  int index = 0;
  while (index < g_call_kinds && strcmp(g_calls[index].name, name) != 0) index++;
  if (index == g_call_kinds) {
    if (g_call_kinds == (int)(sizeof(g_calls) / sizeof(g_calls[0]))) return;
    snprintf(g_calls[index].name, sizeof(g_calls[index].name), "%s", name);
    g_call_kinds++;
  }
  g_calls[index].calls++;
  if (on_callback_plan) g_calls[index].on_callback_plans++;
}

static void record_step(const JitCase *c, const char *step, int status) {
  fprintf(g_steps, "%s %s %d\n", c->name, step, status);
  fflush(g_steps);
}

static void fail_case(const JitCase *c, const char *what) {
  fprintf(stderr, "FAIL %s: %s\n", c->name, what);
  printf("FAIL %s: %s\n", c->name, what);
  g_failures++;
}

static FILE *open_in(const char *dir, const char *name, const char *how) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *file = fopen(path, how);
  if (file == NULL) fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
  return file;
}

static int write_calls(const char *dir) {
  FILE *file = open_in(dir, "called.txt", "w");
  if (file == NULL) return -1;
  for (int index = 0; index < g_call_kinds; ++index) {
    fprintf(file, "%s %llu %llu\n", g_calls[index].name, g_calls[index].calls, g_calls[index].on_callback_plans);
  }
  fclose(file);
  return 0;
}

/* ---- Numbers ----------------------------------------------------------------------------------- */

/* Rounding allowed between two computations of one transform: 8 eps log2(n), relative L2 (about
 * 1e-5 in fp32 and 2e-14 in fp64 at n = 2^20 and 2^17; cuFFT's own error is well below). */
static double tolerance(const JitCase *c) {
  const double eps = c->dbl ? ldexp(1.0, -53) : ldexp(1.0, -24);
  return 8.0 * eps * ceil(log2((double)c->n));
}

static size_t scalar_count(const JitCase *c) { return (size_t)(c->n * c->batch) * 2; }
static size_t data_bytes(const JitCase *c) { return scalar_count(c) * (c->dbl ? 8 : 4); }

/* ||x - reference|| / ||reference||, over all scalars; NaN when either holds a NaN. */
static double relative_l2(const JitCase *c, const void *x, const void *reference) {
  const size_t count = scalar_count(c);
  const int bytes = c->dbl ? 8 : 4;
  double difference = 0.0;
  double norm = 0.0;
  for (size_t index = 0; index < count; ++index) {
    const double r = idgpu_test_load(reference, index, bytes);
    const double d = idgpu_test_load(x, index, bytes) - r;
    difference += d * d;
    norm += r * r;
  }
  return sqrt(difference) / sqrt(norm);
}

static size_t count_nans(const JitCase *c, const void *data) {
  const size_t count = scalar_count(c);
  const int bytes = c->dbl ? 8 : 4;
  size_t nans = 0;
  for (size_t index = 0; index < count; ++index) {
    if (isnan(idgpu_test_load(data, index, bytes))) nans++;
  }
  return nans;
}

/* The load callback on the host: element (b, i) of the default layout sits at offset b * n + i. */
static void apply_load(const JitCase *c, const void *input, void *loaded) {
  const unsigned long long elements = (unsigned long long)(c->n * c->batch);
  for (unsigned long long offset = 0; offset < elements; ++offset) {
    if (c->dbl) {
      ((cufftDoubleComplex *)loaded)[offset] =
          idgpu_jit_load_value_z(((const cufftDoubleComplex *)input)[offset], offset, &g_info_host);
    } else {
      ((cufftComplex *)loaded)[offset] = idgpu_jit_load_value_c(((const cufftComplex *)input)[offset], offset, &g_info_host);
    }
  }
}

static void apply_store(const JitCase *c, void *data) {
  const unsigned long long elements = (unsigned long long)(c->n * c->batch);
  for (unsigned long long offset = 0; offset < elements; ++offset) {
    if (c->dbl) {
      cufftDoubleComplex *element = (cufftDoubleComplex *)data + offset;
      *element = idgpu_jit_store_value_z(*element, offset, &g_info_host);
    } else {
      cufftComplex *element = (cufftComplex *)data + offset;
      *element = idgpu_jit_store_value_c(*element, offset, &g_info_host);
    }
  }
}

/* ---- Buffers ----------------------------------------------------------------------------------- */

typedef enum Mode { MODE_CALLBACKS, MODE_PLAIN } Mode;

typedef struct Buffers {
  unsigned char *input; /* the raw input (host) */
  unsigned char *output;
  unsigned char *scratch_a; /* callbacks mode: the reference (vendor run) or the vendor's output */
  unsigned char *scratch_b; /* vendor run: the plain transform */
  void *d_input;
  void *d_output;
} Buffers;

/* ---- cuFFT calls ------------------------------------------------------------------------------- */

static cufftResult make_plan(const JitCase *c, cufftHandle plan, const char **function) {
  const cufftType type = c->dbl ? CUFFT_Z2Z : CUFFT_C2C;
  size_t work_size = 0;
  int n32[1] = {(int)c->n};
  long long n64[1] = {c->n};
  switch (c->api) {
    case MK_MAKE1D:
      *function = "cufftMakePlan1d";
      return cufftMakePlan1d(plan, (int)c->n, type, (int)c->batch, &work_size);
    case MK_MAKEMANY:
      *function = "cufftMakePlanMany";
      return cufftMakePlanMany(plan, 1, n32, NULL, 1, (int)c->n, NULL, 1, (int)c->n, type, (int)c->batch, &work_size);
    case MK_MAKEMANY64:
      *function = "cufftMakePlanMany64";
      return cufftMakePlanMany64(plan, 1, n64, NULL, 1, c->n, NULL, 1, c->n, type, c->batch, &work_size);
    case MK_XT: {
      const cudaDataType data_type = c->dbl ? CUDA_C_64F : CUDA_C_32F;
      *function = "cufftXtMakePlanMany";
      return cufftXtMakePlanMany(plan, 1, n64, NULL, 1, c->n, data_type, NULL, 1, c->n, data_type, c->batch, &work_size,
                                 data_type);
    }
  }
  *function = "(none)";
  return CUFFT_INVALID_VALUE;
}

/* The execution a plan made through `api` naturally takes. */
static ExecApi natural_exec(const JitCase *c) { return c->api == MK_XT ? EX_XT : EX_TYPED; }

static cufftResult exec_plan(const JitCase *c, cufftHandle plan, ExecApi api, void *input, void *output,
                             const char **function) {
  if (api == EX_XT) {
    *function = "cufftXtExec";
    return cufftXtExec(plan, input, output, c->direction);
  }
  if (c->dbl) {
    *function = "cufftExecZ2Z";
    return cufftExecZ2Z(plan, (cufftDoubleComplex *)input, (cufftDoubleComplex *)output, c->direction);
  }
  *function = "cufftExecC2C";
  return cufftExecC2C(plan, (cufftComplex *)input, (cufftComplex *)output, c->direction);
}

/* Sets the load and the store callback; whether both were accepted. */
static int set_callbacks(const JitCase *c, cufftHandle plan, const char *load_step, const char *store_step) {
  const cufftResult load_status =
      c->dbl ? cufftXtSetJITCallback(plan, IDGPU_JIT_LOAD_Z_SYMBOL, idgpu_jit_load_z_fatbin, sizeof(idgpu_jit_load_z_fatbin),
                                     CUFFT_CB_LD_COMPLEX_DOUBLE, g_caller_info)
             : cufftXtSetJITCallback(plan, IDGPU_JIT_LOAD_C_SYMBOL, idgpu_jit_load_c_fatbin, sizeof(idgpu_jit_load_c_fatbin),
                                     CUFFT_CB_LD_COMPLEX, g_caller_info);
  note_call("cufftXtSetJITCallback", 0);
  record_step(c, load_step, (int)load_status);
  const cufftResult store_status =
      c->dbl ? cufftXtSetJITCallback(plan, IDGPU_JIT_STORE_Z_SYMBOL, idgpu_jit_store_z_fatbin,
                                     sizeof(idgpu_jit_store_z_fatbin), CUFFT_CB_ST_COMPLEX_DOUBLE, g_caller_info)
             : cufftXtSetJITCallback(plan, IDGPU_JIT_STORE_C_SYMBOL, idgpu_jit_store_c_fatbin,
                                     sizeof(idgpu_jit_store_c_fatbin), CUFFT_CB_ST_COMPLEX, g_caller_info);
  note_call("cufftXtSetJITCallback", 0);
  record_step(c, store_step, (int)store_status);
  printf("     %s: %s -> %d, %s -> %d\n", c->name, load_step, (int)load_status, store_step, (int)store_status);
  return load_status == CUFFT_SUCCESS && store_status == CUFFT_SUCCESS;
}

/* Uploads the input, poisons the output, executes, waits: 0 when the call and the stream
 * succeeded. (The input is uploaded again before each execution: a library may use it as scratch.) */
static int execute(const JitCase *c, cufftHandle plan, ExecApi api, const Buffers *b, const char *step,
                   int on_callback_plan) {
  const char *function = NULL;
  cudaError_t cuda_status = cudaMemcpyAsync(b->d_input, b->input, data_bytes(c), cudaMemcpyHostToDevice, g_stream);
  if (cuda_status == cudaSuccess) cuda_status = cudaMemsetAsync(b->d_output, 0xFF, data_bytes(c), g_stream);
  if (cuda_status != cudaSuccess) {
    fail_case(c, cudaGetErrorName(cuda_status));
    return -1;
  }
  const cufftResult status = exec_plan(c, plan, api, b->d_input, b->d_output, &function);
  note_call(function, on_callback_plan);
  record_step(c, step, (int)status);
  cuda_status = cudaStreamSynchronize(g_stream);
  record_step(c, "sync", (int)cuda_status);
  printf("     %s: %s %s -> %d (%s)\n", c->name, step, function, (int)status, cudaGetErrorName(cuda_status));
  return status == CUFFT_SUCCESS && cuda_status == cudaSuccess ? 0 : -1;
}

/* ---- The vendor's reference: the plan without callbacks, callbacks applied on the host --------- */

/* Fills `expected` (the plain plan run on the host-loaded input, the store applied on the host)
 * and `plain` (the plain plan on the raw input). `input` is the raw input. */
static int vendor_reference(const JitCase *c, const void *input, void *expected, void *plain, void *d_input,
                            void *d_output) {
  const size_t bytes = data_bytes(c);
  cufftHandle plan = 0;
  const char *function = NULL;
  if (cufftCreate(&plan) != CUFFT_SUCCESS || cufftSetStream(plan, g_stream) != CUFFT_SUCCESS ||
      make_plan(c, plan, &function) != CUFFT_SUCCESS) {
    fail_case(c, "the reference plan (no callbacks) could not be made");
    return -1;
  }
  int status = 0;
  for (int pass = 0; pass < 2 && status == 0; ++pass) {
    void *target = pass == 0 ? expected : plain;
    if (pass == 0) {
      apply_load(c, input, expected);
      status |= cudaMemcpyAsync(d_input, expected, bytes, cudaMemcpyHostToDevice, g_stream) != cudaSuccess;
    } else {
      status |= cudaMemcpyAsync(d_input, input, bytes, cudaMemcpyHostToDevice, g_stream) != cudaSuccess;
    }
    status |= cudaMemsetAsync(d_output, 0xFF, bytes, g_stream) != cudaSuccess;
    status |= exec_plan(c, plan, natural_exec(c), d_input, d_output, &function) != CUFFT_SUCCESS;
    status |= cudaStreamSynchronize(g_stream) != cudaSuccess;
    status |= cudaMemcpy(target, d_output, bytes, cudaMemcpyDeviceToHost) != cudaSuccess;
  }
  cufftDestroy(plan);
  if (status != 0) {
    fail_case(c, "the reference plan (no callbacks) failed to execute");
    return -1;
  }
  apply_store(c, expected);
  return 0;
}

/* The vendor run's checks of one output; writes the output for the idgpu runs. */
static void check_vendor_output(const JitCase *c, const void *input, const void *output, int in_effect,
                                const char *outdir, void *scratch_a, void *scratch_b, void *d_input, void *d_output) {
  if (vendor_reference(c, input, scratch_a, scratch_b, d_input, d_output) != 0) return;
  const double tol = tolerance(c);
  const double d_expected = relative_l2(c, output, scratch_a);
  const double d_plain = relative_l2(c, output, scratch_b);
  const char *verdict = "neither";
  if (d_expected <= tol) {
    verdict = "applied";
  } else if (d_plain <= tol) {
    verdict = "not-applied";
  }
  printf("RESULT %-48s callbacks %s: to the host-applied callbacks %.3e, to the plain transform %.3e (tol %.3e)\n",
         c->name, verdict, d_expected, d_plain, tol);
  fprintf(g_results, "%s verdict=%s in_effect=%d d_expected=%.6e d_plain=%.6e tol=%.6e\n", c->name, verdict, in_effect,
          d_expected, d_plain, tol);
  if (strcmp(verdict, "neither") == 0) {
    fail_case(c, "the output is neither the callbacks' result nor the plain transform (within rounding)");
  } else if (strcmp(verdict, "applied") == 0 && !(d_plain > 0.1)) {
    fail_case(c, "the callbacks' result is too close to the plain transform: the test cannot tell them apart");
  } else if (strcmp(verdict, "not-applied") == 0 && c->group == GROUP_BEFORE) {
    fail_case(c, "the vendor accepted the callbacks set before the plan and did not run them");
  } else if (strcmp(verdict, "not-applied") == 0 && in_effect) {
    printf("NOTE %s: the vendor accepted the callbacks set after the plan but did not run them\n", c->name);
  } else if (strcmp(verdict, "applied") == 0 && !in_effect) {
    printf("NOTE %s: the vendor refused a callback but ran the callbacks\n", c->name);
  }
  FILE *file = NULL;
  char name[256];
  snprintf(name, sizeof(name), "%s.bin", c->name);
  file = open_in(outdir, name, "wb");
  if (file == NULL || fwrite(output, 1, data_bytes(c), file) != data_bytes(c)) fail_case(c, "cannot write the output");
  if (file != NULL) fclose(file);
}

/* The idgpu run's check: the output equals the vendor run's within rounding. */
static void check_against(const JitCase *c, const void *output, const char *refdir, void *scratch) {
  char name[256];
  snprintf(name, sizeof(name), "%s.bin", c->name);
  FILE *file = open_in(refdir, name, "rb");
  if (file == NULL) {
    fail_case(c, "the vendor run left no output for this case");
    return;
  }
  const size_t got = fread(scratch, 1, data_bytes(c), file);
  const int extra = fgetc(file) != EOF;
  fclose(file);
  if (got != data_bytes(c) || extra) {
    fail_case(c, "the vendor run's output has another size");
    return;
  }
  const double tol = tolerance(c);
  const double error = relative_l2(c, output, scratch);
  const int identical = memcmp(output, scratch, data_bytes(c)) == 0;
  printf("RESULT %-48s relative L2 error to the vendor's output %.3e (tol %.3e)%s\n", c->name, error, tol,
         identical ? ", bit-identical" : "");
  fprintf(g_results, "%s rel_to_vendor=%.6e tol=%.6e identical=%d\n", c->name, error, tol, identical);
  if (!(error <= tol)) fail_case(c, "the output differs from the vendor's by more than rounding");
}

/* ---- One case ---------------------------------------------------------------------------------- */

static void release(Buffers *b) {
  if (b->d_input != NULL) cudaFree(b->d_input);
  if (b->d_output != NULL) cudaFree(b->d_output);
  free(b->input);
  free(b->output);
  free(b->scratch_a);
  free(b->scratch_b);
}

static int allocate(const JitCase *c, Mode mode, const char *refdir, Buffers *b) {
  const size_t bytes = data_bytes(c);
  b->input = (unsigned char *)malloc(bytes);
  b->output = (unsigned char *)malloc(bytes);
  if (mode == MODE_CALLBACKS) b->scratch_a = (unsigned char *)malloc(bytes);
  if (mode == MODE_CALLBACKS && refdir == NULL) b->scratch_b = (unsigned char *)malloc(bytes);
  if (b->input == NULL || b->output == NULL || (mode == MODE_CALLBACKS && b->scratch_a == NULL) ||
      (mode == MODE_CALLBACKS && refdir == NULL && b->scratch_b == NULL)) {
    fail_case(c, "out of host memory");
    return -1;
  }
  if (cudaMalloc(&b->d_input, bytes) != cudaSuccess || cudaMalloc(&b->d_output, bytes) != cudaSuccess) {
    fail_case(c, "out of device memory");
    return -1;
  }
  unsigned long long state = idgpu_test_seed(c->name);
  idgpu_test_fill_random(b->input, scalar_count(c), c->dbl ? 8 : 4, &state);
  return 0;
}

/* The vendor run counts the cases where a callback plan at a size dispatch sends native by
 * default ran its callbacks: with none, the test would test nothing. */
static int g_default_native_applied = 0;

static void run_plan(const JitCase *c, Mode mode, const char *outdir, const char *refdir, Buffers *b) {
  cufftHandle plan = 0;
  const cufftResult created = cufftCreate(&plan);
  note_call("cufftCreate", 0);
  record_step(c, "create", (int)created);
  if (created != CUFFT_SUCCESS) {
    fail_case(c, "cufftCreate failed");
    return;
  }
  note_call("cufftSetStream", 0);
  record_step(c, "set_stream", (int)cufftSetStream(plan, g_stream));

  int in_effect = 0; /* both callbacks accepted */
  if (mode == MODE_CALLBACKS && c->group == GROUP_BEFORE) in_effect = set_callbacks(c, plan, "set_load", "set_store");
  const char *function = NULL;
  const cufftResult made = make_plan(c, plan, &function);
  note_call(function, in_effect);
  record_step(c, "make", (int)made);
  printf("     %s: %s -> %d\n", c->name, function, (int)made);

  int executed = 0;
  if (made == CUFFT_SUCCESS) {
    if (mode == MODE_PLAIN) {
      executed = execute(c, plan, natural_exec(c), b, "exec", 0) == 0;
    } else if (c->group == GROUP_BEFORE) {
      /* A plan whose callbacks were refused is not executed: every execution of this group is
       * on a callback plan. */
      if (in_effect) executed = execute(c, plan, natural_exec(c), b, "exec", 1) == 0;
    } else {
      if (c->exec_first && execute(c, plan, EX_XT, b, "exec_before_callbacks", 0) == 0) {
        if (cudaMemcpy(b->output, b->d_output, data_bytes(c), cudaMemcpyDeviceToHost) != cudaSuccess) {
          fail_case(c, "cudaMemcpy failed");
        } else if (count_nans(c, b->output) != 0) {
          fail_case(c, "NaN left in the output of the execution before the callbacks");
        }
      }
      in_effect = set_callbacks(c, plan, "set_load_after_plan", "set_store_after_plan");
      executed = execute(c, plan, in_effect ? EX_TYPED : EX_XT, b, "exec", in_effect) == 0;
    }
  }
  if (executed && cudaMemcpy(b->output, b->d_output, data_bytes(c), cudaMemcpyDeviceToHost) != cudaSuccess) {
    fail_case(c, "cudaMemcpy failed");
    executed = 0;
  }
  note_call("cufftDestroy", 0);
  record_step(c, "destroy", (int)cufftDestroy(plan));

  if (mode == MODE_PLAIN) {
    if (executed && count_nans(c, b->output) != 0) fail_case(c, "NaN values left in the output");
    return;
  }
  if (!executed) {
    fprintf(g_results, "%s not-executed in_effect=%d\n", c->name, in_effect);
    printf("RESULT %-48s not executed (statuses in steps.txt)\n", c->name);
    if (refdir == NULL && c->group == GROUP_BEFORE) {
      printf("NOTE %s: the vendor did not run this callback plan (statuses in steps.txt)\n", c->name);
    }
    return;
  }
  const size_t nans = count_nans(c, b->output);
  if (nans != 0) {
    char what[128];
    snprintf(what, sizeof(what), "%zu NaN values left in the output", nans);
    fail_case(c, what);
    return;
  }
  if (refdir != NULL) {
    check_against(c, b->output, refdir, b->scratch_a);
    return;
  }
  const int before_failures = g_failures;
  check_vendor_output(c, b->input, b->output, in_effect, outdir, b->scratch_a, b->scratch_b, b->d_input, b->d_output);
  if (g_failures == before_failures && c->group == GROUP_BEFORE && c->native_by_default) g_default_native_applied++;
}

static void run_case(const JitCase *c, Mode mode, const char *outdir, const char *refdir) {
  Buffers buffers;
  memset(&buffers, 0, sizeof(buffers));
  if (allocate(c, mode, refdir, &buffers) == 0) run_plan(c, mode, outdir, refdir, &buffers);
  release(&buffers);
}

/* ---- Main -------------------------------------------------------------------------------------- */

static int usage(const char *self) {
  fprintf(stderr, "usage: %s callbacks before|after OUTDIR [REFDIR] | plain OUTDIR\n", self);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage(argv[0]);
  const char *mode_name = argv[1];
  Mode mode;
  Group group = GROUP_BEFORE;
  const char *outdir = NULL;
  const char *refdir = NULL;
  if (strcmp(mode_name, "callbacks") == 0 && (argc == 4 || argc == 5)) {
    mode = MODE_CALLBACKS;
    if (strcmp(argv[2], "before") == 0) {
      group = GROUP_BEFORE;
    } else if (strcmp(argv[2], "after") == 0) {
      group = GROUP_AFTER;
    } else {
      return usage(argv[0]);
    }
    outdir = argv[3];
    refdir = argc == 5 ? argv[4] : NULL;
  } else if (strcmp(mode_name, "plain") == 0 && argc == 3) {
    mode = MODE_PLAIN;
    outdir = argv[2];
  } else {
    return usage(argv[0]);
  }

  int devices = 0;
  const cudaError_t device_status = cudaGetDeviceCount(&devices);
  if (device_status != cudaSuccess || devices == 0) {
    printf("no CUDA device (cudaGetDeviceCount: %s, %d devices): skipped\n", cudaGetErrorName(device_status), devices);
    return 77;
  }
  g_steps = open_in(outdir, "steps.txt", "w");
  if (g_steps == NULL) return 1;
  if (mode == MODE_CALLBACKS) {
    g_results = open_in(outdir, "results.txt", "w");
    if (g_results == NULL) return 1;
  }
  if (cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking) != cudaSuccess) {
    fprintf(stderr, "cudaStreamCreate failed\n");
    return 1;
  }
  g_info_host.load_scale_f = (float)IDGPU_JIT_LOAD_SCALE;
  g_info_host.store_scale_f = (float)IDGPU_JIT_STORE_SCALE;
  g_info_host.store_shift_f = (float)IDGPU_JIT_STORE_SHIFT;
  g_info_host.unused_f = 0.0f;
  g_info_host.load_scale_d = IDGPU_JIT_LOAD_SCALE;
  g_info_host.store_scale_d = IDGPU_JIT_STORE_SCALE;
  g_info_host.store_shift_d = IDGPU_JIT_STORE_SHIFT;
  if (cudaMalloc(&g_caller_info[0], sizeof(g_info_host)) != cudaSuccess ||
      cudaMemcpy(g_caller_info[0], &g_info_host, sizeof(g_info_host), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess) {
    fprintf(stderr, "cannot place the callbacks' caller_info on the device\n");
    return 1;
  }

  int cases = 0;
  int default_native = 0;
  for (int index = 0; index < CASE_COUNT; ++index) {
    const JitCase *c = &g_cases[index];
    if (mode == MODE_CALLBACKS && c->group != group) continue;
    cases++;
    default_native += c->native_by_default;
    run_case(c, mode, outdir, refdir);
  }
  if (mode == MODE_PLAIN) printf("PLAIN native by default on an H100: %d\n", default_native);
  if (mode == MODE_CALLBACKS && group == GROUP_BEFORE && refdir == NULL && g_default_native_applied == 0) {
    fprintf(stderr, "FAIL: the vendor ran the callbacks of no plan at a size dispatch sends native by default: "
                    "nothing to test (does libcufft find libnvJitLink?)\n");
    printf("FAIL: no callback plan at a native-by-default size ran its callbacks at the vendor\n");
    g_failures++;
  }
  if (write_calls(outdir) != 0) g_failures++;
  fclose(g_steps);
  if (g_results != NULL) fclose(g_results);
  cudaFree(g_caller_info[0]);
  cudaStreamDestroy(g_stream);
  printf("%s: %d cases, %d failures\n", mode == MODE_PLAIN ? "plain" : group == GROUP_BEFORE ? "before" : "after", cases,
         g_failures);
  return g_failures == 0 ? 0 : 1;
}
