// Line tables for the Python source (see DebugInfo.h).
#include "lower/DebugInfo.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/Module.h>

namespace pcj::lower {

DebugInfo::DebugInfo(llvm::Module &M, const std::string &MainFile)
    : M(M), DIB(M) {
  CU = DIB.createCompileUnit(llvm::dwarf::DW_LANG_Python, file(MainFile),
                             "pycuda_jit", /*isOptimized=*/true, "", 0, "",
                             llvm::DICompileUnit::DebugDirectivesOnly);
  M.addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                  llvm::DEBUG_METADATA_VERSION);
  M.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 2);
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

llvm::DISubprogram *DebugInfo::subprogram(llvm::Function *LF,
                                          const ir::Function &Fn) {
  llvm::DIFile *F = file(Fn.file ? *Fn.file : std::string("<unknown>"));
  llvm::DISubroutineType *Ty =
      DIB.createSubroutineType(DIB.getOrCreateTypeArray({}));
  unsigned Line = Fn.firstLine > 0 ? unsigned(Fn.firstLine) : 0;
  llvm::DISubprogram *SP = DIB.createFunction(
      F, Fn.qualname, LF->getName(), F, Line, Ty, Line,
      llvm::DINode::FlagPrototyped, llvm::DISubprogram::SPFlagDefinition);
  LF->setSubprogram(SP);
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

} // namespace pcj::lower
