// The constant cosines and sines of the radix-R DFTs the FFT kernels run in registers
// (kernels/butterfly.cuh), each the double nearest the exact value (a CPU test checks them against
// long double), so that fp64 butterflies round no worse than the vendor's: the table computed
// with double cos() and sin() was 1-5 ulps off for 23 of its 42 entries (cos 2 pi / 3 as
// -0.4999999999999998), which left fp64 n = 3 with 2.5x the vendor's round-trip error.
// Host and device code (and the kernels compiled at run time) include it.
#pragma once

#if defined(__CUDACC__)
#define IDGPU_CONSTANT_HD __host__ __device__
#else
#define IDGPU_CONSTANT_HD
#endif

namespace idgpu::fft {

// cos and sin of 2 pi k / 16, k in [0, 8).
IDGPU_CONSTANT_HD constexpr double cos16(int k) {
  switch (k) {
    case 0: return 1.0;
    case 1: return 0.92387953251128675613;
    case 2: return 0.70710678118654752440;
    case 3: return 0.38268343236508977173;
    case 4: return 0.0;
    case 5: return -0.38268343236508977173;
    case 6: return -0.70710678118654752440;
    default: return -0.92387953251128675613;
  }
}
IDGPU_CONSTANT_HD constexpr double sin16(int k) { return cos16(k < 4 ? 4 - k : k - 4); }

// cos and sin of 2 pi m / r for the odd radices (3, 5, 7, 9, 11, 13), m in [0, (r - 1) / 2].
IDGPU_CONSTANT_HD constexpr double cos_odd(int r, int m) {
  if (m == 0) return 1.0;  // p t = 0 mod r, possible for r = 9
  switch (r * 100 + m) {
    case 301: return -0.5;
    case 501: return 0.30901699437494745;
    case 502: return -0.8090169943749475;
    case 701: return 0.6234898018587335;
    case 702: return -0.2225209339563144;
    case 703: return -0.9009688679024191;
    case 1101: return 0.8412535328311812;
    case 1102: return 0.41541501300188644;
    case 1103: return -0.14231483827328514;
    case 1104: return -0.6548607339452851;
    case 1105: return -0.9594929736144974;
    case 1301: return 0.8854560256532099;
    case 1302: return 0.5680647467311558;
    case 1303: return 0.12053668025532305;
    case 1304: return -0.3546048870425356;
    case 1305: return -0.7485107481711011;
    case 1306: return -0.970941817426052;
    case 901: return 0.766044443118978;
    case 902: return 0.17364817766693036;
    case 903: return -0.5;
    case 904: return -0.9396926207859084;
    default: return 0.0;
  }
}
IDGPU_CONSTANT_HD constexpr double sin_odd(int r, int m) {
  switch (r * 100 + m) {
    case 301: return 0.8660254037844386;
    case 501: return 0.9510565162951535;
    case 502: return 0.5877852522924731;
    case 701: return 0.7818314824680298;
    case 702: return 0.9749279121818236;
    case 703: return 0.4338837391175581;
    case 1101: return 0.5406408174555976;
    case 1102: return 0.9096319953545183;
    case 1103: return 0.9898214418809327;
    case 1104: return 0.7557495743542583;
    case 1105: return 0.28173255684142967;
    case 1301: return 0.46472317204376856;
    case 1302: return 0.8229838658936564;
    case 1303: return 0.992708874098054;
    case 1304: return 0.9350162426854148;
    case 1305: return 0.6631226582407952;
    case 1306: return 0.23931566428755777;
    case 901: return 0.6427876096865394;
    case 902: return 0.984807753012208;
    case 903: return 0.8660254037844386;
    case 904: return 0.3420201433256687;
    default: return 0.0;
  }
}

}  // namespace idgpu::fft
