// LowerContext: LLVM types, constants, conversions and arrays (see
// LowerContext.h for the value representation).
#include "lower/BFloat16.h"
#include "lower/DateTime.h"
#include "lower/Fp8.h"
#include "lower/LowerContext.h"

#include "support/Diagnostics.h"
#include "types/KernelABI.h"

#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

namespace pcj::lower {

using namespace types;

LowerContext::LowerContext(const ir::Function &F, llvm::Module &M,
                           TargetHooks &T, const LowerOptions &O)
    : fn(F), module(M), ctx(M.getContext()), target(T), opts(O), b(ctx) {
  // Like nvcc's default (--fmad=true): a * b + c may become one fma (which
  // ones is decided by codegen's FuseMultiplyAdd, for both targets alike);
  // only source arithmetic carries `contract` (SourceArithmetic), unless
  // fastmath allows contracting everything.  fastmath=True allows every
  // relaxation (reassociation, no NaN/Inf, ...).
  llvm::FastMathFlags FMF;
  unsigned Relax = O.fastMathFlags;
  FMF.setAllowContract((Relax & fastmath::Contract) != 0);
  if (O.fastMath)
    FMF.setFast();
  if (Relax & fastmath::Afn)
    FMF.setApproxFunc();
  if (Relax & fastmath::Arcp)
    FMF.setAllowReciprocal();
  if (Relax & fastmath::Nsz)
    FMF.setNoSignedZeros();
  if (Relax & fastmath::Ninf)
    FMF.setNoInfs();
  if (Relax & fastmath::Nnan)
    FMF.setNoNaNs();
  if (Relax & fastmath::Reassoc)
    FMF.setAllowReassoc();
  b.setFastMathFlags(FMF);
}

SourceArithmetic::SourceArithmetic(LowerContext &Cx) : Saved(Cx.b) {
  if (!Cx.opts.fmad)
    return;
  llvm::FastMathFlags FMF = Cx.b.getFastMathFlags();
  FMF.setAllowContract(true);
  Cx.b.setFastMathFlags(FMF);
}

void LowerContext::fail(const ir::Instr *I, const std::string &Msg) const {
  throw CompileError(ErrorKind::Unsupported, I ? I->loc : SourceLoc{}, Msg);
}

void LowerContext::raiseIf(const ir::Instr *At, llvm::Value *Cond,
                           TargetHooks::RaisedError Kind,
                           const std::string &Message) {
  llvm::Function *Fn = b.GetInsertBlock()->getParent();
  auto *Bad = llvm::BasicBlock::Create(ctx, "raise", Fn);
  auto *Ok = llvm::BasicBlock::Create(ctx, "checked", Fn);
  b.CreateCondBr(Cond, Bad, Ok,
                 llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(Bad);
  target.raiseError(b, Kind, Message, fn.qualname, At->loc.fileName(),
                    At->loc.line);
  b.CreateUnreachable();
  b.SetInsertPoint(Ok);
}

llvm::Type *LowerContext::valueType(TypeRef T) {
  switch (T->kind()) {
  case Kind::Bool:
    return b.getInt1Ty();
  case Kind::Int:
  case Kind::Fp8: // the code's byte
  case Kind::Datetime:
  case Kind::Timedelta: // the int64 count
    return b.getIntNTy(T->bits());
  case Kind::CharSeq: // the characters, zero-padded
    return llvm::ArrayType::get(b.getIntNTy(T->bits()), types::charCount(T));
  case Kind::Float:
    return isBFloat16(T)     ? b.getBFloatTy()
           : T->bits() == 16 ? b.getHalfTy()
           : T->bits() == 32 ? b.getFloatTy()
                             : b.getDoubleTy();
  case Kind::Complex: {
    llvm::Type *H = T->bits() == 64 ? b.getFloatTy() : b.getDoubleTy();
    return llvm::StructType::get(ctx, {H, H});
  }
  case Kind::Array: {
    auto *Dims = llvm::ArrayType::get(b.getInt64Ty(), T->ndim());
    return llvm::StructType::get(
        ctx, {b.getPtrTy(target.addrSpace(T->addrSpace())), Dims, Dims});
  }
  case Kind::Tuple:
  case Kind::Vector: { // a vector: a struct of its elements
    std::vector<llvm::Type *> E;
    for (TypeRef X : T->elems()) {
      llvm::Type *LT = valueType(X);
      if (!LT)
        return nullptr;
      E.push_back(LT);
    }
    return llvm::StructType::get(ctx, E);
  }
  case Kind::EnumMember: // the member's value
    return valueType(T->inner());
  case Kind::Optional: { // {the value (undefined for None), whether one is}
    llvm::Type *V = valueType(T->inner());
    return V ? llvm::StructType::get(ctx, {V, b.getInt1Ty()}) : nullptr;
  }
  case Kind::Range: {
    llvm::Type *C = valueType(T->inner());
    return llvm::StructType::get(ctx, {C, C, C});
  }
  case Kind::RangeIter:
  case Kind::Iterator:
    return b.getPtrTy();
  case Kind::Record:  // a reference to the record (generic address space)
  case Kind::Pointer: // CPointer / voidptr: a generic address
    return b.getPtrTy(0);
  case Kind::Slice: // {start, stop, step}; absent parts are 0 (see the type)
    return llvm::StructType::get(
        ctx, {b.getInt64Ty(), b.getInt64Ty(), b.getInt64Ty()});
  case Kind::Iterable: { // enumerate: {i64 start, inner}; zip: {inner...}
    std::vector<llvm::Type *> E;
    if (T->name() == "enumerate")
      E.push_back(b.getInt64Ty());
    for (TypeRef X : T->elems())
      E.push_back(valueType(X));
    return llvm::StructType::get(ctx, E);
  }
  case Kind::None:
  case Kind::Void:
  case Kind::Ellipsis:
    return llvm::StructType::get(ctx);
  default:
    return nullptr; // compile-time only
  }
}

llvm::Type *LowerContext::memoryType(TypeRef T) {
  if (T->kind() == Kind::Record)
    return llvm::ArrayType::get(b.getInt8Ty(), T->byteSize());
  if (T->isTuple()) { // laid out like types::abiSizeAlign
    std::vector<llvm::Type *> E;
    for (TypeRef X : T->elems())
      E.push_back(memoryType(X));
    return llvm::StructType::get(ctx, E);
  }
  return T->isBool() ? b.getInt8Ty() : valueType(T);
}

llvm::Value *LowerContext::recordField(llvm::Value *Rec, TypeRef RecTy,
                                       unsigned Field) {
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), Rec,
                                      RecTy->offsets()[Field]);
}

