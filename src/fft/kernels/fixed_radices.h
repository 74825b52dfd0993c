// The radix sequences compiled as fixed-sequence Stockham kernels (stockham_pass.cuh's
// FixedStages, instantiated by stockham_fixed_f32.cu and stockham_fixed_f64.cu): the single passes
// of the mixed-radix lengths applications use most (decimal sizes, audio frame lengths and their
// real halves, 3^k, 5^k, 7^k grids) and the passes the planner splits the common longer ones into
// (59049 = 243 x 243, 78125 = 125 x 625, 117649 = 343 x 343, 10^6 = 1000 x 1000, 10^7 =
// 3125 x 3200), the single passes of the lengths up to 4096 with factors 11 and 13 (and 2835 =
// 3^4 5 7) where the vendor runs below half of copy bandwidth (0.31-0.49 on an H200), and 384
// and 1080, the axes of 384^3 and 1080 x 1920 grids (on these 27 lengths the general kernel
// reached 0.13-0.31 of copy bandwidth on an H200). Each entry is the planner's pass_radices of
// the length in its comment (a CPU test, fixed radix sequences, holds them equal), largest first;
// other mixed-radix passes run the same kernel compiled at run time for their sequence
// (fft/runtime_kernels.h) where NVRTC is there, else the general kernel. Plain C preprocessor
// text: X(radices...) per sequence.
#pragma once

#define IDGPU_FFT_FIXED_RADICES(X) \
  X(5, 4, 3)          /* 60 */      \
  X(5, 5, 4)          /* 100 */     \
  X(8, 5, 3)          /* 120 */     \
  X(5, 5, 5)          /* 125 */     \
  X(8, 5, 5)          /* 200 */     \
  X(16, 5, 3)         /* 240 */     \
  X(9, 9, 3)          /* 243 */     \
  X(5, 5, 5, 2)       /* 250 */     \
  X(5, 5, 4, 3)       /* 300 */     \
  X(13, 8, 3)         /* 312 */     \
  X(7, 7, 7)          /* 343 */     \
  X(16, 8, 3)         /* 384 */     \
  X(16, 5, 5)         /* 400 */     \
  X(13, 11, 3)        /* 429 */     \
  X(8, 5, 4, 3)       /* 480 */     \
  X(5, 5, 5, 4)       /* 500 */     \
  X(13, 8, 5)         /* 520 */     \
  X(13, 11, 4)        /* 572 */     \
  X(5, 5, 5, 5)       /* 625 */     \
  X(9, 9, 9)          /* 729 */     \
  X(8, 8, 5, 3)       /* 960 */     \
  X(8, 5, 5, 5)       /* 1000 */    \
  X(9, 8, 5, 3)       /* 1080 */    \
  X(11, 7, 7, 3)      /* 1617 */    \
  X(16, 8, 5, 3)      /* 1920 */    \
  X(16, 5, 5, 5)      /* 2000 */    \
  X(13, 11, 7, 2)     /* 2002 */    \
  X(13, 11, 5, 3)     /* 2145 */    \
  X(9, 9, 9, 3)       /* 2187 */    \
  X(16, 13, 11)       /* 2288 */    \
  X(7, 7, 7, 7)       /* 2401 */    \
  X(11, 8, 7, 4)      /* 2464 */    \
  X(13, 8, 8, 3)      /* 2496 */    \
  X(13, 11, 9, 2)     /* 2574 */    \
  X(13, 7, 5, 3, 2)   /* 2730 */    \
  X(9, 9, 7, 5)       /* 2835 */    \
  X(13, 11, 7, 3)     /* 3003 */    \
  X(13, 13, 9, 2)     /* 3042 */    \
  X(5, 5, 5, 5, 5)    /* 3125 */    \
  X(13, 11, 11, 2)    /* 3146 */    \
  X(16, 8, 5, 5)      /* 3200 */    \
  X(13, 11, 8, 3)     /* 3432 */    \
  X(11, 9, 7, 5)      /* 3465 */    \
  X(11, 8, 8, 5)      /* 3520 */    \
  X(13, 11, 5, 5)     /* 3575 */    \
  X(13, 13, 11, 2)    /* 3718 */    \
  X(11, 7, 5, 5, 2)   /* 3850 */    \
  X(13, 11, 9, 3)     /* 3861 */    \
  X(8, 5, 5, 5, 4)    /* 4000 */    \
  X(13, 11, 7, 4)     /* 4004 */    \
  X(13, 9, 7, 5)      /* 4095 */    \
  X(8, 5, 5, 5, 5)    /* 5000 */    \
  X(9, 9, 9, 9)       /* 6561 */    \
  X(16, 5, 5, 5, 5)   /* 10000 */

// The sequences whose complex passes keep the padded layout e + (e >> shift) (a second kernel,
// PaddedFixedStages) instead of the row-padded exchanges (fixed_sequence_extent in
// fft/stockham_index.h), per precision: the row layout measured slower on these, the real passes
// of the same halves faster. H200, one process, 2^26 (fp32) / 2^25 (fp64) points a call, medians
// of 12, padded against rows: fp32 60 0.410 / 0.421 ms, 240 0.289 / 0.311, 400 0.330 / 0.340,
// 480 0.397 / 0.424, 1920 0.323 / 0.326 (0.320 / 0.327, 0.324 / 0.327 in two more processes),
// 2288 0.356 / 0.371; fp64 243 0.304 / 0.342, 429 0.346 / 0.357, 480 0.464 / 0.475; R2C 480,
// 800, 3840 (halves 240, 400, 1920) 4.8-9.8% faster with rows. The other sequences gained 1-60%
// with rows (docs/data/h200-fixed-exchange-rows.csv).
#define IDGPU_FFT_FIXED_PADDED_F32(X) X(5, 4, 3) X(16, 5, 3) X(16, 5, 5) X(8, 5, 4, 3) X(16, 8, 5, 3) X(16, 13, 11)
#define IDGPU_FFT_FIXED_PADDED_F64(X) X(9, 9, 3) X(13, 11, 3) X(8, 5, 4, 3)

// The Bluestein convolution lengths M compiled besides the powers of two (one-pass kernels,
// stockham_bluestein_mixed.cuh), as the planner's pass_radices of M, per precision: 5120 =
// 16 8 8 5, 6144 = 16 16 8 3, 10240 = 16 16 8 5, 12288 = 16 16 16 3; fp64 5120 (a block holds
// fp64 powers of two to 8192). They cut the padding of lengths just above a power of two (n =
// 4099 pads to 10240 points instead of 16384, n = 2053 to 5120 instead of 8192). H200, C2C / Z2Z
// at 2^26 / 2^25 points, against the power of two: fp32 4099 1.29x -> 1.59x the vendor, 5003
// 1.19x -> 1.40x, 6007 2.07x -> 2.23x; fp64 2053 1.64x -> 1.70x. fp64 6144 (410 threads a
// transform, one block an SM) lost: 3001 1.58x -> 1.47x, D2Z n = 6002 1.64x -> 1.56x.
#define IDGPU_FFT_BLUESTEIN_MIXED_F32(X) X(16, 8, 8, 5) X(16, 16, 8, 3) X(16, 16, 8, 5) X(16, 16, 16, 3)
#define IDGPU_FFT_BLUESTEIN_MIXED_F64(X) X(16, 8, 8, 5)
