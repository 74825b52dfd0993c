#include "fft/planner.h"

#include "fft/stockham_index.h"
#include "fft/convolution_index.h"
#include "fft/kernels/fixed_radices.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>
#include <stdexcept>

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

// Can m be written as a product of `passes` factors that each fit a block?
template <class Fits>
bool splits(long long m, int passes, const Fits& fits) {
  if (passes == 1) return fits(m);
  for (long long d : divisors(m)) {
    if (fits(d) && m / d >= 2 && splits(m / d, passes - 1, fits)) return true;
  }
  return false;
}

// The most balanced split of m into `passes` fitting factors (known to exist), in execution order:
// each factor is the divisor closest to the geometric mean of what is left, among those leaving a
// remainder that still splits.
template <class Fits>
std::vector<long long> balanced_split(long long m, int passes, const Fits& fits) {
  std::vector<long long> sizes;
  for (int left = passes; left > 1; --left) {
    const double target = std::log(static_cast<double>(m)) / left;
    std::vector<long long> candidates = divisors(m);
    std::stable_sort(candidates.begin(), candidates.end(), [target](long long a, long long b) {
      return std::abs(std::log(static_cast<double>(a)) - target) <
             std::abs(std::log(static_cast<double>(b)) - target);
    });
    for (long long d : candidates) {
      if (fits(d) && m / d >= 2 && splits(m / d, left - 1, fits)) {
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
// spread evenly (larger stages first), then one stage per odd prime (pairs of 3 as 9), largest first.
std::vector<int> pass_radices(long long size) {
  int bits = 0;
  while (size % 2 == 0) {
    size /= 2;
    ++bits;
  }
  std::vector<int> radices;
  for (int s = 0; s < pow2_stages(bits); ++s) radices.push_back(1 << pow2_stage_bits(bits, s));
  // Pairs of 3 go in one radix-9 stage: half the stages (and their roundings) of a 3^b length.
  for (int factor : {13, 11, 9, 7, 5, 3}) {
    while (size % factor == 0) {
      size /= factor;
      radices.push_back(factor);
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

bool smooth13(long long n) {
  if (n < 1) return false;
  for (long long p : {2, 3, 5, 7, 11, 13}) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

int smem_shift(std::size_t element_bytes) { return smem_padding_shift(static_cast<int>(element_bytes)); }

int smem_stride(long long size, int shift) { return static_cast<int>(size + ((size - 1) >> shift) + 1); }

namespace {

bool same_radices(const std::vector<int>& radices, std::initializer_list<int> sequence) {
  return radices.size() == sequence.size() && std::equal(sequence.begin(), sequence.end(), radices.begin());
}

// The fixed sequences with their row layouts' extents (fixed_sequence_extent) for 8- and 16-byte
// elements, computed by the compiler: the planner looks them up instead of running the model.
struct FixedSequence {
  int stages = 0;
  int radices[kMaxStages] = {};
  int extent8 = 0;
  int extent16 = 0;
};
template <int... R>
constexpr FixedSequence fixed_sequence() {
  constexpr int kRadices[] = {R...};
  FixedSequence sequence;
  sequence.stages = static_cast<int>(sizeof...(R));
  for (int st = 0; st < sequence.stages; ++st) sequence.radices[st] = kRadices[st];
  sequence.extent8 = fixed_sequence_extent(kRadices, sequence.stages, 8);
  sequence.extent16 = fixed_sequence_extent(kRadices, sequence.stages, 16);
  return sequence;
}
#define IDGPU_FFT_FIXED_ENTRY(...) fixed_sequence<__VA_ARGS__>(),
constexpr FixedSequence kFixedSequences[] = {IDGPU_FFT_FIXED_RADICES(IDGPU_FFT_FIXED_ENTRY)};
#undef IDGPU_FFT_FIXED_ENTRY

// The Bluestein convolution lengths compiled besides the powers of two (fixed_radices.h).
template <class... T>
constexpr long long radix_product(T... radices) {
  return (1LL * ... * radices);
}
#define IDGPU_FFT_MIXED_LENGTH(...) radix_product(__VA_ARGS__),
constexpr long long kBluesteinMixedF32[] = {IDGPU_FFT_BLUESTEIN_MIXED_F32(IDGPU_FFT_MIXED_LENGTH)};
constexpr long long kBluesteinMixedF64[] = {IDGPU_FFT_BLUESTEIN_MIXED_F64(IDGPU_FFT_MIXED_LENGTH)};
#undef IDGPU_FFT_MIXED_LENGTH

}  // namespace

bool bluestein_mixed_kernel(long long m, std::size_t element_bytes) {
  const auto has = [m](const auto& lengths) { return std::find(std::begin(lengths), std::end(lengths), m) != std::end(lengths); };
  return element_bytes == 8 ? has(kBluesteinMixedF32) : element_bytes == 16 && has(kBluesteinMixedF64);
}

namespace {

const FixedSequence* compiled_sequence(const std::vector<int>& radices) {
  for (const FixedSequence& sequence : kFixedSequences) {
    if (static_cast<int>(radices.size()) == sequence.stages &&
        std::equal(radices.begin(), radices.end(), sequence.radices)) {
      return &sequence;
    }
  }
  return nullptr;
}

// A pass a run-time fixed-sequence kernel may take (DeviceLimits::runtime_sequences): mixed
// radices no compiled kernel has, no convolution, not a cluster pass.
bool runtime_eligible(const FftPass& pass, std::size_t element_bytes) {
  if (pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone || pass.cluster) return false;
  if (element_bytes != 8 && element_bytes != 16) return false;
  if (pass.radices.empty() || static_cast<int>(pass.radices.size()) > kMaxStages) return false;
  const bool powers_of_two =
      std::all_of(pass.radices.begin(), pass.radices.end(), [](int r) { return (r & (r - 1)) == 0; });
  return !powers_of_two && compiled_sequence(pass.radices) == nullptr;
}

// A pass the thread layout may take (DeviceLimits::thread_transforms): a single mixed-radix pass
// without a real step or convolution, short enough for a thread's registers; its kernel is always
// compiled at run time (a compiled sequence's kernel has the row or padded layout).
bool thread_eligible(const FftPass& pass, std::size_t element_bytes) {
  if (pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone || pass.cluster) return false;
  if (pass.real_step != RealStep::kNone || pass.sub_transforms != 1 || pass.span_before != 1) return false;
  if (element_bytes != 8 && element_bytes != 16) return false;
  if (pass.size * static_cast<long long>(element_bytes) > kThreadTransformBytes) return false;
  if (pass.radices.empty() || static_cast<int>(pass.radices.size()) > kMaxStages) return false;
  return !std::all_of(pass.radices.begin(), pass.radices.end(), [](int r) { return (r & (r - 1)) == 0; });
}

}  // namespace

long long fixed_sequence_buffer(const FftPass& pass, std::size_t element_bytes) {
  if (pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone || pass.cluster) return 0;
  if (element_bytes != 8 && element_bytes != 16) return 0;
  if (const FixedSequence* sequence = compiled_sequence(pass.radices)) {
    return element_bytes == 8 ? sequence->extent8 : sequence->extent16;
  }
  if (pass.runtime_kernel) {
    return fixed_sequence_extent(pass.radices.data(), static_cast<int>(pass.radices.size()),
                                 static_cast<int>(element_bytes));
  }
  return 0;
}

bool fixed_sequence_rows(const FftPass& pass, std::size_t element_bytes) {
  if (fixed_sequence_buffer(pass, element_bytes) == 0) return false;
  if (pass.real_step != RealStep::kNone || pass.runtime_kernel) return true;
#define IDGPU_FFT_FIXED_MATCH(...) same_radices(pass.radices, {__VA_ARGS__}) ||
  const bool padded = element_bytes == 8 ? IDGPU_FFT_FIXED_PADDED_F32(IDGPU_FFT_FIXED_MATCH) false
                                         : IDGPU_FFT_FIXED_PADDED_F64(IDGPU_FFT_FIXED_MATCH) false;
#undef IDGPU_FFT_FIXED_MATCH
  return !padded;
}

void relayout_fixed_pass(FftPass* pass, std::size_t element_bytes, std::size_t shared_bytes) {
  if (thread_layout(pass->smem_shift)) throw std::logic_error("a thread-layout pass has no other layout");
  const bool rows = fixed_sequence_rows(*pass, element_bytes);
  if (rows == (pass->smem_shift == kUnpaddedShift)) return;
  const int shift = rows ? kUnpaddedShift : smem_shift(element_bytes);
  const long long buffer = rows ? fixed_sequence_buffer(*pass, element_bytes) : pass->size;
  const int stride = pass_smem_stride(buffer, shift, element_bytes, pass->transforms_per_block,
                                      pass->threads_per_transform, pass->sub_transforms > 1);
  const std::size_t bytes =
      static_cast<std::size_t>(stride) * element_bytes * static_cast<std::size_t>(pass->transforms_per_block);
  if (bytes > shared_bytes) return;
  pass->smem_shift = shift;
  pass->smem_stride = stride;
  pass->shared_bytes = bytes;
}

long long pass_buffer_elements(const FftPass& pass, std::size_t element_bytes) {
  const long long extent = pass.smem_shift == kUnpaddedShift ? fixed_sequence_buffer(pass, element_bytes) : 0;
  return extent > 0 ? extent : pass.size;
}

int pass_smem_stride(long long size, int shift, std::size_t element_bytes, long long per_block, long long threads,
                     bool column) {
  long long stride = smem_stride(size, shift);
  if (per_block <= 1) return static_cast<int>(stride);
  // A warp's 8- or 16-byte shared accesses are served in phases of W = 128 / element bytes lanes
  // (half or quarter warps), each conflict-free when its W lanes fall on distinct bank pairs or
  // quads (Nsight Compute on H100: the phase model, not the whole warp, matches the measured
  // conflicts). The lanes of a phase: in a column pass lane = tr + T tid, i.e. W / T consecutive
  // ranks of each of T sub-transforms; in a single pass lane = tid + threads tr, `threads` ranks
  // of each of W / threads sub-transforms. The ranks sit at tr stride + tid, so
  // stride = (ranks per sub-transform) mod W lays the sub-transforms' runs side by side.
  const long long wavefront = 128 / static_cast<long long>(element_bytes);
  const long long group = column ? per_block : threads;
  if (group < wavefront && wavefront % group == 0) {
    const long long run = column ? wavefront / per_block : threads;
    while (stride % wavefront != run) ++stride;
  } else if (column && stride % 2 == 0) {
    ++stride;  // T >= W (or T not dividing W): one rank of W sub-transforms, odd strides
  }
  return static_cast<int>(stride);
}

PassShape pass_shape(const FftPlan& plan, const FftPass& pass) {
  PassShape shape;
  shape.n = pass.transform_n > 0 ? pass.transform_n : plan.n;
  shape.twiddled = pass.twiddled;
  shape.in_dist = pass.in_dist;
  shape.out_dist = pass.out_dist;
  shape.out_group = pass.out_group;
  shape.in_group = pass.in_group;
  shape.straddles = pass.straddles;
  shape.nyquist_packed = pass.nyquist_packed;
  shape.sub = pass.sub_transforms;
  shape.span = pass.span_before;
  shape.size = static_cast<int>(pass.size);
  shape.per_block = pass.transforms_per_block;
  shape.smem_stride = pass.smem_stride;
  shape.shift = pass.smem_shift;
  const auto log2_if_power = [](long long v) {
    if (v < 1 || (v & (v - 1)) != 0) return -1;
    int bits = 0;
    while ((1LL << bits) < v) ++bits;
    return bits;
  };
  shape.size_log2 = log2_if_power(pass.size);
  shape.per_block_log2 = log2_if_power(pass.transforms_per_block);
  return shape;
}

int kernel_max_threads(std::size_t element_bytes) { return element_bytes >= 16 ? 512 : 1024; }

std::vector<PassBuffers> pass_buffers(std::size_t passes, bool in_place) {
  std::vector<PassBuffers> result(passes);
  if (passes == 0) return result;
  if (passes == 1) {
    result[0] = {Buffer::kInput, Buffer::kOutput};
    return result;
  }
  // The passes before the last alternate between the output and the work area, so that the one
  // before the last writes the output and the last runs there in place. In place, the first pass
  // may then have to write the buffer it reads: shift the turns by one, and the last pass reads
  // the work area instead.
  const std::size_t before_last = passes - 1;
  const bool shift = in_place && before_last % 2 == 1;
  for (std::size_t i = 0; i < before_last; ++i) {
    const bool to_output = (before_last - 1 - i) % 2 == (shift ? 1u : 0u);
    result[i].to = to_output ? Buffer::kOutput : Buffer::kWork;
    result[i].from = i == 0 ? Buffer::kInput : result[i - 1].to;
  }
  result[passes - 1] = {result[passes - 2].to, Buffer::kOutput};
  return result;
}

std::vector<PassBuffers> plan_buffers(const FftPlan& plan, bool in_place) {
  if (!plan.passes_in_place) return pass_buffers(plan.passes.size(), in_place);
  if (plan.kind == Kind::kC2R) {
    // The complex side is the input: the axis passes run there in place, the real pass last
    // writes the output (cuFFT's multi-dimensional C2R also overwrites its input).
    std::vector<PassBuffers> result(plan.passes.size(), PassBuffers{Buffer::kInput, Buffer::kInput});
    if (!result.empty()) result.back().to = Buffer::kOutput;
    return result;
  }
  std::vector<PassBuffers> result(plan.passes.size(), PassBuffers{Buffer::kOutput, Buffer::kOutput});
  if (!result.empty()) result[0].from = Buffer::kInput;
  return result;
}

namespace {

// Threads that give every stage butterflies_per_thread(r) butterflies per thread at most.
long long threads_for(long long size, const std::vector<int>& radices) {
  long long threads = 1;
  for (int radix : radices) {
    const long long per_thread = butterflies_per_thread(radix);
    const long long butterflies = size / radix;
    threads = std::max(threads, (butterflies + per_thread - 1) / per_thread);
  }
  return threads;
}

// The cap a pass's threads are sized under in the wide layout (DeviceLimits::wide_elements; 0
// where it does not take it): a single mixed-radix pass on a run-time kernel (no compiled
// sequence), without a real step or convolution, whose row-layout transform takes more than half
// the kernels' block limit in threads (fp32 512, fp64 256: at 64 / 128 registers a thread, one
// block an SM), capped at wide_thread_cap(N, E) threads, at most kWideThreads (so at most 1.5 E
// elements a thread on average), where that gives it fewer threads. H200, idgpu-bench natively
// (docs/data/h200-wide-layout.csv, two processes within 1%): fp64 at E = 12, the 113 such
// 13-smooth lengths to 4096 (94 wide, 19 with compiled kernels) 1.21x faster than in the row
// layout (geomean; the 94 wide ones 1.25x; 0.51 -> 0.62 of copy bandwidth), 2673 0.82x; fp32 at E = 24, the 9 such lengths 1.22x (3640 1.68x, 3773 0.90x;
// E = 16 1.18x, 32 1.10x). Taken by every length whose cap gave fewer threads (fp32, E = 24), it
// lost where the row layout's blocks fit two an SM: 0.87x over the 113 lengths of 257-512
// threads, the whole sweep 0.87x -> 0.68x the vendor; the wide blocks keep as many registers a
// transform (80-127 a thread against 64).
// Only a 1D plan's own pass (not an axis pass of a multi-dimensional plan), up to the 4096 points
// measured, whose row layout's exchanges fit the block's shared memory.
int wide_cap(const FftPass& pass, std::size_t element_bytes, int elements, std::size_t shared_bytes) {
  if (elements <= 0 || pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone ||
      pass.cluster) {
    return 0;
  }
  if (pass.real_step != RealStep::kNone || pass.sub_transforms != 1 || pass.span_before != 1) return 0;
  if (!pass.twiddled || pass.transform_n != 0 || pass.size > 4096) return 0;
  if (element_bytes != 8 && element_bytes != 16) return 0;
  if (pass.radices.empty() || static_cast<int>(pass.radices.size()) > kMaxStages) return 0;
  if (std::all_of(pass.radices.begin(), pass.radices.end(), [](int r) { return (r & (r - 1)) == 0; })) return 0;
  if (compiled_sequence(pass.radices) != nullptr) return 0;
  const int extent = fixed_sequence_extent(pass.radices.data(), static_cast<int>(pass.radices.size()),
                                           static_cast<int>(element_bytes));
  if (static_cast<std::size_t>(smem_stride(extent, kUnpaddedShift)) * element_bytes > shared_bytes) return 0;
  const long long plain = threads_for(pass.size, pass.radices);
  if (2 * plain <= kernel_max_threads(element_bytes)) return 0;
  if (2 * pass.size > 3LL * kWideThreads * elements) return 0;
  const int cap = std::min(wide_thread_cap(static_cast<int>(pass.size), elements), kWideThreads);
  const int threads = sequence_threads(pass.radices.data(), static_cast<int>(pass.radices.size()), cap);
  return threads < plain ? cap : 0;
}

// The elements a wide pass's thread keeps (DeviceLimits::wide_elements): fp64 half of fp32's.
int wide_elements_for(const DeviceLimits& limits, std::size_t element_bytes) {
  if (limits.wide_elements <= 0) return 0;
  return element_bytes >= 16 ? std::max(4, limits.wide_elements / 2) : limits.wide_elements;
}

// The threads of a single pass over `radices` with widened stages (FftPass::widened_limit) where
// butterflies_per_thread(r) a thread would take more than `max_threads` (the device's and the
// kernels' limit, the least of them) and a fixed-sequence kernel is compiled for the radices,
// whose stages widen under the kernels' limit for the element; 0 where the plain threads fit, no
// such kernel is compiled, or the widened threads do not fit either.
long long widened_threads(const std::vector<int>& radices, std::size_t element, long long max_threads, bool runtime) {
  long long size = 1;
  for (int radix : radices) size *= radix;
  if (threads_for(size, radices) <= max_threads) return 0;
  const FixedSequence* compiled = compiled_sequence(radices);
  if (compiled == nullptr && (!runtime || radices.empty() || static_cast<int>(radices.size()) > kMaxStages)) return 0;
  const long long threads =
      compiled != nullptr ? sequence_threads(compiled->radices, compiled->stages, kernel_max_threads(element))
                          : sequence_threads(radices.data(), static_cast<int>(radices.size()), kernel_max_threads(element));
  return threads <= max_threads ? threads : 0;
}

// A Stockham pass of `size` after passes of `span` points in all, in an n-point transform (the
// pass mapping at the top of fft/planner.h); sized separately.
FftPass stockham_pass(long long size, long long span, long long n) {
  FftPass pass;
  pass.size = size;
  pass.radices = pass_radices(size);
  pass.span_before = span;
  pass.sub_transforms = n / size;
  pass.in_stride = n / size;
  pass.out_stride = span;
  pass.threads_per_transform = static_cast<int>(threads_for(size, pass.radices));
  return pass;
}

// Why a thread's kMaxElementsPerThread complex elements do not fit half the register budget, or
// empty when they do.
std::string register_budget_refusal(std::size_t element, const DeviceLimits& limits) {
  const std::size_t data_registers = static_cast<std::size_t>(std::max(limits.registers_per_thread, 0)) / 2;
  if (kMaxElementsPerThread * element / 4 <= data_registers) return {};
  return std::to_string(kMaxElementsPerThread) + " elements per thread need more than half of " +
         std::to_string(limits.registers_per_thread) + " registers per thread";
}

// The largest divisor of g (g >= 1) that is at most `cap` and satisfies `ok`; 1 if none.
template <class Ok>
long long largest_divisor(long long g, long long cap, Ok&& ok) {
  for (long long d = std::min(g, cap); d > 1; --d) {
    if (g % d == 0 && ok(d)) return d;
  }
  return 1;
}

long long gcd(long long a, long long b) {
  while (b != 0) {
    const long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Sizes a pass whose size, radices, span, sub-transforms and threads are set, over `transforms`
// transforms: transforms per block, the shared-memory layout, the grid and the inter-pass
// twiddles' split (see the sizing rules in fft/planner.h).
// The thread layout (fft/stockham_index.h) of a single run-time pass over `transforms`
// transforms: one a thread, the block's T = thread_transforms threads (1: 256 where their buffer
// fits 32 KB, else 128), fewer where the batch would leave SMs idle.
void size_thread_pass(FftPass* pass, long long transforms, std::size_t element, const DeviceLimits& limits,
                      long long max_threads) {
  const int stride = thread_transform_stride(static_cast<int>(pass->size));
  const auto bytes_for = [&](long long per_block) {
    return static_cast<std::size_t>(stride) * element * static_cast<std::size_t>(per_block);
  };
  long long per_block = limits.thread_transforms > 1 ? limits.thread_transforms
                        : bytes_for(kThreadTransformThreads) <= 32 * 1024 ? kThreadTransformThreads
                                                                           : kThreadTransformThreads / 2;
  per_block = std::max(1LL, std::min({per_block, transforms, max_threads,
                                      static_cast<long long>(kThreadTransformThreads)}));
  while (per_block > 1 && bytes_for(per_block) > limits.shared_bytes_per_block / 2) per_block /= 2;
  while (per_block > 32 && (transforms + per_block - 1) / per_block < limits.multiprocessors) per_block /= 2;
  pass->threads_per_transform = 1;
  pass->widened_limit = 0;
  pass->straddles = false;
  pass->smem_shift = kThreadShift;
  pass->smem_stride = stride;
  pass->transforms_per_block = static_cast<int>(per_block);
  pass->shared_bytes = bytes_for(per_block);
  pass->blocks = (transforms + per_block - 1) / per_block;
  pass->twiddle_lo_bits = 0;
}

void size_pass(FftPass* planned, long long transforms, std::size_t element, const DeviceLimits& limits,
               long long max_threads) {
  FftPass& pass = *planned;
  if (limits.runtime_sequences && limits.thread_transforms > 0 && thread_eligible(pass, element)) {
    pass.runtime_kernel = true;
    size_thread_pass(&pass, transforms, element, limits, max_threads);
    return;
  }
  pass.runtime_kernel = limits.runtime_sequences && runtime_eligible(pass, element);
  // A single pass of a fixed sequence too long for the block at butterflies_per_thread(r): its
  // stages widen (FftPass::widened_limit). The wide layout caps the threads lower still.
  pass.widened_limit = 0;
  pass.wide = false;
  if (const int cap = limits.runtime_sequences ? wide_cap(pass, element, wide_elements_for(limits, element),
                                                         limits.shared_bytes_per_block)
                                                : 0;
      cap > 0) {
    pass.runtime_kernel = true;
    pass.wide = true;
    pass.threads_per_transform = sequence_threads(pass.radices.data(), static_cast<int>(pass.radices.size()), cap);
    pass.widened_limit = cap;
    max_threads = std::min(max_threads, static_cast<long long>(kWideThreads));
  } else if (pass.convolution == ConvolutionStep::kNone && pass.bluestein == BluesteinStep::kNone && !pass.cluster &&
             pass.sub_transforms == 1 && pass.span_before == 1) {
    if (const long long threads = widened_threads(pass.radices, element, max_threads, pass.runtime_kernel);
        threads > 0) {
      pass.threads_per_transform = static_cast<int>(threads);
      pass.widened_limit = kernel_max_threads(element);
    }
  }
  const long long batch = transforms;
  const long long size = pass.size;
  const long long span = pass.span_before;
  const std::size_t shared = limits.shared_bytes_per_block;
  // A fixed sequence's row-padded layout where its kernel has it and one sub-transform's buffer
  // fits (fixed_sequence_rows, fixed_sequence_buffer).
  const long long extent = fixed_sequence_buffer(pass, element);
  const bool rows = fixed_sequence_rows(pass, element) &&
                    static_cast<std::size_t>(smem_stride(extent, kUnpaddedShift)) * element <= shared;
  const int shift = rows ? kUnpaddedShift : smem_shift(element);
  const long long buffer = rows ? extent : size;
  pass.smem_shift = shift;
  pass.straddles = false;
  const long long threads = pass.threads_per_transform;
  const bool column = pass.sub_transforms > 1;
  const auto stride_for = [&](long long per_block) {
    return pass_smem_stride(buffer, shift, element, per_block, threads, column);
  };
  const auto bytes_for = [&](long long per_block) {
    return static_cast<std::size_t>(stride_for(per_block)) * element * static_cast<std::size_t>(per_block);
  };
  long long per_block = 1;
  if (pass.sub_transforms == 1) {
    // Whole transforms: a block of about 256 threads, within half the shared memory.
    per_block = std::max(1LL, std::min({batch, std::max(1LL, 256 / threads), max_threads / threads}));
    while (per_block > 1 && bytes_for(per_block) > shared / 2) --per_block;
    // A small batch still reaches every SM: such a call is latency-bound, and 1000 transforms
    // of 64 points in 16 blocks of 64 took twice the vendor's time on an H100.
    while (per_block > 1 && (batch + per_block - 1) / per_block < limits.multiprocessors) {
      per_block = (per_block + 1) / 2;
    }
  } else {
    const long long g = span == 1 ? pass.sub_transforms : gcd(pass.sub_transforms, span);
    const auto row = [&](long long d) { return static_cast<std::size_t>(d) * element; };
    const auto fits = [&](long long d) {
      return d * threads <= std::min(512LL, max_threads) && bytes_for(d) <= shared / 2;
    };
    per_block = largest_divisor(g, 128 / static_cast<long long>(element), fits);
    // fp32 rows of 5-7 lines (40-56 bytes, straddling 32-byte sectors, whose partial sectors
    // move whole) give way to 4 lines (32 bytes) where 4 divides the lines. 1000 x 1000 (H200,
    // outer axis of 1000 lines, 67 threads each, so at most 7 a block; the plan's time): 5 lines
    // 1.56-1.60 ms, 4 lines 1.16-1.19 ms, 8 (64 bytes, 536 threads) 1.44 ms. Not rows of 64 bytes
    // or more (10 lines: 80 bytes), which 4 lines would turn into straddling rows below, not
    // measured; not fp64, whose 1000 x 1000 lost with 4 lines (64 bytes) against 5 (80 bytes):
    // 1.72 / 1.63 ms.
    if (element == 8 && row(per_block) < 64 && row(per_block) % 32 != 0) {
      const long long whole = largest_divisor(g, per_block, [&](long long d) { return row(d) % 32 == 0 && fits(d); });
      if (row(whole) % 32 == 0) per_block = whole;
    }
    if (row(per_block) < 32) {
      const long long wider = largest_divisor(g, 32 / static_cast<long long>(element), [&](long long d) {
        return d * threads <= max_threads && bytes_for(d) <= shared;
      });
      per_block = std::max(per_block, wider);
    }
    // No divisor of S gives rows of 64 bytes or more (the rows above are shorter): an axis pass
    // takes rows of T lines all the same, T a power of two up to S, 128-byte rows or 256 threads
    // (whichever is more), its blocks straddling two transforms where the lines run over
    // (PassShape::straddles), if those rows are longer (the 32-byte rows above change the outcome
    // only where T could not exceed 4 lines). S = 129 lines of 256 points, PyTorch's rfftn of 256^3: 16 lines
    // (fp32, 128 bytes; a divisor gave 3 lines, 24 bytes, and the fallback below 43) and 16
    // (fp64; 3 lines, 48 bytes); the 257 one-thread lines of a real 2 x 512: 256.
    const bool axis = !pass.twiddled && pass.real_step == RealStep::kNone &&
                      pass.convolution == ConvolutionStep::kNone && (span == 1 || span == pass.sub_transforms);
    if (row(per_block) < 64 && axis) {
      long long lines = 1;
      while (2 * lines <= pass.sub_transforms && (row(2 * lines) <= 128 || 2 * lines * threads <= 256) &&
             2 * lines * threads <= std::min(512LL, max_threads) && bytes_for(2 * lines) <= shared / 2) {
        lines *= 2;
      }
      if (row(lines) >= 32 && lines > per_block) {
        per_block = lines;
        pass.straddles = pass.sub_transforms % lines != 0;
      }
    }
    if (row(per_block) < 32) {
      // Otherwise (not an axis pass, or too few threads' worth of lines) the smallest larger
      // divisor that fits a block. Axis passes took it before they straddled: S = 129 lines of
      // 256 points got 43 lines of 344 bytes where 3 gave 24 (H100, fp32: the 2D C2C in its own
      // layout 0.195 -> 0.177 ms; straddling rows of 16 lines 0.130 ms). The unfused real plans'
      // columns (n / 2 + 1 of them), now straddling: R2C 100 x 256 0.743 (3 lines) -> 0.641 (43)
      // -> 0.61 ms (16), 64 x 64 x 256 1.10 -> 0.757 -> 0.587 ms; the vendor's 0.40 / 0.58 ms
      // keep them.
      const long long most = std::min(g, max_threads / threads);
      for (long long d = 32 / static_cast<long long>(element) + 1; d <= most; ++d) {
        if (g % d == 0 && bytes_for(d) <= shared) {
          per_block = d;
          break;
        }
      }
    }
    // IDGPU_FFT_COLUMN_LINES (DeviceLimits::column_lines), where it fits.
    if (const long long lines = limits.column_lines;
        lines > 0 && lines <= pass.sub_transforms && lines * threads <= max_threads && bytes_for(lines) <= shared) {
      if (g % lines == 0) {
        per_block = lines;
        pass.straddles = false;
      } else if (axis && (lines & (lines - 1)) == 0) {
        per_block = lines;
        pass.straddles = pass.sub_transforms % lines != 0;
      }
    }
  }
  pass.transforms_per_block = static_cast<int>(per_block);
  pass.smem_stride = stride_for(per_block);
  pass.shared_bytes = bytes_for(per_block);
  const long long total = pass.sub_transforms * batch;
  pass.blocks = (total + per_block - 1) / per_block;
  if (pass.twiddled && span > 1) {
    int bits = 0;
    while ((1LL << bits) < span * size) ++bits;
    pass.twiddle_lo_bits = (bits + 1) / 2;
  }
}

// An axis pass (plan_c2c): `transforms` transforms of `size` x `inner` elements, each a
// transform of length `size` along elements `inner` apart over `inner` adjacent lines, without
// inter-pass twiddle, written in the input's layout.
FftPass axis_pass(long long size, long long inner, long long transforms, std::size_t element,
                  const DeviceLimits& limits, long long max_threads) {
  FftPass pass;
  pass.size = size;
  pass.radices = pass_radices(size);
  pass.span_before = inner;
  pass.sub_transforms = inner;
  pass.in_stride = inner;
  pass.out_stride = inner;
  pass.twiddled = false;
  pass.transform_n = size * inner;
  pass.transforms = transforms;
  pass.threads_per_transform = static_cast<int>(threads_for(size, pass.radices));
  size_pass(&pass, pass.transforms, element, limits, max_threads);
  return pass;
}

// Makes passes `first` and `first + 1` of a plan one fused kernel of `kind` (FftFused) where both
// fill a block of fused_threads threads with whole sub-transforms within the shared memory;
// otherwise leaves the plan as it is. The kernel runs `transforms` transforms of `transform_n`
// elements: a 1D plan's own, whose tiles must divide each pass's sub-transforms, or the planes of
// a multi-dimensional plan's two axes, whose last tile of a plane may be short (a C2R plane's
// n / 2 + 1 columns; an R2C plane's axis pass tiles n / 2 of them, FftPass::nyquist_packed).
void fuse_passes(FftPlan* plan, std::size_t shared, FusedKind kind, std::size_t first, long long transforms,
                 long long transform_n) {
  if (first + 2 > plan->passes.size() || transforms > kFusedMaxBatch) return;
  FftFused fused;
  fused.kind = kind;
  fused.first_pass = first;
  // A real pair's plane side: the axis pass's length (the real pass's is half the other side).
  const FftPass& axis = plan->passes[first + (kind == FusedKind::kRealForward ? 1 : 0)];
  fused.threads = fused_threads(plan->element_bytes, kind, axis.size);
  fused.transforms = transforms;
  fused.transform_n = transform_n;
  std::vector<FftPass> passes(plan->passes.begin() + static_cast<std::ptrdiff_t>(first),
                              plan->passes.begin() + static_cast<std::ptrdiff_t>(first + 2));
  long long tiles[2] = {0, 0};
  long long counts[2] = {0, 0};
  for (std::size_t i = 0; i < passes.size(); ++i) {
    FftPass& pass = passes[i];
    const long long threads = pass.threads_per_transform;
    if (pass.size < kMaxElementsPerThread || pass.size / kMaxElementsPerThread != threads ||
        fused.threads % threads != 0) {
      return;
    }
    const long long per_block = fused.threads / threads;
    const long long total = pass.sub_transforms * plan->pass_transforms(pass);
    if (total % transforms != 0) return;
    const long long count = total / transforms;
    // A 1D plan's tiles take T consecutive columns (first pass) or rows of T elements (last): T
    // divides S (and L).
    if (kind == FusedKind::k1D) {
      const long long group = pass.span_before == 1 ? pass.sub_transforms : gcd(pass.sub_transforms, pass.span_before);
      if (group % per_block != 0) return;
    }
    const bool column = pass.sub_transforms > 1;
    pass.transforms_per_block = static_cast<int>(per_block);
    pass.straddles = false;  // the fused kernel's tiles stay within a plane (a short last one)
    // An R2C plane's axis pass over its n / 2 + 1 columns packs the last into the first
    // (FftPass::nyquist_packed): 256^2 takes 4 tiles of 32 columns where it took 5, the last
    // of them one column. H100, the same process with and without it, two runs each: R2C 128^2
    // 0.90 -> 1.00x, 256^2 1.11 -> 1.16x, 64 x 256^2 1.07 -> 1.10x, D2Z 128^2 1.24 -> 1.28x,
    // 512^2 1.05 -> 1.07x. The same packing in a C2R pair's first pass (a + i b loaded, Re and
    // Im stored) lost: C2R 128^2 0.94 -> 0.92x, 256^2 1.07 -> 1.05x, Z2D 128^2 1.09 -> 1.02x,
    // 256^2 1.10 -> 1.08x; C2R pairs keep the column of one line.
    const bool r2c_axis = kind == FusedKind::kRealForward && i == 1;
    pass.nyquist_packed = r2c_axis && column && count == pass.sub_transforms && count % 2 == 1 && count >= 3;
    pass.smem_stride = pass_smem_stride(pass_buffer_elements(pass, plan->element_bytes), pass.smem_shift,
                                        plan->element_bytes, per_block, threads, column);
    pass.shared_bytes = static_cast<std::size_t>(pass.smem_stride) * plan->element_bytes * static_cast<std::size_t>(per_block);
    if (pass.shared_bytes > shared) return;
    const long long tiled = pass.nyquist_packed ? count - 1 : count;
    tiles[i] = (tiled + per_block - 1) / per_block;
    counts[i] = count;
    pass.blocks = transforms * tiles[i];
    fused.shared_bytes = std::max(fused.shared_bytes, pass.shared_bytes);
  }
  // One ticket counter of 32 bits (kernels/stockham_fused.cuh).
  if (transforms * (tiles[0] + tiles[1]) >= (1LL << 31)) return;
  fused.first_tiles = static_cast<int>(tiles[0]);
  fused.last_tiles = static_cast<int>(tiles[1]);
  fused.first_count = counts[0];
  fused.last_count = counts[1];
  fused.passes = std::move(passes);
  plan->fused = std::move(fused);
}

// Whether a plane of `rows` x `columns` (a real plane: `columns` reals) has a fused kernel
// (fft/planner.h, kFusedAxesMinLog .. kFusedAxesMaxLog). A real plane's bytes are counted as if
// complex: twice its size, on the safe side of kFusedMaxBytes.
bool fusable_plane(long long rows, long long columns, std::size_t element, const DeviceLimits& limits) {
  return limits.fused && rows == columns && (rows & (rows - 1)) == 0 && rows >= (1LL << kFusedAxesMinLog) &&
         rows <= (1LL << kFusedAxesMaxLog) && static_cast<std::size_t>(rows * columns) * element <= kFusedMaxBytes;
}

}  // namespace

FftPass cluster_stage_pass(long long size) { return stockham_pass(size, 1, size); }

// Cluster column passes (fft/stockham_index.h; measured in fft/planner.h's sizing rules).
void plan_cluster_columns(FftPlan* plan, const DeviceLimits& limits) {
  if (!limits.cluster_columns || plan->cluster) return;
  constexpr long long kMaxGrid = (1LL << 31) - 1;
  const std::size_t element = plan->element_bytes;
  const int lines_log2 = cluster_column_lines_log2(static_cast<int>(element));
  const long long lines = 1LL << lines_log2;
  for (std::size_t i = 0; i < plan->passes.size(); ++i) {
    FftPass& pass = plan->passes[i];
    if (plan->fused && (i == plan->fused->first_pass || i == plan->fused->first_pass + 1)) continue;
    int bits = 0;
    while ((1LL << bits) < pass.size) ++bits;
    const long long sub = pass.sub_transforms;
    const bool first = pass.span_before == 1 && pass.out_dist == 0;  // each line's output contiguous
    // A two-pass real plan's paired pass (real cluster column passes): R2C's step after a last
    // pass, C2R's before a first.
    const bool real_step_served = pass.real_step == RealStep::kNone ||
                                  (pass.real_step == RealStep::kPairedR2C && !first) ||
                                  (pass.real_step == RealStep::kPairedC2R && first);
    // An R2C plane's axis pass with its last line packed into line 0 (packed cluster column
    // passes): clusters over the other S - 1 lines, column out, no twiddle, no real step.
    const bool packed = pass.nyquist_packed;
    const bool packed_served = !packed || (!first && !pass.has_twiddle() && pass.real_step == RealStep::kNone);
    const long long tiled = packed ? sub - 1 : sub;
    if ((1LL << bits) != pass.size || bits < kClusterColumnMinBits || bits > kClusterColumnMaxBits || sub < 2 ||
        (pass.span_before != sub && !first) || tiled % lines != 0 || (pass.straddles && !packed) || !packed_served ||
        !real_step_served || pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone ||
        pass.in_group != 0 || pass.out_group != 0) {
      continue;
    }
    // A transform's element offsets (l + e S) are 32-bit in the kernel; a real plan's X[M] too.
    if (pass.size * sub > (1LL << 31) || (pass.real_step != RealStep::kNone && pass.size * sub >= (1LL << 31))) {
      continue;
    }
    FftCluster c;
    c.lines_log2 = lines_log2;
    c.contiguous_out = first;
    c.rank_bits = cluster_rank_bits(bits + c.lines_log2);
    const long long size_a = 1LL << (first ? cluster_first_bits_a(bits) : cluster_bits_a(bits));
    const long long size_b = pass.size / size_a;
    const long long columns = (size_b >> c.rank_bits) * lines;  // stage A's lanes of a block: T TA
    const long long rows = (size_a >> c.rank_bits) * lines;     // stage B's: T TB
    if (columns < lines || rows < lines) continue;
    // The real and packed steps pair rows within a block: TB >= 2.
    if ((pass.real_step != RealStep::kNone || packed) && rows < 2 * lines) continue;
    const int shift = pass.smem_shift;
    c.stride_a = pass_smem_stride(size_a, shift, element, columns, size_a / kMaxElementsPerThread, true);
    c.threads = static_cast<int>((pass.size * lines) >> (c.rank_bits + 4));
    if (first) {
      // Stage B in registers; the exchange rows, one padding element a line (cluster_rows_slot).
      c.stride_b = 0;
      c.shared_bytes = static_cast<std::size_t>(std::max(columns * c.stride_a, rows * size_b + lines)) * element;
    } else {
      c.stride_b = pass_smem_stride(size_b, shift, element, rows, size_b / kMaxElementsPerThread, true);
      // Stage B's exchange rows (TB NB T elements) lie in its padded buffers' memory.
      c.shared_bytes = static_cast<std::size_t>(std::max(columns * c.stride_a, rows * c.stride_b)) * element;
    }
    const long long clusters = plan->pass_transforms(pass) * (tiled / lines);
    if (c.shared_bytes > limits.shared_bytes_per_block || c.threads > limits.max_threads_per_block ||
        clusters > (kMaxGrid >> c.rank_bits)) {
      continue;
    }
    pass.cluster = c;
    pass.straddles = false;  // (a packed pass's blocks would have; its clusters do not)
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
  // A thread keeps kMaxElementsPerThread complex elements in registers: half the budget at most.
  if (std::string refusal = register_budget_refusal(element, limits); !refusal.empty()) {
    result.reason = std::move(refusal);
    return result;
  }
  const int shift = smem_shift(element);
  const long long max_threads = std::min<long long>(std::max(limits.max_threads_per_block, 0), kernel_max_threads(element));
  const std::size_t shared = limits.shared_bytes_per_block;
  const auto fits = [&](long long size) {
    if (size < 2) return false;
    const auto bytes = static_cast<std::size_t>(smem_stride(size, shift)) * element;
    if (bytes > shared) return false;
    // A single pass may widen its stages (size_pass); the passes of longer plans do not. A widened
    // pass runs on a fixed-sequence kernel, one compiled at run time only in the row layout, whose
    // exchanges must then fit the block (a device with less shared memory than Hopper's could
    // otherwise plan a pass that no kernel launches).
    const std::vector<int> radices = pass_radices(size);
    if (threads_for(size, radices) <= max_threads) return true;
    if (size != n || widened_threads(radices, element, max_threads, limits.runtime_sequences) == 0) return false;
    if (compiled_sequence(radices) != nullptr) return true;
    const int extent = fixed_sequence_extent(radices.data(), static_cast<int>(radices.size()), static_cast<int>(element));
    return static_cast<std::size_t>(smem_stride(extent, kUnpaddedShift)) * element <= shared;
  };

  // Fewest passes first. Every pass is at least 2 long, so at most log2(n) passes; if even that
  // many do not split n, no number does.
  int passes = 0;
  for (int p = 1; p <= 62 && (1LL << p) <= n; ++p) {
    if (splits(n, p, fits)) {
      passes = p;
      break;
    }
  }
  if (passes == 0) {
    result.reason = "a block (" + std::to_string(shared) + " B of shared memory, " + std::to_string(max_threads) +
                    " threads) cannot hold the sub-transforms of length " + std::to_string(n);
    return result;
  }
  // A power of two in the cluster range runs as two passes in one cluster kernel, split as the
  // kernel is compiled (fft/stockham_index.h).
  int bits = 0;
  while ((1LL << bits) < n) ++bits;
  // Block `rank` holds TA = NB / C columns of stage A and TB = NA / C rows of stage B in one
  // buffer, strided as the column passes' (their lanes run across columns / rows alike); the
  // split is a cluster plan only where that buffer and its threads fit a block (else the
  // balanced split below, fused where it may be).
  const auto cluster_for = [&]() -> std::optional<FftCluster> {
    if (!limits.clusters || (1LL << bits) != n || bits < kClusterMinBits || bits > limits.cluster_max_bits) return {};
    const long long size_a = 1LL << cluster_bits_a(bits);
    const long long size_b = n >> cluster_bits_a(bits);
    if (!fits(size_a) || !fits(size_b)) return {};
    FftCluster c;
    c.rank_bits = cluster_rank_bits(bits);
    const long long columns = size_b >> c.rank_bits;
    const long long rows = size_a >> c.rank_bits;
    c.stride_a = pass_smem_stride(size_a, shift, element, columns, size_a / kMaxElementsPerThread, true);
    c.stride_b = pass_smem_stride(size_b, shift, element, rows, size_b / kMaxElementsPerThread, true);
    c.threads = static_cast<int>(n >> (c.rank_bits + 4));
    c.shared_bytes = static_cast<std::size_t>(std::max(columns * c.stride_a, rows * c.stride_b)) * element;
    if (c.shared_bytes > shared || c.threads > max_threads) return {};
    return c;
  };
  const std::optional<FftCluster> cluster_plan = cluster_for();
  const bool cluster = cluster_plan.has_value();
  std::vector<long long> sizes;
  if (cluster) {
    sizes = {1LL << cluster_bits_a(bits), n >> cluster_bits_a(bits)};
  } else {
    sizes = balanced_split(n, passes, fits);
  }
  // A plan to be fused (fuse_passes) avoids a 2^9 pass beside a pass of another length: the
  // compiler keeps more of such a pair's values live across the fused kernel's ticket loop than
  // 64 registers hold (ptxas, sm_90: 2^8 x 2^9 spilled 356 B per thread, 2^9 x 2^10 468 B;
  // 2^7 x 2^10, 2^9 x 2^9 and 2^8 x 2^11 none), so 2^17 and 2^19 move one bit outward.
  const bool fusable = limits.fused && !cluster && passes == 2 && (1LL << bits) == n && batch <= kFusedMaxBatch &&
                       static_cast<std::size_t>(n) * element <= kFusedMaxBytes;
  if (fusable && sizes[0] != sizes[1] && (sizes[0] == 512 || sizes[1] == 512) && fits(sizes[1] * 2)) {
    sizes = {sizes[0] / 2, sizes[1] * 2};
  }

  FftPlan plan;
  plan.n = n;
  plan.batch = batch;
  plan.precision = precision;
  plan.element_bytes = element;
  long long span = 1;
  for (long long size : sizes) {
    FftPass pass = stockham_pass(size, span, n);
    size_pass(&pass, batch, element, limits, max_threads);
    span *= size;
    plan.passes.push_back(std::move(pass));
  }
  // Out of place, two passes need no scratch (input -> output -> output in place); the vendor's
  // plans of these sizes ask for none either, so none is asked: an in-place execution without a
  // work area is the vendor's (see NativePlan::serves). Three passes and more need one array.
  plan.work_bytes =
      plan.passes.size() <= 2 ? 0 : static_cast<std::size_t>(n) * static_cast<std::size_t>(batch) * element;
  plan.cluster = cluster_plan;
  if (fusable) fuse_passes(&plan, shared, FusedKind::k1D, 0, batch, n);
  plan_cluster_columns(&plan, limits);
  result.plan = std::move(plan);
  return result;
}

namespace {

// The product of the first `count` axes' lengths where each is a one-pass 1D transform under
// `limits` (the axes of multi-dimensional and strided plans); 0 with the reason where one is not.
long long one_pass_axes(int count, const long long* dims, Precision precision, const DeviceLimits& limits,
                        std::string* reason) {
  long long product = 1;
  for (int axis = 0; axis < count; ++axis) {
    FftPlanResult axis_plan = plan_c2c_1d(dims[axis], 1, precision, limits);
    if (!axis_plan.plan) {
      *reason = "axis " + std::to_string(axis) + ": " + axis_plan.reason;
      return 0;
    }
    if (axis_plan.plan->passes.size() != 1) {
      *reason = "axis " + std::to_string(axis) + " of length " + std::to_string(dims[axis]) +
                " takes more than one pass (multi-pass axes are not planned yet)";
      return 0;
    }
    if (axis_plan.plan->passes[0].widened_limit > 0) {
      *reason = "axis " + std::to_string(axis) + " of length " + std::to_string(dims[axis]) +
                " needs widened stages in one pass (not planned for multi-dimensional axes)";
      return 0;
    }
    product *= dims[axis];
  }
  return product;
}

}  // namespace

FftPlanResult plan_c2c(int rank, const long long* dims, long long batch, Precision precision,
                       const DeviceLimits& limits) {
  FftPlanResult result;
  if (rank < 1 || rank > 3 || dims == nullptr) {
    result.reason = "rank " + std::to_string(rank) + " outside 1..3";
    return result;
  }
  if (rank == 1) {
    result = plan_c2c_1d(dims[0], batch, precision, limits);
    if (result.plan) result.plan->dims = {dims[0]};
    return result;
  }
  // Each axis is planned as a one-pass 1D transform first: its length's checks and sizes.
  const long long total = one_pass_axes(rank, dims, precision, limits, &result.reason);
  if (total == 0) return result;
  if (batch < 1) {
    result.reason = "batch " + std::to_string(batch) + " < 1";
    return result;
  }
  const std::size_t element = complex_element_bytes(precision);
  const long long max_threads =
      std::min<long long>(std::max(limits.max_threads_per_block, 0), kernel_max_threads(element));
  FftPlan plan;
  plan.n = total;
  plan.batch = batch;
  plan.precision = precision;
  plan.element_bytes = element;
  plan.passes_in_place = true;
  plan.dims.assign(dims, dims + rank);
  // Innermost axis first (as the data lie), then outward.
  long long inner = 1;  // S: the product of the axes inside this one
  for (int axis = rank - 1; axis >= 0; --axis) {
    const long long size = dims[axis];
    plan.passes.push_back(axis_pass(size, inner, total / (size * inner) * batch, element, limits, max_threads));
    inner *= size;
  }
  // The two innermost axes as one fused kernel where their plane has one (fft/planner.h).
  const long long rows = dims[rank - 2];
  const long long columns = dims[rank - 1];
  if (fusable_plane(rows, columns, element, limits)) {
    const long long plane = rows * columns;
    fuse_passes(&plan, limits.shared_bytes_per_block, FusedKind::kAxes, 0, total / plane * batch, plane);
  }
  plan_cluster_columns(&plan, limits);
  result.plan = std::move(plan);
  return result;
}

FftPlanResult plan_c2c_strided(long long n, long long batch, long long istride, long long idist, long long ostride,
                               long long odist, Precision precision, const DeviceLimits& limits) {
  FftPlanResult result;
  DeviceLimits single = limits;  // one ordinary pass: no cluster or fused kernel, the row layout
  single.wide_elements = 0;
  single.clusters = false;
  single.cluster_columns = false;
  single.fused = false;
  FftPlanResult planned = plan_c2c_1d(n, batch, precision, single);
  if (!planned.plan) return planned;
  if (planned.plan->passes.size() != 1) {
    result.reason = "length " + std::to_string(n) + " takes more than one pass (strided layouts in one pass only)";
    return result;
  }
  const auto text = [&] {
    return "stride " + std::to_string(istride) + " / " + std::to_string(ostride) + ", distance " +
           std::to_string(idist) + " / " + std::to_string(odist) + ", batch " + std::to_string(batch);
  };
  // The extent of each side, (batch - 1) dist + (n - 1) stride + 1 elements, within 2^31 (the
  // kernels index it in 32 bits); each term bounded before it is formed (64-bit layouts may hold
  // any distance).
  constexpr long long kLimit = 1LL << 31;
  const auto within = [&](long long stride, long long dist) {
    // n < 2^31 (one pass): with stride and dist below 2^31 no product below overflows.
    if (stride >= kLimit || dist >= kLimit || (batch > 1 && dist > (kLimit - 1) / (batch - 1))) return false;
    return (batch - 1) * dist + (n - 1) * stride + 1 <= kLimit;
  };
  if (istride < 1 || ostride < 1 || idist < 0 || odist < 0 || !within(istride, idist) || !within(ostride, odist)) {
    result.reason = "layout (" + text() + ") outside the kernels' index range";
    return result;
  }
  if (istride == 1 && ostride == 1) {
    // Each transform contiguous, the transforms spaced (distances below n would overlap).
    if (batch > 1 && (idist < n || odist < n)) {
      result.reason = "layout (" + text() + "): distances below the length";
      return result;
    }
    FftPass& pass = planned.plan->passes[0];
    pass.in_dist = batch > 1 ? idist : 0;
    pass.out_dist = batch > 1 ? odist : 0;
    planned.reason = "contiguous transforms " + std::to_string(idist) + " / " + std::to_string(odist) + " apart";
    return planned;
  }
  // A transform along the outer axis of an [n][S] array: S transforms, element stride S, distance 1.
  const long long lines = istride;
  const bool same = ostride == lines && odist == 1;
  const bool contiguous_out = ostride == 1 && odist >= n;  // batch = S >= 2 here
  if (istride < 2 || idist != 1 || batch != lines || !(same || contiguous_out)) {
    result.reason = "layout (" + text() + ") is neither contiguous transforms nor the lines of an [n][S] array";
    return result;
  }
  return plan_c2c_lines(1, &n, lines, contiguous_out, contiguous_out ? odist : 0, precision, limits);
}

FftPlanResult plan_c2c_lines(int rank, const long long* dims, long long lines, bool contiguous_out, long long odist,
                             Precision precision, const DeviceLimits& limits) {
  FftPlanResult result;
  if (rank < 1 || rank > 3 || dims == nullptr) {
    result.reason = "rank " + std::to_string(rank) + " outside 1..3";
    return result;
  }
  DeviceLimits single = limits;  // ordinary passes: no cluster or fused kernel
  single.clusters = false;
  single.cluster_columns = false;
  single.fused = false;
  const long long total = one_pass_axes(rank, dims, precision, single, &result.reason);
  if (total == 0) return result;
  // Both sides within 2^31 elements (the kernels index a pass's side in 32 bits); total < 2^31
  // here (each axis one pass), so the products below do not overflow before they are compared.
  constexpr long long kLimit = 1LL << 31;
  const std::string text = std::to_string(lines) + " lines of stride " + std::to_string(lines);
  if (lines < 2 || lines > kLimit / total) {
    result.reason = text + ": outside the kernels' index range (at most 2^31 elements a side)";
    return result;
  }
  if (contiguous_out && (odist < total || (rank > 1 && odist != total) || odist > (kLimit - total) / (lines - 1))) {
    result.reason = text + ", written contiguously " + std::to_string(odist) + " apart: " +
                    (odist < total ? "overlapping" : rank > 1 ? "the distance must be the transform's size" : "outside the kernels' index range");
    return result;
  }
  const std::size_t element = complex_element_bytes(precision);
  const long long max_threads =
      std::min<long long>(std::max(limits.max_threads_per_block, 0), kernel_max_threads(element));
  FftPlan plan;
  plan.n = total;
  plan.batch = lines;
  plan.precision = precision;
  plan.element_bytes = element;
  plan.dims.assign(dims, dims + rank);
  plan.passes_in_place = rank > 1;
  // Innermost axis first. In the input's layout every axis is an axis pass over the lines: its
  // elements are S x (the inner axes' product) apart. Written contiguously, the first pass stores
  // each line's transform along that axis as a run (line s of row t at s odist + t n), and the
  // other axes run on the output as plan_c2c's do on a batch of S transforms.
  long long inner = 1;  // the product of the transform's axes inside this one
  for (int axis = rank - 1; axis >= 0; --axis) {
    const long long size = dims[axis];
    const long long outer = total / (size * inner);
    const bool first = axis == rank - 1;
    if (!contiguous_out) {
      plan.passes.push_back(axis_pass(size, inner * lines, outer, element, limits, max_threads));
    } else if (first) {
      FftPass pass = axis_pass(size, lines, outer, element, limits, max_threads);
      pass.span_before = 1;
      pass.out_stride = 1;
      pass.out_dist = odist;
      pass.out_group = size;
      size_pass(&pass, pass.transforms, element, limits, max_threads);
      plan.passes.push_back(std::move(pass));
    } else {
      plan.passes.push_back(axis_pass(size, inner, outer * lines, element, limits, max_threads));
    }
    inner *= size;
  }
  result.plan = std::move(plan);
  result.reason = text + (contiguous_out ? ", written contiguously" : ", written in place of their input's layout");
  return result;
}

FftPlanResult plan_c2c_layout(const Descriptor& d, const DeviceLimits& limits) {
  FftPlanResult result;
  if (d.kind != Kind::kC2C || d.rank < 1 || d.rank > 3) {
    result.reason = "strided layouts: C2C/Z2Z of rank 1..3 only";
    return result;
  }
  if (d.rank == 1) {
    return plan_c2c_strided(d.dims[0].n, d.batch.n, d.dims[0].in_stride, d.batch.in_stride, d.dims[0].out_stride,
                            d.batch.out_stride, d.precision, limits);
  }
  long long dims[3] = {};
  for (int axis = 0; axis < d.rank; ++axis) dims[axis] = d.dims[axis].n;
  bool contiguous_out = false;
  if (!lines_layout(d, &contiguous_out)) {
    result.reason = "layout: not the lines of a [dims][S] array (S transforms at distance 1, strides S x the inner "
                    "axes' product), written in that layout or each transform contiguous";
    return result;
  }
  return plan_c2c_lines(d.rank, dims, d.batch.n, contiguous_out, contiguous_out ? d.batch.out_stride : 0, d.precision,
                        limits);
}

bool lines_layout(const Descriptor& d, bool* contiguous_out) {
  if (d.rank < 1 || d.rank > 3) return false;
  const long long lines = d.batch.n;
  const auto strides_of = [&](long long innermost, bool input) {
    long long stride = innermost;
    for (int axis = d.rank - 1; axis >= 0; --axis) {
      if ((input ? d.dims[axis].in_stride : d.dims[axis].out_stride) != stride) return false;
      stride *= d.dims[axis].n;
    }
    return true;
  };
  const bool lines_in = d.batch.in_stride == 1 && strides_of(lines, true);
  const bool same_out = d.batch.out_stride == 1 && strides_of(lines, false);
  *contiguous_out = !same_out;
  return lines >= 2 && lines_in && (same_out || strides_of(1, false));
}

namespace {

bool is_smooth(long long m);  // below: whether m's prime factors are all at most 13

// plan_real's rank-1 plan of an even n whose half M takes two passes (fft/planner.h).
FftPlanResult plan_real_two_pass(Kind kind, long long n, long long batch, Precision precision,
                                 const DeviceLimits& limits) {
  FftPlanResult result;
  const long long half = n / 2;
  // Two passes (one cluster kernel for the halves below); fused in fp64 only. fp32 runs the two passes as launches of
  // their own: fused, on an H100 and an H200 (2^26 reals a call, 2^18..2^22), R2C lost against
  // the two launches in every case (0.45-0.83x the vendor against 0.54-0.89x on the H200; its
  // fused kernels spill 230-300 B a thread under 64 registers) and C2R in most (H200 0.82-0.93x
  // against 0.87-1.06x; H100 1.07-1.21x against 0.99-1.22x). fp64 fused won: D2Z / Z2D 2^19
  // 1.47x / 1.40x fused against 1.30x / 1.03x (H100), Z2D 2^18..2^21 1.04-1.20x against
  // 0.88-1.01x (H200).
  DeviceLimits plain = limits;
  plain.clusters = false;
  plain.cluster_columns = false;  // planned below, once the paired pass has its step
  plain.fused = limits.fused && precision == Precision::kDouble;
  // A power-of-two half in the cluster range (where the limits allow clusters: the native side
  // asks for them for rank 1 only) runs as one cluster kernel (FftCluster) whose stages are the
  // two passes planned here, the real step where the paired pass has it: one read and one write
  // of the data instead of two of each.
  int half_bits = 0;
  while ((1LL << half_bits) < half) ++half_bits;
  if (limits.clusters && (1LL << half_bits) == half && half_bits >= kClusterMinBits && half_bits <= kClusterRealMaxBits) {
    plain.clusters = true;  // (a cluster plan is never fused)
    plain.cluster_max_bits = kClusterRealMaxBits;
  }
  FftPlanResult complex = plan_c2c_1d(half, batch, precision, plain);
  if (!complex.plan) {
    result.reason = complex.reason;
    return result;
  }
  if (complex.plan->passes.size() != 2) {
    result.reason = "n / 2 = " + std::to_string(half) + " takes " + std::to_string(complex.plan->passes.size()) +
                    " passes (real data: two at most)";
    return result;
  }
  FftPlan plan = std::move(*complex.plan);
  // The paired pass needs an even number of columns: the first pass's size (R2C's last pass has
  // L = N_1 columns) or the last's (C2R's first pass has n / (2 N_1)). Swap the two sizes where
  // that makes it so (600 = 24 x 25 for R2C, 25 x 24 for C2R).
  const std::size_t even_at = kind == Kind::kR2C ? 0 : 1;
  if (plan.passes[even_at].size % 2 != 0 && plan.passes[1 - even_at].size % 2 == 0) {
    plan.fused.reset();  // (powers of two only are fused or cluster plans)
    plan.cluster.reset();
    const long long sizes[2] = {plan.passes[1].size, plan.passes[0].size};
    const long long max_threads = std::min<long long>(std::max(limits.max_threads_per_block, 0),
                                                      kernel_max_threads(plan.element_bytes));
    plan.passes.clear();
    for (long long size : sizes) {
      FftPass pass = stockham_pass(size, plan.passes.empty() ? 1 : sizes[0], half);
      size_pass(&pass, batch, plan.element_bytes, plain, max_threads);
      plan.passes.push_back(std::move(pass));
    }
  }
  plan.kind = kind;
  plan.n = n;
  plan.batch = batch;
  plan.dims = {n};
  plan.work_bytes = 0;
  FftPass& paired = plan.passes[kind == Kind::kR2C ? 1 : 0];
  paired.real_step = kind == Kind::kR2C ? RealStep::kPairedR2C : RealStep::kPairedC2R;
  relayout_fixed_pass(&paired, plan.element_bytes, limits.shared_bytes_per_block);
  // A block pairs half its columns with their partners: P >= 2 columns, P dividing C, C even.
  const long long columns = paired.sub_transforms;
  if (columns % 2 != 0) {
    result.reason = "n / 2 = " + std::to_string(half) + ": the paired pass has an odd number of columns (" +
                    std::to_string(columns) + ")";
    return result;
  }
  int bits = 0;
  while ((1LL << bits) < half) ++bits;
  paired.real_lo_bits = (bits + 1) / 2;
  for (FftPass& pass : plan.passes) {
    pass.transform_n = half;
    pass.transforms = batch;
  }
  if (plan.fused) {
    // The passes as one fused kernel (fuse_passes sized its tiles: T columns of the paired pass,
    // a power of two of at least 2), with the paired step.
    FftFused& fused = *plan.fused;
    fused.kind = kind == Kind::kR2C ? FusedKind::kRealPairedForward : FusedKind::kRealPairedInverse;
    FftPass& tile = fused.passes[kind == Kind::kR2C ? 1 : 0];
    if (tile.transforms_per_block < 2 || columns % tile.transforms_per_block != 0) {
      plan.fused.reset();
    } else {
      tile.real_step = paired.real_step;
      tile.real_lo_bits = paired.real_lo_bits;
      for (FftPass& pass : fused.passes) {
        pass.transform_n = half;
        pass.transforms = batch;
      }
    }
  }
  // Passes of 2^11..2^13 points (halves from 2^22) as cluster column passes, the paired one with
  // its real step; a clustered paired pass needs no block of paired columns.
  plan_cluster_columns(&plan, limits);
  if (!paired.cluster && paired.transforms_per_block % 2 != 0) {
    // An even P: twice the planned one where it divides C and fits, else the largest even
    // divisor of C below it, at least 2.
    const long long max_threads = std::min<long long>(std::max(limits.max_threads_per_block, 0),
                                                      kernel_max_threads(plan.element_bytes));
    const auto fits = [&](long long per_block) {
      const int stride = pass_smem_stride(pass_buffer_elements(paired, plan.element_bytes), paired.smem_shift,
                                          plan.element_bytes, per_block, paired.threads_per_transform, true);
      return static_cast<std::size_t>(stride) * plan.element_bytes * static_cast<std::size_t>(per_block) <=
                 limits.shared_bytes_per_block &&
             per_block * paired.threads_per_transform <= max_threads;
    };
    long long per_block = 2 * paired.transforms_per_block;
    if (columns % per_block != 0 || !fits(per_block)) {
      per_block = 2;
      for (long long d = paired.transforms_per_block - 1; d > 2; --d) {
        if (d % 2 == 0 && columns % d == 0 && fits(d)) {
          per_block = d;
          break;
        }
      }
    }
    if (!fits(per_block)) {
      result.reason = "n / 2 = " + std::to_string(half) + ": two columns of the paired pass do not fit a block";
      return result;
    }
    paired.transforms_per_block = static_cast<int>(per_block);
    paired.smem_stride = pass_smem_stride(pass_buffer_elements(paired, plan.element_bytes), paired.smem_shift,
                                          plan.element_bytes, per_block, paired.threads_per_transform, true);
    paired.shared_bytes = static_cast<std::size_t>(paired.smem_stride) * plan.element_bytes *
                          static_cast<std::size_t>(per_block);
    paired.blocks = columns * batch / per_block;
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace

FftPlanResult plan_real(Kind kind, int rank, const long long* dims, long long batch, Precision precision,
                        const DeviceLimits& device_limits) {
  FftPlanResult result;
  // Cluster plans (plan_real_two_pass) for rank 1 only: the other ranks' real pass is one pass.
  // On an H100 (2^26 / 2^25 reals a call, in and out of place) they moved R2C / C2R n =
  // 2^15..2^17 at 0.57-0.71 / 0.52-0.65 of copy bandwidth, D2Z / Z2D at 0.46-0.61 / 0.44-0.50,
  // where the two-pass plans gave 0.30-0.45 and fp32 2^15's single pass 0.44 / 0.48.
  DeviceLimits limits = device_limits;
  limits.clusters = device_limits.clusters && rank == 1;
  if (kind != Kind::kR2C && kind != Kind::kC2R) {
    result.reason = "not a real transform";
    return result;
  }
  if (rank < 1 || rank > 3 || dims == nullptr) {
    result.reason = "rank " + std::to_string(rank) + " outside 1..3";
    return result;
  }
  const long long n = dims[rank - 1];
  const bool odd = n % 2 != 0;
  const long long half = n / 2;
  if (n < 3) {
    result.reason = "real length " + std::to_string(n) + " below 3";
    return result;
  }
  if (batch < 1) {
    result.reason = "batch " + std::to_string(batch) + " < 1";
    return result;
  }
  // The outer axes: each a one-pass complex transform (as plan_c2c's axes).
  // rows: of the innermost axis in one transform.
  const long long rows = one_pass_axes(rank - 1, dims, precision, limits, &result.reason);
  if (rows == 0) return result;
  // The real pass: every row of every transform, one complex transform of n / 2 points each
  // with the real step (odd n: of n points), in a layout with a real step (not a thread's). One
  // extra column a row on the complex side: the planner's batch must allow the rows' n / 2 + 1
  // slots in the kernels' 32-bit offsets.
  const long long points = odd ? n : half;
  limits.thread_transforms = 0;
  limits.wide_elements = 0;
  FftPlanResult complex;
  if (is_smooth(points)) {
    complex = plan_c2c_1d(points, rows * batch, precision, limits);
  } else {
    // A prime factor above 13: the real pass may be one Bluestein convolution over a power of
    // two (plan_c2c_any's one pass under convolution_powers_of_two, the padding the kernels
    // run), the real step on its loads and stores.
    DeviceLimits convolution = limits;
    convolution.convolution_powers_of_two = true;
    // Odd n, where asked for: two rows a convolution (FftPass::real_rows).
    const bool paired = odd && limits.pair_odd_real_rows;
    FftPlanResult any = plan_c2c_any(points, paired ? (rows * batch + 1) / 2 : rows * batch, precision, convolution);
    const bool one_pass = any.plan && any.plan->passes.size() == 1 &&
                          any.plan->passes[0].convolution == ConvolutionStep::kBluestein;
    if (!one_pass) {
      result.reason = std::string(odd ? "n = " : "n / 2 = ") + std::to_string(points) +
                      " is not one convolution pass (" + any.reason + ")";
      return result;
    }
    complex = std::move(any);
  }
  if (!complex.plan) {
    result.reason = complex.reason;
    return result;
  }
  if (complex.plan->passes.size() != 1) {
    if (rank == 1 && !odd) return plan_real_two_pass(kind, n, batch, precision, limits);
    result.reason = std::string(odd ? "n = " : "n / 2 = ") + std::to_string(points) +
                    " takes more than one pass (not planned yet for real data" +
                    (rank > 1 ? " of rank 2 and 3)" : " of odd length)");
    return result;
  }
  FftPlan plan = std::move(*complex.plan);
  plan.kind = kind;
  plan.n = n;
  plan.batch = batch;
  plan.dims.assign(dims, dims + rank);
  FftPass real = std::move(plan.passes[0]);
  plan.passes.clear();
  if (odd) {
    real.real_step = kind == Kind::kR2C ? RealStep::kOddR2C : RealStep::kOddC2R;
  } else {
    real.real_step = kind == Kind::kR2C ? RealStep::kPackR2C : RealStep::kUnpackC2R;
  }
  // Its layout as a real pass (the complex plan sized it as a complex one); a convolution pass
  // keeps its convolution's buffers.
  if (real.convolution == ConvolutionStep::kNone) relayout_fixed_pass(&real, plan.element_bytes, limits.shared_bytes_per_block);
  real.transform_n = points;
  real.transforms = rows * batch;
  if (odd && real.convolution == ConvolutionStep::kBluestein && limits.pair_odd_real_rows) {
    real.real_rows = rows * batch;
    real.transforms = (rows * batch + 1) / 2;
  }
  // The complex side holds n / 2 + 1 values a row (kPackR2C writes, kUnpackC2R reads them).
  if (kind == Kind::kR2C) {
    real.out_dist = half + 1;
  } else {
    real.in_dist = half + 1;
  }
  // The outer axes' passes on the complex side, [outer axes][n / 2 + 1], innermost first (as
  // plan_c2c's): axis passes over the lines of the axes inside them, in place.
  std::vector<FftPass> axes;
  const std::size_t element = plan.element_bytes;
  const long long max_threads =
      std::min<long long>(std::max(limits.max_threads_per_block, 0), kernel_max_threads(element));
  const long long complex_total = rows * (half + 1);
  long long inner = half + 1;
  for (int axis = rank - 2; axis >= 0; --axis) {
    const long long size = dims[axis];
    axes.push_back(axis_pass(size, inner, complex_total / (size * inner) * batch, element, limits, max_threads));
    inner *= size;
  }
  // R2C: the real pass, then the axes; C2R: the axes (outermost first), then the real pass.
  if (kind == Kind::kR2C) {
    plan.passes.push_back(std::move(real));
    for (FftPass& pass : axes) plan.passes.push_back(std::move(pass));
  } else {
    for (auto pass = axes.rbegin(); pass != axes.rend(); ++pass) plan.passes.push_back(std::move(*pass));
    plan.passes.push_back(std::move(real));
  }
  plan.passes_in_place = rank > 1;
  // The real pass and the axis next to it as one fused kernel where their plane has one
  // (fft/planner.h): R2C's first two passes, C2R's last two.
  if (rank > 1 && !odd && fusable_plane(dims[rank - 2], n, element, limits)) {
    const long long plane = dims[rank - 2] * (half + 1);
    const long long planes = rows / dims[rank - 2] * batch;
    if (kind == Kind::kR2C) {
      fuse_passes(&plan, limits.shared_bytes_per_block, FusedKind::kRealForward, 0, planes, plane);
    } else {
      fuse_passes(&plan, limits.shared_bytes_per_block, FusedKind::kRealInverse, plan.passes.size() - 2, planes,
                  plane);
    }
  }
  // Outer axes of 2^11..2^13 points as cluster column passes (plan_cluster_columns); an R2C's
  // axis next to the real pass with its line n / 2 (real, as line 0) packed into line 0, so that
  // its clusters tile n / 2 lines (packed cluster column passes in fft/stockham_index.h).
  if (rank > 1 && limits.cluster_columns) {
    FftPass* packable = kind == Kind::kR2C && !odd && !plan.fused ? &plan.passes[1] : nullptr;
    if (packable != nullptr) packable->nyquist_packed = true;
    plan_cluster_columns(&plan, limits);
    if (packable != nullptr && !packable->cluster) packable->nyquist_packed = false;
  }
  result.plan = std::move(plan);
  return result;
}

FftPlanResult plan_real_1d(Kind kind, long long n, long long batch, Precision precision, const DeviceLimits& limits) {
  return plan_real(kind, 1, &n, batch, precision, limits);
}

std::string grid_refusal(const FftPlan& plan) {
  constexpr long long kMaxGrid = (1LL << 31) - 1;
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    if (plan.passes[i].blocks > kMaxGrid) {
      return "pass " + std::to_string(i + 1) + " takes " + std::to_string(plan.passes[i].blocks) +
             " blocks, beyond a grid's 2^31 - 1";
    }
  }
  if (plan.cluster && plan.batch > (kMaxGrid >> plan.cluster->rank_bits)) {
    return "the cluster kernel's " + std::to_string(plan.batch) + " clusters of " +
           std::to_string(1 << plan.cluster->rank_bits) + " blocks pass a grid's 2^31 - 1";
  }
  return {};
}

std::size_t real_pass_index(const FftPlan& plan) {
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    if (plan.passes[i].real_step != RealStep::kNone) return i;
  }
  throw std::invalid_argument("not a real plan");
}

FftPass execution_pass(const FftPlan& plan, std::size_t index, bool in_place) {
  return execution_pass(plan, index, plan.passes.at(index), in_place);
}

FftPass execution_pass(const FftPlan& plan, std::size_t index, FftPass planned, bool in_place) {
  if (plan.kind == Kind::kC2C) return planned;
  const bool two_pass = plan.passes.size() == 2 && plan.dims.size() == 1 &&
                        (paired_real_step(plan.passes[0].real_step) || paired_real_step(plan.passes[1].real_step));
  if (!two_pass) return index == real_pass_index(plan) ? real_pass_for(plan, planned, in_place) : planned;
  FftPass pass = std::move(planned);
  const long long half = plan.n / 2;
  const long long real = in_place ? half + 1 : half;  // the real side, in complex elements
  // R2C's intermediate: in the output out of place (n / 2 + 1 a transform, the last pass then in
  // place there), in a temporary array in place (n / 2).
  const long long work = in_place ? half : half + 1;
  if (plan.kind == Kind::kR2C) {
    pass.in_group = index == 0 ? real : work;
    pass.out_group = index == 0 ? work : half + 1;
  } else {
    pass.in_group = index == 0 ? half + 1 : half;
    pass.out_group = index == 0 ? half : real;
  }
  return pass;
}

FftPass real_pass_for(const FftPlan& plan, bool in_place) {
  return real_pass_for(plan, plan.passes.at(real_pass_index(plan)), in_place);
}

FftPass real_pass_for(const FftPlan& plan, FftPass pass, bool in_place) {
  const long long half = plan.n / 2;
  // The real side: n reals (n / 2 complex values) a row, or cuFFT's padded 2 (n / 2 + 1) in place;
  // odd n counts reals: n, or n + 1 in place.
  const bool odd = plan.n % 2 != 0;
  const long long real_dist = odd ? (in_place ? plan.n + 1 : plan.n) : (in_place ? half + 1 : half);
  if (plan.kind == Kind::kR2C) {
    pass.in_dist = real_dist;
  } else {
    pass.out_dist = real_dist;
  }
  return pass;
}

int fused_lag(const FftPlan& plan, long long resident_blocks, std::size_t l2_bytes) {
  if (!plan.fused || plan.fused->transforms < 1) return 1;
  const long long a = plan.fused->first_tiles;
  const long long b = plan.fused->last_tiles;
  const long long waiting = (std::max(resident_blocks, 0LL) + b + a + b - 1) / (a + b);
  const auto transform_bytes = static_cast<std::size_t>(plan.fused->transform_n) * plan.element_bytes;
  const auto footprint = static_cast<long long>(l2_bytes / 4 / transform_bytes);
  return static_cast<int>(std::clamp(std::min(waiting, footprint), 1LL, plan.fused->transforms));
}

namespace {
std::string plan_transforms_text(const FftPlan& plan, const FftPass& pass) {
  return std::to_string(plan.pass_transforms(pass)) + " x " + std::to_string(pass.transform_n) + " elements";
}

// What a pass does besides its Stockham stages (ConvolutionStep, BluesteinStep).
std::string pass_step_text(const FftPass& pass) {
  std::ostringstream out;
  if (pass.convolution == ConvolutionStep::kRader) {
    out << ", Rader (generator " << pass.rader_generator << ")";
  } else if (pass.convolution == ConvolutionStep::kBluestein) {
    out << ", Bluestein (chirp, padded to " << pass.convolution_size << ")";
  }
  if (pass.real_rows > 0) out << ", " << pass.real_rows << " real rows paired";
  if (pass.real_step == RealStep::kPairedR2C) out << ", R2C step after the stages, columns paired";
  if (pass.real_step == RealStep::kPairedC2R) out << ", C2R step before the stages, columns paired";
  switch (pass.bluestein) {
    case BluesteinStep::kChirpLoad: out << ", Bluestein: loads " << pass.chirp_length << " points times the chirp"; break;
    case BluesteinStep::kForward: out << ", Bluestein: forward"; break;
    case BluesteinStep::kSpectrum: out << ", Bluestein: times the kernel spectrum, then the inverse stages"; break;
    case BluesteinStep::kInverse: out << ", Bluestein: inverse"; break;
    case BluesteinStep::kChirpStore:
      out << ", Bluestein: inverse, stores " << pass.chirp_length << " points times the chirp";
      break;
    default: break;
  }
  return out.str();
}
}  // namespace

std::string FftPlan::to_string() const {
  std::ostringstream out;
  out << "c2c n=";
  if (dims.size() > 1) {
    for (std::size_t axis = 0; axis < dims.size(); ++axis) out << (axis > 0 ? "x" : "") << dims[axis];
  } else {
    out << n;
  }
  out << " batch=" << batch << (precision == Precision::kDouble ? " fp64" : " fp32") << ", "
      << passes.size() << (passes.size() == 1 ? " pass" : " passes") << ", work " << work_bytes << " B";
  if (const long long padded = bluestein_padded_length(*this)) out << ", Bluestein over " << padded << " points";
  if (cluster) {
    out << ", one cluster kernel: " << (1 << cluster->rank_bits) << " blocks of " << cluster->threads << " threads, "
        << cluster->shared_bytes << " B shared";
  }
  if (fused) {
    static const char* const kKinds[] = {"1D", "axes", "real forward", "real inverse", "real 1D forward",
                                         "real 1D inverse"};
    out << ", fused (" << kKinds[static_cast<int>(fused->kind)] << ", passes " << fused->first_pass + 1 << "-"
        << fused->first_pass + 2 << "): blocks of " << fused->threads << " threads, " << fused->shared_bytes << " B shared, "
        << fused->first_tiles << " + " << fused->last_tiles << " tiles per transform (T " << fused->passes[0].transforms_per_block
        << ", " << fused->passes[1].transforms_per_block << ")";
    if (fused->passes[0].nyquist_packed || fused->passes[1].nyquist_packed) {
      out << ", the axis pass's last column packed into column 0";
    }
  }
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const FftPass& pass = passes[i];
    out << "\n  pass " << i + 1 << ": size " << pass.size;
    if (pass.convolution != ConvolutionStep::kNone) out << ", convolution of " << pass.convolution_size;
    out << " = ";
    for (std::size_t r = 0; r < pass.radices.size(); ++r) out << (r == 0 ? "" : "x") << pass.radices[r];
    out << ", L " << pass.span_before << ", strides in " << pass.in_stride << " out " << pass.out_stride
        << ", " << pass.sub_transforms << " sub-transforms, " << pass.threads_per_transform << " threads x "
        << pass.transforms_per_block << " per block, " << pass.shared_bytes << " B shared, " << pass.blocks
        << " blocks";
    if (pass.wide) {
      out << ", wide stages (threads sized under " << pass.widened_limit << ")";
    } else if (pass.widened_limit > 0) {
      out << ", stages widened to " << pass.widened_limit << " threads a block";
    }
    if (!pass.twiddled) out << ", axis pass over " << plan_transforms_text(*this, pass);
    if (pass.straddles) out << ", blocks straddling two transforms' lines";
    if (pass.cluster) {
      out << ", cluster column pass" << (pass.cluster->contiguous_out ? " (lines out contiguous)" : "") << ": "
          << (1 << pass.cluster->lines_log2) << " lines a cluster of "
          << (1 << pass.cluster->rank_bits) << " blocks of " << pass.cluster->threads << " threads, "
          << pass.cluster->shared_bytes << " B shared";
    }
    out << pass_step_text(pass);
  }
  return out.str();
}

}  // namespace idgpu::fft

// --- Lengths with prime factors above 13 (plan_c2c_any; fft/convolution.h) --------------------

namespace idgpu::fft {
namespace {

// What one pass may hold under the limits: `fits` is plan_c2c_1d's test of an ordinary pass,
// `holds` that of a convolution pass, whose sub-transforms keep `slots` elements in shared memory
// and run the stages of `stages` points.
struct PassBudget {
  std::size_t element = 0;
  int shift = 0;
  long long max_threads = 0;
  std::size_t shared = 0;
  bool powers_of_two_only = false;  // DeviceLimits::convolution_powers_of_two

  bool holds(long long slots, long long stages) const {
    if (stages < 2) return false;
    const auto bytes = static_cast<std::size_t>(smem_stride(slots, shift)) * element;
    return bytes <= shared && threads_for(stages, pass_radices(stages)) <= max_threads;
  }
  bool fits(long long size) const { return holds(size, size); }
};

bool is_smooth(long long m) {
  for (int prime : kPrimes) {
    while (m % prime == 0) m /= prime;
  }
  return m == 1;
}

// n as its 13-smooth part times its prime factors above 13 (ascending, with multiplicity).
struct LengthFactors {
  long long smooth = 1;
  std::vector<long long> large;
};

LengthFactors factor_length(long long n) {
  LengthFactors factors;
  for (int prime : kPrimes) {
    while (n % prime == 0) {
      n /= prime;
      factors.smooth *= prime;
    }
  }
  while (n > 1) {
    const long long q = smallest_prime_factor(n);
    factors.large.push_back(q);
    n /= q;
  }
  return factors;
}

// "2^10 x 3 x 17".
std::string factor_text(long long n) {
  std::ostringstream out;
  bool first = true;
  while (n > 1) {
    const long long q = smallest_prime_factor(n);
    int power = 0;
    while (n % q == 0) {
      n /= q;
      ++power;
    }
    out << (first ? "" : " x ") << q;
    if (power > 1) out << "^" << power;
    first = false;
  }
  return out.str();
}

// The fewest passes of a 13-smooth m >= 2, each fitting a block (0 where none splits it).
int fewest_passes(long long m, const PassBudget& budget) {
  const auto fits = [&budget](long long size) { return budget.fits(size); };
  for (int p = 1; p <= 62 && (1LL << p) <= m; ++p) {
    if (splits(m, p, fits)) return p;
  }
  return 0;
}

// The shared-memory traffic of a transform of m points in a block: every stage reads and
// writes its m elements.
long long stage_points(long long m) { return m * static_cast<long long>(pass_radices(m).size()); }

// Bluestein's padded length for n points and the passes its plan takes: 1 where the
// convolution fits a block (M slots), else 2P - 1 for an M-point plan of P passes. Among the
// 2^a 3^b 5^c lengths in [2n - 1, the next power of two]: the fewest passes, then the fewest
// stage points, then the shortest. `one_pass`: in one block only. Length 0: none fits.
struct Padding {
  long long length = 0;
  int passes = 0;
};

Padding bluestein_padding(long long n, const PassBudget& budget, bool one_pass) {
  const long long low = 2 * n - 1;
  long long high = 1;
  while (high < low) high *= 2;
  Padding best;
  for (long long a = 1; a <= high; a *= 2) {
    for (long long b = a; b <= high; b *= 3) {
      for (long long m = b; m <= high; m *= 5) {
        // Under the GPU's limits a mixed M only where its one-pass kernel fits the block (a
        // smaller block, e.g. 99 KB on sm_86 / sm_89, would plan it in several passes, which
        // only powers of two have kernels for).
        if (m < low || (budget.powers_of_two_only && m != high &&
                        !(bluestein_mixed_kernel(m, budget.element) && budget.holds(m, m)))) {
          continue;
        }
        int passes = budget.holds(m, m) ? 1 : 0;
        if (passes == 0 && !one_pass) {
          const int forward = fewest_passes(m, budget);
          if (forward >= 2) passes = 2 * forward - 1;
        }
        if (passes == 0) continue;
        const bool better =
            best.length == 0 || passes < best.passes ||
            (passes == best.passes && (stage_points(m) < stage_points(best.length) ||
                                       (stage_points(m) == stage_points(best.length) && m < best.length)));
        if (better) best = {m, passes};
      }
    }
  }
  return best;
}

// The pass of a prime factor p > 13 in a mixed plan: Rader where p - 1 is 13-smooth and its
// p + 1 slots fit a block (a convolution of p - 1 points, the shortest there is), else a
// Bluestein convolution that fits a block; none where neither does.
struct PrimePass {
  long long prime = 0;
  ConvolutionStep step = ConvolutionStep::kNone;
  long long convolution = 0;
};

std::optional<PrimePass> prime_pass(long long p, const PassBudget& budget) {
  if (!budget.powers_of_two_only && is_smooth(p - 1) && budget.holds(p - 1 + kRaderExtraSlots, p - 1)) {
    return PrimePass{p, ConvolutionStep::kRader, p - 1};
  }
  const Padding padding = bluestein_padding(p, budget, true);
  if (padding.length > 0) return PrimePass{p, ConvolutionStep::kBluestein, padding.length};
  return std::nullopt;
}

// Why a prime factor has no pass of its own.
std::string no_prime_pass_text(long long p) {
  return "no pass of " + std::to_string(p) + " (" + std::to_string(p - 1) + " = " + factor_text(p - 1) +
         (is_smooth(p - 1) ? ": Rader's" : " is not 13-smooth; Bluestein's") + " convolution does not fit a block)";
}


// Makes `pass` a convolution pass: its stages (and threads) are those of the convolution.
void set_convolution(FftPass* pass, ConvolutionStep step, long long convolution) {
  pass->convolution = step;
  pass->convolution_size = convolution;
  pass->radices = pass_radices(convolution);
  pass->threads_per_transform = static_cast<int>(threads_for(convolution, pass->radices));
  if (step == ConvolutionStep::kRader) pass->rader_generator = primitive_root(pass->size);
}

// size_pass for a pass whose sub-transforms hold more slots than `size` (a convolution pass):
// blocks and shared memory laid out for the slots, the inter-pass twiddles split for the size.
void size_step_pass(FftPass* pass, long long transforms, const PassBudget& budget, const DeviceLimits& limits) {
  const long long size = pass->size;
  long long slots = size;
  if (pass->convolution == ConvolutionStep::kRader) slots = pass->convolution_size + kRaderExtraSlots;
  if (pass->convolution == ConvolutionStep::kBluestein) slots = pass->convolution_size;
  pass->size = slots;
  size_pass(pass, transforms, budget.element, limits, budget.max_threads);
  pass->size = size;
  pass->twiddle_lo_bits = 0;
  if (pass->twiddled && pass->span_before > 1) {
    int bits = 0;
    while ((1LL << bits) < pass->span_before * size) ++bits;
    pass->twiddle_lo_bits = (bits + 1) / 2;
  }
}

FftPlan plan_basics(long long n, long long batch, Precision precision, std::size_t element) {
  FftPlan plan;
  plan.n = n;
  plan.batch = batch;
  plan.precision = precision;
  plan.element_bytes = element;
  return plan;
}

// The mixed plan: the smooth part's passes (balanced, as plan_c2c_1d's), then one pass per
// large prime. Buffers and work area as plan_c2c_1d's plans.
FftPlan mixed_plan(long long n, long long batch, Precision precision, const LengthFactors& factors, int smooth_passes,
                   const std::vector<PrimePass>& primes, const PassBudget& budget, const DeviceLimits& limits) {
  FftPlan plan = plan_basics(n, batch, precision, budget.element);
  std::vector<long long> sizes;
  if (factors.smooth > 1) {
    sizes = balanced_split(factors.smooth, smooth_passes, [&budget](long long size) { return budget.fits(size); });
  }
  long long span = 1;
  for (long long size : sizes) {
    FftPass pass = stockham_pass(size, span, n);
    size_pass(&pass, batch, budget.element, limits, budget.max_threads);
    span *= size;
    plan.passes.push_back(std::move(pass));
  }
  for (const PrimePass& prime : primes) {
    FftPass pass = stockham_pass(prime.prime, span, n);
    set_convolution(&pass, prime.step, prime.convolution);
    size_step_pass(&pass, batch, budget, limits);
    span *= prime.prime;
    plan.passes.push_back(std::move(pass));
  }
  plan.work_bytes =
      plan.passes.size() <= 2 ? 0 : static_cast<std::size_t>(n) * static_cast<std::size_t>(batch) * budget.element;
  return plan;
}

// Bluestein over the whole length: one convolution pass, or the 2P - 1 passes of BluesteinStep.
FftPlan bluestein_plan(long long n, long long batch, Precision precision, const Padding& padding,
                       const PassBudget& budget, const DeviceLimits& limits) {
  FftPlan plan = plan_basics(n, batch, precision, budget.element);
  const long long m = padding.length;
  if (padding.passes == 1) {
    FftPass pass = stockham_pass(n, 1, n);
    set_convolution(&pass, ConvolutionStep::kBluestein, m);
    size_step_pass(&pass, batch, budget, limits);
    plan.passes.push_back(std::move(pass));
    return plan;
  }
  const int half = (padding.passes + 1) / 2;
  const std::vector<long long> forward =
      balanced_split(m, half, [&budget](long long size) { return budget.fits(size); });
  const auto passes_of = [&](const std::vector<long long>& sizes) {
    std::vector<FftPass> passes;
    long long span = 1;
    for (long long size : sizes) {
      passes.push_back(stockham_pass(size, span, m));
      passes.back().transform_n = m;
      passes.back().chirp_length = n;
      span *= size;
    }
    return passes;
  };
  std::vector<FftPass> ahead = passes_of(forward);
  std::vector<FftPass> back = passes_of(std::vector<long long>(forward.rbegin(), forward.rend()));
  for (std::size_t i = 0; i + 1 < ahead.size(); ++i) {
    ahead[i].bluestein = i == 0 ? BluesteinStep::kChirpLoad : BluesteinStep::kForward;
    plan.passes.push_back(std::move(ahead[i]));
  }
  FftPass middle = std::move(ahead.back());
  middle.bluestein = BluesteinStep::kSpectrum;
  middle.out_stride = back.front().out_stride;
  plan.passes.push_back(std::move(middle));
  for (std::size_t i = 1; i < back.size(); ++i) {
    back[i].bluestein = i + 1 == back.size() ? BluesteinStep::kChirpStore : BluesteinStep::kInverse;
    plan.passes.push_back(std::move(back[i]));
  }
  for (FftPass& pass : plan.passes) size_pass(&pass, batch, budget.element, limits, budget.max_threads);
  const std::size_t buffers = bluestein_one_buffer(plan) ? 1 : 2;
  plan.work_bytes = buffers * static_cast<std::size_t>(m) * static_cast<std::size_t>(batch) * budget.element;
  return plan;
}

std::string passes_text(long long passes) { return std::to_string(passes) + (passes == 1 ? " pass" : " passes"); }

std::string mixed_text(const LengthFactors& factors, int smooth_passes, const std::vector<PrimePass>& primes) {
  std::ostringstream out;
  if (factors.smooth > 1 || primes.size() > 1) out << "mixed: ";
  if (factors.smooth > 1) out << factors.smooth << " in " << passes_text(smooth_passes) << ", ";
  for (std::size_t i = 0; i < primes.size(); ++i) {
    out << (i == 0 ? "" : ", ") << (primes[i].step == ConvolutionStep::kRader ? "Rader " : "Bluestein ")
        << primes[i].prime;
    if (primes[i].step == ConvolutionStep::kBluestein) out << " over " << primes[i].convolution;
  }
  out << " (" << passes_text(smooth_passes + static_cast<long long>(primes.size())) << ")";
  return out.str();
}

std::string bluestein_text(const Padding& padding) {
  return "Bluestein over M = " + std::to_string(padding.length) + " = " + factor_text(padding.length) + " (" +
         passes_text(padding.passes) + ")";
}

}  // namespace

FftPlanResult plan_c2c_any(long long n, long long batch, Precision precision, const DeviceLimits& limits) {
  const std::size_t element = complex_element_bytes(precision);
  if (element == 0 || n < 2 || batch < 1) return plan_c2c_1d(n, batch, precision, limits);
  FftPlanResult result;
  if (n > kMaxAnyLength) {
    result.reason = "length " + std::to_string(n) + " above 2^40";
    return result;
  }
  const LengthFactors factors = factor_length(n);
  if (factors.large.empty()) {
    result = plan_c2c_1d(n, batch, precision, limits);
    if (result.plan) result.reason = std::to_string(n) + " is 13-smooth: Stockham passes";
    return result;
  }
  if (std::string refusal = register_budget_refusal(element, limits); !refusal.empty()) {
    result.reason = std::move(refusal);
    return result;
  }
  PassBudget budget;
  budget.element = element;
  budget.shift = smem_shift(element);
  budget.max_threads = std::min<long long>(std::max(limits.max_threads_per_block, 0), kernel_max_threads(element));
  budget.shared = limits.shared_bytes_per_block;
  budget.powers_of_two_only = limits.convolution_powers_of_two;

  // (a) Mixed: the smooth part's passes and a pass per large prime.
  const int smooth_passes = factors.smooth > 1 ? fewest_passes(factors.smooth, budget) : 0;
  bool mixed = factors.smooth == 1 || smooth_passes > 0;
  std::string mixed_why = mixed ? "" : "no split of " + std::to_string(factors.smooth) + " fits";
  std::vector<PrimePass> primes;
  for (long long p : factors.large) {
    if (!mixed) break;
    const std::optional<PrimePass> pass = prime_pass(p, budget);
    if (!pass) {
      mixed = false;
      mixed_why = no_prime_pass_text(p);
    } else {
      primes.push_back(*pass);
    }
  }
  const long long mixed_passes = smooth_passes + static_cast<long long>(primes.size());
  // (b) Bluestein over the whole length.
  const Padding padding = bluestein_padding(n, budget, false);
  const std::string bluestein_why = padding.length > 0 ? "" : "Bluestein: no padded length fits";

  const std::string head = std::to_string(n) + " = " + factor_text(n) + ": ";
  if (!mixed && padding.length == 0) {
    result.reason = head + "no plan (mixed: " + mixed_why + "; " + bluestein_why + ")";
    return result;
  }
  // Equal pass counts go to the mixed plan, except where it is the one Bluestein pass of a prime
  // (the same pass as Bluestein's over the whole length: reported as that).
  const bool same_pass = factors.smooth == 1 && primes.size() == 1 && primes[0].step == ConvolutionStep::kBluestein;
  const bool take_mixed = mixed && !same_pass && (padding.length == 0 || mixed_passes <= padding.passes);
  std::string mixed_summary = mixed_why;  // a prime's one pass has no "mixed" to it
  if (mixed) {
    mixed_summary = mixed_text(factors, smooth_passes, primes);
  } else if (factors.smooth > 1 || factors.large.size() > 1) {
    mixed_summary = "mixed: " + mixed_why;
  }
  const std::string bluestein_summary = padding.length > 0 ? bluestein_text(padding) : bluestein_why;
  if (take_mixed) {
    result.plan = mixed_plan(n, batch, precision, factors, smooth_passes, primes, budget, limits);
    result.reason = head + mixed_summary + ", against " + bluestein_summary;
  } else {
    result.plan = bluestein_plan(n, batch, precision, padding, budget, limits);
    result.reason = head + bluestein_summary + (same_pass ? "" : ", against " + mixed_summary);
  }
  return result;
}

long long bluestein_padded_length(const FftPlan& plan) {
  if (plan.passes.empty() || plan.passes.front().bluestein == BluesteinStep::kNone) return 0;
  return plan.passes.front().transform_n;
}

bool bluestein_one_buffer(const FftPlan& plan) { return bluestein_padded_length(plan) > 0 && plan.passes.size() == 3; }

int pass_sign(const FftPass& pass, int sign) {
  return pass.bluestein == BluesteinStep::kInverse || pass.bluestein == BluesteinStep::kChirpStore ? -sign : sign;
}

std::vector<PassTurn> plan_turns(const FftPlan& plan, bool in_place) {
  std::vector<PassTurn> turns;
  const long long padded = bluestein_padded_length(plan);
  if (padded == 0) {
    for (const PassBuffers& buffers : plan_buffers(plan, in_place)) turns.push_back({buffers.from, buffers.to});
    return turns;
  }
  // One buffer: the spectrum pass (the middle one) in place; else the halves in turn.
  const std::size_t half = bluestein_one_buffer(plan) ? 0 : static_cast<std::size_t>(padded) * static_cast<std::size_t>(plan.batch);
  const std::size_t count = plan.passes.size();
  for (std::size_t i = 0; i < count; ++i) {
    PassTurn turn{i == 0 ? Buffer::kInput : Buffer::kWork, i + 1 == count ? Buffer::kOutput : Buffer::kWork};
    turn.from_offset = i == 0 ? 0 : turns[i - 1].to_offset;
    turn.to_offset = i + 1 == count ? 0 : (i % 2) * half;
    turns.push_back(turn);
  }
  return turns;
}

}  // namespace idgpu::fft
