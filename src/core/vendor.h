// The real vendor libraries: found once, loaded once, looked up by name.
//
// "One vendor instance": a vendor library the process has already loaded (linked by the
// application, or opened by a framework with RTLD_LOCAL) is found among the loaded objects by its
// SONAME and reused, so handles and streams the application made stay valid. Only when none is
// loaded is one searched for and opened. Our own stand-in libraries (which carry the vendor's
// SONAME for programs that dlopen it) are recognised by an ELF note and never taken for the
// vendor.
#pragma once

#include <cufft.h>
#include <cufftXt.h>
#include <cusparse.h>

#include <mutex>
#include <string>
#include <vector>

#include "vendor_config.h"

// Prototypes the vendor exports without declaring them (see shim/cufft_api.def).
extern "C" {
cufftResult cufftXtMakePlanGuru64(cufftHandle plan, unsigned long long a1, unsigned long long a2,
                                  unsigned long long a3, unsigned long long a4, unsigned long long a5,
                                  unsigned long long a6, unsigned long long a7, unsigned long long a8,
                                  unsigned long long a9);
cufftResult cufftDebug(unsigned long long a0, unsigned long long a1, unsigned long long a2, unsigned long long a3,
                       unsigned long long a4, unsigned long long a5);
}

namespace idgpu::vendor {

class Library {
 public:
  // sonames: the names the library goes by, e.g. {"libcufft.so.12", "libcufft.so.11"} (one per
  // vendor release idgpu serves); probe: a symbol every genuine copy exports. preferred: which of
  // them the process's callers were built against, asked once when the library is first needed
  // (null: the first).
  Library(std::vector<std::string> sonames, const char* probe_symbol, std::string override_path,
          const char* override_variable, const char* (*preferred)() = nullptr);
  // Finds and loads the library once; false when no usable copy exists (the log says where it
  // looked). Thread-safe.
  bool load();
  void* symbol(const char* name) const;
  // The SONAME of the copy loaded (before load(), or when none was found: the preferred one).
  const char* soname() const;
  // Whether `soname` is one of the names this library goes by.
  bool answers_to(const char* soname) const;
  const std::string& path() const { return path_; }
  const std::vector<std::string>& tried() const { return tried_; }

 private:
  bool try_path(const std::string& candidate, const std::string& soname);
  bool try_loaded_instance(const std::vector<std::string>& order);
  void resolve();

  std::vector<std::string> sonames_;
  const char* probe_symbol_;
  std::string override_path_;
  const char* override_variable_;
  const char* (*preferred_)();
  std::once_flag once_;
  void* handle_ = nullptr;
  std::string soname_;  // of the loaded copy
  std::string path_;
  std::vector<std::string> tried_;
};

// The cuFFT release the process's callers were built against, as the SONAME they link
// ("libcufft.so.12" for CUDA 13, "libcufft.so.11" for CUDA 12): the first call through an entry
// point of that release's symbol-version node records it, before the vendor library is looked
// for, so that the one loaded is the release whose ABI the callers use.
void note_cufft_client(const char* soname);
const char* cufft_client_soname();

Library& cufft_library();
Library& cusparse_library();

// Function tables, filled from the loaded library. An entry the library lacks points to a stand-in
// that returns the vendor's "not supported" status: no entry is ever null.
struct CufftTable {
#define IDGPU_CUFFT(KIND, name, params, args) cufftResult(*name) params = nullptr;
#include "cufft_api.def"
#undef IDGPU_CUFFT
  // cuFFT 11's own cufftXtSetJITCallback, whose ABI predates the symbol-name argument (the
  // function of the same use is __cufftXtSetJITCallback_12_7 there); null for cuFFT 12.
  cufftResult (*legacy_cufftXtSetJITCallback)(cufftHandle plan, const void* lto_callback_fatbin,
                                              std::size_t lto_callback_fatbin_size, cufftXtCallbackType type,
                                              void** caller_info) = nullptr;
};

struct CusparseTable {
#define IDGPU_GTSV_SHAPE_(P, T, shape, family, params, args) cusparseStatus_t(*cusparse##P##shape) params = nullptr;
#define IDGPU_GTSV_PRECISION_(P, T) IDGPU_GTSV_SHAPES(IDGPU_GTSV_SHAPE_, P, T)
#include "gtsv_api.def"
  IDGPU_GTSV_PRECISIONS(IDGPU_GTSV_PRECISION_)
#undef IDGPU_GTSV_PRECISION_
#undef IDGPU_GTSV_SHAPE_
  // Used internally (the stream a cuSPARSE call runs on, for timing), never exported by us.
  cusparseStatus_t (*cusparseGetStream)(cusparseHandle_t handle, cudaStream_t* stream) = nullptr;
};

// nullptr when the vendor library cannot be found.
const CufftTable* cufft();
const CusparseTable* cusparse();

// Vendor libraries the process loaded that idgpu does not serve (another release of cuFFT or
// cuSPARSE than those it exports the symbol-version nodes of, e.g. libcufft.so.10 of CUDA 11):
// their callers' calls never reach idgpu. "soname (path)" each.
std::vector<std::string> unserved_vendor_libraries();

// True for a loaded object that is one of our stand-in libraries.
bool is_idgpu_stub(const void* address_inside_object);

}  // namespace idgpu::vendor
