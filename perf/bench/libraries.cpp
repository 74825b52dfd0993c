#include "libraries.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <initializer_list>

namespace idgpu_bench {
namespace {

std::string real_path(const std::string& path) {
  char resolved[PATH_MAX];
  if (!path.empty() && ::realpath(path.c_str(), resolved) != nullptr) return resolved;
  return path;
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string loaded_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return real_path(map->l_name);
  }
  return real_path(fallback);
}

// dlopen with RTLD_LOCAL: nothing the benchmark opens may satisfy another library's symbols,
// so each side is exactly what its handle resolves.
bool try_open(const std::string& candidate, LoadedLibrary* library, std::string* tried) {
  dlerror();
  void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    *tried += "\n    " + candidate + ": " + (error != nullptr ? error : "dlopen failed");
    return false;
  }
  library->handle = handle;
  library->path = loaded_path(handle, candidate);
  return true;
}

template <class Table>
void resolve(void* handle, const char* name, Table* table, void** slot) {
  dlerror();
  *slot = handle != nullptr ? dlsym(handle, name) : nullptr;
  if (*slot == nullptr) table->missing.emplace_back(name);
}

#define IDGPU_BENCH_RESOLVE_(name) \
  resolve(handle, #name, table, reinterpret_cast<void**>(&table->name));

void fill(void* handle, CufftApi* table) { IDGPU_BENCH_CUFFT_FUNCTIONS(IDGPU_BENCH_RESOLVE_) }
void fill(void* handle, GtsvApi* table) { IDGPU_BENCH_GTSV_FUNCTIONS(IDGPU_BENCH_RESOLVE_) }
void fill(void* handle, VendorSparseApi* table) { IDGPU_BENCH_VENDOR_SPARSE_FUNCTIONS(IDGPU_BENCH_RESOLVE_) }
void fill(void* handle, IdgpuApi* table) { IDGPU_BENCH_IDGPU_FUNCTIONS(IDGPU_BENCH_RESOLVE_) }

#undef IDGPU_BENCH_RESOLVE_

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// Where libidgpu says it forwards `library`, compared with the instance the benchmark opened.
std::string check_same_instance(const IdgpuApi& api, idgpuVendorLibrary_t library, const LoadedLibrary& ours,
                                const char* what) {
  if (api.idgpuGetVendorLibraryPath == nullptr) return "libidgpu lacks idgpuGetVendorLibraryPath";
  const char* theirs = api.idgpuGetVendorLibraryPath(library);
  if (theirs == nullptr) return std::string("libidgpu found no vendor ") + what;
  if (real_path(theirs) != real_path(ours.path)) {
    return std::string("libidgpu forwards ") + what + " to " + real_path(theirs) + ", the benchmark opened " +
           ours.path + " (IDGPU_VENDOR_* set?)";
  }
  return {};
}

}  // namespace

std::string object_path_of(const void* address) {
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return {};
  return real_path(info.dli_fname);
}

LoadedLibrary open_vendor_library(const char* soname, const std::string& override_path) {
  LoadedLibrary library;
  std::string tried;
  if (!override_path.empty()) {
    if (!try_open(override_path, &library, &tried)) library.error = "cannot open" + tried;
    return library;
  }
  std::vector<std::string> candidates = {soname};
#ifdef IDGPU_BENCH_TOOLKIT_LIBDIR
  candidates.push_back(std::string(IDGPU_BENCH_TOOLKIT_LIBDIR) + "/" + soname);
#endif
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(variable);
    if (root == nullptr || *root == '\0') continue;
    candidates.push_back(std::string(root) + "/lib64/" + soname);
    candidates.push_back(std::string(root) + "/lib/" + soname);
  }
  candidates.push_back(std::string("/usr/local/cuda/lib64/") + soname);
  candidates.push_back(std::string("/usr/local/cuda/lib/") + soname);
  for (const std::string& candidate : candidates) {
    if (try_open(candidate, &library, &tried)) return library;
  }
  library.error = std::string("cannot open ") + soname + "; tried:" + tried;
  return library;
}

LoadedLibrary open_idgpu_library(const std::string& override_path) {
  LoadedLibrary library;
  std::string tried;
  if (!override_path.empty()) {
    if (!try_open(override_path, &library, &tried)) library.error = "cannot open" + tried;
    return library;
  }
  char exe[PATH_MAX] = {};
  const ssize_t length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (length <= 0) {
    library.error = "cannot read /proc/self/exe; pass --lib PATH";
    return library;
  }
  const std::string bin = directory_of(std::string(exe, static_cast<std::size_t>(length)));
  // The build tree first (bin/ beside lib/), then an installed layout.
  for (const char* relative : {IDGPU_BENCH_LIB_FROM_BIN, IDGPU_BENCH_LIB_INSTALLED_FROM_BIN}) {
    if (try_open(bin + "/" + relative, &library, &tried)) return library;
  }
  library.error = "cannot find libidgpu next to the benchmark (pass --lib PATH); tried:" + tried;
  return library;
}

