// The dynamic symbol tables of libidgpu and of the stand-ins, read with nm against those of the
// real vendor libraries of the toolkit: libidgpu exports exactly the vendor's cuFFT functions, the
// vendor's 32 gtsv functions (each in the vendor's version node) and our own idgpu* functions;
// nothing of C++, fmt or spdlog leaks; the stand-ins export the vendor's full lists under the
// vendor's SONAMEs. The expected cuFFT and gtsv names also come from shim/*.def, so the tables are
// checked against the vendor too.
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

// Functions (and other non-absolute symbols) by name; the absolute ones (version nodes) apart.
struct Exports {
  std::map<std::string, Symbol> functions;
  std::set<std::string> absolute;
};

Exports exports_of(const std::string& library) {
  Exports exports;
  for (const Symbol& symbol : defined_symbols(library)) {
    if (symbol.type == 'A') {
      exports.absolute.insert(symbol.name);
    } else {
      exports.functions[symbol.name] = symbol;
    }
  }
  return exports;
}

std::set<std::string> names_of(const Exports& exports) {
  std::set<std::string> names;
  for (const auto& entry : exports.functions) names.insert(entry.first);
  return names;
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
  const auto found = vendor.functions.find(name);
  return found == vendor.functions.end() ? std::string() : found->second.node;
}

}  // namespace

TEST_CASE("shim/cufft_api.def lists exactly the vendor's cuFFT exports", "[cpu][exports]") {
  const Exports vendor = exports_of(IDGPU_TEST_VENDOR_CUFFT);
  const std::set<std::string> vendor_cufft = with_prefix(names_of(vendor), kCufftName);
  CHECK(vendor_cufft == names_of(vendor));  // the vendor exports nothing else
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
}

TEST_CASE("libidgpu exports the vendor's cuFFT and gtsv names and its own idgpu* names, nothing else",
          "[cpu][exports]") {
  const Exports ours = exports_of(IDGPU_TEST_LIBIDGPU);
  const Exports cufft = exports_of(IDGPU_TEST_VENDOR_CUFFT);
  const Exports cusparse = exports_of(IDGPU_TEST_VENDOR_CUSPARSE);
  const std::set<std::string> idgpu_names = declared_idgpu_names();
  REQUIRE(idgpu_names.count("idgpuGetVersion") == 1);
  REQUIRE(idgpu_names.count("idgpuStubBind") == 1);

  std::set<std::string> expected = with_prefix(names_of(cufft), kCufftName);
  const std::set<std::string> gtsv = with_prefix(names_of(cusparse), kGtsvName);
  expected.insert(gtsv.begin(), gtsv.end());
  expected.insert(idgpu_names.begin(), idgpu_names.end());
  CHECK(names_of(ours) == expected);

  // The absolute symbols are the three version nodes: the vendor's two and ours.
  const std::string cufft_node = vendor_node(cufft, "cufftCreate");
  const std::string cusparse_node = vendor_node(cusparse, "cusparseCreate");
  const std::string our_node = "IDGPU_" + std::to_string(IDGPU_TEST_VERSION_MAJOR);
  REQUIRE(!cufft_node.empty());
  REQUIRE(!cusparse_node.empty());
  CHECK(ours.absolute == std::set<std::string>{cufft_node, cusparse_node, our_node});

  for (const auto& entry : ours.functions) {
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

#if defined(IDGPU_TEST_STUB_CUFFT) && defined(IDGPU_TEST_STUB_CUSPARSE)
TEST_CASE("the stand-ins export the vendor's full lists under the vendor's SONAMEs", "[cpu][exports]") {
  // (58 and 423 names with the CUDA 13 toolkit; the vendor's own list is the reference.)
  struct Pair {
    const char* stand_in;
    const char* vendor;
    std::size_t at_least;
  };
  for (const Pair& pair : {Pair{IDGPU_TEST_STUB_CUFFT, IDGPU_TEST_VENDOR_CUFFT, 50},
                           Pair{IDGPU_TEST_STUB_CUSPARSE, IDGPU_TEST_VENDOR_CUSPARSE, 300}}) {
    CAPTURE(pair.stand_in);
    const Exports stand_in = exports_of(pair.stand_in);
    const Exports vendor = exports_of(pair.vendor);
    CHECK(names_of(stand_in) == names_of(vendor));
    CHECK(names_of(stand_in).size() >= pair.at_least);
    CHECK(stand_in.absolute == vendor.absolute);
    for (const auto& entry : stand_in.functions) {
      CAPTURE(entry.first);
      CHECK(entry.second.node == vendor_node(vendor, entry.first));
      CHECK(entry.second.default_version);
    }
    const DynamicSection ours = dynamic_section(pair.stand_in);
    CHECK(ours.soname == dynamic_section(pair.vendor).soname);
    bool needs_idgpu = false;
    for (const std::string& needed : ours.needed) {
      needs_idgpu = needs_idgpu || needed == "libidgpu.so." + std::to_string(IDGPU_TEST_VERSION_MAJOR);
    }
    CHECK(needs_idgpu);
    // The note that keeps libidgpu from taking a stand-in for the vendor.
    CHECK(run(std::string("'") + IDGPU_TEST_OBJDUMP + "' -h '" + pair.stand_in + "'").find(".note.idgpu") !=
          std::string::npos);
  }
}
#endif
