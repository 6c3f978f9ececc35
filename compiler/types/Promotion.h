// Type promotion for operators: NumPy 2 rules (NEP 50) with Python literals as
// "weak" scalars.  A weak operand adapts to a strong one of the same kind:
//   float32 * 2.0 -> float32,  int32 + 1 -> int32,  int32 * 2.5 -> float64,
//   uint64 + int64 -> float64 (NumPy), int16 + float32 -> float32.
// Bool behaves as the narrowest integer in arithmetic (True + True == 2).
#pragma once

#include "types/Type.h"

namespace pcj::types {

struct Operand {
  TypeRef type;
  bool weak;
};

// The common type two numeric operands are converted to before an arithmetic
// or comparison operation; nullptr if either is not numeric.  Sets ResultWeak
// when both were weak (the result is still a "literal-like" value).
TypeRef promote(Operand A, Operand B, bool *ResultWeak = nullptr);

// Unification of the types reaching a phi (a variable assigned different
// types on different paths): same rules as promote; nullptr if they do not
// unify (e.g. an array and a float).
TypeRef unify(Operand A, Operand B, bool *ResultWeak = nullptr);

// True when every value of `From` is representable in `To` (int -> float
// counts as safe when the float's mantissa holds the int's bits).
bool canCastSafely(TypeRef From, TypeRef To);

} // namespace pcj::types
