// The partition solver's one-launch shape (partition_resident_chunks, a host function of
// src/tridiag/kernels/partition.cu): which strided systems run as one cooperative launch, with
// how many chunks per tile. No kernel is launched, no GPU needed.
//
// What the kernel needs of the shape:
//  - tiles of a power of two of chunks, 64 to 512 (the block's threads);
//  - a reduced level one block solves, one row a thread: 2 <= tiles <= chunks per tile;
//  - 0 where one block holds the system (the block-local solve does it in one launch already);
//  - the fewest chunks per tile that do, so that the tiles' cyclic reductions stay short;
//  - reduced rows that fit the pBuffer the three-launch path asks for (partition_buffer_bytes), so
//    that the caller's buffer never turns the one launch down at the measured rows per chunk.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "tridiag/kernels/kernels.h"

namespace kernels = idgpu::tridiag::kernels;

namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

std::vector<int> partition_sizes() {
  std::vector<int> out;
  for (int m = 1; m <= 20000; m += 7) out.push_back(m);
  for (int log = 10; log <= 27; ++log) {
    for (long long delta : {-1LL, 0LL, 1LL}) out.push_back(static_cast<int>((1LL << log) + delta));
  }
  std::mt19937_64 rng(20261122);
  std::uniform_int_distribution<int> any(1, 1 << 24);
  for (int i = 0; i < 3000; ++i) out.push_back(any(rng));
  return out;
}

}  // namespace

TEST_CASE("partition: the one-launch shape of tiled strided systems", "[partition]") {
  constexpr int kLevelArrays = 8;  // seven reduced values a tile and its separator
  for (int element_bytes : {4, 8, 16}) {
    for (int m : partition_sizes()) {
      const int rows = kernels::partition_rows(m, false, element_bytes);
      const int chunks = kernels::partition_resident_chunks(m, rows);
      const long long total = ceil_div(m, rows);
      INFO("m = " << m << ", " << element_bytes << "-byte elements, " << rows << " rows a chunk");
      if (total <= 512) {
        REQUIRE(chunks == 0);
        continue;
      }
      if (total > 512LL * 512) {
        REQUIRE(chunks == 0);
        continue;
      }
      REQUIRE((chunks == 64 || chunks == 128 || chunks == 256 || chunks == 512));
      const long long tiles = ceil_div(total, chunks);
      REQUIRE(tiles >= 2);
      REQUIRE(tiles <= chunks);
      if (chunks > 64) REQUIRE(ceil_div(total, chunks / 2) > chunks / 2);
      const std::size_t reduced = static_cast<std::size_t>(kLevelArrays) * static_cast<std::size_t>(tiles) *
                                  static_cast<std::size_t>(element_bytes);
      REQUIRE(reduced <= kernels::partition_buffer_bytes(m, 1, false, element_bytes));
    }
  }
}

TEST_CASE("partition: the one-launch shape's limits", "[partition]") {
  // gtsv2_nopivot f32 at m = 2^20 (16 rows a chunk): 256 tiles of 256 chunks; at 2^16, 64 of 64.
  REQUIRE(kernels::partition_resident_chunks(1 << 20, 16) == 256);
  REQUIRE(kernels::partition_resident_chunks(1 << 16, 16) == 64);
  // One block: 512 chunks.
  REQUIRE(kernels::partition_resident_chunks(512 * 16, 16) == 0);
  REQUIRE(kernels::partition_resident_chunks(512 * 16 + 1, 16) == 64);
  // The largest: 512 tiles of 512 chunks.
  REQUIRE(kernels::partition_resident_chunks(512 * 512 * 4, 4) == 512);
  REQUIRE(kernels::partition_resident_chunks(512 * 512 * 4 + 1, 4) == 0);
  REQUIRE(kernels::partition_resident_chunks(0, 4) == 0);
  REQUIRE(kernels::partition_resident_chunks(100, 0) == 0);
}

