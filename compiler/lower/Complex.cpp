// Complex arithmetic in LLVM IR: a complex value is {re, im} of float or
// double.  Division uses Smith's algorithm (robust against overflow, like
// CPython's); functions of cmath are built from real libm / libdevice calls.
#include "lower/Arith.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::lower {

using namespace types;

llvm::Value *complexMake(LowerContext &Cx, TypeRef T, llvm::Value *Re,
                         llvm::Value *Im) {
  llvm::Value *V = llvm::UndefValue::get(Cx.valueType(T));
  V = Cx.b.CreateInsertValue(V, Re, {0});
  return Cx.b.CreateInsertValue(V, Im, {1});
}

llvm::Value *complexRe(LowerContext &Cx, llvm::Value *Z) {
  return Cx.b.CreateExtractValue(Z, {0});
}
llvm::Value *complexIm(LowerContext &Cx, llvm::Value *Z) {
  return Cx.b.CreateExtractValue(Z, {1});
}

llvm::Value *complexAbs(LowerContext &Cx, TypeRef T, llvm::Value *Z) {
  TypeRef F = floatTy(T->bits() / 2);
  return Cx.b.CreateCall(Cx.target.mathFunction(Cx.module, "hypot", F, 2),
                         {complexRe(Cx, Z), complexIm(Cx, Z)});
}

llvm::Value *complexBinOp(LowerContext &Cx, const ir::Instr *At,
                          bc::BinOpKind K, TypeRef T, llvm::Value *A,
                          llvm::Value *B, const int64_t *ConstExponent) {
  auto &Bd = Cx.b;
  llvm::Value *A0 = complexRe(Cx, A), *A1 = complexIm(Cx, A);
  llvm::Value *B0 = complexRe(Cx, B), *B1 = complexIm(Cx, B);
  switch (K) {
  case bc::BinOpKind::Add:
    return complexMake(Cx, T, Bd.CreateFAdd(A0, B0), Bd.CreateFAdd(A1, B1));
  case bc::BinOpKind::Sub:
    return complexMake(Cx, T, Bd.CreateFSub(A0, B0), Bd.CreateFSub(A1, B1));
  case bc::BinOpKind::Mul:
    return complexMake(Cx, T,
                       Bd.CreateFSub(Bd.CreateFMul(A0, B0), Bd.CreateFMul(A1, B1)),
                       Bd.CreateFAdd(Bd.CreateFMul(A0, B1), Bd.CreateFMul(A1, B0)));
  case bc::BinOpKind::TrueDiv: {
    // Smith: scale by the larger component of the divisor.
    llvm::Value *AbsB0 = Bd.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, B0);
    llvm::Value *AbsB1 = Bd.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, B1);
    llvm::Value *UseRe = Bd.CreateFCmpOGE(AbsB0, AbsB1);
    // |b0| >= |b1|: r = b1/b0, d = b0 + b1 r, re = (a0 + a1 r)/d, im = (a1 - a0 r)/d
    llvm::Value *R1 = Bd.CreateFDiv(B1, B0);
    llvm::Value *D1 = Bd.CreateFAdd(B0, Bd.CreateFMul(B1, R1));
    llvm::Value *Re1 = Bd.CreateFDiv(Bd.CreateFAdd(A0, Bd.CreateFMul(A1, R1)), D1);
    llvm::Value *Im1 = Bd.CreateFDiv(Bd.CreateFSub(A1, Bd.CreateFMul(A0, R1)), D1);
    // else: r = b0/b1, d = b0 r + b1, re = (a0 r + a1)/d, im = (a1 r - a0)/d
    llvm::Value *R2 = Bd.CreateFDiv(B0, B1);
    llvm::Value *D2 = Bd.CreateFAdd(Bd.CreateFMul(B0, R2), B1);
    llvm::Value *Re2 = Bd.CreateFDiv(Bd.CreateFAdd(Bd.CreateFMul(A0, R2), A1), D2);
    llvm::Value *Im2 = Bd.CreateFDiv(Bd.CreateFSub(Bd.CreateFMul(A1, R2), A0), D2);
    return complexMake(Cx, T, Bd.CreateSelect(UseRe, Re1, Re2),
                       Bd.CreateSelect(UseRe, Im1, Im2));
  }
  case bc::BinOpKind::Pow: {
    if (ConstExponent && *ConstExponent >= 0 && *ConstExponent <= 16) {
      llvm::Type *FT = A0->getType();
      llvm::Value *Res = complexMake(Cx, T, llvm::ConstantFP::get(FT, 1.0),
                                     llvm::ConstantFP::get(FT, 0.0));
      llvm::Value *Base = A;
      for (int64_t N = *ConstExponent; N > 0; N >>= 1) {
        if (N & 1)
          Res = complexBinOp(Cx, At, bc::BinOpKind::Mul, T, Res, Base, nullptr);
        if (N > 1)
          Base = complexBinOp(Cx, At, bc::BinOpKind::Mul, T, Base, Base, nullptr);
      }
      return Res;
    }
    // a ** b = exp(b * log(a)); 0 ** b = 0 for b != 0.
    TypeRef F = floatTy(T->bits() / 2);
    llvm::Value *LogR = Bd.CreateCall(Cx.target.mathFunction(Cx.module, "log", F, 1),
                                      {complexAbs(Cx, T, A)});
    llvm::Value *Th = Bd.CreateCall(Cx.target.mathFunction(Cx.module, "atan2", F, 2),
                                    {A1, A0});
    llvm::Value *Re = Bd.CreateFSub(Bd.CreateFMul(B0, LogR), Bd.CreateFMul(B1, Th));
    llvm::Value *Im = Bd.CreateFAdd(Bd.CreateFMul(B0, Th), Bd.CreateFMul(B1, LogR));
    llvm::Value *E = Bd.CreateCall(Cx.target.mathFunction(Cx.module, "exp", F, 1), {Re});
    llvm::Value *C = Bd.CreateCall(Cx.target.mathFunction(Cx.module, "cos", F, 1), {Im});
    llvm::Value *S = Bd.CreateCall(Cx.target.mathFunction(Cx.module, "sin", F, 1), {Im});
    llvm::Value *Zero = llvm::ConstantFP::get(A0->getType(), 0.0);
    llvm::Value *AZero = Bd.CreateAnd(Bd.CreateFCmpOEQ(A0, Zero), Bd.CreateFCmpOEQ(A1, Zero));
    return complexMake(Cx, T, Bd.CreateSelect(AZero, Zero, Bd.CreateFMul(E, C)),
                       Bd.CreateSelect(AZero, Zero, Bd.CreateFMul(E, S)));
  }
  default:
    Cx.fail(At, std::string("operator ") + bc::binOpSymbol(K) +
                    " is not defined for complex numbers");
  }
}

} // namespace pcj::lower
