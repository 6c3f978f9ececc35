// Lowering rules for Python builtins (registry/builtins.def).  They emit LLVM
// IR through LowerContext and reach target differences only via its
// TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"
#include "types/Promotion.h"

#include "stdlib/FloatString.h"
#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

#include <cstdlib>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

llvm::Value *lowerRange(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef C = R.instr.type->inner();
  llvm::Value *Start = Cx.intConst(C, 0), *Stop, *Step = Cx.intConst(C, 1);
  if (R.args.size() == 1) {
    Stop = R.args[0];
  } else {
    Start = R.args[0];
    Stop = R.args[1];
    if (R.args.size() == 3)
      Step = R.args[2];
  }
  // Where indices are checked (checked mode, the CPU executor's default): a
  // step of 0 raises ValueError, as Python's range() does (a constant 0 is
  // a compile error; unchecked, the range is empty).
  if (R.args.size() == 3 && Cx.opts.boundsCheck)
    Cx.raiseIf(&R.instr, Cx.b.CreateICmpEQ(Step, Cx.intConst(C, 0)),
               lower::TargetHooks::RaisedError::ValueError,
               "range() arg 3 must not be zero");
  llvm::Value *T = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  T = Cx.b.CreateInsertValue(T, Start, {0});
  T = Cx.b.CreateInsertValue(T, Stop, {1});
  return Cx.b.CreateInsertValue(T, Step, {2});
}

llvm::Value *lowerLen(const LoweringRequest &R) {
  TypeRef T = R.argTypes[0];
  if (T->isTuple())
    return R.cx.b.getInt64(T->elems().size());
  return R.cx.arrayShape(R.args[0], 0);
}

llvm::Value *lowerIsInstance(const LoweringRequest &R) {
  return R.cx.b.getInt1(isInstanceAnswer(R.argTypes[0], R.argTypes[1]) == 1);
}

// `v in c`: a tuple ORs v == element over its elements (each pair in their
// common type); a range checks v's side of start/stop and that the step
// divides v - start (computed without overflow, as an unsigned distance).
llvm::Value *lowerContains(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef CT = R.argTypes[0], VT = R.argTypes[1];
  llvm::Value *C = R.args[0], *V = R.args[1];
  using bc::CmpKind;
  if (CT->isTuple()) {
    llvm::Value *Any = B.getFalse();
    for (unsigned K = 0; K < CT->elems().size(); ++K) {
      TypeRef ET = CT->elems()[K];
      TypeRef P = promote({VT, false}, {ET, false});
      llvm::Value *E = Cx.cast(B.CreateExtractValue(C, {K}), ET, P);
      Any = B.CreateOr(
          Any, lower::lowerCompare(Cx, CmpKind::Eq, P, Cx.cast(V, VT, P), E));
    }
    return Any;
  }
  TypeRef Ctr = CT->inner();
  TypeRef P = promote({VT, false}, {Ctr, false});
  // uint64 against a signed type (NumPy promotes them to float64): compare
  // in the 64-bit type of the range's signedness; a value it cannot hold (a
  // uint64 >= 2**63 against signed fields, a negative one against unsigned
  // fields) is not in the range.
  llvm::Value *Fits = B.getTrue();
  if (!P->isInt()) {
    P = intTy(64, Ctr->isSigned());
    llvm::Value *VV = Cx.cast(V, VT, int64Ty());
    Fits = B.CreateICmpSGE(VV, B.getInt64(0));
  }
  auto Field = [&](unsigned K) {
    return Cx.cast(B.CreateExtractValue(C, {K}), Ctr, P);
  };
  llvm::Value *Start = Field(0), *Stop = Field(1), *Step = Field(2);
  V = Cx.cast(V, VT, P);
  auto Cmp = [&](CmpKind K, llvm::Value *A, llvm::Value *Bv) {
    return lower::lowerCompare(Cx, K, P, A, Bv);
  };
  llvm::Value *Zero = Cx.intConst(P, 0);
  llvm::Value *Up = Cmp(CmpKind::Gt, Step, Zero);
  llvm::Value *InUp =
      B.CreateAnd(Cmp(CmpKind::Le, Start, V), Cmp(CmpKind::Lt, V, Stop));
  llvm::Value *InDown =
      B.CreateAnd(Cmp(CmpKind::Lt, Stop, V), Cmp(CmpKind::Le, V, Start));
  llvm::Value *Dist =
      B.CreateSelect(Up, B.CreateSub(V, Start), B.CreateSub(Start, V));
  llvm::Value *Stride = B.CreateSelect(Up, Step, B.CreateSub(Zero, Step));
  llvm::Value *NonZero = B.CreateICmpNE(Step, Zero);
  Stride = B.CreateSelect(NonZero, Stride, Cx.intConst(P, 1));
  llvm::Value *OnStep = B.CreateICmpEQ(B.CreateURem(Dist, Stride), Zero);
  return B.CreateAnd(Fits, B.CreateAnd(B.CreateAnd(NonZero, OnStep),
                                       B.CreateSelect(Up, InUp, InDown)));
}

