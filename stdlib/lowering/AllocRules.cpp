// Lowering rules for arrays allocated in kernels (registry/alloc.def): the
// block comes from LowerContext::heapAllocate (lower/Heap.cpp, which also
// decides when it is freed); these rules size it, shape it and fill it.
#include "stdlib/lowering/CudaHelpers.h"

#include "support/Diagnostics.h"

#include <functional>

namespace pcj::stdlib::lowering {

using namespace types;

namespace {

using cudahelp::findArg;

// for (K = 0; K < N; ++K) Body(K), N an i64 >= 0.
void countedLoop(lower::LowerContext &Cx, llvm::Value *N,
                 const std::function<void(llvm::Value *)> &Body) {
  auto &B = Cx.b;
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Head = llvm::BasicBlock::Create(Cx.ctx, "heap.fill", Fn);
  auto *Done = llvm::BasicBlock::Create(Cx.ctx, "heap.filled", Fn);
  B.CreateCondBr(B.CreateICmpSGT(N, B.getInt64(0)), Head, Done);
  B.SetInsertPoint(Head);
  llvm::PHINode *K = B.CreatePHI(B.getInt64Ty(), 2);
  K->addIncoming(B.getInt64(0), Pre);
  Body(K);
  llvm::Value *Next = B.CreateAdd(K, B.getInt64(1), "", true, true);
  K->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpSLT(Next, N), Head, Done);
  B.SetInsertPoint(Done);
}

// A new C-ordered array of type T and the given extents (i64): checks the
// extents (ValueError for a negative one, as NumPy), takes the block and
// returns the array.  Count receives the number of elements.
llvm::Value *newArray(const LoweringRequest &R, TypeRef T,
                      const std::vector<llvm::Value *> &Shape,
                      llvm::Value *&Count) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  uint64_t Item = T->dtype()->byteSize();
  llvm::Value *Negative = B.getFalse(), *Overflow = B.getFalse();
  Count = B.getInt64(1);
  for (llvm::Value *D : Shape) {
    Negative = B.CreateOr(Negative, B.CreateICmpSLT(D, B.getInt64(0)));
    llvm::Value *M = B.CreateIntrinsic(llvm::Intrinsic::umul_with_overflow,
                                       {B.getInt64Ty()}, {Count, D});
    Overflow = B.CreateOr(Overflow, B.CreateExtractValue(M, {1}));
    Count = B.CreateExtractValue(M, {0});
  }
  Cx.raiseIf(&R.instr, Negative, lower::TargetHooks::RaisedError::ValueError,
             "negative dimensions are not allowed");
  llvm::Value *M =
      B.CreateIntrinsic(llvm::Intrinsic::umul_with_overflow, {B.getInt64Ty()},
                        {Count, B.getInt64(Item)});
  Overflow = B.CreateOr(Overflow, B.CreateExtractValue(M, {1}));
  // An overflowing size asks for more than any heap holds: MemoryError.
  llvm::Value *Bytes = B.CreateSelect(Overflow, B.getInt64(~uint64_t(0)),
                                      B.CreateExtractValue(M, {0}));
  llvm::Value *Data = Cx.heapAllocate(&R.instr, Bytes);
  std::vector<llvm::Value *> Strides(Shape.size());
  llvm::Value *Stride = B.getInt64(int64_t(Item));
  for (size_t D = Shape.size(); D-- > 0;) {
    Strides[D] = Stride;
    Stride = B.CreateMul(Stride, Shape[D]);
  }
  return Cx.makeArray(T, Data, Shape, Strides);
}

// The extents of a shape argument (an int or a tuple of ints) as i64.
std::vector<llvm::Value *> shapeValues(const LoweringRequest &R, int K) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[K];
  std::vector<llvm::Value *> Out;
  if (!T->isTuple())
    return {Cx.cast(R.args[K], T, int64Ty())};
  for (unsigned D = 0; D < T->elems().size(); ++D)
    Out.push_back(Cx.cast(Cx.b.CreateExtractValue(R.args[K], {D}),
                          T->elems()[D], int64Ty()));
  return Out;
}

