#include "fft/native.h"

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/config.h"
#include "core/device.h"
#include "core/launch.h"
#include "core/log.h"
#include "core/scratch.h"
#include "core/vendor.h"
#include "fft/kernels/bluestein_tables.h"
#include "fft/kernels/stockham.h"
#include "fft/convolution.h"
#include "fft/planner.h"
#include "fft/runtime_kernels.h"
#include "fft/tuning.h"
#include "fft/twiddle.h"

namespace idgpu::fft {
namespace {

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

class StockhamPlan final : public NativePlan {
 public:
  // `in_place_served` false leaves in-place executions to the vendor plan: a real plan made with
  // explicit embeds (only NULL embeds mean cuFFT's padded layout in place), a strided one whose
  // input and output layouts differ.
  StockhamPlan(FftPlan plan, void* tables, std::vector<kernels::PassLaunch> launches,
               std::optional<kernels::FusedLaunch> fused, bool in_place_served = true)
      : plan_(std::move(plan)),
        tables_(tables),
        launches_(std::move(launches)),
        fused_(fused),
        in_place_served_(in_place_served) {
    const char* kind = plan_.kind == Kind::kR2C ? "R2C" : plan_.kind == Kind::kC2R ? "C2R" : "C2C";
    const std::string rank = plan_.dims.size() > 1 ? std::to_string(plan_.dims.size()) + "D " : std::string();
    name_ = "Stockham " + rank + kind + ", " +
            (plan_.cluster ? std::string("one cluster kernel")
                           : std::to_string(plan_.passes.size()) + (plan_.passes.size() == 1 ? " pass" : " passes"));
    for (const FftPass& pass : plan_.passes) {
      if (pass.cluster) {
        name_ += " (cluster column pass)";
        break;
      }
    }
    if (const long long padded = bluestein_padded_length(plan_); padded > 0) {
      name_ += " (Bluestein over " + std::to_string(padded) + " points)";
    }
    if (fused_) {
      const FusedKind kind = plan_.fused->kind;
      name_ += kind == FusedKind::k1D || kind == FusedKind::kRealPairedInverse ? " (fused out of place)"
               : kind == FusedKind::kRealPairedForward                           ? " (fused)"
                                                                                 : " (two axes fused)";
    }
    if (plan_.kind != Kind::kC2C) {
      // A real plan's distances depend on the execution (in place: cuFFT's padded layout; a
      // two-pass plan's intermediate): the shapes of its passes and of its fused pair's for
      // both, formed once (execution_pass).
      for (const bool in_place : {false, true}) {
        for (std::size_t i = 0; i < plan_.passes.size(); ++i) {
          shapes_[in_place].push_back(pass_shape(plan_, execution_pass(plan_, i, in_place)));
        }
        if (fused_) {
          const FftFused& fused = *plan_.fused;
          for (std::size_t which = 0; which < 2; ++which) {
            fused_shapes_[in_place][which] =
                pass_shape(plan_, execution_pass(plan_, fused.first_pass + which, fused.passes[which], in_place));
          }
        }
      }
    }
  }
  StockhamPlan(const StockhamPlan&) = delete;
  StockhamPlan& operator=(const StockhamPlan&) = delete;
  ~StockhamPlan() override {
    if (tables_ != nullptr) cudaFree(tables_);
  }

  const char* name() const override { return name_.c_str(); }
  std::size_t work_size() const override { return plan_.work_bytes; }

