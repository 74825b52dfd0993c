// idgpu's own C API (include/idgpu/idgpu.h), and the binding call of the stand-in libraries.
#include "idgpu/idgpu.h"

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "core/api.h"
#include "core/config.h"
#include "core/launch.h"
#include "core/log.h"
#include "core/stats.h"
#include "core/vendor.h"
#include "fft/runtime_kernels.h"
#include "ooc/executor.h"
#include "ooc/plan.h"
#include "poisson/ooc_solver.h"
#include "poisson/solver.h"
#include "stub/stub_abi.h"
#include "tridiag/kernels/kernels.h"

#define IDGPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

idgpuCallStats_t to_c(idgpu::Api api) {
  const idgpu::stats::Snapshot snap = idgpu::stats::snapshot(api);
  idgpuCallStats_t out{};
  out.name = idgpu::api_name(api);
  out.calls = snap.calls;
  out.nativeCalls = snap.native;
  out.vendorCalls = snap.vendor;
  out.failedCalls = snap.failed;
  out.timedCalls = snap.timed;
  out.gpuMilliseconds = snap.gpu_ms;
  return out;
}

// What a stand-in's slot points to when the vendor function cannot be found: every cuSPARSE and
// cuFFT function returns a status, except the two that return a message.
int vendor_missing_status() { return 1; /* CUSPARSE_STATUS_NOT_INITIALIZED */ }
int vendor_missing_cufft_status() { return 7; /* CUFFT_SETUP_FAILED */ }
const char* vendor_missing_message() { return "idgpu: the vendor library was not found (see IDGPU_LOG=info)"; }

}  // namespace

IDGPU_EXPORT int idgpuGetVersion(void) { return IDGPU_VERSION; }

IDGPU_EXPORT const char* idgpuGetVersionString(void) { return IDGPU_VERSION_STRING; }

