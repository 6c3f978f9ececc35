// Python operator semantics in LLVM IR (private to compiler/lower).
#pragma once

#include "lower/LowerContext.h"

namespace pcj::lower {

// a op b, both already of type T (InsertCasts made them so).
// ConstExponent: for **, the exponent when it is a small integer constant.
llvm::Value *lowerBinOp(LowerContext &Cx, const ir::Instr *At,
                        bc::BinOpKind K, types::TypeRef T, llvm::Value *A,
                        llvm::Value *B, const int64_t *ConstExponent);
// Checked mode (debug=True): raises ZeroDivisionError, with CPython's
// message, where the divisor of a / // % (Divmod: of divmod()) of type T is
// zero.  IntOperands: both operands were integers before promotion (1 / 0
// says "division by zero", 1.0 / 0 "float division by zero").
void checkDivisor(LowerContext &Cx, const ir::Instr *At, bc::BinOpKind K,
                  bool Divmod, types::TypeRef T, llvm::Value *Divisor,
                  bool IntOperands);
llvm::Value *lowerCompare(LowerContext &Cx, bc::CmpKind K, types::TypeRef T,
                          llvm::Value *A, llvm::Value *B);
llvm::Value *lowerUnary(LowerContext &Cx, ir::UnaryKind K, types::TypeRef T,
                        llvm::Value *A);

// Complex numbers ({re, im}; Complex.cpp).
llvm::Value *complexMake(LowerContext &Cx, types::TypeRef T, llvm::Value *Re,
                         llvm::Value *Im);
llvm::Value *complexRe(LowerContext &Cx, llvm::Value *Z);
llvm::Value *complexIm(LowerContext &Cx, llvm::Value *Z);
llvm::Value *complexAbs(LowerContext &Cx, types::TypeRef T, llvm::Value *Z);

llvm::Value *complexBinOp(LowerContext &Cx, const ir::Instr *At,
                          bc::BinOpKind K, types::TypeRef T, llvm::Value *A,
                          llvm::Value *B, const int64_t *ConstExponent);

} // namespace pcj::lower
