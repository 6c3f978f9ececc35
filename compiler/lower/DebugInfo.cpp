// Debug information for the Python source (see DebugInfo.h).
#include "lower/DebugInfo.h"

#include "lower/LowerContext.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>

#include <algorithm>

namespace pcj::lower {

using types::Kind;
using types::TypeRef;

DebugInfo::DebugInfo(llvm::Module &M, const std::string &MainFile, bool Full)
    : M(M), DIB(M), Full(Full) {
  // Full: C++ as the language, as numba-cuda does, so that cuda-gdb
  // evaluates expressions on the variables; line tables keep Python.
  CU = DIB.createCompileUnit(
      Full ? llvm::dwarf::DW_LANG_C_plus_plus : llvm::dwarf::DW_LANG_Python,
      file(MainFile), "pycuda_jit", /*isOptimized=*/true, "", 0, "",
      Full ? llvm::DICompileUnit::FullDebug
           : llvm::DICompileUnit::DebugDirectivesOnly);
  M.addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                  llvm::DEBUG_METADATA_VERSION);
  M.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 2); // NVPTX emits 2
}

// The file as the user's code object names it (an absolute path for a
// module; "<stdin>" and the like otherwise), kept whole: PTX's `.file`
// then carries the path the profiler opens.
llvm::DIFile *DebugInfo::file(const std::string &Path) {
  auto It = Files.find(Path);
  if (It != Files.end())
    return It->second;
  size_t Slash = Path.rfind('/');
  llvm::DIFile *F =
      Slash == std::string::npos || Slash == 0
          ? DIB.createFile(Path, "")
          : DIB.createFile(Path.substr(Slash + 1), Path.substr(0, Slash));
  Files.emplace(Path, F);
  return F;
}

llvm::DISubprogram *DebugInfo::subprogram(LowerContext &Cx) {
  const ir::Function &Fn = Cx.fn;
  llvm::DIFile *F = file(Fn.file ? *Fn.file : std::string("<unknown>"));
  // Full: the signature's types, the result first (null: none).
  std::vector<llvm::Metadata *> Sig;
  if (Full) {
    bool Ret = Fn.returnType && Cx.valueType(Fn.returnType) &&
               Fn.returnType->kind() != Kind::None;
    Sig.push_back(Ret ? type(Cx, Fn.returnType) : nullptr);
    for (const ir::Param &P : Fn.params)
      if (P.type && Cx.valueType(P.type))
        Sig.push_back(type(Cx, P.type));
  }
  llvm::DISubroutineType *Ty =
      DIB.createSubroutineType(DIB.getOrCreateTypeArray(Sig));
  unsigned Line = Fn.firstLine > 0 ? unsigned(Fn.firstLine) : 0;
  llvm::DISubprogram *SP = DIB.createFunction(
      F, Fn.qualname, Cx.kernel->getName(), F, Line, Ty, Line,
      llvm::DINode::FlagPrototyped, llvm::DISubprogram::SPFlagDefinition);
  Cx.kernel->setSubprogram(SP);
  return SP;
}

llvm::DILocation *DebugInfo::location(const SourceLoc &L,
                                      llvm::DISubprogram *SP) {
  if (!L.known())
    return llvm::DILocation::get(M.getContext(), SP->getLine(), 0, SP);
  return llvm::DILocation::get(M.getContext(), unsigned(L.line),
                               L.col >= 0 ? unsigned(L.col + 1) : 0, SP);
}

void DebugInfo::finalize() { DIB.finalize(); }

// ---- types ------------------------------------------------------------

