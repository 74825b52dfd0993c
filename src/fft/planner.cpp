#include "fft/planner.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace idgpu::fft {
namespace {

constexpr int kPrimes[] = {2, 3, 5, 7, 11, 13};

// Divisors of m (m >= 1, 13-smooth, so there are few), ascending.
std::vector<long long> divisors(long long m) {
  std::vector<long long> result = {1};
  for (int prime : kPrimes) {
    int power = 0;
    while (m % prime == 0) {
      m /= prime;
      ++power;
    }
    const std::size_t count = result.size();
    long long factor = 1;
    for (int e = 1; e <= power; ++e) {
      factor *= prime;
      for (std::size_t i = 0; i < count; ++i) result.push_back(result[i] * factor);
    }
  }
  std::sort(result.begin(), result.end());
  return result;
}

// Can m be written as a product of `passes` factors, each in [2, max_size]?
bool splits(long long m, int passes, long long max_size) {
  if (passes == 1) return m >= 2 && m <= max_size;
  for (long long d : divisors(m)) {
    if (d < 2) continue;
    if (d > max_size) break;
    if (m / d >= 2 && splits(m / d, passes - 1, max_size)) return true;
  }
  return false;
}

// The most balanced split of m into `passes` fitting factors (known to exist), in execution order:
// each factor is the divisor closest to the geometric mean of what is left, among those leaving a
// remainder that still splits.
std::vector<long long> balanced_split(long long m, int passes, long long max_size) {
  std::vector<long long> sizes;
  for (int left = passes; left > 1; --left) {
    const double target = std::log(static_cast<double>(m)) / left;
    std::vector<long long> candidates = divisors(m);
    std::stable_sort(candidates.begin(), candidates.end(), [target](long long a, long long b) {
      return std::abs(std::log(static_cast<double>(a)) - target) <
             std::abs(std::log(static_cast<double>(b)) - target);
    });
    for (long long d : candidates) {
      if (d >= 2 && d <= max_size && m / d >= 2 && splits(m / d, left - 1, max_size)) {
        sizes.push_back(d);
        m /= d;
        break;
      }
    }
  }
  sizes.push_back(m);
  return sizes;
}

// Radices of one pass, largest first: the power-of-two part in ceil(a/4) stages with the bits
// spread evenly (larger stages first), then one stage per odd prime, largest first.
std::vector<int> pass_radices(long long size) {
  int bits = 0;
  while (size % 2 == 0) {
    size /= 2;
    ++bits;
  }
  std::vector<int> radices;
  const int stages = (bits + 3) / 4;
  for (int s = 0; s < stages; ++s) {
    const int stage_bits = bits / stages + (s < bits % stages ? 1 : 0);
    radices.push_back(1 << stage_bits);
  }
  for (int prime : {13, 11, 7, 5, 3}) {
    while (size % prime == 0) {
      size /= prime;
      radices.push_back(prime);
    }
  }
  std::stable_sort(radices.begin(), radices.end(), [](int a, int b) { return a > b; });
  return radices;
}

}  // namespace

std::size_t complex_element_bytes(Precision precision) {
  switch (precision) {
    case Precision::kSingle: return 8;
    case Precision::kDouble: return 16;
    default: return 0;
  }
}

