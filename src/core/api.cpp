#include "core/api.h"

#include <cuComplex.h>

namespace idgpu {
namespace {

constexpr const char* kApiNames[] = {
#define IDGPU_CUFFT(KIND, name, params, args) #name,
#include "cufft_api.def"
#undef IDGPU_CUFFT
#define IDGPU_GTSV_SHAPE_(P, T, shape, family, params, args) "cusparse" #P #shape,
#define IDGPU_GTSV_PRECISION_(P, T) IDGPU_GTSV_SHAPES(IDGPU_GTSV_SHAPE_, P, T)
    IDGPU_GTSV_PRECISIONS(IDGPU_GTSV_PRECISION_)
#undef IDGPU_GTSV_PRECISION_
#undef IDGPU_GTSV_SHAPE_
};
static_assert(sizeof(kApiNames) / sizeof(kApiNames[0]) == kApiCount, "one name per Api entry");

}  // namespace

const char* api_name(Api api) {
  const auto index = static_cast<std::size_t>(api);
  return index < kApiCount ? kApiNames[index] : "?";
}

}  // namespace idgpu
