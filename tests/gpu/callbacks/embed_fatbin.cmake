# Writes a fatbin into a C header as a byte array (cmake -P, at build time):
#
#   cmake -DINPUT=<file.fatbin> -DOUTPUT=<file.h> -DNAME=<array name> -P embed_fatbin.cmake
#
# The array is 8-byte aligned, as a fatbin's header is read in 8-byte words.
foreach(required INPUT OUTPUT NAME)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "embed_fatbin.cmake: ${required} is not set")
  endif()
endforeach()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
if(size EQUAL 0)
  message(FATAL_ERROR "embed_fatbin.cmake: ${INPUT} is empty")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(source_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "/* Generated at build time from ${source_name} (tests/gpu/callbacks/embed_fatbin.cmake): do not edit. */\n"
  "static _Alignas(8) const unsigned char ${NAME}[${size}] = {${bytes}};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