llvm::Value *lowerScalarCtor(const LoweringRequest &R) {
  TypeRef To = R.instr.type;
  if (R.args.empty())
    return R.cx.cast(R.cx.b.getInt1(false), boolTy(), To);
  bc::ConstValue S;
  if (R.argTypes[0] == strTy() &&
      ArgInfo{R.argTypes[0], false, R.argInstrs[0]}.constant(
          S)) { // float("nan")
    double V = 0;
    parseFloatString(S.text, V); // the typing checked it
    return llvm::ConstantFP::get(R.cx.valueType(To), V);
  }
  return R.cx.cast(R.args[0], R.argTypes[0], To);
}

llvm::Value *lowerAbs(const LoweringRequest &R) {
  auto &B = R.cx.b;
  TypeRef T = R.instr.type;
  llvm::Value *X = R.args[0];
  if (R.argTypes[0]->isComplex())
    return lower::complexAbs(R.cx, R.argTypes[0], X);
  if (T->isFloat())
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X);
  if (!T->isSigned())
    return X;
  return B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, X, B.getFalse());
}

llvm::Value *lowerMinMax(const LoweringRequest &R) {
  auto &B = R.cx.b;
  bool Max = R.info.idata == 1;
  TypeRef T = R.instr.type;
  llvm::Value *Acc = R.args[0];
  for (size_t K = 1; K < R.args.size(); ++K) {
    llvm::Value *X = R.args[K];
    llvm::Value *Pick;
    if (T->isFloat()) // Python: keep the first unless the next compares better
      Pick = Max ? B.CreateFCmpOGT(X, Acc) : B.CreateFCmpOLT(X, Acc);
    else if (T->isSigned())
      Pick = Max ? B.CreateICmpSGT(X, Acc) : B.CreateICmpSLT(X, Acc);
    else
      Pick = Max ? B.CreateICmpUGT(X, Acc) : B.CreateICmpULT(X, Acc);
    Acc = B.CreateSelect(Pick, X, Acc);
  }
  return Acc;
}

namespace {

// Appends value V of type T to a print() format and its vprintf arguments
// (Python's str() of it: tuples as "(1, 2.500000)", "(1,)", a dim3 as
// "(x, y, z)"; floats as %f, as numba-cuda prints them).
void printValue(lower::LowerContext &Cx, TypeRef T, llvm::Value *V,
                std::string &Fmt, std::vector<llvm::Value *> &Vals) {
  auto &B = Cx.b;
  if (T->kind() == Kind::None) {
    Fmt += "None";
  } else if (T->isBool()) {
    Fmt += "%s";
    Vals.push_back(
        B.CreateSelect(V, B.CreateGlobalStringPtr("True", "print.true"),
                       B.CreateGlobalStringPtr("False", "print.false")));
  } else if (T->isInt()) {
    Fmt += T->isSigned() ? "%lld" : "%llu";
    Vals.push_back(Cx.cast(V, T, intTy(64, T->isSigned())));
  } else if (T->kind() == Kind::Tuple) {
    Fmt += '(';
    const auto &Elems = T->elems();
    for (unsigned K = 0; K < Elems.size(); ++K) {
      if (K)
        Fmt += ", ";
      printValue(Cx, Elems[K], B.CreateExtractValue(V, {K}), Fmt, Vals);
    }
    Fmt += Elems.size() == 1 ? ",)" : ")";
  } else if (T->kind() == Kind::Intrinsic) { // a dim3 namespace (typePrint)
    const std::string &N = T->name();
    SReg Reg = N == "cuda.threadIdx"  ? SReg::Tid
               : N == "cuda.blockDim" ? SReg::NTid
               : N == "cuda.blockIdx" ? SReg::CtaId
                                      : SReg::NCtaId;
    Fmt += "(%lld, %lld, %lld)";
    for (int D = 0; D < 3; ++D)
      Vals.push_back(
          B.CreateZExt(Cx.target.specialReg(B, Reg, D), B.getInt64Ty()));
  } else {
    Fmt += "%f";
    Vals.push_back(Cx.cast(V, T, float64Ty()));
  }
}

} // namespace