// The streamed launch (Mode::kStream) for strided batches the GPU does not hold at once: chunks
// of partition_stream_rows rows in the one-launch shape, seven reduced values a tile and one
// counter a system plus the ticket, in the buffer the three-launch path asks for.
TEST_CASE("partition: the streamed shape fits the caller's buffer", "[partition]") {
  constexpr int kReducedArrays = 7;
  for (int element_bytes : {4, 8, 16}) {
    for (int m : partition_sizes()) {
      const int rows = kernels::partition_stream_rows(m, element_bytes);
      REQUIRE(rows >= 2);
      REQUIRE(rows <= 8);
      REQUIRE(rows <= kernels::partition_rows(m, false, element_bytes));
      // One block holds the system at partition_rows' chunks: one launch already, no streaming.
      if (ceil_div(m, kernels::partition_rows(m, false, element_bytes)) <= 512) continue;
      const int chunks = kernels::partition_stream_chunks(m, element_bytes);
      const int fewest = kernels::partition_resident_chunks(m, rows);
      REQUIRE((chunks == 0) == (fewest == 0));
      if (chunks == 0) continue;
      REQUIRE((chunks == 64 || chunks == 128 || chunks == 256 || chunks == 512));
      REQUIRE(chunks >= fewest);
      const long long tiles = ceil_div(ceil_div(m, rows), chunks);
      REQUIRE(tiles <= chunks);  // one block solves the reduced level
      for (long long batch : {1LL, 3LL, 256LL, 4096LL}) {
        if (static_cast<long long>(m) * batch > (1LL << 28)) continue;
        INFO("m = " << m << ", batch " << batch << ", " << element_bytes << "-byte elements, " << rows
                    << " rows a chunk, " << tiles << " tiles");
        const std::size_t needed =
            static_cast<std::size_t>(kReducedArrays * tiles * batch * element_bytes) +
            static_cast<std::size_t>(batch + 1) * sizeof(unsigned);
        REQUIRE(needed <= kernels::partition_buffer_bytes(m, static_cast<int>(batch), false, element_bytes));
      }
    }
  }
  // f32 at m = 65536: 8 rows a chunk, 64 tiles of 128 chunks (the three launches: 64 tiles of
  // 64 chunks of 16 rows); at m = 8198, 9 tiles of 128 chunks, not 17 of 64.
  REQUIRE(kernels::partition_stream_rows(65536, 4) == 8);
  REQUIRE(kernels::partition_stream_chunks(65536, 4) == 128);
  REQUIRE(kernels::partition_stream_chunks(8198, 4) == 128);
  // f64 and c32 keep 8 rows, c64 4: the one-launch shape as it is.
  REQUIRE(kernels::partition_stream_chunks(65536, 8) == kernels::partition_resident_chunks(65536, 8));
  REQUIRE(kernels::partition_stream_chunks(65536, 16) == kernels::partition_resident_chunks(65536, 4));
}

// The interleaved cluster launch (Mode::kCluster): where a block would hold a system only as a
// 32-byte piece of each row, a cluster of 2..8 blocks, each 32 systems (a 128-byte f32 line) by
// a power of two of chunks, holds the whole system; the reduced level, one row a block, is solved
// by one block's cyclic reduction, so tiles <= chunks.
TEST_CASE("partition: the interleaved cluster shape", "[partition]") {
  for (int element_bytes : {4, 8, 16}) {
    for (int m : partition_sizes()) {
      const int rows = kernels::partition_rows(m, true, element_bytes);
      const long long needed = ceil_div(m, rows);
      long long pow2 = 1;
      while (pow2 < needed) pow2 *= 2;
      const long long block_systems = 512 / pow2;  // the block-local shape's systems
      int chunks = 0;
      const int tiles = kernels::partition_cluster_tiles(m, element_bytes, &chunks);
      INFO("m = " << m << ", " << element_bytes << "-byte elements, " << rows << " rows a chunk");
      if (block_systems * element_bytes > 32 || needed > 8 * 16) {
        REQUIRE(tiles == 0);
        continue;
      }
      REQUIRE(tiles >= 2);
      REQUIRE(tiles <= 8);
      REQUIRE((chunks == 2 || chunks == 4 || chunks == 8 || chunks == 16));
      REQUIRE(tiles <= chunks);
      REQUIRE(static_cast<long long>(tiles) * chunks * rows >= m);
      // the fewest chunks: half as many would need more tiles than allowed
      if (chunks > 2) REQUIRE((ceil_div(needed, chunks / 2) > chunks / 2 || ceil_div(needed, chunks / 2) > 8));
    }
  }
  int chunks = 0;
  // f32 m = 1000: 16 rows a chunk, 63 chunks; 8 blocks of 8 chunks of 32 systems.
  REQUIRE(kernels::partition_cluster_tiles(1000, 4, &chunks) == 8);
  REQUIRE(chunks == 8);
  // f64 m = 1000: 8 rows a chunk, 125 chunks; 8 blocks of 16.
  REQUIRE(kernels::partition_cluster_tiles(1000, 8, &chunks) == 8);
  REQUIRE(chunks == 16);
  // f32 m = 512: a block holds 16 systems (64-byte rows): no cluster. m = 4096: too long.
  REQUIRE(kernels::partition_cluster_tiles(512, 4, &chunks) == 0);
  REQUIRE(kernels::partition_cluster_tiles(4096, 4, &chunks) == 0);
}

