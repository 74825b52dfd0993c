// gtsv2_nopivot by the multi-stage Wang-Mou divide and conquer: the tridiagonal solver of
// "Solving Large Problem Sizes of Index-Digit Algorithms on GPU: FFT and Tridiagonal System
// Solvers" (Dieguez et al., MS-ID-TS), with its stages sized for today's GPUs. The host reference,
// operation for operation, is reference::wang_mou_tiled (src/tridiag/reference.h explains the
// algebra).
//
// Every row is kept normalised within its block as x_i + a_i x_{first-1} + c_i x_{last+1} = r_i;
// a level merges neighbouring blocks through the 2 x 2 system of their interface rows (the left
// block's last, the right block's first) and updates every row of both. One launch merges tiles
// of kRows * 256 rows completely (2048 f32, 1024 f64 / c32, 512 c64; half that with several
// right-hand sides). Each thread holds kRows consecutive rows in registers, so the first
// log2(kRows) levels merge there; from then on a thread's rows all sit in one half of one merge:
// per level the threads holding interface rows write them to shared memory, one thread per merge
// turns them into the six merge coefficients in place (one reciprocal), and every thread reads its
// three once and applies them to its rows. The later levels only read tile boundaries, so a stage
// passes on just each tile's first and last rows, which the next stage merges the same way,
// recursively, until one tile holds them (2^24 f32 rows: lists of 16384 and then 16 rows). Back
// down, each tile is merged again from its inputs and substitutes its two outside unknowns:
// x_i = r_i - a_i x_{first-1} - c_i x_{last+1}.
//
// Paper to today: MS-ID-TS's stage 1 merges 2^9-2^10 rows of 16-byte equations in shared memory
// and its later stages carry three equations (48 bytes) per row through device memory, every row
// at every stage. Here a tile lives in registers (shared memory carries only the interface rows
// and coefficients, 3-6 KB) and the later stages move 2 rows per tile, so device memory sees dl,
// d, du and B read twice and x written once: 9 array passes, the lists adding under 0.2%. The
// matrix's part of every merge is computed once for the kCols right-hand sides a block carries.
//
// Measured on an H100 (CUDA 13.0, idgpu-bench, n = 1, 2^24 rows): f32 0.42 ms (0.27 of copy
// bandwidth), f64 0.59 (0.38), c32 0.85 (0.26), c64 1.66 (0.27): 1.7-2.7x the vendor from m = 2^20
// up, but 1.2-1.9x the partition solver's time (partition.cu: 0.25-0.95 ms, 0.46-0.50 of copy),
// which reads and writes as much and does a constant amount of arithmetic per row where this does
// log2(tile) merges per row, twice. It was 2.6x slower still with one row per thread-stride and
// every row indexing its own merge (the integer work per row and level dominated). The dispatch
// keeps the partition solver (src/tridiag/tuning.cpp); IDGPU_TRIDIAG_SOLVER=wang-mou runs this.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/launch.h"
#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"

