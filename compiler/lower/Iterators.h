// Length and indexed element of iterables (private to compiler/lower).
#pragma once

#include "lower/LowerContext.h"

namespace pcj::lower {

// Number of elements of range(Start, Stop, Step) with counter type C, as an
// unsigned number of C's width (Python's len(range(...))).
llvm::Value *rangeTripCount(LowerContext &Cx, types::TypeRef C,
                            llvm::Value *Start, llvm::Value *Stop,
                            llvm::Value *Step);
// len(T) as i64.
llvm::Value *iterLength(LowerContext &Cx, types::TypeRef T, llvm::Value *V);
// The element at index Idx (i64, in range) of iterable T.
llvm::Value *iterElement(LowerContext &Cx, const ir::Instr *At,
                         types::TypeRef T, llvm::Value *V, llvm::Value *Idx);
// {i64 index, i64 length, iterable value} (a tuple: ptr to its elements)
llvm::Type *iteratorStateType(LowerContext &Cx, types::TypeRef Iterable);

// A view of array A (type ArrTy) indexed by Idx (an int, a slice or a tuple
// of them, type IdxTy), of type ViewTy: Python's slice semantics
// (slice.indices), byte strides multiplied by the steps.
llvm::Value *arrayView(LowerContext &Cx, const ir::Instr *At,
                       types::TypeRef ArrTy, llvm::Value *A,
                       types::TypeRef IdxTy, llvm::Value *Idx,
                       types::TypeRef ViewTy);

} // namespace pcj::lower
