// The disk cache's file format and its refusal of bad entries.
#include "runtime/DiskCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace pcj::rt;

namespace {

std::string tempDir() {
  char Tmpl[] = "/tmp/pcj-cache-test-XXXXXX";
  char *D = mkdtemp(Tmpl);
  EXPECT_NE(D, nullptr);
  return std::string(D) + "/cache";
}

std::string keyOf(char C) { return std::string(64, C); }

CacheEntry sample(const std::string &Key) {
  CacheEntry E;
  E.key = Key;
  E.sections["cubin"] = std::string("\x7f" "ELF binary\0data", 16);
  E.sections["meta"] = "kernel=k_1234\nsignature=(int64) -> none\n";
  return E;
}

std::string slurp(const std::string &P) {
  std::ifstream F(P, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(F), {});
}

void spit(const std::string &P, const std::string &S) {
  std::ofstream F(P, std::ios::binary | std::ios::trunc);
  F << S;
}

} // namespace

TEST(RuntimeDiskCache, RoundTripAndPrivateDirectory) {
  DiskCache C(tempDir());
  std::string Why;
  ASSERT_TRUE(C.store(sample(keyOf('a')), &Why)) << Why;
  struct stat St;
  ASSERT_EQ(stat(C.dir().c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0700u);
  auto E = C.load(keyOf('a'), &Why);
  ASSERT_TRUE(E) << Why;
  EXPECT_EQ(E->sections, sample(keyOf('a')).sections);
  auto L = C.list();
  ASSERT_EQ(L.size(), 1u);
  EXPECT_TRUE(L[0].valid);
  EXPECT_EQ(L[0].kernel, "k_1234");
  EXPECT_EQ(C.clear(), 1u);
  EXPECT_FALSE(C.load(keyOf('a')));
}

TEST(RuntimeDiskCache, BadEntriesAreIgnored) {
  DiskCache C(tempDir());
  ASSERT_TRUE(C.store(sample(keyOf('b'))));
  std::string Path = C.pathFor(keyOf('b')), Good = slurp(Path), Problem;

  spit(Path, Good.substr(0, Good.size() - 3)); // truncated
  EXPECT_FALSE(C.load(keyOf('b'), &Problem));
  EXPECT_NE(Problem.find("truncated"), std::string::npos) << Problem;

  std::string Flipped = Good;
  Flipped[Flipped.size() - 2] ^= 0x10; // one bit in the payload
  spit(Path, Flipped);
  EXPECT_FALSE(C.load(keyOf('b'), &Problem));
  EXPECT_EQ(Problem, "checksum mismatch");

  std::string Version = Good;
  Version[8] = 99; // another format version
  spit(Path, Version);
  EXPECT_FALSE(C.load(keyOf('b'), &Problem));
  EXPECT_EQ(Problem, "another format version");

  spit(C.pathFor(keyOf('c')), Good); // right bytes under another key
  EXPECT_FALSE(C.load(keyOf('c'), &Problem));
  EXPECT_EQ(Problem, "key does not match the file name");

  spit(Path, Good); // intact again
  EXPECT_TRUE(C.load(keyOf('b'), &Problem)) << Problem;

  // A symlink is never followed.
  ASSERT_EQ(unlink(Path.c_str()), 0);
  ASSERT_EQ(symlink(C.pathFor(keyOf('c')).c_str(), Path.c_str()), 0);
  EXPECT_FALSE(C.load(keyOf('b'), &Problem));
}

TEST(RuntimeDiskCache, ForeignOwnerIsIgnored) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to create a file owned by another user";
  DiskCache C(tempDir());
  ASSERT_TRUE(C.store(sample(keyOf('d'))));
  ASSERT_EQ(chown(C.pathFor(keyOf('d')).c_str(), 12345, 12345), 0);
  std::string Problem;
  EXPECT_FALSE(C.load(keyOf('d'), &Problem));
  EXPECT_EQ(Problem, "owned by another user");
}

TEST(RuntimeDiskCache, ConcurrentWritersLeaveOneValidEntry) {
  DiskCache C(tempDir());
  std::vector<std::thread> Ts;
  std::atomic<int> Ok{0};
  for (int I = 0; I < 8; ++I)
    Ts.emplace_back([&] {
      DiskCache Mine(C.dir());
      Ok += Mine.store(sample(keyOf('e')));
    });
  for (auto &T : Ts)
    T.join();
  EXPECT_EQ(Ok.load(), 8);
  auto L = C.list();
  ASSERT_EQ(L.size(), 1u);
  EXPECT_TRUE(L[0].valid);
  EXPECT_EQ(C.clear(), 1u); // no stray temporaries either
}

TEST(RuntimeDiskCache, UnsafeDirectoryIsRefused) {
  DiskCache C(tempDir());
  ASSERT_TRUE(C.ensureDir());
  ASSERT_EQ(chmod(C.dir().c_str(), 0777), 0);
  std::string Why;
  EXPECT_FALSE(C.store(sample(keyOf('f')), &Why));
  EXPECT_NE(Why.find("writable by other users"), std::string::npos) << Why;
}
