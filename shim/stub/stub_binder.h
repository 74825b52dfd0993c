/* The C half of a stand-in library: its SONAME, its names, its slots, and the one-time bind.
 * names.c, generated from the vendor's symbol table, is written as
 *   IDGPU_STUB_SONAME("libcufft.so.12");
 *   IDGPU_STUB_NAMES(58) = { "cufftCreate", ... };
 *   IDGPU_STUB_BINDER
 */
#ifndef IDGPU_STUB_BINDER_H
#define IDGPU_STUB_BINDER_H

#include <pthread.h>

#include "stub_abi.h"

#define IDGPU_HIDDEN __attribute__((visibility("hidden")))

#define IDGPU_STUB_SONAME(text) static const char idgpu_stub_soname[] = text

#define IDGPU_STUB_NAMES(count)                                   \
  enum { idgpu_stub_count = (count) };                            \
  IDGPU_HIDDEN void *idgpu_stub_slots[(count) > 0 ? (count) : 1]; \
  static const char *const idgpu_stub_names[(count) > 0 ? (count) : 1]

/* idgpu_stub_bind_all is called by the trampolines' slow path until the slots are filled. */
#define IDGPU_STUB_BINDER                                                                      \
  static pthread_once_t idgpu_stub_once = PTHREAD_ONCE_INIT;                                   \
  static void idgpu_stub_bind_once(void) {                                                     \
    idgpuStubBind(idgpu_stub_soname, idgpu_stub_names, idgpu_stub_slots, idgpu_stub_count);   \
  }                                                                                            \
  IDGPU_HIDDEN void idgpu_stub_bind_all(void);                                                 \
  IDGPU_HIDDEN void idgpu_stub_bind_all(void) { pthread_once(&idgpu_stub_once, idgpu_stub_bind_once); }

#endif /* IDGPU_STUB_BINDER_H */
