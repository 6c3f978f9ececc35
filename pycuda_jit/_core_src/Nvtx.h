// NVTX ranges around compiles and launches, for Nsight Systems and other
// NVTX tools, when PYCUDA_JIT_NVTX=1 (read once).  Names:
//   "pycuda_jit compile <qualname>", "pycuda_jit launch <qualname>".
// NVTX is header-only (nvtx3/, from the CUDA toolkit at build time): without
// a tool attached (NVTX_INJECTION64_PATH) each call returns at once.  Built
// without the headers (PCJ_HAVE_NVTX unset), ranges are compiled out.
//
//   NvtxRange R("launch", D->pyfunc);   // pushed here, popped at scope end
#pragma once

#include "Glue.h"

namespace pcj::py {

/// PYCUDA_JIT_NVTX=1 and NVTX support built in.
bool nvtxEnabled();
/// Whether this build has NVTX support (for `info`).
bool nvtxBuiltIn();

class NvtxRange {
public:
  NvtxRange(const char *What, PyObject *Func) {
    if (nvtxEnabled()) [[unlikely]]
      push(What, Func);
  }
  ~NvtxRange() {
    if (Pushed) [[unlikely]]
      pop();
  }
  NvtxRange(const NvtxRange &) = delete;
  NvtxRange &operator=(const NvtxRange &) = delete;

private:
  void push(const char *What, PyObject *Func);
  void pop();
  bool Pushed = false;
};

} // namespace pcj::py