IDGPU_EXPORT idgpuStatus_t idgpuSetPolicy(idgpuPolicy_t policy) {
  if (policy != IDGPU_POLICY_AUTO && policy != IDGPU_POLICY_VENDOR && policy != IDGPU_POLICY_NATIVE) {
    return IDGPU_STATUS_INVALID_VALUE;
  }
  idgpu::set_policy(static_cast<idgpu::Policy>(policy));
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuGetPolicy(idgpuPolicy_t* policy) {
  if (policy == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  *policy = static_cast<idgpuPolicy_t>(idgpu::policy());
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuSetTridiagSolver(idgpuTridiagSolver_t solver) {
  if (solver != IDGPU_TRIDIAG_SOLVER_AUTO && solver != IDGPU_TRIDIAG_SOLVER_PARTITION &&
      solver != IDGPU_TRIDIAG_SOLVER_WANG_MOU && solver != IDGPU_TRIDIAG_SOLVER_PCR_THOMAS) {
    return IDGPU_STATUS_INVALID_VALUE;
  }
  idgpu::set_tridiag_solver(static_cast<idgpu::TridiagSolver>(solver));
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuGetTridiagSolver(idgpuTridiagSolver_t* solver) {
  if (solver == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  *solver = static_cast<idgpuTridiagSolver_t>(idgpu::tridiag_solver());
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT int idgpuGetCallStatsCount(void) { return static_cast<int>(idgpu::kApiCount); }

IDGPU_EXPORT idgpuStatus_t idgpuGetCallStats(int index, idgpuCallStats_t* stats) {
  if (stats == nullptr || index < 0 || index >= static_cast<int>(idgpu::kApiCount)) return IDGPU_STATUS_INVALID_VALUE;
  *stats = to_c(static_cast<idgpu::Api>(index));
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuGetCallStatsByName(const char* name, idgpuCallStats_t* stats) {
  if (name == nullptr || stats == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  for (std::size_t index = 0; index < idgpu::kApiCount; ++index) {
    const auto api = static_cast<idgpu::Api>(index);
    if (std::strcmp(idgpu::api_name(api), name) == 0) {
      *stats = to_c(api);
      return IDGPU_STATUS_SUCCESS;
    }
  }
  return IDGPU_STATUS_NOT_FOUND;
}

IDGPU_EXPORT idgpuStatus_t idgpuResetCallStats(void) {
  idgpu::stats::reset();
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuWriteReport(FILE* stream) {
  if (stream == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  idgpu::stats::write_report(stream);
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuWriteReportJson(FILE* stream) {
  if (stream == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  try {
    idgpu::stats::write_report_json(stream);
  } catch (...) {
    return IDGPU_STATUS_EXECUTION_FAILED;
  }
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuGetFftRuntimeKernelStats(int* loaded, long long* launches) {
  idgpu::fft::runtime_kernel_stats(loaded, launches);
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuGetReportJson(char* buffer, size_t size, size_t* length) {
  if (length == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  try {
    const std::string text = idgpu::stats::report_json();
    *length = text.size() + 1;
    if (buffer == nullptr) return size == 0 ? IDGPU_STATUS_SUCCESS : IDGPU_STATUS_INVALID_VALUE;
    if (size < text.size() + 1) return IDGPU_STATUS_INVALID_VALUE;
    std::memcpy(buffer, text.c_str(), text.size() + 1);
  } catch (...) {
    return IDGPU_STATUS_EXECUTION_FAILED;
  }
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT const char* idgpuGetVendorLibraryPath(idgpuVendorLibrary_t library) {
  idgpu::vendor::Library* target = library == IDGPU_VENDOR_CUFFT     ? &idgpu::vendor::cufft_library()
                                   : library == IDGPU_VENDOR_CUSPARSE ? &idgpu::vendor::cusparse_library()
                                                                      : nullptr;
  if (target == nullptr || !target->load()) return nullptr;
  return target->path().c_str();
}

namespace {

template <class T>
idgpuStatus_t var_batch(const char* name, cudaStream_t stream, int max_m, const int* sizes, const T* dl, const T* d,
                        T* du, T* x, int batch) noexcept {
  if (max_m < 0 || batch < 0 || sizes == nullptr || dl == nullptr || d == nullptr || du == nullptr || x == nullptr) {
    idgpu::log::api().error("{}(maxM={}, batchCount={}): invalid argument", name, max_m, batch);
    return IDGPU_STATUS_INVALID_VALUE;
  }
  if (max_m == 0 || batch == 0) return IDGPU_STATUS_SUCCESS;
  // No vendor to fall back on here: the launch count only keeps IDGPU_FAULT_INJECT's "second
  // launch" to this call's own launches.
  idgpu::launch::begin_call();
  cudaError_t status = idgpu::tridiag::kernels::partition_solve_var<T>(max_m, batch, sizes, dl, d, du, x, stream);
  if (status == cudaSuccess && idgpu::config().sync_check) status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) {
    idgpu::log::kernel().error("{}(maxM={}, batchCount={}): {}", name, max_m, batch, cudaGetErrorString(status));
    cudaGetLastError();
    return IDGPU_STATUS_EXECUTION_FAILED;
  }
  return IDGPU_STATUS_SUCCESS;
}

}  // namespace

#define IDGPU_VAR_BATCH_(P, T)                                                                                   \
  IDGPU_EXPORT idgpuStatus_t idgpu##P##gtsvInterleavedVarBatch(cudaStream_t stream, int maxM, const int* sizes,  \
                                                               const T* dl, const T* d, T* du, T* x,            \
                                                               int batchCount) {                                \
    return var_batch<T>("idgpu" #P "gtsvInterleavedVarBatch", stream, maxM, sizes, dl, d, du, x, batchCount);   \
  }
IDGPU_VAR_BATCH_(S, float)
IDGPU_VAR_BATCH_(D, double)
IDGPU_VAR_BATCH_(C, cuComplex)
IDGPU_VAR_BATCH_(Z, cuDoubleComplex)
#undef IDGPU_VAR_BATCH_

// The FFT Poisson solver (poisson/solver.h).
struct idgpuPoissonPlan {
  std::unique_ptr<idgpu::poisson::Solver> solver;
};

namespace {

idgpuStatus_t poisson_failure(const char* name, const std::string& why) {
  idgpu::log::api().error("{}: {}", name, why);
  return IDGPU_STATUS_EXECUTION_FAILED;
}

template <bool kDouble, class Real>
idgpuStatus_t poisson_exec(const char* name, idgpuPoissonPlan_t plan, const Real* f, Real* u) noexcept {
  if (plan == nullptr || plan->solver == nullptr || f == nullptr || u == nullptr) {
    idgpu::log::api().error("{}: null plan or array", name);
    return IDGPU_STATUS_INVALID_VALUE;
  }
  if (plan->solver->problem().fp64 != kDouble) {
    idgpu::log::api().error("{}: the plan was made for {} precision", name, kDouble ? "single" : "double");
    return IDGPU_STATUS_INVALID_VALUE;
  }
  try {
    idgpu::launch::begin_call();
    std::string why;
    if (!plan->solver->solve(f, u, &why)) return poisson_failure(name, why);
    if (idgpu::config().sync_check) {
      // The plan's stream, as the solve enqueued on it (cuFFT's handle keeps it too).
      if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) {
        cudaGetLastError();
        return poisson_failure(name, cudaGetErrorString(status));
      }
    }
  } catch (const std::exception& error) {
    return poisson_failure(name, error.what());
  } catch (...) {
    return poisson_failure(name, "unknown exception");
  }
  return IDGPU_STATUS_SUCCESS;
}

}  // namespace

IDGPU_EXPORT idgpuStatus_t idgpuPoissonCreate(idgpuPoissonPlan_t* plan, int nx, int ny, int nz, double hx, double hy,
                                              double hz, idgpuPoissonBoundary_t zBoundary,
                                              idgpuPrecision_t precision) {
  constexpr const char* kName = "idgpuPoissonCreate";
  if (plan == nullptr) {
    idgpu::log::api().error("{}: null plan pointer", kName);
    return IDGPU_STATUS_INVALID_VALUE;
  }
  if (precision != IDGPU_PRECISION_SINGLE && precision != IDGPU_PRECISION_DOUBLE) {
    idgpu::log::api().error("{}: unknown precision {}", kName, static_cast<int>(precision));
    return IDGPU_STATUS_INVALID_VALUE;
  }
  idgpu::poisson::Problem problem;
  problem.nx = nx;
  problem.ny = ny;
  problem.nz = nz;
  problem.hx = hx;
  problem.hy = hy;
  problem.hz = hz;
  problem.z = static_cast<idgpu::poisson::Boundary>(zBoundary);
  problem.fp64 = precision == IDGPU_PRECISION_DOUBLE;
  if (const std::string why = idgpu::poisson::refusal(problem); !why.empty()) {
    idgpu::log::api().error("{}(nx={}, ny={}, nz={}, hx={}, hy={}, hz={}, zBoundary={}): {}", kName, nx, ny, nz, hx, hy,
                            hz, static_cast<int>(zBoundary), why);
    return IDGPU_STATUS_INVALID_VALUE;
  }
  try {
    auto made = std::make_unique<idgpuPoissonPlan>();
    std::string why;
    made->solver = std::make_unique<idgpu::poisson::Solver>(problem, &why);
    if (!why.empty()) return poisson_failure(kName, why);
    idgpu::log::plan().info("{}(nx={}, ny={}, nz={}): {} path, FFTs of rank {} batch {}, {} bytes of device memory",
                            kName, nx, ny, nz,
                            made->solver->layout().path == idgpu::poisson::Path::kPeriodicColumns ? "outer-axis FFT"
                            : made->solver->layout().path == idgpu::poisson::Path::kZSystems      ? "z systems"
                                                                                                  : "full spectrum",
                            made->solver->layout().fft_dims.size(), made->solver->layout().fft_batch,
                            made->solver->device_bytes());
    *plan = made.release();
  } catch (const std::exception& error) {
    return poisson_failure(kName, error.what());
  }
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuPoissonDestroy(idgpuPoissonPlan_t plan) {
  if (plan == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  delete plan;
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuPoissonSetStream(idgpuPoissonPlan_t plan, cudaStream_t stream) {
  if (plan == nullptr || plan->solver == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  if (plan->solver->set_stream(stream) != CUFFT_SUCCESS) {
    return poisson_failure("idgpuPoissonSetStream", "the FFT plans refused the stream");
  }
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuPoissonSetMean(idgpuPoissonPlan_t plan, double mean) {
  if (plan == nullptr || plan->solver == nullptr || !std::isfinite(mean)) return IDGPU_STATUS_INVALID_VALUE;
  plan->solver->set_mean(mean);
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuPoissonGetWorkSize(idgpuPoissonPlan_t plan, size_t* bytes) {
  if (plan == nullptr || plan->solver == nullptr || bytes == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  *bytes = plan->solver->device_bytes();
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuPoissonExecS(idgpuPoissonPlan_t plan, const float* f, float* u) {
  return poisson_exec<false>("idgpuPoissonExecS", plan, f, u);
}

IDGPU_EXPORT idgpuStatus_t idgpuPoissonExecD(idgpuPoissonPlan_t plan, const double* f, double* u) {
  return poisson_exec<true>("idgpuPoissonExecD", plan, f, u);
}

// The out-of-core FFT (ooc/executor.h).
struct idgpuOocPlan {
  std::unique_ptr<idgpu::ooc::Executor> executor;
};

namespace {

// The body of an idgpuOoc* entry point, every exception mapped to IDGPU_STATUS_EXECUTION_FAILED.
template <class Body>
idgpuStatus_t ooc_boundary(const char* name, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& error) {
    idgpu::log::api().error("{}: {}", name, error.what());
  } catch (...) {
    idgpu::log::api().error("{}: unknown exception", name);
  }
  return IDGPU_STATUS_EXECUTION_FAILED;
}

// idgpuOocPlan3d and idgpuOocPlanMany1d once their problem is built; `call` names the call and
// its arguments for the log.
// The budget of a plan (ooc/plan.h resolve_device_bytes), or -1 after logging why there is none.
long long ooc_budget(const std::string& call, size_t device_bytes) {
  size_t free_bytes = 0;
  if (device_bytes == 0 && idgpu::config().ooc_device_bytes == 0) {
    size_t total_bytes = 0;
    if (const cudaError_t status = cudaMemGetInfo(&free_bytes, &total_bytes); status != cudaSuccess) {
      cudaGetLastError();
      idgpu::log::api().error("{}: the free device memory is unknown: {}", call, cudaGetErrorString(status));
      return -1;
    }
  }
  return idgpu::ooc::resolve_device_bytes(device_bytes, idgpu::config().ooc_device_bytes, free_bytes);
}

idgpuStatus_t ooc_plan(const std::string& call, idgpuOocPlan_t* plan, const idgpu::ooc::Executor::Request& request,
                       size_t device_bytes) {
  if (const std::string why = idgpu::ooc::problem_refusal(request.problem); !why.empty()) {
    idgpu::log::api().error("{}: {}", call, why);
    return IDGPU_STATUS_INVALID_VALUE;
  }
  const long long budget = ooc_budget(call, device_bytes);
  if (budget < 0) return IDGPU_STATUS_EXECUTION_FAILED;
  idgpu::ooc::Executor::Status status = idgpu::ooc::Executor::Status::kFailed;
  std::string why;
  std::unique_ptr<idgpu::ooc::Executor> executor = idgpu::ooc::Executor::make(request, budget, &status, &why);
  if (executor == nullptr) {
    idgpu::log::api().error("{}, budget {} bytes: {}", call, budget, why);
    return status == idgpu::ooc::Executor::Status::kBudget ? IDGPU_STATUS_INVALID_VALUE
                                                            : IDGPU_STATUS_EXECUTION_FAILED;
  }
  idgpu::log::plan().info("{}, budget {} bytes: {}; {} FFT plans, {} bytes of device memory, {} pinned", call,
                          budget, executor->schedule().to_string(), executor->plan_count(),
                          executor->device_bytes_held(), executor->pinned_bytes());
  auto made = std::make_unique<idgpuOocPlan>();
  made->executor = std::move(executor);
  *plan = made.release();
  return IDGPU_STATUS_SUCCESS;
}

bool ooc_precision(const char* name, idgpuPrecision_t precision) {
  if (precision == IDGPU_PRECISION_SINGLE || precision == IDGPU_PRECISION_DOUBLE) return true;
  idgpu::log::api().error("{}: unknown precision {}", name, static_cast<int>(precision));
  return false;
}

int ooc_element_bytes(idgpuPrecision_t precision) { return precision == IDGPU_PRECISION_DOUBLE ? 16 : 8; }

idgpu::ooc::Executor::Request complex_request(const idgpu::ooc::Problem& problem) {
  idgpu::ooc::Executor::Request request;
  request.problem = problem;
  return request;
}

// A real plan's request: the complex problem of its half spectrum (n / 2 + 1 along the contiguous
// axis) and the real length.
idgpu::ooc::Executor::Request real_request(idgpu::ooc::Problem problem, long long real_length) {
  idgpu::ooc::Executor::Request request;
  problem.extents[2] = real_length / 2 + 1;
  request.problem = problem;
  request.kind = idgpu::ooc::Executor::Kind::kReal;
  request.real_length = real_length;
  return request;
}

const char* precision_text(idgpuPrecision_t precision) {
  return precision == IDGPU_PRECISION_DOUBLE ? "double" : "single";
}

// The shared checks of idgpuOocExecR2C / C2R: a real plan, host pointers; false after logging.
bool ooc_real_arguments(const char* name, idgpuOocPlan_t plan, const void* in, const void* out) {
  if (plan == nullptr || plan->executor == nullptr || in == nullptr || out == nullptr) {
    idgpu::log::api().error("{}: null plan, input or output", name);
    return false;
  }
  if (plan->executor->request().kind != idgpu::ooc::Executor::Kind::kReal) {
    idgpu::log::api().error("{}: a complex plan (idgpuOocPlan3d / idgpuOocPlanMany1d) runs with idgpuOocExec", name);
    return false;
  }
  if (idgpu::ooc::Executor::is_device_memory(in) || idgpu::ooc::Executor::is_device_memory(out)) {
    idgpu::log::api().error("{}: device memory; the out-of-core FFT transforms host memory", name);
    return false;
  }
  return true;
}

idgpuStatus_t ooc_exec_real(const char* name, idgpuOocPlan_t plan, const void* in, void* out, bool inverse) {
  return ooc_boundary(name, [&] {
    if (!ooc_real_arguments(name, plan, in, out)) return IDGPU_STATUS_INVALID_VALUE;
    std::string why;
    if (!plan->executor->execute_real(in, out, inverse, &why)) {
      idgpu::log::api().error("{}: {}", name, why);
      return IDGPU_STATUS_EXECUTION_FAILED;
    }
    return IDGPU_STATUS_SUCCESS;
  });
}

}  // namespace

namespace {

// The body of idgpuOocPlan3d, PlanMany1d, PlanReal3d and PlanRealMany1d: `extents` the problem's
// sizes as three_d / batched_1d take them, `real_length` the real points of a real plan (0 for a
// complex one), `arguments` the call's sizes for the log.
idgpuStatus_t ooc_plan_entry(const char* name, idgpuOocPlan_t* plan, bool batched, long long e0, long long e1,
                             long long e2, long long real_length, idgpuPrecision_t precision, size_t device_bytes,
                             const std::string& arguments) {
  return ooc_boundary(name, [&] {
    if (plan == nullptr) {
      idgpu::log::api().error("{}: null plan pointer", name);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    if (!ooc_precision(name, precision)) return IDGPU_STATUS_INVALID_VALUE;
    const std::string call = std::string(name) + "(" + arguments + ", " + precision_text(precision) + ")";
    const int element_bytes = ooc_element_bytes(precision);
    const idgpu::ooc::Problem problem =
        batched ? idgpu::ooc::batched_1d(e0, e2, element_bytes) : idgpu::ooc::three_d(e0, e1, e2, element_bytes);
    if (real_length == 0) return ooc_plan(call, plan, complex_request(problem), device_bytes);
    if (real_length < 2) {
      idgpu::log::api().error("{}: the real axis needs at least 2 points", call);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    return ooc_plan(call, plan, real_request(problem, real_length), device_bytes);
  });
}

std::string sizes_3d(long long n0, long long n1, long long n2) {
  return "n0=" + std::to_string(n0) + ", n1=" + std::to_string(n1) + ", n2=" + std::to_string(n2);
}

std::string sizes_1d(long long n, long long batch) {
  return "n=" + std::to_string(n) + ", batch=" + std::to_string(batch);
}

}  // namespace

IDGPU_EXPORT idgpuStatus_t idgpuOocPlan3d(idgpuOocPlan_t* plan, long long n0, long long n1, long long n2,
                                          idgpuPrecision_t precision, size_t deviceBytes) {
  return ooc_plan_entry("idgpuOocPlan3d", plan, false, n0, n1, n2, 0, precision, deviceBytes, sizes_3d(n0, n1, n2));
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPlanMany1d(idgpuOocPlan_t* plan, long long n, long long batch,
                                              idgpuPrecision_t precision, size_t deviceBytes) {
  return ooc_plan_entry("idgpuOocPlanMany1d", plan, true, batch, 1, n, 0, precision, deviceBytes, sizes_1d(n, batch));
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPlanReal3d(idgpuOocPlan_t* plan, long long n0, long long n1, long long n2,
                                              idgpuPrecision_t precision, size_t deviceBytes) {
  // A real length of 1 would be taken for 0 (complex): refused here as below 2.
  return ooc_plan_entry("idgpuOocPlanReal3d", plan, false, n0, n1, n2, n2 < 2 ? 1 : n2, precision, deviceBytes,
                        sizes_3d(n0, n1, n2));
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPlanRealMany1d(idgpuOocPlan_t* plan, long long n, long long batch,
                                                  idgpuPrecision_t precision, size_t deviceBytes) {
  return ooc_plan_entry("idgpuOocPlanRealMany1d", plan, true, batch, 1, n, n < 2 ? 1 : n, precision, deviceBytes,
                        sizes_1d(n, batch));
}

IDGPU_EXPORT idgpuStatus_t idgpuOocExecR2C(idgpuOocPlan_t plan, const void* in, void* out) {
  return ooc_exec_real("idgpuOocExecR2C", plan, in, out, false);
}

IDGPU_EXPORT idgpuStatus_t idgpuOocExecC2R(idgpuOocPlan_t plan, void* in, void* out) {
  return ooc_exec_real("idgpuOocExecC2R", plan, in, out, true);
}

IDGPU_EXPORT idgpuStatus_t idgpuOocGetSchedule(idgpuOocPlan_t plan, int* roundTrips, long long* chunks) {
  if (plan == nullptr || plan->executor == nullptr || roundTrips == nullptr || chunks == nullptr) {
    idgpu::log::api().error("idgpuOocGetSchedule: null plan or pointer");
    return IDGPU_STATUS_INVALID_VALUE;
  }
  const idgpu::ooc::Schedule& schedule = plan->executor->schedule();
  *roundTrips = schedule.round_trips;
  *chunks = static_cast<long long>(schedule.chunks.size());
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuOocExec(idgpuOocPlan_t plan, void* data, int direction) {
  constexpr const char* kName = "idgpuOocExec";
  return ooc_boundary(kName, [&] {
    if (plan == nullptr || plan->executor == nullptr || data == nullptr) {
      idgpu::log::api().error("{}: null plan or data", kName);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    if (direction != IDGPU_OOC_FORWARD && direction != IDGPU_OOC_INVERSE) {
      idgpu::log::api().error("{}: direction {} is neither IDGPU_OOC_FORWARD (-1) nor IDGPU_OOC_INVERSE (+1)", kName,
                              direction);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    if (plan->executor->request().kind != idgpu::ooc::Executor::Kind::kComplex) {
      idgpu::log::api().error("{}: a real plan runs with idgpuOocExecR2C / idgpuOocExecC2R", kName);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    if (idgpu::ooc::Executor::is_device_memory(data)) {
      idgpu::log::api().error("{}: data is device memory; the out-of-core FFT transforms host memory", kName);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    std::string why;
    if (!plan->executor->execute(data, direction, &why)) {
      idgpu::log::api().error("{}: {}", kName, why);
      return IDGPU_STATUS_EXECUTION_FAILED;
    }
    return IDGPU_STATUS_SUCCESS;
  });
}

IDGPU_EXPORT idgpuStatus_t idgpuOocDestroy(idgpuOocPlan_t plan) {
  if (plan == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  delete plan;
  return IDGPU_STATUS_SUCCESS;
}

// The out-of-core Poisson solve (poisson/ooc_solver.h).
struct idgpuOocPoissonPlan {
  std::unique_ptr<idgpu::poisson::OocSolver> solver;
  std::mutex mutex;  // one exec at a time (the solver's in-core path has no lock of its own)
};

IDGPU_EXPORT idgpuStatus_t idgpuOocPoissonCreate(idgpuOocPoissonPlan_t* plan, long long nx, long long ny, long long nz,
                                                 double hx, double hy, double hz, idgpuPoissonBoundary_t zBoundary,
                                                 idgpuPrecision_t precision, size_t deviceBytes) {
  constexpr const char* kName = "idgpuOocPoissonCreate";
  return ooc_boundary(kName, [&] {
    if (plan == nullptr) {
      idgpu::log::api().error("{}: null plan pointer", kName);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    if (!ooc_precision(kName, precision)) return IDGPU_STATUS_INVALID_VALUE;
    idgpu::poisson::Problem problem;
    problem.nx = nx;
    problem.ny = ny;
    problem.nz = nz;
    problem.hx = hx;
    problem.hy = hy;
    problem.hz = hz;
    problem.z = static_cast<idgpu::poisson::Boundary>(zBoundary);
    problem.fp64 = precision == IDGPU_PRECISION_DOUBLE;
    const std::string call = std::string(kName) + "(nx=" + std::to_string(nx) + ", ny=" + std::to_string(ny) +
                             ", nz=" + std::to_string(nz) + ", zBoundary=" + std::to_string(static_cast<int>(zBoundary)) +
                             ", " + precision_text(precision) + ")";
    if (const std::string why = idgpu::poisson::ooc_refusal(problem); !why.empty()) {
      idgpu::log::api().error("{}: {}", call, why);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    const long long budget = ooc_budget(call, deviceBytes);
    if (budget < 0) return IDGPU_STATUS_EXECUTION_FAILED;
    idgpu::ooc::Executor::Status status = idgpu::ooc::Executor::Status::kFailed;
    std::string why;
    auto made = std::make_unique<idgpuOocPoissonPlan>();
    made->solver = idgpu::poisson::OocSolver::make(problem, budget, &status, &why);
    if (made->solver == nullptr) {
      idgpu::log::api().error("{}, budget {} bytes: {}", call, budget, why);
      return status == idgpu::ooc::Executor::Status::kBudget ? IDGPU_STATUS_INVALID_VALUE
                                                              : IDGPU_STATUS_EXECUTION_FAILED;
    }
    idgpu::log::plan().info("{}, budget {} bytes: {}", call, budget, made->solver->to_string());
    *plan = made.release();
    return IDGPU_STATUS_SUCCESS;
  });
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPoissonSetMean(idgpuOocPoissonPlan_t plan, double mean) {
  if (plan == nullptr || plan->solver == nullptr || !std::isfinite(mean)) {
    idgpu::log::api().error("idgpuOocPoissonSetMean: null plan or a mean that is not finite");
    return IDGPU_STATUS_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(plan->mutex);
  plan->solver->set_mean(mean);
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPoissonGetSchedule(idgpuOocPoissonPlan_t plan, int* roundTrips,
                                                      long long* chunks) {
  if (plan == nullptr || plan->solver == nullptr || roundTrips == nullptr || chunks == nullptr) {
    idgpu::log::api().error("idgpuOocPoissonGetSchedule: null plan or pointer");
    return IDGPU_STATUS_INVALID_VALUE;
  }
  *roundTrips = plan->solver->round_trips();
  *chunks = plan->solver->chunks();
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPoissonGetHostBytes(idgpuOocPoissonPlan_t plan, size_t* bytes) {
  if (plan == nullptr || plan->solver == nullptr || bytes == nullptr) {
    idgpu::log::api().error("idgpuOocPoissonGetHostBytes: null plan or pointer");
    return IDGPU_STATUS_INVALID_VALUE;
  }
  *bytes = plan->solver->host_bytes();
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPoissonExec(idgpuOocPoissonPlan_t plan, const void* f, void* u) {
  constexpr const char* kName = "idgpuOocPoissonExec";
  return ooc_boundary(kName, [&] {
    if (plan == nullptr || plan->solver == nullptr || f == nullptr || u == nullptr) {
      idgpu::log::api().error("{}: null plan, f or u", kName);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    if (idgpu::ooc::Executor::is_device_memory(f) || idgpu::ooc::Executor::is_device_memory(u)) {
      idgpu::log::api().error("{}: device memory; the out-of-core solve takes f and u in host memory", kName);
      return IDGPU_STATUS_INVALID_VALUE;
    }
    std::lock_guard<std::mutex> lock(plan->mutex);
    std::string why;
    if (!plan->solver->solve(f, u, &why)) {
      idgpu::log::api().error("{}: {}", kName, why);
      return IDGPU_STATUS_EXECUTION_FAILED;
    }
    return IDGPU_STATUS_SUCCESS;
  });
}

IDGPU_EXPORT idgpuStatus_t idgpuOocPoissonDestroy(idgpuOocPoissonPlan_t plan) {
  if (plan == nullptr) return IDGPU_STATUS_INVALID_VALUE;
  delete plan;
  return IDGPU_STATUS_SUCCESS;
}

IDGPU_EXPORT int idgpuStubBind(const char* soname, const char* const* names, void** slots, int count) {
  if (soname == nullptr || names == nullptr || slots == nullptr || count < 0) return -1;
  const bool is_cufft = idgpu::vendor::cufft_library().answers_to(soname);
  // A stand-in for an older cuFFT release binds to the entry points of that release's node, and
  // its callers were built against it: the vendor library loaded must be that release.
  const bool older_cufft = is_cufft && std::strcmp(soname, IDGPU_VENDOR_CUFFT_SONAME) != 0;
  if (is_cufft) idgpu::vendor::note_cufft_client(older_cufft ? IDGPU_VENDOR_CUFFT11_SONAME : IDGPU_VENDOR_CUFFT_SONAME);
  idgpu::vendor::Library& vendor =
      is_cufft ? idgpu::vendor::cufft_library() : idgpu::vendor::cusparse_library();
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&idgpuStubBind), &self);
  void* self_handle = self.dli_fname != nullptr ? dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
  const bool vendor_loaded = vendor.load();
  int missing = 0;
  for (int index = 0; index < count; ++index) {
    void* target = nullptr;
    // Ours when this library exports the name, the vendor's otherwise.
    if (self_handle != nullptr) {
      void* candidate =
          older_cufft ? dlvsym(self_handle, names[index], IDGPU_VENDOR_CUFFT11_NODE) : dlsym(self_handle, names[index]);
      Dl_info owner{};
      if (candidate != nullptr && dladdr(candidate, &owner) != 0 && owner.dli_fbase == self.dli_fbase) {
        target = candidate;
      }
    }
    if (target == nullptr && vendor_loaded) target = vendor.symbol(names[index]);
    if (target == nullptr) {
      ++missing;
      const char* name = names[index];
      const std::size_t length = std::strlen(name);
      const bool returns_message = length > 6 && (std::strstr(name, "GetErrorString") != nullptr ||
                                                  std::strstr(name, "GetErrorName") != nullptr);
      target = returns_message ? reinterpret_cast<void*>(&vendor_missing_message)
               : is_cufft     ? reinterpret_cast<void*>(&vendor_missing_cufft_status)
                              : reinterpret_cast<void*>(&vendor_missing_status);
    }
    slots[index] = target;
  }
  if (self_handle != nullptr) dlclose(self_handle);
  if (missing > 0) {
    idgpu::log::vendor().error("stand-in {}: {} of {} functions have no vendor definition", soname, missing, count);
  }
  return missing;
}