// A struct named by T's numba spelling whose members lie where the LLVM
// struct of T's value (or memory form, for records) puts them.
llvm::DIType *DebugInfo::structType(LowerContext &Cx, TypeRef T,
                                    const std::vector<std::string> &Names,
                                    const std::vector<TypeRef> &Elems) {
  const llvm::DataLayout &DL = M.getDataLayout();
  auto *ST = llvm::dyn_cast<llvm::StructType>(Cx.valueType(T));
  std::vector<llvm::Metadata *> Members;
  for (size_t K = 0; ST && K < Elems.size() && K < ST->getNumElements(); ++K) {
    if (!Cx.valueType(Elems[K]))
      continue;
    llvm::Type *ET = ST->getElementType(unsigned(K));
    Members.push_back(DIB.createMemberType(
        CU, Names[K], CU->getFile(), 0,
        DL.getTypeSizeInBits(ET).getFixedValue(), 0,
        DL.getStructLayout(ST)->getElementOffsetInBits(unsigned(K)),
        llvm::DINode::FlagZero, type(Cx, Elems[K])));
  }
  uint64_t Size = ST ? DL.getTypeAllocSizeInBits(ST).getFixedValue() : 0;
  return DIB.createStructType(CU, T->str(), CU->getFile(), 0, Size, 0,
                              llvm::DINode::FlagZero, nullptr,
                              DIB.getOrCreateArray(Members));
}

llvm::DIType *DebugInfo::type(LowerContext &Cx, TypeRef T) {
  auto It = Types.find(T);
  if (It != Types.end())
    return It->second;
  const llvm::DataLayout &DL = M.getDataLayout();
  llvm::Type *VT = Cx.valueType(T);
  llvm::DIType *R = nullptr;
  switch (T->kind()) {
  case Kind::Bool:
    R = DIB.createBasicType("bool", 8, llvm::dwarf::DW_ATE_boolean);
    break;
  case Kind::Int:
    R = DIB.createBasicType(T->str(), T->bits(),
                            T->isSigned() ? llvm::dwarf::DW_ATE_signed
                                          : llvm::dwarf::DW_ATE_unsigned);
    break;
  case Kind::Float:
    R = DIB.createBasicType(T->str(), T->bits(), llvm::dwarf::DW_ATE_float);
    break;
  case Kind::Complex:
    R = DIB.createBasicType(T->str(), T->bits(),
                            llvm::dwarf::DW_ATE_complex_float);
    break;
  case Kind::Array: {
    // { data, shape[N], strides[N] }: the data pointer as the element type.
    auto *ST = llvm::cast<llvm::StructType>(VT);
    const llvm::StructLayout *SL = DL.getStructLayout(ST);
    llvm::DIType *I64 = type(Cx, types::intTy(64));
    llvm::DIType *Dims = DIB.createArrayType(
        64 * T->ndim(), 64, I64,
        DIB.getOrCreateArray({DIB.getOrCreateSubrange(0, T->ndim())}));
    llvm::DIType *Elem =
        Cx.valueType(T->dtype()) ? type(Cx, T->dtype()) : nullptr;
    std::vector<llvm::Metadata *> Members = {
        DIB.createMemberType(CU, "data", CU->getFile(), 0, 64, 0, 0,
                             llvm::DINode::FlagZero,
                             DIB.createPointerType(Elem, 64)),
        DIB.createMemberType(CU, "shape", CU->getFile(), 0, 64 * T->ndim(), 0,
                             SL->getElementOffsetInBits(1),
                             llvm::DINode::FlagZero, Dims),
        DIB.createMemberType(CU, "strides", CU->getFile(), 0, 64 * T->ndim(), 0,
                             SL->getElementOffsetInBits(2),
                             llvm::DINode::FlagZero, Dims)};
    R = DIB.createStructType(CU, T->str(), CU->getFile(), 0,
                             DL.getTypeAllocSizeInBits(ST).getFixedValue(), 0,
                             llvm::DINode::FlagZero, nullptr,
                             DIB.getOrCreateArray(Members));
    break;
  }
  case Kind::Tuple:
  case Kind::Vector: {
    std::vector<std::string> Names = T->fields();
    for (size_t K = Names.size(); K < T->elems().size(); ++K)
      Names.push_back("f" + std::to_string(K));
    R = structType(Cx, T, Names, T->elems());
    break;
  }
  case Kind::Range:
    R = structType(Cx, T, {"start", "stop", "step"},
                   {T->inner(), T->inner(), T->inner()});
    break;
  case Kind::Record: {
    // A reference: a pointer to the fields at their offsets.
    std::vector<llvm::Metadata *> Members;
    for (size_t K = 0; K < T->fields().size(); ++K) {
      TypeRef FT = T->elems()[K];
      llvm::Type *MT = Cx.memoryType(FT);
      Members.push_back(DIB.createMemberType(
          CU, T->fields()[K], CU->getFile(), 0,
          MT ? DL.getTypeSizeInBits(MT).getFixedValue() : 0, 0,
          T->offsets()[K] * 8, llvm::DINode::FlagZero, type(Cx, FT)));
    }
    llvm::Type *RT = Cx.memoryType(T);
    llvm::DIType *S = DIB.createStructType(
        CU, T->str(), CU->getFile(), 0,
        RT ? DL.getTypeAllocSizeInBits(RT).getFixedValue() : 0, 0,
        llvm::DINode::FlagZero, nullptr, DIB.getOrCreateArray(Members));
    R = DIB.createPointerType(S, 64);
    break;
  }
  case Kind::Pointer:
    R = DIB.createPointerType(
        T->inner() && Cx.valueType(T->inner()) ? type(Cx, T->inner()) : nullptr,
        64);
    break;
  default:
    // Other run-time values (iterators, none, ...): their size, by name.
    R = DIB.createStructType(
        CU, T->str(), CU->getFile(), 0,
        VT && VT->isSized() ? DL.getTypeAllocSizeInBits(VT).getFixedValue() : 0,
        0, llvm::DINode::FlagZero, nullptr, DIB.getOrCreateArray({}));
    break;
  }
  Types.emplace(T, R);
  return R;
}

