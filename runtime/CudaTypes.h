// CudaTypes: the few CUDA driver API types and constants the runtime uses.
//
// We never include the toolkit's cuda.h: the runtime must build where no CUDA
// toolkit is installed, and it loads libcuda.so.1 with dlopen at run time.
// Every value below is copied from CUDA 13.0's cuda.h;
// tests/unit/runtime_cudatypes_test.cpp checks them against that header
// whenever it is available.
//
// CUresult codes are one X-macro table (PCJ_CU_RESULTS) so that the enum, the
// name lookup used when the driver cannot name an error itself, and the
// "sticky error" classification all come from the same rows.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pcj::rt {

// ---- handles (opaque pointers, as in cuda.h) --------------------------------
struct CUctx_st;
struct CUmod_st;
struct CUlib_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUarray_st;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
// A context-independent library (CUDA 12.0+): cuLibraryLoadData. We pass
// no library options (the enum's values are not needed).
using CUlibrary = CUlib_st *;
enum CUlibraryOption : int {};
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUarray = CUarray_st *;
// A host function queued on a stream (cuLaunchHostFunc).
using CUhostFn = void (*)(void *);

// ---- CUresult ---------------------------------------------------------------
// X(name, value, sticky). "Sticky" errors leave the context unusable: every
// later call in it returns the same error (cuda.h: "This leaves the process
// in an inconsistent state ..."), so the Python layer raises a distinct
// exception for them. Destroying the primary context (resetDevice(),
// cuda.close()) does not clear them: measured on an H200 with driver R580,
// cuDevicePrimaryCtxRetain keeps returning the error after the reset, as
// NVIDIA documents ("the process must be terminated and relaunched").
#define PCJ_CU_RESULTS(X)                                                      \
  X(CUDA_SUCCESS, 0, false)                                                    \
  X(CUDA_ERROR_INVALID_VALUE, 1, false)                                        \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2, false)                                        \
  X(CUDA_ERROR_NOT_INITIALIZED, 3, false)                                      \
  X(CUDA_ERROR_DEINITIALIZED, 4, false)                                        \
  X(CUDA_ERROR_PROFILER_DISABLED, 5, false)                                    \
  X(CUDA_ERROR_STUB_LIBRARY, 34, false)                                        \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36, false)                          \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46, false)                                  \
  X(CUDA_ERROR_NO_DEVICE, 100, false)                                          \
  X(CUDA_ERROR_INVALID_DEVICE, 101, false)                                     \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102, false)                                \
  X(CUDA_ERROR_INVALID_IMAGE, 200, false)                                      \
  X(CUDA_ERROR_INVALID_CONTEXT, 201, false)                                    \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202, false)                            \
  X(CUDA_ERROR_MAP_FAILED, 205, false)                                         \
  X(CUDA_ERROR_UNMAP_FAILED, 206, false)                                       \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209, false)                                  \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214, true)                                   \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215, false)                                  \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216, false)                             \
  X(CUDA_ERROR_INVALID_PTX, 218, false)                                        \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220, true)                                \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221, false)                             \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222, false)                            \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223, false)                           \
  X(CUDA_ERROR_CONTAINED, 226, true)                                           \
  X(CUDA_ERROR_INVALID_SOURCE, 300, false)                                     \
  X(CUDA_ERROR_FILE_NOT_FOUND, 301, false)                                     \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302, false)                     \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303, false)                          \
  X(CUDA_ERROR_OPERATING_SYSTEM, 304, false)                                   \
  X(CUDA_ERROR_INVALID_HANDLE, 400, false)                                     \
  X(CUDA_ERROR_ILLEGAL_STATE, 401, false)                                      \
  X(CUDA_ERROR_NOT_FOUND, 500, false)                                          \
  X(CUDA_ERROR_NOT_READY, 600, false)                                          \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700, true)                                     \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701, false)                            \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702, true)                                      \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704, false)                        \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705, false)                            \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708, false)                             \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709, false)                               \
  X(CUDA_ERROR_ASSERT, 710, true)                                              \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714, true)                                \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715, true)                                 \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716, true)                                  \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717, true)                               \
  X(CUDA_ERROR_INVALID_PC, 718, true)                                          \
  X(CUDA_ERROR_LAUNCH_FAILED, 719, true)                                       \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720, false)                       \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721, true)                                  \
  X(CUDA_ERROR_NOT_PERMITTED, 800, false)                                      \
  X(CUDA_ERROR_NOT_SUPPORTED, 801, false)                                      \
  X(CUDA_ERROR_SYSTEM_NOT_READY, 802, false)                                   \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803, false)                             \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804, false)                     \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810, true)                               \
  X(CUDA_ERROR_TIMEOUT, 909, false)                                            \
  X(CUDA_ERROR_EXTERNAL_DEVICE, 911, true)                                     \
  X(CUDA_ERROR_UNKNOWN, 999, false)

