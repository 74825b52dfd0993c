#include "support/gtsv_calls.h"

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "support/bits.h"

namespace idgpu::test {
namespace {

// "(handle, m, n, dl)" -> {"handle", "m", "n", "dl"}
std::vector<std::string> split_names(const char* text) {
  std::vector<std::string> names;
  std::string current;
  for (const char* cursor = text; *cursor != '\0'; ++cursor) {
    const char c = *cursor;
    if (c == '(' || c == ' ') continue;
    if (c == ',' || c == ')') {
      if (!current.empty()) names.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty()) names.push_back(current);
  return names;
}

unsigned long long named_bits(const GtsvArgs& args, const std::string& name) {
  if (name == "handle") return to_bits(args.handle);
  if (name == "m") return to_bits(args.m);
  if (name == "n") return to_bits(args.n);
  if (name == "ldb") return to_bits(args.ldb);
  if (name == "batchCount") return to_bits(args.batchCount);
  if (name == "batchStride") return to_bits(args.batchStride);
  if (name == "algo") return to_bits(args.algo);
  if (name == "dl") return to_bits(args.dl);
  if (name == "d") return to_bits(args.d);
  if (name == "du") return to_bits(args.du);
  if (name == "B" || name == "x") return to_bits(args.B);
  if (name == "pBuffer") return to_bits(args.pBuffer);
  if (name == "bufferSizeInBytes" || name == "pBufferSizeInBytes") return to_bits(args.size);
  // A parameter name the table gained and this mapping lacks: fail loudly, not silently zero.
  throw std::logic_error("gtsv_calls: no value for parameter '" + name + "'");
}

template <class... Params, std::size_t... I>
GtsvCallResult call_named(cusparseStatus_t (*fn)(Params...), const std::vector<std::string>& names,
                          const GtsvArgs& args, std::index_sequence<I...>) {
  if (names.size() != sizeof...(Params)) throw std::logic_error("gtsv_calls: names and parameters differ");
  GtsvCallResult result;
  result.sent = {named_bits(args, names[I])...};
  result.status = fn(from_bits<Params>(result.sent[I])...);
  return result;
}

template <class... Params>
GtsvCallResult call_named(cusparseStatus_t (*fn)(Params...), const std::vector<std::string>& names,
                          const GtsvArgs& args) {
  return call_named(fn, names, args, std::index_sequence_for<Params...>{});
}

}  // namespace

GtsvArgs valid_gtsv_args(std::size_t* size) {
  GtsvArgs args;
  args.handle = from_bits<cusparseHandle_t>(0xC5A0F00Dull);
  args.m = 8;
  args.n = 2;
  args.ldb = 8;
  args.batchCount = 3;
  args.batchStride = 8;
  args.algo = 0;
  args.dl = from_bits<void*>(0x7d1000000000ull);
  args.d = from_bits<void*>(0x7d2000000000ull);
  args.du = from_bits<void*>(0x7d3000000000ull);
  args.B = from_bits<void*>(0x7d4000000000ull);
  args.pBuffer = from_bits<void*>(0x7d5000000080ull);  // a multiple of 128, not of 256
  args.size = size;
  return args;
}

bool GtsvEntry::has(const char* parameter) const {
  for (const std::string& name : parameters) {
    if (name == parameter) return true;
  }
  return false;
}

GtsvCallResult GtsvEntry::call(const GtsvArgs& args) const { return invoke(parameters, args); }

const std::vector<GtsvEntry>& gtsv_entries() {
#define IDGPU_TEST_GTSV_SHAPE(P, T, shape, family, params, args)                                     \
  {"cusparse" #P #shape, #family, split_names(#args),                                                \
   std::string(#shape).find("_bufferSizeExt") != std::string::npos,                                 \
   [](const std::vector<std::string>& names, const GtsvArgs& values) {                               \
     return call_named(&::cusparse##P##shape, names, values);                                        \
   }},
#define IDGPU_TEST_GTSV_PRECISION(P, T) IDGPU_GTSV_SHAPES(IDGPU_TEST_GTSV_SHAPE, P, T)
  static const std::vector<GtsvEntry> entries = {
#include "gtsv_api.def"
      IDGPU_GTSV_PRECISIONS(IDGPU_TEST_GTSV_PRECISION)};
#undef IDGPU_TEST_GTSV_PRECISION
#undef IDGPU_TEST_GTSV_SHAPE
  return entries;
}

}  // namespace idgpu::test
