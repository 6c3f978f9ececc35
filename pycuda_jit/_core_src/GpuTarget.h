// GpuTarget: the glue's side of the target choice (support/GpuTargets.h):
// the machine's toolchain (driver and nvJitLink versions,
// PYCUDA_JIT_NEWEST_CC) and the compile options for one device.
//
//   GpuTargetChoice C = gpuTargetFor(9, 0);   // native sm_90
//   applyGpuTarget(CO, C);                    // CO.cc = 9.0, key "sm_90 isa90"
#pragma once

#include "driver/Compile.h"
#include "support/GpuTargets.h"

#include "Glue.h"

namespace pcj::py {

// The driver's and nvJitLink's CUDA versions (0 when absent) and
// PYCUDA_JIT_NEWEST_CC.
GpuToolchain currentToolchain();

// The target for a device of compute capability Major.Minor on this machine.
GpuTargetChoice gpuTargetFor(int Major, int Minor);

// Compiles CO for C (its PTX architecture; the cache key names the device
// and the PTX ISA limit).
void applyGpuTarget(driver::CompileOptions &CO, const GpuTargetChoice &C);

// The target for an architecture the user names (compile_ptx's cc, with
// an optional 'a' / 'f' suffix).
GpuTargetChoice gpuTargetForArch(int Major, int Minor, const char *Suffix);

// _core.gpu_target(major, minor, suffix="") -> (ptx_arch, description,
// jit, max_ptx_isa): what a kernel for that GPU compiles to here.
PyObject *pyGpuTarget(PyObject *Self, PyObject *Args);

} // namespace pcj::py
