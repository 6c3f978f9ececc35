// Lowering of NumPy reductions over a whole array (registry/reduction.def;
// typing: stdlib/typing/ReductionRules.cpp): the calling thread visits every
// element in C order (nested loops over the shape, through the strides, so
// any layout and view works) and folds it into an accumulator of the
// result type, left to right (numba-cuda's order, not NumPy's pairwise
// summation; docs/language.md "Array reductions").  mean divides the sum
// by the size; var and std make a second pass over the squared deviations
// from the mean (NumPy's two-pass formula, ddof=0).  min/max (and the nan
// forms) of an empty array raise ValueError, as NumPy does.
//   s = np.sum(a)   (a: float32[:, :])  ->
//     acc = 0.0f
//     for i in range(a.shape[0]): for j in range(a.shape[1]): acc += a[i, j]
//     s = acc
// The folding steps are rounded one by one (no fma contraction), so a
// reduction computes what the same loop computes in NumPy.
#include "stdlib/Reduction.h"
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"
#include "support/Diagnostics.h"

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Intrinsics.h>

#include <functional>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::LowerContext;

namespace {

class Reducer {
public:
  Reducer(const LoweringRequest &R)
      : Cx(R.cx), B(R.cx.b), At(&R.instr), ArrInstr(R.argInstrs[0]),
        ArrT(R.argTypes[0]), A(R.args[0]), Elem(ArrT->dtype()),
        Res(R.instr.type), Op(ReduceOp(R.info.idata)) {}

  llvm::Value *lower();

private:
  LowerContext &Cx;
  llvm::IRBuilder<> &B;
  const ir::Instr *At;
  // The array's instruction (the sanitizer names it in reports).
  const ir::Instr *ArrInstr;
  TypeRef ArrT;
  llvm::Value *A;
  TypeRef Elem, Res;
  ReduceOp Op;

