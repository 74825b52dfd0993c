#include "fft/native.h"

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/device.h"
#include "core/log.h"
#include "fft/kernels/stockham.h"
#include "fft/planner.h"
#include "fft/tuning.h"
#include "fft/twiddle.h"

namespace idgpu::fft {
namespace {

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

class StockhamPlan final : public NativePlan {
 public:
  StockhamPlan(FftPlan plan, void* tables, std::vector<kernels::PassLaunch> launches)
      : plan_(std::move(plan)), tables_(tables), launches_(std::move(launches)) {
    name_ = "Stockham C2C, " + std::to_string(plan_.passes.size()) + (plan_.passes.size() == 1 ? " pass" : " passes");
  }
  StockhamPlan(const StockhamPlan&) = delete;
  StockhamPlan& operator=(const StockhamPlan&) = delete;
  ~StockhamPlan() override {
    if (tables_ != nullptr) cudaFree(tables_);
  }

  const char* name() const override { return name_.c_str(); }
  std::size_t work_size() const override { return plan_.work_bytes; }

  cufftResult execute(const ExecArgs& args) const override {
    if (args.direction != CUFFT_FORWARD && args.direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
    const bool in_place = args.input == args.output;
    const std::vector<PassBuffers> turns = pass_buffers(plan_.passes.size(), in_place);
    bool needs_work = false;
    for (const PassBuffers& turn : turns) needs_work = needs_work || turn.from == Buffer::kWork || turn.to == Buffer::kWork;
    void* work = args.work_area;
    void* temporary = nullptr;
    if (needs_work && work == nullptr) {
      if (plan_.work_bytes > 0) {
        log::api().error("{}: this plan needs a work area of {} B and none is set (cufftSetWorkArea)", name_,
                         plan_.work_bytes);
        return CUFFT_INVALID_VALUE;
      }
      // An in-place two-pass transform: the plan asks for no work area (as the vendor's), so the
      // array it needs comes from the stream-ordered pool for the call.
      const std::size_t bytes = static_cast<std::size_t>(plan_.n * plan_.batch) * plan_.element_bytes;
      if (cudaMallocAsync(&temporary, bytes, args.stream) != cudaSuccess) {
        cudaGetLastError();
        log::api().info("{}: no {} B for an in-place execution; the vendor plan serves it", name_, bytes);
        return kNotServed;
      }
      work = temporary;
    }
    const auto buffer = [&](Buffer which) -> void* {
      switch (which) {
        case Buffer::kInput: return const_cast<void*>(args.input);
        case Buffer::kOutput: return args.output;
        default: return work;
      }
    };
    const bool inverse = args.direction == CUFFT_INVERSE;
    const bool single = plan_.precision == Precision::kSingle;
    for (std::size_t i = 0; i < launches_.size(); ++i) {
      kernels::PassLaunch launch = launches_[i];
      launch.input = buffer(turns[i].from);
      launch.output = buffer(turns[i].to);
      const PassShape& shape = launch.shape;
      const bool even_in = shape.sub == 1 ? shape.size % 2 == 0 : shape.per_block % 2 == 0;
      const bool even_out = shape.span == 1 ? shape.size % 2 == 0 : shape.per_block % 2 == 0;
      launch.vector_in = single && even_in && aligned16(launch.input);
      launch.vector_out = single && even_out && aligned16(launch.output);
      cudaError_t status = single ? kernels::launch_pass_f32(launch, inverse, args.stream)
                                  : kernels::launch_pass_f64(launch, inverse, args.stream);
      if (status == cudaSuccess && config().sync_check) status = cudaStreamSynchronize(args.stream);
      if (status != cudaSuccess) {
        log::kernel().error("{} (n={}, batch={}), pass {}: {}", name_, plan_.n, plan_.batch, i + 1,
                            cudaGetErrorString(status));
        cudaGetLastError();
        if (temporary != nullptr) cudaFreeAsync(temporary, args.stream);
        return CUFFT_EXEC_FAILED;
      }
    }
    if (temporary != nullptr) cudaFreeAsync(temporary, args.stream);
    return CUFFT_SUCCESS;
  }

 private:
  FftPlan plan_;
  void* tables_;
  std::vector<kernels::PassLaunch> launches_;
  std::string name_;
};

// The twiddle tables of every pass in one device allocation, in the plan's precision; the
// launches get their pointers. Null (with the CUDA error logged) when allocation fails.
template <class Stored>
void* upload_tables(const FftPlan& plan, std::vector<kernels::PassLaunch>* launches) {
  std::vector<Stored> host;
  std::vector<TwiddleLayout> layouts;
  std::vector<std::size_t> bases;
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    const FftPass& pass = plan.passes[i];
    // Computing the lo/hi tables costs most of a large plan's creation; skip them where the
    // kernel computes the inter-pass twiddles itself.
    const bool interpass =
        !(plan.precision == Precision::kSingle && kernels::computes_interpass_twiddles_f32((*launches)[i]));
    const std::vector<std::complex<double>> table = pass_twiddles(pass, interpass);
    bases.push_back(host.size());
    layouts.push_back(twiddle_layout(pass, interpass));
    for (const std::complex<double>& w : table) {
      Stored value;
      value.x = static_cast<decltype(value.x)>(w.real());
      value.y = static_cast<decltype(value.y)>(w.imag());
      host.push_back(value);
    }
  }
  void* device = nullptr;
  cudaError_t status = cudaMalloc(&device, host.size() * sizeof(Stored));
  if (status == cudaSuccess) {
    status = cudaMemcpy(device, host.data(), host.size() * sizeof(Stored), cudaMemcpyHostToDevice);
  }
  if (status != cudaSuccess) {
    log::plan().warn("native FFT twiddle tables ({} B): {}", host.size() * sizeof(Stored), cudaGetErrorString(status));
    cudaGetLastError();
    if (device != nullptr) cudaFree(device);
    return nullptr;
  }
  const Stored* base = static_cast<const Stored*>(device);
  for (std::size_t i = 0; i < launches->size(); ++i) {
    kernels::PassLaunch& launch = (*launches)[i];
    launch.stage_twiddles = base + bases[i] + layouts[i].stage;
    launch.lo_twiddles = layouts[i].lo_count > 0 ? base + bases[i] + layouts[i].lo : nullptr;
    launch.hi_twiddles = layouts[i].hi_count > 0 ? base + bases[i] + layouts[i].hi : nullptr;
  }
  return device;
}

std::vector<kernels::PassLaunch> launches_for(const FftPlan& plan) {
  std::vector<kernels::PassLaunch> launches;
  for (const FftPass& pass : plan.passes) {
    kernels::PassLaunch launch;
    launch.shape = pass_shape(plan, pass);
    launch.stages = static_cast<int>(pass.radices.size());
    for (int s = 0; s < launch.stages; ++s) launch.radices[s] = pass.radices[s];
    launch.threads_per_transform = pass.threads_per_transform;
    launch.total = pass.sub_transforms * plan.batch;
    launch.blocks = pass.blocks;
    launch.shared_bytes = static_cast<unsigned>(pass.shared_bytes);
    launch.lo_bits = pass.twiddle_lo_bits;
    launches.push_back(launch);
  }
  return launches;
}

class StockhamSolver final : public Solver {
 public:
  const char* name() const override { return "stockham"; }

