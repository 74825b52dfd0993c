// Catch2's main for every CPU test program, compiled once.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
