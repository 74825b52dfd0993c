// fft/runtime_kernels.h on the host: the planner's run-time passes (DeviceLimits::
// runtime_sequences), the kernels' names, NVRTC compiling them from the embedded sources for
// sm_90 (no device needed; skipped where libnvrtc is absent), and the cache files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fft/planner.h"
#include "fft/runtime_kernels.h"
#include "fft/stockham_reference.h"

namespace {

using idgpu::fft::DeviceLimits;
using idgpu::fft::FftPlan;
using idgpu::fft::FftPlanResult;
using idgpu::fft::Precision;
using idgpu::fft::RuntimeBinary;
using idgpu::fft::RuntimeLayout;
using idgpu::fft::RuntimeSequence;

DeviceLimits limits_with(bool runtime) {
  DeviceLimits limits = DeviceLimits::h100();
  limits.convolution_powers_of_two = true;
  limits.runtime_sequences = runtime;
  return limits;
}

bool powers_of_two(const std::vector<int>& radices) {
  for (int r : radices) {
    if ((r & (r - 1)) != 0) return false;
  }
  return true;
}

// A directory of its own under the temporary directory, removed at the end.
struct TemporaryDirectory {
  std::filesystem::path path;
  TemporaryDirectory() {
    path = std::filesystem::temp_directory_path() / ("idgpu-runtime-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// The largest error of the host executor's run of `plan` (`batch` transforms of n points, the
// direction `sign`) on random inputs against a naive DFT: every output of transform `full`, every
// `step`-th of the others; divided by sqrt(n) where `scaled`.
double executor_error(const FftPlan& plan, long long n, long long batch, int sign, std::mt19937* rng,
                      long long step, long long full, bool scaled) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  const std::size_t total = static_cast<std::size_t>(n * batch);
  std::vector<std::complex<double>> in(total), out(total, {NAN, NAN});
  for (auto& x : in) x = {value(*rng), value(*rng)};
  idgpu::fft::reference::execute(plan, sign, in.data(), out.data());
  double worst = 0.0;
  for (long long b = 0; b < batch; ++b) {
    for (long long k = 0; k < n; k += (b == full ? 1 : step)) {
      std::complex<double> sum = 0.0;
      for (long long t = 0; t < n; ++t) {
        const double angle = sign * 2.0 * M_PI * static_cast<double>((k * t) % n) / static_cast<double>(n);
        sum += in[b * n + t] * std::complex<double>(std::cos(angle), std::sin(angle));
      }
      worst = std::max(worst, std::abs(out[b * n + k] - sum) / (scaled ? std::sqrt(static_cast<double>(n)) : 1.0));
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("runtime kernels: the planner marks exactly the mixed passes no compiled kernel has",
          "[cpu][fft][runtime]") {
  int marked = 0;
  for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
    const std::size_t element = idgpu::fft::complex_element_bytes(precision);
    for (long long n = 2; n <= 4096; ++n) {
      if (!idgpu::fft::smooth13(n)) continue;
      CAPTURE(n, static_cast<int>(precision));
      const FftPlanResult with = idgpu::fft::plan_c2c_any(n, 3, precision, limits_with(true));
      const FftPlanResult without = idgpu::fft::plan_c2c_any(n, 3, precision, limits_with(false));
      REQUIRE(with.plan.has_value());
      REQUIRE(without.plan.has_value());
      for (const auto& pass : without.plan->passes) CHECK_FALSE(pass.runtime_kernel);
      for (const auto& pass : with.plan->passes) {
        CAPTURE(pass.size);
        // Compiled sequences and powers of two never run at run time: a compiled sequence has a
        // fixed-sequence buffer without the run-time mark too.
        idgpu::fft::FftPass unmarked = pass;
        unmarked.runtime_kernel = false;
        const bool compiled = idgpu::fft::fixed_sequence_buffer(unmarked, element) > 0;
        if (powers_of_two(pass.radices) || compiled) {
          CHECK_FALSE(pass.runtime_kernel);
          continue;
        }
        REQUIRE(pass.runtime_kernel);
        ++marked;
        // The row layout, its extent within the buffer, as a compiled sequence's.
        CHECK(pass.smem_shift == idgpu::fft::kUnpaddedShift);
        CHECK(pass.smem_stride >= idgpu::fft::fixed_sequence_extent(pass.radices.data(),
                                                                    static_cast<int>(pass.radices.size()),
                                                                    static_cast<int>(element)));
        CHECK(pass.shared_bytes <= limits_with(true).shared_bytes_per_block);
      }
    }
  }
  // Most 13-smooth lengths up to 4096 have no compiled sequence: several hundred such passes.
  CHECK(marked > 500);
}

TEST_CASE("runtime kernels: short single passes take one transform a thread", "[cpu][fft][runtime]") {
  int threaded = 0;
  for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
    const long long element = static_cast<long long>(idgpu::fft::complex_element_bytes(precision));
    for (long long n = 2; n <= 64; ++n) {
      if (!idgpu::fft::smooth13(n)) continue;
      for (const long long batch : {1LL << 22, 1000LL, 1LL}) {
        CAPTURE(n, batch, static_cast<int>(precision));
        DeviceLimits limits = limits_with(true);
        limits.thread_transforms = 1;
        const FftPlanResult planned = idgpu::fft::plan_c2c_any(n, batch, precision, limits);
        REQUIRE(planned.plan.has_value());
        REQUIRE(planned.plan->passes.size() == 1);
        const idgpu::fft::FftPass& pass = planned.plan->passes[0];
        const bool thread = idgpu::fft::thread_layout(pass.smem_shift);
        // Exactly the mixed-radix passes whose n elements fit 512 bytes of a thread's registers
        // (compiled sequences too: 60), on run-time kernels.
        const bool power_of_two = (n & (n - 1)) == 0;
        CHECK(idgpu::fft::kThreadTransformBytes == 512);
        CHECK(thread == (!power_of_two && n * element <= 512));
        if (thread) CHECK(pass.runtime_kernel);
        if (!thread) continue;
        ++threaded;
        CHECK(pass.threads_per_transform == 1);
        CHECK(pass.widened_limit == 0);
        CHECK(pass.smem_stride == (n | 1));
        CHECK(pass.smem_stride % 2 == 1);
        CHECK(pass.transforms_per_block >= 1);
        CHECK(pass.transforms_per_block <= idgpu::fft::kThreadTransformThreads);
        CHECK(pass.shared_bytes ==
              static_cast<std::size_t>(pass.smem_stride * element * pass.transforms_per_block));
        CHECK(pass.blocks * pass.transforms_per_block >= batch);
        CHECK((pass.blocks - 1) * pass.transforms_per_block < batch);
        if (batch == (1LL << 22)) {
          // 256 transforms a block where their buffer fits 32 KB, else 128.
          CHECK(pass.transforms_per_block == ((n | 1) * element * 256 <= 32 * 1024 ? 256 : 128));
        } else if (batch == 1000) {
          // Fewer a block, so that the call reaches the SMs.
          CHECK((pass.blocks >= limits.multiprocessors || pass.transforms_per_block == 32));
        }
        const RuntimeSequence sequence = idgpu::fft::runtime_sequence(pass, static_cast<std::size_t>(element));
        CHECK(sequence.layout == RuntimeLayout::kThread);
        // IDGPU_FFT_THREAD_TRANSFORMS = 64: 64 a block; 0: the row layout.
        limits.thread_transforms = 64;
        const FftPlanResult sixty_four = idgpu::fft::plan_c2c_any(n, 1LL << 22, precision, limits);
        REQUIRE(sixty_four.plan.has_value());
        CHECK(sixty_four.plan->passes[0].transforms_per_block == 64);
        limits.thread_transforms = 0;
        const FftPlanResult rows = idgpu::fft::plan_c2c_any(n, batch, precision, limits);
        REQUIRE(rows.plan.has_value());
        CHECK_FALSE(idgpu::fft::thread_layout(rows.plan->passes[0].smem_shift));
        // A run-time pass takes the row layout; a compiled sequence's (60) its kernel's.
        if (rows.plan->passes[0].runtime_kernel) {
          CHECK(idgpu::fft::runtime_sequence(rows.plan->passes[0], static_cast<std::size_t>(element)).layout ==
                RuntimeLayout::kRows);
        }
      }
    }
  }
  // fp32: the 38 non-powers of two 3..63 with factors up to 13; fp64: the 21 from 3 to 30; three
  // batches each.
  CHECK(threaded == 3 * (38 + 21));
  // Not without run-time kernels, and not a real plan's pass (its real step needs the block).
  DeviceLimits limits = limits_with(false);
  limits.thread_transforms = 1;
  const FftPlanResult without = idgpu::fft::plan_c2c_any(12, 1000, Precision::kSingle, limits);
  REQUIRE(without.plan.has_value());
  CHECK_FALSE(idgpu::fft::thread_layout(without.plan->passes[0].smem_shift));
  limits.runtime_sequences = true;
  for (const long long n : {24LL, 30LL, 15LL, 21LL}) {
    CAPTURE(n);
    for (const idgpu::fft::Kind kind : {idgpu::fft::Kind::kR2C, idgpu::fft::Kind::kC2R}) {
      const FftPlanResult real = idgpu::fft::plan_real_1d(kind, n, 1000, Precision::kSingle, limits);
      REQUIRE(real.plan.has_value());
      for (const auto& pass : real.plan->passes) CHECK_FALSE(idgpu::fft::thread_layout(pass.smem_shift));
    }
  }
}

// The host executor runs the planned pass's stages as the staged kernels split them (all
// butterflies to the one thread of the thread layout): this checks the plan's radices, layout and
// sizing, not ThreadStages' register code, which the GPU tests check against the vendor.
TEST_CASE("runtime kernels: thread-layout plans compute the DFT on the host executor", "[cpu][fft][runtime]") {
  std::mt19937 rng(11);
  int checked = 0;
  for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
    for (long long n = 3; n <= 64; ++n) {
      if (!idgpu::fft::smooth13(n) || (n & (n - 1)) == 0) continue;
      for (const int sign : {-1, 1}) {
        CAPTURE(n, sign, static_cast<int>(precision));
        DeviceLimits limits = limits_with(true);
        limits.thread_transforms = 1;
        const long long batch = 3;
        const FftPlanResult planned = idgpu::fft::plan_c2c_any(n, batch, precision, limits);
        REQUIRE(planned.plan.has_value());
        if (!idgpu::fft::thread_layout(planned.plan->passes[0].smem_shift)) continue;  // fp64 past 32
        CHECK(executor_error(*planned.plan, n, batch, sign, &rng, 1, 0, false) < 1e-12);
        ++checked;
      }
    }
  }
  CHECK(checked == 2 * (38 + 21));
}

TEST_CASE("runtime kernels: a single pass too long for the fp64 block widens instead of splitting",
          "[cpu][fft][runtime]") {
  // 3773 = 11 7 7 7: 539 radix-7 butterflies a stage, above fp64's 512 threads.
  const FftPlanResult with = idgpu::fft::plan_c2c_any(3773, 5, Precision::kDouble, limits_with(true));
  const FftPlanResult without = idgpu::fft::plan_c2c_any(3773, 5, Precision::kDouble, limits_with(false));
  REQUIRE(with.plan.has_value());
  REQUIRE(without.plan.has_value());
  REQUIRE(with.plan->passes.size() == 1);
  CHECK(with.plan->passes[0].runtime_kernel);
  CHECK(with.plan->passes[0].widened_limit == 512);
  CHECK(with.plan->passes[0].threads_per_transform <= 512);
  CHECK(without.plan->passes.size() == 2);
}

TEST_CASE("runtime kernels: run-time plans compute the DFT on the host executor", "[cpu][fft][runtime]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const long long n : {77LL, 1001LL, 2002LL * 3, 3773LL, 11LL * 13 * 13 * 9}) {
    for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
      CAPTURE(n, static_cast<int>(precision));
      const FftPlanResult planned = idgpu::fft::plan_c2c_any(n, 2, precision, limits_with(true));
      REQUIRE(planned.plan.has_value());
      const FftPlan& plan = *planned.plan;
      const std::size_t total = static_cast<std::size_t>(n) * 2;
      std::vector<std::complex<double>> in(total), out(total, {NAN, NAN});
      for (auto& x : in) x = {value(rng), value(rng)};
      idgpu::fft::reference::execute(plan, -1, in.data(), out.data());
      double worst = 0.0;
      for (long long b = 0; b < 2; ++b) {
        for (long long k = 0; k < n; k += 37) {
          std::complex<double> sum = 0.0;
          for (long long t = 0; t < n; ++t) {
            const double angle = -2.0 * M_PI * static_cast<double>((k * t) % n) / static_cast<double>(n);
            sum += in[b * n + t] * std::complex<double>(std::cos(angle), std::sin(angle));
          }
          worst = std::max(worst, std::abs(out[b * n + k] - sum) / std::sqrt(static_cast<double>(n)));
        }
      }
      CHECK(worst < 1e-9);
    }
  }
}

TEST_CASE("runtime kernels: single mixed passes take the wide layout, about N / E threads",
          "[cpu][fft][runtime][wide]") {
  int wide = 0;
  for (const int elements : {16, 24, 32}) {
    for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
      const std::size_t element = idgpu::fft::complex_element_bytes(precision);
      const int e = element == 16 ? std::max(4, elements / 2) : elements;
      for (long long n = 65; n <= 4096; ++n) {
        if (!idgpu::fft::smooth13(n) || (n & (n - 1)) == 0) continue;
        CAPTURE(elements, n, static_cast<int>(precision));
        DeviceLimits limits = limits_with(true);
        limits.thread_transforms = 1;
        limits.wide_elements = elements;
        const FftPlanResult planned = idgpu::fft::plan_c2c_any(n, 1000, precision, limits);
        limits.wide_elements = 0;
        const FftPlanResult rows = idgpu::fft::plan_c2c_any(n, 1000, precision, limits);
        REQUIRE(planned.plan.has_value());
        REQUIRE(rows.plan.has_value());
        if (planned.plan->passes.size() != 1) {
          for (const auto& pass : planned.plan->passes) CHECK_FALSE(pass.wide);
          continue;
        }
        const idgpu::fft::FftPass& pass = planned.plan->passes[0];
        const idgpu::fft::FftPass& row = rows.plan->passes[0];
        CHECK_FALSE(row.wide);
        // Wide exactly where a run-time kernel's row-layout transform takes more than half the
        // block limit in threads (fp32 512, fp64 256), the cap is within the block at 1.5 E
        // elements a thread and gives fewer threads than butterflies_per_thread's.
        const int cap = std::min(idgpu::fft::wide_thread_cap(static_cast<int>(n), e), idgpu::fft::kWideThreads);
        const int capped = idgpu::fft::sequence_threads(row.radices.data(), static_cast<int>(row.radices.size()), cap);
        long long plain = 1;  // butterflies_per_thread's threads
        for (const int r : row.radices) {
          const long long per_thread = idgpu::fft::butterflies_per_thread(r);
          plain = std::max(plain, (n / r + per_thread - 1) / per_thread);
        }
        idgpu::fft::FftPass unmarked = row;
        unmarked.runtime_kernel = false;
        const bool compiled = idgpu::fft::fixed_sequence_buffer(unmarked, element) > 0;
        const bool expected = !compiled && 2 * plain > (element == 16 ? 512 : 1024) &&
                              2 * n <= 3LL * idgpu::fft::kWideThreads * e && capped < plain;
        CHECK(pass.wide == expected);
        if (!pass.wide) continue;
        ++wide;
        CHECK(pass.runtime_kernel);
        CHECK(pass.radices == row.radices);
        CHECK(pass.widened_limit == cap);
        CHECK(pass.threads_per_transform == capped);
        CHECK(pass.threads_per_transform < row.threads_per_transform);
        CHECK(pass.threads_per_transform <= cap);
        CHECK(static_cast<long long>(pass.threads_per_transform) * pass.transforms_per_block <=
              idgpu::fft::kWideThreads);
        CHECK(pass.smem_shift == idgpu::fft::kUnpaddedShift);
        CHECK(pass.shared_bytes <= limits.shared_bytes_per_block / 2);
        // Every stage's butterflies covered, none with more than 2 E + r elements a thread.
        for (const int r : pass.radices) {
          const int butterflies = static_cast<int>(n) / r;
          const int per_thread =
              idgpu::fft::stage_butterflies_per_thread(r, butterflies, pass.threads_per_transform);
          CHECK(static_cast<long long>(per_thread) * pass.threads_per_transform >= butterflies);
          CHECK(per_thread * r <= 2 * e + r);
        }
        const RuntimeSequence sequence = idgpu::fft::runtime_sequence(pass, element);
        CHECK(sequence.layout == RuntimeLayout::kWide);
        CHECK(sequence.thread_cap == cap);
      }
    }
  }
  // Dozens of lengths in each setting (3780 in fp32: 9 7 5 4 3, 540 threads in the row layout).
  CHECK(wide > 100);
  DeviceLimits limits = limits_with(true);
  limits.wide_elements = 24;
  const FftPlanResult n3780 = idgpu::fft::plan_c2c_any(3780, 100, Precision::kSingle, limits);
  REQUIRE(n3780.plan.has_value());
  CHECK(n3780.plan->passes[0].wide);
  CHECK(n3780.plan->passes[0].widened_limit == 158);
  CHECK(n3780.plan->passes[0].threads_per_transform <= 158);
  // Not without run-time kernels, not a real plan's pass, not a power of two, not a thread-layout
  // length.
  limits.runtime_sequences = false;
  const FftPlanResult without = idgpu::fft::plan_c2c_any(3780, 100, Precision::kSingle, limits);
  REQUIRE(without.plan.has_value());
  for (const auto& pass : without.plan->passes) CHECK_FALSE(pass.wide);
  limits.runtime_sequences = true;
  limits.thread_transforms = 1;
  for (const long long n : {3780LL, 1000LL, 2048LL, 24LL, 2310LL}) {
    CAPTURE(n);
    for (const idgpu::fft::Kind kind : {idgpu::fft::Kind::kR2C, idgpu::fft::Kind::kC2R}) {
      const FftPlanResult real = idgpu::fft::plan_real_1d(kind, n, 1000, Precision::kSingle, limits);
      REQUIRE(real.plan.has_value());
      for (const auto& pass : real.plan->passes) CHECK_FALSE(pass.wide);
    }
    const FftPlanResult complex = idgpu::fft::plan_c2c_any(n, 1000, Precision::kSingle, limits);
    REQUIRE(complex.plan.has_value());
    // 1000 (compiled, 67 threads) and 2310 (330) keep the row layout in fp32.
    CHECK(complex.plan->passes[0].wide == (n == 3780));
  }
}

