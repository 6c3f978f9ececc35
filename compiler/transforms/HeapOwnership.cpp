// Heap slots of allocating instructions (see HeapOwnership.h).
#include "transforms/HeapOwnership.h"

#include "stdlib/IntrinsicId.h"

#include <map>
#include <set>
#include <vector>

namespace pcj::transforms {

using ir::Instr;
using ir::Op;
using types::Kind;
using types::TypeRef;

namespace {

bool holdsArray(TypeRef T) {
  if (!T)
    return false;
  if (T->isArray())
    return true;
  if (T->isTuple())
    for (TypeRef E : T->elems())
      if (holdsArray(E))
        return true;
  return false;
}

// An instruction that hands the function heap blocks.
bool handsHeapBlocks(const Instr *I) {
  if (I->op != Op::Call)
    return false;
  if (I->intrinsic)
    return stdlib::hasProp(*I->intrinsic, stdlib::props::Allocates);
  return !I->operands.empty() && I->operands[0]->type &&
         I->operands[0]->type->kind() == Kind::Function &&
         returnsHeapBlocks(I->type);
}

} // namespace

bool mayReferToArrays(TypeRef T) {
  if (!T)
    return false;
  switch (T->kind()) {
  case Kind::Array:
  case Kind::Iterable:
  case Kind::Iterator:
  case Kind::Function:
    return true;
  case Kind::Tuple:
    for (TypeRef E : T->elems())
      if (mayReferToArrays(E))
        return true;
    return false;
  default:
    return false;
  }
}

bool returnsHeapBlocks(TypeRef T) { return holdsArray(T); }

bool assignHeapOwnership(ir::Function &F) {
  F.heapSlotEscapes.clear();
  std::map<const Instr *, std::vector<Instr *>> Users;
  std::vector<Instr *> Sites;
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs) {
      I->heapSlot = -1;
      I->heapKeep = false;
      for (const Instr *O : I->operands)
        Users[O].push_back(I);
      if (handsHeapBlocks(I))
        Sites.push_back(I);
    }
  for (Instr *S : Sites) {
    // Every value computed from S's blocks (S itself included).
    std::set<const Instr *> Reach{S};
    std::vector<const Instr *> Work{S};
    bool Escapes = false, ThroughPhi = false;
    while (!Work.empty()) {
      const Instr *V = Work.back();
      Work.pop_back();
      for (Instr *U : Users[V]) {
        if (U->op == Op::Return) {
          Escapes = true;
          continue;
        }
        if (!mayReferToArrays(U->type) || !Reach.insert(U).second)
          continue;
        ThroughPhi |= U->op == Op::Phi;
        Work.push_back(U);
      }
    }
    S->heapSlot = int(F.heapSlotEscapes.size());
    S->heapKeep = ThroughPhi;
    F.heapSlotEscapes.push_back(Escapes);
  }
  return !Sites.empty();
}

} // namespace pcj::transforms
