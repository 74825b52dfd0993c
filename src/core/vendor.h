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
  // soname: e.g. "libcufft.so.12"; probe: a symbol every genuine copy exports.
  Library(const char* soname, const char* probe_symbol, std::string override_path, const char* override_variable);

  // Finds and loads the library once; false when no usable copy exists (the log says where it
  // looked). Thread-safe.
  bool load();
  void* symbol(const char* name) const;

  const char* soname() const { return soname_; }
  const std::string& path() const { return path_; }
  const std::vector<std::string>& tried() const { return tried_; }

 private:
  bool try_path(const std::string& candidate);
  bool try_loaded_instance();
  void resolve();

  const char* soname_;
  const char* probe_symbol_;
  std::string override_path_;
  const char* override_variable_;
  std::once_flag once_;
  void* handle_ = nullptr;
  std::string path_;
  std::vector<std::string> tried_;
};

Library& cufft_library();
Library& cusparse_library();

// Function tables, filled from the loaded library. An entry the library lacks points to a stand-in
// that returns the vendor's "not supported" status: no entry is ever null.
struct CufftTable {
#define IDGPU_CUFFT(KIND, name, params, args) cufftResult(*name) params = nullptr;
#include "cufft_api.def"
#undef IDGPU_CUFFT
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

// True for a loaded object that is one of our stand-in libraries.
bool is_idgpu_stub(const void* address_inside_object);

}  // namespace idgpu::vendor
