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

// Types calls of device functions: the driver implements it by running the
// frontend on the callee (one specialization per argument types).
struct CallSpec {
  types::TypeRef ret = nullptr; // null while a self-recursive call's own
                                // inference is still in progress
  std::string symbol;           // the specialization's function symbol
  // The parameter types the arguments convert to (an explicit signature's;
  // else the argument types themselves).
  std::vector<types::TypeRef> params;
};

struct CalleeParams {
  std::vector<std::string> names;    // positional parameters, in order
  std::vector<ir::CTValue> defaults; // values of the trailing defaults
  size_t captures = 0;  // a nested function: its first `captures` names are
                        // the variables it captures (MakeFunction operands)
  bool varargs = false; // the last name is *args: the positional arguments
                        // after the others arrive as one tuple
};

class CalleeTyper {
public:
  virtual ~CalleeTyper() = default;
  virtual CalleeParams parameters(const ir::CTValue &Fn,
                                  const SourceLoc &At) = 0;
  // Values[K] is argument K's compile-time value, or Invalid when it is
  // only known at run time.  The specialization is per types and values:
  // a constant (`f(x, 32)`), a dtype (`f(x, np.float32)`), an intrinsic
  // (`f(a, cuda.atomic.add)`) or a device function (`f(op, ...)`) passed
  // in is known to the callee's typing as a global would be.
  virtual CallSpec specialize(const ir::CTValue &Fn,
                              const std::vector<types::TypeRef> &Args,
                              const std::vector<ir::CTValue> &Values,
                              const SourceLoc &At) = 0;
};

struct Options {
  bool isKernel = true;           // kernels must return None
  CalleeTyper *callees = nullptr; // null: device-function calls are errors
  // Updated after every inference round with the return type known so far
  // (lets a self-recursive call see its own provisional return type).
  types::TypeRef *provisionalReturn = nullptr;
  // Set (by the callee typer) once the function called itself while being
  // typed: return types that do not unify then name the recursion.
  const bool *recursed = nullptr;
  // A device function's declared return type (explicit signature): every
  // return converts to it.  Null: inferred.
  types::TypeRef declaredReturn = nullptr;
  // Device functions: the compile-time value of each parameter the caller
  // passed one for (Invalid: a run-time value); the Arg gets it as `ct`.
  std::vector<ir::CTValue> argValues;
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
