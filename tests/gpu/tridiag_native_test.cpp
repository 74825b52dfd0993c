// Native batched tridiagonal solvers against the vendor and a float64 reference, on the GPU.
//
// For each precision, algorithm and (m, batch) of the grid, the same random systems are solved by
// the vendor (IDGPU_POLICY vendor) and by our kernels (IDGPU_POLICY native, checked through the
// dispatch statistics to have really run natively), and both results are compared with a
// float64 (complex<double>) solve of the same systems on the host (see worst_error for the
// measure). Our error must be no worse than twice the vendor's, with a floor of a few units of
// rounding for cases where the vendor's error happens to be tiny. algo 0 gets diagonally dominant systems; algos 1 and 2 also get
// systems that are not, where pivoting matters, as does gtsv2 (one matrix, n right-hand sides),
// which is judged against a long-double reference (see check_columns_case).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <iterator>
#include <vector>

#include "idgpu/idgpu.h"
#include "tridiag/reference.h"

namespace {

constexpr int kSkip = 77;

template <class T>
struct Host;
template <>
struct Host<float> {
  using Wide = double;
  static constexpr double kEps = 5.96e-8;
  static const char* name() { return "S"; }
};
template <>
struct Host<double> {
  using Wide = double;
  static constexpr double kEps = 1.11e-16;
  static const char* name() { return "D"; }
};
template <>
struct Host<cuComplex> {
  using Wide = std::complex<double>;
  static constexpr double kEps = 5.96e-8;
  static const char* name() { return "C"; }
};
template <>
struct Host<cuDoubleComplex> {
  using Wide = std::complex<double>;
  static constexpr double kEps = 1.11e-16;
  static const char* name() { return "Z"; }
};

template <class T>
T narrow(const typename Host<T>::Wide& value) {
  if constexpr (std::is_same<T, cuComplex>::value) {
    return make_cuComplex(static_cast<float>(value.real()), static_cast<float>(value.imag()));
  } else if constexpr (std::is_same<T, cuDoubleComplex>::value) {
    return make_cuDoubleComplex(value.real(), value.imag());
  } else {
    return static_cast<T>(value);
  }
}

template <class T>
typename Host<T>::Wide widen(const T& value) {
  if constexpr (std::is_same<T, cuComplex>::value || std::is_same<T, cuDoubleComplex>::value) {
    return {value.x, value.y};
  } else {
    return value;
  }
}

template <class Wide>
Wide random_entry(std::mt19937_64& rng) {
  if constexpr (std::is_same<Wide, double>::value) {
    return idgpu::tridiag::reference::uniform_pm1(rng);
  } else {
    const double re = idgpu::tridiag::reference::uniform_pm1(rng);
    return {re, idgpu::tridiag::reference::uniform_pm1(rng)};
  }
}

cusparseStatus_t solve(cusparseHandle_t handle, int algo, int m, float* dl, float* d, float* du, float* x, int batch,
                       void* buffer) {
  return cusparseSgtsvInterleavedBatch(handle, algo, m, dl, d, du, x, batch, buffer);
}
cusparseStatus_t solve(cusparseHandle_t handle, int algo, int m, double* dl, double* d, double* du, double* x,
                       int batch, void* buffer) {
  return cusparseDgtsvInterleavedBatch(handle, algo, m, dl, d, du, x, batch, buffer);
}
cusparseStatus_t solve(cusparseHandle_t handle, int algo, int m, cuComplex* dl, cuComplex* d, cuComplex* du,
                       cuComplex* x, int batch, void* buffer) {
  return cusparseCgtsvInterleavedBatch(handle, algo, m, dl, d, du, x, batch, buffer);
}
cusparseStatus_t solve(cusparseHandle_t handle, int algo, int m, cuDoubleComplex* dl, cuDoubleComplex* d,
                       cuDoubleComplex* du, cuDoubleComplex* x, int batch, void* buffer) {
  return cusparseZgtsvInterleavedBatch(handle, algo, m, dl, d, du, x, batch, buffer);
}
template <class T>
cusparseStatus_t buffer_size(cusparseHandle_t handle, int algo, int m, int batch, size_t* size) {
  if constexpr (std::is_same<T, float>::value) {
    return cusparseSgtsvInterleavedBatch_bufferSizeExt(handle, algo, m, nullptr, nullptr, nullptr, nullptr, batch, size);
  } else if constexpr (std::is_same<T, double>::value) {
    return cusparseDgtsvInterleavedBatch_bufferSizeExt(handle, algo, m, nullptr, nullptr, nullptr, nullptr, batch, size);
  } else if constexpr (std::is_same<T, cuComplex>::value) {
    return cusparseCgtsvInterleavedBatch_bufferSizeExt(handle, algo, m, nullptr, nullptr, nullptr, nullptr, batch, size);
  } else {
    return cusparseZgtsvInterleavedBatch_bufferSizeExt(handle, algo, m, nullptr, nullptr, nullptr, nullptr, batch, size);
  }
}

// IDGPU_TEST_NATIVE_ONLY=1 skips the vendor side (for compute-sanitizer runs: the vendor's algo 1
// kernel gtsv_lu_4x4 writes past the end of x for m = 3, batch = 1 (seen with cuSPARSE 12.6), which
// memcheck reports and which would hide ours); our errors are then held to a fixed bound.
bool native_only() {
  const char* value = std::getenv("IDGPU_TEST_NATIVE_ONLY");
  return value != nullptr && value[0] == '1';
}

std::string api_name(const char* precision) { return std::string("cusparse") + precision + "gtsvInterleavedBatch"; }

unsigned long long native_calls(const std::string& name) {
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName(name.c_str(), &stats) == IDGPU_STATUS_SUCCESS);
  return stats.nativeCalls;
}

struct Device {
  cusparseHandle_t handle = nullptr;
  ~Device() {
    if (handle != nullptr) cusparseDestroy(handle);
  }
};

Device& device() {
  static Device instance;
  if (instance.handle == nullptr) REQUIRE(cusparseCreate(&instance.handle) == CUSPARSE_STATUS_SUCCESS);
  return instance;
}

// The host-side work of the large interleaved batches (the float64 reference solves and the
// error of each side) split over the host's cores: body(first, last, chunk) for contiguous
// ranges of systems, chunk < kHostChunks, each range on a thread of its own. The bodies use no
// Catch macro (they are not thread-safe) and write only their own systems and chunk.
constexpr int kHostChunks = 16;
template <class Body>
void for_system_chunks(int batch, Body body) {
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int chunks = std::max(1, std::min({kHostChunks, hardware, batch / 64}));
  if (chunks == 1) {
    body(0, batch, 0);
    return;
  }
  std::vector<std::thread> threads;
  const int per_chunk = (batch + chunks - 1) / chunks;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int first = chunk * per_chunk;
    const int last = std::min(batch, first + per_chunk);
    if (first < last) threads.emplace_back(body, first, last, chunk);
  }
  for (std::thread& thread : threads) thread.join();
}

// Over the batch, the largest per-system error of x: forward error against the float64 solution
// (relative, infinity norm) for diagonally dominant systems, which are well conditioned; normwise
// backward error ||Ax - b|| / (||A|| ||x|| + ||b||) otherwise, since a random system that is not
// dominant may be ill conditioned, where stable solvers promise a small backward error and the
// forward error of any of them is large and erratic.
template <class T>
double worst_error(int m, int batch, bool dominant, const std::vector<T>& x,
                   const std::vector<typename Host<T>::Wide>& reference, const std::vector<T>& in_dl,
                   const std::vector<T>& in_d, const std::vector<T>& in_du, const std::vector<T>& in_b) {
  using Wide = typename Host<T>::Wide;
  std::vector<double> worst(kHostChunks, 0.0);
  for_system_chunks(batch, [&](int first, int last, int chunk) {
    std::vector<Wide> sl(m), sd(m), su(m), sx(m), sb(m);
    for (int system = first; system < last; ++system) {
      double difference = 0.0;
      double size = 0.0;
      for (int row = 0; row < m; ++row) {
        const std::size_t index = static_cast<std::size_t>(row) * batch + system;
        const Wide value = widen(x[index]);
        if (!std::isfinite(std::abs(value))) {
          worst[chunk] = INFINITY;
          return;
        }
        difference = std::max(difference, std::abs(value - reference[index]));
        size = std::max(size, std::abs(reference[index]));
        sl[row] = widen(in_dl[index]);
        sd[row] = widen(in_d[index]);
        su[row] = widen(in_du[index]);
        sb[row] = widen(in_b[index]);
        sx[row] = value;
      }
      const double error =
          dominant ? (size > 0 ? difference / size : difference)
                   : idgpu::tridiag::reference::backward_error(m, sl.data(), sd.data(), su.data(), sx.data(), sb.data());
      worst[chunk] = std::max(worst[chunk], error);
    }
  });
  return *std::max_element(worst.begin(), worst.end());
}

