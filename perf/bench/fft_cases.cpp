// The FFT cases: one cufftPlanMany plan per side over the same rotating buffers, out of place
// (the grids) or in place (user-given cases may ask for it).
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "bench.h"
#include "case_text.h"
#include "device_kernels.h"

namespace idgpu_bench {
namespace {

// Points per call of the 1D grids: large enough that every size is bandwidth-relevant.
constexpr long long kPointsF32 = 1ll << 26;
constexpr long long kPointsF64 = 1ll << 25;

struct FftShape {
  cufftType type = CUFFT_C2C;
  int rank = 1;
  int n[3] = {1, 1, 1};
  long long batch = 1;
  bool in_place = false;
  // The advanced layout (C2C/Z2Z): kLines lays the batch's transforms out as the lines of a
  // [n][batch] array (inembed = onembed = n, stride = batch, distance 1: PyTorch's fftn over
  // leading dimensions); kLinesToContiguous writes each transform contiguously (stride 1,
  // distance the transform's points), as PyTorch's rfftn asks of its C2C.
  enum class Layout { kDefault, kLines, kLinesToContiguous } layout = Layout::kDefault;
};

bool is_double(cufftType type) { return type == CUFFT_Z2Z || type == CUFFT_D2Z || type == CUFFT_Z2D; }
bool real_input(cufftType type) { return type == CUFFT_R2C || type == CUFFT_D2Z; }
bool real_output(cufftType type) { return type == CUFFT_C2R || type == CUFFT_Z2D; }

const char* type_tag(cufftType type) {
  switch (type) {
    case CUFFT_C2C: return "c2c_f32";
    case CUFFT_Z2Z: return "z2z_f64";
    case CUFFT_R2C: return "r2c_f32";
    case CUFFT_C2R: return "c2r_f32";
    case CUFFT_D2Z: return "d2z_f64";
    case CUFFT_Z2D: return "z2d_f64";
  }
  return "fft";
}

// A plan of one side, destroyed with the case.
class PlanHandle {
 public:
  PlanHandle() = default;
  PlanHandle(const PlanHandle&) = delete;
  PlanHandle& operator=(const PlanHandle&) = delete;
  ~PlanHandle() {
    if (api_ != nullptr) api_->cufftDestroy(handle_);
  }

  void make(const CufftApi& api, Side side, const FftShape& shape, cudaStream_t stream) {
    int n[3] = {shape.n[0], shape.n[1], shape.n[2]};
    cufftHandle handle = 0;
    if (shape.layout == FftShape::Layout::kDefault) {
      check_cufft(api.cufftPlanMany(&handle, shape.rank, n, nullptr, 1, 0, nullptr, 1, 0, shape.type,
                                    static_cast<int>(shape.batch)),
                  side, "cufftPlanMany");
    } else {
      int points = 1;
      for (int axis = 0; axis < shape.rank; ++axis) points *= n[axis];
      const int lines = static_cast<int>(shape.batch);
      const bool contiguous = shape.layout == FftShape::Layout::kLinesToContiguous;
      check_cufft(api.cufftPlanMany(&handle, shape.rank, n, n, lines, 1, n, contiguous ? 1 : lines,
                                    contiguous ? points : 1, shape.type, lines),
                  side, "cufftPlanMany");
    }
    api_ = &api;
    handle_ = handle;
    check_cufft(api.cufftSetStream(handle_, stream), side, "cufftSetStream");
  }

  cufftHandle get() const { return handle_; }

  void reset() {
    if (api_ != nullptr) api_->cufftDestroy(handle_);
    api_ = nullptr;
  }

