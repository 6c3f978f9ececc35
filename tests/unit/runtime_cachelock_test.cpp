// The compile-once lock: one holder at a time, waiters see the entry or the
// lock, stale locks (dead holder, too old) are broken, release only removes
// our own lock.
#include "runtime/CacheLock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utime.h>
#include <vector>

using namespace pcj::rt;

namespace {

std::string tempDir() {
  char Tmpl[] = "/tmp/pcj-lock-test-XXXXXX";
  char *D = mkdtemp(Tmpl);
  EXPECT_NE(D, nullptr);
  return D;
}

bool exists(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0;
}

void writeFile(const std::string &P, const std::string &Text) {
  std::ofstream F(P, std::ios::binary);
  F << Text;
}

std::string slurp(const std::string &P) {
  std::ifstream F(P, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(F), {});
}

// A pid that certainly does not exist: a child that exited and was reaped.
long deadPid() {
  pid_t P = fork();
  if (P == 0)
    _exit(0);
  int Status = 0;
  waitpid(P, &Status, 0);
  return long(P);
}

LockPolicy quick() {
  LockPolicy P;
  P.waitSeconds = 5;
  P.firstPoll = 0.001;
  P.maxPoll = 0.005;
  return P;
}

} // namespace

TEST(CacheLock, OneHolderAtATimeAndReleaseRemovesTheFile) {
  std::string Path = tempDir() + "/k.lock";
  CacheLock A(Path), B(Path);
  EXPECT_EQ(A.tryAcquire(quick()), CacheLock::Try::Acquired);
  EXPECT_TRUE(exists(Path));
  std::string Text = slurp(Path);
  EXPECT_EQ(
      Text.rfind(std::to_string(getpid()) + " " + lockHostName() + " ", 0), 0u)
      << Text;
  EXPECT_EQ(B.tryAcquire(quick()), CacheLock::Try::Busy);
  EXPECT_NE(B.holder().find("pid " + std::to_string(getpid())),
            std::string::npos)
      << B.holder();
  A.release();
  EXPECT_FALSE(exists(Path));
  EXPECT_EQ(B.tryAcquire(quick()), CacheLock::Try::Acquired);
}

TEST(CacheLock, UnwritableDirectoryIsUnavailable) {
  CacheLock L("/nonexistent-dir-pcj/k.lock");
  EXPECT_EQ(L.tryAcquire(quick()), CacheLock::Try::Unavailable);
}

TEST(CacheLock, DeadHolderOnThisHostIsBroken) {
  std::string Path = tempDir() + "/k.lock";
  writeFile(Path, std::to_string(deadPid()) + " " + lockHostName() + " 0\n");
  CacheLock L(Path);
  EXPECT_EQ(L.tryAcquire(quick()), CacheLock::Try::Acquired);
  EXPECT_EQ(L.brokenStale(), 1);
  EXPECT_NE(slurp(Path).find(std::to_string(getpid())), std::string::npos);
}

TEST(CacheLock, LiveHolderOnAnotherHostIsRespectedUntilTooOld) {
  std::string Path = tempDir() + "/k.lock";
  // pid 1 exists here, but the lock names another host: only age counts.
  writeFile(Path, "1 some-other-host 0\n");
  CacheLock L(Path);
  EXPECT_EQ(L.tryAcquire(quick()), CacheLock::Try::Busy);
  struct utimbuf Old = {std::time(nullptr) - 3600, std::time(nullptr) - 3600};
  ASSERT_EQ(::utime(Path.c_str(), &Old), 0);
  LockPolicy P = quick();
  P.staleSeconds = 60;
  EXPECT_EQ(L.tryAcquire(P), CacheLock::Try::Acquired);
  EXPECT_EQ(L.brokenStale(), 1);
}