// The interleaved streamed launch (Mode::kStream, lanes): blocks of 512 threads, 128 bytes of
// systems wide (a whole line of every row of the layout), where a group's reduced level has no
// more rows than the block has chunks; seven reduced values a tile and system and one counter a
// group plus the ticket, in the buffer the three-launch path asks for.
TEST_CASE("partition: the interleaved streamed shape fits the caller's buffer", "[partition]") {
  constexpr int kReducedArrays = 7;
  for (int element_bytes : {4, 8, 16}) {
    for (int m : partition_sizes()) {
      const int rows = kernels::partition_rows(m, true, element_bytes);
      const int wide = 128 / element_bytes;
      const long long block_chunks = 512 / wide;
      const long long needed_tiles = ceil_div(ceil_div(m, rows), block_chunks);
      int systems = 0;
      int chunks = 0;
      const int tiles = kernels::partition_stream_lanes(m, element_bytes, &systems, &chunks);
      INFO("m = " << m << ", " << element_bytes << "-byte elements, " << rows << " rows a chunk");
      // (a block holds the system where 32 bytes of systems by its chunks cover m)
      const bool block_holds = ceil_div(m, rows) <= 512 / (32 / element_bytes);
      if (block_holds || needed_tiles > block_chunks) {
        REQUIRE(tiles == 0);
        continue;
      }
      REQUIRE(needed_tiles >= 2);
      REQUIRE(tiles == needed_tiles);
      REQUIRE(systems == wide);
      REQUIRE(chunks == block_chunks);
      REQUIRE(static_cast<long long>(tiles) * chunks * rows >= m);
      for (long long batch : {3LL, 256LL, 4096LL}) {
        if (static_cast<long long>(m) * batch > (1LL << 28)) continue;
        INFO("batch " << batch << ", " << systems << " systems of " << tiles << " tiles");
        const std::size_t needed = static_cast<std::size_t>(kReducedArrays * tiles * batch * element_bytes) +
                                   static_cast<std::size_t>(ceil_div(batch, systems) + 1) * sizeof(unsigned);
        REQUIRE(needed <= kernels::partition_buffer_bytes(m, static_cast<int>(batch), true, element_bytes));
      }
    }
  }
  int systems = 0;
  int chunks = 0;
  // f32 m = 4096: 16 rows a chunk, 32 systems by 16 chunks, 16 tiles.
  REQUIRE(kernels::partition_stream_lanes(4096, 4, &systems, &chunks) == 16);
  REQUIRE(systems == 32);
  REQUIRE(chunks == 16);
  // f64 m = 4096: 8 rows, 16 systems by 32 chunks, 16 tiles; c64 8 systems by 64 chunks of 4.
  REQUIRE(kernels::partition_stream_lanes(4096, 8, &systems, &chunks) == 16);
  REQUIRE(systems == 16);
  REQUIRE(kernels::partition_stream_lanes(4096, 16, &systems, &chunks) == 16);
  REQUIRE(chunks == 64);
  // The longest: f32 4096 (4097 would need 17 tiles of 16 chunks), f64 8192, c64 16384.
  REQUIRE(kernels::partition_stream_lanes(4097, 4, &systems, &chunks) == 0);
  REQUIRE(kernels::partition_stream_lanes(8192, 8, &systems, &chunks) == 32);
  REQUIRE(kernels::partition_stream_lanes(16385, 16, &systems, &chunks) == 0);
  REQUIRE(kernels::partition_stream_lanes(65536, 4, &systems, &chunks) == 0);
}
