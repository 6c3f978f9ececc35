// CacheLock: compile once per machine.  When N processes miss the same disk
// cache entry at the same time, one of them compiles it and the others wait
// for the entry instead of compiling it N times.
//
// The lock is a file beside the entry, <dir>/<key>.lock, created with
// O_CREAT|O_EXCL (atomic on local filesystems, and on NFSv3+ and Lustre);
// it holds "pid host unix-time nonce" of its holder.  Waiters poll, with
// backoff, for the entry to appear (the holder publishes it by rename, so a
// reader sees a whole entry or none) or for the lock to go away.  A lock is
// stale, and broken, when its holder is a process of this host that no longer
// exists, or when it is older than a limit (a holder on another host that
// died, or one stuck compiling); breaking renames it to a unique name first
// and checks that it renamed the file it judged stale, so two breakers never
// both win.  Every failure mode costs at most a second compile, never a
// wrong kernel: the entry itself is written atomically and checksummed
// (DiskCache.h).
//
//   CacheLock L(Dir + "/" + Key + ".lock");
//   WaitHooks H{[&] { return entryExists(); }, [](double S) { sleep(S); }};
//   switch (waitForEntryOrLock(L, H, LockPolicy{})) {
//   case LockWait::Held: compile, store, then L.release();  // or ~CacheLock
//   case LockWait::Ready: load the entry another process published
//   case LockWait::TimedOut: case LockWait::Unavailable: compile without it
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace pcj::rt {

struct LockPolicy {
  // A lock older than this is broken: its holder is taken for dead or
  // stuck (a waiter then compiles).  Locks normally live as long as one
  // compile, seconds at most.
  double staleSeconds = 600;
  // A waiter gives up and compiles without the lock: only reached when
  // fresh locks keep replacing each other (staleSeconds ends one wait).
  double waitSeconds = 1200;
  double firstPoll = 0.002; // seconds; doubles up to maxPoll
  double maxPoll = 0.1;
};

class CacheLock {
public:
  explicit CacheLock(std::string Path) : Path(std::move(Path)) {}
  ~CacheLock() { release(); }
  CacheLock(const CacheLock &) = delete;
  CacheLock &operator=(const CacheLock &) = delete;

  enum class Try { Acquired, Busy, Unavailable };
  /// One attempt: creates the lock file (Acquired), finds another holder's
  /// live lock (Busy; a stale one is broken first and the attempt repeated),
  /// or cannot create it at all (Unavailable: a read-only directory...).
  Try tryAcquire(const LockPolicy &P);
  /// Removes the lock file if this object created it (and it is still the
  /// same file, by inode and contents: a lock broken as stale and re-created
  /// by another process is left alone).  Idempotent.
  void release();

  bool held() const { return Held; }
  const std::string &path() const { return Path; }
  /// "pid 123 on host h for 2.5 s": the last other holder's lock seen (busy
  /// or broken as stale); "" if none.
  const std::string &holder() const { return Holder; }
  /// How many stale locks this object broke.
  int brokenStale() const { return Broken; }

private:
  bool breakIfStale(const LockPolicy &P);

  std::string Path;
  bool Held = false;
  uint64_t Inode = 0, Device = 0; // of the file we created
  std::string Text;               // what we wrote into it
  std::string Holder;
  int Broken = 0;
};

struct WaitHooks {
  /// True once the entry the lock guards exists (another process published
  /// it): the waiter loads it instead of compiling.
  std::function<bool()> ready;
  /// Waits this many seconds (the Python glue releases the GIL meanwhile and
  /// may throw to stop on a signal).
  std::function<void(double)> sleep;
};

enum class LockWait { Held, Ready, TimedOut, Unavailable };

/// Takes the lock or waits for the entry, whichever comes first, within
/// P.waitSeconds.  Checks ready() before the first attempt too, so an entry
/// published between a cache miss and this call is used.
LockWait waitForEntryOrLock(CacheLock &L, const WaitHooks &H,
                            const LockPolicy &P);

/// This host's name (gethostname), as lock files record it.
std::string lockHostName();

} // namespace pcj::rt
