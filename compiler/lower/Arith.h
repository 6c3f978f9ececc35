// Python operator semantics in LLVM IR (private to compiler/lower).
#pragma once

#include "lower/LowerContext.h"

namespace pcj::lower {

// a op b, both already of type T (InsertCasts made them so).
// ConstExponent: for **, the exponent when it is a small integer constant.
llvm::Value *lowerBinOp(LowerContext &Cx, const ir::Instr *At, bc::BinOpKind K,
                        types::TypeRef T, llvm::Value *A, llvm::Value *B,
                        const int64_t *ConstExponent);
// Checked mode (debug=True): raises ZeroDivisionError, with CPython's
// message, where the divisor of a / // % (Divmod: of divmod()) of type T is
// zero.  IntOperands: both operands were integers before promotion (1 / 0
// says "division by zero", 1.0 / 0 "float division by zero").
void checkDivisor(LowerContext &Cx, const ir::Instr *At, bc::BinOpKind K,
                  bool Divmod, types::TypeRef T, llvm::Value *Divisor,
                  bool IntOperands);
// Checked mode: ZeroDivisionError for an integer 0 ** n with n < 0 (as
// CPython and numba-cuda's debug mode); Base and Exponent are of type T.
void checkPowerBase(LowerContext &Cx, const ir::Instr *At, types::TypeRef T,
                    llvm::Value *Base, llvm::Value *Exponent);
llvm::Value *lowerCompare(LowerContext &Cx, bc::CmpKind K, types::TypeRef T,
                          llvm::Value *A, llvm::Value *B);
llvm::Value *lowerUnary(LowerContext &Cx, ir::UnaryKind K, types::TypeRef T,
                        llvm::Value *A);
// A == B (K Eq) or A != B (K Ne) of two values of T, a number or a tuple of
// those (element by element): the values of two Enum members of one class.
llvm::Value *lowerValueEquality(LowerContext &Cx, bc::CmpKind K,
                                types::TypeRef T, llvm::Value *A,
                                llvm::Value *B);

// Complex numbers ({re, im}; Complex.cpp).
llvm::Value *complexMake(LowerContext &Cx, types::TypeRef T, llvm::Value *Re,
                         llvm::Value *Im);
llvm::Value *complexRe(LowerContext &Cx, llvm::Value *Z);
llvm::Value *complexIm(LowerContext &Cx, llvm::Value *Z);
llvm::Value *complexAbs(LowerContext &Cx, types::TypeRef T, llvm::Value *Z);

// The float half of a complex type T as lowering helpers see it: calls to
// libm / libdevice of the part type, IEEE tests, constants (Complex.cpp).
class ComplexParts {
public:
  ComplexParts(LowerContext &Cx, types::TypeRef T);
  LowerContext &cx;
  llvm::IRBuilder<> &b;
  types::TypeRef type; // complex64 or complex128
  types::TypeRef part; // float32 or float64

  llvm::Value *call(const char *Name, llvm::Value *X); // sin(x)
  llvm::Value *call(const char *Name, llvm::Value *X, llvm::Value *Y);
  llvm::Value *k(double V);
  llvm::Value *inf();
  llvm::Value *nan();
  llvm::Value *fabs(llvm::Value *V);
  llvm::Value *copysign(llvm::Value *Mag, llvm::Value *Sign);
  llvm::Value *select(llvm::Value *C, llvm::Value *T, llvm::Value *F);
  llvm::Value *isNan(llvm::Value *V);
  llvm::Value *isInf(llvm::Value *V);
  llvm::Value *isFinite(llvm::Value *V);
  llvm::Value *notFinite(llvm::Value *V); // inf or NaN
  llvm::Value *isZero(llvm::Value *V);    // +0 or -0
  llvm::Value *make(llvm::Value *Re, llvm::Value *Im);
  bool single() const { return part->bits() == 32; }
};

llvm::Value *complexBinOp(LowerContext &Cx, const ir::Instr *At,
                          bc::BinOpKind K, types::TypeRef T, llvm::Value *A,
                          llvm::Value *B, const int64_t *ConstExponent);

} // namespace pcj::lower
