// Pass: make implicit conversions explicit.
//
// Type inference records in Instr::argTypes the type each operand must have
// (promotion of binary operands, a store's element type, a phi's unified
// type, intrinsic argument conversions).  This pass inserts a Cast for every
// operand whose type differs, so lowering never converts implicitly:
//
//   %2 = binop * %0, %1   (%0: float32, %1: int64 weak; argTypes float32)
//   ==>  %3 = cast %1 : float32;  %2 = binop * %0, %3
//
// Casts for phi operands go at the end of the incoming block (LLVM's
// IRBuilder folds casts of constants).  Returns whether it changed anything.
#pragma once

#include "ir/IR.h"

namespace pcj::transforms {

bool insertCasts(ir::Function &F);

} // namespace pcj::transforms
