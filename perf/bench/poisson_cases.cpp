// The Poisson cases: idgpu's FFT Poisson solver (idgpuPoisson*, include/idgpu/idgpu.h) against the
// same solve written with the vendor libraries, the way a cuFFT and cuSPARSE user writes it. Both
// sides solve Lap_h u = f on an nx x ny x nz grid (element (x, y, z) at (z ny + y) nx + x),
// periodic in x and y, with spacings hx = 1/nx, hy = 1/ny, hz = 1/nz (the unit cube's, for every
// boundary). The vendor side, on the benchmark's stream:
//
//  - periodic z: one cufftPlanMany R2C (D2Z) plan of the whole grid, n = {nz, ny, nx} (axes of
//    size 1 dropped: 2D when nz = 1, 1D when ny = nz = 1), into a half spectrum [nz][ny][nx/2+1];
//    scale_poisson_spectrum (device_kernels.h), which multiplies each mode by
//    1 / (lambda_x + lambda_y + lambda_z) / (nx ny nz) and zeroes the zero mode; the C2R (Z2D)
//    plan back into u. The solution with mean zero, as idgpu's (whose mean value stays 0).
//  - Neumann or Dirichlet z: a cufftPlanMany R2C of the z planes, n = {ny, nx} (1D when ny = 1),
//    batch nz, whose advanced output layout (onembed {ny, nx/2+1}, ostride nz, odist 1) leaves the
//    nz values of every (ky, kx) contiguous, as gtsv2StridedBatch wants them;
//    cusparseCgtsv2StridedBatch (Z) over the ny (nx/2+1) systems of m = nz rows (batchStride nz),
//    with dl, d and du made once in setup (fill_poisson_z_systems) and its buffer sized by
//    bufferSizeExt in setup; the C2R plan reading that layout (inembed {ny, nx/2+1}, istride nz,
//    idist 1) into u. The inverse FFT's normalisation 1/(nx ny) is folded into the coefficients
//    (A / s u = F solves A u = s F), the cheapest correct form: no pass of its own. cuSPARSE has
//    no real-matrix solve of complex right-hand sides, so the vendor reads three complex
//    coefficient arrays of the spectrum's size per call, as any user of its API must.
//
// Compared (the harness's elementwise check): periodic and Dirichlet z, where both sides compute
// the same u within rounding; Dirichlet in fp32 only up to nz = 128 (kMaxComparedNzF32). Not Neumann:
// its operator is singular, and the vendor side pins u_0 of the (0, 0) system (row 0 replaced by
// the identity, the usual way to hand a singular system to a solver without pivoting on the
// null space), whereas idgpu removes f's weighted mean and returns the u of weighted mean 0; the
// answers differ by the response to f's mean and a constant (idgpu's is judged against the float64
// reference in tests/gpu/poisson_test.cpp).
#include <cuComplex.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bench.h"
#include "case_text.h"
#include "device_kernels.h"

namespace idgpu_bench {
namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

// The largest nz whose Dirichlet solutions the check compares. The z systems have condition
// numbers kappa of about (2 nz / pi)^2, and a solve puts a relative error of up to eps kappa on
// the lowest modes, where u's energy sits (the bound tests/gpu/poisson_test.cpp derives). Two
// stable solvers' answers differ by about 0.02 eps nz^2 max|u|: a host simulation in fp32 of
// Thomas's algorithm against cyclic reduction on these systems (the matrix rounded alike, the FFTs
// in double) gave 3e-6 at 128^3, 2.5e-5 at 256^3, 6e-5 at 256 x 1 x 256, 8e-5 at 512 x 1 x 512 and
// 4e-4 at 1024 x 1 x 1024. Compared where that stays within a quarter of the default tolerance
// (1e-4 in fp32, 1e-10 in fp64); larger nz are timed only, the tolerance is not widened.
constexpr long long kMaxComparedNzF32 = 128;
constexpr long long kMaxComparedNzF64 = 2048;

struct PoissonShape {
  idgpuPoissonBoundary_t boundary = IDGPU_POISSON_PERIODIC;
  bool fp64 = false;
  long long nx = 2;
  long long ny = 1;
  long long nz = 1;

