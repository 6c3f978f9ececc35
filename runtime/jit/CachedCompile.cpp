// A compile with the disk cache on (see CachedCompile.h).
#include "runtime/jit/CachedCompile.h"

namespace pcj::jit {

CacheLookup lookUpOrLock(const CacheSteps &S) {
  CacheLookup L;
  std::string Why;
  switch (S.lookup(Why)) {
  case CacheFind::Hit:
    L.hit = true;
    L.status = "hit";
    return L;
  case CacheFind::Off:
    L.status = "off (" + Why + ")";
    return L;
  case CacheFind::Miss:
    break;
  }
  // Compile once per machine: another process may be compiling this entry.
  std::string Note;
  if (S.await(L.lock, Note))
    L.hit = S.lookup(Why) == CacheFind::Hit;
  L.store = !L.hit;
  L.status = (L.hit ? "hit" : "miss") + Note;
  return L;
}

void storeCompiled(CacheLookup &L, const std::function<std::string()> &Store) {
  if (L.store) {
    std::string Why = Store();
    if (!Why.empty())
      L.status = "miss (not stored: " + Why + ")";
  }
  L.lock.reset();
}

} // namespace pcj::jit
