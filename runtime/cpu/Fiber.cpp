// Fiber: stack pool, fiber setup and the C++ side of switching (ASan fiber
// annotations, ucontext fallback).  The register-level switch lives in
// FiberSwitch.cpp.
//
// A new fiber's stack top holds a frame shaped exactly like the one
// pcj_fiber_switch pushes, so the first switch "returns" into
// pcj_fiber_trampoline, which calls fiberStart(&Context), which calls
// Context.Fn(Context.Arg).
#include "runtime/cpu/Fiber.h"
#include "support/Env.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#ifdef PCJ_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#ifndef PCJ_FIBER_UCONTEXT
extern "C" void pcj_fiber_switch(void **SaveSp, void *NewSp);
extern "C" void pcj_fiber_trampoline();
#endif

namespace pcj::rt::cpu {
namespace {

size_t pageSize() {
  static const size_t Page = [] {
    long P = sysconf(_SC_PAGESIZE);
    return P > 0 ? static_cast<size_t>(P) : size_t(4096);
  }();
  return Page;
}

size_t readStackSize() {
#ifdef PCJ_FIBER_ASAN
  unsigned long long Kb = 256; // instrumented frames are several times larger
#else
  unsigned long long Kb = 64;
#endif
  if (const char *Env = env::raw(env::Var::CpuStackKb); Env && *Env) {
    char *End = nullptr;
    unsigned long long V = std::strtoull(Env, &End, 10);
    if (*End == '\0' && V > 0)
      Kb = V;
    else
      std::fprintf(stderr,
                   "pycuda_jit: ignoring invalid PYCUDA_JIT_CPU_STACK_KB=%s\n",
                   Env);
  }
  Kb = std::clamp<unsigned long long>(Kb, 16, 1 << 20); // 16 KiB .. 1 GiB
  size_t Bytes = static_cast<size_t>(Kb) * 1024;
  size_t Page = pageSize();
  return (Bytes + Page - 1) / Page * Page;
}

#ifdef PCJ_FIBER_ASAN
// The context that performed the switch we are resuming from; the resumed
// side records that context's stack bounds, as reported by ASan, into it.
thread_local FiberContext *SwitchFrom = nullptr;
#endif

[[noreturn]] void fiberStart(void *P) {
  FiberContext &F = *static_cast<FiberContext *>(P);
#ifdef PCJ_FIBER_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &SwitchFrom->StackBottom,
                                  &SwitchFrom->StackSize);
#endif
  F.Fn(F.Arg);
  std::fputs("pycuda_jit: internal error: a fiber function returned\n", stderr);
  std::abort();
}

#ifdef PCJ_FIBER_UCONTEXT
void ucontextEntry(unsigned Hi, unsigned Lo) {
  uint64_t P = (static_cast<uint64_t>(Hi) << 32) | Lo;
  fiberStart(reinterpret_cast<void *>(static_cast<uintptr_t>(P)));
}
#endif

} // namespace

size_t fiberStackSize() {
  static const size_t Size = readStackSize();
  return Size;
}

const char *fiberBackend() {
#if defined(PCJ_FIBER_UCONTEXT)
  return "ucontext";
#elif defined(__x86_64__)
  return "x86-64";
#else
  return "aarch64";
#endif
}

// -- stacks -------------------------------------------------------------------

StackPool &StackPool::global() {
  // Leaked on purpose: thread-exit destructors of StackCache may run after
  // static destructors.
  static StackPool *Pool = new StackPool();
  return *Pool;
}

FiberStack StackPool::acquire() {
  {
    std::lock_guard<std::mutex> Lock(Mu);
    if (!Free.empty()) {
      FiberStack S = Free.back();
      Free.pop_back();
      return S;
    }
  }
  size_t Size = fiberStackSize();
  size_t Page = pageSize();
  int Flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
  Flags |= MAP_NORESERVE;
#endif
#ifdef MAP_STACK
  Flags |= MAP_STACK;
#endif
  void *Map = mmap(nullptr, Size + Page, PROT_READ | PROT_WRITE, Flags, -1, 0);
  if (Map == MAP_FAILED)
    throw std::bad_alloc();
  // The guard page turns an overflow into SIGSEGV instead of silent
  // corruption of the neighbouring stack.  If the kernel refuses (e.g. the
  // vm.max_map_count limit), the stack still works, unguarded.
  (void)mprotect(Map, Page, PROT_NONE);
  return FiberStack{static_cast<char *>(Map) + Page, Size};
}

void StackPool::release(const FiberStack &Stack) {
  std::lock_guard<std::mutex> Lock(Mu);
  Free.push_back(Stack);
}

void StackPool::lockForFork() { Mu.lock(); }
void StackPool::unlockAfterFork() { Mu.unlock(); }

StackCache::~StackCache() {
  for (const FiberStack &S : Stacks)
    StackPool::global().release(S);
}

