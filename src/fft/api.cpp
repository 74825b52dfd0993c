#include "fft/api.h"

#include <functional>

#include "core/config.h"
#include "core/stats.h"

namespace idgpu::fft {
namespace {

// Re-issues the application's own plan-creation call on the plan's vendor handle, so a vendor
// plan is exactly the plan the vendor would have made for that call.
using VendorMake = std::function<cufftResult(cufftHandle vendor_plan, size_t* work_size)>;

const vendor::CufftTable* table() { return vendor::cufft(); }

// The native plan for a descriptor, or null with the reason the vendor serves it.
std::unique_ptr<NativePlan> choose_native(const Plan& plan, const Descriptor& descriptor, const char** reason) {
  if (plan.vendor_only) {
    // Something set on the handle before the plan (a callback, a plan property, a work-area
    // policy, GPUs) changes the transform or how it runs: only the vendor's plan honours it.
    *reason = plan.vendor_only_reason.c_str();
    log::dispatch().debug("{}: vendor ({})", descriptor.to_string(), *reason);
    return nullptr;
  }
  const Policy current = policy();
  if (current == Policy::kVendor) {
    *reason = "IDGPU_POLICY=vendor";
    return nullptr;
  }
  *reason = "no native solver applies";
  for (const Solver* solver : solvers()) {
    const char* declined = nullptr;
    if (auto plan = solver->make(descriptor, &declined)) return plan;
    if (declined != nullptr) *reason = declined;
  }
  if (current == Policy::kNative) {
    log::dispatch().info("IDGPU_POLICY=native but no native path for {}: vendor ({})", descriptor.to_string(), *reason);
  }
  return nullptr;
}

// The one make-plan every creation call goes through.
cufftResult make_plan(Call& call, Plan& plan, const Descriptor& descriptor, const VendorMake& vendor_make,
                      size_t* work_size) {
  const char* reason = "";
  call.shape.fft = stats::intern_shape(descriptor.to_string());
  if (auto native = choose_native(plan, descriptor, &reason)) {
    log::plan().debug("{}: native plan {} for {}", api_name(call.api), native->name(), descriptor.to_string());
    const std::size_t bytes = native->work_size();
    if (plan.auto_allocate && bytes > 0) {
      // cuFFT allocates the work area with the plan when auto-allocation is on.
      void* area = nullptr;
      if (cudaMalloc(&area, bytes) != cudaSuccess) {
        cudaGetLastError();
        log::plan().error("{}: work area of {} B could not be allocated", api_name(call.api), bytes);
        return CUFFT_ALLOC_FAILED;
      }
      if (plan.owned_work_area != nullptr) cudaFree(plan.owned_work_area);
      plan.owned_work_area = area;
    }
    if (work_size != nullptr) *work_size = bytes;
    plan.native_name = stats::intern_text(native->name());
    plan.native = std::move(native);
    plan.descriptor = descriptor;
    plan.shape = call.shape.fft;
    plan.made = true;
    call.path = Path::kNative;
    call.reason = "native plan";
    return CUFFT_SUCCESS;
  }
  call.path = Path::kVendor;
  // Interned: the reason may be text this plan or this thread holds, rewritten by the next plan.
  call.reason = stats::intern_text(reason);
  const cufftResult status = vendor_make(plan.vendor, work_size);
  if (status == CUFFT_SUCCESS) {
    plan.descriptor = descriptor;
    plan.shape = call.shape.fft;
    plan.made = true;
    plan.vendor_made = true;
    log::plan().debug("{}: vendor plan for {} ({})", api_name(call.api), descriptor.to_string(), reason);
  }
  return status;
}

cufftResult create_plan(cufftHandle* handle) {
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr || vendor_table->cufftCreate == nullptr) return kVendorMissing;
  auto plan = std::make_unique<Plan>();
  const cufftResult status = vendor_table->cufftCreate(&plan->vendor);
  if (status != CUFFT_SUCCESS) return status;
  const cufftHandle vendor_plan = plan->vendor;
  const cufftHandle ours = handles().insert(std::move(plan));
  if (ours < 0) {
    vendor_table->cufftDestroy(vendor_plan);
    return CUFFT_ALLOC_FAILED;
  }
  *handle = ours;
  return CUFFT_SUCCESS;
}

cufftResult destroy_plan(cufftHandle handle) {
  std::unique_ptr<Plan> plan = handles().remove(handle);
  if (plan == nullptr) return CUFFT_INVALID_PLAN;
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr || vendor_table->cufftDestroy == nullptr) return kVendorMissing;
  return vendor_table->cufftDestroy(plan->vendor);
}