llvm::Value *LowerContext::value(const ir::Instr *I) {
  auto It = Values.find(I);
  if (It == Values.end()) {
    auto T = TupleAddrs.find(I);
    PCJ_ASSERT(T != TupleAddrs.end(),
               std::string("value not lowered yet: ") + ir::opName(I->op));
    // A tuple in memory used as a value: load it once, in the entry block
    // (its address is a parameter), for every use.
    llvm::IRBuilderBase::InsertPointGuard Guard(b);
    if (llvm::Instruction *Term = allocaBlock->getTerminator())
      b.SetInsertPoint(Term);
    else
      b.SetInsertPoint(allocaBlock);
    unsigned Size, Align;
    types::abiSizeAlign(I->type, Size, Align);
    It = Values.emplace(I, loadValue(T->second, I->type, Align)).first;
  }
  return It->second;
}

void LowerContext::setTupleAddress(const ir::Instr *I, llvm::Value *Addr) {
  TupleAddrs[I] = Addr;
}

llvm::Value *LowerContext::tupleAddress(const ir::Instr *I) const {
  auto It = TupleAddrs.find(I);
  return It == TupleAddrs.end() ? nullptr : It->second;
}

llvm::Value *LowerContext::loadTupleElement(llvm::Value *Addr, TypeRef TupT,
                                            unsigned K) {
  unsigned Size, Align;
  types::abiSizeAlign(TupT->elems()[K], Size, Align);
  llvm::Value *P = b.CreateStructGEP(memoryType(TupT), Addr, K);
  return loadValue(P, TupT->elems()[K], Align);
}

