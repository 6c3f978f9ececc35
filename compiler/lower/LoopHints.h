// Loop-unrolling policy: which back edges get `!llvm.loop` hints.
//
// Lowering calls setUnrollHint on every Jump; a jump that closes one of
// the loops below gets metadata, other branches none:
//
//   for i in range(start, n, cuda.gridsize(1)): out[i] = ...
//     back edge -> !llvm.loop !{!"llvm.loop.unroll.disable"}
//   for j in range(tid, n, cuda.blockDim.x): ...
//     back edge -> !llvm.loop !{!"llvm.loop.unroll.count", i32 4}
#pragma once

#include "ir/IR.h"

namespace llvm {
class BranchInst;
} // namespace llvm

namespace pcj::lower {

// Br: the branch lowered for the IR jump from Latch to Header.
void setUnrollHint(llvm::BranchInst *Br, const ir::Block *Latch,
                   const ir::Block *Header);

} // namespace pcj::lower