// cufftPlan*: create a handle, make the plan on it, and hand the handle out only on success.
template <class Make>
cufftResult create_and_make(cufftHandle* out, Make&& make) {
  if (out == nullptr) return CUFFT_INVALID_VALUE;
  cufftHandle handle = 0;
  if (const cufftResult status = create_plan(&handle); status != CUFFT_SUCCESS) return status;
  size_t work_size = 0;
  const cufftResult status = make(handle, &work_size);
  if (status != CUFFT_SUCCESS) {
    destroy_plan(handle);
    return status;
  }
  *out = handle;
  return CUFFT_SUCCESS;
}

enum class Purpose { kMake, kSize };

// Every typed (cufftType) plan or size call: validation, the descriptor, then either the one
// make-plan or the work-area size such a plan would need.
cufftResult typed_call(Call& call, Purpose purpose, cufftHandle handle, int rank, const long long* n,
                       const long long* inembed, long long istride, long long idist, const long long* onembed,
                       long long ostride, long long odist, cufftType type, long long batch, const VendorMake& vendor,
                       size_t* work_size) {
  Plan* plan = handles().find(handle);
  if (plan == nullptr) return CUFFT_INVALID_PLAN;
  Kind kind;
  Precision precision;
  Descriptor descriptor;
  // Sizes, ranks and types are the vendor's to judge: its status codes for them are not regular
  // (measured with cuFFT 12.0: nx = 0 gives CUFFT_INVALID_SIZE, ny < 0 CUFFT_INTERNAL_ERROR,
  // nz = 0 success, rank 0 or 4 CUFFT_INVALID_VALUE), so a call the descriptor cannot express is
  // passed to the vendor as it came.
  if (!decode_type(type, &kind, &precision) ||
      build_descriptor(rank, n, inembed, istride, idist, onembed, ostride, odist, kind, precision, batch,
                       &descriptor) != CUFFT_SUCCESS) {
    call.path = Path::kVendor;
    call.reason = "arguments outside the native planner's descriptor";
    return vendor(plan->vendor, work_size);
  }
  if (purpose == Purpose::kMake) return make_plan(call, *plan, descriptor, vendor, work_size);
  const char* reason = "";
  call.shape.fft = stats::intern_shape(descriptor.to_string());
  if (auto native = choose_native(*plan, descriptor, &reason)) {
    if (work_size == nullptr) return CUFFT_INVALID_VALUE;
    *work_size = native->work_size();
    call.path = Path::kNative;
    return CUFFT_SUCCESS;
  }
  call.path = Path::kVendor;
  call.reason = stats::intern_text(reason);
  return vendor(plan->vendor, work_size);
}

// Copies of the int arrays a cufftPlanMany-style call passes, widened to 64 bits.
struct ManyArrays {
  long long n[3] = {};
  long long inembed[3] = {};
  long long onembed[3] = {};
  const long long* in_ptr = nullptr;
  const long long* on_ptr = nullptr;
  bool ok = true;