const FiberStack *StackCache::reserve(size_t Count) {
  if (Stacks.size() < Count) {
    Stacks.reserve(Count);
    while (Stacks.size() < Count)
      Stacks.push_back(StackPool::global().acquire());
  }
  return Stacks.data();
}

// -- switching ----------------------------------------------------------------

void fiberInit(FiberContext &F, const FiberStack &Stack, FiberFn Fn,
               void *Arg) {
  F.Fn = Fn;
  F.Arg = Arg;
#ifdef PCJ_FIBER_ASAN
  // A fiber abandoned on this stack may have left poisoned redzones.
  ASAN_UNPOISON_MEMORY_REGION(Stack.Base, Stack.Size);
  F.FakeStack = nullptr;
  F.StackBottom = Stack.Base;
  F.StackSize = Stack.Size;
#endif
#if defined(PCJ_FIBER_UCONTEXT)
  if (getcontext(&F.Uc) != 0) {
    std::perror("pycuda_jit: getcontext");
    std::abort();
  }
  F.Uc.uc_stack.ss_sp = Stack.Base;
  F.Uc.uc_stack.ss_size = Stack.Size;
  F.Uc.uc_link = nullptr;
  uint64_t P = reinterpret_cast<uintptr_t>(&F);
  makecontext(&F.Uc, reinterpret_cast<void (*)()>(&ucontextEntry), 2,
              static_cast<unsigned>(P >> 32), static_cast<unsigned>(P));
#elif defined(__x86_64__)
  // 80 = 64-byte switch frame + 16 bytes above it, so that the trampoline
  // starts with rsp 16-byte aligned (it then calls Fn).
  char *Top = Stack.Base + Stack.Size;
  auto *Frame = reinterpret_cast<uint64_t *>(Top - 80);
  uint32_t Mxcsr = __builtin_ia32_stmxcsr();
  uint16_t Fcw = 0;
  asm volatile("fnstcw %0" : "=m"(Fcw));
  Frame[0] = Mxcsr | (static_cast<uint64_t>(Fcw) << 32);
  Frame[1] = 0;                                        // r15
  Frame[2] = 0;                                        // r14
  Frame[3] = reinterpret_cast<uintptr_t>(&F);          // r13: trampoline arg
  Frame[4] = reinterpret_cast<uintptr_t>(&fiberStart); // r12: trampoline fn
  Frame[5] = 0;                                        // rbx
  Frame[6] = 0;                                        // rbp
  Frame[7] = reinterpret_cast<uintptr_t>(&pcj_fiber_trampoline); // ret
  Frame[8] = 0;
  Frame[9] = 0;
  F.Sp = Frame;
#else // aarch64
  char *Top = Stack.Base + Stack.Size;
  auto *Frame = reinterpret_cast<uint64_t *>(Top - 176);
  for (int I = 0; I < 22; ++I)
    Frame[I] = 0;
  uint64_t Fpcr = 0;
  asm volatile("mrs %0, fpcr" : "=r"(Fpcr));
  Frame[0] = reinterpret_cast<uintptr_t>(&fiberStart);            // x19
  Frame[1] = reinterpret_cast<uintptr_t>(&F);                     // x20
  Frame[11] = reinterpret_cast<uintptr_t>(&pcj_fiber_trampoline); // x30
  Frame[20] = Fpcr;
  F.Sp = Frame;
#endif
}

void fiberSwitch(FiberContext &From, FiberContext &To) {
#ifdef PCJ_FIBER_ASAN
  SwitchFrom = &From;
  __sanitizer_start_switch_fiber(&From.FakeStack, To.StackBottom, To.StackSize);
#endif
#ifdef PCJ_FIBER_UCONTEXT
  if (swapcontext(&From.Uc, &To.Uc) != 0) {
    std::perror("pycuda_jit: swapcontext");
    std::abort();
  }
#else
  pcj_fiber_switch(&From.Sp, To.Sp);
#endif
#ifdef PCJ_FIBER_ASAN
  __sanitizer_finish_switch_fiber(From.FakeStack, &SwitchFrom->StackBottom,
                                  &SwitchFrom->StackSize);
#endif
}

void fiberExit(FiberContext &From, FiberContext &To) {
#ifdef PCJ_FIBER_ASAN
  SwitchFrom = &From;
  // A null save slot tells ASan that this fiber dies (frees its fake stack).
  __sanitizer_start_switch_fiber(nullptr, To.StackBottom, To.StackSize);
#endif
#ifdef PCJ_FIBER_UCONTEXT
  setcontext(&To.Uc);
  std::perror("pycuda_jit: setcontext");
#else
  pcj_fiber_switch(&From.Sp, To.Sp);
  std::fputs("pycuda_jit: internal error: an exited fiber was resumed\n",
             stderr);
#endif
  std::abort();
}

} // namespace pcj::rt::cpu
