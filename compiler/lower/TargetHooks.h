// The target-specific half of lowering.  NVPTX and the host CPU implement
// this; everything else in compiler/lower and stdlib/lowering is shared.
#pragma once

#include "types/Type.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace pcj::lower {

struct LowerOptions;

// Special registers, as in PTX: %tid, %ntid, %ctaid, %nctaid.
enum class SReg : uint8_t { Tid, NTid, CtaId, NCtaId };

class TargetHooks {
public:
  virtual ~TargetHooks() = default;

  // Creates the kernel entry function in M and returns, positioned at its
  // entry block, one value per flattened ABI parameter.
  virtual llvm::Function *createKernel(llvm::Module &M, const std::string &Name,
                                       const std::vector<llvm::Type *> &Params,
                                       llvm::IRBuilder<> &B,
                                       std::vector<llvm::Value *> &ParamValues) = 0;
  // Called once the kernel body is complete (annotations, attributes).
  virtual void finishKernel(llvm::Module &M, llvm::Function *Kernel) = 0;
  // Declares a device function (internal linkage); targets may append hidden
  // parameters (the host's thread context).  `Ret` may be void.
  virtual llvm::Function *declareDeviceFunction(llvm::Module &M,
                                                const std::string &Name,
                                                const std::vector<llvm::Type *> &Params,
                                                llvm::Type *Ret) = 0;
  // Positions B at the entry of a declared device function and returns its
  // user-visible parameters; later hooks then refer to this function.
  virtual void beginDeviceFunction(llvm::Function *F, llvm::IRBuilder<> &B,
                                   std::vector<llvm::Value *> &ParamValues) = 0;
  // Hidden arguments to pass when calling a device function from the
  // function currently being lowered.
  virtual std::vector<llvm::Value *> hiddenCallArgs() = 0;

  // %tid.x etc. as i32.
  virtual llvm::Value *specialReg(llvm::IRBuilder<> &B, SReg R, int Dim) = 0;
  // cuda.syncthreads() at source line `Line`.
  virtual void barrier(llvm::IRBuilder<> &B, int Line) = 0;
  // A libm-style function of `Arity` arguments: Name is the
  // double-precision C name ("sin"); T is float32 or float64.
  // NVPTX: __nv_sinf (libdevice); host: sinf (libm).
  virtual llvm::FunctionCallee mathFunction(llvm::Module &M,
                                            const std::string &Name,
                                            types::TypeRef T,
                                            unsigned Arity) = 0;
  // Address space number of a kernel-language memory space.
  virtual unsigned addrSpace(types::AddrSpace S) const = 0;
  // Storage for a cuda.shared.array of `Bytes` bytes (16-byte aligned); the
  // returned pointer is in addrSpace(Shared).
  virtual llvm::Value *sharedArray(llvm::Module &M, llvm::IRBuilder<> &B,
                                   llvm::Type *ElemTy, uint64_t Count,
                                   const std::string &Name) = 0;
  // printf-style output: `Args` points at a buffer laid out like CUDA's
  // vprintf argument buffer (or is null).
  virtual void vprintf(llvm::IRBuilder<> &B, llvm::Value *Fmt,
                       llvm::Value *Args) = 0;
  // Checked mode: report an out-of-bounds index and stop the thread.
  virtual void indexError(llvm::IRBuilder<> &B, llvm::Value *Index,
                          unsigned Axis, llvm::Value *Extent,
                          const std::string &Kernel, const std::string &File,
                          int Line) = 0;

  // Filled in by the hooks (and lowering rules) as lowering proceeds.
  bool usesBarriers = false;
  bool usesWarpOps = false;   // shuffles, votes, match, syncwarp (CPU: fibers)
  bool usesGridSync = false;  // cooperative launch required
  size_t staticSharedBytes = 0;
};

std::unique_ptr<TargetHooks> makeNvptxTarget(const LowerOptions &O);
std::unique_ptr<TargetHooks> makeHostTarget(const LowerOptions &O);

} // namespace pcj::lower
