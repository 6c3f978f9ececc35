// Analysis: integer values that are never negative.
//
// Python indexes arrays from the end with negative integers, so every
// signed index needs a wrap-around select -- unless the index is known to
// be >= 0.  This pass marks such values (Instr::nonNegative) so lowering
// emits no wrap-around code for them:
//
//   i = cuda.grid(1)                 -> >= 0 (special registers)
//   for j in range(i, n, stride)     -> >= 0 (start >= 0, step >= 0)
//   k = (i + 1) % n, i // 2, len(a)  -> >= 0
//
// Facts: special registers, grid/gridsize, shapes, sizes and lengths,
// non-negative literals, unsigned and bool values; +, *, //, min, max, abs
// of non-negative values; a % b for b > 0 (Python's sign rule); range
// values with a non-negative start and step (or a negative constant step
// and a stop >= -1); phis and casts of non-negative values.  Like numba,
// integer overflow is assumed not to happen.
#pragma once

#include "ir/IR.h"

namespace pcj::transforms {

// Returns whether it marked anything.
bool markNonNegative(ir::Function &F);

} // namespace pcj::transforms