 private:
  const CufftApi* api_ = nullptr;
  cufftHandle handle_ = 0;
};

class FftCase : public Case {
 public:
  FftCase(std::string id, FftShape shape) : id_(std::move(id)), shape_(shape) {
    long long points = 1;  // of one transform
    long long half = 1;    // complex points of one transform of a real FFT
    for (int axis = 0; axis < shape_.rank; ++axis) {
      points *= shape_.n[axis];
      half *= axis == shape_.rank - 1 ? shape_.n[axis] / 2 + 1 : shape_.n[axis];
    }
    const std::size_t real_bytes = is_double(shape_.type) ? sizeof(double) : sizeof(float);
    const auto batch = static_cast<std::size_t>(shape_.batch);
    // Counts of real numbers (complex values count twice).
    const std::size_t full_complex = 2 * static_cast<std::size_t>(points) * batch;
    const std::size_t half_complex = 2 * static_cast<std::size_t>(half) * batch;
    const std::size_t reals = static_cast<std::size_t>(points) * batch;
    in_count_ = real_input(shape_.type) ? reals : real_output(shape_.type) ? half_complex : full_complex;
    out_count_ = real_output(shape_.type) ? reals : real_input(shape_.type) ? half_complex : full_complex;
    in_bytes_ = in_count_ * real_bytes;
    out_bytes_ = out_count_ * real_bytes;
    // In place, one buffer holds the complex side; the real side lies in it with each innermost
    // row padded to 2 (n/2 + 1) reals (cuFFT's in-place layout when no embedding is given).
    buffer_count_ = std::max(in_count_, out_count_);
    buffer_bytes_ = buffer_count_ * real_bytes;
  }

  void setup(Environment& env) override {
    env_ = &env;
    // Plans first: their work areas are then part of the memory the rotation is sized against.
    for (const Side side : kSides) plans_[static_cast<int>(side)].make(env.cufft(side), side, shape_, env.stream);
    if (env.options->plan_times > 0) time_plan_creation(env);
    if (shape_.in_place) {
      sets_ = env.rotation_sets(buffer_bytes_);
      input_ = RotatingBuffer(buffer_bytes_, sets_);
      for (int set = 0; set < sets_; ++set) fill_input(set);
      BENCH_CUDA(cudaStreamSynchronize(env.stream));
      return;
    }
    sets_ = env.rotation_sets(in_bytes_ + out_bytes_);
    input_ = RotatingBuffer(in_bytes_, sets_);
    output_ = RotatingBuffer(out_bytes_, sets_);
    for (int set = 0; set < sets_; ++set) {
      fill_input(set);
      // Outputs get values too: no buffer the benchmark hands out is zero.
      if (is_double(shape_.type)) {
        BENCH_CUDA(fill_uniform(output_.as<double>(set), out_count_, derive_seed(env.options->seed, id_, 1000 + set),
                                env.stream));
      } else {
        BENCH_CUDA(fill_uniform(output_.as<float>(set), out_count_, derive_seed(env.options->seed, id_, 1000 + set),
                                env.stream));
      }
    }
    BENCH_CUDA(cudaStreamSynchronize(env.stream));
  }

  int sets() const override { return sets_; }