TEST(CacheLock, ReleaseLeavesSomeoneElsesLockAlone) {
  std::string Path = tempDir() + "/k.lock";
  CacheLock A(Path);
  ASSERT_EQ(A.tryAcquire(quick()), CacheLock::Try::Acquired);
  // Our lock was broken (judged stale) and another process took a new one.
  ASSERT_EQ(::unlink(Path.c_str()), 0);
  writeFile(Path, "1 other 0\n");
  A.release();
  EXPECT_TRUE(exists(Path));
}

TEST(CacheLock, WaiterGetsTheEntryTheHolderPublishes) {
  std::string Dir = tempDir();
  std::string Path = Dir + "/k.lock", Entry = Dir + "/k.entry";
  CacheLock Holder(Path);
  ASSERT_EQ(Holder.tryAcquire(quick()), CacheLock::Try::Acquired);
  std::thread Publisher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    writeFile(Entry, "compiled");
    Holder.release();
  });
  CacheLock Waiter(Path);
  int Sleeps = 0;
  WaitHooks H{[&] { return exists(Entry); },
              [&](double S) {
                ++Sleeps;
                std::this_thread::sleep_for(std::chrono::duration<double>(S));
              }};
  EXPECT_EQ(waitForEntryOrLock(Waiter, H, quick()), LockWait::Ready);
  EXPECT_FALSE(Waiter.held());
  EXPECT_GT(Sleeps, 0);
  Publisher.join();
}

TEST(CacheLock, WaiterTakesTheLockWhenTheHolderLeavesWithoutAnEntry) {
  std::string Path = tempDir() + "/k.lock";
  CacheLock Holder(Path);
  ASSERT_EQ(Holder.tryAcquire(quick()), CacheLock::Try::Acquired);
  std::thread Quitter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    Holder.release(); // e.g. its compile failed
  });
  CacheLock Waiter(Path);
  WaitHooks H{[] { return false; },
              [](double S) {
                std::this_thread::sleep_for(std::chrono::duration<double>(S));
              }};
  EXPECT_EQ(waitForEntryOrLock(Waiter, H, quick()), LockWait::Held);
  EXPECT_TRUE(Waiter.held());
  Quitter.join();
}

TEST(CacheLock, WaiterTimesOutOnALockThatStays) {
  std::string Path = tempDir() + "/k.lock";
  writeFile(Path, std::to_string(getpid()) + " " + lockHostName() + " 0\n");
  CacheLock Waiter(Path);
  LockPolicy P = quick();
  P.waitSeconds = 0.05;
  double Slept = 0;
  WaitHooks H{[] { return false; },
              [&](double S) {
                Slept += S;
                std::this_thread::sleep_for(std::chrono::duration<double>(S));
              }};
  EXPECT_EQ(waitForEntryOrLock(Waiter, H, P), LockWait::TimedOut);
  EXPECT_FALSE(Waiter.held());
  EXPECT_GT(Slept, 0.0);
  EXPECT_LE(Slept, 0.05 + 1e-9);
  EXPECT_TRUE(exists(Path)); // a live holder's lock is never removed
}

TEST(CacheLock, ManyProcessesOneHolderAtATime) {
  std::string Dir = tempDir();
  std::string Path = Dir + "/k.lock", Count = Dir + "/inside";
  constexpr int N = 8;
  std::vector<pid_t> Kids;
  for (int K = 0; K < N; ++K) {
    pid_t P = fork();
    if (P == 0) {
      CacheLock L(Path);
      WaitHooks H{[] { return false; },
                  [](double S) { usleep(useconds_t(S * 1e6)); }};
      if (waitForEntryOrLock(L, H, quick()) != LockWait::Held)
        _exit(2);
      // Inside the lock: nobody else may be here.
      if (exists(Count))
        _exit(3);
      writeFile(Count, "x");
      usleep(2000);
      ::unlink(Count.c_str());
      L.release();
      _exit(0);
    }
    Kids.push_back(P);
  }
  for (pid_t P : Kids) {
    int Status = 0;
    waitpid(P, &Status, 0);
    EXPECT_TRUE(WIFEXITED(Status));
    EXPECT_EQ(WEXITSTATUS(Status), 0);
  }
}
