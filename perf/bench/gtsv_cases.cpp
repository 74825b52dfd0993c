// The tridiagonal cases: cuSPARSE's gtsv2StridedBatch, gtsvInterleavedBatch, gtsv2 and
// gtsv2_nopivot on strictly diagonally dominant random systems, and gtsv2 on non-dominant ones too
// ("gtsv2_nd_"), in all four precisions (S, D, C, Z: "f32", "f64", "c32", "c64" in the case names).
//
// The solves overwrite x (interleaved ones dl, d and du too), so every rotation set is restored
// from one pristine set after each call, outside the timed region.
#include <algorithm>
#include <climits>
#include <string>
#include <utility>

#include "bench.h"
#include "case_text.h"
#include "device_kernels.h"

namespace idgpu_bench {
namespace {

// Unknowns per call of the batched grids, in every precision. At c64 (16 bytes) that is 256 MiB
// per array, 1 GiB per set of dl, d, du, x: the pristine set plus the two rotation sets that
// rotation_sets() settles on at this size (two times L2 is far below one set) make 3 GiB, plus the
// work buffer and the harness's copy of the reference output.
constexpr long long kUnknowns = 1ll << 24;

enum class Kind { kStrided, kInterleaved, kGtsv2, kGtsv2Nopivot };

enum class Precision { kF32, kF64, kC32, kC64 };
constexpr Precision kPrecisions[] = {Precision::kF32, Precision::kF64, Precision::kC32, Precision::kC64};

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kF32: return "f32";
    case Precision::kF64: return "f64";
    case Precision::kC32: return "c32";
    case Precision::kC64: return "c64";
  }
  return "?";
}

struct GtsvShape {
  Kind kind = Kind::kStrided;
  Precision precision = Precision::kF32;
  long long m = 0;
  long long batch = 1;   // gtsv2, gtsv2_nopivot: the columns of B (one matrix)
  int algo = 0;          // gtsvInterleavedBatch
  bool dominant = true;  // false: d as random as dl and du (gtsv2's non-dominant rows)
};

// The entry points of one side, by element type; Real is the type of one part of an element (the
// harness compares outputs as arrays of Real, complex elements as pairs of parts).
template <class T>
struct Entry;

template <>
struct Entry<float> {
  using Real = float;
  static auto strided_size(const GtsvApi& api) { return api.cusparseSgtsv2StridedBatch_bufferSizeExt; }
  static auto strided(const GtsvApi& api) { return api.cusparseSgtsv2StridedBatch; }
  static auto interleaved_size(const GtsvApi& api) { return api.cusparseSgtsvInterleavedBatch_bufferSizeExt; }
  static auto interleaved(const GtsvApi& api) { return api.cusparseSgtsvInterleavedBatch; }
  static auto gtsv2_size(const GtsvApi& api) { return api.cusparseSgtsv2_bufferSizeExt; }
  static auto gtsv2(const GtsvApi& api) { return api.cusparseSgtsv2; }
  static auto nopivot_size(const GtsvApi& api) { return api.cusparseSgtsv2_nopivot_bufferSizeExt; }
  static auto nopivot(const GtsvApi& api) { return api.cusparseSgtsv2_nopivot; }
};

template <>
struct Entry<double> {
  using Real = double;
  static auto strided_size(const GtsvApi& api) { return api.cusparseDgtsv2StridedBatch_bufferSizeExt; }
  static auto strided(const GtsvApi& api) { return api.cusparseDgtsv2StridedBatch; }
  static auto interleaved_size(const GtsvApi& api) { return api.cusparseDgtsvInterleavedBatch_bufferSizeExt; }
  static auto interleaved(const GtsvApi& api) { return api.cusparseDgtsvInterleavedBatch; }
  static auto gtsv2_size(const GtsvApi& api) { return api.cusparseDgtsv2_bufferSizeExt; }
  static auto gtsv2(const GtsvApi& api) { return api.cusparseDgtsv2; }
  static auto nopivot_size(const GtsvApi& api) { return api.cusparseDgtsv2_nopivot_bufferSizeExt; }
  static auto nopivot(const GtsvApi& api) { return api.cusparseDgtsv2_nopivot; }
};

