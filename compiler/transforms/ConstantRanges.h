// Pass: Python int constants keep their exact values (NumPy 2, NEP 50).
//
// A Python int (a literal, or a global / closure variable holding one) is a
// weak scalar: it takes the type of what it meets.  Runs after InsertCasts,
// when every conversion is a Cast, and
//  - folds a comparison of an integer with a Python int outside that
//    integer's type to its known result (NumPy 2 compares the values):
//
//      %3 = cast %2 : int32      (%2 = const 5000000000)
//      %4 = compare < %1, %3     ==>   %4 = const True
//
//  - rejects any other use that cannot hold the value: a conversion to an
//    integer type it does not fit ("Python integer 5000000000 out of bounds
//    for int32", TypingError at the constant), or to a float when it is
//    beyond the largest double ("int too large to convert to float").
//    Conversions to floats are exact (correctly rounded) in lowering.
#pragma once

#include "ir/IR.h"

namespace pcj::transforms {

// Returns whether it folded anything; throws CompileError(Typing).
bool checkConstantRanges(ir::Function &F);

} // namespace pcj::transforms
