#include "fft/convolution.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>

#include "fft/convolution_index.h"
#include "fft/stockham_index.h"
#include "fft/twiddle.h"

namespace idgpu::fft {
namespace {

using Complex = std::complex<double>;
using ComplexL = std::complex<long double>;

// w_d^e = exp(-2 pi i e / d) in the real type of the FFT.
template <typename Real>
std::complex<Real> root(long long e, long long d) {
  if constexpr (std::is_same_v<Real, double>) {
    return twiddle(e, d, -1);
  } else {
    return twiddle_long(e, d, -1);
  }
}

// Decimation in time: x (n elements `stride` apart) = r interleaved sequences of m = n / r (r the
// smallest prime factor), whose DFTs Y_t combine as X[k + m q] = sum_t w_n^(t (k + m q)) Y_t[k].
// roots[e] = w_N^e of the top length N; here w_n^e = roots[e * root_step].
template <typename Real>
void decimate(const std::complex<Real>* x, long long stride, long long n, std::complex<Real>* out,
              const std::vector<std::complex<Real>>& roots, long long root_step) {
  if (n == 1) {
    out[0] = x[0];
    return;
  }
  const long long r = smallest_prime_factor(n);
  const long long m = n / r;
  std::vector<std::complex<Real>> parts(static_cast<std::size_t>(n));
  for (long long t = 0; t < r; ++t) decimate(x + t * stride, stride * r, m, parts.data() + t * m, roots, root_step * r);
  for (long long q = 0; q < r; ++q) {
    for (long long k = 0; k < m; ++k) {
      const long long bin = k + m * q;
      std::complex<Real> sum = parts[static_cast<std::size_t>(k)];
      for (long long t = 1; t < r; ++t) {
        sum += roots[static_cast<std::size_t>((t * bin) % n * root_step)] * parts[static_cast<std::size_t>(t * m + k)];
      }
      out[bin] = sum;
    }
  }
}

// A power-of-two length in place: bit reversal, then radix-2 butterflies over the roots w_n^e,
// e < n / 2 (the second quarter from the first: w_n^(e + n/4) = -i w_n^e, exact). The butterflies
// work on the real and imaginary parts as scalars (std::complex is laid out as two Reals): built as
// std::complex values, GCC 12's -O2 code ran 14x slower (2.6 ms against 0.18 ms at n = 16384 in
// double), and the plan-time spectra made a Bluestein plan slower to create than the vendor's.
template <typename Real>
void fft_power_of_two(std::vector<std::complex<Real>>* data) {
  const std::size_t n = data->size();
  if (n < 2) return;
  std::vector<std::complex<Real>> roots(n / 2);
  const std::size_t quarter = n / 4;
  // The first eighth of the circle computed, the rest of the first quarter from it: w_n^e =
  // (-Im w_n^(n/4 - e), -Re w_n^(n/4 - e)), exact (half the cos/sin evaluations).
  const std::size_t eighth = n / 8;
  for (std::size_t e = 0; e <= eighth || e < std::min<std::size_t>(quarter, 1); ++e) {
    roots[e] = root<Real>(static_cast<long long>(e), static_cast<long long>(n));
  }
  for (std::size_t e = eighth + 1; e < quarter; ++e) {
    roots[e] = {-roots[quarter - e].imag(), -roots[quarter - e].real()};
  }
  for (std::size_t e = quarter; e < n / 2 && quarter > 0; ++e) {
    roots[e] = {roots[e - quarter].imag(), -roots[e - quarter].real()};
  }
  std::vector<std::complex<Real>>& a = *data;
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  Real* p = reinterpret_cast<Real*>(a.data());
  const Real* r = reinterpret_cast<const Real*>(roots.data());
  for (std::size_t half = 1; half < n; half *= 2) {
    const std::size_t step = n / (2 * half);
    for (std::size_t start = 0; start < n; start += 2 * half) {
      for (std::size_t k = 0; k < half; ++k) {
        const Real wr = r[2 * k * step];
        const Real wi = r[2 * k * step + 1];
        Real* lo = p + 2 * (start + k);
        Real* hi = p + 2 * (start + k + half);
        const Real xr = hi[0], xi = hi[1], ur = lo[0], ui = lo[1];
        const Real vr = xr * wr - xi * wi;
        const Real vi = xr * wi + xi * wr;
        lo[0] = ur + vr;
        lo[1] = ui + vi;
        hi[0] = ur - vr;
        hi[1] = ui - vi;
      }
    }
  }
}

template <typename Real>
std::vector<std::complex<Real>> dft(const std::vector<std::complex<Real>>& x) {
  const auto n = static_cast<long long>(x.size());
  if (n > 0 && (n & (n - 1)) == 0) {
    std::vector<std::complex<Real>> out = x;
    fft_power_of_two(&out);
    return out;
  }
  std::vector<std::complex<Real>> out(x.size());
  if (n == 0) return out;
  std::vector<std::complex<Real>> roots(x.size());
  for (long long e = 0; e < n; ++e) roots[static_cast<std::size_t>(e)] = root<Real>(e, n);
  decimate(x.data(), 1, n, out.data(), roots, 1);
  return out;
}

// DFT(kernel) / count in Real, rounded to double once: the plan-time spectra. Formed in double,
// the FFT's log2(M)-deep rounding error stays in every transform that multiplies by them: 18-22%
// of an fp64 Bluestein round trip's error; fp32 transforms cannot see it.
template <typename Real>
std::vector<Complex> spectrum_of(const std::vector<std::complex<Real>>& kernel, long long count) {
  const std::vector<std::complex<Real>> s = dft(kernel);
  const auto scale = static_cast<Real>(count);
  std::vector<Complex> spectrum(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    spectrum[k] = Complex(static_cast<double>(s[k].real() / scale), static_cast<double>(s[k].imag() / scale));
  }
  return spectrum;
}

// b[k] = conj(c[k]) at k and m - k (k < n), zeros between, c the exact chirp (not chirp_table's
// rounding of it) in Real.
// The chirp exp(-pi i k^2 / n), k < n, in Real, each from the exact exponent k^2 mod 2n. The
// exponents repeat (k^2 and (2n - k)^2 ... are quadratic residues: about half of them are
// distinct) and w^(2n - e) = conj w^e, so each distinct e <= n is computed once where the memo
// is small (2n <= 2^21); longer chirps are computed entry by entry.
template <typename Real>
std::vector<std::complex<Real>> chirp_in(long long n) {
  const long long d = 2 * n;
  std::vector<std::complex<Real>> chirp(static_cast<std::size_t>(n));
  if (d > (1LL << 21)) {
    for (long long k = 0; k < n; ++k) chirp[static_cast<std::size_t>(k)] = root<Real>(chirp_exponent(k, n), d);
    return chirp;
  }
  std::vector<std::complex<Real>> memo(static_cast<std::size_t>(n + 1));
  std::vector<char> have(static_cast<std::size_t>(n + 1), 0);
  for (long long k = 0; k < n; ++k) {
    const long long e = chirp_exponent(k, n);
    const bool upper = e > n;
    const auto base = static_cast<std::size_t>(upper ? d - e : e);
    if (!have[base]) {
      memo[base] = root<Real>(static_cast<long long>(base), d);
      have[base] = 1;
    }
    chirp[static_cast<std::size_t>(k)] = upper ? std::conj(memo[base]) : memo[base];
  }
  return chirp;
}

template <typename Real>
std::vector<Complex> bluestein_spectrum_in(long long n, long long m) {
  std::vector<std::complex<Real>> kernel(static_cast<std::size_t>(m), std::complex<Real>(0, 0));
  const std::vector<std::complex<Real>> chirp = chirp_in<Real>(n);
  for (long long k = 0; k < n; ++k) {
    const std::complex<Real> b = std::conj(chirp[static_cast<std::size_t>(k)]);
    kernel[static_cast<std::size_t>(k)] = b;
    if (k > 0) kernel[static_cast<std::size_t>(m - k)] = b;
  }
  return spectrum_of(kernel, m);
}

template <typename Real>
std::vector<Complex> rader_spectrum_in(long long p, int g) {
  std::vector<std::complex<Real>> kernel(static_cast<std::size_t>(p - 1));
  unsigned long long power = 1;
  for (long long r = 0; r < p - 1; ++r) {
    kernel[static_cast<std::size_t>(r)] = root<Real>(static_cast<long long>(power), p);
    power = mul_mod(power, static_cast<unsigned long long>(g), static_cast<unsigned long long>(p));
  }
  return spectrum_of(kernel, p - 1);
}

}  // namespace

std::vector<Complex> smooth_dft(const std::vector<Complex>& x) { return dft(x); }

std::vector<Complex> chirp_table(long long n) { return chirp_in<double>(n); }

namespace {

// The Bluestein spectra formed so far in this process, newest last, at most kSpectrumCacheBytes
// of them: plans of a length already planned (another batch, the other direction, a plan made
// again) skip the host FFT, which is most of a Bluestein plan's creation time.
constexpr std::size_t kSpectrumCacheBytes = std::size_t{32} << 20;

class SpectrumCache {
 public:
  using Key = std::tuple<long long, long long, TableAccuracy>;

