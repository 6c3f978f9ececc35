// NvvmIrInstructions: the NVVM IR writer's instructions and intrinsic calls
// (NvvmIrWriter.h says what is rewritten; NvvmIrWriter.cpp has the types,
// constants and the module around them).
//
//   %x = load float, ptr addrspace(1) %p     %t0 = bitcast i8 addrspace(1)*
//                                                 %v3 to float addrspace(1)*
//                                           %v4 = load float, float
//                                                 addrspace(1)* %t0, align 4
//   %m = call i32 @llvm.smax.i32(i32 %a,     %t1 = icmp sgt i32 %a0, %a1
//                                i32 %b)     %v5 = select i1 %t1, i32 %a0,
//                                                 i32 %a1
#include "codegen/NvvmIrWriterImpl.h"

#include "support/Diagnostics.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

#include <optional>
#include <regex>

namespace pcj::codegen::nvvmir {

namespace {

std::string alignText(llvm::MaybeAlign A) {
  return A ? ", align " + std::to_string(A->value()) : "";
}

const char *ordering(llvm::AtomicOrdering O) { return llvm::toIRString(O); }

// NVVM IR has no scopes: its atomics are PTX's default, .gpu.  So a
// "device" scope (CUDA's atomics) or none prints without one; a narrower
// or wider scope cannot be said.
bool plainScope(const llvm::Instruction &I, llvm::SyncScope::ID Id) {
  if (Id == llvm::SyncScope::System)
    return true;
  std::optional<llvm::StringRef> Name = I.getContext().getSyncScopeName(Id);
  return Name && *Name == "device";
}

// i8 or i16, or a vector of them.
bool isNarrowInt(llvm::Type *T) {
  T = T->getScalarType();
  return T->isIntegerTy(8) || T->isIntegerTy(16);
}

} // namespace

void Writer::instruction(const llvm::Instruction &I, const std::string &Res) {
  std::string R = Res.empty() ? "" : Res + " = ";
  unsigned Opc = I.getOpcode();
  if (I.isBinaryOp()) {
    // -x of an i8/i16 (neg.s16): in 32 bits, as abs below.
    if (Opc == llvm::Instruction::Sub && isNarrowInt(I.getType())) {
      auto *Zero = dyn_cast<llvm::Constant>(I.getOperand(0));
      if (Zero && Zero->isNullValue()) {
        narrowIn32(I.getOperand(1), Res, "neg.s32 $0, $1;");
        return;
      }
    }
    std::string Flags;
    if (isa<llvm::OverflowingBinaryOperator>(I)) {
      if (I.hasNoUnsignedWrap())
        Flags += "nuw ";
      if (I.hasNoSignedWrap())
        Flags += "nsw ";
    }
    if (isa<llvm::PossiblyExactOperator>(I) && I.isExact())
      Flags += "exact ";
    line(R + I.getOpcodeName() + " " + Flags + fmf(I) + top(I.getOperand(0)) +
         ", " + op(I.getOperand(1)));
    return;
  }
  if (I.isCast()) {
    line(R + I.getOpcodeName() + " " + top(I.getOperand(0)) + " to " +
         ty(I.getType()));
    return;
  }
  switch (Opc) {
  case llvm::Instruction::FNeg: {
    llvm::Type *T = I.getType();
    line(R + "fsub " + fmf(I) + ty(T) + " " +
         op(llvm::ConstantFP::getNegativeZero(T)) + ", " + op(I.getOperand(0)));
    return;
  }
  case llvm::Instruction::ICmp: {
    auto &C = cast<llvm::ICmpInst>(I);
    line(R + "icmp " + llvm::CmpInst::getPredicateName(C.getPredicate()).str() +
         " " + top(C.getOperand(0)) + ", " + op(C.getOperand(1)));
    return;
  }
  case llvm::Instruction::FCmp: {
    auto &C = cast<llvm::FCmpInst>(I);
    line(R + "fcmp " + fmf(I) +
         llvm::CmpInst::getPredicateName(C.getPredicate()).str() + " " +
         top(C.getOperand(0)) + ", " + op(C.getOperand(1)));
    return;
  }
  case llvm::Instruction::Select:
    line(R + "select " + top(I.getOperand(0)) + ", " + top(I.getOperand(1)) +
         ", " + top(I.getOperand(2)));
    return;
  case llvm::Instruction::PHI: {
    auto &P = cast<llvm::PHINode>(I);
    std::string S = R + "phi " + ty(P.getType());
    for (unsigned K = 0; K < P.getNumIncomingValues(); ++K)
      S += std::string(K ? "," : "") + " [ " + op(P.getIncomingValue(K)) +
           ", %" + Blocks.at(P.getIncomingBlock(K)) + " ]";
    line(S);
    return;
  }
  case llvm::Instruction::Br: {
    auto &B = cast<llvm::BranchInst>(I);
    std::string Loop;
    if (NoUnroll.count(&I))
      Loop = ", !llvm.loop !" + std::to_string(kLoopIdBase + 1 + LoopIds++);
    if (B.isUnconditional())
      line("br label %" + Blocks.at(B.getSuccessor(0)) + Loop);
    else
      line("br " + top(B.getCondition()) + ", label %" +
           Blocks.at(B.getSuccessor(0)) + ", label %" +
           Blocks.at(B.getSuccessor(1)) + Loop);
    return;
  }
  case llvm::Instruction::Switch: {
    auto &S = cast<llvm::SwitchInst>(I);
    std::string L = "switch " + top(S.getCondition()) + ", label %" +
                    Blocks.at(S.getDefaultDest()) + " [";
    for (auto &Case : S.cases())
      L += " " + top(Case.getCaseValue()) + ", label %" +
           Blocks.at(Case.getCaseSuccessor());
    line(L + " ]");
    return;
  }
  case llvm::Instruction::Ret:
    line(I.getNumOperands() ? "ret " + top(I.getOperand(0)) : "ret void");
    return;
  case llvm::Instruction::Unreachable:
    line("unreachable");
    return;
  case llvm::Instruction::Alloca: {
    auto &A = cast<llvm::AllocaInst>(I);
    if (A.getAddressSpace() != 0)
      unsupported("an alloca in address space " +
                  std::to_string(A.getAddressSpace()));
    llvm::Type *T = A.getAllocatedType();
    std::string Size =
        A.isArrayAllocation() ? ", " + top(A.getArraySize()) : "";
    std::string Align = ", align " + std::to_string(A.getAlign().value());
    if (T->isIntegerTy(8)) {
      line(R + "alloca i8" + Size + Align);
      return;
    }
    std::string Tmp = temp();
    line(Tmp + " = alloca " + ty(T) + Size + Align);
    untype(Tmp, T, 0, Res);
    return;
  }
  case llvm::Instruction::Load: {
    auto &L = cast<llvm::LoadInst>(I);
    std::string P = typedPtr(L.getPointerOperand(), L.getType());
    std::string PT =
        ty(L.getType()) + addrSpace(L.getPointerAddressSpace()) + "*";
    if (L.isAtomic()) {
      if (!plainScope(L, L.getSyncScopeID()))
        unsupported("an atomic load with a scope");
      line(R + "load atomic " + std::string(L.isVolatile() ? "volatile " : "") +
           ty(L.getType()) + ", " + PT + " " + P + " " +
           ordering(L.getOrdering()) + alignText(L.getAlign()));
      return;
    }
    line(R + "load " + std::string(L.isVolatile() ? "volatile " : "") +
         ty(L.getType()) + ", " + PT + " " + P + alignText(L.getAlign()));
    return;
  }
  case llvm::Instruction::Store: {
    auto &S = cast<llvm::StoreInst>(I);
    llvm::Type *T = S.getValueOperand()->getType();
    std::string P = typedPtr(S.getPointerOperand(), T);
    std::string PT = ty(T) + addrSpace(S.getPointerAddressSpace()) + "*";
    std::string Head = "store ";
    if (S.isAtomic()) {
      if (!plainScope(S, S.getSyncScopeID()))
        unsupported("an atomic store with a scope");
      Head = "store atomic ";
    }
    line(Head + (S.isVolatile() ? "volatile " : "") + top(S.getValueOperand()) +
         ", " + PT + " " + P +
         (S.isAtomic() ? std::string(" ") + ordering(S.getOrdering()) : "") +
         alignText(S.getAlign()));
    return;
  }
  case llvm::Instruction::GetElementPtr:
    gep(cast<llvm::GetElementPtrInst>(I), Res);
    return;
  case llvm::Instruction::AtomicRMW:
    atomicRmw(cast<llvm::AtomicRMWInst>(I), Res);
    return;
  case llvm::Instruction::AtomicCmpXchg: {
    auto &X = cast<llvm::AtomicCmpXchgInst>(I);
    if (!plainScope(X, X.getSyncScopeID()))
      unsupported("a compare-and-swap with a scope");
    llvm::Type *T = X.getCompareOperand()->getType();
    if (!T->isIntegerTy())
      unsupported("a compare-and-swap of " + ty(T));
    std::string P = typedPtr(X.getPointerOperand(), T);
    line(R + "cmpxchg " + (X.isWeak() ? "weak " : "") +
         (X.isVolatile() ? "volatile " : "") + ty(T) +
         addrSpace(X.getPointerAddressSpace()) + "* " + P + ", " +
         top(X.getCompareOperand()) + ", " + top(X.getNewValOperand()) + " " +
         ordering(X.getSuccessOrdering()) + " " +
         ordering(X.getFailureOrdering()));
    return;
  }
  case llvm::Instruction::Fence: {
    auto &F = cast<llvm::FenceInst>(I);
    if (!plainScope(F, F.getSyncScopeID()))
      unsupported("a fence with a scope");
    line(std::string("fence ") + ordering(F.getOrdering()));
    return;
  }
  case llvm::Instruction::ExtractValue: {
    auto &E = cast<llvm::ExtractValueInst>(I);
    std::string S = R + "extractvalue " + top(E.getAggregateOperand());
    for (unsigned Idx : E.indices())
      S += ", " + std::to_string(Idx);
    line(S);
    return;
  }
  case llvm::Instruction::InsertValue: {
    auto &E = cast<llvm::InsertValueInst>(I);
    std::string S = R + "insertvalue " + top(E.getAggregateOperand()) + ", " +
                    top(E.getInsertedValueOperand());
    for (unsigned Idx : E.indices())
      S += ", " + std::to_string(Idx);
    line(S);
    return;
  }
  case llvm::Instruction::ExtractElement:
    line(R + "extractelement " + top(I.getOperand(0)) + ", " +
         top(I.getOperand(1)));
    return;
  case llvm::Instruction::InsertElement:
    line(R + "insertelement " + top(I.getOperand(0)) + ", " +
         top(I.getOperand(1)) + ", " + top(I.getOperand(2)));
    return;
  case llvm::Instruction::ShuffleVector: {
    auto &S = cast<llvm::ShuffleVectorInst>(I);
    std::string Mask;
    for (int E : S.getShuffleMask())
      Mask += (Mask.empty() ? "" : ", ") +
              (E < 0 ? std::string("i32 undef") : "i32 " + std::to_string(E));
    line(R + "shufflevector " + top(S.getOperand(0)) + ", " +
         top(S.getOperand(1)) + ", <" +
         std::to_string(S.getShuffleMask().size()) + " x i32> <" + Mask + ">");
    return;
  }
  case llvm::Instruction::Call:
    call(cast<llvm::CallInst>(I), Res);
    return;
  default:
    unsupported(std::string("the instruction '") + I.getOpcodeName() + "'");
  }
}

void Writer::gep(const llvm::GetElementPtrInst &G, const std::string &Res) {
  if (G.getType()->isVectorTy())
    unsupported("a vector getelementptr");
  llvm::Type *Src = G.getSourceElementType();
  llvm::Type *Elt = G.getResultElementType();
  unsigned AS = G.getPointerAddressSpace();
  std::string Base = typedPtr(G.getPointerOperand(), Src);
  std::string S = std::string("getelementptr ") +
                  (G.isInBounds() ? "inbounds " : "") + ty(Src) + ", " +
                  ty(Src) + addrSpace(AS) + "* " + Base;
  for (unsigned K = 1; K < G.getNumOperands(); ++K)
    S += ", " + top(G.getOperand(K));
  if (Elt->isIntegerTy(8)) {
    line(Res + " = " + S);
    return;
  }
  std::string Tmp = temp();
  line(Tmp + " = " + S);
  untype(Tmp, Elt, AS, Res);
}

void Writer::atomicRmw(const llvm::AtomicRMWInst &A, const std::string &Res) {
  if (!plainScope(A, A.getSyncScopeID()))
    unsupported("an atomic read-modify-write with a scope");
  llvm::Type *T = A.getType();
  unsigned AS = A.getPointerAddressSpace();
  std::string R = Res.empty() ? "" : Res + " = ";
  if (Res.empty())
    R = temp() + " = "; // atomicrmw always has a value
  auto Op = A.getOperation();
  if (Op == llvm::AtomicRMWInst::FAdd) {
    // NVVM's relaxed atomic add on floats (LLVM 7 has no atomicrmw fadd).
    if (!T->isFloatTy() && !T->isDoubleTy())
      unsupported("an atomic add of " + ty(T));
    std::string Suffix = ty(T) == "float" ? "f32" : "f64";
    std::string Name = "llvm.nvvm.atomic.load.add." + Suffix + ".p" +
                       std::to_string(AS) + Suffix;
    std::string PT = ty(T) + addrSpace(AS) + "*";
    declare(ty(T), Name, {PT, ty(T)});
    line(R + "call " + ty(T) + " " + globalName(Name) + "(" + PT + " " +
         typedPtr(A.getPointerOperand(), T) + ", " + top(A.getValOperand()) +
         ")");
    return;
  }
  if (Op == llvm::AtomicRMWInst::UIncWrap && T->isIntegerTy(32)) {
    std::string Name =
        "llvm.nvvm.atomic.load.inc.32.p" + std::to_string(AS) + "i32";
    std::string PT = "i32" + addrSpace(AS) + "*";
    declare("i32", Name, {PT, "i32"});
    line(R + "call i32 " + globalName(Name) + "(" + PT + " " +
         typedPtr(A.getPointerOperand(), T) + ", " + top(A.getValOperand()) +
         ")");
    return;
  }
  if (Op == llvm::AtomicRMWInst::UDecWrap && T->isIntegerTy(32)) {
    std::string Name =
        "llvm.nvvm.atomic.load.dec.32.p" + std::to_string(AS) + "i32";
    std::string PT = "i32" + addrSpace(AS) + "*";
    declare("i32", Name, {PT, "i32"});
    line(R + "call i32 " + globalName(Name) + "(" + PT + " " +
         typedPtr(A.getPointerOperand(), T) + ", " + top(A.getValOperand()) +
         ")");
    return;
  }
  llvm::StringRef OpName = llvm::AtomicRMWInst::getOperationName(Op);
  static const char *const IntOps[] = {"xchg", "add",  "sub", "and",
                                       "nand", "or",   "xor", "max",
                                       "min",  "umax", "umin"};
  bool Known = false;
  for (const char *K : IntOps)
    Known |= OpName == K;
  if (!Known)
    unsupported("atomicrmw " + OpName.str());
  std::string Vol = A.isVolatile() ? "volatile " : "";
  std::string Ord = ordering(A.getOrdering());
  if (T->isFloatingPointTy() && Op == llvm::AtomicRMWInst::Xchg) {
    // LLVM 7 exchanges integers only: the float's bits.
    std::string IT = "i" + std::to_string(T->getPrimitiveSizeInBits());
    std::string P = temp(), V = temp(), Old = temp();
    line(P + " = bitcast " + top(A.getPointerOperand()) + " to " + IT +
         addrSpace(AS) + "*");
    line(V + " = bitcast " + top(A.getValOperand()) + " to " + IT);
    line(Old + " = atomicrmw " + Vol + "xchg " + IT + addrSpace(AS) + "* " + P +
         ", " + IT + " " + V + " " + Ord);
    line(R + "bitcast " + IT + " " + Old + " to " + ty(T));
    return;
  }
  if (!T->isIntegerTy())
    unsupported("atomicrmw " + OpName.str() + " on " + ty(T));
  line(R + "atomicrmw " + Vol + OpName.str() + " " + ty(T) + addrSpace(AS) +
       "* " + typedPtr(A.getPointerOperand(), T) + ", " +
       top(A.getValOperand()) + " " + Ord);
}

// An i8/i16 abs or negation on a 32-bit register inside inline PTX, which
// libNVVM cannot narrow back.  Written as LLVM's sub/icmp/select, libNVVM
// makes `abs.s16` / `neg.s16` followed by `cvt.s64.s16`, which ptxas
// miscompiles (it takes the 16-bit register as sign-extended:
// abs(int16(-32768)) widened to int64 gave +32768 on the H200); the NVPTX
// path avoids it the same way (codegen/WidenNarrowInts.cpp).  A vector one
// element at a time.
void Writer::narrowIn32(const llvm::Value *X, const std::string &Res,
                        const char *Asm) {
  llvm::Type *T = X->getType();
  auto One = [&](const std::string &In, llvm::Type *E, std::string N) {
    std::string W = temp(), A = temp();
    line(W + " = sext " + ty(E) + " " + In + " to i32");
    line(A + " = call i32 asm " + quoted(Asm) + ", \"=r,r\"(i32 " + W + ")");
    line(N + " = trunc i32 " + A + " to " + ty(E));
    return N;
  };
  auto *VT = dyn_cast<llvm::FixedVectorType>(T);
  if (!VT) {
    One(op(X), T, Res.empty() ? temp() : Res);
    return;
  }
  llvm::Type *E = VT->getElementType();
  std::string Acc = "undef";
  for (unsigned K = 0; K < VT->getNumElements(); ++K) {
    std::string El = temp();
    line(El + " = extractelement " + top(X) + ", i32 " + std::to_string(K));
    std::string N = One(El, E, temp());
    bool Last = K + 1 == VT->getNumElements();
    std::string Into = Last && !Res.empty() ? Res : temp();
    line(Into + " = insertelement " + ty(T) + " " + Acc + ", " + ty(E) + " " +
         N + ", i32 " + std::to_string(K));
    Acc = Into;
  }
}

void Writer::asmCall(const llvm::CallInst &C, const std::string &Res,
                     const std::string &Asm, const std::string &Constraints,
                     bool Convergent) {
  std::string Args;
  for (unsigned K = 0; K < C.arg_size(); ++K)
    Args += (K ? ", " : "") + top(C.getArgOperand(K));
  line((Res.empty() ? "" : Res + " = ") + "call " + ty(C.getType()) +
       " asm sideeffect " + quoted(Asm) + ", " + quoted(Constraints) + "(" +
       Args + ")" + (Convergent ? " convergent" : ""));
}

// half itself, or inside a vector, array or struct.
static bool hasHalf(llvm::Type *T) {
  if (T->isHalfTy())
    return true;
  if (auto *V = dyn_cast<llvm::VectorType>(T))
    return hasHalf(V->getElementType());
  if (auto *A = dyn_cast<llvm::ArrayType>(T))
    return hasHalf(A->getElementType());
  if (auto *S = dyn_cast<llvm::StructType>(T))
    for (llvm::Type *E : S->elements())
      if (hasHalf(E))
        return true;
  return false;
}

void Writer::call(const llvm::CallInst &C, const std::string &Res) {
  if (auto *IA = dyn_cast<llvm::InlineAsm>(C.getCalledOperand())) {
    if (IA->getDialect() != llvm::InlineAsm::AD_ATT)
      unsupported("inline assembly in the Intel dialect");
    // NVVM's inline assembly takes no half: its bits as i16 (PTX's "h").
    std::string Args;
    for (unsigned K = 0; K < C.arg_size(); ++K) {
      const llvm::Value *A = C.getArgOperand(K);
      std::string Arg = top(A);
      if (A->getType()->isHalfTy()) {
        std::string Bits = temp();
        line(Bits + " = bitcast " + Arg + " to i16");
        Arg = "i16 " + Bits;
      } else if (!A->getType()->isSingleValueType() ||
                 A->getType()->isVectorTy()) {
        unsupported("an inline assembly operand of type " + ty(A->getType()));
      }
      Args += (K ? ", " : "") + Arg;
    }
    llvm::Type *RT = C.getType();
    bool HalfResult = RT->isHalfTy();
    if (RT->isStructTy())
      for (llvm::Type *E : cast<llvm::StructType>(RT)->elements())
        if (E->isHalfTy())
          unsupported("a half result of inline assembly in a struct");
    std::string Call = "call " + (HalfResult ? std::string("i16") : ty(RT)) +
                       " asm " + (IA->hasSideEffects() ? "sideeffect " : "") +
                       (IA->isAlignStack() ? "alignstack " : "") +
                       quoted(IA->getAsmString()) + ", " +
                       quoted(IA->getConstraintString()) + "(" + Args + ")" +
                       (C.isConvergent() ? " convergent" : "");
    if (HalfResult) {
      std::string Bits = temp();
      line(Bits + " = " + Call);
      line(Res + " = bitcast i16 " + Bits + " to half");
    } else {
      line((Res.empty() ? "" : Res + " = ") + Call);
    }
    return;
  }
  const llvm::Function *F = C.getCalledFunction();
  if (!F)
    unsupported("an indirect call");
  if (F->getName().starts_with("llvm.") && intrinsicCall(C, Res))
    return;
  if (C.getFunctionType() != F->getFunctionType())
    unsupported("a call of '" + F->getName().str() + "' with another type");
  // A foreign (declared, linked) function taking or returning float16: on
  // the H200 such a call through libNVVM gave zeros (the two sides do not
  // agree on how a half crosses the call), so it stays on the NVPTX path.
  if (F->isDeclaration()) {
    bool Half = hasHalf(F->getReturnType());
    for (const llvm::Argument &P : F->args())
      Half |= hasHalf(P.getType());
    if (Half)
      unsupported("a call of the foreign function '" + F->getName().str() +
                  "' with a float16 argument or result");
  }
  std::string Args;
  for (unsigned K = 0; K < C.arg_size(); ++K) {
    const llvm::Value *A = C.getArgOperand(K);
    if (K < F->arg_size() && F->getArg(K)->hasByValAttr()) {
      // The callee's byval parameter (NvvmIrWriter.cpp): a typed pointer.
      const llvm::Argument *P = F->getArg(K);
      std::string Typed = ty(P->getParamByValType()) +
                          addrSpace(P->getType()->getPointerAddressSpace()) +
                          "*";
      std::string Cast = temp();
      line(Cast + " = bitcast " + top(A) + " to " + Typed);
      std::string Al;
      if (llvm::MaybeAlign M = P->getParamAlign())
        Al = " align " + std::to_string(M->value());
      Args += (K ? ", " : "") + Typed + " byval" + Al + " " + Cast;
      continue;
    }
    Args += (K ? ", " : "") + top(A);
  }
  line((Res.empty() ? "" : Res + " = ") + "call " + fmf(C) + ty(C.getType()) +
       " " + globalName(F->getName()) + "(" + Args + ")" +
       (C.isConvergent() ? " convergent" : ""));
}

// Intrinsics LLVM 7 / NVVM spells differently; false: an intrinsic to pass
// through (its pointer manglings typed: .p1 -> .p1i8).
bool Writer::intrinsicCall(const llvm::CallInst &C, const std::string &Res) {
  llvm::StringRef Name = C.getCalledFunction()->getName();
  std::string R = Res.empty() ? "" : Res + " = ";
  auto Arg = [&](unsigned K) { return C.getArgOperand(K); };
  // Hints and debug info: nothing to say to NVVM.
  for (const char *Drop : {"llvm.dbg.", "llvm.lifetime.", "llvm.assume",
                           "llvm.experimental.noalias.scope.decl",
                           "llvm.sideeffect", "llvm.donothing"})
    if (Name.starts_with(Drop)) {
      if (!C.getType()->isVoidTy())
        unsupported("the intrinsic " + Name.str());
      return true;
    }
  if (Name.starts_with("llvm.abs.") && isNarrowInt(C.getType())) {
    narrowIn32(Arg(0), Res, "abs.s32 $0, $1;");
    return true;
  }
  if (Name.starts_with("llvm.abs.")) {
    std::string Neg = temp(), Lt = temp();
    llvm::Type *T = C.getType();
    line(Neg + " = sub " + ty(T) + " " + op(llvm::Constant::getNullValue(T)) +
         ", " + op(Arg(0)));
    line(Lt + " = icmp slt " + top(Arg(0)) + ", " +
         op(llvm::Constant::getNullValue(T)));
    line(R + "select " +
         (T->isVectorTy()
              ? "<" +
                    std::to_string(
                        cast<llvm::FixedVectorType>(T)->getNumElements()) +
                    " x i1>"
              : std::string("i1")) +
         " " + Lt + ", " + ty(T) + " " + Neg + ", " + top(Arg(0)));
    return true;
  }
  static const std::pair<const char *, const char *> MinMax[] = {
      {"llvm.smax.", "sgt"},
      {"llvm.smin.", "slt"},
      {"llvm.umax.", "ugt"},
      {"llvm.umin.", "ult"}};
  for (auto [Prefix, Pred] : MinMax)
    if (Name.starts_with(Prefix)) {
      llvm::Type *T = C.getType();
      if (T->isVectorTy())
        unsupported("the vector intrinsic " + Name.str());
      std::string Cmp = temp();
      line(Cmp + " = icmp " + Pred + " " + top(Arg(0)) + ", " + op(Arg(1)));
      line(R + "select i1 " + Cmp + ", " + top(Arg(0)) + ", " + top(Arg(1)));
      return true;
    }
  auto Simple = [&](const std::string &NewName) {
    std::vector<std::string> Types;
    std::string Args;
    for (unsigned K = 0; K < C.arg_size(); ++K) {
      Types.push_back(ty(Arg(K)->getType()));
      Args += (K ? ", " : "") + top(Arg(K));
    }
    declare(ty(C.getType()), NewName, Types);
    line(R + "call " + fmf(C) + ty(C.getType()) + " " + globalName(NewName) +
         "(" + Args + ")");
    return true;
  };
  // libNVVM takes none of LLVM's rounding / sign / min-max intrinsics:
  // libdevice's functions (the same IEEE operations); float16 through
  // float, exact for all of these.
  static const std::pair<const char *, const char *> Libdevice[] = {
      {"llvm.fabs.", "fabs"},      {"llvm.trunc.", "trunc"},
      {"llvm.rint.", "rint"},      {"llvm.nearbyint.", "nearbyint"},
      {"llvm.roundeven.", "rint"}, {"llvm.floor.", "floor"},
      {"llvm.ceil.", "ceil"},      {"llvm.copysign.", "copysign"},
      {"llvm.minnum.", "fmin"},    {"llvm.maxnum.", "fmax"}};
  for (auto [Prefix, Base] : Libdevice) {
    if (!Name.starts_with(Prefix))
      continue;
    llvm::Type *T = C.getType();
    if (!T->isHalfTy() && !T->isFloatTy() && !T->isDoubleTy())
      unsupported("the intrinsic " + Name.str());
    bool Half = T->isHalfTy();
    std::string FT = Half ? "float" : ty(T);
    std::string Fn = std::string("__nv_") + Base + (T->isDoubleTy() ? "" : "f");
    std::string Args;
    std::vector<std::string> Types;
    for (unsigned K = 0; K < C.arg_size(); ++K) {
      std::string A = op(Arg(K));
      if (Half) {
        std::string Wide = temp();
        line(Wide + " = fpext half " + A + " to float");
        A = Wide;
      }
      Args += (K ? ", " : "") + FT + " " + A;
      Types.push_back(FT);
    }
    declare(FT, Fn, Types);
    std::string Call = "call " + FT + " " + globalName(Fn) + "(" + Args + ")";
    if (!Half) {
      line(R + Call);
      return true;
    }
    std::string Wide = temp();
    line(Wide + " = " + Call);
    line(R + "fptrunc float " + Wide + " to half");
    return true;
  }
  if (Name.starts_with("llvm.roundeven."))
    return Simple("llvm.rint." + Name.substr(strlen("llvm.roundeven.")).str());
  if (Name.starts_with("llvm.fptosi.sat.") ||
      Name.starts_with("llvm.fptoui.sat.")) {
    bool Signed = Name.starts_with("llvm.fptosi");
    llvm::Type *From = Arg(0)->getType(), *To = C.getType();
    unsigned Bits = To->isIntegerTy() ? To->getIntegerBitWidth() : 0;
    if ((!From->isFloatTy() && !From->isDoubleTy()) ||
        (Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64))
      unsupported("the intrinsic " + Name.str());
    // cvt.rzi saturates and gives 0 for NaN, as the intrinsic does; but
    // libNVVM folds a constant NaN through d2ll.rz to INT64_MIN (H200,
    // PYCUDA_JIT_VIA_NVVM), so NaN is selected to 0 explicitly.
    std::string N = std::string("llvm.nvvm.") +
                    (From->isFloatTy() ? "f" : "d") + "2" +
                    (Signed ? "" : "u") + (Bits == 64 ? "ll" : "i") + ".rz";
    std::string IsNan = temp();
    line(IsNan + " = fcmp uno " + top(Arg(0)) + ", " + op(Arg(0)));
    if (Bits >= 32) {
      std::string IntTy = Bits == 64 ? "i64" : "i32", Cvt = temp();
      declare(IntTy, N, {ty(From)});
      line(Cvt + " = call " + IntTy + " " + globalName(N) + "(" + top(Arg(0)) +
           ")");
      line(R + "select i1 " + IsNan + ", " + IntTy + " 0, " + IntTy + " " +
           Cvt);
      return true;
    }
    // i8 / i16: saturated to 32 bits, then clamped to the narrow range.
    declare("i32", N, {ty(From)});
    std::string Wide = temp(), Lo = temp(), Hi = temp(), C1 = temp(),
                C2 = temp(), Sat = temp();
    long long Max = Signed ? (1LL << (Bits - 1)) - 1 : (1LL << Bits) - 1;
    long long Min = Signed ? -(1LL << (Bits - 1)) : 0;
    line(Sat + " = call i32 " + globalName(N) + "(" + top(Arg(0)) + ")");
    line(Wide + " = select i1 " + IsNan + ", i32 0, i32 " + Sat);
    line(C1 + " = icmp " + (Signed ? "sgt" : "ugt") + " i32 " + Wide + ", " +
         std::to_string(Max));
    line(Hi + " = select i1 " + C1 + ", i32 " + std::to_string(Max) + ", i32 " +
         Wide);
    line(C2 + " = icmp slt i32 " + Hi + ", " + std::to_string(Min));
    line(Lo + " = select i1 " + C2 + ", i32 " +
         std::to_string(Signed ? Min : 0) + ", i32 " + Hi);
    line(R + "trunc i32 " + Lo + " to " + ty(To));
    return true;
  }
  if (Name == "llvm.nvvm.barrier.cta.sync.aligned.all") {
    auto *Id = dyn_cast<llvm::ConstantInt>(Arg(0));
    if (Id && Id->isZero()) {
      declare("void", "llvm.nvvm.barrier0", {});
      line("call void @llvm.nvvm.barrier0()");
      return true;
    }
    return Simple("llvm.nvvm.barrier.sync");
  }
  static const std::pair<const char *, const char *> Reductions[] = {
      {"llvm.nvvm.barrier.cta.red.popc.aligned.all", "llvm.nvvm.barrier0.popc"},
      {"llvm.nvvm.barrier.cta.red.and.aligned.all", "llvm.nvvm.barrier0.and"},
      {"llvm.nvvm.barrier.cta.red.or.aligned.all", "llvm.nvvm.barrier0.or"}};
  for (auto [New, Old] : Reductions) {
    if (Name != New)
      continue;
    // (barrier 0, i1 predicate) -> NVVM's barrier0 reduction over an i32
    // predicate, whose i32 result and/or give as i1.
    auto *Id = dyn_cast<llvm::ConstantInt>(Arg(0));
    if (!Id || !Id->isZero())
      unsupported("the intrinsic " + Name.str() + " on a barrier other than 0");
    std::string Pred = temp();
    line(Pred + " = zext " + top(Arg(1)) + " to i32");
    declare("i32", Old, {"i32"});
    if (C.getType()->isIntegerTy(32)) {
      line(R + "call i32 " + globalName(Old) + "(i32 " + Pred + ")");
      return true;
    }
    std::string V = temp();
    line(V + " = call i32 " + globalName(Old) + "(i32 " + Pred + ")");
    line(R + "icmp ne i32 " + V + ", 0");
    return true;
  }
  if (Name == "llvm.nvvm.activemask") {
    // Convergent: libNVVM runtime-unrolled `for k in range(laneid):
    // out[i, k] = activemask()` (a sideeffect asm alone may be), so the
    // mask was that of the lanes in the unrolled body or the remainder
    // loop, not of those in iteration k (wrong masks on the H200).
    asmCall(C, Res, "activemask.b32 $0;", "=r", /*Convergent=*/true);
    return true;
  }
  if (Name == "llvm.nvvm.nanosleep") {
    asmCall(C, Res, "nanosleep.u32 $0;", "r");
    return true;
  }
  if (Name == "llvm.nvvm.exit") {
    asmCall(C, Res, "exit;", "");
    return true;
  }
  if (Name == "llvm.nvvm.tanh.approx.f32") {
    asmCall(C, Res, "tanh.approx.f32 $0, $1;", "=f,f");
    return true;
  }
  for (const char *New : {"llvm.minimum.", "llvm.maximum.", "llvm.minimumnum.",
                          "llvm.maximumnum.", "llvm.nvvm.barrier.cta."})
    if (Name.starts_with(New))
      unsupported("the intrinsic " + Name.str());
  // Pass through, with typed pointer manglings and i8 pointers throughout.
  static const std::regex PtrMangle(R"(\.p([0-9]+)(?=\.|$))");
  std::string NewName =
      std::regex_replace(Name.str(), PtrMangle, std::string(".p$1i8"));
  return Simple(NewName);
}

} // namespace pcj::codegen::nvvmir
