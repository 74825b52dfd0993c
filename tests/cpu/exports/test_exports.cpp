// The dynamic symbol tables of libidgpu and of the stand-ins, read with nm against those of the
// real vendor libraries of the toolkit and against the export lists of the other releases idgpu
// serves (shim/vendor/): libidgpu exports exactly the vendor's cuFFT functions, the vendor's 32
// gtsv functions (each in the vendor's version node, as the default version) and our own idgpu*
// functions, plus, as non-default versions in node libcufft.so.11, the functions of cuFFT 11
// (CUDA 12); nothing of C++, fmt or spdlog leaks; the stand-ins export the full lists under the
// releases' SONAMEs. The expected cuFFT and gtsv names also come from shim/*.def, so the tables
// are checked against the vendor too.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Symbol {
  std::string name;
  std::string node;  // version node, empty when unversioned
  char type = '?';   // nm's letter
  bool default_version = false;  // name@@node (name@node is a non-default version)
  std::string address;
};

std::string run(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[8192];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, read);
  INFO(command);
  REQUIRE(pclose(pipe) == 0);
  return output;
}

// nm -D --defined-only: "<address> <type> <name>[@@node]" lines.
std::vector<Symbol> defined_symbols(const std::string& library) {
  const std::string output = run(std::string("'") + IDGPU_TEST_NM + "' -D --defined-only '" + library + "'");
  std::vector<Symbol> symbols;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string address, type, name;
    if (!(fields >> address >> type >> name)) continue;
    Symbol symbol;
    symbol.type = type[0];
    symbol.address = address;
    const auto at = name.find('@');
    if (at != std::string::npos) {
      symbol.default_version = name.compare(at, 2, "@@") == 0;
      symbol.node = name.substr(at + (symbol.default_version ? 2 : 1));
      name.resize(at);
    }
    symbol.name = name;
    symbols.push_back(symbol);
  }
  REQUIRE(!symbols.empty());
  return symbols;
}

std::vector<std::string> undefined_names(const std::string& library) {
  const std::string output = run(std::string("'") + IDGPU_TEST_NM + "' -D --undefined-only '" + library + "'");
  std::vector<std::string> names;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string type, name;
    if (fields >> type >> name) names.push_back(name.substr(0, name.find('@')));
  }
  return names;
}

// objdump -p: the SONAME and the NEEDED entries.
struct DynamicSection {
  std::string soname;
  std::vector<std::string> needed;
};

DynamicSection dynamic_section(const std::string& library) {
  const std::string output = run(std::string("'") + IDGPU_TEST_OBJDUMP + "' -p '" + library + "'");
  DynamicSection section;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string key, value;
    if (!(fields >> key >> value)) continue;
    if (key == "SONAME") section.soname = value;
    if (key == "NEEDED") section.needed.push_back(value);
  }
  return section;
}

// A library's defined symbols: the default versions (name@@node, or unversioned) by name, the
// non-default versions (name@node) apart, and the absolute ones (the version nodes). A name may
// be defined twice, once in each kind: libidgpu's cufftCreate@@libcufft.so.12 and
// cufftCreate@libcufft.so.11.
struct Exports {
  std::map<std::string, Symbol> defaults;
  std::vector<Symbol> non_defaults;
  std::set<std::string> absolute;
};

Exports exports_of(const std::string& library) {
  Exports exports;
  for (const Symbol& symbol : defined_symbols(library)) {
    if (symbol.type == 'A') {
      exports.absolute.insert(symbol.name);
    } else if (!symbol.node.empty() && !symbol.default_version) {
      exports.non_defaults.push_back(symbol);
    } else {
      CAPTURE(library, symbol.name);
      CHECK(exports.defaults.emplace(symbol.name, symbol).second);  // one default version a name
    }
  }
  return exports;
}