namespace idgpu::tridiag::kernels {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kAlignment = 256;

// Right-hand sides per block: one, or four where the call has more (the matrix's merges are then
// shared by four columns).
constexpr int columns_per_block(int n) { return n == 1 ? 1 : 4; }

// Rows per thread: 24 registers of rows (a, c and the right-hand sides, kCols + 2 values a row)
// for one column, 48 for four; the tile's interface rows then take 24 KB of shared memory.
constexpr int rows_per_thread(int element_bytes, int columns) {
  return (element_bytes <= 4 ? 8 : element_bytes <= 8 ? 4 : 2) / (columns == 1 ? 1 : 2);
}

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// The stages' list lengths: m, then two rows per tile of the previous (one for a last tile of one
// row), until one tile holds the list.
std::vector<long long> list_rows(long long m, long long tile) {
  std::vector<long long> rows = {m};
  while (rows.back() > tile) {
    const long long length = rows.back();
    const long long tiles = (length + tile - 1) / tile;
    rows.push_back(2 * tiles - (length % tile == 1 ? 1 : 0));
  }
  return rows;
}

// A boundary list in device memory: a and c, then r column by column (column j at r + j * rows).
template <class T>
struct List {
  T* a = nullptr;
  T* c = nullptr;
  T* r = nullptr;
  long long rows = 0;
};

template <class T>
struct TileArgs {
  // Stage 0 reads the matrix and B (column j at b + j * ldb); later stages read `in`.
  const T* dl = nullptr;
  const T* d = nullptr;
  const T* du = nullptr;
  const T* b = nullptr;
  long long ldb = 0;
  List<T> in;
  long long rows = 0;  // of this stage's list (m at stage 0)
  int n = 0;
  // Up: the next list, which receives each tile's first and last rows. Down: its solution (null at
  // the top), and where this stage's solution goes (column j at x + j * ldx).
  List<T> next;
  const T* outside = nullptr;
  long long outside_rows = 0;
  T* x = nullptr;
  long long ldx = 0;
};

// The merge of two blocks (wang_mou()'s, one reciprocal): from the left block's last row
// (la, lc, lr) and the right block's first (ra, rc, rr), the coefficients that every row of the
// left block (p, q, rr_) and of the right block (s, u, v) applies.
template <class T, int kCols>
struct Merge {
  T p[kCols], q, rr;
  T s[kCols], u, v;
};

template <class T, int kCols>
__device__ __forceinline__ Merge<T, kCols> merge_coefficients(T la, T lc, const T* lr, T ra, T rc, const T* rr) {
  const T inverse = reciprocal(mul_sub(from_real<T>(typename ScalarTraits<T>::Real(1)), lc, ra));
  Merge<T, kCols> m;
  m.q = mul(mul(ra, la), inverse);
  m.rr = mul(negate(rc), inverse);
  m.u = mul(negate(la), inverse);
  m.v = mul(mul(lc, rc), inverse);
#pragma unroll
  for (int j = 0; j < kCols; ++j) {
    m.p[j] = mul(mul_sub(rr[j], ra, lr[j]), inverse);
    m.s[j] = mul(mul_sub(lr[j], lc, rr[j]), inverse);
  }
  return m;
}

// A row of the left block: r -= c p, a += c q, c = c rr (all with the old c).
template <class T, int kCols>
__device__ __forceinline__ void apply_left(T& a, T& c, T* r, const T* p, T q, T rr) {
  const T ci = c;
#pragma unroll
  for (int j = 0; j < kCols; ++j) r[j] = mul_sub(r[j], ci, p[j]);
  a = add(a, mul(ci, q));
  c = mul(ci, rr);
}

// A row of the right block: r -= a s, a = a u, c += a v (all with the old a).
template <class T, int kCols>
__device__ __forceinline__ void apply_right(T& a, T& c, T* r, const T* s, T u, T v) {
  const T ai = a;
#pragma unroll
  for (int j = 0; j < kCols; ++j) r[j] = mul_sub(r[j], ai, s[j]);
  a = mul(ai, u);
  c = add(c, mul(ai, v));
}

// One tile merged completely (kUp: then its first and last rows written to the next list; else
// x substituted and written). kRaw: stage 0, rows normalised from the matrix; otherwise from a
// list whose row pairs are merged blocks already (merging starts at level 1: blocks of 2).
//
// Thread t holds the kRows consecutive rows t kRows + k, so the first log2(kRows) levels merge in
// its registers; from there on all of a thread's rows fall in one half of one merge, whose three
// coefficients it reads once per level from shared memory.
template <class T, int kRows, int kCols, bool kRaw, bool kUp>
__global__ void __launch_bounds__(kThreads) merge_tile(TileArgs<T> args) {
  constexpr int kTile = kRows * kThreads;
  constexpr int kLocalLevels = kRows >= 8 ? 3 : kRows >= 4 ? 2 : kRows >= 2 ? 1 : 0;
  static_assert((1 << kLocalLevels) == kRows, "rows per thread are a power of two up to 8");
  extern __shared__ unsigned char shared_raw[];
  // Slot 2 q holds merge q's left interface row, 2 q + 1 its right one; then their coefficients.
  T* slot_a = reinterpret_cast<T*>(shared_raw);
  T* slot_c = slot_a + kTile / kRows;
  T* slot_r = slot_c + kTile / kRows;  // column j at slot_r + j * (kTile / kRows)
  constexpr int kSlots = kTile / kRows;
  const int tid = static_cast<int>(threadIdx.x);
  const long long begin = static_cast<long long>(blockIdx.x) * kTile;
  const int count = static_cast<int>(min(static_cast<long long>(kTile), args.rows - begin));
  const int column0 = static_cast<int>(blockIdx.y) * kCols;
  const int first_row = tid * kRows;

  T a[kRows], c[kRows], r[kRows][kCols];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const int i = first_row + k;
    a[k] = c[k] = zero<T>();
#pragma unroll
    for (int j = 0; j < kCols; ++j) r[k][j] = zero<T>();
    if (i >= count) continue;
    const long long g = begin + i;
    if constexpr (kRaw) {
      // dl[0] and du[m-1] are never read.
      const T inverse = reciprocal(args.d[g]);
      if (g > 0) a[k] = mul(args.dl[g], inverse);
      if (g + 1 < args.rows) c[k] = mul(args.du[g], inverse);
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        if (column0 + j < args.n) r[k][j] = mul(args.b[(column0 + j) * args.ldb + g], inverse);
      }
    } else {
      a[k] = args.in.a[g];
      c[k] = args.in.c[g];
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        if (column0 + j < args.n) r[k][j] = args.in.r[(column0 + j) * args.rows + g];
      }
    }
  }

  // The levels inside a thread's rows (a list's pairs are merged already: level 0 is skipped).
