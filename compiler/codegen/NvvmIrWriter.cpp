// NvvmIrWriter: LLVM 22 module -> NVVM IR text (LLVM 7 dialect, typed
// pointers).  See NvvmIrWriter.h for the pointer scheme and what is
// rewritten or dropped.
//
// Every value gets a name of ours: arguments %a<i>, instruction results
// %v<i>, the writer's own casts %t<i>, blocks b<i>; so no name needs
// escaping and the output is deterministic.
#include "codegen/NvvmIrWriterImpl.h"

#include "support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/TypeFinder.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace pcj::codegen::nvvmir {

// NVVM IR's 64-bit data layout (the NVVM IR specification's).
const char *kNvvmDataLayout =
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-"
    "i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-"
    "v128:128:128-n16:32:64";

std::string addrSpace(unsigned AS) {
  return AS ? " addrspace(" + std::to_string(AS) + ")" : "";
}

// A global name as LLVM 7 reads it (quoted with \XX escapes if needed).
std::string globalName(llvm::StringRef Name) {
  bool Plain = !Name.empty() && !llvm::isDigit(Name[0]);
  for (char C : Name)
    Plain &= llvm::isAlnum(C) || C == '_' || C == '.' || C == '$' || C == '-';
  if (Plain)
    return "@" + Name.str();
  std::string S = "@\"";
  for (unsigned char C : Name) {
    if (llvm::isPrint(C) && C != '"' && C != '\\')
      S += char(C);
    else
      S += "\\" + llvm::utohexstr(C >> 4) + llvm::utohexstr(C & 15);
  }
  return S + "\"";
}

// A string in LLVM's c"..." / asm "..." form.
std::string quoted(llvm::StringRef Text) {
  std::string S = "\"";
  for (unsigned char C : Text) {
    if (llvm::isPrint(C) && C != '"' && C != '\\')
      S += char(C);
    else
      S += "\\" + llvm::utohexstr(C >> 4) + llvm::utohexstr(C & 15);
  }
  return S + "\"";
}

bool Writer::isKernel(const llvm::Function &F) const {
  return F.getCallingConv() == llvm::CallingConv::PTX_Kernel ||
         std::count(O.kernelNames.begin(), O.kernelNames.end(),
                    F.getName().str());
}

std::string Writer::generic(const llvm::GlobalVariable &G) {
  std::string P = constant(&G);
  unsigned AS = G.getAddressSpace();
  if (!AS)
    return P;
  return "addrspacecast (i8" + addrSpace(AS) + "* " + P + " to i8*)";
}

std::string Writer::top(const llvm::Value *V) {
  return ty(V->getType()) + " " + op(V);
}

void Writer::unsupported(const std::string &What) {
  SourceLoc Loc;
  if (Cur)
    if (const llvm::DILocation *DL = Cur->getDebugLoc().get()) {
      Loc.file = std::make_shared<const std::string>(DL->getFilename().str());
      Loc.line = int(DL->getLine());
    }
  throw CompileError(ErrorKind::Unsupported, Loc,
                     "NVVM IR (libNVVM's LLVM 7 dialect) cannot express " +
                         What,
                     "compile without lto=True / PYCUDA_JIT_VIA_NVVM (the "
                     "NVPTX backend takes it)");
}

std::string Writer::ty(llvm::Type *T) {
  switch (T->getTypeID()) {
  case llvm::Type::VoidTyID:
    return "void";
  case llvm::Type::HalfTyID:
    return "half";
  case llvm::Type::FloatTyID:
    return "float";
  case llvm::Type::DoubleTyID:
    return "double";
  case llvm::Type::IntegerTyID:
    return "i" + std::to_string(T->getIntegerBitWidth());
  case llvm::Type::PointerTyID:
    return "i8" + addrSpace(T->getPointerAddressSpace()) + "*";
  case llvm::Type::ArrayTyID:
    return "[" + std::to_string(T->getArrayNumElements()) + " x " +
           ty(T->getArrayElementType()) + "]";
  case llvm::Type::FixedVectorTyID: {
    auto *VT = cast<llvm::FixedVectorType>(T);
    if (VT->getElementType()->isPointerTy())
      unsupported("a vector of pointers");
    return "<" + std::to_string(VT->getNumElements()) + " x " +
           ty(VT->getElementType()) + ">";
  }
  case llvm::Type::StructTyID: {
    auto *ST = cast<llvm::StructType>(T);
    if (!ST->isLiteral())
      return "%" + globalName(ST->getName()).substr(1);
    std::string S = ST->isPacked() ? "<{ " : "{ ";
    for (unsigned I = 0; I < ST->getNumElements(); ++I)
      S += (I ? ", " : "") + ty(ST->getElementType(I));
    return S + (ST->getNumElements() ? " " : "") +
           (ST->isPacked() ? "}>" : "}");
  }
  case llvm::Type::FunctionTyID:
    return fnTy(cast<llvm::FunctionType>(T));
  default: {
    std::string S;
    llvm::raw_string_ostream OS(S);
    T->print(OS);
    unsupported("the type " + OS.str());
  }
  }
}