enum CUresult : int {
#define PCJ_X(Name, Value, Sticky) Name = Value,
  PCJ_CU_RESULTS(PCJ_X)
#undef PCJ_X
};

// ---- device attributes (cuDeviceGetAttribute) -------------------------------
// X(NAME, value): the attributes that cuda.Device exposes by name (dev.NAME),
// as CU_DEVICE_ATTRIBUTE_<NAME>. Texture and surface limits are left out.
#define PCJ_CU_DEVICE_ATTRIBUTES(X)                                            \
  X(MAX_THREADS_PER_BLOCK, 1)                                                  \
  X(MAX_BLOCK_DIM_X, 2)                                                        \
  X(MAX_BLOCK_DIM_Y, 3)                                                        \
  X(MAX_BLOCK_DIM_Z, 4)                                                        \
  X(MAX_GRID_DIM_X, 5)                                                         \
  X(MAX_GRID_DIM_Y, 6)                                                         \
  X(MAX_GRID_DIM_Z, 7)                                                         \
  X(MAX_SHARED_MEMORY_PER_BLOCK, 8)                                            \
  X(TOTAL_CONSTANT_MEMORY, 9)                                                  \
  X(WARP_SIZE, 10)                                                             \
  X(MAX_PITCH, 11)                                                             \
  X(MAX_REGISTERS_PER_BLOCK, 12)                                               \
  X(CLOCK_RATE, 13)                                                            \
  X(GPU_OVERLAP, 15)                                                           \
  X(MULTIPROCESSOR_COUNT, 16)                                                  \
  X(KERNEL_EXEC_TIMEOUT, 17)                                                   \
  X(INTEGRATED, 18)                                                            \
  X(CAN_MAP_HOST_MEMORY, 19)                                                   \
  X(COMPUTE_MODE, 20)                                                          \
  X(CONCURRENT_KERNELS, 31)                                                    \
  X(ECC_ENABLED, 32)                                                           \
  X(PCI_BUS_ID, 33)                                                            \
  X(PCI_DEVICE_ID, 34)                                                         \
  X(TCC_DRIVER, 35)                                                            \
  X(MEMORY_CLOCK_RATE, 36)                                                     \
  X(GLOBAL_MEMORY_BUS_WIDTH, 37)                                               \
  X(L2_CACHE_SIZE, 38)                                                         \
  X(MAX_THREADS_PER_MULTIPROCESSOR, 39)                                        \
  X(ASYNC_ENGINE_COUNT, 40)                                                    \
  X(UNIFIED_ADDRESSING, 41)                                                    \
  X(PCI_DOMAIN_ID, 50)                                                         \
  X(COMPUTE_CAPABILITY_MAJOR, 75)                                              \
  X(COMPUTE_CAPABILITY_MINOR, 76)                                              \
  X(STREAM_PRIORITIES_SUPPORTED, 78)                                           \
  X(GLOBAL_L1_CACHE_SUPPORTED, 79)                                             \
  X(LOCAL_L1_CACHE_SUPPORTED, 80)                                              \
  X(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)                                  \
  X(MAX_REGISTERS_PER_MULTIPROCESSOR, 82)                                      \
  X(MANAGED_MEMORY, 83)                                                        \
  X(MULTI_GPU_BOARD, 84)                                                       \
  X(MULTI_GPU_BOARD_GROUP_ID, 85)                                              \
  X(HOST_NATIVE_ATOMIC_SUPPORTED, 86)                                          \
  X(SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 87)                                 \
  X(PAGEABLE_MEMORY_ACCESS, 88)                                                \
  X(CONCURRENT_MANAGED_ACCESS, 89)                                             \
  X(COMPUTE_PREEMPTION_SUPPORTED, 90)                                          \
  X(CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 91)                               \
  X(COOPERATIVE_LAUNCH, 95)                                                    \
  X(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)                                     \
  X(HOST_REGISTER_SUPPORTED, 99)                                               \
  X(DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, 101)                                  \
  X(MAX_BLOCKS_PER_MULTIPROCESSOR, 106)                                        \
  X(MAX_PERSISTING_L2_CACHE_SIZE, 108)                                         \
  X(MAX_ACCESS_POLICY_WINDOW_SIZE, 109)                                        \
  X(RESERVED_SHARED_MEMORY_PER_BLOCK, 111)                                     \
  X(MEMORY_POOLS_SUPPORTED, 115)                                               \
  X(CLUSTER_LAUNCH, 120)                                                       \
  X(MPS_ENABLED, 133)

