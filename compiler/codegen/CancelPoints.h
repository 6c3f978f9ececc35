// CancelPoints: every loop of an optimized host module polls the CPU
// executor's stop word (runtime/cpu/ThreadCtx.h, pcj_cpu_stop_requests /
// pcj_cpu_poll).  See CancelPoints.cpp.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

// Inserts the poll into the header of every loop of every function defined
// in M; returns how many loops got one.
unsigned insertCancelPoints(llvm::Module &M);

} // namespace pcj::codegen