template <>
struct Entry<cuComplex> {
  using Real = float;
  static auto strided_size(const GtsvApi& api) { return api.cusparseCgtsv2StridedBatch_bufferSizeExt; }
  static auto strided(const GtsvApi& api) { return api.cusparseCgtsv2StridedBatch; }
  static auto interleaved_size(const GtsvApi& api) { return api.cusparseCgtsvInterleavedBatch_bufferSizeExt; }
  static auto interleaved(const GtsvApi& api) { return api.cusparseCgtsvInterleavedBatch; }
  static auto gtsv2_size(const GtsvApi& api) { return api.cusparseCgtsv2_bufferSizeExt; }
  static auto gtsv2(const GtsvApi& api) { return api.cusparseCgtsv2; }
  static auto nopivot_size(const GtsvApi& api) { return api.cusparseCgtsv2_nopivot_bufferSizeExt; }
  static auto nopivot(const GtsvApi& api) { return api.cusparseCgtsv2_nopivot; }
};

template <>
struct Entry<cuDoubleComplex> {
  using Real = double;
  static auto strided_size(const GtsvApi& api) { return api.cusparseZgtsv2StridedBatch_bufferSizeExt; }
  static auto strided(const GtsvApi& api) { return api.cusparseZgtsv2StridedBatch; }
  static auto interleaved_size(const GtsvApi& api) { return api.cusparseZgtsvInterleavedBatch_bufferSizeExt; }
  static auto interleaved(const GtsvApi& api) { return api.cusparseZgtsvInterleavedBatch; }
  static auto gtsv2_size(const GtsvApi& api) { return api.cusparseZgtsv2_bufferSizeExt; }
  static auto gtsv2(const GtsvApi& api) { return api.cusparseZgtsv2; }
  static auto nopivot_size(const GtsvApi& api) { return api.cusparseZgtsv2_nopivot_bufferSizeExt; }
  static auto nopivot(const GtsvApi& api) { return api.cusparseZgtsv2_nopivot; }
};

enum Array { kLower = 0, kDiagonal = 1, kUpper = 2, kRhs = 3, kArrays = 4 };

template <class T>
class GtsvCase : public Case {
 public:
  GtsvCase(std::string id, GtsvShape shape) : id_(std::move(id)), shape_(shape) {
    count_ = static_cast<std::size_t>(shape_.m) * static_cast<std::size_t>(shape_.batch);
    array_bytes_ = count_ * sizeof(T);
  }

  void setup(Environment& env) override {
    env_ = &env;
    if (env.sparse == nullptr) throw BenchError("no cuSPARSE handle");
    for (int array = 0; array < kArrays; ++array) pristine_[array] = DeviceBuffer(array_bytes_);
    BENCH_CUDA(fill_tridiagonal(pristine<kLower>(), pristine<kDiagonal>(), pristine<kUpper>(), pristine<kRhs>(), count_,
                                shape_.m, shape_.batch, shape_.kind == Kind::kInterleaved,
                                derive_seed(env.options->seed, id_, 0), env.stream, shape_.dominant));
    BENCH_CUDA(cudaStreamSynchronize(env.stream));

    // One work buffer, large enough for either side (the calls never overlap).
    std::size_t work = 0;
    for (const Side side : kSides) work = std::max(work, buffer_size(side));
    work_ = DeviceBuffer(std::max<std::size_t>(work, 256));

    sets_ = env.rotation_sets(kArrays * array_bytes_);
    for (int array = 0; array < kArrays; ++array) {
      sets_data_[array] = RotatingBuffer(array_bytes_, sets_);
      for (int set = 0; set < sets_; ++set) {
        BENCH_CUDA(cudaMemcpyAsync(sets_data_[array].slice(set), pristine_[array].get(), array_bytes_,
                                   cudaMemcpyDeviceToDevice, env.stream));
      }
    }
    BENCH_CUDA(cudaStreamSynchronize(env.stream));
  }

  int sets() const override { return sets_; }

