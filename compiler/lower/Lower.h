// Stage 6: typed IR -> LLVM IR, for one target.
//
// Targets differ only through TargetHooks (NvptxTarget.cpp, HostTarget.cpp):
// how the kernel entry receives its parameters, special registers, barriers,
// math functions, shared memory.  Everything else is shared.
//
//   %3 = binop * %0, %2 : float32     ==>   %3 = fmul float %0, %2
//   %7 = getitem %1, %6 : float32     ==>   %p = getelementptr inbounds float,
//                                             ptr %x.data, i64 %i
//                                           %7 = load float, ptr %p, align 4
#pragma once

#include "ir/IR.h"
#include "support/Backend.h"
#include "types/KernelABI.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace pcj::lower {

// Individual fast-math relaxations (numba's fastmath={"contract", ...}).
namespace fastmath {
constexpr unsigned Contract = 1, Afn = 2, Arcp = 4, Nsz = 8, Ninf = 16,
                   Nnan = 32, Reassoc = 64;
// "contract" -> Contract, ...; 0 for an unknown name.
unsigned flagNamed(const std::string &Name);
} // namespace fastmath

struct LowerOptions {
  // The rows of driver/CompileOptions.def lowering reads, with their
  // names, types and defaults: ccMajor / ccMinor (NVPTX), fastMath,
  // fastMathFlags (fastmath:: bits), fmad (contraction allowed: float
  // operations carry LLVM's `contract`, which codegen's FuseMultiplyAdd
  // turns into llvm.fma calls), the checked mode's boundsCheck /
  // zeroDivisionCheck / unboundLocalCheck, debugInfo (full DWARF: variables
  // and their types, DebugInfo.h).
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_LOWER_OPTION(Type, Field, Default, Doc) Type Field = Default;
#define PCJ_LOWER_NVPTX_OPTION PCJ_LOWER_OPTION
#define PCJ_ALL_STAGES_OPTION PCJ_LOWER_OPTION
#include "driver/CompileOptions.def"

  // Derived from the rows (driver/StageOptions.h):
  Backend target = Backend::CUDA; // the target hooks: NVPTX or the host
  bool lineInfo = false; // line tables for the Python source (DebugInfo.h)
  // Host target: announce every array element access to the CPU
  // executor's sanitizer (TargetHooks::memoryAccess), and every barrier and
  // warp operation (TargetHooks::syncPoint).
  bool sanitize = false;
  bool sanitizeSync = false;
  // Kernel parameters whose data pointer may be marked noalias + readonly
  // (read-only arrays the runtime checked do not overlap written ones).
  std::vector<bool> noAliasReadOnly;
  std::string kernelName; // symbol of the kernel entry
  // The root function is a device function exported under kernelName with
  // its own parameters and result (the C ABI: compile_ptx(device=True)),
  // not a kernel.  NVPTX only.
  bool deviceEntry = false;
};

struct LowerResult {
  std::string kernelName;
  std::vector<types::AbiSlot> abi;
  bool usesBarriers = false;
  bool usesWarpOps = false;
  bool usesGridSync = false;
  size_t staticSharedBytes = 0; // host target: bytes of ctx->shared used
};

// A device-function specialization called (directly or not) by the kernel.
struct DeviceFunction {
  const ir::Function *fn;
  std::string symbol;
  bool inlineAlways = false;
};

// A foreign function (cuda.declare_device) the kernel calls: device-function
// calls of `wrapper` become calls of the external `symbol` (Foreign.cpp).
struct ForeignFunction {
  std::string wrapper, symbol;
  bool cAbi = false;
  // The wrapper's parameters, and the declared ones: an array where a
  // CPointer / voidptr is declared passes its data pointer.
  std::vector<types::TypeRef> params, declared;
  types::TypeRef ret; // none for void
};

// Emits the kernel and its device functions into `M`, which the driver has
// configured for the target (triple and data layout, see codegen/Targets.h).
// Device functions become internal LLVM functions taking and returning
// values in the representation of LowerContext.h.  Throws CompileError for
// constructs typing allowed but this target cannot lower.
LowerResult lowerKernel(const ir::Function &F,
                        const std::vector<DeviceFunction> &Callees,
                        llvm::Module &M, const LowerOptions &O,
                        const std::vector<ForeignFunction> &Foreign = {});

// A deterministic, PTX-safe symbol for a kernel specialization:
// "saxpy_3f2a9c1b" from the qualname and the signature text.
std::string mangleKernelName(const std::string &Qualname,
                             const std::string &SignatureText);

} // namespace pcj::lower
