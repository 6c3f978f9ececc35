// Int8ToHalf: int8/uint8 -> float16 conversions as PTX's own
// cvt.rn.f16.s8 / .u8 (NVPTX only; see Int8ToHalf.cpp).
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace pcj::codegen {

// Rewrites every sitofp/uitofp i8 -> half of M; returns how many.  Runs
// after optimisation, right before PTX emission.
unsigned convertInt8ToHalf(llvm::Module &M);

} // namespace pcj::codegen