// Whether a value of type T has the same form in memory (no bools).
static bool sameInMemory(TypeRef T) {
  if (T->isBool())
    return false;
  if (T->isTuple())
    for (TypeRef E : T->elems())
      if (!sameInMemory(E))
        return false;
  return true;
}

llvm::Value *LowerContext::loadValue(llvm::Value *Addr, TypeRef T,
                                     unsigned Align) {
  if (!T->isTuple() || sameInMemory(T)) // one load (of a whole struct too)
    return fromMemory(b.CreateAlignedLoad(memoryType(T), Addr,
                                          llvm::Align(std::max(1u, Align))),
                      T);
  llvm::Value *Agg = llvm::UndefValue::get(valueType(T));
  for (unsigned K = 0; K < T->elems().size(); ++K)
    Agg = b.CreateInsertValue(Agg, loadTupleElement(Addr, T, K), {K});
  return Agg;
}

llvm::Value *LowerContext::none() {
  return llvm::ConstantStruct::get(llvm::StructType::get(ctx), {});
}

llvm::Value *LowerContext::intConst(TypeRef T, int64_t V) {
  return llvm::ConstantInt::get(valueType(T), uint64_t(V), T->isSigned());
}

// An int constant as type T, from its exact value: integers wrap (a Python
// int out of T's range was rejected by transforms/ConstantRanges), floats
// are correctly rounded (one rounding, ties to even, as Python's float(int)
// and NumPy's conversions).
llvm::Value *LowerContext::intConstant(const bc::ConstValue &C, TypeRef T) {
  uint64_t U = uint64_t(C.i);
  bool Exact = !C.bigInt || C.asUInt64(U);
  if (T->isBool())
    return b.getInt1(C.bigInt || C.i != 0);
  if (T->isInt()) {
    if (!Exact) // only conversions to floats use this value
      return llvm::PoisonValue::get(valueType(T));
    return b.getInt(llvm::APInt(64, U).trunc(T->bits()));
  }
  TypeRef FT = T->isComplex() ? floatTy(T->bits() / 2) : T;
  PCJ_ASSERT(FT->isFloat(), "int constant of type " + T->str());
  llvm::APFloat F(valueType(FT)->getFltSemantics());
  llvm::Expected<llvm::APFloat::opStatus> St =
      F.convertFromString(C.repr(), llvm::APFloat::rmNearestTiesToEven);
  if (!St) {
    llvm::consumeError(St.takeError());
    PCJ_ASSERT(false, "int constant " + C.repr() + " is not a decimal");
  }
  llvm::Value *V = llvm::ConstantFP::get(ctx, F);
  return T->isComplex() ? cast(V, FT, T) : V;
}