// The wide layout on other devices' shared memory and other settings: never a pass it cannot
// launch (the row layout's exchanges fit, the block within its bound), never past the 4096 points
// measured, never an axis of a multi-dimensional plan or a strided one. Nor a run-time pass whose
// stages widen to the block limit outside the row layout (on a 99 or 163 KB block, fp32 lengths
// such as 15625 = 5^6 were planned as one padded pass that no kernel had; they take two now).
TEST_CASE("runtime kernels: wide passes fit every block they are planned for", "[cpu][fft][runtime][wide]") {
  int wide = 0;
  for (const std::size_t shared : {std::size_t{227} * 1024, std::size_t{163} * 1024, std::size_t{99} * 1024}) {
    for (const int elements : {8, 25, 41, 64}) {
      for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
        const std::size_t element = idgpu::fft::complex_element_bytes(precision);
        for (long long n = 1000; n <= 16384; ++n) {
          if (!idgpu::fft::smooth13(n)) continue;
          CAPTURE(shared, elements, n, static_cast<int>(precision));
          DeviceLimits limits = limits_with(true);
          limits.shared_bytes_per_block = shared;
          limits.wide_elements = elements;
          const FftPlanResult planned = idgpu::fft::plan_c2c_any(n, 1000, precision, limits);
          if (!planned.plan) continue;
          for (const auto& pass : planned.plan->passes) {
            // A run-time pass whose stages widen has only a row-layout kernel.
            if (pass.runtime_kernel && pass.widened_limit > 0) CHECK(pass.smem_shift == idgpu::fft::kUnpaddedShift);
            if (!pass.wide) continue;
            ++wide;
            CHECK(planned.plan->passes.size() == 1);
            CHECK(pass.size <= 4096);
            CHECK(pass.smem_shift == idgpu::fft::kUnpaddedShift);
            CHECK(pass.shared_bytes <= shared);
            CHECK(static_cast<std::size_t>(pass.smem_stride) * element * pass.transforms_per_block ==
                  pass.shared_bytes);
            CHECK(pass.smem_stride >= idgpu::fft::fixed_sequence_extent(
                                          pass.radices.data(), static_cast<int>(pass.radices.size()),
                                          static_cast<int>(element)));
            CHECK(static_cast<long long>(pass.threads_per_transform) * pass.transforms_per_block <=
                  idgpu::fft::kWideThreads);
            CHECK(pass.threads_per_transform == idgpu::fft::sequence_threads(
                                                    pass.radices.data(), static_cast<int>(pass.radices.size()),
                                                    pass.widened_limit));
          }
        }
      }
    }
  }
  // Hundreds of them (927 when written).
  CHECK(wide > 500);
  // Not the axes of a 2D or 3D plan, nor a strided layout's pass.
  DeviceLimits limits = limits_with(true);
  limits.wide_elements = 24;
  for (const long long n : {3780LL, 3920LL, 2310LL}) {
    CAPTURE(n);
    for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
      const long long dims2[] = {n, n};
      const FftPlanResult two = idgpu::fft::plan_c2c(2, dims2, 1, precision, limits);
      if (two.plan) {
        for (const auto& pass : two.plan->passes) CHECK_FALSE(pass.wide);
      }
      const long long dims3[] = {4, 6, n};
      const FftPlanResult three = idgpu::fft::plan_c2c(3, dims3, 2, precision, limits);
      if (three.plan) {
        for (const auto& pass : three.plan->passes) CHECK_FALSE(pass.wide);
      }
      const FftPlanResult strided = idgpu::fft::plan_c2c_strided(n, 5, 1, n + 3, 1, n + 5, precision, limits);
      REQUIRE(strided.plan.has_value());
      for (const auto& pass : strided.plan->passes) CHECK_FALSE(pass.wide);
    }
  }
  // The 1D plan of the same length takes it (fp32 3780 and 3920, fp64 all three).
  CHECK(idgpu::fft::plan_c2c_any(3920, 5, Precision::kSingle, limits).plan->passes[0].wide);
  CHECK(idgpu::fft::plan_c2c_any(2310, 5, Precision::kDouble, limits).plan->passes[0].wide);
}