  cufftResult execute(const ExecArgs& args) const override {
    // A real plan's direction is its kind's (cufftXtExec passes one that cuFFT ignores for them).
    const bool real = plan_.kind != Kind::kC2C;
    if (!real && args.direction != CUFFT_FORWARD && args.direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
    const bool in_place = args.input == args.output;
    if (in_place && !in_place_served_) return kNotServed;
    launch::begin_call();
    if (plan_.cluster) return execute_cluster(args, in_place);
    if (bluestein_padded_length(plan_) > 0) return execute_bluestein(args, in_place);
    // A 1D fused plan runs fused out of place only (in place its passes run as two launches),
    // but a two-pass R2C's, whose turns in place go through a temporary array (fused_in_place).
    const bool fused = fused_ && (!in_place || fused_in_place(plan_.fused->kind));
    const std::vector<PassBuffers> turns = plan_buffers(plan_, in_place);
    bool needs_work = false;
    for (const PassBuffers& turn : turns) needs_work = needs_work || turn.from == Buffer::kWork || turn.to == Buffer::kWork;
    // A plan that asks for no work area never writes the caller's (cufftSetWorkArea may have set
    // one sized from that 0): its intermediate comes from the scratch pool.
    void* work = plan_.work_bytes > 0 ? args.work_area : nullptr;
    void* temporary = nullptr;
    if (needs_work && work == nullptr) {
      if (plan_.work_bytes > 0) {
        log::api().error("{}: this plan needs a work area of {} B and none is set (cufftSetWorkArea)", name_,
                         plan_.work_bytes);
        return CUFFT_INVALID_VALUE;
      }
      // An in-place two-pass transform, or a two-pass real one's intermediate: the plan asks for
      // no work area (as the vendor's), so the array it needs comes from the stream-ordered pool
      // for the call (a real plan's: n / 2 complex values a transform).
      const long long points = plan_.kind == Kind::kC2C ? plan_.n : plan_.n / 2;
      const std::size_t bytes = static_cast<std::size_t>(points * plan_.batch) * plan_.element_bytes;
      if (scratch_allocate(&temporary, bytes, args.stream) != cudaSuccess) {
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
    const bool inverse = real ? plan_.kind == Kind::kC2R : args.direction == CUFFT_INVERSE;
    const std::size_t fused_first = fused ? plan_.fused->first_pass : launches_.size();
    for (std::size_t i = 0; i < launches_.size(); ++i) {
      cudaError_t launched = cudaSuccess;
      if (i == fused_first) {
        // The pair as one fused kernel, each pass on its turn's arrays.
        kernels::FusedLaunch pair = *fused_;
        if (real) {
          pair.first.shape = fused_shapes_[in_place][0];
          pair.last.shape = fused_shapes_[in_place][1];
        }
        pair.first.input = buffer(turns[i].from);
        pair.first.output = buffer(turns[i].to);
        pair.last.input = buffer(turns[i + 1].from);
        pair.last.output = buffer(turns[i + 1].to);
        launched = launch::counted([&] {
          return plan_.precision == Precision::kSingle ? kernels::launch_fused_f32(pair, inverse, args.stream)
                                                       : kernels::launch_fused_f64(pair, inverse, args.stream);
        });
      } else if (plan_.passes[i].cluster) {
        kernels::PassLaunch launch = launches_[i];
        if (real) launch.shape = shapes_[in_place][i];
        launched =
            run_cluster_pass(plan_.passes[i], launch, buffer(turns[i].from), buffer(turns[i].to), inverse, args.stream);
      } else {
        kernels::PassLaunch launch = launches_[i];
        if (real) launch.shape = shapes_[in_place][i];
        launched = run_pass(launch, buffer(turns[i].from), buffer(turns[i].to), inverse, args.stream);
      }
      // A fused plan of one launch reports no pass.
      const bool one_launch = fused && launches_.size() == 2;
      if (const cufftResult status = finish_launch(launched, args, one_launch ? 0 : static_cast<int>(i) + 1);
          status != CUFFT_SUCCESS) {
        scratch_free(temporary, args.stream);
        return status;
      }
      if (i == fused_first) ++i;
    }
    scratch_free(temporary, args.stream);
    return CUFFT_SUCCESS;
  }

 private:
  // One pass's launch from `input` to `output`, with the accesses those arrays allow.
  cudaError_t run_pass(kernels::PassLaunch launch, const void* input, void* output, bool inverse,
                       cudaStream_t stream) const {
    const bool single = plan_.precision == Precision::kSingle;
    launch.input = input;
    launch.output = output;
    const PassShape& shape = launch.shape;
    // Pairs of consecutive elements, 16-byte aligned: on a column side not across a straddling
    // block's jump (between its lines tr and tr + 1); on a contiguous one within a line, whose
    // start moves by an even jump.
    const bool even_in = shape.sub == 1 ? shape.size % 2 == 0 && input_distance(shape) % 2 == 0
                                        : shape.per_block % 2 == 0 && !shape.straddles;
    const bool even_out = shape.span == 1 ? shape.size % 2 == 0 && output_distance(shape) % 2 == 0 &&
                                                (!shape.straddles || shape.out_group % 2 == 0)
                                          : shape.per_block % 2 == 0 && !shape.straddles;
    launch.vector_in = single && even_in && aligned16(launch.input);
    launch.vector_out = single && even_out && aligned16(launch.output);
    launch.direct_in = kernels::direct_in_eligible(launch);
    launch.direct_out = kernels::direct_out_eligible(launch);
    return launch::counted([&] {
      return single ? kernels::launch_pass_f32(launch, inverse, stream)
                    : kernels::launch_pass_f64(launch, inverse, stream);
    });
  }

  // A cluster column pass (FftPass::cluster; kernels/stockham_cluster.cuh) from `input` to
  // `output`: the pass's lines 2^lines_log2 a cluster, its transforms' distances as `planned`'s
  // shape has them (a real plan's: this execution's), a paired pass with its real step.
  cudaError_t run_cluster_pass(const FftPass& pass, const kernels::PassLaunch& planned, const void* input, void* output,
                               bool inverse, cudaStream_t stream) const {
    const FftCluster& c = *pass.cluster;
    const PassShape& shape = planned.shape;
    kernels::ClusterLaunch launch;
    while ((1LL << launch.bits) < pass.size) ++launch.bits;
    launch.rank_bits = c.rank_bits;
    launch.stride_a = c.stride_a;
    launch.stride_b = c.stride_b;
    launch.shift = pass.smem_shift;
    launch.threads = c.threads;
    launch.shared_bytes = static_cast<unsigned>(c.shared_bytes);
    launch.batch = plan_.pass_transforms(pass);
    launch.twiddles_a = planned.cluster_twiddles_a;
    launch.twiddles_b = planned.cluster_twiddles_b;
    launch.lines_log2 = c.lines_log2;
    launch.lines = pass.sub_transforms;
    launch.twiddle_m = pass.has_twiddle() ? pass.span_before * pass.size : 0;
    launch.in_dist = input_group(shape);
    launch.out_dist = shape.out_group > 0 ? shape.out_group : shape.n;
    launch.out_line = c.contiguous_out ? output_distance(shape) : 0;
    switch (pass.real_step) {
      case RealStep::kNone: launch.real_step = pass.nyquist_packed ? kernels::kClusterPackedR2C : kernels::kClusterComplex; break;
      case RealStep::kPairedR2C: launch.real_step = kernels::kClusterR2C; break;
      case RealStep::kPairedC2R: launch.real_step = kernels::kClusterC2R; break;
      default: return cudaErrorInvalidValue;  // no cluster form (the planner never makes one)
    }
    launch.real_twiddles = planned.real_twiddles;
    launch.real_lo_bits = pass.real_lo_bits;
    launch.input = input;
    launch.output = output;
    return launch::counted([&] {
      return plan_.precision == Precision::kSingle ? kernels::launch_cluster_f32(launch, inverse, stream)
                                                   : kernels::launch_cluster_f64(launch, inverse, stream);
    });
  }

  // A launch's status as cuFFT's, synchronised and checked first under IDGPU_SYNC_CHECK. A launch
  // that could not run (launch::not_launched) is left to the vendor plan (kNotServed) where the
  // caller's arrays are as they came: out of place, where no pass writes the input (pass_buffers)
  // and the vendor rewrites the whole output; in place, where no launch of the call ran. Any other
  // failure is the caller's. `pass`: the failing pass (1-based) of a multi-launch plan, else 0.
  cufftResult finish_launch(cudaError_t launched, const ExecArgs& args, int pass) const {
    cudaError_t status = launched;
    if (status == cudaSuccess && config().sync_check) status = cudaStreamSynchronize(args.stream);
    if (status == cudaSuccess) return CUFFT_SUCCESS;
    cudaGetLastError();
    // A multi-dimensional C2R writes its input from its first pass on (plan_buffers).
    const bool input_written = args.input == args.output || (plan_.kind == Kind::kC2R && plan_.passes_in_place);
    const bool redo = launched != cudaSuccess && launch::not_launched(launched) &&
                      (!input_written || launch::launches_ran() == 0);
    const std::string where = pass > 0 ? ", pass " + std::to_string(pass) : std::string();
    log::kernel().error("{} (n={}, batch={}){}: {}{}", name_, plan_.n, plan_.batch, where, cudaGetErrorString(status),
                        redo ? "; the vendor plan serves this call" : "");
    return redo ? kNotServed : CUFFT_EXEC_FAILED;
  }

  // A multi-pass Bluestein plan (BluesteinStep): its passes over the M-point intermediates in the
  // two halves of the work area (plan_turns), each pass with its own sign (pass_sign: the inverse
  // FFT's passes the opposite of the transform's). In place too: the first pass reads all of the
  // input before the last writes the output.
  cufftResult execute_bluestein(const ExecArgs& args, bool in_place) const {
    if (args.work_area == nullptr) {
      log::api().error("{}: this plan needs a work area of {} B and none is set (cufftSetWorkArea)", name_,
                       plan_.work_bytes);
      return CUFFT_INVALID_VALUE;
    }
    const std::vector<PassTurn> turns = plan_turns(plan_, in_place);
    const auto buffer = [&](Buffer which, std::size_t offset) -> void* {
      switch (which) {
        case Buffer::kInput: return const_cast<void*>(args.input);
        case Buffer::kOutput: return args.output;
        default: return static_cast<char*>(args.work_area) + offset * plan_.element_bytes;
      }
    };
    const int sign = args.direction == CUFFT_INVERSE ? 1 : -1;
    for (std::size_t i = 0; i < launches_.size(); ++i) {
      const bool inverse = pass_sign(plan_.passes[i], sign) > 0;
      const cudaError_t launched = run_pass(launches_[i], buffer(turns[i].from, turns[i].from_offset),
                                            buffer(turns[i].to, turns[i].to_offset), inverse, args.stream);
      if (const cufftResult status = finish_launch(launched, args, static_cast<int>(i) + 1); status != CUFFT_SUCCESS) {
        return status;
      }
    }
    return CUFFT_SUCCESS;
  }

  // The two passes as one cluster kernel: no work area, in place or not. A real plan's (1D,
  // n = 2 M) with its real step, R2C's in the last pass's place, C2R's in the first's; the
  // distances of this execution (in place: cuFFT's padded layout, M + 1 on both sides).
  cufftResult execute_cluster(const ExecArgs& args, bool in_place) const {
    const FftCluster& c = *plan_.cluster;
    kernels::ClusterLaunch launch;
    const long long points = plan_.kind == Kind::kC2C ? plan_.n : plan_.n / 2;
    while ((1LL << launch.bits) < points) ++launch.bits;
    launch.in_dist = points;
    launch.out_dist = points;
    if (plan_.kind != Kind::kC2C) {
      const std::size_t paired = plan_.kind == Kind::kR2C ? 1 : 0;
      launch.real_step = plan_.kind == Kind::kR2C ? kernels::kClusterR2C : kernels::kClusterC2R;
      launch.real_twiddles = launches_[paired].real_twiddles;
      launch.real_lo_bits = plan_.passes[paired].real_lo_bits;
      (plan_.kind == Kind::kR2C ? launch.out_dist : launch.in_dist) = points + 1;
      if (in_place) launch.in_dist = launch.out_dist = points + 1;
    }
    launch.rank_bits = c.rank_bits;
    launch.stride_a = c.stride_a;
    launch.stride_b = c.stride_b;
    launch.shift = plan_.passes[0].smem_shift;
    launch.threads = c.threads;
    launch.shared_bytes = static_cast<unsigned>(c.shared_bytes);
    launch.batch = plan_.batch;
    launch.twiddles_a = launches_[0].stage_twiddles;
    launch.twiddles_b = launches_[1].stage_twiddles;
    launch.lo_twiddles = launches_[1].lo_twiddles;
    launch.hi_twiddles = launches_[1].hi_twiddles;
    launch.lo_bits = launches_[1].lo_bits;
    launch.input = args.input;
    launch.output = args.output;
    const bool inverse = args.direction == CUFFT_INVERSE;
    const cudaError_t launched = launch::counted([&] {
      return plan_.precision == Precision::kSingle ? kernels::launch_cluster_f32(launch, inverse, args.stream)
                                                   : kernels::launch_cluster_f64(launch, inverse, args.stream);
    });
    return finish_launch(launched, args, 0);
  }

  FftPlan plan_;
  void* tables_;
  std::vector<kernels::PassLaunch> launches_;
  std::optional<kernels::FusedLaunch> fused_;
  bool in_place_served_ = true;
  std::string name_;
  std::vector<PassShape> shapes_[2];  // a real plan's passes' shapes out of place and in place (execution_pass)
  PassShape fused_shapes_[2][2] = {};  // a real plan's fused pair's passes, out of place and in place
};

// The twiddle tables of every pass in one device allocation, in the plan's precision; the
// launches get their pointers. Null (with the CUDA error logged) when allocation fails.
// `zeroed_bytes` more, zero, follow the tables at a 256-byte boundary (the fused kernel's
// counters); *zeroed points there.
template <class Stored>
void* upload_tables(const FftPlan& plan, std::vector<kernels::PassLaunch>* launches, std::size_t zeroed_bytes = 0,
                    void** zeroed = nullptr) {
  std::vector<Stored> host;
  std::vector<TwiddleLayout> layouts;
  std::vector<std::pair<std::size_t, std::size_t>> chirps, spectra;  // (offset, count) per pass
  // A multi-pass Bluestein plan's chirps and spectrum: device memory only, after the host part
  // (offsets from there), formed by form_bluestein_tables.
  std::vector<bool> device_formed;
  std::size_t device_only = 0;
  std::vector<std::size_t> bases;
  std::vector<std::pair<std::size_t, std::size_t>> cluster_stages;  // a cluster column pass's stages A, B
  const auto append = [&host](const std::vector<std::complex<double>>& table) {
    for (const std::complex<double>& w : table) {
      Stored value;
      value.x = static_cast<decltype(value.x)>(w.real());
      value.y = static_cast<decltype(value.y)>(w.imag());
      host.push_back(value);
    }
  };
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    const FftPass& pass = plan.passes[i];
    // Computing the lo/hi tables costs most of a large plan's creation; skip them where the
    // kernel computes the inter-pass twiddles itself.
    // A cluster column pass computes its twiddles in both precisions (line_twiddles).
    const bool interpass = !pass.cluster && !(plan.precision == Precision::kSingle &&
                                              kernels::computes_interpass_twiddles_f32((*launches)[i]));
    // A convolution pass's tables (its convolution's stage twiddles, the chirp, the spectrum) in
    // their layout (fft/convolution.h); the fields the kernels read are at the same places.
    std::vector<std::complex<double>> table;
    if (pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone) {
      // A multi-pass Bluestein plan's chirp and spectrum are not formed here (form_bluestein_tables).
      StepTables steps = step_tables(
          pass, plan.precision == Precision::kDouble ? TableAccuracy::kExtended : TableAccuracy::kDouble, false);
      const StepLayout& step = steps.layout;
      device_formed.push_back(pass.bluestein != BluesteinStep::kNone);
      TwiddleLayout layout;
      layout.stage = step.stage;
      layout.stage_count = step.stage_count;
      layout.lo = step.lo;
      layout.lo_count = step.lo_count;
      layout.hi = step.hi;
      layout.hi_count = step.hi_count;
      layout.real = step.real;
      layout.real_count = step.real_count;
      layout.total = step.total;
      layouts.push_back(layout);
      if (device_formed.back()) {
        chirps.push_back({device_only, step.chirp_count});
        device_only += step.chirp_count;
        spectra.push_back({device_only, step.spectrum_count});
        device_only += step.spectrum_count;
      } else {
        chirps.push_back({step.chirp, step.chirp_count});
        spectra.push_back({step.spectrum, step.spectrum_count});
      }
      table = std::move(steps.values);
    } else {
      table = pass_twiddles(pass, interpass, plan.precision == Precision::kDouble);
      layouts.push_back(twiddle_layout(pass, interpass));
      device_formed.push_back(false);
      chirps.push_back({0, 0});
      spectra.push_back({0, 0});
    }
    bases.push_back(host.size());
    append(table);
    cluster_stages.push_back({0, 0});
    if (pass.cluster) {
      int bits = 0;
      while ((1LL << bits) < pass.size) ++bits;
      const long long size_a = 1LL << (pass.cluster->contiguous_out ? cluster_first_bits_a(bits) : cluster_bits_a(bits));
      cluster_stages.back().first = host.size();
      const bool nearest = plan.precision == Precision::kDouble;
      append(pass_twiddles(cluster_stage_pass(size_a), false, nearest));
      cluster_stages.back().second = host.size();
      append(pass_twiddles(cluster_stage_pass(pass.size / size_a), false, nearest));
    }
  }
  std::size_t zeroed_at = 0;
  if (zeroed_bytes > 0) {
    constexpr std::size_t kAlign = 256 / sizeof(Stored);
    zeroed_at = (host.size() + kAlign - 1) / kAlign * kAlign;
    host.resize(zeroed_at + (zeroed_bytes + sizeof(Stored) - 1) / sizeof(Stored), Stored{});
  }
  void* device = nullptr;
  cudaError_t status = cudaMalloc(&device, (host.size() + device_only) * sizeof(Stored));
  if (status == cudaSuccess) {
    // Complete before any stream reads the tables (copy_to_device): the plan-time kernels of
    // form_bluestein_tables and callers' non-blocking streams are not ordered after cudaMemcpy.
    status = static_cast<cudaError_t>(copy_to_device(device, host.data(), host.size() * sizeof(Stored)));
  }
  if (status != cudaSuccess) {
    log::plan().warn("native FFT twiddle tables ({} B): {}", host.size() * sizeof(Stored), cudaGetErrorString(status));
    cudaGetLastError();
    if (device != nullptr) cudaFree(device);
    return nullptr;
  }
  const Stored* base = static_cast<const Stored*>(device);
  if (zeroed != nullptr) *zeroed = zeroed_bytes > 0 ? static_cast<Stored*>(device) + zeroed_at : nullptr;
  for (std::size_t i = 0; i < launches->size(); ++i) {
    kernels::PassLaunch& launch = (*launches)[i];
    launch.stage_twiddles = base + bases[i] + layouts[i].stage;
    launch.lo_twiddles = layouts[i].lo_count > 0 ? base + bases[i] + layouts[i].lo : nullptr;
    launch.hi_twiddles = layouts[i].hi_count > 0 ? base + bases[i] + layouts[i].hi : nullptr;
    launch.real_twiddles = layouts[i].real_count > 0 ? base + bases[i] + layouts[i].real : nullptr;
    const Stored* steps = device_formed[i] ? base + host.size() : base + bases[i];
    launch.chirp = chirps[i].second > 0 ? steps + chirps[i].first : nullptr;
    launch.spectrum = spectra[i].second > 0 ? steps + spectra[i].first : nullptr;
    if (plan.passes[i].cluster) {
      launch.cluster_twiddles_a = base + cluster_stages[i].first;
      launch.cluster_twiddles_b = base + cluster_stages[i].second;
    }
  }
  return device;
}

kernels::PassLaunch launch_for(const FftPlan& plan, const FftPass& pass) {
  kernels::PassLaunch launch;
  launch.shape = pass_shape(plan, pass);
  launch.stages = static_cast<int>(pass.radices.size());
  for (int s = 0; s < launch.stages; ++s) launch.radices[s] = pass.radices[s];
  launch.threads_per_transform = pass.threads_per_transform;
  launch.wide_cap = pass.wide ? pass.widened_limit : 0;
  launch.total = pass.sub_transforms * plan.pass_transforms(pass);
  launch.real_step = static_cast<int>(pass.real_step);
  launch.real_lo_bits = pass.real_lo_bits;
  launch.real_rows = pass.real_rows;
  launch.convolution = static_cast<int>(pass.convolution);
  launch.bluestein = static_cast<int>(pass.bluestein);
  launch.chirp_length = pass.chirp_length;
  launch.convolution_size = static_cast<int>(pass.convolution_size);
  while (pass.convolution_size > 0 && (1LL << launch.convolution_log2) < pass.convolution_size) ++launch.convolution_log2;
  launch.blocks = pass.blocks;
  launch.shared_bytes = static_cast<unsigned>(pass.shared_bytes);
  launch.lo_bits = pass.twiddle_lo_bits;
  return launch;
}

// Whether a pass runs the general kernel (the run-time radix switch, stockham.cu): mixed radices
// with no fixed-sequence kernel compiled or planned at run time, no convolution, not a cluster
// pass. No tuning row was measured on it faster than the vendor.
bool general_kernel_pass(const FftPass& pass, std::size_t element_bytes) {
  if (pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone || pass.cluster) {
    return false;
  }
  const bool powers_of_two =
      std::all_of(pass.radices.begin(), pass.radices.end(), [](int r) { return (r & (r - 1)) == 0; });
  return !powers_of_two && fixed_sequence_buffer(pass, element_bytes) == 0;
}

// Whether compiled kernels run every pass of a plan_c2c_any plan: passes with no convolution
// step (the Stockham kernels), one-pass Bluestein convolutions over a power of two or a mixed
// length of fixed_radices.h (the Bluestein kernels) and the passes of two-pass Bluestein plans over a power of two (the
// power-of-two kernels' Bluestein kinds); Rader's convolutions, convolutions on later passes of a
// mixed plan and Bluestein plans of three passes or more on each side have no kernel yet.
bool kernels_serve(const FftPlan& plan, const std::vector<kernels::PassLaunch>& launches) {
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    const FftPass& pass = plan.passes[i];
    if (pass.bluestein != BluesteinStep::kNone) {
      if (!bluestein_one_buffer(plan)) return false;  // the kernels' layout (fft/convolution_index.h)
      const bool served = plan.precision == Precision::kSingle ? kernels::pow2_pass_served_f32(launches[i])
                                                               : kernels::pow2_pass_served_f64(launches[i]);
      if (!served) return false;
      continue;
    }
    if (pass.convolution == ConvolutionStep::kNone) continue;
    const bool served = plan.precision == Precision::kSingle ? kernels::bluestein_pass_served_f32(launches[i])
                                                             : kernels::bluestein_pass_served_f64(launches[i]);
    if (!served) return false;
  }
  return true;
}

std::vector<kernels::PassLaunch> launches_for(const FftPlan& plan) {
  std::vector<kernels::PassLaunch> launches;
  for (const FftPass& pass : plan.passes) launches.push_back(launch_for(plan, pass));
  return launches;
}

// A multi-pass Bluestein plan's chirp (in its first and last passes' tables) and kernel spectrum
// (its middle pass's), which upload_tables leaves zero, formed on the device
// (kernels/bluestein_tables.cu): the chirp and the kernel b in double, b's M-point DFT by a plan
// of our own double-precision passes (no cluster or fused kernels: one or two pass launches, no
// work area), scaled into the spectrum. On a stream of its own, finished before it returns. False,
// with the error logged, where any step fails (M above the two double passes' 2^26 among them).
bool form_bluestein_tables(const FftPlan& plan, const std::vector<kernels::PassLaunch>& launches,
                           DeviceLimits limits) {
  const long long m = bluestein_padded_length(plan);
  const long long n = plan.n;
  const bool single = plan.precision == Precision::kSingle;
  limits.clusters = false;
  limits.cluster_columns = false;
  limits.fused = false;
  limits.runtime_sequences = false;
  FftPlanResult dft = plan_c2c_1d(m, 1, Precision::kDouble, limits);
  if (!dft.plan || dft.plan->work_bytes > 0) {
    log::plan().info("native FFT: no double {}-point plan without a work area for Bluestein's spectrum ({})", m,
                     dft.reason);
    return false;
  }
  std::vector<kernels::PassLaunch> dft_launches = launches_for(*dft.plan);
  void* dft_tables = upload_tables<double2>(*dft.plan, &dft_launches);
  if (dft_tables == nullptr) return false;
  const StockhamPlan transform(std::move(*dft.plan), dft_tables, std::move(dft_launches), std::nullopt);
  double2* kernel = nullptr;
  cudaStream_t stream = nullptr;
  void* first_chirp = const_cast<void*>(launches.front().chirp);
  void* last_chirp = const_cast<void*>(launches.back().chirp);
  void* spectrum = const_cast<void*>(launches[launches.size() / 2].spectrum);
  cudaError_t status = first_chirp != nullptr && last_chirp != nullptr && spectrum != nullptr
                           ? cudaMalloc(&kernel, 2 * static_cast<std::size_t>(m) * sizeof(double2))
                           : cudaErrorInvalidValue;
  if (status == cudaSuccess) status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (status == cudaSuccess) status = kernels::bluestein_chirp_and_kernel(n, m, single, first_chirp, kernel, stream);
  if (status == cudaSuccess &&
      transform.execute({kernel, kernel + m, CUFFT_FORWARD, stream, nullptr}) != CUFFT_SUCCESS) {
    status = cudaErrorUnknown;
  }
  if (status == cudaSuccess) status = kernels::bluestein_scaled_spectrum(m, kernel + m, single, spectrum, stream);
  if (status == cudaSuccess) {
    status = cudaMemcpyAsync(last_chirp, first_chirp, static_cast<std::size_t>(n) * plan.element_bytes,
                             cudaMemcpyDeviceToDevice, stream);
  }
  if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) {
    log::plan().warn("native FFT: Bluestein's tables for n = {} (M = {}): {}", n, m, cudaGetErrorString(status));
    cudaGetLastError();
  }
  if (stream != nullptr) {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }
  cudaFree(kernel);
  return status == cudaSuccess;
}

// Experiment switches (core/config.h): IDGPU_FFT_FUSED=0 runs fused plans as two launches;
// IDGPU_FFT_FUSED_LAG=D overrides the schedule's lag.
bool fused_enabled() { return config().fft_fused; }
// IDGPU_FFT_CLUSTER_COLUMNS=0 runs the column passes as their own kernels (FftPass::cluster).
bool cluster_columns_allowed(int arch, Precision precision) {
  return arch >= 90 && config().fft_cluster_columns &&
         (precision == Precision::kSingle ? kernels::cluster_kernels_usable_f32()
                                          : kernels::cluster_kernels_usable_f64());
}
int fused_lag_override() { return config().fft_fused_lag; }

// The fused kernel's launch for a plan with FftFused, its twiddles those of the plan's passes
// (the tables do not depend on transforms per block): nothing when no kernel is compiled for the
// pass lengths. Its lag is fused_lag's (fft/planner.h).
std::optional<kernels::FusedLaunch> fused_launch_for(const FftPlan& plan,
                                                     const std::vector<kernels::PassLaunch>& launches) {
  const FftFused& fused = *plan.fused;
  kernels::FusedLaunch launch;
  launch.first = launch_for(plan, fused.passes[0]);
  launch.last = launch_for(plan, fused.passes[1]);
  for (kernels::PassLaunch* pass : {&launch.first, &launch.last}) {
    const kernels::PassLaunch& planned = launches[fused.first_pass + (pass == &launch.first ? 0 : 1)];
    pass->stage_twiddles = planned.stage_twiddles;
    pass->lo_twiddles = planned.lo_twiddles;
    pass->hi_twiddles = planned.hi_twiddles;
    pass->real_twiddles = planned.real_twiddles;
  }
  launch.kinds = static_cast<int>(fused.kind);
  launch.first_count = fused.first_count;
  launch.last_count = fused.last_count;
  launch.threads = static_cast<unsigned>(fused.threads);
  launch.shared_bytes = static_cast<unsigned>(fused.shared_bytes);
  launch.schedule.batch = fused.transforms;
  launch.schedule.first_tiles = fused.first_tiles;
  launch.schedule.last_tiles = fused.last_tiles;
  const int resident = plan.precision == Precision::kSingle ? kernels::fused_resident_blocks_f32(launch)
                                                            : kernels::fused_resident_blocks_f64(launch);
  if (resident <= 0) return std::nullopt;
  const long long tickets = fused_tickets(launch.schedule);
  launch.grid = static_cast<unsigned>(std::min<long long>(resident, tickets));
  const int lag = fused_lag_override() > 0 ? fused_lag_override()
                                          : fused_lag(plan, resident, current_device_l2_bytes());
  launch.schedule.lag = static_cast<int>(std::clamp<long long>(lag, 1, fused.transforms));
  return launch;
}

// A plan the planner fused whose fused kernel does not run here (IDGPU_FFT_FUSED=0, or none
// compiled for it) runs its passes as separate launches: under IDGPU_POLICY=native; under `auto`
// the vendor serves it instead, since the tuning table measured the fused kernel (false, the
// tables freed). The plan then says it is not fused.
bool unfused_allowed(bool planned_fused, bool fused_launch, Policy current, FftPlan* plan,
                     void* tables, const char** reason) {
  if (!planned_fused || fused_launch) return true;
  plan->fused.reset();
  if (current == Policy::kNative) return true;
  cudaFree(tables);
  *reason = "native FFT: measured with its fused kernel, which does not run here (IDGPU_FFT_FUSED=0 or none compiled)";
  return false;
}

// The fused kernel's counters (kernels/stockham_fused.cuh), which follow a plan's tables: two,
// and one per transform of the kernel.
std::size_t fused_counter_bytes(const FftPlan& plan) {
  return plan.fused ? static_cast<std::size_t>(2 + plan.fused->transforms) * sizeof(unsigned) : 0;
}

// The plan's fused kernel, its counters at `counters`; nothing where the plan has none, the
// experiment switch turned it off, or no kernel is compiled for its passes.
std::optional<kernels::FusedLaunch> plan_fused_launch(const FftPlan& plan,
                                                      const std::vector<kernels::PassLaunch>& launches,
                                                      void* counters) {
  if (!plan.fused) return std::nullopt;
  std::optional<kernels::FusedLaunch> fused = fused_launch_for(plan, launches);
  if (fused) {
    fused->counters = static_cast<unsigned*>(counters);
    log::plan().debug("native FFT plan: fused kernel of {} blocks, lag {}", fused->grid, fused->schedule.lag);
  }
  return fused;
}

// IDGPU_FFT_MEASURE=1, for a plan the tuning table does not cover (another device class, another
// size): time the native plan against the vendor's once per process and (device, n, batch,
// precision), and keep the native one only when it is at least 2% faster. Forward transforms out
// of place on scratch buffers, on a stream of the measurement's own; three warm-up calls each,
// then the medians of nine, alternating.
// No decision (the vendor keeps the plan) when the vendor library or the memory is not there.
class Measurement {
 public:
  // A decision already measured in this process: the vendor's plans of that size then cost
  // nothing more than the vendor's own plan creation.
  bool decided_vendor(const Descriptor& d, long long n, long long batch, const char** reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = decided_.find(key(d, n, batch));
    if (found == decided_.end() || found->second) return false;
    *reason = "the vendor measured faster for this plan (IDGPU_FFT_MEASURE)";
    return true;
  }