std::string Writer::fnTy(llvm::FunctionType *FT) {
  std::string S = ty(FT->getReturnType()) + " (";
  for (unsigned I = 0; I < FT->getNumParams(); ++I)
    S += (I ? ", " : "") + ty(FT->getParamType(I));
  if (FT->isVarArg())
    S += FT->getNumParams() ? ", ..." : "...";
  return S + ")";
}

std::string Writer::fnTy(const llvm::Function &F) {
  llvm::FunctionType *FT = F.getFunctionType();
  std::string S = ty(FT->getReturnType()) + " (";
  for (unsigned I = 0; I < FT->getNumParams(); ++I) {
    const llvm::Argument *A = F.getArg(I);
    S += (I ? ", " : "") +
         (A->hasByValAttr()
              ? ty(A->getParamByValType()) +
                    addrSpace(A->getType()->getPointerAddressSpace()) + "*"
              : ty(FT->getParamType(I)));
  }
  if (FT->isVarArg())
    S += FT->getNumParams() ? ", ..." : "...";
  return S + ")";
}

std::string Writer::constant(const llvm::Constant *C) {
  llvm::Type *T = C->getType();
  if (isa<llvm::UndefValue>(C)) // poison too
    return "undef";
  if (isa<llvm::ConstantPointerNull>(C))
    return "null";
  if (isa<llvm::ConstantAggregateZero>(C))
    return "zeroinitializer";
  if (T->isVectorTy() &&
      (isa<llvm::ConstantInt>(C) || isa<llvm::ConstantFP>(C))) {
    // A splat constant of vector type: spelled out.
    auto *VT = cast<llvm::FixedVectorType>(T);
    const llvm::Constant *E = C->getAggregateElement(0u);
    std::string S = "<";
    for (unsigned I = 0; I < VT->getNumElements(); ++I)
      S += (I ? ", " : "") + top(E);
    return S + ">";
  }
  if (auto *CI = dyn_cast<llvm::ConstantInt>(C)) {
    if (CI->getBitWidth() == 1)
      return CI->isZero() ? "false" : "true";
    return llvm::toString(CI->getValue(), 10, /*Signed=*/true);
  }
  if (auto *CF = dyn_cast<llvm::ConstantFP>(C)) {
    llvm::APInt Bits = CF->getValueAPF().bitcastToAPInt();
    if (T->isHalfTy())
      return "0xH" + llvm::utohexstr(Bits.getZExtValue(), false, 4);
    if (T->isDoubleTy())
      return "0x" + llvm::utohexstr(Bits.getZExtValue(), false, 16);
    if (T->isFloatTy()) {
      // LLVM prints a float as the double of the same value.
      double D = CF->getValueAPF().convertToFloat();
      uint64_t U;
      std::memcpy(&U, &D, sizeof U);
      return "0x" + llvm::utohexstr(U, false, 16);
    }
    unsupported("a constant of type " + ty(T));
  }
  if (auto *GV = dyn_cast<llvm::GlobalValue>(C)) {
    llvm::Type *VT = GV->getValueType();
    std::string Name = globalName(GV->getName());
    if (VT->isIntegerTy(8))
      return Name;
    unsigned AS = GV->getAddressSpace();
    std::string From = isa<llvm::Function>(GV)
                           ? fnTy(*cast<llvm::Function>(GV)) + "*"
                           : ty(VT) + addrSpace(AS) + "*";
    return "bitcast (" + From + " " + Name + " to i8" + addrSpace(AS) + "*)";
  }
  if (auto *CDS = dyn_cast<llvm::ConstantDataSequential>(C)) {
    if (CDS->isString())
      return "c" + quoted(CDS->getAsString());
    std::string S = T->isVectorTy() ? "<" : "[";
    for (unsigned I = 0; I < CDS->getNumElements(); ++I)
      S += (I ? ", " : "") + top(CDS->getElementAsConstant(I));
    return S + (T->isVectorTy() ? ">" : "]");
  }
  if (isa<llvm::ConstantArray>(C) || isa<llvm::ConstantStruct>(C) ||
      isa<llvm::ConstantVector>(C)) {
    bool Packed = T->isStructTy() && cast<llvm::StructType>(T)->isPacked();
    const char *Open = T->isVectorTy() ? "<" : T->isArrayTy() ? "[" : "{ ";
    const char *Close = T->isVectorTy() ? ">" : T->isArrayTy() ? "]" : " }";
    std::string S = Packed ? "<" : "";
    S += Open;
    for (unsigned I = 0; I < C->getNumOperands(); ++I)
      S += (I ? ", " : "") + top(cast<llvm::Constant>(C->getOperand(I)));
    return S + Close + (Packed ? ">" : "");
  }
  if (auto *CE = dyn_cast<llvm::ConstantExpr>(C))
    return constantExpr(CE);
  unsupported("a constant of kind " + std::to_string(C->getValueID()));
}