  void run(Side side, int set) override {
    const CufftApi& api = env_->cufft(side);
    const cufftHandle plan = plans_[static_cast<int>(side)].get();
    void* in = input_.slice(set);
    void* out = shape_.in_place ? in : output_.slice(set);
    switch (shape_.type) {
      case CUFFT_C2C:
        check_cufft(api.cufftExecC2C(plan, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out),
                                     CUFFT_FORWARD),
                    side, "cufftExecC2C");
        break;
      case CUFFT_Z2Z:
        check_cufft(api.cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(in),
                                     static_cast<cufftDoubleComplex*>(out), CUFFT_FORWARD),
                    side, "cufftExecZ2Z");
        break;
      case CUFFT_R2C:
        check_cufft(api.cufftExecR2C(plan, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)), side,
                    "cufftExecR2C");
        break;
      case CUFFT_C2R:
        check_cufft(api.cufftExecC2R(plan, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)), side,
                    "cufftExecC2R");
        break;
      case CUFFT_D2Z:
        check_cufft(api.cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)),
                    side, "cufftExecD2Z");
        break;
      case CUFFT_Z2D:
        check_cufft(api.cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out)),
                    side, "cufftExecZ2D");
        break;
    }
  }

  // Out-of-place complex-to-real transforms may overwrite their input (cuFFT documents it), and
  // in-place ones always do: regenerate it from its seed, which writes what a copy from a pristine
  // buffer would.
  void after_use(int set) override {
    if (shape_.in_place || real_output(shape_.type)) fill_input(set);
  }

  OutputView output(int set) const override {
    if (shape_.in_place) return OutputView{input_.slice(set), buffer_count_, is_double(shape_.type)};
    return OutputView{output_.slice(set), out_count_, is_double(shape_.type)};
  }

  // An in-place complex-to-real transform leaves the padding of each output row (the last one or
  // two reals of 2 (n/2 + 1)) as it pleases.
  void clear_undefined_output(int set) override {
    if (!shape_.in_place || !real_output(shape_.type)) return;
    const std::size_t real_bytes = is_double(shape_.type) ? sizeof(double) : sizeof(float);
    const auto n = static_cast<std::size_t>(shape_.n[shape_.rank - 1]);
    const std::size_t pitch = 2 * (n / 2 + 1) * real_bytes;
    std::size_t rows = static_cast<std::size_t>(shape_.batch);
    for (int axis = 0; axis + 1 < shape_.rank; ++axis) rows *= static_cast<std::size_t>(shape_.n[axis]);
    char* base = static_cast<char*>(input_.slice(set));
    BENCH_CUDA(cudaMemset2DAsync(base + n * real_bytes, pitch, 0, pitch - n * real_bytes, rows, env_->stream));
  }

  // A multi-dimensional complex-to-real input is not made Hermitian (see make_hermitian), so the
  // sides may differ far beyond rounding: such cases are timed, not compared.
  bool comparable() const override { return !(real_output(shape_.type) && shape_.rank > 1); }

  double bytes() const override { return static_cast<double>(in_bytes_ + out_bytes_); }

 private:
  // In place, the whole buffer (a real input's row padding too: the transform ignores it).
  void fill_input(int set) {
    const std::uint64_t seed = derive_seed(env_->options->seed, id_, set);
    const std::size_t count = shape_.in_place ? buffer_count_ : in_count_;
    if (is_double(shape_.type)) {
      BENCH_CUDA(fill_uniform(input_.as<double>(set), count, seed, env_->stream));
    } else {
      BENCH_CUDA(fill_uniform(input_.as<float>(set), count, seed, env_->stream));
    }
    if (real_output(shape_.type) && shape_.rank == 1) make_hermitian(set);
  }

  // A complex-to-real input is the half spectrum of a real sequence only where its values at 0
  // and n/2 (n even) are real. What a transform makes of imaginary parts there is each library's
  // own (cuFFT leaves it undefined), so the two sides' outputs would differ by far more than
  // rounding: those parts are zeroed, the only zeros the benchmark hands out. (Rank 1 only: the
  // multi-dimensional condition involves whole planes: such cases are not compared.)
  void make_hermitian(int set) {
    const std::size_t real_bytes = is_double(shape_.type) ? sizeof(double) : sizeof(float);
    const auto n = static_cast<std::size_t>(shape_.n[0]);
    const std::size_t pitch = 2 * (n / 2 + 1) * real_bytes;  // one transform's complex values
    const auto rows = static_cast<std::size_t>(shape_.batch);
    char* base = static_cast<char*>(input_.slice(set));
    BENCH_CUDA(cudaMemset2DAsync(base + real_bytes, pitch, 0, real_bytes, rows, env_->stream));
    if (n % 2 == 0) {
      BENCH_CUDA(cudaMemset2DAsync(base + (n + 1) * real_bytes, pitch, 0, real_bytes, rows, env_->stream));
    }
  }

  // Plan creation on both sides, warm (the case's own plans already exist): the median of
  // `plan_times` cufftPlanMany + cufftDestroy cycles, on stdout.
  void time_plan_creation(const Environment& env) const {
    double median_us[2] = {0, 0};
    for (const Side side : kSides) {
      std::vector<double> samples;
      for (int i = 0; i < env.options->plan_times; ++i) {
        const auto start = std::chrono::steady_clock::now();
        PlanHandle plan;
        plan.make(env.cufft(side), side, shape_, env.stream);
        plan.reset();
        samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      }
      std::sort(samples.begin(), samples.end());
      median_us[static_cast<int>(side)] = samples[samples.size() / 2];
    }
    std::fprintf(env.text_out, "plan-time %-28s vendor %9.1f us  idgpu %9.1f us  (median of %d create+destroy)\n",
                 id_.c_str(), median_us[0], median_us[1], env.options->plan_times);
  }

  std::string id_;
  FftShape shape_;
  const Environment* env_ = nullptr;
  PlanHandle plans_[2];
  RotatingBuffer input_;
  RotatingBuffer output_;
  int sets_ = 0;
  std::size_t in_count_ = 0;
  std::size_t out_count_ = 0;
  std::size_t in_bytes_ = 0;
  std::size_t out_bytes_ = 0;
  std::size_t buffer_count_ = 0;  // in place
  std::size_t buffer_bytes_ = 0;
};