  bool native_faster(const NativePlan& native, const Descriptor& d, long long n, long long batch, const char** reason) {
    const auto k = key(d, n, batch);
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto found = decided_.find(k); found != decided_.end()) {
      if (!found->second) *reason = "the vendor measured faster for this plan (IDGPU_FFT_MEASURE)";
      return found->second;
    }
    float native_ms = 0.0f, vendor_ms = 0.0f;
    if (!time_both(native, d, n, batch, &native_ms, &vendor_ms)) {
      *reason = "IDGPU_FFT_MEASURE: the measurement could not run; the vendor serves the plan";
      return false;
    }
    // A margin toward the vendor: a tie within timing noise is not a reason to switch.
    const bool faster = native_ms < kMargin * vendor_ms;
    decided_[k] = faster;
    log::plan().info("IDGPU_FFT_MEASURE: n={} batch={} {}: native {:.4f} ms, vendor {:.4f} ms: {}", n, batch,
                     d.precision == Precision::kSingle ? "fp32" : "fp64", native_ms, vendor_ms,
                     faster ? "native" : "vendor");
    if (!faster) *reason = "the vendor measured faster for this plan (IDGPU_FFT_MEASURE)";
    return faster;
  }

 private:
  static constexpr int kWarmups = 3;
  static constexpr int kRuns = 9;
  static constexpr float kMargin = 0.98f;  // native must be 2% faster

