// runtime/jit/CachePolicy.h: what an entry holds per backend and what a
// lookup serves from it (a damaged or other-backend entry is a miss), an
// entry never served under another key (stale), the toolchain's part of the
// key, and the compile lock's timing from its environment value.
#include "runtime/jit/CachePolicy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

using namespace pcj;
using namespace pcj::jit;

namespace {

std::string tempDir() {
  char Tmpl[] = "/tmp/pcj-jit-cache-test-XXXXXX";
  char *D = mkdtemp(Tmpl);
  EXPECT_NE(D, nullptr);
  return std::string(D);
}

// Random bytes (a stand-in for a cubin, PTX or object), fixed seed.
std::string blob(size_t N, unsigned Seed) {
  std::mt19937 G(Seed);
  std::string S(N, '\0');
  for (char &C : S)
    C = char(G());
  return S;
}

std::string keyOf(char C) { return std::string(64, C); }

rt::KernelMeta sampleMeta() {
  rt::KernelMeta M;
  M.kernel = "k";
  M.signature = "(int64) -> none";
  M.usesBarriers = true;
  M.staticSharedBytes = 1024;
  M.readOnlyArgs = {false};
  return M;
}

const rt::KernelMeta Meta = sampleMeta();

} // namespace

TEST(JitCachePolicy, CudaEntryServesTheCubinAndKeepsThePtx) {
  std::string Ptx = blob(300, 1), Cubin = blob(500, 2);
  rt::CacheEntry E =
      makeCacheEntry(keyOf('a'), Meta, Backend::CUDA, Ptx, &Cubin);
  std::optional<CachedCode> C = readCacheEntry(E, Backend::CUDA);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->kind, CachedCode::Cubin);
  EXPECT_EQ(*C->code, Cubin);
  EXPECT_EQ(*C->ptx, Ptx);
  EXPECT_EQ(C->meta.kernel, Meta.kernel);
  EXPECT_EQ(C->meta.signature, Meta.signature);
  EXPECT_TRUE(C->meta.usesBarriers);
  EXPECT_EQ(C->meta.staticSharedBytes, 1024u);
  EXPECT_EQ(C->meta.readOnlyArgs, Meta.readOnlyArgs);
}

TEST(JitCachePolicy, CudaEntryWithoutCubinServesThePtx) {
  std::string Ptx = blob(300, 3);
  rt::CacheEntry E = makeCacheEntry(keyOf('a'), Meta, Backend::CUDA, Ptx);
  std::optional<CachedCode> C = readCacheEntry(E, Backend::CUDA);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->kind, CachedCode::Ptx);
  EXPECT_EQ(*C->code, Ptx);
}

TEST(JitCachePolicy, CpuEntryServesTheHostObject) {
  std::string Obj = blob(700, 4);
  rt::CacheEntry E = makeCacheEntry(keyOf('b'), Meta, Backend::CPU, Obj);
  std::optional<CachedCode> C = readCacheEntry(E, Backend::CPU);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->kind, CachedCode::HostObject);
  EXPECT_EQ(*C->code, Obj);
  EXPECT_EQ(C->ptx, nullptr);
}

// An entry lacking a section its backend needs is a miss, never an error
// and never the other backend's code.
TEST(JitCachePolicy, IncompleteOrOtherBackendEntriesAreMisses) {
  std::string Code = blob(100, 5);
  rt::CacheEntry Gpu = makeCacheEntry(keyOf('c'), Meta, Backend::CUDA, Code);
  rt::CacheEntry Cpu = makeCacheEntry(keyOf('c'), Meta, Backend::CPU, Code);
  EXPECT_FALSE(readCacheEntry(Gpu, Backend::CPU));
  EXPECT_FALSE(readCacheEntry(Cpu, Backend::CUDA));
  for (const char *Drop : {kMetaSection, kPtxSection}) {
    rt::CacheEntry E = Gpu;
    E.sections.erase(Drop);
    EXPECT_FALSE(readCacheEntry(E, Backend::CUDA)) << Drop;
  }
  for (const char *Drop : {kMetaSection, kHostObjectSection}) {
    rt::CacheEntry E = Cpu;
    E.sections.erase(Drop);
    EXPECT_FALSE(readCacheEntry(E, Backend::CPU)) << Drop;
  }
}

