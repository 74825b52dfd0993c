// One identifier per exported vendor function, generated from the shim's tables.
#pragma once

#include <cstddef>

namespace idgpu {

enum class Api : int {
#define IDGPU_CUFFT(KIND, name, params, args) name,
#include "cufft_api.def"
#undef IDGPU_CUFFT
#define IDGPU_GTSV_SHAPE_(P, T, shape, family, params, args) cusparse##P##shape,
#define IDGPU_GTSV_PRECISION_(P, T) IDGPU_GTSV_SHAPES(IDGPU_GTSV_SHAPE_, P, T)
#include "gtsv_api.def"
  IDGPU_GTSV_PRECISIONS(IDGPU_GTSV_PRECISION_)
#undef IDGPU_GTSV_PRECISION_
#undef IDGPU_GTSV_SHAPE_
      kCount
};

constexpr std::size_t kApiCount = static_cast<std::size_t>(Api::kCount);

const char* api_name(Api api);

// Which side served a call.
enum class Path : int { kNone = 0, kNative = 1, kVendor = 2 };

// What an exported entry point knows about the call in progress: filled in by the layer that
// decides, read by the boundary that logs and counts it.
struct Call {
  Api api;
  Path path = Path::kNone;
  const char* reason = "";  // why this path (a static string)
};

}  // namespace idgpu
