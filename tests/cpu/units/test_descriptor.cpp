// src/fft/descriptor.cpp: build_descriptor's layouts (checked against cuFFT's documented layout
// formulas, written out independently here), its refusals, and the descriptor's hash/equality.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "fft/descriptor.h"
#include "support/seed.h"

using namespace idgpu::fft;

namespace {

Descriptor build_default(Kind kind, std::vector<long long> n, long long batch = 1,
                         Precision precision = Precision::kSingle) {
  Descriptor descriptor;
  REQUIRE(build_descriptor(static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0, kind, precision, batch,
                           &descriptor) == CUFFT_SUCCESS);
  return descriptor;
}

// cuFFT's basic layout: contiguous row-major data; the innermost axis of the complex side of a
// real transform holds n/2+1 elements. Returns element strides per axis and the distance.
struct Layout {
  std::vector<long long> strides;
  long long distance = 0;
};

Layout contiguous(const std::vector<long long>& lengths) {
  Layout layout;
  layout.strides.assign(lengths.size(), 0);
  long long stride = 1;
  for (std::size_t axis = lengths.size(); axis-- > 0;) {
    layout.strides[axis] = stride;
    stride *= lengths[axis];
  }
  layout.distance = stride;
  return layout;
}

std::vector<long long> side_lengths(const std::vector<long long>& n, bool hermitian) {
  std::vector<long long> lengths = n;
  if (hermitian) lengths.back() = n.back() / 2 + 1;
  return lengths;
}

void check_layout(const Descriptor& descriptor, const std::vector<long long>& n, long long batch, Kind kind) {
  const Layout in = contiguous(side_lengths(n, kind == Kind::kC2R));
  const Layout out = contiguous(side_lengths(n, kind == Kind::kR2C));
  REQUIRE(descriptor.rank == static_cast<int>(n.size()));
  CHECK(descriptor.default_layout);
  for (std::size_t axis = 0; axis < n.size(); ++axis) {
    CAPTURE(axis);
    CHECK(descriptor.dims[axis].n == n[axis]);
    CHECK(descriptor.dims[axis].in_stride == in.strides[axis]);
    CHECK(descriptor.dims[axis].out_stride == out.strides[axis]);
  }
  CHECK(descriptor.batch.n == batch);
  CHECK(descriptor.batch.in_stride == in.distance);
  CHECK(descriptor.batch.out_stride == out.distance);
}

const char* kind_text(Kind kind) { return kind == Kind::kC2C ? "C2C" : kind == Kind::kR2C ? "R2C" : "C2R"; }

}  // namespace

TEST_CASE("default layouts of C2C, R2C and C2R, by hand", "[cpu][fft][descriptor]") {
  SECTION("C2C 1D: unit stride, distance n") {
    const Descriptor d = build_default(Kind::kC2C, {8}, 3);
    CHECK(d.dims[0] == Axis{8, 1, 1});
    CHECK(d.batch == Axis{3, 8, 8});
  }
  SECTION("R2C 1D: the output holds n/2+1") {
    const Descriptor d = build_default(Kind::kR2C, {8}, 2);
    CHECK(d.dims[0] == Axis{8, 1, 1});
    CHECK(d.batch == Axis{2, 8, 5});
  }
  SECTION("R2C 1D, odd n") {
    const Descriptor d = build_default(Kind::kR2C, {7});
    CHECK(d.batch == Axis{1, 7, 4});
  }
  SECTION("C2R 1D: the input holds n/2+1") {
    const Descriptor d = build_default(Kind::kC2R, {8}, 4);
    CHECK(d.batch == Axis{4, 5, 8});
  }
  SECTION("R2C 2D: only the innermost axis is halved") {
    const Descriptor d = build_default(Kind::kR2C, {4, 6});
    CHECK(d.dims[1] == Axis{6, 1, 1});
    CHECK(d.dims[0] == Axis{4, 6, 4});
    CHECK(d.batch == Axis{1, 24, 16});
  }
  SECTION("C2C 3D") {
    const Descriptor d = build_default(Kind::kC2C, {2, 3, 5}, 7);
    CHECK(d.dims[0] == Axis{2, 15, 15});
    CHECK(d.dims[1] == Axis{3, 5, 5});
    CHECK(d.dims[2] == Axis{5, 1, 1});
    CHECK(d.batch == Axis{7, 30, 30});
  }
  SECTION("C2R 3D") {
    const Descriptor d = build_default(Kind::kC2R, {2, 3, 10});
    CHECK(d.dims[0] == Axis{2, 18, 30});
    CHECK(d.dims[1] == Axis{3, 6, 10});
    CHECK(d.dims[2] == Axis{10, 1, 1});
    CHECK(d.batch == Axis{1, 36, 60});
  }
  SECTION("length 1 axes") {
    const Descriptor d = build_default(Kind::kR2C, {1, 1, 1});
    CHECK(d.dims[2] == Axis{1, 1, 1});
    CHECK(d.batch == Axis{1, 1, 1});
  }
}

