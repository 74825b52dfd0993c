#include "fft/stockham_reference.h"

#include <limits>
#include <stdexcept>
#include <vector>

namespace idgpu::fft::reference {
namespace {

using Complex = std::complex<double>;

// One pass over the whole batch, block by block, as the kernel runs it.
void run_pass(const FftPlan& plan, const FftPass& pass, int sign, const Complex* from, Complex* to) {
  const PassShape shape = pass_shape(plan, pass);
  const std::vector<Complex> table = pass_twiddles(pass);
  const TwiddleLayout layout = twiddle_layout(pass);
  const auto oriented = [sign](Complex w) { return sign < 0 ? w : std::conj(w); };
  const int size = shape.size;
  const int per_block = shape.per_block;
  const int threads = pass.threads_per_transform;
  const long long total = pass.sub_transforms * plan.batch;
  const long long lo_mask = (1LL << pass.twiddle_lo_bits) - 1;

  std::vector<std::vector<Complex>> dfts;
  for (int radix : pass.radices) {
    std::vector<Complex> dft(static_cast<std::size_t>(radix * radix));
    for (int p = 0; p < radix; ++p)
      for (int q = 0; q < radix; ++q) dft[p * radix + q] = twiddle(static_cast<long long>(p) * q, radix, sign);
    dfts.push_back(std::move(dft));
  }

  std::vector<Complex> smem(static_cast<std::size_t>(per_block) * static_cast<std::size_t>(shape.smem_stride));
  struct Write {
    int index;
    Complex value;
  };
  std::vector<Write> writes;
  for (long long block = 0; block < pass.blocks; ++block) {
    const long long g0 = block * per_block;
    const int valid = static_cast<int>(std::min<long long>(per_block, total - g0));
    std::fill(smem.begin(), smem.end(), Complex(std::numeric_limits<double>::quiet_NaN(), 0.0));

    const BlockFrame frame = block_frame(shape, g0);
    for (int q = 0; q < valid * size; ++q) {
      int tr = 0, e = 0;
      staging_slot(shape, shape.sub == 1, q, &tr, &e);
      Complex x = from[frame.in_base + input_step(shape, tr, e)];
      if (shape.span > 1 && e > 0) {
        const long long exponent = e * (frame.j0 + tr);
        x *= oriented(table[layout.lo + (exponent & lo_mask)] *
                      table[layout.hi + (exponent >> pass.twiddle_lo_bits)]);
      }
      smem[smem_index(shape, tr, e)] = x;
    }

    int span = 1;
    int offset = 0;
    for (std::size_t s = 0; s < pass.radices.size(); ++s) {
      const int radix = pass.radices[s];
      const int butterflies = size / radix;
      const int per_thread = butterflies_per_thread(radix);
      writes.clear();
      // Read phase of every thread (all reads precede all writes, as across the kernel's barrier).
      for (int tr = 0; tr < valid; ++tr) {
        for (int tid = 0; tid < threads; ++tid) {
          for (int i = 0; i < per_thread; ++i) {
            const int b = tid + i * threads;
            if (b >= butterflies) continue;
            const int j = b % span;
            Complex a[16];
            for (int t = 0; t < radix; ++t) {
              a[t] = smem[smem_index(shape, tr, b + t * butterflies)];
              if (t > 0 && j > 0) a[t] *= oriented(table[layout.stage + stage_twiddle_index(offset, span, t, j)]);
            }
            const int base = stage_write_base(b, span, radix);
            for (int p = 0; p < radix; ++p) {
              Complex sum = a[0];
              for (int t = 1; t < radix; ++t) sum += dfts[s][p * radix + t] * a[t];
              writes.push_back({smem_index(shape, tr, base + p * span), sum});
            }
          }
        }
      }
      for (const Write& w : writes) smem[w.index] = w.value;
      offset = next_stage_twiddle_offset(offset, span, radix);
      span *= radix;
    }

    for (int q = 0; q < valid * size; ++q) {
      int tr = 0, p = 0;
      staging_slot(shape, shape.span == 1, q, &tr, &p);
      to[frame.out_base + output_step(shape, tr, p)] = smem[smem_index(shape, tr, p)];
    }
  }
}

}  // namespace

void execute(const FftPlan& plan, int sign, const Complex* input, Complex* output) {
  if (plan.passes.empty()) throw std::invalid_argument("fft reference: empty plan");
  const bool in_place = input == output;
  // The plan's work area, or (in place, two passes) the temporary the native plan takes instead.
  std::vector<Complex> work(static_cast<std::size_t>(plan.n * plan.batch));
  const auto buffer = [&](Buffer which) -> Complex* {
    switch (which) {
      case Buffer::kInput: return const_cast<Complex*>(input);  // only ever read
      case Buffer::kOutput: return output;
      default: return work.data();
    }
  };
  const std::vector<PassBuffers> turns = pass_buffers(plan.passes.size(), in_place);
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    run_pass(plan, plan.passes[i], sign, buffer(turns[i].from), buffer(turns[i].to));
  }
}

}  // namespace idgpu::fft::reference
