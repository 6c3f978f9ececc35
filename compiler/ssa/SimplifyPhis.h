// The SSA builder's last step: trivial and unused phis go, and the checks of
// locals no "unassigned" marker reaches (the steps are listed at
// simplifyPhis in SimplifyPhis.cpp).  Split from SSABuilder.cpp, which
// places the phis.
//
//   %2 = phi [bb0: %1], [bb2: %2]    ==>   uses of %2 read %1
#pragma once

#include "ir/IR.h"

#include <cstddef>
#include <map>
#include <vector>

namespace pcj::ssa {

// LocalOfPhi: the phis of locals -> the local's slot; UndefOfLocal: the
// entry block's "unassigned" marker of each local.
void simplifyPhis(ir::Function &F,
                  const std::map<ir::Instr *, size_t> &LocalOfPhi,
                  const std::vector<ir::Instr *> &UndefOfLocal);

} // namespace pcj::ssa
