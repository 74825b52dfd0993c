// Every environment variable idgpu reads, one row each, the only list of them:
//   X(name, parser, accepted, fallback)
// `parser` (config.cpp) sets the variable's Config field from a value and answers false for a value
// it does not accept; the field then keeps its default, which `fallback` names. `accepted` finishes
// the warning "idgpu: NAME=value is not <accepted>; using <fallback>".
// config.cpp reads the environment from this list; tests/cpu/CMakeLists.txt reads the names from
// it (every CPU test runs with all of them unset unless it sets one), and a CPU test checks that
// README.md's Environment table documents every row.
#pragma once

// clang-format off
#define IDGPU_CONFIG_VARIABLES(X)                                                                                     \
  X(IDGPU_LOG, parse_log_level, "one of off, error, warn, info, debug, trace", "error")                               \
  X(IDGPU_REPORT, parse_report, "one of 0, 1, counts, timing, json, timing,json", "0")                                \
  X(IDGPU_REPORT_FILE, parse_report_file, "a path (%p: the process id, %%: a %)", "stderr")                           \
  X(IDGPU_POLICY, parse_policy, "one of auto, vendor, native", "auto")                                                \
  X(IDGPU_SYNC_CHECK, parse_sync_check, "one of 0, 1", "0")                                                           \
  X(IDGPU_TRIDIAG_SOLVER, parse_tridiag_solver, "one of auto, partition, wang-mou, pcr-thomas", "auto")               \
  X(IDGPU_FFT_MEASURE, parse_fft_measure, "one of 0, 1", "0")                                                         \
  X(IDGPU_FFT_FUSED, parse_fft_fused, "one of 0, 1", "1")                                                             \
  X(IDGPU_FFT_FUSED_LAG, parse_fft_fused_lag, "an integer in 0..1073741824", "0 (the planner's)")                     \
  X(IDGPU_FFT_CLUSTER_COLUMNS, parse_fft_cluster_columns, "one of 0, 1", "1")                                         \
  X(IDGPU_FFT_COLUMN_LINES, parse_fft_column_lines, "an integer in 0..1024", "0 (the planner's)")                      \
  X(IDGPU_FFT_THREAD_TRANSFORMS, parse_fft_thread_transforms, "one of 0, 1, 32, 64, 128, 256", "1")                   \
  X(IDGPU_FFT_WIDE_ELEMENTS, parse_fft_wide_elements, "0 or an integer in 8..64", "24")                                \
  X(IDGPU_FFT_PAIR_REAL_ROWS, parse_fft_pair_real_rows, "one of 0, 1", "0")                                           \
  X(IDGPU_FFT_RUNTIME_KERNELS, parse_fft_runtime_kernels, "one of off, async, wait", "async")                         \
  X(IDGPU_CACHE_DIR, parse_cache_dir, "a path", "$XDG_CACHE_HOME/idgpu or ~/.cache/idgpu")                            \
  X(IDGPU_VENDOR_CUFFT, parse_vendor_cufft, "a path", "the search")                                                   \
  X(IDGPU_VENDOR_CUSPARSE, parse_vendor_cusparse, "a path", "the search")                                             \
  X(IDGPU_PARTITION_ROWS, parse_partition_rows, "one of 2, 4, 8, 16", "the measured choice")                          \
  X(IDGPU_PARTITION_CLUSTER, parse_partition_cluster, "an integer in 0..8", "8")                                      \
  X(IDGPU_PARTITION_RESIDENT, parse_partition_resident, "one of 0, 1, stream", "1")                                   \
  X(IDGPU_PARTITION_TILE_CHUNKS, parse_partition_tile_chunks, "a power of two in 2..512", "the measured choice")      \
  X(IDGPU_PARTITION_LANE_CHUNKS, parse_partition_lane_chunks, "a power of two in 1..16", "the measured choice")       \
  X(IDGPU_PIVOT_BLOCK_ROWS, parse_pivot_block_rows, "an integer in 1..2147483647", "1024")                            \
  X(IDGPU_PIVOT_SERIAL_ROWS, parse_pivot_serial_rows, "an integer in 0..256", "128")                                \
  X(IDGPU_PIVOT_REFINE, parse_pivot_refine, "one of 0, 1, 2", "1")                                                    \
  X(IDGPU_PIVOT_DOMINANT, parse_pivot_dominant, "one of 0, 1", "1")                                                  \
  X(IDGPU_PIVOT_DOMINANT_ROWS, parse_pivot_dominant_rows, "an integer in 1..2147483647", "2147483647")                \
  X(IDGPU_INTERLEAVED_PIVOTING, parse_interleaved_pivoting, "one of auto, gathered, stored, recompute", "auto")     \
  X(IDGPU_PIVOT_ONE_BLOCK, parse_pivot_one_block, "one of auto, 0, 1", "auto")                                      \
  X(IDGPU_FAULT_INJECT, parse_fault_inject, "one of off, launch, second-launch", "off")                               \
  X(IDGPU_OOC_DEVICE_BYTES, parse_ooc_device_bytes, "a byte count in 1..2^62 (suffix K, M, G or T: x 1024^k)",        \
    "80% of the free device memory")                                                                                  \
  X(IDGPU_SCRATCH_KEEP, parse_scratch_keep, "a byte count in 0..2^62 (suffix K, M, G or T: x 1024^k)",                \
    "1/16 of the device memory")
// clang-format on