TEST_CASE("default layouts match cuFFT's formulas for random sizes of rank 1 to 3", "[cpu][fft][descriptor]") {
  const unsigned seed = idgpu::test::test_seed();
  CAPTURE(seed);
  std::mt19937 random(seed);
  std::uniform_int_distribution<long long> length(1, 300);
  std::uniform_int_distribution<long long> batches(1, 1000);
  for (int trial = 0; trial < 600; ++trial) {
    const int rank = 1 + trial % 3;
    const Kind kind = static_cast<Kind>((trial / 3) % 3);
    std::vector<long long> n;
    for (int axis = 0; axis < rank; ++axis) n.push_back(length(random));
    const long long batch = batches(random);
    CAPTURE(trial, rank, kind_text(kind), n, batch);
    const Descriptor d = build_default(kind, n, batch, trial % 2 == 0 ? Precision::kSingle : Precision::kDouble);
    check_layout(d, n, batch, kind);
    long long product = 1;
    for (long long value : n) product *= value;
    CHECK(d.elements_per_transform() == product);
  }
}

TEST_CASE("one NULL embed means the default layout: strides and distances are ignored", "[cpu][fft][descriptor]") {
  const long long n[2] = {4, 6};
  const long long embed[2] = {100, 100};
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    Descriptor d;
    REQUIRE(build_descriptor(2, n, which == 0 ? embed : nullptr, 7, 9999, which == 0 ? nullptr : embed, 5, 8888,
                             Kind::kR2C, Precision::kSingle, 3, &d) == CUFFT_SUCCESS);
    check_layout(d, {4, 6}, 3, Kind::kR2C);
  }
}

TEST_CASE("advanced layout: strides from the embeds and the innermost stride, distances as given",
          "[cpu][fft][descriptor]") {
  SECTION("rank 2, by hand; inembed[0] / onembed[0] are never read") {
    const long long n[2] = {4, 6};
    const long long inembed[2] = {-12345, 8};
    const long long onembed[2] = {0, 7};
    Descriptor d;
    REQUIRE(build_descriptor(2, n, inembed, 2, 100, onembed, 1, 70, Kind::kC2C, Precision::kDouble, 5, &d) ==
            CUFFT_SUCCESS);
    CHECK_FALSE(d.default_layout);
    CHECK(d.dims[1] == Axis{6, 2, 1});
    CHECK(d.dims[0] == Axis{4, 16, 7});
    CHECK(d.batch == Axis{5, 100, 70});
  }
  SECTION("rank 3, random, against input[b*idist + ((x*inembed[1] + y)*inembed[2] + z)*istride]") {
    const unsigned seed = idgpu::test::test_seed();
    CAPTURE(seed);
    std::mt19937 random(seed ^ 0x5eedu);
    std::uniform_int_distribution<long long> small(1, 40);
    for (int trial = 0; trial < 200; ++trial) {
      const long long n[3] = {small(random), small(random), small(random)};
      const long long inembed[3] = {small(random), n[1] + small(random), n[2] + small(random)};
      const long long onembed[3] = {small(random), n[1] + small(random), n[2] + small(random)};
      const long long istride = small(random), ostride = small(random);
      const long long idist = small(random) * 1000, odist = small(random) * 1000;
      CAPTURE(trial, n[0], n[1], n[2], inembed[1], inembed[2], onembed[1], onembed[2], istride, ostride);
      Descriptor d;
      REQUIRE(build_descriptor(3, n, inembed, istride, idist, onembed, ostride, odist, Kind::kC2C, Precision::kSingle,
                               2, &d) == CUFFT_SUCCESS);
      // The offset of element (x, y, z) by the formula and by the descriptor's strides agree.
      const long long x = n[0] - 1, y = n[1] - 1, z = n[2] - 1;
      const long long in_formula = ((x * inembed[1] + y) * inembed[2] + z) * istride;
      const long long out_formula = ((x * onembed[1] + y) * onembed[2] + z) * ostride;
      CHECK(x * d.dims[0].in_stride + y * d.dims[1].in_stride + z * d.dims[2].in_stride == in_formula);
      CHECK(x * d.dims[0].out_stride + y * d.dims[1].out_stride + z * d.dims[2].out_stride == out_formula);
      CHECK(d.dims[2].in_stride == istride);
      CHECK(d.batch == Axis{2, idist, odist});
    }
  }
}