  template <class Int>
  ManyArrays(int rank, const Int* n_in, const Int* inembed_in, const Int* onembed_in) {
    if (rank < 1 || rank > 3 || n_in == nullptr) {
      ok = false;
      return;
    }
    for (int axis = 0; axis < rank; ++axis) n[axis] = n_in[axis];
    if (inembed_in != nullptr) {
      for (int axis = 0; axis < rank; ++axis) inembed[axis] = inembed_in[axis];
      in_ptr = inembed;
    }
    if (onembed_in != nullptr) {
      for (int axis = 0; axis < rank; ++axis) onembed[axis] = onembed_in[axis];
      on_ptr = onembed;
    }
  }
};

// cufftMakePlanMany/Many64 and cufftGetSizeMany/Many64: the arrays widened, then typed_call.
template <class Int>
cufftResult typed_many(Call& call, Purpose purpose, cufftHandle handle, int rank, const Int* n, const Int* inembed,
                       long long istride, long long idist, const Int* onembed, long long ostride, long long odist,
                       cufftType type, long long batch, const VendorMake& vendor, size_t* work_size) {
  const ManyArrays arrays(rank, n, inembed, onembed);
  if (!arrays.ok) {
    // A rank outside 1..3 or a null n: the vendor's to judge.
    Plan* plan = handles().find(handle);
    if (plan == nullptr) return CUFFT_INVALID_PLAN;
    call.path = Path::kVendor;
    call.reason = "arguments outside the native planner's descriptor";
    return vendor(plan->vendor, work_size);
  }
  return typed_call(call, purpose, handle, rank, arrays.n, arrays.in_ptr, istride, idist, arrays.on_ptr, ostride,
                    odist, type, batch, vendor, work_size);
}

template <class In, class Out>
cufftResult execute(Call& call, cufftHandle handle, In* input, Out* output, int direction, cufftType expected,
                    cufftResult (*vendor_exec)(cufftHandle, In*, Out*, int)) {
  Plan* plan = handles().find(handle);
  if (plan == nullptr) return CUFFT_INVALID_PLAN;
  call.shape.fft = plan->shape;
  if (plan->descriptor &&
      (plan->descriptor->precision == Precision::kSingle || plan->descriptor->precision == Precision::kDouble) &&
      encode_type(plan->descriptor->kind, plan->descriptor->precision) != expected) {
    // The vendor accepts an exec of another type than the plan's (measured with cuFFT 12.0: it
    // returns CUFFT_SUCCESS), so the call goes to the vendor plan as it came; say so.
    log::api().warn("{} on a {} plan: the vendor accepts this, the result is the vendor's", api_name(call.api),
                    plan->descriptor->to_string());
    if (const cufftResult pinned = pin_to_vendor(*plan, call.api); pinned != CUFFT_SUCCESS) return pinned;
    call.path = Path::kVendor;
    call.reason = "exec type differs from the plan's";
    return vendor_exec(plan->vendor, input, output, direction);
  }
  stats::GpuTimer timer(call.api, plan->stream);
  if (plan->native) {
    void* work = plan->work_area != nullptr ? plan->work_area : plan->owned_work_area;
    call.path = Path::kNative;
    call.reason = plan->native_name;
    const cufftResult status = plan->native->execute({input, output, direction, plan->stream, work});
    if (status != kNotServed) return status;
    if (const cufftResult made = make_vendor_plan(*plan, call.api); made != CUFFT_SUCCESS) return made;
    call.path = Path::kVendor;
    call.reason = "the native plan could not serve this call: the vendor plan";
    return vendor_exec(plan->vendor, input, output, direction);
  }
  call.path = Path::kVendor;
  call.reason = "vendor plan";
  return vendor_exec(plan->vendor, input, output, direction);
}

// Adapters giving every vendor exec the (plan, in, out, direction) shape.
#define IDGPU_EXEC_WITH_DIRECTION_(name, In, Out)                                       \
  cufftResult vendor_##name(cufftHandle plan, In* input, Out* output, int direction) { \
    const vendor::CufftTable* t = table();                                             \
    if (t == nullptr || t->name == nullptr) return kVendorMissing;                     \
    return t->name(plan, input, output, direction);                                    \
  }
