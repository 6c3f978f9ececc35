// The compile pool (runtime/jit/CompilePool.h): bounded concurrency, jobs
// that finish independently, an error handed out once, the size from the
// environment, and fork() after the threads started.
#include "runtime/jit/CompilePool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

using namespace pcj::jit;

namespace {

// A gate jobs wait at; the timeout only turns a hang into a failure.
struct Gate {
  std::mutex Mu;
  std::condition_variable Cv;
  int Arrived = 0;
  bool Open = false;

  // Waits until Count jobs arrived (or the gate was opened).
  bool arriveAndWait(int Count) {
    std::unique_lock<std::mutex> L(Mu);
    ++Arrived;
    Cv.notify_all();
    return Cv.wait_for(L, std::chrono::seconds(60),
                       [&] { return Open || Arrived >= Count; });
  }
  void open() {
    std::lock_guard<std::mutex> L(Mu);
    Open = true;
    Cv.notify_all();
  }
};

} // namespace

TEST(CompilePool, RunsJobsInParallelUpToItsSize) {
  CompilePool Pool(3);
  Gate G;
  std::atomic<int> Running{0}, Most{0}, Met{0};
  std::vector<std::shared_ptr<CompileJob>> Jobs;
  for (int K = 0; K < 9; ++K)
    Jobs.push_back(Pool.submit([&] {
      int Now = ++Running;
      for (int M = Most; Now > M && !Most.compare_exchange_weak(M, Now);)
        ;
      // The first three meet here: only possible when three run at once.
      if (G.arriveAndWait(3))
        ++Met;
      --Running;
    }));
  for (auto &J : Jobs)
    J->wait();
  EXPECT_EQ(Most.load(), 3);
  EXPECT_EQ(Met.load(), 9);
  for (auto &J : Jobs) {
    EXPECT_EQ(J->state(), CompileJob::State::Done);
    EXPECT_EQ(J->takeError(), nullptr);
  }
}

TEST(CompilePool, OneJobIsReadyWhileAnotherStillRuns) {
  CompilePool Pool(2);
  Gate Slow;
  std::atomic<int> Value{0};
  auto Blocked = Pool.submit([&] { Slow.arriveAndWait(1000); });
  auto Quick = Pool.submit([&] { Value = 42; });
  Quick->wait(); // does not wait for Blocked
  EXPECT_EQ(Value.load(), 42);
  EXPECT_FALSE(Blocked->finished());
  Slow.open();
  Blocked->wait();
  EXPECT_TRUE(Blocked->finished());
}

TEST(CompilePool, AnErrorIsKeptAndHandedOutOnce) {
  CompilePool Pool(1);
  auto Bad = Pool.submit(
      [] { throw std::runtime_error("ptxas said no at kernel.py:7"); });
  auto Good = Pool.submit([] {});
  Bad->wait();
  Good->wait();
  EXPECT_EQ(Bad->state(), CompileJob::State::Failed);
  std::exception_ptr E = Bad->takeError();
  ASSERT_NE(E, nullptr);
  try {
    std::rethrow_exception(E);
  } catch (const std::runtime_error &R) {
    EXPECT_STREQ(R.what(), "ptxas said no at kernel.py:7");
  }
  EXPECT_EQ(Bad->takeError(), nullptr); // never raised twice
  EXPECT_EQ(Bad->state(), CompileJob::State::Failed);
  EXPECT_EQ(Good->state(), CompileJob::State::Done); // the pool goes on
}

TEST(CompilePool, DestructionRunsWhatIsQueued) {
  std::atomic<int> Ran{0};
  std::vector<std::shared_ptr<CompileJob>> Jobs;
  {
    CompilePool Pool(1);
    for (int K = 0; K < 5; ++K)
      Jobs.push_back(Pool.submit([&] { ++Ran; }));
  }
  EXPECT_EQ(Ran.load(), 5);
  for (auto &J : Jobs)
    EXPECT_TRUE(J->finished());
}

TEST(CompilePool, DrainWaitsForEveryJob) {
  CompilePool Pool(2);
  std::atomic<int> Ran{0};
  for (int K = 0; K < 20; ++K)
    Pool.submit([&] { ++Ran; });
  Pool.drain();
  EXPECT_EQ(Ran.load(), 20);
}

TEST(CompilePool, SizeFromTheEnvironment) {
  const char *Name = "PYCUDA_JIT_COMPILE_THREADS";
  ::unsetenv(Name);
  unsigned Default = CompilePool::configuredThreads();
  EXPECT_GE(Default, 1u);
  EXPECT_LE(Default, 16u);
  ::setenv(Name, "3", 1);
  EXPECT_EQ(CompilePool::configuredThreads(), 3u);
  ::setenv(Name, "1", 1);
  EXPECT_EQ(CompilePool::configuredThreads(), 1u);
  ::setenv(Name, "0", 1); // no background compiles
  EXPECT_EQ(CompilePool::configuredThreads(), 0u);
  for (const char *Bad : {"", "-2", "abc", "4x", "100000"}) {
    ::setenv(Name, Bad, 1);
    EXPECT_EQ(CompilePool::configuredThreads(), Default) << Bad;
  }
  ::unsetenv(Name);
}

TEST(CompilePool, ForkAfterTheThreadsStarted) {
  CompilePool &Pool = CompilePool::process();
  std::atomic<int> Ran{0};
  for (int K = 0; K < 4; ++K)
    Pool.submit([&] { ++Ran; });
  // fork() waits for the queued jobs; the child compiles on its own pool.
  pid_t Pid = ::fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    int Before = Ran.load();
    std::atomic<int> Child{0};
    auto J = CompilePool::process().submit([&] { Child = 7; });
    J->wait();
    ::_exit(Before == 4 && Child.load() == 7 && J->takeError() == nullptr ? 0
                                                                          : 1);
  }
  int Status = 0;
  ASSERT_EQ(::waitpid(Pid, &Status, 0), Pid);
  ASSERT_TRUE(WIFEXITED(Status));
  EXPECT_EQ(WEXITSTATUS(Status), 0);
  Pool.drain();
  EXPECT_EQ(Ran.load(), 4);
  auto After = Pool.submit([&] { ++Ran; }); // the parent's pool still works
  After->wait();
  EXPECT_EQ(Ran.load(), 5);
}
