// Read-only array parameters and where the others are written (see
// ArrayEffects.h).
#include "transforms/ArrayEffects.h"

#include <functional>
#include <set>

namespace pcj::transforms {

using ir::Instr;
using ir::Op;

namespace {

// Whether a call may write memory its operand K refers to.
using CallWrites = std::function<bool(const Instr *Call, size_t K)>;

// Per parameter of F: the first instruction that may write memory reachable
// from it (null: none).
std::vector<const Instr *> firstWrites(const ir::Function &F,
                                       const CallWrites &Writes) {
  // Roots: which parameters each array-carrying value may point into.
  std::map<const Instr *, std::set<int64_t>> Roots;
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
        // An allocating intrinsic's result is a new array: no parameter's.
        bool Fresh = I->intrinsic &&
                     stdlib::hasProp(*I->intrinsic, stdlib::props::Allocates);
        if (I->op == Op::Arg)
          R.insert(I->index);
        else if (!Fresh && (I->op != Op::Call || I->intrinsic))
          for (const Instr *O : I->operands)
            if (Roots.count(O))
              R.insert(Roots[O].begin(), Roots[O].end());
        if (I->op == Op::Call && !I->intrinsic) {
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
  std::map<int64_t, const Instr *> First;
  auto MarkWritten = [&](const Instr *V, const Instr *At) {
    auto It = Roots.find(V);
    if (It != Roots.end())
      for (int64_t P : It->second)
        First.emplace(P, At); // keeps the first
  };
  for (const ir::Block *B : F.blocks)
    for (const Instr *I : B->instrs) {
      if (I->op == Op::SetItem || I->op == Op::SetAttr) {
        MarkWritten(I->operands[0], I);
      } else if (I->op == Op::Call) {
        // The registry's column: intrinsics that only read their arguments.
        if (I->intrinsic &&
            stdlib::hasProp(*I->intrinsic, stdlib::props::ReadsArgsOnly))
          continue;
        for (size_t K = 0; K < I->operands.size(); ++K)
          if (Writes(I, K))
            MarkWritten(I->operands[K], I);
      }
    }
  std::vector<const Instr *> Out(F.params.size(), nullptr);
  for (const auto &[P, At] : First)
    if (P >= 0 && size_t(P) < Out.size())
      Out[P] = At;
  return Out;
}

} // namespace

std::vector<bool> readOnlyArrayParams(const ir::Function &F) {
  std::vector<const Instr *> W =
      firstWrites(F, [](const Instr *, size_t) { return true; });
  std::vector<bool> Out(F.params.size(), false);
  for (size_t K = 0; K < F.params.size(); ++K)
    Out[K] = F.params[K].type && F.params[K].type->isArray() && !W[K];
  return Out;
}

std::vector<const Instr *>
paramWrites(const ir::Function &F,
            const std::map<std::string, const ir::Function *> &Callees) {
  // Which parameters of each device function may be written: the least
  // fixed point, from "none" (recursion converges; writes only get added).
  std::map<const ir::Function *, std::vector<bool>> Written;
  for (const auto &[Symbol, Fn] : Callees)
    Written[Fn].assign(Fn->params.size(), false);
  CallWrites Writes = [&](const Instr *Call, size_t K) {
    auto It =
        !Call->intrinsic ? Callees.find(Call->calleeSymbol) : Callees.end();
    if (It == Callees.end())
      return true; // not a device function: assume it writes
    const std::vector<bool> &W = Written[It->second];
    return K == 0 || K - 1 >= W.size() || W[K - 1];
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const auto &[Symbol, Fn] : Callees) {
      std::vector<const Instr *> W = firstWrites(*Fn, Writes);
      for (size_t K = 0; K < W.size(); ++K)
        if (W[K] && !Written[Fn][K]) {
          Written[Fn][K] = true;
          Changed = true;
        }
    }
  }
  return firstWrites(F, Writes);
}

} // namespace pcj::transforms