  long long points() const { return nx * ny * nz; }
  long long half() const { return nx / 2 + 1; }
  bool periodic() const { return boundary == IDGPU_POISSON_PERIODIC; }
};

const char* boundary_name(idgpuPoissonBoundary_t boundary) {
  switch (boundary) {
    case IDGPU_POISSON_PERIODIC: return "periodic";
    case IDGPU_POISSON_NEUMANN: return "neumann";
    case IDGPU_POISSON_DIRICHLET: return "dirichlet";
  }
  return "?";
}

// The eigenvalues of the periodic second difference with spacing h = 1/n, (2 cos(2 pi k / n) - 2)
// / h^2 for k < count, as -4 sin^2(pi k / n) n^2 (no cancellation at small k).
std::vector<double> eigenvalues(long long n, long long count) {
  const double size = static_cast<double>(n);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (long long k = 0; k < count; ++k) {
    const double s = std::sin(kPi * static_cast<double>(k) / size);
    values[static_cast<std::size_t>(k)] = -4.0 * s * s * size * size;
  }
  return values;
}

// A device copy of `values` in type T.
template <class T>
DeviceBuffer upload(const std::vector<double>& values) {
  std::vector<T> converted(values.begin(), values.end());
  DeviceBuffer buffer(converted.size() * sizeof(T));
  BENCH_CUDA(cudaMemcpy(buffer.get(), converted.data(), buffer.bytes(), cudaMemcpyHostToDevice));
  return buffer;
}

// The calls of one precision on either side.
template <class Real>
struct Calls;

template <>
struct Calls<float> {
  using Complex = cuComplex;
  static constexpr cufftType kForward = CUFFT_R2C;
  static constexpr cufftType kInverse = CUFFT_C2R;
  static constexpr idgpuPrecision_t kPrecision = IDGPU_PRECISION_SINGLE;
  static cufftResult forward(const CufftApi& api, cufftHandle plan, float* f, Complex* spectrum) {
    return api.cufftExecR2C(plan, f, spectrum);
  }
  static cufftResult inverse(const CufftApi& api, cufftHandle plan, Complex* spectrum, float* u) {
    return api.cufftExecC2R(plan, spectrum, u);
  }
  static auto gtsv_size(const GtsvApi& api) { return api.cusparseCgtsv2StridedBatch_bufferSizeExt; }
  static auto gtsv(const GtsvApi& api) { return api.cusparseCgtsv2StridedBatch; }
  static auto exec(const IdgpuApi& api) { return api.idgpuPoissonExecS; }
};

template <>
struct Calls<double> {
  using Complex = cuDoubleComplex;
  static constexpr cufftType kForward = CUFFT_D2Z;
  static constexpr cufftType kInverse = CUFFT_Z2D;
  static constexpr idgpuPrecision_t kPrecision = IDGPU_PRECISION_DOUBLE;
  static cufftResult forward(const CufftApi& api, cufftHandle plan, double* f, Complex* spectrum) {
    return api.cufftExecD2Z(plan, f, spectrum);
  }
  static cufftResult inverse(const CufftApi& api, cufftHandle plan, Complex* spectrum, double* u) {
    return api.cufftExecZ2D(plan, spectrum, u);
  }
  static auto gtsv_size(const GtsvApi& api) { return api.cusparseZgtsv2StridedBatch_bufferSizeExt; }
  static auto gtsv(const GtsvApi& api) { return api.cusparseZgtsv2StridedBatch; }
  static auto exec(const IdgpuApi& api) { return api.idgpuPoissonExecD; }
};

// One vendor cuFFT plan, destroyed with the case. `dims` outermost first; the embeddings null
// for the basic layout.
class VendorPlan {
 public:
  VendorPlan() = default;
  VendorPlan(const VendorPlan&) = delete;
  VendorPlan& operator=(const VendorPlan&) = delete;
  ~VendorPlan() {
    if (api_ != nullptr) api_->cufftDestroy(handle_);
  }

  void make(const CufftApi& api, std::vector<int> dims, std::vector<int>* in_embed, int in_stride, int in_distance,
            std::vector<int>* out_embed, int out_stride, int out_distance, cufftType type, int batch,
            cudaStream_t stream) {
    cufftHandle handle = 0;
    check_cufft(
        api.cufftPlanMany(&handle, static_cast<int>(dims.size()), dims.data(),
                          in_embed != nullptr ? in_embed->data() : nullptr, in_stride, in_distance,
                          out_embed != nullptr ? out_embed->data() : nullptr, out_stride, out_distance, type, batch),
        Side::kVendor, "cufftPlanMany");
    api_ = &api;
    handle_ = handle;
    check_cufft(api.cufftSetStream(handle_, stream), Side::kVendor, "cufftSetStream");
  }

