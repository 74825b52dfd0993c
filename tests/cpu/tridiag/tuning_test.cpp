// The tridiagonal tuning table (src/tridiag/tuning.cpp): native only where a row measured it
// faster, per device class (compute capability and peak DRAM bandwidth).
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "tridiag/tuning.h"

namespace tridiag = idgpu::tridiag;

namespace {

constexpr int kH100Gbs = 3352;  // H100 SXM as CUDA reports it
constexpr int kH200Gbs = 4814;

tridiag::Problem interleaved(int algo, int element_bytes, bool complex, int m, int batch) {
  tridiag::Problem problem{};
  problem.layout = tridiag::Layout::kInterleaved;
  problem.element_bytes = element_bytes;
  problem.complex = complex;
  problem.m = m;
  problem.n = 1;
  problem.ldb = m;
  problem.batch = batch;
  problem.batch_stride = m;
  problem.algo = algo;
  return problem;
}

bool wins(const tridiag::Problem& problem, int arch, int gbs) {
  const char* reason = nullptr;
  const bool native = tridiag::native_wins(problem, {arch, gbs}, &reason);
  if (!native) {
    REQUIRE(reason != nullptr);
    CHECK(std::string(reason).find("vendor") != std::string::npos);
  }
  return native;
}

}  // namespace

TEST_CASE("tridiagonal tuning: algos 1 and 2 natively only where measured", "[cpu][tridiag][tuning]") {
  const int batch = 1 << 19;  // 2^24 unknowns at m = 32, as measured
  // H100: f32, f64 and c32 at m = 32, both algorithms; c64 not.
  for (int algo : {1, 2}) {
    CAPTURE(algo);
    CHECK(wins(interleaved(algo, 4, false, 32, batch), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 8, false, 32, batch), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 8, true, 32, batch), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 16, true, 32, batch), 90, kH100Gbs));
    // H200 (U recomputed from checkpoints): every precision from m = 32 at batches from 1000,
    // f32 to m = 4096 and from m = 8, c64 QR from m = 8; shorter systems, smaller batches and
    // unmeasured lengths stay with the vendor.
    CHECK(wins(interleaved(algo, 4, false, 32, batch), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 8, false, 32, batch), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 8, true, 32, batch), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 16, true, 32, batch), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 4, false, 8, 1000), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 4, false, 4096, 1 << 20), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 8, true, 1024, 16384), 90, kH200Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 7, 1 << 20), 90, kH200Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 64, 999), 90, kH200Gbs));
    CHECK_FALSE(wins(interleaved(algo, 8, false, 16, 1 << 20), 90, kH200Gbs));
    CHECK_FALSE(wins(interleaved(algo, 8, false, 2048, 8192), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 16, true, 16, 1 << 20), 90, kH200Gbs) == (algo == 2));
    // Other lengths, small batches, unmeasured devices: the vendor.
    CHECK_FALSE(wins(interleaved(algo, 4, false, 64, batch / 2), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 16, batch * 2), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 32, 1000), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 32, batch), 80, 2039));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 32, batch), 90, 2000));
    // The host's pre-check (before any device query) says the native side could win.
    CHECK(wins(interleaved(algo, 4, false, 32, batch), idgpu::kAnyArch, idgpu::kAnyBandwidth));
  }
  // Long systems (the gathered batch's chunked pivoting), H100 and H200, up to the largest batch
  // measured to win: f32 m = 256..1023 to batch 1000, 1024..4095 to 4096, from 4096 to 16384.
  for (int algo : {1, 2}) {
    CAPTURE(algo);
    CHECK(wins(interleaved(algo, 4, false, 256, 1000), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 256, 1001), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 255, 1000), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 4, false, 1024, 4096), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 1024, 4097), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 4, false, 4096, 16384), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 4, false, 65536, 1000), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 4, false, 4096, 16385), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 8, false, 4096, 1000), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 8, true, 256, 1000), 90, kH100Gbs));
    CHECK_FALSE(wins(interleaved(algo, 8, true, 4096, 1001), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 16, true, 1024, 1000), 90, kH100Gbs));
    CHECK(wins(interleaved(algo, 4, false, 4096, 1000), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 4, false, 4096, 16384), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 4, false, 256, 4096), 90, kH200Gbs));   // one thread a system
    CHECK(wins(interleaved(algo, 4, false, 64, 65536), 90, kH200Gbs));
    CHECK(wins(interleaved(algo, 8, true, 4096, 1000), 90, kH200Gbs));
  }
  // c64 at m = 256: algo 1 lost (0.98x), algo 2 won (1.11x).
  CHECK_FALSE(wins(interleaved(1, 16, true, 256, 1000), 90, kH100Gbs));
  CHECK(wins(interleaved(2, 16, true, 256, 1000), 90, kH100Gbs));
  // Algo 0 rows hold on both sm_90 classes measured, and on no other device (a bandwidth the
  // device does not report included).
  CHECK(wins(interleaved(0, 4, false, 1024, 16384), 90, kH100Gbs));
  CHECK(wins(interleaved(0, 4, false, 1024, 16384), 90, kH200Gbs));
  CHECK(wins(interleaved(0, 16, true, 65536, 256), 90, kH200Gbs));
  CHECK_FALSE(wins(interleaved(0, 16, true, 65536, 256), 90, 0));
  CHECK_FALSE(wins(interleaved(0, 4, false, 1024, 16384), 80, 2039));
}

