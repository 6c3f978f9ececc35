// Fiber: user-level context switching on small pooled stacks, for the CPU
// executor's SIMT emulation (one fiber per CUDA thread of a block).
//
// A fiber runs one function once.  Switching is a few instructions of hand
// written assembly (FiberSwitch.cpp) that save the callee-saved registers and
// the floating-point control state of the current context on its own stack
// and load those of the target: no syscalls, no signal-mask handling.
//
//   x86-64 SysV : rsp, rbx, rbp, r12-r15, MXCSR, x87 control word
//   aarch64     : sp, x19-x30, d8-d15, fpcr
//   other hosts : ucontext (getcontext/makecontext/swapcontext) fallback
//
// Stacks come from mmap with a PROT_NONE guard page below the usable range;
// they are pooled process-wide and cached per OS thread, so a worker that runs
// many blocks maps its stacks once.  The size is 64 KiB by default (256 KiB
// in AddressSanitizer builds, whose frames are larger); the environment
// variable PYCUDA_JIT_CPU_STACK_KB overrides it.
//
// Usage:
//   FiberContext Main, F;
//   fiberInit(F, Stack, fn, arg);   // fn(arg) starts at the first switch
//   fiberSwitch(Main, F);           // runs fn until it switches back
//   ... inside fn: fiberSwitch(F, Main) to suspend, fiberExit(F, Main) to end
//
// A fiber function must never return; it ends with fiberExit.  Under ASan
// every switch is announced with __sanitizer_{start,finish}_switch_fiber.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#if !(defined(__ELF__) && (defined(__x86_64__) || defined(__aarch64__))) ||    \
    defined(PCJ_FIBER_FORCE_UCONTEXT)
#define PCJ_FIBER_UCONTEXT 1
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define PCJ_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PCJ_FIBER_ASAN 1
#endif
#endif

namespace pcj::rt::cpu {

// The usable range [Base, Base + Size) of one stack; the guard page lies just
// below Base.
struct FiberStack {
  char *Base = nullptr;
  size_t Size = 0;
};

// Stack size in bytes (page multiple) used for fibers: the default or
// PYCUDA_JIT_CPU_STACK_KB, read once.
size_t fiberStackSize();

// Short name of the context-switch implementation ("x86-64", "aarch64",
// "ucontext").
const char *fiberBackend();

// Process-wide pool of fiber stacks.  Thread-safe.  Stacks are never
// unmapped; a released stack is handed out again.
class StackPool {
public:
  static StackPool &global();
  // Throws std::bad_alloc if the stack cannot be mapped.
  FiberStack acquire();
  void release(const FiberStack &Stack);
  // Locks / unlocks the pool around fork() (see GridRunner.cpp).
  void lockForFork();
  void unlockAfterFork();

private:
  StackPool() = default;
  std::mutex Mu;
  std::vector<FiberStack> Free;
};

// Stacks owned by one OS thread (kept between blocks); returned to the global
// pool when the thread exits.
class StackCache {
public:
  StackCache() = default;
  StackCache(const StackCache &) = delete;
  StackCache &operator=(const StackCache &) = delete;
  ~StackCache();
  // Ensures at least Count stacks and returns them.
  const FiberStack *reserve(size_t Count);

private:
  std::vector<FiberStack> Stacks;
};

using FiberFn = void (*)(void *Arg);

// The saved state of a suspended context (a fiber, or the OS thread's own
// stack that started the fibers).  Must not move while suspended.
struct FiberContext {
#ifdef PCJ_FIBER_UCONTEXT
  ucontext_t Uc;
#else
  void *Sp = nullptr; // saved stack pointer; the registers lie above it
#endif
  FiberFn Fn = nullptr;
  void *Arg = nullptr;
#ifdef PCJ_FIBER_ASAN
  void *FakeStack = nullptr;
  const void *StackBottom = nullptr;
  size_t StackSize = 0;
#endif
};

// Prepares F to run Fn(Arg) on Stack at the first switch to it.  The new
// fiber inherits the calling thread's floating-point control state.
void fiberInit(FiberContext &F, const FiberStack &Stack, FiberFn Fn, void *Arg);

// Saves the current context into From and resumes To.  Returns when some
// context switches back to From.
void fiberSwitch(FiberContext &From, FiberContext &To);

// Like fiberSwitch, but From is never resumed (its stack may be reused).
[[noreturn]] void fiberExit(FiberContext &From, FiberContext &To);

} // namespace pcj::rt::cpu
