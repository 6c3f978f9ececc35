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

  // A kernel parameter as the entry function takes it: a value of `type`,
  // or, when `aggregate` (a large tuple argument, types/KernelABI.h), the
  // bytes of a `type` passed by reference.  A struct type alone says
  // nothing: a complex scalar is a struct passed by value.
  struct KernelParam {
    llvm::Type *type = nullptr;
    bool aggregate = false;
  };
  // Creates the kernel entry function in M and returns, positioned at its
  // entry block, one value per ABI parameter: the value, or for an
  // aggregate the address of the parameter's bytes (read-only).
  virtual llvm::Function *
  createKernel(llvm::Module &M, const std::string &Name,
               const std::vector<KernelParam> &Params, llvm::IRBuilder<> &B,
               std::vector<llvm::Value *> &ParamValues) = 0;
  // The most bytes the kernel's parameters may take.
  virtual size_t maxKernelParamBytes() const = 0;
  // Called once the kernel body is complete (annotations, attributes).
  virtual void finishKernel(llvm::Module &M, llvm::Function *Kernel) = 0;
  // Declares a device function (internal linkage); targets may append hidden
  // parameters (the host's thread context).  `Ret` may be void.
  virtual llvm::Function *
  declareDeviceFunction(llvm::Module &M, const std::string &Name,
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
  // The integer IntBits (a float's bits, stored below the float's
  // alignment: a packed record's field) as a value the backend cannot trace
  // back to a floating-point definition.  NVPTX: an explicit mov (ptxas
  // mis-stores the low byte of `st.b8 [a], %r` when %r is the direct result
  // of a float cvt -- LLVM 22's PTX, seen on the H200); host: IntBits.
  virtual llvm::Value *opaqueBits(llvm::IRBuilder<> &B, llvm::Value *IntBits) {
    return IntBits;
  }
  // The approximate float32 variant of a libm-style function under
  // fastmath (its `afn` relaxation), or a null callee where the target has
  // none (then mathFunction's accurate one is used).  NVPTX: libdevice's
  // __nv_fast_sinf... (sin.approx.ftz.f32, lg2.approx...); host: none.
  virtual llvm::FunctionCallee
  approxMathFunction(llvm::Module &M, const std::string &Name, unsigned Arity) {
    return {};
  }
  // Like mathFunction, for libm functions with other parameter types
  // (frexp(float, int*), ldexp(float, int), modf(float, float*)): `Name` is
  // the double-precision C name, `Single` picks the float32 variant.
  virtual llvm::FunctionCallee mathFunctionOfType(llvm::Module &M,
                                                  const std::string &Name,
                                                  bool Single,
                                                  llvm::FunctionType *FT) = 0;
  // The function of libdevice.10.bc named __nv_<Name> (cuda.libdevice),
  // with its bitcode signature FT.  NVPTX: __nv_<Name> itself (linked
  // lazily); host: the CPU runtime's pcj_nv_<Name>, same signature.
  virtual llvm::FunctionCallee libdeviceFunction(llvm::Module &M,
                                                 const std::string &Name,
                                                 llvm::FunctionType *FT) = 0;
  // The one float -> integer conversion (casts, int(), np.int32(x), stores
  // into integer arrays): truncation toward zero, saturated to the integer
  // type's range, NaN -> 0 -- what PTX's cvt.rzi does.  V is half, float or
  // double; IntTy an LLVM integer type.  (LLVM's fptosi would make an
  // out-of-range value poison.)
  virtual llvm::Value *floatToInt(llvm::IRBuilder<> &B, llvm::Value *V,
                                  llvm::Type *IntTy, bool Signed) = 0;
  // Address space number of a kernel-language memory space.
  virtual unsigned addrSpace(types::AddrSpace S) const = 0;
  // Storage for a cuda.shared.array of Count elements, aligned to Align
  // bytes (a power of two, at least 16); the returned pointer is in
  // addrSpace(Shared).
  virtual llvm::Value *sharedArray(llvm::Module &M, llvm::IRBuilder<> &B,
                                   llvm::Type *ElemTy, uint64_t Count,
                                   const std::string &Name, unsigned Align) = 0;
  // printf-style output: `Args` points at a buffer laid out like CUDA's
  // vprintf argument buffer (or is null).
  virtual void vprintf(llvm::IRBuilder<> &B, llvm::Value *Fmt,
                       llvm::Value *Args) = 0;
  // The device heap (arrays made in kernels, lower/Heap.cpp): a block of
  // Bytes (i64) bytes, 16-byte aligned, as a generic pointer, null when
  // the heap cannot hold it; and the block's release (Ptr generic, from
  // heapAlloc).  NVPTX: the device runtime's malloc/free (the context's
  // heap, CU_LIMIT_MALLOC_HEAP_SIZE); host: the CPU executor's
  // pcj_cpu_heap_alloc/free (runtime/cpu/Heap.cpp, same limit).
  virtual llvm::Value *heapAlloc(llvm::IRBuilder<> &B, llvm::Value *Bytes) = 0;
  virtual void heapFree(llvm::IRBuilder<> &B, llvm::Value *Ptr) = 0;
  // A failed array bounds check: report it and stop the thread.
  // `Index` and `Shape` hold every dimension's index (as written, i64) and
  // extent; `Axis` is the one out of bounds.
  virtual void indexError(llvm::IRBuilder<> &B,
                          const std::vector<llvm::Value *> &Index,
                          const std::vector<llvm::Value *> &Shape,
                          unsigned Axis, const std::string &Kernel,
                          const std::string &File, int Line) = 0;
  // Checked mode: raise a Python exception (other than an array bounds
  // check) with `Message` ("float division by zero") in this thread, naming
  // the kernel and File:Line, and stop the thread; the caller ends the block
  // with `unreachable`.  NVPTX prints "ZeroDivisionError: <message> in kernel
  // ..." and traps; the host records it for the launch to raise.
  enum class RaisedError : uint8_t {
    IndexError,
    ZeroDivisionError,
    ValueError,
    UnboundLocalError,
  };
  virtual void raiseError(llvm::IRBuilder<> &B, RaisedError Kind,
                          const std::string &Message, const std::string &Kernel,
                          const std::string &File, int Line) = 0;
  // At the entry of a device function that calls itself (`Function`,
  // defined at File:Line): the host ends the thread with a RecursionError
  // when its stack is nearly used up (runtime/cpu: pcj_cpu_check_stack),
  // instead of overflowing it; NVPTX adds nothing (the GPU's stack is the
  // driver's).
  virtual void recursionCheck(llvm::IRBuilder<> &B, const std::string &Function,
                              const std::string &File, int Line) = 0;
  // The kernel's `raise`/`assert` (always, not only in checked mode): like
  // raiseError with the builtin exception class `Class` ("AssertionError")
  // and the user's constant message ("" for none).  NVPTX prints
  // "<Class>: <message> in kernel ..." and traps.
  virtual void raiseException(llvm::IRBuilder<> &B, const std::string &Class,
                              const std::string &Message,
                              const std::string &Kernel,
                              const std::string &File, int Line) = 0;

  // Sanitized kernels (LowerOptions::sanitize): an array element access the
  // runtime checks (runtime/cpu/Sanitizer.h) before it happens.  `Ptr` is
  // the element, `Base` the array's data pointer.  After an atomic on
  // global memory, atomicDone.  NVPTX: nothing (compute-sanitizer's job).
  enum class Access : uint8_t { Read, Write, Atomic };
  struct AccessSite {
    Access kind = Access::Read;
    types::AddrSpace space = types::AddrSpace::Global;
    uint64_t bytes = 0;
    bool readOnly = false; // an array no access of the launch writes
    std::string function, file, array; // array: its name, or ""
    int line = 0, col = -1, endCol = -1;
  };
  virtual void memoryAccess(llvm::IRBuilder<> &B, const AccessSite &Site,
                            llvm::Value *Ptr, llvm::Value *Base) {}
  virtual void atomicDone(llvm::IRBuilder<> &B) {}
  // Before a barrier or warp operation (Site.kind unused).
  virtual void syncPoint(llvm::IRBuilder<> &B, const AccessSite &Site) {}
  // Before a call of a foreign function (lower/Foreign.cpp): the CPU
  // executor tells the host-compiled CUDA C whose thread calls it.
  virtual void foreignCall(llvm::IRBuilder<> &B) {}

  // ---- CUDA device intrinsics (stdlib/lowering/{Sync,Atomic,Warp}Rules.cpp)
  // Memory spaces.  The dynamic shared memory of the launch (every
  // cuda.shared.array(0, dtype) aliases it; 16-byte aligned, in
  // addrSpace(Shared)) and its size in bytes (i64).
  virtual llvm::Value *dynamicSharedArray(llvm::Module &M,
                                          llvm::IRBuilder<> &B) = 0;
  virtual llvm::Value *dynamicSharedBytes(llvm::IRBuilder<> &B) = 0;
  // Constant data (cuda.const.array_like), in addrSpace(Const).  `Init` is
  // an array constant; equal `Name`s share one global.
  virtual llvm::Value *constArray(llvm::Module &M, llvm::Constant *Init,
                                  const std::string &Name) = 0;
  // syncthreads_count / _and / _or: a block barrier that also reduces the
  // i1 predicate over the block.  Kind 0 count, 1 and, 2 or; returns i32.
  virtual llvm::Value *barrierReduce(llvm::IRBuilder<> &B, unsigned Kind,
                                     llvm::Value *Pred, int Line) = 0;
  // Memory fence: Scope 0 block, 1 device (threadfence), 2 system.
  virtual void fence(llvm::IRBuilder<> &B, unsigned Scope) = 0;
  // nanosleep(ns), ns an i32 (a hint; the host yields to other threads).
  virtual void nanosleep(llvm::IRBuilder<> &B, llvm::Value *Ns) = 0;
  // Grid-wide barrier of a cooperative launch (cuda.cg.this_grid().sync()).
  virtual void gridSync(llvm::IRBuilder<> &B, int Line) = 0;
  // Atomic read-modify-write of *Ptr (memory space S), relaxed, returning
  // the old value.  `ResultUsed` false allows a form without a result (PTX
  // `red`).  Ops the target has no instruction for become CAS loops.
  virtual llvm::Value *atomicRMW(llvm::IRBuilder<> &B,
                                 llvm::AtomicRMWInst::BinOp Op,
                                 llvm::Value *Ptr, llvm::Value *Val,
                                 types::AddrSpace S, bool ResultUsed) = 0;
  // Cache-hinted access to one element of global memory (cuda.ldca...,
  // cuda.stcg...): `Op` is the PTX cache operator ("ca", "cg", "cs", "lu",
  // "cv" for loads; "cg", "cs", "wb", "wt" for stores); T / Val an integer
  // or floating-point type.  NVPTX: ld.global.<Op>.b<bits> /
  // st.global.<Op>.b<bits>; host: a plain load / store.
  virtual llvm::Value *cacheHintLoad(llvm::IRBuilder<> &B, llvm::Type *T,
                                     llvm::Value *Ptr,
                                     const std::string &Op) = 0;
  virtual void cacheHintStore(llvm::IRBuilder<> &B, llvm::Value *Ptr,
                              llvm::Value *Val, const std::string &Op) = 0;
  // Families of intrinsics a target may lack (NVPTX: by GPU architecture and
  // the PTX ISA version emitted for it).  Returns why the family cannot be
  // lowered, or "" when it can; lowering rules report it at the user's line.
  enum class Feature : uint8_t { WarpSync, MatchSync, ActiveMask };
  virtual std::string missing(Feature F) const = 0;
  // Warp level (*_sync with a 32-bit lane mask; i32 operands).
  virtual void syncWarp(llvm::IRBuilder<> &B, llvm::Value *Mask) = 0;
  // Mode 0 idx, 1 up, 2 down, 3 xor; Value is i32, i64, float or double.
  virtual llvm::Value *shuffle(llvm::IRBuilder<> &B, unsigned Mode,
                               llvm::Value *Mask, llvm::Value *Value,
                               llvm::Value *Lane) = 0;
  // Mode 0 all, 1 any, 2 eq (uni), 3 ballot; Pred is i1; returns i32 (0/1
  // for all/any/eq, the ballot mask for ballot).
  virtual llvm::Value *vote(llvm::IRBuilder<> &B, unsigned Mode,
                            llvm::Value *Mask, llvm::Value *Pred) = 0;
  // match.any (returns the i32 mask) and match.all (returns {i32, i1});
  // Value is i32 or i64.
  virtual llvm::Value *matchAny(llvm::IRBuilder<> &B, llvm::Value *Mask,
                                llvm::Value *Value) = 0;
  virtual llvm::Value *matchAll(llvm::IRBuilder<> &B, llvm::Value *Mask,
                                llvm::Value *Value) = 0;
  virtual llvm::Value *activeMask(llvm::IRBuilder<> &B) = 0;
  virtual llvm::Value *laneMaskLt(llvm::IRBuilder<> &B) = 0;
  virtual llvm::Value *laneId(llvm::IRBuilder<> &B) = 0;

  // Filled in by the hooks (and lowering rules) as lowering proceeds.
  bool usesBarriers = false;
  bool usesWarpOps = false;  // shuffles, votes, match, syncwarp (CPU: fibers)
  bool usesGridSync = false; // cooperative launch required
  // Bytes of static shared memory of the module's shared arrays, each at an
  // offset aligned to its alignment (sharedArray adds to it; both targets).
  size_t staticSharedBytes = 0;
};

// The static shared memory a block may have (CUDA: 48 KiB on every GPU;
// more needs dynamic shared memory and an opt-in).  The lowering of
// cuda.shared.array refuses more, on both targets alike.
constexpr size_t kMaxStaticSharedBytes = 48 * 1024;

std::unique_ptr<TargetHooks> makeNvptxTarget(const LowerOptions &O);
std::unique_ptr<TargetHooks> makeHostTarget(const LowerOptions &O);

} // namespace pcj::lower
