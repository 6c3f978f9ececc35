// runtime/CacheMeta.h: the metadata record of a cache entry round-trips, and
// anything but a whole record of the current version -- the "key=value"
// text of entry format 2, every truncation, trailing bytes, unknown flag
// bits, a bad argument byte -- decodes to nothing (a cache miss).
#include "runtime/CacheMeta.h"

#include <gtest/gtest.h>

#include <random>

using namespace pcj::rt;

namespace {

KernelMeta sample(unsigned Seed) {
  std::mt19937 G(Seed);
  KernelMeta M;
  M.kernel = "_Z6kernel" + std::to_string(G() % 1000);
  M.signature = "(array(float32, 1d, C), int64) -> none";
  M.usesBarriers = G() & 1;
  M.usesWarpOps = G() & 1;
  M.usesGridSync = G() & 1;
  M.staticSharedBytes = G() % 49152;
  for (unsigned K = 0, N = 1 + G() % 6; K < N; ++K)
    M.readOnlyArgs.push_back(G() & 1);
  return M;
}

void expectSame(const KernelMeta &A, const KernelMeta &B) {
  EXPECT_EQ(A.kernel, B.kernel);
  EXPECT_EQ(A.signature, B.signature);
  EXPECT_EQ(A.usesBarriers, B.usesBarriers);
  EXPECT_EQ(A.usesWarpOps, B.usesWarpOps);
  EXPECT_EQ(A.usesGridSync, B.usesGridSync);
  EXPECT_EQ(A.staticSharedBytes, B.staticSharedBytes);
  EXPECT_EQ(A.readOnlyArgs, B.readOnlyArgs);
}

} // namespace

TEST(RuntimeCacheMeta, RoundTrip) {
  for (unsigned Seed = 1; Seed <= 20; ++Seed) {
    KernelMeta M = sample(Seed);
    std::optional<KernelMeta> Back = decodeKernelMeta(encodeKernelMeta(M));
    ASSERT_TRUE(Back) << Seed;
    expectSame(*Back, M);
  }
  KernelMeta Empty;
  ASSERT_TRUE(decodeKernelMeta(encodeKernelMeta(Empty)));
}

TEST(RuntimeCacheMeta, OlderTextFormatIsRefused) {
  EXPECT_FALSE(decodeKernelMeta("kernel=k_1\nsignature=(int64) -> none\n"
                                "flags=000\nstatic_shared=0\nreadonly=0\n"));
  EXPECT_FALSE(decodeKernelMeta(""));
}

TEST(RuntimeCacheMeta, EveryTruncationAndTrailingBytesAreRefused) {
  std::string Good = encodeKernelMeta(sample(3));
  for (size_t N = 0; N < Good.size(); ++N)
    EXPECT_FALSE(decodeKernelMeta(Good.substr(0, N))) << N;
  EXPECT_FALSE(decodeKernelMeta(Good + '\0'));
}

TEST(RuntimeCacheMeta, DamagedFieldsAreRefused) {
  KernelMeta M = sample(4);
  M.readOnlyArgs = {true, false};
  std::string Good = encodeKernelMeta(M);
  // Version, then the strings; the flags byte follows them.
  std::string V = Good;
  V[0] = char(kMetaVersion + 1);
  EXPECT_FALSE(decodeKernelMeta(V));
  size_t FlagsAt = 4 + 4 + M.kernel.size() + 4 + M.signature.size();
  std::string F = Good;
  F[FlagsAt] = char(0x08); // an unknown flag bit
  EXPECT_FALSE(decodeKernelMeta(F));
  std::string A = Good;
  A[A.size() - 1] = 2; // an argument byte other than 0/1
  EXPECT_FALSE(decodeKernelMeta(A));
  std::string L = Good;
  L[4] = char(0xff); // a kernel-name length past the end
  EXPECT_FALSE(decodeKernelMeta(L));
}