TEST_CASE("build_descriptor refuses bad rank, sizes and batch, and leaves the output alone", "[cpu][fft][descriptor]") {
  const long long n3[3] = {4, 4, 4};
  const long long zero_inner[2] = {4, 0};
  const long long negative_outer[3] = {-1, 4, 4};
  struct Bad {
    const char* name;
    int rank;
    const long long* n;
    long long batch;
    cufftResult expected;
  };
  const Bad cases[] = {
      {"rank 0", 0, n3, 1, CUFFT_INVALID_SIZE},
      {"rank 4", 4, n3, 1, CUFFT_INVALID_SIZE},
      {"rank -1", -1, n3, 1, CUFFT_INVALID_SIZE},
      {"n NULL", 2, nullptr, 1, CUFFT_INVALID_VALUE},
      {"rank 0 and n NULL: rank first", 0, nullptr, 1, CUFFT_INVALID_SIZE},
      {"batch 0", 3, n3, 0, CUFFT_INVALID_SIZE},
      {"batch -7", 1, n3, -7, CUFFT_INVALID_SIZE},
      {"inner length 0", 2, zero_inner, 1, CUFFT_INVALID_SIZE},
      {"outer length -1", 3, negative_outer, 1, CUFFT_INVALID_SIZE},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.name);
    Descriptor d;
    d.rank = 77;  // a sentinel
    d.batch = {11, 12, 13};
    CHECK(build_descriptor(bad.rank, bad.n, nullptr, 1, 0, nullptr, 1, 0, Kind::kC2C, Precision::kSingle, bad.batch,
                           &d) == bad.expected);
    CHECK(d.rank == 77);
    CHECK(d.batch == Axis{11, 12, 13});
  }
}

TEST_CASE("descriptor equality and hash", "[cpu][fft][descriptor]") {
  const Descriptor base = build_default(Kind::kC2C, {16, 32}, 4);
  std::vector<Descriptor> variants;
  variants.push_back(build_default(Kind::kC2C, {16, 33}, 4));
  variants.push_back(build_default(Kind::kC2C, {32, 16}, 4));
  variants.push_back(build_default(Kind::kC2C, {16, 32}, 5));
  variants.push_back(build_default(Kind::kR2C, {16, 32}, 4));
  variants.push_back(build_default(Kind::kC2R, {16, 32}, 4));
  variants.push_back(build_default(Kind::kC2C, {16, 32}, 4, Precision::kDouble));
  variants.push_back(build_default(Kind::kC2C, {512}, 4));
  variants.push_back(build_default(Kind::kC2C, {16, 32, 1}, 4));
  {
    Descriptor strided = base;
    strided.dims[1].in_stride = 2;
    variants.push_back(strided);
    Descriptor distance = base;
    distance.batch.out_stride += 1;
    variants.push_back(distance);
    Descriptor advanced = base;
    advanced.default_layout = false;  // same numbers, but an explicit layout
    variants.push_back(advanced);
    Descriptor half = base;
    half.precision = Precision::kHalf;
    variants.push_back(half);
    Descriptor bf16 = base;
    bf16.precision = Precision::kBfloat16;
    variants.push_back(bf16);
  }

  const Descriptor same = build_default(Kind::kC2C, {16, 32}, 4);
  CHECK(base == same);
  CHECK(base.hash() == same.hash());
  CHECK(DescriptorHash{}(base) == base.hash());

  // Axes beyond the rank are not part of the problem.
  Descriptor garbage = same;
  garbage.dims[2] = Axis{99, 98, 97};
  CHECK(base == garbage);
  CHECK(base.hash() == garbage.hash());

  std::set<std::size_t> hashes{base.hash()};
  for (std::size_t index = 0; index < variants.size(); ++index) {
    CAPTURE(index, variants[index].to_string());
    CHECK_FALSE(base == variants[index]);
    CHECK_FALSE(variants[index] == base);
    hashes.insert(variants[index].hash());
  }
  // Distinct problems, distinct hashes (for this small set, no collision is expected).
  CHECK(hashes.size() == variants.size() + 1);

  std::unordered_set<Descriptor, DescriptorHash> set(variants.begin(), variants.end());
  set.insert(base);
  set.insert(same);
  CHECK(set.size() == variants.size() + 1);
}

