// Tests for launch-configuration validation (Launch.h), which needs no GPU:
// the exact messages users see, every limit, and the fast predicate agreeing
// with the message builder.
#include "runtime/Launch.h"

#include <gtest/gtest.h>

using namespace pcj::rt;

namespace {

std::string problem(Dim3 G, Dim3 B, size_t Shared = 0,
                    const LaunchLimits &L = kCpuLaunchLimits) {
  return launchConfigProblem(L, G, B, Shared);
}

} // namespace

TEST(RuntimeLaunch, CpuLimitsAreTheGpuLimits) {
  const LaunchLimits &L = kCpuLaunchLimits;
  EXPECT_EQ(L.MaxThreadsPerBlock, 1024u);
  EXPECT_EQ(L.MaxBlockDim[0], 1024u);
  EXPECT_EQ(L.MaxBlockDim[1], 1024u);
  EXPECT_EQ(L.MaxBlockDim[2], 64u);
  EXPECT_EQ(L.MaxGridDim[0], (1u << 31) - 1);
  EXPECT_EQ(L.MaxGridDim[1], 65535u);
  EXPECT_EQ(L.MaxGridDim[2], 65535u);
  EXPECT_EQ(L.MaxSharedBytesPerBlock, 49152u);
  EXPECT_EQ(L.MaxSharedBytesPerBlockOptin, 49152u);
}

TEST(RuntimeLaunch, ValidConfigurationsPass) {
  for (auto [G, B] : {std::pair<Dim3, Dim3>{{1}, {1}},
                      {{4096}, {256}},
                      {{(1u << 31) - 1}, {1024}},
                      {{1, 65535, 65535}, {32, 32, 1}},
                      {{7, 3, 2}, {16, 4, 16}},
                      {{1}, {1, 1, 64}},
                      {{1}, {1, 1024, 1}}}) {
    EXPECT_EQ(problem(G, B), "");
    EXPECT_TRUE(fitsLaunchLimits(kCpuLaunchLimits, G, B, 0));
    EXPECT_NO_THROW(validateLaunchConfig(kCpuLaunchLimits, G, B, 0));
  }
  EXPECT_EQ(problem({1}, {32}, 49152), "");
}

TEST(RuntimeLaunch, TooManyThreadsPerBlock) {
  EXPECT_EQ(problem({1}, {2048}),
            "block (2048, 1, 1) has 2048 threads; the device allows at most "
            "1024 per block");
  // Each dimension fits, the product does not.
  EXPECT_EQ(problem({1}, {64, 32, 1}),
            "block (64, 32, 1) has 2048 threads; the device allows at most "
            "1024 per block");
  // The product is computed in 64 bits (1024*1024*64 overflows nothing).
  EXPECT_EQ(problem({1}, {1024, 1024, 64}),
            "block (1024, 1024, 64) has 67108864 threads; the device allows at "
            "most 1024 per block");
  // 2^32 threads would wrap to 0 in 32-bit arithmetic.
  EXPECT_FALSE(fitsLaunchLimits(kCpuLaunchLimits, {1}, {65536, 65536, 1}, 0));
}

TEST(RuntimeLaunch, BlockDimensionLimit) {
  LaunchLimits L; // a device that allows 4096 threads but z <= 64
  L.MaxThreadsPerBlock = 4096;
  EXPECT_EQ(problem({1}, {1, 1, 128}, 0, L),
            "block (1, 1, 128) is 128 threads along z; the device allows at "
            "most 64 along z");
  EXPECT_EQ(problem({1}, {2048, 1, 1}, 0, L),
            "block (2048, 1, 1) is 2048 threads along x; the device allows at "
            "most 1024 along x");
}

TEST(RuntimeLaunch, GridDimensionLimit) {
  EXPECT_EQ(problem({1, 70000, 1}, {32}),
            "grid (1, 70000, 1) is 70000 blocks along y; the device allows at "
            "most 65535 along y");
  EXPECT_EQ(problem({1, 1, 65536}, {32}),
            "grid (1, 1, 65536) is 65536 blocks along z; the device allows at "
            "most 65535 along z");
  EXPECT_EQ(problem({1u << 31}, {32}),
            "grid (2147483648, 1, 1) is 2147483648 blocks along x; the device "
            "allows at most 2147483647 along x");
}

TEST(RuntimeLaunch, ZeroDimensions) {
  EXPECT_EQ(problem({0}, {32}),
            "grid (0, 1, 1) has a zero x dimension; every grid and block "
            "dimension must be at least 1");
  EXPECT_EQ(problem({4}, {32, 0, 1}),
            "block (32, 0, 1) has a zero y dimension; every grid and block "
            "dimension must be at least 1");
}

TEST(RuntimeLaunch, SharedMemoryLimit) {
  EXPECT_EQ(problem({1}, {32}, 49153),
            "the launch asks for 49153 bytes of dynamic shared memory; the "
            "device allows at most 49152 per block");
  LaunchLimits H200; // opt-in to 227 KiB, as on sm_90
  H200.MaxSharedBytesPerBlockOptin = 232448;
  EXPECT_EQ(problem({1}, {32}, 100000, H200), "");
  EXPECT_EQ(problem({1}, {32}, 232449, H200),
            "the launch asks for 232449 bytes of dynamic shared memory; the "
            "device allows at most 232448 per block");
}

TEST(RuntimeLaunch, ValidateThrowsLaunchConfigError) {
  try {
    validateLaunchConfig(kCpuLaunchLimits, {1}, {2048}, 0);
    FAIL() << "no exception";
  } catch (const LaunchConfigError &E) {
    EXPECT_STREQ(E.what(), "block (2048, 1, 1) has 2048 threads; the device "
                           "allows at most 1024 per block");
  }
  // Callers that only know std::invalid_argument catch it too.
  EXPECT_THROW(validateLaunchConfig(kCpuLaunchLimits, {0}, {1}, 0),
               std::invalid_argument);
}

// The fast predicate (used per launch) and the message builder must agree.
TEST(RuntimeLaunch, PredicateAgreesWithMessages) {
  const unsigned Values[] = {0,    1,    2,    63,    64,   65,
                             1023, 1024, 1025, 65535, 65536};
  int Checked = 0;
  for (unsigned A : Values)
    for (unsigned B : Values)
      for (unsigned C : {0u, 1u, 64u, 65u}) {
        Dim3 Block{A, B, C};
        Dim3 Grid{B + 1, A, C};
        for (size_t Shared : {size_t(0), size_t(49152), size_t(49153)}) {
          bool Fits = fitsLaunchLimits(kCpuLaunchLimits, Grid, Block, Shared);
          EXPECT_EQ(Fits, problem(Grid, Block, Shared).empty());
          ++Checked;
        }
      }
  EXPECT_EQ(Checked, 11 * 11 * 4 * 3);
}
