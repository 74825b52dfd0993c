#include "core/vendor.h"

#include <dlfcn.h>
#include <elf.h>
#include <glob.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/config.h"
#include "core/log.h"

namespace idgpu::vendor {
namespace {

// The ELF note every idgpu stand-in library carries (see shim/stub/stub_trampolines.S.in).
constexpr char kStubNoteName[] = "idgpu";
constexpr ElfW(Word) kStubNoteType = 0x1d6a;

struct LoadedObject {
  std::string path;
  std::string soname;
  bool is_stub = false;
  ElfW(Addr) base = 0;
  const ElfW(Phdr)* phdr = nullptr;
  ElfW(Half) phnum = 0;
};

bool has_stub_note(const dl_phdr_info* info) {
  for (ElfW(Half) index = 0; index < info->dlpi_phnum; ++index) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[index];
    if (segment.p_type != PT_NOTE) continue;
    const auto* cursor = reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
    const unsigned char* end = cursor + segment.p_memsz;
    while (cursor + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(cursor);
      const auto* name = reinterpret_cast<const char*>(cursor + sizeof(ElfW(Nhdr)));
      const std::size_t name_size = (note->n_namesz + 3u) & ~3u;
      const std::size_t desc_size = (note->n_descsz + 3u) & ~3u;
      if (note->n_type == kStubNoteType && note->n_namesz == sizeof(kStubNoteName) &&
          std::memcmp(name, kStubNoteName, sizeof(kStubNoteName)) == 0) {
        return true;
      }
      cursor += sizeof(ElfW(Nhdr)) + name_size + desc_size;
    }
  }
  return false;
}

std::string soname_of(const dl_phdr_info* info) {
  for (ElfW(Half) index = 0; index < info->dlpi_phnum; ++index) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[index];
    if (segment.p_type != PT_DYNAMIC) continue;
    const auto* dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + segment.p_vaddr);
    ElfW(Addr) strtab = 0;
    ElfW(Addr) soname_offset = 0;
    bool has_soname = false;
    for (const ElfW(Dyn)* entry = dynamic; entry->d_tag != DT_NULL; ++entry) {
      if (entry->d_tag == DT_STRTAB) strtab = entry->d_un.d_ptr;
      if (entry->d_tag == DT_SONAME) {
        soname_offset = entry->d_un.d_val;
        has_soname = true;
      }
    }
    if (!has_soname || strtab == 0) return {};
    // The loader relocates DT_STRTAB in place on most targets; where it does not, add the base.
    if (strtab < info->dlpi_addr) strtab += info->dlpi_addr;
    return reinterpret_cast<const char*>(strtab + soname_offset);
  }
  return {};
}

std::vector<LoadedObject> loaded_objects() {
  std::vector<LoadedObject> objects;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* context) -> int {
        auto* list = static_cast<std::vector<LoadedObject>*>(context);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        LoadedObject object;
        object.path = info->dlpi_name;
        object.soname = soname_of(info);
        object.is_stub = has_stub_note(info);
        object.base = info->dlpi_addr;
        object.phdr = info->dlpi_phdr;
        object.phnum = info->dlpi_phnum;
        list->push_back(std::move(object));
        return 0;
      },
      &objects);
  return objects;
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

bool file_exists(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  for (const std::string& existing : list) {
    if (existing == value) return;
  }
  list.push_back(value);
}

}  // namespace

bool is_idgpu_stub(const void* address_inside_object) {
  struct Query {
    ElfW(Addr) address;
    bool found;
    bool is_stub;
  } query{reinterpret_cast<ElfW(Addr)>(address_inside_object), false, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* context) -> int {
        auto* q = static_cast<Query*>(context);
        for (ElfW(Half) index = 0; index < info->dlpi_phnum; ++index) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[index];
          if (segment.p_type != PT_LOAD) continue;
          const ElfW(Addr) begin = info->dlpi_addr + segment.p_vaddr;
          if (q->address >= begin && q->address < begin + segment.p_memsz) {
            q->found = true;
            q->is_stub = has_stub_note(info);
            return 1;
          }
        }
        return 0;
      },
      &query);
  return query.found && query.is_stub;
}

Library::Library(std::vector<std::string> sonames, const char* probe_symbol, std::string override_path,
                 const char* override_variable, const char* (*preferred)())
    : sonames_(std::move(sonames)),
      probe_symbol_(probe_symbol),
      override_path_(std::move(override_path)),
      override_variable_(override_variable),
      preferred_(preferred) {}

