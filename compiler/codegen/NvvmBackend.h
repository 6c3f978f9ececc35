// NvvmBackend: NVVM IR text (NvvmIrWriter.h) -> PTX or LTO-IR with NVIDIA's
// libNVVM, loaded with dlopen on first use.
//
//   NVVM IR text --+ libdevice.10.bc (lazily added: only what is used)
//                  --nvvmVerifyProgram--nvvmCompileProgram--> PTX
//                                          (-gen-lto)       -> LTO-IR
//
// LTO-IR is the form nvJitLink optimizes across modules (nvJitLink -lto):
// our kernel and foreign LTO-IR (.ltoir files, NVRTC -dlto output) are
// inlined into each other there.  Only libNVVM makes LTO-IR, and it reads
// NVVM IR (LLVM 7 dialect), hence the writer.
//
// The library is found by support/Toolkit.h (PYCUDA_JIT_NVVM alone if set;
// else CUDA_HOME/CUDA_PATH, NVIDIA's pip wheels, the system).
//
// Options: -arch=compute_XY, -opt=0/3 (our opt level: 0 or else 3),
// fastMath: -ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1; otherwise -fma=0 (the
// contraction rule already made every fused multiply-add an llvm.fma:
// FuseMultiplyAdd.h), -ftz=0, precise division and square root.
//
// Thread safety: libNVVM programs are independent; compiles may run in
// several threads.
#pragma once

#include <string>

namespace pcj::codegen {

enum class NvvmOutput { Ptx, LtoIr };

struct NvvmCompileOptions {
  int ccMajor = 9, ccMinor = 0;
  int optLevel = 3;
  bool fastMath = false;
  NvvmOutput output = NvvmOutput::Ptx;
};

// Whether libNVVM loads (else *Why says what was tried).
bool libNvvmAvailable(std::string *Why = nullptr);

// Verifies and compiles Ir (one module; libdevice is added when Ir calls
// __nv_* functions).  Throws CompileError(Backend) with libNVVM's log when
// libNVVM is missing or rejects the program.
std::string compileNvvmIr(const std::string &Ir, const NvvmCompileOptions &O);

} // namespace pcj::codegen
