# Writes the export list of a vendor library as a data file of shim/vendor/, with its provenance:
#
#   cmake -DLIBRARY=<path of the vendor library> -DSOURCE="<where that file came from>"
#         -DOUTPUT=shim/vendor/<soname>.exports -P cmake/WriteExportList.cmake
#
# The list is what the library's dynamic symbol table says (cmake/VendorExports.cmake reads it),
# never typed by hand. The build reads these files for the vendor releases it serves besides the
# toolkit's own (whose library it reads directly).
cmake_minimum_required(VERSION 3.24)
if(NOT LIBRARY OR NOT OUTPUT OR NOT SOURCE)
  message(FATAL_ERROR "usage: cmake -DLIBRARY=... -DSOURCE=... -DOUTPUT=... -P WriteExportList.cmake")
endif()
find_program(CMAKE_OBJDUMP objdump REQUIRED)
find_program(CMAKE_NM nm REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/VendorExports.cmake)
idgpu_read_vendor_exports("${LIBRARY}" LIST)
file(SHA256 "${LIBRARY}" digest)
get_filename_component(file_name "${LIBRARY}" NAME)
list(LENGTH LIST_NAMES count)
set(text "# The functions ${LIST_SONAME} exports, read from its dynamic symbol table by\n")
string(APPEND text "# cmake/WriteExportList.cmake (nm -D --defined-only). Not edited by hand.\n")
string(APPEND text "# source: ${SOURCE}\n# file: ${file_name}, sha256 ${digest}\n")
string(APPEND text "soname ${LIST_SONAME}\nnode ${LIST_NODE}\n# ${count} functions\n")
foreach(name IN LISTS LIST_NAMES)
  string(APPEND text "${name}\n")
endforeach()
file(WRITE "${OUTPUT}" "${text}")
message(STATUS "${OUTPUT}: ${LIST_SONAME}, ${count} functions in node ${LIST_NODE}")
