// Non-negative integer values (see NonNegative.h).
#include "transforms/NonNegative.h"

#include <set>

namespace pcj::transforms {

using ir::Instr;
using ir::Op;

namespace {

bool constantInt(const Instr *I, int64_t &Out) {
  while (I->op == Op::Cast)
    I = I->operands[0];
  const bc::ConstValue *C = nullptr;
  if (I->op == Op::Const)
    C = &I->cval;
  else if ((I->op == Op::Global || I->op == Op::Deref || I->op == Op::GetAttr ||
            I->op == Op::Arg) &&
           I->ct.kind == ir::CTValue::Kind::Const)
    C = &I->ct.value;
  if (!C)
    return false;
  if (C->isSmallInt()) {
    Out = C->i;
    return true;
  }
  if (C->kind == bc::ConstValue::Kind::Bool) {
    Out = C->b;
    return true;
  }
  return false;
}

class NonNegativeFacts {
public:
  explicit NonNegativeFacts(ir::Function &F) : F(F) {}

  bool run() {
    // Optimistic for phis: assume every phi non-negative, then remove
    // those with a possibly negative operand until nothing changes.
    for (ir::Block *B : F.blocks)
      for (Instr *I : B->instrs)
        if (I->op == Op::Phi && isIntish(I))
          NonNeg.insert(I);
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (ir::Block *B : F.blocks)
        for (Instr *I : B->instrs) {
          bool Now = evaluate(I);
          bool Was = NonNeg.count(I);
          if (Now && !Was && I->op != Op::Phi) {
            NonNeg.insert(I);
            Changed = true;
          } else if (!Now && Was) {
            NonNeg.erase(I);
            Changed = true;
          }
        }
    }
    bool Any = false;
    for (Instr *I : NonNeg) {
      Any = Any || !I->nonNegative;
      I->nonNegative = true;
    }
    return Any;
  }

private:
  ir::Function &F;
  std::set<Instr *> NonNeg;

  static bool isIntish(const Instr *I) {
    return I->type && (I->type->isIntegral() || I->type->isTuple());
  }
  bool nn(const Instr *I) const {
    if (NonNeg.count(const_cast<Instr *>(I)))
      return true;
    int64_t C;
    if (constantInt(I, C))
      return C >= 0;
    return I->type &&
           (I->type->isBool() || (I->type->isInt() && !I->type->isSigned()));
  }
  bool positive(const Instr *I) const {
    int64_t C;
    if (constantInt(I, C))
      return C > 0;
    return false;
  }

  bool evaluate(const Instr *I) const {
    if (!I->type)
      return false;
    // Tuples: every element non-negative (cuda.grid(2), a.shape).
    if (!I->type->isIntegral() && !I->type->isTuple() &&
        I->type->kind() != types::Kind::Range &&
        I->type->kind() != types::Kind::RangeIter)
      return false;
    switch (I->op) {
    case Op::Const:
    case Op::Global:
    case Op::Deref: {
      int64_t C;
      return constantInt(I, C) && C >= 0;
    }
    case Op::Phi: {
      for (const Instr *O : I->operands)
        if (O->op != Op::Undef && !nn(O))
          return false;
      return true;
    }
    case Op::CheckBound: // unbound (checked mode off): lowered as zero
      return nn(I->operands[0]);
    case Op::Cast:
      return nn(I->operands[0]) && I->type->isIntegral() &&
             (I->operands[0]->type->isIntegral());
    case Op::BinOp: {
      const Instr *A = I->operands[0], *B = I->operands[1];
      switch (bc::BinOpKind(I->index)) {
      case bc::BinOpKind::Add:
      case bc::BinOpKind::Mul:
      case bc::BinOpKind::FloorDiv:
      case bc::BinOpKind::And:
      case bc::BinOpKind::Or:
      case bc::BinOpKind::RShift:
        return nn(A) && nn(B);
      case bc::BinOpKind::Mod: // Python: the divisor's sign
        return positive(B) || (nn(A) && nn(B));
      default:
        return false;
      }
    }
    case Op::GetAttr:
    case Op::Call:
      return I->intrinsic && intrinsicNonNegative(I, *I->intrinsic);
    case Op::TupleGet:
    case Op::GetItem: // an element of a non-negative tuple
      return I->operands[0]->type->isTuple() && nn(I->operands[0]);
    case Op::BuildTuple:
      for (const Instr *O : I->operands)
        if (!nn(O))
          return false;
      return true;
    case Op::GetIter:
      return nn(I->operands[0]);
    case Op::ForIter:
      return I->operands[0]->type->kind() == types::Kind::RangeIter &&
             nn(I->operands[0]);
    default:
      return false;
    }
  }

  // What the registry's property column says about the result of
  // intrinsic use I (arguments: operands after the callee).
  bool intrinsicNonNegative(const Instr *I, stdlib::IntrinsicId Id) const {
    using namespace stdlib::props;
    if (stdlib::hasProp(Id, NonNegResult))
      return true;
    if (Id == stdlib::IntrinsicId::builtin_range)
      return rangeNonNegative(I);
    bool All = true, Any = false;
    for (size_t K = 1; K < I->operands.size(); ++K) {
      bool N = nn(I->operands[K]);
      All = All && N;
      Any = Any || N;
    }
    return (stdlib::hasProp(Id, NonNegIfAllArgs) && All) ||
           (stdlib::hasProp(Id, NonNegIfAnyArg) && Any);
  }

  // range(stop), range(start, stop[, step]): every value >= 0?
  bool rangeNonNegative(const Instr *I) const {
    size_t N = I->operands.size() - 1;
    if (N == 1)
      return true; // range(n) starts at 0
    const Instr *Start = I->operands[1], *Stop = I->operands[2];
    if (N == 2)
      return nn(Start);
    const Instr *Step = I->operands[3];
    if (nn(Start) && nn(Step))
      return true;
    int64_t S, E;
    // Counting down to a stop >= -1 (range(n - 1, -1, -1)).
    return constantInt(Step, S) && S < 0 && constantInt(Stop, E) && E >= -1;
  }
};

} // namespace

bool markNonNegative(ir::Function &F) { return NonNegativeFacts(F).run(); }

} // namespace pcj::transforms
