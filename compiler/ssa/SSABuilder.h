// Stage 3: decoded instructions + CFG -> SSA IR.
//
// Simulates CPython's operand stack symbolically, block by block in reverse
// post-order: stack shuffles (COPY/SWAP/POP_TOP) vanish, every computation
// becomes an ir::Instr, and locals and stack slots that differ between the
// predecessors of a block become phis (loop headers get placeholder phis
// that are completed once their back edges are known).  A local unassigned
// on some path is an "undef" operand of its phis; reading a local whose value
// is a phi emits `checkbound`, which stays where an undef can reach it
// (lowering: zero, or UnboundLocalError in checked mode) and goes elsewhere.
// Trivial phis (one incoming value besides self-references, "unassigned"
// counting as a value) and unused phis are removed; a read of a local
// unassigned on every path is a NameError.  Constructs outside the kernel
// language reached in live code raise CompileError(Unsupported) at their line.
//
//   def f(n):            bb0: %0 = arg 0 "n"; %1 = const 0; jump bb1
//     s = 0              bb1: %2 = phi [bb0: %1], [bb2: %4] ...
//     while s < n:  ==>  ...
//       s += 1
//     return s
#pragma once

#include "bytecode/Instr.h"
#include "cfg/CFG.h"
#include "ir/IR.h"

#include <memory>

namespace pcj::ssa {

std::unique_ptr<ir::Function> buildSSA(const bc::DecodedCode &Code,
                                       const cfg::CFG &G);

} // namespace pcj::ssa
