// Native tridiagonal kernels, host-side launchers. Each enqueues on `stream` and returns the launch
// status; none synchronises. Element types are float, double, cuComplex and cuDoubleComplex.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace idgpu::tridiag::kernels {

// gtsvInterleavedBatch layout: element i of system j at i*batch + j.
//
// The partition solver (diagonally dominant systems, no pivoting) for both batched layouts at any
// m: chunks of rows per thread with the elimination in registers, the separators solved by cyclic
// reduction in the block or, for systems longer than a block holds, by tiles reduced to one row
// each, through reduced levels kept in `buffer` (partition_buffer_bytes; 0 when one block holds a
// system). dl, d and du are not written.
int partition_rows(int m, bool interleaved, int element_bytes);  // rows per chunk it picks
// Strided systems that one block does not hold but whose tiles a GPU may hold at once run as one
// cooperative launch: tiles of this many chunks (64..512), at most as many tiles as chunks per
// tile, so that one block solves the reduced level; 0 where that shape does not apply (the
// launch also needs every tile of the batch resident, checked at run time).
int partition_resident_chunks(int m, int rows_per_chunk);
// Batches whose tiles the GPU does not hold at once stream through one launch whose tiles wait
// for their own system's only: chunks of partition_stream_rows rows, tiles of
// partition_stream_chunks chunks (0: not streamed), at most as many tiles as chunks per tile and
// no more than the three-launch path's, so that the scratch (seven values a tile and batch + 1
// counters) fits partition_buffer_bytes.
int partition_stream_rows(int m, int element_bytes);
int partition_stream_chunks(int m, int element_bytes);
// Interleaved systems that one block holds only as a 32-byte piece of each row (or not at all)
// and a thread-block cluster holds whole run in one cluster launch: this many blocks a cluster
// (2..8), each 32 systems wide with *chunks chunks of each; 0 where that shape does not apply.
// The reduced level, one row a block and system, passes through distributed shared memory.
int partition_cluster_tiles(int m, int element_bytes, int* chunks);
// Interleaved systems too long for a cluster stream through one launch as the strided ones do, a
// block *systems systems wide (a 128-byte line of each row) by *chunks chunks of partition_rows
// rows, this many tiles a system (2..*chunks: one block solves a group's reduced level); 0 where
// that shape does not apply.
int partition_stream_lanes(int m, int element_bytes, int* systems, int* chunks);
std::size_t partition_buffer_bytes(int m, int batch, bool interleaved, int element_bytes);
template <class T>
cudaError_t partition_solve(int m, int batch, int stride, bool interleaved, const T* dl, const T* d, const T* du,
                            T* x, void* buffer, cudaStream_t stream);

// gtsv2_nopivot: n columns of B (column j at B + j*ldb) against one matrix. One column is one
// system of the strided layout; several share each block's elimination of the matrix (the columns
// kernel). buffer: partition_columns_buffer_bytes(m, n, ...). skip (n = 1 only): a device flag; where
// nonzero when the launches run, every one of them returns at once and B is left as it was.
std::size_t partition_columns_buffer_bytes(int m, int n, int element_bytes);
template <class T>
cudaError_t partition_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                    cudaStream_t stream, const int* skip = nullptr);

// gtsv2_nopivot by the multi-stage Wang-Mou divide and conquer (Dieguez et al.'s MS-ID-TS; the
// host reference is reference::wang_mou_tiled): tiles of wang_mou_tile_rows rows merged level by
// level in one block each, the tiles' first and last rows merged the same way in the next stage,
// recursively, then every tile re-merged with its two outside unknowns known. buffer:
// wang_mou_buffer_bytes(m, n, ...), the first and last rows of every tile of every stage.
int wang_mou_tile_rows(int n, int element_bytes);
std::size_t wang_mou_buffer_bytes(int m, int n, int element_bytes);
template <class T>
cudaError_t wang_mou_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                   cudaStream_t stream);

// gtsv2_nopivot by k steps of tiled PCR, which split the system into 2^k interleaved subsystems,
// then p-Thomas, one thread per subsystem ("A Scalable Tridiagonal Solver for GPUs", Kim et al.;
// the host reference is reference::tiled_pcr_thomas). buffer: pcr_thomas_buffer_bytes(m, n, ...).
int pcr_thomas_steps(int m, int element_bytes);
std::size_t pcr_thomas_buffer_bytes(int m, int n, int element_bytes);
template <class T>
cudaError_t pcr_thomas_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                     cudaStream_t stream);

