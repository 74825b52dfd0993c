// The order of work of the thread-per-system pivoting solvers of gtsvInterleavedBatch (algos 1 and
// 2) when the factor is recomputed instead of stored: one template, compiled into the kernel
// (interleaved.cu) and run on the host by the CPU tests with the same indexing.
//
// An elimination with row interchanges (LU with partial pivoting, Givens QR) produces row i of U
// from the pivot row it carries down and raw row i + 1; the back substitution needs U's rows in
// reverse. Storing U (three diagonals and the transformed rhs) and reading it back moves 13 arrays
// through device memory for a solve whose inputs and output are 5 (dl, d, du, b in, x out); at
// 0.96 of copy bandwidth that is 0.35-0.39 counted as 5 (H100, measured: interleaved.cu).
//
// Here the steps are cut into segments of K. The forward sweep runs every segment but the last,
// keeps nothing of U and saves only the pivot row (three elements) before each later segment: the
// checkpoints. The backward sweep then takes the segments last to first: it reloads the segment's
// raw rows, runs its K steps again from the checkpoint with U's K rows in registers, and
// back-substitutes them. The same arithmetic in the same order as the stored factor, so the same
// result to the bit; device memory sees the inputs twice (once where m <= K + 1), the checkpoints
// (3 / K of an array each way) and x once: about 9 arrays instead of 13.
//
// x is the right-hand side on the way in and the solution on the way out. A segment's steps read
// raw rows first + 1 .. first + count, and the last of these is the next segment's first row,
// whose x that segment has already overwritten with the solution; so each segment reads its own
// first row's rhs before writing and hands it down (`carried`). Every element of b is read before
// its row's x is written; the CPU tests check that, and the counts of reads and writes.
//
// Tried and not kept: loading the next segment's rows while the current one's steps run (half
// the segment, twice the rows in registers). H200, 2^24 unknowns: slower everywhere but c64 LU
// m = 256 (1.16x against 1.11x): f32 LU m = 32 / 256 / 1024 1.44x / 1.82x / 2.03x against
// 1.63x / 2.05x / 2.53x, f64 LU 0.95x against 1.52x at m = 256, and at batch 1000, where few
// systems leave the latency exposed, also slower (f32 LU m = 512 1.68x against 1.82x).
#pragma once

#include <cstddef>

#if defined(__CUDACC__)
#define IDGPU_CHECKPOINT_FN __host__ __device__ __forceinline__
#define IDGPU_CHECKPOINT_UNROLL _Pragma("unroll")
#else
#define IDGPU_CHECKPOINT_FN inline
#define IDGPU_CHECKPOINT_UNROLL
#endif