llvm::Value *LowerContext::constant(const ir::Instr *At,
                                    const bc::ConstValue &C, TypeRef T) {
  using K = bc::ConstValue::Kind;
  if (T->kind() == Kind::EnumMember) // C is the member's value
    return constant(At, C, T->inner());
  switch (C.kind) {
  case K::None:
  case K::Ellipsis:
    return none();
  case K::Bool:
    return cast(b.getInt1(C.b), boolTy(), T);
  case K::Int:
    return intConstant(C, T);
  case K::Float:
    return cast(llvm::ConstantFP::get(b.getDoubleTy(), C.f), float64Ty(), T);
  case K::Complex: {
    llvm::Value *Z = llvm::UndefValue::get(valueType(complexTy(128)));
    Z = b.CreateInsertValue(Z, llvm::ConstantFP::get(b.getDoubleTy(), C.f),
                            {0});
    Z = b.CreateInsertValue(Z, llvm::ConstantFP::get(b.getDoubleTy(), C.imag),
                            {1});
    return cast(Z, complexTy(128), T);
  }
  case K::Tuple: {
    if (!T->isTuple() || T->elems().size() != C.elems.size())
      fail(At, "tuple constant of unexpected type " + T->str());
    llvm::Type *LT = valueType(T);
    if (!LT)
      return nullptr;
    llvm::Value *Agg = llvm::UndefValue::get(LT);
    for (unsigned K = 0; K < C.elems.size(); ++K) {
      llvm::Value *E = constant(At, C.elems[K], T->elems()[K]);
      Agg = b.CreateInsertValue(Agg, E, {K});
    }
    return Agg;
  }
  case K::Str:
    return nullptr; // compile-time only (print arguments, dtype names)
  default:
    fail(At, "constant " + C.repr() + " is not supported here");
  }
}

llvm::Value *LowerContext::truth(llvm::Value *V, TypeRef T) {
  if (T->isBool())
    return V;
  if (T->isInt())
    return b.CreateICmpNE(V, llvm::ConstantInt::get(V->getType(), 0));
  if (T->isFloat())
    return b.CreateFCmpUNE(V, llvm::ConstantFP::get(V->getType(), 0.0));
  if (T->kind() == Kind::None)
    return b.getFalse();
  if (T->kind() == Kind::Optional) // None is false
    return b.CreateSelect(b.CreateExtractValue(V, {1}),
                          truth(b.CreateExtractValue(V, {0}), T->inner()),
                          b.getFalse());
  if (T->isTuple())
    return b.getInt1(!T->elems().empty());
  if (T->isComplex()) {
    TypeRef F = floatTy(T->bits() / 2);
    return b.CreateOr(truth(b.CreateExtractValue(V, {0}), F),
                      truth(b.CreateExtractValue(V, {1}), F));
  }
  PCJ_ASSERT(false, "truth of " + T->str());
}

llvm::Value *LowerContext::cast(llvm::Value *V, TypeRef From, TypeRef To) {
  if (From == To)
    return V;
  // An Enum member is held as its value (member.value).
  if (From->kind() == Kind::EnumMember && From->inner() == To)
    return V;
  // Into an OptionalType: None, a value, or another optional's value.
  // (Out of one the Cast instruction checks for None: lower/Lower.cpp.)
  if (To->kind() == Kind::Optional) {
    llvm::Value *Val = llvm::UndefValue::get(valueType(To->inner()));
    llvm::Value *Has = b.getTrue();
    if (From == noneTy()) {
      Has = b.getFalse();
    } else if (From->kind() == Kind::Optional) {
      Val = cast(b.CreateExtractValue(V, {0}), From->inner(), To->inner());
      Has = b.CreateExtractValue(V, {1});
    } else {
      Val = cast(V, From, To->inner());
    }
    llvm::Value *O = llvm::UndefValue::get(valueType(To));
    return b.CreateInsertValue(b.CreateInsertValue(O, Val, {0}), Has, {1});
  }
  if (types::isFp8(From) || types::isFp8(To)) // integer code on every target
    return castFp8(*this, V, From, To);
  if (types::isDateLike(From) || types::isCharSeq(From))
    return castDateTimeOrChars(*this, V, From, To);
  if (To->isBool())
    return truth(V, From);
  if (To->isComplex()) {
    TypeRef F = floatTy(To->bits() / 2);
    llvm::Value *Re, *Im;
    if (From->isComplex()) {
      TypeRef FF = floatTy(From->bits() / 2);
      Re = cast(b.CreateExtractValue(V, {0}), FF, F);
      Im = cast(b.CreateExtractValue(V, {1}), FF, F);
    } else {
      Re = cast(V, From, F);
      Im = llvm::ConstantFP::get(valueType(F), 0.0);
    }
    llvm::Value *Z = llvm::UndefValue::get(valueType(To));
    Z = b.CreateInsertValue(Z, Re, {0});
    return b.CreateInsertValue(Z, Im, {1});
  }
  if (isBFloat16(To)) // rounded once, the same on every target
    return toBFloat16(b, V, From, BF16Round::Nearest);
  llvm::Type *LT = valueType(To);
  if (From->isIntegral() && To->isInt()) {
    bool Signed = From->isInt() && From->isSigned();
    return b.CreateIntCast(V, LT, Signed);
  }
  if (From->isIntegral() && To->isFloat()) {
    bool Signed = From->isInt() && From->isSigned();
    return Signed ? b.CreateSIToFP(V, LT) : b.CreateUIToFP(V, LT);
  }
  if (From->isFloat() && To->isInt()) // saturating, NaN -> 0 (TargetHooks)
    return target.floatToInt(b, V, LT, To->isSigned());
  if (From->isFloat() && To->isFloat()) {
    if (isBFloat16(From) &&
        To->bits() <= 16)                   // no fpext/fptrunc between the two:
      V = b.CreateFPExt(V, b.getFloatTy()); // exactly through float32
    return b.CreateFPCast(V, LT);
  }
  PCJ_ASSERT(false, "no conversion from " + From->str() + " to " + To->str());
}