bool Library::load() {
  std::call_once(once_, [this] { resolve(); });
  return handle_ != nullptr;
}

void* Library::symbol(const char* name) const { return handle_ != nullptr ? dlsym(handle_, name) : nullptr; }

const char* Library::soname() const {
  if (!soname_.empty()) return soname_.c_str();
  const char* wanted = preferred_ != nullptr ? preferred_() : nullptr;
  return wanted != nullptr && answers_to(wanted) ? wanted : sonames_.front().c_str();
}

bool Library::answers_to(const char* soname) const {
  for (const std::string& name : sonames_) {
    if (name == soname) return true;
  }
  return false;
}

bool Library::try_path(const std::string& candidate, const std::string& soname) {
  if (!file_exists(candidate)) {
    tried_.push_back(candidate + " (not found)");
    return false;
  }
  void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    tried_.push_back(candidate + " (" + (error != nullptr ? error : "dlopen failed") + ")");
    return false;
  }
  void* probe = dlsym(handle, probe_symbol_);
  if (probe == nullptr || is_idgpu_stub(probe)) {
    tried_.push_back(candidate + (probe == nullptr ? " (no " + std::string(probe_symbol_) + ")" : " (an idgpu stand-in)"));
    dlclose(handle);
    return false;
  }
  // An override may name any file: its own SONAME says which release it is.
  std::string loaded_soname = soname;
  for (const LoadedObject& object : loaded_objects()) {
    if (!object.is_stub && object.path == candidate && answers_to(object.soname.c_str())) loaded_soname = object.soname;
  }
  handle_ = handle;
  path_ = candidate;
  soname_ = loaded_soname;
  tried_.push_back(candidate + " (loaded)");
  return true;
}

