// Compile concurrency, free of CPython: a bounded pool of threads that run
// the code-generation half of compiles (LLVM, ptxas through nvJitLink) and
// the job each compile hands out, which its first user waits for.
//
//   decoration (GIL held)            pool thread (no GIL)
//   analyze, cache key  --submit-->  generate code, link the cubin
//   first launch: job->wait()  <--   done / failed (the error kept)
//
// The pool's size is PYCUDA_JIT_COMPILE_THREADS (default min(cores, 16); 0:
// callers compile in the foreground);
// threads start on the first submit.  fork() waits until no job runs (the
// child then starts its own threads on its first submit), so a child never
// inherits a half-finished compile or a lock held by a vanished thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace pcj::jit {

// One compile running (or queued) on the pool.  The work's exception is
// kept and handed to exactly one caller of takeError(): a failure is
// reported once, never lost.
class CompileJob {
public:
  enum class State { Queued, Running, Done, Failed };

  // Blocks until the work has finished (done or failed).
  void wait();
  bool finished() const;
  State state() const;
  // The work's exception the first time it is asked for (nullptr when it
  // succeeded, or when the error was already taken).
  std::exception_ptr takeError();

  // Called by the pool.
  void markRunning();
  void complete(std::exception_ptr Error);

private:
  mutable std::mutex Mu;
  std::condition_variable Cv;
  State St = State::Queued;
  std::exception_ptr Error;
};

class CompilePool {
public:
  // Threads is the most jobs that run at once (at least 1).
  explicit CompilePool(unsigned Threads);
  ~CompilePool(); // runs the queued jobs, then joins the threads
  CompilePool(const CompilePool &) = delete;
  CompilePool &operator=(const CompilePool &) = delete;

  // Queues Work; its exception (if any) is kept in the returned job.
  std::shared_ptr<CompileJob> submit(std::function<void()> Work);
  unsigned threads() const { return Size; }
  // Blocks until no job is queued or running.
  void drain();

  // The process's pool (PYCUDA_JIT_COMPILE_THREADS), made on first use.
  static CompilePool &process();
  // Waits until the process's pool (if made) is idle.  An embedding
  // interpreter calls it when it finalizes (Py_AtExit): a compile still
  // running then would outlive function-local statics (LLVM's) that exit()
  // destroys.
  static void drainProcess();
  // min(cores, 16), or the environment's value (0-256; else the default);
  // 0: no background compiles (callers compile in the foreground).
  static unsigned configuredThreads();

private:
  struct Task {
    std::function<void()> work;
    std::shared_ptr<CompileJob> job;
  };
  void workerLoop();
  void startThreadsLocked();
  static void prepareFork();
  static void afterForkParent();
  static void afterForkChild();

  const unsigned Size;
  std::mutex Mu;
  std::condition_variable WorkCv, IdleCv;
  std::deque<Task> Queue;
  std::vector<std::thread> Threads;
  unsigned Busy = 0;
  bool Stopping = false;
};

} // namespace pcj::jit