  cufftHandle get() const { return handle_; }

 private:
  const CufftApi* api_ = nullptr;
  cufftHandle handle_ = 0;
};

// The idgpu side's plan, destroyed with the case.
class IdgpuPlan {
 public:
  IdgpuPlan() = default;
  IdgpuPlan(const IdgpuPlan&) = delete;
  IdgpuPlan& operator=(const IdgpuPlan&) = delete;
  ~IdgpuPlan() {
    if (plan_ != nullptr) api_->idgpuPoissonDestroy(plan_);
  }

  void make(const IdgpuApi& api, const PoissonShape& shape, idgpuPrecision_t precision, cudaStream_t stream) {
    api_ = &api;
    check_idgpu(api.idgpuPoissonCreate(&plan_, static_cast<int>(shape.nx), static_cast<int>(shape.ny),
                                       static_cast<int>(shape.nz), 1.0 / static_cast<double>(shape.nx),
                                       1.0 / static_cast<double>(shape.ny), 1.0 / static_cast<double>(shape.nz),
                                       shape.boundary, precision),
                "idgpuPoissonCreate");
    check_idgpu(api.idgpuPoissonSetStream(plan_, stream), "idgpuPoissonSetStream");
  }

  idgpuPoissonPlan_t get() const { return plan_; }

 private:
  const IdgpuApi* api_ = nullptr;
  idgpuPoissonPlan_t plan_ = nullptr;
};

enum Coefficient { kLower = 0, kDiagonal = 1, kUpper = 2, kCoefficients = 3 };

template <class Real>
class PoissonCase : public Case {
  using Complex = typename Calls<Real>::Complex;

 public:
  PoissonCase(std::string id, PoissonShape shape) : id_(std::move(id)), shape_(shape) {
    points_ = static_cast<std::size_t>(shape_.points());
    spectrum_count_ = static_cast<std::size_t>(shape_.half() * shape_.ny * shape_.nz);
  }