TEST_CASE("tridiagonal tuning: algos 1 and 2 gather long systems in small batches", "[cpu][tridiag][tuning]") {
  const auto gathered = [](int algo, int element_bytes, bool complex, int m, int batch) {
    return idgpu::tridiag::gathered_batch_wins(interleaved(algo, element_bytes, complex, m, batch));
  };
  for (int algo : {1, 2}) {
    CAPTURE(algo);
    CHECK(gathered(algo, 4, false, 512, 1000));     // LU 2.58x against 1.82x one thread a system
    CHECK(gathered(algo, 4, false, 65536, 256));    // 56x against 2.4x
    CHECK(gathered(algo, 4, false, 1024, 4096));    // 2.50x against 2.25x
    CHECK(gathered(algo, 4, false, 4096, 4096));    // 3.72x against 2.49x
    CHECK_FALSE(gathered(algo, 4, false, 256, 1000));    // 1.59x against 1.78x
    CHECK_FALSE(gathered(algo, 4, false, 512, 4096));    // 1.67x against 1.93x (QR 1.77x / 1.89x)
    CHECK_FALSE(gathered(algo, 4, false, 1024, 16384));  // 1.02x against 2.53x
    CHECK_FALSE(gathered(algo, 4, false, 4096, 16384));  // 1.19x against 2.60x
    CHECK_FALSE(gathered(algo, 4, false, 64, 1));
    CHECK_FALSE(gathered(algo, 8, true, 256, 1000));     // c32: QR 1.37x against 1.47x
  }
  // QR in f64 and c64 at m = 256, batch 1000: gathered 1.50x / 1.15x against 1.39x / 1.05x.
  CHECK(gathered(2, 8, false, 256, 1000));
  CHECK(gathered(2, 16, true, 256, 1000));
  CHECK_FALSE(gathered(1, 8, false, 256, 1000));  // LU f64 1.14x against 1.34x
  CHECK_FALSE(gathered(2, 8, false, 256, 1001));
}

