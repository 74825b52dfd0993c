// The seed of a randomised test: IDGPU_TEST_SEED when set (to repeat a run), a fresh one
// otherwise. Printed once per process so that any failure can be reproduced.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>

namespace idgpu::test {

inline unsigned test_seed() {
  static const unsigned seed = [] {
    unsigned chosen = 0;
    if (const char* text = std::getenv("IDGPU_TEST_SEED"); text != nullptr && *text != '\0') {
      chosen = static_cast<unsigned>(std::strtoul(text, nullptr, 0));
    } else {
      chosen = std::random_device{}();
    }
    std::fprintf(stderr, "idgpu tests: random seed %u (set IDGPU_TEST_SEED=%u to repeat)\n", chosen, chosen);
    return chosen;
  }();
  return seed;
}

}  // namespace idgpu::test