  void setup(Environment& env) override {
    env_ = &env;
    const PoissonShape& s = shape_;
    if (!s.periodic() && env.sparse == nullptr) {
      throw BenchError("no vendor cuSPARSE handle (the vendor side solves the z systems with gtsv2StridedBatch)");
    }
    // Plans and fixed buffers first: the rotation is then sized against the memory they leave.
    idgpu_.make(env.libraries->idgpu_api, s, Calls<Real>::kPrecision, env.stream);
    spectrum_ = DeviceBuffer(spectrum_count_ * sizeof(Complex));
    const CufftApi& cufft = env.cufft(Side::kVendor);
    const int nx = static_cast<int>(s.nx);
    const int ny = static_cast<int>(s.ny);
    const int nz = static_cast<int>(s.nz);
    const int half = static_cast<int>(s.half());
    const std::vector<double> ex = eigenvalues(s.nx, s.half());
    const std::vector<double> ey = eigenvalues(s.ny, s.ny);
    if (s.periodic()) {
      std::vector<int> dims;
      if (nz > 1) dims.push_back(nz);
      if (ny > 1) dims.push_back(ny);
      dims.push_back(nx);
      forward_.make(cufft, dims, nullptr, 1, 0, nullptr, 1, 0, Calls<Real>::kForward, 1, env.stream);
      inverse_.make(cufft, dims, nullptr, 1, 0, nullptr, 1, 0, Calls<Real>::kInverse, 1, env.stream);
      tables_[0] = upload<Real>(ex);
      tables_[1] = upload<Real>(ey);
      tables_[2] = upload<Real>(eigenvalues(s.nz, s.nz));
    } else {
      // Plane z of f at z nx ny; mode (ky, kx) of plane z at (ky half + kx) nz + z.
      std::vector<int> plane = ny > 1 ? std::vector<int>{ny, nx} : std::vector<int>{nx};
      std::vector<int> real_embed = plane;
      std::vector<int> complex_embed = ny > 1 ? std::vector<int>{ny, half} : std::vector<int>{half};
      forward_.make(cufft, plane, &real_embed, 1, nx * ny, &complex_embed, nz, 1, Calls<Real>::kForward, nz,
                    env.stream);
      inverse_.make(cufft, plane, &complex_embed, nz, 1, &real_embed, 1, nx * ny, Calls<Real>::kInverse, nz,
                    env.stream);
      for (int array = 0; array < kCoefficients; ++array) {
        coefficients_[array] = DeviceBuffer(spectrum_count_ * sizeof(Complex));
      }
      // Made in double and rounded once, as idgpu's plan makes its diagonal.
      const DeviceBuffer ex_table = upload<double>(ex);
      const DeviceBuffer ey_table = upload<double>(ey);
      const double off = static_cast<double>(s.nz) * static_cast<double>(s.nz);   // 1 / hz^2
      const double fold = static_cast<double>(s.nx) * static_cast<double>(s.ny);  // 1 / the C2R's scale
      BENCH_CUDA(fill_poisson_z_systems(coefficient(kLower), coefficient(kDiagonal), coefficient(kUpper), nz, half, ny,
                                        static_cast<const double*>(ex_table.get()),
                                        static_cast<const double*>(ey_table.get()), off, fold,
                                        s.boundary == IDGPU_POISSON_NEUMANN, env.stream));
      BENCH_CUDA(cudaStreamSynchronize(env.stream));
      std::size_t work = 0;
      check_cusparse(Calls<Real>::gtsv_size(env.gtsv(Side::kVendor))(
                         env.sparse, nz, coefficient(kLower), coefficient(kDiagonal), coefficient(kUpper),
                         static_cast<Complex*>(spectrum_.get()), ny * half, nz, &work),
                     Side::kVendor, "gtsv2StridedBatch_bufferSizeExt", &env.libraries->vendor_sparse);
      gtsv_work_ = DeviceBuffer(std::max<std::size_t>(work, 256));
    }

    const std::size_t real_bytes = points_ * sizeof(Real);
    sets_ = env.rotation_sets(2 * real_bytes);
    input_ = RotatingBuffer(real_bytes, sets_);
    output_ = RotatingBuffer(real_bytes, sets_);
    for (int set = 0; set < sets_; ++set) {
      BENCH_CUDA(fill_uniform(input_.as<Real>(set), points_, derive_seed(env.options->seed, id_, set), env.stream));
      // Outputs get values too: no buffer the benchmark hands out is zero.
      BENCH_CUDA(
          fill_uniform(output_.as<Real>(set), points_, derive_seed(env.options->seed, id_, 1000 + set), env.stream));
    }
    BENCH_CUDA(cudaStreamSynchronize(env.stream));
  }

  int sets() const override { return sets_; }

  // Neither side writes f (an out-of-place R2C leaves its input alone; idgpuPoissonExec promises
  // it): nothing to restore after a call.
  void run(Side side, int set) override {
    Real* f = input_.as<Real>(set);
    Real* u = output_.as<Real>(set);
    if (side == Side::kIdgpu) {
      check_idgpu(Calls<Real>::exec(env_->libraries->idgpu_api)(idgpu_.get(), f, u), "idgpuPoissonExec");
      return;
    }
    const CufftApi& cufft = env_->cufft(Side::kVendor);
    Complex* spectrum = static_cast<Complex*>(spectrum_.get());
    check_cufft(Calls<Real>::forward(cufft, forward_.get(), f, spectrum), Side::kVendor, "cufftExec (forward)");
    const int ny = static_cast<int>(shape_.ny);
    const int nz = static_cast<int>(shape_.nz);
    const int half = static_cast<int>(shape_.half());
    if (shape_.periodic()) {
      BENCH_CUDA(scale_poisson_spectrum(spectrum, half, ny, nz, static_cast<const Real*>(tables_[0].get()),
                                        static_cast<const Real*>(tables_[1].get()),
                                        static_cast<const Real*>(tables_[2].get()),
                                        static_cast<Real>(1.0 / static_cast<double>(shape_.points())), env_->stream));
    } else {
      check_cusparse(
          Calls<Real>::gtsv(env_->gtsv(Side::kVendor))(env_->sparse, nz, coefficient(kLower), coefficient(kDiagonal),
                                                       coefficient(kUpper), spectrum, ny * half, nz, gtsv_work_.get()),
          Side::kVendor, "gtsv2StridedBatch", &env_->libraries->vendor_sparse);
    }
    check_cufft(Calls<Real>::inverse(cufft, inverse_.get(), spectrum, u), Side::kVendor, "cufftExec (inverse)");
  }