  void run(Side side, int set) override {
    const GtsvApi& api = env_->gtsv(side);
    cusparseHandle_t handle = env_->sparse;
    T* dl = sets_data_[kLower].as<T>(set);
    T* d = sets_data_[kDiagonal].as<T>(set);
    T* du = sets_data_[kUpper].as<T>(set);
    T* x = sets_data_[kRhs].as<T>(set);
    const int m = static_cast<int>(shape_.m);
    const int batch = static_cast<int>(shape_.batch);
    void* work = work_.get();
    switch (shape_.kind) {
      case Kind::kStrided:
        check(Entry<T>::strided(api)(handle, m, dl, d, du, x, batch, m, work), side, "gtsv2StridedBatch");
        break;
      case Kind::kInterleaved:
        check(Entry<T>::interleaved(api)(handle, shape_.algo, m, dl, d, du, x, batch, work), side,
              "gtsvInterleavedBatch");
        break;
      case Kind::kGtsv2:
        check(Entry<T>::gtsv2(api)(handle, m, batch, dl, d, du, x, m, work), side, "gtsv2");
        break;
      case Kind::kGtsv2Nopivot:
        check(Entry<T>::nopivot(api)(handle, m, batch, dl, d, du, x, m, work), side, "gtsv2_nopivot");
        break;
    }
  }

  void after_use(int set) override {
    // Interleaved solves overwrite the matrix too; the others only x.
    const int first = shape_.kind == Kind::kInterleaved ? 0 : static_cast<int>(kRhs);
    for (int array = first; array < kArrays; ++array) {
      BENCH_CUDA(cudaMemcpyAsync(sets_data_[array].slice(set), pristine_[array].get(), array_bytes_,
                                 cudaMemcpyDeviceToDevice, env_->stream));
    }
  }

  OutputView output(int set) const override {
    // Complex x as interleaved real and imaginary parts; the precision is that of one part.
    using Real = typename Entry<T>::Real;
    static_assert(sizeof(T) % sizeof(Real) == 0, "an element is a whole number of parts");
    return OutputView{sets_data_[kRhs].slice(set), count_ * (sizeof(T) / sizeof(Real)),
                      sizeof(Real) == sizeof(double)};
  }

  // Random non-dominant systems are often ill conditioned (condition numbers of 1e4 to 1e8 at
  // these sizes): the sides' solutions then differ far beyond rounding, each as accurate as its
  // backward error allows. tests/gpu judges both against a float64 reference.
  bool comparable() const override { return shape_.dominant; }

  // dl, d, du and x read, x written (sizeof(T) bytes each); gtsv2's and gtsv2_nopivot's batch is their n
  // columns of B against one matrix of m rows.
  double bytes() const override {
    if (shape_.kind == Kind::kGtsv2Nopivot || shape_.kind == Kind::kGtsv2) {
      return (3.0 * static_cast<double>(shape_.m) + 2.0 * static_cast<double>(count_)) * sizeof(T);
    }
    return 5.0 * static_cast<double>(array_bytes_);
  }

 private:
  template <int array>
  T* pristine() const {
    return static_cast<T*>(pristine_[array].get());
  }

  void check(cusparseStatus_t status, Side side, const char* what) const {
    check_cusparse(status, side, what, &env_->libraries->vendor_sparse);
  }

  std::size_t buffer_size(Side side) const {
    const GtsvApi& api = env_->gtsv(side);
    cusparseHandle_t handle = env_->sparse;
    const T* dl = pristine<kLower>();
    const T* d = pristine<kDiagonal>();
    const T* du = pristine<kUpper>();
    const T* x = pristine<kRhs>();
    const int m = static_cast<int>(shape_.m);
    const int batch = static_cast<int>(shape_.batch);
    std::size_t size = 0;
    switch (shape_.kind) {
      case Kind::kStrided:
        check(Entry<T>::strided_size(api)(handle, m, dl, d, du, x, batch, m, &size), side,
              "gtsv2StridedBatch_bufferSizeExt");
        break;
      case Kind::kInterleaved:
        check(Entry<T>::interleaved_size(api)(handle, shape_.algo, m, dl, d, du, x, batch, &size), side,
              "gtsvInterleavedBatch_bufferSizeExt");
        break;
      case Kind::kGtsv2:
        check(Entry<T>::gtsv2_size(api)(handle, m, batch, dl, d, du, x, m, &size), side, "gtsv2_bufferSizeExt");
        break;
      case Kind::kGtsv2Nopivot:
        check(Entry<T>::nopivot_size(api)(handle, m, batch, dl, d, du, x, m, &size), side,
              "gtsv2_nopivot_bufferSizeExt");
        break;
    }
    return size;
  }

