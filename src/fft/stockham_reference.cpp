#include "fft/stockham_reference.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace idgpu::fft::reference {
namespace {

using Complex = std::complex<double>;

constexpr double kHalfPi = 1.57079632679489661923132169163975144;

// One Stockham autosort stage of a length-`size` transform (Dieguez et al., Eq. 6; Van Loan's
// formulation): `span` = product of the earlier stages' radices. Butterfly b = j + span k
// (j < span, k < size / (span radix)) reads from[b + q size / radix] for q < radix, multiplies
// element q by exp(sign 2 pi i q j / (span radix)), takes a radix-point DFT over q and writes
// output p to to[j + span p + span radix k]. `dft` is the radix x radix matrix exp(sign 2 pi i q p / r).
void stockham_stage(long long size, long long span, int radix, int threads, int sign, const std::vector<Complex>& dft,
                    const Complex* from, Complex* to) {
  const long long butterflies = size / radix;
  const long long read_stride = size / radix;
  Complex a[16];
  for (int thread = 0; thread < threads; ++thread) {
    for (long long b = thread; b < butterflies; b += threads) {
      const long long j = b % span;
      const long long k = b / span;
      for (int q = 0; q < radix; ++q) {
        a[q] = from[b + q * read_stride];
        if (j != 0 && q != 0) a[q] *= twiddle(q * j, span * radix, sign);
      }
      for (int p = 0; p < radix; ++p) {
        Complex sum = a[0];
        for (int q = 1; q < radix; ++q) sum += dft[p * radix + q] * a[q];
        to[j + span * p + span * radix * k] = sum;
      }
    }
  }
}

}  // namespace

Complex twiddle(long long e, long long d, int sign) {
  e %= d;
  if (e < 0) e += d;
  // e / d = (quarter + r / d) / 4 of a turn, r in [0, d).
  const long long quarter = (4 * e) / d;
  const long long r = 4 * e - quarter * d;
  const double angle = kHalfPi * static_cast<double>(r) / static_cast<double>(d);
  const double c = r == 0 ? 1.0 : std::cos(angle);
  const double s = r == 0 ? 0.0 : std::sin(angle);
  Complex w;
  switch (quarter) {
    case 0: w = {c, s}; break;
    case 1: w = {-s, c}; break;
    case 2: w = {-c, -s}; break;
    default: w = {s, -c}; break;
  }
  return sign < 0 ? std::conj(w) : w;
}

void execute(const FftPlan& plan, int sign, const Complex* input, Complex* output) {
  if (plan.passes.empty()) throw std::invalid_argument("fft reference: empty plan");
  const long long n = plan.n;
  const std::size_t total = static_cast<std::size_t>(n * plan.batch);
  std::vector<Complex> scratch(plan.passes.size() > 1 ? total : 0);

  // Pass i writes `output` when an even number of passes follow it, else the scratch array, so
  // that the last one lands in `output` and no pass reads the buffer it writes.
  const Complex* from = input;
  const std::size_t pass_count = plan.passes.size();
  for (std::size_t i = 0; i < pass_count; ++i) {
    const FftPass& pass = plan.passes[i];
    Complex* to = (pass_count - 1 - i) % 2 == 0 ? output : scratch.data();
    const long long size = pass.size;
    const long long span = pass.span_before;

    std::vector<std::vector<Complex>> dfts;
    for (int radix : pass.radices) {
      std::vector<Complex> dft(static_cast<std::size_t>(radix * radix));
      for (int p = 0; p < radix; ++p)
        for (int q = 0; q < radix; ++q) dft[p * radix + q] = twiddle(static_cast<long long>(p) * q, radix, sign);
      dfts.push_back(std::move(dft));
    }

    // The block's shared memory: two buffers per sub-transform.
    std::vector<Complex> ping(static_cast<std::size_t>(size)), pong(static_cast<std::size_t>(size));
    const long long sub_total = pass.sub_transforms * plan.batch;
    for (long long block = 0; block < pass.blocks; ++block) {
      for (int slot = 0; slot < pass.transforms_per_block; ++slot) {
        const long long global = block * pass.transforms_per_block + slot;
        if (global >= sub_total) break;  // the last block's idle slots
        const long long batch_offset = (global / pass.sub_transforms) * n;
        const long long id = global % pass.sub_transforms;
        const long long j = id % span;
        const long long k = id / span;
        const long long in_base = batch_offset + id;
        const long long out_base = batch_offset + j + span * size * k;

        for (long long t = 0; t < size; ++t) {
          Complex value = from[in_base + t * pass.in_stride];
          if (j != 0 && t != 0) value *= twiddle(t * j, span * size, sign);
          ping[t] = value;
        }
        Complex* current = ping.data();
        Complex* next = pong.data();
        long long stage_span = 1;
        for (std::size_t s = 0; s < pass.radices.size(); ++s) {
          stockham_stage(size, stage_span, pass.radices[s], pass.threads_per_transform, sign, dfts[s], current, next);
          stage_span *= pass.radices[s];
          std::swap(current, next);
        }
        for (long long p = 0; p < size; ++p) to[out_base + p * pass.out_stride] = current[p];
      }
    }
    from = to;
  }
}

}  // namespace idgpu::fft::reference