  std::shared_ptr<const std::vector<Complex>> find(const Key& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = entries_.find(key);
    if (found == entries_.end()) return nullptr;
    ++stats_.reused;
    return found->second;
  }

  void add(const Key& key, std::shared_ptr<const std::vector<Complex>> spectrum) {
    const std::size_t bytes = spectrum->size() * sizeof(Complex);
    const std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.formed;
    if (bytes > kSpectrumCacheBytes) return;
    if (!entries_.emplace(key, std::move(spectrum)).second) return;
    order_.push_back(key);
    bytes_ += bytes;
    while (bytes_ > kSpectrumCacheBytes) {
      const auto oldest = entries_.find(order_.front());
      bytes_ -= oldest->second->size() * sizeof(Complex);
      entries_.erase(oldest);
      order_.pop_front();
    }
  }

  SpectrumCacheStats stats() {
    const std::lock_guard<std::mutex> lock(mutex_);
    SpectrumCacheStats now = stats_;
    now.entries = entries_.size();
    now.bytes = bytes_;
    return now;
  }

 private:
  std::mutex mutex_;
  SpectrumCacheStats stats_;
  std::map<Key, std::shared_ptr<const std::vector<Complex>>> entries_;
  std::deque<Key> order_;
  std::size_t bytes_ = 0;
};

// Never destroyed: a plan may be made from an exit handler (the library stays loaded to the end).
SpectrumCache& spectrum_cache() {
  static SpectrumCache* const cache = new SpectrumCache;
  return *cache;
}

}  // namespace

std::vector<Complex> bluestein_spectrum(long long n, long long m, TableAccuracy accuracy) {
  const SpectrumCache::Key key{n, m, accuracy};
  if (const auto cached = spectrum_cache().find(key)) return *cached;
  auto spectrum = std::make_shared<const std::vector<Complex>>(
      accuracy == TableAccuracy::kExtended ? bluestein_spectrum_in<long double>(n, m)
                                           : bluestein_spectrum_in<double>(n, m));
  spectrum_cache().add(key, spectrum);
  return *spectrum;
}

SpectrumCacheStats bluestein_spectrum_cache_stats() { return spectrum_cache().stats(); }

std::vector<int> rader_logs(long long p, int g) {
  std::vector<int> logs(static_cast<std::size_t>(p), 0);
  unsigned long long power = 1;
  for (long long r = 0; r < p - 1; ++r) {
    logs[static_cast<std::size_t>(power)] = static_cast<int>(r);
    power = mul_mod(power, static_cast<unsigned long long>(g), static_cast<unsigned long long>(p));
  }
  return logs;
}

std::vector<Complex> rader_spectrum(long long p, int g, TableAccuracy accuracy) {
  return accuracy == TableAccuracy::kExtended ? rader_spectrum_in<long double>(p, g) : rader_spectrum_in<double>(p, g);
}

StepLayout step_layout(const FftPass& pass) {
  StepLayout layout;
  const long long stage_points = pass.convolution != ConvolutionStep::kNone ? pass.convolution_size : pass.size;
  layout.stage_count = static_cast<std::size_t>(stage_points - 1);
  layout.lo = layout.stage + layout.stage_count;
  if (pass.has_twiddle()) {
    const long long m = pass.span_before * pass.size;
    layout.lo_count = static_cast<std::size_t>(1) << pass.twiddle_lo_bits;
    layout.hi_count = static_cast<std::size_t>(((m - 1) >> pass.twiddle_lo_bits) + 1);
  }
  layout.hi = layout.lo + layout.lo_count;
  layout.chirp = layout.hi + layout.hi_count;
  if (pass.convolution == ConvolutionStep::kBluestein) layout.chirp_count = static_cast<std::size_t>(pass.size);
  if (pass.bluestein == BluesteinStep::kChirpLoad || pass.bluestein == BluesteinStep::kChirpStore) {
    layout.chirp_count = static_cast<std::size_t>(pass.chirp_length);
  }
  layout.spectrum = layout.chirp + layout.chirp_count;
  if (pass.convolution != ConvolutionStep::kNone)
    layout.spectrum_count = static_cast<std::size_t>(pass.convolution_size);
  if (pass.bluestein == BluesteinStep::kSpectrum) layout.spectrum_count = static_cast<std::size_t>(pass.transform_n);
  layout.real = layout.spectrum + layout.spectrum_count;
  if (pass.real_step == RealStep::kPackR2C || pass.real_step == RealStep::kUnpackC2R) {
    layout.real_count = static_cast<std::size_t>(pass.size);
  }
  layout.total = layout.real + layout.real_count;
  return layout;
}

StepTables step_tables(const FftPass& pass, TableAccuracy accuracy, bool multi_pass_steps) {
  StepTables tables;
  const StepLayout& layout = tables.layout = step_layout(pass);
  std::vector<Complex>& table = tables.values;
  const bool steps = pass.bluestein == BluesteinStep::kNone || multi_pass_steps;
  table.assign(steps ? layout.total : layout.chirp, Complex(0.0, 0.0));
  // fp64 plans (kExtended) take the nearest doubles (twiddle_nearest).
  const bool nearest = accuracy == TableAccuracy::kExtended;
  write_pass_twiddles(pass, layout.stage, layout.lo, layout.lo_count, layout.hi, layout.hi_count, &table, nearest);
  if (!steps) return tables;
  if (layout.chirp_count > 0) {
    const std::vector<Complex> chirp = chirp_table(static_cast<long long>(layout.chirp_count));
    std::copy(chirp.begin(), chirp.end(), table.begin() + static_cast<std::ptrdiff_t>(layout.chirp));
  }
  std::vector<Complex> spectrum;
  if (pass.convolution == ConvolutionStep::kRader) {
    spectrum = rader_spectrum(pass.size, pass.rader_generator, accuracy);
    tables.logs = rader_logs(pass.size, pass.rader_generator);
  } else if (pass.convolution == ConvolutionStep::kBluestein) {
    spectrum = bluestein_spectrum(pass.size, pass.convolution_size, accuracy);
  } else if (pass.bluestein == BluesteinStep::kSpectrum) {
    spectrum = bluestein_spectrum(pass.chirp_length, pass.transform_n, accuracy);
  }
  std::copy(spectrum.begin(), spectrum.end(), table.begin() + static_cast<std::ptrdiff_t>(layout.spectrum));
  for (std::size_t k = 0; k < layout.real_count; ++k) {
    const long long e = static_cast<long long>(k);
    table[layout.real + k] = nearest ? twiddle_nearest(e, 2 * pass.size, -1) : twiddle(e, 2 * pass.size, -1);
  }
  return tables;
}

}  // namespace idgpu::fft