  using Key = std::tuple<int, long long, long long, int>;
  static Key key(const Descriptor& d, long long n, long long batch) {
    int device = 0;
    cudaGetDevice(&device);
    return {device, n, batch, static_cast<int>(d.precision)};
  }

  static bool time_both(const NativePlan& native, const Descriptor& d, long long n, long long batch, float* native_ms,
                        float* vendor_ms) {
    const vendor::CufftTable* t = vendor::cufft();
    if (t == nullptr || t->cufftCreate == nullptr || t->cufftMakePlanMany64 == nullptr || t->cufftDestroy == nullptr ||
        t->cufftSetStream == nullptr || t->cufftExecC2C == nullptr || t->cufftExecZ2Z == nullptr) {
      return false;
    }
    const bool single = d.precision == Precision::kSingle;
    const std::size_t bytes = static_cast<std::size_t>(n * batch) * (single ? 8 : 16);
    void* in = nullptr;
    void* out = nullptr;
    void* work = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    cufftHandle vendor_plan = 0;
    bool vendor_made = false;
    bool ok = cudaMalloc(&in, bytes) == cudaSuccess && cudaMalloc(&out, bytes) == cudaSuccess &&
              (native.work_size() == 0 || cudaMalloc(&work, native.work_size()) == cudaSuccess) &&
              cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess &&
              // 0x3c3c...: small normal values; on the measurement's stream, so that its calls
              // read them (a legacy-stream memset is not ordered before a non-blocking stream).
              cudaMemsetAsync(in, 0x3c, bytes, stream) == cudaSuccess &&
              cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess;
    if (ok) {
      long long dims[1] = {n};
      std::size_t vendor_work = 0;
      ok = t->cufftCreate(&vendor_plan) == CUFFT_SUCCESS;
      vendor_made = ok;
      ok = ok &&
           t->cufftMakePlanMany64(vendor_plan, 1, dims, nullptr, 1, 0, nullptr, 1, 0, single ? CUFFT_C2C : CUFFT_Z2Z,
                                  batch, &vendor_work) == CUFFT_SUCCESS &&
           t->cufftSetStream(vendor_plan, stream) == CUFFT_SUCCESS;
    }
    const auto run_native = [&] { return native.execute({in, out, CUFFT_FORWARD, stream, work}) == CUFFT_SUCCESS; };
    const auto run_vendor = [&] {
      return (single ? t->cufftExecC2C(vendor_plan, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out),
                                       CUFFT_FORWARD)
                     : t->cufftExecZ2Z(vendor_plan, static_cast<cufftDoubleComplex*>(in),
                                       static_cast<cufftDoubleComplex*>(out), CUFFT_FORWARD)) == CUFFT_SUCCESS;
    };
    const auto timed = [&](const auto& run, float* ms) {
      if (cudaEventRecord(start, stream) != cudaSuccess || !run() || cudaEventRecord(stop, stream) != cudaSuccess ||
          cudaEventSynchronize(stop) != cudaSuccess) {
        return false;
      }
      return cudaEventElapsedTime(ms, start, stop) == cudaSuccess;
    };
    std::vector<float> native_times, vendor_times;
    for (int i = 0; ok && i < kWarmups; ++i) ok = run_native() && run_vendor();
    ok = ok && cudaStreamSynchronize(stream) == cudaSuccess;
    for (int i = 0; ok && i < kRuns; ++i) {
      float a = 0.0f, b = 0.0f;
      ok = timed(run_native, &a) && timed(run_vendor, &b);
      native_times.push_back(a);
      vendor_times.push_back(b);
    }
    if (ok) {
      std::sort(native_times.begin(), native_times.end());
      std::sort(vendor_times.begin(), vendor_times.end());
      *native_ms = native_times[native_times.size() / 2];
      *vendor_ms = vendor_times[vendor_times.size() / 2];
    }
    if (stream != nullptr) cudaStreamSynchronize(stream);
    if (vendor_made) t->cufftDestroy(vendor_plan);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
    if (stream != nullptr) cudaStreamDestroy(stream);
    cudaFree(work);
    cudaFree(out);
    cudaFree(in);
    cudaGetLastError();  // a failed step leaves no error behind for the caller
    return ok;
  }