// Case names: 1D "<type>_n<N>" (e.g. r2c_f32_n4096); 2D and 3D carry the rank in the type,
// "c2c2d_f32_1024x1024", "z2z3d_f64_256^3" (a cube as N^3). Overhead and user-given cases add
// the batch ("_b<B>"), in-place ones "_inplace".
// `prefix` starts the name of a case of a named sweep (selected with --filter PREFIX).
CaseSpec make_spec(const FftShape& shape, bool overhead = false, bool name_batch = false,
                   const std::string& prefix = "") {
  std::string dims;
  for (int axis = 0; axis < shape.rank; ++axis) dims += (axis > 0 ? "x" : "") + std::to_string(shape.n[axis]);
  std::string tag = type_tag(shape.type);
  std::string name_dims = shape.rank == 1 ? "n" + dims : dims;
  if (shape.rank > 1) {
    tag.insert(tag.find('_'), std::to_string(shape.rank) + "d");
    if (shape.rank == 3 && shape.n[0] == shape.n[1] && shape.n[1] == shape.n[2]) {
      name_dims = std::to_string(shape.n[0]) + "^3";
    }
  }
  CaseSpec spec;
  spec.family = "fft";
  const char* layout = shape.layout == FftShape::Layout::kLines               ? "_lines"
                       : shape.layout == FftShape::Layout::kLinesToContiguous ? "_lines_to_contiguous"
                                                                               : "";
  spec.name = prefix + tag + "_" + name_dims + (overhead || name_batch ? "_b" + std::to_string(shape.batch) : "") +
              layout + (shape.in_place ? "_inplace" : "");
  spec.params =
      "n=" + dims + " batch=" + std::to_string(shape.batch) + (shape.in_place ? " in-place" : " out-of-place");
  if (shape.layout != FftShape::Layout::kDefault) {
    spec.params += shape.layout == FftShape::Layout::kLines ? " stride=batch dist=1"
                                                            : " stride=batch dist=1 to contiguous";
  }
  if (shape.type == CUFFT_C2C || shape.type == CUFFT_Z2Z) spec.params += " forward";
  spec.overhead = overhead;
  const std::string id = spec.id();
  spec.make = [id, shape](const Environment&) { return std::unique_ptr<Case>(new FftCase(id, shape)); };
  return spec;
}

FftShape one_d(cufftType type, long long n, long long batch) {
  FftShape shape;
  shape.type = type;
  shape.rank = 1;
  shape.n[0] = static_cast<int>(n);
  shape.batch = batch;
  return shape;
}

// About this many points per call of a size: large enough that every size is bandwidth-relevant.
long long points_per_call(cufftType type) { return is_double(type) ? kPointsF64 : kPointsF32; }

// A 1D transform of size n, batched to about `points` points per call.
FftShape one_d_at(cufftType type, long long n, long long points) {
  const long long batch = static_cast<long long>(std::llround(static_cast<double>(points) / static_cast<double>(n)));
  return one_d(type, n, batch < 1 ? 1 : batch);
}

// A 2D or 3D transform (dims outermost first), batched to `points` points per call (at least one
// transform).
FftShape multi_d(cufftType type, std::initializer_list<int> dims, long long points) {
  FftShape shape;
  shape.type = type;
  shape.rank = static_cast<int>(dims.size());
  long long size = 1;
  int axis = 0;
  for (const int n : dims) {
    shape.n[axis++] = n;
    size *= n;
  }
  shape.batch = points / size < 1 ? 1 : points / size;
  return shape;
}