// The names of the default versions.
std::set<std::string> names_of(const Exports& exports) {
  std::set<std::string> names;
  for (const auto& entry : exports.defaults) names.insert(entry.first);
  return names;
}

// The non-default versions, as "name@node".
std::set<std::string> non_default_versions(const Exports& exports) {
  std::set<std::string> versions;
  for (const Symbol& symbol : exports.non_defaults) {
    CAPTURE(symbol.name, symbol.node);
    CHECK(versions.insert(symbol.name + "@" + symbol.node).second);
  }
  return versions;
}

// An export list of shim/vendor/ (cmake/WriteExportList.cmake writes them; CMake reads them with
// idgpu_read_export_list): '#' comments, "soname X", "node Y", then one function name a line.
struct ExportList {
  std::string soname;
  std::string node;
  std::set<std::string> names;
};

ExportList read_export_list(const std::string& path) {
  std::ifstream file(path);
  INFO(path);
  REQUIRE(file.good());
  ExportList list;
  const std::regex name_line("^[A-Za-z_][A-Za-z0-9_]*$");
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("soname ", 0) == 0) {
      list.soname = line.substr(7);
    } else if (line.rfind("node ", 0) == 0) {
      list.node = line.substr(5);
    } else {
      CAPTURE(line);
      REQUIRE(std::regex_match(line, name_line));
      CHECK(list.names.insert(line).second);  // each name once
    }
  }
  REQUIRE(!list.soname.empty());
  REQUIRE(!list.node.empty());
  REQUIRE(!list.names.empty());
  return list;
}

std::set<std::string> with_prefix(const std::set<std::string>& names, const std::regex& pattern) {
  std::set<std::string> matching;
  for (const std::string& name : names) {
    if (std::regex_search(name, pattern)) matching.insert(name);
  }
  return matching;
}

std::set<std::string> def_cufft_names() {
  return {
#define IDGPU_CUFFT(KIND, name, params, args) #name,
#include "cufft_api.def"
#undef IDGPU_CUFFT
  };
}

std::set<std::string> def_gtsv_names() {
#define IDGPU_TEST_SHAPE(P, T, shape, family, params, args) "cusparse" #P #shape,
#define IDGPU_TEST_PRECISION(P, T) IDGPU_GTSV_SHAPES(IDGPU_TEST_SHAPE, P, T)
  return {
#include "gtsv_api.def"
      IDGPU_GTSV_PRECISIONS(IDGPU_TEST_PRECISION)};
#undef IDGPU_TEST_PRECISION
#undef IDGPU_TEST_SHAPE
}

// The idgpu* functions the public headers declare (idgpu.h and the stand-ins' stub_abi.h).
std::set<std::string> declared_idgpu_names() {
  std::set<std::string> names;
  std::stringstream paths(IDGPU_TEST_PUBLIC_HEADERS);
  std::string path;
  const std::regex declaration(R"(\b(idgpu[A-Z][A-Za-z0-9_]*)\s*\()");
  while (std::getline(paths, path, ':')) {
    std::ifstream file(path);
    INFO(path);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    const std::string content = text.str();
    for (std::sregex_iterator match(content.begin(), content.end(), declaration), end; match != end; ++match) {
      names.insert((*match)[1].str());
    }
  }
  return names;
}

const std::regex kCufftName("^cufft");
const std::regex kGtsvName("^cusparse[SDCZ]gtsv");

// The version node the vendor defines `name` in.
std::string vendor_node(const Exports& vendor, const std::string& name) {
  const auto found = vendor.defaults.find(name);
  return found == vendor.defaults.end() ? std::string() : found->second.node;
}

// cuFFT 11's two JIT callback symbols: cufftXtSetJITCallback there is the older ABI (no symbol
// name), and __cufftXtSetJITCallback_12_7 is cuFFT 12's cufftXtSetJITCallback under another name.
const char* const kCufft11LegacyJit = "cufftXtSetJITCallback";
const char* const kCufft11Jit = "__cufftXtSetJITCallback_12_7";
const char* const kCufft11Soname = "libcufft.so.11";

}  // namespace

