// Stores into array slices (private to compiler/lower; SliceStore.cpp).
#pragma once

#include "lower/LowerContext.h"

namespace pcj::lower {

// Whether a[Idx] (Idx of type IdxTy) is a view rather than one element.
bool indexesView(types::TypeRef ArrTy, types::TypeRef IdxTy);

// a[Idx] = Val where a[Idx] is a view (a slice assignment): Val (type
// ValTy) is a number already converted to the element type, stored into
// every element of the view, or an array broadcast to the view's shape
// (NumPy's rules) whose elements are converted and copied.
void storeArraySlice(LowerContext &Cx, const ir::Instr *At,
                     types::TypeRef ArrTy, llvm::Value *A, types::TypeRef IdxTy,
                     llvm::Value *Idx, llvm::Value *Val, types::TypeRef ValTy);

} // namespace pcj::lower