llvm::Value *lowerPrint(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  std::string Fmt;
  std::vector<llvm::Value *> Vals;
  for (size_t K = 0; K < R.args.size(); ++K) {
    if (K)
      Fmt += ' ';
    TypeRef T = R.argTypes[K];
    bc::ConstValue C;
    if (T->kind() == Kind::Str) {
      ArgInfo{T, false, R.argInstrs[K]}.constant(C);
      for (char Ch : C.text)
        Fmt += Ch == '%' ? std::string("%%") : std::string(1, Ch);
    } else {
      printValue(Cx, T, R.args[K], Fmt, Vals);
    }
  }
  Fmt += '\n';
  std::vector<llvm::Type *> Fields;
  for (llvm::Value *V : Vals)
    Fields.push_back(V->getType());
  llvm::Value *Buf = llvm::ConstantPointerNull::get(B.getPtrTy());
  if (!Vals.empty()) {
    // Each argument aligned to its own size: LLVM's struct layout is
    // exactly vprintf's argument-buffer layout.
    auto *ST = llvm::StructType::get(Cx.ctx, Fields);
    Buf = Cx.entryAlloca(ST, "print.args");
    for (unsigned K = 0; K < Vals.size(); ++K)
      B.CreateStore(Vals[K], B.CreateStructGEP(ST, Buf, K));
  }
  Cx.target.vprintf(B, B.CreateGlobalStringPtr(Fmt, "print.fmt"), Buf);
  return Cx.none();
}

llvm::Value *lowerLiteralUnroll(const LoweringRequest &R) { return R.args[0]; }

// tuple() / tuple(t): the elements of t, one by one, in a plain tuple.
llvm::Value *lowerTupleCtor(const LoweringRequest &R) {
  auto &Cx = R.cx;
  llvm::Type *Ty = Cx.valueType(R.instr.type);
  if (R.args.empty() || R.args[0]->getType() == Ty)
    return R.args.empty() ? llvm::UndefValue::get(Ty) : R.args[0];
  llvm::Value *Tup = llvm::UndefValue::get(Ty);
  for (unsigned K = 0; K < R.instr.type->elems().size(); ++K)
    Tup = Cx.b.CreateInsertValue(Tup, Cx.b.CreateExtractValue(R.args[0], {K}),
                                 {K});
  return Tup;
}

llvm::Value *lowerDivmod(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  if (Cx.opts.zeroDivisionCheck)
    lower::checkDivisor(Cx, &R.instr, bc::BinOpKind::FloorDiv, true, T,
                        R.args[1], false);
  llvm::Value *Q = lower::lowerBinOp(Cx, &R.instr, bc::BinOpKind::FloorDiv, T,
                                     R.args[0], R.args[1], nullptr);
  llvm::Value *M = lower::lowerBinOp(Cx, &R.instr, bc::BinOpKind::Mod, T,
                                     R.args[0], R.args[1], nullptr);
  llvm::Value *Tup = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  Tup = Cx.b.CreateInsertValue(Tup, Q, {0});
  return Cx.b.CreateInsertValue(Tup, M, {1});
}