TEST_CASE("shim/cufft_api.def lists exactly the vendor's cuFFT exports", "[cpu][exports]") {
  const Exports vendor = exports_of(IDGPU_TEST_VENDOR_CUFFT);
  const std::set<std::string> vendor_cufft = with_prefix(names_of(vendor), kCufftName);
  CHECK(vendor_cufft == names_of(vendor));  // the vendor exports nothing else
  CHECK(vendor.non_defaults.empty());
  CHECK(def_cufft_names() == vendor_cufft);
  CHECK(vendor_cufft.size() >= 50);  // a sanity bound: the list was read
}

TEST_CASE("shim/gtsv_api.def lists exactly the vendor's gtsv exports", "[cpu][exports]") {
  const Exports vendor = exports_of(IDGPU_TEST_VENDOR_CUSPARSE);
  const std::set<std::string> vendor_gtsv = with_prefix(names_of(vendor), kGtsvName);
  CHECK(def_gtsv_names() == vendor_gtsv);
  CHECK(vendor_gtsv.size() == 32);
  // Every vendor name with "gtsv" in it is one of them (no older gtsv API left over).
  CHECK(with_prefix(names_of(vendor), std::regex("gtsv")) == vendor_gtsv);
  CHECK(vendor.non_defaults.empty());
}

TEST_CASE("CUDA 12's cuSPARSE has the toolkit's gtsv names in the toolkit's node: one libidgpu serves both",
          "[cpu][exports]") {
  const ExportList cuda12 = read_export_list(IDGPU_TEST_CUSPARSE12_LIST);
  const Exports vendor = exports_of(IDGPU_TEST_VENDOR_CUSPARSE);
  CHECK(cuda12.soname == dynamic_section(IDGPU_TEST_VENDOR_CUSPARSE).soname);
  CHECK(cuda12.node == vendor_node(vendor, "cusparseCreate"));
  const std::set<std::string> gtsv = with_prefix(cuda12.names, kGtsvName);
  CHECK(gtsv == with_prefix(names_of(vendor), kGtsvName));
  CHECK(gtsv.size() == 32);
  CHECK(with_prefix(cuda12.names, std::regex("gtsv")) == gtsv);
}

TEST_CASE("the cuFFT 11 export list: SONAME and node libcufft.so.11, every function one idgpu serves",
          "[cpu][exports]") {
  const ExportList cufft11 = read_export_list(IDGPU_TEST_CUFFT11_LIST);
  CHECK(cufft11.soname == kCufft11Soname);
  CHECK(cufft11.node == kCufft11Soname);
  const std::set<std::string> served = def_cufft_names();
  for (const std::string& name : cufft11.names) {
    CAPTURE(name);
    // A function of shim/cufft_api.def, or cuFFT 12's cufftXtSetJITCallback under its cuFFT 11 name.
    CHECK((served.count(name) == 1 || name == kCufft11Jit));
  }
  CHECK(cufft11.names.count(kCufft11LegacyJit) == 1);
  CHECK(cufft11.names.count(kCufft11Jit) == 1);
  CHECK(cufft11.names.size() >= 50);  // a sanity bound: the list was read
}

