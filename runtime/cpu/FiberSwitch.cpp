// FiberSwitch: the context switch itself, as file-scope assembly (the build
// globs *.cpp only, so this is a .cpp file holding an asm block).
//
//   void pcj_fiber_switch(void **SaveSp, void *NewSp);
//     Pushes the callee-saved registers and floating-point control state of
//     the caller onto its stack, stores the stack pointer to *SaveSp, loads
//     NewSp and pops the same frame from there, returning into the context
//     that saved it.  (x86-64 reloads MXCSR / the x87 control word only when
//     they differ: the loads cost more than the rest of the switch.)
//     Caller-saved registers need no saving: the switch is an ordinary call
//     as far as the compiler is concerned.
//
//   pcj_fiber_trampoline
//     First "return address" of a new fiber: calls Fn(Arg) with Fn and Arg
//     taken from two callee-saved registers that fiberInit (Fiber.cpp) put in
//     the fiber's initial frame.  Fn never returns.
//
// Frame layouts (lowest address first; fiberInit builds the same ones):
//   x86-64 : [mxcsr:4 fcw:2 pad:2] r15 r14 r13 r12 rbx rbp ret   (64 bytes)
//            initial: r13 = Arg, r12 = Fn, ret = trampoline
//   aarch64: x19..x28, x29, x30, d8..d15, fpcr, pad              (176 bytes)
//            initial: x19 = Fn, x20 = Arg, x30 = trampoline
//
// Hosts without these (or with PCJ_FIBER_FORCE_UCONTEXT) use the ucontext
// fallback in Fiber.cpp and compile nothing here.
#include "runtime/cpu/Fiber.h"

#ifndef PCJ_FIBER_UCONTEXT

#if defined(__x86_64__)
asm(R"(
  .text
  .globl pcj_fiber_switch
  .hidden pcj_fiber_switch
  .type pcj_fiber_switch, @function
  .p2align 4
pcj_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsp, %rax
  movq %rsi, %rsp
  movl (%rsp), %ecx
  cmpl (%rax), %ecx
  je 1f
  ldmxcsr (%rsp)
1:
  movzwl 4(%rsp), %ecx
  cmpw 4(%rax), %cx
  je 2f
  fldcw 4(%rsp)
2:
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size pcj_fiber_switch, .-pcj_fiber_switch

  .globl pcj_fiber_trampoline
  .hidden pcj_fiber_trampoline
  .type pcj_fiber_trampoline, @function
  .p2align 4
pcj_fiber_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %r13, %rdi
  callq *%r12
  ud2
  .cfi_endproc
  .size pcj_fiber_trampoline, .-pcj_fiber_trampoline
)");
#elif defined(__aarch64__)
asm(R"(
  .text
  .globl pcj_fiber_switch
  .hidden pcj_fiber_switch
  .type pcj_fiber_switch, %function
  .p2align 4
pcj_fiber_switch:
  sub sp, sp, #176
  stp x19, x20, [sp, #0]
  stp x21, x22, [sp, #16]
  stp x23, x24, [sp, #32]
  stp x25, x26, [sp, #48]
  stp x27, x28, [sp, #64]
  stp x29, x30, [sp, #80]
  stp d8, d9, [sp, #96]
  stp d10, d11, [sp, #112]
  stp d12, d13, [sp, #128]
  stp d14, d15, [sp, #144]
  mrs x9, fpcr
  str x9, [sp, #160]
  mov x9, sp
  str x9, [x0]
  mov sp, x1
  ldr x9, [sp, #160]
  msr fpcr, x9
  ldp x19, x20, [sp, #0]
  ldp x21, x22, [sp, #16]
  ldp x23, x24, [sp, #32]
  ldp x25, x26, [sp, #48]
  ldp x27, x28, [sp, #64]
  ldp x29, x30, [sp, #80]
  ldp d8, d9, [sp, #96]
  ldp d10, d11, [sp, #112]
  ldp d12, d13, [sp, #128]
  ldp d14, d15, [sp, #144]
  add sp, sp, #176
  ret
  .size pcj_fiber_switch, .-pcj_fiber_switch

  .globl pcj_fiber_trampoline
  .hidden pcj_fiber_trampoline
  .type pcj_fiber_trampoline, %function
  .p2align 4
pcj_fiber_trampoline:
  .cfi_startproc
  .cfi_undefined x30
  mov x0, x20
  blr x19
  brk #0
  .cfi_endproc
  .size pcj_fiber_trampoline, .-pcj_fiber_trampoline
)");
#else
#error "no assembly context switch for this target; use PCJ_FIBER_UCONTEXT"
#endif

#endif // PCJ_FIBER_UCONTEXT
