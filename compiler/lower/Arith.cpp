// Python operator semantics (see Arith.h):
//  - ints wrap around (two's complement), like numba;
//  - // and % round toward negative infinity, % takes the divisor's sign;
//  - integer division or modulo by zero gives 0 (no exception, as in
//    numba-cuda's default; documented) and INT_MIN // -1 wraps -- neither
//    may trap, because the CPU executor runs inside the Python process;
//  - shifts by >= the bit width give 0 (or -1 for >> of negatives);
//  - float // and % follow NumPy's floor_divide / remainder (CPython's
//    float_divmod, and x // 0.0 = x / 0.0, x % 0.0 = nan; float16 computed
//    in float32 and rounded once, as NumPy does); ** with a small constant
//    integer exponent becomes multiplications;
//  - checked mode (debug=True) raises ZeroDivisionError instead
//    (checkDivisor), also for an integer 0 ** n, n < 0 (checkPowerBase;
//    unchecked it gives 0).
#include "lower/Arith.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

#include <optional>

namespace pcj::lower {

using namespace types;
using bc::BinOpKind;

namespace {

llvm::Value *powBySquaring(LowerContext &Cx, llvm::Value *X, int64_t N,
                           bool IsFloat) {
  auto &B = Cx.b;
  llvm::Value *Result = nullptr;
  llvm::Value *Base = X;
  while (N > 0) {
    if (N & 1)
      Result = !Result   ? Base
               : IsFloat ? B.CreateFMul(Result, Base)
                         : B.CreateMul(Result, Base);
    N >>= 1;
    if (N)
      Base = IsFloat ? B.CreateFMul(Base, Base) : B.CreateMul(Base, Base);
  }
  return Result;
}

// Integer power with a run-time exponent: a loop (exponentiation by
// squaring); negative exponents give 0 except for bases 1 and -1.
llvm::Value *intPowLoop(LowerContext &Cx, TypeRef T, llvm::Value *A,
                        llvm::Value *E) {
  auto &B = Cx.b;
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::Type *LT = A->getType();
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Loop = llvm::BasicBlock::Create(Cx.ctx, "ipow.loop", Fn);
  auto *Done = llvm::BasicBlock::Create(Cx.ctx, "ipow.done", Fn);
  llvm::Value *One = llvm::ConstantInt::get(LT, 1);
  llvm::Value *Zero = llvm::ConstantInt::get(LT, 0);
  llvm::Value *Neg = T->isSigned() ? B.CreateICmpSLT(E, Zero) : B.getFalse();
  llvm::Value *Start = B.CreateSelect(Neg, Zero, E);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  auto *Acc = B.CreatePHI(LT, 2), *Base = B.CreatePHI(LT, 2),
       *Exp = B.CreatePHI(LT, 2);
  Acc->addIncoming(One, Pre);
  Base->addIncoming(A, Pre);
  Exp->addIncoming(Start, Pre);
  llvm::Value *Bit = B.CreateTrunc(Exp, B.getInt1Ty());
  llvm::Value *NewAcc = B.CreateSelect(Bit, B.CreateMul(Acc, Base), Acc);
  llvm::Value *NewBase = B.CreateMul(Base, Base);
  llvm::Value *NewExp = B.CreateLShr(Exp, One);
  Acc->addIncoming(NewAcc, Loop);
  Base->addIncoming(NewBase, Loop);
  Exp->addIncoming(NewExp, Loop);
  B.CreateCondBr(B.CreateICmpEQ(NewExp, Zero), Done, Loop);
  B.SetInsertPoint(Done);
  auto *Res = B.CreatePHI(LT, 1);
  Res->addIncoming(NewAcc, Loop);
  if (!T->isSigned())
    return Res;
  // Negative exponent: 1 ** -n == 1, (-1) ** -n == +-1, else 0 (truncated).
  llvm::Value *IsOne = B.CreateICmpEQ(A, One);
  llvm::Value *IsMinusOne =
      B.CreateICmpEQ(A, llvm::ConstantInt::get(LT, -1, true));
  llvm::Value *OddE = B.CreateTrunc(E, B.getInt1Ty());
  llvm::Value *NegRes = B.CreateSelect(
      IsOne, One,
      B.CreateSelect(
          IsMinusOne,
          B.CreateSelect(OddE, llvm::ConstantInt::get(LT, -1, true), One),
          Zero));
  return B.CreateSelect(Neg, NegRes, Res);
}

llvm::Value *intDivMod(LowerContext &Cx, TypeRef T, llvm::Value *A,
                       llvm::Value *Bv, bool WantMod) {
  auto &B = Cx.b;
  llvm::Type *LT = A->getType();
  llvm::Value *Zero = llvm::ConstantInt::get(LT, 0);
  llvm::Value *One = llvm::ConstantInt::get(LT, 1);
  llvm::Value *IsZero = B.CreateICmpEQ(Bv, Zero);
  if (!T->isSigned()) {
    llvm::Value *Safe = B.CreateSelect(IsZero, One, Bv);
    llvm::Value *R = WantMod ? B.CreateURem(A, Safe) : B.CreateUDiv(A, Safe);
    return B.CreateSelect(IsZero, Zero, R);
  }
  llvm::Value *MinusOne = llvm::ConstantInt::get(LT, -1, true);
  llvm::Value *IsM1 = B.CreateICmpEQ(Bv, MinusOne);
  // Divide by 1 where the real divisor is 0 or -1, fix up afterwards.
  llvm::Value *Safe = B.CreateSelect(B.CreateOr(IsZero, IsM1), One, Bv);
  llvm::Value *Q = B.CreateSDiv(A, Safe);
  llvm::Value *R = B.CreateSRem(A, Safe);
  // Floor semantics: adjust when the remainder's sign differs from b's.
  llvm::Value *Adjust = B.CreateAnd(
      B.CreateICmpNE(R, Zero),
      B.CreateICmpNE(B.CreateICmpSLT(R, Zero), B.CreateICmpSLT(Safe, Zero)));
  llvm::Value *FQ = B.CreateSelect(Adjust, B.CreateSub(Q, One), Q);
  llvm::Value *FR = B.CreateSelect(Adjust, B.CreateAdd(R, Safe), R);
  if (WantMod)
    return B.CreateSelect(B.CreateOr(IsZero, IsM1), Zero, FR);
  llvm::Value *NegA = B.CreateSub(Zero, A); // wraps for INT_MIN, like numba
  return B.CreateSelect(IsZero, Zero, B.CreateSelect(IsM1, NegA, FQ));
}

llvm::Value *floatDivMod(LowerContext &Cx, TypeRef T, llvm::Value *A,
                         llvm::Value *Bv, bool WantMod) {
  auto &B = Cx.b;
  llvm::Type *LT = A->getType();
  if (T->bits() == 16) {
    llvm::Value *R =
        floatDivMod(Cx, floatTy(32), B.CreateFPExt(A, B.getFloatTy()),
                    B.CreateFPExt(Bv, B.getFloatTy()), WantMod);
    return B.CreateFPTrunc(R, LT);
  }
  llvm::Value *Zero = llvm::ConstantFP::get(LT, 0.0);
  // fmod from libm / libdevice: exact (NVPTX's own frem expansion is
  // a - b * trunc(a / b), which overflows for huge quotients).
  llvm::Value *Mod =
      B.CreateCall(Cx.target.mathFunction(Cx.module, "fmod", T, 2), {A, Bv});
  llvm::Value *Div = B.CreateFDiv(B.CreateFSub(A, Mod), Bv);
  llvm::Value *ModNZ = B.CreateFCmpUNE(Mod, Zero);
  llvm::Value *SignsDiffer =
      B.CreateICmpNE(B.CreateFCmpOLT(Bv, Zero), B.CreateFCmpOLT(Mod, Zero));
  llvm::Value *Fix = B.CreateAnd(ModNZ, SignsDiffer);
  Mod = B.CreateSelect(Fix, B.CreateFAdd(Mod, Bv), Mod);
  Div = B.CreateSelect(Fix, B.CreateFSub(Div, llvm::ConstantFP::get(LT, 1.0)),
                       Div);
  if (WantMod) {
    // A zero result takes the divisor's sign.  (A zero divisor: fmod's NaN.)
    llvm::Value *Signed =
        B.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, Zero, Bv);
    return B.CreateSelect(ModNZ, Mod, Signed);
  }
  llvm::Value *Floor = B.CreateUnaryIntrinsic(llvm::Intrinsic::floor, Div);
  llvm::Value *Up =
      B.CreateFCmpOGT(B.CreateFSub(Div, Floor), llvm::ConstantFP::get(LT, 0.5));
  Floor = B.CreateSelect(
      Up, B.CreateFAdd(Floor, llvm::ConstantFP::get(LT, 1.0)), Floor);
  llvm::Value *DivNZ = B.CreateFCmpUNE(Div, Zero);
  llvm::Value *Quot = B.CreateFDiv(A, Bv);
  llvm::Value *SignedZero =
      B.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, Zero, Quot);
  // By +-0: the true quotient (+-inf, or NaN for 0 // 0 and NaN // 0).
  return B.CreateSelect(B.CreateFCmpOEQ(Bv, Zero), Quot,
                        B.CreateSelect(DivNZ, Floor, SignedZero));
}