llvm::Value *lowerPow(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  if (R.args.size() == 2) {
    int64_t E = 0;
    const ir::Instr *X = R.argInstrs[1];
    while (X->op == ir::Op::Cast)
      X = X->operands[0];
    bool Const = X->op == ir::Op::Const && X->cval.isSmallInt();
    if (Const)
      E = X->cval.i;
    if (Cx.opts.zeroDivisionCheck)
      lower::checkPowerBase(Cx, &R.instr, R.instr.type, R.args[0], R.args[1]);
    return lower::lowerBinOp(Cx, &R.instr, bc::BinOpKind::Pow, R.instr.type,
                             R.args[0], R.args[1], Const ? &E : nullptr);
  }
  // pow(a, b, m): square-and-multiply modulo m, Python's sign rules for %.
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::Value *A = R.args[0], *E = R.args[1], *M = R.args[2];
  auto Mod = [&](llvm::Value *X) {
    return lower::lowerBinOp(Cx, &R.instr, bc::BinOpKind::Mod, int64Ty(), X, M,
                             nullptr);
  };
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  llvm::Value *Base0 = Mod(A);
  llvm::Value *One = Mod(B.getInt64(1));
  Pre = B.GetInsertBlock();
  auto *Loop = llvm::BasicBlock::Create(Cx.ctx, "powmod.loop", Fn);
  auto *Body = llvm::BasicBlock::Create(Cx.ctx, "powmod.body", Fn);
  auto *Done = llvm::BasicBlock::Create(Cx.ctx, "powmod.done", Fn);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  auto *Acc = B.CreatePHI(B.getInt64Ty(), 2),
       *Base = B.CreatePHI(B.getInt64Ty(), 2),
       *Exp = B.CreatePHI(B.getInt64Ty(), 2);
  Acc->addIncoming(One, Pre);
  Base->addIncoming(Base0, Pre);
  Exp->addIncoming(E, Pre);
  B.CreateCondBr(B.CreateICmpSGT(Exp, B.getInt64(0)), Body, Done);
  B.SetInsertPoint(Body);
  llvm::Value *Odd = B.CreateTrunc(Exp, B.getInt1Ty());
  llvm::Value *NewAcc = B.CreateSelect(Odd, Mod(B.CreateMul(Acc, Base)), Acc);
  llvm::Value *NewBase = Mod(B.CreateMul(Base, Base));
  llvm::Value *NewExp = B.CreateAShr(Exp, B.getInt64(1));
  llvm::BasicBlock *Latch = B.GetInsertBlock();
  Acc->addIncoming(NewAcc, Latch);
  Base->addIncoming(NewBase, Latch);
  Exp->addIncoming(NewExp, Latch);
  B.CreateBr(Loop);
  B.SetInsertPoint(Done);
  return Acc;
}

namespace {

// 10**K (0 <= K <= 308), the nearest double, from a constant table.
llvm::Value *powerOfTen(lower::LowerContext &Cx, llvm::Value *K) {
  auto &B = Cx.b;
  std::vector<double> Pow(309);
  for (int E = 0; E <= 308; ++E)
    Pow[E] = std::strtod(("1e" + std::to_string(E)).c_str(), nullptr);
  llvm::Constant *Init = llvm::ConstantDataArray::get(Cx.ctx, Pow);
  llvm::Value *Table =
      Cx.target.constArray(Cx.module, Init, "pcj_powers_of_ten");
  llvm::Value *Idx =
      B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, K, B.getInt64(308));
  return B.CreateLoad(B.getDoubleTy(),
                      B.CreateInBoundsGEP(B.getDoubleTy(), Table, Idx),
                      "pow10");
}

