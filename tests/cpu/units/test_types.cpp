// src/fft/descriptor.cpp: the cufftType <-> (kind, precision) mapping and the Xt type triples.
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "fft/descriptor.h"

using namespace idgpu::fft;

TEST_CASE("decode_type and encode_type round-trip the six cufftTypes", "[cpu][fft][types]") {
  struct Row {
    cufftType type;
    Kind kind;
    Precision precision;
  };
  const Row rows[] = {
      {CUFFT_C2C, Kind::kC2C, Precision::kSingle}, {CUFFT_R2C, Kind::kR2C, Precision::kSingle},
      {CUFFT_C2R, Kind::kC2R, Precision::kSingle}, {CUFFT_Z2Z, Kind::kC2C, Precision::kDouble},
      {CUFFT_D2Z, Kind::kR2C, Precision::kDouble}, {CUFFT_Z2D, Kind::kC2R, Precision::kDouble},
  };
  std::set<std::pair<int, int>> decoded;
  for (const Row& row : rows) {
    CAPTURE(row.type);
    Kind kind = Kind::kC2R;
    Precision precision = Precision::kBfloat16;
    REQUIRE(decode_type(row.type, &kind, &precision));
    CHECK(kind == row.kind);
    CHECK(precision == row.precision);
    CHECK(encode_type(kind, precision) == row.type);
    decoded.insert({static_cast<int>(kind), static_cast<int>(precision)});
  }
  CHECK(decoded.size() == 6);
}

TEST_CASE("decode_type refuses every other value and leaves its outputs alone", "[cpu][fft][types]") {
  for (int value : {0, 1, 0x7f, 0x28, 0x2b, 0x6b, 0x6e, 0x70, -1, 0x7fffffff}) {
    CAPTURE(value);
    Kind kind = Kind::kC2R;
    Precision precision = Precision::kBfloat16;
    CHECK_FALSE(decode_type(static_cast<cufftType>(value), &kind, &precision));
    CHECK(kind == Kind::kC2R);
    CHECK(precision == Precision::kBfloat16);
  }
  // Every valid value in a wide range is one of the six.
  int valid = 0;
  for (int value = -256; value < 1024; ++value) {
    Kind kind;
    Precision precision;
    valid += decode_type(static_cast<cufftType>(value), &kind, &precision) ? 1 : 0;
  }
  CHECK(valid == 6);
}

TEST_CASE("decode_xt_types accepts the twelve (input, output, execution) triples", "[cpu][fft][types]") {
  struct Row {
    cudaDataType in, out, exec;
    Kind kind;
    Precision precision;
  };
  const Row rows[] = {
      {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, Kind::kC2C, Precision::kSingle},
      {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, Kind::kR2C, Precision::kSingle},
      {CUDA_C_32F, CUDA_R_32F, CUDA_C_32F, Kind::kC2R, Precision::kSingle},
      {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, Kind::kC2C, Precision::kDouble},
      {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, Kind::kR2C, Precision::kDouble},
      {CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, Kind::kC2R, Precision::kDouble},
      {CUDA_C_16F, CUDA_C_16F, CUDA_C_16F, Kind::kC2C, Precision::kHalf},
      {CUDA_R_16F, CUDA_C_16F, CUDA_C_16F, Kind::kR2C, Precision::kHalf},
      {CUDA_C_16F, CUDA_R_16F, CUDA_C_16F, Kind::kC2R, Precision::kHalf},
      {CUDA_C_16BF, CUDA_C_16BF, CUDA_C_16BF, Kind::kC2C, Precision::kBfloat16},
      {CUDA_R_16BF, CUDA_C_16BF, CUDA_C_16BF, Kind::kR2C, Precision::kBfloat16},
      {CUDA_C_16BF, CUDA_R_16BF, CUDA_C_16BF, Kind::kC2R, Precision::kBfloat16},
  };
  for (const Row& row : rows) {
    CAPTURE(row.in, row.out, row.exec);
    Kind kind;
    Precision precision;
    REQUIRE(decode_xt_types(row.in, row.out, row.exec, &kind, &precision));
    CHECK(kind == row.kind);
    CHECK(precision == row.precision);
    // Single and double round-trip through cufftType as well.
    if (row.precision == Precision::kSingle || row.precision == Precision::kDouble) {
      Kind back_kind;
      Precision back_precision;
      REQUIRE(decode_type(encode_type(kind, precision), &back_kind, &back_precision));
      CHECK(back_kind == kind);
      CHECK(back_precision == precision);
    }
  }
}

TEST_CASE("decode_xt_types refuses mixed or unsupported triples", "[cpu][fft][types]") {
  struct Row {
    cudaDataType in, out, exec;
  };
  const Row rows[] = {
      {CUDA_C_32F, CUDA_C_64F, CUDA_C_32F},  // mixed precision
      {CUDA_R_32F, CUDA_R_32F, CUDA_C_32F},  // real to real
      {CUDA_R_32F, CUDA_C_32F, CUDA_R_32F},  // real execution type
      {CUDA_C_32F, CUDA_C_32F, CUDA_C_64F},  // execution in another precision
      {CUDA_C_16F, CUDA_C_16BF, CUDA_C_16F},
      {CUDA_C_8I, CUDA_C_8I, CUDA_C_8I},
      {CUDA_R_64F, CUDA_R_64F, CUDA_R_64F},
  };
  for (const Row& row : rows) {
    CAPTURE(row.in, row.out, row.exec);
    Kind kind = Kind::kC2R;
    Precision precision = Precision::kBfloat16;
    CHECK_FALSE(decode_xt_types(row.in, row.out, row.exec, &kind, &precision));
    CHECK(kind == Kind::kC2R);
    CHECK(precision == Precision::kBfloat16);
  }
}