TEST_CASE("tridiagonal tuning: gtsv2_nopivot natively for up to 16 right-hand sides from 1000 rows",
          "[cpu][tridiag][tuning]") {
  auto nopivot = [](int element_bytes, bool complex, int m, int n) {
    tridiag::Problem problem = interleaved(0, element_bytes, complex, m, 0);
    problem.layout = tridiag::Layout::kSingleNopivot;
    problem.algo = -1;
    problem.n = n;
    return problem;
  };
  for (const auto& [bytes, complex] : {std::pair{4, false}, {8, false}, {8, true}, {16, true}}) {
    CAPTURE(bytes, complex);
    // Measured 1000 .. 2^26 rows (H100); the solver's levels do not change past that.
    CHECK(wins(nopivot(bytes, complex, 1000, 1), 90, kH100Gbs));
    CHECK(wins(nopivot(bytes, complex, 1 << 26, 1), 90, kH100Gbs));
    CHECK(wins(nopivot(bytes, complex, 0x7fffffff, 1), 90, kH100Gbs));
    CHECK(wins(nopivot(bytes, complex, 1 << 20, 16), 90, kH100Gbs));
    CHECK(wins(nopivot(bytes, complex, 1000, 3), 90, kH100Gbs));
    // Shorter systems and more right-hand sides are not measured: the vendor.
    CHECK_FALSE(wins(nopivot(bytes, complex, 999, 1), 90, kH100Gbs));
    CHECK_FALSE(wins(nopivot(bytes, complex, 1 << 20, 17), 90, kH100Gbs));
    CHECK_FALSE(wins(nopivot(bytes, complex, 1 << 20, 1), 80, 2039));
  }
}

TEST_CASE("tridiagonal tuning: gtsv2 (pivoting) goes native where an H100 or H200 measured it faster",
          "[cpu][tridiag][tuning]") {
  // Faster than the vendor on dominant and refined non-dominant matrices alike at one system of
  // about a thousand rows and from 2^24 rows (f32 from 2^26, c64 from 2^20), one right-hand side;
  // measured on an H100 and an H200. On an H200, f64 and c32 also from 2^22.
  for (const auto& [bytes, complex] : {std::pair{4, false}, {8, false}, {8, true}, {16, true}}) {
    CAPTURE(bytes, complex);
    auto pivot = [bytes = bytes, complex = complex](int m, int n) {
      tridiag::Problem problem = interleaved(0, bytes, complex, m, 0);
      problem.layout = tridiag::Layout::kSingle;
      problem.algo = -1;
      problem.n = n;
      return problem;
    };
    const bool wide = bytes == 16;
    const bool f32 = bytes == 4;
    CHECK(wins(pivot(1000, 1), 90, kH100Gbs));
    CHECK(wins(pivot(1024, 1), 90, kH100Gbs));
    CHECK(wins(pivot(1 << 24, 1), 90, kH100Gbs) == !f32);
    CHECK(wins(pivot((1 << 26) - 1, 1), 90, kH100Gbs) == !f32);
    CHECK(wins(pivot(1 << 26, 1), 90, kH100Gbs));
    CHECK(wins(pivot(0x7fffffff, 1), 90, kH100Gbs));
    CHECK(wins(pivot(1 << 20, 1), 90, kH100Gbs) == wide);
    for (const int m : {3, 999, 1025, 1 << 16, (1 << 20) - 1}) {
      CAPTURE(m);
      CHECK_FALSE(wins(pivot(m, 1), 90, kH100Gbs));
    }
    // More right-hand sides, another device class: not measured, the vendor.
    CHECK_FALSE(wins(pivot(1000, 2), 90, kH100Gbs));
    CHECK_FALSE(wins(pivot(1 << 24, 16), 90, kH100Gbs));
    CHECK(wins(pivot(1000, 1), 90, kH200Gbs));
    CHECK(wins(pivot(1 << 24, 1), 90, kH200Gbs) == !f32);
    CHECK(wins(pivot(1 << 20, 1), 90, kH200Gbs) == wide);
    CHECK(wins(pivot(1 << 26, 1), 90, kH200Gbs));
    const bool f64_or_c32 = bytes == 8;
    CHECK(wins(pivot(1 << 22, 1), 90, kH200Gbs) == (f64_or_c32 || wide));
    CHECK(wins(pivot((1 << 22) - 1, 1), 90, kH200Gbs) == wide);
    CHECK(wins(pivot(1 << 22, 1), 90, kH100Gbs) == wide);
    CHECK_FALSE(wins(pivot(1 << 16, 1), 90, kH200Gbs));
    CHECK_FALSE(wins(pivot(1000, 1), 80, 2039));
    // On an H200, with the serial solve of the small reduced levels: f32 to 4096 rows, f64 and c32
    // to 2048, c64 not.
    CHECK(wins(pivot(1025, 1), 90, kH200Gbs) == !wide);
    CHECK(wins(pivot(2048, 1), 90, kH200Gbs) == !wide);
    CHECK(wins(pivot(2049, 1), 90, kH200Gbs) == f32);
    CHECK(wins(pivot(4096, 1), 90, kH200Gbs) == f32);
    CHECK_FALSE(wins(pivot(4097, 1), 90, kH200Gbs));
    CHECK_FALSE(wins(pivot(2048, 2), 90, kH200Gbs));
  }
}

