// Analysis: which array parameters of a kernel are only read, and where the
// others may be written.
//
// An array argument is read-only when no store, atomic or device-function
// call can reach its memory through the argument or any view derived from it
// (row views, slices, iteration, phis).  Lowering marks the data pointers
// of read-only arrays `noalias readonly` (NVPTX then uses ld.global.nc, the
// read-only data cache) when the runtime has checked that no written array
// overlaps them.  The launch refuses a read-only host array (a NumPy array
// whose flags.writeable is False) for a parameter the kernel may write,
// naming the first write (paramWrites).
//
//   def k(a, b, out): out[i] = a[i] + b[i]   ->   read-only: {a, b}
//                                                 out: first written at out[i]
//                                                 = ...
#pragma once

#include "ir/IR.h"

#include <map>
#include <string>
#include <vector>

namespace pcj::transforms {

// One flag per kernel parameter: true for array parameters only read.  Any
// call other than a read-only intrinsic counts as writing its arguments.
std::vector<bool> readOnlyArrayParams(const ir::Function &F);

// One entry per kernel parameter: the first instruction (in block order)
// that may write memory an array in the parameter refers to, or null when
// none can.  A call of a device function (in Callees, by symbol) writes an
// argument only when the callee may write that parameter (looked through,
// recursion included); other calls as in readOnlyArrayParams.
std::vector<const ir::Instr *>
paramWrites(const ir::Function &F,
            const std::map<std::string, const ir::Function *> &Callees);

} // namespace pcj::transforms