  // Calls Body with every element (its value, of type Elem) in C order.
  void forEach(const std::function<void(llvm::Value *)> &Body);
  llvm::Value *load(const std::vector<llvm::Value *> &Idx);
  llvm::Value *size();
  // An accumulator of type T (an alloca in the entry block) set to Init.
  llvm::AllocaInst *accumulator(TypeRef T, llvm::Value *Init);
  llvm::Value *get(llvm::AllocaInst *Acc, TypeRef T) {
    return B.CreateLoad(Cx.valueType(T), Acc);
  }
  llvm::Value *isNan(llvm::Value *V, TypeRef T);
  llvm::Value *combine(bool Product, TypeRef T, llvm::Value *Acc,
                       llvm::Value *X);
  llvm::Value *divide(llvm::Value *V, TypeRef T, llvm::Value *Count);
  llvm::Value *fold(bool Product);
  llvm::Value *truthFold();
  llvm::Value *extreme(bool Max, bool SkipNan);
  llvm::Value *mean(bool SkipNan);
  llvm::Value *variance();
};

llvm::Value *Reducer::size() {
  llvm::Value *N = B.getInt64(1);
  for (unsigned D = 0; D < ArrT->ndim(); ++D)
    N = B.CreateMul(N, Cx.arrayShape(A, D));
  return N;
}

llvm::Value *Reducer::load(const std::vector<llvm::Value *> &Idx) {
  std::vector<LowerContext::Index> In;
  for (llvm::Value *I : Idx)
    In.push_back({I, int64Ty(), true});
  llvm::Value *P = Cx.elementPtr(At, ArrT, A, In);
  Cx.sanitizeAccess(At, lower::TargetHooks::Access::Read, ArrT, A, ArrInstr, P);
  llvm::Type *MT = Cx.memoryType(Elem);
  auto *L =
      B.CreateAlignedLoad(MT, P, Cx.module.getDataLayout().getABITypeAlign(MT));
  return Cx.fromMemory(L, Elem);
}

// for i0 in range(shape[0]): for i1 in range(shape[1]): ... Body(a[i0, i1,
// ...]); the innermost loop runs over the last axis.
void Reducer::forEach(const std::function<void(llvm::Value *)> &Body) {
  unsigned N = ArrT->ndim();
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  std::vector<llvm::PHINode *> Idx(N);
  std::vector<llvm::BasicBlock *> Heads(N), Exits(N);
  for (unsigned D = 0; D < N; ++D) {
    llvm::BasicBlock *Pre = B.GetInsertBlock();
    Heads[D] = llvm::BasicBlock::Create(Cx.ctx, "reduce.head", Fn);
    auto *Inner = llvm::BasicBlock::Create(Cx.ctx, "reduce.body", Fn);
    Exits[D] = llvm::BasicBlock::Create(Cx.ctx, "reduce.done", Fn);
    B.CreateBr(Heads[D]);
    B.SetInsertPoint(Heads[D]);
    Idx[D] = B.CreatePHI(B.getInt64Ty(), 2, "reduce.i");
    Idx[D]->addIncoming(B.getInt64(0), Pre);
    B.CreateCondBr(B.CreateICmpSLT(Idx[D], Cx.arrayShape(A, D)), Inner,
                   Exits[D]);
    B.SetInsertPoint(Inner);
  }
  Body(load(std::vector<llvm::Value *>(Idx.begin(), Idx.end())));
  for (unsigned D = N; D-- > 0;) {
    Idx[D]->addIncoming(B.CreateAdd(Idx[D], B.getInt64(1)), B.GetInsertBlock());
    B.CreateBr(Heads[D]);
    B.SetInsertPoint(Exits[D]);
  }
}

llvm::AllocaInst *Reducer::accumulator(TypeRef T, llvm::Value *Init) {
  llvm::AllocaInst *Acc = Cx.entryAlloca(Cx.valueType(T), "reduce.acc");
  B.CreateStore(Init, Acc);
  return Acc;
}

llvm::Value *Reducer::isNan(llvm::Value *V, TypeRef T) {
  if (T->isFloat())
    return B.CreateFCmpUNO(V, V);
  if (T->isComplex()) {
    llvm::Value *Re = lower::complexRe(Cx, V), *Im = lower::complexIm(Cx, V);
    return B.CreateOr(B.CreateFCmpUNO(Re, Re), B.CreateFCmpUNO(Im, Im));
  }
  return B.getFalse();
}

// Acc + X or Acc * X of type T, each float operation rounded on its own
// (no `contract`: the builder's flags outside SourceArithmetic); a complex
// product is (ar*xr - ai*xi) + (ar*xi + ai*xr)j, as NumPy computes it.
llvm::Value *Reducer::combine(bool Product, TypeRef T, llvm::Value *Acc,
                              llvm::Value *X) {
  if (T->isIntegral())
    return Product ? B.CreateMul(Acc, X) : B.CreateAdd(Acc, X);
  if (T->isFloat())
    return Product ? B.CreateFMul(Acc, X) : B.CreateFAdd(Acc, X);
  llvm::Value *Ar = lower::complexRe(Cx, Acc), *Ai = lower::complexIm(Cx, Acc);
  llvm::Value *Xr = lower::complexRe(Cx, X), *Xi = lower::complexIm(Cx, X);
  if (!Product)
    return lower::complexMake(Cx, T, B.CreateFAdd(Ar, Xr),
                              B.CreateFAdd(Ai, Xi));
  return lower::complexMake(
      Cx, T, B.CreateFSub(B.CreateFMul(Ar, Xr), B.CreateFMul(Ai, Xi)),
      B.CreateFAdd(B.CreateFMul(Ar, Xi), B.CreateFMul(Ai, Xr)));
}

// V / Count (an int64) for a float or complex V of type T.  A complex
// number's parts are multiplied by 1 / Count: what NumPy's complex division
// (Smith's method) computes for the divisor Count + 0j.
llvm::Value *Reducer::divide(llvm::Value *V, TypeRef T, llvm::Value *Count) {
  if (!T->isComplex())
    return B.CreateFDiv(V, Cx.cast(Count, int64Ty(), T));
  TypeRef Part = floatTy(T->bits() / 2);
  llvm::Value *Scale =
      B.CreateFDiv(llvm::ConstantFP::get(Cx.valueType(Part), 1.0),
                   Cx.cast(Count, int64Ty(), Part));
  return lower::complexMake(Cx, T, B.CreateFMul(lower::complexRe(Cx, V), Scale),
                            B.CreateFMul(lower::complexIm(Cx, V), Scale));
}

// sum / prod / nansum / nanprod: acc = acc + x (acc * x) in the result
// type; the nan forms treat NaN elements as 0 (1).
llvm::Value *Reducer::fold(bool Product) {
  bool SkipNan = Op == ReduceOp::NanSum || Op == ReduceOp::NanProd;
  llvm::Value *Identity = Cx.cast(B.getInt64(Product ? 1 : 0), int64Ty(), Res);
  llvm::AllocaInst *Acc = accumulator(Res, Identity);
  forEach([&](llvm::Value *X) {
    X = Cx.cast(X, Elem, Res);
    if (SkipNan)
      X = B.CreateSelect(isNan(X, Res), Identity, X);
    llvm::Value *V = get(Acc, Res);
    B.CreateStore(combine(Product, Res, V, X), Acc);
  });
  return get(Acc, Res);
}

// all / any / count_nonzero: the elements' truth values (NaN is true).
llvm::Value *Reducer::truthFold() {
  if (Op == ReduceOp::CountNonzero) {
    llvm::AllocaInst *Acc = accumulator(Res, B.getInt64(0));
    forEach([&](llvm::Value *X) {
      llvm::Value *T = B.CreateZExt(Cx.truth(X, Elem), B.getInt64Ty());
      B.CreateStore(B.CreateAdd(get(Acc, Res), T), Acc);
    });
    return get(Acc, Res);
  }
  bool All = Op == ReduceOp::All;
  llvm::AllocaInst *Acc = accumulator(Res, B.getInt1(All));
  forEach([&](llvm::Value *X) {
    llvm::Value *T = Cx.truth(X, Elem);
    llvm::Value *V = get(Acc, Res);
    B.CreateStore(All ? B.CreateAnd(V, T) : B.CreateOr(V, T), Acc);
  });
  return get(Acc, Res);
}

// min / max: NumPy's minimum/maximum folded left to right: a NaN element
// makes the result NaN; on a tie (0.0 and -0.0) the later element wins.
// nanmin / nanmax: fmin/fmax folded from NaN: NaN elements are skipped, on
// a tie the earlier element stays; all NaN gives NaN.  Empty: ValueError.
llvm::Value *Reducer::extreme(bool Max, bool SkipNan) {
  std::string Name = std::string(Max ? "maximum" : "minimum");
  if (SkipNan)
    Name = Max ? "fmax" : "fmin";
  Cx.raiseIf(At, B.CreateICmpEQ(size(), B.getInt64(0)),
             lower::TargetHooks::RaisedError::ValueError,
             "zero-size array to reduction operation " + Name +
                 " which has no identity");
  bool F = Elem->isFloat();
  llvm::Value *Init;
  if (F && SkipNan) {
    Init = llvm::ConstantFP::getNaN(Cx.valueType(Elem));
  } else {
    std::vector<llvm::Value *> Zero(ArrT->ndim(), B.getInt64(0));
    Init = load(Zero);
  }
  llvm::AllocaInst *Acc = accumulator(Elem, Init);
  forEach([&](llvm::Value *X) {
    llvm::Value *V = get(Acc, Elem);
    llvm::Value *Keep;
    if (!F) {
      bool S = Elem->isSigned() && !Elem->isBool();
      Keep = Max ? (S ? B.CreateICmpSGT(V, X) : B.CreateICmpUGT(V, X))
                 : (S ? B.CreateICmpSLT(V, X) : B.CreateICmpULT(V, X));
    } else if (!SkipNan) {
      Keep = B.CreateOr(Max ? B.CreateFCmpOGT(V, X) : B.CreateFCmpOLT(V, X),
                        B.CreateFCmpUNO(V, V));
    } else {
      Keep = B.CreateOr(Max ? B.CreateFCmpOGE(V, X) : B.CreateFCmpOLE(V, X),
                        B.CreateFCmpUNO(X, X));
    }
    B.CreateStore(B.CreateSelect(Keep, V, X), Acc);
  });
  return get(Acc, Elem);
}

// mean: the sum in the result type divided by the size (0 / 0 = NaN for
// an empty array); nanmean: the sum and count of the elements that are
// not NaN.
llvm::Value *Reducer::mean(bool SkipNan) {
  llvm::Value *Zero = Cx.cast(B.getInt64(0), int64Ty(), Res);
  llvm::AllocaInst *Acc = accumulator(Res, Zero);
  llvm::AllocaInst *Count = accumulator(int64Ty(), B.getInt64(0));
  forEach([&](llvm::Value *X) {
    X = Cx.cast(X, Elem, Res);
    llvm::Value *Skip = SkipNan ? isNan(X, Res) : B.getFalse();
    X = B.CreateSelect(Skip, Zero, X);
    B.CreateStore(combine(false, Res, get(Acc, Res), X), Acc);
    B.CreateStore(B.CreateAdd(get(Count, int64Ty()),
                              B.CreateZExt(B.CreateNot(Skip), B.getInt64Ty())),
                  Count);
  });
  return divide(get(Acc, Res), Res, get(Count, int64Ty()));
}

// var: mean m (as mean() computes it), then the mean of |x - m|**2, each
// square rounded before it is added (no fma); std: its square root.
llvm::Value *Reducer::variance() {
  TypeRef MeanT = Elem->isIntegral() ? float64Ty() : Elem;
  TypeRef SaveRes = Res;
  Res = MeanT;
  llvm::Value *M = mean(false);
  Res = SaveRes;
  llvm::Value *Zero = llvm::ConstantFP::get(Cx.valueType(Res), 0.0);
  llvm::AllocaInst *Acc = accumulator(Res, Zero);
  forEach([&](llvm::Value *X) {
    X = Cx.cast(X, Elem, MeanT);
    llvm::Value *Sq;
    if (MeanT->isComplex()) {
      llvm::Value *Re =
          B.CreateFSub(lower::complexRe(Cx, X), lower::complexRe(Cx, M));
      llvm::Value *Im =
          B.CreateFSub(lower::complexIm(Cx, X), lower::complexIm(Cx, M));
      Sq = B.CreateFAdd(B.CreateFMul(Re, Re), B.CreateFMul(Im, Im));
    } else {
      llvm::Value *D = B.CreateFSub(X, M);
      Sq = B.CreateFMul(D, D);
    }
    B.CreateStore(B.CreateFAdd(get(Acc, Res), Sq), Acc);
  });
  llvm::Value *Var =
      B.CreateFDiv(get(Acc, Res), Cx.cast(size(), int64Ty(), Res));
  if (Op == ReduceOp::Std)
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, Var);
  return Var;
}

llvm::Value *Reducer::lower() {
  switch (Op) {
  case ReduceOp::Sum:
  case ReduceOp::NanSum:
    return fold(false);
  case ReduceOp::Prod:
  case ReduceOp::NanProd:
    return fold(true);
  case ReduceOp::All:
  case ReduceOp::Any:
  case ReduceOp::CountNonzero:
    return truthFold();
  case ReduceOp::Min:
    return extreme(false, false);
  case ReduceOp::Max:
    return extreme(true, false);
  case ReduceOp::NanMin:
    return extreme(false, true);
  case ReduceOp::NanMax:
    return extreme(true, true);
  case ReduceOp::Mean:
    return mean(false);
  case ReduceOp::NanMean:
    return mean(true);
  case ReduceOp::Var:
  case ReduceOp::Std:
    return variance();
  }
  PCJ_ASSERT(false, "unknown reduction");
  return nullptr;
}

} // namespace

llvm::Value *lowerReduction(const LoweringRequest &R) {
  return Reducer(R).lower();
}

} // namespace pcj::stdlib::lowering
