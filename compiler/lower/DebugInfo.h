// Line tables for the user's Python source (lineinfo=True, debug=True):
// one DICompileUnit emitting only line directives (NVPTX: `.file` / `.loc`,
// like nvcc -lineinfo; no DWARF sections), a DISubprogram per kernel and
// device function, and a DILocation on every LLVM instruction lowered from
// an IR instruction, taken from its SourceLoc.  Nsight Compute and
// compute-sanitizer then show the Python lines.
//
//   %7 = binop * %3, %5    ; L12 col 8    ==>   %9 = fmul float %4, %6, !dbg !20
//                                               !20 = !DILocation(line: 12, column: 9, ...)
//   PTX:  .file 1 "/home/u/saxpy.py"  ...  .loc 1 12 9
#pragma once

#include "ir/IR.h"

#include <llvm/IR/DIBuilder.h>

#include <map>
#include <memory>
#include <string>

namespace pcj::lower {

class DebugInfo {
public:
  // `MainFile` names the compile unit (the kernel's source file).
  DebugInfo(llvm::Module &M, const std::string &MainFile);
  // The subprogram of LLVM function LF lowered from Fn (attached to LF).
  llvm::DISubprogram *subprogram(llvm::Function *LF, const ir::Function &Fn);
  // The location of L in SP (SP's own line where L is unknown).  Columns are
  // 1-based in DWARF; CPython's are 0-based.
  llvm::DILocation *location(const SourceLoc &L, llvm::DISubprogram *SP);
  // Completes the metadata; call once, after lowering.
  void finalize();

private:
  llvm::Module &M;
  llvm::DIBuilder DIB;
  llvm::DICompileUnit *CU = nullptr;
  std::map<std::string, llvm::DIFile *> Files;
  llvm::DIFile *file(const std::string &Path);
};

} // namespace pcj::lower