// As for the thread layout: the host executor splits each stage's butterflies over the wide
// pass's threads as WideStages does, so this checks the plan's threads cover every butterfly and
// the DFT comes out; the register code is the GPU tests' to check.
TEST_CASE("runtime kernels: wide-layout plans compute the DFT on the host executor", "[cpu][fft][runtime][wide]") {
  std::mt19937 rng(13);
  int checked = 0;
  for (const long long n : {1890LL, 2310LL, 3375LL, 3773LL, 3780LL, 3920LL, 4032LL, 4095LL}) {
    for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
      for (const int sign : {-1, 1}) {
        CAPTURE(n, sign, static_cast<int>(precision));
        DeviceLimits limits = limits_with(true);
        limits.wide_elements = 24;
        const long long batch = 3;
        const FftPlanResult planned = idgpu::fft::plan_c2c_any(n, batch, precision, limits);
        REQUIRE(planned.plan.has_value());
        if (!planned.plan->passes[0].wide) continue;
        CHECK(executor_error(*planned.plan, n, batch, sign, &rng, 17, 1, true) < 1e-12);
        ++checked;
      }
    }
  }
  // Both signs of every length but 4095 (13 9 7 5, a compiled sequence) in fp64 (270..576 threads
  // in the row layout), and of those above 512 threads in fp32 (3773, 3780, 3920, 4032).
  CHECK(checked == 2 * (7 + 4));
}

