// Launch: validation of launch configurations and the cuLaunchKernel path.
// See Launch.h.
#include "runtime/Launch.h"

#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/Errors.h"

namespace pcj::rt {

namespace {

std::string str(Dim3 D) {
  return "(" + std::to_string(D.x) + ", " + std::to_string(D.y) + ", " +
         std::to_string(D.z) + ")";
}

unsigned long long threads(Dim3 D) {
  return static_cast<unsigned long long>(D.x) * D.y * D.z;
}

} // namespace

bool fitsLaunchLimits(const LaunchLimits &L, Dim3 Grid, Dim3 Block,
                      size_t SharedBytes) {
  return Grid.x >= 1 && Grid.y >= 1 && Grid.z >= 1 && Block.x >= 1 &&
         Block.y >= 1 && Block.z >= 1 && Block.x <= L.MaxBlockDim[0] &&
         Block.y <= L.MaxBlockDim[1] && Block.z <= L.MaxBlockDim[2] &&
         threads(Block) <= L.MaxThreadsPerBlock && Grid.x <= L.MaxGridDim[0] &&
         Grid.y <= L.MaxGridDim[1] && Grid.z <= L.MaxGridDim[2] &&
         SharedBytes <= L.MaxSharedBytesPerBlockOptin;
}

std::string launchConfigProblem(const LaunchLimits &L, Dim3 Grid, Dim3 Block,
                                size_t SharedBytes) {
  static constexpr char Axis[3] = {'x', 'y', 'z'};
  const unsigned G[3] = {Grid.x, Grid.y, Grid.z};
  const unsigned B[3] = {Block.x, Block.y, Block.z};
  for (int I = 0; I < 3; ++I)
    if (G[I] == 0)
      return "grid " + str(Grid) + " has a zero " + Axis[I] +
             " dimension; every grid and block dimension must be at least 1";
  for (int I = 0; I < 3; ++I)
    if (B[I] == 0)
      return "block " + str(Block) + " has a zero " + Axis[I] +
             " dimension; every grid and block dimension must be at least 1";
  if (threads(Block) > L.MaxThreadsPerBlock)
    return "block " + str(Block) + " has " + std::to_string(threads(Block)) +
           " threads; the device allows at most " +
           std::to_string(L.MaxThreadsPerBlock) + " per block";
  for (int I = 0; I < 3; ++I)
    if (B[I] > L.MaxBlockDim[I])
      return "block " + str(Block) + " is " + std::to_string(B[I]) +
             " threads along " + Axis[I] + "; the device allows at most " +
             std::to_string(L.MaxBlockDim[I]) + " along " + Axis[I];
  for (int I = 0; I < 3; ++I)
    if (G[I] > L.MaxGridDim[I])
      return "grid " + str(Grid) + " is " + std::to_string(G[I]) +
             " blocks along " + Axis[I] + "; the device allows at most " +
             std::to_string(L.MaxGridDim[I]) + " along " + Axis[I];
  if (SharedBytes > L.MaxSharedBytesPerBlockOptin)
    return "the launch asks for " + std::to_string(SharedBytes) +
           " bytes of dynamic shared memory; the device allows at most " +
           std::to_string(L.MaxSharedBytesPerBlockOptin) + " per block";
  return {};
}

void validateLaunchConfig(const LaunchLimits &L, Dim3 Grid, Dim3 Block,
                          size_t SharedBytes) {
  if (fitsLaunchLimits(L, Grid, Block, SharedBytes)) [[likely]]
    return;
  throw LaunchConfigError(launchConfigProblem(L, Grid, Block, SharedBytes));
}

namespace {

// Everything launchKernel and launchCooperativeKernel share before the call.
const CudaApi &prepareLaunch(CUfunction Fn, Dim3 Grid, Dim3 Block,
                             unsigned SharedBytes) {
  Context &Ctx = currentContext();
  const LaunchLimits &L = Ctx.limits();
  validateLaunchConfig(L, Grid, Block, SharedBytes);
  const CudaApi &Cu = Ctx.api();
  // Above 48 KiB of dynamic shared memory a kernel must opt in. Rare, and
  // idempotent, so we set it on each such launch rather than keep state.
  if (SharedBytes > L.MaxSharedBytesPerBlock) [[unlikely]]
    check(Cu.cuFuncSetAttribute(Fn,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(SharedBytes)),
          "cuFuncSetAttribute");
  return Cu;
}

} // namespace

void launchKernel(CUfunction Fn, Dim3 Grid, Dim3 Block, unsigned SharedBytes,
                  CUstream Stream, void **Params) {
  const CudaApi &Cu = prepareLaunch(Fn, Grid, Block, SharedBytes);
  check(Cu.cuLaunchKernel(Fn, Grid.x, Grid.y, Grid.z, Block.x, Block.y, Block.z,
                          SharedBytes, Stream, Params, nullptr),
        "cuLaunchKernel");
}

void launchCooperativeKernel(CUfunction Fn, Dim3 Grid, Dim3 Block,
                             unsigned SharedBytes, CUstream Stream,
                             void **Params) {
  const CudaApi &Cu = prepareLaunch(Fn, Grid, Block, SharedBytes);
  CUresult R =
      Cu.cuLaunchCooperativeKernel(Fn, Grid.x, Grid.y, Grid.z, Block.x, Block.y,
                                   Block.z, SharedBytes, Stream, Params);
  if (R == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) {
    // Say how many blocks can be co-resident, and what to do.
    int PerSM = 0;
    unsigned Threads = Block.x * Block.y * Block.z;
    std::string Detail;
    if (Cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &PerSM, Fn, int(Threads), SharedBytes) == CUDA_SUCCESS) {
      long long Max =
          (long long)PerSM * currentContext().info().MultiprocessorCount;
      Detail = "a kernel using grid sync needs every block resident at once: "
               "this GPU holds at most " +
               std::to_string(Max) + " blocks of " + std::to_string(Threads) +
               " threads, the launch asked for " +
               std::to_string((unsigned long long)Grid.x * Grid.y * Grid.z) +
               "; launch at most " + std::to_string(Max) +
               " blocks and cover the data with a grid-stride loop";
    }
    throwDriverError(R, "cuLaunchCooperativeKernel", Detail);
  }
  check(R, "cuLaunchCooperativeKernel");
}

int functionAttribute(CUfunction Fn, CUfunction_attribute Attr) {
  int Value = 0;
  check(currentContext().api().cuFuncGetAttribute(&Value, Attr, Fn),
        "cuFuncGetAttribute");
  return Value;
}

void setFunctionAttribute(CUfunction Fn, CUfunction_attribute Attr, int Value) {
  check(currentContext().api().cuFuncSetAttribute(Fn, Attr, Value),
        "cuFuncSetAttribute");
}

long long maxCooperativeBlocks(CUfunction Fn, unsigned Threads,
                               size_t SharedBytes) {
  Context &Ctx = currentContext();
  int PerSM = 0;
  check(Ctx.api().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &PerSM, Fn, int(Threads), SharedBytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return (long long)PerSM * Ctx.info().MultiprocessorCount;
}

} // namespace pcj::rt
