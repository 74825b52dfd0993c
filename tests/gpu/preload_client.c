/* A cuFFT / cuSPARSE-gtsv client linked against the vendor libraries (never against idgpu).
 *
 * run_preload_compare.sh runs it plainly, with LD_PRELOAD=libidgpu.so.0 and through idgpu-run,
 * and compares what it writes byte for byte. Modes:
 *
 *   preload_client run OUTDIR          every transform and solve below; one OUTDIR/<case>.bin of
 *                                      raw output bytes and one "CASE" checksum line per case,
 *                                      and OUTDIR/called.txt: each API function called, with count
 *   preload_client graph OUTDIR        one cufftExecC2C and one cusparseSgtsv2StridedBatch
 *                                      captured into a CUDA graph, launched twice, and the same
 *                                      calls run eagerly: all results must agree
 *   preload_client status FILE         the bad-input cases of status_cases.h, one "case status"
 *                                      line each ('#' lines are notes, not compared)
 *   preload_client status-case NAME    (internal) one isolated case, in a process of its own
 *
 * Exit status: 0 success, 1 failure, 2 usage, 77 no CUDA device.
 *
 * Inputs are random with fixed seeds (one per case, from its name) and never zero; out-of-place
 * outputs are poisoned with 0xFF bytes (NaN) before each call, and a NaN left in a logical output
 * element fails the case.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "status_cases.h"

extern char **environ;

static int g_failures = 0;
static const char *g_self = NULL; /* argv[0], reused for isolated children */

/* ---- Bookkeeping ------------------------------------------------------------------------------ */

/* Every API function this process calls in `run` / `graph`, with counts: the driver checks that
 * idgpu's exit report lists each of them. */
typedef struct CallCount {
  char name[64];
  unsigned long long count;
} CallCount;
static CallCount g_calls[160];
static int g_call_kinds = 0;

static void note_call(const char *name) {
  for (int index = 0; index < g_call_kinds; ++index) {
    if (strcmp(g_calls[index].name, name) == 0) {
      g_calls[index].count++;
      return;
    }
  }
  if (g_call_kinds < (int)(sizeof(g_calls) / sizeof(g_calls[0]))) {
    snprintf(g_calls[g_call_kinds].name, sizeof(g_calls[0].name), "%s", name);
    g_calls[g_call_kinds].count = 1;
    g_call_kinds++;
  }
}

static void note_gtsv(int prec, const char *shape) {
  char name[64];
  snprintf(name, sizeof(name), "cusparse%c%s", idgpu_test_prec_letter[prec], shape);
  note_call(name);
}

static int write_calls(const char *dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/called.txt", dir);
  FILE *file = fopen(path, "w");
  if (file == NULL) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  for (int index = 0; index < g_call_kinds; ++index) fprintf(file, "%s %llu\n", g_calls[index].name, g_calls[index].count);
  fclose(file);
  return 0;
}

#define FAIL(...)                                    \
  do {                                               \
    fprintf(stderr, "FAIL %s: ", case_name);         \
    fprintf(stderr, __VA_ARGS__);                    \
    fprintf(stderr, "\n");                           \
    return -1;                                       \
  } while (0)

