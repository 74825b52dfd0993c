#include "fft/convolution_reference.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "fft/convolution.h"
#include "fft/convolution_index.h"
#include "fft/stockham_reference.h"

namespace idgpu::fft::reference {
namespace {

using Complex = std::complex<double>;

bool has_step(const FftPass& pass) {
  return pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone;
}

// A pass without a step as a one-pass plan of its own, through the Stockham executor.
void run_plain_pass(const FftPlan& plan, const FftPass& pass, int sign, const Complex* from, Complex* to) {
  FftPlan one = plan;
  one.kind = Kind::kC2C;
  one.n = pass.transform_n > 0 ? pass.transform_n : plan.n;
  one.passes = {pass};
  one.passes.front().bluestein = BluesteinStep::kNone;
  one.passes.front().chirp_length = 0;
  one.cluster.reset();
  one.fused.reset();
  one.passes_in_place = false;
  one.work_bytes = 0;
  execute(one, sign, from, to);
}

// One pass with a step, block by block as its kernel is to run them.
class StepRunner {
 public:
  StepRunner(const FftPlan& plan, const FftPass& pass, int sign)
      : plan_(plan),
        pass_(pass),
        transform_sign_(sign),
        sign_(pass_sign(pass, sign)),
        shape_(pass_shape(plan, pass)),
        one_buffer_(bluestein_one_buffer(plan)),
        tables_(step_tables(pass, TableAccuracy::kExtended)),
        smem_(static_cast<std::size_t>(shape_.per_block) * static_cast<std::size_t>(shape_.smem_stride)) {}

  void run_all(const Complex* from, Complex* to) {
    for (long long block = 0; block < pass_.blocks; ++block) run_block(block, from, to);
  }

 private:
  // A forward-sign table entry, oriented for `sign`: the pass's for its twiddles, the
  // transform's for the chirp and the spectrum (the inverse half of a Bluestein plan runs its
  // stages with the opposite sign, but multiplies by the transform's chirp).
  Complex oriented(Complex w, int sign) const { return sign < 0 ? w : std::conj(w); }
  Complex chirp(long long k) const {
    return oriented(tables_.values[tables_.layout.chirp + static_cast<std::size_t>(k)], transform_sign_);
  }
  Complex spectrum(long long k) const {
    return oriented(tables_.values[tables_.layout.spectrum + static_cast<std::size_t>(k)], transform_sign_);
  }
  Complex& slot(int tr, int e) { return smem_[static_cast<std::size_t>(smem_index(shape_, tr, e))]; }
  void stages(int length, int valid, int sign) {
    run_step_stages(pass_, length, shape_, valid, sign, tables_.values, tables_.layout.stage, &smem_);
  }

  void run_block(long long block, const Complex* from, Complex* to);
  // A real plan's convolution pass (RealStep, fft/planner.h; the real side's distances in reals
  // for odd n, rows paired there): its transforms' points from the real data into the slots times the chirp, zeros
  // past them, and its outputs from the slots times the chirp to the real data. False (nothing
  // done) for a side without a real step.
  // Odd rows paired (FftPass::real_rows): transform tr holds rows 2 (g0 + tr) and the next.
  bool real_input(long long g0, int valid, const Complex* from);
  bool real_output(long long g0, int valid, Complex* to);
  Complex real_twiddle(int k) const { return tables_.values[tables_.layout.real + static_cast<std::size_t>(k)]; }
  void require_bluestein() const {
    if (pass_.convolution != ConvolutionStep::kBluestein) {
      throw std::invalid_argument("fft reference: a real step on a convolution other than Bluestein's");
    }
  }
  void load(const BlockFrame& frame, long long g0, int valid, const Complex* from);
  void compute(const BlockFrame& frame, int valid);
  void store(const BlockFrame& frame, long long g0, int valid, Complex* to);