  OutputView output(int set) const override { return OutputView{output_.slice(set), points_, sizeof(Real) == 8}; }

  bool comparable() const override {
    switch (shape_.boundary) {
      case IDGPU_POISSON_PERIODIC: return true;
      case IDGPU_POISSON_NEUMANN: return false;
      case IDGPU_POISSON_DIRICHLET: return shape_.nz <= (shape_.fp64 ? kMaxComparedNzF64 : kMaxComparedNzF32);
    }
    return false;
  }

  // What any solve must move: f read and u written, once each.
  double bytes() const override { return 2.0 * static_cast<double>(points_) * sizeof(Real); }

 private:
  Complex* coefficient(Coefficient array) const { return static_cast<Complex*>(coefficients_[array].get()); }

  std::string id_;
  PoissonShape shape_;
  const Environment* env_ = nullptr;
  std::size_t points_ = 0;
  std::size_t spectrum_count_ = 0;
  IdgpuPlan idgpu_;
  VendorPlan forward_;
  VendorPlan inverse_;
  DeviceBuffer spectrum_;                     // the vendor side's half spectrum
  DeviceBuffer tables_[3];                    // periodic: the eigenvalues along x, y, z
  DeviceBuffer coefficients_[kCoefficients];  // Neumann, Dirichlet: dl, d, du of the z systems
  DeviceBuffer gtsv_work_;
  RotatingBuffer input_;
  RotatingBuffer output_;
  int sets_ = 0;
};

// Case names "<boundary>_<f32|f64>_<nx>x<ny>x<nz>", a cube as "<n>^3": periodic_f32_256^3.
CaseSpec make_spec(const PoissonShape& shape) {
  const std::string dims = std::to_string(shape.nx) + "x" + std::to_string(shape.ny) + "x" + std::to_string(shape.nz);
  const bool cube = shape.nx == shape.ny && shape.ny == shape.nz;
  CaseSpec spec;
  spec.family = "poisson";
  spec.name = std::string(boundary_name(shape.boundary)) + (shape.fp64 ? "_f64_" : "_f32_") +
              (cube ? std::to_string(shape.nx) + "^3" : dims);
  const char* vendor = shape.periodic() ? (shape.fp64 ? "D2Z, scale, Z2D" : "R2C, scale, C2R")
                                        : (shape.fp64 ? "D2Z planes, Zgtsv2StridedBatch, Z2D planes"
                                                      : "R2C planes, Cgtsv2StridedBatch, C2R planes");
  spec.params = "n=" + dims + " z=" + boundary_name(shape.boundary) + " h=1/n vendor: " + vendor;
  const std::string id = spec.id();
  spec.make = [id, shape](const Environment&) -> std::unique_ptr<Case> {
    if (shape.fp64) return std::unique_ptr<Case>(new PoissonCase<double>(id, shape));
    return std::unique_ptr<Case>(new PoissonCase<float>(id, shape));
  };
  return spec;
}

PoissonShape grid(idgpuPoissonBoundary_t boundary, bool fp64, long long nx, long long ny, long long nz) {
  PoissonShape shape;
  shape.boundary = boundary;
  shape.fp64 = fp64;
  shape.nx = nx;
  shape.ny = ny;
  shape.nz = nz;
  return shape;
}

PoissonShape cube(idgpuPoissonBoundary_t boundary, bool fp64, long long n) { return grid(boundary, fp64, n, n, n); }

// n=... of a case text: "NXxNYxNZ" (x first, as the solver's nx, ny, nz; missing axes 1), each a
// number or 2^K, or "N^3" / "N^2" for a cube / a square (N not the literal 2, which makes 2^K).
void parse_dims(const std::string& text, PoissonShape* shape) {
  long long dims[3] = {1, 1, 1};
  const std::string::size_type caret = text.rfind('^');
  const std::string base = caret == std::string::npos ? std::string() : text.substr(0, caret);
  const std::string power = caret == std::string::npos ? std::string() : text.substr(caret + 1);
  if (text.find('x') == std::string::npos && (power == "2" || power == "3") && base != "2") {
    const long long n = parse_case_integer(base, "n");
    dims[0] = dims[1] = n;
    if (power == "3") dims[2] = n;
  } else {
    const std::vector<std::string> axes = split(text, 'x');
    if (axes.size() > 3) throw CaseTextError("n=" + text + ": at most three dimensions (NXxNYxNZ)");
    for (std::size_t axis = 0; axis < axes.size(); ++axis) dims[axis] = parse_case_integer(axes[axis], "n");
  }
  for (const long long n : dims) {
    if (n < 1 || n > INT_MAX) throw CaseTextError("n=" + text + ": each dimension must lie in [1, 2^31 - 1]");
  }
  if (dims[0] < 2) throw CaseTextError("n=" + text + ": nx must be at least 2");
  if (dims[0] * dims[1] > INT_MAX / dims[2]) throw CaseTextError("n=" + text + ": nx * ny * nz must be below 2^31");
  shape->nx = dims[0];
  shape->ny = dims[1];
  shape->nz = dims[2];
}

}  // namespace