llvm::Value *LowerContext::toMemory(llvm::Value *V, TypeRef T) {
  return T->isBool() ? b.CreateZExt(V, b.getInt8Ty()) : V;
}

llvm::Value *LowerContext::fromMemory(llvm::Value *V, TypeRef T) {
  return T->isBool() ? b.CreateICmpNE(V, b.getInt8(0)) : V;
}

llvm::AllocaInst *LowerContext::entryAlloca(llvm::Type *T,
                                            const std::string &Name,
                                            uint64_t Count) {
  llvm::IRBuilder<> EB(allocaBlock, allocaBlock->begin());
  return EB.CreateAlloca(T, Count == 1 ? nullptr : EB.getInt64(Count), Name);
}

// ---- arrays
// --------------------------------------------------------------------

llvm::Value *
LowerContext::makeArray(TypeRef T, llvm::Value *Data,
                        const std::vector<llvm::Value *> &Shape,
                        const std::vector<llvm::Value *> &Strides) {
  llvm::Value *A = llvm::UndefValue::get(valueType(T));
  A = b.CreateInsertValue(A, Data, {0});
  for (unsigned D = 0; D < Shape.size(); ++D) {
    A = b.CreateInsertValue(A, Shape[D], {1, D});
    A = b.CreateInsertValue(A, Strides[D], {2, D});
  }
  return A;
}