// gtsv2 (pivoting): n columns of B against one matrix, no diagonal dominance asked. Chunks of 8
// rows with two separators each, each chunk's interior solved by diagonal pivoting (1 x 1 / 2 x 2
// blocks), the separators reduced level by level through `buffer` (pivoting_buffer_bytes), then one
// step of iterative refinement where a pivot was small. With check_dominance, one column of more
// rows than the one-block kernel holds (1024) is first checked on the device for diagonal
// dominance and, where dominant, solved by partition_solve_columns instead (in the same
// buffer; IDGPU_PIVOT_DOMINANT).
std::size_t pivoting_buffer_bytes(int m, int n, int element_bytes);
template <class T>
cudaError_t pivoting_solve(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                           cudaStream_t stream, bool check_dominance = true);
// The same algorithm on `batch` contiguous systems of m rows each (rows b m .. b m + m - 1 of dl,
// d, du and x; each system's dl[0] and du[m - 1] zero, as the gather makes them), one block a
// system: the levels, the top solve and the refinement of a system in one launch, its reduced
// levels in its own part of `buffer` (pivoting_batched_buffer_bytes), its refinement decided by
// its own pivots.
std::size_t pivoting_batched_buffer_bytes(int m, int batch, int element_bytes);
// The reduced levels of a pivoting solve as pivoting_solve lays them out in a buffer starting
// `misalign` bytes past a 256-byte boundary (a host function, for tests): per level, its rows, the
// identity padding in front of the next level's chunk 0, the leading dimensions of its rhs / x and
// rhs_next columns, whether its chunks move as 16-byte vectors, each array's first element as a
// byte offset from the buffer, and the buffer's size (pivoting_buffer_bytes); and, the same at
// every level, the bytes from the buffer's start that a dominant matrix's partition solve may use
// (reserve), and the offset (flags) and extent (flag_bytes) of the solve's flags, past it: two ints
// and, for one column, the dominance check's count and its verdicts, one int a block.
struct PivotingLevelLayout {
  long long rows, pad, ld, ld_next;
  bool vectors;
  std::size_t lower, diag, upper, diag_next, rhs, x, rhs_next, factor, choice, total;
  std::size_t reserve, flags, flag_bytes;  // flag_bytes: from `flags` to the end of the last flag
  // The serial solve's factor (for a level of serial_rows rows; 0: none): four arrays of elements
  // and the interchange bits, one unsigned a 32 steps.
  long long serial_rows;
  std::size_t serial_mult, serial_inv, serial_u1, serial_u2, serial_swaps;
};
std::vector<PivotingLevelLayout> pivoting_levels(int m, int n, int element_bytes, std::size_t misalign);
template <class T>
cudaError_t pivoting_solve_batched(int m, int batch, const T* dl, const T* d, const T* du, T* x, void* buffer,
                                   cudaStream_t stream);

// Variable-size interleaved batches through the partition solver (padding rows never read nor
// written; sizes outside [1, max_m] leave the system untouched); scratch, where a system is longer
// than one block holds, is allocated on `stream`.
template <class T>
cudaError_t partition_solve_var(int max_m, int batch, const int* sizes, const T* dl, const T* d, const T* du, T* x,
                                cudaStream_t stream);

// Interleaved systems given by a formula instead of arrays (the FFT Poisson solver's z systems,
// src/poisson): system j (of `batch` >= 2) has m rows with the constant off-diagonals `off` (a = c),
// except row 0's upper `first_upper` and row m-1's lower `last_lower`, and the diagonal
// diagonal[j] on every row (Real: float for cuComplex, double for cuDoubleComplex; device memory,
// `batch` values). x (element i of system j at i*batch + j) holds the right-hand sides and
// receives the solutions times `scale`. System `pinned` (-1: none), singular in the Neumann
// Poisson problem, is solved with its row 0 replaced by x_0 = 0 and *shift (device memory, one
// value) subtracted from the right-hand sides of rows 1..m-1. Solved by the partition solver's
// interleaved paths, one read and one write of x where a block holds a system (m up to some
// 4096); buffer: partition_buffer_bytes(m, batch, true, sizeof(T)). T: cuComplex, cuDoubleComplex.
struct ShiftedSystems {
  int m = 0;
  long long batch = 0;
  double off = 0;
  double first_upper = 0;
  double last_lower = 0;
  const void* diagonal = nullptr;
  long long pinned = -1;
  const void* shift = nullptr;
  double scale = 1;
};
template <class T>
cudaError_t partition_solve_shifted(const ShiftedSystems& systems, T* x, void* buffer, cudaStream_t stream);

// algo 1: Gaussian elimination with partial pivoting per system (LAPACK xGTSV's choice of pivot,
// CABS1 for complex), one thread a system: U recomputed a segment at a time from checkpoints kept
// in `fill` (batch*m elements of scratch; checkpoint_schedule.h); d and du are not written. Under
// IDGPU_INTERLEAVED_PIVOTING=stored, U is kept instead: systems of m <= 32 rows whose 4 (m - 1)
// elements per thread fit a 32-thread block's 48 KB in shared memory, longer ones with U's
// diagonal in d, its first superdiagonal in du, the fill-in second superdiagonal in `fill` and the
// transformed right-hand side in x, read back. only_if (device memory, or null):
// the kernels return at once where it holds 0 (a fallback decided on the device).
template <class T>
cudaError_t interleaved_lu(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream,
                           const int* only_if = nullptr);

// algos 1 and 2 on long systems (interleaved_pivoting.cu): the batch gathered into one
// block-diagonal system of m*batch rows (at most INT_MAX: interleaved_pivoting_fits) and solved by
// pivoting_solve, x scattered back where the solution is finite everywhere; otherwise (a system
// with a NaN, an Inf or an exact singularity, which the gathered solve spreads to every system)
// x is left as it came and algo's thread-per-system solver (interleaved_lu / interleaved_qr)
// solves the batch. Scratch (about 7 m batch elements) is allocated
// on the stream: cudaErrorMemoryAllocation, before any launch, where there is none.
bool interleaved_pivoting_fits(int m, int batch);
template <class T>
cudaError_t interleaved_pivoting_solve(int algo, int m, int batch, const T* dl, T* d, T* du, T* x,
                                       cudaStream_t stream);

// algo 2: QR by Givens rotations per system; R stored as for algo 1.
template <class T>
cudaError_t interleaved_qr(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream,
                           const int* only_if = nullptr);

}  // namespace idgpu::tridiag::kernels
