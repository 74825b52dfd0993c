// idgpu-fft-cache: compiles the run-time FFT kernels (fft/runtime_kernels.h) that the plans of
// the given lengths need into the kernel cache ahead of time, in parallel, so that no plan of an
// application waits for them or is served by the vendor while they compile. Plans as a device
// of sm_<arch> (the current GPU's limits where there is one, an H100's otherwise); needs NVRTC,
// not a GPU.
//
//   idgpu-fft-cache [--arch 90] [--threads N] [--precision f32|f64|both] [--real] [--sweep MAX] [N ...]
//
// --sweep MAX adds every length 2..MAX whose prime factors are at most 13; --real also plans the
// R2C transforms of the lengths (their half's passes). Prints what it compiled and where. Exits 0,
// 1 where a compile failed, 2 on a bad command line, 77 (nothing done) with no GPU and no --arch
// or no NVRTC.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/config.h"
#include "core/device.h"
#include "fft/planner.h"
#include "fft/runtime_kernels.h"

namespace {

using idgpu::fft::DeviceLimits;
using idgpu::fft::FftPlanResult;
using idgpu::fft::RuntimeSequence;

int usage(const char* message) {
  std::fprintf(stderr,
               "idgpu-fft-cache: %s\n"
               "usage: idgpu-fft-cache [--arch SM] [--threads N] [--precision f32|f64|both] [--real] [--sweep MAX] "
               "[LENGTH ...]\n",
               message);
  return 2;
}

bool parse_int(const char* text, long long low, long long high, long long* value) {
  char* end = nullptr;
  const long long parsed = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || parsed < low || parsed > high) return false;
  *value = parsed;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long long arch = 0, threads = std::max(1u, std::thread::hardware_concurrency());
  bool single = true, dbl = true, real = false;
  std::vector<long long> lengths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    long long value = 0;
    if (arg == "--arch" && has_value) {
      if (!parse_int(argv[++i], 50, 1000, &arch)) return usage("--arch takes an SM number such as 90");
    } else if (arg == "--threads" && has_value) {
      if (!parse_int(argv[++i], 1, 1024, &threads)) return usage("--threads takes 1..1024");
    } else if (arg == "--precision" && has_value) {
      const std::string p = argv[++i];
      if (p != "f32" && p != "f64" && p != "both") return usage("--precision takes f32, f64 or both");
      single = p != "f64";
      dbl = p != "f32";
    } else if (arg == "--real") {
      real = true;
    } else if (arg == "--sweep" && has_value) {
      if (!parse_int(argv[++i], 2, 1LL << 24, &value)) return usage("--sweep takes 2..2^24");
      for (long long n = 2; n <= value; ++n) {
        if (idgpu::fft::smooth13(n)) lengths.push_back(n);
      }
    } else if (parse_int(argv[i], 2, 1LL << 31, &value)) {
      lengths.push_back(value);
    } else {
      return usage(("unknown argument " + arg).c_str());
    }
  }
  if (lengths.empty()) return usage("no lengths");
  DeviceLimits limits = DeviceLimits::h100();
  if (arch == 0) {
    arch = idgpu::current_device_arch();
    if (arch == 0) {
      // The conventional "skipped" status: nothing to plan for.
      std::fprintf(stderr, "idgpu-fft-cache: no GPU here; give --arch to compile for one\n");
      return 77;
    }
    idgpu::current_device_block_limits(&limits.shared_bytes_per_block, &limits.max_threads_per_block,
                                       &limits.multiprocessors);
  }
  std::string why;
  if (!idgpu::fft::runtime_compiler_available(&why)) {
    std::fprintf(stderr, "idgpu-fft-cache: NVRTC is not available: %s\n", why.c_str());
    return 77;
  }
  limits.runtime_sequences = true;
  limits.convolution_powers_of_two = true;
  std::set<RuntimeSequence> wanted;
  const auto add = [&](const FftPlanResult& planned) {
    if (!planned.plan) return;
    for (const RuntimeSequence& sequence : idgpu::fft::runtime_sequences_of(*planned.plan)) wanted.insert(sequence);
  };
  for (long long n : lengths) {
    for (const idgpu::fft::Precision precision : {idgpu::fft::Precision::kSingle, idgpu::fft::Precision::kDouble}) {
      if (precision == idgpu::fft::Precision::kSingle ? !single : !dbl) continue;
      // Every layout of a length: the thread or wide layout where it takes one, and the rows'
      // that the other plans of that length (and IDGPU_FFT_THREAD_TRANSFORMS=0,
      // IDGPU_FFT_WIDE_ELEMENTS=0) take.
      for (const int thread_transforms : {idgpu::config().fft_thread_transforms, 0}) {
        for (const int wide_elements : {idgpu::config().fft_wide_elements, 0}) {
          limits.thread_transforms = thread_transforms;
          limits.wide_elements = wide_elements;
          add(idgpu::fft::plan_c2c_any(n, 1, precision, limits));
        }
      }
      limits.thread_transforms = 0;
      limits.wide_elements = 0;
      if (real) add(idgpu::fft::plan_real_1d(idgpu::fft::Kind::kR2C, n, 1, precision, limits));
    }
  }
  const std::vector<RuntimeSequence> sequences(wanted.begin(), wanted.end());
  const std::string directory = idgpu::fft::runtime_cache_directory();
  if (directory.empty()) return usage("no cache directory: set IDGPU_CACHE_DIR, XDG_CACHE_HOME or HOME");
  std::vector<std::string> failures;
  const int compiled =
      idgpu::fft::compile_runtime_sequences(sequences, static_cast<int>(arch), static_cast<int>(threads), &failures);
  std::printf("idgpu-fft-cache: %zu lengths, %zu run-time sequences for sm_%lld: %d compiled, %zu cached before, "
              "%zu failed; cache %s\n",
              lengths.size(), sequences.size(), arch, compiled,
              sequences.size() - static_cast<std::size_t>(compiled) - failures.size(), failures.size(),
              directory.c_str());
  for (const std::string& failure : failures) std::fprintf(stderr, "  failed: %s\n", failure.c_str());
  return failures.empty() ? 0 : 1;
}