#define IDGPU_EXEC_WITHOUT_DIRECTION_(name, In, Out)                               \
  cufftResult vendor_##name(cufftHandle plan, In* input, Out* output, int) {       \
    const vendor::CufftTable* t = table();                                         \
    if (t == nullptr || t->name == nullptr) return kVendorMissing;                 \
    return t->name(plan, input, output);                                           \
  }
IDGPU_EXEC_WITH_DIRECTION_(cufftExecC2C, cufftComplex, cufftComplex)
IDGPU_EXEC_WITH_DIRECTION_(cufftExecZ2Z, cufftDoubleComplex, cufftDoubleComplex)
IDGPU_EXEC_WITHOUT_DIRECTION_(cufftExecR2C, cufftReal, cufftComplex)
IDGPU_EXEC_WITHOUT_DIRECTION_(cufftExecC2R, cufftComplex, cufftReal)
IDGPU_EXEC_WITHOUT_DIRECTION_(cufftExecD2Z, cufftDoubleReal, cufftDoubleComplex)
IDGPU_EXEC_WITHOUT_DIRECTION_(cufftExecZ2D, cufftDoubleComplex, cufftDoubleReal)
#undef IDGPU_EXEC_WITH_DIRECTION_
#undef IDGPU_EXEC_WITHOUT_DIRECTION_

bool valid_direction(int direction) { return direction == CUFFT_FORWARD || direction == CUFFT_INVERSE; }

// Settings that both sides must see: recorded on our plan, applied to the vendor plan.
template <class Apply>
cufftResult set_on_plan(Call& call, cufftHandle handle, Apply&& apply) {
  Plan* plan = handles().find(handle);
  if (plan == nullptr) return CUFFT_INVALID_PLAN;
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr) return kVendorMissing;
  call.path = plan->native ? Path::kNative : Path::kVendor;
  call.shape.fft = plan->shape;
  return apply(*plan, *vendor_table);
}

}  // namespace

cufftResult make_vendor_plan(Plan& plan, Api api) {
  if (plan.vendor_made || !plan.native || !plan.descriptor) return CUFFT_SUCCESS;
  // The vendor plan behind a native one was never made: make it now from the descriptor (the
  // native solver serves default layouts only), with the settings the plan has received.
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr || vendor_table->cufftMakePlanMany64 == nullptr) return kVendorMissing;
  const Descriptor& d = *plan.descriptor;
  long long n[3] = {d.dims[0].n, d.dims[1].n, d.dims[2].n};
  size_t work_size = 0;
  const cufftResult made = vendor_table->cufftMakePlanMany64(plan.vendor, d.rank, n, nullptr, 1, 0, nullptr, 1, 0,
                                                             encode_type(d.kind, d.precision), d.batch.n, &work_size);
  if (made != CUFFT_SUCCESS) {
    log::dispatch().error("{}: the vendor plan behind a native one could not be made ({})", api_name(api),
                          static_cast<int>(made));
    return made;
  }
  if (plan.stream != nullptr) vendor_table->cufftSetStream(plan.vendor, plan.stream);
  if (!plan.auto_allocate && work_size > plan.native->work_size()) {
    // The caller sized its work area from the native plan: too small for the vendor's. The
    // vendor plan gets an area of its own (freed with the plan), and keeps it.
    void* area = nullptr;
    if (cudaMalloc(&area, work_size) != cudaSuccess) {
      cudaGetLastError();
      log::dispatch().error("{}: no {} B work area for the vendor plan behind a native one", api_name(api), work_size);
      return CUFFT_ALLOC_FAILED;
    }
    if (plan.owned_work_area != nullptr) cudaFree(plan.owned_work_area);
    plan.owned_work_area = area;
    plan.owns_vendor_work_area = true;
    vendor_table->cufftSetWorkArea(plan.vendor, area);
  } else if (plan.work_area != nullptr) {
    vendor_table->cufftSetWorkArea(plan.vendor, plan.work_area);
  }
  plan.vendor_made = true;
  return CUFFT_SUCCESS;
}

