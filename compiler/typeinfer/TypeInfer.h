// Stage 4: type inference.  Gives every SSA value a type.
//
// Inputs: the SSA function, the parameter types of the specialization being
// compiled, and a Resolver for globals / closure variables / module
// attributes.  Forward data-flow to a fixed point: each instruction's type is
// a function of its operands' types; a phi's type unifies its incoming types
// (NEP 50 promotion, Python literals being weak).  Names are looked up in the
// stdlib registry first (cuda.grid, math.sin, range, array.shape, ...), then
// through the Resolver.  Also records, per instruction, the types its
// operands must be converted to (Instr::argTypes) for transforms/InsertCasts.
//
//   %3 = binop * %0, %2      a: float32, 2.0 (weak)  ->  %3 : float32
//
// Throws CompileError(Typing / Name / Unsupported) naming the line.
#pragma once

#include "ir/IR.h"

#include <string>
#include <vector>

namespace pcj::typeinfer {

struct Options {
  bool isKernel = true; // kernels must return None
};

// Every global / closure / attribute resolution made, in order (for cache
// keys and diagnostics): "global math -> module math".
struct Resolution {
  std::string what;
  ir::CTValue value;
};

std::vector<Resolution> inferTypes(ir::Function &F,
                                   const std::vector<types::TypeRef> &ArgTypes,
                                   ir::Resolver &R, const Options &O);

} // namespace pcj::typeinfer