  std::string id_;
  GtsvShape shape_;
  const Environment* env_ = nullptr;
  std::size_t count_ = 0;
  std::size_t array_bytes_ = 0;
  DeviceBuffer pristine_[kArrays];
  RotatingBuffer sets_data_[kArrays];
  DeviceBuffer work_;
  int sets_ = 0;
};

CaseSpec make_spec(const GtsvShape& shape, bool overhead = false, bool name_batch = false) {
  const std::string precision = precision_name(shape.precision);
  const std::string m = std::to_string(shape.m);
  const std::string batch = std::to_string(shape.batch);
  CaseSpec spec;
  spec.family = "gtsv";
  switch (shape.kind) {
    case Kind::kStrided:
      spec.name = "strided_" + precision + "_m" + m;
      spec.params = "gtsv2StridedBatch m=" + m + " batch=" + batch + " stride=" + m;
      break;
    case Kind::kInterleaved:
      spec.name = "interleaved_a" + std::to_string(shape.algo) + "_" + precision + "_m" + m;
      spec.params = "gtsvInterleavedBatch algo=" + std::to_string(shape.algo) + " m=" + m + " batch=" + batch;
      break;
    case Kind::kGtsv2:
      spec.name = std::string(shape.dominant ? "gtsv2_" : "gtsv2_nd_") + precision + "_m" + m +
                  (shape.batch > 1 ? "_n" + batch : "");
      spec.params = "gtsv2 m=" + m + " n=" + batch + (shape.dominant ? "" : " non-dominant");
      break;
    case Kind::kGtsv2Nopivot:
      spec.name = "gtsv2_nopivot_" + precision + "_m" + m + (shape.batch > 1 ? "_n" + batch : "");
      spec.params = "gtsv2_nopivot m=" + m + " n=" + batch;
      break;
  }
  if (overhead || name_batch) spec.name += "_b" + batch;
  spec.overhead = overhead;
  const std::string id = spec.id();
  spec.make = [id, shape](const Environment&) -> std::unique_ptr<Case> {
    switch (shape.precision) {
      case Precision::kF32: return std::unique_ptr<Case>(new GtsvCase<float>(id, shape));
      case Precision::kF64: return std::unique_ptr<Case>(new GtsvCase<double>(id, shape));
      case Precision::kC32: return std::unique_ptr<Case>(new GtsvCase<cuComplex>(id, shape));
      case Precision::kC64: return std::unique_ptr<Case>(new GtsvCase<cuDoubleComplex>(id, shape));
    }
    throw BenchError("unknown precision");
  };
  return spec;
}

GtsvShape batched(Kind kind, Precision precision, long long m, long long batch, int algo = 0) {
  GtsvShape shape;
  shape.kind = kind;
  shape.precision = precision;
  shape.m = m;
  shape.batch = batch;
  shape.algo = algo;
  return shape;
}

GtsvShape single(Kind kind, Precision precision, long long m) { return batched(kind, precision, m, 1); }

bool interleaved_allowed(const Options& options, int algo, long long m) {
  if (std::find(options.interleaved_algos.begin(), options.interleaved_algos.end(), algo) ==
      options.interleaved_algos.end()) {
    return false;
  }
  if (m > options.interleaved_max_m) return false;
  return algo == 0 || m <= options.interleaved_pivot_max_m;
}

// The forwarding-overhead cases: 1000 small systems, where a call's own cost dominates.
std::vector<CaseSpec> overhead_cases(const Options& options) {
  std::vector<CaseSpec> cases;
  cases.push_back(make_spec(batched(Kind::kStrided, Precision::kF32, 32, 1000), /*overhead=*/true));
  const int algo = options.interleaved_algos.empty() ? 0 : options.interleaved_algos.front();
  cases.push_back(make_spec(batched(Kind::kInterleaved, Precision::kF32, 32, 1000, algo), /*overhead=*/true));
  return cases;
}

}  // namespace

