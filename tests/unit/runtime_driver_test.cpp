// Tests for CudaDriver / Errors / Device without a GPU: a missing driver is a
// clear DriverError, never a crash; the CUDA toolkit's stub libcuda (which
// exports every entry point and fails every call) exercises symbol
// resolution and the cuInit failure path; CUresult classification.
#include "runtime/CudaDriver.h"
#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/Memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace pcj::rt;

namespace {

std::string cudaHome() {
  const char *H = std::getenv("CUDA_HOME");
  return H && *H ? H : "/usr/local/cuda";
}

// The toolkit's link-time stub: every call returns CUDA_ERROR_STUB_LIBRARY.
std::string stubLibcuda() {
  for (std::string P :
       {cudaHome() + "/lib64/stubs/libcuda.so",
        cudaHome() + "/targets/x86_64-linux/lib/stubs/libcuda.so"})
    if (access(P.c_str(), R_OK) == 0)
      return P;
  return "";
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

} // namespace

TEST(RuntimeDriver, MissingLibraryIsReportedNotThrown) {
  CudaDriver D("/nonexistent/dir/libcuda.so.1");
  EXPECT_FALSE(D.available());
  EXPECT_FALSE(D.libraryLoaded());
  EXPECT_EQ(D.fns().cuInit, nullptr);
  EXPECT_EQ(D.version(), 0);
  const std::string &E = D.loadError();
  EXPECT_EQ(E.rfind("no CUDA driver found: /nonexistent/dir/libcuda.so.1: "
                    "cannot open shared object file",
                    0),
            0u)
      << E;
  EXPECT_TRUE(contains(E, "install the NVIDIA driver or use "
                          "PYCUDA_JIT_BACKEND=cpu"))
      << E;
}

TEST(RuntimeDriver, UnavailableDriverThrowsNoDriverError) {
  CudaDriver D("/nonexistent/libcuda.so.1");
  try {
    D.throwUnavailable();
    FAIL() << "throwUnavailable returned";
  } catch (const DriverError &E) {
    EXPECT_TRUE(E.isNoDriver());
    EXPECT_FALSE(E.isOutOfMemory());
    EXPECT_FALSE(E.isSticky());
    EXPECT_EQ(E.code(), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(E.call(), "dlopen");
    EXPECT_EQ(std::string(E.what()), D.loadError());
  }
}

TEST(RuntimeDriver, DefaultLibraryHonoursOverride) {
  const char *Old = std::getenv("PYCUDA_JIT_LIBCUDA");
  std::string Saved = Old ? Old : "";
  unsetenv("PYCUDA_JIT_LIBCUDA");
  EXPECT_EQ(CudaDriver::defaultLibraryPath(), "libcuda.so.1");
  setenv("PYCUDA_JIT_LIBCUDA", "/opt/x/libcuda.so.1", 1);
  EXPECT_EQ(CudaDriver::defaultLibraryPath(), "/opt/x/libcuda.so.1");
  if (Old)
    setenv("PYCUDA_JIT_LIBCUDA", Saved.c_str(), 1);
  else
    unsetenv("PYCUDA_JIT_LIBCUDA");
}

// The stub exports the CUDA 13 ABI's symbols: every versioned name in
// cuda_api.def must resolve in it, and cuInit's failure is reported with the
// code and our name for it (the stub cannot name errors itself).
TEST(RuntimeDriver, StubLibraryResolvesEveryEntryPoint) {
  std::string Stub = stubLibcuda();
  if (Stub.empty())
    GTEST_SKIP() << "no CUDA toolkit stub libcuda.so under " << cudaHome();
  CudaDriver D(Stub);
  EXPECT_TRUE(D.libraryLoaded()) << D.loadError();
  int Resolved = 0, Total = 0;
#define PCJ_CU_FN(Name, Symbol, Params)                                        \
  ++Total;                                                                     \
  if (D.fns().Name)                                                            \
    ++Resolved;                                                                \
  else                                                                         \
    ADD_FAILURE() << Symbol << " not resolved";
#include "runtime/cuda_api.def"
  EXPECT_EQ(Resolved, Total);
  EXPECT_EQ(Total, 70); // the entry points pycuda_jit uses today

  EXPECT_FALSE(D.available());
  EXPECT_EQ(D.initResult(), CUDA_ERROR_STUB_LIBRARY);
  EXPECT_TRUE(contains(D.loadError(), "cuInit returned CUDA_ERROR_STUB_LIBRARY "
                                      "(34)"))
      << D.loadError();
  try {
    D.throwUnavailable();
    FAIL();
  } catch (const DriverError &E) {
    EXPECT_TRUE(E.isNoDriver());
    EXPECT_EQ(E.code(), CUDA_ERROR_STUB_LIBRARY);
    EXPECT_EQ(E.call(), "cuInit");
    EXPECT_EQ(E.name(), "CUDA_ERROR_STUB_LIBRARY");
  }
  // describe() falls back to our table when the driver cannot answer.
  auto [Name, Text] = D.describe(CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(Name, "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(D.describe(static_cast<CUresult>(12345)).first, "CUDA_ERROR_12345");
}

TEST(RuntimeDriver, LibraryWithoutEntryPointsIsRejected) {
  // libdl/libm load fine but export none of the driver API.
  CudaDriver D("libm.so.6");
  EXPECT_FALSE(D.libraryLoaded());
  EXPECT_FALSE(D.available());
  EXPECT_EQ(D.fns().cuLaunchKernel, nullptr);
  EXPECT_TRUE(contains(D.loadError(), "lacks the entry points cuInit, "
                                      "cuDriverGetVersion"))
      << D.loadError();
  EXPECT_TRUE(contains(D.loadError(), "cuMemAlloc_v2")) << D.loadError();
  EXPECT_TRUE(contains(D.loadError(), "PYCUDA_JIT_BACKEND=cpu"));
}

// The process-wide driver, forced to be absent, in a fresh child process:
// nothing crashes, deviceCount() is 0, and every GPU operation raises the
// no-driver DriverError.
TEST(RuntimeDriverDeathTest, ProcessWithoutDriverRaisesCleanly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("PYCUDA_JIT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
        int Failures = 0;
        Failures += driverAvailable() ? 1 : 0;
        Failures += deviceCount() == 0 ? 0 : 1;
        Failures +=
            driverLoadError().rfind("no CUDA driver found: ", 0) == 0 ? 0 : 1;
        try {
          deviceAlloc(1024);
          Failures += 1;
        } catch (const DriverError &E) {
          Failures += E.isNoDriver() ? 0 : 1;
          Failures += contains(E.what(), "PYCUDA_JIT_BACKEND=cpu") ? 0 : 1;
        }
        try {
          currentContext();
          Failures += 1;
        } catch (const DriverError &E) {
          Failures += E.isNoDriver() ? 0 : 1;
        }
        try {
          deviceInfo(0);
          Failures += 1;
        } catch (const DriverError &E) {
          Failures += E.isNoDriver() ? 0 : 1;
        }
        // Zero-byte operations need no driver and do nothing.
        Failures += deviceAlloc(0) == 0 ? 0 : 1;
        deviceFree(0);
        std::exit(Failures);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(RuntimeErrors, StickyClassification) {
  for (CUresult C : {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED,
                     CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ASSERT,
                     CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_LAUNCH_TIMEOUT,
                     CUDA_ERROR_HARDWARE_STACK_ERROR})
    EXPECT_TRUE(isStickyError(C)) << C;
  for (CUresult C :
       {CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_VALUE,
        CUDA_ERROR_NOT_FOUND, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        CUDA_ERROR_INVALID_PTX})
    EXPECT_FALSE(isStickyError(C)) << C;
  EXPECT_FALSE(isStickyError(static_cast<CUresult>(4242)));
}

TEST(RuntimeErrors, ResultNames) {
  EXPECT_STREQ(cuResultName(CUDA_ERROR_OUT_OF_MEMORY),
               "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(cuResultName(CUDA_ERROR_LAUNCH_FAILED),
               "CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(cuResultName(static_cast<CUresult>(4242)), nullptr);
}

TEST(RuntimeErrors, DriverErrorMessageAndFlags) {
  DriverError Oom(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc",
                  "CUDA_ERROR_OUT_OF_MEMORY", "out of memory",
                  "requested 1024 bytes");
  EXPECT_STREQ(Oom.what(), "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): "
                           "out of memory\nrequested 1024 bytes");
  EXPECT_TRUE(Oom.isOutOfMemory());
  EXPECT_FALSE(Oom.isSticky());
  EXPECT_FALSE(Oom.isNoDriver());
  EXPECT_EQ(Oom.call(), "cuMemAlloc");
  EXPECT_EQ(Oom.detail(), "requested 1024 bytes");

  DriverError Bad(CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize",
                  "CUDA_ERROR_ILLEGAL_ADDRESS",
                  "an illegal memory access was encountered");
  EXPECT_TRUE(Bad.isSticky());
  EXPECT_FALSE(Bad.isOutOfMemory());
  EXPECT_STREQ(Bad.what(),
               "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700): an "
               "illegal memory access was encountered [the CUDA context is no "
               "longer usable, and the driver keeps this error for the rest of "
               "the process: save what you can and restart the process "
               "(cuda.close() cannot clear it)]");
}

TEST(RuntimeErrors, CheckThrowsOnlyOnFailure) {
  EXPECT_NO_THROW(check(CUDA_SUCCESS, "cuInit"));
  try {
    check(CUDA_ERROR_INVALID_VALUE, "cuMemsetD8");
    FAIL();
  } catch (const DriverError &E) {
    EXPECT_EQ(E.code(), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(E.call(), "cuMemsetD8");
    EXPECT_EQ(E.name(), "CUDA_ERROR_INVALID_VALUE");
    EXPECT_EQ(std::string(E.what()).rfind("cuMemsetD8 failed: "
                                          "CUDA_ERROR_INVALID_VALUE (1)",
                                          0),
              0u)
        << E.what();
  }
}
