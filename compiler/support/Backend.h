// Which machine runs kernels: a CUDA GPU (code for NVPTX, loaded through the
// CUDA driver) or the CPU executor (code for the host, run by runtime/cpu).
// One enum for the one choice: the extension's process-wide choice
// (py::backend(), PYCUDA_JIT_BACKEND), the compile options
// (driver::CompileOptions::backend, part of the cache key) and lowering's
// target hooks (lower::LowerOptions::target).
#pragma once

#include <cstdint>

namespace pcj {

enum class Backend : uint8_t { CUDA, CPU };

} // namespace pcj
