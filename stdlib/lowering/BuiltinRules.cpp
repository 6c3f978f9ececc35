// Lowering rules for Python builtins (registry/builtins.def).  They emit LLVM IR through
// LowerContext and reach target differences only via its TargetHooks.
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;
using lower::SReg;

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
  if (R.argTypes[0]->isComplex())
    return lower::complexAbs(R.cx, R.argTypes[0], X);
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

} // namespace pcj::stdlib::lowering
