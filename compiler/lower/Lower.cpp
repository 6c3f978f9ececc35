// The lowering pass: walks the typed IR in block order and emits LLVM IR
// through LowerContext; intrinsics dispatch to the registry's lowering rules
// (stdlib/lowering), target differences go through TargetHooks.
#include "lower/Lower.h"

#include "lower/Arith.h"
#include "lower/DateTime.h"
#include "lower/DebugInfo.h"
#include "lower/Iterators.h"
#include "lower/LoopHints.h"
#include "lower/LowerContext.h"
#include "lower/Lowerer.h"
#include "lower/SliceStore.h"
#include "stdlib/Registry.h"
#include "stdlib/lowering/Rules.h"
#include "support/Diagnostics.h"
#include "transforms/HeapOwnership.h"
#include "types/Fp8.h"

#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <set>

namespace pcj::lower {

using namespace types;
using ir::Instr;
using ir::Op;

namespace detail {

// Alignment of an array element (numpy aligns complex to its parts, a
// string to its characters).
unsigned elementAlign(TypeRef T) {
  if (T->kind() == Kind::Record)
    return T->recordAlign();
  return types::scalarAlign(T);
}

// The value of the OptionalType value V (type T) that instruction I uses:
// a TypeError, as numba raises, when V is None.
static llvm::Value *unwrapOptional(LowerContext &Cx, const Instr *I,
                                   llvm::Value *V, TypeRef T) {
  llvm::IRBuilder<> &B = Cx.b;
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  auto *None = llvm::BasicBlock::Create(Cx.ctx, "optional.none", Fn);
  auto *Ok = llvm::BasicBlock::Create(Cx.ctx, "optional.value", Fn);
  B.CreateCondBr(B.CreateExtractValue(V, {1}), Ok, None);
  B.SetInsertPoint(None);
  Cx.target.raiseException(B, "TypeError",
                           "expected " + T->inner()->str() + ", got None",
                           Cx.fn.qualname, I->loc.fileName(), I->loc.line);
  B.CreateUnreachable();
  B.SetInsertPoint(Ok);
  return B.CreateExtractValue(V, {0});
}

// The value before the implicit conversions InsertCasts added.
const Instr *uncast(const Instr *I) {
  while (I->op == Op::Cast)
    I = I->operands[0];
  return I;
}

// The constant integer behind a (cast of a) literal, for `x ** 2`.
bool constInt(const Instr *I, int64_t &Out) {
  while (I->op == Op::Cast)
    I = I->operands[0];
  const bc::ConstValue *C = nullptr;
  if (I->op == Op::Const)
    C = &I->cval;
  else if ((I->op == Op::Global || I->op == Op::Deref || I->op == Op::Arg) &&
           I->ct.kind == ir::CTValue::Kind::Const)
    C = &I->ct.value;
  if (!C)
    return false;
  if (C->isSmallInt()) {
    Out = C->i;
    return true;
  }
  if (C->kind == bc::ConstValue::Kind::Float && C->f == double(int64_t(C->f)) &&
      C->f >= 0 && C->f <= 16) {
    Out = int64_t(C->f);
    return true;
  }
  return false;
}

void Lowerer::buildParams(const std::vector<llvm::Value *> &Params,
                          const std::vector<AbiSlot> &Slots) {
  // Rebuild each Python-level argument from its flattened slots; a tuple
  // passed as one aggregate stays in its parameter.
  std::vector<AbiParam> Kinds = kernelParams(Slots);
  size_t S = 0;
  std::function<llvm::Value *(TypeRef)> Build =
      [&](TypeRef T) -> llvm::Value * {
    if (T->kind() == Kind::EnumMember) // an Enum member is its value
      return Build(T->inner());
    if (T->isTuple()) {
      llvm::Value *Agg = llvm::UndefValue::get(Cx.valueType(T));
      for (unsigned K = 0; K < T->elems().size(); ++K)
        Agg = Cx.b.CreateInsertValue(Agg, Build(T->elems()[K]), {K});
      return Agg;
    }
    if (T->isArray()) {
      llvm::Value *Data = Params[Slots[S++].param];
      std::vector<llvm::Value *> Shape, Strides;
      for (unsigned D = 0; D < T->ndim(); ++D)
        Shape.push_back(Params[Slots[S++].param]);
      for (unsigned D = 0; D < T->ndim(); ++D)
        Strides.push_back(Params[Slots[S++].param]);
      return Cx.makeArray(T, Data, Shape, Strides);
    }
    if (T->kind() == Kind::None)
      return Cx.none();
    return Cx.fromMemory(Params[Slots[S++].param], T);
  };
  for (const ir::Block *B : F.blocks)
    for (const Instr *I : B->instrs)
      if (I->op == Op::Arg) {
        // Args appear once each, in order, in the entry block.
        S = 0;
        while (S < Slots.size() && Slots[S].arg < I->index)
          ++S;
        TypeRef T = F.params[I->index].type;
        if (S < Slots.size() && Slots[S].arg == unsigned(I->index) &&
            Kinds[Slots[S].param].aggregate)
          Cx.setTupleAddress(I, Params[Slots[S].param]);
        else if (T->isArray() && I->type->kind() == Kind::Record) // np.void
          Cx.setValue(I, Cx.b.CreateAddrSpaceCast(Cx.arrayData(Build(T)),
                                                  Cx.b.getPtrTy(0)));
        else
          Cx.setValue(I, Build(T));
      }
}

// Element K of a tuple: read in place for a tuple in memory.
llvm::Value *Lowerer::tupleElement(const Instr *Tup, unsigned K) {
  if (llvm::Value *Addr = Cx.tupleAddress(Tup))
    return Cx.loadTupleElement(Addr, Tup->type, K);
  return Cx.b.CreateExtractValue(Cx.value(Tup), {K});
}

// The address of the tuple's elements converted to Elem, as an array of
// Elem's in-memory form: a tuple in memory whose elements are all Elem is
// that array already; otherwise the elements are stored into an alloca.
llvm::Value *Lowerer::tupleAsArray(const Instr *Tup, TypeRef Elem) {
  TypeRef TT = Tup->type;
  unsigned N = TT->elems().size();
  llvm::Value *Addr = Cx.tupleAddress(Tup);
  bool Uniform = std::all_of(TT->elems().begin(), TT->elems().end(),
                             [&](TypeRef E) { return E == Elem; });
  if (Addr && Uniform)
    return Addr;
  auto &B = Cx.b;
  llvm::Type *MT = Cx.memoryType(Elem);
  llvm::Type *AT = llvm::ArrayType::get(MT, N);
  llvm::Value *Slot = Cx.entryAlloca(AT, "tuple");
  for (unsigned K = 0; K < N; ++K)
    B.CreateStore(
        Cx.toMemory(Cx.cast(tupleElement(Tup, K), TT->elems()[K], Elem), Elem),
        B.CreateConstInBoundsGEP2_64(AT, Slot, 0, K));
  return Slot;
}

void Lowerer::lowerKernel(LowerResult &Out) {
  std::vector<TypeRef> ArgTypes;
  for (const ir::Param &P : F.params)
    ArgTypes.push_back(P.type);
  Out.abi = flattenKernelParams(ArgTypes);
  std::vector<AbiParam> Kinds = kernelParams(Out.abi);
  std::vector<size_t> Offsets;
  size_t Bytes = layoutParamBuffer(Out.abi, Offsets);
  if (Bytes > Cx.target.maxKernelParamBytes())
    throw CompileError(ErrorKind::Unsupported,
                       SourceLoc{F.file, F.firstLine, -1, -1},
                       "the arguments of kernel '" + F.qualname + "' take " +
                           std::to_string(Bytes) +
                           " bytes of parameter space; this GPU "
                           "allows at most " +
                           std::to_string(Cx.target.maxKernelParamBytes()),
                       "pass large data in a device array instead of a tuple");
  // An aggregate parameter is the struct type of its tuple (passed by
  // reference: the hooks give its address).
  std::vector<TargetHooks::KernelParam> ParamTys;
  for (const AbiParam &P : Kinds) {
    const AbiSlot &S = Out.abi[P.firstSlot];
    if (P.aggregate) {
      llvm::Type *T = Cx.memoryType(F.params[S.arg].type);
      PCJ_ASSERT(Cx.module.getDataLayout().getTypeAllocSize(T) == P.size,
                 "aggregate parameter layout differs from the kernel ABI");
      ParamTys.push_back({T, true});
    } else if (S.kind == AbiSlot::Kind::Data) {
      ParamTys.push_back(
          {Cx.b.getPtrTy(Cx.target.addrSpace(AddrSpace::Global)), false});
    } else {
      ParamTys.push_back({Cx.memoryType(S.scalar), false});
    }
  }
  std::vector<llvm::Value *> Params;
  Cx.kernel = Cx.target.createKernel(Cx.module, Cx.opts.kernelName, ParamTys,
                                     Cx.b, Params);
  Cx.allocaBlock = Cx.b.GetInsertBlock();
  if (DI)
    SP = DI->subprogram(Cx);
  const auto &RO = Cx.opts.noAliasReadOnly;
  for (size_t K = 0; K < Out.abi.size(); ++K) {
    const AbiSlot &S = Out.abi[K];
    if (S.kind != AbiSlot::Kind::Data || !S.path.empty() ||
        S.arg >= RO.size() || !RO[S.arg])
      continue;
    if (auto *A = llvm::dyn_cast<llvm::Argument>(Params[S.param])) {
      A->addAttr(llvm::Attribute::NoAlias);
      A->addAttr(llvm::Attribute::ReadOnly);
    }
  }
  buildParams(Params, Out.abi);
  if (DI)
    DI->beginFunction(Cx, SP);
  lowerBody();
  Cx.target.finishKernel(Cx.module, Cx.kernel);
}

void Lowerer::lowerDeviceFunction(llvm::Function *LF, bool HeapBlocks) {
  std::vector<llvm::Value *> Params;
  Cx.kernel = LF;
  Cx.heapReturnsBlocks = HeapBlocks;
  Cx.target.beginDeviceFunction(LF, Cx.b, Params);
  Cx.allocaBlock = Cx.b.GetInsertBlock();
  if (DI)
    SP = DI->subprogram(Cx);
  // Parameters holding only compile-time values (a dtype, an intrinsic, a
  // device function) have no LLVM parameter; one the caller passed a
  // constant for is that constant here.
  std::vector<llvm::Value *> ByArg;
  size_t Next = 0;
  for (const ir::Param &P : F.params)
    ByArg.push_back(Cx.valueType(P.type) ? Params.at(Next++) : nullptr);
  bool CallsItself = false;
  for (const ir::Block *B : F.blocks)
    for (const Instr *I : B->instrs) {
      CallsItself |= I->op == Op::Call && !I->intrinsic &&
                     I->calleeSymbol == LF->getName();
      if (I->op != Op::Arg)
        continue;
      if (I->ct.kind == ir::CTValue::Kind::Const && Cx.valueType(I->type))
        Cx.setValue(I, Cx.constant(I, I->ct.value, I->type));
      else
        Cx.setValue(I, ByArg.at(I->index));
    }
  if (CallsItself) // the host stops a recursion that would overflow its stack
    Cx.target.recursionCheck(Cx.b, F.qualname, F.file ? *F.file : "<unknown>",
                             F.firstLine);
  if (DI)
    DI->beginFunction(Cx, SP);
  lowerBody();
}

// The phis whose "assigned" flag a checked read needs: those that the
// operands of CheckBound reach through phis (and the casts before them).
void Lowerer::findBoundFlags() {
  if (!Cx.opts.unboundLocalCheck)
    return;
  auto Strip = [](const Instr *V) {
    while (V->op == Op::Cast)
      V = V->operands[0];
    return V;
  };
  std::vector<const Instr *> Work;
  for (const ir::Block *B : F.blocks)
    for (const Instr *I : B->instrs)
      if (I->op == Op::CheckBound) {
        const Instr *V = Strip(I->operands[0]);
        if (V->op == Op::Phi && NeedsBoundFlag.insert(V).second)
          Work.push_back(V);
      }
  while (!Work.empty()) {
    const Instr *P = Work.back();
    Work.pop_back();
    for (const Instr *O : P->operands) {
      O = Strip(O);
      if (O->op == Op::Phi && NeedsBoundFlag.insert(O).second)
        Work.push_back(O);
    }
  }
}

// Whether local value V is assigned: false for Undef, the flag of a phi,
// true for anything computed.
llvm::Value *Lowerer::boundFlagOf(const Instr *V) {
  while (V->op == Op::Cast)
    V = V->operands[0];
  if (V->op == Op::Undef)
    return Cx.b.getFalse();
  auto It = BoundFlag.find(V);
  if (It == BoundFlag.end())
    return Cx.b.getTrue();
  return It->second;
}

// Blocks in order, then the phis' incoming values.  An Undef flowing into
// a phi (a local unassigned on that path) is the type's zero: a defined
// value, the same on every target (never LLVM undef, which optimizations
// may resolve differently per use).
void Lowerer::lowerBody() {
  findBoundFlags();
  for (const ir::Block *B : F.blocks)
    BB[B] = llvm::BasicBlock::Create(Cx.ctx, "bb" + std::to_string(B->id),
                                     Cx.kernel);
  Cx.heapBegin();
  Cx.b.CreateBr(BB[F.blocks.front()]);
  for (const ir::Block *B : F.blocks) {
    Cx.b.SetInsertPoint(BB[B]);
    for (const Instr *I : B->instrs) {
      if (DI) {
        Cx.b.SetCurrentDebugLocation(DI->location(I->loc, SP));
        DI->beforeInstr(Cx, I);
      }
      lowerInstr(I);
      if (DI)
        DI->afterInstr(Cx, I);
    }
  }
  for (auto [I, Phi] : Phis)
    for (size_t K = 0; K < I->operands.size(); ++K) {
      const Instr *V = I->operands[K];
      llvm::Value *LV = V->op == Op::Undef
                            ? llvm::Constant::getNullValue(Phi->getType())
                            : Cx.value(V);
      Phi->addIncoming(LV, EdgeFrom.at({I->incoming[K], I->parent}));
    }
  for (auto [I, Flag] : BoundFlag)
    for (size_t K = 0; K < I->operands.size(); ++K)
      Flag->addIncoming(boundFlagOf(I->operands[K]),
                        EdgeFrom.at({I->incoming[K], I->parent}));
}

llvm::Value *Lowerer::lowerIntrinsic(const Instr *I, size_t FirstArg) {
  PCJ_ASSERT(I->intrinsic, "lowering an intrinsic use without a registry id");
  const stdlib::IntrinsicInfo *Info = &stdlib::intrinsicInfo(*I->intrinsic);
  stdlib::LoweringRequest Req{Cx, *I, *Info, {}, {}, {}};
  for (size_t K = FirstArg; K < I->operands.size(); ++K) {
    const Instr *A = I->operands[K];
    Req.args.push_back(Cx.valueType(A->type) ? Cx.value(A) : nullptr);
    Req.argTypes.push_back(A->type);
    Req.argInstrs.push_back(A);
  }
  std::vector<stdlib::ArgInfo> Args;
  for (size_t K = 0; K < Req.argTypes.size(); ++K)
    Args.push_back({Req.argTypes[K], false, Req.argInstrs[K]});
  if (stdlib::isArrayUfuncCall(*Info, Args))
    return stdlib::lowering::lowerArrayUfunc(Req);
  return stdlib::loweringRule(Info->id)(Req);
}

// A call: of an intrinsic (the registry's rule), a dtype (a conversion), a
// namedtuple class (a tuple) or a device function.
llvm::Value *Lowerer::lowerCall(const Instr *I) {
  auto &B = Cx.b;
  auto V = [&](size_t K) { return Cx.value(I->operands[K]); };
  auto T = [&](size_t K) { return I->operands[K]->type; };
  llvm::Value *R = nullptr;
  if (I->intrinsic) {
    R = lowerIntrinsic(I, 1);
  } else if (T(0)->kind() == Kind::DType) {
    R = Cx.cast(V(1), T(1), I->type);
  } else if (T(0)->kind() == Kind::TupleClass) {
    llvm::Value *Agg = llvm::UndefValue::get(Cx.valueType(I->type));
    for (unsigned K = 1; K < I->operands.size(); ++K)
      Agg = B.CreateInsertValue(Agg, V(K), {K - 1});
    R = Agg;
  } else if (T(0)->kind() == Kind::Function) {
    llvm::Function *Callee = Cx.module.getFunction(I->calleeSymbol);
    PCJ_ASSERT(Callee,
               "device function " + I->calleeSymbol + " was not declared");
    std::vector<llvm::Value *> Args;
    for (size_t K = 1; K < I->operands.size(); ++K)
      if (Cx.valueType(T(K))) // compile-time values are not passed
        Args.push_back(V(K));
    for (llvm::Value *H : Cx.target.hiddenCallArgs())
      Args.push_back(H);
    llvm::Value *Call = B.CreateCall(Callee, Args);
    if (transforms::returnsHeapBlocks(I->type)) { // lower/Heap.cpp
      Cx.heapAdopt(I, B.CreateExtractValue(Call, {1}));
      Call = B.CreateExtractValue(Call, {0});
    }
    R = I->type->kind() == Kind::None ? Cx.none() : Call;
  } else {
    Cx.fail(I, "call cannot be lowered");
  }
  if (!R)
    R = Cx.none();
  return R;
}

void Lowerer::lowerInstr(const Instr *I) {
  auto &B = Cx.b;
  auto V = [&](size_t K) { return Cx.value(I->operands[K]); };
  auto T = [&](size_t K) { return I->operands[K]->type; };
  llvm::Value *R = nullptr;
  switch (I->op) {
  case Op::Arg:
    return; // done in buildParams
  case Op::Undef:
    return; // only phis use it
  case Op::MakeFunction:
    return; // a compile-time value; calls pass its captured values
  case Op::Const:
    R = Cx.valueType(I->type) ? Cx.constant(I, I->cval, I->type) : nullptr;
    break;
  case Op::Global:
  case Op::Deref:
    R = Cx.compileTimeValue(I, I->ct, I->type);
    break;
  case Op::Phi: {
    if (NeedsBoundFlag.count(I))
      BoundFlag[I] =
          B.CreatePHI(B.getInt1Ty(), I->operands.size(), I->str + ".assigned");
    llvm::Type *PT = Cx.valueType(I->type);
    if (!PT)
      break; // a compile-time value: nothing at run time
    llvm::PHINode *P = B.CreatePHI(PT, I->operands.size());
    Phis.push_back({I, P});
    R = P;
    break;
  }
  case Op::CheckBound:
    R = V(0);
    if (Cx.opts.unboundLocalCheck)
      Cx.raiseIf(I, B.CreateNot(boundFlagOf(I->operands[0])),
                 TargetHooks::RaisedError::UnboundLocalError,
                 "local variable '" + I->str +
                     "' is read before it is assigned");
    break;
  case Op::BinOp: {
    auto K = bc::BinOpKind(I->index);
    if (types::isDateLike(T(0)) || types::isDateLike(T(1))) {
      R = lowerDateTimeBinOp(Cx, K, T(0), T(1), I->type, V(0), V(1));
      break;
    }
    if (Cx.opts.zeroDivisionCheck &&
        (K == bc::BinOpKind::TrueDiv || K == bc::BinOpKind::FloorDiv ||
         K == bc::BinOpKind::Mod))
      checkDivisor(Cx, I, K, false, I->type, V(1),
                   uncast(I->operands[0])->type->isIntegral() &&
                       uncast(I->operands[1])->type->isIntegral());
    if (Cx.opts.zeroDivisionCheck && K == bc::BinOpKind::Pow)
      checkPowerBase(Cx, I, I->type, V(0), V(1));
    int64_t E = 0;
    bool HasE = K == bc::BinOpKind::Pow && constInt(I->operands[1], E);
    R = lowerBinOp(Cx, I, bc::BinOpKind(I->index), I->type, V(0), V(1),
                   HasE ? &E : nullptr);
    break;
  }
  case Op::Unary: {
    auto K = ir::UnaryKind(I->index);
    if (K == ir::UnaryKind::Not)
      R = lowerUnary(Cx, K, boolTy(), Cx.truth(V(0), T(0)));
    else
      R = lowerUnary(Cx, K, I->type, V(0));
    break;
  }
  case Op::Compare:
    if (T(0)->kind() == Kind::EnumMember) // two members of one class
      R = lowerValueEquality(Cx, bc::CmpKind(I->index), T(0)->inner(), V(0),
                             V(1));
    else if (types::isDateLike(T(0)))
      R = lowerDateTimeCompare(Cx, bc::CmpKind(I->index), V(0), V(1));
    else if (types::isCharSeq(T(0)))
      R = lowerCharSeqCompare(Cx, bc::CmpKind(I->index), T(0), T(1), V(0),
                              V(1));
    else
      R = lowerCompare(Cx, bc::CmpKind(I->index), T(0), V(0), V(1));
    break;
  case Op::Is: {
    // Two bools or numbers of one type compare by value (numba's fallback
    // to ==); otherwise (None, different types) the types answer.
    bool Same = T(0) == T(1);
    if (T(0)->kind() == Kind::Optional || T(1)->kind() == Kind::Optional) {
      // An optional and None (typing allows no other): whether it has none.
      llvm::Value *Has =
          B.CreateExtractValue(V(T(0)->kind() == Kind::Optional ? 0 : 1), {1});
      R = I->index ? Has : B.CreateNot(Has);
    } else if (Same && T(0)->isNumeric())
      R = lowerCompare(Cx, I->index ? bc::CmpKind::Ne : bc::CmpKind::Eq, T(0),
                       V(0), V(1));
    else
      R = B.getInt1(I->index ? !Same : Same);
    break;
  }
  case Op::Truth:
    R = Cx.truth(V(0), T(0));
    break;
  case Op::Cast:
    // A Python int converts from its exact value (a float rounds once);
    // to an fp8 type from its int64 (lower/Fp8.cpp).
    if (bc::ConstValue S;
        types::isCharSeq(I->type) &&
        stdlib::ArgInfo{T(0), false, I->operands[0]}.constant(S))
      R = charSeqConstant(Cx, S.text, S.kind == bc::ConstValue::Kind::Bytes,
                          I->type);
    else if (const bc::ConstValue *PI = ir::pythonIntValue(I->operands[0]);
             PI && !types::isFp8(I->type) && I->type->kind() != Kind::Optional)
      R = Cx.constant(I, *PI, I->type);
    else if (T(0)->kind() == Kind::Optional &&
             I->type->kind() != Kind::Optional)
      R = Cx.cast(unwrapOptional(Cx, I, V(0), T(0)), T(0)->inner(), I->type);
    else
      R = Cx.cast(V(0), T(0), I->type);
    break;
  case Op::GetAttr:
    if (T(0)->kind() == Kind::Record) {
      R = Cx.loadRecordField(I, T(0), V(0), I->operands[0],
                             T(0)->fieldIndex(I->str));
    } else if (T(0)->isArray() && !I->intrinsic &&
               T(0)->dtype()->kind() == Kind::Record) { // a.x of records
      R = Cx.recordArrayField(T(0), V(0), T(0)->dtype()->fieldIndex(I->str),
                              I->type);
    } else if (T(0)->isTuple() && !T(0)->fields().empty()) {
      R = tupleElement(I->operands[0], unsigned(T(0)->fieldIndex(I->str)));
    } else if (I->intrinsic) {
      const stdlib::IntrinsicInfo *Info = &stdlib::intrinsicInfo(*I->intrinsic);
      if (Info->kind ==
          stdlib::IntrinsicKind::Attr) // of a value, or of a namespace
        R = lowerIntrinsic(I, T(0)->isRuntime() ? 0 : 1);
    } else if (I->ct.kind == ir::CTValue::Kind::Const &&
               Cx.valueType(I->type)) {
      R = Cx.constant(I, I->ct.value, I->type);
    }
    break;
  case Op::Call:
    R = lowerCall(I);
    break;
  case Op::GetItem:
    R = lowerGetItem(I);
    break;
  case Op::SetItem:
    lowerSetItem(I);
    return;
  case Op::SetAttr: {
    Cx.storeRecordField(I, T(0), V(0), I->operands[0], T(0)->fieldIndex(I->str),
                        V(1), T(1));
    return;
  }
  case Op::BuildTuple: {
    llvm::Type *TT = Cx.valueType(I->type);
    if (!TT)
      break; // a tuple of compile-time values (e.g. a shape with dtypes)
    llvm::Value *Agg = llvm::UndefValue::get(TT);
    for (unsigned K = 0; K < I->operands.size(); ++K)
      Agg = B.CreateInsertValue(Agg, V(K), {K});
    R = Agg;
    break;
  }
  case Op::TupleGet:
    R = Cx.valueType(I->type) ? tupleElement(I->operands[0], unsigned(I->index))
                              : nullptr;
    break;
  case Op::GetIter:
    R = lowerGetIter(I);
    break;
  case Op::ForIter:
    lowerForIter(I);
    return;
  case Op::BuildSlice: {
    llvm::Value *S = llvm::UndefValue::get(Cx.valueType(I->type));
    for (unsigned K = 0; K < 3; ++K) {
      bool Has = K < I->operands.size() && I->operands[K]->type != noneTy();
      S = B.CreateInsertValue(S, Has ? V(K) : B.getInt64(0), {K});
    }
    R = S;
    break;
  }
  case Op::Jump: {
    recordEdges(I);
    llvm::BranchInst *Br = B.CreateBr(BB.at(I->succs[0]));
    setUnrollHint(Br, I->parent, I->succs[0]);
    return;
  }
  case Op::Branch:
    recordEdges(I);
    B.CreateCondBr(V(0), BB.at(I->succs[0]), BB.at(I->succs[1]));
    return;
  case Op::Return: {
    llvm::Value *Blocks = Cx.heapRelease(); // lower/Heap.cpp
    if (Cx.kernel->getReturnType()->isVoidTy())
      B.CreateRetVoid();
    else if (Cx.heapReturnsBlocks)
      B.CreateRet(B.CreateInsertValue(
          B.CreateInsertValue(llvm::UndefValue::get(Cx.kernel->getReturnType()),
                              V(0), {0}),
          Blocks, {1}));
    else
      B.CreateRet(V(0));
    return;
  }
  case Op::Raise:
    // A user-defined class goes by its key (typing resolved it).
    Cx.target.raiseException(
        B,
        I->ct.kind == ir::CTValue::Kind::ExceptionClass ? I->ct.name : I->str,
        I->cval.text, Cx.fn.qualname, I->loc.fileName(), I->loc.line);
    B.CreateUnreachable();
    return;
  }
  Cx.setValue(I, R);
}

} // namespace detail

using detail::Lowerer;

LowerResult lowerKernel(const ir::Function &F,
                        const std::vector<DeviceFunction> &Callees,
                        llvm::Module &M, const LowerOptions &O,
                        const std::vector<ForeignFunction> &Foreign) {
  LowerResult Out;
  Out.kernelName = O.kernelName;
  std::unique_ptr<TargetHooks> T =
      O.target == Backend::CUDA ? makeNvptxTarget(O) : makeHostTarget(O);
  // Declare every device function first (they may call each other or
  // themselves), then lower the bodies.
  // HeapBlocks: the result is { result, heap blocks } (lower/Heap.cpp).
  auto Declare = [&](const ir::Function &Fn, const std::string &Symbol,
                     bool HeapBlocks) {
    LowerContext Types(Fn, M, *T, O);
    std::vector<llvm::Type *> Params;
    for (const ir::Param &P : Fn.params)
      if (llvm::Type *PT = Types.valueType(P.type)) // not compile-time only
        Params.push_back(PT);
    llvm::Type *Ret = Fn.returnType->kind() == Kind::None
                          ? llvm::Type::getVoidTy(M.getContext())
                          : Types.valueType(Fn.returnType);
    if (HeapBlocks)
      Ret = llvm::StructType::get(
          M.getContext(), {Ret, llvm::PointerType::get(M.getContext(), 0)});
    return T->declareDeviceFunction(M, Symbol, Params, Ret);
  };
  std::vector<llvm::Function *> Decls;
  for (const DeviceFunction &D : Callees) {
    llvm::Function *LF = Declare(
        *D.fn, D.symbol, transforms::returnsHeapBlocks(D.fn->returnType));
    if (D.inlineAlways)
      LF->addFnAttr(llvm::Attribute::AlwaysInline);
    Decls.push_back(LF);
  }
  for (const ForeignFunction &FF : Foreign) {
    LowerContext Types(F, M, *T, O);
    defineForeignWrapper(FF, Types, *T);
  }
  std::unique_ptr<DebugInfo> DI;
  if (O.lineInfo || O.debugInfo)
    DI = std::make_unique<DebugInfo>(M, F.file ? *F.file : "<unknown>",
                                     O.debugInfo);
  for (size_t K = 0; K < Callees.size(); ++K)
    Lowerer(*Callees[K].fn, M, *T, O, DI.get())
        .lowerDeviceFunction(
            Decls[K], transforms::returnsHeapBlocks(Callees[K].fn->returnType));
  if (O.deviceEntry) {
    // An exported device function: its own parameters and result, visible
    // outside the module (PTX `.visible .func`, result in func_retval0).
    PCJ_ASSERT(O.target == Backend::CUDA,
               "device entries are compiled for NVPTX only");
    llvm::Function *LF = Declare(F, O.kernelName, false);
    LF->setLinkage(llvm::GlobalValue::ExternalLinkage);
    Lowerer(F, M, *T, O, DI.get()).lowerDeviceFunction(LF, false);
  } else {
    Lowerer(F, M, *T, O, DI.get()).lowerKernel(Out);
  }
  if (DI)
    DI->finalize();
  if (O.debugOptNone) {
    // The user's functions only: runtime helpers keep their attributes.
    std::vector<llvm::Function *> Mine = Decls;
    if (llvm::Function *K = M.getFunction(O.kernelName))
      Mine.push_back(K);
    for (llvm::Function *Fn : Mine) {
      Fn->removeFnAttr(llvm::Attribute::AlwaysInline);
      Fn->addFnAttr(llvm::Attribute::OptimizeNone);
      Fn->addFnAttr(llvm::Attribute::NoInline);
    }
  }
  Out.usesBarriers = T->usesBarriers;
  Out.usesWarpOps = T->usesWarpOps;
  Out.usesGridSync = T->usesGridSync;
  Out.staticSharedBytes = T->staticSharedBytes;
  std::string Err;
  llvm::raw_string_ostream OS(Err);
  if (llvm::verifyModule(M, &OS))
    throw CompileError(ErrorKind::Internal, SourceLoc{F.file, F.firstLine},
                       "lowering produced invalid LLVM IR for '" + F.qualname +
                           "': " + OS.str());
  return Out;
}

} // namespace pcj::lower