  std::unique_ptr<NativePlan> make(const Descriptor& d, const char** reason) const override {
    if (d.rank != 1 || d.kind != Kind::kC2C) {
      *reason = "native FFT: 1D complex-to-complex only";
      return nullptr;
    }
    if (d.precision != Precision::kSingle && d.precision != Precision::kDouble) {
      *reason = "native FFT: fp32 and fp64 only";
      return nullptr;
    }
    const long long n = d.dims[0].n;
    const long long batch = d.batch.n;
    const bool contiguous = d.dims[0].in_stride == 1 && d.dims[0].out_stride == 1 &&
                            (batch == 1 || (d.batch.in_stride == n && d.batch.out_stride == n));
    if (!contiguous) {
      *reason = "native FFT: contiguous batches only (unit stride, distance n)";
      return nullptr;
    }
    if (n > (1LL << 31) || batch > (1LL << 31) || n * batch > (1LL << 40)) {
      *reason = "native FFT: sizes beyond the kernels' index range";
      return nullptr;
    }
    const Policy current = policy();
    const int arch = current_device_arch();
    if (arch < 80) {
      *reason = arch == 0 ? "no CUDA device" : "native kernels are built for sm_80 and newer";
      return nullptr;
    }
    if (current != Policy::kNative && !native_fft_wins(n, batch, d.precision, arch, reason)) return nullptr;
    DeviceLimits limits = DeviceLimits::h100();
    if (!current_device_block_limits(&limits.shared_bytes_per_block, &limits.max_threads_per_block)) {
      *reason = "no CUDA device";
      return nullptr;
    }
    FftPlanResult planned = plan_c2c_1d(n, batch, d.precision, limits);
    if (!planned.plan) {
      static thread_local std::string why;
      why = "native FFT planner: " + planned.reason;
      *reason = why.c_str();
      return nullptr;
    }
    std::vector<kernels::PassLaunch> launches = launches_for(*planned.plan);
    void* tables = d.precision == Precision::kSingle ? upload_tables<float2>(*planned.plan, &launches)
                                                     : upload_tables<double2>(*planned.plan, &launches);
    if (tables == nullptr) {
      *reason = "native FFT: twiddle tables could not be allocated";
      return nullptr;
    }
    log::plan().debug("native FFT plan: {}", planned.plan->to_string());
    return std::make_unique<StockhamPlan>(std::move(*planned.plan), tables, std::move(launches));
  }
};

}  // namespace

const Solver& stockham_solver() {
  static const StockhamSolver solver;
  return solver;
}

}  // namespace idgpu::fft
