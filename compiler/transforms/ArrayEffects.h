// Analysis: which array parameters of a kernel are only read.
//
// An array argument is read-only when no store, atomic or device-function
// call can reach its memory through the argument or any view derived from it
// (row views, slices, iteration, phis).  Lowering marks the data pointers
// of read-only arrays `noalias readonly` (NVPTX then uses ld.global.nc, the
// read-only data cache) when the runtime has checked that no written array
// overlaps them.
//
//   def k(a, b, out): out[i] = a[i] + b[i]   ->   read-only: {a, b}
#pragma once

#include "ir/IR.h"

#include <vector>

namespace pcj::transforms {

// One flag per kernel parameter: true for array parameters only read.
std::vector<bool> readOnlyArrayParams(const ir::Function &F);

} // namespace pcj::transforms
