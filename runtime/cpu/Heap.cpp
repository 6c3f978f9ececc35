// Heap: the CPU executor's device heap, where arrays made in kernels live
// (np.empty, a.copy(), ...; lower/Heap.cpp calls these).  Host malloc with
// CUDA's rule on top: the blocks in use together stay within a limit,
// 8 MiB unless cuda.set_malloc_heap_size() changed it, and a request
// beyond it returns null (the kernel then raises MemoryError).  Each block
// carries its size in a 16-byte prefix.  Sanitized launches see the blocks
// as device allocations: an access after the free is reported, and freed
// blocks stay in the sanitizer's quarantine, so their addresses are not
// reused while the shadow remembers them.
#include "runtime/cpu/Sanitizer.h"
#include "runtime/cpu/ThreadCtx.h"

#include <atomic>
#include <cstdlib>

namespace pcj::rt::cpu {

namespace {
constexpr size_t kPrefix = 16;
std::atomic<size_t> Limit{size_t(8) << 20};
std::atomic<size_t> InUse{0};

void release(void *Data) { std::free(static_cast<char *>(Data) - kPrefix); }
} // namespace

size_t heapLimit() { return Limit.load(std::memory_order_relaxed); }
void setHeapLimit(size_t Bytes) {
  Limit.store(Bytes, std::memory_order_relaxed);
}
size_t heapBytesInUse() { return InUse.load(std::memory_order_relaxed); }

} // namespace pcj::rt::cpu

using namespace pcj::rt::cpu;

extern "C" void *pcj_cpu_heap_alloc(uint64_t Bytes) {
  size_t Now = InUse.load(std::memory_order_relaxed);
  size_t Max = Limit.load(std::memory_order_relaxed);
  do {
    if (Now > Max || Bytes > Max - Now)
      return nullptr;
  } while (!InUse.compare_exchange_weak(Now, Now + Bytes,
                                        std::memory_order_relaxed));
  void *Raw = std::aligned_alloc(16, kPrefix + ((Bytes + 15) & ~uint64_t(15)));
  if (!Raw) {
    InUse.fetch_sub(Bytes, std::memory_order_relaxed);
    return nullptr;
  }
  *static_cast<uint64_t *>(Raw) = Bytes;
  void *Data = static_cast<char *>(Raw) + kPrefix;
  if (pcj::rt::cpu::san::armed())
    pcj::rt::cpu::san::noteAlloc(Data, Bytes, true);
  return Data;
}

extern "C" void pcj_cpu_heap_free(void *Data) {
  if (!Data)
    return;
  uint64_t Bytes =
      *reinterpret_cast<uint64_t *>(static_cast<char *>(Data) - kPrefix);
  InUse.fetch_sub(Bytes, std::memory_order_relaxed);
  if (pcj::rt::cpu::san::armed() &&
      pcj::rt::cpu::san::noteFree(Data, Bytes, release))
    return;
  release(Data);
}
