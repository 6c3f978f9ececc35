// Conversions to bfloat16 that round the same way on every target (private
// to compiler/lower and stdlib/lowering; see BFloat16.cpp).
#pragma once

#include "types/BFloat16.h"

#include <llvm/IR/IRBuilder.h>

namespace pcj::lower {

// The rounding of a conversion to bfloat16 (CUDA's _rn, _rz, _rd, _ru).
enum class BF16Round { Nearest, Zero, Down, Up };

// V (of the scalar type From: bool, an int or a float) as a bfloat16,
// rounded once by Mode.  A NaN becomes bfloat16's NaN 0x7fff.
llvm::Value *toBFloat16(llvm::IRBuilder<> &B, llvm::Value *V,
                        types::TypeRef From, BF16Round Mode);

} // namespace pcj::lower