// ---- variables --------------------------------------------------------

namespace {
// Names the compiler makes up (comprehension iterators, ...) are not the
// user's variables.
bool userName(const std::string &N) {
  return !N.empty() && N[0] != '.' && N[0] != '$';
}
} // namespace

void DebugInfo::beginFunction(LowerContext &Cx, llvm::DISubprogram *SP) {
  if (!Full)
    return;
  const ir::Function &F = Cx.fn;
  Fn = FunctionState();
  Fn.sp = SP;
  Fn.file = SP->getFile();
  for (const ir::Block *B : F.blocks)
    for (const ir::Instr *I : B->instrs)
      Fn.live.insert(I);
  auto Runtime = [&](const ir::Instr *V) {
    return V && Fn.live.count(V) && V->op != ir::Op::Undef && V->type &&
           Cx.valueType(V->type);
  };
  for (const ir::LocalBinding &L : F.bindings) {
    if (!userName(L.name) || !Runtime(L.value))
      continue;
    bool Anchored = L.after && Fn.live.count(L.after) &&
                    L.after->parent == L.block && L.after->op != ir::Op::Phi &&
                    !L.after->isTerminator();
    if (Anchored)
      Fn.after[L.after].push_back(&L);
    else if (std::find(F.blocks.begin(), F.blocks.end(), L.block) !=
             F.blocks.end())
      Fn.atStart[L.block].push_back(&L);
    Fn.localTypes[L.name].insert(L.value->type);
  }
  for (const ir::Block *B : F.blocks)
    for (const ir::Instr *I : B->instrs)
      if (I->op == ir::Op::Phi && userName(I->str) && Runtime(I))
        Fn.localTypes[I->str].insert(I->type);

  // Parameters: a stack slot each (stable locations for cuda-gdb, as
  // numba-cuda declares them), at the `def` line.
  llvm::DILocation *DefLoc = location(SourceLoc{F.file, F.firstLine}, SP);
  Cx.b.SetCurrentDebugLocation(DefLoc);
  for (const ir::Instr *I : F.blocks.front()->instrs) {
    if (I->op != ir::Op::Arg || !Runtime(I) || !Cx.hasValue(I) ||
        !userName(I->str) || Fn.paramSlots.count(I->str))
      continue;
    llvm::Value *V = Cx.value(I);
    llvm::AllocaInst *Slot = Cx.entryAlloca(V->getType(), I->str + ".dbg");
    Cx.b.CreateStore(V, Slot);
    auto *Var = DIB.createParameterVariable(
        SP, I->str, unsigned(I->index + 1), Fn.file, SP->getLine(),
        type(Cx, I->type), /*AlwaysPreserve=*/true);
    DIB.insertDeclare(Slot, Var, DIB.createExpression(), DefLoc,
                      Cx.b.GetInsertBlock());
    Fn.vars[I->str] = Var;
    Fn.paramSlots[I->str] = Slot;
  }
}