std::vector<CaseSpec> gtsv_quick_cases(const Options& options) {
  std::vector<CaseSpec> cases = overhead_cases(options);
  cases.push_back(make_spec(batched(Kind::kStrided, Precision::kF32, 256, kUnknowns / 256)));
  cases.push_back(make_spec(batched(Kind::kStrided, Precision::kF64, 1024, kUnknowns / 1024)));
  cases.push_back(make_spec(batched(Kind::kStrided, Precision::kC32, 256, kUnknowns / 256)));
  for (int algo : {0, 2}) {
    const long long m = algo == 0 ? 256 : 128;
    if (interleaved_allowed(options, algo, m)) {
      cases.push_back(make_spec(batched(Kind::kInterleaved, Precision::kF32, m, kUnknowns / m, algo)));
    }
  }
  if (interleaved_allowed(options, 0, 256)) {
    cases.push_back(make_spec(batched(Kind::kInterleaved, Precision::kC64, 256, kUnknowns / 256, 0)));
  }
  cases.push_back(make_spec(single(Kind::kGtsv2Nopivot, Precision::kF32, 1ll << 20)));
  cases.push_back(make_spec(single(Kind::kGtsv2, Precision::kF32, 1ll << 16)));
  return cases;
}

std::vector<CaseSpec> gtsv_full_cases(const Options& options) {
  std::vector<CaseSpec> cases = overhead_cases(options);
  const long long sizes[] = {32, 64, 128, 256, 512, 1000, 1024, 4096, 65536};
  // A grid other than the default names its batches, so that both can sit in one table.
  const long long unknowns = options.gtsv_unknowns;
  const bool named_batch = unknowns != kUnknowns;
  auto batch_of = [unknowns](long long m) { return std::max(1ll, unknowns / m); };
  for (const Precision precision : kPrecisions) {
    for (const long long m : sizes) {
      cases.push_back(make_spec(batched(Kind::kStrided, precision, m, batch_of(m)), false, named_batch));
    }
  }
  for (const int algo : {0, 1, 2}) {
    for (const Precision precision : kPrecisions) {
      for (const long long m : sizes) {
        if (interleaved_allowed(options, algo, m)) {
          cases.push_back(make_spec(batched(Kind::kInterleaved, precision, m, batch_of(m), algo), false, named_batch));
        }
      }
    }
  }
  for (const Precision precision : kPrecisions) {
    // One system from a thousand rows (one block) to 2^26 (three reduced levels).
    for (const long long m : {1000ll, 1ll << 16, 1ll << 20, 1ll << 24, 1ll << 26}) {
      cases.push_back(make_spec(single(Kind::kGtsv2Nopivot, precision, m)));
    }
    // 16 right-hand sides against one matrix (the batch is n).
    for (const long long m : {1000ll, 1ll << 20}) {
      cases.push_back(make_spec(batched(Kind::kGtsv2Nopivot, precision, m, 16)));
    }
  }
  for (const Precision precision : kPrecisions) {
    for (const long long m : {1000ll, 1ll << 16, 1ll << 20, 1ll << 24, 1ll << 26}) {
      // cuSPARSE 12.6's Zgtsv2_bufferSizeExt overflows at m = 2^26 (it returns 2^64 - 1.0e9).
      if (precision == Precision::kC64 && m > (1ll << 24)) continue;
      cases.push_back(make_spec(single(Kind::kGtsv2, precision, m)));
    }
    for (const long long m : {1000ll, 1ll << 20}) cases.push_back(make_spec(batched(Kind::kGtsv2, precision, m, 16)));
  }
  // The same one-system rows on random non-dominant matrices, which make the native gtsv2 refine.
  for (const Precision precision : kPrecisions) {
    for (const long long m : {1000ll, 1ll << 16, 1ll << 20, 1ll << 24, 1ll << 26}) {
      if (precision == Precision::kC64 && m > (1ll << 24)) continue;
      GtsvShape shape = single(Kind::kGtsv2, precision, m);
      shape.dominant = false;
      cases.push_back(make_spec(shape));
    }
  }
  return cases;
}