#pragma unroll
  for (int level = kRaw ? 0 : 1; level < kLocalLevels; ++level) {
    const int half = 1 << level;
#pragma unroll
    for (int first = 0; first < kRows; first += 2 * half) {
      if (first_row + first + half >= count) continue;
      const int mid = first + half - 1;
      const Merge<T, kCols> m =
          merge_coefficients<T, kCols>(a[mid], c[mid], r[mid], a[mid + 1], c[mid + 1], r[mid + 1]);
#pragma unroll
      for (int k = first; k <= mid; ++k) apply_left<T, kCols>(a[k], c[k], r[k], m.p, m.q, m.rr);
#pragma unroll
      for (int k = mid + 1; k < first + 2 * half; ++k) apply_right<T, kCols>(a[k], c[k], r[k], m.s, m.u, m.v);
    }
  }

  for (int level = max(kLocalLevels, kRaw ? 0 : 1); (1 << level) < count; ++level) {
    const int half = 1 << level;
    const int position = first_row & (2 * half - 1);
    const int merge = first_row >> (level + 1);
    const bool paired = first_row - position + half < count;  // the merge has a right block
    const bool left = position < half;
    // The interface rows: the left block's last row ends a thread's rows, the right block's first
    // starts one's (merge < kTile / (2 half), so 2 merge + 1 < kSlots).
    if (paired && first_row < count) {
      if (position + kRows == half) {
        slot_a[2 * merge] = a[kRows - 1];
        slot_c[2 * merge] = c[kRows - 1];
#pragma unroll
        for (int j = 0; j < kCols; ++j) slot_r[j * kSlots + 2 * merge] = r[kRows - 1][j];
      } else if (position == half) {
        slot_a[2 * merge + 1] = a[0];
        slot_c[2 * merge + 1] = c[0];
#pragma unroll
        for (int j = 0; j < kCols; ++j) slot_r[j * kSlots + 2 * merge + 1] = r[0][j];
      }
    }
    __syncthreads();
    const int merges = (count - half + 2 * half - 1) >> (level + 1);
    for (int q = tid; q < merges; q += kThreads) {
      T lr[kCols], rr[kCols];
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        lr[j] = slot_r[j * kSlots + 2 * q];
        rr[j] = slot_r[j * kSlots + 2 * q + 1];
      }
      const Merge<T, kCols> m = merge_coefficients<T, kCols>(slot_a[2 * q], slot_c[2 * q], lr, slot_a[2 * q + 1],
                                                             slot_c[2 * q + 1], rr);
      slot_a[2 * q] = m.q;
      slot_c[2 * q] = m.rr;
      slot_a[2 * q + 1] = m.u;
      slot_c[2 * q + 1] = m.v;
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        slot_r[j * kSlots + 2 * q] = m.p[j];
        slot_r[j * kSlots + 2 * q + 1] = m.s[j];
      }
    }
    __syncthreads();
    if (paired && first_row < count) {
      const int slot = 2 * merge + (left ? 0 : 1);
      const T ka = slot_a[slot], kc = slot_c[slot];
      T kr[kCols];
#pragma unroll
      for (int j = 0; j < kCols; ++j) kr[j] = slot_r[j * kSlots + slot];
#pragma unroll
      for (int k = 0; k < kRows; ++k) {
        if (left) {
          apply_left<T, kCols>(a[k], c[k], r[k], kr, ka, kc);
        } else {
          apply_right<T, kCols>(a[k], c[k], r[k], kr, ka, kc);
        }
      }
    }
    // The next level's interface rows reuse the slots just read.
    __syncthreads();
  }

  if constexpr (kUp) {
    // Row 0 to position 2 tile, row count - 1 to 2 tile + 1 (a tile of one row has only the first).
    const long long base = 2 * static_cast<long long>(blockIdx.x);
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const int i = first_row + k;
      if (i != 0 && (i != count - 1 || count < 2)) continue;
      const long long at = base + (i == 0 ? 0 : 1);
      if (column0 == 0) {
        args.next.a[at] = a[k];
        args.next.c[at] = c[k];
      }
#pragma unroll
      for (int j = 0; j < kCols; ++j) {
        if (column0 + j < args.n) args.next.r[(column0 + j) * args.next.rows + at] = r[k][j];
      }
    }
  } else {
    const long long tile = blockIdx.x;
    const bool has_before = args.outside != nullptr && tile > 0;
    const bool has_after = args.outside != nullptr && tile + 1 < gridDim.x;
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const int column = column0 + j;
      if (column >= args.n) continue;
      const T before = has_before ? args.outside[column * args.outside_rows + 2 * tile - 1] : zero<T>();
      const T after = has_after ? args.outside[column * args.outside_rows + 2 * tile + 2] : zero<T>();
#pragma unroll
      for (int k = 0; k < kRows; ++k) {
        const int i = first_row + k;
        if (i < count) args.x[column * args.ldx + begin + i] = mul_sub(mul_sub(r[k][j], a[k], before), c[k], after);
      }
    }
  }
}

