#include "fft/descriptor.h"

#include <functional>

#include <fmt/format.h>

namespace idgpu::fft {
namespace {

void mix(std::size_t& seed, long long value) {
  seed ^= std::hash<long long>{}(value) + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kC2C: return "c2c";
    case Kind::kR2C: return "r2c";
    case Kind::kC2R: return "c2r";
  }
  return "?";
}

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kSingle: return "f32";
    case Precision::kDouble: return "f64";
    case Precision::kHalf: return "f16";
    case Precision::kBfloat16: return "bf16";
  }
  return "?";
}

}  // namespace

bool Descriptor::operator==(const Descriptor& other) const {
  if (rank != other.rank || kind != other.kind || precision != other.precision ||
      default_layout != other.default_layout || !(batch == other.batch)) {
    return false;
  }
  for (int axis = 0; axis < rank; ++axis) {
    if (!(dims[axis] == other.dims[axis])) return false;
  }
  return true;
}

std::size_t Descriptor::hash() const {
  std::size_t seed = 0;
  mix(seed, rank);
  mix(seed, static_cast<long long>(kind));
  mix(seed, static_cast<long long>(precision));
  mix(seed, default_layout ? 1 : 0);
  for (int axis = 0; axis < rank; ++axis) {
    mix(seed, dims[axis].n);
    mix(seed, dims[axis].in_stride);
    mix(seed, dims[axis].out_stride);
  }
  mix(seed, batch.n);
  mix(seed, batch.in_stride);
  mix(seed, batch.out_stride);
  return seed;
}

long long Descriptor::elements_per_transform() const {
  long long total = 1;
  for (int axis = 0; axis < rank; ++axis) total *= dims[axis].n;
  return total;
}

std::string Descriptor::to_string() const {
  std::string text = fmt::format("{}_{} n=", kind_name(kind), precision_name(precision));
  for (int axis = 0; axis < rank; ++axis) {
    text += fmt::format("{}{}", axis == 0 ? "" : "x", dims[axis].n);
  }
  text += fmt::format(" batch={}", batch.n);
  if (!default_layout) {
    text += " strides=";
    for (int axis = 0; axis < rank; ++axis) {
      text += fmt::format("{}({},{})", axis == 0 ? "" : ",", dims[axis].in_stride, dims[axis].out_stride);
    }
    text += fmt::format(" dist=({},{})", batch.in_stride, batch.out_stride);
  }
  return text;
}

bool decode_type(cufftType type, Kind* kind, Precision* precision) {
  switch (type) {
    case CUFFT_C2C: *kind = Kind::kC2C; *precision = Precision::kSingle; return true;
    case CUFFT_R2C: *kind = Kind::kR2C; *precision = Precision::kSingle; return true;
    case CUFFT_C2R: *kind = Kind::kC2R; *precision = Precision::kSingle; return true;
    case CUFFT_Z2Z: *kind = Kind::kC2C; *precision = Precision::kDouble; return true;
    case CUFFT_D2Z: *kind = Kind::kR2C; *precision = Precision::kDouble; return true;
    case CUFFT_Z2D: *kind = Kind::kC2R; *precision = Precision::kDouble; return true;
  }
  return false;
}

cufftType encode_type(Kind kind, Precision precision) {
  const bool dbl = precision == Precision::kDouble;
  switch (kind) {
    case Kind::kC2C: return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case Kind::kR2C: return dbl ? CUFFT_D2Z : CUFFT_R2C;
    case Kind::kC2R: return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

bool decode_xt_types(cudaDataType input, cudaDataType output, cudaDataType execution, Kind* kind,
                     Precision* precision) {
  struct Row {
    cudaDataType input, output, execution;
    Kind kind;
    Precision precision;
  };
  static const Row kRows[] = {
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
  for (const Row& row : kRows) {
    if (row.input == input && row.output == output && row.execution == execution) {
      *kind = row.kind;
      *precision = row.precision;
      return true;
    }
  }
  return false;
}

cufftResult build_descriptor(int rank, const long long* n, const long long* inembed, long long istride,
                             long long idist, const long long* onembed, long long ostride, long long odist,
                             Kind kind, Precision precision, long long batch, Descriptor* out) {
  if (rank < 1 || rank > 3) return CUFFT_INVALID_SIZE;
  if (n == nullptr) return CUFFT_INVALID_VALUE;
  if (batch < 1) return CUFFT_INVALID_SIZE;
  Descriptor descriptor;
  descriptor.rank = rank;
  descriptor.kind = kind;
  descriptor.precision = precision;
  for (int axis = 0; axis < rank; ++axis) {
    if (n[axis] < 1) return CUFFT_INVALID_SIZE;
    descriptor.dims[axis].n = n[axis];
  }
  // Logical lengths of the innermost axis on each side (Hermitian half for the complex side).
  const long long last = n[rank - 1];
  const long long in_last = kind == Kind::kC2R ? last / 2 + 1 : last;
  const long long out_last = kind == Kind::kR2C ? last / 2 + 1 : last;

  descriptor.default_layout = inembed == nullptr || onembed == nullptr;
  long long in_stride = 1;
  long long out_stride = 1;
  if (descriptor.default_layout) {
    for (int axis = rank - 1; axis >= 0; --axis) {
      descriptor.dims[axis].in_stride = in_stride;
      descriptor.dims[axis].out_stride = out_stride;
      in_stride *= axis == rank - 1 ? in_last : n[axis];
      out_stride *= axis == rank - 1 ? out_last : n[axis];
    }
    descriptor.batch = {batch, in_stride, out_stride};
  } else {
    // Strides and embeds are not judged here: a layout the vendor refuses is refused by the
    // vendor plan, and the native planner declines layouts it does not serve.
    in_stride = istride;
    out_stride = ostride;
    for (int axis = rank - 1; axis >= 0; --axis) {
      descriptor.dims[axis].in_stride = in_stride;
      descriptor.dims[axis].out_stride = out_stride;
      if (axis > 0) {
        // The embeds give the storage length of each inner axis (inembed[0] is never read).
        in_stride *= inembed[axis];
        out_stride *= onembed[axis];
      }
    }
    descriptor.batch = {batch, idist, odist};
  }
  *out = descriptor;
  return CUFFT_SUCCESS;
}

bool has_default_strides(const Descriptor& descriptor) {
  if (descriptor.default_layout) return true;
  long long n[3] = {};
  for (int axis = 0; axis < descriptor.rank && axis < 3; ++axis) n[axis] = descriptor.dims[axis].n;
  Descriptor standard;
  if (build_descriptor(descriptor.rank, n, nullptr, 1, 0, nullptr, 1, 0, descriptor.kind, descriptor.precision,
                       descriptor.batch.n, &standard) != CUFFT_SUCCESS) {
    return false;
  }
  for (int axis = 0; axis < descriptor.rank; ++axis) {
    if (!(descriptor.dims[axis] == standard.dims[axis])) return false;
  }
  return descriptor.batch.n == 1 || descriptor.batch == standard.batch;
}

}  // namespace idgpu::fft