  std::mutex mutex_;
  std::map<Key, bool> decided_;
};

Measurement& measurement() {
  static Measurement instance;
  return instance;
}

class StockhamSolver final : public Solver {
 public:
  const char* name() const override { return "stockham"; }

  std::unique_ptr<NativePlan> make(const Descriptor& d, const char** reason) const override {
    if (d.precision != Precision::kSingle && d.precision != Precision::kDouble) {
      *reason = "native FFT: fp32 and fp64 only";
      return nullptr;
    }
    if (d.rank != 1 || d.kind != Kind::kC2C) return make_layout_plan(d, reason);
    const long long n = d.dims[0].n;
    const long long batch = d.batch.n;
    const bool contiguous = d.dims[0].in_stride == 1 && d.dims[0].out_stride == 1 &&
                            (batch == 1 || (d.batch.in_stride == n && d.batch.out_stride == n));
    if (!contiguous) return make_layout_plan(d, reason);  // strided and embedded layouts
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
    const bool chosen = current == Policy::kNative ||
                        native_fft_wins(n, batch, d.precision, {arch, current_device_memory_gbs()}, reason);
    const bool measure = !chosen && config().fft_measure;
    if (!chosen && (!measure || measurement().decided_vendor(d, n, batch, reason))) return nullptr;
    DeviceLimits limits = DeviceLimits::h100();
    if (!current_device_block_limits(&limits.shared_bytes_per_block, &limits.max_threads_per_block,
                                     &limits.multiprocessors)) {
      *reason = "no CUDA device";
      return nullptr;
    }
    limits.clusters = arch >= 90 && (d.precision == Precision::kSingle ? kernels::cluster_kernels_usable_f32()
                                                                       : kernels::cluster_kernels_usable_f64());
    limits.cluster_columns = cluster_columns_allowed(arch, d.precision);
    limits.column_lines = config().fft_column_lines;
    // Every length is planned; those with a prime factor above 13 are served where Bluestein's
    // convolution over a power of two (or a compiled mixed length, one pass) takes one pass, or
    // two on each side (kernels_serve below).
    limits.convolution_powers_of_two = true;
    // Mixed-radix passes no compiled kernel has, on kernels compiled at run time where they are
    // loaded (or cached); until then, as before (fft/runtime_kernels.h).
    limits.runtime_sequences = runtime_kernels_enabled(arch);
    limits.thread_transforms = config().fft_thread_transforms;
    limits.wide_elements = config().fft_wide_elements;
    FftPlanResult planned = plan_c2c_any(n, batch, d.precision, limits);
    if (planned.plan && current != Policy::kNative && !measure) {
      // Under auto, the short lengths' rows (measured one transform a thread) never run the row
      // layout that IDGPU_FFT_THREAD_TRANSFORMS=0 leaves them (checked before any kernel is queued).
      const std::vector<FftPass>& passes = planned.plan->passes;
      if (passes.size() == 1 && passes[0].runtime_kernel && !thread_layout(passes[0].smem_shift) &&
          passes[0].size * static_cast<long long>(planned.plan->element_bytes) <= kThreadTransformBytes) {
        *reason = "native FFT: a short mixed-radix length without one transform a thread "
                  "(IDGPU_FFT_THREAD_TRANSFORMS=0); the vendor serves it";
        return nullptr;
      }
    }
    if (planned.plan && current != Policy::kNative && !measure && limits.wide_elements != kDefaultFftWideElements) {
      // Under auto, the tuning rows of lengths the wide layout takes were measured on it at the
      // default elements: a length whose layout IDGPU_FFT_WIDE_ELEMENTS changes goes to the
      // vendor (checked before any kernel is queued).
      DeviceLimits measured = limits;
      measured.wide_elements = kDefaultFftWideElements;
      const FftPlanResult as_measured = plan_c2c_any(n, batch, d.precision, measured);
      const std::vector<FftPass>& passes = planned.plan->passes;
      if (as_measured.plan && as_measured.plan->passes.size() == passes.size()) {
        for (std::size_t i = 0; i < passes.size(); ++i) {
          if (passes[i].wide != as_measured.plan->passes[i].wide ||
              passes[i].widened_limit != as_measured.plan->passes[i].widened_limit) {
            *reason = "native FFT: IDGPU_FFT_WIDE_ELEMENTS changes this length's layout from the one its "
                      "tuning was measured on; the vendor serves it";
            return nullptr;
          }
        }
      }
    }
    if (planned.plan && !runtime_kernels_ready(*planned.plan, arch)) {
      // The tuning table's rows were measured on the run-time kernels: until they are loaded the
      // vendor serves such a plan, or, under IDGPU_POLICY=native, the general kernel.
      if (current != Policy::kNative) {
        *reason = "native FFT: its run-time kernels are not compiled yet (the vendor serves this plan)";
        return nullptr;
      }
      limits.runtime_sequences = false;
      planned = plan_c2c_any(n, batch, d.precision, limits);
    }
    // Under auto, never the general kernel: the rows of lengths on run-time kernels were measured
    // on those, and without NVRTC (or with IDGPU_FFT_RUNTIME_KERNELS=off) the plan falls back to it.
    if (planned.plan && current != Policy::kNative && !measure) {
      for (const FftPass& pass : planned.plan->passes) {
        if (general_kernel_pass(pass, planned.plan->element_bytes)) {
          *reason = "native FFT: its mixed-radix pass has no specialised kernel here (run-time kernels off or "
                    "NVRTC missing); the vendor serves it";
          return nullptr;
        }
      }
    }
    static thread_local std::string why;
    const std::string grid = planned.plan ? grid_refusal(*planned.plan) : std::string();
    if (!planned.plan || !grid.empty()) {
      why = "native FFT planner: " + (grid.empty() ? planned.reason : grid);
      *reason = why.c_str();
      return nullptr;
    }
    std::vector<kernels::PassLaunch> launches = launches_for(*planned.plan);
    if (!kernels_serve(*planned.plan, launches)) {
      why = "native FFT: lengths with a prime factor above 13 run natively as Bluestein's convolution over a "
            "power of two in one pass or two (" +
            planned.reason + ")";
      *reason = why.c_str();
      return nullptr;
    }
    const bool planned_fused = planned.plan->fused.has_value();
    if (!fused_enabled()) planned.plan->fused.reset();
    void* counters = nullptr;
    const std::size_t counter_bytes = fused_counter_bytes(*planned.plan);
    void* tables = d.precision == Precision::kSingle
                       ? upload_tables<float2>(*planned.plan, &launches, counter_bytes, &counters)
                       : upload_tables<double2>(*planned.plan, &launches, counter_bytes, &counters);
    if (tables == nullptr) {
      *reason = "native FFT: twiddle tables could not be allocated";
      return nullptr;
    }
    if (bluestein_padded_length(*planned.plan) > 0 && !form_bluestein_tables(*planned.plan, launches, limits)) {
      cudaFree(tables);
      *reason = "native FFT: Bluestein's tables could not be formed on the device";
      return nullptr;
    }
    const std::optional<kernels::FusedLaunch> fused = plan_fused_launch(*planned.plan, launches, counters);
    // A plan measured against the vendor at plan time (IDGPU_FFT_MEASURE) is judged as it runs.
    if (!unfused_allowed(planned_fused, fused.has_value(), measure ? Policy::kNative : current, &*planned.plan, tables,
                         reason)) {
      return nullptr;
    }
    log::plan().debug("native FFT plan: {}", planned.plan->to_string());
    auto native =
        std::make_unique<StockhamPlan>(std::move(*planned.plan), tables, std::move(launches), fused);
    if (measure && !measurement().native_faster(*native, d, n, batch, reason)) return nullptr;
    return native;
  }

