// Nvrtc: CUDA C++ source -> PTX with NVIDIA's NVRTC, loaded with dlopen.
//
// Foreign functions (cuda.declare_device) may be linked from `.cu` files or
// cuda.CUSource text; they are compiled here, for the kernel's
// architecture, right before nvJitLink links them (NvJitLink.h).  NVRTC is
// optional: it is looked for on first use the way support/Toolkit.h finds
// every toolkit piece (PYCUDA_JIT_NVRTC, CUDA_HOME/CUDA_PATH, NVIDIA's pip
// wheels, the system), so pycuda_jit imports without it.
//
//   std::string Ptx = compileCudaToPtx(Src, "times2.cu", 9, 0);  // NvrtcError
#pragma once

#include "runtime/NvJitLink.h"

#include <string>

namespace pcj::rt {

/// NVRTC failed (or is not installed): the log is NVRTC's (compiler
/// messages with the file name and line).
class NvrtcError : public LinkError {
public:
  using LinkError::LinkError;
};

/// Compiles Source (named Name in messages) as relocatable device code for
/// compute_<CcMajor><CcMinor>, with the toolkit's include directory on the
/// include path.  Throws NvrtcError.
std::string compileCudaToPtx(const std::string &Source, const std::string &Name,
                             int CcMajor, int CcMinor);

/// The same, as LTO-IR (NVRTC's -dlto) for nvJitLink's link-time
/// optimization with a kernel's LTO-IR.  Throws NvrtcError.
std::string compileCudaToLtoIr(const std::string &Source,
                               const std::string &Name, int CcMajor,
                               int CcMinor);

} // namespace pcj::rt