TEST_CASE("runtime kernels: names, labels and the cache files", "[cpu][fft][runtime]") {
  const auto make = [](int bytes, RuntimeLayout layout, std::vector<int> radices) {
    RuntimeSequence sequence;
    sequence.element_bytes = bytes;
    sequence.layout = layout;
    sequence.radices = std::move(radices);
    return sequence;
  };
  const std::string kernels = "idgpu::fft::kernels::pass_kernel::";
  const RuntimeSequence sequence = make(8, RuntimeLayout::kRows, {13, 11, 7});
  const RuntimeSequence padded = make(16, RuntimeLayout::kPadded, {13, 11, 7});
  const RuntimeSequence thread = make(8, RuntimeLayout::kThread, {5, 3, 2});
  CHECK(idgpu::fft::runtime_kernel_name(sequence, false) ==
        kernels + "stockham_pass<float, false, " + kernels + "FixedStages<13, 11, 7>>");
  CHECK(idgpu::fft::runtime_kernel_name(padded, true) ==
        kernels + "stockham_pass<double, true, " + kernels + "PaddedFixedStages<13, 11, 7>>");
  CHECK(idgpu::fft::runtime_kernel_name(thread, false) ==
        kernels + "stockham_pass<float, false, " + kernels + "ThreadStages<5, 3, 2>>");
  CHECK(idgpu::fft::runtime_sequence_label(sequence) == "f32-rows-13x11x7");
  CHECK(idgpu::fft::runtime_sequence_label(padded) == "f64-padded-13x11x7");
  CHECK(idgpu::fft::runtime_sequence_label(thread) == "f32-thread-5x3x2");
  RuntimeSequence wide = make(8, RuntimeLayout::kWide, {9, 7, 5, 4, 3});
  wide.thread_cap = 158;
  CHECK(idgpu::fft::runtime_kernel_name(wide, true) ==
        kernels + "stockham_pass<float, true, " + kernels + "WideStages<158, 9, 7, 5, 4, 3>>");
  CHECK(idgpu::fft::runtime_sequence_label(wide) == "f32-wide158-9x7x5x4x3");
  RuntimeSequence wider = wide;
  wider.thread_cap = 119;
  CHECK(wider < wide);
  CHECK_FALSE(wider == wide);
  CHECK(idgpu::fft::runtime_cache_file("/c", wide, 90) != idgpu::fft::runtime_cache_file("/c", wider, 90));
  const RuntimeSequence thread_rows = make(8, RuntimeLayout::kRows, {5, 3, 2});
  CHECK(thread_rows < thread);
  CHECK_FALSE(thread_rows == thread);
  CHECK(idgpu::fft::runtime_cache_file("/c", thread, 90) != idgpu::fft::runtime_cache_file("/c", thread_rows, 90));
  CHECK(idgpu::fft::runtime_layout(idgpu::fft::kThreadShift) == RuntimeLayout::kThread);
  CHECK(idgpu::fft::runtime_layout(idgpu::fft::kUnpaddedShift) == RuntimeLayout::kRows);
  CHECK(idgpu::fft::runtime_layout(idgpu::fft::smem_padding_shift(8)) == RuntimeLayout::kPadded);

  const std::string file90 = idgpu::fft::runtime_cache_file("/c", sequence, 90);
  CHECK(file90.rfind("/c/fft-", 0) == 0);
  CHECK(file90.find("-sm90-f32-rows-13x11x7.cubin") != std::string::npos);
  CHECK(idgpu::fft::runtime_cache_file("/c", sequence, 80) != file90);
  CHECK(idgpu::fft::runtime_cache_file("/c", padded, 90) != file90);

  TemporaryDirectory directory;
  RuntimeBinary binary;
  binary.names[0] = "_Zforward";
  binary.names[1] = "_Zinverse";
  binary.cubin = std::string("\x7f" "ELF\n\0binary\n", 13);
  const std::string file = (directory.path / "nested" / "k.cubin").string();
  REQUIRE(idgpu::fft::store_runtime_binary(file, binary));
  RuntimeBinary read;
  REQUIRE(idgpu::fft::read_runtime_binary(file, &read));
  CHECK(read.names[0] == binary.names[0]);
  CHECK(read.names[1] == binary.names[1]);
  CHECK(read.cubin == binary.cubin);
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory.path / "nested")) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
  RuntimeBinary garbage;
  CHECK_FALSE(garbage.parse("not a kernel file\na\nb\ncubin"));
  CHECK_FALSE(garbage.parse(std::string("idgpu fft runtime kernels 1\nonly one name\n")));
  CHECK_FALSE(idgpu::fft::read_runtime_binary((directory.path / "missing").string(), &garbage));
}

