// ErrorRecord: per-context error records, module site tables, the check at
// synchronizing calls.  See ErrorRecord.h.
#include "runtime/ErrorRecord.h"

#include "runtime/Device.h"
#include "runtime/ErrorRecordAbi.h"
#include "runtime/Errors.h"
#include "runtime/Module.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace pcj::rt {

namespace {

constexpr int kMaxDevices = 64;

// Device Ordinal's record: host address, and the context generation it
// was allocated in (the pinned memory goes with a reset context).
struct Slot {
  std::atomic<ErrorRecord *> host{nullptr};
  std::atomic<uint64_t> generation{0};
  CUdeviceptr device = 0;
};
Slot Slots[kMaxDevices];

// Allocation and the site tables.  Immortal (never destroyed): a thread
// still synchronizing while the process exits must not find them torn down
// by static destruction.
struct RecordState {
  std::mutex Mu;
  std::unordered_map<uint32_t, std::shared_ptr<const std::vector<ErrorSite>>>
      Tables;
  uint32_t NextModuleId = 1;
};
RecordState &state() {
  static RecordState *S = new RecordState();
  return *S;
}

std::string dims(const uint32_t D[3]) {
  std::string S = "(";
  for (int K = 0; K < 3; ++K)
    S.append(K ? ", " : "").append(std::to_string(D[K]));
  return S + ")";
}

// The context's record (current context), allocated on first use.
CUdeviceptr recordOf(Context &Ctx) {
  Slot &S = Slots[Ctx.device()];
  if (S.host.load(std::memory_order_acquire) &&
      S.generation.load(std::memory_order_acquire) == Ctx.generation())
    return S.device;
  void *P = nullptr;
  check(
      Ctx.api().cuMemHostAlloc(&P, sizeof(ErrorRecord),
                               kMemHostAllocDeviceMap | kMemHostAllocPortable),
      "cuMemHostAlloc");
  auto *R = static_cast<ErrorRecord *>(P);
  *R = ErrorRecord{};
  CUdeviceptr D = 0;
  check(Ctx.api().cuMemHostGetDevicePointer(&D, P, 0),
        "cuMemHostGetDevicePointer");
  S.device = D;
  S.generation.store(Ctx.generation(), std::memory_order_release);
  S.host.store(R, std::memory_order_release);
  return D;
}

} // namespace

KernelRaised errorOfRecord(const ErrorRecord &R,
                           const std::vector<ErrorSite> *Table) {
  static const ErrorSite Unknown{"KernelError",
                                 "",
                                 "a kernel failed at an unknown error site",
                                 "<unknown>",
                                 "",
                                 0,
                                 -1,
                                 0};
  const ErrorSite &Site =
      Table && R.site < Table->size() ? (*Table)[R.site] : Unknown;
  std::string Message = Site.message;
  if (Site.axis >= 0) {
    // As the CPU executor words it (runtime/cpu/KernelErrors.cpp).
    int A = Site.rank ? Site.axis : 0;
    Message = "index ";
    Message.append(std::to_string(R.values[A]))
        .append(" is out of bounds for axis ")
        .append(std::to_string(Site.axis))
        .append(" with size ")
        .append(std::to_string(R.values[kMaxRecordedRank + A]));
    auto Tuple = [&](const int64_t *V) {
      std::string T = "(";
      for (int K = 0; K < Site.rank; ++K)
        T.append(K ? ", " : "").append(std::to_string(V[K]));
      return T + (Site.rank == 1 ? ",)" : ")");
    };
    if (Site.rank)
      Message.append(" (index ")
          .append(Tuple(R.values))
          .append(" into shape ")
          .append(Tuple(R.values + kMaxRecordedRank))
          .append(")");
  } else if (Message.empty()) {
    Message = Site.exception.empty() ? Site.errorClass : Site.exception;
  }
  return KernelRaised(Site, Message, R.thread, R.block);
}

KernelRaised::KernelRaised(const ErrorSite &S, const std::string &Message,
                           const uint32_t T[3], const uint32_t B[3])
    : std::runtime_error(Message + " in kernel '" + S.kernel + "' (" + S.file +
                         ":" + std::to_string(S.line) + "), thread " + dims(T) +
                         " block " + dims(B)),
      Site(S), Thread{T[0], T[1], T[2]}, Block{B[0], B[1], B[2]} {}

