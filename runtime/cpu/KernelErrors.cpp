// KernelErrors: the C entry points generated host code calls when a thread
// of a kernel fails -- an index out of range (pcj_cpu_index_error), a
// checked-mode error or an `assert`/`raise` site (pcj_cpu_error), a raise
// with a run-time message (pcj_cpu_raise).  Each records the launch's fault
// (the first one wins; the launch raises it as a Python exception naming the
// thread, block, file and line) and ends the calling thread, which then
// counts as exited at barriers.  Outside the CPU executor they abort.
#include "runtime/cpu/BlockState.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace pcj::rt::cpu;
using namespace pcj::rt::cpu::detail;
using Kind = KernelFault::Kind;

extern "C" {

void pcj_cpu_index_error(pcj_thread_ctx *ctx, const pcj_index_site *site,
                         const int64_t *index, const int64_t *shape,
                         int32_t ndim, int32_t axis) {
  if (!ctx || !ctx->sched) {
    std::fprintf(stderr, "pycuda_jit: index error outside the CPU executor\n");
    std::abort();
  }
  {
    ThreadBlock &B = blockOf(ctx);
    const char *Kernel = site && site->kernel ? site->kernel : B.G->Name;
    const char *File = site && site->file ? site->file : "<unknown>";
    int32_t Line = site ? site->line : 0;
    auto Tuple = [ndim](const int64_t *V) {
      std::string T = "(";
      for (int32_t K = 0; K < ndim; ++K)
        T += (K ? ", " : "") + std::to_string(V[K]);
      return T + (ndim == 1 ? ",)" : ")");
    };
    recordFault(
        *B.G, Kind::IndexError,
        "index " + std::to_string(index[axis]) + " is out of bounds for axis " +
            std::to_string(axis) + " with size " + std::to_string(shape[axis]) +
            " (index " + Tuple(index) + " into shape " + Tuple(shape) +
            ") in kernel '" + Kernel + "' (" + File + ":" +
            std::to_string(Line) + "), thread " +
            dimsString(threadIdxOf(*ctx)) + " block " + dimsString(B.Idx),
        threadIdxOf(*ctx), B.Idx, File, Line);
  }
  terminateThread(ctx);
}

void pcj_cpu_error(pcj_thread_ctx *ctx, const pcj_error_site *site) {
  if (!ctx || !ctx->sched) {
    std::fprintf(stderr,
                 "pycuda_jit: kernel error outside the CPU executor: %s\n",
                 site && site->message ? site->message : "");
    std::abort();
  }
  {
    ThreadBlock &B = blockOf(ctx);
    Kind K = !site                                   ? Kind::IndexError
             : site->kind == PCJ_ERROR_ZERO_DIVISION ? Kind::ZeroDivision
             : site->kind == PCJ_ERROR_VALUE         ? Kind::ValueError
             : site->kind == PCJ_ERROR_UNBOUND_LOCAL ? Kind::UnboundLocal
             : site->kind == PCJ_ERROR_RAISED        ? Kind::Exception
                                                     : Kind::IndexError;
    const char *Exception =
        K == Kind::Exception && site->exception ? site->exception : nullptr;
    std::string Message = site && site->message ? site->message : "error";
    if (K == Kind::Exception && Message.empty())
      Message = Exception ? Exception : "Exception";
    const char *Kernel = site && site->kernel ? site->kernel : B.G->Name;
    const char *File = site && site->file ? site->file : "<unknown>";
    int32_t Line = site ? site->line : 0;
    recordFault(*B.G, K,
                Message + " in kernel '" + Kernel + "' (" + File + ":" +
                    std::to_string(Line) + "), thread " +
                    dimsString(threadIdxOf(*ctx)) + " block " +
                    dimsString(B.Idx),
                threadIdxOf(*ctx), B.Idx, File, Line, Exception);
  }
  terminateThread(ctx);
}

void pcj_cpu_raise(pcj_thread_ctx *ctx, const char *message) {
  if (!ctx || !ctx->sched) {
    std::fprintf(stderr,
                 "pycuda_jit: kernel error outside the CPU executor: %s\n",
                 message ? message : "");
    std::abort();
  }
  {
    ThreadBlock &B = blockOf(ctx);
    recordFault(*B.G, Kind::Raised,
                std::string(message ? message : "exception raised") +
                    " in kernel '" + B.G->Name + "', thread " +
                    dimsString(threadIdxOf(*ctx)) + " block " +
                    dimsString(B.Idx),
                threadIdxOf(*ctx), B.Idx);
  }
  terminateThread(ctx);
}

} // extern "C"