TEST_CASE("runtime kernels: NVRTC compiles a sequence's kernels from the embedded sources", "[cpu][fft][runtime]") {
  std::string why;
  if (!idgpu::fft::runtime_compiler_available(&why)) {
    WARN("skipped: " << why);
    return;
  }
  CHECK(idgpu::fft::runtime_compiler_version() >= 12000);
  for (const RuntimeLayout layout :
       {RuntimeLayout::kRows, RuntimeLayout::kPadded, RuntimeLayout::kThread, RuntimeLayout::kWide}) {
    for (const int bytes : {8, 16}) {
      RuntimeSequence sequence;
      sequence.element_bytes = bytes;
      sequence.layout = layout;
      if (layout == RuntimeLayout::kWide) sequence.thread_cap = bytes == 8 ? 42 : 84;  // 1001 / 24, / 12
      // The thread layout's sequences are short (a thread's registers): 5 3 2 and 4 3.
      sequence.radices = layout != RuntimeLayout::kThread ? std::vector<int>{13, 11, 7}
                         : bytes == 8                     ? std::vector<int>{5, 3, 2}
                                                          : std::vector<int>{4, 3};
      CAPTURE(idgpu::fft::runtime_sequence_label(sequence));
      std::string error;
      const RuntimeBinary binary = idgpu::fft::compile_runtime_sequence(sequence, 90, &error);
      INFO(error);
      REQUIRE_FALSE(binary.cubin.empty());
      CHECK(binary.cubin.compare(0, 4, "\x7f" "ELF") == 0);
      for (const std::string& name : binary.names) {
        CHECK(name.rfind("_ZN5idgpu3fft7kernels11pass_kernel13stockham_pass", 0) == 0);
        CHECK(binary.cubin.find(name) != std::string::npos);  // in the cubin's symbol table
      }
      CHECK(binary.names[0] != binary.names[1]);
    }
  }
  // An architecture NVRTC does not know fails with a reason, not a crash.
  RuntimeSequence sequence;
  sequence.element_bytes = 8;
  sequence.radices = {13, 11, 7};
  std::string error;
  CHECK(idgpu::fft::compile_runtime_sequence(sequence, 1, &error).cubin.empty());
  CHECK_FALSE(error.empty());
}

