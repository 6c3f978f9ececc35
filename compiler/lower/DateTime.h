// NumPy's datetime64/timedelta64 arithmetic and the fixed-width string
// values in LLVM IR (private to compiler/lower; see DateTime.cpp).
#pragma once

#include "lower/LowerContext.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"

namespace pcj::lower {

// a op b with NumPy's datetime rules (typeinfer/DateTimeOps.cpp typed it and
// brought both operands to one unit): TA/TB the operand types, R the
// result's.  NaT (INT64_MIN) propagates.
llvm::Value *lowerDateTimeBinOp(LowerContext &Cx, bc::BinOpKind K,
                                types::TypeRef TA, types::TypeRef TB,
                                types::TypeRef R, llvm::Value *A,
                                llvm::Value *B);
// a op b for two datetimes or two timedeltas of one unit: NaT compares
// unequal to everything (only != is true), as in NumPy.
llvm::Value *lowerDateTimeCompare(LowerContext &Cx, bc::CmpKind K,
                                  llvm::Value *A, llvm::Value *B);
// a == b / a != b of two CharSeq values of one character width (NumPy's
// rule: trailing zero characters do not count).
llvm::Value *lowerCharSeqCompare(LowerContext &Cx, bc::CmpKind K,
                                 types::TypeRef TA, types::TypeRef TB,
                                 llvm::Value *A, llvm::Value *B);
// Unit conversion of a datetime/timedelta (NaT stays NaT); CharSeq to
// CharSeq of another length (truncated or zero-padded).
llvm::Value *castDateTimeOrChars(LowerContext &Cx, llvm::Value *V,
                                 types::TypeRef From, types::TypeRef To);
// A str or bytes constant as a CharSeq value of type To (truncated or
// zero-padded; a str's code points for 'U', a bytes' bytes for 'S').
llvm::Value *charSeqConstant(LowerContext &Cx, const std::string &Text,
                             bool IsBytes, types::TypeRef To);

} // namespace pcj::lower