const long long kMixedSizes[] = {100, 243, 1000, 2187, 3125, 59049, 78125, 117649, 1000000};
// Primes, near-primes and lengths with a prime factor above 13 (the vendor's Bluestein plans).
const long long kPrimeSizes[] = {17, 97, 257, 1009, 2039, 4097, 4099, 6151, 8191, 10007, 65521, 1048573, 16777213};
const long long kPrimeSizesF64[] = {17, 257, 1009, 2039, 4093};

bool prime(long long n) {
  if (n < 2) return false;
  for (long long q = 2; q * q <= n; ++q) {
    if (n % q == 0) return false;
  }
  return true;
}

bool factors_at_most_13(long long n) {
  for (long long p : {2, 3, 5, 7, 11, 13}) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

}  // namespace

std::vector<CaseSpec> fft_quick_cases() {
  return {
      // The forwarding-overhead case: a transform so small the call's own cost dominates.
      make_spec(one_d(CUFFT_C2C, 64, 1000), /*overhead=*/true),
      make_spec(one_d_at(CUFFT_C2C, 1 << 8, kPointsF32)),
      make_spec(one_d_at(CUFFT_C2C, 1 << 12, kPointsF32)),
      make_spec(one_d_at(CUFFT_C2C, 1 << 20, kPointsF32)),
      make_spec(one_d_at(CUFFT_Z2Z, 1 << 10, kPointsF64)),
      make_spec(one_d_at(CUFFT_R2C, 1 << 12, kPointsF32)),
      make_spec(one_d_at(CUFFT_C2R, 1 << 12, kPointsF32)),
      make_spec(one_d_at(CUFFT_C2C, 1000, kPointsF32)),
      make_spec(one_d_at(CUFFT_C2C, 3125, kPointsF32)),
      make_spec(one_d_at(CUFFT_C2C, 4099, kPointsF32)),
      make_spec(multi_d(CUFFT_C2C, {1024, 1024}, kPointsF32)),
      make_spec(multi_d(CUFFT_C2C, {128, 128, 128}, kPointsF32)),
  };
}