template <class T, int kCols>
cudaError_t solve_with(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                       cudaStream_t stream) {
  constexpr int kRows = rows_per_thread(sizeof(T), kCols);
  constexpr long long kTile = static_cast<long long>(kRows) * kThreads;
  // Two slots per merge of the first shared level, whose blocks are kRows rows long.
  constexpr std::size_t kShared = static_cast<std::size_t>(kTile / kRows) * (2 + kCols) * sizeof(T);
  static_assert(kShared <= 48 * 1024, "the interface slots stay within the default shared memory");
  const std::vector<long long> rows = list_rows(m, kTile);
  // The lists after the first, carved from the buffer as wang_mou_buffer_bytes sized them.
  std::vector<List<T>> lists(rows.size());
  auto* cursor = static_cast<unsigned char*>(buffer);
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const std::size_t array = aligned(static_cast<std::size_t>(rows[k]) * sizeof(T));
    lists[k].rows = rows[k];
    lists[k].a = reinterpret_cast<T*>(cursor);
    lists[k].c = reinterpret_cast<T*>(cursor + array);
    lists[k].r = reinterpret_cast<T*>(cursor + 2 * array);
    cursor += 2 * array + aligned(static_cast<std::size_t>(rows[k]) * static_cast<std::size_t>(n) * sizeof(T));
  }
  const unsigned groups = static_cast<unsigned>((n + kCols - 1) / kCols);
  const auto stage_args = [&](std::size_t k) {
    TileArgs<T> args;
    args.rows = rows[k];
    args.n = n;
    if (k == 0) {
      args.dl = dl;
      args.d = d;
      args.du = du;
      args.b = B;
      args.ldb = ldb;
    } else {
      args.in = lists[k];
    }
    return args;
  };
  const auto grid = [&](std::size_t k) {
    return dim3(static_cast<unsigned>((rows[k] + kTile - 1) / kTile), groups);
  };
  const std::size_t top = rows.size() - 1;
  for (std::size_t k = 0; k < top; ++k) {
    TileArgs<T> args = stage_args(k);
    args.next = lists[k + 1];
    const cudaError_t status = launch::counted([&] {
      if (k == 0) {
        merge_tile<T, kRows, kCols, true, true><<<grid(k), kThreads, kShared, stream>>>(args);
      } else {
        merge_tile<T, kRows, kCols, false, true><<<grid(k), kThreads, kShared, stream>>>(args);
      }
    });
    if (status != cudaSuccess) return status;
  }
  for (std::size_t k = top + 1; k-- > 0;) {
    TileArgs<T> args = stage_args(k);
    if (k < top) {
      args.outside = lists[k + 1].r;
      args.outside_rows = rows[k + 1];
    }
    args.x = k == 0 ? B : lists[k].r;
    args.ldx = k == 0 ? ldb : rows[k];
    const cudaError_t status = launch::counted([&] {
      if (k == 0) {
        merge_tile<T, kRows, kCols, true, false><<<grid(k), kThreads, kShared, stream>>>(args);
      } else {
        merge_tile<T, kRows, kCols, false, false><<<grid(k), kThreads, kShared, stream>>>(args);
      }
    });
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

}  // namespace