// Solves an interleaved batch (the host arrays as the device sees them) with the vendor (unless
// native_side_only) and natively, each side from the same inputs; results[side] is its x (0: the
// vendor). The native side must really run our kernels, the vendor side not.
template <class T>
void solve_both_sides(int algo, int m, int batch, const std::vector<T>& in_dl, const std::vector<T>& in_d,
                      const std::vector<T>& in_du, const std::vector<T>& in_b, bool native_side_only,
                      std::vector<T> (&results)[2]) {
  const std::size_t count = static_cast<std::size_t>(m) * batch;
  T *g_dl = nullptr, *g_d = nullptr, *g_du = nullptr, *g_x = nullptr;
  const std::size_t bytes = count * sizeof(T);
  // Four rows of slack past each array: the vendor's algo 1 for m = 3 works on blocks of four rows
  // and touches the row past the end of x (see native_only). With a large batch that row lies past
  // the allocation's granule, and the vendor's solve then faults (cudaErrorIllegalAddress, seen on an
  // H100 at batch 1398101) instead of scribbling on slack.
  const std::size_t allocated = bytes + 4 * static_cast<std::size_t>(batch) * sizeof(T);
  REQUIRE(cudaMalloc(&g_dl, allocated) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_d, allocated) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_du, allocated) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_x, allocated) == cudaSuccess);
  const idgpuPolicy_t sides[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = native_side_only ? 1 : 0; side < 2; ++side) {
    CAPTURE(side == 1 ? "native" : "vendor");
    REQUIRE(idgpuSetPolicy(sides[side]) == IDGPU_STATUS_SUCCESS);
    REQUIRE(cudaMemcpy(g_dl, in_dl.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(g_d, in_d.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(g_du, in_du.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(g_x, in_b.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    size_t size = 0;
    REQUIRE(buffer_size<T>(device().handle, algo, m, batch, &size) == CUSPARSE_STATUS_SUCCESS);
    void* buffer = nullptr;
    REQUIRE(cudaMalloc(&buffer, std::max<size_t>(size, 1)) == cudaSuccess);
    const unsigned long long before = native_calls(api_name(Host<T>::name()));
    REQUIRE(solve(device().handle, algo, m, g_dl, g_d, g_du, g_x, batch, buffer) == CUSPARSE_STATUS_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const unsigned long long after = native_calls(api_name(Host<T>::name()));
    // The native side really ran our kernels; the vendor side did not.
    REQUIRE(after - before == (side == 1 ? 1u : 0u));
    cudaFree(buffer);
    results[side].resize(count);
    REQUIRE(cudaMemcpy(results[side].data(), g_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  cudaFree(g_dl);
  cudaFree(g_d);
  cudaFree(g_du);
  cudaFree(g_x);
}

// Solves the same systems with the vendor and natively and compares their errors.
template <class T>
void check_case(int algo, int m, int batch, bool dominant, std::uint64_t seed) {
  using Wide = typename Host<T>::Wide;
  CAPTURE(Host<T>::name(), algo, m, batch, dominant, seed);
  const std::size_t count = static_cast<std::size_t>(m) * batch;
  std::mt19937_64 rng(seed);
  std::vector<Wide> dl(count), d(count), du(count), b(count);
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t row = index / batch;
    dl[index] = row == 0 ? Wide(0) : random_entry<Wide>(rng);
    du[index] = row + 1 == static_cast<std::size_t>(m) ? Wide(0) : random_entry<Wide>(rng);
    if (dominant) {
      const double magnitude = 1.5 * (std::abs(dl[index]) + std::abs(du[index])) + 0.5;
      const Wide phase = random_entry<Wide>(rng);
      d[index] = std::abs(phase) > 0 ? phase / std::abs(phase) * magnitude : Wide(magnitude);
    } else {
      // Off-diagonals as large as the diagonal, some diagonal entries tiny: Thomas would fail.
      d[index] = random_entry<Wide>(rng) * (rng() % 8 == 0 ? 1e-6 : 1.0);
    }
    b[index] = random_entry<Wide>(rng);
  }
  // The float64 reference on the rounded inputs the GPU sees.
  std::vector<T> in_dl(count), in_d(count), in_du(count), in_b(count);
  for (std::size_t index = 0; index < count; ++index) {
    in_dl[index] = narrow<T>(dl[index]);
    in_d[index] = narrow<T>(d[index]);
    in_du[index] = narrow<T>(du[index]);
    in_b[index] = narrow<T>(b[index]);
  }
  std::vector<Wide> reference(count);
  for_system_chunks(batch, [&](int first, int last, int) {
    std::vector<Wide> sl(m), sd(m), su(m), sx(m);
    for (int system = first; system < last; ++system) {
      for (int row = 0; row < m; ++row) {
        const std::size_t index = static_cast<std::size_t>(row) * batch + system;
        sl[row] = widen(in_dl[index]);
        sd[row] = widen(in_d[index]);
        su[row] = widen(in_du[index]);
        sx[row] = widen(in_b[index]);
      }
      idgpu::tridiag::reference::lu_partial_pivot(m, sl.data(), sd.data(), su.data(), sx.data());
      for (int row = 0; row < m; ++row) reference[static_cast<std::size_t>(row) * batch + system] = sx[row];
    }
  });

  std::vector<T> results[2];
  solve_both_sides<T>(algo, m, batch, in_dl, in_d, in_du, in_b, native_only(), results);

  // Without the vendor side, its error is replaced by a fixed allowance of rounding units.
  const double vendor_error = native_only() ? 512.0 * Host<T>::kEps
                                            : worst_error(m, batch, dominant, results[0], reference, in_dl, in_d,
                                                          in_du, in_b);
  const double native_error = worst_error(m, batch, dominant, results[1], reference, in_dl, in_d, in_du, in_b);
  const double floor = 8.0 * Host<T>::kEps;
  std::printf("%s algo=%d m=%-6d batch=%-8d %-12s vendor_err=%.3e native_err=%.3e\n", Host<T>::name(), algo, m,
              batch, dominant ? "dominant" : "non-dominant", vendor_error, native_error);
  CAPTURE(vendor_error, native_error);
  REQUIRE(std::isfinite(native_error));
  CHECK(native_error <= 2.0 * vendor_error + floor);
}

const int kSizes[] = {3, 4, 31, 32, 33, 100, 512, 1000, 1024, 4096, 65536};


// Batches from 1 up to filling `unknowns` (2^24 for the real types' algo 0, less where the host
// reference or the vendor's own run would take minutes).
// IDGPU_TEST_MAX_UNKNOWNS caps the grid (for runs under compute-sanitizer, which are ~50x slower).
long long unknowns_cap() {
  const char* value = std::getenv("IDGPU_TEST_MAX_UNKNOWNS");
  return value != nullptr && std::atoll(value) > 0 ? std::atoll(value) : (1LL << 40);
}

// IDGPU_TEST_MIN_UNKNOWNS leaves out the cases of gtsv2 and gtsv2_nopivot with fewer unknowns
// (m * n), so that the largest systems can be run on their own.
long long unknowns_floor() {
  const char* value = std::getenv("IDGPU_TEST_MIN_UNKNOWNS");
  return value != nullptr ? std::atoll(value) : 0;
}

template <class T>
void run_grid(int algo, long long unknowns, bool dominant) {
  unknowns = std::min(unknowns, unknowns_cap());
  std::uint64_t seed = 0x9d2c5680u + static_cast<std::uint64_t>(algo) * 7919u + sizeof(T);
  // Algos 1 and 2 also at 64 and 256, around where their solver changes from one thread a system to
  // the gathered batch's chunked pivoting.
  std::vector<int> sizes(std::begin(kSizes), std::end(kSizes));
  if (algo != 0) sizes.insert(sizes.end(), {64, 256});
  for (const int m : sizes) {
    const long long full = std::max<long long>(1, unknowns / m);
    for (const long long batch : {1LL, 33LL, full}) {
      if (batch > full || static_cast<long long>(m) * batch > unknowns_cap()) continue;
      check_case<T>(algo, m, static_cast<int>(batch), dominant, seed++);
    }
  }
}

cusparseStatus_t strided(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du, float* x,
                         int batch, int stride, void* buffer) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
cusparseStatus_t strided(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du, double* x,
                         int batch, int stride, void* buffer) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
cusparseStatus_t strided(cusparseHandle_t h, int m, const cuComplex* dl, const cuComplex* d, const cuComplex* du,
                         cuComplex* x, int batch, int stride, void* buffer) {
  return cusparseCgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
cusparseStatus_t strided(cusparseHandle_t h, int m, const cuDoubleComplex* dl, const cuDoubleComplex* d,
                         const cuDoubleComplex* du, cuDoubleComplex* x, int batch, int stride, void* buffer) {
  return cusparseZgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
template <class T>
size_t strided_buffer_size(cusparseHandle_t h, int m, int batch, int stride) {
  size_t size = 0;
  cusparseStatus_t status;
  if constexpr (std::is_same<T, float>::value) {
    status = cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, nullptr, nullptr, nullptr, nullptr, batch, stride, &size);
  } else if constexpr (std::is_same<T, double>::value) {
    status = cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, nullptr, nullptr, nullptr, nullptr, batch, stride, &size);
  } else if constexpr (std::is_same<T, cuComplex>::value) {
    status = cusparseCgtsv2StridedBatch_bufferSizeExt(h, m, nullptr, nullptr, nullptr, nullptr, batch, stride, &size);
  } else {
    status = cusparseZgtsv2StridedBatch_bufferSizeExt(h, m, nullptr, nullptr, nullptr, nullptr, batch, stride, &size);
  }
  REQUIRE(status == CUSPARSE_STATUS_SUCCESS);
  return size;
}

// gtsv2StridedBatch: the same systems by the vendor and natively, against per-system float64
// solves; the rows between m and the stride must come back untouched (they hold NaN).
template <class T>
void check_strided_case(int m, int batch, int stride, std::uint64_t seed) {
  using Wide = typename Host<T>::Wide;
  CAPTURE(Host<T>::name(), m, batch, stride, seed);
  std::mt19937_64 rng(seed);
  const std::size_t count = static_cast<std::size_t>(stride) * batch;
  const T nan = narrow<T>(Wide(std::nan("")));
  std::vector<T> in_dl(count, nan), in_d(count, nan), in_du(count, nan), in_b(count, nan);
  std::vector<Wide> reference(count);
  std::vector<Wide> sl(m), sd(m), su(m), sx(m);
  for (int system = 0; system < batch; ++system) {
    for (int row = 0; row < m; ++row) {
      const std::size_t index = static_cast<std::size_t>(system) * stride + row;
      const Wide lower = row == 0 ? Wide(0) : random_entry<Wide>(rng);
      const Wide upper = row + 1 == m ? Wide(0) : random_entry<Wide>(rng);
      in_dl[index] = narrow<T>(lower);
      in_du[index] = narrow<T>(upper);
      in_d[index] = narrow<T>(Wide(1.5 * (std::abs(lower) + std::abs(upper)) + 0.5));
      in_b[index] = narrow<T>(random_entry<Wide>(rng));
      sl[row] = widen(in_dl[index]);
      sd[row] = widen(in_d[index]);
      su[row] = widen(in_du[index]);
      sx[row] = widen(in_b[index]);
    }
    idgpu::tridiag::reference::lu_partial_pivot(m, sl.data(), sd.data(), su.data(), sx.data());
    for (int row = 0; row < m; ++row) reference[static_cast<std::size_t>(system) * stride + row] = sx[row];
  }
  const std::size_t bytes = count * sizeof(T);
  T *g_dl, *g_d, *g_du, *g_x;
  REQUIRE(cudaMalloc(&g_dl, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_d, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_du, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_x, bytes) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_dl, in_dl.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_d, in_d.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_du, in_du.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  const std::string name = std::string("cusparse") + Host<T>::name() + "gtsv2StridedBatch";
  double errors[2] = {0.0, 0.0};
  const idgpuPolicy_t sides[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = native_only() ? 1 : 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(sides[side]) == IDGPU_STATUS_SUCCESS);
    REQUIRE(cudaMemcpy(g_x, in_b.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    void* buffer = nullptr;
    REQUIRE(cudaMalloc(&buffer, std::max<size_t>(strided_buffer_size<T>(device().handle, m, batch, stride), 1)) ==
            cudaSuccess);
    const unsigned long long before = native_calls(name);
    REQUIRE(strided(device().handle, m, g_dl, g_d, g_du, g_x, batch, stride, buffer) == CUSPARSE_STATUS_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(native_calls(name) - before == (side == 1 ? 1u : 0u));
    cudaFree(buffer);
    std::vector<T> solved(count);
    REQUIRE(cudaMemcpy(solved.data(), g_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    std::size_t gap_touched = 0;
    for (int system = 0; system < batch; ++system) {
      double difference = 0.0;
      double magnitude = 0.0;
      for (int row = 0; row < stride; ++row) {
        const std::size_t index = static_cast<std::size_t>(system) * stride + row;
        if (row >= m) {
          if (std::memcmp(&solved[index], &in_b[index], sizeof(T)) != 0) ++gap_touched;
          continue;
        }
        const Wide value = widen(solved[index]);
        difference = std::max(difference, std::isfinite(std::abs(value)) ? std::abs(value - reference[index]) : INFINITY);
        magnitude = std::max(magnitude, std::abs(reference[index]));
      }
      errors[side] = std::max(errors[side], magnitude > 0 ? difference / magnitude : difference);
    }
    CHECK(gap_touched == 0);
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  cudaFree(g_dl);
  cudaFree(g_d);
  cudaFree(g_du);
  cudaFree(g_x);
  if (native_only()) errors[0] = 512.0 * Host<T>::kEps;
  std::printf("%s strided m=%-5d batch=%-8d stride=%-5d vendor_err=%.3e native_err=%.3e\n", Host<T>::name(), m,
              batch, stride, errors[0], errors[1]);
  CHECK(errors[1] <= 2.0 * errors[0] + 8.0 * Host<T>::kEps);
}

template <class T>
void run_strided_grid(long long unknowns) {
  std::uint64_t seed = 0x5a17edu + sizeof(T);
  for (const int m : kSizes) {
    const long long full = std::max<long long>(1, std::min(unknowns, unknowns_cap()) / m);
    for (const long long batch : {1LL, 33LL, full}) {
      if (batch > full) continue;
      for (const int extra : {0, 3}) {
        // The strided layout's gap rows cost host memory too: keep the stride = m + 3 cases to 2^22.
        if (extra != 0 && static_cast<long long>(m + extra) * batch > (1LL << 22) && batch > 33) continue;
        check_strided_case<T>(m, static_cast<int>(batch), m + extra, seed++);
      }
    }
  }
}

// gtsv2 and gtsv2_nopivot take the same arguments (one matrix, n right-hand sides in B, column j at
// B + j*ldb); only the pivoting differs.
enum class ColumnsApi { kNopivot, kPivot };

const char* api_suffix(ColumnsApi api) { return api == ColumnsApi::kPivot ? "gtsv2" : "gtsv2_nopivot"; }

cusparseStatus_t columns_solve(ColumnsApi api, cusparseHandle_t h, int m, int n, const float* dl, const float* d,
                               const float* du, float* b, int ldb, void* buffer) {
  return api == ColumnsApi::kPivot ? cusparseSgtsv2(h, m, n, dl, d, du, b, ldb, buffer)
                                   : cusparseSgtsv2_nopivot(h, m, n, dl, d, du, b, ldb, buffer);
}
cusparseStatus_t columns_solve(ColumnsApi api, cusparseHandle_t h, int m, int n, const double* dl, const double* d,
                               const double* du, double* b, int ldb, void* buffer) {
  return api == ColumnsApi::kPivot ? cusparseDgtsv2(h, m, n, dl, d, du, b, ldb, buffer)
                                   : cusparseDgtsv2_nopivot(h, m, n, dl, d, du, b, ldb, buffer);
}
cusparseStatus_t columns_solve(ColumnsApi api, cusparseHandle_t h, int m, int n, const cuComplex* dl,
                               const cuComplex* d, const cuComplex* du, cuComplex* b, int ldb, void* buffer) {
  return api == ColumnsApi::kPivot ? cusparseCgtsv2(h, m, n, dl, d, du, b, ldb, buffer)
                                   : cusparseCgtsv2_nopivot(h, m, n, dl, d, du, b, ldb, buffer);
}
cusparseStatus_t columns_solve(ColumnsApi api, cusparseHandle_t h, int m, int n, const cuDoubleComplex* dl,
                               const cuDoubleComplex* d, const cuDoubleComplex* du, cuDoubleComplex* b, int ldb,
                               void* buffer) {
  return api == ColumnsApi::kPivot ? cusparseZgtsv2(h, m, n, dl, d, du, b, ldb, buffer)
                                   : cusparseZgtsv2_nopivot(h, m, n, dl, d, du, b, ldb, buffer);
}
cusparseStatus_t columns_buffer_size(ColumnsApi api, cusparseHandle_t h, int m, int n, const float* dl,
                                     const float* d, const float* du, const float* b, int ldb, size_t* size) {
  return api == ColumnsApi::kPivot ? cusparseSgtsv2_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size)
                                   : cusparseSgtsv2_nopivot_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size);
}
cusparseStatus_t columns_buffer_size(ColumnsApi api, cusparseHandle_t h, int m, int n, const double* dl,
                                     const double* d, const double* du, const double* b, int ldb, size_t* size) {
  return api == ColumnsApi::kPivot ? cusparseDgtsv2_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size)
                                   : cusparseDgtsv2_nopivot_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size);
}
cusparseStatus_t columns_buffer_size(ColumnsApi api, cusparseHandle_t h, int m, int n, const cuComplex* dl,
                                     const cuComplex* d, const cuComplex* du, const cuComplex* b, int ldb,
                                     size_t* size) {
  return api == ColumnsApi::kPivot ? cusparseCgtsv2_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size)
                                   : cusparseCgtsv2_nopivot_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size);
}
cusparseStatus_t columns_buffer_size(ColumnsApi api, cusparseHandle_t h, int m, int n, const cuDoubleComplex* dl,
                                     const cuDoubleComplex* d, const cuDoubleComplex* du, const cuDoubleComplex* b,
                                     int ldb, size_t* size) {
  return api == ColumnsApi::kPivot ? cusparseZgtsv2_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size)
                                   : cusparseZgtsv2_nopivot_bufferSizeExt(h, m, n, dl, d, du, b, ldb, size);
}

// The matrices of a columns case. gtsv2_nopivot is given dominant ones only, where not pivoting is
// stable; gtsv2 gets all three.
enum class MatrixKind {
  kDominant,      // |d_i| = 1.5 (|dl_i| + |du_i|) + 0.5: well conditioned, no pivot needed
  kRandom,        // dl, d and du all uniform: pivots needed, often ill conditioned
  kZeroDiagonal,  // as kRandom with about 5% of the diagonal exactly zero (never d[0])
  // |d_i| = |dl_i| + |du_i| exactly (twice that in the first and last rows, so that A is
  // nonsingular): a 1D Laplacian's pattern with random power-of-two magnitudes and signs (complex:
  // 1, i, -1 or -i), exact in every precision. gtsv2 solves it without pivoting from 1025 rows
  // (IDGPU_PIVOT_DOMINANT), where the kernel's dominance test meets its equality case.
  kWeaklyDominant,
  // As kDominant, but rows r, r + 1 (r = m / 7, even) are [[0, 1], [1, 0]], decoupled from the
  // rest: nonsingular, but elimination without pivoting meets a zero pivot there. gtsv2's dominance
  // check must find these rows in one of its blocks, rarely the last to finish, and pivot.
  kDominantSwap,
};

const char* kind_name(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::kDominant:
      return "dominant";
    case MatrixKind::kRandom:
      return "random";
    case MatrixKind::kZeroDiagonal:
      return "zero-diagonal";
    case MatrixKind::kWeaklyDominant:
      return "weakly-dominant";
    case MatrixKind::kDominantSwap:
      return "dominant-swap";
  }
  return "?";
}

template <class Wide>
Wide conjugate(const Wide& value) {
  if constexpr (std::is_same<Wide, double>::value) {
    return value;
  } else {
    return std::conj(value);
  }
}

// kappa_inf(A) = ||A||_inf ||A^-1||_inf, with ||A^-1||_inf = ||A^-H||_1 estimated by Hager's method
// as Higham refined it for LAPACK's xLACON ("FORTRAN codes for estimating the one-norm of a real or
// complex matrix, with applications to condition estimation", Higham 1988): a few long-double band
// solves with A^H and A, O(m) each. A lower bound, in practice within a small factor of the true
// value (exactly it when A^-1 is dominated by one rank-one term, as for an ill-conditioned random
// tridiagonal matrix).
template <class Wide>
double condition_estimate(int m, const std::vector<Wide>& dl, const std::vector<Wide>& d,
                          const std::vector<Wide>& du) {
  using idgpu::tridiag::reference::dense_solve;
  std::vector<Wide> adjoint_dl(m, Wide(0)), adjoint_d(m), adjoint_du(m, Wide(0));
  for (int row = 0; row < m; ++row) {
    adjoint_d[row] = conjugate(d[row]);
    if (row > 0) adjoint_dl[row] = conjugate(du[row - 1]);
    if (row + 1 < m) adjoint_du[row] = conjugate(dl[row + 1]);
  }
  const auto norm1 = [](const std::vector<Wide>& v) {
    long double sum = 0;
    for (const Wide& value : v) sum += std::abs(value);
    return static_cast<double>(sum);
  };
  std::vector<Wide> x(m, Wide(1.0 / m)), y;
  double estimate = 0.0;
  for (int iteration = 0; iteration < 5; ++iteration) {
    y = x;  // y = A^-H x
    REQUIRE(dense_solve(m, adjoint_dl.data(), adjoint_d.data(), adjoint_du.data(), y.data()) == 0);
    const double norm = norm1(y);
    if (iteration > 0 && norm <= estimate) break;
    estimate = norm;
    for (Wide& value : y) value = std::abs(value) > 0 ? value / std::abs(value) : Wide(1);
    REQUIRE(dense_solve(m, dl.data(), d.data(), du.data(), y.data()) == 0);  // z = A^-1 sign(y)
    int largest = 0;
    double z_dot_x = 0.0;
    for (int row = 0; row < m; ++row) {
      if (std::abs(y[row]) > std::abs(y[largest])) largest = row;
      z_dot_x += std::real(conjugate(y[row]) * x[row]);
    }
    if (std::abs(y[largest]) <= z_dot_x) break;  // x is a local maximum of ||A^-H x||_1
    x.assign(m, Wide(0));
    x[largest] = Wide(1);
  }
  // Higham's extra vector x_i = (-1)^i (1 + i / (m - 1)), for the matrices that mislead the iteration.
  for (int row = 0; row < m; ++row) {
    x[row] = Wide((row % 2 == 0 ? 1.0 : -1.0) * (1.0 + (m > 1 ? static_cast<double>(row) / (m - 1) : 0.0)));
  }
  REQUIRE(dense_solve(m, adjoint_dl.data(), adjoint_d.data(), adjoint_du.data(), x.data()) == 0);
  estimate = std::max(estimate, 2.0 * norm1(x) / (3.0 * m));
  return idgpu::tridiag::reference::norm_inf(m, dl.data(), d.data(), du.data()) * estimate;
}

// gtsv2 or gtsv2_nopivot: one matrix of the given kind and n right-hand sides (column j of B at
// B + j*ldb) by the vendor and natively. dl[0] and du[m-1] are zero, as cuSPARSE requires of them;
// the rows between m and ldb of each column hold NaN and must come back untouched; the matrix,
// which the API takes as const, must come back untouched too. B is overwritten by the solve, so
// every row of a column is judged against a host reference on the rounded inputs (a row left
// holding its right-hand side shows there): float64 LU with partial pivoting for dominant matrices,
// which are well conditioned, and the long-double band LU of reference::dense_solve otherwise, since
// a float64 solve of an ill-conditioned system is no more accurate than the f64 solvers it would
// judge. Two errors per side, each the largest over the columns: the forward error
// ||x - x_ref||_inf / ||x_ref||_inf and the normwise backward error
// ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf) (in long double).
//
// Both of ours must be within twice the vendor's plus 8 eps, with one exception: where kappa_inf(A)
// eps >= 1 the solution has no correct digit on either side, the forward errors of two
// backward-stable solvers are then cond-sized projections of their residuals onto A's smallest
// singular directions, and their ratio varies like that of two random projections; there the
// forward error's 8 eps floor is amplified by kappa_inf(A) (estimated by condition_estimate, only
// when the plain comparison fails), and the backward error is the real test. Below that, our
// refinement's residual in twice the working precision is what keeps the forward error within
// twice the vendor's: with the residual in working precision, 40 of the 435 gtsv2 cases exceeded
// it on an H100, up to 181x the vendor's at kappa 8e2..9e8, with backward errors well within.
//
// judge_native false: our side is run and its errors printed, and only the vendor's are judged
// (gtsv2 on non-dominant matrices, which the dispatch leaves with the vendor: see the TEST_CASE).
template <class T>
void check_columns_case(ColumnsApi api, MatrixKind kind, int m, int n, int ldb, std::uint64_t seed,
                        bool judge_native = true, std::size_t buffer_offset = 0) {
  using Wide = typename Host<T>::Wide;
  CAPTURE(Host<T>::name(), api_suffix(api), kind_name(kind), m, n, ldb, seed, buffer_offset);
  std::mt19937_64 rng(seed);
  const T nan = narrow<T>(Wide(std::nan("")));
  const std::size_t count = static_cast<std::size_t>(ldb) * n;
  // dl[0] and du[m-1] are zero, as cuSPARSE requires of them (its gtsv2_nopivot reads them: NaN
  // there makes its solution non-finite); the gap rows between m and ldb hold NaN.
  std::vector<T> in_dl(m), in_d(m), in_du(m), in_b(count, nan);
  std::vector<Wide> sl(m), sd(m), su(m), sx(m);
  // kWeaklyDominant's entries: a magnitude on a random axis.
  const auto on_axis = [&rng](double magnitude) {
    const unsigned axis = static_cast<unsigned>(rng() % 4);
    if constexpr (std::is_same<Wide, double>::value) {
      return axis % 2 == 0 ? magnitude : -magnitude;
    } else {
      return axis < 2 ? Wide(axis == 0 ? magnitude : -magnitude, 0.0) : Wide(0.0, axis == 2 ? magnitude : -magnitude);
    }
  };
  for (int row = 0; row < m; ++row) {
    Wide lower = row == 0 ? Wide(0) : random_entry<Wide>(rng);
    Wide upper = row + 1 == m ? Wide(0) : random_entry<Wide>(rng);
    if (kind == MatrixKind::kWeaklyDominant) {
      const double scale = std::ldexp(1.0, static_cast<int>(rng() % 7) - 3);
      lower = row == 0 ? Wide(0) : on_axis(std::ldexp(scale, static_cast<int>(rng() % 3) - 1));
      upper = row + 1 == m ? Wide(0) : on_axis(std::ldexp(scale, static_cast<int>(rng() % 3) - 1));
    }
    in_dl[row] = narrow<T>(lower);
    in_du[row] = narrow<T>(upper);
    if (kind == MatrixKind::kWeaklyDominant) {
      const double sum = std::abs(lower) + std::abs(upper);
      in_d[row] = narrow<T>(on_axis(row == 0 || row + 1 == m ? 2.0 * sum : sum));
    } else if (kind == MatrixKind::kDominant || kind == MatrixKind::kDominantSwap) {
      in_d[row] = narrow<T>(Wide(1.5 * (std::abs(lower) + std::abs(upper)) + 0.5));
    } else if (kind == MatrixKind::kZeroDiagonal && row > 0 && rng() % 20 == 0) {
      // Never d[0]: with the off-diagonals nonzero, the rows then pair up through them ((0, 1),
      // (2, 3), ...; for odd m row 0 takes d[0] and (1, 2), ... pair), so no pattern of zeros makes
      // A singular, as d[0] = d[2] = 0 does for m = 3.
      in_d[row] = narrow<T>(Wide(0));
    } else {
      in_d[row] = narrow<T>(random_entry<Wide>(rng));
    }
    // The reference sees the rounded entries that count and zeros in place of the ignored ones.
    sl[row] = row == 0 ? Wide(0) : widen(in_dl[row]);
    sd[row] = widen(in_d[row]);
    su[row] = row + 1 == m ? Wide(0) : widen(in_du[row]);
  }
  if (kind == MatrixKind::kDominantSwap) {
    const int r = m / 7 / 2 * 2;
    const auto put = [](std::vector<T>& entries, int row, double value) { entries[row] = narrow<T>(Wide(value)); };
    if (r > 0) put(in_du, r - 1, 0.0);
    put(in_dl, r, 0.0);
    put(in_d, r, 0.0);
    put(in_du, r, 1.0);
    put(in_dl, r + 1, 1.0);
    put(in_d, r + 1, 0.0);
    put(in_du, r + 1, 0.0);
    if (r + 2 < m) put(in_dl, r + 2, 0.0);
    for (int row = std::max(r - 1, 0); row <= std::min(r + 2, m - 1); ++row) {
      sl[row] = row == 0 ? Wide(0) : widen(in_dl[row]);
      sd[row] = widen(in_d[row]);
      su[row] = row + 1 == m ? Wide(0) : widen(in_du[row]);
    }
  }
  std::vector<Wide> reference(count);
  for (int column = 0; column < n; ++column) {
    for (int row = 0; row < m; ++row) {
      const std::size_t index = static_cast<std::size_t>(column) * ldb + row;
      in_b[index] = narrow<T>(random_entry<Wide>(rng));
      sx[row] = widen(in_b[index]);
    }
    if (kind == MatrixKind::kDominant) {
      idgpu::tridiag::reference::lu_partial_pivot(m, sl.data(), sd.data(), su.data(), sx.data());
    } else {
      REQUIRE(idgpu::tridiag::reference::dense_solve(m, sl.data(), sd.data(), su.data(), sx.data()) == 0);
    }
    for (int row = 0; row < m; ++row) reference[static_cast<std::size_t>(column) * ldb + row] = sx[row];
  }
  const std::size_t matrix_bytes = static_cast<std::size_t>(m) * sizeof(T);
  const std::size_t bytes = count * sizeof(T);
  T *g_dl, *g_d, *g_du, *g_b;
  REQUIRE(cudaMalloc(&g_dl, matrix_bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_d, matrix_bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_du, matrix_bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_b, bytes) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_dl, in_dl.data(), matrix_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_d, in_d.data(), matrix_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_du, in_du.data(), matrix_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  const std::string name = std::string("cusparse") + Host<T>::name() + api_suffix(api);
  double forward[2] = {0.0, 0.0};
  double backward[2] = {0.0, 0.0};
  std::vector<Wide> column_b(m);
  const idgpuPolicy_t sides[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = native_only() ? 1 : 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(sides[side]) == IDGPU_STATUS_SUCCESS);
    REQUIRE(cudaMemcpy(g_b, in_b.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    size_t size = 0;
    REQUIRE(columns_buffer_size(api, device().handle, m, n, g_dl, g_d, g_du, g_b, ldb, &size) ==
            CUSPARSE_STATUS_SUCCESS);
    void* buffer = nullptr;
    // buffer_offset on the native side only: the vendor is known to take pBuffer + 64, not less.
    const std::size_t offset = side == 1 ? buffer_offset : 0;
    REQUIRE(cudaMalloc(&buffer, std::max<size_t>(size, 1) + offset) == cudaSuccess);
    const unsigned long long before = native_calls(name);
    REQUIRE(columns_solve(api, device().handle, m, n, g_dl, g_d, g_du, g_b, ldb,
                          static_cast<unsigned char*>(buffer) + offset) == CUSPARSE_STATUS_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    // The native side really ran our kernels; the vendor side did not.
    REQUIRE(native_calls(name) - before == (side == 1 ? 1u : 0u));
    cudaFree(buffer);
    std::vector<T> solved(count);
    REQUIRE(cudaMemcpy(solved.data(), g_b, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    std::size_t gap_touched = 0;
    for (int column = 0; column < n; ++column) {
      double difference = 0.0;
      double magnitude = 0.0;
      for (int row = 0; row < ldb; ++row) {
        const std::size_t index = static_cast<std::size_t>(column) * ldb + row;
        if (row >= m) {
          if (std::memcmp(&solved[index], &in_b[index], sizeof(T)) != 0) ++gap_touched;
          continue;
        }
        const Wide value = widen(solved[index]);
        difference = std::max(difference, std::isfinite(std::abs(value)) ? std::abs(value - reference[index]) : INFINITY);
        magnitude = std::max(magnitude, std::abs(reference[index]));
        sx[row] = value;
        column_b[row] = widen(in_b[index]);
      }
      forward[side] = std::max(forward[side], magnitude > 0 ? difference / magnitude : difference);
      backward[side] = std::max(backward[side], idgpu::tridiag::reference::backward_error(
                                                    m, sl.data(), sd.data(), su.data(), sx.data(), column_b.data()));
    }
    CHECK(gap_touched == 0);
    std::vector<T> out_dl(m), out_d(m), out_du(m);
    REQUIRE(cudaMemcpy(out_dl.data(), g_dl, matrix_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(out_d.data(), g_d, matrix_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(out_du.data(), g_du, matrix_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(std::memcmp(out_dl.data(), in_dl.data(), matrix_bytes) == 0);
    CHECK(std::memcmp(out_d.data(), in_d.data(), matrix_bytes) == 0);
    CHECK(std::memcmp(out_du.data(), in_du.data(), matrix_bytes) == 0);
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  cudaFree(g_dl);
  cudaFree(g_d);
  cudaFree(g_du);
  cudaFree(g_b);
  // Without the vendor side, its errors are replaced by a fixed allowance of rounding units (for
  // a matrix that is not dominant, the forward floor's kappa then carries the conditioning).
  const double eps = Host<T>::kEps;
  if (native_only()) forward[0] = backward[0] = 512.0 * eps;
  const bool forward_within = forward[1] <= 2.0 * forward[0] + 8.0 * eps;
  const bool estimate = kind != MatrixKind::kDominant && !forward_within && std::isfinite(forward[1]);
  const double condition = estimate ? std::max(1.0, condition_estimate(m, sl, sd, su)) : 1.0;
  // The floor's amplification: kappa where kappa eps >= 1 (no correct digit to compare) or where
  // there is no vendor error to compare with (native_only), else none.
  const double amplification = native_only() || condition * eps >= 1.0 ? condition : 1.0;
  std::printf("%s %s %-13s m=%-8d n=%-3d ldb=%-8d vendor_err=%.3e native_err=%.3e vendor_bwd=%.3e native_bwd=%.3e",
              Host<T>::name(), api_suffix(api), kind_name(kind), m, n, ldb, forward[0], forward[1], backward[0],
              backward[1]);
  if (condition > 1.0) std::printf(" cond_est=%.3e", condition);
  std::printf("\n");
  CAPTURE(condition);
  // A non-finite vendor error would make the comparisons vacuous. CHECK, not REQUIRE: the grid goes
  // on, so that one run lists every failing case.
  CHECK(std::isfinite(forward[0]));
  CHECK(std::isfinite(backward[0]));
  if (!judge_native) return;
  CHECK(std::isfinite(forward[1]));
  CHECK(std::isfinite(backward[1]));
  // In units of eps, which Catch's fixed-point expansion of a double shows (1e-16 prints as 0.0).
  CHECK(backward[1] / eps <= 2.0 * backward[0] / eps + 8.0);
  CHECK(forward[1] / eps <= 2.0 * forward[0] / eps + 8.0 * amplification);
}

// m * n up to `unknowns` (2^24 for the real types, 2^22 for the complex ones) and unknowns_cap(),
// for every kind of matrix the API is given.
//
// For gtsv2, our side is judged on dominant matrices, and on the others only with `all_kinds`.
template <class T>
void run_columns_grid(ColumnsApi api, long long unknowns, bool all_kinds = true) {
  const bool pivot = api == ColumnsApi::kPivot;
  std::uint64_t seed = 0;
  const long long cap = std::min(unknowns, unknowns_cap());
  const std::vector<MatrixKind> kinds =
      pivot ? std::vector<MatrixKind>{MatrixKind::kDominant, MatrixKind::kRandom, MatrixKind::kZeroDiagonal,
                                      MatrixKind::kWeaklyDominant, MatrixKind::kDominantSwap}
            : std::vector<MatrixKind>{MatrixKind::kDominant};
  for (const MatrixKind kind : kinds) {
    // Each kind's seeds from its own start, so that a kind's cases do not change with the cap.
    seed = (pivot ? 0x3c6ef372u : 0x6e0b1f07u) + sizeof(T) + 1000u * static_cast<unsigned>(kind);
    for (const int m : {3, 5, 1000, 4099, 16384, 65536, 1 << 20, 1 << 24}) {
      for (const int n : {1, 3, 16}) {
        if (static_cast<long long>(m) * n > cap) continue;
        for (const int extra : {0, 5}) {
          // Left out below the floor, with the seed it would have taken.
          if (static_cast<long long>(m) * n < unknowns_floor()) {
            ++seed;
            continue;
          }
          check_columns_case<T>(api, kind, m, n, m + extra, seed++, all_kinds || kind == MatrixKind::kDominant);
        }
      }
    }
  }
  // One system of 2^26 rows (real types: 1-2 GB of arrays), three reduced levels deep for
  // gtsv2_nopivot, and one of 2^27 in f32, the size an 80 GB GPU is expected to take. For gtsv2
  // these have zeros on the diagonal, the kind that pivots most.
  const MatrixKind huge_kind = pivot ? MatrixKind::kZeroDiagonal : MatrixKind::kDominant;
  if (std::is_same_v<typename Host<T>::Wide, double> && unknowns_cap() >= (1LL << 26)) {
    check_columns_case<T>(api, huge_kind, 1 << 26, 1, 1 << 26, seed++, all_kinds || !pivot);
  }
  if (std::is_same_v<T, float> && unknowns_cap() >= (1LL << 27)) {
    check_columns_case<T>(api, huge_kind, 1 << 27, 1, 1 << 27, seed++, all_kinds || !pivot);
  }
}

idgpuStatus_t var_batch(cudaStream_t stream, int max_m, const int* sizes, const float* dl, const float* d, float* du,
                        float* x, int batch) {
  return idgpuSgtsvInterleavedVarBatch(stream, max_m, sizes, dl, d, du, x, batch);
}
idgpuStatus_t var_batch(cudaStream_t stream, int max_m, const int* sizes, const double* dl, const double* d,
                        double* du, double* x, int batch) {
  return idgpuDgtsvInterleavedVarBatch(stream, max_m, sizes, dl, d, du, x, batch);
}
idgpuStatus_t var_batch(cudaStream_t stream, int max_m, const int* sizes, const cuComplex* dl, const cuComplex* d,
                        cuComplex* du, cuComplex* x, int batch) {
  return idgpuCgtsvInterleavedVarBatch(stream, max_m, sizes, dl, d, du, x, batch);
}
idgpuStatus_t var_batch(cudaStream_t stream, int max_m, const int* sizes, const cuDoubleComplex* dl,
                        const cuDoubleComplex* d, cuDoubleComplex* du, cuDoubleComplex* x, int batch) {
  return idgpuZgtsvInterleavedVarBatch(stream, max_m, sizes, dl, d, du, x, batch);
}

template <class T>
T nan_value() {
  const double nan = std::nan("");
  return narrow<T>(typename Host<T>::Wide(nan) + typename Host<T>::Wide(0));
}

template <class T>
bool is_nan(const T& value) {
  return std::isnan(std::abs(widen(value))) || std::isnan(std::real(widen(value)));
}

// Median GPU time of `runs` calls of `call` on `stream`, in ms.
template <class Call>
double median_ms(cudaStream_t stream, int runs, Call&& call) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int run = 0; run < runs + 2; ++run) {
    cudaEventRecord(start, stream);
    call();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (run >= 2) times.push_back(ms);  // two warm-ups
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Variable sizes with NaN padding against per-system float64 Thomas; padding and the systems
// with an out-of-range size must come back untouched.
template <class T>
void check_var_batch(int max_m, int batch, std::uint64_t seed) {
  using Wide = typename Host<T>::Wide;
  CAPTURE(Host<T>::name(), max_m, batch, seed);
  std::mt19937_64 rng(seed);
  std::vector<int> sizes(batch);
  for (int system = 0; system < batch; ++system) sizes[system] = 1 + static_cast<int>(rng() % max_m);
  sizes[0] = max_m;
  if (batch > 3) {
    sizes[1] = 0;          // out of range: untouched
    sizes[2] = max_m + 1;  // out of range: untouched
    sizes[3] = 1;
  }
  const std::size_t count = static_cast<std::size_t>(max_m) * batch;
  std::vector<T> dl(count, nan_value<T>()), d(count, nan_value<T>()), du(count, nan_value<T>()),
      x(count, nan_value<T>());
  for (int system = 0; system < batch; ++system) {
    for (int row = 0; row < std::min(sizes[system], max_m); ++row) {
      const std::size_t index = static_cast<std::size_t>(row) * batch + system;
      const Wide lower = random_entry<Wide>(rng);
      const Wide upper = random_entry<Wide>(rng);
      dl[index] = narrow<T>(lower);
      du[index] = narrow<T>(upper);
      d[index] = narrow<T>(Wide(1.5 * (std::abs(lower) + std::abs(upper)) + 0.5));
      x[index] = narrow<T>(random_entry<Wide>(rng));
    }
  }
  const std::size_t bytes = count * sizeof(T);
  T *g_dl, *g_d, *g_du, *g_x;
  int* g_sizes;
  REQUIRE(cudaMalloc(&g_dl, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_d, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_du, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_x, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&g_sizes, batch * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_dl, dl.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_d, d.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_du, du.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_x, x.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_sizes, sizes.data(), batch * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  cudaStream_t stream;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  REQUIRE(var_batch(stream, max_m, g_sizes, g_dl, g_d, g_du, g_x, batch) == IDGPU_STATUS_SUCCESS);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  std::vector<T> solved(count), du_after(count);
  REQUIRE(cudaMemcpy(solved.data(), g_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaMemcpy(du_after.data(), g_du, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);

  double worst = 0.0;
  double allowed = 0.0;
  std::size_t padding_touched = 0;
  std::size_t untouched_changed = 0;
  std::vector<Wide> sl(max_m), sd(max_m), su(max_m), sx(max_m);
  for (int system = 0; system < batch; ++system) {
    const int size = sizes[system];
    const bool in_range = size >= 1 && size <= max_m;
    for (int row = 0; row < max_m; ++row) {
      const std::size_t index = static_cast<std::size_t>(row) * batch + system;
      if (!in_range) {
        if (std::memcmp(&solved[index], &x[index], sizeof(T)) != 0) ++untouched_changed;
      } else if (row >= size) {
        if (!is_nan(solved[index]) || !is_nan(du_after[index])) ++padding_touched;
      }
    }
    if (!in_range) continue;
    for (int row = 0; row < size; ++row) {
      const std::size_t index = static_cast<std::size_t>(row) * batch + system;
      sl[row] = row == 0 ? Wide(0) : widen(dl[index]);
      sd[row] = widen(d[index]);
      su[row] = row + 1 == size ? Wide(0) : widen(du[index]);
      sx[row] = widen(x[index]);
    }
    idgpu::tridiag::reference::thomas(size, sl.data(), sd.data(), su.data(), sx.data());
    double difference = 0.0;
    double magnitude = 0.0;
    for (int row = 0; row < size; ++row) {
      const Wide value = widen(solved[static_cast<std::size_t>(row) * batch + system]);
      difference = std::max(difference, std::isfinite(std::abs(value)) ? std::abs(value - sx[row]) : INFINITY);
      magnitude = std::max(magnitude, std::abs(sx[row]));
    }
    worst = std::max(worst, magnitude > 0 ? difference / magnitude : difference);
    // Thomas on a strictly dominant system: forward error within a few eps times its condition
    // bound (Varah), computed per system.
    const double condition =
        idgpu::tridiag::reference::dominant_condition_bound(size, sl.data(), sd.data(), su.data());
    allowed = std::max(allowed, 16.0 * Host<T>::kEps * condition);
  }
  CAPTURE(worst, allowed, padding_touched, untouched_changed);
  CHECK(padding_touched == 0);
  CHECK(untouched_changed == 0);
  CHECK(worst <= allowed);

  // Speed against the same call with every system at the largest size (the fixed batch).
  std::vector<int> full(batch, max_m);
  int* g_full;
  REQUIRE(cudaMalloc(&g_full, batch * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_full, full.data(), batch * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  const double var_ms = median_ms(stream, 10, [&] { var_batch(stream, max_m, g_sizes, g_dl, g_d, g_du, g_x, batch); });
  const double fixed_ms = median_ms(stream, 10, [&] { var_batch(stream, max_m, g_full, g_dl, g_d, g_du, g_x, batch); });
  std::printf("%s var batch maxM=%-5d batch=%-8d err=%.3e (allowed %.3e)  var %.4f ms, fixed at maxM %.4f ms (%.2fx)\n",
              Host<T>::name(), max_m, batch, worst, allowed, var_ms, fixed_ms, var_ms / fixed_ms);
  if (static_cast<long long>(max_m) * batch >= (1LL << 22)) CHECK(var_ms <= 1.2 * fixed_ms);
  cudaFree(g_full);
  cudaStreamDestroy(stream);
  cudaFree(g_dl);
  cudaFree(g_d);
  cudaFree(g_du);
  cudaFree(g_x);
  cudaFree(g_sizes);
}

template <class T>
void run_var_grid(long long unknowns) {
  std::uint64_t seed = 0x51ed270bu + sizeof(T);
  // 5000: past one block, so the solve goes through reduced levels in its scratch (for a batch of
  // one too, which runs as one contiguous system).
  for (const int max_m : {1, 3, 32, 100, 1000, 5000}) {
    for (const long long batch : {1LL, 1000LL, unknowns / max_m}) {
      if (static_cast<long long>(max_m) * batch > std::min(unknowns, unknowns_cap()) && batch != 1) continue;
      check_var_batch<T>(max_m, static_cast<int>(batch), seed++);
    }
  }
}

}  // namespace

TEST_CASE("strided batches, every m", "[gpu][gtsv][strided]") {
  run_strided_grid<float>(1LL << 24);
  run_strided_grid<double>(1LL << 24);
  run_strided_grid<cuComplex>(1LL << 22);
  run_strided_grid<cuDoubleComplex>(1LL << 22);
}

// Strided systems longer than one block holds run in one launch that reads them once: a
// cooperative one where every tile of the batch fits the GPU at once (the partition solver's
// Mode::kResident: m = 20000, two systems), else a streamed one whose tiles wait for their own
// system's only, after a memset of its counters (Mode::kStream: 64 systems of 65536 rows, 4096
// tiles). Stream capture must take both as it takes plain launches: the captured solve, launched
// twice, gives the eager solve's bits, and the eager solve's residual is small.
TEST_CASE("a tiled strided solve captured into a CUDA graph", "[gpu][gtsv][strided][graph]") {
  const auto [m, batch] = GENERATE(std::pair{20000, 2}, std::pair{65536, 64});
  CAPTURE(m, batch);
  const std::size_t count = static_cast<std::size_t>(m) * batch;
  std::mt19937_64 rng(20261122);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> dl(count), d(count), du(count), b(count);
  for (std::size_t i = 0; i < count; ++i) {
    dl[i] = unit(rng);
    du[i] = unit(rng);
    d[i] = 3.0f + std::fabs(unit(rng));  // diagonally dominant: |d| >= 3 > |dl| + |du|
    b[i] = unit(rng);
  }
  const std::size_t bytes = count * sizeof(float);
  float *g_dl = nullptr, *g_d = nullptr, *g_du = nullptr, *g_x = nullptr, *g_b = nullptr;
  for (float** p : {&g_dl, &g_d, &g_du, &g_x, &g_b}) REQUIRE(cudaMalloc(p, bytes) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_dl, dl.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_d, d.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_du, du.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(g_b, b.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cusparseHandle_t handle = device().handle;
  REQUIRE(cusparseSetStream(handle, stream) == CUSPARSE_STATUS_SUCCESS);
  REQUIRE(idgpuSetPolicy(IDGPU_POLICY_NATIVE) == IDGPU_STATUS_SUCCESS);
  std::size_t size = 0;
  REQUIRE(cusparseSgtsv2StridedBatch_bufferSizeExt(handle, m, g_dl, g_d, g_du, g_x, batch, m, &size) ==
          CUSPARSE_STATUS_SUCCESS);
  void* buffer = nullptr;
  REQUIRE(cudaMalloc(&buffer, std::max<std::size_t>(size, 1)) == cudaSuccess);
  const std::string api = "cusparseSgtsv2StridedBatch";

  // Eager.
  REQUIRE(cudaMemcpy(g_x, g_b, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
  const unsigned long long before = native_calls(api);
  REQUIRE(cusparseSgtsv2StridedBatch(handle, m, g_dl, g_d, g_du, g_x, batch, m, buffer) == CUSPARSE_STATUS_SUCCESS);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  REQUIRE(native_calls(api) == before + 1);
  std::vector<float> eager(count);
  REQUIRE(cudaMemcpy(eager.data(), g_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  double worst = 0;
  for (int system = 0; system < batch; ++system) {
    for (int row = 0; row < m; ++row) {
      const std::size_t i = static_cast<std::size_t>(system) * m + row;
      double r = static_cast<double>(d[i]) * eager[i] - b[i];
      if (row > 0) r += static_cast<double>(dl[i]) * eager[i - 1];
      if (row + 1 < m) r += static_cast<double>(du[i]) * eager[i + 1];
      worst = std::max(worst, std::fabs(r));
    }
  }
  CAPTURE(worst);
  REQUIRE(worst < 1e-5);

  // Captured, then launched twice.
  REQUIRE(cudaMemcpy(g_x, g_b, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  const cusparseStatus_t captured = cusparseSgtsv2StridedBatch(handle, m, g_dl, g_d, g_du, g_x, batch, m, buffer);
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(captured == CUSPARSE_STATUS_SUCCESS);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    REQUIRE(cudaMemcpy(g_x, g_b, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    std::vector<float> replayed(count);
    REQUIRE(cudaMemcpy(replayed.data(), g_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    CAPTURE(launch);
    REQUIRE(std::memcmp(replayed.data(), eager.data(), bytes) == 0);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  REQUIRE(cusparseSetStream(handle, nullptr) == CUSPARSE_STATUS_SUCCESS);
  cudaStreamDestroy(stream);
  for (void* p : {static_cast<void*>(g_dl), static_cast<void*>(g_d), static_cast<void*>(g_du),
                  static_cast<void*>(g_x), static_cast<void*>(g_b), buffer}) {
    cudaFree(p);
  }
}

TEST_CASE("gtsv2_nopivot, one matrix and n right-hand sides", "[gpu][gtsv][nopivot]") {
  run_columns_grid<float>(ColumnsApi::kNopivot, 1LL << 24);
  run_columns_grid<double>(ColumnsApi::kNopivot, 1LL << 24);
  run_columns_grid<cuComplex>(ColumnsApi::kNopivot, 1LL << 22);
  run_columns_grid<cuDoubleComplex>(ColumnsApi::kNopivot, 1LL << 22);
}

// The other two native gtsv2_nopivot algorithms, which the dispatch runs on request
// (idgpuSetTridiagSolver): the multi-stage Wang-Mou solver and k-step tiled PCR + p-Thomas, on the
// same grid and held to the same rule as the partition solver above.
TEST_CASE("gtsv2_nopivot by Wang-Mou and by tiled PCR + p-Thomas", "[gpu][gtsv][nopivot][nopivot-algos]") {
  for (const idgpuTridiagSolver_t solver : {IDGPU_TRIDIAG_SOLVER_WANG_MOU, IDGPU_TRIDIAG_SOLVER_PCR_THOMAS}) {
    CAPTURE(static_cast<int>(solver));
    std::printf("solver %s\n", solver == IDGPU_TRIDIAG_SOLVER_WANG_MOU ? "wang-mou" : "pcr-thomas");
    REQUIRE(idgpuSetTridiagSolver(solver) == IDGPU_STATUS_SUCCESS);
    run_columns_grid<float>(ColumnsApi::kNopivot, 1LL << 24);
    run_columns_grid<double>(ColumnsApi::kNopivot, 1LL << 24);
    run_columns_grid<cuComplex>(ColumnsApi::kNopivot, 1LL << 22);
    run_columns_grid<cuDoubleComplex>(ColumnsApi::kNopivot, 1LL << 22);
  }
  REQUIRE(idgpuSetTridiagSolver(IDGPU_TRIDIAG_SOLVER_AUTO) == IDGPU_STATUS_SUCCESS);
}

// Our gtsv2 (chunked diagonal pivoting with two separators a chunk and a refinement step where a
// pivot was small) against the vendor's on every kind of matrix, dominant and not, the issue's
// criterion. Under the default policy the dispatch sends only the sizes of its tuning rows here
// (one system of about a thousand rows or of 2^24 and more, on an H100): a 2^20-row f32 system stays
// with the vendor, which this test checks too.
TEST_CASE("gtsv2 with pivoting, one matrix and n right-hand sides", "[gpu][gtsv][pivot][pivot-all]") {
  if (!native_only()) {
    REQUIRE(idgpuSetPolicy(IDGPU_POLICY_AUTO) == IDGPU_STATUS_SUCCESS);
    const int m = 1 << 20;
    float *dl, *d, *du, *b;
    const std::size_t bytes = static_cast<std::size_t>(m) * sizeof(float);
    REQUIRE(cudaMalloc(&dl, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&du, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&b, bytes) == cudaSuccess);
    const std::vector<float> ones(static_cast<std::size_t>(m), 1.0f), fours(static_cast<std::size_t>(m), 4.0f);
    REQUIRE(cudaMemcpy(dl, ones.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(du, ones.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(d, fours.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(b, ones.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    size_t size = 0;
    REQUIRE(columns_buffer_size(ColumnsApi::kPivot, device().handle, m, 1, dl, d, du, b, m, &size) ==
            CUSPARSE_STATUS_SUCCESS);
    void* buffer = nullptr;
    REQUIRE(cudaMalloc(&buffer, std::max<size_t>(size, 1)) == cudaSuccess);
    const unsigned long long before = native_calls("cusparseSgtsv2");
    REQUIRE(columns_solve(ColumnsApi::kPivot, device().handle, m, 1, dl, d, du, b, m, buffer) ==
            CUSPARSE_STATUS_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(native_calls("cusparseSgtsv2") == before);
    cudaFree(buffer);
    cudaFree(dl);
    cudaFree(d);
    cudaFree(du);
    cudaFree(b);
  }
  run_columns_grid<float>(ColumnsApi::kPivot, 1LL << 24);
  run_columns_grid<double>(ColumnsApi::kPivot, 1LL << 24);
  run_columns_grid<cuComplex>(ColumnsApi::kPivot, 1LL << 22);
  run_columns_grid<cuDoubleComplex>(ColumnsApi::kPivot, 1LL << 22);
}

// pBuffer aligned only to its element on the native side (the dispatch asks no more):
// the refinement's x1 lies there, and with 16-byte aligned arrays the kernels would load it by
// 16-byte vectors, so they must not where pBuffer is not 16-byte aligned. Non-dominant matrices,
// so that the refinement runs; one block (1000 rows) and level by level (2^20).
TEST_CASE("gtsv2 with pBuffer aligned only to its element", "[gpu][gtsv][pivot]") {
  std::uint64_t seed = 0x51de0000u;
  for (const int m : {1000, 1 << 20}) {
    for (const int n : {1, 3}) {
      check_columns_case<float>(ColumnsApi::kPivot, MatrixKind::kRandom, m, n, m, seed++, true, alignof(float));
      check_columns_case<cuComplex>(ColumnsApi::kPivot, MatrixKind::kRandom, m, n, m, seed++, true,
                                    alignof(cuComplex));
      check_columns_case<double>(ColumnsApi::kPivot, MatrixKind::kRandom, m, n, m, seed++, true, alignof(double));
    }
  }
}

TEST_CASE("variable-size interleaved batches, NaN padding", "[gpu][gtsv][varbatch]") {
  run_var_grid<float>(1LL << 24);
  run_var_grid<double>(1LL << 24);
  run_var_grid<cuComplex>(1LL << 22);
  run_var_grid<cuDoubleComplex>(1LL << 22);
}

TEST_CASE("interleaved algo 0, real types, up to 2^24 unknowns", "[gpu][gtsv][interleaved]") {
  run_grid<float>(0, 1LL << 24, true);
  run_grid<double>(0, 1LL << 24, true);
}

TEST_CASE("interleaved algo 0, complex types", "[gpu][gtsv][interleaved]") {
  run_grid<cuComplex>(0, 1LL << 22, true);
  run_grid<cuDoubleComplex>(0, 1LL << 22, true);
}

TEST_CASE("interleaved algos 1 and 2, dominant and non-dominant systems", "[gpu][gtsv][interleaved][algos12]") {
  for (const int algo : {1, 2}) {
    for (const bool dominant : {true, false}) {
      run_grid<float>(algo, 1LL << 24, dominant);
      run_grid<double>(algo, 1LL << 24, dominant);
      run_grid<cuComplex>(algo, 1LL << 22, dominant);
      run_grid<cuDoubleComplex>(algo, 1LL << 22, dominant);
    }
  }
}

// A batch with one system holding a NaN in its right-hand side and one with a row of zeros (exactly
// singular): the vendor's per-system LU / QR keeps the damage in those two systems, and so must
// the native side, whose gathered solve would spread it to every system (kernels/
// interleaved_pivoting.cu: its non-finite check hands the batch to one thread a system). Every
// other system must come back finite and within 64 eps (relative, per system) of the vendor's.
template <class T>
void check_bad_systems(int algo, int m, int batch) {
  using Wide = typename Host<T>::Wide;
  CAPTURE(Host<T>::name(), algo, m, batch);
  const int nan_system = 5, singular_system = 9;
  const std::size_t count = static_cast<std::size_t>(m) * batch;
  std::mt19937_64 rng(0x5eed0000u + static_cast<unsigned>(algo) * 31u + sizeof(T));
  std::vector<T> in_dl(count), in_d(count), in_du(count), in_b(count);
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t row = index / batch;
    const Wide lower = row == 0 ? Wide(0) : random_entry<Wide>(rng);
    const Wide upper = row + 1 == static_cast<std::size_t>(m) ? Wide(0) : random_entry<Wide>(rng);
    in_dl[index] = narrow<T>(lower);
    in_du[index] = narrow<T>(upper);
    in_d[index] = narrow<T>(Wide(1.5 * (std::abs(lower) + std::abs(upper)) + 0.5));
    in_b[index] = narrow<T>(random_entry<Wide>(rng));
  }
  in_b[static_cast<std::size_t>(100) * batch + nan_system] = narrow<T>(Wide(std::nan("")));
  const std::size_t zero_row = static_cast<std::size_t>(50) * batch + singular_system;
  in_dl[zero_row] = in_d[zero_row] = in_du[zero_row] = narrow<T>(Wide(0));
  std::vector<T> results[2];
  solve_both_sides<T>(algo, m, batch, in_dl, in_d, in_du, in_b, false, results);
  for (int system = 0; system < batch; ++system) {
    if (system == nan_system || system == singular_system) continue;
    CAPTURE(system);
    double difference = 0.0, size = 0.0;
    bool finite = true;
    for (int row = 0; row < m; ++row) {
      const std::size_t index = static_cast<std::size_t>(row) * batch + system;
      const Wide ours = widen(results[1][index]), theirs = widen(results[0][index]);
      finite = finite && std::isfinite(std::abs(ours));
      difference = std::max(difference, static_cast<double>(std::abs(ours - theirs)));
      size = std::max(size, static_cast<double>(std::abs(theirs)));
    }
    CHECK(finite);
    CHECK(difference <= 64.0 * Host<T>::kEps * size);
  }
}

TEST_CASE("algos 1 and 2 keep a bad system to itself", "[gpu][gtsv][interleaved][algos12]") {
  for (const int algo : {1, 2}) {
    check_bad_systems<float>(algo, 4096, 64);
    check_bad_systems<double>(algo, 4096, 64);
    check_bad_systems<cuComplex>(algo, 1024, 64);
    check_bad_systems<cuDoubleComplex>(algo, 1024, 64);
  }
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipped\n");
    return kSkip;
  }
  const int failures = Catch::Session().run(argc, argv);
  return failures == 0 ? 0 : 1;
}