std::vector<CaseSpec> poisson_quick_cases() {
  return {
      make_spec(cube(IDGPU_POISSON_PERIODIC, false, 128)),
      make_spec(cube(IDGPU_POISSON_DIRICHLET, false, 128)),
  };
}

std::vector<CaseSpec> poisson_full_cases() {
  std::vector<CaseSpec> cases;
  // Periodic: powers of two (idgpu's fused z kernel), a z of 3 x 2^7 (its full-rank FFT path), a
  // 2D grid.
  for (const long long n : {128, 256, 512}) cases.push_back(make_spec(cube(IDGPU_POISSON_PERIODIC, false, n)));
  cases.push_back(make_spec(cube(IDGPU_POISSON_PERIODIC, false, 384)));
  cases.push_back(make_spec(grid(IDGPU_POISSON_PERIODIC, false, 4096, 4096, 1)));
  cases.push_back(make_spec(cube(IDGPU_POISSON_PERIODIC, true, 256)));
  // Neumann (timed only) and Dirichlet (compared up to nz = 128 in fp32) z.
  for (const idgpuPoissonBoundary_t boundary : {IDGPU_POISSON_NEUMANN, IDGPU_POISSON_DIRICHLET}) {
    for (const long long n : {128, 256, 512}) cases.push_back(make_spec(cube(boundary, false, n)));
    cases.push_back(make_spec(cube(boundary, true, 256)));
  }
  return cases;
}

// BOUNDARY,n=NXxNYxNZ[,precision=s|d]: BOUNDARY the z boundary, periodic, neumann or dirichlet;
// n as the solver's nx, ny, nz (x first; missing axes 1; each a number or 2^K), or N^3 for a cube
// (N^2 a square, nz = 1); precision s (f32, the default) or d (f64). Spacings 1/nx, 1/ny, 1/nz.
// nx >= 2, nx ny nz < 2^31; Neumann and Dirichlet nz >= 3 (cuSPARSE's gtsv2StridedBatch takes
// m >= 3).
CaseSpec poisson_user_case(const std::string& text) {
  constexpr const char* kExpected = "n=NXxNYxNZ or n=N^3, precision=s|d";
  CaseText items(text);
  PoissonShape shape;
  bool known = false;
  for (const idgpuPoissonBoundary_t boundary :
       {IDGPU_POISSON_PERIODIC, IDGPU_POISSON_NEUMANN, IDGPU_POISSON_DIRICHLET}) {
    if (items.head() == boundary_name(boundary)) {
      shape.boundary = boundary;
      known = true;
    }
  }
  if (!known) {
    throw CaseTextError("unknown Poisson boundary '" + items.head() + "' (expected periodic, neumann or dirichlet)");
  }
  std::string precision;
  if (items.take("precision", &precision)) {
    if (precision == "s" || precision == "f32") {
      shape.fp64 = false;
    } else if (precision == "d" || precision == "f64") {
      shape.fp64 = true;
    } else {
      throw CaseTextError("precision=" + precision + ": expected s or d (or f32, f64)");
    }
  }
  std::string dims;
  if (!items.take("n", &dims)) throw CaseTextError("the size is missing (n=NXxNYxNZ, x first, or n=N^3)");
  parse_dims(dims, &shape);
  if (!shape.periodic() && shape.nz < 3) {
    throw CaseTextError(std::string(boundary_name(shape.boundary)) + " needs nz >= 3 (n=" + dims +
                        "; the vendor side's gtsv2StridedBatch solves systems of m >= 3 rows)");
  }
  items.finish(kExpected);
  return make_spec(shape);
}

}  // namespace idgpu_bench
