// Lowering of NumPy ufuncs called on arrays in kernels (typing:
// stdlib/typing/UfuncRules.cpp): a loop over every element of the output,
// in C order, in the calling thread (as numba-cuda computes them).  Inputs
// broadcast as NumPy's (right-aligned, extent-1 dimensions repeat); other
// shapes raise ValueError.  Each element goes through the row's own scalar
// lowering rule, so the array form computes exactly what the scalar form
// does.
//   np.sin(x, r)  ->  for i in range(r.size): r[i] = sin(x[i]); value r
#include "stdlib/lowering/Rules.h"

#include <llvm/IR/DataLayout.h>

namespace pcj::stdlib::lowering {

using namespace types;

namespace {

llvm::Value *loadElement(lower::LowerContext &Cx, const ir::Instr *At,
                         TypeRef ArrT, llvm::Value *A,
                         const std::vector<lower::LowerContext::Index> &Idx) {
  llvm::Value *P = Cx.elementPtr(At, ArrT, A, Idx);
  llvm::Type *MT = Cx.memoryType(ArrT->dtype());
  auto *L = Cx.b.CreateAlignedLoad(
      MT, P, Cx.module.getDataLayout().getABITypeAlign(MT));
  return Cx.fromMemory(L, ArrT->dtype());
}

} // namespace

llvm::Value *lowerArrayUfunc(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  const ir::Instr *At = &R.instr;
  TypingRequest TR{R.info, R.instr, {}, R.instr.kwnames};
  for (size_t K = 0; K < R.args.size(); ++K)
    TR.args.push_back({R.argTypes[K], false, R.argInstrs[K]});
  UfuncCall C = ufuncCall(TR);
  std::vector<TypeRef> Inputs(R.argTypes.begin(),
                              R.argTypes.begin() + C.inputs);
  std::vector<bool> Weak;
  for (size_t K = 0; K < C.inputs; ++K)
    Weak.push_back(R.argInstrs[K] && R.argInstrs[K]->weak);
  TypingResult E = typeUfuncElement(R.info, R.instr, Inputs, Weak);
  TypeRef OutT = R.argTypes[C.out];
  llvm::Value *Out = R.args[C.out];
  unsigned N = OutT->ndim();

  // Shapes: every array input broadcasts to the output's shape.
  llvm::Value *Total = B.getInt64(1);
  std::vector<llvm::Value *> Shape(N);
  for (unsigned D = 0; D < N; ++D) {
    Shape[D] = Cx.arrayShape(Out, D);
    Total = B.CreateMul(Total, Shape[D]);
  }
  for (size_t K = 0; K < C.inputs; ++K) {
    TypeRef T = R.argTypes[K];
    if (!T->isArray())
      continue;
    llvm::Value *Bad = B.getFalse();
    for (unsigned D = 0; D < T->ndim(); ++D) {
      llvm::Value *S = Cx.arrayShape(R.args[K], D);
      llvm::Value *Want = Shape[N - T->ndim() + D];
      Bad = B.CreateOr(Bad, B.CreateAnd(B.CreateICmpNE(S, Want),
                                        B.CreateICmpNE(S, B.getInt64(1))));
    }
    Cx.raiseIf(At, Bad, lower::TargetHooks::RaisedError::ValueError,
               std::string(R.info.key) + "(): input " + std::to_string(K + 1) +
                   " does not broadcast to the output's shape");
  }

  // for i in range(total): out[unravel(i)] = f(inputs at unravel(i))
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Head = llvm::BasicBlock::Create(Cx.ctx, "ufunc.head", Fn);
  auto *Body = llvm::BasicBlock::Create(Cx.ctx, "ufunc.body", Fn);
  auto *Done = llvm::BasicBlock::Create(Cx.ctx, "ufunc.done", Fn);
  B.CreateBr(Head);
  B.SetInsertPoint(Head);
  llvm::PHINode *I = B.CreatePHI(B.getInt64Ty(), 2, "ufunc.i");
  I->addIncoming(B.getInt64(0), Pre);
  B.CreateCondBr(B.CreateICmpSLT(I, Total), Body, Done);
  B.SetInsertPoint(Body);
  std::vector<llvm::Value *> Idx(N);
  llvm::Value *Rest = I;
  for (unsigned D = N; D-- > 0;) {
    Idx[D] = B.CreateURem(Rest, Shape[D]);
    Rest = B.CreateUDiv(Rest, Shape[D]);
  }
  std::vector<llvm::Value *> Vals;
  std::vector<TypeRef> Types;
  std::vector<ir::Instr> Fakes(C.inputs,
                               R.instr); // runtime operands of the element call
  std::vector<const ir::Instr *> FakePtrs;
  for (size_t K = 0; K < C.inputs; ++K) {
    TypeRef T = R.argTypes[K];
    llvm::Value *V = R.args[K];
    if (T->isArray()) {
      std::vector<lower::LowerContext::Index> In;
      for (unsigned D = 0; D < T->ndim(); ++D) {
        llvm::Value *One = B.CreateICmpEQ(Cx.arrayShape(V, D), B.getInt64(1));
        In.push_back(
            {B.CreateSelect(One, B.getInt64(0), Idx[N - T->ndim() + D]),
             int64Ty(), true});
      }
      V = loadElement(Cx, At, T, V, In);
      T = T->dtype();
    }
    TypeRef Want = K < E.argTypes.size() && E.argTypes[K] ? E.argTypes[K] : T;
    Vals.push_back(Cx.cast(V, T, Want));
    Types.push_back(Want);
    Fakes[K].op = ir::Op::Arg;
    Fakes[K].type = Want;
    Fakes[K].ct = {};
    Fakes[K].operands.clear();
    FakePtrs.push_back(&Fakes[K]);
  }
  ir::Instr Elem = R.instr;
  Elem.type = E.type;
  Elem.argTypes.clear();
  Elem.kwnames.clear();
  LoweringRequest ER{Cx, Elem, R.info, Vals, Types, FakePtrs};
  llvm::Value *V = Cx.cast(loweringRule(R.info.id)(ER), E.type, OutT->dtype());
  std::vector<lower::LowerContext::Index> OutIdx;
  for (unsigned D = 0; D < N; ++D)
    OutIdx.push_back({Idx[D], int64Ty(), true});
  llvm::Value *P = Cx.elementPtr(At, OutT, Out, OutIdx);
  llvm::Type *MT = Cx.memoryType(OutT->dtype());
  B.CreateAlignedStore(Cx.toMemory(V, OutT->dtype()), P,
                       Cx.module.getDataLayout().getABITypeAlign(MT));
  I->addIncoming(B.CreateAdd(I, B.getInt64(1)), B.GetInsertBlock());
  B.CreateBr(Head);
  B.SetInsertPoint(Done);
  return Out;
}

} // namespace pcj::stdlib::lowering
