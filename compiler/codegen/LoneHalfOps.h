// LoneHalfOps: float16 +, -, * that no multiply-add could pair up lose
// their `.rn` in the PTX (NVPTX only; see LoneHalfOps.cpp).
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

// Marks those float16 fadd/fsub/fmul of M `contract`; returns how many.
// Runs after optimisation, right before PTX emission.
unsigned markLoneHalfOps(llvm::Module &M);

} // namespace pcj::codegen
