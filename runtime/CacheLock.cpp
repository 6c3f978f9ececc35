// The compile-once lock file beside a disk cache entry (see CacheLock.h).
#include "runtime/CacheLock.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace pcj::rt {

namespace {

struct LockFile {
  bool exists = false;
  uint64_t inode = 0, device = 0;
  double ageSeconds = 0;
  long pid = 0;
  std::string host;
  std::string text;
};

// Reads the lock at Path without following links or blocking.
LockFile readLock(const std::string &Path) {
  LockFile L;
  int Fd = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (Fd < 0)
    return L;
  struct stat St;
  if (::fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    ::close(Fd);
    return L;
  }
  L.exists = true;
  L.inode = uint64_t(St.st_ino);
  L.device = uint64_t(St.st_dev);
  timespec Now{};
  ::clock_gettime(CLOCK_REALTIME, &Now);
  L.ageSeconds = double(Now.tv_sec - St.st_mtim.tv_sec) +
                 1e-9 * double(Now.tv_nsec - St.st_mtim.tv_nsec);
  char Buf[512] = {};
  ssize_t N = ::read(Fd, Buf, sizeof Buf - 1);
  ::close(Fd);
  if (N > 0) {
    L.text.assign(Buf, size_t(N));
    char Host[256] = {};
    long Pid = 0;
    if (std::sscanf(Buf, "%ld %255s", &Pid, Host) == 2) {
      L.pid = Pid;
      L.host = Host;
    }
  }
  return L;
}

bool processGone(long Pid) {
  return Pid > 0 && ::kill(pid_t(Pid), 0) != 0 && errno == ESRCH;
}

} // namespace

std::string lockHostName() {
  char Name[256] = {};
  if (::gethostname(Name, sizeof Name - 1) != 0 || !Name[0])
    return "unknown-host";
  return Name;
}

CacheLock::Try CacheLock::tryAcquire(const LockPolicy &P) {
  if (Held)
    return Try::Acquired;
  for (int Attempt = 0; Attempt < 4; ++Attempt) {
    int Fd = ::open(Path.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (Fd >= 0) {
      // pid host time nonce: the nonce tells our lock from a later one
      // that got the same inode number.
      std::random_device Rd;
      Text = std::to_string(::getpid()) + " " + lockHostName() + " " +
             std::to_string(long(std::time(nullptr))) + " " +
             std::to_string(Rd()) + "\n";
      ssize_t W = ::write(Fd, Text.data(), Text.size());
      if (W != ssize_t(Text.size()))
        Text.clear(); // a lock without text is judged by its age only
      struct stat St;
      if (::fstat(Fd, &St) == 0) {
        Inode = uint64_t(St.st_ino);
        Device = uint64_t(St.st_dev);
      }
      ::close(Fd);
      Held = true;
      return Try::Acquired;
    }
    if (errno != EEXIST)
      return Try::Unavailable;
    if (!breakIfStale(P))
      return Try::Busy;
  }
  return Try::Busy;
}

bool CacheLock::breakIfStale(const LockPolicy &P) {
  LockFile L = readLock(Path);
  if (!L.exists)
    return true; // released meanwhile: try again
  char Age[32];
  std::snprintf(Age, sizeof Age, "%.1f", L.ageSeconds);
  Holder = (L.pid ? "pid " + std::to_string(L.pid) + " on host " + L.host
                  : std::string("an unknown process")) +
           " for " + Age + " s";
  bool Dead = L.pid && L.host == lockHostName() && processGone(L.pid);
  if (!Dead && L.ageSeconds <= P.staleSeconds)
    return false;
  // Move it aside under a unique name, then make sure we moved the file we
  // judged: another waiter may have broken it and a new holder created a
  // fresh lock in between.
  std::random_device Rd;
  std::string Aside = Path + ".stale-" + std::to_string(::getpid()) + "-" +
                      std::to_string(Rd());
  if (::rename(Path.c_str(), Aside.c_str()) != 0)
    return true; // gone already: try again
  LockFile Moved = readLock(Aside);
  bool Same = Moved.exists && Moved.inode == L.inode &&
              Moved.device == L.device && Moved.text == L.text;
  if (!Same) // a live lock: put it back unless yet another one exists
    (void)::link(Aside.c_str(), Path.c_str());
  else
    ++Broken;
  ::unlink(Aside.c_str());
  return true;
}

void CacheLock::release() {
  if (!Held)
    return;
  Held = false;
  LockFile L = readLock(Path);
  if (L.exists && L.inode == Inode && L.device == Device && L.text == Text)
    ::unlink(Path.c_str());
}

LockWait waitForEntryOrLock(CacheLock &L, const WaitHooks &H,
                            const LockPolicy &P) {
  auto Start = std::chrono::steady_clock::now();
  double Poll = P.firstPoll;
  for (;;) {
    if (H.ready())
      return LockWait::Ready;
    switch (L.tryAcquire(P)) {
    case CacheLock::Try::Acquired:
      // The holder before us may have published the entry and released
      // the lock between our ready() check and the attempt.
      if (H.ready()) {
        L.release();
        return LockWait::Ready;
      }
      return LockWait::Held;
    case CacheLock::Try::Unavailable:
      return LockWait::Unavailable;
    case CacheLock::Try::Busy:
      break;
    }
    double Waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (Waited >= P.waitSeconds)
      return LockWait::TimedOut;
    H.sleep(std::min(Poll, P.waitSeconds - Waited));
    Poll = std::min(Poll * 2, P.maxPoll);
  }
}

} // namespace pcj::rt