FftPlanResult plan_c2c_1d(long long n, long long batch, Precision precision, const DeviceLimits& limits) {
  FftPlanResult result;
  const std::size_t element = complex_element_bytes(precision);
  if (element == 0) {
    result.reason = "precision not served natively (fp32 and fp64 only)";
    return result;
  }
  if (n < 2) {
    result.reason = "length " + std::to_string(n) + " < 2";
    return result;
  }
  if (batch < 1) {
    result.reason = "batch " + std::to_string(batch) + " < 1";
    return result;
  }
  long long rest = n;
  for (int prime : kPrimes) {
    while (rest % prime == 0) rest /= prime;
  }
  if (rest != 1) {
    result.reason = "length " + std::to_string(n) + " has the prime factor(s) " + std::to_string(rest) +
                    " outside {2, 3, 5, 7, 11, 13}";
    return result;
  }
  // A radix-r butterfly keeps its r elements in registers: half the budget at most.
  const std::size_t data_registers = static_cast<std::size_t>(std::max(limits.registers_per_thread, 0)) / 2;
  const auto radix_fits = [&](int radix) { return radix * element / 4 <= data_registers; };
  const long long max_size = static_cast<long long>(limits.shared_bytes_per_block / (2 * element));

  // Fewest passes first. Every pass is at least 2 long, so at most log2(n) passes; if even that
  // many do not split n, no number does.
  int passes = 0;
  for (int p = 1; p <= 62 && (1LL << p) <= n; ++p) {
    if (splits(n, p, max_size)) {
      passes = p;
      break;
    }
  }
  if (passes == 0) {
    result.reason = "shared memory of " + std::to_string(limits.shared_bytes_per_block) +
                    " B per block cannot hold the sub-transforms of length " + std::to_string(n);
    return result;
  }

  FftPlan plan;
  plan.n = n;
  plan.batch = batch;
  plan.precision = precision;
  plan.element_bytes = element;
  long long span = 1;
  for (long long size : balanced_split(n, passes, max_size)) {
    FftPass pass;
    pass.size = size;
    pass.radices = pass_radices(size);
    for (int radix : pass.radices) {
      if (!radix_fits(radix)) {
        result.reason = "radix " + std::to_string(radix) + " needs more than half of " +
                        std::to_string(limits.registers_per_thread) + " registers per thread";
        return result;
      }
    }
    pass.span_before = span;
    pass.sub_transforms = n / size;
    pass.in_stride = n / size;
    pass.out_stride = span;
    const long long threads = size / pass.radices.front();
    pass.threads_per_transform =
        static_cast<int>(std::min<long long>(threads, std::max(limits.max_threads_per_block, 1)));
    const long long by_shared = static_cast<long long>(limits.shared_bytes_per_block / (2 * size * element));
    const long long by_threads = std::max(limits.max_threads_per_block, 1) / pass.threads_per_transform;
    const long long total = pass.sub_transforms * batch;
    pass.transforms_per_block = static_cast<int>(std::max(1LL, std::min({by_shared, by_threads, total})));
    pass.shared_bytes = 2 * static_cast<std::size_t>(size) * element * pass.transforms_per_block;
    pass.blocks = (total + pass.transforms_per_block - 1) / pass.transforms_per_block;
    span *= size;
    plan.passes.push_back(std::move(pass));
  }
  const std::size_t array_bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch) * element;
  plan.work_bytes = passes == 1 ? 0 : passes == 2 ? array_bytes : 2 * array_bytes;
  result.plan = std::move(plan);
  return result;
}

std::string FftPlan::to_string() const {
  std::ostringstream out;
  out << "c2c n=" << n << " batch=" << batch << (precision == Precision::kDouble ? " fp64" : " fp32") << ", "
      << passes.size() << (passes.size() == 1 ? " pass" : " passes") << ", work " << work_bytes << " B";
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const FftPass& pass = passes[i];
    out << "\n  pass " << i + 1 << ": size " << pass.size << " = ";
    for (std::size_t r = 0; r < pass.radices.size(); ++r) out << (r == 0 ? "" : "x") << pass.radices[r];
    out << ", L " << pass.span_before << ", strides in " << pass.in_stride << " out " << pass.out_stride
        << ", " << pass.sub_transforms << " sub-transforms, " << pass.threads_per_transform << " threads x "
        << pass.transforms_per_block << " per block, " << pass.shared_bytes << " B shared, " << pass.blocks
        << " blocks";
  }
  return out.str();
}

}  // namespace idgpu::fft
