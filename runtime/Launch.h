// Launch: kernel launch configuration, its validation, and cuLaunchKernel.
//
// A launch configuration is checked against the device's limits *before* the
// launch, so that a bad grid or block is a Python exception that names the
// problem ("block (2048, 1, 1) has 2048 threads; the device allows at most
// 1024 per block") rather than CUDA_ERROR_INVALID_VALUE. The check is a pure
// function of a LaunchLimits value, shared with the CPU executor (which uses
// kCpuLaunchLimits, the limits of current NVIDIA GPUs).
//
// The launch path does no allocation, locking or string work unless
// something is wrong: one thread-local lookup of the current context, a few
// integer compares, one driver call.
//
//   void *Params[] = {&A, &X, &Y, &Out, &N};
//   launchKernel(Fn, {Blocks}, {256}, 0, nullptr, Params);
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace pcj::rt {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// What a device allows for one launch.
struct LaunchLimits {
  unsigned MaxThreadsPerBlock = 1024;
  unsigned MaxBlockDim[3] = {1024, 1024, 64};
  unsigned MaxGridDim[3] = {2147483647u, 65535, 65535};
  /// Shared memory a block may use without opting in (48 KiB everywhere).
  size_t MaxSharedBytesPerBlock = 48 * 1024;
  /// Shared memory a block may use after cuFuncSetAttribute(
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES); >= the above.
  size_t MaxSharedBytesPerBlockOptin = 48 * 1024;
};

/// The limits the CPU executor enforces, so that a kernel configuration that
/// runs there also runs on the GPU: 1024 threads per block, block dims
/// 1024 x 1024 x 64, grid dims (2^31-1) x 65535 x 65535, 48 KiB shared.
inline constexpr LaunchLimits kCpuLaunchLimits{};

class LaunchConfigError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

/// True when Grid/Block/SharedBytes (dynamic shared memory) fit Limits.
/// No allocation; this is what the launch path calls.
bool fitsLaunchLimits(const LaunchLimits &Limits, Dim3 Grid, Dim3 Block,
                      size_t SharedBytes);

/// The first problem with the configuration, as a message for the user;
/// "" when it fits Limits.
std::string launchConfigProblem(const LaunchLimits &Limits, Dim3 Grid,
                                Dim3 Block, size_t SharedBytes);

/// Throws LaunchConfigError (with launchConfigProblem's message) unless the
/// configuration fits Limits.
void validateLaunchConfig(const LaunchLimits &Limits, Dim3 Grid, Dim3 Block,
                          size_t SharedBytes);

/// Validates against the current device and launches Fn on Stream (nullptr:
/// the legacy default stream) in the current context. Params holds one
/// pointer per kernel parameter. Dynamic shared memory above 48 KiB (up to
/// the device's opt-in maximum) is enabled on Fn first. Throws
/// LaunchConfigError or DriverError; the launch itself is asynchronous.
void launchKernel(CUfunction Fn, Dim3 Grid, Dim3 Block, unsigned SharedBytes,
                  CUstream Stream, void **Params);

/// Like launchKernel, through cuLaunchCooperativeKernel (grid-wide sync);
/// the driver rejects grids larger than can be co-resident.
void launchCooperativeKernel(CUfunction Fn, Dim3 Grid, Dim3 Block,
                             unsigned SharedBytes, CUstream Stream,
                             void **Params);

/// cuFuncGetAttribute(Attr, Fn): Attr is a CU_FUNC_ATTRIBUTE_* value
/// (registers per thread, static shared / constant / local bytes...).
int functionAttribute(CUfunction Fn, CUfunction_attribute Attr);
/// cuFuncSetAttribute(Attr, Value) on Fn.
void setFunctionAttribute(CUfunction Fn, CUfunction_attribute Attr, int Value);

/// The most blocks of Threads threads (with SharedBytes of dynamic shared
/// memory) that can be resident on the current device at once: the largest
/// grid a cooperative launch of Fn accepts.
long long maxCooperativeBlocks(CUfunction Fn, unsigned Threads,
                               size_t SharedBytes);

} // namespace pcj::rt
