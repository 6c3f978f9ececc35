// Read-only array parameters (see ArrayEffects.h).
#include "transforms/ArrayEffects.h"

#include <map>
#include <set>

namespace pcj::transforms {

using ir::Instr;
using ir::Op;

namespace {

// Intrinsics that take arrays but only read them.
bool readsOnly(const std::string &Key) {
  return Key == "len" || Key.rfind("array.", 0) == 0 || Key == "enumerate" ||
         Key == "zip" || Key == "print";
}

} // namespace

std::vector<bool> readOnlyArrayParams(const ir::Function &F) {
  // Roots: which parameters each array-carrying value may point into.
  std::map<const Instr *, std::set<int64_t>> Roots;
  std::set<int64_t> Written;
  bool Changed = true;
  auto Carries = [](const Instr *I) {
    return I->type && (I->type->isArray() || I->type->isTuple() ||
                       I->type->kind() == types::Kind::Record ||
                       I->type->kind() == types::Kind::Iterable ||
                       I->type->kind() == types::Kind::Iterator);
  };
  while (Changed) { // propagate through phis and loops
    Changed = false;
    for (const ir::Block *B : F.blocks)
      for (const Instr *I : B->instrs) {
        if (!Carries(I))
          continue;
        std::set<int64_t> R;
        if (I->op == Op::Arg)
          R.insert(I->index);
        else if (I->op != Op::Call || !I->intrinsic.empty())
          for (const Instr *O : I->operands)
            if (Roots.count(O))
              R.insert(Roots[O].begin(), Roots[O].end());
        if (I->op == Op::Call && I->intrinsic.empty()) {
          // A device function may return a view of any argument it got.
          for (const Instr *O : I->operands)
            if (Roots.count(O))
              R.insert(Roots[O].begin(), Roots[O].end());
        }
        auto &Slot = Roots[I];
        size_t Before = Slot.size();
        Slot.insert(R.begin(), R.end());
        Changed = Changed || Slot.size() != Before;
      }
  }
  auto MarkWritten = [&](const Instr *V) {
    auto It = Roots.find(V);
    if (It != Roots.end())
      Written.insert(It->second.begin(), It->second.end());
  };
  for (const ir::Block *B : F.blocks)
    for (const Instr *I : B->instrs) {
      if (I->op == Op::SetItem || I->op == Op::SetAttr) {
        MarkWritten(I->operands[0]);
      } else if (I->op == Op::Call) {
        bool Safe = !I->intrinsic.empty() && readsOnly(I->intrinsic);
        if (!Safe)
          for (const Instr *O : I->operands)
            MarkWritten(O);
      }
    }
  std::vector<bool> Out(F.params.size(), false);
  for (size_t K = 0; K < F.params.size(); ++K)
    Out[K] = F.params[K].type && F.params[K].type->isArray() &&
             !Written.count(int64_t(K));
  return Out;
}

} // namespace pcj::transforms
