// Lowering of subscripts and iteration: a[i] reads and writes (records,
// array elements and views, tuple elements) and GET_ITER / FOR_ITER.  Split
// from Lower.cpp; the walker is Lowerer.h's.
#include "lower/Iterators.h"
#include "lower/Lowerer.h"
#include "lower/SliceStore.h"
#include "stdlib/Registry.h"
#include "support/Diagnostics.h"

namespace pcj::lower::detail {

using namespace types;
using ir::Instr;
using ir::Op;

std::vector<LowerContext::Index> Lowerer::indices(const Instr *Idx) {
  std::vector<LowerContext::Index> Out;
  if (Idx->type->isTuple()) {
    llvm::Value *T = Cx.value(Idx);
    // A literal tuple's elements carry their own facts.
    bool Built = Idx->op == Op::BuildTuple;
    for (unsigned K = 0; K < Idx->type->elems().size(); ++K)
      Out.push_back(
          {Cx.b.CreateExtractValue(T, {K}), Idx->type->elems()[K],
           Idx->nonNegative || (Built && Idx->operands[K]->nonNegative)});
  } else {
    Out.push_back({Cx.value(Idx), Idx->type, Idx->nonNegative});
  }
  return Out;
}

// obj[idx]: a record field, an array element or view, a tuple element.
llvm::Value *Lowerer::lowerGetItem(const Instr *I) {
  auto &B = Cx.b;
  auto V = [&](size_t K) { return Cx.value(I->operands[K]); };
  auto T = [&](size_t K) { return I->operands[K]->type; };
  llvm::Value *R = nullptr;
  TypeRef OT = T(0);
  if (OT->kind() == Kind::Pointer) { // p[i]: no bounds are known
    llvm::Type *MT = Cx.memoryType(I->type);
    llvm::Value *P = B.CreateGEP(MT, V(0), V(1));
    R = Cx.fromMemory(
        B.CreateAlignedLoad(MT, P, llvm::Align(elementAlign(I->type))),
        I->type);
    return R;
  }
  if (OT->kind() == Kind::Record) {
    if (T(1)->isTuple() && T(1)->elems().empty()) // r[()]: the record
      return V(0);
    bc::ConstValue C;
    stdlib::ArgInfo{T(1), false, I->operands[1]}.constant(C);
    return Cx.loadRecordField(I, OT, V(0), I->operands[0],
                              ir::recordFieldOf(OT, C));
  }
  if (OT->isArray() && I->type->kind() == Kind::Record) {
    llvm::Value *P = Cx.elementPtr(I, OT, V(0), indices(I->operands[1]));
    return B.CreateAddrSpaceCast(P, B.getPtrTy(0));
  }
  if (OT->isArray() && I->type->isArray()) {
    return arrayView(Cx, I, OT, V(0), I->operands[1]->type, V(1), I->type);
  }
  if (OT->isArray()) {
    llvm::Value *P = Cx.elementPtr(I, OT, V(0), indices(I->operands[1]));
    Cx.sanitizeAccess(I, TargetHooks::Access::Read, OT, V(0), I->operands[0],
                      P);
    llvm::Type *MT = Cx.memoryType(OT->dtype());
    auto *L =
        B.CreateAlignedLoad(MT, P, llvm::Align(elementAlign(OT->dtype())));
    R = Cx.fromMemory(L, OT->dtype());
  } else if (I->index >= 0) {
    R = tupleElement(I->operands[0], unsigned(I->index));
  } else { // dynamic index into a homogeneous tuple: as an array
    // Python's wrap-around for negative indices; an index still out of
    // range raises IndexError in checked mode and reads zero otherwise.
    unsigned N = OT->elems().size();
    llvm::Value *NV = B.getInt64(N);
    llvm::Value *Idx;
    if (T(1)->isInt() && !T(1)->isSigned()) {
      Idx = Cx.cast(V(1), T(1), intTy(64, false));
    } else {
      Idx = Cx.cast(V(1), T(1), int64Ty());
      Idx = B.CreateSelect(B.CreateICmpSLT(Idx, B.getInt64(0)),
                           B.CreateAdd(Idx, NV), Idx);
    }
    llvm::Value *InRange = B.CreateICmpULT(Idx, NV); // negatives too
    if (Cx.opts.boundsCheck)
      Cx.raiseIf(I, B.CreateNot(InRange), TargetHooks::RaisedError::IndexError,
                 "tuple index out of range");
    llvm::Type *MT = Cx.memoryType(I->type);
    llvm::Value *Arr = tupleAsArray(I->operands[0], I->type);
    llvm::Value *P = B.CreateInBoundsGEP(
        llvm::ArrayType::get(MT, N), Arr,
        {B.getInt64(0), B.CreateSelect(InRange, Idx, B.getInt64(0))});
    R = B.CreateSelect(InRange, Cx.fromMemory(B.CreateLoad(MT, P), I->type),
                       llvm::Constant::getNullValue(Cx.valueType(I->type)));
  }
  return R;
}

// obj[idx] = value: a record field or an array element.
void Lowerer::lowerSetItem(const Instr *I) {
  auto &B = Cx.b;
  auto V = [&](size_t K) { return Cx.value(I->operands[K]); };
  auto T = [&](size_t K) { return I->operands[K]->type; };
  TypeRef OT = T(0);
  if (OT->kind() == Kind::Pointer) {
    TypeRef Elem = OT->inner();
    llvm::Value *P = B.CreateGEP(Cx.memoryType(Elem), V(0), V(1));
    B.CreateAlignedStore(Cx.toMemory(V(2), Elem), P,
                         llvm::Align(elementAlign(Elem)));
    return;
  }
  if (OT->kind() == Kind::Record && T(1)->isTuple() &&
      T(1)->elems().empty()) { // r[()] = v: copy the whole record
    Cx.sanitizeRecord(I, TargetHooks::Access::Read, OT, V(2), I->operands[2],
                      -1);
    Cx.sanitizeRecord(I, TargetHooks::Access::Write, OT, V(0), I->operands[0],
                      -1);
    B.CreateMemCpy(V(0), llvm::MaybeAlign(OT->recordAlign()), V(2),
                   llvm::MaybeAlign(OT->recordAlign()), OT->byteSize());
    return;
  }
  if (OT->kind() == Kind::Record) {
    bc::ConstValue C;
    stdlib::ArgInfo{T(1), false, I->operands[1]}.constant(C);
    Cx.storeRecordField(I, OT, V(0), I->operands[0], ir::recordFieldOf(OT, C),
                        V(2), T(2));
    return;
  }
  if (indexesView(OT, T(1))) { // a[i:j] = x
    storeArraySlice(Cx, I, OT, V(0), T(1), V(1), V(2), T(2));
    return;
  }
  llvm::Value *P = Cx.elementPtr(I, OT, V(0), indices(I->operands[1]));
  if (OT->dtype()->kind() == Kind::Record) // the source record is read
    Cx.sanitizeRecord(I, TargetHooks::Access::Read, OT->dtype(), V(2),
                      I->operands[2], -1);
  Cx.sanitizeAccess(I, TargetHooks::Access::Write, OT, V(0), I->operands[0], P);
  if (OT->dtype()->kind() == Kind::Record) { // copy a whole record
    B.CreateMemCpy(P, llvm::MaybeAlign(OT->dtype()->recordAlign()), V(2),
                   llvm::MaybeAlign(OT->dtype()->recordAlign()),
                   OT->dtype()->byteSize());
    return;
  }
  B.CreateAlignedStore(Cx.toMemory(V(2), OT->dtype()), P,
                       llvm::Align(elementAlign(OT->dtype())));
}

// iter(x): the iteration state of a range (a counted loop) or of an
// iterable (tuples, arrays, enumerate, zip).
llvm::Value *Lowerer::lowerGetIter(const Instr *I) {
  auto &B = Cx.b;
  auto V = [&](size_t K) { return Cx.value(I->operands[K]); };
  auto T = [&](size_t K) { return I->operands[K]->type; };
  if (I->type->kind() == Kind::Iterator) {
    llvm::Type *ST = iteratorStateType(Cx, T(0));
    llvm::Value *Slot = Cx.entryAlloca(ST, "iter");
    B.CreateStore(B.getInt64(0), B.CreateStructGEP(ST, Slot, 0));
    if (T(0)->isTuple()) { // the elements as an array in memory, once
      B.CreateStore(B.getInt64(T(0)->elems().size()),
                    B.CreateStructGEP(ST, Slot, 1));
      B.CreateStore(tupleAsArray(I->operands[0], iterElementType(T(0))),
                    B.CreateStructGEP(ST, Slot, 2));
      return Slot;
    }
    B.CreateStore(iterLength(Cx, T(0), V(0)), B.CreateStructGEP(ST, Slot, 1));
    B.CreateStore(V(0), B.CreateStructGEP(ST, Slot, 2));
    return Slot;
  }
  // Canonical loop: a counter k from 0 to the trip count (computed once,
  // with the step's sign); the value is start + k * step.  LLVM sees a
  // plain counted loop whatever the step (unrolling, IV rewriting).
  TypeRef C = T(0)->inner();
  llvm::Type *CT = Cx.valueType(C);
  llvm::Type *ST = llvm::StructType::get(Cx.ctx, {CT, CT, CT, CT});
  llvm::Value *Slot = Cx.entryAlloca(ST, "range.iter");
  llvm::Value *Start = B.CreateExtractValue(V(0), {0});
  llvm::Value *Stop = B.CreateExtractValue(V(0), {1});
  llvm::Value *Step = B.CreateExtractValue(V(0), {2});
  B.CreateStore(llvm::ConstantInt::get(CT, 0), B.CreateStructGEP(ST, Slot, 0));
  B.CreateStore(rangeTripCount(Cx, C, Start, Stop, Step),
                B.CreateStructGEP(ST, Slot, 1));
  B.CreateStore(Start, B.CreateStructGEP(ST, Slot, 2));
  B.CreateStore(Step, B.CreateStructGEP(ST, Slot, 3));
  return Slot;
}

// The loop header's next element (ForIter is a terminator).
void Lowerer::lowerForIter(const Instr *I) {
  auto &B = Cx.b;
  auto V = [&](size_t K) { return Cx.value(I->operands[K]); };
  auto T = [&](size_t K) { return I->operands[K]->type; };
  if (T(0)->kind() == Kind::Iterator) {
    TypeRef It = T(0)->inner();
    llvm::Type *ST = iteratorStateType(Cx, It);
    llvm::Value *Slot = V(0);
    llvm::Value *Idx =
        B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(ST, Slot, 0));
    llvm::Value *N =
        B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(ST, Slot, 1));
    B.CreateStore(B.CreateAdd(Idx, B.getInt64(1)),
                  B.CreateStructGEP(ST, Slot, 0));
    llvm::BasicBlock *Body = BB.at(I->succs[0]);
    // The element is computed on the body edge (it may load from memory).
    auto *Next = llvm::BasicBlock::Create(Cx.ctx, "iter.next", Cx.kernel, Body);
    EdgeFrom[{I->parent, I->succs[1]}] = B.GetInsertBlock();
    B.CreateCondBr(B.CreateICmpSLT(Idx, N), Next, BB.at(I->succs[1]));
    B.SetInsertPoint(Next);
    llvm::Value *Elem;
    if (It->isTuple()) {
      TypeRef E = iterElementType(It);
      llvm::Value *Arr =
          B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(ST, Slot, 2));
      llvm::Type *MT = Cx.memoryType(E);
      Elem =
          Cx.fromMemory(B.CreateLoad(MT, B.CreateInBoundsGEP(MT, Arr, Idx)), E);
    } else {
      llvm::Value *Iterable =
          B.CreateLoad(Cx.valueType(It), B.CreateStructGEP(ST, Slot, 2));
      Elem = iterElement(Cx, I, It, Iterable, Idx);
    }
    Cx.setValue(I, Elem);
    B.CreateBr(Body);
    EdgeFrom[{I->parent, I->succs[0]}] = Next;
    return;
  }
  TypeRef C = I->type;
  llvm::Type *CT = Cx.valueType(C);
  llvm::Type *ST = llvm::StructType::get(Cx.ctx, {CT, CT, CT, CT});
  llvm::Value *It = V(0);
  llvm::Value *K = B.CreateLoad(CT, B.CreateStructGEP(ST, It, 0), "k");
  llvm::Value *N = B.CreateLoad(CT, B.CreateStructGEP(ST, It, 1), "trip");
  llvm::Value *Start = B.CreateLoad(CT, B.CreateStructGEP(ST, It, 2), "start");
  llvm::Value *Step = B.CreateLoad(CT, B.CreateStructGEP(ST, It, 3), "step");
  llvm::Value *More = B.CreateICmpULT(K, N);
  B.CreateStore(B.CreateAdd(K, llvm::ConstantInt::get(CT, 1), "", true),
                B.CreateStructGEP(ST, It, 0));
  // start + k * step lies between start and stop for k < trip: no signed
  // overflow (nsw), which lets LLVM prove e.g. grid-stride indices >= 0.
  bool NSW = C->isSigned(), NUW = !C->isSigned();
  llvm::Value *Cur =
      B.CreateAdd(Start, B.CreateMul(K, Step, "", NUW, NSW), "cur", NUW, NSW);
  recordEdges(I);
  B.CreateCondBr(More, BB.at(I->succs[0]), BB.at(I->succs[1]));
  Cx.setValue(I, Cur);
}

} // namespace pcj::lower::detail
