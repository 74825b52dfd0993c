// The radix sequences compiled as fixed-sequence Stockham kernels (stockham_pass.cuh's
// FixedStages, instantiated by stockham_fixed_f32.cu and stockham_fixed_f64.cu): the single passes
// of the mixed-radix lengths applications use most (decimal sizes, audio frame lengths and their
// real halves, 3^k, 5^k, 7^k grids) and the passes the planner splits the common longer ones into
// (59049 = 243 x 243, 78125 = 125 x 625, 117649 = 343 x 343, 10^6 = 1000 x 1000, 10^7 =
// 3125 x 3200). Each entry is the planner's pass_radices of the length in its comment (a CPU test,
// fixed radix sequences, holds them equal), largest first; other mixed-radix passes run the
// general kernel. Plain C preprocessor text: X(radices...) per sequence.
#pragma once

#define IDGPU_FFT_FIXED_RADICES(X) \
  X(5, 4, 3)          /* 60 */     \
  X(5, 5, 4)          /* 100 */    \
  X(8, 5, 3)          /* 120 */    \
  X(5, 5, 5)          /* 125 */    \
  X(8, 5, 5)          /* 200 */    \
  X(16, 5, 3)         /* 240 */    \
  X(9, 9, 3)          /* 243 */    \
  X(5, 5, 5, 2)       /* 250 */    \
  X(5, 5, 4, 3)       /* 300 */    \
  X(7, 7, 7)          /* 343 */    \
  X(16, 5, 5)         /* 400 */    \
  X(8, 5, 4, 3)       /* 480 */    \
  X(5, 5, 5, 4)       /* 500 */    \
  X(5, 5, 5, 5)       /* 625 */    \
  X(9, 9, 9)          /* 729 */    \
  X(8, 8, 5, 3)       /* 960 */    \
  X(8, 5, 5, 5)       /* 1000 */   \
  X(16, 8, 5, 3)      /* 1920 */   \
  X(16, 5, 5, 5)      /* 2000 */   \
  X(9, 9, 9, 3)       /* 2187 */   \
  X(7, 7, 7, 7)       /* 2401 */   \
  X(5, 5, 5, 5, 5)    /* 3125 */   \
  X(16, 8, 5, 5)      /* 3200 */   \
  X(8, 5, 5, 5, 4)    /* 4000 */   \
  X(8, 5, 5, 5, 5)    /* 5000 */   \
  X(9, 9, 9, 9)       /* 6561 */   \
  X(16, 5, 5, 5, 5)   /* 10000 */