namespace {
// What a PLAN entry (shim/cufft_api.def) sets or asks of a plan, for the dispatch log.
const char* vendor_only_feature(Api api) {
  switch (api) {
    case Api::cufftXtSetCallback:
    case Api::cufftXtSetJITCallback:
    case Api::cufftXtClearCallback:
    case Api::cufftXtSetCallbackSharedSize: return "a load or store callback set or changed";
    case Api::cufftXtSetGPUs:
    case Api::cufftXtMalloc:
    case Api::cufftXtMemcpy:
    case Api::cufftXtQueryPlan: return "a multi-GPU plan, its descriptors or its query";
    case Api::cufftSetPlanPropertyInt64:
    case Api::cufftGetPlanPropertyInt64:
    case Api::cufftResetPlanProperty: return "a plan property set or read";
    case Api::cufftXtSetWorkAreaPolicy: return "a work-area policy set";
    case Api::cufftXtMakePlanGuru64: return "a guru plan made";
    default: return "a vendor-only call made";
  }
}
}  // namespace

cufftResult pin_to_vendor(Plan& plan, Api api) {
  if (plan.native && plan.descriptor) {
    if (const cufftResult made = make_vendor_plan(plan, api); made != CUFFT_SUCCESS) return made;
    log::dispatch().info("{} on a native plan ({}): the vendor serves this plan from now on", api_name(api),
                         plan.descriptor->to_string());
    plan.native.reset();
    if (plan.owned_work_area != nullptr && !plan.owns_vendor_work_area) {
      cudaFree(plan.owned_work_area);
      plan.owned_work_area = nullptr;
    }
  }
  if (!plan.vendor_only) {
    plan.vendor_only = true;
    plan.vendor_only_reason = std::string(api_name(api)) + ": " + vendor_only_feature(api) +
                              " on this handle, which only the vendor plan honours";
  }
  return CUFFT_SUCCESS;
}

cufftResult cufftCreate(Call& call, cufftHandle* plan) {
  if (plan == nullptr) return CUFFT_INVALID_VALUE;
  if (table() == nullptr) return kVendorMissing;
  call.path = Path::kVendor;
  return create_plan(plan);
}

cufftResult cufftDestroy(Call& call, cufftHandle plan) {
  // The vendor destroys handle -1 (a common "no plan" value) as a no-op, and refuses 0 and every
  // other handle it did not hand out (measured with cuFFT 12.0 on an H100).
  if (plan == -1) return CUFFT_SUCCESS;
  const Plan* target = handles().find(plan);
  if (target == nullptr) return CUFFT_INVALID_PLAN;
  call.shape.fft = target->shape;
  call.path = Path::kVendor;
  return destroy_plan(plan);
}

cufftResult cufftPlan1d(Call& call, cufftHandle* plan, int nx, cufftType type, int batch) {
  return create_and_make(plan, [&](cufftHandle handle, size_t* work_size) {
    return cufftMakePlan1d(call, handle, nx, type, batch, work_size);
  });
}

cufftResult cufftPlan2d(Call& call, cufftHandle* plan, int nx, int ny, cufftType type) {
  return create_and_make(plan, [&](cufftHandle handle, size_t* work_size) {
    return cufftMakePlan2d(call, handle, nx, ny, type, work_size);
  });
}

cufftResult cufftPlan3d(Call& call, cufftHandle* plan, int nx, int ny, int nz, cufftType type) {
  return create_and_make(plan, [&](cufftHandle handle, size_t* work_size) {
    return cufftMakePlan3d(call, handle, nx, ny, nz, type, work_size);
  });
}

cufftResult cufftPlanMany(Call& call, cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                          int* onembed, int ostride, int odist, cufftType type, int batch) {
  return create_and_make(plan, [&](cufftHandle handle, size_t* work_size) {
    return cufftMakePlanMany(call, handle, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                             work_size);
  });
}