// Stores Value (of type ValTy) into every one of the Count elements of the
// new array A (type T).  IData 0 (empty) leaves them; 1 (zeros) clears the
// bytes.
void fillArray(const LoweringRequest &R, TypeRef T, llvm::Value *A,
               llvm::Value *Count, llvm::Value *Value, TypeRef ValTy) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef DT = T->dtype();
  llvm::Value *Data = Cx.arrayData(A);
  if (!Value) {
    B.CreateMemSet(Data, B.getInt8(0),
                   B.CreateMul(Count, B.getInt64(int64_t(DT->byteSize()))),
                   llvm::MaybeAlign(16));
    return;
  }
  llvm::Value *Mem = Cx.toMemory(Cx.cast(Value, ValTy, DT), DT);
  llvm::Type *ET = Cx.memoryType(DT);
  countedLoop(Cx, Count, [&](llvm::Value *K) {
    B.CreateAlignedStore(Mem, B.CreateInBoundsGEP(ET, Data, K),
                         llvm::Align(scalarAlign(DT)));
  });
}

} // namespace

// np.empty / zeros / ones / full (IData 0-3).
llvm::Value *lowerNpAlloc(const LoweringRequest &R) {
  bool Full = R.info.idata == 3;
  llvm::Value *Count = nullptr;
  llvm::Value *A =
      newArray(R, R.instr.type, shapeValues(R, findArg(R, 0, "shape")), Count);
  if (R.info.idata == 0)
    return A;
  llvm::Value *Value = nullptr;
  TypeRef ValTy = nullptr;
  if (R.info.idata == 2) {
    Value = R.cx.b.getInt64(1);
    ValTy = int64Ty();
  } else if (Full) {
    int F = findArg(R, 1, "fill_value");
    Value = R.args[F];
    ValTy = R.argTypes[F];
  }
  fillArray(R, R.instr.type, A, Count, Value, ValTy);
  return A;
}

// np.empty_like / zeros_like / ones_like / full_like (IData 0-3).
llvm::Value *lowerNpAllocLike(const LoweringRequest &R) {
  auto &Cx = R.cx;
  int S = findArg(R, 0, "a");
  std::vector<llvm::Value *> Shape;
  for (unsigned D = 0; D < R.argTypes[S]->ndim(); ++D)
    Shape.push_back(Cx.arrayShape(R.args[S], D));
  llvm::Value *Count = nullptr;
  llvm::Value *A = newArray(R, R.instr.type, Shape, Count);
  if (R.info.idata == 0)
    return A;
  llvm::Value *Value = nullptr;
  TypeRef ValTy = nullptr;
  if (R.info.idata == 2) {
    Value = Cx.b.getInt64(1);
    ValTy = int64Ty();
  } else if (R.info.idata == 3) {
    int F = findArg(R, 1, "fill_value");
    Value = R.args[F];
    ValTy = R.argTypes[F];
  }
  fillArray(R, R.instr.type, A, Count, Value, ValTy);
  return A;
}

// a.copy(): element K of the copy (C order) is the source's element at the
// multi-index K decomposes into; a C-layout source is read in order.
llvm::Value *lowerArrayCopy(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef From = R.argTypes[0], T = R.instr.type, DT = T->dtype();
  llvm::Value *Src = R.args[0];
  unsigned N = From->ndim();
  std::vector<llvm::Value *> Shape, Strides;
  for (unsigned D = 0; D < N; ++D) {
    Shape.push_back(Cx.arrayShape(Src, D));
    Strides.push_back(Cx.arrayStride(Src, D));
  }
  llvm::Value *Count = nullptr;
  llvm::Value *A = newArray(R, T, Shape, Count);
  llvm::Value *Data = Cx.arrayData(A), *SrcData = Cx.arrayData(Src);
  llvm::Type *ET = Cx.memoryType(DT);
  llvm::Align Align(scalarAlign(DT));
  bool Contiguous = From->layout() == Layout::C;
  countedLoop(Cx, Count, [&](llvm::Value *K) {
    llvm::Value *Offset = nullptr;
    if (Contiguous) {
      Offset = B.CreateMul(K, B.getInt64(int64_t(DT->byteSize())));
    } else {
      Offset = B.getInt64(0);
      llvm::Value *Rest = K;
      for (unsigned D = N; D-- > 0;) {
        llvm::Value *I = D ? B.CreateURem(Rest, Shape[D]) : Rest;
        if (D)
          Rest = B.CreateUDiv(Rest, Shape[D]);
        Offset = B.CreateAdd(Offset, B.CreateMul(I, Strides[D]));
      }
    }
    llvm::Value *From = B.CreateGEP(B.getInt8Ty(), SrcData, Offset);
    llvm::Value *V = B.CreateAlignedLoad(ET, From, Align);
    B.CreateAlignedStore(V, B.CreateInBoundsGEP(ET, Data, K), Align);
  });
  return A;
}

