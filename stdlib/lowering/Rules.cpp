// Lowering rules for the registry's intrinsics (see Registry.def).  They
// emit LLVM IR through LowerContext and reach target differences only via
// its TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

llvm::Value *lowerNone(const LoweringRequest &R) { return nullptr; }

llvm::Value *lowerSpecialReg(const LoweringRequest &R) {
  int Reg = R.info.idata / 3, Dim = R.info.idata % 3;
  static const SReg Order[4] = {SReg::Tid, SReg::NTid, SReg::CtaId,
                                SReg::NCtaId};
  return R.cx.target.specialReg(R.cx.b, Order[Reg], Dim);
}

// grid(n): ctaid * ntid + tid per dimension; gridsize(n): ntid * nctaid.
static llvm::Value *gridLike(const LoweringRequest &R, bool Size) {
  auto &B = R.cx.b;
  bc::ConstValue N;
  ArgInfo{R.argTypes[0], false, R.argInstrs[0]}.constant(N);
  std::vector<llvm::Value *> Dims;
  for (int D = 0; D < N.i; ++D) {
    auto Reg = [&](SReg S) {
      return B.CreateZExt(R.cx.target.specialReg(B, S, D), B.getInt64Ty());
    };
    llvm::Value *V =
        Size ? B.CreateMul(Reg(SReg::NTid), Reg(SReg::NCtaId), "", true, true)
             : B.CreateAdd(B.CreateMul(Reg(SReg::CtaId), Reg(SReg::NTid), "",
                                       true, true),
                           Reg(SReg::Tid), "", true, true);
    Dims.push_back(V);
  }
  if (Dims.size() == 1)
    return Dims[0];
  llvm::Value *T = llvm::UndefValue::get(R.cx.valueType(R.instr.type));
  for (unsigned D = 0; D < Dims.size(); ++D)
    T = B.CreateInsertValue(T, Dims[D], {D});
  return T;
}

llvm::Value *lowerGrid(const LoweringRequest &R) { return gridLike(R, false); }
llvm::Value *lowerGridsize(const LoweringRequest &R) { return gridLike(R, true); }

// Shared and local arrays: storage plus constant shape and C strides.
static llvm::Value *fixedArray(const LoweringRequest &R, bool Shared) {
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  bc::ConstValue Shape;
  int S = 0;
  for (size_t K = 0; K < R.argInstrs.size(); ++K)
    if (!R.argTypes[K] || R.argTypes[K]->kind() != Kind::DType)
      S = int(K);
  ArgInfo{R.argTypes[S], false, R.argInstrs[S]}.constant(Shape);
  std::vector<int64_t> Dims;
  if (Shape.kind == bc::ConstValue::Kind::Tuple)
    for (const auto &E : Shape.elems)
      Dims.push_back(E.i);
  else
    Dims.push_back(Shape.i);
  uint64_t Count = 1;
  for (int64_t D : Dims)
    Count *= uint64_t(D);
  llvm::Type *ET = Cx.memoryType(T->dtype());
  std::string Name = (Shared ? "shared.L" : "local.L") +
                     std::to_string(R.instr.loc.line);
  llvm::Value *Data =
      Shared ? Cx.target.sharedArray(Cx.module, Cx.b, ET, Count, Name)
             : Cx.entryAlloca(ET, Name, Count);
  if (!Shared)
    llvm::cast<llvm::AllocaInst>(Data)->setAlignment(llvm::Align(16));
  std::vector<llvm::Value *> ShapeV, StrideV;
  int64_t Stride = T->dtype()->byteSize();
  StrideV.resize(Dims.size());
  for (int D = int(Dims.size()) - 1; D >= 0; --D) {
    StrideV[D] = Cx.b.getInt64(Stride);
    Stride *= Dims[D];
  }
  for (int64_t D : Dims)
    ShapeV.push_back(Cx.b.getInt64(D));
  return Cx.makeArray(T, Data, ShapeV, StrideV);
}

llvm::Value *lowerSharedArray(const LoweringRequest &R) {
  return fixedArray(R, true);
}
llvm::Value *lowerLocalArray(const LoweringRequest &R) {
  return fixedArray(R, false);
}

llvm::Value *lowerSyncthreads(const LoweringRequest &R) {
  R.cx.target.barrier(R.cx.b, R.instr.loc.line);
  return R.cx.none();
}

llvm::Value *lowerFloatMath(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  std::string Name = R.info.sdata;
  if (Name == "sqrt") // exact IEEE sqrt on both targets, vectorizable on the host
    return Cx.b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, R.args[0]);
  llvm::FunctionCallee Fn =
      Cx.target.mathFunction(Cx.module, Name, T, unsigned(R.args.size()));
  return Cx.b.CreateCall(Fn, R.args);
}