cufftResult cufftMakePlan1d(Call& call, cufftHandle plan, int nx, cufftType type, int batch, size_t* workSize) {
  const long long n[1] = {nx};
  return typed_call(call, Purpose::kMake, plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftMakePlan1d(vendor_plan, nx, type, batch, work_size);
                    },
                    workSize);
}

cufftResult cufftMakePlan2d(Call& call, cufftHandle plan, int nx, int ny, cufftType type, size_t* workSize) {
  const long long n[2] = {nx, ny};
  return typed_call(call, Purpose::kMake, plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftMakePlan2d(vendor_plan, nx, ny, type, work_size);
                    },
                    workSize);
}

cufftResult cufftMakePlan3d(Call& call, cufftHandle plan, int nx, int ny, int nz, cufftType type,
                            size_t* workSize) {
  const long long n[3] = {nx, ny, nz};
  return typed_call(call, Purpose::kMake, plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftMakePlan3d(vendor_plan, nx, ny, nz, type, work_size);
                    },
                    workSize);
}

cufftResult cufftMakePlanMany(Call& call, cufftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                              int* onembed, int ostride, int odist, cufftType type, int batch, size_t* workSize) {
  return typed_many(call, Purpose::kMake, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftMakePlanMany(vendor_plan, rank, n, inembed, istride, idist, onembed,
                                                        ostride, odist, type, batch, work_size);
                    },
                    workSize);
}

cufftResult cufftMakePlanMany64(Call& call, cufftHandle plan, int rank, long long* n, long long* inembed,
                                long long istride, long long idist, long long* onembed, long long ostride,
                                long long odist, cufftType type, long long batch, size_t* workSize) {
  return typed_many(call, Purpose::kMake, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftMakePlanMany64(vendor_plan, rank, n, inembed, istride, idist, onembed,
                                                          ostride, odist, type, batch, work_size);
                    },
                    workSize);
}

cufftResult cufftXtMakePlanMany(Call& call, cufftHandle plan, int rank, long long* n, long long* inembed,
                                long long istride, long long idist, cudaDataType inputtype, long long* onembed,
                                long long ostride, long long odist, cudaDataType outputtype, long long batch,
                                size_t* workSize, cudaDataType executiontype) {
  Plan* target = handles().find(plan);
  if (target == nullptr) return CUFFT_INVALID_PLAN;
  const VendorMake vendor_make = [&](cufftHandle vendor_plan, size_t* work_size) {
    return table()->cufftXtMakePlanMany(vendor_plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride,
                                        odist, outputtype, batch, work_size, executiontype);
  };
  Kind kind;
  Precision precision;
  const ManyArrays arrays(rank, n, inembed, onembed);
  Descriptor descriptor;
  // Type triples and sizes the descriptor cannot express are the vendor's to judge.
  if (!arrays.ok || !decode_xt_types(inputtype, outputtype, executiontype, &kind, &precision) ||
      build_descriptor(rank, arrays.n, arrays.in_ptr, istride, idist, arrays.on_ptr, ostride, odist, kind,
                       precision, batch, &descriptor) != CUFFT_SUCCESS) {
    call.path = Path::kVendor;
    call.reason = "arguments outside the native planner's descriptor";
    return vendor_make(target->vendor, workSize);
  }
  return make_plan(call, *target, descriptor, vendor_make, workSize);
}

cufftResult cufftGetSize1d(Call& call, cufftHandle plan, int nx, cufftType type, int batch, size_t* workSize) {
  const long long n[1] = {nx};
  return typed_call(call, Purpose::kSize, plan, 1, n, nullptr, 1, 0, nullptr, 1, 0, type, batch,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftGetSize1d(vendor_plan, nx, type, batch, work_size);
                    },
                    workSize);
}

