// One identifier per exported vendor function, generated from the shim's tables.
#pragma once

#include <cstddef>
#include <cstdint>

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

// The problem a call concerns, for the dispatch report: numbers only, so that carrying and
// counting it costs no formatting (core/stats.cpp writes it out with the report). All zero: not known.
struct Shape {
  std::uint32_t fft = 0;   // an FFT plan's descriptor, interned at plan time (stats::intern_shape)
  std::int32_t m = 0;      // a tridiagonal call's rows,
  std::int32_t count = 0;  // right-hand sides (gtsv2, gtsv2_nopivot) or batchCount,
  std::int32_t algo = 0;   // and gtsvInterleavedBatch's algo
};

// What an exported entry point knows about the call in progress: filled in by the layer that
// decides, read by the boundary that logs and counts it.
struct Call {
  Api api;
  Path path = Path::kNone;
  // Why this path. The report copies the text the first time a thread records it, so it must
  // live through the call; text built per plan is interned (stats::intern_text) so that one
  // pointer always means one text.
  const char* reason = "";
  Shape shape = {};
};

}  // namespace idgpu
