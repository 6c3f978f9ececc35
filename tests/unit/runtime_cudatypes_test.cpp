// Checks runtime/CudaTypes.h and runtime/cuda_api.def against the CUDA
// toolkit's cuda.h, when the toolkit is installed (the runtime itself never
// includes cuda.h): enum values, handle sizes, and for every entry point both
// the exported symbol (what cuda.h's versioning macros select, e.g.
// cuMemAlloc -> cuMemAlloc_v2) and the parameter types.
#include "runtime/CudaTypes.h"

#include <gtest/gtest.h>

// The toolkit's include directory comes from tests/unit/CMakeLists.txt
// (PCJ_CUDA_INCLUDE_DIR), for this file only.
#if __has_include(<cuda.h>) && __has_include(<cudaProfiler.h>)
#include <cuda.h>
#include <cudaProfiler.h> // cuProfilerStart/Stop
#define PCJ_HAVE_CUDA_H 1
#endif

#ifdef PCJ_HAVE_CUDA_H

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace {

// Every CUresult row has cuda.h's value.
#define PCJ_X(Name, Value, Sticky)                                             \
  static_assert(int(pcj::rt::Name) == int(::Name), #Name);
PCJ_CU_RESULTS(PCJ_X)
#undef PCJ_X

// Every named device attribute has cuda.h's value.
#define PCJ_X(Name, Value)                                                     \
  static_assert(int(pcj::rt::CU_DEVICE_ATTRIBUTE_##Name) ==                    \
                    int(::CU_DEVICE_ATTRIBUTE_##Name),                         \
                "CU_DEVICE_ATTRIBUTE_" #Name);
PCJ_CU_DEVICE_ATTRIBUTES(PCJ_X)
#undef PCJ_X

#define PCJ_SAME(Name) static_assert(int(pcj::rt::Name) == int(::Name), #Name);
PCJ_SAME(CU_MEMORYTYPE_HOST)
PCJ_SAME(CU_MEMORYTYPE_DEVICE)
PCJ_SAME(CU_MEMORYTYPE_ARRAY)
PCJ_SAME(CU_MEMORYTYPE_UNIFIED)
PCJ_SAME(CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
PCJ_SAME(CU_POINTER_ATTRIBUTE_IS_MANAGED)
PCJ_SAME(CU_MEM_ATTACH_GLOBAL)
PCJ_SAME(CU_MEM_ATTACH_HOST)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_WARP_SIZE)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
PCJ_SAME(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
PCJ_SAME(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
PCJ_SAME(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
PCJ_SAME(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
PCJ_SAME(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
PCJ_SAME(CU_FUNC_ATTRIBUTE_NUM_REGS)
PCJ_SAME(CU_FUNC_ATTRIBUTE_PTX_VERSION)
PCJ_SAME(CU_FUNC_ATTRIBUTE_BINARY_VERSION)
PCJ_SAME(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
PCJ_SAME(CU_JIT_MAX_REGISTERS)
PCJ_SAME(CU_JIT_THREADS_PER_BLOCK)
PCJ_SAME(CU_JIT_WALL_TIME)
PCJ_SAME(CU_JIT_INFO_LOG_BUFFER)
PCJ_SAME(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
PCJ_SAME(CU_JIT_ERROR_LOG_BUFFER)
PCJ_SAME(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
PCJ_SAME(CU_JIT_OPTIMIZATION_LEVEL)
PCJ_SAME(CU_JIT_TARGET_FROM_CUCONTEXT)
PCJ_SAME(CU_JIT_TARGET)
PCJ_SAME(CU_JIT_FALLBACK_STRATEGY)
PCJ_SAME(CU_JIT_GENERATE_DEBUG_INFO)
PCJ_SAME(CU_JIT_LOG_VERBOSE)
PCJ_SAME(CU_JIT_GENERATE_LINE_INFO)
PCJ_SAME(CU_STREAM_DEFAULT)
PCJ_SAME(CU_STREAM_NON_BLOCKING)
PCJ_SAME(CU_EVENT_DEFAULT)
PCJ_SAME(CU_EVENT_BLOCKING_SYNC)
PCJ_SAME(CU_EVENT_DISABLE_TIMING)
#undef PCJ_SAME
static_assert(sizeof(pcj::rt::CUipcMemHandle) == sizeof(::CUipcMemHandle));
static_assert(sizeof(pcj::rt::CUipcMemHandle) == CU_IPC_HANDLE_SIZE);
static_assert(pcj::rt::kIpcMemLazyEnablePeerAccess ==
              CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
static_assert(pcj::rt::kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(pcj::rt::kMemHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
static_assert(pcj::rt::kMemHostAllocWriteCombined ==
              CU_MEMHOSTALLOC_WRITECOMBINED);
static_assert(pcj::rt::kMemHostRegisterPortable == CU_MEMHOSTREGISTER_PORTABLE);
static_assert(pcj::rt::kMemHostRegisterDeviceMap ==
              CU_MEMHOSTREGISTER_DEVICEMAP);

// CUDA_MEMCPY2D field for field.
#define PCJ_FIELD(F)                                                           \
  static_assert(offsetof(pcj::rt::CUDA_MEMCPY2D, F) ==                         \
                    offsetof(::CUDA_MEMCPY2D, F),                              \
                "CUDA_MEMCPY2D::" #F);
PCJ_FIELD(srcXInBytes)
PCJ_FIELD(srcY)
PCJ_FIELD(srcMemoryType)
PCJ_FIELD(srcHost)
PCJ_FIELD(srcDevice)
PCJ_FIELD(srcArray)
PCJ_FIELD(srcPitch)
PCJ_FIELD(dstXInBytes)
PCJ_FIELD(dstY)
PCJ_FIELD(dstMemoryType)
PCJ_FIELD(dstHost)
PCJ_FIELD(dstDevice)
PCJ_FIELD(dstArray)
PCJ_FIELD(dstPitch)
PCJ_FIELD(WidthInBytes)
PCJ_FIELD(Height)
#undef PCJ_FIELD
static_assert(sizeof(pcj::rt::CUDA_MEMCPY2D) == sizeof(::CUDA_MEMCPY2D));

static_assert(sizeof(pcj::rt::CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(pcj::rt::CUdevice) == sizeof(::CUdevice));
static_assert(sizeof(pcj::rt::CUresult) == sizeof(::CUresult));
static_assert(sizeof(pcj::rt::CUjit_option) == sizeof(::CUjit_option));
static_assert(pcj::rt::kCudaApiVersion <= CUDA_VERSION);
static_assert(pcj::rt::CU_LIMIT_MALLOC_HEAP_SIZE ==
              ::CU_LIMIT_MALLOC_HEAP_SIZE);

// Entry-point parameter types: the .def's parameter list, read with cuda.h's
// types (this namespace sees only the global ones), must be the type of the
// function cuda.h declares under that API name (macro-expanded to the
// versioned symbol, unevaluated, so nothing is linked).
namespace cudah {
#define PCJ_CU_FN(Name, Symbol, Params)                                        \
  static_assert(std::is_same_v<decltype(::Name), ::CUresult Params>, #Name);
#include "runtime/cuda_api.def"
} // namespace cudah

#define PCJ_STR2(X) #X
#define PCJ_STR(X) PCJ_STR2(X) // expands X first: cuMemAlloc -> cuMemAlloc_v2

struct SymbolRow {
  const char *Api;
  std::string_view Ours;
  std::string_view CudaH;
};
constexpr SymbolRow kSymbols[] = {
#define PCJ_CU_FN(Name, Symbol, Params) {#Name, Symbol, PCJ_STR(Name)},
#include "runtime/cuda_api.def"
};

} // namespace

TEST(RuntimeCudaTypes, ExportedSymbolsMatchCudaH) {
  int Versioned = 0;
  for (const SymbolRow &R : kSymbols) {
    EXPECT_EQ(R.Ours, R.CudaH) << R.Api;
    Versioned += R.Ours != R.Api;
  }
  // cuMemAlloc_v2, cuMemFree_v2, ... : the count pins the table's shape.
  EXPECT_EQ(Versioned, 23);
  EXPECT_EQ(std::size(kSymbols), 70u);
}

TEST(RuntimeCudaTypes, SpecialStreamHandles) {
  EXPECT_EQ(pcj::rt::kStreamLegacy,
            reinterpret_cast<pcj::rt::CUstream>(CU_STREAM_LEGACY));
  EXPECT_EQ(pcj::rt::kStreamPerThread,
            reinterpret_cast<pcj::rt::CUstream>(CU_STREAM_PER_THREAD));
}

TEST(RuntimeCudaTypes, LaunchParamMarkers) {
  EXPECT_EQ(pcj::rt::kLaunchParamEnd, CU_LAUNCH_PARAM_END);
  EXPECT_EQ(pcj::rt::kLaunchParamBufferPointer, CU_LAUNCH_PARAM_BUFFER_POINTER);
  EXPECT_EQ(pcj::rt::kLaunchParamBufferSize, CU_LAUNCH_PARAM_BUFFER_SIZE);
}

#else

TEST(RuntimeCudaTypes, ExportedSymbolsMatchCudaH) {
  GTEST_SKIP() << "no /usr/local/cuda/include/cuda.h to compare with";
}

#endif