cufftResult cufftGetSize2d(Call& call, cufftHandle plan, int nx, int ny, cufftType type, size_t* workSize) {
  const long long n[2] = {nx, ny};
  return typed_call(call, Purpose::kSize, plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftGetSize2d(vendor_plan, nx, ny, type, work_size);
                    },
                    workSize);
}

cufftResult cufftGetSize3d(Call& call, cufftHandle plan, int nx, int ny, int nz, cufftType type,
                           size_t* workSize) {
  const long long n[3] = {nx, ny, nz};
  return typed_call(call, Purpose::kSize, plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftGetSize3d(vendor_plan, nx, ny, nz, type, work_size);
                    },
                    workSize);
}

cufftResult cufftGetSizeMany(Call& call, cufftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                             int* onembed, int ostride, int odist, cufftType type, int batch, size_t* workArea) {
  return typed_many(call, Purpose::kSize, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftGetSizeMany(vendor_plan, rank, n, inembed, istride, idist, onembed,
                                                       ostride, odist, type, batch, work_size);
                    },
                    workArea);
}

cufftResult cufftGetSizeMany64(Call& call, cufftHandle plan, int rank, long long* n, long long* inembed,
                               long long istride, long long idist, long long* onembed, long long ostride,
                               long long odist, cufftType type, long long batch, size_t* workSize) {
  return typed_many(call, Purpose::kSize, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                    [&](cufftHandle vendor_plan, size_t* work_size) {
                      return table()->cufftGetSizeMany64(vendor_plan, rank, n, inembed, istride, idist, onembed,
                                                         ostride, odist, type, batch, work_size);
                    },
                    workSize);
}

cufftResult cufftXtGetSizeMany(Call& call, cufftHandle plan, int rank, long long* n, long long* inembed,
                               long long istride, long long idist, cudaDataType inputtype, long long* onembed,
                               long long ostride, long long odist, cudaDataType outputtype, long long batch,
                               size_t* workSize, cudaDataType executiontype) {
  Plan* target = handles().find(plan);
  if (target == nullptr) return CUFFT_INVALID_PLAN;
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr) return kVendorMissing;
  call.path = Path::kVendor;
  call.reason = "sizes of Xt plans come from the vendor";
  return vendor_table->cufftXtGetSizeMany(target->vendor, rank, n, inembed, istride, idist, inputtype, onembed,
                                          ostride, odist, outputtype, batch, workSize, executiontype);
}

cufftResult cufftGetSize(Call& call, cufftHandle plan, size_t* workSize) {
  Plan* target = handles().find(plan);
  if (target == nullptr) return CUFFT_INVALID_PLAN;
  if (workSize == nullptr) return CUFFT_INVALID_VALUE;
  call.shape.fft = target->shape;
  if (target->native) {
    call.path = Path::kNative;
    *workSize = target->native->work_size();
    return CUFFT_SUCCESS;
  }
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr) return kVendorMissing;
  call.path = Path::kVendor;
  return vendor_table->cufftGetSize(target->vendor, workSize);
}

cufftResult cufftSetWorkArea(Call& call, cufftHandle plan, void* workArea) {
  return set_on_plan(call, plan, [&](Plan& target, const vendor::CufftTable& vendor_table) {
    if (target.native) {
      // The vendor plan behind a native one is not made; pin_to_vendor hands it the area.
      target.work_area = workArea;
      return CUFFT_SUCCESS;
    }
    if (target.owns_vendor_work_area) {
      // The caller's area was sized for the native plan this one replaced: the vendor plan
      // keeps the area idgpu gave it.
      target.work_area = workArea;
      return CUFFT_SUCCESS;
    }
    const cufftResult status = vendor_table.cufftSetWorkArea(target.vendor, workArea);
    if (status == CUFFT_SUCCESS) target.work_area = workArea;
    return status;
  });
}

