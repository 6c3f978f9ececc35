// Lowering rules for Python builtins (registry/builtins.def).  They emit LLVM IR through
// LowerContext and reach target differences only via its TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

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

llvm::Value *lowerScalarCtor(const LoweringRequest &R) {
  TypeRef To = R.instr.type;
  if (R.args.empty())
    return R.cx.cast(R.cx.b.getInt1(false), boolTy(), To);
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
    } else if (T->kind() == Kind::None) {
      Fmt += "None";
    } else if (T->isBool()) {
      Fmt += "%s";
      Vals.push_back(B.CreateSelect(R.args[K],
                                    B.CreateGlobalStringPtr("True", "print.true"),
                                    B.CreateGlobalStringPtr("False", "print.false")));
    } else if (T->isInt()) {
      Fmt += T->isSigned() ? "%lld" : "%llu";
      Vals.push_back(Cx.cast(R.args[K], T, intTy(64, T->isSigned())));
    } else {
      Fmt += "%f";
      Vals.push_back(Cx.cast(R.args[K], T, float64Ty()));
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

llvm::Value *lowerDivmod(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
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
    bool Const = X->op == ir::Op::Const && X->cval.kind == bc::ConstValue::Kind::Int;
    if (Const)
      E = X->cval.i;
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
  auto *Acc = B.CreatePHI(B.getInt64Ty(), 2), *Base = B.CreatePHI(B.getInt64Ty(), 2),
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

// round(x): half to even, to an int; round(x, n): x * 10**n rounded half to
// even, scaled back (exact for the usual small n; CPython rounds the decimal
// representation, which can differ in the last place).
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
    // Integers: ndigits >= 0 keeps x; negative ndigits round to 10**-n.
    llvm::Value *X64 = Cx.cast(X, T->isBool() ? int64Ty() : T, int64Ty());
    llvm::Value *P = B.CreateFPToSI(
        B.CreateCall(Cx.target.mathFunction(Cx.module, "pow", float64Ty(), 2),
                     {llvm::ConstantFP::get(B.getDoubleTy(), 10.0),
                      B.CreateSIToFP(B.CreateNeg(N), B.getDoubleTy())}),
        B.getInt64Ty());
    llvm::Value *Xf = B.CreateSIToFP(X64, B.getDoubleTy());
    llvm::Value *Pf = B.CreateSIToFP(P, B.getDoubleTy());
    llvm::Value *Rd = B.CreateFMul(
        B.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, B.CreateFDiv(Xf, Pf)), Pf);
    llvm::Value *Res = B.CreateSelect(B.CreateICmpSGE(N, B.getInt64(0)), X64,
                                      B.CreateFPToSI(Rd, B.getInt64Ty()));
    return Cx.cast(Res, int64Ty(), R.instr.type);
  }
  llvm::Value *P = B.CreateCall(
      Cx.target.mathFunction(Cx.module, "pow", float64Ty(), 2),
      {llvm::ConstantFP::get(B.getDoubleTy(), 10.0), B.CreateSIToFP(N, B.getDoubleTy())});
  llvm::Value *Xd = Cx.cast(X, T, float64Ty());
  llvm::Value *Rd = B.CreateFDiv(
      B.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, B.CreateFMul(Xd, P)), P);
  return Cx.cast(Rd, float64Ty(), T);
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