enum CUdevice_attribute : int {
#define PCJ_X(Name, Value) CU_DEVICE_ATTRIBUTE_##Name = Value,
  PCJ_CU_DEVICE_ATTRIBUTES(PCJ_X)
#undef PCJ_X
};

// ---- context limits (cuCtxGetLimit / cuCtxSetLimit) -------------------------
enum CUlimit : int {
  CU_LIMIT_MALLOC_HEAP_SIZE = 2,
};

// ---- function attributes (cuFuncGetAttribute / cuFuncSetAttribute) ----------
enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
};

// ---- JIT options (cuModuleLoadDataEx) ---------------------------------------
enum CUjit_option : int {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_THREADS_PER_BLOCK = 1,
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_TARGET_FROM_CUCONTEXT = 8,
  CU_JIT_TARGET = 9,
  CU_JIT_FALLBACK_STRATEGY = 10,
  CU_JIT_GENERATE_DEBUG_INFO = 11,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
};

// ---- flags ------------------------------------------------------------------
enum : unsigned {
  CU_STREAM_DEFAULT = 0x0,
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_EVENT_DISABLE_TIMING = 0x2,
};

// ---- memory copies (cuMemcpy2D) ---------------------------------------------
enum CUmemorytype : int {
  CU_MEMORYTYPE_HOST = 0x01,
  CU_MEMORYTYPE_DEVICE = 0x02,
  CU_MEMORYTYPE_ARRAY = 0x03,
  CU_MEMORYTYPE_UNIFIED = 0x04,
};

/// cuda.h's CUDA_MEMCPY2D (the _v2 layout), field for field.
struct CUDA_MEMCPY2D {
  size_t srcXInBytes;
  size_t srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
};

/// cuda.h's CUipcMemHandle: an opaque name for an allocation that another
/// process of the node can open (CU_IPC_HANDLE_SIZE bytes).
struct CUipcMemHandle {
  char reserved[64];
};
// CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (cuIpcOpenMemHandle's only flag):
inline constexpr unsigned kIpcMemLazyEnablePeerAccess = 0x1;

// ---- pointer attributes (cuPointerGetAttribute) -----------------------------
enum CUpointer_attribute : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, // a CUmemorytype
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,  // an int (bool)
};

// ---- managed memory (cuMemAllocManaged) -------------------------------------
enum CUmemAttach_flags : unsigned {
  CU_MEM_ATTACH_GLOBAL = 0x1,
  CU_MEM_ATTACH_HOST = 0x2,
};

// cuda.h defines these as macros, so they get names of our own (otherwise a
// file that included cuda.h first could not include this header).
// CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP, _WRITECOMBINED:
inline constexpr unsigned kMemHostAllocPortable = 0x01;
inline constexpr unsigned kMemHostAllocDeviceMap = 0x02;
inline constexpr unsigned kMemHostAllocWriteCombined = 0x04;
// CU_MEMHOSTREGISTER_PORTABLE, _DEVICEMAP:
inline constexpr unsigned kMemHostRegisterPortable = 0x01;
inline constexpr unsigned kMemHostRegisterDeviceMap = 0x02;
// The special stream handles CU_STREAM_LEGACY and CU_STREAM_PER_THREAD
// (the null stream, 0, is the legacy default stream too).
inline CUstream const kStreamLegacy = reinterpret_cast<CUstream>(0x1);
inline CUstream const kStreamPerThread = reinterpret_cast<CUstream>(0x2);
// cuLaunchKernel's `extra` markers CU_LAUNCH_PARAM_END, _BUFFER_POINTER,
// _BUFFER_SIZE:
inline void *const kLaunchParamEnd = reinterpret_cast<void *>(0x00);
inline void *const kLaunchParamBufferPointer = reinterpret_cast<void *>(0x01);
inline void *const kLaunchParamBufferSize = reinterpret_cast<void *>(0x02);

// The driver API version our entry-point table targets (cuda.h CUDA_VERSION).
inline constexpr int kCudaApiVersion = 13000;

} // namespace pcj::rt
