// One argument value as 64 bits, the form in which the fake vendor records a call and the tests
// state what they expect. Shared by both sides so that "forwarded unchanged" means "the same
// bits arrived", for pointers, integers and enums alike.
#pragma once

#include <cstdint>
#include <type_traits>

namespace idgpu::test {

template <class T>
unsigned long long to_bits(T value) {
  if constexpr (std::is_pointer<T>::value) {
    return static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(value));
  } else if constexpr (std::is_enum<T>::value) {
    return static_cast<unsigned long long>(static_cast<long long>(value));
  } else if constexpr (std::is_signed<T>::value) {
    // Sign-extended, so that an int -1 and a long long -1 read the same.
    return static_cast<unsigned long long>(static_cast<long long>(value));
  } else {
    static_assert(std::is_integral<T>::value, "arguments are pointers, integers or enums");
    return static_cast<unsigned long long>(value);
  }
}

template <class T>
T from_bits(unsigned long long bits) {
  if constexpr (std::is_pointer<T>::value) {
    return reinterpret_cast<T>(static_cast<std::uintptr_t>(bits));
  } else if constexpr (std::is_enum<T>::value) {
    return static_cast<T>(static_cast<long long>(bits));
  } else {
    return static_cast<T>(bits);
  }
}

}  // namespace idgpu::test
