// Lowering rules for complex numbers and cmath (registry/complex.def), built
// from real libm / libdevice functions (TargetHooks::mathFunction).
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"
#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;
using namespace lower;

namespace {

struct Cplx {
  LowerContext &Cx;
  TypeRef T; // the complex type
  TypeRef F; // its float part

  Cplx(LowerContext &Cx, TypeRef T) : Cx(Cx), T(T), F(floatTy(T->bits() / 2)) {}

  llvm::Value *fn(const char *Name, llvm::Value *X) {
    return Cx.b.CreateCall(Cx.target.mathFunction(Cx.module, Name, F, 1), {X});
  }
  llvm::Value *fn2(const char *Name, llvm::Value *X, llvm::Value *Y) {
    return Cx.b.CreateCall(Cx.target.mathFunction(Cx.module, Name, F, 2), {X, Y});
  }
  llvm::Value *make(llvm::Value *Re, llvm::Value *Im) {
    return complexMake(Cx, T, Re, Im);
  }
  llvm::Value *k(double V) { return llvm::ConstantFP::get(Cx.valueType(F), V); }
};

} // namespace

llvm::Value *lowerComplexCtor(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  llvm::Value *Re = llvm::ConstantFP::get(Cx.b.getDoubleTy(), 0.0);
  llvm::Value *Im = Re;
  if (R.args.size() >= 1)
    Re = Cx.cast(R.args[0], R.argTypes[0], float64Ty());
  if (R.args.size() == 2)
    Im = Cx.cast(R.args[1], R.argTypes[1], float64Ty());
  return complexMake(Cx, T, Re, Im);
}

llvm::Value *lowerRealImag(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  bool Imag = R.info.idata == 1;
  if (T->isComplex())
    return Imag ? complexIm(Cx, R.args[0]) : complexRe(Cx, R.args[0]);
  if (!Imag)
    return Cx.cast(R.args[0], T, R.instr.type);
  return T->isFloat() ? (llvm::Value *)llvm::ConstantFP::get(R.args[0]->getType(), 0.0)
                      : Cx.intConst(R.instr.type, 0);
}

llvm::Value *lowerConjugate(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  if (!T->isComplex())
    return Cx.cast(R.args[0], T, R.instr.type);
  return complexMake(Cx, T, complexRe(Cx, R.args[0]),
                     Cx.b.CreateFNeg(complexIm(Cx, R.args[0])));
}

