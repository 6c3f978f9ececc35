// Private to the SSA builder: a nested function or lambda as one
// MakeFunction instruction (see NestedFunctions.cpp).
#pragma once

#include "ir/IR.h"

namespace pcj::ssa {

// MAKE_FUNCTION: Fn (a fresh MakeFunction) names the code constant Code
// (consts[Index]), which the stack held in `CodeValue` (removed).
void makeFunction(ir::Instr *Fn, ir::Instr *CodeValue,
                  const bc::ConstValue &Code, int Index);
// SET_FUNCTION_ATTRIBUTE Flag with value V on Fn (8: the closure tuple,
// whose elements become Fn's operands; 1: the default values, kept as a
// constant tuple in Fn->cval; 4: annotations, ignored).
void setFunctionAttribute(ir::Instr *Fn, ir::Instr *V, int Flag,
                          const SourceLoc &At);

} // namespace pcj::ssa