// round(x, n) of a double, as CPython rounds it: the exact value of x,
// rounded half to even at the n-th decimal, converted back to the nearest
// double.  Exact for |n| <= 22, where 10**|n| is exact: x * 10**n (or
// x / 10**-n) is rounded to an integer R with its exact error in hand (fma),
// and R / 10**n is one correctly rounded operation; beyond, within an ulp.
// n > 323 gives x, n < -308 gives +-0 (as in CPython); a result too large
// gives +-inf (CPython raises OverflowError).
llvm::Value *roundDigits(lower::LowerContext &Cx, llvm::Value *X,
                         llvm::Value *N) {
  auto &B = Cx.b;
  llvm::IRBuilder<>::FastMathFlagGuard Exact(B); // no contraction here
  B.clearFastMathFlags();
  llvm::Type *D = B.getDoubleTy();
  auto C = [&](double V) { return llvm::ConstantFP::get(D, V); };
  auto Fabs = [&](llvm::Value *V) {
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V);
  };
  auto Fma = [&](llvm::Value *A, llvm::Value *Bv, llvm::Value *Cv) {
    return B.CreateIntrinsic(llvm::Intrinsic::fma, {D}, {A, Bv, Cv});
  };
  auto Odd = [&](llvm::Value *R) { // R integral, |R| < 2**53
    llvm::Value *H = B.CreateFMul(R, C(0.5));
    return B.CreateFCmpONE(H,
                           B.CreateUnaryIntrinsic(llvm::Intrinsic::floor, H));
  };
  auto Inc = [&](llvm::Value *R, llvm::Value *Cond, double By) {
    return B.CreateSelect(Cond, B.CreateFAdd(R, C(By)), R);
  };
  llvm::Value *Pos = B.CreateICmpSGE(N, B.getInt64(0));
  // |n| (as unsigned: INT64_MIN stays huge), capped at 400.
  llvm::Value *K = B.CreateBinaryIntrinsic(
      llvm::Intrinsic::umin,
      B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, N, B.getFalse()),
      B.getInt64(400));
  // 10**n for 308 < n <= 323 is 10**(n - 22) * 10**22.
  llvm::Value *Split = B.CreateICmpUGT(K, B.getInt64(308));
  llvm::Value *P =
      powerOfTen(Cx, B.CreateSelect(Split, B.CreateSub(K, B.getInt64(22)), K));
  llvm::Value *P2 = B.CreateSelect(B.CreateAnd(Pos, Split), C(1e22), C(1.0));
  llvm::Value *Big = C(9007199254740992.0); // 2**53

  // n >= 0: Y + Lo = x * 10**n (exactly, without the split).
  llvm::Value *Y1 = B.CreateFMul(X, P);
  llvm::Value *Lo = B.CreateSelect(Split, C(0.0), Fma(X, P, B.CreateFNeg(Y1)));
  llvm::Value *Y = B.CreateFMul(Y1, P2);
  llvm::Value *R = B.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, Y);
  llvm::Value *Dlt = B.CreateFSub(Y, R); // exact
  // Y sits on a tie that Lo breaks, or Y is an integer and Lo a tie.
  R = Inc(R,
          B.CreateAnd(B.CreateFCmpOEQ(Dlt, C(0.5)), B.CreateFCmpOGT(Lo, C(0))),
          1);
  R = Inc(R,
          B.CreateAnd(B.CreateFCmpOEQ(Dlt, C(-0.5)), B.CreateFCmpOLT(Lo, C(0))),
          -1);
  llvm::Value *OddR = Odd(R);
  R = Inc(R, B.CreateAnd(B.CreateFCmpOEQ(Lo, C(0.5)), OddR), 1);
  R = Inc(R, B.CreateAnd(B.CreateFCmpOEQ(Lo, C(-0.5)), OddR), -1);
  llvm::Value *PosRes = B.CreateSelect(
      B.CreateOr(
          B.CreateICmpUGT(K, B.getInt64(323)),
          B.CreateNot(B.CreateFCmpOLT(Fabs(Y), Big))), // nothing to round
      X, B.CreateFDiv(B.CreateFDiv(R, P2), P));

  // n < 0: Q = x / 10**-n, Rem = x - RQ * 10**-n exactly.
  llvm::Value *Q = B.CreateFDiv(X, P);
  llvm::Value *RQ = B.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, Q);
  llvm::Value *Rem = Fma(B.CreateFNeg(RQ), P, X);
  llvm::Value *Half = B.CreateFMul(P, C(0.5));
  llvm::Value *NegHalf = B.CreateFNeg(Half);
  llvm::Value *OddQ = Odd(RQ);
  llvm::Value *RQ2 = Inc(RQ, B.CreateFCmpOGT(Rem, Half), 1);
  RQ2 = Inc(RQ2, B.CreateFCmpOLT(Rem, NegHalf), -1);
  RQ2 = Inc(RQ2, B.CreateAnd(B.CreateFCmpOEQ(Rem, Half), OddQ), 1);
  RQ2 = Inc(RQ2, B.CreateAnd(B.CreateFCmpOEQ(Rem, NegHalf), OddQ), -1);
  llvm::Value *NegRes = B.CreateSelect(
      Split, C(0.0),
      B.CreateSelect(B.CreateFCmpOLT(Fabs(Q), Big), B.CreateFMul(RQ2, P), X));

  llvm::Value *Res = B.CreateBinaryIntrinsic(
      llvm::Intrinsic::copysign, B.CreateSelect(Pos, PosRes, NegRes), X);
  llvm::Value *Finite =
      B.CreateFCmpOLT(Fabs(X), llvm::ConstantFP::getInfinity(D));
  return B.CreateSelect(Finite, Res, X);
}

