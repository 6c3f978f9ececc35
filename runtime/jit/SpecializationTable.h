// The specializations of one kernel, free of CPython: which compiled entry
// serves a signature (a vector of interned argument types), the per-GPU-
// architecture images and per-device functions of an entry, and the
// variant an entry needs when its noalias assumption does not hold.  The
// extension's Dispatcher keeps the Python types and turns arguments into a
// signature; this is the policy of what gets compiled, once, and reused.
//
//   SpecializationTable<TypeRef, Spec> T;
//   Spec *S = T.lastMatch(Sig);              // the last launch's entry?
//   std::shared_ptr<Spec> E = T.obtain(Sig, Compile, Wait); // compiles once
//   T.remember(Sig, E.get());
//
// Concurrency: the maps are guarded by mu.  obtain() compiles a signature
// once however many threads ask for it at the same time: the first one
// compiles (without the lock), the others wait for it (through the caller's
// Wait hook, which may release an interpreter lock) and get its entry; if
// that compile fails, each waiter tries itself (and reports its own error).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace pcj::jit {

// A hash of a signature: its elements are interned (compared by address).
template <class Elem> struct SignatureHash {
  size_t operator()(const std::vector<Elem> &K) const {
    size_t H = 0;
    for (const Elem &T : K)
      H = H * 1000003u ^ std::hash<Elem>()(T);
    return H;
  }
};

// Runs Wait() (which blocks) the caller's way: Run(Wait).  The extension
// passes one that releases the GIL around it.
using WaitHook = std::function<void(const std::function<void()> &)>;

template <class Elem, class Entry> class SpecializationTable {
public:
  using Signature = std::vector<Elem>;
  using EntryPtr = std::shared_ptr<Entry>;

  std::mutex mu; // guards everything below
  // The entries in compile order (explicit signatures: the candidates).
  std::vector<EntryPtr> ordered;
  // Entries whose compile failed after they were listed (see retire):
  // kept so that no pointer to them dangles.
  std::vector<EntryPtr> failed;
  // Signature -> entry; several signatures may share one (an explicit
  // signature chosen by conversion).
  std::unordered_map<Signature, EntryPtr, SignatureHash<Elem>> byArgs;
  // The last launch's signature and entry (kept alive by byArgs), checked
  // before the map; the caller serializes launches (the GIL).
  Signature lastKey;
  Entry *lastSpec = nullptr;

  // The last launch's entry when N elements given by At(k) are its
  // signature, else null.
  template <class ElemAt> Entry *lastMatch(size_t N, ElemAt &&At) const {
    if (!lastSpec || lastKey.size() != N)
      return nullptr;
    for (size_t K = 0; K < N; ++K)
      if (!(At(K) == lastKey[K]))
        return nullptr;
    return lastSpec;
  }
  void remember(Signature Sig, Entry *E) {
    lastKey = std::move(Sig);
    lastSpec = E;
  }

  // The entry of Sig, or, when none is and Choose is given, the one that
  // Choose(ordered) picks (an index; nullopt: none), which Sig then shares.
  // Choose runs under the lock and may throw.
  EntryPtr
  find(const Signature &Sig,
       const std::function<std::optional<size_t>(const std::vector<EntryPtr> &)>
           &Choose = nullptr) {
    std::lock_guard<std::mutex> L(mu);
    auto It = byArgs.find(Sig);
    if (It != byArgs.end())
      return It->second;
    if (!Choose)
      return nullptr;
    std::optional<size_t> K = Choose(ordered);
    if (!K)
      return nullptr;
    EntryPtr E = ordered.at(*K);
    byArgs.emplace(Sig, E);
    return E;
  }

  // Lists E under Sig unless Sig has an entry already: the entry Sig has
  // now (the first insert wins; a repeated signature is one candidate).
  EntryPtr insert(const Signature &Sig, EntryPtr E) {
    std::lock_guard<std::mutex> L(mu);
    return insertLocked(Sig, std::move(E));
  }

  // The entry of Sig, compiled by Compile() (called without the lock, at
  // most once at a time per signature) when there is none.  A thread that
  // finds Sig being compiled waits (Wait) and takes that entry; when that
  // compile threw, it compiles itself.
  EntryPtr obtain(const Signature &Sig,
                  const std::function<EntryPtr()> &Compile,
                  const WaitHook &Wait = nullptr) {
    std::unique_lock<std::mutex> L(mu);
    for (;;) {
      auto It = byArgs.find(Sig);
      if (It != byArgs.end())
        return It->second;
      if (!Compiling.count(Sig))
        break;
      auto Block = [&] { Done.wait(L, [&] { return !Compiling.count(Sig); }); };
      if (!Wait) {
        Block();
        continue;
      }
      // The hook may give up another lock (the GIL) while this waits; this
      // lock is not held meanwhile, so the compiling thread can take it.
      L.unlock();
      Wait([&] {
        std::unique_lock<std::mutex> W(mu);
        Done.wait(W, [&] { return !Compiling.count(Sig); });
      });
      L.lock();
    }
    Compiling.insert(Sig);
    L.unlock();
    EntryPtr E;
    try {
      E = Compile();
    } catch (...) {
      finishCompiling(Sig);
      throw;
    }
    L.lock();
    EntryPtr Now = insertLocked(Sig, std::move(E));
    Compiling.erase(Sig);
    L.unlock();
    Done.notify_all();
    return Now;
  }

  // E failed after it was listed (a background compile's error, raised at
  // its first use): out of the maps, so that the next request compiles
  // again, and into failed.
  void retire(const EntryPtr &E) {
    std::lock_guard<std::mutex> L(mu);
    for (auto It = byArgs.begin(); It != byArgs.end();)
      It = It->second == E ? byArgs.erase(It) : std::next(It);
    ordered.erase(std::remove(ordered.begin(), ordered.end(), E),
                  ordered.end());
    failed.push_back(E);
    if (lastSpec == E.get())
      lastSpec = nullptr;
  }
  bool retired(const EntryPtr &E) {
    std::lock_guard<std::mutex> L(mu);
    return std::find(failed.begin(), failed.end(), E) != failed.end();
  }

private:
  std::unordered_set<Signature, SignatureHash<Elem>> Compiling;
  std::condition_variable Done;

  EntryPtr insertLocked(const Signature &Sig, EntryPtr E) {
    auto [It, New] = byArgs.emplace(Sig, std::move(E));
    if (New)
      ordered.push_back(It->second);
    return It->second;
  }
  void finishCompiling(const Signature &Sig) {
    {
      std::lock_guard<std::mutex> L(mu);
      Compiling.erase(Sig);
    }
    Done.notify_all();
  }
};

