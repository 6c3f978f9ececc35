// Exact arithmetic on Python int constants (see FoldConstants.h).
#include "typeinfer/FoldConstants.h"

#include "support/BigInt.h"

namespace pcj::typeinfer {

using ir::Instr;
using ir::Op;

namespace {

bool toBig(const bc::ConstValue &V, BigInt &Out) {
  if (V.isSmallInt()) {
    Out = BigInt(V.i);
    return true;
  }
  return BigInt::fromDecimal(V.text, Out);
}

bc::ConstValue fromBig(const BigInt &V) {
  int64_t I;
  if (V.toInt64(I))
    return bc::ConstValue::ofInt(I);
  bc::ConstValue C;
  C.kind = bc::ConstValue::Kind::Int;
  C.bigInt = true;
  C.text = V.toDecimal();
  return C;
}

bool binOp(bc::BinOpKind K, const BigInt &A, const BigInt &B, BigInt &R) {
  using BK = bc::BinOpKind;
  switch (K) {
  case BK::Add:
    return BigInt::add(A, B, R);
  case BK::Sub:
    return BigInt::sub(A, B, R);
  case BK::Mul:
    return BigInt::mul(A, B, R);
  case BK::Pow:
    return BigInt::pow(A, B, R);
  case BK::FloorDiv:
    return BigInt::floorDivMod(A, B, &R, nullptr);
  case BK::Mod:
    return BigInt::floorDivMod(A, B, nullptr, &R);
  case BK::LShift:
    return BigInt::shiftLeft(A, B, R);
  case BK::RShift:
    return BigInt::shiftRight(A, B, R);
  case BK::And:
    R = BigInt::bitAnd(A, B);
    return true;
  case BK::Or:
    R = BigInt::bitOr(A, B);
    return true;
  case BK::Xor:
    R = BigInt::bitXor(A, B);
    return true;
  default: // true division gives a float; @ is not for ints
    return false;
  }
}

bool compare(bc::CmpKind K, int C) {
  switch (K) {
  case bc::CmpKind::Lt:
    return C < 0;
  case bc::CmpKind::Le:
    return C <= 0;
  case bc::CmpKind::Eq:
    return C == 0;
  case bc::CmpKind::Ne:
    return C != 0;
  case bc::CmpKind::Gt:
    return C > 0;
  case bc::CmpKind::Ge:
    return C >= 0;
  }
  return false;
}

bool evaluate(const Instr *I, const std::vector<BigInt> &Args,
              bc::ConstValue &Out) {
  BigInt R;
  switch (I->op) {
  case Op::BinOp:
    if (!binOp(bc::BinOpKind(I->index), Args[0], Args[1], R))
      return false;
    break;
  case Op::Compare:
    Out = bc::ConstValue::ofBool(
        compare(bc::CmpKind(I->index), Args[0].compare(Args[1])));
    return true;
  case Op::Unary:
    switch (ir::UnaryKind(I->index)) {
    case ir::UnaryKind::Neg:
      R = -Args[0];
      break;
    case ir::UnaryKind::Pos:
      R = Args[0];
      break;
    case ir::UnaryKind::Invert:
      R = Args[0].invert();
      break;
    case ir::UnaryKind::Not:
      Out = bc::ConstValue::ofBool(Args[0].isZero());
      return true;
    }
    break;
  default:
    return false;
  }
  Out = fromBig(R);
  return true;
}

// divmod(a, b)[k] (GetItem with a constant k) or `q, r = divmod(a, b)`
// (TupleGet of a two-element unpack) of Python int constants a, b (b != 0):
// the Python int of that element (a tuple's elements are typed, so the pair
// itself stays a tuple of int64).
bool foldDivmodItem(Instr *I) {
  int64_t Index;
  if (I->op == Op::TupleGet && I->operands.size() == 1 && I->unpackCount == 2) {
    Index = I->index;
  } else if (I->op == Op::GetItem && I->operands.size() == 2) {
    const bc::ConstValue *K = ir::pythonIntValue(I->operands[1]);
    if (!K || !K->isSmallInt())
      return false;
    Index = K->i;
  } else {
    return false;
  }
  const Instr *Call = I->operands[0];
  if (Index < -2 || Index > 1 || Call->op != Op::Call ||
      Call->intrinsic != stdlib::IntrinsicId::builtin_divmod ||
      Call->operands.size() != 3 || !Call->kwnames.empty())
    return false;
  BigInt A, B, R;
  const bc::ConstValue *VA = ir::pythonIntValue(Call->operands[1]);
  const bc::ConstValue *VB = ir::pythonIntValue(Call->operands[2]);
  if (!VA || !VB || !toBig(*VA, A) || !toBig(*VB, B))
    return false;
  bool Quotient = Index == 0 || Index == -2;
  if (!BigInt::floorDivMod(A, B, Quotient ? &R : nullptr,
                           Quotient ? nullptr : &R))
    return false; // b == 0: the kernel's run-time semantics
  I->op = Op::Const;
  I->cval = fromBig(R);
  I->operands.clear();
  I->argTypes.clear();
  return true;
}

} // namespace

bool foldPythonIntOp(Instr *I) {
  if (I->op == Op::GetItem || I->op == Op::TupleGet)
    return foldDivmodItem(I);
  if (I->op != Op::BinOp && I->op != Op::Unary && I->op != Op::Compare)
    return false;
  std::vector<BigInt> Args;
  for (const Instr *O : I->operands) {
    const bc::ConstValue *V = ir::pythonIntValue(O);
    BigInt B;
    if (!V || !toBig(*V, B))
      return false;
    Args.push_back(B);
  }
  bc::ConstValue Out;
  if (!evaluate(I, Args, Out))
    return false;
  I->op = Op::Const;
  I->cval = Out;
  I->operands.clear();
  I->argTypes.clear();
  return true;
}

} // namespace pcj::typeinfer
