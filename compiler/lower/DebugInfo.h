// Debug information for the user's Python source.
//
// lineinfo=True: line tables only.  One DICompileUnit emitting only line
// directives (NVPTX: `.file` / `.loc`, like nvcc -lineinfo; no DWARF
// sections), a DISubprogram per kernel and device function, and a
// DILocation on every LLVM instruction lowered from an IR instruction,
// taken from its SourceLoc.  Nsight Compute and compute-sanitizer then show
// the Python lines.
//
//   %7 = binop * %3, %5    ; L12 col 8    ==>   %9 = fmul float %4, %6, !dbg
//   !20
//                                               !20 = !DILocation(line: 12,
//                                               column: 9, ...)
//   PTX:  .file 1 "/home/u/saxpy.py"  ...  .loc 1 12 9
//
// debug=True (GPU): full DWARF, as numba-cuda emits it for cuda-gdb.  The
// compile unit is FullDebug (language C++, which cuda-gdb evaluates), each
// subprogram has its signature's types, every Python parameter is a
// DILocalVariable (arg: N) on a stack slot (llvm.dbg.declare), and every
// named local a DILocalVariable whose value each assignment gives
// (llvm.dbg.value, from ir::Function::bindings and the phis that merge a
// local).  DI types: numba's scalar names ("int32", DW_ATE_boolean
// "bool", ...), arrays as the struct of their lowered form (data pointer,
// shape, strides), tuples and vectors as structs, records as pointers to a
// struct of their fields, a local given values of several types as a union
// of them.  PTX then carries `.section .debug_info` / `.debug_abbrev` /
// `.debug_loc` and `.target ..., debug`.
//
//   x = a + 1      ==>   %5 = add i32 %a, 1, !dbg !30
//                          #dbg_value(i32 %5, !31, !DIExpression(), !30)
//                        !31 = !DILocalVariable(name: "x", scope: !12, ...,
//                        type: !14) !14 = !DIBasicType(name: "int32", size: 32,
//                        encoding: DW_ATE_signed)
#pragma once

#include "ir/IR.h"

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/Instructions.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace pcj::lower {

class LowerContext;

class DebugInfo {
public:
  // `MainFile` names the compile unit (the kernel's source file); `Full`:
  // variables and types (debug=True), else line tables only.
  DebugInfo(llvm::Module &M, const std::string &MainFile, bool Full);
  // The subprogram of the function Cx lowers (attached to Cx.kernel).
  llvm::DISubprogram *subprogram(LowerContext &Cx);
  // The location of L in SP (SP's own line where L is unknown).  Columns are
  // 1-based in DWARF; CPython's are 0-based.
  llvm::DILocation *location(const SourceLoc &L, llvm::DISubprogram *SP);
  // Completes the metadata; call once, after lowering.
  void finalize();

  // ---- variables (Full only; no-ops otherwise) ----
  // Once the parameters' values are set, at the end of the entry block:
  // a stack slot and llvm.dbg.declare per Python parameter.
  void beginFunction(LowerContext &Cx, llvm::DISubprogram *SP);
  // Around lowering each IR instruction: the locals assigned at a block's
  // start (phis) before its first other instruction, and those assigned
  // after I once I is lowered.
  void beforeInstr(LowerContext &Cx, const ir::Instr *I);
  void afterInstr(LowerContext &Cx, const ir::Instr *I);

private:
  llvm::Module &M;
  llvm::DIBuilder DIB;
  bool Full;
  llvm::DICompileUnit *CU = nullptr;
  std::map<std::string, llvm::DIFile *> Files;
  std::map<types::TypeRef, llvm::DIType *> Types;
  llvm::DIFile *file(const std::string &Path);
  llvm::DIType *type(LowerContext &Cx, types::TypeRef T);
  llvm::DIType *structType(LowerContext &Cx, types::TypeRef T,
                           const std::vector<std::string> &Names,
                           const std::vector<types::TypeRef> &Elems);

  // The function being lowered (beginFunction).
  struct FunctionState {
    llvm::DISubprogram *sp = nullptr;
    llvm::DIFile *file = nullptr;
    std::set<const ir::Instr *> live;
    std::map<std::string, std::set<types::TypeRef>> localTypes;
    std::map<std::string, llvm::DILocalVariable *> vars;
    std::map<std::string, llvm::AllocaInst *> paramSlots;
    std::map<const ir::Instr *, std::vector<const ir::LocalBinding *>> after;
    std::map<const ir::Block *, std::vector<const ir::LocalBinding *>> atStart;
    const ir::Block *started = nullptr;
  } Fn;
  llvm::DILocalVariable *localVariable(LowerContext &Cx,
                                       const std::string &Name, int Line);
  // Name takes value V (of IR value Def) at the builder's position.
  void assign(LowerContext &Cx, const std::string &Name, const ir::Instr *Def,
              const SourceLoc &Loc);
};

} // namespace pcj::lower