// np.arange: with one bound it is the stop (start 0); step 1 unless given.
// Length: ceil((stop - start) / step), at least 0; element K: start + K *
// step, computed in the bounds' type (int64 or float64) and converted.
llvm::Value *lowerNpArange(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  int A0 = findArg(R, 0, "start"), A1 = findArg(R, 1, "stop"),
      A2 = findArg(R, 2, "step");
  auto Given = [&](int K) { return K >= 0 && R.argTypes[K] != noneTy(); };
  bool Float = false;
  for (int K : {A0, A1, A2})
    Float |= Given(K) && R.argTypes[K]->isFloat();
  TypeRef CT = Float ? float64Ty() : int64Ty();
  auto Bound = [&](int K, int64_t Default) -> llvm::Value * {
    if (!Given(K))
      return Float ? llvm::ConstantFP::get(B.getDoubleTy(), double(Default))
                   : B.getInt64(Default);
    return Cx.cast(R.args[K], R.argTypes[K], CT);
  };
  llvm::Value *Start = nullptr, *Stop = nullptr;
  if (!Given(A1)) { // arange(stop)
    Start = Bound(-1, 0);
    Stop = Bound(A0, 0);
  } else {
    Start = Bound(A0, 0);
    Stop = Bound(A1, 0);
  }
  llvm::Value *Step = Bound(A2, 1);
  llvm::Value *Len = nullptr;
  if (Float) {
    Cx.raiseIf(&R.instr,
               B.CreateFCmpOEQ(Step, llvm::ConstantFP::get(B.getDoubleTy(), 0)),
               lower::TargetHooks::RaisedError::ValueError,
               "Maximum allowed size exceeded (arange() step is zero)");
    llvm::Value *Q = B.CreateFDiv(B.CreateFSub(Stop, Start), Step);
    Q = B.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, Q);
    // NaN or a negative count: empty.
    llvm::Value *Pos =
        B.CreateFCmpOGT(Q, llvm::ConstantFP::get(B.getDoubleTy(), 0));
    Len = B.CreateSelect(Pos, Cx.target.floatToInt(B, Q, B.getInt64Ty(), true),
                         B.getInt64(0));
  } else {
    Cx.raiseIf(&R.instr, B.CreateICmpEQ(Step, B.getInt64(0)),
               lower::TargetHooks::RaisedError::ValueError,
               "Maximum allowed size exceeded (arange() step is zero)");
    // ceil(d / s) for either sign of s: (d + s - sign(s)) / s, truncating.
    llvm::Value *D = B.CreateSub(Stop, Start);
    llvm::Value *Neg = B.CreateICmpSLT(Step, B.getInt64(0));
    llvm::Value *Adj =
        B.CreateSub(Step, B.CreateSelect(Neg, B.getInt64(-1), B.getInt64(1)));
    llvm::Value *Q = B.CreateSDiv(B.CreateAdd(D, Adj), Step);
    Len = B.CreateSelect(B.CreateICmpSGT(Q, B.getInt64(0)), Q, B.getInt64(0));
  }
  llvm::Value *Count = nullptr;
  TypeRef T = R.instr.type, DT = T->dtype();
  llvm::Value *A = newArray(R, T, {Len}, Count);
  llvm::Value *Data = Cx.arrayData(A);
  llvm::Type *ET = Cx.memoryType(DT);
  countedLoop(Cx, Count, [&](llvm::Value *K) {
    llvm::Value *V =
        Float
            ? B.CreateFAdd(
                  Start, B.CreateFMul(B.CreateSIToFP(K, B.getDoubleTy()), Step))
            : B.CreateAdd(Start, B.CreateMul(K, Step));
    llvm::Value *Mem = Cx.toMemory(Cx.cast(V, CT, DT), DT);
    B.CreateAlignedStore(Mem, B.CreateInBoundsGEP(ET, Data, K),
                         llvm::Align(scalarAlign(DT)));
  });
  return A;
}

} // namespace pcj::stdlib::lowering
