// Python int constants keep their exact values (see ConstantRanges.h).
#include "transforms/ConstantRanges.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <map>

namespace pcj::transforms {

using ir::Instr;
using ir::Op;

namespace {

// A comparison operand that is a Python int (or a cast of one) outside the
// integer type it is compared in: +1 when it is above every value of that
// type, -1 when below; 0 otherwise.
int outOfRange(const Instr *Operand) {
  if (!Operand->type->isInt())
    return 0;
  const bc::ConstValue *V = ir::pythonIntValue(
      Operand->op == Op::Cast ? Operand->operands[0] : Operand);
  if (!V || ir::pythonIntFits(*V, Operand->type))
    return 0;
  bool Negative = V->bigInt ? V->text[0] == '-' : V->i < 0;
  return Negative ? -1 : 1;
}

// `x OP c` where c is beyond x's integer type: the result every x gives.
bool foldCompare(Instr *I, std::map<const Instr *, int> &Uses) {
  for (int K = 0; K < 2; ++K) {
    Instr *C = I->operands[K];
    int Side = outOfRange(C);
    if (!Side || (C->op == Op::Cast && Uses[C] != 1))
      continue;
    // Order of the left operand against the right one, whatever x is.
    int Order = K == 1 ? -Side : Side;
    bool R = false;
    switch (bc::CmpKind(I->index)) {
    case bc::CmpKind::Lt:
    case bc::CmpKind::Le:
      R = Order < 0;
      break;
    case bc::CmpKind::Gt:
    case bc::CmpKind::Ge:
      R = Order > 0;
      break;
    case bc::CmpKind::Eq:
      R = false;
      break;
    case bc::CmpKind::Ne:
      R = true;
      break;
    }
    // A cast made for this operand only (InsertCasts) goes with it.
    if (C->op == Op::Cast) {
      auto &Instrs = C->parent->instrs;
      Instrs.erase(std::find(Instrs.begin(), Instrs.end(), C));
    }
    for (Instr *O : I->operands)
      --Uses[O];
    I->op = Op::Const;
    I->cval = bc::ConstValue::ofBool(R);
    I->operands.clear();
    I->argTypes.clear();
    I->weak = false;
    return true;
  }
  return false;
}

[[noreturn]] void outOfBounds(const Instr *C, const bc::ConstValue &V,
                              types::TypeRef T) {
  throw CompileError(
      ErrorKind::Typing, C->loc,
      "Python integer " + V.repr() + " out of bounds for " + T->str(),
      "a Python int takes the type of the value it meets (NumPy 2, NEP 50); "
      "make that value wider (e.g. np.int64(...)) or the constant smaller");
}

void check(const Instr *C, const bc::ConstValue &V, types::TypeRef T) {
  if (T->isInt() || T->isBool()) {
    if (!ir::pythonIntFits(V, T))
      outOfBounds(C, V, T);
    return;
  }
  double D;
  if ((T->isFloat() || T->isComplex()) && !V.asDouble(D))
    throw CompileError(ErrorKind::Typing, C->loc,
                       "int too large to convert to float (" + V.repr() + ")");
}

} // namespace

bool checkConstantRanges(ir::Function &F) {
  std::map<const Instr *, int> Uses;
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs)
      for (Instr *O : I->operands)
        ++Uses[O];
  bool Changed = false;
  for (ir::Block *B : F.blocks) {
    std::vector<Instr *> Snapshot = B->instrs; // folding erases casts
    for (Instr *I : Snapshot)
      if (I->op == Op::Compare)
        Changed |= foldCompare(I, Uses);
  }
  for (ir::Block *B : F.blocks)
    for (Instr *I : B->instrs)
      for (Instr *O : I->operands)
        if (const bc::ConstValue *V = ir::pythonIntValue(O))
          check(O, *V, I->op == Op::Cast ? I->type : O->type);
  return Changed;
}

} // namespace pcj::transforms
