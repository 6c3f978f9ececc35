// SanitizerReport: the sanitizer's access sites, its findings as messages,
// and the process-wide report (Sanitizer.h).
//
// Sites are registered on first use: the compiler emits each as a writable
// pcj_san_site whose id is 0; the first access copies its strings here and
// stores the id, so findings outlive the kernel's machine code.  A launch
// collects compact RawFindings (deduplicated by kind and site pair); when
// it ends they become Findings -- sites resolved, block serials turned back
// into block indices -- ordered use-after-free, race, uninitialized, then
// by source line, and the first is the launch's error.
#include "runtime/cpu/SanitizerState.h"
#include "support/Env.h"

#include <algorithm>
#include <cstdlib>
#include <deque>

namespace pcj::rt::cpu::san {
namespace detail {
namespace {

struct SiteTable {
  std::mutex mu;
  std::deque<SiteInfo> sites; // id - 1
};
SiteTable &siteTable() {
  static auto *T = new SiteTable();
  return *T;
}

struct ProcessReport {
  std::mutex mu;
  std::vector<Finding> findings;
  std::set<std::string> keys;
  uint64_t dropped = 0;
};
ProcessReport &processReport() {
  static auto *R = new ProcessReport();
  return *R;
}

const char *opName(uint8_t Op) {
  return Op == OpRead    ? "read"
         : Op == OpWrite ? "write"
         : Op == OpSync  ? "sync"
                         : "atomic";
}

std::string arrayDesc(const SiteInfo &S) {
  uint32_t Space = S.flags & (3 << 2);
  std::string D = Space == PCJ_SAN_SHARED  ? "shared array"
                  : Space == PCJ_SAN_LOCAL ? "local array"
                                           : "array";
  if (!S.array.empty())
    D += " '" + S.array + "'";
  return D;
}

std::string at(const Access &A) {
  return A.file + ":" + std::to_string(A.line);
}

std::string who(const Access &A) {
  return "thread " + cpu::detail::dimsString(A.thread) + " block " +
         (A.known ? cpu::detail::dimsString(A.block) : std::string("(?)"));
}

Access accessOf(const Grid &G, const Rec &R, const SiteInfo &S,
                const std::unordered_map<uint32_t, uint64_t> &Blocks) {
  Access A;
  A.op = opName(R.op);
  A.file = S.file;
  A.line = S.line;
  A.col = S.col;
  A.endCol = S.endCol;
  A.thread = cpu::detail::threadIdxOf(G.BlockDim, R.tid);
  auto It = Blocks.find(R.blk);
  A.known = It != Blocks.end();
  if (A.known) {
    uint64_t L = It->second, PerPlane = uint64_t(G.GridDim.x) * G.GridDim.y;
    A.block =
        Dims{uint32_t(L % G.GridDim.x),
             uint32_t((L / G.GridDim.x) % G.GridDim.y), uint32_t(L / PerPlane)};
  }
  return A;
}

Finding format(const Grid &G, const RawFinding &R,
               const std::unordered_map<uint32_t, uint64_t> &Blocks) {
  Finding F;
  F.kind = R.kind;
  F.kernel = G.Name;
  F.index = R.index;
  SiteInfo S2 = siteInfo(R.second.site);
  F.array = S2.array;
  std::string Elem = R.index >= 0
                         ? arrayDesc(S2) + " element " + std::to_string(R.index)
                         : "a record of " + arrayDesc(S2);
  std::string In = " in kernel '" + F.kernel + "'";
  if (R.kind == Finding::Kind::Race) {
    SiteInfo S1 = siteInfo(R.first.site);
    F.accesses.push_back(accessOf(G, R.first, S1, Blocks));
    F.accesses.push_back(accessOf(G, R.second, S2, Blocks));
    const Access &A = F.accesses[0], &B = F.accesses[1];
    F.message = "data race on " + Elem + In + ": " + A.op + " by " + who(A) +
                " (" + at(A) + ") and " + B.op + " by " + who(B) + " (" +
                at(B) +
                ") are not ordered by a barrier, a warp "
                "synchronization, a grid sync or an atomic";
    if (R.first.blk == R.second.blk && R.first.tid / 32 == R.second.tid / 32)
      F.message += " (lanes of one warp: since Volta they do not run in "
                   "lockstep; put cuda.syncwarp() between the two)";
    else if (R.first.blk == R.second.blk)
      F.message += " (put cuda.syncthreads() between the two)";
    return F;
  }
  F.accesses.push_back(accessOf(G, R.second, S2, Blocks));
  const Access &A = F.accesses[0];
  if (R.kind == Finding::Kind::UseAfterFree) {
    F.message = A.op + " of freed device memory (" + Elem + ")" + In + " by " +
                who(A) + " (" + at(A) +
                "): the device array it belongs to was freed";
    return F;
  }
  uint32_t Space = S2.flags & (3 << 2);
  std::string Why = Space == PCJ_SAN_SHARED
                        ? "no thread of the block wrote it before"
                    : Space == PCJ_SAN_LOCAL
                        ? "the thread did not write it before"
                        : "it belongs to a device_array that neither the host "
                          "nor a kernel wrote there";
  F.message = "read of uninitialized " + Elem + In + " by " + who(A) + " (" +
              at(A) + "): " + Why;
  return F;
}

int rank(Finding::Kind K) {
  switch (K) {
  case Finding::Kind::Bounds:
    return 0;
  case Finding::Kind::UseAfterFree:
    return 1;
  case Finding::Kind::Sync:
    return 2;
  case Finding::Kind::Race:
    return 3;
  case Finding::Kind::Uninitialized:
    return 4;
  }
  return 5;
}

bool before(const Finding &A, const Finding &B) {
  auto Key = [](const Finding &F) {
    int L0 = F.accesses.empty() ? 0 : F.accesses[0].line;
    int L1 = F.accesses.size() > 1 ? F.accesses[1].line : L0;
    return std::make_tuple(rank(F.kind), std::min(L0, L1), std::max(L0, L1),
                           F.index);
  };
  return Key(A) < Key(B);
}

std::string reportKey(const Finding &F) {
  std::string K = std::to_string(int(F.kind)) + "|" + F.kernel;
  std::vector<std::string> Lines;
  for (const Access &A : F.accesses)
    Lines.push_back(A.file + ":" + std::to_string(A.line) + ":" + A.op);
  std::sort(Lines.begin(), Lines.end());
  for (const auto &L : Lines)
    K += "|" + L;
  if (F.kind == Finding::Kind::Sync || F.kind == Finding::Kind::Bounds)
    K += "|" + F.message.substr(0, F.message.find(" thread "));
  return K;
}

void addToReport(const std::vector<Finding> &Fs) {
  ProcessReport &R = processReport();
  std::lock_guard<std::mutex> Lock(R.mu);
  for (const Finding &F : Fs) {
    if (!R.keys.insert(reportKey(F)).second)
      continue;
    if (R.findings.size() >= reportLimit()) {
      ++R.dropped;
      continue;
    }
    R.findings.push_back(F);
  }
}

} // namespace

uint32_t registerSite(pcj_san_site *S) {
  SiteTable &T = siteTable();
  std::lock_guard<std::mutex> Lock(T.mu);
  uint32_t Id = __atomic_load_n(&S->id, __ATOMIC_ACQUIRE);
  if (Id)
    return Id;
  SiteInfo I;
  I.kernel = S->kernel ? S->kernel : "";
  I.file = S->file ? S->file : "";
  I.array = S->array ? S->array : "";
  I.line = S->line;
  I.col = S->col;
  I.endCol = S->endCol;
  I.flags = S->flags;
  I.bytes = S->bytes;
  T.sites.push_back(std::move(I));
  Id = uint32_t(T.sites.size());
  __atomic_store_n(&S->id, Id, __ATOMIC_RELEASE);
  return Id;
}

SiteInfo siteInfo(uint32_t Id) {
  SiteTable &T = siteTable();
  std::lock_guard<std::mutex> Lock(T.mu);
  if (Id == 0 || Id > T.sites.size())
    return SiteInfo{};
  return T.sites[Id - 1];
}

Finding faultFinding(const Grid &G, KernelFault::Kind K) {
  Finding F;
  F.kind = K == KernelFault::Kind::IndexError ? Finding::Kind::Bounds
                                              : Finding::Kind::Sync;
  F.kernel = G.Name;
  F.message = G.FaultMessage;
  if (K == KernelFault::Kind::Sync && G.San && !G.San->syncFault.empty()) {
    std::lock_guard<std::mutex> Lock(G.San->mu);
    for (const Rec &R : G.San->syncFault)
      F.accesses.push_back(
          accessOf(G, R, siteInfo(R.site), G.San->blockOfSerial));
    return F;
  }
  Access A;
  A.op = K == KernelFault::Kind::IndexError ? "index" : "sync";
  A.file = G.FaultFile;
  A.line = G.FaultLine;
  A.thread = G.FaultThread;
  A.block = G.FaultBlock;
  F.accesses.push_back(A);
  return F;
}

std::vector<Finding> launchEnd(Grid &G) {
  SanGrid &S = *G.San;
  std::vector<Finding> Out;
  {
    std::lock_guard<std::mutex> Lock(S.mu);
    for (const RawFinding &R : S.found)
      Out.push_back(format(G, R, S.blockOfSerial));
  }
  std::stable_sort(Out.begin(), Out.end(), before);
  if (G.HasFault && G.FaultKind == KernelFault::Kind::Sync &&
      !S.syncFault.empty()) { // the error shows the first site's line
    SiteInfo First = siteInfo(S.syncFault.front().site);
    G.FaultFile = First.file;
    G.FaultLine = First.line;
  }
  if (G.HasFault &&
      ((G.FaultKind == KernelFault::Kind::IndexError && (S.checks & Bounds)) ||
       (G.FaultKind == KernelFault::Kind::Sync && (S.checks & Sync))))
    Out.insert(Out.begin(), faultFinding(G, G.FaultKind));
  addToReport(Out);
  if (S.dropped) {
    ProcessReport &R = processReport();
    std::lock_guard<std::mutex> Lock(R.mu);
    R.dropped += S.dropped;
  }
  return Out;
}

} // namespace detail

// ---- public API
// -------------------------------------------------------------------

int parseChecks(const std::string &Text) {
  if (Text.empty() || Text == "0" || Text == "none")
    return 0;
  if (Text == "1" || Text == "all")
    return All;
  int Bits = 0;
  size_t Pos = 0;
  while (Pos <= Text.size()) {
    size_t End = Text.find(',', Pos);
    if (End == std::string::npos)
      End = Text.size();
    std::string W = Text.substr(Pos, End - Pos);
    while (!W.empty() && W.front() == ' ')
      W.erase(W.begin());
    while (!W.empty() && W.back() == ' ')
      W.pop_back();
    if (W == "race")
      Bits |= Race;
    else if (W == "init")
      Bits |= Init;
    else if (W == "bounds")
      Bits |= Bounds;
    else if (W == "sync")
      Bits |= Sync;
    else if (W == "all")
      Bits |= All;
    else if (!W.empty())
      return -1;
    Pos = End + 1;
  }
  return Bits;
}

std::string checksString(uint8_t Checks) {
  std::string S;
  for (auto [Bit, Name] :
       {std::pair{Race, "race"}, std::pair{Init, "init"},
        std::pair{Bounds, "bounds"}, std::pair{Sync, "sync"}})
    if (Checks & Bit)
      S += (S.empty() ? "" : ",") + std::string(Name);
  return S;
}

const char *kindName(Finding::Kind K) {
  switch (K) {
  case Finding::Kind::Race:
    return "race";
  case Finding::Kind::Uninitialized:
    return "uninitialized";
  case Finding::Kind::UseAfterFree:
    return "use-after-free";
  case Finding::Kind::Sync:
    return "sync";
  case Finding::Kind::Bounds:
    return "bounds";
  }
  return "?";
}

std::vector<Finding> report() {
  auto &R = detail::processReport();
  std::lock_guard<std::mutex> Lock(R.mu);
  return R.findings;
}

void clearReport() {
  auto &R = detail::processReport();
  std::lock_guard<std::mutex> Lock(R.mu);
  R.findings.clear();
  R.keys.clear();
  R.dropped = 0;
}

size_t reportLimit() {
  static const size_t Limit = [] {
    const char *Env = env::raw(env::Var::SanitizeLimit);
    long N = Env && *Env ? std::strtol(Env, nullptr, 10) : 1000;
    return size_t(N < 1 ? 1 : N);
  }();
  return Limit;
}

uint64_t droppedFindings() {
  auto &R = detail::processReport();
  std::lock_guard<std::mutex> Lock(R.mu);
  return R.dropped;
}

} // namespace pcj::rt::cpu::san
