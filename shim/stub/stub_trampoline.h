/* Trampolines of a stand-in library, for the C preprocessor in front of the assembler.
 *
 * Each exported function is a jump through its slot in idgpu_stub_slots. A slot is empty until the
 * first call through any function of the library: that call saves the argument registers, has
 * libidgpu fill every slot (idgpu_stub_bind_all, once), restores them and jumps on, so the
 * trampolines carry any signature unchanged. Loading a stand-in does nothing else, which matters
 * because a preloaded library is inherited by every child process.
 *
 * The note section marks the object as an idgpu stand-in, so that libidgpu never takes it for the
 * vendor library whose SONAME it carries. */
#if !defined(__x86_64__)
#error "the stand-in trampolines are written for x86-64"
#endif

#define IDGPU_STUB_BEGIN(count)                          \
  .section .note.idgpu, "a", @note;                      \
  .balign 4;                                             \
  .long 6;                                               \
  .long 0;                                               \
  .long 0x1d6a;                                          \
  .asciz "idgpu";                                        \
  .balign 4;                                             \
  .text;                                                 \
  .balign 16;                                            \
  .type idgpu_stub_lazy, @function;                      \
idgpu_stub_lazy:                                         \
  pushq %rbp;                                            \
  movq %rsp, %rbp;                                       \
  pushq %rdi;                                            \
  pushq %rsi;                                            \
  pushq %rdx;                                            \
  pushq %rcx;                                            \
  pushq %r8;                                             \
  pushq %r9;                                             \
  pushq %rax;                                            \
  pushq %r11;                                            \
  subq $128, %rsp;                                       \
  movdqu %xmm0, 0(%rsp);                                 \
  movdqu %xmm1, 16(%rsp);                                \
  movdqu %xmm2, 32(%rsp);                                \
  movdqu %xmm3, 48(%rsp);                                \
  movdqu %xmm4, 64(%rsp);                                \
  movdqu %xmm5, 80(%rsp);                                \
  movdqu %xmm6, 96(%rsp);                                \
  movdqu %xmm7, 112(%rsp);                               \
  call idgpu_stub_bind_all;                              \
  movdqu 0(%rsp), %xmm0;                                 \
  movdqu 16(%rsp), %xmm1;                                \
  movdqu 32(%rsp), %xmm2;                                \
  movdqu 48(%rsp), %xmm3;                                \
  movdqu 64(%rsp), %xmm4;                                \
  movdqu 80(%rsp), %xmm5;                                \
  movdqu 96(%rsp), %xmm6;                                \
  movdqu 112(%rsp), %xmm7;                               \
  addq $128, %rsp;                                       \
  popq %r11;                                             \
  popq %rax;                                             \
  popq %r9;                                              \
  popq %r8;                                              \
  popq %rcx;                                             \
  popq %rdx;                                             \
  popq %rsi;                                             \
  popq %rdi;                                             \
  popq %rbp;                                             \
  leaq idgpu_stub_slots(%rip), %r10;                     \
  jmp *(%r10, %r11, 8);                                  \
  .size idgpu_stub_lazy, . - idgpu_stub_lazy;

#define IDGPU_STUB_FUNCTION(name, index)                 \
  .globl name;                                           \
  .type name, @function;                                 \
  .balign 16;                                            \
name:                                                    \
  movq idgpu_stub_slots + 8 * index(%rip), %r11;         \
  testq %r11, %r11;                                      \
  jz 1f;                                                 \
  jmp *%r11;                                             \
1:                                                       \
  movl $index, %r11d;                                    \
  jmp idgpu_stub_lazy;                                   \
  .size name, . - name;

#define IDGPU_STUB_END .section .note.GNU-stack, "", @progbits;