bool Library::try_loaded_instance(const std::vector<std::string>& order) {
  const std::vector<LoadedObject> objects = loaded_objects();
  for (const std::string& soname : order) {
    for (const LoadedObject& object : objects) {
      if (object.is_stub || object.soname != soname) continue;
      void* handle = dlopen(object.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
      if (handle == nullptr) continue;
      void* probe = dlsym(handle, probe_symbol_);
      if (probe == nullptr || is_idgpu_stub(probe)) {
        dlclose(handle);
        continue;
      }
      handle_ = handle;
      path_ = object.path;
      soname_ = soname;
      tried_.push_back(object.path + " (already loaded by the process)");
      return true;
    }
    tried_.push_back("no " + soname + " loaded by the process");
  }
  return false;
}

void Library::resolve() {
  // The release the callers were built against first, then the others (newest first).
  std::vector<std::string> order;
  if (const char* wanted = preferred_ != nullptr ? preferred_() : nullptr; wanted != nullptr && answers_to(wanted)) {
    order.push_back(wanted);
  }
  for (const std::string& soname : sonames_) add_unique(order, soname);
  const std::string& first = order.front();

  if (!override_path_.empty()) {
    if (!try_path(override_path_, first)) {
      log::vendor().error("{}={} could not be used: {}", override_variable_, override_path_, tried_.back());
    } else {
      log::vendor().info("{} from {} ({})", soname_, path_, override_variable_);
    }
    return;
  }
  // One vendor instance: a copy the process already loaded wins, whichever release it is.
  if (try_loaded_instance(order)) {
    log::vendor().info("{}: using the instance the process already loaded, {}", soname_, path_);
    if (soname_ != first) {
      log::vendor().warn("the callers were built against {} but the process loaded {}: calls go to that one",
                         first, soname_);
    }
    return;
  }

  std::vector<std::string> directories;
  std::vector<std::string> stand_ins;
  // Next to the CUDA libraries the process already uses (pip wheels keep them together).
  for (const LoadedObject& object : loaded_objects()) {
    if (object.is_stub) {
      stand_ins.push_back(object.soname);
      continue;
    }
    const auto slash = object.path.rfind('/');
    const std::string base = slash == std::string::npos ? object.path : object.path.substr(slash + 1);
    if (base.rfind("libcu", 0) == 0 || base.rfind("libnv", 0) == 0) add_unique(directories, directory_of(object.path));
  }
  // A Python environment's CUDA wheels, relative to the running interpreter: CUDA 13 wheels keep
  // every library in nvidia/cu13/lib, CUDA 12 wheels one per package (nvidia/cufft/lib, ...).
  char exe[4096] = {};
  const ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (exe_length > 0) {
    const std::string pattern = directory_of(directory_of(std::string(exe, static_cast<std::size_t>(exe_length)))) +
                                "/lib/python3*/site-packages/nvidia/*/lib";
    glob_t matches{};
    if (glob(pattern.c_str(), GLOB_ONLYDIR, nullptr, &matches) == 0) {
      for (std::size_t index = 0; index < matches.gl_pathc; ++index) add_unique(directories, matches.gl_pathv[index]);
    }
    globfree(&matches);
  }
  // LD_LIBRARY_PATH first, as the dynamic linker searches it, then the toolkit's homes.
  if (const char* search = std::getenv("LD_LIBRARY_PATH"); search != nullptr) {
    std::string list = search;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = list.find(':', start);
      const std::string entry = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!entry.empty()) add_unique(directories, entry);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* root = std::getenv(variable); root != nullptr && *root != '\0') {
      add_unique(directories, std::string(root) + "/lib64");
    }
  }
  add_unique(directories, "/usr/local/cuda/lib64");
  for (const std::string& soname : order) {
    bool found = false;
    for (const std::string& directory : directories) {
      if (try_path(directory + "/" + soname, soname)) {
        found = true;
        break;
      }
    }
    // The system's own search (linker cache), unless a stand-in already answers to that name.
    bool stand_in_loaded = false;
    for (const std::string& name : stand_ins) stand_in_loaded = stand_in_loaded || name == soname;
    if (!found && !stand_in_loaded) {
      void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
      void* probe = handle != nullptr ? dlsym(handle, probe_symbol_) : nullptr;
      if (probe != nullptr && !is_idgpu_stub(probe)) {
        handle_ = handle;
        path_ = soname;
        soname_ = soname;
        tried_.push_back(soname + " (system search)");
        found = true;
      } else {
        if (handle != nullptr) dlclose(handle);
        tried_.push_back(soname + " (system search: not found)");
      }
    }
    if (found) {
      log::vendor().info("{} loaded from {}", soname_, path_);
      if (soname_ != first) {
        log::vendor().warn("the callers were built against {}, which was not found: calls go to {}", first, path_);
      }
      return;
    }
  }
  std::string all;
  for (const std::string& attempt : tried_) all += "\n    " + attempt;
  log::vendor().error("the vendor library {} was not found (set {} to its path); tried:{}", first, override_variable_,
                      all);
}

std::vector<std::string> unserved_vendor_libraries() {
  // The releases served, from the build (not from the Library objects: this runs at exit, in
  // processes that may never have used idgpu).
  static const char* const kServed[] = {IDGPU_VENDOR_CUFFT_SONAMES, IDGPU_VENDOR_CUSPARSE_SONAME};
  std::vector<std::string> unserved;
  for (const LoadedObject& object : loaded_objects()) {
    if (object.is_stub) continue;
    if (object.soname.rfind("libcufft.so.", 0) != 0 && object.soname.rfind("libcusparse.so.", 0) != 0) continue;
    bool served = false;
    for (const char* soname : kServed) served = served || object.soname == soname;
    if (!served) unserved.push_back(object.soname + " (" + object.path + ")");
  }
  return unserved;
}

namespace {
std::atomic<const char*> g_cufft_client{nullptr};
}  // namespace

void note_cufft_client(const char* soname) {
  const char* unset = nullptr;
  g_cufft_client.compare_exchange_strong(unset, soname, std::memory_order_relaxed);
}

const char* cufft_client_soname() { return g_cufft_client.load(std::memory_order_relaxed); }

// What a table entry points to when the loaded library lacks that function (an older or newer
// vendor release than the toolkit idgpu was built with): the call fails with the vendor's
// "not supported" status instead of jumping through a null pointer.
namespace missing {
#define IDGPU_CUFFT(KIND, name, params, args) \
  cufftResult name params { return CUFFT_NOT_SUPPORTED; }
#include "cufft_api.def"
#undef IDGPU_CUFFT
#define IDGPU_GTSV_SHAPE_(P, T, shape, family, params, args) \
  cusparseStatus_t cusparse##P##shape params { return CUSPARSE_STATUS_NOT_SUPPORTED; }
#define IDGPU_GTSV_PRECISION_(P, T) IDGPU_GTSV_SHAPES(IDGPU_GTSV_SHAPE_, P, T)
IDGPU_GTSV_PRECISIONS(IDGPU_GTSV_PRECISION_)
#undef IDGPU_GTSV_PRECISION_
#undef IDGPU_GTSV_SHAPE_
cusparseStatus_t cusparseGetStream(cusparseHandle_t, cudaStream_t*) { return CUSPARSE_STATUS_NOT_SUPPORTED; }
}  // namespace missing

