// Prefetch: the code generator (libpcj_codegen.so, with LLVM) and, for a
// GPU, nvJitLink (~100 MB) are loaded on the compile pool before the first
// compile needs them.
//
//   before: first launch = load LLVM (~3 ms) + code generation + load
//           nvJitLink (~7 ms CPU) + ptxas, one after another
//   after:  both loads start at the first decoration (cache=False); the
//           first compile finds LLVM loaded or loading, and nvJitLink's load
//           runs beside its code generation
//
// Only with a compile pool (PYCUDA_JIT_COMPILE_THREADS is not 0) and not for
// cache=True kernels (a disk-cache hit never loads LLVM).  A failed load is
// not reported here: the compile that needs the library raises it.
#pragma once

namespace pcj::py {

// Starts the loads the backend chosen so far needs (the code generator
// always; nvJitLink once the backend is known to be CUDA), each at most
// once per process; returns at once.
void prefetchCompiler();

} // namespace pcj::py
