// Iteration other than the plain `for i in range(...)`: over arrays (rows of
// n-d arrays are views), tuples, ranges inside enumerate/zip, enumerate and
// zip.  Every iterable has a length and an element at an index, so an
// iterator is {i64 index, i64 length, iterable value} in an alloca (for a
// tuple: the address of its elements as an array, stored once):
//
//   for v in zip(a, range(2, 9, 3)):   ->   n = min(len(a), len(range))
//                                           v = (a[i], 2 + 3 * i), i += 1
#include "lower/Iterators.h"

#include "lower/Arith.h"
#include "support/Diagnostics.h"

namespace pcj::lower {

using namespace types;

llvm::Value *rangeTripCount(LowerContext &Cx, TypeRef C, llvm::Value *Start,
                            llvm::Value *Stop, llvm::Value *Step) {
  auto &B = Cx.b;
  bool Unsigned = C->isInt() && !C->isSigned();
  // Narrow counters compute in 64 bits (no overflow), then fit the count
  // back into the counter width as an unsigned number.
  TypeRef W = Unsigned ? intTy(64, false) : int64Ty();
  llvm::Value *S0 = Cx.cast(Start, C, W), *S1 = Cx.cast(Stop, C, W),
              *St = Cx.cast(Step, C, W);
  llvm::Value *Zero = B.getInt64(0), *One = B.getInt64(1);
  // A step of 0 is a ValueError in Python (a constant one is a compile
  // error); at run time it gives an empty range, never a hang.
  llvm::Value *StepZero = B.CreateICmpEQ(St, Zero);
  llvm::Value *N;
  if (Unsigned) { // an unsigned step is positive
    St = B.CreateSelect(StepZero, One, St);
    llvm::Value *Span = B.CreateSub(S1, S0);
    N = B.CreateSelect(
        B.CreateICmpUGT(S1, S0),
        B.CreateUDiv(B.CreateSub(B.CreateAdd(Span, St), One), St), Zero);
  } else {
    // step > 0: (stop - start + step - 1) / step; step < 0: the mirror.
    llvm::Value *Up = B.CreateICmpSGT(St, Zero);
    llvm::Value *Span =
        B.CreateSelect(Up, B.CreateSub(S1, S0), B.CreateSub(S0, S1));
    llvm::Value *AStep = B.CreateSelect(Up, St, B.CreateNeg(St));
    AStep = B.CreateSelect(StepZero, One, AStep);
    N = B.CreateSelect(
        B.CreateICmpSGT(Span, Zero),
        B.CreateUDiv(B.CreateSub(B.CreateAdd(Span, AStep), One), AStep), Zero);
  }
  N = B.CreateSelect(StepZero, Zero, N);
  return Cx.cast(N, intTy(64, false), intTy(C->bits(), false));
}

namespace {

llvm::Value *rangeLength(LowerContext &Cx, TypeRef R, llvm::Value *V) {
  TypeRef C = R->inner();
  return Cx.cast(rangeTripCount(Cx, C, Cx.b.CreateExtractValue(V, {0}),
                                Cx.b.CreateExtractValue(V, {1}),
                                Cx.b.CreateExtractValue(V, {2})),
                 intTy(C->bits(), false), int64Ty());
}

} // namespace

llvm::Value *iterLength(LowerContext &Cx, TypeRef T, llvm::Value *V) {
  auto &B = Cx.b;
  switch (T->kind()) {
  case Kind::Range:
    return rangeLength(Cx, T, V);
  case Kind::Array:
    return Cx.arrayShape(V, 0);
  case Kind::Tuple:
    return B.getInt64(T->elems().size());
  case Kind::Iterable: {
    unsigned First = T->name() == "enumerate" ? 1 : 0;
    llvm::Value *N = nullptr;
    for (unsigned K = 0; K < T->elems().size(); ++K) {
      llvm::Value *L =
          iterLength(Cx, T->elems()[K], B.CreateExtractValue(V, {First + K}));
      N = N ? B.CreateSelect(B.CreateICmpSLT(L, N), L, N) : L;
    }
    return N;
  }
  default:
    PCJ_ASSERT(false, "length of non-iterable " + T->str());
  }
}

llvm::Value *iterElement(LowerContext &Cx, const ir::Instr *At, TypeRef T,
                         llvm::Value *V, llvm::Value *Idx) {
  auto &B = Cx.b;
  TypeRef E = iterElementType(T);
  switch (T->kind()) {
  case Kind::Range: {
    TypeRef C = T->inner();
    llvm::Value *I = Cx.cast(Idx, int64Ty(), C);
    return B.CreateAdd(B.CreateExtractValue(V, {0}),
                       B.CreateMul(I, B.CreateExtractValue(V, {2})));
  }
  case Kind::Array: {
    if (T->ndim() == 1) {
      llvm::Value *P = Cx.elementPtr(At, T, V, {{Idx, int64Ty(), true}});
      Cx.sanitizeAccess(At, TargetHooks::Access::Read, T, V, nullptr, P);
      unsigned Align = types::scalarAlign(T->dtype());
      return Cx.fromMemory(
          B.CreateAlignedLoad(Cx.memoryType(T->dtype()), P, llvm::Align(Align)),
          T->dtype());
    }
    // Row view: data + i * stride0, the remaining shape and strides.
    llvm::Value *Data = B.CreateInBoundsGEP(
        B.getInt8Ty(), Cx.arrayData(V), B.CreateMul(Idx, Cx.arrayStride(V, 0)));
    std::vector<llvm::Value *> Shape, Strides;
    for (unsigned D = 1; D < T->ndim(); ++D) {
      Shape.push_back(Cx.arrayShape(V, D));
      Strides.push_back(Cx.arrayStride(V, D));
    }
    return Cx.makeArray(E, Data, Shape, Strides);
  }
  case Kind::Tuple: {
    unsigned N = T->elems().size();
    llvm::Type *ET = Cx.valueType(E);
    llvm::Type *AT = llvm::ArrayType::get(ET, N);
    llvm::Value *Slot = Cx.entryAlloca(AT, "tuple.iter");
    for (unsigned K = 0; K < N; ++K)
      B.CreateStore(Cx.cast(B.CreateExtractValue(V, {K}), T->elems()[K], E),
                    B.CreateConstInBoundsGEP2_64(AT, Slot, 0, K));
    return B.CreateLoad(ET,
                        B.CreateInBoundsGEP(AT, Slot, {B.getInt64(0), Idx}));
  }
  case Kind::Iterable: {
    bool Enum = T->name() == "enumerate";
    llvm::Value *Tup = llvm::UndefValue::get(Cx.valueType(E));
    unsigned Out = 0;
    if (Enum)
      Tup = B.CreateInsertValue(
          Tup, B.CreateAdd(B.CreateExtractValue(V, {0}), Idx), {Out++});
    for (unsigned K = 0; K < T->elems().size(); ++K) {
      llvm::Value *Inner = B.CreateExtractValue(V, {(Enum ? 1u : 0u) + K});
      Tup = B.CreateInsertValue(
          Tup, iterElement(Cx, At, T->elems()[K], Inner, Idx), {Out++});
    }
    return Tup;
  }
  default:
    PCJ_ASSERT(false, "element of non-iterable " + T->str());
  }
}

llvm::Value *arrayView(LowerContext &Cx, const ir::Instr *At, TypeRef ArrTy,
                       llvm::Value *A, TypeRef IdxTy, llvm::Value *Idx,
                       TypeRef ViewTy) {
  auto &B = Cx.b;
  std::vector<TypeRef> Parts;
  std::vector<llvm::Value *> Vals;
  if (IdxTy->isTuple()) {
    for (unsigned K = 0; K < IdxTy->elems().size(); ++K) {
      Parts.push_back(IdxTy->elems()[K]);
      Vals.push_back(B.CreateExtractValue(Idx, {K}));
    }
  } else {
    Parts.push_back(IdxTy);
    Vals.push_back(Idx);
  }
  std::vector<IndexStep> Steps;
  std::string Err;
  bool Ok = expandArrayIndex(Parts, ArrTy->ndim(), Steps, Err);
  PCJ_ASSERT(Ok, Err);
  llvm::Value *Zero = B.getInt64(0), *One = B.getInt64(1);
  llvm::Value *Offset = Zero;
  std::vector<llvm::Value *> Shape, Strides;
  unsigned D = 0; // the array dimension the next step applies to
  for (size_t S = 0; S < Steps.size() || D < ArrTy->ndim(); ++S) {
    if (S < Steps.size() && Steps[S].newAxis) { // None: extent 1, stride 0
      Shape.push_back(One);
      Strides.push_back(Zero);
      continue;
    }
    llvm::Value *Len = Cx.arrayShape(A, D);
    llvm::Value *Stride = Cx.arrayStride(A, D);
    ++D;
    if (S >= Steps.size() || Steps[S].part < 0) { // whole dimension
      Shape.push_back(Len);
      Strides.push_back(Stride);
      continue;
    }
    TypeRef P = Parts[Steps[S].part];
    llvm::Value *PV = Vals[Steps[S].part];
    if (P->isInt()) {
      llvm::Value *I = Cx.cast(PV, P, int64Ty());
      if (P->isSigned())
        I = B.CreateSelect(B.CreateICmpSLT(I, Zero), B.CreateAdd(I, Len), I);
      Offset = B.CreateAdd(Offset, B.CreateMul(I, Stride));
      continue;
    }
    // slice.indices(len)
    unsigned Has = P->bits();
    llvm::Value *Step = (Has & 4) ? B.CreateExtractValue(PV, {2}) : One;
    Step = B.CreateSelect(B.CreateICmpEQ(Step, Zero), One,
                          Step); // step 0: a Python error
    llvm::Value *Pos = B.CreateICmpSGT(Step, Zero);
    llvm::Value *Lower = B.CreateSelect(Pos, Zero, B.getInt64(-1));
    llvm::Value *Upper = B.CreateSelect(Pos, Len, B.CreateSub(Len, One));
    auto Clamp = [&](llvm::Value *X) {
      llvm::Value *Neg = B.CreateAdd(X, Len);
      llvm::Value *FromNeg =
          B.CreateSelect(B.CreateICmpSLT(Neg, Lower), Lower, Neg);
      llvm::Value *FromPos =
          B.CreateSelect(B.CreateICmpSGT(X, Upper), Upper, X);
      return B.CreateSelect(B.CreateICmpSLT(X, Zero), FromNeg, FromPos);
    };
    llvm::Value *Start = (Has & 1) ? Clamp(B.CreateExtractValue(PV, {0}))
                                   : B.CreateSelect(Pos, Lower, Upper);
    llvm::Value *Stop = (Has & 2) ? Clamp(B.CreateExtractValue(PV, {1}))
                                  : B.CreateSelect(Pos, Upper, Lower);
    llvm::Value *Span =
        B.CreateSelect(Pos, B.CreateSub(Stop, Start), B.CreateSub(Start, Stop));
    llvm::Value *AStep = B.CreateSelect(Pos, Step, B.CreateNeg(Step));
    llvm::Value *N = B.CreateSelect(
        B.CreateICmpSGT(Span, Zero),
        B.CreateSDiv(B.CreateSub(B.CreateAdd(Span, AStep), One), AStep), Zero);
    Offset = B.CreateAdd(Offset, B.CreateMul(Start, Stride));
    Shape.push_back(N);
    Strides.push_back(B.CreateMul(Stride, Step));
  }
  llvm::Value *Data = B.CreateGEP(B.getInt8Ty(), Cx.arrayData(A), Offset);
  return Cx.makeArray(ViewTy, Data, Shape, Strides);
}

llvm::Type *iteratorStateType(LowerContext &Cx, TypeRef Iterable) {
  llvm::Type *It = Iterable->isTuple()
                       ? Cx.b.getPtrTy() // its elements, an array
                       : Cx.valueType(Iterable);
  return llvm::StructType::get(Cx.ctx,
                               {Cx.b.getInt64Ty(), Cx.b.getInt64Ty(), It});
}

} // namespace pcj::lower
