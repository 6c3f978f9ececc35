// The order of a compile with the disk cache on (cache=True): look the
// entry up; on a miss wait for another process that compiles it or take
// its lock; then the caller compiles, and the entry is stored before the
// lock is dropped -- so that the processes of a machine that need one entry
// compile it once.  The kernel's cache status ("hit", "miss", "off (why)",
// with a note of the wait or of a failed store) is composed here too.  The
// steps themselves (reading, loading into a device, the lock's wait) are
// the caller's callbacks: no CPython, no compiler here.
//
//   CacheSteps S;
//   S.lookup = [&](std::string &Off) { ... };  // Hit / Miss / Off
//   S.await = [&](std::unique_ptr<rt::CacheLock> &L, std::string &Note) {...};
//   CacheLookup L = lookUpOrLock(S);
//   if (!L.hit) { compile(); storeCompiled(L, [&] { return store(); }); }
//   L.status  // "miss", "hit (waited 12 ms for ...)", ...
#pragma once

#include "runtime/CacheLock.h"

#include <functional>
#include <memory>
#include <string>

namespace pcj::jit {

enum class CacheFind {
  Hit,  // read, agreed with the analysis and loaded
  Miss, // absent, damaged, or its code refused by the loader
  Off,  // the cache directory cannot be used (Why says why)
};

struct CacheSteps {
  // Reads the entry and loads its code; Off fills Why.
  std::function<CacheFind(std::string &Why)> lookup;
  // After a miss: waits until another process publishes the entry (true:
  // look it up again) or this one holds the entry's lock (false, Lock set);
  // false without a lock when waiting gave up.  Note: what happened.
  std::function<bool(std::unique_ptr<rt::CacheLock> &Lock, std::string &Note)>
      await;
};

struct CacheLookup {
  bool hit = false;
  // A miss that should be stored once compiled (the directory is usable).
  bool store = false;
  std::string status;
  // The entry's compile lock while this process compiles it.
  std::unique_ptr<rt::CacheLock> lock;
};

// Looks up; on a miss awaits the entry or its lock and, when another
// process published it, looks up once more.
CacheLookup lookUpOrLock(const CacheSteps &S);

// After the compile of a miss: Store ("" or why it failed) runs when L asks
// for it, the status notes a failure, and the lock is dropped.
void storeCompiled(CacheLookup &L, const std::function<std::string()> &Store);

} // namespace pcj::jit