  const FftPlan& plan_;
  const FftPass& pass_;
  int transform_sign_;
  int sign_;  // the pass's (pass_sign)
  PassShape shape_;
  bool one_buffer_;  // bluestein_one_buffer: the spectrum pass in place, the last one's input turned
  StepTables tables_;
  std::vector<Complex> smem_;
};

void StepRunner::run_block(long long block, const Complex* from, Complex* to) {
  const long long total = pass_.sub_transforms * plan_.pass_transforms(pass_);
  const long long g0 = block * shape_.per_block;
  const int valid = static_cast<int>(std::min<long long>(shape_.per_block, total - g0));
  std::fill(smem_.begin(), smem_.end(), Complex(std::numeric_limits<double>::quiet_NaN(), 0.0));
  const BlockFrame frame = block_frame(shape_, g0);
  load(frame, g0, valid, from);
  compute(frame, valid);
  store(frame, g0, valid, to);
}

bool StepRunner::real_input(long long g0, int valid, const Complex* from) {
  const RealStep step = pass_.real_step;
  if (step != RealStep::kUnpackC2R && step != RealStep::kOddR2C && step != RealStep::kOddC2R) return false;
  require_bluestein();
  const int size = shape_.size;
  const long long dist = input_distance(shape_);
  const bool paired = pass_.real_rows > 0;
  if (paired && step == RealStep::kUnpackC2R) throw std::invalid_argument("fft reference: even real rows paired");
  // Row `row`'s point e: the reals as (x, 0); the half spectrum's Hermitian extension, X[0]'s
  // imaginary part dropped as the vendor's C2R drops it (paired, it would reach the other row).
  const auto point = [&](long long row, int e) -> Complex {
    if (step == RealStep::kOddR2C) return {reinterpret_cast<const double*>(from)[row * dist + e], 0.0};
    const Complex* x = from + row * dist;
    if (e == 0) return {x[0].real(), 0.0};
    return 2 * e <= size ? x[e] : std::conj(x[size - e]);
  };
  for (int tr = 0; tr < valid; ++tr) {
    for (int e = 0; e < size; ++e) {
      Complex x;
      if (paired) {
        // z = a + i b, b zero past the last row.
        const long long a = 2 * (g0 + tr);
        const Complex second = a + 1 < pass_.real_rows ? point(a + 1, e) : Complex(0.0, 0.0);
        x = point(a, e) + Complex(0.0, 1.0) * second;
      } else if (step == RealStep::kUnpackC2R) {
        // Z[e] = (X[e] + conj X[N-e]) + i w^-e (X[e] - conj X[N-e]); X[N] pairs with X[0].
        const Complex* row = from + (g0 + tr) * dist;
        const Complex a = row[e];
        const Complex b = std::conj(row[size - e]);
        x = (a + b) + Complex(0.0, 1.0) * std::conj(real_twiddle(e)) * (a - b);
      } else {
        x = point(g0 + tr, e);
      }
      slot(tr, e) = x * chirp(e);
    }
    for (long long e = size; e < pass_.convolution_size; ++e) slot(tr, static_cast<int>(e)) = Complex(0.0, 0.0);
  }
  return true;
}

bool StepRunner::real_output(long long g0, int valid, Complex* to) {
  const RealStep step = pass_.real_step;
  if (step != RealStep::kPackR2C && step != RealStep::kOddR2C && step != RealStep::kOddC2R) return false;
  require_bluestein();
  const int size = shape_.size;
  const long long dist = output_distance(shape_);
  const bool paired = pass_.real_rows > 0;
  for (int tr = 0; tr < valid; ++tr) {
    const auto z = [&](int k) { return slot(tr, k) * chirp(k); };
    const long long first = paired ? 2 * (g0 + tr) : g0 + tr;
    const bool second = paired && first + 1 < pass_.real_rows;
    if (step == RealStep::kPackR2C) {
      // X[k] = (Z[k] + conj Z[N-k]) / 2 - i w^k (Z[k] - conj Z[N-k]) / 2, k <= N.
      Complex* row = to + first * dist;
      for (int k = 0; k <= size; ++k) {
        const Complex a = z(k % size);
        const Complex b = std::conj(z((size - k) % size));
        const Complex w = k < size ? real_twiddle(k) : Complex(-1.0, 0.0);
        row[k] = 0.5 * (a + b) - Complex(0.0, 0.5) * w * (a - b);
      }
    } else if (step == RealStep::kOddR2C) {
      // Paired: X_a[k] = (Z[k] + conj Z[n-k]) / 2, X_b[k] = (Z[k] - conj Z[n-k]) / 2i.
      for (int k = 0; k <= size / 2; ++k) {
        if (!paired) {
          to[first * dist + k] = z(k);
          continue;
        }
        const Complex a = z(k);
        const Complex b = std::conj(z((size - k) % size));
        to[first * dist + k] = 0.5 * (a + b);
        if (second) to[(first + 1) * dist + k] = Complex(0.0, -0.5) * (a - b);
      }
    } else {
      double* x = reinterpret_cast<double*>(to);
      for (int e = 0; e < size; ++e) {
        x[first * dist + e] = z(e).real();
        if (second) x[(first + 1) * dist + e] = z(e).imag();
      }
    }
  }
  return true;
}

// The block's N points a sub-transform, in the staging order of the pass's input side, with the
// inter-pass twiddle; a first Bluestein pass reads the n-point input (zeros past it) times the
// chirp; a convolution pass puts them in its slots (Rader's permutation; Bluestein's chirp and
// zero padding).
void StepRunner::load(const BlockFrame& frame, long long g0, int valid, const Complex* from) {
  const int size = shape_.size;
  if (real_input(g0, valid, from)) return;
  const long long lo_mask = (1LL << pass_.twiddle_lo_bits) - 1;
  const std::vector<Complex>& table = tables_.values;
  const ChirpFrame chirp_frame_in = chirp_frame(shape_, frame.in_base, g0);
  for (int q = 0; q < valid * size; ++q) {
    int tr = 0, e = 0;
    staging_slot(shape_, shape_.sub == 1, q, &tr, &e);
    Complex x;
    if (pass_.bluestein == BluesteinStep::kChirpLoad) {
      const long long position = chirp_frame_in.first + input_step(shape_, tr, e);
      x = position < pass_.chirp_length
              ? from[chirp_frame_in.transform * pass_.chirp_length + position] * chirp(position)
              : Complex(0.0, 0.0);
    } else {
      const bool turned = one_buffer_ && pass_.bluestein == BluesteinStep::kChirpStore;
      x = turned ? from[chirp_frame_in.transform * shape_.n + turned_input_position(shape_, frame.j0 + tr, e)]
                 : from[frame.in_base + input_step(shape_, tr, e)];
      if (inter_pass_twiddled(shape_) && e > 0) {
        const long long exponent = e * (frame.j0 + tr);
        x *= oriented(table[tables_.layout.lo + static_cast<std::size_t>(exponent & lo_mask)] *
                          table[tables_.layout.hi + static_cast<std::size_t>(exponent >> pass_.twiddle_lo_bits)],
                      sign_);
      }
    }
    int at = e;
    if (pass_.convolution == ConvolutionStep::kRader)
      at = rader_input_slot(e, tables_.logs[static_cast<std::size_t>(e)], size);
    if (pass_.convolution == ConvolutionStep::kBluestein) x *= chirp(e);
    slot(tr, at) = x;
  }
  if (pass_.convolution == ConvolutionStep::kBluestein) {
    for (int tr = 0; tr < valid; ++tr) {
      for (long long e = size; e < pass_.convolution_size; ++e) slot(tr, static_cast<int>(e)) = Complex(0.0, 0.0);
    }
  }
}

void StepRunner::compute(const BlockFrame& frame, int valid) {
  const int size = shape_.size;
  const int convolution = static_cast<int>(pass_.convolution_size);
  switch (pass_.convolution) {
    case ConvolutionStep::kRader:
      stages(convolution, valid, sign_);
      for (int tr = 0; tr < valid; ++tr) {
        const Complex x0 = slot(tr, size - 1);
        slot(tr, size) = x0 + slot(tr, 0);  // X[0]
        for (int q = 0; q < convolution; ++q) slot(tr, q) *= spectrum(q);
        slot(tr, 0) += x0;  // x[0] added to every output of the inverse
      }
      stages(convolution, valid, -sign_);
      return;
    case ConvolutionStep::kBluestein:
      stages(convolution, valid, sign_);
      for (int tr = 0; tr < valid; ++tr) {
        for (int k = 0; k < convolution; ++k) slot(tr, k) *= spectrum(k);
      }
      stages(convolution, valid, -sign_);
      return;
    default: break;
  }
  stages(size, valid, sign_);
  if (pass_.bluestein == BluesteinStep::kSpectrum) {
    for (int tr = 0; tr < valid; ++tr) {
      for (int p = 0; p < size; ++p) slot(tr, p) *= spectrum(spectrum_position(shape_, frame.j0 + tr, p));
    }
    stages(size, valid, -sign_);
  }
}

// The block's outputs in the staging order of the pass's output side: from Rader's slots, times
// the chirp (Bluestein), into the inverse plan's first-pass layout (spectrum pass), or the n
// points of a transform times the chirp (last Bluestein pass).
void StepRunner::store(const BlockFrame& frame, long long g0, int valid, Complex* to) {
  const int size = shape_.size;
  if (real_output(g0, valid, to)) return;
  if (pass_.bluestein == BluesteinStep::kSpectrum && one_buffer_) {
    // In place: each output where its input was (turned_input_position reads them there).
    for (int q = 0; q < valid * size; ++q) {
      int tr = 0, p = 0;
      staging_slot(shape_, false, q, &tr, &p);
      to[frame.in_base + input_step(shape_, tr, p)] = slot(tr, p);
    }
    return;
  }
  if (pass_.bluestein == BluesteinStep::kSpectrum) {
    const PassShape out = spectrum_output_shape(shape_);
    const BlockFrame out_frame = block_frame(out, g0);
    for (int q = 0; q < valid * size; ++q) {
      int tr = 0, p = 0;
      staging_slot(out, true, q, &tr, &p);
      to[out_frame.out_base + output_step(out, tr, p)] = slot(tr, p);
    }
    return;
  }
  const ChirpFrame chirp_frame_out = chirp_frame(shape_, frame.out_base, g0);
  for (int q = 0; q < valid * size; ++q) {
    int tr = 0, p = 0;
    staging_slot(shape_, shape_.span == 1, q, &tr, &p);
    if (pass_.bluestein == BluesteinStep::kChirpStore) {
      const long long position = chirp_frame_out.first + output_step(shape_, tr, p);
      if (position < pass_.chirp_length) {
        to[chirp_frame_out.transform * pass_.chirp_length + position] = slot(tr, p) * chirp(position);
      }
      continue;
    }
    Complex y;
    if (pass_.convolution == ConvolutionStep::kRader) {
      y = slot(tr, rader_output_slot(p, tables_.logs[static_cast<std::size_t>(p)], size));
    } else {
      y = slot(tr, p);
      if (pass_.convolution == ConvolutionStep::kBluestein) y *= chirp(p);
    }
    to[frame.out_base + output_step(shape_, tr, p)] = y;
  }
}

}  // namespace

void execute_any(const FftPlan& plan, int sign, const Complex* input, Complex* output) {
  if (plan.passes.empty()) throw std::invalid_argument("fft reference: empty plan");
  if (std::none_of(plan.passes.begin(), plan.passes.end(), has_step)) {
    execute(plan, sign, input, output);
    return;
  }
  const bool in_place = input == output;
  if (plan.kind != Kind::kC2C && !plan.cluster && !plan.fused) {
    // A real plan whose real pass is a convolution (plan_real): its passes as execute runs a
    // real plan's, in plan_buffers' turns, with the distances of this execution.
    const std::vector<PassBuffers> turns = plan_buffers(plan, in_place);
    const auto buffer = [&](Buffer which) -> Complex* {
      if (which == Buffer::kWork) throw std::invalid_argument("fft reference: a real convolution plan with a work area");
      return which == Buffer::kInput ? const_cast<Complex*>(input) : output;
    };
    for (std::size_t i = 0; i < plan.passes.size(); ++i) {
      const FftPass pass = execution_pass(plan, i, in_place);
      if (has_step(pass)) {
        StepRunner(plan, pass, sign).run_all(buffer(turns[i].from), buffer(turns[i].to));
      } else {
        run_pass(plan, pass, sign, buffer(turns[i].from), buffer(turns[i].to));
      }
    }
    return;
  }
  if (plan.kind != Kind::kC2C || plan.cluster || plan.fused || plan.passes_in_place) {
    throw std::invalid_argument("fft reference: convolution steps in a plan that is not a 1D c2c one");
  }
  const std::vector<PassTurn> turns = plan_turns(plan, in_place);
  const long long padded = bluestein_padded_length(plan);
  const long long work_points = padded == 0 ? plan.n : bluestein_one_buffer(plan) ? padded : 2 * padded;
  std::vector<Complex> work(static_cast<std::size_t>(work_points * plan.batch),
                            Complex(std::numeric_limits<double>::quiet_NaN(), 0.0));
  const auto buffer = [&](Buffer which, std::size_t offset) -> Complex* {
    switch (which) {
      case Buffer::kInput: return const_cast<Complex*>(input);  // only ever read
      case Buffer::kOutput: return output;
      default: return work.data() + offset;
    }
  };
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    const FftPass& pass = plan.passes[i];
    const Complex* from = buffer(turns[i].from, turns[i].from_offset);
    Complex* to = buffer(turns[i].to, turns[i].to_offset);
    if (has_step(pass) && pass.bluestein != BluesteinStep::kForward && pass.bluestein != BluesteinStep::kInverse) {
      StepRunner(plan, pass, sign).run_all(from, to);
    } else {
      run_plain_pass(plan, pass, pass_sign(pass, sign), from, to);
    }
  }
}

}  // namespace idgpu::fft::reference
