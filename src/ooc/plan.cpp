#include "ooc/plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace idgpu::ooc {

std::string problem_refusal(const Problem& problem) {
  const std::string prefix = "out-of-core FFT: ";
  if (problem.element_bytes != 8 && problem.element_bytes != 16) {
    return prefix + "element_bytes must be 8 (complex float) or 16 (complex double)";
  }
  const auto& e = problem.extents;
  const std::string shape = std::to_string(e[0]) + " x " + std::to_string(e[1]) + " x " + std::to_string(e[2]);
  for (long long extent : e) {
    if (extent < 1) return prefix + "sizes must be positive (" + shape + ")";
  }
  if (problem.batched && e[1] != 1) return prefix + "a batched 1D problem is [batch][1][n]";
  long long elements = 1, bytes = 0;
  for (long long extent : e) {
    if (__builtin_mul_overflow(elements, extent, &elements)) return prefix + "the elements of " + shape + " overflow";
  }
  if (__builtin_mul_overflow(elements, static_cast<long long>(problem.element_bytes), &bytes)) {
    return prefix + "the bytes of " + shape + " overflow";
  }
  return "";
}

long long resolve_device_bytes(std::size_t requested, long long configured, std::size_t free_bytes) {
  constexpr long long kMost = std::numeric_limits<long long>::max();
  const auto clamped = [](long double bytes) {
    return bytes >= static_cast<long double>(kMost) ? kMost : static_cast<long long>(bytes);
  };
  if (requested != 0) return clamped(static_cast<long double>(requested));
  if (configured > 0) return configured;
  return clamped(std::floor(static_cast<long double>(free_bytes) * static_cast<long double>(kFreeMemoryShare)));
}

ScheduleResult schedule_for(const Problem& problem, long long device_bytes, double work_factor) {
  Options options;
  options.device_bytes = device_bytes;
  options.work_factor = work_factor;
  options.sign = -1;
  if (!problem.batched) options.force = ScheduleKind::kTwoPhase;
  return make_schedule(problem, options);
}

std::string FftLayout::to_string() const {
  std::string text = "rank " + std::to_string(rank) + " n {";
  for (int a = 0; a < rank; ++a) text += (a > 0 ? ", " : "") + std::to_string(n[static_cast<std::size_t>(a)]);
  return text + "} stride " + std::to_string(stride) + " distance " + std::to_string(distance) + " batch " +
         std::to_string(batch);
}

std::optional<FftLayout> fft_layout(const std::array<long long, 3>& staged, unsigned axes) {
  // The axes of length > 1, outermost first, and whether each is transformed.
  std::vector<long long> lengths;
  std::vector<bool> transformed;
  for (int a = 0; a < 3; ++a) {
    const long long length = staged[static_cast<std::size_t>(a)];
    if (length < 1) return std::nullopt;
    if (length == 1) continue;
    lengths.push_back(length);
    transformed.push_back((axes & axis_bit(a)) != 0);
  }
  const std::size_t count = lengths.size();
  std::size_t first = count, last = 0, rank = 0;  // the transformed axes' span
  for (std::size_t i = 0; i < count; ++i) {
    if (!transformed[i]) continue;
    first = std::min(first, i);
    last = i;
    ++rank;
  }
  if (rank == 0 || last - first + 1 != rank) return std::nullopt;  // none, or not adjacent
  FftLayout layout;
  layout.rank = static_cast<int>(rank);
  for (std::size_t i = 0; i < rank; ++i) layout.n[i] = lengths[first + i];
  long long outer = 1, inner = 1;  // the untransformed axes before and after them
  for (std::size_t i = 0; i < first; ++i) outer *= lengths[i];
  for (std::size_t i = last + 1; i < count; ++i) inner *= lengths[i];
  if (inner == 1) {  // a batch of whole contiguous transforms
    layout.stride = 1;
    layout.distance = layout.points();
    layout.batch = outer;
  } else if (outer == 1) {  // `inner` columns side by side, each transform strided by them
    layout.stride = inner;
    layout.distance = 1;
    layout.batch = inner;
  } else {
    return std::nullopt;  // batches both outside and inside: not one cuFFT plan
  }
  return layout;
}

}  // namespace idgpu::ooc
