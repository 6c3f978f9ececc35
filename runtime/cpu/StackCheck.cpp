// StackCheck: pcj_cpu_check_stack, called by generated host code at the
// entry of every device function that calls itself (HostTarget's
// recursionCheck).  A recursion too deep for the thread's stack becomes a
// RecursionError of the launch instead of a write into the guard page
// below the stack (SIGSEGV: the whole interpreter gone).
//
// The stack is the thread's fiber stack (ThreadSlot::Stack, 64 KiB by
// default: PYCUDA_JIT_CPU_STACK_KB) when the block runs on fibers, else the
// OS thread's own stack (pthread_getattr_np, read once per thread).  The
// check keeps a reserve below the caller's frame for what may still run on
// this stack: the function's callees (libm, printf) and the error path.
//
//   depth 10**6:  f(n) = f(n - 1) + 1   ->  KernelRecursionError
//                 "maximum recursion depth exceeded in device function 'f'
//                  (kern.py:3), kernel 'k', thread (0, 0, 0) block (0, 0, 0)"
#include "runtime/cpu/BlockState.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include <pthread.h>

namespace pcj::rt::cpu::detail {
namespace {

#ifdef PCJ_FIBER_ASAN
constexpr uintptr_t kReserve = 64 * 1024; // instrumented frames are larger
#else
constexpr uintptr_t kReserve = 16 * 1024;
#endif

// Lowest usable address of the calling OS thread's stack; 0 if unknown.
uintptr_t osThreadStackLow() {
  thread_local const uintptr_t Low = [] {
    pthread_attr_t A;
    if (pthread_getattr_np(pthread_self(), &A) != 0)
      return uintptr_t(0);
    void *Addr = nullptr;
    size_t Size = 0, Guard = 0;
    int Err = pthread_attr_getstack(&A, &Addr, &Size);
    pthread_attr_getguardsize(&A, &Guard);
    pthread_attr_destroy(&A);
    return Err ? uintptr_t(0) : reinterpret_cast<uintptr_t>(Addr) + Guard;
  }();
  return Low;
}

} // namespace
} // namespace pcj::rt::cpu::detail

using namespace pcj::rt::cpu;
using namespace pcj::rt::cpu::detail;

extern "C" void pcj_cpu_check_stack(pcj_thread_ctx *ctx,
                                    const pcj_error_site *site) {
  const uintptr_t Here =
      reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  uintptr_t Low = 0, Reserve = kReserve;
  if (ThreadSlot *S = ctx && ctx->sched ? slotOf(ctx) : nullptr) {
    Low = reinterpret_cast<uintptr_t>(S->Stack.Base);
    Reserve = std::min<uintptr_t>(kReserve, S->Stack.Size / 4);
  } else {
    Low = osThreadStackLow();
  }
  if (!Low || !ctx || !ctx->sched || Here >= Low + Reserve)
    return;
  {
    ThreadBlock &B = blockOf(ctx);
    const char *Fn = site && site->kernel ? site->kernel : "?";
    const char *File = site && site->file ? site->file : "<unknown>";
    int32_t Line = site ? site->line : 0;
    size_t StackKb = (slotOf(ctx) ? slotOf(ctx)->Stack.Size : 0) / 1024;
    std::string Where = StackKb
                            ? "its fiber stack of " + std::to_string(StackKb) +
                                  " KiB (PYCUDA_JIT_CPU_STACK_KB)"
                            : std::string("the host thread's stack");
    recordFault(*B.G, KernelFault::Kind::Recursion,
                std::string(site && site->message
                                ? site->message
                                : "maximum recursion depth exceeded") +
                    " in device function '" + Fn + "' (" + File + ":" +
                    std::to_string(Line) + "), kernel '" + B.G->Name +
                    "', thread " + dimsString(threadIdxOf(*ctx)) + " block " +
                    dimsString(B.Idx) + ": the recursion used up " + Where,
                threadIdxOf(*ctx), B.Idx, File, Line);
  }
  terminateThread(ctx);
}
