// These tests drive libidgpu against the fake vendor libraries; run against the real ones (or
// none) they would fail for the wrong reasons, after loading the real libraries. CTest sets the
// variables; a direct run without them stops here with the command to use.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool is_fake(const char* variable, const char* fake_path) {
  const char* value = std::getenv(variable);
  return value != nullptr && std::strcmp(value, fake_path) == 0;
}

const bool kFakeVendorChosen = [] {
  if (is_fake("IDGPU_VENDOR_CUFFT", IDGPU_TEST_FAKE_CUFFT) && is_fake("IDGPU_VENDOR_CUSPARSE", IDGPU_TEST_FAKE_CUSPARSE)) {
    return true;
  }
  std::fprintf(stderr,
               "idgpu_cpu_api runs against the fake vendor; use ctest, or set\n"
               "  IDGPU_VENDOR_CUFFT=%s\n  IDGPU_VENDOR_CUSPARSE=%s\n",
               IDGPU_TEST_FAKE_CUFFT, IDGPU_TEST_FAKE_CUSPARSE);
  std::exit(2);
}();

}  // namespace