// round(x, n) of a 64-bit integer (Signed: two's complement) for n < 0:
// the magnitude rounded half to even to a multiple of 10**-n, wrapping like
// other integer arithmetic; n >= 0 keeps x.
llvm::Value *roundIntDigits(llvm::IRBuilder<> &B, llvm::Value *X,
                            llvm::Value *N, bool Signed) {
  llvm::Value *Zero = B.getInt64(0), *One = B.getInt64(1);
  llvm::Value *Neg = Signed ? B.CreateICmpSLT(X, Zero) : B.getFalse();
  llvm::Value *Mag = B.CreateSelect(Neg, B.CreateNeg(X), X); // as unsigned
  // 10**k for k = -n <= 19 (the largest power of ten below 2**64).
  llvm::Value *K =
      B.CreateSelect(B.CreateICmpSLT(N, Zero), B.CreateNeg(N), Zero);
  llvm::Value *KC =
      B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, K, B.getInt64(19));
  llvm::Value *P = One;
  uint64_t Pow = 10;
  for (unsigned Bit = 0; Bit < 5; ++Bit, Pow *= Pow) {
    llvm::Value *Set =
        B.CreateICmpNE(B.CreateAnd(KC, B.getInt64(1u << Bit)), Zero);
    P = B.CreateSelect(Set, B.CreateMul(P, B.getInt64(Pow)), P);
  }
  llvm::Value *Q = B.CreateUDiv(Mag, P);
  llvm::Value *Rem = B.CreateSub(Mag, B.CreateMul(Q, P));
  llvm::Value *Other = B.CreateSub(P, Rem); // distance to the next multiple
  llvm::Value *Up = B.CreateOr(
      B.CreateICmpUGT(Rem, Other),
      B.CreateAnd(B.CreateICmpEQ(Rem, Other), B.CreateTrunc(Q, B.getInt1Ty())));
  llvm::Value *Res =
      B.CreateMul(B.CreateAdd(Q, B.CreateZExt(Up, B.getInt64Ty())), P);
  // Beyond 10**19 every 64-bit magnitude rounds to 0.
  Res = B.CreateSelect(B.CreateICmpUGT(K, B.getInt64(19)), Zero, Res);
  Res = B.CreateSelect(Neg, B.CreateNeg(Res), Res);
  return B.CreateSelect(B.CreateICmpSGE(N, Zero), X, Res);
}

} // namespace

// round(x): half to even, to an int (saturating like every float -> int
// conversion); round(x, n): see roundDigits / roundIntDigits.
llvm::Value *lowerBuiltinRound(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef T = R.argTypes[0];
  llvm::Value *X = R.args[0];
  if (R.args.size() == 1) {
    if (!T->isFloat())
      return Cx.cast(X, T, R.instr.type);
    llvm::Value *F = B.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, X);
    return Cx.cast(F, T, R.instr.type); // saturating, NaN -> 0
  }
  llvm::Value *N = R.args[1];
  if (!T->isFloat()) {
    TypeRef W = T->isInt() && !T->isSigned() ? intTy(64, false) : int64Ty();
    llvm::Value *X64 = Cx.cast(X, T, W);
    llvm::Value *Res = roundIntDigits(B, X64, N, W->isSigned());
    return Cx.cast(Res, W, R.instr.type); // wraps to the type
  }
  llvm::Value *Res = roundDigits(Cx, Cx.cast(X, T, float64Ty()), N);
  return Cx.cast(Res, float64Ty(), T);
}

// enumerate(x[, start]) -> {i64 start, x}; zip(a, b, ...) -> {a, b, ...}
llvm::Value *lowerIterable(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  llvm::Value *V = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  if (R.info.idata == 0) {
    llvm::Value *Start = R.args.size() == 2 ? R.args[1] : B.getInt64(0);
    V = B.CreateInsertValue(V, Start, {0});
    return B.CreateInsertValue(V, R.args[0], {1});
  }
  for (unsigned K = 0; K < R.args.size(); ++K)
    V = B.CreateInsertValue(V, R.args[K], {K});
  return V;
}

} // namespace pcj::stdlib::lowering
