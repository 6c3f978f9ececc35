// Pipeline (private to codegen): the pieces both backends share -- catching
// LLVM diagnostics as CompileErrors, verifying, internalizing, running the
// new-pass-manager optimisation pipeline of a TargetMachine, and running the
// legacy codegen pipeline into a buffer.
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CodeGen.h"

#include <chrono>
#include <memory>
#include <set>
#include <string>

namespace llvm {
class DiagnosticInfo;
struct DiagnosticHandler;
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace pcj::codegen::detail {

// While alive, routes the context's diagnostics into this object instead of
// LLVM's default handler (which prints and exit(1)s on errors).  Restores the
// previous handler on destruction.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(llvm::LLVMContext &Ctx);
  ~DiagnosticCapture();
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

  bool hasErrors() const { return !Errors.empty(); }
  // The error messages so far, one per line.
  const std::string &errors() const { return Errors; }
  // Throws CompileError(Backend) "<what>: <errors>" if any error was seen.
  void throwIfErrors(const char *What);

private:
  static void handle(const llvm::DiagnosticInfo *DI, void *Self);

  llvm::LLVMContext &Ctx;
  std::unique_ptr<llvm::DiagnosticHandler> Saved;
  std::string Errors;
};

using Clock = std::chrono::steady_clock;
inline double msSince(Clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - Start)
      .count();
}

// Throws CompileError(Internal) with the verifier's report if M is broken.
void verifyOrThrow(const llvm::Module &M, const char *Stage);

// Gives every defined function and global internal linkage except those
// named in Keep (and llvm.* / llvm.used members).
void internalizeAllBut(llvm::Module &M, const std::set<std::string> &Keep);

// Adds function attributes to every function definition in M.
void addFunctionAttrToAll(llvm::Module &M, const char *Kind, const char *Value);

// Runs the default O0..O3 pipeline of the new pass manager with TM's
// analyses and TM's registered pass-builder callbacks (target passes).
void runOptimizationPipeline(llvm::Module &M, llvm::TargetMachine &TM,
                             int OptLevel, bool Vectorize);

// Removes unreferenced internal functions and globals.
void dropDeadGlobals(llvm::Module &M);

// Runs TM's legacy codegen pipeline over M, appending the output to Out.
void emitWithLegacyCodegen(llvm::Module &M, llvm::TargetMachine &TM,
                           llvm::CodeGenFileType Type,
                           llvm::SmallVectorImpl<char> &Out);

// The textual IR of M.
std::string printModule(const llvm::Module &M);

} // namespace pcj::codegen::detail
