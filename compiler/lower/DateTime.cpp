// datetime64/timedelta64 arithmetic and fixed-width strings in LLVM IR.
//
// Both datetime kinds are an i64 count of their unit, NaT being INT64_MIN;
// typing (typeinfer/DateTimeOps.cpp) already converted the operands to one
// unit, so an operation is integer arithmetic plus NaT handling:
//   %r = binop sub %end, %start   ; datetime64[D] - datetime64[D]
// becomes
//   %d = sub i64 %end, %start
//   %n = or (icmp eq %end, MIN), (icmp eq %start, MIN)
//   %r = select %n, MIN, %d
// A CharSeq value is an [n x i8] / [n x i32] array of its characters.
#include "lower/DateTime.h"

#include "support/Diagnostics.h"

namespace pcj::lower {

using namespace types;
using bc::BinOpKind;

namespace {
llvm::Value *natConst(llvm::IRBuilder<> &B) { return B.getInt64(kNaT); }
llvm::Value *isNaT(llvm::IRBuilder<> &B, llvm::Value *X) {
  return B.CreateICmpEQ(X, natConst(B));
}
// Python's floor division / modulo of i64s (B nonzero, no overflow).
llvm::Value *floorDiv(llvm::IRBuilder<> &B, llvm::Value *X, llvm::Value *Y) {
  llvm::Value *Q = B.CreateSDiv(X, Y), *R = B.CreateSRem(X, Y);
  llvm::Value *Adjust =
      B.CreateAnd(B.CreateICmpNE(R, B.getInt64(0)),
                  B.CreateICmpSLT(B.CreateXor(R, Y), B.getInt64(0)));
  return B.CreateSub(Q, B.CreateZExt(Adjust, B.getInt64Ty()));
}
llvm::Value *floorMod(llvm::IRBuilder<> &B, llvm::Value *X, llvm::Value *Y) {
  llvm::Value *R = B.CreateSRem(X, Y);
  llvm::Value *Adjust =
      B.CreateAnd(B.CreateICmpNE(R, B.getInt64(0)),
                  B.CreateICmpSLT(B.CreateXor(R, Y), B.getInt64(0)));
  return B.CreateSelect(Adjust, B.CreateAdd(R, Y), R);
}
} // namespace

llvm::Value *lowerDateTimeBinOp(LowerContext &Cx, BinOpKind K, TypeRef TA,
                                TypeRef TB, TypeRef R, llvm::Value *A,
                                llvm::Value *Bv) {
  auto &B = Cx.b;
  llvm::Value *Zero = B.getInt64(0), *One = B.getInt64(1);
  // A timedelta and an integer (td * n, n * td, td // n, td / n): the count
  // and the integer, NaT when the timedelta is NaT.
  if (!isDateLike(TA) || !isDateLike(TB)) {
    bool TdFirst = isDateLike(TA);
    llvm::Value *Td = TdFirst ? A : Bv, *N = TdFirst ? Bv : A;
    N = B.CreateSExtOrTrunc(N, B.getInt64Ty());
    llvm::Value *Nat = isNaT(B, Td), *Res;
    if (K == BinOpKind::Mul) {
      Res = B.CreateMul(Td, N);
    } else {
      // td // n and td / n truncate (NumPy's C division); n == 0 gives NaT.
      // The divide never sees NaT (INT64_MIN / -1 traps on x86) or zero.
      llvm::Value *ByZero = B.CreateICmpEQ(N, Zero);
      Nat = B.CreateOr(Nat, ByZero);
      Res = B.CreateSDiv(B.CreateSelect(Nat, Zero, Td),
                         B.CreateSelect(ByZero, One, N));
    }
    return B.CreateSelect(Nat, natConst(B), Res);
  }
  llvm::Value *Nat = B.CreateOr(isNaT(B, A), isNaT(B, Bv));
  switch (K) {
  case BinOpKind::Add:
    return B.CreateSelect(Nat, natConst(B), B.CreateAdd(A, Bv));
  case BinOpKind::Sub:
    return B.CreateSelect(Nat, natConst(B), B.CreateSub(A, Bv));
  case BinOpKind::TrueDiv: { // td / td -> float64: NaN with a NaT
    llvm::Value *Q = B.CreateFDiv(B.CreateSIToFP(A, B.getDoubleTy()),
                                  B.CreateSIToFP(Bv, B.getDoubleTy()));
    return B.CreateSelect(Nat, llvm::ConstantFP::getNaN(B.getDoubleTy()), Q);
  }
  case BinOpKind::FloorDiv: { // td // td -> int64: 0 with a NaT or by zero
    llvm::Value *Bad = B.CreateOr(Nat, B.CreateICmpEQ(Bv, Zero));
    llvm::Value *Q =
        floorDiv(B, B.CreateSelect(Bad, Zero, A), B.CreateSelect(Bad, One, Bv));
    return B.CreateSelect(Bad, Zero, Q);
  }
  case BinOpKind::Mod: { // td % td -> td: NaT with a NaT or by zero
    llvm::Value *Bad = B.CreateOr(Nat, B.CreateICmpEQ(Bv, Zero));
    llvm::Value *M =
        floorMod(B, B.CreateSelect(Bad, Zero, A), B.CreateSelect(Bad, One, Bv));
    return B.CreateSelect(Bad, natConst(B), M);
  }
  default:
    break;
  }
  PCJ_ASSERT(false, "datetime operator " + std::string(bc::binOpSymbol(K)) +
                        " on " + TA->str() + ", " + TB->str() + " -> " +
                        R->str() + " after typing");
  return nullptr;
}

llvm::Value *lowerDateTimeCompare(LowerContext &Cx, bc::CmpKind K,
                                  llvm::Value *A, llvm::Value *Bv) {
  auto &B = Cx.b;
  using P = llvm::CmpInst::Predicate;
  static const P SP[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_EQ,
                         P::ICMP_NE,  P::ICMP_SGT, P::ICMP_SGE};
  llvm::Value *Nat = B.CreateOr(isNaT(B, A), isNaT(B, Bv));
  llvm::Value *C = B.CreateICmp(SP[int(K)], A, Bv);
  return B.CreateSelect(Nat, B.getInt1(K == bc::CmpKind::Ne), C);
}

llvm::Value *lowerCharSeqCompare(LowerContext &Cx, bc::CmpKind K, TypeRef TA,
                                 TypeRef TB, llvm::Value *A, llvm::Value *Bv) {
  auto &B = Cx.b;
  uint64_t NA = charCount(TA), NB = charCount(TB);
  llvm::Value *Zero = llvm::ConstantInt::get(B.getIntNTy(TA->bits()), 0);
  llvm::Value *Eq = B.getTrue();
  for (uint64_t I = 0; I < std::max(NA, NB); ++I) {
    llvm::Value *CA = I < NA ? B.CreateExtractValue(A, {unsigned(I)}) : Zero;
    llvm::Value *CB = I < NB ? B.CreateExtractValue(Bv, {unsigned(I)}) : Zero;
    Eq = B.CreateAnd(Eq, B.CreateICmpEQ(CA, CB));
  }
  return K == bc::CmpKind::Eq ? Eq : B.CreateNot(Eq);
}

llvm::Value *castDateTimeOrChars(LowerContext &Cx, llvm::Value *V, TypeRef From,
                                 TypeRef To) {
  auto &B = Cx.b;
  if (isCharSeq(From)) {
    PCJ_ASSERT(isCharSeq(To) && To->bits() == From->bits(),
               "cast of " + From->str() + " to " + To->str() + " after typing");
    llvm::Type *LT = Cx.valueType(To);
    llvm::Value *R = llvm::Constant::getNullValue(LT);
    for (uint64_t I = 0; I < std::min(charCount(From), charCount(To)); ++I)
      R = B.CreateInsertValue(R, B.CreateExtractValue(V, {unsigned(I)}),
                              {unsigned(I)});
    return R;
  }
  PCJ_ASSERT(isDateLike(To) && To->kind() == From->kind(),
             "cast of " + From->str() + " to " + To->str() + " after typing");
  int64_t F = timeUnitFactor(From->name(), To->name());
  if (F == 1)
    return V;
  return B.CreateSelect(isNaT(B, V), natConst(B),
                        B.CreateMul(V, B.getInt64(F)));
}

llvm::Value *charSeqConstant(LowerContext &Cx, const std::string &Text,
                             bool IsBytes, TypeRef To) {
  std::vector<llvm::Constant *> Chars;
  llvm::Type *CT = Cx.b.getIntNTy(To->bits());
  if (IsBytes) {
    for (unsigned char C : Text)
      Chars.push_back(llvm::ConstantInt::get(CT, C));
  } else { // UTF-8 -> code points
    for (size_t I = 0; I < Text.size();) {
      unsigned char C = Text[I];
      unsigned Len = C < 0x80 ? 1 : C < 0xe0 ? 2 : C < 0xf0 ? 3 : 4;
      uint32_t CP = Len == 1 ? C : C & (0x7f >> Len);
      for (unsigned K = 1; K < Len && I + K < Text.size(); ++K)
        CP = (CP << 6) | (uint8_t(Text[I + K]) & 0x3f);
      Chars.push_back(llvm::ConstantInt::get(CT, CP));
      I += Len;
    }
  }
  Chars.resize(charCount(To), llvm::ConstantInt::get(CT, 0));
  return llvm::ConstantArray::get(llvm::cast<llvm::ArrayType>(Cx.valueType(To)),
                                  Chars);
}

} // namespace pcj::lower