std::vector<CaseSpec> fft_full_cases() {
  std::vector<CaseSpec> cases;
  cases.push_back(make_spec(one_d(CUFFT_C2C, 64, 1000), /*overhead=*/true));
  for (int log2 = 4; log2 <= 26; ++log2) cases.push_back(make_spec(one_d_at(CUFFT_C2C, 1ll << log2, kPointsF32)));
  for (int log2 = 4; log2 <= 25; ++log2) cases.push_back(make_spec(one_d_at(CUFFT_Z2Z, 1ll << log2, kPointsF64)));
  // Real transforms: every power of two whose half fits one native pass (2^8..2^15 fp32,
  // 2^8..2^14 fp64), and a few beyond. Bytes moved: n reals and n/2 + 1 complex values per
  // transform (FftCase).
  for (int log2 : {6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 26}) {
    cases.push_back(make_spec(one_d_at(CUFFT_R2C, 1ll << log2, kPointsF32)));
  }
  for (int log2 : {8, 9, 10, 11, 12, 13, 14, 15, 20}) {
    cases.push_back(make_spec(one_d_at(CUFFT_C2R, 1ll << log2, kPointsF32)));
  }
  for (int log2 = 8; log2 <= 14; ++log2) cases.push_back(make_spec(one_d_at(CUFFT_D2Z, 1ll << log2, kPointsF64)));
  for (int log2 = 8; log2 <= 14; ++log2) cases.push_back(make_spec(one_d_at(CUFFT_Z2D, 1ll << log2, kPointsF64)));
  for (long long n : kMixedSizes) cases.push_back(make_spec(one_d_at(CUFFT_C2C, n, kPointsF32)));
  for (long long n : kPrimeSizes) cases.push_back(make_spec(one_d_at(CUFFT_C2C, n, kPointsF32)));
  for (long long n : kPrimeSizesF64) cases.push_back(make_spec(one_d_at(CUFFT_Z2Z, n, kPointsF64)));
  // 2D and 3D, every axis one native pass: 2^26 points per call in fp32 (batches 64, 4, 1 and 32,
  // 4, 1), 2^25 in fp64.
  cases.push_back(make_spec(multi_d(CUFFT_C2C, {1024, 1024}, kPointsF32)));
  cases.push_back(make_spec(multi_d(CUFFT_C2C, {4096, 4096}, kPointsF32)));
  cases.push_back(make_spec(multi_d(CUFFT_C2C, {8192, 8192}, kPointsF32)));
  cases.push_back(make_spec(multi_d(CUFFT_Z2Z, {1024, 1024}, kPointsF64)));
  cases.push_back(make_spec(multi_d(CUFFT_Z2Z, {4096, 4096}, kPointsF64)));
  cases.push_back(make_spec(multi_d(CUFFT_Z2Z, {8192, 4096}, kPointsF64)));
  cases.push_back(make_spec(multi_d(CUFFT_C2C, {128, 128, 128}, kPointsF32)));
  cases.push_back(make_spec(multi_d(CUFFT_C2C, {256, 256, 256}, kPointsF32)));
  cases.push_back(make_spec(multi_d(CUFFT_C2C, {512, 512, 512}, kPointsF32)));
  cases.push_back(make_spec(multi_d(CUFFT_Z2Z, {128, 128, 128}, kPointsF64)));
  cases.push_back(make_spec(multi_d(CUFFT_Z2Z, {256, 256, 256}, kPointsF64)));
  // The sweep of every length 2..4096 whose factors are at most 13 (as VkFFT's benchmark sweeps),
  // fp32 at about 2^27 points per call: 489 cases named sweep13_* (--filter sweep13).
  for (long long n = 2; n <= 4096; ++n) {
    if (factors_at_most_13(n)) {
      cases.push_back(make_spec(one_d_at(CUFFT_C2C, n, 2 * kPointsF32), false, false, "sweep13_"));
    }
  }
  // Every 8th prime of the ranges the tuning table serves natively with one Bluestein pass (fp32
  // 4099..8191, fp64 2053..4093), to check that table's rows between the primes measured:
  // 58 + 32 cases named primes_* (--filter primes_).
  const struct {
    cufftType type;
    long long first;
    long long last;
    long long points;
  } prime_ranges[] = {{CUFFT_C2C, 4097, 8191, kPointsF32}, {CUFFT_Z2Z, 2049, 4096, kPointsF64}};
  for (const auto& range : prime_ranges) {
    long long index = 0;
    for (long long n = range.first; n <= range.last; ++n) {
      if (prime(n) && index++ % 8 == 0) {
        cases.push_back(make_spec(one_d_at(range.type, n, range.points), false, false, "primes_"));
      }
    }
  }
  // The real transforms natively planned beyond the power-of-two 1D ones (plan_real): even
  // lengths with a 13-smooth half, odd 13-smooth lengths, and 2D / 3D real shapes, both directions:
  // 48 cases named real_* (--filter real_), for the tuning table's real rows.
  for (const cufftType type : {CUFFT_R2C, CUFFT_C2R, CUFFT_D2Z, CUFFT_Z2D}) {
    const bool single = type == CUFFT_R2C || type == CUFFT_C2R;
    const long long points = single ? kPointsF32 : kPointsF64;
    for (long long n : {15LL, 243LL, 400LL, 1000LL, 1001LL, 1920LL, 3375LL, 10000LL}) {
      cases.push_back(make_spec(one_d_at(type, n, points), false, false, "real_"));
    }
    cases.push_back(make_spec(multi_d(type, {1024, 1024}, points), false, false, "real_"));
    cases.push_back(make_spec(multi_d(type, {4096, 4096}, points), false, false, "real_"));
    cases.push_back(make_spec(multi_d(type, {1000, 1000}, points), false, false, "real_"));
    cases.push_back(make_spec(multi_d(type, {256, 256, 256}, points), false, false, "real_"));
  }
  return cases;
}