namespace idgpu::tridiag::kernels {

// The pivot row an elimination carries down (columns i and i + 1), a raw row of the matrix, and a
// finished row of the upper-triangular factor (three diagonals and the transformed rhs).
template <class T>
struct PivotRow {
  T diagonal, upper, rhs;
};
template <class T>
struct RawRow {
  T lower, diagonal, upper, rhs;
};
template <class T>
struct FactorRow {
  T u0, u1, u2, rhs;
};

// Segments of an m-row system cut into K-step segments (m - 1 steps), and the checkpoints saved:
// one before each segment but the first, three elements each. 3 (segments - 1) < m for K >= 3, so
// the checkpoints fit the m elements a system has in the algos' scratch.
IDGPU_CHECKPOINT_FN constexpr int checkpoint_segments(int m, int K) { return m < 2 ? 0 : (m - 2) / K + 1; }
IDGPU_CHECKPOINT_FN constexpr int checkpoint_elements(int m, int K) {
  return m < 2 ? 0 : 3 * (checkpoint_segments(m, K) - 1);
}

// What a backward step needs for one segment: its starting pivot row (a checkpoint, or row 0), b
// of its first row (handed to the segment before), and its raw rows, the last one's b being
// `carried` (the next segment's first b, which that segment read before overwriting it) wherever
// a next segment exists.
template <class T, int K>
struct SegmentInput {
  PivotRow<T> state;
  T own;
  RawRow<T> raw[K];
};

template <int K, class Access, class T>
IDGPU_CHECKPOINT_FN void load_forward(Access& access, int segment, RawRow<T> (&raw)[K]) {
  IDGPU_CHECKPOINT_UNROLL
  for (int k = 0; k < K; ++k) {
    const int row = segment * K + k + 1;
    raw[k] = access.coefficients(row);
    raw[k].rhs = access.rhs(row);
  }
}

template <int K, class Access, class T>
IDGPU_CHECKPOINT_FN void load_backward(Access& access, int segment, int segments, int steps, T carried,
                                       SegmentInput<T, K>& in) {
  const int first = segment * K;
  const int count = steps - first < K ? steps - first : K;
  in.state = segment == 0 ? access.first() : access.load(segment - 1);
  in.own = segment == 0 ? T{} : access.rhs(first);
  IDGPU_CHECKPOINT_UNROLL
  for (int k = 0; k < K; ++k) {
    if (k < count) {
      const int row = first + k + 1;
      in.raw[k] = access.coefficients(row);
      in.raw[k].rhs = segment + 1 < segments && k + 1 == count ? carried : access.rhs(row);
    }
  }
}

// Solves one system. Step: static FactorRow<T> apply(PivotRow<T>&, const RawRow<T>&) (one step of
// the elimination), T last(const PivotRow<T>&) (x of the last row), T back(const FactorRow<T>&, T
// x1, T x2) (x of a row from the two after it). Access: `Value`, first() (row 0 as a pivot row),
// coefficients(row) (lower, diagonal, upper of a raw row; upper 0 on row m - 1), rhs(row),
// save(c, PivotRow) / load(c) (checkpoint c, 0-based), store(row, x).
template <int K, class Step, class Access>
IDGPU_CHECKPOINT_FN void solve_by_checkpoints(int m, Access& access) {
  static_assert(K >= 3, "the checkpoints must fit m elements of scratch");
  using T = typename Access::Value;
  if (m < 1) return;
  if (m == 1) {
    access.store(0, Step::last(access.first()));
    return;
  }
  const int steps = m - 1;
  const int segments = checkpoint_segments(m, K);

  // Forward: every segment but the last, all of its K steps, leaving only the checkpoints.
  if (segments > 1) {
    PivotRow<T> current = access.first();
    for (int segment = 0; segment + 1 < segments; ++segment) {
      RawRow<T> raw[K] = {};
      load_forward(access, segment, raw);
      IDGPU_CHECKPOINT_UNROLL
      for (int k = 0; k < K; ++k) Step::apply(current, raw[k]);
      access.save(segment, current);
    }
  }

  // Backward: the segments again, last to first, each back-substituted from registers.
  T x1{};       // x of the row after the one being solved
  T x2{};       // and of the one after that
  T carried{};  // b of the next segment's first row, read there before x overwrote it
  for (int segment = segments - 1; segment >= 0; --segment) {
    const int first = segment * K;
    const int count = steps - first < K ? steps - first : K;
    // A fresh input each segment: rows past `count` are not loaded, and an input carried over the
    // loop would keep them live in registers for nothing (f32 LU: 167 registers a thread instead
    // of 114, and 1.33-1.40x the vendor instead of 1.55-2.05x at m = 64-256, H200).
    SegmentInput<T, K> in = {};
    load_backward(access, segment, segments, steps, carried, in);
    FactorRow<T> done[K] = {};
    IDGPU_CHECKPOINT_UNROLL
    for (int k = 0; k < K; ++k) {
      if (k < count) done[k] = Step::apply(in.state, in.raw[k]);
    }
    if (segment + 1 == segments) {
      x1 = Step::last(in.state);
      access.store(m - 1, x1);
    }
    IDGPU_CHECKPOINT_UNROLL
    for (int k = K - 1; k >= 0; --k) {
      if (k < count) {
        const T value = Step::back(done[k], x1, x2);
        access.store(first + k, value);
        x2 = x1;
        x1 = value;
      }
    }
    carried = in.own;
  }
}

// System `system` of an interleaved batch (row i at i * stride + system; gtsvInterleavedBatch's
// layout) as solve_by_checkpoints reads and writes it, and its checkpoints in a scratch laid out
// the same way (checkpoint c's three elements at rows 3c .. 3c + 2, inside the batch*m elements the
// scratch holds: checkpoint_elements). The kernel runs this; so do the CPU tests, on a host batch.
template <class T>
struct InterleavedSystem {
  using Value = T;
  int m;
  std::size_t stride;
  std::size_t system;
  const T* __restrict__ dl;
  const T* __restrict__ d;
  const T* __restrict__ du;
  T* __restrict__ x;
  T* __restrict__ checkpoints;

  IDGPU_CHECKPOINT_FN std::size_t at(int row) const { return static_cast<std::size_t>(row) * stride + system; }
  IDGPU_CHECKPOINT_FN PivotRow<T> first() const { return {d[system], m > 1 ? du[system] : T{}, x[system]}; }
  IDGPU_CHECKPOINT_FN RawRow<T> coefficients(int row) const {
    const std::size_t index = at(row);
    return {dl[index], d[index], row + 1 < m ? du[index] : T{}, T{}};
  }
  IDGPU_CHECKPOINT_FN T rhs(int row) const { return x[at(row)]; }
  IDGPU_CHECKPOINT_FN void save(int checkpoint, const PivotRow<T>& row) const {
    const std::size_t index = at(3 * checkpoint);
    checkpoints[index] = row.diagonal;
    checkpoints[index + stride] = row.upper;
    checkpoints[index + 2 * stride] = row.rhs;
  }
  IDGPU_CHECKPOINT_FN PivotRow<T> load(int checkpoint) const {
    const std::size_t index = at(3 * checkpoint);
    return {checkpoints[index], checkpoints[index + stride], checkpoints[index + 2 * stride]};
  }
  IDGPU_CHECKPOINT_FN void store(int row, T value) const { x[at(row)] = value; }
};

}  // namespace idgpu::tridiag::kernels