TEST_CASE("libidgpu exports the cuFFT 12 and gtsv names, its own idgpu* names and cuFFT 11's names, nothing else",
          "[cpu][exports]") {
  const Exports ours = exports_of(IDGPU_TEST_LIBIDGPU);
  const Exports cufft = exports_of(IDGPU_TEST_VENDOR_CUFFT);
  const Exports cusparse = exports_of(IDGPU_TEST_VENDOR_CUSPARSE);
  const ExportList cufft11 = read_export_list(IDGPU_TEST_CUFFT11_LIST);
  const std::set<std::string> idgpu_names = declared_idgpu_names();
  REQUIRE(idgpu_names.count("idgpuGetVersion") == 1);
  REQUIRE(idgpu_names.count("idgpuStubBind") == 1);

  // The default versions: what an application of the toolkit's release (or an unversioned
  // reference) binds to.
  std::set<std::string> expected = with_prefix(names_of(cufft), kCufftName);
  const std::set<std::string> gtsv = with_prefix(names_of(cusparse), kGtsvName);
  expected.insert(gtsv.begin(), gtsv.end());
  expected.insert(idgpu_names.begin(), idgpu_names.end());
  CHECK(names_of(ours) == expected);

  const std::string cufft_node = vendor_node(cufft, "cufftCreate");
  const std::string cusparse_node = vendor_node(cusparse, "cusparseCreate");
  const std::string our_node = "IDGPU_" + std::to_string(IDGPU_TEST_VERSION_MAJOR);
  REQUIRE(!cufft_node.empty());
  REQUIRE(!cusparse_node.empty());
  REQUIRE(cufft11.node != cufft_node);
  for (const auto& entry : ours.defaults) {
    const Symbol& symbol = entry.second;
    CAPTURE(symbol.name, symbol.node, symbol.type);
    CHECK(symbol.type == 'T');
    CHECK(symbol.default_version);
    if (std::regex_search(symbol.name, kCufftName)) {
      CHECK(symbol.node == vendor_node(cufft, symbol.name));
    } else if (std::regex_search(symbol.name, kGtsvName)) {
      CHECK(symbol.node == vendor_node(cusparse, symbol.name));
    } else {
      CHECK(symbol.node == our_node);
    }
  }

  // The non-default versions: exactly cuFFT 11's names, in its node (what an application built
  // against CUDA 12 asks for), and nothing else.
  std::set<std::string> expected_cufft11;
  for (const std::string& name : cufft11.names) expected_cufft11.insert(name + "@" + cufft11.node);
  CHECK(non_default_versions(ours) == expected_cufft11);
  std::map<std::string, std::string> cufft11_address;
  for (const Symbol& symbol : ours.non_defaults) {
    CAPTURE(symbol.name, symbol.node, symbol.type);
    CHECK(symbol.type == 'T');
    cufft11_address[symbol.name] = symbol.address;
    // An entry of its own, not an alias of the cuFFT 12 one: the first call through it records
    // that the caller was built against cuFFT 11.
    const auto cufft12 = ours.defaults.find(symbol.name);
    if (cufft12 != ours.defaults.end()) CHECK(symbol.address != cufft12->second.address);
  }
  // cuFFT 11's two JIT callback functions are two ABIs: two entries.
  REQUIRE(cufft11_address.count(kCufft11Jit) == 1);
  REQUIRE(cufft11_address.count(kCufft11LegacyJit) == 1);
  CHECK(cufft11_address[kCufft11Jit] != cufft11_address[kCufft11LegacyJit]);

  // The absolute symbols are the four version nodes: the vendor's three and ours.
  CHECK(ours.absolute == std::set<std::string>{cufft_node, cufft11.node, cusparse_node, our_node});
}

TEST_CASE("libidgpu leaks no C++, fmt or spdlog symbol and does not link the vendor", "[cpu][exports]") {
  for (const Symbol& symbol : defined_symbols(IDGPU_TEST_LIBIDGPU)) {
    CAPTURE(symbol.name);
    CHECK(symbol.name.rfind("_Z", 0) != 0);
    CHECK(symbol.name.find("fmt") == std::string::npos);
    CHECK(symbol.name.find("spdlog") == std::string::npos);
  }
  // The vendor is opened at run time, never linked: no vendor name is imported.
  for (const std::string& name : undefined_names(IDGPU_TEST_LIBIDGPU)) {
    CAPTURE(name);
    CHECK(name.rfind("cufft", 0) != 0);
    CHECK(name.rfind("cusparse", 0) != 0);
  }
  const DynamicSection section = dynamic_section(IDGPU_TEST_LIBIDGPU);
  CHECK(section.soname == "libidgpu.so." + std::to_string(IDGPU_TEST_VERSION_MAJOR));
  for (const std::string& needed : section.needed) {
    CAPTURE(needed);
    CHECK(needed.find("cufft") == std::string::npos);
    CHECK(needed.find("cusparse") == std::string::npos);
    CHECK(needed.find("libcudart") == std::string::npos);  // the CUDA runtime is linked statically
  }
}