// A host array frozen at compile time: its bytes as a constant global (one
// per distinct content, in constant memory on the GPU), shaped like it.
llvm::Value *LowerContext::constArray(const ir::CTValue &C, TypeRef T) {
  // Typed elements where LLVM has constant arrays of them (readable IR);
  // otherwise (complex, records) the raw bytes -- loads go through typed
  // element pointers either way.
  llvm::Type *ET = memoryType(T->dtype());
  uint64_t Size =
      ET->isIntegerTy() || ET->isFloatingPointTy() ? T->dtype()->byteSize() : 1;
  if (Size == 1)
    ET = b.getInt8Ty();
  llvm::Constant *Init =
      C.bytes.empty()
          ? llvm::ConstantAggregateZero::get(llvm::ArrayType::get(ET, 0))
          : llvm::ConstantDataArray::getRaw(C.bytes, C.bytes.size() / Size, ET);
  // Named by content, so equal tables share one global.
  uint64_t H = 1469598103934665603ull; // FNV-1a
  auto Mix = [&](const std::string &Text) {
    for (char Ch : Text) {
      H ^= (unsigned char)Ch;
      H *= 1099511628211ull;
    }
  };
  Mix(T->dtype()->str());
  for (int64_t D : C.shape)
    Mix("," + std::to_string(D));
  Mix(C.bytes);
  char Hex[17];
  snprintf(Hex, sizeof Hex, "%016llx", (unsigned long long)H);
  llvm::Value *Data =
      target.constArray(module, Init, std::string("const_") + Hex);
  std::vector<llvm::Value *> ShapeV(C.shape.size()), StrideV(C.shape.size());
  int64_t Stride = T->dtype()->byteSize();
  for (int D = int(C.shape.size()) - 1; D >= 0; --D) {
    ShapeV[D] = b.getInt64(C.shape[D]);
    StrideV[D] = b.getInt64(Stride);
    Stride *= C.shape[D];
  }
  return makeArray(T, Data, ShapeV, StrideV);
}

llvm::Value *LowerContext::capturedArray(const ir::CTValue &C, TypeRef T) {
  llvm::Type *PtrTy =
      llvm::cast<llvm::StructType>(valueType(T))->getElementType(0);
  llvm::Value *Data = b.CreateIntToPtr(b.getInt64(C.address), PtrTy);
  std::vector<llvm::Value *> ShapeV, StrideV;
  for (size_t D = 0; D < C.shape.size(); ++D) {
    ShapeV.push_back(b.getInt64(C.shape[D]));
    StrideV.push_back(b.getInt64(C.strides[D]));
  }
  return makeArray(T, Data, ShapeV, StrideV);
}

llvm::Value *LowerContext::compileTimeValue(const ir::Instr *At,
                                            const ir::CTValue &C, TypeRef T) {
  switch (C.kind) {
  case ir::CTValue::Kind::Const:
    return valueType(T) ? constant(At, C.value, T) : nullptr;
  case ir::CTValue::Kind::ConstArray:
    return constArray(C, T);
  case ir::CTValue::Kind::DeviceArray:
    return capturedArray(C, T);
  case ir::CTValue::Kind::Tuple: {
    llvm::Type *LT = valueType(T);
    if (!LT)
      return nullptr;
    llvm::Value *Agg = llvm::UndefValue::get(LT);
    for (unsigned K = 0; K < C.items.size(); ++K)
      Agg = b.CreateInsertValue(
          Agg, compileTimeValue(At, C.items[K], T->elems()[K]), {K});
    return Agg;
  }
  default:
    return nullptr; // compile-time only (modules, functions, dtypes...)
  }
}

// Stores Mem (a value in memory form) at Ptr, which is aligned to Align: a
// float (or a complex's parts) below its own alignment goes as its bits,
// through TargetHooks::opaqueBits.
void LowerContext::storeField(llvm::Value *Mem, llvm::Value *Ptr,
                              unsigned Align) {
  auto &B = b;
  llvm::Type *T = Mem->getType();
  const llvm::DataLayout &DL = module.getDataLayout();
  if (Align >= DL.getABITypeAlign(T).value() ||
      !(T->isFloatingPointTy() || T->isStructTy())) {
    B.CreateAlignedStore(Mem, Ptr, llvm::Align(Align));
    return;
  }
  if (auto *ST = llvm::dyn_cast<llvm::StructType>(T)) {
    const llvm::StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned K = 0; K < ST->getNumElements(); ++K)
      storeField(B.CreateExtractValue(Mem, {K}), B.CreateStructGEP(ST, Ptr, K),
                 unsigned(llvm::commonAlignment(llvm::Align(Align),
                                                SL->getElementOffset(K))
                              .value()));
    return;
  }
  llvm::Value *Bits =
      B.CreateBitCast(Mem, B.getIntNTy(unsigned(DL.getTypeSizeInBits(T))));
  B.CreateAlignedStore(target.opaqueBits(B, Bits), Ptr, llvm::Align(Align));
}