std::string Writer::constantExpr(const llvm::ConstantExpr *CE) {
  unsigned Opc = CE->getOpcode();
  if (CE->isCast())
    return std::string(llvm::Instruction::getOpcodeName(Opc)) + " (" +
           top(CE->getOperand(0)) + " to " + ty(CE->getType()) + ")";
  if (Opc == llvm::Instruction::GetElementPtr) {
    auto *G = cast<llvm::GEPOperator>(CE);
    llvm::Type *Src = G->getSourceElementType();
    llvm::Type *Res = G->getResultElementType();
    unsigned AS = G->getPointerAddressSpace();
    std::string Base = typedPtr(G->getPointerOperand(), Src);
    std::string S = std::string("getelementptr ") +
                    (G->isInBounds() ? "inbounds " : "") + "(" + ty(Src) +
                    ", " + ty(Src) + addrSpace(AS) + "* " + Base;
    for (unsigned I = 1; I < CE->getNumOperands(); ++I)
      S += ", " + top(CE->getOperand(I));
    S += ")";
    if (Res->isIntegerTy(8))
      return S;
    return "bitcast (" + ty(Res) + addrSpace(AS) + "* " + S + " to i8" +
           addrSpace(AS) + "*)";
  }
  if (llvm::Instruction::isBinaryOp(Opc))
    return std::string(llvm::Instruction::getOpcodeName(Opc)) + " (" +
           top(CE->getOperand(0)) + ", " + top(CE->getOperand(1)) + ")";
  unsupported(std::string("the constant expression ") + CE->getOpcodeName());
}

std::string Writer::op(const llvm::Value *V) {
  // freeze is the value itself (undef stays undef: NVVM has no poison).
  while (auto *F = dyn_cast<llvm::FreezeInst>(V))
    V = F->getOperand(0);
  auto It = Names.find(V);
  if (It != Names.end())
    return It->second;
  if (auto *C = dyn_cast<llvm::Constant>(V))
    return constant(C);
  if (auto *BB = dyn_cast<llvm::BasicBlock>(V))
    return "%" + Blocks.at(BB);
  unsupported("an operand of kind " + std::to_string(V->getValueID()));
}

// P (an i8-typed pointer value) as an Elt pointer: a global of that type
// as itself, a constant through a constant bitcast, else a bitcast line.
std::string Writer::typedPtr(const llvm::Value *P, llvm::Type *Elt) {
  unsigned AS = P->getType()->getPointerAddressSpace();
  std::string To = ty(Elt) + addrSpace(AS) + "*";
  if (auto *GV = dyn_cast<llvm::GlobalVariable>(P))
    if (GV->getValueType() == Elt)
      return globalName(GV->getName());
  if (Elt->isIntegerTy(8))
    return op(P);
  if (isa<llvm::Constant>(P))
    return "bitcast (" + top(P) + " to " + To + ")";
  std::string T = temp();
  line(T + " = bitcast " + top(P) + " to " + To);
  return T;
}

// V, an Elt pointer in AS, back to i8 as Result.
std::string Writer::untype(const std::string &V, llvm::Type *Elt, unsigned AS,
                           const std::string &Result) {
  line(Result + " = bitcast " + ty(Elt) + addrSpace(AS) + "* " + V + " to i8" +
       addrSpace(AS) + "*");
  return Result;
}