llvm::Value *lowerRange(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef C = R.instr.type->inner();
  llvm::Value *Start = Cx.intConst(C, 0), *Stop, *Step = Cx.intConst(C, 1);
  if (R.args.size() == 1) {
    Stop = R.args[0];
  } else {
    Start = R.args[0];
    Stop = R.args[1];
    if (R.args.size() == 3)
      Step = R.args[2];
  }
  llvm::Value *T = llvm::UndefValue::get(Cx.valueType(R.instr.type));
  T = Cx.b.CreateInsertValue(T, Start, {0});
  T = Cx.b.CreateInsertValue(T, Stop, {1});
  return Cx.b.CreateInsertValue(T, Step, {2});
}

llvm::Value *lowerLen(const LoweringRequest &R) {
  TypeRef T = R.argTypes[0];
  if (T->isTuple())
    return R.cx.b.getInt64(T->elems().size());
  return R.cx.arrayShape(R.args[0], 0);
}

llvm::Value *lowerScalarCtor(const LoweringRequest &R) {
  TypeRef To = R.instr.type;
  if (R.args.empty())
    return R.cx.cast(R.cx.b.getInt1(false), boolTy(), To);
  return R.cx.cast(R.args[0], R.argTypes[0], To);
}

llvm::Value *lowerAbs(const LoweringRequest &R) {
  auto &B = R.cx.b;
  TypeRef T = R.instr.type;
  llvm::Value *X = R.args[0];
  if (T->isFloat())
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X);
  if (!T->isSigned())
    return X;
  return B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, X, B.getFalse());
}

llvm::Value *lowerMinMax(const LoweringRequest &R) {
  auto &B = R.cx.b;
  bool Max = R.info.idata == 1;
  TypeRef T = R.instr.type;
  llvm::Value *Acc = R.args[0];
  for (size_t K = 1; K < R.args.size(); ++K) {
    llvm::Value *X = R.args[K];
    llvm::Value *Pick;
    if (T->isFloat()) // Python: keep the first unless the next compares better
      Pick = Max ? B.CreateFCmpOGT(X, Acc) : B.CreateFCmpOLT(X, Acc);
    else if (T->isSigned())
      Pick = Max ? B.CreateICmpSGT(X, Acc) : B.CreateICmpSLT(X, Acc);
    else
      Pick = Max ? B.CreateICmpUGT(X, Acc) : B.CreateICmpULT(X, Acc);
    Acc = B.CreateSelect(Pick, X, Acc);
  }
  return Acc;
}

llvm::Value *lowerPrint(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  std::string Fmt;
  std::vector<llvm::Value *> Vals;
  for (size_t K = 0; K < R.args.size(); ++K) {
    if (K)
      Fmt += ' ';
    TypeRef T = R.argTypes[K];
    bc::ConstValue C;
    if (T->kind() == Kind::Str) {
      ArgInfo{T, false, R.argInstrs[K]}.constant(C);
      for (char Ch : C.text)
        Fmt += Ch == '%' ? std::string("%%") : std::string(1, Ch);
    } else if (T->kind() == Kind::None) {
      Fmt += "None";
    } else if (T->isBool()) {
      Fmt += "%s";
      Vals.push_back(B.CreateSelect(R.args[K],
                                    B.CreateGlobalStringPtr("True", "print.true"),
                                    B.CreateGlobalStringPtr("False", "print.false")));
    } else if (T->isInt()) {
      Fmt += T->isSigned() ? "%lld" : "%llu";
      Vals.push_back(Cx.cast(R.args[K], T, intTy(64, T->isSigned())));
    } else {
      Fmt += "%f";
      Vals.push_back(Cx.cast(R.args[K], T, float64Ty()));
    }
  }
  Fmt += '\n';
  std::vector<llvm::Type *> Fields;
  for (llvm::Value *V : Vals)
    Fields.push_back(V->getType());
  llvm::Value *Buf = llvm::ConstantPointerNull::get(B.getPtrTy());
  if (!Vals.empty()) {
    // Each argument aligned to its own size: LLVM's struct layout is
    // exactly vprintf's argument-buffer layout.
    auto *ST = llvm::StructType::get(Cx.ctx, Fields);
    Buf = Cx.entryAlloca(ST, "print.args");
    for (unsigned K = 0; K < Vals.size(); ++K)
      B.CreateStore(Vals[K], B.CreateStructGEP(ST, Buf, K));
  }
  Cx.target.vprintf(B, B.CreateGlobalStringPtr(Fmt, "print.fmt"), Buf);
  return Cx.none();
}

llvm::Value *lowerArrayAttr(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  llvm::Value *A = R.args[0];
  switch (R.info.idata) {
  case 0:
  case 1: {
    llvm::Value *Tup = llvm::UndefValue::get(Cx.valueType(R.instr.type));
    for (unsigned D = 0; D < T->ndim(); ++D)
      Tup = Cx.b.CreateInsertValue(
          Tup, R.info.idata == 0 ? Cx.arrayShape(A, D) : Cx.arrayStride(A, D),
          {D});
    return Tup;
  }
  case 2: {
    llvm::Value *N = Cx.b.getInt64(1);
    for (unsigned D = 0; D < T->ndim(); ++D)
      N = Cx.b.CreateMul(N, Cx.arrayShape(A, D));
    return N;
  }
  default:
    return Cx.b.getInt64(T->ndim());
  }
}

} // namespace pcj::stdlib::lowering