bool load_libraries(const std::string& cufft_override, const std::string& cusparse_override,
                    const std::string& idgpu_override, Libraries* libraries, std::string* error) {
  // The vendor libraries first, so that libidgpu finds them already loaded and forwards to them.
  libraries->vendor_cufft = open_vendor_library(IDGPU_BENCH_CUFFT_SONAME, cufft_override);
  libraries->vendor_cusparse = open_vendor_library(IDGPU_BENCH_CUSPARSE_SONAME, cusparse_override);
  libraries->idgpu = open_idgpu_library(idgpu_override);
  if (libraries->idgpu.handle == nullptr) {
    *error = libraries->idgpu.error;
    return false;
  }
  void* const idgpu = libraries->idgpu.handle;
  fill(idgpu, &libraries->idgpu_api);
  fill(idgpu, &libraries->cufft[1]);
  fill(idgpu, &libraries->gtsv[1]);

  // A vendor symbol that resolves into libidgpu or a stand-in means the process was started
  // under idgpu-run: then both sides would be idgpu.
  auto is_idgpu_object = [&](const void* address) {
    const std::string path = object_path_of(address);
    return path == libraries->idgpu.path || path.find("/idgpu-stubs/") != std::string::npos;
  };

  if (libraries->vendor_cufft.handle == nullptr) {
    libraries->fft_unavailable = libraries->vendor_cufft.error;
  } else {
    fill(libraries->vendor_cufft.handle, &libraries->cufft[0]);
    if (!libraries->cufft[0].missing.empty()) {
      libraries->fft_unavailable = "the vendor cuFFT lacks " + join(libraries->cufft[0].missing);
    } else if (is_idgpu_object(reinterpret_cast<const void*>(libraries->cufft[0].cufftPlanMany))) {
      libraries->fft_unavailable = "the vendor cuFFT resolved to idgpu (do not run the benchmark under idgpu-run)";
    } else if (!libraries->cufft[1].missing.empty()) {
      libraries->fft_unavailable = "libidgpu lacks " + join(libraries->cufft[1].missing);
    } else {
      // Plans are per side, so a different instance still runs; it just is not the same code.
      libraries->fft_warning =
          check_same_instance(libraries->idgpu_api, IDGPU_VENDOR_CUFFT, libraries->vendor_cufft, "cuFFT");
    }
  }

  // The Poisson cases: the vendor cuFFT (above) and libidgpu's solver.
  std::vector<std::string> poisson_missing;
  for (const std::string& name : libraries->idgpu_api.missing) {
    if (name.rfind("idgpuPoisson", 0) == 0) poisson_missing.push_back(name);
  }
  if (!libraries->fft_unavailable.empty()) {
    libraries->poisson_unavailable = libraries->fft_unavailable;
  } else if (!poisson_missing.empty()) {
    libraries->poisson_unavailable = "libidgpu lacks " + join(poisson_missing);
  }

  // The out-of-core cases: libidgpu's idgpuOoc* alone, each kind its own list (libraries.h).
  auto lacking = [&](std::initializer_list<const char*> names) {
    std::vector<std::string> missing;
    for (const char* name : names) {
      for (const std::string& absent : libraries->idgpu_api.missing) {
        if (absent == name) missing.push_back(absent);
      }
    }
    return missing.empty() ? std::string() : "libidgpu lacks " + join(missing);
  };
#define IDGPU_BENCH_NAME_(name) #name,
  libraries->ooc_fft_unavailable = lacking({IDGPU_BENCH_IDGPU_OOC_FFT_FUNCTIONS(IDGPU_BENCH_NAME_)});
  libraries->ooc_real_unavailable = lacking(
      {IDGPU_BENCH_IDGPU_OOC_FFT_FUNCTIONS(IDGPU_BENCH_NAME_) IDGPU_BENCH_IDGPU_OOC_REAL_FUNCTIONS(IDGPU_BENCH_NAME_)});
  libraries->ooc_poisson_unavailable = lacking({IDGPU_BENCH_IDGPU_OOC_POISSON_FUNCTIONS(IDGPU_BENCH_NAME_)});
#undef IDGPU_BENCH_NAME_

  if (libraries->vendor_cusparse.handle == nullptr) {
    libraries->gtsv_unavailable = libraries->vendor_cusparse.error;
  } else {
    fill(libraries->vendor_cusparse.handle, &libraries->gtsv[0]);
    fill(libraries->vendor_cusparse.handle, &libraries->vendor_sparse);
    if (!libraries->gtsv[0].missing.empty() || !libraries->vendor_sparse.missing.empty()) {
      std::vector<std::string> missing = libraries->gtsv[0].missing;
      missing.insert(missing.end(), libraries->vendor_sparse.missing.begin(), libraries->vendor_sparse.missing.end());
      libraries->gtsv_unavailable = "the vendor cuSPARSE lacks " + join(missing);
    } else if (is_idgpu_object(reinterpret_cast<const void*>(libraries->gtsv[0].cusparseSgtsv2StridedBatch))) {
      libraries->gtsv_unavailable = "the vendor cuSPARSE resolved to idgpu (do not run the benchmark under idgpu-run)";
    } else if (!libraries->gtsv[1].missing.empty()) {
      libraries->gtsv_unavailable = "libidgpu lacks " + join(libraries->gtsv[1].missing);
    } else {
      // The shared handle is only valid on the idgpu side when it forwards to this instance.
      libraries->gtsv_unavailable = check_same_instance(libraries->idgpu_api, IDGPU_VENDOR_CUSPARSE,
                                                        libraries->vendor_cusparse, "cuSPARSE");
    }
  }
  return true;
}

}  // namespace idgpu_bench