 private:
  // Multi-dimensional C2C/Z2Z (one axis pass per axis) and R2C/C2R of rank 1..3 (one pass with
  // the real step, then or before an axis pass per outer axis: plan_real), default layouts: where the tuning table measured them faster (native_layout_wins), or
  // everywhere under IDGPU_POLICY=native.
  static std::unique_ptr<NativePlan> make_layout_plan(const Descriptor& d, const char** reason) {
    static thread_local std::string why;
    const bool real = d.kind != Kind::kC2C;
    if (d.rank < 1 || d.rank > 3) {
      *reason = "native FFT: rank 1 to 3";
      return nullptr;
    }
    // A C2C/Z2Z in another layout: plan_c2c_layout's (plan_c2c_strided's 1D layouts, the lines
    // of a [dims][S] array in 2D and 3D), under IDGPU_POLICY=native until the tuning table has
    // rows for them.
    const bool strided = !has_default_strides(d);
    if (strided && real) {
      *reason = "native FFT: real transforms in the default layout only";
      return nullptr;
    }
    long long dims[3] = {};
    long long total = 1;
    for (int axis = 0; axis < d.rank; ++axis) {
      dims[axis] = d.dims[axis].n;
      total *= dims[axis];
    }
    const long long batch = d.batch.n;
    if (total > (1LL << 31) || batch > (1LL << 31) || total * batch > (1LL << 40)) {
      *reason = "native FFT: sizes beyond the kernels' index range";
      return nullptr;
    }
    const int arch = current_device_arch();
    if (arch < 80) {
      *reason = arch == 0 ? "no CUDA device" : "native kernels are built for sm_80 and newer";
      return nullptr;
    }
    const Policy current = policy();
    if (current == Policy::kVendor) {
      *reason = "IDGPU_POLICY=vendor";
      return nullptr;
    }
    if (current != Policy::kNative && strided) {
      // The lines of a [dims][S] array in 2D and 3D have rows; the other layouts are native
      // under IDGPU_POLICY=native only.
      bool contiguous_out = false;
      if (d.rank == 1 || !lines_layout(d, &contiguous_out)) {
        *reason = "native FFT: this strided or embedded layout is not measured yet (IDGPU_POLICY=native runs it)";
        return nullptr;
      }
      if (!native_lines_wins(d.precision, d.rank, batch, contiguous_out, total * batch,
                             {arch, current_device_memory_gbs()}, reason)) {
        return nullptr;
      }
    }
    if (current != Policy::kNative && !strided &&
        !native_layout_wins(d.kind, d.precision, d.rank, dims, batch, {arch, current_device_memory_gbs()}, reason)) {
      return nullptr;
    }
    DeviceLimits limits = DeviceLimits::h100();
    if (!current_device_block_limits(&limits.shared_bytes_per_block, &limits.max_threads_per_block,
                                     &limits.multiprocessors)) {
      *reason = "no CUDA device";
      return nullptr;
    }
    // Clusters for 1D real plans (plan_real's cluster plans), not for the axes of the others.
    limits.clusters = real && d.rank == 1 && arch >= 90 &&
                      (d.precision == Precision::kSingle ? kernels::cluster_kernels_usable_f32()
                                                         : kernels::cluster_kernels_usable_f64());
    limits.cluster_columns = cluster_columns_allowed(arch, d.precision);
    limits.column_lines = config().fft_column_lines;
    // The fused kernel of a plan's two innermost axes (FusedKind).
    limits.fused = !strided;
    // A real length with a prime factor above 13 (its half's, for even n): the real pass is one
    // Bluestein convolution over a power of two or a compiled mixed length (kernels_serve below);
    // odd rows paired on request.
    limits.convolution_powers_of_two = true;
    limits.pair_odd_real_rows = config().fft_pair_real_rows;
    limits.runtime_sequences = runtime_kernels_enabled(arch);
    const auto plan_layout = [&] {
      return real      ? plan_real(d.kind, d.rank, dims, batch, d.precision, limits)
             : strided ? plan_c2c_layout(d, limits)
                       : plan_c2c(d.rank, dims, batch, d.precision, limits);
    };
    FftPlanResult planned = plan_layout();
    if (planned.plan && !runtime_kernels_ready(*planned.plan, arch)) {
      if (current != Policy::kNative) {
        *reason = "native FFT: its run-time kernels are not compiled yet (the vendor serves this plan)";
        return nullptr;
      }
      limits.runtime_sequences = false;
      planned = plan_layout();
    }
    const std::string grid = planned.plan ? grid_refusal(*planned.plan) : std::string();
    if (!planned.plan || !grid.empty()) {
      why = "native FFT planner: " + (grid.empty() ? planned.reason : grid);
      *reason = why.c_str();
      return nullptr;
    }
    std::vector<kernels::PassLaunch> launches = launches_for(*planned.plan);
    if (!kernels_serve(*planned.plan, launches)) {
      why = "native FFT: a real length with a prime factor above 13 runs natively where its real pass is one "
            "Bluestein convolution over a power of two or a compiled mixed length";
      *reason = why.c_str();
      return nullptr;
    }
    // A two-pass real plan runs on the power-of-two kernels only, both passes: the paired real
    // steps have no other kernel, and the general kernel's 16-byte accesses assume even
    // transform distances, which an intermediate of n / 2 + 1 a transform is not. (A cluster
    // plan's passes are its kernel's two stages; a cluster column pass is a kernel of its own.)
    bool two_pass_real = false;
    for (const FftPass& pass : planned.plan->passes) two_pass_real = two_pass_real || paired_real_step(pass.real_step);
    for (std::size_t i = 0; two_pass_real && !planned.plan->cluster && i < launches.size(); ++i) {
      if (planned.plan->passes[i].cluster) continue;
      const bool served = d.precision == Precision::kSingle ? kernels::pow2_pass_served_f32(launches[i])
                                                            : kernels::pow2_pass_served_f64(launches[i]);
      if (!served) {
        *reason = "native FFT: a real length whose half takes two passes runs natively for powers of two only";
        return nullptr;
      }
    }
    const bool planned_fused = planned.plan->fused.has_value();
    if (!fused_enabled()) planned.plan->fused.reset();
    void* counters = nullptr;
    const std::size_t counter_bytes = fused_counter_bytes(*planned.plan);
    void* tables = d.precision == Precision::kSingle
                       ? upload_tables<float2>(*planned.plan, &launches, counter_bytes, &counters)
                       : upload_tables<double2>(*planned.plan, &launches, counter_bytes, &counters);
    if (tables == nullptr) {
      *reason = "native FFT: twiddle tables could not be allocated";
      return nullptr;
    }
    const std::optional<kernels::FusedLaunch> fused = plan_fused_launch(*planned.plan, launches, counters);
    if (!unfused_allowed(planned_fused, fused.has_value(), current, &*planned.plan, tables, reason)) return nullptr;
    log::plan().debug("native FFT plan: {}", planned.plan->to_string());
    // In place, a real plan serves cuFFT's padded layout (NULL embeds only); a strided one, a
    // layout whose input and output are the same.
    bool same_layout = batch == 1 || d.batch.in_stride == d.batch.out_stride;
    for (int axis = 0; axis < d.rank; ++axis) same_layout = same_layout && d.dims[axis].in_stride == d.dims[axis].out_stride;
    const bool in_place_served = real ? d.default_layout : !strided || same_layout;
    return std::make_unique<StockhamPlan>(std::move(*planned.plan), tables, std::move(launches), fused,
                                          in_place_served);
  }
};

}  // namespace

bool compiled_kernels_serve(const FftPlan& plan) { return kernels_serve(plan, launches_for(plan)); }

const Solver& stockham_solver() {
  static const StockhamSolver solver;
  return solver;
}

}  // namespace idgpu::fft