llvm::Value *shift(LowerContext &Cx, TypeRef T, bool Left, llvm::Value *A,
                   llvm::Value *Bv) {
  auto &B = Cx.b;
  llvm::Type *LT = A->getType();
  unsigned Bits = LT->getIntegerBitWidth();
  llvm::Value *Big = B.CreateICmpUGE(Bv, llvm::ConstantInt::get(LT, Bits));
  llvm::Value *Safe = B.CreateSelect(Big, llvm::ConstantInt::get(LT, 0), Bv);
  llvm::Value *Zero = llvm::ConstantInt::get(LT, 0);
  if (Left)
    return B.CreateSelect(Big, Zero, B.CreateShl(A, Safe));
  if (!T->isSigned())
    return B.CreateSelect(Big, Zero, B.CreateLShr(A, Safe));
  llvm::Value *Fill = B.CreateSelect(
      B.CreateICmpSLT(A, Zero), llvm::ConstantInt::get(LT, -1, true), Zero);
  return B.CreateSelect(Big, Fill, B.CreateAShr(A, Safe));
}

// float16 ** by a run-time exponent calls powf (libm / libdevice have no
// half version): it computes in float32 and rounds once, as NumPy does
// (floatDivMod does the same for // and %).
bool powInFloat32(TypeRef T, BinOpKind K, const int64_t *ConstExponent) {
  return T->isFloat() && T->bits() == 16 && K == BinOpKind::Pow &&
         !(ConstExponent && *ConstExponent >= 0 && *ConstExponent <= 16);
}

} // namespace

