// NvvmIrWriterImpl: the NVVM IR writer's class, shared by its two files
// (NvvmIrWriter.cpp: types, constants, globals, functions;
// NvvmIrInstructions.cpp: instructions and intrinsic calls).  Private to
// compiler/codegen; the stage's interface is NvvmIrWriter.h.
#pragma once

#include "codegen/NvvmIrWriter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class AtomicRMWInst;
class BasicBlock;
class CallInst;
class Constant;
class ConstantExpr;
class Function;
class FunctionType;
class GetElementPtrInst;
class GlobalVariable;
class Instruction;
class Type;
class Value;
} // namespace llvm

namespace pcj::codegen::nvvmir {

using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

// " addrspace(N)" (nothing for 0).
std::string addrSpace(unsigned AS);
// A global name as LLVM 7 reads it (quoted with \XX escapes if needed).
std::string globalName(llvm::StringRef Name);
// A string in LLVM's c"..." / asm "..." form.
std::string quoted(llvm::StringRef Text);

// The first metadata number of the loop IDs (!llvm.loop; the kernel
// annotations count from 0): kLoopIdBase = !{!"llvm.loop.unroll.disable"},
// then one distinct loop ID per back edge.
inline constexpr unsigned kLoopIdBase = 1u << 20;

class Writer {
public:
  Writer(const llvm::Module &M, const NvvmIrOptions &O) : M(M), O(O) {}
  std::string run();

private:
  const llvm::Module &M;
  const NvvmIrOptions &O;
  // The current instruction, for error locations.
  const llvm::Instruction *Cur = nullptr;
  std::map<const llvm::Value *, std::string> Names;
  std::map<const llvm::BasicBlock *, std::string> Blocks;
  unsigned Temps = 0;
  std::string Body;                 // the current function's lines
  std::set<std::string> Declares;   // intrinsic declarations used
  std::vector<std::string> Kernels; // typed function references
  // Functions that read the active mask, themselves or through a call
  // (libNVVM inlines): their loops are written not to be unrolled.
  std::set<const llvm::Function *> ReadsMask;
  // The current function's back edges (branches) that carry
  // !llvm.loop with llvm.loop.unroll.disable, and how many were written.
  std::set<const llvm::Instruction *> NoUnroll;
  unsigned LoopIds = 0;

  [[noreturn]] void unsupported(const std::string &What);
  std::string ty(llvm::Type *T);
  std::string fnTy(llvm::FunctionType *FT);
  // F's type with its byval parameters as typed pointers.
  std::string fnTy(const llvm::Function &F);
  std::string constant(const llvm::Constant *C);
  std::string constantExpr(const llvm::ConstantExpr *CE);
  std::string op(const llvm::Value *V);
  std::string top(const llvm::Value *V);
  bool isKernel(const llvm::Function &F) const;
  // G's address as a generic i8* constant (for @llvm.used).
  std::string generic(const llvm::GlobalVariable &G);
  std::string temp() { return "%t" + std::to_string(Temps++); }
  void line(const std::string &S) { Body += "  " + S + "\n"; }
  std::string typedPtr(const llvm::Value *P, llvm::Type *Elt);
  std::string untype(const std::string &V, llvm::Type *Elt, unsigned AS,
                     const std::string &Result);
  std::string fmf(const llvm::Instruction &I);
  void declare(const std::string &Ret, const std::string &Name,
               const std::vector<std::string> &Args);
  void function(const llvm::Function &F);
  void instruction(const llvm::Instruction &I, const std::string &Res);
  void gep(const llvm::GetElementPtrInst &G, const std::string &Res);
  void atomicRmw(const llvm::AtomicRMWInst &A, const std::string &Res);
  void call(const llvm::CallInst &C, const std::string &Res);
  bool intrinsicCall(const llvm::CallInst &C, const std::string &Res);
  // Res = Asm on X (i8/i16, or a vector of them) sign-extended to i32 and
  // truncated back (NvvmIrInstructions.cpp: why).
  void narrowIn32(const llvm::Value *X, const std::string &Res,
                  const char *Asm);
  void asmCall(const llvm::CallInst &C, const std::string &Res,
               const std::string &Asm, const std::string &Constraints,
               bool Convergent = false);
  void global(const llvm::GlobalVariable &G);
};

} // namespace pcj::codegen::nvvmir