llvm::Value *LowerContext::arrayData(llvm::Value *A) {
  return b.CreateExtractValue(A, {0});
}
llvm::Value *LowerContext::arrayShape(llvm::Value *A, unsigned Dim) {
  return b.CreateExtractValue(A, {1, Dim});
}
llvm::Value *LowerContext::arrayStride(llvm::Value *A, unsigned Dim) {
  return b.CreateExtractValue(A, {2, Dim});
}

llvm::Value *LowerContext::elementPtr(const ir::Instr *At, TypeRef ArrTy,
                                      llvm::Value *A,
                                      const std::vector<Index> &Idx) {
  unsigned N = ArrTy->ndim();
  PCJ_ASSERT(Idx.size() == N, "index arity");
  std::vector<llvm::Value *> I64(N), Shape(N);
  for (unsigned D = 0; D < N; ++D) {
    auto [V, T, NonNeg] = Idx[D];
    Shape[D] = arrayShape(A, D);
    llvm::Value *X =
        cast(V, T, T->isSigned() || T->isBool() ? int64Ty() : intTy(64, false));
    if (T->isInt() && T->isSigned() &&
        !NonNeg) // Python wrap-around for negatives
      X = b.CreateSelect(b.CreateICmpSLT(X, b.getInt64(0)),
                         b.CreateAdd(X, Shape[D]), X, "wrap");
    if (opts.boundsCheck) {
      llvm::Function *Fn = b.GetInsertBlock()->getParent();
      auto *Bad = llvm::BasicBlock::Create(ctx, "oob", Fn);
      auto *Ok = llvm::BasicBlock::Create(ctx, "inb", Fn);
      b.CreateCondBr(b.CreateICmpUGE(X, Shape[D]), Bad, Ok,
                     llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
      b.SetInsertPoint(Bad);
      // Report the indices the user wrote (before wrap-around) and the shape.
      std::vector<llvm::Value *> Written(N), Extents(N);
      for (unsigned K = 0; K < N; ++K) {
        auto [KV, KT, KNonNeg] = Idx[K];
        Written[K] =
            cast(KV, KT,
                 KT->isSigned() || KT->isBool() ? int64Ty() : intTy(64, false));
        Extents[K] = K <= D ? Shape[K] : arrayShape(A, K);
      }
      target.indexError(b, Written, Extents, D, fn.qualname, At->loc.fileName(),
                        At->loc.line);
      b.CreateUnreachable();
      b.SetInsertPoint(Ok);
    }
    I64[D] = X;
  }
  llvm::Value *Data = arrayData(A);
  llvm::Type *ET = memoryType(ArrTy->dtype());
  if (N == 0)
    return Data;
  switch (ArrTy->layout()) {
  case Layout::C: {
    llvm::Value *Off = I64[0];
    for (unsigned D = 1; D < N; ++D)
      Off = b.CreateAdd(b.CreateMul(Off, Shape[D]), I64[D]);
    return b.CreateInBoundsGEP(ET, Data, Off);
  }
  case Layout::F: {
    llvm::Value *Off = I64[N - 1];
    for (int D = int(N) - 2; D >= 0; --D)
      Off = b.CreateAdd(b.CreateMul(Off, Shape[D]), I64[D]);
    return b.CreateInBoundsGEP(ET, Data, Off);
  }
  case Layout::A: {
    llvm::Value *Off = b.CreateMul(I64[0], arrayStride(A, 0));
    for (unsigned D = 1; D < N; ++D)
      Off = b.CreateAdd(Off, b.CreateMul(I64[D], arrayStride(A, D)));
    return b.CreateInBoundsGEP(b.getInt8Ty(), Data, Off);
  }
  }
  return nullptr;
}

} // namespace pcj::lower