std::string Writer::fmf(const llvm::Instruction &I) {
  if (!isa<llvm::FPMathOperator>(I))
    return "";
  llvm::FastMathFlags F = I.getFastMathFlags();
  if (F.isFast())
    return "fast ";
  std::string S;
  if (F.allowReassoc())
    S += "reassoc ";
  if (F.noNaNs())
    S += "nnan ";
  if (F.noInfs())
    S += "ninf ";
  if (F.noSignedZeros())
    S += "nsz ";
  if (F.allowReciprocal())
    S += "arcp ";
  if (F.allowContract())
    S += "contract ";
  if (F.approxFunc())
    S += "afn ";
  return S;
}

void Writer::declare(const std::string &Ret, const std::string &Name,
                     const std::vector<std::string> &Args) {
  std::string S = "declare " + Ret + " " + globalName(Name) + "(";
  for (size_t I = 0; I < Args.size(); ++I)
    S += (I ? ", " : "") + Args[I];
  Declares.insert(S + ")");
}

void Writer::global(const llvm::GlobalVariable &G) {
  std::string S = globalName(G.getName()) + " = ";
  bool Decl = G.isDeclaration();
  switch (G.getLinkage()) {
  case llvm::GlobalValue::ExternalLinkage:
    S += Decl ? "external " : "";
    break;
  case llvm::GlobalValue::InternalLinkage:
    S += "internal ";
    break;
  case llvm::GlobalValue::PrivateLinkage:
    S += "private ";
    break;
  case llvm::GlobalValue::LinkOnceODRLinkage:
    S += "linkonce_odr ";
    break;
  case llvm::GlobalValue::WeakODRLinkage:
    S += "weak_odr ";
    break;
  case llvm::GlobalValue::WeakAnyLinkage:
    S += "weak ";
    break;
  case llvm::GlobalValue::CommonLinkage:
    S += "common ";
    break;
  default:
    unsupported("the linkage of global '" + G.getName().str() + "'");
  }
  if (G.isThreadLocal())
    unsupported("the thread-local global '" + G.getName().str() + "'");
  if (unsigned AS = G.getAddressSpace())
    S += "addrspace(" + std::to_string(AS) + ") ";
  if (G.isExternallyInitialized())
    S += "externally_initialized ";
  S += G.isConstant() ? "constant " : "global ";
  S += ty(G.getValueType());
  if (!Decl)
    S += " " + constant(G.getInitializer());
  if (G.getAlign())
    S += ", align " + std::to_string(G.getAlign()->value());
  Body += S + "\n";
}

static std::string linkage(const llvm::Function &F) {
  switch (F.getLinkage()) {
  case llvm::GlobalValue::InternalLinkage:
    return "internal ";
  case llvm::GlobalValue::PrivateLinkage:
    return "private ";
  case llvm::GlobalValue::LinkOnceODRLinkage:
    return "linkonce_odr ";
  case llvm::GlobalValue::WeakODRLinkage:
    return "weak_odr ";
  default:
    return "";
  }
}