// Metadata that is not the current record (format 2's "key=value" text, a
// truncated or bit-flipped record) makes the entry a miss, never misread.
TEST(JitCachePolicy, EntryWithOlderOrDamagedMetadataIsAMiss) {
  rt::CacheEntry E =
      makeCacheEntry(keyOf('g'), Meta, Backend::CPU, blob(64, 7));
  ASSERT_TRUE(readCacheEntry(E, Backend::CPU));
  const std::string Good = E.sections[kMetaSection];
  E.sections[kMetaSection] =
      "kernel=k\nsignature=(int64) -> none\nflags=100\nstatic_shared=1024\n"
      "readonly=0\n";
  EXPECT_FALSE(readCacheEntry(E, Backend::CPU));
  E.sections[kMetaSection] = Good.substr(0, Good.size() - 1);
  EXPECT_FALSE(readCacheEntry(E, Backend::CPU));
  E.sections[kMetaSection] = Good;
  E.sections[kMetaSection][0] ^= 1; // another metadata version
  EXPECT_FALSE(readCacheEntry(E, Backend::CPU));
}

// Through the disk: an entry is served under its own key only; the file of
// another key (other options, code or toolchain: another key) copied in
// its place is refused, so a stale entry is never served.
TEST(JitCachePolicy, EntriesAreServedUnderTheirOwnKeyOnly) {
  rt::DiskCache Cache(tempDir() + "/cache");
  ASSERT_TRUE(Cache.ensureDir());
  std::string Obj = blob(256, 6);
  ASSERT_TRUE(Cache.store(makeCacheEntry(keyOf('d'), Meta, Backend::CPU, Obj)));
  std::optional<rt::CacheEntry> Hit = Cache.load(keyOf('d'));
  ASSERT_TRUE(Hit);
  std::optional<CachedCode> C = readCacheEntry(*Hit, Backend::CPU);
  ASSERT_TRUE(C);
  EXPECT_EQ(*C->code, Obj);
  EXPECT_FALSE(Cache.load(keyOf('e'))); // another key: a miss
  // The old entry renamed to the new key's file: refused (the key inside).
  ASSERT_EQ(::rename(Cache.pathFor(keyOf('d')).c_str(),
                     Cache.pathFor(keyOf('e')).c_str()),
            0);
  EXPECT_FALSE(Cache.load(keyOf('e')));
}

TEST(JitCachePolicy, ToolchainFingerprintFollowsTheFiles) {
  std::string Dir = tempDir();
  std::string A = Dir + "/libdevice.bc", B = Dir + "/libnvJitLink.so";
  std::ofstream(A) << "one";
  std::ofstream(B) << "two";
  auto Print = [&] {
    return toolchainFingerprint({{"libdevice", A}, {"nvjitlink", B}});
  };
  std::string Base = Print();
  EXPECT_EQ(Print(), Base); // the same files: the same text
  EXPECT_NE(Base.find("libdevice=" + A + ":3:"), std::string::npos) << Base;
  // Another size.
  std::ofstream(A) << "three";
  std::string Bigger = Print();
  EXPECT_NE(Bigger, Base);
  // Another modification time, same size.
  struct utimbuf Old {
    1000000, 1000000
  };
  ASSERT_EQ(::utime(B.c_str(), &Old), 0);
  EXPECT_NE(Print(), Bigger);
  // Another path, and a missing file (named, not stat'ed).
  EXPECT_NE(toolchainFingerprint({{"libdevice", B}, {"nvjitlink", A}}),
            Print());
  EXPECT_EQ(toolchainFingerprint({{"libdevice", Dir + "/none"}}),
            "libdevice=" + Dir + "/none;");
  EXPECT_EQ(toolchainFingerprint({{"nvjitlink", ""}}), "nvjitlink=;");
}

TEST(JitCachePolicy, LockPolicyFromTheEnvironmentValue) {
  for (const char *Unset : {static_cast<const char *>(nullptr), ""}) {
    std::optional<rt::LockPolicy> P = cacheLockPolicy(Unset);
    ASSERT_TRUE(P);
    EXPECT_EQ(P->staleSeconds, 600);
    EXPECT_EQ(P->waitSeconds, 1200);
  }
  std::optional<rt::LockPolicy> P = cacheLockPolicy("2.5");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->staleSeconds, 2.5);
  EXPECT_EQ(P->waitSeconds, 5);
  for (const char *Bad : {"0", "-3", "ten", "5s", "nan"})
    EXPECT_FALSE(cacheLockPolicy(Bad)) << Bad;
}
