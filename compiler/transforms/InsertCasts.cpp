// Explicit conversions (see InsertCasts.h).
#include "transforms/InsertCasts.h"

namespace pcj::transforms {

using ir::Instr;
using ir::Op;

bool insertCasts(ir::Function &F) {
  bool Changed = false;
  for (ir::Block *B : F.blocks) {
    // Iterate over a snapshot: casts are inserted into the vector.
    std::vector<Instr *> Snapshot = B->instrs;
    for (Instr *I : Snapshot) {
      for (size_t K = 0; K < I->argTypes.size() && K < I->operands.size();
           ++K) {
        types::TypeRef Want = I->argTypes[K];
        Instr *V = I->operands[K];
        if (!Want || V->op == Op::Undef || V->type == Want)
          continue;
        // Phi operands convert at the end of their incoming block.
        Instr *C = I->op == Op::Phi ? F.insert(I->incoming[K], nullptr,
                                               Op::Cast, V->loc, {V})
                                    : F.insert(B, I, Op::Cast, V->loc, {V});
        C->type = Want;
        C->weak = V->weak;
        I->operands[K] = C;
        Changed = true;
      }
    }
  }
  return Changed;
}

} // namespace pcj::transforms
