// Cancel: stopping a CPU-executor launch that is running -- Ctrl-C, a time
// limit, or an error elsewhere in the launch -- without killing the process.
//
// Generated code polls a process-wide word, pcj_cpu_stop_requests, in every
// loop (compiler/codegen/CancelPoints.cpp); it is non-zero only while some
// launch is being stopped.  Then pcj_cpu_poll asks whether the calling
// thread's own launch stops (stopping(G): it failed, timed out, or was
// interrupted) and if so ends the CUDA thread like an error does
// (terminateThread).  The scheduler checks the same between threads, blocks
// and while waiting at a grid barrier, so every host thread leaves the grid
// within a loop iteration (or 20 ms in a grid barrier wait).
//
//   SIGINT    While an interruptible launch runs (the glue marks launches
//             from the main thread), our handler is installed in front of
//             the previous one (Python's): it sets InterruptPending, bumps
//             the word and calls the previous handler, so Python also sees
//             the signal.  A process that ignores SIGINT or leaves it at
//             SIG_DFL keeps that behaviour.  The launch then throws
//             KernelFault(Interrupted).
//   timeout   A watchdog thread (started on first use) records a Timeout
//             fault for a launch still registered at its deadline.
//   failure   recordFault marks the grid failed and bumps the word once.
#include "runtime/cpu/BlockState.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>

#include <pthread.h>

extern "C" {
uint32_t pcj_cpu_stop_requests = 0;
}

namespace pcj::rt::cpu::detail {

std::atomic<bool> InterruptPending{false};

namespace {

void bumpStopWord(int Delta) {
  __atomic_fetch_add(&pcj_cpu_stop_requests, static_cast<uint32_t>(Delta),
                     __ATOMIC_RELAXED);
}

// -- SIGINT -------------------------------------------------------------------

std::atomic<bool> HandlerInstalled{false};
struct sigaction PreviousSigint; // written before installing, read by onSigint

void onSigint(int Sig, siginfo_t *Info, void *Context) {
  if (!InterruptPending.exchange(true))
    bumpStopWord(1);
  const struct sigaction &P = PreviousSigint;
  if (P.sa_flags & SA_SIGINFO) {
    if (P.sa_sigaction)
      P.sa_sigaction(Sig, Info, Context);
  } else if (P.sa_handler != SIG_DFL && P.sa_handler != SIG_IGN &&
             P.sa_handler) {
    P.sa_handler(Sig);
  }
}

// -- the watchdog of time limits
// ------------------------------------------------

class Watchdog {
public:
  static Watchdog &get() {
    static auto *W = new Watchdog(); // outlives static destructors
    return *W;
  }

  void add(Grid &G, std::chrono::steady_clock::time_point Deadline) {
    std::lock_guard<std::mutex> Lock(Mu);
    if (!Running) {
      std::thread([this] { loop(); }).detach(); // throws: launch fails
      Running = true;
    }
    Deadlines.emplace(Deadline, &G);
    Cv.notify_one();
  }

  void remove(Grid &G) {
    std::lock_guard<std::mutex> Lock(Mu);
    for (auto It = Deadlines.begin(); It != Deadlines.end(); ++It)
      if (It->second == &G) {
        Deadlines.erase(It);
        return;
      }
  }

  // fork(): the child has no watchdog thread and must not inherit Mu held.
  void lockForFork() { Mu.lock(); }
  void unlockAfterFork(bool Child) {
    if (Child) {
      Running = false;
      Deadlines.clear();
    }
    Mu.unlock();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> Lock(Mu);
    for (;;) {
      if (Deadlines.empty()) {
        Cv.wait(Lock);
        continue;
      }
      auto First = Deadlines.begin();
      if (std::chrono::steady_clock::now() < First->first) {
        Cv.wait_until(Lock, First->first);
        continue;
      }
      // Still registered, so still running: Grid outlives its registration.
      Grid &G = *First->second;
      Deadlines.erase(First);
      char Limit[32];
      std::snprintf(Limit, sizeof Limit, "%g", G.TimeoutSeconds);
      recordFault(G, KernelFault::Kind::Timeout,
                  "kernel '" + std::string(G.Name) + "' ran longer than its " +
                      Limit +
                      " s time limit on the CPU executor and was stopped "
                      "(cpu_timeout= or PYCUDA_JIT_CPU_TIMEOUT)",
                  Dims{0, 0, 0}, Dims{0, 0, 0});
    }
  }

  std::mutex Mu;
  std::condition_variable Cv;
  std::multimap<std::chrono::steady_clock::time_point, Grid *> Deadlines;
  bool Running = false;
};

thread_local ThreadBlock *CurrentBlock = nullptr;

} // namespace

void noteStopping(Grid &G) {
  if (G.StopCounted)
    return;
  G.StopCounted = true;
  bumpStopWord(1);
}

void stopDone(Grid &G) {
  if (G.StopCounted)
    bumpStopWord(-1);
  G.StopCounted = false;
}

ThreadBlock *setCurrentBlock(ThreadBlock *B) {
  ThreadBlock *Old = CurrentBlock;
  CurrentBlock = B;
  return Old;
}

InterruptScope::InterruptScope(Grid &G, bool Enable) : G(G) {
  if (!Enable || HandlerInstalled.exchange(true))
    return; // another launch has it: only one interruptible launch at a time
  struct sigaction Current;
  if (sigaction(SIGINT, nullptr, &Current) != 0 ||
      (!(Current.sa_flags & SA_SIGINFO) &&
       (Current.sa_handler == SIG_IGN || Current.sa_handler == SIG_DFL))) {
    HandlerInstalled.store(false);
    return; // SIGINT ignored, or fatal as the process wants
  }
  PreviousSigint = Current;
  struct sigaction Ours = {};
  Ours.sa_sigaction = &onSigint;
  Ours.sa_flags = SA_SIGINFO | SA_ONSTACK | (Current.sa_flags & SA_RESTART);
  sigemptyset(&Ours.sa_mask);
  if (sigaction(SIGINT, &Ours, nullptr) != 0) {
    HandlerInstalled.store(false);
    return;
  }
  Installed = true;
  G.Interruptible = true;
}

bool InterruptScope::finish() {
  if (!Installed)
    return false;
  sigaction(SIGINT, &PreviousSigint, nullptr);
  Installed = false;
  bool Interrupted = InterruptPending.exchange(false);
  if (Interrupted)
    bumpStopWord(-1);
  G.Interruptible = false;
  HandlerInstalled.store(false);
  return Interrupted;
}

InterruptScope::~InterruptScope() { finish(); }

DeadlineScope::DeadlineScope(Grid &G, double Seconds) : G(G) {
  if (!(Seconds > 0))
    return;
  G.TimeoutSeconds = Seconds;
  auto Span = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::min(Seconds, 1e9)));
  Watchdog::get().add(G, std::chrono::steady_clock::now() + Span);
  Active = true;
}

DeadlineScope::~DeadlineScope() {
  if (Active)
    Watchdog::get().remove(G);
}

void cancelForkPrepare() { Watchdog::get().lockForFork(); }
void cancelForkParent() { Watchdog::get().unlockAfterFork(false); }
void cancelForkChild() { Watchdog::get().unlockAfterFork(true); }

} // namespace pcj::rt::cpu::detail

using namespace pcj::rt::cpu::detail;

extern "C" void pcj_cpu_poll(void) {
  ThreadBlock *B = CurrentBlock;
  if (!B || !B->Running || !stopping(*B->G))
    return; // another launch is being stopped
  terminateThread(B->Running);
}
