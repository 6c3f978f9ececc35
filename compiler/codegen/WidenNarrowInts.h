// WidenNarrowInts: i8/i16 integer operations that ptxas mistranslates done
// in 32 bits inside inline PTX (NVPTX only; see WidenNarrowInts.cpp).
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

// Rewrites every i8/i16 llvm.abs in M, and with AllArithmetic every i8/i16
// add, sub, mul and shl; returns how many instructions it rewrote.  Runs
// after optimisation, right before PTX emission.
unsigned widenNarrowInts(llvm::Module &M, bool AllArithmetic);

} // namespace pcj::codegen
