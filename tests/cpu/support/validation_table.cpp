#include "support/validation_table.h"

#include <cstdint>

#include "support/bits.h"
#include "support/cufft_calls.h"

namespace idgpu::test {

void ValidationContext::reset_outputs() {
  out_plan = kSentinelPlan;
  work_size = kSentinelSize;
  buffer_size = kSentinelSize;
}

bool ValidationContext::outputs_untouched() const {
  return out_plan == kSentinelPlan && work_size == kSentinelSize && buffer_size == kSentinelSize;
}

bool make_validation_context(ValidationContext* context, void* data, cusparseHandle_t sparse_handle) {
  ValidationContext& c = *context;
  bool ok = cufftPlan1d(&c.c2c_plan, 8, CUFFT_C2C, 1) == CUFFT_SUCCESS;
  ok = ok && cufftPlan1d(&c.r2c_plan, 8, CUFFT_R2C, 1) == CUFFT_SUCCESS;
  ok = ok && cufftPlan1d(&c.c2r_plan, 8, CUFFT_C2R, 1) == CUFFT_SUCCESS;
  ok = ok && cufftPlan1d(&c.z2z_plan, 8, CUFFT_Z2Z, 1) == CUFFT_SUCCESS;
  ok = ok && cufftPlan1d(&c.d2z_plan, 8, CUFFT_D2Z, 1) == CUFFT_SUCCESS;
  ok = ok && cufftPlan1d(&c.z2d_plan, 8, CUFFT_Z2D, 1) == CUFFT_SUCCESS;
  ok = ok && cufftCreate(&c.created_plan) == CUFFT_SUCCESS;
  ok = ok && cufftCreate(&c.destroyed_plan) == CUFFT_SUCCESS && cufftDestroy(c.destroyed_plan) == CUFFT_SUCCESS;
  c.data = data;
  c.stream = from_bits<cudaStream_t>(0x5713ea40ull);
  c.gtsv = valid_gtsv_args(&c.buffer_size);
  c.gtsv.handle = sparse_handle;
  if (data != nullptr) {
    // With real device memory every pointer is the one allocation (a refused call reads none).
    c.gtsv.dl = c.gtsv.d = c.gtsv.du = c.gtsv.B = c.gtsv.pBuffer = data;
  }
  c.reset_outputs();
  return ok;
}

void destroy_validation_context(ValidationContext* context) {
  for (cufftHandle plan : {context->c2c_plan, context->r2c_plan, context->c2r_plan, context->z2z_plan,
                           context->d2z_plan, context->z2d_plan, context->created_plan}) {
    cufftDestroy(plan);
  }
}

namespace {

// A refused cuFFT row whose name is its own call expression; `c` is the ValidationContext.
#define FFT_ROW(expected, ...) \
  ValidationCase { #__VA_ARGS__, ApiLibrary::kCufft, [](ValidationContext& c) -> int { return __VA_ARGS__; }, expected }

// Arrays the rows point n / inembed / onembed at (never written by the library).
int g_n1[1] = {8};
int g_n3[3] = {4, 4, 4};
int g_n_zero[1] = {0};
int g_n_negative_inner[2] = {8, -3};
int g_n3_zero_last[3] = {4, 4, 0};
long long g_n1_64[1] = {8};
long long g_n3_64[3] = {4, 4, 4};
long long g_n_zero_64[2] = {8, 0};

const cufftType kBadType = static_cast<cufftType>(0x7f);
const cufftType kZeroType = static_cast<cufftType>(0);

std::vector<ValidationCase> cufft_rows() {
  return {
      // --- A null output for the new handle (checked before anything else) -----------------------
      FFT_ROW(CUFFT_INVALID_VALUE, cufftCreate(nullptr)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftPlan1d(nullptr, 8, CUFFT_C2C, 1)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftPlan1d(nullptr, 0, kBadType, 0)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftPlan2d(nullptr, 8, 8, CUFFT_C2C)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftPlan3d(nullptr, 4, 4, 4, CUFFT_C2C)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftPlanMany(nullptr, 1, g_n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftPlanMany(nullptr, 0, nullptr, nullptr, 1, 0, nullptr, 1, 0, kBadType, 0)),

      // --- A handle that is not live, whatever else is wrong -------------------------------------
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan1d(kUnknownPlan, 8, CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan1d(0, 8, CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan1d(-1, 8, CUFFT_C2C, 1, &c.work_size)),
      // The vendor destroys handle -1 as a no-op, and refuses 0 (measured with cuFFT 12.0).
      FFT_ROW(CUFFT_SUCCESS, cufftDestroy(-1)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftDestroy(0)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan1d(c.destroyed_plan, 8, CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan1d(kUnknownPlan, 0, kBadType, 0, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan2d(kUnknownPlan, 8, -8, CUFFT_C2C, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlan3d(c.destroyed_plan, 4, 4, 4, kZeroType, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlanMany(kUnknownPlan, 1, g_n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                                    &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlanMany(kUnknownPlan, 0, g_n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                                    &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlanMany(c.destroyed_plan, 2, nullptr, nullptr, 1, 0, nullptr, 1, 0,
                                                    CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftMakePlanMany64(kUnknownPlan, 4, g_n3_64, nullptr, 1, 0, nullptr, 1, 0,
                                                      CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftXtMakePlanMany(kUnknownPlan, 1, g_n1_64, nullptr, 1, 0, CUDA_C_32F, nullptr, 1,
                                                      0, CUDA_C_32F, 1, &c.work_size, CUDA_C_32F)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSize1d(kUnknownPlan, 8, CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSize2d(c.destroyed_plan, 8, 8, CUFFT_C2C, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSize3d(kUnknownPlan, 0, 0, 0, kBadType, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSizeMany(kUnknownPlan, 4, g_n3, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                                   &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSizeMany64(c.destroyed_plan, 1, g_n1_64, nullptr, 1, 0, nullptr, 1, 0,
                                                     CUFFT_C2C, 1, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftXtGetSizeMany(kUnknownPlan, 1, g_n1_64, nullptr, 1, 0, CUDA_C_32F, nullptr, 1,
                                                     0, CUDA_C_32F, 1, &c.work_size, CUDA_C_32F)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSize(kUnknownPlan, &c.work_size)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftGetSize(c.destroyed_plan, nullptr)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftSetStream(kUnknownPlan, c.stream)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftSetStream(c.destroyed_plan, c.stream)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftSetWorkArea(c.destroyed_plan, c.data)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftXtSetWorkArea(kUnknownPlan, &c.data)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftSetAutoAllocation(c.destroyed_plan, 0)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftDestroy(kUnknownPlan)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftDestroy(-7)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftDestroy(c.destroyed_plan)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftExecC2C(kUnknownPlan, static_cast<cufftComplex*>(c.data),
                                               static_cast<cufftComplex*>(c.data), CUFFT_FORWARD)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftExecC2C(c.destroyed_plan, static_cast<cufftComplex*>(c.data),
                                               static_cast<cufftComplex*>(c.data), CUFFT_INVERSE)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftExecC2C(kUnknownPlan, static_cast<cufftComplex*>(c.data),
                                               static_cast<cufftComplex*>(c.data), 0)),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftExecR2C(kUnknownPlan, static_cast<cufftReal*>(c.data),
                                               static_cast<cufftComplex*>(c.data))),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftExecZ2D(c.destroyed_plan, static_cast<cufftDoubleComplex*>(c.data),
                                               static_cast<cufftDoubleReal*>(c.data))),
      FFT_ROW(CUFFT_INVALID_PLAN, cufftXtExec(c.destroyed_plan, c.data, c.data, CUFFT_FORWARD)),

      // --- A live plan, but a missing output or a direction that is neither way -----------------
      FFT_ROW(CUFFT_INVALID_VALUE, cufftGetSize(c.c2c_plan, nullptr)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftExecC2C(c.c2c_plan, static_cast<cufftComplex*>(c.data),
                                                static_cast<cufftComplex*>(c.data), 0)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftExecC2C(c.c2c_plan, static_cast<cufftComplex*>(c.data),
                                                static_cast<cufftComplex*>(c.data), 2)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftExecC2C(c.c2c_plan, static_cast<cufftComplex*>(c.data),
                                                static_cast<cufftComplex*>(c.data), -2)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftExecZ2Z(c.z2z_plan, static_cast<cufftDoubleComplex*>(c.data),
                                                static_cast<cufftDoubleComplex*>(c.data), 0)),
      // The direction is judged before the plan's type.
      FFT_ROW(CUFFT_INVALID_VALUE, cufftExecC2C(c.r2c_plan, static_cast<cufftComplex*>(c.data),
                                                static_cast<cufftComplex*>(c.data), 0)),
      FFT_ROW(CUFFT_INVALID_VALUE, cufftExecZ2Z(c.created_plan, static_cast<cufftDoubleComplex*>(c.data),
                                                static_cast<cufftDoubleComplex*>(c.data), 7)),
  };
}

// Every entry that takes a plan handle refuses one that is not live, whatever its other
// arguments are (they are the distinct values of cufft_calls.h, which include invalid sizes,
// types and directions: the handle is judged first).
void add_handle_rows(std::vector<ValidationCase>& rows) {
  for (const CufftEntry& entry : cufft_entries()) {
    if (!entry.takes_handle) continue;
    const auto call = entry.call;
    rows.push_back({std::string(entry.name) + "(unknown plan, distinct arguments)", ApiLibrary::kCufft,
                    [call](ValidationContext&) -> int { return call(kUnknownPlan, 0).status; }, CUFFT_INVALID_PLAN});
    rows.push_back({std::string(entry.name) + "(destroyed plan, distinct arguments)", ApiLibrary::kCufft,
                    [call](ValidationContext& c) -> int { return call(c.destroyed_plan, 0).status; },
                    CUFFT_INVALID_PLAN});
  }
}

// --- gtsv ---------------------------------------------------------------------------------------
// What libidgpu refuses (src/tridiag/gtsv.h, refuse_buffer_size / refuse_solve): in a solve, a
// null handle, then the shape (m >= 3, n >= 0, ldb >= max(1, m), batchCount > 0, batchStride >= m;
// gtsvInterleavedBatch: algo in 0..2 and batchCount >= 0 only), then null data; in a size query,
// only a null handle (gtsv2_bufferSizeExt alone) and a null size output. Everything else is the
// vendor's.

constexpr int kPassThrough = -1;

bool is_solve(const GtsvEntry& e) { return !e.is_buffer_size; }
bool family_is(const GtsvEntry& e, const char* family) { return e.family == family; }

// One change to the valid arguments, applied to every entry that has `parameter` (nullptr: all);
// `expect` gives the entry's status, or kPassThrough when the change is the vendor's to judge.
struct GtsvMutation {
  const char* name;
  const char* parameter;
  void (*apply)(GtsvArgs& args);
  int (*expect)(const GtsvEntry& entry);
};

int null_handle_status(const GtsvEntry& e) {
  return is_solve(e) || family_is(e, "Gtsv2BufferSize") ? CUSPARSE_STATUS_NOT_INITIALIZED : kPassThrough;
}
int shape_status(const GtsvEntry& e) {
  return is_solve(e) && !family_is(e, "InterleavedBatch") ? CUSPARSE_STATUS_INVALID_VALUE : kPassThrough;
}
int solve_status(const GtsvEntry& e) { return is_solve(e) ? CUSPARSE_STATUS_INVALID_VALUE : kPassThrough; }

const GtsvMutation kGtsvMutations[] = {
    {"handle = NULL", nullptr, [](GtsvArgs& a) { a.handle = nullptr; }, null_handle_status},
    {"handle = NULL and m = 2 (the handle is judged first)", nullptr,
     [](GtsvArgs& a) {
       a.handle = nullptr;
       a.m = 2;
     },
     null_handle_status},
    {"handle = NULL and dl = NULL (the handle is judged first)", nullptr,
     [](GtsvArgs& a) {
       a.handle = nullptr;
       a.dl = nullptr;
     },
     null_handle_status},
    {"m = 2", nullptr, [](GtsvArgs& a) { a.m = 2; }, shape_status},
    {"m = 0", nullptr, [](GtsvArgs& a) { a.m = 0; }, shape_status},
    {"m = -1", nullptr, [](GtsvArgs& a) { a.m = -1; }, shape_status},
    {"n = -1", "n", [](GtsvArgs& a) { a.n = -1; }, solve_status},
    {"ldb = m - 1", "ldb", [](GtsvArgs& a) { a.ldb = a.m - 1; }, solve_status},
    {"ldb = 0", "ldb", [](GtsvArgs& a) { a.ldb = 0; }, solve_status},
    {"batchCount = 0", "batchCount", [](GtsvArgs& a) { a.batchCount = 0; },
     [](const GtsvEntry& e) { return family_is(e, "StridedBatch") ? CUSPARSE_STATUS_INVALID_VALUE : kPassThrough; }},
    {"batchCount = -2", "batchCount", [](GtsvArgs& a) { a.batchCount = -2; }, solve_status},
    {"batchStride = m - 1", "batchStride", [](GtsvArgs& a) { a.batchStride = a.m - 1; }, solve_status},
    {"algo = -1", "algo", [](GtsvArgs& a) { a.algo = -1; }, solve_status},
    {"algo = 3", "algo", [](GtsvArgs& a) { a.algo = 3; }, solve_status},
    {"dl = NULL", "dl", [](GtsvArgs& a) { a.dl = nullptr; }, solve_status},
    {"d = NULL", "d", [](GtsvArgs& a) { a.d = nullptr; }, solve_status},
    {"du = NULL", "du", [](GtsvArgs& a) { a.du = nullptr; }, solve_status},
    {"B / x = NULL", nullptr, [](GtsvArgs& a) { a.B = nullptr; }, solve_status},
    {"all data NULL", nullptr, [](GtsvArgs& a) { a.dl = a.d = a.du = a.B = nullptr; }, solve_status},
    {"size output = NULL", "size", [](GtsvArgs& a) { a.size = nullptr; },
     [](const GtsvEntry&) { return static_cast<int>(CUSPARSE_STATUS_INVALID_VALUE); }},
    {"size output = NULL and handle = NULL", "size",
     [](GtsvArgs& a) {
       a.size = nullptr;
       a.handle = nullptr;
     },
     [](const GtsvEntry& e) {
       return static_cast<int>(family_is(e, "Gtsv2BufferSize") ? CUSPARSE_STATUS_NOT_INITIALIZED
                                                               : CUSPARSE_STATUS_INVALID_VALUE);
     }},
    // pBuffer is not judged: the vendor accepts an unaligned buffer, and a null one where it
    // needs none.
    {"pBuffer = NULL", "pBuffer", [](GtsvArgs& a) { a.pBuffer = nullptr; },
     [](const GtsvEntry&) { return kPassThrough; }},
    {"pBuffer 8 bytes past 128-byte alignment", "pBuffer",
     [](GtsvArgs& a) { a.pBuffer = static_cast<char*>(a.pBuffer) + 8; }, [](const GtsvEntry&) { return kPassThrough; }},
    {"pBuffer 64 bytes past 128-byte alignment", "pBuffer",
     [](GtsvArgs& a) { a.pBuffer = static_cast<char*>(a.pBuffer) + 64; },
     [](const GtsvEntry&) { return kPassThrough; }},
};

bool applies(const GtsvMutation& mutation, const GtsvEntry& entry) {
  if (mutation.parameter == nullptr) return true;
  if (std::string(mutation.parameter) == "size") return entry.is_buffer_size;
  return entry.has(mutation.parameter);
}

void add_gtsv_rows(std::vector<ValidationCase>& rows) {
  for (const GtsvEntry& entry : gtsv_entries()) {
    for (const GtsvMutation& mutation : kGtsvMutations) {
      if (!applies(mutation, entry)) continue;
      const int expected = mutation.expect(entry);
      if (expected == kPassThrough) continue;
      const GtsvEntry* target = &entry;
      const GtsvMutation* change = &mutation;
      rows.push_back({entry.name + ": " + mutation.name, ApiLibrary::kCusparse,
                      [target, change](ValidationContext& c) -> int {
                        GtsvArgs args = c.gtsv;
                        change->apply(args);
                        return target->call(args).status;
                      },
                      expected});
    }
  }
}

void add_gtsv_pass_through_rows(std::vector<PassThroughCase>& rows) {
  for (const GtsvEntry& entry : gtsv_entries()) {
    for (const GtsvMutation& mutation : kGtsvMutations) {
      if (!applies(mutation, entry) || mutation.expect(entry) != kPassThrough) continue;
      const GtsvEntry* target = &entry;
      const GtsvMutation* change = &mutation;
      rows.push_back({entry.name + ": " + mutation.name, ApiLibrary::kCusparse, entry.name, false,
                      [target, change](ValidationContext& c) -> PassThroughOutcome {
                        GtsvArgs args = c.gtsv;
                        change->apply(args);
                        const GtsvCallResult result = target->call(args);
                        return {result.status, result.sent};
                      }});
    }
  }
}

// --- cuFFT arguments left to the vendor --------------------------------------------------------
// A row: the vendor function, whether the call creates its plan (cufftPlan*), the expected
// arguments (in parentheses; NEW: the plan this call's cufftCreate made, V(plan): the vendor
// handle behind one of the context's plans, ANY: a pointer of libidgpu's own), and the call.
#define FFT_PASS(vendor_function, creates, expected, ...)                                   \
  PassThroughCase {                                                                         \
    #__VA_ARGS__, ApiLibrary::kCufft, vendor_function, creates,                             \
        [](ValidationContext& c) -> PassThroughOutcome {                                    \
          const auto V = [&c](cufftHandle plan) { return to_bits(c.vendor_of.at(plan)); }; \
          (void)V;                                                                          \
          const int status = __VA_ARGS__;                                                   \
          return {status, std::vector<unsigned long long> expected};                        \
        }                                                                                   \
  }

constexpr unsigned long long NEW = kNewVendorPlan;
constexpr unsigned long long ANY = kAnyValue;
template <class T>
unsigned long long P(T* pointer) {
  return to_bits(pointer);
}
template <class T>
unsigned long long E(T value) {
  return to_bits(value);
}

std::vector<PassThroughCase> cufft_pass_through_rows() {
  return {
      // Sizes, batches, types and ranks: cufftPlan* create the vendor plan and make it as asked.
      FFT_PASS("cufftMakePlan1d", true, ({NEW, 0, E(CUFFT_C2C), 1, ANY}), cufftPlan1d(&c.out_plan, 0, CUFFT_C2C, 1)),
      FFT_PASS("cufftMakePlan1d", true, ({NEW, E(-8), E(CUFFT_R2C), 1, ANY}),
               cufftPlan1d(&c.out_plan, -8, CUFFT_R2C, 1)),
      FFT_PASS("cufftMakePlan1d", true, ({NEW, 8, E(CUFFT_C2C), 0, ANY}), cufftPlan1d(&c.out_plan, 8, CUFFT_C2C, 0)),
      FFT_PASS("cufftMakePlan1d", true, ({NEW, 8, E(kBadType), 1, ANY}), cufftPlan1d(&c.out_plan, 8, kBadType, 1)),
      FFT_PASS("cufftMakePlan2d", true, ({NEW, 8, E(-1), E(CUFFT_Z2Z), ANY}),
               cufftPlan2d(&c.out_plan, 8, -1, CUFFT_Z2Z)),
      FFT_PASS("cufftMakePlan2d", true, ({NEW, 8, 8, E(kZeroType), ANY}), cufftPlan2d(&c.out_plan, 8, 8, kZeroType)),
      FFT_PASS("cufftMakePlan3d", true, ({NEW, 4, 4, 0, E(CUFFT_C2C), ANY}),
               cufftPlan3d(&c.out_plan, 4, 4, 0, CUFFT_C2C)),
      FFT_PASS("cufftMakePlanMany", true, ({NEW, 0, P(g_n1), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, ANY}),
               cufftPlanMany(&c.out_plan, 0, g_n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1)),
      FFT_PASS("cufftMakePlanMany", true, ({NEW, 4, P(g_n3), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, ANY}),
               cufftPlanMany(&c.out_plan, 4, g_n3, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1)),
      FFT_PASS("cufftMakePlanMany", true, ({NEW, 1, 0, 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, ANY}),
               cufftPlanMany(&c.out_plan, 1, nullptr, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1)),
      FFT_PASS("cufftMakePlanMany", true, ({NEW, 1, P(g_n_zero), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, ANY}),
               cufftPlanMany(&c.out_plan, 1, g_n_zero, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1)),
      FFT_PASS("cufftMakePlanMany", true, ({NEW, 2, P(g_n_negative_inner), 0, 1, 0, 0, 1, 0, E(CUFFT_R2C), 1, ANY}),
               cufftPlanMany(&c.out_plan, 2, g_n_negative_inner, nullptr, 1, 0, nullptr, 1, 0, CUFFT_R2C, 1)),
      FFT_PASS("cufftMakePlanMany", true, ({NEW, 3, P(g_n3), 0, 1, 0, 0, 1, 0, E(CUFFT_Z2Z), E(-4), ANY}),
               cufftPlanMany(&c.out_plan, 3, g_n3, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2Z, -4)),

      // The same on a created plan, and the size queries.
      FFT_PASS("cufftMakePlan1d", false, ({V(c.created_plan), 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftMakePlan1d(c.created_plan, 0, CUFFT_C2C, 1, &c.work_size)),
      FFT_PASS("cufftMakePlan1d", false, ({V(c.created_plan), 8, E(kBadType), 1, P(&c.work_size)}),
               cufftMakePlan1d(c.created_plan, 8, kBadType, 1, &c.work_size)),
      FFT_PASS("cufftMakePlan2d", false, ({V(c.created_plan), 8, E(-8), E(CUFFT_C2C), P(&c.work_size)}),
               cufftMakePlan2d(c.created_plan, 8, -8, CUFFT_C2C, &c.work_size)),
      FFT_PASS("cufftMakePlan3d", false, ({V(c.created_plan), 4, 4, 0, E(CUFFT_C2C), P(&c.work_size)}),
               cufftMakePlan3d(c.created_plan, 4, 4, 0, CUFFT_C2C, &c.work_size)),
      FFT_PASS("cufftMakePlanMany", false,
               ({V(c.created_plan), 0, P(g_n1), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftMakePlanMany(c.created_plan, 0, g_n1, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1, &c.work_size)),
      FFT_PASS("cufftMakePlanMany", false,
               ({V(c.created_plan), 3, P(g_n3_zero_last), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftMakePlanMany(c.created_plan, 3, g_n3_zero_last, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                 &c.work_size)),
      FFT_PASS("cufftMakePlanMany64", false,
               ({V(c.created_plan), 4, P(g_n3_64), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftMakePlanMany64(c.created_plan, 4, g_n3_64, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                   &c.work_size)),
      FFT_PASS("cufftMakePlanMany64", false,
               ({V(c.created_plan), 2, 0, 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftMakePlanMany64(c.created_plan, 2, nullptr, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                   &c.work_size)),
      FFT_PASS("cufftMakePlanMany64", false,
               ({V(c.created_plan), 2, P(g_n_zero_64), 0, 1, 0, 0, 1, 0, E(CUFFT_Z2Z), 0, P(&c.work_size)}),
               cufftMakePlanMany64(c.created_plan, 2, g_n_zero_64, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2Z, 0,
                                   &c.work_size)),
      FFT_PASS("cufftXtMakePlanMany", false,
               ({V(c.created_plan), 0, P(g_n1_64), 0, 1, 0, E(CUDA_C_32F), 0, 1, 0, E(CUDA_C_32F), 1,
                 P(&c.work_size), E(CUDA_C_32F)}),
               cufftXtMakePlanMany(c.created_plan, 0, g_n1_64, nullptr, 1, 0, CUDA_C_32F, nullptr, 1, 0, CUDA_C_32F,
                                   1, &c.work_size, CUDA_C_32F)),
      FFT_PASS("cufftGetSize1d", false, ({V(c.created_plan), 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftGetSize1d(c.created_plan, 0, CUFFT_C2C, 1, &c.work_size)),
      FFT_PASS("cufftGetSize2d", false, ({V(c.created_plan), 8, 0, E(kBadType), P(&c.work_size)}),
               cufftGetSize2d(c.created_plan, 8, 0, kBadType, &c.work_size)),
      FFT_PASS("cufftGetSize3d", false, ({V(c.created_plan), 4, E(-1), 4, E(CUFFT_C2C), P(&c.work_size)}),
               cufftGetSize3d(c.created_plan, 4, -1, 4, CUFFT_C2C, &c.work_size)),
      FFT_PASS("cufftGetSizeMany", false,
               ({V(c.created_plan), 4, P(g_n3), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftGetSizeMany(c.created_plan, 4, g_n3, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1, &c.work_size)),
      FFT_PASS("cufftGetSizeMany", false,
               ({V(c.created_plan), 1, 0, 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), 1, P(&c.work_size)}),
               cufftGetSizeMany(c.created_plan, 1, nullptr, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1,
                                &c.work_size)),
      FFT_PASS("cufftGetSizeMany64", false,
               ({V(c.created_plan), 1, P(g_n1_64), 0, 1, 0, 0, 1, 0, E(CUFFT_C2C), E(-1LL), P(&c.work_size)}),
               cufftGetSizeMany64(c.created_plan, 1, g_n1_64, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, -1,
                                  &c.work_size)),
      // A size query with no output is the vendor's to judge too (only cufftGetSize checks it).
      FFT_PASS("cufftGetSize1d", false, ({V(c.created_plan), 8, E(CUFFT_C2C), 1, 0}),
               cufftGetSize1d(c.created_plan, 8, CUFFT_C2C, 1, nullptr)),

      // An exec of another type than the plan's: the vendor accepts it (measured), so it goes on.
      FFT_PASS("cufftExecR2C", false, ({V(c.c2c_plan), P(c.data), P(c.data)}),
               cufftExecR2C(c.c2c_plan, static_cast<cufftReal*>(c.data), static_cast<cufftComplex*>(c.data))),
      FFT_PASS("cufftExecR2C", false, ({V(c.d2z_plan), P(c.data), P(c.data)}),
               cufftExecR2C(c.d2z_plan, static_cast<cufftReal*>(c.data), static_cast<cufftComplex*>(c.data))),
      FFT_PASS("cufftExecC2R", false, ({V(c.r2c_plan), P(c.data), P(c.data)}),
               cufftExecC2R(c.r2c_plan, static_cast<cufftComplex*>(c.data), static_cast<cufftReal*>(c.data))),
      FFT_PASS("cufftExecC2C", false, ({V(c.z2z_plan), P(c.data), P(c.data), E(CUFFT_FORWARD)}),
               cufftExecC2C(c.z2z_plan, static_cast<cufftComplex*>(c.data), static_cast<cufftComplex*>(c.data),
                            CUFFT_FORWARD)),
      FFT_PASS("cufftExecZ2Z", false, ({V(c.c2c_plan), P(c.data), P(c.data), E(CUFFT_INVERSE)}),
               cufftExecZ2Z(c.c2c_plan, static_cast<cufftDoubleComplex*>(c.data),
                            static_cast<cufftDoubleComplex*>(c.data), CUFFT_INVERSE)),
      FFT_PASS("cufftExecD2Z", false, ({V(c.r2c_plan), P(c.data), P(c.data)}),
               cufftExecD2Z(c.r2c_plan, static_cast<cufftDoubleReal*>(c.data),
                            static_cast<cufftDoubleComplex*>(c.data))),
      FFT_PASS("cufftExecZ2D", false, ({V(c.c2r_plan), P(c.data), P(c.data)}),
               cufftExecZ2D(c.c2r_plan, static_cast<cufftDoubleComplex*>(c.data),
                            static_cast<cufftDoubleReal*>(c.data))),
      // Null data is the vendor's to judge.
      FFT_PASS("cufftExecC2C", false, ({V(c.c2c_plan), 0, 0, E(CUFFT_FORWARD)}),
               cufftExecC2C(c.c2c_plan, nullptr, nullptr, CUFFT_FORWARD)),
  };
}

}  // namespace

const std::vector<ValidationCase>& validation_cases() {
  static const std::vector<ValidationCase> rows = [] {
    std::vector<ValidationCase> all = cufft_rows();
    add_handle_rows(all);
    add_gtsv_rows(all);
    return all;
  }();
  return rows;
}

const std::vector<PassThroughCase>& pass_through_cases() {
  static const std::vector<PassThroughCase> rows = [] {
    std::vector<PassThroughCase> all = cufft_pass_through_rows();
    add_gtsv_pass_through_rows(all);
    return all;
  }();
  return rows;
}

}  // namespace idgpu::test