// The symbol, or the `missing` stand-in (with a log line).
template <class Fn>
Fn resolve_or(Library& library, const char* name, Fn fallback) {
  if (void* symbol = library.symbol(name)) return reinterpret_cast<Fn>(symbol);
  log::vendor().warn("{} has no {}: that call returns the vendor's \"not supported\" status", library.soname(), name);
  return fallback;
}

Library& cufft_library() {
  // Never destroyed (as below): exit handlers, the report's among them, still use it.
  static Library& library = *new Library({IDGPU_VENDOR_CUFFT_SONAMES}, "cufftCreate", config().vendor_cufft,
                                         "IDGPU_VENDOR_CUFFT", &cufft_client_soname);
  return library;
}

Library& cusparse_library() {
  static Library& library = *new Library({IDGPU_VENDOR_CUSPARSE_SONAME}, "cusparseCreate",
                                         config().vendor_cusparse, "IDGPU_VENDOR_CUSPARSE");
  return library;
}

namespace {
// Functions whose symbol in an older vendor release has another name (same ABI), as the
// release's headers bind them: cuFFT 11.3-11.4 (CUDA 12.8-12.9) declare the JIT callback with
// the symbol-name argument as __cufftXtSetJITCallback_12_7 and keep cufftXtSetJITCallback for the
// older ABI without it (read from the nvidia-cufft-cu12 11.4 wheel's symbol table).
struct SymbolRename {
  const char* soname;
  const char* function;
  const char* symbol;
};
constexpr SymbolRename kCufftRenames[] = {
    {"libcufft.so.11", "cufftXtSetJITCallback", "__cufftXtSetJITCallback_12_7"},
};

const char* cufft_symbol(const Library& library, const char* function) {
  for (const SymbolRename& rename : kCufftRenames) {
    if (std::strcmp(library.soname(), rename.soname) == 0 && std::strcmp(function, rename.function) == 0) {
      return rename.symbol;
    }
  }
  return function;
}
}  // namespace

const CufftTable* cufft() {
  static const CufftTable* table = [] () -> const CufftTable* {
    Library& library = cufft_library();
    if (!library.load()) return nullptr;
    static CufftTable loaded;
#define IDGPU_CUFFT(KIND, name, params, args) \
  loaded.name = resolve_or(library, cufft_symbol(library, #name), &missing::name);
#include "cufft_api.def"
#undef IDGPU_CUFFT
    if (std::strcmp(cufft_symbol(library, "cufftXtSetJITCallback"), "cufftXtSetJITCallback") != 0) {
      loaded.legacy_cufftXtSetJITCallback = reinterpret_cast<decltype(loaded.legacy_cufftXtSetJITCallback)>(
          library.symbol("cufftXtSetJITCallback"));
    }
    return &loaded;
  }();
  return table;
}

const CusparseTable* cusparse() {
  static const CusparseTable* table = [] () -> const CusparseTable* {
    Library& library = cusparse_library();
    if (!library.load()) return nullptr;
    static CusparseTable loaded;
#define IDGPU_GTSV_SHAPE_(P, T, shape, family, params, args) \
  loaded.cusparse##P##shape =                                \
      resolve_or(library, "cusparse" #P #shape, &missing::cusparse##P##shape);
#define IDGPU_GTSV_PRECISION_(P, T) IDGPU_GTSV_SHAPES(IDGPU_GTSV_SHAPE_, P, T)
    IDGPU_GTSV_PRECISIONS(IDGPU_GTSV_PRECISION_)
#undef IDGPU_GTSV_PRECISION_
#undef IDGPU_GTSV_SHAPE_
    loaded.cusparseGetStream = resolve_or(library, "cusparseGetStream", &missing::cusparseGetStream);
    return &loaded;
  }();
  return table;
}

}  // namespace idgpu::vendor
