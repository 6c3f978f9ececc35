// runtime/jit/CachedCompile.h: the order of a compile with the disk cache
// (look up; on a miss wait for the entry or take its lock; compile; store
// while holding the lock) and the cache status it reports, with fake steps;
// then threads that miss one entry at once with the real lock
// (runtime/CacheLock.h): one of them compiles, the others load its entry.
#include "runtime/jit/CachedCompile.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

using namespace pcj;
using namespace pcj::jit;

namespace {

// Lookups answer from a script; await answers Published (and takes a lock
// object when it does not).
struct Fake {
  std::vector<CacheFind> finds;
  size_t lookups = 0;
  int awaits = 0;
  bool published = false;
  std::string note;

  CacheSteps steps() {
    CacheSteps S;
    S.lookup = [this](std::string &Why) {
      CacheFind F = finds.at(lookups++);
      if (F == CacheFind::Off)
        Why = "directory writable by others";
      return F;
    };
    S.await = [this](std::unique_ptr<rt::CacheLock> &Lock, std::string &Note) {
      ++awaits;
      Note = note;
      if (!published)
        Lock = std::make_unique<rt::CacheLock>("/nonexistent/entry.lock");
      return published;
    };
    return S;
  }
};

} // namespace

TEST(JitCachedCompile, HitLoadsWithoutWaitingOrStoring) {
  Fake F;
  F.finds = {CacheFind::Hit};
  CacheLookup L = lookUpOrLock(F.steps());
  EXPECT_TRUE(L.hit);
  EXPECT_EQ(L.status, "hit");
  EXPECT_EQ(F.awaits, 0);
  int Stores = 0;
  storeCompiled(L, [&] { return ++Stores, std::string(); });
  EXPECT_EQ(Stores, 0);
}

TEST(JitCachedCompile, UnusableDirectoryIsOffAndNeverStored) {
  Fake F;
  F.finds = {CacheFind::Off};
  CacheLookup L = lookUpOrLock(F.steps());
  EXPECT_FALSE(L.hit);
  EXPECT_EQ(L.status, "off (directory writable by others)");
  EXPECT_EQ(F.awaits, 0);
  int Stores = 0;
  storeCompiled(L, [&] { return ++Stores, std::string(); });
  EXPECT_EQ(Stores, 0);
  EXPECT_EQ(L.status, "off (directory writable by others)");
}

TEST(JitCachedCompile, MissTakesTheLockAndStoresBeforeDroppingIt) {
  Fake F;
  F.finds = {CacheFind::Miss};
  CacheLookup L = lookUpOrLock(F.steps());
  EXPECT_FALSE(L.hit);
  EXPECT_EQ(L.status, "miss");
  EXPECT_EQ(F.awaits, 1);
  EXPECT_EQ(F.lookups, 1u); // not looked up again: this process compiles
  ASSERT_TRUE(L.lock);
  int Stores = 0;
  storeCompiled(L, [&] {
    EXPECT_TRUE(L.lock) << "stored after the lock was dropped";
    return ++Stores, std::string();
  });
  EXPECT_EQ(Stores, 1);
  EXPECT_FALSE(L.lock);
  EXPECT_EQ(L.status, "miss");
}

TEST(JitCachedCompile, EntryPublishedByAnotherProcessIsLoaded) {
  Fake F;
  F.finds = {CacheFind::Miss, CacheFind::Hit};
  F.published = true;
  F.note = " (waited 12 ms for the compile of pid 7)";
  CacheLookup L = lookUpOrLock(F.steps());
  EXPECT_TRUE(L.hit);
  EXPECT_EQ(L.status, "hit (waited 12 ms for the compile of pid 7)");
  EXPECT_FALSE(L.store);
}

TEST(JitCachedCompile, DamagedPublishedEntryIsCompiledAndStored) {
  Fake F;
  F.finds = {CacheFind::Miss, CacheFind::Miss};
  F.published = true;
  F.note = " (waited 3 ms for the compile of pid 7)";
  CacheLookup L = lookUpOrLock(F.steps());
  EXPECT_FALSE(L.hit);
  EXPECT_TRUE(L.store);
  EXPECT_EQ(L.status, "miss (waited 3 ms for the compile of pid 7)");
}

TEST(JitCachedCompile, FailedStoreIsReported) {
  Fake F;
  F.finds = {CacheFind::Miss};
  CacheLookup L = lookUpOrLock(F.steps());
  storeCompiled(L, [] { return std::string("No space left on device"); });
  EXPECT_EQ(L.status, "miss (not stored: No space left on device)");
  EXPECT_FALSE(L.lock);
}

// Eight threads miss one entry at once; the entry is "published" by the
// store of whichever holds the real lock file.  One compile, seven hits.
TEST(JitCachedCompile, ConcurrentMissesOfOneEntryCompileOnce) {
  char Tmpl[] = "/tmp/pcj-cachedcompile-XXXXXX";
  ASSERT_NE(mkdtemp(Tmpl), nullptr);
  std::string LockPath = std::string(Tmpl) + "/entry.lock";
  std::atomic<bool> Published{false};
  std::atomic<int> Compiles{0}, Hits{0};
  rt::LockPolicy P;
  P.firstPoll = 0.001;
  auto Worker = [&] {
    CacheSteps S;
    S.lookup = [&](std::string &) {
      return Published ? CacheFind::Hit : CacheFind::Miss;
    };
    S.await = [&](std::unique_ptr<rt::CacheLock> &Lock, std::string &) {
      auto L = std::make_unique<rt::CacheLock>(LockPath);
      rt::WaitHooks H;
      H.ready = [&] { return Published.load(); };
      H.sleep = [](double Sec) {
        std::this_thread::sleep_for(std::chrono::duration<double>(Sec));
      };
      rt::LockWait W = rt::waitForEntryOrLock(*L, H, P);
      if (W == rt::LockWait::Held)
        Lock = std::move(L);
      return W == rt::LockWait::Ready;
    };
    CacheLookup L = lookUpOrLock(S);
    if (L.hit) {
      ++Hits;
      return;
    }
    ++Compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // compiling
    storeCompiled(L, [&] {
      Published = true;
      return std::string();
    });
  };
  std::vector<std::thread> Threads;
  for (int K = 0; K < 8; ++K)
    Threads.emplace_back(Worker);
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Compiles.load(), 1);
  EXPECT_EQ(Hits.load(), 7);
}
