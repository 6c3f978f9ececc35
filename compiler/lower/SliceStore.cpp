// Slice assignment: a store into a view of an array (a[i:j] = x,
// a[:, k] = x, a[::2] = b).  The view is computed as for a read
// (arrayView), then one loop visits its elements in C order:
//
//   a[1:n] = 0.5        -> for k in [0, n-1): *(a.data + (1 + k) * s) = 0.5
//   a[:, 0] = b         -> b broadcast to the view's shape (NumPy's rules:
//                          trailing dimensions line up, an extent 1
//                          repeats), elements converted and copied
//
// A source whose extents do not broadcast raises ValueError.  A source that
// shares memory with the destination (a[1:] = a[:-1]) is copied the way
// NumPy copies it when both are 1-d views with the same stride (the loop
// runs backwards when the destination lies after the source); other
// overlapping sources raise ValueError instead of giving a wrong answer.
#include "lower/SliceStore.h"

#include "lower/Iterators.h"
#include "support/Diagnostics.h"

namespace pcj::lower {

using namespace types;

namespace {

// The number of dimensions of a[Idx] (ints drop one, None adds one).
unsigned viewDims(TypeRef ArrTy, TypeRef IdxTy) {
  std::vector<TypeRef> Parts =
      IdxTy->isTuple() ? IdxTy->elems() : std::vector<TypeRef>{IdxTy};
  std::vector<IndexStep> Steps;
  std::string Err;
  bool Ok = expandArrayIndex(Parts, ArrTy->ndim(), Steps, Err);
  PCJ_ASSERT(Ok, Err);
  unsigned N = ArrTy->ndim();
  for (const IndexStep &S : Steps) {
    if (S.newAxis)
      ++N;
    else if (S.part >= 0 && Parts[S.part]->isInt())
      --N;
  }
  return N;
}

// A pointer's generic address as an integer (addresses in different
// memory spaces compare correctly only as generic addresses).
llvm::Value *genericAddress(LowerContext &Cx, llvm::Value *P) {
  auto &B = Cx.b;
  if (P->getType()->getPointerAddressSpace() != 0)
    P = B.CreateAddrSpaceCast(P, B.getPtrTy(0));
  return B.CreatePtrToInt(P, B.getInt64Ty());
}

// The byte range [Lo, Hi) an array's elements occupy (Count > 0 assumed).
std::pair<llvm::Value *, llvm::Value *>
byteExtent(LowerContext &Cx, llvm::Value *Data,
           const std::vector<llvm::Value *> &Shape,
           const std::vector<llvm::Value *> &Strides, uint64_t ItemSize) {
  auto &B = Cx.b;
  llvm::Value *Base = genericAddress(Cx, Data);
  llvm::Value *Lo = Base, *Hi = Base;
  for (size_t D = 0; D < Shape.size(); ++D) {
    llvm::Value *Span =
        B.CreateMul(B.CreateSub(Shape[D], B.getInt64(1)), Strides[D]);
    llvm::Value *Neg = B.CreateICmpSLT(Span, B.getInt64(0));
    Lo = B.CreateAdd(Lo, B.CreateSelect(Neg, Span, B.getInt64(0)));
    Hi = B.CreateAdd(Hi, B.CreateSelect(Neg, B.getInt64(0), Span));
  }
  return {Lo, B.CreateAdd(Hi, B.getInt64(ItemSize))};
}

} // namespace

bool indexesView(TypeRef ArrTy, TypeRef IdxTy) {
  std::vector<TypeRef> Parts =
      IdxTy->isTuple() ? IdxTy->elems() : std::vector<TypeRef>{IdxTy};
  for (TypeRef P : Parts)
    if (!P->isInt())
      return true;
  return Parts.size() < ArrTy->ndim();
}

void storeArraySlice(LowerContext &Cx, const ir::Instr *At, TypeRef ArrTy,
                     llvm::Value *A, TypeRef IdxTy, llvm::Value *Idx,
                     llvm::Value *Val, TypeRef ValTy) {
  auto &B = Cx.b;
  TypeRef Elem = ArrTy->dtype();
  unsigned N = viewDims(ArrTy, IdxTy);
  TypeRef ViewTy = arrayTy(Elem, N, Layout::A, ArrTy->addrSpace());
  llvm::Value *View = arrayView(Cx, At, ArrTy, A, IdxTy, Idx, ViewTy);
  std::vector<llvm::Value *> Shape, DstStrides, SrcStrides;
  llvm::Value *Count = B.getInt64(1);
  for (unsigned D = 0; D < N; ++D) {
    Shape.push_back(Cx.arrayShape(View, D));
    DstStrides.push_back(Cx.arrayStride(View, D));
    Count = B.CreateMul(Count, Shape[D]);
  }
  bool FromArray = ValTy->isArray();
  llvm::Value *Reverse = B.getFalse();
  if (FromArray) {
    // Broadcast the source: its dimension J lines up with the view's
    // dimension J + N - M; an extent 1 repeats (stride 0).
    unsigned M = ValTy->ndim();
    llvm::Value *Mismatch = B.getFalse();
    std::vector<llvm::Value *> SrcShape;
    for (unsigned D = 0; D < N; ++D) {
      if (D < N - M) {
        SrcStrides.push_back(B.getInt64(0));
        continue;
      }
      llvm::Value *Ext = Cx.arrayShape(Val, D - (N - M));
      llvm::Value *One = B.CreateICmpEQ(Ext, B.getInt64(1));
      SrcShape.push_back(Ext);
      Mismatch = B.CreateOr(Mismatch, B.CreateAnd(B.CreateICmpNE(Ext, Shape[D]),
                                                  B.CreateNot(One)));
      SrcStrides.push_back(
          B.CreateSelect(One, B.getInt64(0), Cx.arrayStride(Val, D - (N - M))));
    }
    Cx.raiseIf(At, Mismatch, TargetHooks::RaisedError::ValueError,
               "could not broadcast the source array to the shape of the "
               "array slice it is assigned to");
    // Shared memory between source and destination.
    std::vector<llvm::Value *> SrcOwnStrides;
    for (unsigned J = 0; J < M; ++J)
      SrcOwnStrides.push_back(Cx.arrayStride(Val, J));
    auto [DLo, DHi] =
        byteExtent(Cx, Cx.arrayData(View), Shape, DstStrides, Elem->byteSize());
    auto [SLo, SHi] = byteExtent(Cx, Cx.arrayData(Val), SrcShape, SrcOwnStrides,
                                 ValTy->dtype()->byteSize());
    llvm::Value *Overlap = B.CreateAnd(
        B.CreateICmpNE(Count, B.getInt64(0)),
        B.CreateAnd(B.CreateICmpSLT(DLo, SHi), B.CreateICmpSLT(SLo, DHi)));
    llvm::Value *DBase = genericAddress(Cx, Cx.arrayData(View));
    llvm::Value *SBase = genericAddress(Cx, Cx.arrayData(Val));
    llvm::Value *SameStrides = B.getInt1(ValTy->dtype() == Elem);
    for (unsigned D = 0; D < N; ++D)
      SameStrides = B.CreateAnd(SameStrides,
                                B.CreateICmpEQ(DstStrides[D], SrcStrides[D]));
    // Element by element in place: each element is read before it is written.
    llvm::Value *InPlace =
        B.CreateAnd(SameStrides, B.CreateICmpEQ(DBase, SBase));
    llvm::Value *Safe = InPlace;
    if (N == 1) {
      // One dimension, one stride S: element k is written after element
      // k + (DBase - SBase) / S is read when that is <= 0, so run
      // backwards when the destination is ahead in the loop's direction.
      Safe = SameStrides;
      llvm::Value *Ahead =
          B.CreateXor(B.CreateICmpSGT(DBase, SBase),
                      B.CreateICmpSLT(DstStrides[0], B.getInt64(0)));
      Reverse = B.CreateAnd(Overlap, Ahead);
    }
    Cx.raiseIf(At, B.CreateAnd(Overlap, B.CreateNot(Safe)),
               TargetHooks::RaisedError::ValueError,
               "the source of this slice assignment shares memory with the "
               "slice in a way kernels cannot copy element by element (copy "
               "the source into another array first)");
  }

  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Body = llvm::BasicBlock::Create(Cx.ctx, "slice.store", Fn);
  auto *Done = llvm::BasicBlock::Create(Cx.ctx, "slice.done", Fn);
  B.CreateCondBr(B.CreateICmpEQ(Count, B.getInt64(0)), Done, Body);
  B.SetInsertPoint(Body);
  llvm::PHINode *K = B.CreatePHI(B.getInt64Ty(), 2, "k");
  K->addIncoming(B.getInt64(0), Pre);
  // The flat C-order position, then one index per dimension.
  llvm::Value *Rest = B.CreateSelect(
      Reverse, B.CreateSub(B.CreateSub(Count, B.getInt64(1)), K), K);
  llvm::Value *DstOff = B.getInt64(0), *SrcOff = B.getInt64(0);
  for (unsigned D = N; D-- > 0;) {
    llvm::Value *I = D ? B.CreateURem(Rest, Shape[D]) : Rest;
    Rest = D ? B.CreateUDiv(Rest, Shape[D]) : Rest;
    DstOff = B.CreateAdd(DstOff, B.CreateMul(I, DstStrides[D]));
    if (FromArray)
      SrcOff = B.CreateAdd(SrcOff, B.CreateMul(I, SrcStrides[D]));
  }
  llvm::Value *X = Val;
  if (FromArray) {
    TypeRef SrcElem = ValTy->dtype();
    llvm::Value *Src = B.CreateGEP(B.getInt8Ty(), Cx.arrayData(Val), SrcOff);
    Cx.sanitizeAccess(At, TargetHooks::Access::Read, ValTy, Val,
                      At->operands[2], Src);
    X = Cx.fromMemory(B.CreateAlignedLoad(Cx.memoryType(SrcElem), Src,
                                          llvm::Align(scalarAlign(SrcElem))),
                      SrcElem);
    X = Cx.cast(X, SrcElem, Elem);
  }
  llvm::Value *Dst = B.CreateGEP(B.getInt8Ty(), Cx.arrayData(View), DstOff);
  Cx.sanitizeAccess(At, TargetHooks::Access::Write, ArrTy, A, At->operands[0],
                    Dst);
  B.CreateAlignedStore(Cx.toMemory(X, Elem), Dst,
                       llvm::Align(scalarAlign(Elem)));
  llvm::Value *Next = B.CreateAdd(K, B.getInt64(1));
  K->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(Next, Count), Body, Done);
  B.SetInsertPoint(Done);
}

} // namespace pcj::lower