cufftResult cufftXtSetWorkArea(Call& call, cufftHandle plan, void** workArea) {
  return set_on_plan(call, plan, [&](Plan& target, const vendor::CufftTable& vendor_table) {
    if (target.native || target.owns_vendor_work_area) {
      if (workArea == nullptr) return CUFFT_INVALID_VALUE;
      target.work_area = workArea[0];
      return CUFFT_SUCCESS;
    }
    const cufftResult status = vendor_table.cufftXtSetWorkArea(target.vendor, workArea);
    if (status == CUFFT_SUCCESS && workArea != nullptr) target.work_area = workArea[0];
    return status;
  });
}

cufftResult cufftSetAutoAllocation(Call& call, cufftHandle plan, int autoAllocate) {
  return set_on_plan(call, plan, [&](Plan& target, const vendor::CufftTable& vendor_table) {
    const cufftResult status = vendor_table.cufftSetAutoAllocation(target.vendor, autoAllocate);
    if (status == CUFFT_SUCCESS) target.auto_allocate = autoAllocate != 0;
    return status;
  });
}

cufftResult cufftSetStream(Call& call, cufftHandle plan, cudaStream_t stream) {
  return set_on_plan(call, plan, [&](Plan& target, const vendor::CufftTable& vendor_table) {
    const cufftResult status = vendor_table.cufftSetStream(target.vendor, stream);
    if (status == CUFFT_SUCCESS) target.stream = stream;
    return status;
  });
}

cufftResult cufftExecC2C(Call& call, cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction) {
  if (!valid_direction(direction)) return handles().find(plan) == nullptr ? CUFFT_INVALID_PLAN : CUFFT_INVALID_VALUE;
  return execute(call, plan, idata, odata, direction, CUFFT_C2C, vendor_cufftExecC2C);
}

cufftResult cufftExecZ2Z(Call& call, cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata,
                         int direction) {
  if (!valid_direction(direction)) return handles().find(plan) == nullptr ? CUFFT_INVALID_PLAN : CUFFT_INVALID_VALUE;
  return execute(call, plan, idata, odata, direction, CUFFT_Z2Z, vendor_cufftExecZ2Z);
}

cufftResult cufftExecR2C(Call& call, cufftHandle plan, cufftReal* idata, cufftComplex* odata) {
  return execute(call, plan, idata, odata, CUFFT_FORWARD, CUFFT_R2C, vendor_cufftExecR2C);
}

cufftResult cufftExecC2R(Call& call, cufftHandle plan, cufftComplex* idata, cufftReal* odata) {
  return execute(call, plan, idata, odata, CUFFT_INVERSE, CUFFT_C2R, vendor_cufftExecC2R);
}

cufftResult cufftExecD2Z(Call& call, cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata) {
  return execute(call, plan, idata, odata, CUFFT_FORWARD, CUFFT_D2Z, vendor_cufftExecD2Z);
}

cufftResult cufftExecZ2D(Call& call, cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata) {
  return execute(call, plan, idata, odata, CUFFT_INVERSE, CUFFT_Z2D, vendor_cufftExecZ2D);
}

cufftResult cufftXtExec(Call& call, cufftHandle plan, void* input, void* output, int direction) {
  Plan* target = handles().find(plan);
  if (target == nullptr) return CUFFT_INVALID_PLAN;
  call.shape.fft = target->shape;
  stats::GpuTimer timer(call.api, target->stream);
  if (target->native) {
    void* work = target->work_area != nullptr ? target->work_area : target->owned_work_area;
    call.path = Path::kNative;
    call.reason = target->native_name;
    const cufftResult status = target->native->execute({input, output, direction, target->stream, work});
    if (status != kNotServed) return status;
    if (const cufftResult made = make_vendor_plan(*target, call.api); made != CUFFT_SUCCESS) return made;
  }
  const vendor::CufftTable* vendor_table = table();
  if (vendor_table == nullptr) return kVendorMissing;
  call.path = Path::kVendor;
  call.reason = "vendor plan";
  return vendor_table->cufftXtExec(target->vendor, input, output, direction);
}

}  // namespace idgpu::fft
