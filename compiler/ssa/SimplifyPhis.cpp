// Phi simplification after the SSA builder (see SimplifyPhis.h).
#include "ssa/SimplifyPhis.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <functional>
#include <set>

namespace pcj::ssa {

using ir::Instr;

namespace {

// Rewrites every operand through Repl (chains resolved), in one pass.
void replaceAll(ir::Function &Fn, std::map<Instr *, Instr *> &Repl) {
  if (Repl.empty())
    return;
  for (ir::Block *B : Fn.blocks)
    for (Instr *I : B->instrs)
      for (Instr *&Op : I->operands)
        for (auto It = Repl.find(Op); It != Repl.end(); It = Repl.find(Op))
          Op = It->second;
  for (ir::LocalBinding &L : Fn.bindings)
    for (auto It = Repl.find(L.value); It != Repl.end();
         It = Repl.find(L.value))
      L.value = It->second;
}

// Phi simplification, each step linear in the phis' operands:
//  1. a phi of a local that only "unassigned" markers reach (through other
//     phis) becomes that local's Undef: the local is unbound on every path;
//  2. a checkbound of a value no "unassigned" marker reaches goes: the local
//     is assigned on every path to the read;
//  3. a phi whose operands are one value (besides itself) becomes that
//     value.  "Unassigned" counts as a value: a phi that merges it with a
//     bound value stays, so that lowering can give the unbound path a value
//     of its own (and checked mode its flag) -- the bound value need not
//     dominate the phi;
//  4. phis nothing but phis use are dropped.
} // namespace

void simplifyPhis(ir::Function &Fn, const std::map<Instr *, size_t> &LocalOfPhi,
                  const std::vector<Instr *> &UndefOfLocal) {
  ir::Function *F = &Fn;
  std::vector<Instr *> Phis;
  for (ir::Block *B : F->blocks)
    for (Instr *I : B->instrs)
      if (I->op == ir::Op::Phi)
        Phis.push_back(I);
  std::map<Instr *, Instr *> Repl;
  auto Find = [&](Instr *V) {
    for (auto It = Repl.find(V); It != Repl.end(); It = Repl.find(V))
      V = It->second;
    return V;
  };
  // Users among phis, for the worklists: direct ones (what flows in), and
  // those through a check (which step 2 may remove).
  std::map<Instr *, std::vector<Instr *>> PhiUsers, CheckedPhiUsers;
  for (Instr *P : Phis)
    for (Instr *O : P->operands) {
      if (O->op == ir::Op::Phi && O != P)
        PhiUsers[O].push_back(P);
      if (O->op == ir::Op::CheckBound && O->operands[0]->op == ir::Op::Phi)
        CheckedPhiUsers[O->operands[0]].push_back(P);
    }
  // Phis reached from the seeds through phi users.
  auto Closure = [&](std::set<Instr *> &Set, std::vector<Instr *> Work) {
    while (!Work.empty()) {
      Instr *P = Work.back();
      Work.pop_back();
      for (Instr *U : PhiUsers[P])
        if (!Repl.count(U) && Set.insert(U).second)
          Work.push_back(U);
    }
  };

  // 1. Phis some bound value reaches.
  std::set<Instr *> MayBeBound;
  std::vector<Instr *> Seeds;
  for (Instr *P : Phis)
    for (Instr *O : P->operands)
      if (O->op != ir::Op::Phi && O->op != ir::Op::Undef) {
        MayBeBound.insert(P);
        Seeds.push_back(P);
        break;
      }
  Closure(MayBeBound, Seeds);
  for (Instr *P : Phis)
    if (!MayBeBound.count(P)) {
      auto It = LocalOfPhi.find(P);
      PCJ_ASSERT(It != LocalOfPhi.end(), "a stack phi without values");
      Repl[P] = UndefOfLocal[It->second];
    }

  // 2. Phis an "unassigned" marker reaches; checks of anything else go.
  std::set<Instr *> MayBeUnbound;
  Seeds.clear();
  for (Instr *P : Phis)
    if (!Repl.count(P))
      for (Instr *O : P->operands)
        if (Find(O)->op == ir::Op::Undef) {
          MayBeUnbound.insert(P);
          Seeds.push_back(P);
          break;
        }
  Closure(MayBeUnbound, Seeds);
  for (ir::Block *B : F->blocks)
    for (Instr *I : B->instrs)
      if (I->op == ir::Op::CheckBound) {
        Instr *V = Find(I->operands[0]);
        if (V->op == ir::Op::Undef)
          throw CompileError(ErrorKind::Name, I->loc,
                             "local variable '" + I->str +
                                 "' is used before it is assigned");
        if (!MayBeUnbound.count(V))
          Repl[I] = V;
      }

  // 3. Trivial phis, through a worklist.
  std::vector<Instr *> Work(Phis.rbegin(), Phis.rend());
  while (!Work.empty()) {
    Instr *P = Work.back();
    Work.pop_back();
    if (Repl.count(P))
      continue;
    Instr *Same = nullptr;
    bool Trivial = true;
    for (Instr *O : P->operands) {
      O = Find(O);
      if (O == P || O == Same)
        continue;
      if (Same) {
        Trivial = false;
        break;
      }
      Same = O;
    }
    if (!Trivial || !Same)
      continue;
    Repl[P] = Same;
    for (auto *Users : {&PhiUsers[P], &CheckedPhiUsers[P]})
      for (Instr *U : *Users)
        if (!Repl.count(U))
          Work.push_back(U);
  }
  replaceAll(Fn, Repl);
  for (ir::Block *B : F->blocks)
    std::erase_if(B->instrs, [&](Instr *I) { return Repl.count(I) > 0; });

  // 4. Liveness: phis used (transitively) by non-phi instructions.
  std::set<Instr *> Live;
  for (ir::Block *B : F->blocks)
    for (Instr *I : B->instrs)
      if (I->op != ir::Op::Phi)
        for (Instr *O : I->operands)
          if (O->op == ir::Op::Phi && Live.insert(O).second)
            Work.push_back(O);
  while (!Work.empty()) {
    Instr *P = Work.back();
    Work.pop_back();
    for (Instr *O : P->operands)
      if (O->op == ir::Op::Phi && Live.insert(O).second)
        Work.push_back(O);
  }
  for (ir::Block *B : F->blocks)
    std::erase_if(B->instrs, [&](Instr *I) {
      return I->op == ir::Op::Phi && !Live.count(I);
    });
}

} // namespace pcj::ssa
