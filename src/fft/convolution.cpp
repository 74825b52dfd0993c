#include "fft/convolution.h"

#include <algorithm>

#include "fft/convolution_index.h"
#include "fft/stockham_index.h"
#include "fft/twiddle.h"

namespace idgpu::fft {
namespace {

using Complex = std::complex<double>;

// Decimation in time: x (n elements `stride` apart) = r interleaved sequences of m = n / r (r the
// smallest prime factor), whose DFTs Y_t combine as X[k + m q] = sum_t w_n^(t (k + m q)) Y_t[k].
// roots[e] = w_N^e of the top length N; here w_n^e = roots[e * root_step].
void decimate(const Complex* x, long long stride, long long n, Complex* out, const std::vector<Complex>& roots,
              long long root_step) {
  if (n == 1) {
    out[0] = x[0];
    return;
  }
  const long long r = smallest_prime_factor(n);
  const long long m = n / r;
  std::vector<Complex> parts(static_cast<std::size_t>(n));
  for (long long t = 0; t < r; ++t) decimate(x + t * stride, stride * r, m, parts.data() + t * m, roots, root_step * r);
  for (long long q = 0; q < r; ++q) {
    for (long long k = 0; k < m; ++k) {
      const long long bin = k + m * q;
      Complex sum = parts[static_cast<std::size_t>(k)];
      for (long long t = 1; t < r; ++t) {
        sum += roots[static_cast<std::size_t>((t * bin) % n * root_step)] * parts[static_cast<std::size_t>(t * m + k)];
      }
      out[bin] = sum;
    }
  }
}

}  // namespace

std::vector<Complex> smooth_dft(const std::vector<Complex>& x) {
  const auto n = static_cast<long long>(x.size());
  std::vector<Complex> out(x.size());
  if (n == 0) return out;
  std::vector<Complex> roots(x.size());
  for (long long e = 0; e < n; ++e) roots[static_cast<std::size_t>(e)] = twiddle(e, n, -1);
  decimate(x.data(), 1, n, out.data(), roots, 1);
  return out;
}

std::vector<Complex> chirp_table(long long n) {
  std::vector<Complex> chirp(static_cast<std::size_t>(n));
  for (long long k = 0; k < n; ++k) chirp[static_cast<std::size_t>(k)] = twiddle(chirp_exponent(k, n), 2 * n, -1);
  return chirp;
}

std::vector<Complex> bluestein_spectrum(long long n, long long m) {
  const std::vector<Complex> chirp = chirp_table(n);
  std::vector<Complex> kernel(static_cast<std::size_t>(m), Complex(0.0, 0.0));
  kernel[0] = std::conj(chirp[0]);
  for (long long k = 1; k < n; ++k) {
    kernel[static_cast<std::size_t>(k)] = std::conj(chirp[static_cast<std::size_t>(k)]);
    kernel[static_cast<std::size_t>(m - k)] = std::conj(chirp[static_cast<std::size_t>(k)]);
  }
  std::vector<Complex> spectrum = smooth_dft(kernel);
  for (Complex& value : spectrum) value /= static_cast<double>(m);
  return spectrum;
}

std::vector<int> rader_logs(long long p, int g) {
  std::vector<int> logs(static_cast<std::size_t>(p), 0);
  unsigned long long power = 1;
  for (long long r = 0; r < p - 1; ++r) {
    logs[static_cast<std::size_t>(power)] = static_cast<int>(r);
    power = mul_mod(power, static_cast<unsigned long long>(g), static_cast<unsigned long long>(p));
  }
  return logs;
}

std::vector<Complex> rader_spectrum(long long p, int g) {
  std::vector<Complex> kernel(static_cast<std::size_t>(p - 1));
  unsigned long long power = 1;
  for (long long r = 0; r < p - 1; ++r) {
    kernel[static_cast<std::size_t>(r)] = twiddle(static_cast<long long>(power), p, -1);
    power = mul_mod(power, static_cast<unsigned long long>(g), static_cast<unsigned long long>(p));
  }
  std::vector<Complex> spectrum = smooth_dft(kernel);
  for (Complex& value : spectrum) value /= static_cast<double>(p - 1);
  return spectrum;
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
  layout.total = layout.spectrum + layout.spectrum_count;
  return layout;
}

StepTables step_tables(const FftPass& pass) {
  StepTables tables;
  const StepLayout& layout = tables.layout = step_layout(pass);
  std::vector<Complex>& table = tables.values;
  table.assign(layout.total, Complex(0.0, 0.0));
  write_pass_twiddles(pass, layout.stage, layout.lo, layout.lo_count, layout.hi, layout.hi_count, &table);
  if (layout.chirp_count > 0) {
    const std::vector<Complex> chirp = chirp_table(static_cast<long long>(layout.chirp_count));
    std::copy(chirp.begin(), chirp.end(), table.begin() + static_cast<std::ptrdiff_t>(layout.chirp));
  }
  std::vector<Complex> spectrum;
  if (pass.convolution == ConvolutionStep::kRader) {
    spectrum = rader_spectrum(pass.size, pass.rader_generator);
    tables.logs = rader_logs(pass.size, pass.rader_generator);
  } else if (pass.convolution == ConvolutionStep::kBluestein) {
    spectrum = bluestein_spectrum(pass.size, pass.convolution_size);
  } else if (pass.bluestein == BluesteinStep::kSpectrum) {
    spectrum = bluestein_spectrum(pass.chirp_length, pass.transform_n);
  }
  std::copy(spectrum.begin(), spectrum.end(), table.begin() + static_cast<std::ptrdiff_t>(layout.spectrum));
  return tables;
}

}  // namespace idgpu::fft