void Writer::function(const llvm::Function &F) {
  Cur = nullptr;
  if (F.isVarArg())
    unsupported("the variadic function '" + F.getName().str() + "'");
  bool IsKernel = isKernel(F);
  if (!IsKernel && F.getCallingConv() != llvm::CallingConv::C)
    unsupported("the calling convention of '" + F.getName().str() + "'");
  std::string Head =
      ty(F.getReturnType()) + " " + globalName(F.getName()) + "(";
  Names.clear();
  Blocks.clear();
  Temps = 0;
  // byval parameters (a tuple kernel argument's bytes in the parameter
  // space): typed `T* byval`, cast to the pointer the body uses on entry.
  // Written as a plain pointer, the kernel took 8 bytes for the tuple's
  // 20,000 and read its first floats as an address (5,000-element tuple:
  // CUDA_ERROR_ILLEGAL_ADDRESS on the H200).
  std::string Entry;
  for (const llvm::Argument &A : F.args()) {
    std::string Name = "%a" + std::to_string(A.getArgNo());
    Names[&A] = Name;
    Head += (A.getArgNo() ? ", " : "");
    if (A.hasByValAttr()) {
      llvm::Type *T = A.getParamByValType();
      unsigned AS = A.getType()->getPointerAddressSpace();
      std::string Typed = ty(T) + addrSpace(AS) + "*";
      Head += Typed + " byval";
      if (llvm::MaybeAlign Al = A.getParamAlign())
        Head += " align " + std::to_string(Al->value());
      if (F.isDeclaration())
        continue;
      Head += " " + Name + ".byval";
      Entry += "  " + Name + " = bitcast " + Typed + " " + Name + ".byval to " +
               ty(A.getType()) + "\n";
      continue;
    }
    for (llvm::Attribute::AttrKind K :
         {llvm::Attribute::ByRef, llvm::Attribute::InAlloca,
          llvm::Attribute::Preallocated, llvm::Attribute::StructRet})
      if (A.hasAttribute(K))
        unsupported("the parameter attribute " +
                    llvm::Attribute::getNameFromAttrKind(K).str() + " of '" +
                    F.getName().str() + "'");
    Head += ty(A.getType());
    if (F.isDeclaration())
      continue;
    if (A.hasNoAliasAttr())
      Head += " noalias";
    if (A.onlyReadsMemory() && A.getType()->isPointerTy())
      Head += " readonly";
    Head += " " + Name;
  }
  Head += ")";
  if (F.hasFnAttribute(llvm::Attribute::AlwaysInline))
    Head += " alwaysinline";
  if (F.hasFnAttribute(llvm::Attribute::NoInline))
    Head += " noinline";
  if (F.hasFnAttribute(llvm::Attribute::Convergent))
    Head += " convergent";
  if (F.hasFnAttribute(llvm::Attribute::NoUnwind))
    Head += " nounwind";
  if (IsKernel)
    Kernels.push_back(fnTy(F) + "* " + globalName(F.getName()));
  if (F.isDeclaration()) {
    Body += "declare " + Head + "\n\n";
    return;
  }
  // activemask in a loop: libNVVM unrolled `for k in range(laneid):
  // out[i, k] = activemask()` by 4 with a remainder loop (convergent or
  // not, an asm or its own intrinsic), so iteration k ran with the lanes of
  // the unrolled body or of the remainder, not with those that run
  // iteration k: wrong masks on the H200.  Each back edge of such a
  // function says llvm.loop.unroll.disable, which libNVVM honours.
  NoUnroll.clear();
  if (ReadsMask.count(&F)) {
    llvm::DominatorTree DT(const_cast<llvm::Function &>(F));
    for (const llvm::BasicBlock &BB : F)
      for (const llvm::BasicBlock *S : llvm::successors(&BB))
        if (DT.dominates(S, &BB))
          NoUnroll.insert(BB.getTerminator());
  }
  unsigned N = 0;
  for (const llvm::BasicBlock &BB : F) {
    Blocks[&BB] = "b" + std::to_string(Blocks.size());
    for (const llvm::Instruction &I : BB)
      if (!I.getType()->isVoidTy())
        Names[&I] = "%v" + std::to_string(N++);
  }
  Body += "define " + linkage(F) + Head + " {\n";
  for (const llvm::BasicBlock &BB : F) {
    Body += Blocks[&BB] + ":\n";
    if (&BB == &F.getEntryBlock())
      Body += Entry;
    for (const llvm::Instruction &I : BB) {
      Cur = &I;
      if (isa<llvm::FreezeInst>(I))
        continue; // its users print its operand
      auto It = Names.find(&I);
      instruction(I, It == Names.end() ? "" : It->second);
    }
  }
  Body += "}\n\n";
}

