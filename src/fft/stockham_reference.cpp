#include "fft/stockham_reference.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace idgpu::fft::reference {
namespace {

using Complex = std::complex<double>;

// The radix-r DFT matrices of a pass's stages.
std::vector<std::vector<Complex>> stage_dfts(const FftPass& pass, int sign) {
  std::vector<std::vector<Complex>> dfts;
  for (int radix : pass.radices) {
    std::vector<Complex> dft(static_cast<std::size_t>(radix * radix));
    for (int p = 0; p < radix; ++p)
      for (int q = 0; q < radix; ++q) dft[p * radix + q] = twiddle(static_cast<long long>(p) * q, radix, sign);
    dfts.push_back(std::move(dft));
  }
  return dfts;
}

// The Stockham stages of `pass` on the first `valid` sub-transforms held in `smem` (laid out by
// `shape`: smem_index), every thread's reads before any write, as between the kernel's barriers.
void run_stages(const FftPass& pass, const PassShape& shape, int valid, int sign, const std::vector<Complex>& table,
                const TwiddleLayout& layout, std::vector<Complex>* smem) {
  const auto oriented = [sign](Complex w) { return sign < 0 ? w : std::conj(w); };
  const std::vector<std::vector<Complex>> dfts = stage_dfts(pass, sign);
  const int threads = pass.threads_per_transform;
  struct Write {
    int index;
    Complex value;
  };
  std::vector<Write> writes;
  int span = 1;
  int offset = 0;
  for (std::size_t s = 0; s < pass.radices.size(); ++s) {
    const int radix = pass.radices[s];
    const int butterflies = shape.size / radix;
    // As the kernels split the stage: butterflies_per_thread(r) a thread, a widened pass's
    // (FftPass::widened_limit), or all of them (the thread layout, one thread a transform);
    // threads that leave butterflies out are a planner error.
    const int per_thread = thread_layout(pass.smem_shift) ? butterflies
                           : pass.widened_limit > 0   ? stage_butterflies_per_thread(radix, butterflies, threads)
                                                      : butterflies_per_thread(radix);
    if (pass.widened_limit > 0 &&
        sequence_threads(pass.radices.data(), static_cast<int>(pass.radices.size()), pass.widened_limit) != threads) {
      throw std::logic_error("a widened pass's threads are not its fixed sequence's");
    }
    if (pass.wide && (static_cast<long long>(threads) * pass.transforms_per_block > kWideThreads ||
                      pass.smem_shift != kUnpaddedShift)) {
      throw std::logic_error("a wide pass's block is over its kernel's bound or not in the row layout");
    }
    if (static_cast<long long>(per_thread) * threads < butterflies) {
      throw std::logic_error("the pass's threads leave radix-" + std::to_string(radix) + " butterflies out");
    }
    writes.clear();
    for (int tr = 0; tr < valid; ++tr) {
      for (int tid = 0; tid < threads; ++tid) {
        for (int i = 0; i < per_thread; ++i) {
          const int b = tid + i * threads;
          if (b >= butterflies) continue;
          const int j = b % span;
          Complex a[16];
          for (int t = 0; t < radix; ++t) {
            a[t] = (*smem)[smem_index(shape, tr, b + t * butterflies)];
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
    for (const Write& w : writes) (*smem)[w.index] = w.value;
    offset = next_stage_twiddle_offset(offset, span, radix);
    span *= radix;
  }
}

Complex not_a_number() { return {std::numeric_limits<double>::quiet_NaN(), 0.0}; }

// A cluster column pass (FftPass::cluster, fft/stockham_index.h) as its kernel runs it
// (kernels/stockham_cluster.cuh, stockham_cluster_lines): per cluster of T lines, every block's
// stage A on its T TA columns (lanes tr = l + T c) in its own poisoned buffer, the inter-pass
// twiddle of a later pass on the loads, the cluster twiddle w_N^{n1 k2}, the exchange into the
// blocks' poisoned buffers at cluster_lines_slot, then every block's stage B: its T TB rows
// (lanes tr = l + T r) read from those slots into its padded buffers (poisoned too), the
// stages, stored. All of a cluster's lines are read before any is written (in place works).
// A first pass (FftCluster::contiguous_out): N split N / 16 x 16, stage B's outputs staged at
// cluster_rows_slot (in the exchange's memory), then each line's output contiguous.
// A real plan's paired pass (real cluster column passes, fft/stockham_index.h): the cluster's
// lines a paired group of columns; C2R forms Z from X and X[M - m] on the loads, R2C's exchange
// pairs the rows within the blocks (cluster_mirror_row, column 0 cluster_paired_row) and its real
// step reads each partner from the block's stage-B buffers. A packed pass (an R2C plane's axis,
// FftPass::nyquist_packed): line S - 1 loaded into line 0 of the first cluster as z = a + i b, its
// rows paired (cluster_paired_row), A and B split to lines 0 and S - 1 from the stage-B buffers.
void run_cluster_column_pass(const FftPlan& plan, const FftPass& pass, int sign, const Complex* from, Complex* to) {
  const FftCluster& c = *pass.cluster;
  const auto log2_of = [](long long v) {
    int bits = 0;
    while ((1LL << bits) < v) ++bits;
    return bits;
  };
  const int bits = log2_of(pass.size);
  const bool contiguous_out = c.contiguous_out;
  const int bits_a = contiguous_out ? cluster_first_bits_a(bits) : cluster_bits_a(bits);
  const int bits_b = bits - bits_a;
  const int size_a = 1 << bits_a;
  const int size_b = 1 << bits_b;
  const int lines_log2 = c.lines_log2;
  const int lines = 1 << lines_log2;
  const int ranks = 1 << c.rank_bits;
  const int columns = size_b >> c.rank_bits;  // TA
  const int rows_log2 = bits_a - c.rank_bits;
  const int rows = 1 << rows_log2;  // TB
  const FftPass pass_a = cluster_stage_pass(size_a);
  const FftPass pass_b = cluster_stage_pass(size_b);
  PassShape shape_a = pass_shape(plan, pass_a);
  shape_a.per_block = lines * columns;
  shape_a.smem_stride = c.stride_a;
  shape_a.shift = pass.smem_shift;
  PassShape shape_b = pass_shape(plan, pass_b);
  shape_b.per_block = lines * rows;
  shape_b.smem_stride = contiguous_out ? smem_stride(size_b, pass.smem_shift) : c.stride_b;
  shape_b.shift = pass.smem_shift;
  const std::vector<Complex> table_a = pass_twiddles(pass_a, false);
  const std::vector<Complex> table_b = pass_twiddles(pass_b, false);
  const TwiddleLayout layout_a = twiddle_layout(pass_a, false);
  const TwiddleLayout layout_b = twiddle_layout(pass_b, false);
  const long long stride = pass.sub_transforms;  // S
  const long long m = pass.has_twiddle() ? pass.span_before * pass.size : 0;
  const bool r2c = pass.real_step == RealStep::kPairedR2C;
  const bool c2r = pass.real_step == RealStep::kPairedC2R;
  if ((r2c && contiguous_out) || (c2r && !contiguous_out) || (pass.real_step != RealStep::kNone && !r2c && !c2r)) {
    throw std::logic_error("fft reference: a cluster column pass with a real step it has no form for");
  }
  const bool paired = r2c || c2r;
  const bool packed = pass.nyquist_packed;
  if (packed && (contiguous_out || sign > 0 || pass.real_step != RealStep::kNone || m > 0)) {
    throw std::logic_error("fft reference: a packed cluster column pass that is not a forward axis pass");
  }
  const long long total = stride * pass.size;  // a real plan's M
  const std::vector<Complex> real_table = paired ? pass_twiddles(pass, false) : std::vector<Complex>();
  const TwiddleLayout real_layout = twiddle_layout(pass, false);
  const auto real_twiddle = [&](long long k) {  // w_{2M}^k, forward sign, as the kernel's split tables
    const long long mask = (1LL << pass.real_lo_bits) - 1;
    return real_table[real_layout.real + static_cast<std::size_t>(k & mask)] *
           real_table[real_layout.real + (std::size_t{1} << pass.real_lo_bits) +
                      static_cast<std::size_t>(k >> pass.real_lo_bits)];
  };
  const PassShape shape = pass_shape(plan, pass);
  const long long in_dist = input_group(shape);
  const long long out_dist = shape.out_group > 0 ? shape.out_group : shape.n;
  const long long out_line = contiguous_out ? output_distance(shape) : 1;  // line j's output at j out_line
  const std::size_t slots = c.shared_bytes / plan.element_bytes;
  const auto slot_of = [&](int k2, int n1, int line) {
    return cluster_lines_slot(k2, n1, line, rows_log2, bits_b, lines_log2);
  };
  if (static_cast<std::size_t>(slot_of(rows - 1, size_b - 1, lines - 1)) >= slots ||
      (contiguous_out && static_cast<std::size_t>(cluster_rows_slot(rows - 1, size_b - 1, lines - 1, rows_log2, bits_b)) >= slots)) {
    throw std::logic_error("fft reference: a cluster column pass's exchange rows pass its shared memory");
  }
  std::vector<std::vector<Complex>> smem(static_cast<std::size_t>(ranks), std::vector<Complex>(slots));
  // Stage B's padded buffers (in the exchange's memory on the GPU; in registers for a first pass).
  std::vector<Complex> padded(static_cast<std::size_t>(lines * rows) * static_cast<std::size_t>(shape_b.smem_stride));
  struct Exchange {
    int rank;
    int slot;
    Complex value;
  };
  std::vector<Exchange> exchanges;
  const long long groups = (packed ? stride - 1 : stride) >> lines_log2;
  for (long long cluster = 0; cluster < plan.pass_transforms(pass) * groups; ++cluster) {
    const long long transform = cluster / groups;
    const long long group = cluster % groups;
    const long long j0 = paired ? group << (lines_log2 - 1) : group << lines_log2;
    const auto column_of = [&](int line) {
      return paired ? cluster_paired_column(stride, j0, line, lines_log2) : j0 + line;
    };
    const Complex* in = from + transform * in_dist;
    Complex* out = to + transform * out_dist;
    exchanges.clear();
    for (int rank = 0; rank < ranks; ++rank) {
      std::vector<Complex>& mine = smem[static_cast<std::size_t>(rank)];
      std::fill(mine.begin(), mine.end(), not_a_number());
      for (int tr = 0; tr < lines * columns; ++tr) {
        const int line = tr & (lines - 1);
        const int n1 = rank * columns + (tr >> lines_log2);
        const long long column = column_of(line);
        for (int e = 0; e < size_a; ++e) {
          const long long element = n1 + static_cast<long long>(e) * size_b;
          Complex x = in[column + element * stride];
          if (packed && column == 0) x += Complex(0.0, 1.0) * in[stride - 1 + element * stride];
          if (c2r) {
            // Z[k] = (X[k] + conj X[M-k]) + i w^-k (X[k] - conj X[M-k]), k = column + S e.
            const long long k = column + element * stride;
            const Complex b = std::conj(in[total - k]);
            x = (x + b) + Complex(0.0, 1.0) * std::conj(real_twiddle(k)) * (x - b);
          }
          if (m > 0) x *= twiddle(element * column, m, sign);
          mine[smem_index(shape_a, tr, e)] = x;
        }
      }
      run_stages(pass_a, shape_a, lines * columns, sign, table_a, layout_a, &mine);
      for (int tr = 0; tr < lines * columns; ++tr) {
        const int line = tr & (lines - 1);
        const int n1 = rank * columns + (tr >> lines_log2);
        const bool own = column_of(line) == 0 && (r2c || packed);
        for (int k2 = 0; k2 < size_a; ++k2) {
          const Complex y = mine[smem_index(shape_a, tr, k2)] * twiddle(static_cast<long long>(n1) * k2, pass.size, sign);
          int to_rank = cluster_exchange_rank(k2, rows_log2);
          int row = k2;
          if (own) {
            cluster_paired_row(k2, rows_log2, bits_a, &to_rank, &row);
          } else if (r2c) {
            cluster_mirror_row(k2, rows_log2, bits_a, &to_rank, &row);
          }
          exchanges.push_back({to_rank, slot_of(row, n1, line), y});
        }
      }
    }
    for (std::vector<Complex>& buffer : smem) std::fill(buffer.begin(), buffer.end(), not_a_number());
    for (const Exchange& x : exchanges) smem[static_cast<std::size_t>(x.rank)][static_cast<std::size_t>(x.slot)] = x.value;
    for (int rank = 0; rank < ranks; ++rank) {
      const std::vector<Complex> exchanged = smem[static_cast<std::size_t>(rank)];
      std::fill(padded.begin(), padded.end(), not_a_number());
      // Stage B's lanes: tr = l + T r.
      const auto line_of = [&](int tr) { return tr & (lines - 1); };
      const auto row_of = [&](int tr) { return tr >> lines_log2; };
      for (int tr = 0; tr < lines * rows; ++tr) {
        for (int e = 0; e < size_b; ++e) {
          padded[smem_index(shape_b, tr, e)] = exchanged[slot_of(row_of(tr), e, line_of(tr))];
        }
      }
      run_stages(pass_b, shape_b, lines * rows, sign, table_b, layout_b, &padded);
      // A first pass stages its outputs at cluster_rows_slot in the exchange's memory, then
      // stores them by (line, k1, row).
      std::vector<Complex>& staged = smem[static_cast<std::size_t>(rank)];
      if (contiguous_out) std::fill(staged.begin(), staged.end(), not_a_number());
      for (int tr = 0; tr < lines * rows; ++tr) {
        const long long column = column_of(line_of(tr));
        const bool own = column == 0 && (r2c || packed);
        const int row = row_of(tr);
        const long long k2 = own   ? cluster_paired_k2(rank, row, rows_log2, bits_a)
                             : r2c ? cluster_mirror_k2(rank, row, rows_log2, bits_a)
                                   : static_cast<long long>(rank) * rows + row;
        // R2C: the partner line's row in the same block (cluster_mirror_row; column 0's by
        // cluster_paired_partner_row).
        const int partner_tr =
            cluster_paired_line(stride, column, line_of(tr), lines_log2) +
            ((own ? cluster_paired_partner_row(rank, row, rows_log2) : rows - 1 - row) << lines_log2);
        for (int k1 = 0; k1 < size_b; ++k1) {
          const Complex z = padded[smem_index(shape_b, tr, k1)];
          const long long index = column + (k2 + static_cast<long long>(k1) * size_a) * stride;
          if (contiguous_out) {
            staged[static_cast<std::size_t>(cluster_rows_slot(row, k1, line_of(tr), rows_log2, bits_b))] = z;
          } else if (r2c) {
            // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2; k = 0 also X[M].
            int partner_k2 = 0, partner_k1 = size_b - 1 - k1;
            if (own) cluster_real_partner(static_cast<int>(k2), k1, bits_a, bits_b, &partner_k2, &partner_k1);
            const Complex b = std::conj(padded[smem_index(shape_b, partner_tr, partner_k1)]);
            out[index] = 0.5 * (z + b) - Complex(0.0, 0.5) * real_twiddle(index) * (z - b);
            if (index == 0) out[total] = {z.real() - z.imag(), 0.0};
          } else if (packed && own) {
            // A[k] = (Z[k] + conj Z[N-k]) / 2 to line 0, B[k] = (Z[k] - conj Z[N-k]) / 2i to line S - 1.
            int partner_k2 = 0, partner_k1 = 0;
            cluster_real_partner(static_cast<int>(k2), k1, bits_a, bits_b, &partner_k2, &partner_k1);
            const Complex b = std::conj(padded[smem_index(shape_b, partner_tr, partner_k1)]);
            out[index] = 0.5 * (z + b);
            out[index + stride - 1] = (z - b) / Complex(0.0, 2.0);
          } else {
            out[index] = z;
          }
        }
      }
      if (contiguous_out) {
        for (int line = 0; line < lines; ++line) {
          for (int k1 = 0; k1 < size_b; ++k1) {
            for (int row = 0; row < rows; ++row) {
              out[column_of(line) * out_line + static_cast<long long>(rank) * rows + row +
                  static_cast<long long>(k1) * size_a] =
                  staged[static_cast<std::size_t>(cluster_rows_slot(row, k1, line, rows_log2, bits_b))];
            }
          }
        }
      }
    }
  }
}

// One pass of a plan, block by block as its kernel runs them.
class PassRunner {
 public:
  PassRunner(const FftPlan& plan, const FftPass& pass, int sign)
      : plan_(plan),
        pass_(pass),
        sign_(sign),
        shape_(pass_shape(plan, pass)),
        table_(pass_twiddles(pass)),
        layout_(twiddle_layout(pass)),
        smem_(static_cast<std::size_t>(shape_.per_block) * static_cast<std::size_t>(shape_.smem_stride)) {}

  void run_all(const Complex* from, Complex* to) {
    if (pass_.cluster) {
      run_cluster_column_pass(plan_, pass_, sign_, from, to);
      return;
    }
    // Otherwise a packed pass runs as a fused pair's tiles only (run_with_fused).
    if (shape_.nyquist_packed) throw std::logic_error("fft reference: a packed Nyquist column outside a fused pair or cluster");
    const long long total = pass_.sub_transforms * plan_.pass_transforms(pass_);
    for (long long block = 0; block < pass_.blocks; ++block) {
      const long long g0 = block * shape_.per_block;
      run_tile(g0, static_cast<int>(std::min<long long>(shape_.per_block, total - g0)), from, to);
    }
  }

  // The `valid` sub-transforms from global sub-transform g0 on (one block's, or a fused tile's).
  void run_tile(long long g0, int valid, const Complex* from, Complex* to);

 private:
  // A block of a paired real pass (RealStep::kPairedR2C, kPairedC2R; paired_frame).
  void run_paired_tile(long long g0, const Complex* from, Complex* to);

  const FftPlan& plan_;
  const FftPass& pass_;
  int sign_;
  PassShape shape_;
  std::vector<Complex> table_;
  TwiddleLayout layout_;
  std::vector<Complex> smem_;
};

void PassRunner::run_paired_tile(long long g0, const Complex* from, Complex* to) {
  const FftPass& pass = pass_;
  const PassShape& shape = shape_;
  const int size = shape.size;
  const int per_block = shape.per_block;
  const long long columns = shape.sub;
  const long long half = shape.n;  // M
  const auto oriented = [this](Complex w) { return sign_ < 0 ? w : std::conj(w); };
  const auto real_twiddle = [&](long long k) {  // w_n^k, n = 2 M, forward sign
    const long long mask = (1LL << pass.real_lo_bits) - 1;
    return table_[layout_.real + static_cast<std::size_t>(k & mask)] *
           table_[layout_.real + (std::size_t{1} << pass.real_lo_bits) + static_cast<std::size_t>(k >> pass.real_lo_bits)];
  };
  std::fill(smem_.begin(), smem_.end(), not_a_number());
  const PairedFrame frame = paired_frame(shape, g0);
  const auto column = [&](int tr) { return paired_column(shape, frame.j0, tr); };
  for (int tr = 0; tr < per_block; ++tr) {
    const long long c = column(tr);
    for (int e = 0; e < size; ++e) {
      Complex x = from[frame.in_base + c + e * columns];
      if (inter_pass_twiddled(shape) && e > 0) {
        const long long exponent = e * c;
        const long long lo_mask = (1LL << pass.twiddle_lo_bits) - 1;
        x *= oriented(table_[layout_.lo + static_cast<std::size_t>(exponent & lo_mask)] *
                      table_[layout_.hi + static_cast<std::size_t>(exponent >> pass.twiddle_lo_bits)]);
      }
      smem_[smem_index(shape, tr, e)] = x;
    }
  }
  const auto partner_of = [&](int tr, int e) {
    int ptr = 0, pe = 0;
    paired_partner(shape, column(tr), tr, e, &ptr, &pe);
    return smem_[smem_index(shape, ptr, pe)];
  };
  if (pass.real_step == RealStep::kPairedC2R) {
    // Z[k] = (X[k] + conj X[M-k]) + i w^-k (X[k] - conj X[M-k]), every read before any write;
    // X[M], the partner of column 0's element 0, is read from the input.
    std::vector<Complex> z(smem_.size(), not_a_number());
    for (int tr = 0; tr < per_block; ++tr) {
      const long long c = column(tr);
      for (int e = 0; e < size; ++e) {
        const Complex a = smem_[smem_index(shape, tr, e)];
        const Complex b = std::conj(c == 0 && e == 0 ? from[frame.in_base + half] : partner_of(tr, e));
        const Complex w = std::conj(real_twiddle(c + e * columns));
        z[static_cast<std::size_t>(smem_index(shape, tr, e))] = (a + b) + Complex(0.0, 1.0) * w * (a - b);
      }
    }
    smem_ = std::move(z);
  }
  run_stages(pass, shape, per_block, sign_, table_, layout_, &smem_);
  if (pass.real_step == RealStep::kPairedR2C) {
    // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2 where Z[k] was; column
    // 0's element 0 also gives X[M] = Re Z[0] - Im Z[0].
    for (int tr = 0; tr < per_block; ++tr) {
      const long long c = column(tr);
      for (int e = 0; e < size; ++e) {
        const Complex a = smem_[smem_index(shape, tr, e)];
        const Complex b = std::conj(partner_of(tr, e));
        const Complex w = real_twiddle(c + e * columns);
        to[frame.out_base + c + e * columns] = 0.5 * (a + b) - Complex(0.0, 0.5) * w * (a - b);
        if (c == 0 && e == 0) to[frame.out_base + half] = {a.real() - a.imag(), 0.0};
      }
    }
    return;
  }
  // C2R's first pass: each sub-transform a contiguous run.
  for (int tr = 0; tr < per_block; ++tr) {
    const long long c = column(tr);
    for (int e = 0; e < size; ++e) to[frame.out_base + c * output_distance(shape) + e] = smem_[smem_index(shape, tr, e)];
  }
}

void PassRunner::run_tile(long long g0, int valid, const Complex* from, Complex* to) {
  if (paired_real_step(pass_.real_step)) {
    run_paired_tile(g0, from, to);
    return;
  }
  const FftPass& pass = pass_;
  const PassShape& shape = shape_;
  const std::vector<Complex>& table = table_;
  const TwiddleLayout& layout = layout_;
  std::vector<Complex>& smem = smem_;
  const int sign = sign_;
  const auto oriented = [sign](Complex w) { return sign < 0 ? w : std::conj(w); };
  const int size = shape.size;
  const long long lo_mask = (1LL << pass.twiddle_lo_bits) - 1;
  {
    std::fill(smem.begin(), smem.end(), not_a_number());

    const BlockFrame frame = block_frame(shape, g0);
    if (pass.real_step == RealStep::kUnpackC2R) {
      // The n / 2 + 1 inputs X of each transform combined into the n / 2 points Z of the
      // complex transform (RealStep, fft/planner.h); X[M] pairs with X[0].
      const long long dist = input_distance(shape);
      for (int tr = 0; tr < valid; ++tr) {
        const Complex* x = from + frame.in_base + tr * dist;
        for (int k = 0; k < size; ++k) {
          const Complex a = x[k];
          const Complex b = std::conj(x[size - k]);
          const Complex w = std::conj(table[layout.real + static_cast<std::size_t>(k)]);
          smem[smem_index(shape, tr, k)] = (a + b) + Complex(0.0, 1.0) * w * (a - b);
        }
      }
    }
    if (pass.real_step == RealStep::kOddR2C) {
      // Odd n: the n reals of each row (the real side's distances count reals) as (x, 0).
      const long long dist = input_distance(shape);
      const double* x = reinterpret_cast<const double*>(from) + frame.in_base;
      for (int tr = 0; tr < valid; ++tr) {
        for (int e = 0; e < size; ++e) smem[smem_index(shape, tr, e)] = {x[tr * dist + e], 0.0};
      }
    }
    if (pass.real_step == RealStep::kOddC2R) {
      // Odd n: the n / 2 + 1 inputs and their Hermitian extension X[n-k] = conj X[k].
      const long long dist = input_distance(shape);
      for (int tr = 0; tr < valid; ++tr) {
        const Complex* x = from + frame.in_base + tr * dist;
        for (int k = 0; k <= size / 2; ++k) {
          smem[smem_index(shape, tr, k)] = x[k];
          if (k > 0) smem[smem_index(shape, tr, size - k)] = std::conj(x[k]);
        }
      }
    }
    const bool staged = pass.real_step == RealStep::kUnpackC2R || pass.real_step == RealStep::kOddR2C ||
                        pass.real_step == RealStep::kOddC2R;
    // Linear staging order: on a column side its lanes run across the block's T sub-transforms,
    // of which a short tile (a fused plane's last) has fewer valid.
    const int in_slots = (shape.sub == 1 ? valid : shape.per_block) * size;
    for (int q = 0; q < in_slots && !staged; ++q) {
      int tr = 0, e = 0;
      staging_slot(shape, shape.sub == 1, q, &tr, &e);
      if (tr >= valid) continue;
      Complex x = from[frame.in_base + input_step(shape, tr, e) + input_jump(frame, tr)];
      if (inter_pass_twiddled(shape) && e > 0) {
        const long long exponent = e * (frame.j0 + tr);
        x *= oriented(table[layout.lo + (exponent & lo_mask)] *
                      table[layout.hi + (exponent >> pass.twiddle_lo_bits)]);
      }
      smem[smem_index(shape, tr, e)] = x;
    }
    // An R2C plane's axis pass packs its last line into line 0 (PassShape::nyquist_packed):
    // z = a + i b, a from line 0 and b from line S - 1.
    const bool packed = shape.nyquist_packed && frame.j0 == 0 && valid > 0;
    const long long last_line = shape.sub - 1;
    if (packed && sign > 0) throw std::logic_error("fft reference: a packed Nyquist column in an inverse pass");
    if (packed) {
      for (int e = 0; e < size; ++e) {
        const long long at = frame.in_base + input_step(shape, 0, e);
        smem[smem_index(shape, 0, e)] = from[at] + Complex(0.0, 1.0) * from[at + last_line];
      }
    }

    run_stages(pass, shape, valid, sign, table, layout, &smem);

    if (pass.real_step == RealStep::kPackR2C) {
      // The n / 2 + 1 outputs of each transform from the n / 2 points Z in "shared memory".
      const long long dist = output_distance(shape);
      for (int tr = 0; tr < valid; ++tr) {
        Complex* x = to + frame.out_base + tr * dist;
        for (int k = 0; k <= size; ++k) {
          const Complex a = smem[smem_index(shape, tr, k % size)];
          const Complex b = std::conj(smem[smem_index(shape, tr, (size - k) % size)]);
          const Complex w = k < size ? table[layout.real + static_cast<std::size_t>(k)] : Complex(-1.0, 0.0);
          x[k] = 0.5 * (a + b) - Complex(0.0, 0.5) * w * (a - b);
        }
      }
      return;
    }
    if (pass.real_step == RealStep::kOddR2C) {
      const long long dist = output_distance(shape);
      for (int tr = 0; tr < valid; ++tr) {
        for (int k = 0; k <= size / 2; ++k) to[frame.out_base + tr * dist + k] = smem[smem_index(shape, tr, k)];
      }
      return;
    }
    if (pass.real_step == RealStep::kOddC2R) {
      const long long dist = output_distance(shape);
      double* x = reinterpret_cast<double*>(to) + frame.out_base;
      for (int tr = 0; tr < valid; ++tr) {
        for (int e = 0; e < size; ++e) x[tr * dist + e] = smem[smem_index(shape, tr, e)].real();
      }
      return;
    }
    const int out_slots = (shape.span == 1 ? valid : shape.per_block) * size;
    for (int q = 0; q < out_slots; ++q) {
      int tr = 0, p = 0;
      staging_slot(shape, shape.span == 1, q, &tr, &p);
      if (tr >= valid || (packed && tr == 0)) continue;
      to[frame.out_base + output_step(shape, tr, p) + output_jump(frame, tr)] = smem[smem_index(shape, tr, p)];
    }
    if (packed) {
      // A[p] = (Z[p] + conj Z[N-p]) / 2 to line 0, B[p] = (Z[p] - conj Z[N-p]) / 2i to line S - 1.
      for (int p = 0; p < size; ++p) {
        const long long at = frame.out_base + output_step(shape, 0, p);
        const Complex z = smem[smem_index(shape, 0, p)];
        const Complex partner = std::conj(smem[smem_index(shape, 0, (size - p) % size)]);
        to[at] = 0.5 * (z + partner);
        to[at + last_line] = Complex(0.0, -0.5) * (z - partner);
      }
    }
  }
}

// A plan with a fused pair of passes (FftFused) as the native plan runs it: the passes before the
// pair in plan_buffers' turns, the pair's tiles in the fused kernel's ticket order
// (kernels/stockham_fused.cuh, FusedSchedule), then the passes after it. A last-pass tile whose
// transform still has first-pass tiles to run is an error in the schedule (the kernel would wait
// on a tile no block has taken). A real plan's real pass has the distances of this execution.
void run_with_fused(const FftPlan& plan, int sign, const Complex* input, Complex* output, TileOrder order) {
  const FftFused& fused = *plan.fused;
  const bool in_place = input == output;
  const std::vector<PassBuffers> turns = plan_buffers(plan, in_place);
  // A two-pass R2C's intermediate in place: n / 2 complex values a transform.
  std::vector<Complex> work;
  const auto buffer = [&](Buffer which) {
    if (which == Buffer::kWork) {
      if (plan.kind != Kind::kR2C) throw std::invalid_argument("fft reference: a fused plan with a work area");
      work.resize(static_cast<std::size_t>(plan.n / 2 * plan.batch), not_a_number());
      return work.data();
    }
    return which == Buffer::kInput ? const_cast<Complex*>(input) : output;
  };
  const auto as_run = [&](std::size_t i, const FftPass& pass) { return execution_pass(plan, i, pass, in_place); };
  const std::size_t f = fused.first_pass;
  for (std::size_t i = 0; i < f; ++i) {
    PassRunner(plan, as_run(i, plan.passes[i]), sign).run_all(buffer(turns[i].from), buffer(turns[i].to));
  }
  const FftPass first_pass = as_run(f, fused.passes[0]);
  const FftPass last_pass = as_run(f + 1, fused.passes[1]);
  PassRunner first(plan, first_pass, sign);
  PassRunner last(plan, last_pass, sign);
  FusedSchedule schedule;
  schedule.batch = fused.transforms;
  schedule.first_tiles = fused.first_tiles;
  schedule.last_tiles = fused.last_tiles;
  schedule.lag = fused.transforms > 2 ? 2 : 1;
  std::vector<int> first_done(static_cast<std::size_t>(fused.transforms), 0);
  const auto tile_of = [](const FftPass& pass, long long count, long long transform, int tile, long long* g0) {
    const long long start = static_cast<long long>(tile) * pass.transforms_per_block;
    *g0 = transform * count + start;
    const long long tiled = pass.nyquist_packed ? count - 1 : count;
    return static_cast<int>(std::min<long long>(pass.transforms_per_block, tiled - start));
  };
  const long long tickets = fused_tickets(schedule);
  for (long long ticket = 0; ticket < tickets; ++ticket) {
    int pass = 0, tile = 0;
    long long transform = 0, g0 = 0;
    if (order == TileOrder::kTickets) {
      fused_tile(schedule, ticket, &pass, &transform, &tile);
    } else {
      // Reversed: first-pass tiles from the last, then last-pass tiles from the last.
      const long long firsts = fused.transforms * fused.first_tiles;
      const long long back = ticket < firsts ? firsts - 1 - ticket : tickets - 1 - ticket;
      pass = ticket < firsts ? 0 : 1;
      const long long tiles = pass == 0 ? fused.first_tiles : fused.last_tiles;
      transform = back / tiles;
      tile = static_cast<int>(back % tiles);
    }
    if (pass == 0) {
      const int valid = tile_of(first_pass, fused.first_count, transform, tile, &g0);
      first.run_tile(g0, valid, buffer(turns[f].from), buffer(turns[f].to));
      ++first_done[static_cast<std::size_t>(transform)];
    } else {
      if (first_done[static_cast<std::size_t>(transform)] != fused.first_tiles) {
        throw std::logic_error("fft reference: a fused last-pass tile before its transform's first pass");
      }
      const int valid = tile_of(last_pass, fused.last_count, transform, tile, &g0);
      last.run_tile(g0, valid, buffer(turns[f + 1].from), buffer(turns[f + 1].to));
    }
  }
  for (std::size_t i = f + 2; i < plan.passes.size(); ++i) {
    PassRunner(plan, as_run(i, plan.passes[i]), sign).run_all(buffer(turns[i].from), buffer(turns[i].to));
  }
}

// A cluster plan as its kernel runs it (kernels/stockham_cluster.cuh): per transform, every
// block's stage A on its columns in its own shared memory, the inter-pass twiddle, the exchange
// into the blocks' (poisoned) buffers through cluster_exchange_rank / cluster_exchange_slot, then
// every block's stage B on its rows, stored to the output. All of a transform's input is read
// before any output is written, so in place works as on the GPU. A real plan's (n = 2 M reals)
// real step as the kernel's: C2R's on stage A's loads (X[m] and X[M - m] from the input), R2C's
// after every block's stage B, its rows paired within the blocks by the exchange
// (cluster_paired_row);
// its distances those of the execution (in place: M + 1 on both sides).
void run_cluster(const FftPlan& plan, int sign, const Complex* from, Complex* to, bool in_place) {
  const FftCluster& c = *plan.cluster;
  const FftPass& pass_a = plan.passes[0];
  const FftPass& pass_b = plan.passes[1];
  const bool real = plan.kind != Kind::kC2C;
  const long long points = real ? plan.n / 2 : plan.n;  // M
  long long in_dist = points;
  long long out_dist = points;
  if (real) {
    (plan.kind == Kind::kR2C ? out_dist : in_dist) = points + 1;
    if (in_place) in_dist = out_dist = points + 1;
  }
  const int ranks = 1 << c.rank_bits;
  const int columns = static_cast<int>(pass_b.size >> c.rank_bits);  // TA
  const auto log2_of = [](long long v) {
    int bits = 0;
    while ((1LL << bits) < v) ++bits;
    return bits;
  };
  const int rows_log2 = log2_of(pass_a.size) - c.rank_bits;
  const int rows = 1 << rows_log2;  // TB
  PassShape shape_a = pass_shape(plan, pass_a);
  shape_a.per_block = columns;
  shape_a.smem_stride = c.stride_a;
  PassShape shape_b = pass_shape(plan, pass_b);
  shape_b.per_block = rows;
  shape_b.smem_stride = c.stride_b;
  const std::vector<Complex> table_a = pass_twiddles(pass_a);
  const std::vector<Complex> table_b = pass_twiddles(pass_b);
  const TwiddleLayout layout_a = twiddle_layout(pass_a);
  const TwiddleLayout layout_b = twiddle_layout(pass_b);
  // w_{2M}^k (forward sign) from the paired pass's lo/hi tables, as the kernel's.
  const FftPass& paired = plan.kind == Kind::kR2C ? pass_b : pass_a;
  const std::vector<Complex>& real_table = plan.kind == Kind::kR2C ? table_b : table_a;
  const std::size_t real_at = (plan.kind == Kind::kR2C ? layout_b : layout_a).real;
  const auto real_twiddle = [&](long long k) {
    const long long mask = (1LL << paired.real_lo_bits) - 1;
    return real_table[real_at + static_cast<std::size_t>(k & mask)] *
           real_table[real_at + (std::size_t{1} << paired.real_lo_bits) + static_cast<std::size_t>(k >> paired.real_lo_bits)];
  };
  const std::size_t slots = c.shared_bytes / plan.element_bytes;
  const int size_a = static_cast<int>(pass_a.size);
  const int size_b = static_cast<int>(pass_b.size);
  const int bits_a = log2_of(size_a);
  const int bits_b = log2_of(size_b);
  const int shift = pass_a.smem_shift;

  std::vector<std::vector<Complex>> smem(static_cast<std::size_t>(ranks), std::vector<Complex>(slots));
  struct Exchange {
    int rank;
    int slot;
    Complex value;
  };
  std::vector<Exchange> exchanges;
  for (long long transform = 0; transform < plan.batch; ++transform) {
    const Complex* in = from + transform * in_dist;
    Complex* out = to + transform * out_dist;
    exchanges.clear();
    for (int rank = 0; rank < ranks; ++rank) {
      std::vector<Complex>& mine = smem[static_cast<std::size_t>(rank)];
      std::fill(mine.begin(), mine.end(), not_a_number());
      for (int tr = 0; tr < columns; ++tr) {
        const int n1 = rank * columns + tr;
        for (int e = 0; e < size_a; ++e) {
          const long long m = n1 + static_cast<long long>(e) * size_b;
          Complex x = in[m];
          if (plan.kind == Kind::kC2R) {
            // Z[m] = (X[m] + conj X[M-m]) + i w^-m (X[m] - conj X[M-m]); m = 0 pairs with X[M].
            const Complex b = std::conj(in[points - m]);
            x = (x + b) + Complex(0.0, 1.0) * std::conj(real_twiddle(m)) * (x - b);
          }
          mine[smem_index(shape_a, tr, e)] = x;
        }
      }
      run_stages(pass_a, shape_a, columns, sign, table_a, layout_a, &mine);
      for (int tr = 0; tr < columns; ++tr) {
        const int n1 = rank * columns + tr;
        for (int k2 = 0; k2 < size_a; ++k2) {
          const Complex y = mine[smem_index(shape_a, tr, k2)] * twiddle(static_cast<long long>(n1) * k2, points, sign);
          if (plan.kind == Kind::kR2C) {  // rows paired within the blocks
            int rank_to = 0, row = 0;
            cluster_paired_row(k2, rows_log2, bits_a, &rank_to, &row);
            exchanges.push_back({rank_to, row * c.stride_b + n1 + (n1 >> shift), y});
          } else {
            exchanges.push_back({cluster_exchange_rank(k2, rows_log2),
                                 cluster_exchange_slot(k2, n1, rows_log2, c.stride_b, shift), y});
          }
        }
      }
    }
    for (std::vector<Complex>& buffer : smem) std::fill(buffer.begin(), buffer.end(), not_a_number());
    for (const Exchange& x : exchanges) {
      smem[static_cast<std::size_t>(x.rank)][static_cast<std::size_t>(x.slot)] = x.value;
    }
    for (int rank = 0; rank < ranks; ++rank) {
      run_stages(pass_b, shape_b, rows, sign, table_b, layout_b, &smem[static_cast<std::size_t>(rank)]);
    }
    for (int rank = 0; rank < ranks; ++rank) {
      const std::vector<Complex>& mine = smem[static_cast<std::size_t>(rank)];
      for (int tr = 0; tr < rows; ++tr) {
        const int k2 = plan.kind == Kind::kR2C ? cluster_paired_k2(rank, tr, rows_log2, bits_a) : rank * rows + tr;
        for (int k1 = 0; k1 < size_b; ++k1) {
          const long long k = k2 + static_cast<long long>(k1) * size_a;
          const Complex a = mine[smem_index(shape_b, tr, k1)];
          if (plan.kind != Kind::kR2C) {
            out[k] = a;
            continue;
          }
          // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2; k = 0 also X[M].
          // The partner is in this block's row cluster_paired_partner_row.
          int partner_k2 = 0, partner_k1 = 0;
          cluster_real_partner(k2, k1, bits_a, bits_b, &partner_k2, &partner_k1);
          const Complex b =
              std::conj(mine[smem_index(shape_b, cluster_paired_partner_row(rank, tr, rows_log2), partner_k1)]);
          out[k] = 0.5 * (a + b) - Complex(0.0, 0.5) * real_twiddle(k) * (a - b);
          if (k == 0) out[points] = {a.real() - a.imag(), 0.0};
        }
      }
    }
  }
}

}  // namespace

void execute(const FftPlan& plan, int sign, const Complex* input, Complex* output, TileOrder order) {
  if (plan.passes.empty()) throw std::invalid_argument("fft reference: empty plan");
  for (const FftPass& pass : plan.passes) {
    if (pass.convolution != ConvolutionStep::kNone || pass.bluestein != BluesteinStep::kNone) {
      throw std::invalid_argument("fft reference: a plan with convolution steps (execute_any runs it)");
    }
  }
  const bool in_place = input == output;
  if (plan.fused && (!in_place || fused_in_place(plan.fused->kind))) {
    // A 1D fused plan runs fused out of place only (in place: two launches, below), but a
    // two-pass R2C's (fused_in_place).
    run_with_fused(plan, sign, input, output, order);
    return;
  }
  if (plan.cluster) {
    if (plan.passes.size() != 2) throw std::invalid_argument("fft reference: a cluster plan has two passes");
    run_cluster(plan, sign, input, output, in_place);
    return;
  }
  if (plan.kind != Kind::kC2C) {
    // A real plan: its real pass with the distances of this execution (in place: the padded
    // layout), the axis passes of a multi-dimensional one as they are, in plan_buffers' turns (a
    // C2R's on its input).
    // A two-pass one's intermediate in place goes to a temporary array, as the native plan's.
    std::vector<Complex> work;
    const auto buffer = [&](Buffer which) -> Complex* {
      switch (which) {
        case Buffer::kInput: return const_cast<Complex*>(input);
        case Buffer::kOutput: return output;
        default:
          work.resize(static_cast<std::size_t>(plan.n * plan.batch), not_a_number());
          return work.data();
      }
    };
    const std::vector<PassBuffers> turns = plan_buffers(plan, in_place);
    for (std::size_t i = 0; i < plan.passes.size(); ++i) {
      Complex* from = buffer(turns[i].from);
      Complex* to = buffer(turns[i].to);
      PassRunner(plan, execution_pass(plan, i, in_place), sign).run_all(from, to);
    }
    return;
  }
  // The plan's work area, or (in place, two passes) the temporary the native plan takes instead.
  std::vector<Complex> work(static_cast<std::size_t>(plan.n * plan.batch));
  const auto buffer = [&](Buffer which) -> Complex* {
    switch (which) {
      case Buffer::kInput: return const_cast<Complex*>(input);  // only ever read
      case Buffer::kOutput: return output;
      default: return work.data();
    }
  };
  const std::vector<PassBuffers> turns = plan_buffers(plan, in_place);
  for (std::size_t i = 0; i < plan.passes.size(); ++i) {
    PassRunner(plan, plan.passes[i], sign).run_all(buffer(turns[i].from), buffer(turns[i].to));
  }
}

void run_pass(const FftPlan& plan, const FftPass& pass, int sign, const Complex* from, Complex* to) {
  PassRunner(plan, pass, sign).run_all(from, to);
}

void run_step_stages(const FftPass& pass, int length, const PassShape& shape, int valid, int sign,
                     const std::vector<Complex>& table, std::size_t stage_offset, std::vector<Complex>* smem) {
  PassShape stages = shape;
  stages.size = length;
  TwiddleLayout layout;
  layout.stage = stage_offset;
  run_stages(pass, stages, valid, sign, table, layout, smem);
}

}  // namespace idgpu::fft::reference