int wang_mou_tile_rows(int n, int element_bytes) {
  return rows_per_thread(element_bytes, columns_per_block(n)) * kThreads;
}

std::size_t wang_mou_buffer_bytes(int m, int n, int element_bytes) {
  if (m < 1 || n < 1) return 0;
  const std::vector<long long> rows = list_rows(m, wang_mou_tile_rows(n, element_bytes));
  std::size_t bytes = 0;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const std::size_t array = aligned(static_cast<std::size_t>(rows[k]) * static_cast<std::size_t>(element_bytes));
    bytes += 2 * array + aligned(static_cast<std::size_t>(rows[k]) * static_cast<std::size_t>(n) *
                                 static_cast<std::size_t>(element_bytes));
  }
  return bytes;
}

template <class T>
cudaError_t wang_mou_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                   cudaStream_t stream) {
  if (m < 1 || n < 1) return cudaSuccess;
  if ((n + 3) / 4 > 65535) return cudaErrorInvalidConfiguration;
  return n == 1 ? solve_with<T, 1>(m, n, ldb, dl, d, du, B, buffer, stream)
                : solve_with<T, 4>(m, n, ldb, dl, d, du, B, buffer, stream);
}

#define IDGPU_INSTANTIATE_(T)                                                                                       \
  template cudaError_t wang_mou_solve_columns<T>(int, int, int, const T*, const T*, const T*, T*, void*, cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