bool parseErrorSites(const std::string &Table, std::vector<ErrorSite> &Sites) {
  std::vector<std::string> F;
  size_t Pos = 0;
  while (Pos < Table.size()) {
    size_t End = Table.find(kFieldEnd, Pos);
    if (End == std::string::npos)
      return false;
    F.push_back(Table.substr(Pos, End - Pos));
    Pos = End + 1;
  }
  if (F.size() % kErrorSiteFields)
    return false;
  for (size_t K = 0; K < F.size(); K += kErrorSiteFields) {
    ErrorSite S;
    S.errorClass = F[K + kSiteErrorClass];
    S.exception = F[K + kSiteException];
    S.message = F[K + kSiteMessage];
    S.kernel = F[K + kSiteKernel];
    S.file = F[K + kSiteFile];
    char *E = nullptr;
    S.line = int(std::strtol(F[K + kSiteLine].c_str(), &E, 10));
    if (*E)
      return false;
    S.axis = int(std::strtol(F[K + kSiteAxis].c_str(), &E, 10));
    if (*E)
      return false;
    S.rank = int(std::strtol(F[K + kSiteRank].c_str(), &E, 10));
    if (*E || S.rank < 0 || S.rank > int(kMaxRecordedRank) ||
        (S.rank && S.axis >= S.rank))
      return false;
    Sites.push_back(std::move(S));
  }
  return true;
}

void attachErrorRecord(Module &M) {
  Context &Ctx = currentContext();
  const CudaApi &Cu = Ctx.api();
  CUdeviceptr RecG = 0, SitesG = 0;
  size_t RecBytes = 0, SitesBytes = 0;
  CUresult R =
      Cu.cuModuleGetGlobal(&RecG, &RecBytes, M.handle(), kErrorRecordGlobal);
  if (R == CUDA_ERROR_NOT_FOUND)
    return; // no error sites
  check(R, "cuModuleGetGlobal");
  check(
      Cu.cuModuleGetGlobal(&SitesG, &SitesBytes, M.handle(), kErrorSitesGlobal),
      "cuModuleGetGlobal");
  std::string Table(SitesBytes, '\0');
  if (SitesBytes)
    check(Cu.cuMemcpyDtoH(Table.data(), SitesG, SitesBytes), "cuMemcpyDtoH");
  auto Sites = std::make_shared<std::vector<ErrorSite>>();
  if (!parseErrorSites(Table, *Sites))
    Sites->clear(); // reported as an unknown site
  RecordState &St = state();
  std::lock_guard<std::mutex> L(St.Mu);
  uint64_t Words[2] = {recordOf(Ctx), St.NextModuleId};
  St.Tables.emplace(St.NextModuleId++, std::move(Sites));
  check(Cu.cuMemcpyHtoD(RecG, Words, sizeof Words), "cuMemcpyHtoD");
}

void checkErrorRecord(int Ordinal) {
  if (Ordinal < 0 || Ordinal >= kMaxDevices)
    return;
  Slot &S = Slots[Ordinal];
  ErrorRecord *R = S.host.load(std::memory_order_acquire);
  if (!R) [[likely]]
    return;
  if (S.generation.load(std::memory_order_acquire) !=
      contextGeneration(Ordinal))
    return; // the context was reset: the memory went with it
  if (__atomic_load_n(&R->state, __ATOMIC_ACQUIRE) != kRecordWritten) [[likely]]
    return;
  // Claim it (another host thread may be checking too), copy, free.
  uint32_t Expected = kRecordWritten;
  if (!__atomic_compare_exchange_n(&R->state, &Expected,
                                   uint32_t(kRecordWriting), false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  ErrorRecord Copy;
  std::memcpy(&Copy, R, sizeof Copy);
  __atomic_store_n(&R->state, uint32_t(kRecordFree), __ATOMIC_RELEASE);
  std::shared_ptr<const std::vector<ErrorSite>> Table;
  {
    RecordState &St = state();
    std::lock_guard<std::mutex> L(St.Mu);
    auto It = St.Tables.find(Copy.module);
    if (It != St.Tables.end())
      Table = It->second;
  }
  throw errorOfRecord(Copy, Table.get());
}

} // namespace pcj::rt