std::string Writer::run() {
  std::string Out = "; NVVM IR written by pycuda_jit from module '" +
                    M.getModuleIdentifier() + "'\n";
  Out += std::string("target datalayout = \"") + kNvvmDataLayout + "\"\n";
  Out += "target triple = \"nvptx64-nvidia-cuda\"\n\n";
  llvm::TypeFinder Types;
  Types.run(M, /*onlyNamed=*/false);
  for (llvm::StructType *ST : Types) {
    if (ST->isLiteral())
      continue;
    if (ST->isOpaque()) {
      Out += ty(ST) + " = type opaque\n";
      continue;
    }
    std::string S;
    for (unsigned I = 0; I < ST->getNumElements(); ++I)
      S += (I ? ", " : "") + ty(ST->getElementType(I));
    Out += ty(ST) + " = type " + (ST->isPacked() ? "<{ " : "{ ") + S +
           (ST->isPacked() ? " }>" : " }") + "\n";
  }
  // What nvJitLink's LTO must keep (it drops every symbol not reachable
  // from @llvm.used): the kernels and the globals the host looks up.
  std::vector<const llvm::GlobalValue *> Used;
  for (const llvm::GlobalVariable &G : M.globals()) {
    if (G.getName() == "llvm.used" || G.getName() == "llvm.compiler.used") {
      if (G.hasInitializer())
        for (const llvm::Use &U : G.getInitializer()->operands())
          if (auto *GV = dyn_cast<llvm::GlobalValue>(
                  cast<llvm::Constant>(U.get())->stripPointerCasts()))
            Used.push_back(GV);
      continue;
    }
    if (G.getName().starts_with("llvm."))
      unsupported("the global '" + G.getName().str() + "'");
    if (!G.isDeclaration() && G.hasExternalLinkage())
      Used.push_back(&G);
    global(G);
  }
  Body += "\n";
  // ReadsMask: the functions that call activemask, then their callers.
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const llvm::Function &F : M)
      for (const llvm::BasicBlock &BB : F)
        for (const llvm::Instruction &I : BB)
          if (auto *C = dyn_cast<llvm::CallInst>(&I))
            if (const llvm::Function *Callee = C->getCalledFunction())
              if ((Callee->getName() == "llvm.nvvm.activemask" ||
                   ReadsMask.count(Callee)) &&
                  ReadsMask.insert(&F).second)
                Grew = true;
  }
  for (const llvm::Function &F : M) {
    if (F.isIntrinsic() || F.getName().starts_with("llvm."))
      continue; // declared as the calls use them
    function(F);
  }
  for (const llvm::GlobalAlias &A : M.aliases())
    unsupported("the alias '" + A.getName().str() + "'");
  for (const llvm::Function &F : M)
    if (!F.isDeclaration() && isKernel(F))
      Used.push_back(&F);
  if (!Used.empty()) {
    Body += "@llvm.used = appending global [" + std::to_string(Used.size()) +
            " x i8*] [";
    for (size_t I = 0; I < Used.size(); ++I) {
      const llvm::GlobalValue *GV = Used[I];
      Body += I ? ", i8* " : "i8* ";
      if (auto *G = dyn_cast<llvm::GlobalVariable>(GV))
        Body += generic(*G);
      else
        Body += constant(GV);
    }
    Body += "], section \"llvm.metadata\"\n\n";
  }
  Out += Body;
  for (const std::string &D : Declares)
    Out += D + "\n";
  // Kernels and their limits; the IR version (NVVM IR 2.0).
  std::vector<std::string> Meta;
  for (const std::string &K : Kernels) {
    std::string S = "!{" + K + ", !\"kernel\", i32 1";
    if (O.maxThreadsPerBlock > 0)
      S += ", !\"maxntidx\", i32 " + std::to_string(O.maxThreadsPerBlock);
    if (O.minBlocksPerSM > 0)
      S += ", !\"minctasm\", i32 " + std::to_string(O.minBlocksPerSM);
    if (O.maxRegisters > 0)
      S += ", !\"maxnreg\", i32 " + std::to_string(O.maxRegisters);
    Meta.push_back(S + "}");
  }
  Out += "\n!nvvm.annotations = !{";
  for (size_t I = 0; I < Meta.size(); ++I)
    Out += (I ? ", !" : "!") + std::to_string(I);
  Out += "}\n!nvvmir.version = !{!" + std::to_string(Meta.size()) + "}\n";
  for (size_t I = 0; I < Meta.size(); ++I)
    Out += "!" + std::to_string(I) + " = " + Meta[I] + "\n";
  Out += "!" + std::to_string(Meta.size()) + " = !{i32 2, i32 0}\n";
  if (LoopIds) {
    Out += "!" + std::to_string(kLoopIdBase) +
           " = !{!\"llvm.loop.unroll.disable\"}\n";
    for (unsigned K = 1; K <= LoopIds; ++K) {
      std::string Id = "!" + std::to_string(kLoopIdBase + K);
      Out += Id + " = distinct !{" + Id + ", !" + std::to_string(kLoopIdBase) +
             "}\n";
    }
  }
  return Out;
}

} // namespace pcj::codegen::nvvmir

namespace pcj::codegen {

std::string writeNvvmIr(const llvm::Module &M, const NvvmIrOptions &O) {
  return nvvmir::Writer(M, O).run();
}

} // namespace pcj::codegen