// The variable of local Name: its one type, or the union of its types.
llvm::DILocalVariable *
DebugInfo::localVariable(LowerContext &Cx, const std::string &Name, int Line) {
  auto It = Fn.vars.find(Name);
  if (It != Fn.vars.end())
    return It->second;
  const std::set<TypeRef> &Ts = Fn.localTypes[Name];
  llvm::DIType *Ty = nullptr;
  if (Ts.size() == 1) {
    Ty = type(Cx, *Ts.begin());
  } else {
    std::vector<TypeRef> Sorted(Ts.begin(), Ts.end());
    std::sort(Sorted.begin(), Sorted.end(),
              [](TypeRef A, TypeRef B) { return A->str() < B->str(); });
    std::vector<llvm::Metadata *> Members;
    uint64_t Size = 0;
    for (TypeRef T : Sorted) {
      llvm::DIType *MT = type(Cx, T);
      Size = std::max(Size, MT->getSizeInBits());
      Members.push_back(DIB.createMemberType(CU, "_" + T->str(), CU->getFile(),
                                             0, MT->getSizeInBits(), 0, 0,
                                             llvm::DINode::FlagZero, MT));
    }
    Ty = DIB.createUnionType(CU, Name + "$union", CU->getFile(), 0, Size, 0,
                             llvm::DINode::FlagZero,
                             DIB.getOrCreateArray(Members));
  }
  auto *Var = DIB.createAutoVariable(Fn.sp, Name, Fn.file,
                                     Line > 0 ? unsigned(Line) : 0, Ty,
                                     /*AlwaysPreserve=*/true);
  Fn.vars.emplace(Name, Var);
  return Var;
}

void DebugInfo::assign(LowerContext &Cx, const std::string &Name,
                       const ir::Instr *Def, const SourceLoc &Loc) {
  if (!Cx.hasValue(Def))
    return;
  llvm::Value *V = Cx.value(Def);
  llvm::DILocation *DL = location(Loc, Fn.sp);
  auto Slot = Fn.paramSlots.find(Name);
  if (Slot != Fn.paramSlots.end()) {
    // A parameter assigned again: its slot holds the new value (values of
    // another type are not shown).
    if (V->getType() == Slot->second->getAllocatedType()) {
      llvm::StoreInst *S = Cx.b.CreateStore(V, Slot->second);
      S->setDebugLoc(DL);
    }
    return;
  }
  llvm::DILocalVariable *Var = localVariable(Cx, Name, Loc.line);
  llvm::BasicBlock *BB = Cx.b.GetInsertBlock();
  if (Cx.b.GetInsertPoint() == BB->end())
    DIB.insertDbgValueIntrinsic(V, Var, DIB.createExpression(), DL, BB);
  else
    DIB.insertDbgValueIntrinsic(V, Var, DIB.createExpression(), DL,
                                Cx.b.GetInsertPoint());
}

void DebugInfo::beforeInstr(LowerContext &Cx, const ir::Instr *I) {
  if (!Full || I->op == ir::Op::Phi || Fn.started == I->parent)
    return;
  Fn.started = I->parent;
  for (const ir::Instr *P : I->parent->instrs)
    if (P->op == ir::Op::Phi && userName(P->str) && Fn.localTypes.count(P->str))
      assign(Cx, P->str, P, P->loc.known() ? P->loc : I->loc);
  auto It = Fn.atStart.find(I->parent);
  if (It != Fn.atStart.end())
    for (const ir::LocalBinding *L : It->second)
      assign(Cx, L->name, L->value, L->loc);
}

void DebugInfo::afterInstr(LowerContext &Cx, const ir::Instr *I) {
  if (!Full)
    return;
  auto It = Fn.after.find(I);
  if (It == Fn.after.end())
    return;
  for (const ir::LocalBinding *L : It->second)
    assign(Cx, L->name, L->value, L->loc);
}

} // namespace pcj::lower