TEST_CASE("runtime kernels: compile_runtime_sequences fills the cache in parallel and keeps what is there",
          "[cpu][fft][runtime]") {
  if (!idgpu::fft::runtime_compiler_available()) {
    WARN("skipped: no NVRTC");
    return;
  }
  if (std::getenv("IDGPU_CACHE_DIR") != nullptr) {
    WARN("skipped: IDGPU_CACHE_DIR is set (the CPU tests run with it unset)");
    return;
  }
  TemporaryDirectory directory;
  const char* previous = std::getenv("XDG_CACHE_HOME");
  const std::string saved = previous != nullptr ? previous : "";
  setenv("XDG_CACHE_HOME", directory.path.c_str(), 1);
  REQUIRE(idgpu::fft::runtime_cache_directory() == (directory.path / "idgpu").string());
  const FftPlanResult planned = idgpu::fft::plan_c2c_any(1001 * 7, 2, Precision::kSingle, limits_with(true));
  REQUIRE(planned.plan.has_value());
  const std::vector<RuntimeSequence> sequences = idgpu::fft::runtime_sequences_of(*planned.plan);
  REQUIRE(!sequences.empty());
  std::vector<std::string> failures;
  CHECK(idgpu::fft::compile_runtime_sequences(sequences, 90, 2, &failures) == static_cast<int>(sequences.size()));
  CHECK(failures.empty());
  for (const RuntimeSequence& sequence : sequences) {
    RuntimeBinary binary;
    CHECK(idgpu::fft::read_runtime_binary(
        idgpu::fft::runtime_cache_file(idgpu::fft::runtime_cache_directory(), sequence, 90), &binary));
  }
  CHECK(idgpu::fft::compile_runtime_sequences(sequences, 90, 2, &failures) == 0);  // all cached
  if (previous != nullptr) {
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
}
