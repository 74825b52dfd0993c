// The canonical FFT problem every plan-creation call reduces to.
//
// cufftPlan1d/2d/3d/Many, cufftMakePlan*, cufftGetSize* and cufftXtMakePlanMany all build one
// Descriptor (dimensions as {n, in_stride, out_stride} triples plus a batch triple, the data
// types, the precision) and go through one make-plan (src/fft/plan.cpp). The descriptor is
// hashable: it keys the plan and tuning caches.
#pragma once

#include <cufft.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace idgpu::fft {

enum class Precision : int { kSingle = 0, kDouble = 1, kHalf = 2, kBfloat16 = 3 };
enum class Kind : int { kC2C = 0, kR2C = 1, kC2R = 2 };

// One axis: its length and the element strides of input and output along it. For the batch
// axis, n is the batch count and the strides are the distances between transforms.
struct Axis {
  long long n = 0;
  long long in_stride = 0;
  long long out_stride = 0;
  bool operator==(const Axis& other) const {
    return n == other.n && in_stride == other.in_stride && out_stride == other.out_stride;
  }
};

struct Descriptor {
  int rank = 0;
  Axis dims[3];  // outermost (slowest) first, as cuFFT orders n[]
  Axis batch;
  Kind kind = Kind::kC2C;
  Precision precision = Precision::kSingle;
  bool default_layout = true;  // NULL embeds: contiguous data, strides and distances implied

  bool operator==(const Descriptor& other) const;
  std::size_t hash() const;
  long long elements_per_transform() const;
  std::string to_string() const;
};

struct DescriptorHash {
  std::size_t operator()(const Descriptor& descriptor) const { return descriptor.hash(); }
};

// The cufftType of a (kind, precision) pair, and back.
bool decode_type(cufftType type, Kind* kind, Precision* precision);
cufftType encode_type(Kind kind, Precision precision);

// cufftXtMakePlanMany's (input, output, execution) cudaDataType triple.
bool decode_xt_types(cudaDataType input, cudaDataType output, cudaDataType execution, Kind* kind,
                     Precision* precision);

// Whether the descriptor's strides and distances are those of the default layout (NULL embeds),
// whether or not the call spelled them out (PyTorch and CuPy pass explicit embeds); a batch of
// one ignores the distances.
bool has_default_strides(const Descriptor& descriptor);

// Builds the descriptor of a cufftPlanMany-style call, applying cuFFT's rules: NULL inembed or
// onembed means the default contiguous layout (strides and distances ignored); otherwise the
// strides of the inner axes follow from the embeds, the innermost stride and the distance.
// For R2C the output's innermost length is n/2+1, for C2R the input's. Returns CUFFT_SUCCESS or
// the vendor's status for the bad argument; never throws.
cufftResult build_descriptor(int rank, const long long* n, const long long* inembed, long long istride,
                             long long idist, const long long* onembed, long long ostride, long long odist,
                             Kind kind, Precision precision, long long batch, Descriptor* out);

}  // namespace idgpu::fft