TEST_CASE("descriptor text", "[cpu][fft][descriptor]") {
  CHECK(build_default(Kind::kC2C, {8}, 3).to_string() == "c2c_f32 n=8 batch=3");
  CHECK(build_default(Kind::kR2C, {4, 6, 10}, 1, Precision::kDouble).to_string() == "r2c_f64 n=4x6x10 batch=1");
  const long long n[2] = {4, 6};
  const long long embed[2] = {4, 8};
  Descriptor d;
  REQUIRE(build_descriptor(2, n, embed, 2, 100, embed, 1, 50, Kind::kC2R, Precision::kSingle, 2, &d) == CUFFT_SUCCESS);
  CHECK(d.to_string() == "c2r_f32 n=4x6 batch=2 strides=(16,8),(2,1) dist=(100,50)");
}

TEST_CASE("explicit embeds that spell out the default layout count as the default layout", "[cpu][fft][descriptor]") {
  // What PyTorch and CuPy pass: the default layout written out (R2C of rank 2: real side n1 wide,
  // complex side n1 / 2 + 1 wide).
  const long long n[2] = {16, 10};
  const long long real_embed[2] = {16, 10};
  const long long complex_embed[2] = {16, 6};
  Descriptor d;
  REQUIRE(build_descriptor(2, n, real_embed, 1, 160, complex_embed, 1, 96, Kind::kR2C, Precision::kSingle, 3, &d) ==
          CUFFT_SUCCESS);
  CHECK_FALSE(d.default_layout);
  CHECK(has_default_strides(d));
  REQUIRE(build_descriptor(2, n, complex_embed, 1, 96, real_embed, 1, 160, Kind::kC2R, Precision::kSingle, 3, &d) ==
          CUFFT_SUCCESS);
  CHECK(has_default_strides(d));
  // Any other distance, stride or embed is not the default layout; a batch of one ignores distances.
  REQUIRE(build_descriptor(2, n, real_embed, 1, 170, complex_embed, 1, 96, Kind::kR2C, Precision::kSingle, 3, &d) ==
          CUFFT_SUCCESS);
  CHECK_FALSE(has_default_strides(d));
  REQUIRE(build_descriptor(2, n, real_embed, 1, 170, complex_embed, 1, 96, Kind::kR2C, Precision::kSingle, 1, &d) ==
          CUFFT_SUCCESS);
  CHECK(has_default_strides(d));
  REQUIRE(build_descriptor(2, n, real_embed, 2, 320, complex_embed, 1, 96, Kind::kR2C, Precision::kSingle, 3, &d) ==
          CUFFT_SUCCESS);
  CHECK_FALSE(has_default_strides(d));
  const long long wide[2] = {16, 12};
  REQUIRE(build_descriptor(2, n, wide, 1, 192, complex_embed, 1, 96, Kind::kR2C, Precision::kSingle, 3, &d) ==
          CUFFT_SUCCESS);
  CHECK_FALSE(has_default_strides(d));
  REQUIRE(build_descriptor(2, n, nullptr, 5, 7, nullptr, 9, 11, Kind::kC2C, Precision::kDouble, 3, &d) == CUFFT_SUCCESS);
  CHECK(has_default_strides(d));
}
