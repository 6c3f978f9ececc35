// The compile pool and its jobs (CompilePool.h).
#include "runtime/jit/CompilePool.h"

#include "support/Env.h"

#include <algorithm>
#include <cstdlib>
#include <pthread.h>

namespace pcj::jit {

// ---- CompileJob ----------------------------------------------------------

void CompileJob::wait() {
  std::unique_lock<std::mutex> L(Mu);
  Cv.wait(L, [&] { return St == State::Done || St == State::Failed; });
}

bool CompileJob::finished() const {
  std::lock_guard<std::mutex> L(Mu);
  return St == State::Done || St == State::Failed;
}

CompileJob::State CompileJob::state() const {
  std::lock_guard<std::mutex> L(Mu);
  return St;
}

std::exception_ptr CompileJob::takeError() {
  std::lock_guard<std::mutex> L(Mu);
  std::exception_ptr E = std::move(Error);
  Error = nullptr;
  return E;
}

void CompileJob::markRunning() {
  std::lock_guard<std::mutex> L(Mu);
  St = State::Running;
}

void CompileJob::complete(std::exception_ptr E) {
  {
    std::lock_guard<std::mutex> L(Mu);
    Error = std::move(E);
    St = Error ? State::Failed : State::Done;
  }
  Cv.notify_all();
}

// ---- CompilePool ---------------------------------------------------------

CompilePool::CompilePool(unsigned N) : Size(std::max(N, 1u)) {}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> L(Mu);
    Stopping = true;
  }
  WorkCv.notify_all();
  for (std::thread &T : Threads)
    T.join();
}

void CompilePool::startThreadsLocked() {
  // One more thread per queued job, up to Size.
  if (Threads.size() >= Size || Threads.size() >= Busy + Queue.size())
    return;
  Threads.emplace_back([this] { workerLoop(); });
}

std::shared_ptr<CompileJob> CompilePool::submit(std::function<void()> Work) {
  auto Job = std::make_shared<CompileJob>();
  {
    std::lock_guard<std::mutex> L(Mu);
    Queue.push_back({std::move(Work), Job});
    startThreadsLocked();
  }
  WorkCv.notify_one();
  return Job;
}

void CompilePool::drain() {
  std::unique_lock<std::mutex> L(Mu);
  IdleCv.wait(L, [&] { return Queue.empty() && Busy == 0; });
}

void CompilePool::workerLoop() {
  std::unique_lock<std::mutex> L(Mu);
  for (;;) {
    WorkCv.wait(L, [&] { return Stopping || !Queue.empty(); });
    if (Queue.empty())
      return; // stopping, nothing left to run
    Task T = std::move(Queue.front());
    Queue.pop_front();
    ++Busy;
    L.unlock();
    T.job->markRunning();
    std::exception_ptr Error;
    try {
      T.work();
    } catch (...) {
      Error = std::current_exception();
    }
    T.work = nullptr; // whatever the work holds goes before the job is done
    T.job->complete(std::move(Error));
    L.lock();
    --Busy;
    if (Queue.empty() && Busy == 0)
      IdleCv.notify_all();
  }
}

unsigned CompilePool::configuredThreads() {
  unsigned Cores = std::max(std::thread::hardware_concurrency(), 1u);
  unsigned N = std::min(Cores, 16u);
  if (const char *Env = env::raw(env::Var::CompileThreads); Env && *Env) {
    char *End = nullptr;
    unsigned long V = std::strtoul(Env, &End, 10);
    if (*End == '\0' && End != Env && V <= 256)
      N = unsigned(V);
  }
  return N;
}

// The process's pool.  Around fork() the prepare handler waits until no job
// runs and keeps the pool's lock; the child, whose copy has no threads,
// leaves that copy behind (never destroyed: its threads do not exist there)
// and makes a fresh pool on its next use.
static CompilePool *ProcessPool = nullptr;
static std::mutex ProcessMu;

CompilePool &CompilePool::process() {
  std::lock_guard<std::mutex> L(ProcessMu);
  if (!ProcessPool) {
    static std::once_flag Registered;
    std::call_once(Registered, [] {
      pthread_atfork(&CompilePool::prepareFork, &CompilePool::afterForkParent,
                     &CompilePool::afterForkChild);
      // Compiles still running at exit finish before static destructors
      // (LLVM's among them) run under them.
      std::atexit(&CompilePool::drainProcess);
    });
    ProcessPool =
        new CompilePool(configuredThreads()); // lives as long as the process
  }
  return *ProcessPool;
}

void CompilePool::drainProcess() {
  std::lock_guard<std::mutex> L(ProcessMu);
  if (ProcessPool)
    ProcessPool->drain();
}

void CompilePool::prepareFork() {
  ProcessMu.lock();
  if (!ProcessPool)
    return;
  std::unique_lock<std::mutex> L(ProcessPool->Mu);
  ProcessPool->IdleCv.wait(
      L, [] { return ProcessPool->Queue.empty() && ProcessPool->Busy == 0; });
  L.release(); // held across fork()
}

void CompilePool::afterForkParent() {
  if (ProcessPool)
    ProcessPool->Mu.unlock();
  ProcessMu.unlock();
}

void CompilePool::afterForkChild() {
  ProcessPool = nullptr; // the parent's copy is left as it is (its lock held)
  new (&ProcessMu) std::mutex();
}

} // namespace pcj::jit