// API,m=M[,n=N][,batch=B][,precision=s|d|c|z][,algo=A][,nondominant]: API one of gtsv2,
// gtsv2_nopivot (n: right-hand sides, default 1), gtsv2StridedBatch, gtsvInterleavedBatch (batch:
// systems, default --gtsv-unknowns / m as in the grids; algo 0-2 of the interleaved API, default
// 0); precision as in the API's S/D/C/Z (also f32, f64, c32, c64; default s); nondominant: gtsv2
// on random systems that need pivoting (timed, not compared).
CaseSpec gtsv_user_case(const std::string& text, const Options& options) {
  struct Api {
    const char* name;   // as cuSPARSE spells it
    const char* lower;  // as the case text's head is compared (lower case)
    const char* alias;  // the grid's case-name prefix
    Kind kind;
  };
  constexpr Api kApis[] = {
      {"gtsv2", "gtsv2", "gtsv2", Kind::kGtsv2},
      {"gtsv2_nopivot", "gtsv2_nopivot", "nopivot", Kind::kGtsv2Nopivot},
      {"gtsv2StridedBatch", "gtsv2stridedbatch", "strided", Kind::kStrided},
      {"gtsvInterleavedBatch", "gtsvinterleavedbatch", "interleaved", Kind::kInterleaved},
  };
  CaseText items(text);
  const Api* api = nullptr;
  for (const Api& candidate : kApis) {
    if (items.head() == candidate.lower || items.head() == candidate.alias) api = &candidate;
  }
  if (api == nullptr) {
    throw CaseTextError("unknown tridiagonal API '" + items.head() +
                        "' (expected gtsv2, gtsv2_nopivot, gtsv2StridedBatch or gtsvInterleavedBatch)");
  }
  const bool batched_api = api->kind == Kind::kStrided || api->kind == Kind::kInterleaved;
  GtsvShape shape;
  shape.kind = api->kind;

  std::string precision;
  if (items.take("precision", &precision)) {
    const struct {
      const char* letter;
      const char* name;
      Precision precision;
    } kNames[] = {{"s", "f32", Precision::kF32},
                  {"d", "f64", Precision::kF64},
                  {"c", "c32", Precision::kC32},
                  {"z", "c64", Precision::kC64}};
    bool known = false;
    for (const auto& entry : kNames) {
      if (precision == entry.letter || precision == entry.name) {
        shape.precision = entry.precision;
        known = true;
      }
    }
    if (!known) throw CaseTextError("precision=" + precision + ": expected s, d, c or z (or f32, f64, c32, c64)");
  }

  // cuSPARSE's tridiagonal solvers take m >= 3 and int sizes.
  shape.m = items.take_integer("m", 3, INT_MAX, 0);
  if (shape.m == 0) throw CaseTextError("the size is missing (m=M, the rows of each system)");
  std::string ignored;
  if (batched_api) {
    if (items.take("n", &ignored)) {
      throw CaseTextError(std::string(api->name) + " solves a batch of systems: give batch=B, not n= (gtsv2's " +
                          "right-hand sides)");
    }
    shape.batch = items.take_integer("batch", 1, INT_MAX, std::max(1ll, options.gtsv_unknowns / shape.m));
  } else {
    if (items.take("batch", &ignored)) {
      throw CaseTextError(std::string(api->name) + " solves one matrix: give its right-hand sides as n=N, not batch=");
    }
    shape.batch = items.take_integer("n", 1, INT_MAX, 1);
  }
  if (api->kind == Kind::kInterleaved) {
    shape.algo = static_cast<int>(items.take_integer("algo", 0, 2, 0));
  } else if (items.take("algo", &ignored)) {
    throw CaseTextError("algo= applies to gtsvInterleavedBatch only");
  }
  if (api->kind == Kind::kGtsv2) {
    shape.dominant = !items.take_flag("nondominant");
  } else if (items.take_flag("nondominant")) {
    throw CaseTextError("nondominant applies to gtsv2 only");
  }
  items.finish(batched_api ? (api->kind == Kind::kInterleaved ? "m=M, batch=B, precision=s|d|c|z, algo=0|1|2"
                                                              : "m=M, batch=B, precision=s|d|c|z")
                           : (api->kind == Kind::kGtsv2 ? "m=M, n=N, precision=s|d|c|z, nondominant"
                                                        : "m=M, n=N, precision=s|d|c|z"));
  return make_spec(shape, /*overhead=*/false, /*name_batch=*/batched_api);
}

}  // namespace idgpu_bench
