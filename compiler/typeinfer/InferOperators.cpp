// Type inference of the operators: binary and in-place arithmetic (the
// registry's operator rows, NumPy/Python promotion), comparisons (incl.
// compile-time string comparisons) and `is` / `is not`.  Split from
// TypeInfer.cpp; the Inferrer is Inferrer.h's.
#include "typeinfer/Inferrer.h"

#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "typeinfer/ConstTypes.h"
#include "typeinfer/FoldConstants.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"
#include "types/Fp8.h"
#include "types/Overloads.h"
#include "types/Promotion.h"

namespace pcj::typeinfer {

using namespace types;
using ir::Instr;
using ir::Op;

namespace detail {

bool Inferrer::inferBinOp(Instr *I, InferredType &Out) {
  Instr *A = I->operands[0], *B = I->operands[1];
  auto K = bc::BinOpKind(I->index);
  std::string Sym = bc::binOpSymbol(K);
  if (isDateLike(A->type) || isDateLike(B->type))
    return inferDateTimeBinOp(I, Out);
  if (!A->type->isNumeric() || !B->type->isNumeric()) {
    std::string Hint;
    if (A->type->isArray() || B->type->isArray())
      Hint = "array expressions are not supported in kernels; compute "
             "element by element";
    fail(I,
         "unsupported operand types for " + Sym + ": " + origin(A) + " and " +
             origin(B),
         Hint);
  }
  bool W = false;
  TypeRef T = promote({A->type, A->weak}, {B->type, B->weak}, &W);
  switch (K) {
  case bc::BinOpKind::LShift:
  case bc::BinOpKind::RShift:
  case bc::BinOpKind::And:
  case bc::BinOpKind::Or:
  case bc::BinOpKind::Xor:
    if (!T->isIntegral())
      fail(I,
           "unsupported operand types for " + Sym + ": " + origin(A) + " and " +
               origin(B),
           "bitwise operators need integers");
    if (T->isBool() &&
        (K == bc::BinOpKind::LShift || K == bc::BinOpKind::RShift))
      T = int64Ty();
    break;
  case bc::BinOpKind::TrueDiv:
    if (T->isIntegral())
      T = float64Ty();
    break;
  case bc::BinOpKind::MatMul:
    fail(I, "the @ operator is not supported in kernels");
  case bc::BinOpKind::FloorDiv:
  case bc::BinOpKind::Mod:
    if (T->isComplex())
      fail(I, "can't take floor or mod of complex numbers");
    [[fallthrough]];
  default:
    if (T->isBool())
      T = int64Ty();
  }
  Out = {T, W};
  I->argTypes = {T, T};
  return true;
}

bool Inferrer::inferCompare(Instr *I, InferredType &Out) {
  Instr *A = I->operands[0], *B = I->operands[1];
  if (A->type->kind() == Kind::EnumMember ||
      B->type->kind() == Kind::EnumMember)
    return inferEnumCompare(I, Out);
  if (A->type->kind() == Kind::Str && B->type->kind() == Kind::Str)
    return inferConstStrCompare(I, Out);
  if (isDateLike(A->type) || isDateLike(B->type) || isCharSeq(A->type) ||
      isCharSeq(B->type))
    return inferOpaqueCompare(I, Out);
  if (!A->type->isNumeric() || !B->type->isNumeric())
    fail(I, "cannot compare " + origin(A) + " and " + origin(B) + " with " +
                bc::cmpSymbol(bc::CmpKind(I->index)));
  // A weak value that is not a literal (a Python-int variable) compares at
  // full width: no truncation to the other operand's type.
  bool WA = A->weak && A->op == Op::Const, WB = B->weak && B->op == Op::Const;
  TypeRef T = promote({A->type, WA}, {B->type, WB});
  auto K = bc::CmpKind(I->index);
  if (T->isComplex() && K != bc::CmpKind::Eq && K != bc::CmpKind::Ne)
    fail(I, "complex numbers cannot be ordered");
  Out = {boolTy(), false};
  I->argTypes = {T, T};
  return true;
}

// Two compile-time strings (literals, string constants a caller passed to
// a device function): Python's answer, when the kernel compiles.
//   %3 = compare == %1 ("1"), %2 ("1")   ==>   %3 = const True
bool Inferrer::inferConstStrCompare(Instr *I, InferredType &Out) {
  Instr *A = I->operands[0], *B = I->operands[1];
  bc::ConstValue SA, SB;
  auto K = bc::CmpKind(I->index);
  if (!stdlib::ArgInfo{A->type, A->weak, A}.constant(SA) ||
      !stdlib::ArgInfo{B->type, B->weak, B}.constant(SB))
    fail(I,
         "cannot compare " + origin(A) + " and " + origin(B) + " with " +
             bc::cmpSymbol(K),
         "kernels compare strings known when the kernel compiles");
  bool Eq = K == bc::CmpKind::Eq, Ne = K == bc::CmpKind::Ne;
  if (SA.kind != SB.kind && !Eq && !Ne)
    fail(I, "'" + std::string(bc::cmpSymbol(K)) +
                "' is not supported between str and bytes");
  int C = SA.kind != SB.kind ? 1 : SA.text.compare(SB.text);
  bool V = false;
  switch (K) {
  case bc::CmpKind::Lt:
    V = C < 0;
    break;
  case bc::CmpKind::Le:
    V = C <= 0;
    break;
  case bc::CmpKind::Eq:
    V = C == 0;
    break;
  case bc::CmpKind::Ne:
    V = C != 0;
    break;
  case bc::CmpKind::Gt:
    V = C > 0;
    break;
  case bc::CmpKind::Ge:
    V = C >= 0;
    break;
  }
  I->op = Op::Const;
  I->cval = bc::ConstValue::ofBool(V);
  I->operands.clear();
  I->argTypes.clear();
  I->index = 0;
  Out = typeOfConst(I, I->cval);
  return true;
}

// `a is b` (numba's rules): with None, answered from the types; two bools,
// or two numbers of the same type, compare equal (numba falls back to ==
// for immutable values); numbers of different types are never the same
// object.  A number literal's identity is CPython's caching detail, so
// `x is 3` is refused; so is every other pair (arrays, tuples...).
bool Inferrer::inferIs(Instr *I, InferredType &Out) {
  Instr *A = I->operands[0], *B = I->operands[1];
  TypeRef TA = A->type, TB = B->type;
  if (TA->kind() == Kind::EnumMember || TB->kind() == Kind::EnumMember)
    return inferEnumIs(I, Out);
  Out = {boolTy(), false};
  if (TA == noneTy() || TB == noneTy())
    return true;
  auto Literal = [](const Instr *X) {
    return X->weak && X->op == Op::Const && !X->type->isBool();
  };
  bool Bools = TA->isBool() && TB->isBool();
  if (Bools ||
      (TA->isNumeric() && TB->isNumeric() && !Literal(A) && !Literal(B))) {
    // Lowering compares operands of one type by value; operands of
    // different types keep them (the answer is False).
    if (TA == TB) {
      TypeRef T = promote({TA, false}, {TB, false});
      I->argTypes = {T, T};
    }
    return true;
  }
  fail(I,
       "'is' compares " + origin(A) + " and " + origin(B) +
           ", whose identity kernels do not have",
       "kernels support 'is' with None, between bools, and between number "
       "variables (compared by value, as numba-cuda does); use == here");
}

// operator.add(a, b) -> the instruction `a + b` (registry rows of kind
// Operator: IData the arity, SData the operator as the IR prints it).
// False when the call does not have exactly that many positional arguments.
bool Inferrer::rewriteOperatorCall(Instr *I,
                                   const stdlib::IntrinsicInfo &Info) {
  size_t N = I->operands.size() - 1;
  if (!I->kwnames.empty() || N != size_t(Info.idata))
    return false;
  std::string Sym = Info.sdata;
  auto Rewrite = [&](Op NewOp, unsigned Index) {
    I->operands.erase(I->operands.begin());
    I->op = NewOp;
    I->index = Index;
    return true;
  };
  if (N == 1) {
    for (unsigned K = 0; K <= unsigned(ir::UnaryKind::Invert); ++K)
      if (Sym == ir::unarySymbol(ir::UnaryKind(K)))
        return Rewrite(Op::Unary, K);
  } else {
    for (unsigned K = 0; K <= unsigned(bc::BinOpKind::MatMul); ++K)
      if (Sym == bc::binOpSymbol(bc::BinOpKind(K)))
        return Rewrite(Op::BinOp, K);
    for (unsigned K = 0; K <= unsigned(bc::CmpKind::Ge); ++K)
      if (Sym == bc::cmpSymbol(bc::CmpKind(K)))
        return Rewrite(Op::Compare, K);
  }
  PCJ_ASSERT(false, "operator row " + std::string(Info.key) +
                        " names no operator: " + Sym);
  return false;
}

} // namespace detail
} // namespace pcj::typeinfer