void checkDivisor(LowerContext &Cx, const ir::Instr *At, BinOpKind K,
                  bool Divmod, TypeRef T, llvm::Value *Divisor,
                  bool IntOperands) {
  auto &B = Cx.b;
  const char *Msg;
  llvm::Value *IsZero;
  if (T->isComplex()) {
    Msg = "complex division by zero";
    llvm::Value *Zero =
        llvm::ConstantFP::get(complexRe(Cx, Divisor)->getType(), 0.0);
    IsZero = B.CreateAnd(B.CreateFCmpOEQ(complexRe(Cx, Divisor), Zero),
                         B.CreateFCmpOEQ(complexIm(Cx, Divisor), Zero));
  } else if (T->isFloat()) {
    Msg = Divmod                     ? "float divmod()"
          : K == BinOpKind::FloorDiv ? "float floor division by zero"
          : K == BinOpKind::Mod      ? "float modulo by zero"
          : IntOperands              ? "division by zero"
                                     : "float division by zero";
    IsZero = B.CreateFCmpOEQ(Divisor,
                             llvm::ConstantFP::get(Divisor->getType(), 0.0));
  } else {
    Msg = K == BinOpKind::Mod && !Divmod ? "integer modulo by zero"
                                         : "integer division or modulo by zero";
    IsZero =
        B.CreateICmpEQ(Divisor, llvm::ConstantInt::get(Divisor->getType(), 0));
  }
  Cx.raiseIf(At, IsZero, TargetHooks::RaisedError::ZeroDivisionError, Msg);
}