// KIND,n=N[xM[xK]][,batch=B][,inplace][,precision=f32|f64][,layout=L]: KIND one of c2c, r2c,
// c2r (single precision unless precision=f64) or z2z, d2z, z2d; dimensions outermost first, as
// cufftPlanMany takes them, each a number or 2^K; without a batch, about as many points per call
// as the grids. layout=lines or lines-to-contiguous (C2C/Z2Z): FftShape::Layout.
CaseSpec fft_user_case(const std::string& text) {
  struct Kind {
    const char* name;
    cufftType f32;
    cufftType f64;
  };
  constexpr Kind kKinds[] = {
      {"c2c", CUFFT_C2C, CUFFT_Z2Z}, {"r2c", CUFFT_R2C, CUFFT_D2Z}, {"c2r", CUFFT_C2R, CUFFT_Z2D},
      {"z2z", CUFFT_C2C, CUFFT_Z2Z}, {"d2z", CUFFT_R2C, CUFFT_D2Z}, {"z2d", CUFFT_C2R, CUFFT_Z2D},
  };
  constexpr const char* kExpected =
      "n=N[xM[xK]], batch=B, inplace, precision=f32|f64, layout=lines|lines-to-contiguous";
  CaseText items(text);
  const Kind* kind = nullptr;
  for (const Kind& candidate : kKinds) {
    if (items.head() == candidate.name) kind = &candidate;
  }
  if (kind == nullptr) {
    throw CaseTextError("unknown FFT kind '" + items.head() + "' (expected c2c, r2c, c2r, z2z, d2z or z2d)");
  }
  const bool double_kind = items.head()[0] == 'z' || items.head()[0] == 'd';
  bool f64 = double_kind;
  std::string precision;
  if (items.take("precision", &precision)) {
    if (precision != "f32" && precision != "f64") {
      throw CaseTextError("precision=" + precision + ": expected f32 or f64");
    }
    if (double_kind && precision == "f32") {
      throw CaseTextError(items.head() + " is double precision: precision=f32 contradicts it");
    }
    f64 = precision == "f64";
  }

  FftShape shape;
  shape.type = f64 ? kind->f64 : kind->f32;
  std::string dims;
  if (!items.take("n", &dims)) throw CaseTextError("the size is missing (n=N, n=NxM or n=NxMxK)");
  const std::vector<std::string> axes = split(dims, 'x');
  if (axes.size() > 3) throw CaseTextError("n=" + dims + ": at most three dimensions");
  shape.rank = static_cast<int>(axes.size());
  long long points = 1;
  for (int axis = 0; axis < shape.rank; ++axis) {
    const long long n = parse_case_integer(axes[axis], "n");
    if (n < 1 || n > INT_MAX) throw CaseTextError("n=" + dims + ": each dimension must lie in [1, 2^31 - 1]");
    shape.n[axis] = static_cast<int>(n);
    points *= n;
    if (points > (1ll << 40)) throw CaseTextError("n=" + dims + " is too large");
  }
  const long long grid_batch = std::max(
      1ll, static_cast<long long>(std::llround(static_cast<double>(points_per_call(shape.type)) / points)));
  shape.batch = items.take_integer("batch", 1, INT_MAX, grid_batch);
  shape.in_place = items.take_flag("inplace");
  std::string layout;
  if (items.take("layout", &layout)) {
    if (layout == "lines") {
      shape.layout = FftShape::Layout::kLines;
    } else if (layout == "lines-to-contiguous") {
      shape.layout = FftShape::Layout::kLinesToContiguous;
    } else {
      throw CaseTextError("layout=" + layout + ": expected lines or lines-to-contiguous");
    }
    if (shape.type != CUFFT_C2C && shape.type != CUFFT_Z2Z) {
      throw CaseTextError("layout=" + layout + ": C2C and Z2Z only");
    }
    if (shape.in_place && shape.layout == FftShape::Layout::kLinesToContiguous) {
      throw CaseTextError("layout=lines-to-contiguous cannot run in place (the two sides differ)");
    }
  }
  items.finish(kExpected);
  return make_spec(shape, /*overhead=*/false, /*name_batch=*/true);
}

}  // namespace idgpu_bench
