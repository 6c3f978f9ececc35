// Types of compile-time values, for type inference: Python constants
// (literals, and the values globals, closure variables and module
// attributes hold) and what a global names (a module, an intrinsic, a
// dtype, a device function, a host array...).
//
//   2.5 -> float64 (weak: a Python literal, NEP 50)     2**63 -> uint64 (weak)
//   np.float32(2.5) -> float32                          (1, np.int8(3)) ->
//   Tuple(int64, int8) math -> module(math)         a global NumPy float32
//   array -> array(float32, 1d, C, const)
#pragma once

#include "ir/IR.h"

#include <string>

namespace pcj::typeinfer {

// A type and whether it is weak (a Python scalar, which takes the type of
// the typed value it meets).
struct InferredType {
  types::TypeRef type = nullptr;
  bool weak = false;
};

// A Python constant's type.  Throws CompileError at `At` for values kernels
// cannot hold (an int beyond 64 bits inside a tuple, a bytes object...).
InferredType typeOfConst(const ir::Instr *At, const bc::ConstValue &V);

// A compile-time value's type; `What` names it in messages ("global 'x'").
InferredType typeOfCompileTimeValue(const ir::Instr *At, const ir::CTValue &V,
                                    const std::string &What);

} // namespace pcj::typeinfer