#define CUDA_OK(expr)                                                                  \
  do {                                                                                 \
    cudaError_t cuda_status_ = (expr);                                                 \
    if (cuda_status_ != cudaSuccess) FAIL("%s: %s", #expr, cudaGetErrorName(cuda_status_)); \
  } while (0)

/* Calls a cuFFT function (counted under `name`) and fails the case unless it succeeds. */
#define CUFFT_OK(name, expr)                                                        \
  do {                                                                              \
    note_call(name);                                                                \
    cufftResult cufft_status_ = (expr);                                             \
    if (cufft_status_ != CUFFT_SUCCESS) FAIL("%s returned %d", name, (int)cufft_status_); \
  } while (0)

#define SPARSE_OK(expr)                                                                        \
  do {                                                                                         \
    int sparse_status_ = (expr);                                                               \
    if (sparse_status_ != (int)CUSPARSE_STATUS_SUCCESS) FAIL("%s returned %d", #expr, sparse_status_); \
  } while (0)

/* mkdir -p */
static int make_dir(const char *dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s", dir);
  for (char *cursor = path + 1; *cursor != '\0'; ++cursor) {
    if (*cursor != '/') continue;
    *cursor = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) break;
    *cursor = '/';
  }
  if (mkdir(path, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
    return -1;
  }
  return 0;
}

static unsigned long long fnv1a(const void *data, size_t bytes) {
  const unsigned char *cursor = (const unsigned char *)data;
  unsigned long long hash = 0xcbf29ce484222325ULL;
  for (size_t index = 0; index < bytes; ++index) {
    hash ^= cursor[index];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

static size_t count_nans(const void *data, size_t bytes, int scalar_bytes) {
  size_t nans = 0;
  const size_t count = bytes / (size_t)scalar_bytes;
  for (size_t index = 0; index < count; ++index) {
    if (isnan(idgpu_test_load(data, index, scalar_bytes))) nans++;
  }
  return nans;
}

/* Writes OUTDIR/<name>.bin and prints the case's checksum line. `logical` (may equal `data`) is
 * the case's logical output, checked for NaN (elements the call should have written). */
static int emit(const char *dir, const char *case_name, const void *data, size_t bytes, const void *logical,
                size_t logical_bytes, int scalar_bytes) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.bin", dir, case_name);
  FILE *file = fopen(path, "wb");
  if (file == NULL) FAIL("cannot write %s: %s", path, strerror(errno));
  const size_t written = fwrite(data, 1, bytes, file);
  fclose(file);
  if (written != bytes) FAIL("short write to %s", path);
  const size_t nans = count_nans(logical, logical_bytes, scalar_bytes);
  printf("CASE %-44s bytes=%-8zu fnv1a=%016llx nan=%zu\n", case_name, bytes, fnv1a(data, bytes), nans);
  fflush(stdout);
  if (nans != 0) FAIL("%zu NaN values in the output (elements left unwritten?)", nans);
  return 0;
}

/* ---- FFT cases --------------------------------------------------------------------------------- */

typedef enum MakeApi {
  MK_PLAN1D,
  MK_PLAN2D,
  MK_PLAN3D,
  MK_PLANMANY,
  MK_MAKE1D,
  MK_MAKE2D,
  MK_MAKE3D,
  MK_MAKEMANY,
  MK_MAKEMANY64,
  MK_XT
} MakeApi;

typedef struct FftCase {
  const char *name;
  MakeApi api;
  cufftType type;
  int rank;
  int n[3];
  int batch;
  int inplace;
  int manual_work; /* cufftSetAutoAllocation(0) + cufftSetWorkArea (Make* and Xt only) */
  int direction;   /* C2C / Z2Z */
  int advanced;    /* rank 1, out of place: strided input and output with gaps */
} FftCase;

enum { OOP = 0, INPLACE = 1 };
enum { AUTO = 0, MANUAL = 1 };
enum { BASIC = 0, ADVANCED = 1 };

/* clang-format off */
static const FftCase g_fft_cases[] = {
  /* 1D, batched */
  {"c2c_plan1d_n100_b3_fwd_oop",   MK_PLAN1D, CUFFT_C2C, 1, {100},        3, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"c2c_plan1d_n128_b4_inv_ip",    MK_PLAN1D, CUFFT_C2C, 1, {128},        4, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"c2c_plan1d_n997_b2_fwd_oop",   MK_PLAN1D, CUFFT_C2C, 1, {997},        2, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"z2z_plan1d_n97_b2_fwd_oop",    MK_PLAN1D, CUFFT_Z2Z, 1, {97},         2, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"z2z_plan1d_n64_b3_inv_ip",     MK_PLAN1D, CUFFT_Z2Z, 1, {64},         3, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"r2c_plan1d_n128_b4_oop",       MK_PLAN1D, CUFFT_R2C, 1, {128},        4, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"r2c_plan1d_n90_b3_ip",         MK_PLAN1D, CUFFT_R2C, 1, {90},         3, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  {"r2c_plan1d_n45_b2_oop",        MK_PLAN1D, CUFFT_R2C, 1, {45},         2, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"d2z_plan1d_n100_b2_oop",       MK_PLAN1D, CUFFT_D2Z, 1, {100},        2, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"d2z_plan1d_n64_b3_ip",         MK_PLAN1D, CUFFT_D2Z, 1, {64},         3, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  {"c2r_plan1d_n128_b4_oop",       MK_PLAN1D, CUFFT_C2R, 1, {128},        4, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"c2r_plan1d_n90_b3_ip",         MK_PLAN1D, CUFFT_C2R, 1, {90},         3, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"c2r_plan1d_n45_b2_oop",        MK_PLAN1D, CUFFT_C2R, 1, {45},         2, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"z2d_plan1d_n100_b2_oop",       MK_PLAN1D, CUFFT_Z2D, 1, {100},        2, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"z2d_plan1d_n64_b3_ip",         MK_PLAN1D, CUFFT_Z2D, 1, {64},         3, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  /* 2D */
  {"c2c_plan2d_24x30_fwd_oop",     MK_PLAN2D, CUFFT_C2C, 2, {24, 30},     1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"c2c_plan2d_16x16_inv_ip",      MK_PLAN2D, CUFFT_C2C, 2, {16, 16},     1, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"z2z_plan2d_20x18_fwd_ip",      MK_PLAN2D, CUFFT_Z2Z, 2, {20, 18},     1, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  {"z2z_plan2d_12x35_inv_oop",     MK_PLAN2D, CUFFT_Z2Z, 2, {12, 35},     1, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"r2c_plan2d_24x30_oop",         MK_PLAN2D, CUFFT_R2C, 2, {24, 30},     1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"r2c_plan2d_16x20_ip",          MK_PLAN2D, CUFFT_R2C, 2, {16, 20},     1, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  {"d2z_plan2d_18x25_oop",         MK_PLAN2D, CUFFT_D2Z, 2, {18, 25},     1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"c2r_plan2d_24x30_oop",         MK_PLAN2D, CUFFT_C2R, 2, {24, 30},     1, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"z2d_plan2d_16x20_ip",          MK_PLAN2D, CUFFT_Z2D, 2, {16, 20},     1, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  /* 3D */
  {"c2c_plan3d_8x12x10_fwd_oop",   MK_PLAN3D, CUFFT_C2C, 3, {8, 12, 10},  1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"z2z_plan3d_8x8x8_inv_ip",      MK_PLAN3D, CUFFT_Z2Z, 3, {8, 8, 8},    1, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"r2c_plan3d_8x12x10_ip",        MK_PLAN3D, CUFFT_R2C, 3, {8, 12, 10},  1, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  {"d2z_plan3d_6x10x9_oop",        MK_PLAN3D, CUFFT_D2Z, 3, {6, 10, 9},   1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"c2r_plan3d_8x12x10_oop",       MK_PLAN3D, CUFFT_C2R, 3, {8, 12, 10},  1, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"z2d_plan3d_8x6x12_ip",         MK_PLAN3D, CUFFT_Z2D, 3, {8, 6, 12},   1, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  /* cufftPlanMany */
  {"c2c_planmany_1d_n100_b4_adv",  MK_PLANMANY, CUFFT_C2C, 1, {100},      4, OOP,     AUTO,   CUFFT_FORWARD, ADVANCED},
  {"z2z_planmany_2d_12x10_b3_ip",  MK_PLANMANY, CUFFT_Z2Z, 2, {12, 10},   3, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"c2c_planmany_3d_4x6x8_b2_oop", MK_PLANMANY, CUFFT_C2C, 3, {4, 6, 8},  2, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"r2c_planmany_1d_n96_b3_adv",   MK_PLANMANY, CUFFT_R2C, 1, {96},       3, OOP,     AUTO,   CUFFT_FORWARD, ADVANCED},
  {"d2z_planmany_1d_n81_b2_adv",   MK_PLANMANY, CUFFT_D2Z, 1, {81},       2, OOP,     AUTO,   CUFFT_FORWARD, ADVANCED},
  {"c2r_planmany_3d_4x6x8_b2_oop", MK_PLANMANY, CUFFT_C2R, 3, {4, 6, 8},  2, OOP,     AUTO,   CUFFT_INVERSE, BASIC},
  {"z2d_planmany_1d_n64_b3_adv",   MK_PLANMANY, CUFFT_Z2D, 1, {64},       3, OOP,     AUTO,   CUFFT_INVERSE, ADVANCED},
  {"r2c_planmany_2d_10x12_b2_ip",  MK_PLANMANY, CUFFT_R2C, 2, {10, 12},   2, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  /* cufftCreate + cufftMakePlan*, some with the work area set by the caller */
  {"c2c_make1d_n997_b2_work_oop",  MK_MAKE1D, CUFFT_C2C, 1, {997},        2, OOP,     MANUAL, CUFFT_FORWARD, BASIC},
  {"z2z_make1d_n100_b3_ip",        MK_MAKE1D, CUFFT_Z2Z, 1, {100},        3, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
  {"c2r_make1d_n96_b3_work_ip",    MK_MAKE1D, CUFFT_C2R, 1, {96},         3, INPLACE, MANUAL, CUFFT_INVERSE, BASIC},
  {"z2z_make2d_30x28_work_oop",    MK_MAKE2D, CUFFT_Z2Z, 2, {30, 28},     1, OOP,     MANUAL, CUFFT_FORWARD, BASIC},
  {"r2c_make2d_20x14_oop",         MK_MAKE2D, CUFFT_R2C, 2, {20, 14},     1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"r2c_make3d_8x8x6_ip",          MK_MAKE3D, CUFFT_R2C, 3, {8, 8, 6},    1, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  {"z2d_make3d_6x8x10_work_oop",   MK_MAKE3D, CUFFT_Z2D, 3, {6, 8, 10},   1, OOP,     MANUAL, CUFFT_INVERSE, BASIC},
  {"d2z_makemany_2d_12x16_b2_work",MK_MAKEMANY, CUFFT_D2Z, 2, {12, 16},   2, OOP,     MANUAL, CUFFT_FORWARD, BASIC},
  {"c2c_makemany_1d_n100_b3_adv",  MK_MAKEMANY, CUFFT_C2C, 1, {100},      3, OOP,     AUTO,   CUFFT_INVERSE, ADVANCED},
  {"c2c_makemany64_1d_n80_b4_work_adv", MK_MAKEMANY64, CUFFT_C2C, 1, {80}, 4, OOP,    MANUAL, CUFFT_FORWARD, ADVANCED},
  {"z2z_makemany64_3d_4x4x6_b2_ip",MK_MAKEMANY64, CUFFT_Z2Z, 3, {4, 4, 6},2, INPLACE, AUTO,   CUFFT_FORWARD, BASIC},
  /* cufftXtMakePlanMany + cufftXtExec (what PyTorch uses) */
  {"c2c_xt_1d_n256_b4_work_oop",   MK_XT, CUFFT_C2C, 1, {256},            4, OOP,     MANUAL, CUFFT_FORWARD, BASIC},
  {"d2z_xt_2d_16x18_oop",          MK_XT, CUFFT_D2Z, 2, {16, 18},         1, OOP,     AUTO,   CUFFT_FORWARD, BASIC},
  {"c2r_xt_1d_n64_b2_ip",          MK_XT, CUFFT_C2R, 1, {64},             2, INPLACE, AUTO,   CUFFT_INVERSE, BASIC},
};
/* clang-format on */

static int type_double(cufftType type) { return type == CUFFT_Z2Z || type == CUFFT_D2Z || type == CUFFT_Z2D; }
static int type_in_complex(cufftType type) { return type != CUFFT_R2C && type != CUFFT_D2Z; }
static int type_out_complex(cufftType type) { return type != CUFFT_C2R && type != CUFFT_Z2D; }

/* An array of `batch` multi-dimensional arrays: element (b, i0, i1, i2) of dims D (leading 1s
 * for lower ranks) sits at element b * dist + stride * ((i0 * D1 + i1) * pitch + i2). */
typedef struct Layout {
  int D[3];
  int pitch;
  long long stride;
  long long dist;
  int batch;
  int elem_bytes;   /* one real or complex element */
  int scalar_bytes; /* 4 or 8 */
  int complex_elem;
} Layout;

static size_t layout_position(const Layout *L, int b, int i0, int i1, int i2) {
  return (size_t)((long long)b * L->dist + L->stride * (((long long)i0 * L->D[1] + i1) * L->pitch + i2));
}

static size_t layout_alloc_bytes(const Layout *L) { return (size_t)L->dist * (size_t)L->batch * (size_t)L->elem_bytes; }

static size_t layout_logical_bytes(const Layout *L) {
  return (size_t)L->batch * (size_t)L->D[0] * (size_t)L->D[1] * (size_t)L->D[2] * (size_t)L->elem_bytes;
}

/* Copies the logical elements of `source` (laid out per L) into a contiguous array. */
static void layout_gather(const Layout *L, const unsigned char *source, unsigned char *target) {
  size_t out = 0;
  for (int b = 0; b < L->batch; ++b)
    for (int i0 = 0; i0 < L->D[0]; ++i0)
      for (int i1 = 0; i1 < L->D[1]; ++i1)
        for (int i2 = 0; i2 < L->D[2]; ++i2) {
          memcpy(target + out, source + layout_position(L, b, i0, i1, i2) * (size_t)L->elem_bytes, (size_t)L->elem_bytes);
          out += (size_t)L->elem_bytes;
        }
}

/* Makes a half-spectrum input (dims n0 x .. x (n_last/2+1)) Hermitian where the transform
 * requires it: on the planes k_last = 0 and (even n) k_last = n_last/2, X[k] = conj(X[-k]). A
 * C2R of a non-Hermitian input is implementation-defined; this keeps the case well defined. */
static void hermitianize(const Layout *L, unsigned char *data, int n_last) {
  const int bytes = L->scalar_bytes;
  int planes[2] = {0, -1};
  if (n_last % 2 == 0) planes[1] = n_last / 2;
  for (int b = 0; b < L->batch; ++b)
    for (int plane = 0; plane < 2; ++plane) {
      const int i2 = planes[plane];
      if (i2 < 0) continue;
      for (int i0 = 0; i0 < L->D[0]; ++i0)
        for (int i1 = 0; i1 < L->D[1]; ++i1) {
          const int m0 = (L->D[0] - i0) % L->D[0];
          const int m1 = (L->D[1] - i1) % L->D[1];
          const long long self = (long long)i0 * L->D[1] + i1;
          const long long mirror = (long long)m0 * L->D[1] + m1;
          const size_t p = layout_position(L, b, i0, i1, i2) * 2;
          const size_t q = layout_position(L, b, m0, m1, i2) * 2;
          if (self == mirror) {
            idgpu_test_store(data, p + 1, bytes, 0.0);
          } else if (self < mirror) {
            const double re = 0.5 * (idgpu_test_load(data, p, bytes) + idgpu_test_load(data, q, bytes));
            const double im = 0.5 * (idgpu_test_load(data, p + 1, bytes) - idgpu_test_load(data, q + 1, bytes));
            idgpu_test_store(data, p, bytes, re);
            idgpu_test_store(data, p + 1, bytes, im);
            idgpu_test_store(data, q, bytes, re);
            idgpu_test_store(data, q + 1, bytes, -im);
          }
        }
    }
}

static void describe_layouts(const FftCase *c, Layout *in, Layout *out) {
  const int r = c->rank;
  const int last = c->n[r - 1];
  const int half = last / 2 + 1;
  const int scalar = type_double(c->type) ? 8 : 4;
  Layout *both[2] = {in, out};
  for (int side = 0; side < 2; ++side) {
    Layout *L = both[side];
    const int is_complex = side == 0 ? type_in_complex(c->type) : type_out_complex(c->type);
    /* the half-length side of a real transform is its complex side */
    const int halved = is_complex && (c->type != CUFFT_C2C && c->type != CUFFT_Z2Z);
    L->D[0] = r == 3 ? c->n[0] : 1;
    L->D[1] = r == 3 ? c->n[1] : (r == 2 ? c->n[0] : 1);
    L->D[2] = halved ? half : last;
    L->pitch = L->D[2];
    L->stride = 1;
    L->dist = (long long)L->D[0] * L->D[1] * L->D[2];
    L->batch = c->batch;
    L->scalar_bytes = scalar;
    L->complex_elem = is_complex;
    L->elem_bytes = scalar * (is_complex ? 2 : 1);
  }
  if (c->inplace) {
    /* The real side of an in-place real transform is padded to 2 * (n/2 + 1) reals per row. */
    Layout *real_side = NULL;
    if (c->type == CUFFT_R2C || c->type == CUFFT_D2Z) real_side = in;
    if (c->type == CUFFT_C2R || c->type == CUFFT_Z2D) real_side = out;
    if (real_side != NULL) {
      real_side->pitch = 2 * half;
      real_side->dist = (long long)real_side->D[0] * real_side->D[1] * real_side->pitch;
    }
  }
  if (c->advanced) {
    in->stride = 2;
    in->dist = 2LL * in->D[2] + 3;
    out->stride = 1;
    out->dist = (long long)out->D[2] + 5;
  }
}

static int make_plan(const FftCase *c, const Layout *in, const Layout *out, cudaStream_t stream, cufftHandle *plan,
                     void **work) {
  const char *case_name = c->name;
  int n[3] = {c->n[0], c->n[1], c->n[2]};
  long long n64[3] = {c->n[0], c->n[1], c->n[2]};
  int inembed[3] = {in->D[2], 0, 0};
  int onembed[3] = {out->D[2], 0, 0};
  long long inembed64[3] = {in->D[2], 0, 0};
  long long onembed64[3] = {out->D[2], 0, 0};
  int *in_e = c->advanced ? inembed : NULL;
  int *out_e = c->advanced ? onembed : NULL;
  long long *in_e64 = c->advanced ? inembed64 : NULL;
  long long *out_e64 = c->advanced ? onembed64 : NULL;
  size_t work_size = 0;
  *work = NULL;
  switch (c->api) {
    case MK_PLAN1D: CUFFT_OK("cufftPlan1d", cufftPlan1d(plan, n[0], c->type, c->batch)); break;
    case MK_PLAN2D: CUFFT_OK("cufftPlan2d", cufftPlan2d(plan, n[0], n[1], c->type)); break;
    case MK_PLAN3D: CUFFT_OK("cufftPlan3d", cufftPlan3d(plan, n[0], n[1], n[2], c->type)); break;
    case MK_PLANMANY:
      CUFFT_OK("cufftPlanMany", cufftPlanMany(plan, c->rank, n, in_e, (int)in->stride, (int)in->dist, out_e,
                                              (int)out->stride, (int)out->dist, c->type, c->batch));
      break;
    default: {
      CUFFT_OK("cufftCreate", cufftCreate(plan));
      /* On a created plan the stream is set before the plan is made. */
      CUFFT_OK("cufftSetStream", cufftSetStream(*plan, stream));
      if (c->manual_work) CUFFT_OK("cufftSetAutoAllocation", cufftSetAutoAllocation(*plan, 0));
      switch (c->api) {
        case MK_MAKE1D: CUFFT_OK("cufftMakePlan1d", cufftMakePlan1d(*plan, n[0], c->type, c->batch, &work_size)); break;
        case MK_MAKE2D: CUFFT_OK("cufftMakePlan2d", cufftMakePlan2d(*plan, n[0], n[1], c->type, &work_size)); break;
        case MK_MAKE3D:
          CUFFT_OK("cufftMakePlan3d", cufftMakePlan3d(*plan, n[0], n[1], n[2], c->type, &work_size));
          break;
        case MK_MAKEMANY:
          CUFFT_OK("cufftMakePlanMany", cufftMakePlanMany(*plan, c->rank, n, in_e, (int)in->stride, (int)in->dist, out_e,
                                                          (int)out->stride, (int)out->dist, c->type, c->batch,
                                                          &work_size));
          break;
        case MK_MAKEMANY64:
          CUFFT_OK("cufftMakePlanMany64",
                   cufftMakePlanMany64(*plan, c->rank, n64, in_e64, in->stride, in->dist, out_e64, out->stride,
                                       out->dist, c->type, c->batch, &work_size));
          break;
        case MK_XT: {
          const int dbl = type_double(c->type);
          const cudaDataType real_t = dbl ? CUDA_R_64F : CUDA_R_32F;
          const cudaDataType complex_t = dbl ? CUDA_C_64F : CUDA_C_32F;
          const cudaDataType in_t = type_in_complex(c->type) ? complex_t : real_t;
          const cudaDataType out_t = type_out_complex(c->type) ? complex_t : real_t;
          CUFFT_OK("cufftXtMakePlanMany",
                   cufftXtMakePlanMany(*plan, c->rank, n64, in_e64, in->stride, in->dist, in_t, out_e64, out->stride,
                                       out->dist, out_t, c->batch, &work_size, complex_t));
          break;
        }
        default: FAIL("unknown plan API");
      }
      if (c->manual_work) {
        CUDA_OK(cudaMalloc(work, work_size > 256 ? work_size : 256));
        CUFFT_OK("cufftSetWorkArea", cufftSetWorkArea(*plan, *work));
      }
      printf("     %s: work area %zu bytes (%s)\n", c->name, work_size, c->manual_work ? "set by the caller" : "auto");
      return 0;
    }
  }
  CUFFT_OK("cufftSetStream", cufftSetStream(*plan, stream));
  return 0;
}

static int exec_plan(const FftCase *c, cufftHandle plan, void *in, void *out) {
  const char *case_name = c->name;
  if (c->api == MK_XT) {
    CUFFT_OK("cufftXtExec", cufftXtExec(plan, in, out, c->direction));
    return 0;
  }
  switch (c->type) {
    case CUFFT_C2C: CUFFT_OK("cufftExecC2C", cufftExecC2C(plan, (cufftComplex *)in, (cufftComplex *)out, c->direction)); break;
    case CUFFT_Z2Z:
      CUFFT_OK("cufftExecZ2Z", cufftExecZ2Z(plan, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out, c->direction));
      break;
    case CUFFT_R2C: CUFFT_OK("cufftExecR2C", cufftExecR2C(plan, (cufftReal *)in, (cufftComplex *)out)); break;
    case CUFFT_D2Z: CUFFT_OK("cufftExecD2Z", cufftExecD2Z(plan, (cufftDoubleReal *)in, (cufftDoubleComplex *)out)); break;
    case CUFFT_C2R: CUFFT_OK("cufftExecC2R", cufftExecC2R(plan, (cufftComplex *)in, (cufftReal *)out)); break;
    case CUFFT_Z2D: CUFFT_OK("cufftExecZ2D", cufftExecZ2D(plan, (cufftDoubleComplex *)in, (cufftDoubleReal *)out)); break;
    default: FAIL("unknown type");
  }
  return 0;
}

static int run_fft_case(const FftCase *c, const char *dir, cudaStream_t stream) {
  const char *case_name = c->name;
  Layout in, out;
  describe_layouts(c, &in, &out);
  const size_t in_bytes = layout_alloc_bytes(&in);
  const size_t out_bytes = layout_alloc_bytes(&out);
  const size_t buffer_bytes = c->inplace ? (in_bytes > out_bytes ? in_bytes : out_bytes) : in_bytes;

  /* Inputs: random over the whole allocation (pads and gaps included), Hermitian where needed. */
  unsigned char *host_in = (unsigned char *)calloc(1, buffer_bytes);
  unsigned char *host_out = (unsigned char *)malloc(c->inplace ? buffer_bytes : out_bytes);
  unsigned char *logical = (unsigned char *)malloc(layout_logical_bytes(&out));
  if (host_in == NULL || host_out == NULL || logical == NULL) FAIL("out of host memory");
  unsigned long long state = idgpu_test_seed(c->name);
  idgpu_test_fill_random(host_in, buffer_bytes / (size_t)in.scalar_bytes, in.scalar_bytes, &state);
  if (c->type == CUFFT_C2R || c->type == CUFFT_Z2D) hermitianize(&in, host_in, c->n[c->rank - 1]);

  void *d_in = NULL;
  void *d_out = NULL;
  CUDA_OK(cudaMalloc(&d_in, buffer_bytes));
  CUDA_OK(cudaMemcpy(d_in, host_in, buffer_bytes, cudaMemcpyHostToDevice));
  if (c->inplace) {
    d_out = d_in;
  } else {
    CUDA_OK(cudaMalloc(&d_out, out_bytes));
    CUDA_OK(cudaMemset(d_out, 0xFF, out_bytes)); /* NaN in every float and double */
  }

  cufftHandle plan = 0;
  void *work = NULL;
  if (make_plan(c, &in, &out, stream, &plan, &work) != 0) return -1;
  if (exec_plan(c, plan, d_in, d_out) != 0) return -1;
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaGetLastError());
  CUFFT_OK("cufftDestroy", cufftDestroy(plan));

  const size_t result_bytes = c->inplace ? buffer_bytes : out_bytes;
  CUDA_OK(cudaMemcpy(host_out, d_out, result_bytes, cudaMemcpyDeviceToHost));
  layout_gather(&out, host_out, logical);
  int status;
  if (c->inplace) {
    /* In place, the pads of a real output hold whatever the transform left there: only the
     * logical elements are compared. */
    status = emit(dir, c->name, logical, layout_logical_bytes(&out), logical, layout_logical_bytes(&out), out.scalar_bytes);
  } else {
    /* Out of place, the whole output array: gaps must keep their poison. */
    status = emit(dir, c->name, host_out, out_bytes, logical, layout_logical_bytes(&out), out.scalar_bytes);
  }
  cudaFree(d_in);
  if (!c->inplace) cudaFree(d_out);
  if (work != NULL) cudaFree(work);
  free(host_in);
  free(host_out);
  free(logical);
  return status;
}

/* ---- gtsv cases -------------------------------------------------------------------------------- */

typedef enum GtsvShape { G_GTSV2, G_NOPIVOT, G_STRIDED, G_INTERLEAVED } GtsvShape;

typedef struct GtsvCase {
  const char *tag;
  GtsvShape shape;
  int m;
  int n;      /* right-hand sides (gtsv2, nopivot) */
  int ldb;    /* (gtsv2, nopivot) */
  int batch;  /* (strided, interleaved) */
  int stride; /* (strided) */
  int algo;   /* (interleaved) */
} GtsvCase;

static const GtsvCase g_gtsv_cases[] = {
    {"gtsv2_m100_n3_ldb104", G_GTSV2, 100, 3, 104, 0, 0, 0},
    {"gtsv2_m3_n1_ldb3", G_GTSV2, 3, 1, 3, 0, 0, 0},
    {"gtsv2_m517_n2_ldb517", G_GTSV2, 517, 2, 517, 0, 0, 0},
    {"gtsv2_nopivot_m100_n2_ldb100", G_NOPIVOT, 100, 2, 100, 0, 0, 0},
    {"gtsv2_nopivot_m128_n4_ldb130", G_NOPIVOT, 128, 4, 130, 0, 0, 0},
    {"gtsv2StridedBatch_m100_b4_s103", G_STRIDED, 100, 0, 0, 4, 103, 0},
    {"gtsv2StridedBatch_m64_b3_s64", G_STRIDED, 64, 0, 0, 3, 64, 0},
    {"gtsvInterleavedBatch_algo0_m100_b5", G_INTERLEAVED, 100, 0, 0, 5, 0, 0},
    {"gtsvInterleavedBatch_algo1_m100_b5", G_INTERLEAVED, 100, 0, 0, 5, 0, 1},
    {"gtsvInterleavedBatch_algo2_m100_b5", G_INTERLEAVED, 100, 0, 0, 5, 0, 2},
};

static int run_gtsv_case(const IdgpuTestApi *api, const GtsvCase *g, int prec, cusparseHandle_t handle,
                         cudaStream_t stream, const char *dir) {
  char case_name[128];
  snprintf(case_name, sizeof(case_name), "%c_%s", idgpu_test_prec_letter[prec], g->tag);
  const size_t elem = (size_t)idgpu_test_prec_scalar_bytes[prec] * (size_t)idgpu_test_prec_components[prec];
  size_t coef_count = 0; /* elements in each of dl, d, du */
  size_t rhs_count = 0;  /* elements of B / x */
  switch (g->shape) {
    case G_GTSV2:
    case G_NOPIVOT:
      coef_count = (size_t)g->m;
      rhs_count = (size_t)g->ldb * (size_t)g->n;
      break;
    case G_STRIDED:
      coef_count = rhs_count = (size_t)g->stride * (size_t)g->batch;
      break;
    case G_INTERLEAVED:
      coef_count = rhs_count = (size_t)g->m * (size_t)g->batch;
      break;
  }
  unsigned char *host[4];
  for (int which = 0; which < 4; ++which) {
    host[which] = (unsigned char *)malloc((which == 3 ? rhs_count : coef_count) * elem);
    if (host[which] == NULL) FAIL("out of host memory");
  }
  unsigned long long state = idgpu_test_seed(case_name);
  for (size_t index = 0; index < coef_count; ++index) {
    int row = 0;
    switch (g->shape) {
      case G_GTSV2:
      case G_NOPIVOT: row = (int)index; break;
      case G_STRIDED: row = (int)(index % (size_t)g->stride); break; /* rows >= m: gap, never read */
      case G_INTERLEAVED: row = (int)(index / (size_t)g->batch); break;
    }
    idgpu_test_tridiag_element(host[0], host[1], host[2], index, prec, row == 0, row == g->m - 1, &state);
  }
  idgpu_test_fill_random(host[3], rhs_count * (size_t)idgpu_test_prec_components[prec],
                         idgpu_test_prec_scalar_bytes[prec], &state);

  void *dev[4] = {NULL, NULL, NULL, NULL};
  for (int which = 0; which < 4; ++which) {
    const size_t bytes = (which == 3 ? rhs_count : coef_count) * elem;
    CUDA_OK(cudaMalloc(&dev[which], bytes));
    CUDA_OK(cudaMemcpy(dev[which], host[which], bytes, cudaMemcpyHostToDevice));
  }
  size_t buffer_size = 0;
  switch (g->shape) {
    case G_GTSV2:
      note_gtsv(prec, "gtsv2_bufferSizeExt");
      SPARSE_OK(idgpu_test_gtsv2_bufferSizeExt(api, prec, handle, g->m, g->n, dev[0], dev[1], dev[2], dev[3], g->ldb,
                                               &buffer_size));
      break;
    case G_NOPIVOT:
      note_gtsv(prec, "gtsv2_nopivot_bufferSizeExt");
      SPARSE_OK(idgpu_test_gtsv2_nopivot_bufferSizeExt(api, prec, handle, g->m, g->n, dev[0], dev[1], dev[2], dev[3],
                                                       g->ldb, &buffer_size));
      break;
    case G_STRIDED:
      note_gtsv(prec, "gtsv2StridedBatch_bufferSizeExt");
      SPARSE_OK(idgpu_test_gtsv2StridedBatch_bufferSizeExt(api, prec, handle, g->m, dev[0], dev[1], dev[2], dev[3],
                                                           g->batch, g->stride, &buffer_size));
      break;
    case G_INTERLEAVED:
      note_gtsv(prec, "gtsvInterleavedBatch_bufferSizeExt");
      SPARSE_OK(idgpu_test_gtsvInterleavedBatch_bufferSizeExt(api, prec, handle, g->algo, g->m, dev[0], dev[1], dev[2],
                                                              dev[3], g->batch, &buffer_size));
      break;
  }
  void *buffer = NULL;
  CUDA_OK(cudaMalloc(&buffer, buffer_size > 256 ? buffer_size : 256));
  switch (g->shape) {
    case G_GTSV2:
      note_gtsv(prec, "gtsv2");
      SPARSE_OK(idgpu_test_gtsv2(api, prec, handle, g->m, g->n, dev[0], dev[1], dev[2], dev[3], g->ldb, buffer));
      break;
    case G_NOPIVOT:
      note_gtsv(prec, "gtsv2_nopivot");
      SPARSE_OK(idgpu_test_gtsv2_nopivot(api, prec, handle, g->m, g->n, dev[0], dev[1], dev[2], dev[3], g->ldb, buffer));
      break;
    case G_STRIDED:
      note_gtsv(prec, "gtsv2StridedBatch");
      SPARSE_OK(idgpu_test_gtsv2StridedBatch(api, prec, handle, g->m, dev[0], dev[1], dev[2], dev[3], g->batch,
                                             g->stride, buffer));
      break;
    case G_INTERLEAVED:
      note_gtsv(prec, "gtsvInterleavedBatch");
      SPARSE_OK(idgpu_test_gtsvInterleavedBatch(api, prec, handle, g->algo, g->m, dev[0], dev[1], dev[2], dev[3],
                                                g->batch, buffer));
      break;
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaGetLastError());
  /* The solution, whole (gap rows included: they must come back untouched). The interleaved
   * solver may also overwrite its diagonals; those are workspace, not compared. */
  const size_t rhs_bytes = rhs_count * elem;
  CUDA_OK(cudaMemcpy(host[3], dev[3], rhs_bytes, cudaMemcpyDeviceToHost));
  const int status = emit(dir, case_name, host[3], rhs_bytes, host[3], rhs_bytes, idgpu_test_prec_scalar_bytes[prec]);
  for (int which = 0; which < 4; ++which) {
    cudaFree(dev[which]);
    free(host[which]);
  }
  cudaFree(buffer);
  return status;
}

/* ---- API table of the linked functions --------------------------------------------------------- */

#define FILL_GTSV(api, P)                                                                 \
  do {                                                                                    \
    (api)->P.gtsv2_bufferSizeExt = cusparse##P##gtsv2_bufferSizeExt;                      \
    (api)->P.gtsv2 = cusparse##P##gtsv2;                                                  \
    (api)->P.gtsv2_nopivot_bufferSizeExt = cusparse##P##gtsv2_nopivot_bufferSizeExt;      \
    (api)->P.gtsv2_nopivot = cusparse##P##gtsv2_nopivot;                                  \
    (api)->P.gtsv2StridedBatch_bufferSizeExt = cusparse##P##gtsv2StridedBatch_bufferSizeExt; \
    (api)->P.gtsv2StridedBatch = cusparse##P##gtsv2StridedBatch;                          \
    (api)->P.gtsvInterleavedBatch_bufferSizeExt = cusparse##P##gtsvInterleavedBatch_bufferSizeExt; \
    (api)->P.gtsvInterleavedBatch = cusparse##P##gtsvInterleavedBatch;                    \
  } while (0)

static void linked_api(IdgpuTestApi *api) {
  memset(api, 0, sizeof(*api));
  api->label = "linked";
  api->cufftCreate = cufftCreate;
  api->cufftDestroy = cufftDestroy;
  api->cufftPlan1d = cufftPlan1d;
  api->cufftPlan2d = cufftPlan2d;
  api->cufftPlan3d = cufftPlan3d;
  api->cufftPlanMany = cufftPlanMany;
  api->cufftMakePlan1d = cufftMakePlan1d;
  api->cufftMakePlan2d = cufftMakePlan2d;
  api->cufftMakePlan3d = cufftMakePlan3d;
  api->cufftMakePlanMany = cufftMakePlanMany;
  api->cufftMakePlanMany64 = cufftMakePlanMany64;
  api->cufftXtMakePlanMany = cufftXtMakePlanMany;
  api->cufftGetSize = cufftGetSize;
  api->cufftGetSize1d = cufftGetSize1d;
  api->cufftEstimate1d = cufftEstimate1d;
  api->cufftSetStream = cufftSetStream;
  api->cufftSetWorkArea = cufftSetWorkArea;
  api->cufftSetAutoAllocation = cufftSetAutoAllocation;
  api->cufftExecC2C = cufftExecC2C;
  api->cufftExecZ2Z = cufftExecZ2Z;
  api->cufftExecR2C = cufftExecR2C;
  api->cufftExecD2Z = cufftExecD2Z;
  api->cufftExecC2R = cufftExecC2R;
  api->cufftExecZ2D = cufftExecZ2D;
  api->cufftXtExec = cufftXtExec;
  api->cufftGetVersion = cufftGetVersion;
  api->cusparseCreate = cusparseCreate;
  api->cusparseDestroy = cusparseDestroy;
  api->cusparseSetStream = cusparseSetStream;
  FILL_GTSV(api, S);
  FILL_GTSV(api, D);
  FILL_GTSV(api, C);
  FILL_GTSV(api, Z);
}

/* ---- Modes ------------------------------------------------------------------------------------- */

static int mode_run(const char *dir) {
  if (make_dir(dir) != 0) return 1;
  IdgpuTestApi api;
  linked_api(&api);
  cudaStream_t stream = NULL;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    fprintf(stderr, "cudaStreamCreate failed\n");
    return 1;
  }
  int version = 0;
  note_call("cufftGetVersion");
  if (cufftGetVersion(&version) == CUFFT_SUCCESS) printf("cufftGetVersion: %d\n", version);

  int cases = 0;
  for (size_t index = 0; index < sizeof(g_fft_cases) / sizeof(g_fft_cases[0]); ++index) {
    cases++;
    if (run_fft_case(&g_fft_cases[index], dir, stream) != 0) g_failures++;
  }
  cusparseHandle_t handle = NULL;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS || cusparseSetStream(handle, stream) != CUSPARSE_STATUS_SUCCESS) {
    fprintf(stderr, "cusparseCreate / cusparseSetStream failed\n");
    return 1;
  }
  for (int prec = 0; prec < IDGPU_TEST_PREC_COUNT; ++prec) {
    for (size_t index = 0; index < sizeof(g_gtsv_cases) / sizeof(g_gtsv_cases[0]); ++index) {
      cases++;
      if (run_gtsv_case(&api, &g_gtsv_cases[index], prec, handle, stream, dir) != 0) g_failures++;
    }
  }
  cusparseDestroy(handle);
  cudaStreamDestroy(stream);
  if (write_calls(dir) != 0) g_failures++;
  printf("run: %d cases, %d failed\n", cases, g_failures);
  return g_failures == 0 ? 0 : 1;
}

/* The graph variant: a C2C transform and a strided-batch solve captured into one graph. */
static int graph_body(const char *dir) {
  const char *case_name = "graph";
  enum { FFT_N = 256, FFT_BATCH = 8, M = 100, BATCH = 4 };
  const size_t fft_bytes = (size_t)FFT_N * FFT_BATCH * sizeof(cufftComplex);
  const size_t sys_bytes = (size_t)M * BATCH * sizeof(float);
  cudaStream_t stream = NULL;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  unsigned long long state = idgpu_test_seed("graph");
  float *host_fft = (float *)malloc(fft_bytes);
  float *host_sys[4];
  for (int which = 0; which < 4; ++which) host_sys[which] = (float *)malloc(sys_bytes);
  unsigned char *results[4]; /* eager fft, eager x, graph fft, graph x */
  for (int which = 0; which < 4; ++which) results[which] = (unsigned char *)malloc(which % 2 == 0 ? fft_bytes : sys_bytes);
  unsigned char *again_fft = (unsigned char *)malloc(fft_bytes);
  unsigned char *again_x = (unsigned char *)malloc(sys_bytes);
  if (host_fft == NULL || again_fft == NULL || again_x == NULL) FAIL("out of host memory");
  for (int which = 0; which < 4; ++which) {
    if (host_sys[which] == NULL || results[which] == NULL) FAIL("out of host memory");
  }
  idgpu_test_fill_random(host_fft, fft_bytes / sizeof(float), 4, &state);
  for (int index = 0; index < M * BATCH; ++index) {
    const int row = index % M;
    idgpu_test_tridiag_element(host_sys[0], host_sys[1], host_sys[2], (size_t)index, IDGPU_TEST_PREC_S, row == 0,
                               row == M - 1, &state);
  }
  idgpu_test_fill_random(host_sys[3], (size_t)M * BATCH, 4, &state);

  void *fft_in = NULL, *fft_out = NULL, *sys[4] = {NULL, NULL, NULL, NULL}, *x0 = NULL, *buffer = NULL;
  CUDA_OK(cudaMalloc(&fft_in, fft_bytes));
  CUDA_OK(cudaMalloc(&fft_out, fft_bytes));
  CUDA_OK(cudaMemcpy(fft_in, host_fft, fft_bytes, cudaMemcpyHostToDevice));
  for (int which = 0; which < 4; ++which) {
    CUDA_OK(cudaMalloc(&sys[which], sys_bytes));
    CUDA_OK(cudaMemcpy(sys[which], host_sys[which], sys_bytes, cudaMemcpyHostToDevice));
  }
  CUDA_OK(cudaMalloc(&x0, sys_bytes));
  CUDA_OK(cudaMemcpy(x0, host_sys[3], sys_bytes, cudaMemcpyHostToDevice));

  cufftHandle plan = 0;
  CUFFT_OK("cufftPlan1d", cufftPlan1d(&plan, FFT_N, CUFFT_C2C, FFT_BATCH));
  CUFFT_OK("cufftSetStream", cufftSetStream(plan, stream));
  cusparseHandle_t handle = NULL;
  SPARSE_OK(cusparseCreate(&handle));
  SPARSE_OK(cusparseSetStream(handle, stream));
  size_t buffer_size = 0;
  note_call("cusparseSgtsv2StridedBatch_bufferSizeExt");
  SPARSE_OK(cusparseSgtsv2StridedBatch_bufferSizeExt(handle, M, (const float *)sys[0], (const float *)sys[1],
                                                     (const float *)sys[2], (const float *)sys[3], BATCH, M, &buffer_size));
  CUDA_OK(cudaMalloc(&buffer, buffer_size > 256 ? buffer_size : 256));

  /* Eager: poison, transform, restore x, solve. */
  CUDA_OK(cudaMemsetAsync(fft_out, 0xFF, fft_bytes, stream));
  CUFFT_OK("cufftExecC2C", cufftExecC2C(plan, (cufftComplex *)fft_in, (cufftComplex *)fft_out, CUFFT_FORWARD));
  CUDA_OK(cudaMemcpyAsync(sys[3], x0, sys_bytes, cudaMemcpyDeviceToDevice, stream));
  note_call("cusparseSgtsv2StridedBatch");
  SPARSE_OK(cusparseSgtsv2StridedBatch(handle, M, (const float *)sys[0], (const float *)sys[1], (const float *)sys[2],
                                       (float *)sys[3], BATCH, M, buffer));
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaMemcpy(results[0], fft_out, fft_bytes, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(results[1], sys[3], sys_bytes, cudaMemcpyDeviceToHost));

  /* Captured: the same four steps, so that the graph can be launched again. */
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaMemsetAsync(fft_out, 0xFF, fft_bytes, stream);
  note_call("cufftExecC2C");
  const cufftResult fft_status = cufftExecC2C(plan, (cufftComplex *)fft_in, (cufftComplex *)fft_out, CUFFT_FORWARD);
  cudaMemcpyAsync(sys[3], x0, sys_bytes, cudaMemcpyDeviceToDevice, stream);
  note_call("cusparseSgtsv2StridedBatch");
  const cusparseStatus_t sparse_status =
      cusparseSgtsv2StridedBatch(handle, M, (const float *)sys[0], (const float *)sys[1], (const float *)sys[2],
                                 (float *)sys[3], BATCH, M, buffer);
  const cudaError_t end_status = cudaStreamEndCapture(stream, &graph);
  if (fft_status != CUFFT_SUCCESS) FAIL("cufftExecC2C under capture returned %d", (int)fft_status);
  if (sparse_status != CUSPARSE_STATUS_SUCCESS) FAIL("cusparseSgtsv2StridedBatch under capture returned %d", (int)sparse_status);
  if (end_status != cudaSuccess) FAIL("cudaStreamEndCapture: %s", cudaGetErrorName(end_status));
  size_t nodes = 0;
  CUDA_OK(cudaGraphGetNodes(graph, NULL, &nodes));
  printf("     graph: %zu nodes\n", nodes);
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(launch == 0 ? results[2] : again_fft, fft_out, fft_bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(launch == 0 ? results[3] : again_x, sys[3], sys_bytes, cudaMemcpyDeviceToHost));
  }
  CUDA_OK(cudaGetLastError());

  int status = 0;
  if (emit(dir, "eager_c2c_n256_b8", results[0], fft_bytes, results[0], fft_bytes, 4) != 0) status = -1;
  if (emit(dir, "eager_S_gtsv2StridedBatch_m100_b4", results[1], sys_bytes, results[1], sys_bytes, 4) != 0) status = -1;
  if (emit(dir, "graph_c2c_n256_b8", results[2], fft_bytes, results[2], fft_bytes, 4) != 0) status = -1;
  if (emit(dir, "graph_S_gtsv2StridedBatch_m100_b4", results[3], sys_bytes, results[3], sys_bytes, 4) != 0) status = -1;
  if (memcmp(results[0], results[2], fft_bytes) != 0) {
    fprintf(stderr, "FAIL graph: the captured cufftExecC2C differs from the eager one\n");
    status = -1;
  }
  if (memcmp(results[1], results[3], sys_bytes) != 0) {
    fprintf(stderr, "FAIL graph: the captured cusparseSgtsv2StridedBatch differs from the eager one\n");
    status = -1;
  }
  if (memcmp(results[2], again_fft, fft_bytes) != 0 || memcmp(results[3], again_x, sys_bytes) != 0) {
    fprintf(stderr, "FAIL graph: a second launch of the graph gave different results\n");
    status = -1;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  CUFFT_OK("cufftDestroy", cufftDestroy(plan));
  cusparseDestroy(handle);
  return status;
}

static int mode_graph(const char *dir) {
  if (make_dir(dir) != 0) return 1;
  const int status = graph_body(dir);
  if (write_calls(dir) != 0) return 1;
  printf("graph: %s\n", status == 0 ? "ok" : "FAILED");
  return status == 0 ? 0 : 1;
}

/* Runs one case in a child process (this program, mode status-case): "code" or "signal:N". */
static void run_isolated(const char *name, char *code, size_t code_size, char *note, size_t note_size) {
  int pipe_fds[2];
  snprintf(code, code_size, "spawn-failed");
  snprintf(note, note_size, "-");
  if (pipe(pipe_fds) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  char *const argv[] = {(char *)g_self, (char *)"status-case", (char *)name, NULL};
  pid_t pid = 0;
  fflush(stdout);
  const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  char output[4096];
  size_t used = 0;
  if (spawned == 0) {
    for (;;) {
      const ssize_t got = read(pipe_fds[0], output + used, sizeof(output) - 1 - used);
      if (got <= 0) break;
      used += (size_t)got;
      if (used == sizeof(output) - 1) break;
    }
  }
  output[used] = '\0';
  close(pipe_fds[0]);
  if (spawned != 0) return;
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  const char *status_line = strstr(output, "IDGPU_CASE_STATUS ");
  const char *sync_line = strstr(output, "IDGPU_CASE_SYNC ");
  if (sync_line != NULL) {
    snprintf(note, note_size, "sync=%.*s", (int)strcspn(sync_line + 16, "\n"), sync_line + 16);
  }
  if (WIFSIGNALED(wait_status) && status_line == NULL) {
    snprintf(code, code_size, "signal:%d", WTERMSIG(wait_status));
  } else if (status_line != NULL) {
    snprintf(code, code_size, "%d", atoi(status_line + 18));
    if (WIFSIGNALED(wait_status)) {
      snprintf(note + strlen(note), note_size - strlen(note), " then signal:%d", WTERMSIG(wait_status));
    }
  } else {
    snprintf(code, code_size, "exit:%d", WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
  }
}

static int mode_status(const char *path) {
  FILE *file = fopen(path, "w");
  if (file == NULL) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return 1;
  }
  IdgpuTestApi api;
  linked_api(&api);
  IdgpuStatusFixture fixture;
  const char *error = idgpu_status_fixture_init(&fixture, &api);
  if (error != NULL) {
    fprintf(stderr, "status fixture: %s\n", error);
    return 1;
  }
  fprintf(file, "# case status (cufftResult / cusparseStatus_t as integers; signal:N = the process crashed)\n");
  int isolated = 0;
  for (int index = 0; index < IDGPU_STATUS_CASE_COUNT; ++index) {
    const IdgpuStatusCase *entry = &idgpu_status_cases[index];
    char code[64];
    char note[128] = "";
    if (entry->flags & IDGPU_CASE_ISOLATED) {
      isolated++;
      run_isolated(entry->name, code, sizeof(code), note, sizeof(note));
    } else {
      idgpu_status_fixture_refill(&fixture, entry->prec);
      const int status = entry->fn(&api, &fixture, entry->prec);
      snprintf(code, sizeof(code), "%d", status);
      const cudaError_t last = cudaGetLastError();
      if (last != cudaSuccess) snprintf(note, sizeof(note), "last_error=%s", cudaGetErrorName(last));
    }
    fprintf(file, "%s %s\n", entry->name, code);
    if (note[0] != '\0') fprintf(file, "# %s %s\n", entry->name, note);
    printf("STATUS %-58s %s %s\n", entry->name, code, note);
  }
  const cudaError_t sync = cudaDeviceSynchronize();
  fprintf(file, "# device after the in-process cases: %s\n", cudaGetErrorName(sync));
  fclose(file);
  printf("status: %d cases (%d isolated); device after the in-process cases: %s\n", IDGPU_STATUS_CASE_COUNT, isolated,
         cudaGetErrorName(sync));
  return 0;
}

static int mode_status_case(const char *name) {
  const IdgpuStatusCase *entry = idgpu_find_status_case(name);
  if (entry == NULL) {
    fprintf(stderr, "unknown case %s\n", name);
    return 2;
  }
  alarm(120); /* a hung case ends as signal:14 */
  IdgpuTestApi api;
  linked_api(&api);
  IdgpuStatusFixture fixture;
  const char *error = idgpu_status_fixture_init(&fixture, &api);
  if (error != NULL) {
    fprintf(stderr, "status fixture: %s\n", error);
    return 3;
  }
  idgpu_status_fixture_refill(&fixture, entry->prec);
  const int status = entry->fn(&api, &fixture, entry->prec);
  printf("IDGPU_CASE_STATUS %d\n", status);
  fflush(stdout);
  const cudaError_t sync = cudaDeviceSynchronize();
  printf("IDGPU_CASE_SYNC %s\n", cudaGetErrorName(sync));
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  g_self = argv[0];
  if (argc != 3) {
    fprintf(stderr, "usage: %s run OUTDIR | graph OUTDIR | status FILE | status-case NAME\n", argv[0]);
    return 2;
  }
  int devices = 0;
  const cudaError_t device_status = cudaGetDeviceCount(&devices);
  if (device_status != cudaSuccess || devices == 0) {
    printf("no CUDA device (cudaGetDeviceCount: %s, %d devices): skipped\n", cudaGetErrorName(device_status), devices);
    return 77;
  }
  const char *mode = argv[1];
  if (strcmp(mode, "run") == 0) return mode_run(argv[2]);
  if (strcmp(mode, "graph") == 0) return mode_graph(argv[2]);
  if (strcmp(mode, "status") == 0) return mode_status(argv[2]);
  if (strcmp(mode, "status-case") == 0) return mode_status_case(argv[2]);
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