// The image of an entry for one GPU architecture among Images (pointers to
// records with ccMajor / ccMinor), or null: the caller compiles one for a
// new architecture (a multi-GPU machine) and appends it.
template <class Images>
auto imageForArch(Images &I, int CcMajor, int CcMinor) -> decltype(&*I[0]) {
  for (auto &P : I)
    if (P->ccMajor == CcMajor && P->ccMinor == CcMinor)
      return &*P;
  return nullptr;
}

// Per-device slots of an entry (records with a `gen` field: the context
// generation they were loaded in, 0: never).  The slot of Device when it
// was loaded in context generation Gen, else null (load it again: a new
// device, or a context reset since).
template <class Slots>
auto loadedOn(Slots &S, int Device, uint64_t Gen) -> decltype(&S[0]) {
  if (Device < 0 || size_t(Device) >= S.size() || S[Device].gen != Gen)
    return nullptr;
  return &S[Device];
}
// The slot of Device (made when new).
template <class Slots> auto &slotOf(Slots &S, int Device) {
  if (S.size() <= size_t(Device))
    S.resize(size_t(Device) + 1);
  return S[Device];
}

// The variant of an entry that one launch in a while needs (the entry
// without noalias when arrays overlap): built by Build() without holding
// Mu, at most kept once (the first one built wins).
template <class Entry>
Entry *variantOnce(std::mutex &Mu, std::shared_ptr<Entry> &Slot,
                   const std::function<std::shared_ptr<Entry>()> &Build) {
  std::unique_lock<std::mutex> L(Mu);
  if (!Slot) {
    L.unlock(); // a failed build leaves it unlocked
    std::shared_ptr<Entry> Built = Build();
    L.lock();
    if (!Slot)
      Slot = std::move(Built);
  }
  return Slot.get();
}

} // namespace pcj::jit