void checkPowerBase(LowerContext &Cx, const ir::Instr *At, TypeRef T,
                    llvm::Value *Base, llvm::Value *Exponent) {
  if (!T->isInt() || !T->isSigned())
    return; // an unsigned exponent is never negative; floats give inf
  auto &B = Cx.b;
  llvm::Value *Zero = llvm::ConstantInt::get(Base->getType(), 0);
  Cx.raiseIf(
      At,
      B.CreateAnd(B.CreateICmpEQ(Base, Zero), B.CreateICmpSLT(Exponent, Zero)),
      TargetHooks::RaisedError::ZeroDivisionError,
      "0 cannot be raised to a negative power");
}

llvm::Value *lowerBinOp(LowerContext &Cx, const ir::Instr *At, BinOpKind K,
                        TypeRef T, llvm::Value *A, llvm::Value *Bv,
                        const int64_t *ConstExponent) {
  auto &B = Cx.b;
  if (T->isComplex())
    return complexBinOp(Cx, At, K, T, A, Bv, ConstExponent);
  if (powInFloat32(T, K, ConstExponent)) {
    llvm::Type *F32 = B.getFloatTy();
    llvm::Value *R = lowerBinOp(Cx, At, K, float32Ty(), B.CreateFPExt(A, F32),
                                B.CreateFPExt(Bv, F32), ConstExponent);
    return B.CreateFPTrunc(R, A->getType());
  }
  bool F = T->isFloat();
  // + - * and constant powers are source arithmetic (may contract); the
  // steps of //, % and run-time powers are not.
  std::optional<SourceArithmetic> Source;
  if (K == BinOpKind::Add || K == BinOpKind::Sub || K == BinOpKind::Mul ||
      (K == BinOpKind::Pow && ConstExponent && *ConstExponent >= 0 &&
       *ConstExponent <= 16))
    Source.emplace(Cx);
  switch (K) {
  case BinOpKind::Add:
    return F ? B.CreateFAdd(A, Bv) : B.CreateAdd(A, Bv);
  case BinOpKind::Sub:
    return F ? B.CreateFSub(A, Bv) : B.CreateSub(A, Bv);
  case BinOpKind::Mul:
    return F ? B.CreateFMul(A, Bv) : B.CreateMul(A, Bv);
  case BinOpKind::TrueDiv:
    PCJ_ASSERT(F, "true division of non-floats after typing");
    return B.CreateFDiv(A, Bv);
  case BinOpKind::FloorDiv:
    return F ? floatDivMod(Cx, T, A, Bv, false)
             : intDivMod(Cx, T, A, Bv, false);
  case BinOpKind::Mod:
    return F ? floatDivMod(Cx, T, A, Bv, true) : intDivMod(Cx, T, A, Bv, true);
  case BinOpKind::Pow:
    if (ConstExponent && *ConstExponent >= 0 && *ConstExponent <= 16) {
      if (*ConstExponent == 0)
        return F ? llvm::ConstantFP::get(A->getType(), 1.0)
                 : llvm::ConstantInt::get(A->getType(), 1);
      return powBySquaring(Cx, A, *ConstExponent, F);
    }
    if (F)
      return B.CreateCall(Cx.target.mathFunction(Cx.module, "pow", T, 2),
                          {A, Bv});
    return intPowLoop(Cx, T, A, Bv);
  case BinOpKind::LShift:
    return shift(Cx, T, true, A, Bv);
  case BinOpKind::RShift:
    return shift(Cx, T, false, A, Bv);
  case BinOpKind::And:
    return B.CreateAnd(A, Bv);
  case BinOpKind::Or:
    return B.CreateOr(A, Bv);
  case BinOpKind::Xor:
    return B.CreateXor(A, Bv);
  case BinOpKind::MatMul:
    break;
  }
  Cx.fail(At, "operator not supported");
}

