// The disk cache's file format and its refusal of bad entries.
#include "runtime/CacheMeta.h"
#include "runtime/DiskCache.h"

#include "support/Sha256.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
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
  E.sections["cubin"] = std::string("\x7f"
                                    "ELF binary\0data",
                                    16);
  KernelMeta M;
  M.kernel = "k_1234";
  M.signature = "(int64) -> none";
  E.sections["meta"] = encodeKernelMeta(M);
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

// A FIFO (or any other non-regular file) at an entry's path is refused
// without blocking: open() of a FIFO for reading waits for a writer unless
// it is non-blocking.  The load runs in a child process so that a hang is
// reported as a failure instead of stalling the test binary.
TEST(RuntimeDiskCache, FifoIsRefusedWithoutBlocking) {
  DiskCache C(tempDir());
  ASSERT_TRUE(C.ensureDir());
  ASSERT_EQ(mkfifo(C.pathFor(keyOf('1')).c_str(), 0600), 0);
  pid_t Child = fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    std::string Problem;
    bool Refused =
        !C.load(keyOf('1'), &Problem) && Problem == "not a regular file";
    bool Listed = C.list().size() == 1;
    _exit(Refused && Listed ? 0 : 1);
  }
  int Status = 0;
  pid_t Done = 0;
  for (int Tries = 0; Tries < 600 && Done == 0;
       ++Tries) { // a hang guard (60 s)
    Done = waitpid(Child, &Status, WNOHANG);
    if (Done == 0)
      usleep(100 * 1000);
  }
  if (Done == 0) {
    kill(Child, SIGKILL);
    waitpid(Child, &Status, 0);
    FAIL() << "loading a cache entry that is a FIFO blocked";
  }
  ASSERT_TRUE(WIFEXITED(Status));
  EXPECT_EQ(WEXITSTATUS(Status), 0);
}

// The header (format version, key, length) is covered by the checksum: an
// entry copied under another key with its key bytes rewritten to match is
// refused, so it never runs as another kernel's code.
TEST(RuntimeDiskCache, ChecksumCoversHeaderAndKey) {
  DiskCache C(tempDir());
  ASSERT_TRUE(C.store(sample(keyOf('a'))));
  std::string Forged = slurp(C.pathFor(keyOf('a')));
  ASSERT_GT(Forged.size(), 44u);
  for (int K = 0; K < 32; ++K)
    Forged[12 + K] =
        char(0xbb); // the key field: 32 bytes after magic + version
  spit(C.pathFor(keyOf('b')), Forged);
  std::string Problem;
  EXPECT_FALSE(C.load(keyOf('b'), &Problem));
  EXPECT_EQ(Problem, "checksum mismatch");
}

// Entries larger than kMaxEntryBytes are refused from their size alone,
// before anything is read (a 64 GiB sparse file cost a MemoryError, a
// 3 GiB one 20 s, on every run); store() never writes one.
TEST(RuntimeDiskCache, OversizedEntriesAreRefusedUnread) {
  DiskCache C(tempDir());
  ASSERT_TRUE(C.store(sample(keyOf('c'))));
  std::string Path = C.pathFor(keyOf('c'));
  ASSERT_EQ(truncate(Path.c_str(), off_t(DiskCache::kMaxEntryBytes) + 1),
            0); // sparse
  std::string Problem;
  EXPECT_FALSE(C.load(keyOf('c'), &Problem));
  EXPECT_NE(Problem.find("larger than"), std::string::npos) << Problem;
  auto L = C.list();
  ASSERT_EQ(L.size(), 1u);
  EXPECT_FALSE(L[0].valid);

  CacheEntry Big = sample(keyOf('d'));
  Big.sections["cubin"].assign(DiskCache::kMaxEntryBytes, 'x');
  std::string Why;
  EXPECT_FALSE(C.store(Big, &Why));
  EXPECT_NE(Why.find("larger than"), std::string::npos) << Why;
  EXPECT_FALSE(C.load(keyOf('d')));
}

// An entry of format 2 (the metadata was "key=value" text), written with
// that format's header and a correct checksum, is refused as another
// version: a miss, never misread, listed as invalid.
TEST(RuntimeDiskCache, OlderFormatEntryIsAMiss) {
  DiskCache C(tempDir());
  ASSERT_TRUE(C.ensureDir());
  std::string Key = keyOf('f');
  std::string Payload;
  auto Put = [](std::string &Out, uint64_t V, int Bytes) {
    for (int K = 0; K < Bytes; ++K)
      Out.push_back(char((V >> (8 * K)) & 0xff));
  };
  for (auto [Name, Data] :
       {std::pair<std::string, std::string>{"hostobj", "\x7f"
                                                       "ELF..."},
        {"meta", "kernel=k_1\nsignature=(int64) -> none\nflags=000\n"
                 "static_shared=0\nreadonly=0\n"}}) {
    Put(Payload, Name.size(), 4);
    Payload += Name;
    Put(Payload, Data.size(), 8);
    Payload += Data;
  }
  std::string Head = "PCJCACHE";
  Put(Head, 2, 4);
  for (size_t K = 0; K < 64; K += 2)
    Head.push_back(char(std::stoi(Key.substr(K, 2), nullptr, 16)));
  Put(Head, Payload.size(), 8);
  pcj::Sha256 H;
  H.update(Head).update(Payload);
  std::array<uint8_t, 32> Digest = H.digest();
  spit(C.pathFor(Key),
       Head + std::string(Digest.begin(), Digest.end()) + Payload);

  std::string Problem;
  EXPECT_FALSE(C.load(Key, &Problem));
  EXPECT_EQ(Problem, "another format version");
  auto L = C.list();
  ASSERT_EQ(L.size(), 1u);
  EXPECT_FALSE(L[0].valid);
  EXPECT_EQ(L[0].kernel, "");
  // The rebuild stores over it, and the new entry reads back.
  ASSERT_TRUE(C.store(sample(Key)));
  EXPECT_TRUE(C.load(Key, &Problem)) << Problem;
  EXPECT_EQ(C.list()[0].kernel, "k_1234");
}