#if defined(IDGPU_TEST_STUB_CUFFT) && defined(IDGPU_TEST_STUB_CUFFT11) && defined(IDGPU_TEST_STUB_CUSPARSE)
namespace {

// A stand-in exports every name of the release it stands in for, each as the default version in
// the release's node (name -> node), under the release's SONAME, needs libidgpu, and carries the
// note that keeps libidgpu from taking it for the vendor.
void check_stand_in(const std::string& stand_in, const std::string& soname,
                    const std::map<std::string, std::string>& expected_nodes) {
  CAPTURE(stand_in);
  const Exports ours = exports_of(stand_in);
  std::set<std::string> expected_names;
  std::set<std::string> expected_absolute;
  for (const auto& entry : expected_nodes) {
    expected_names.insert(entry.first);
    expected_absolute.insert(entry.second);
  }
  CHECK(names_of(ours) == expected_names);
  CHECK(ours.non_defaults.empty());
  CHECK(ours.absolute == expected_absolute);
  for (const auto& entry : ours.defaults) {
    CAPTURE(entry.first);
    const auto expected = expected_nodes.find(entry.first);
    CHECK((expected != expected_nodes.end() && entry.second.node == expected->second));
    CHECK(entry.second.default_version);
  }
  const DynamicSection section = dynamic_section(stand_in);
  CHECK(section.soname == soname);
  bool needs_idgpu = false;
  for (const std::string& needed : section.needed) {
    needs_idgpu = needs_idgpu || needed == "libidgpu.so." + std::to_string(IDGPU_TEST_VERSION_MAJOR);
  }
  CHECK(needs_idgpu);
  CHECK(run(std::string("'") + IDGPU_TEST_OBJDUMP + "' -h '" + stand_in + "'").find(".note.idgpu") !=
        std::string::npos);
}

}  // namespace

TEST_CASE("the stand-ins export the vendor's full lists under the vendor's SONAMEs", "[cpu][exports]") {
  // (58 and 423 names with the CUDA 13 toolkit; the vendor's own list is the reference.)
  struct Pair {
    const char* stand_in;
    const char* vendor;
    std::size_t at_least;
  };
  for (const Pair& pair : {Pair{IDGPU_TEST_STUB_CUFFT, IDGPU_TEST_VENDOR_CUFFT, 50},
                           Pair{IDGPU_TEST_STUB_CUSPARSE, IDGPU_TEST_VENDOR_CUSPARSE, 300}}) {
    const Exports vendor = exports_of(pair.vendor);
    std::map<std::string, std::string> nodes;
    for (const auto& entry : vendor.defaults) nodes[entry.first] = entry.second.node;
    CHECK(nodes.size() >= pair.at_least);
    check_stand_in(pair.stand_in, dynamic_section(pair.vendor).soname, nodes);
  }
}

TEST_CASE("the cuFFT 11 stand-in exports cuFFT 11's list under its SONAME, in its node", "[cpu][exports]") {
  const ExportList cufft11 = read_export_list(IDGPU_TEST_CUFFT11_LIST);
  std::map<std::string, std::string> nodes;
  for (const std::string& name : cufft11.names) nodes[name] = cufft11.node;
  check_stand_in(IDGPU_TEST_STUB_CUFFT11, cufft11.soname, nodes);
}
#endif