llvm::Value *lowerCompare(LowerContext &Cx, bc::CmpKind K, TypeRef T,
                          llvm::Value *A, llvm::Value *Bv) {
  auto &B = Cx.b;
  using P = llvm::CmpInst::Predicate;
  if (T->isComplex()) { // typing allows only == and !=
    llvm::Value *Re = B.CreateFCmpOEQ(complexRe(Cx, A), complexRe(Cx, Bv));
    llvm::Value *Im = B.CreateFCmpOEQ(complexIm(Cx, A), complexIm(Cx, Bv));
    llvm::Value *Eq = B.CreateAnd(Re, Im);
    return K == bc::CmpKind::Eq ? Eq : B.CreateNot(Eq);
  }
  if (T->isFloat()) {
    static const P FP[] = {P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OEQ,
                           P::FCMP_UNE, P::FCMP_OGT, P::FCMP_OGE};
    return B.CreateFCmp(FP[int(K)], A, Bv);
  }
  bool S = T->isInt() && T->isSigned();
  static const P SP[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_EQ,
                         P::ICMP_NE,  P::ICMP_SGT, P::ICMP_SGE};
  static const P UP[] = {P::ICMP_ULT, P::ICMP_ULE, P::ICMP_EQ,
                         P::ICMP_NE,  P::ICMP_UGT, P::ICMP_UGE};
  return B.CreateICmp(S ? SP[int(K)] : UP[int(K)], A, Bv);
}

llvm::Value *lowerUnary(LowerContext &Cx, ir::UnaryKind K, TypeRef T,
                        llvm::Value *A) {
  auto &B = Cx.b;
  switch (K) {
  case ir::UnaryKind::Neg:
    if (T->isComplex())
      return complexMake(Cx, T, B.CreateFNeg(complexRe(Cx, A)),
                         B.CreateFNeg(complexIm(Cx, A)));
    return T->isFloat() ? B.CreateFNeg(A) : B.CreateNeg(A);
  case ir::UnaryKind::Pos:
    return A;
  case ir::UnaryKind::Not:
    return B.CreateNot(A); // A is the operand's truth value (i1)
  case ir::UnaryKind::Invert:
    return B.CreateNot(A);
  }
  return nullptr;
}

llvm::Value *lowerValueEquality(LowerContext &Cx, bc::CmpKind K,
                                types::TypeRef T, llvm::Value *A,
                                llvm::Value *B) {
  llvm::Value *Eq = nullptr;
  if (T->isTuple()) {
    Eq = Cx.b.getTrue();
    for (unsigned E = 0; E < T->elems().size(); ++E)
      Eq = Cx.b.CreateAnd(Eq,
                          lowerValueEquality(Cx, bc::CmpKind::Eq, T->elems()[E],
                                             Cx.b.CreateExtractValue(A, {E}),
                                             Cx.b.CreateExtractValue(B, {E})));
  } else {
    Eq = lowerCompare(Cx, bc::CmpKind::Eq, T, A, B);
  }
  return K == bc::CmpKind::Ne ? Cx.b.CreateNot(Eq) : Eq;
}

} // namespace pcj::lower