TEST_CASE("tridiagonal tuning: devices of no measured class keep the vendor", "[cpu][tridiag][tuning]") {
  // One problem of every row family that wins on both sm_90 classes measured.
  auto layout = [](tridiag::Layout to, tridiag::Problem problem) {
    problem.layout = to;
    problem.algo = -1;
    return problem;
  };
  const tridiag::Problem measured[] = {
      layout(tridiag::Layout::kStrided, interleaved(0, 4, false, 1024, 16384)),
      layout(tridiag::Layout::kStrided, interleaved(0, 16, true, 4096, 4096)),
      interleaved(0, 8, false, 1024, 16384),
      interleaved(0, 8, true, 65536, 256),
      layout(tridiag::Layout::kSingleNopivot, interleaved(0, 4, false, 1 << 20, 0)),
      interleaved(1, 4, false, 32, 1 << 19),
  };
  // Architectures the kernels run on (sm_80 and sm_89 built, sm_100 and sm_120 from PTX) but no
  // row was timed on, and sm_90 parts outside both measured bandwidth bands (an H100 PCIe at
  // 2000 GB/s, a part between the H100 and H200 bands, one above the H200's, one not reporting).
  const std::pair<int, int> unmeasured[] = {{80, 2039}, {89, 864},   {100, 8000}, {100, kH100Gbs}, {120, 1792},
                                            {120, kH200Gbs}, {90, 2000}, {90, 4200}, {90, 6000}, {90, 0}};
  for (const tridiag::Problem& problem : measured) {
    CAPTURE(static_cast<int>(problem.layout), problem.algo, problem.element_bytes, problem.m, problem.batch);
    CHECK(wins(problem, 90, kH100Gbs));
    CHECK(wins(problem, 90, kH200Gbs));
    CHECK(wins(problem, idgpu::kAnyArch, idgpu::kAnyBandwidth));
    for (const auto& [arch, gbs] : unmeasured) {
      CAPTURE(arch, gbs);
      const char* reason = nullptr;
      CHECK_FALSE(tridiag::native_wins(problem, {arch, gbs}, &reason));
      REQUIRE(reason != nullptr);
      CHECK(std::string(reason).find("never measured") != std::string::npos);
    }
  }
}

TEST_CASE("the gathered algos 1 and 2: one block a system where measured faster", "[cpu][tuning]") {
  using idgpu::tridiag::gathered_one_block_a_system;
  CHECK(gathered_one_block_a_system(4096, 256, 4, -1));
  CHECK(gathered_one_block_a_system(4096, 1000, 4, -1));
  CHECK(gathered_one_block_a_system(8192, 1000, 4, -1));
  CHECK(gathered_one_block_a_system(16384, 256, 4, -1));
  CHECK_FALSE(gathered_one_block_a_system(16384, 1000, 4, -1));  // H200 0.937 / 0.868 ms level by level
  CHECK_FALSE(gathered_one_block_a_system(4096, 1001, 4, -1));   // batch 4096 lost (1.25 / 1.03 ms)
  CHECK_FALSE(gathered_one_block_a_system(1024, 1000, 4, -1));   // a tie at best
  CHECK_FALSE(gathered_one_block_a_system(65536, 256, 4, -1));   // not measured
  CHECK_FALSE(gathered_one_block_a_system(4096, 1000, 8, -1));   // f64 lost (0.74 / 0.52 ms)
  CHECK_FALSE(gathered_one_block_a_system(4096, 1000, 16, -1));  // c64 lost
  // IDGPU_PIVOT_ONE_BLOCK decides where set.
  CHECK(gathered_one_block_a_system(256, 65536, 16, 1));
  CHECK_FALSE(gathered_one_block_a_system(4096, 256, 4, 0));
}