llvm::Value *lowerCmath(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  Cplx C(Cx, R.instr.type);
  llvm::Value *Z = R.args[0];
  llvm::Value *X = complexRe(Cx, Z), *Y = complexIm(Cx, Z);
  switch (R.info.idata) {
  case 0: { // exp
    llvm::Value *E = C.fn("exp", X);
    return C.make(B.CreateFMul(E, C.fn("cos", Y)), B.CreateFMul(E, C.fn("sin", Y)));
  }
  case 1: // log
    return C.make(C.fn("log", complexAbs(Cx, C.T, Z)), C.fn2("atan2", Y, X));
  case 9: { // log10
    llvm::Value *L10 = C.k(2.302585092994046);
    return C.make(B.CreateFDiv(C.fn("log", complexAbs(Cx, C.T, Z)), L10),
                  B.CreateFDiv(C.fn2("atan2", Y, X), L10));
  }
  case 2: { // sqrt, with the principal branch and signed zeros as CPython
    llvm::Value *Zero = C.k(0.0), *Half = C.k(0.5);
    llvm::Value *Rr = complexAbs(Cx, C.T, Z);
    llvm::Value *Ax = B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X);
    llvm::Value *S = B.CreateUnaryIntrinsic(
        llvm::Intrinsic::sqrt, B.CreateFMul(B.CreateFAdd(Rr, Ax), Half));
    llvm::Value *D = B.CreateFDiv(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, Y),
                                  B.CreateFMul(S, C.k(2.0)));
    llvm::Value *IsZero = B.CreateFCmpOEQ(S, Zero);
    llvm::Value *Pos = B.CreateFCmpOGE(X, Zero);
    // x >= 0: (s, copysign(|y|/2s, y)); x < 0: (|y|/2s, copysign(s, y))
    llvm::Value *Re = B.CreateSelect(Pos, S, D);
    llvm::Value *ImMag = B.CreateSelect(Pos, D, S);
    llvm::Value *Im = B.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, ImMag, Y);
    return C.make(B.CreateSelect(IsZero, Zero, Re),
                  B.CreateSelect(IsZero, Y, Im));
  }
  case 3: // sin
    return C.make(B.CreateFMul(C.fn("sin", X), C.fn("cosh", Y)),
                  B.CreateFMul(C.fn("cos", X), C.fn("sinh", Y)));
  case 4: // cos
    return C.make(B.CreateFMul(C.fn("cos", X), C.fn("cosh", Y)),
                  B.CreateFNeg(B.CreateFMul(C.fn("sin", X), C.fn("sinh", Y))));
  case 6: // sinh
    return C.make(B.CreateFMul(C.fn("sinh", X), C.fn("cos", Y)),
                  B.CreateFMul(C.fn("cosh", X), C.fn("sin", Y)));
  case 7: // cosh
    return C.make(B.CreateFMul(C.fn("cosh", X), C.fn("cos", Y)),
                  B.CreateFMul(C.fn("sinh", X), C.fn("sin", Y)));
  case 5: { // tan = sin(2x)/(cos(2x)+cosh(2y)) + i sinh(2y)/(cos(2x)+cosh(2y))
    llvm::Value *X2 = B.CreateFMul(X, C.k(2.0)), *Y2 = B.CreateFMul(Y, C.k(2.0));
    llvm::Value *D = B.CreateFAdd(C.fn("cos", X2), C.fn("cosh", Y2));
    return C.make(B.CreateFDiv(C.fn("sin", X2), D), B.CreateFDiv(C.fn("sinh", Y2), D));
  }
  case 8: { // tanh = sinh(2x)/(cosh(2x)+cos(2y)) + i sin(2y)/(cosh(2x)+cos(2y))
    llvm::Value *X2 = B.CreateFMul(X, C.k(2.0)), *Y2 = B.CreateFMul(Y, C.k(2.0));
    llvm::Value *D = B.CreateFAdd(C.fn("cosh", X2), C.fn("cos", Y2));
    return C.make(B.CreateFDiv(C.fn("sinh", X2), D), B.CreateFDiv(C.fn("sin", Y2), D));
  }
  }
  Cx.fail(&R.instr, "unknown cmath function");
}

llvm::Value *lowerCmathReal(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef CT = R.argTypes[0];
  Cplx C(Cx, CT);
  llvm::Value *Z = R.args[0];
  llvm::Value *X = complexRe(Cx, Z), *Y = complexIm(Cx, Z);
  llvm::Value *Inf = llvm::ConstantFP::getInfinity(X->getType());
  auto IsNan = [&](llvm::Value *V) { return B.CreateFCmpUNO(V, V); };
  auto IsInf = [&](llvm::Value *V) {
    return B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V), Inf);
  };
  switch (R.info.idata) {
  case 0:
    return C.fn2("atan2", Y, X);
  case 1: {
    llvm::Value *T = llvm::UndefValue::get(Cx.valueType(R.instr.type));
    T = B.CreateInsertValue(T, complexAbs(Cx, CT, Z), {0});
    return B.CreateInsertValue(T, C.fn2("atan2", Y, X), {1});
  }
  case 2:
    return B.CreateOr(IsNan(X), IsNan(Y));
  case 3:
    return B.CreateOr(IsInf(X), IsInf(Y));
  default:
    return B.CreateNot(B.CreateOr(B.CreateOr(IsNan(X), IsNan(Y)),
                                  B.CreateOr(IsInf(X), IsInf(Y))));
  }
}

llvm::Value *lowerCmathRect(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  Cplx C(Cx, R.instr.type);
  llvm::Value *Rr = R.args[0], *Phi = R.args[1];
  return C.make(B.CreateFMul(Rr, C.fn("cos", Phi)), B.CreateFMul(Rr, C.fn("sin", Phi)));
}

} // namespace pcj::stdlib::lowering
