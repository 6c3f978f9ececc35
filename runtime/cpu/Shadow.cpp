// Shadow: the sanitizer's shadow memory, one Cell (SanitizerState.h) per
// 4-byte granule of every address a sanitized kernel touches.
//
// A three-level table over 48-bit addresses: granule index g = addr >> 2;
// the top 13 bits of g pick a second-level table (8192 entries, created on
// demand), the next 13 bits a chunk of 2^20 cells (4 MiB of memory, 64 MiB
// of cells, one cache line each), the low 20 bits the cell.  Chunks are
// anonymous mappings with MAP_NORESERVE, so only the pages of cells actually
// used take memory, and zeroed ranges are given back with madvise.  Tables and
// chunks are published with a compare-and-swap and never unmapped (the process
// keeps them; a later launch reuses them).
//
//   addr 0x7f12_3456_789c  ->  g = addr >> 2
//   L1[g >> 33] -> L2[(g >> 20) & 8191] -> chunk[g & 0xfffff]
#include "runtime/cpu/SanitizerState.h"

#include <cstring>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

namespace pcj::rt::cpu::san::detail {
namespace {

constexpr unsigned kChunkBits = 20, kL2Bits = 13, kL1Bits = 13;
constexpr uint64_t kChunkCells = uint64_t(1) << kChunkBits;
constexpr size_t kChunkBytes = kChunkCells * sizeof(Cell);

using Chunk = Cell;
struct L2Table {
  std::atomic<Chunk *> chunks[size_t(1) << kL2Bits];
};
std::atomic<L2Table *> L1[size_t(1) << kL1Bits];

L2Table *l2For(uint64_t Index, bool Create) {
  L2Table *T = L1[Index].load(std::memory_order_acquire);
  if (T || !Create)
    return T;
  auto *Fresh = new L2Table(); // value-initialized: all null
  if (L1[Index].compare_exchange_strong(T, Fresh, std::memory_order_acq_rel))
    return Fresh;
  delete Fresh;
  return T;
}

Chunk *chunkFor(L2Table &T, uint64_t Index, bool Create) {
  Chunk *C = T.chunks[Index].load(std::memory_order_acquire);
  if (C || !Create)
    return C;
  void *M = mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (M == MAP_FAILED)
    throw std::bad_alloc();
  auto *Fresh = static_cast<Chunk *>(M);
  if (T.chunks[Index].compare_exchange_strong(C, Fresh,
                                              std::memory_order_acq_rel))
    return Fresh;
  munmap(M, kChunkBytes);
  return C;
}

// Calls F(first cell, count) for each run of existing cells of [Lo, Hi)
// within one chunk (Create: making the chunks).
template <typename Fn>
void forCellRuns(uintptr_t Lo, uintptr_t Hi, bool Create, Fn F) {
  uint64_t G = Lo >> 2, End = (Hi + 3) >> 2;
  while (G < End) {
    uint64_t ChunkEnd = (G | (kChunkCells - 1)) + 1;
    uint64_t Stop = ChunkEnd < End ? ChunkEnd : End;
    uint64_t Top = G >> (kChunkBits + kL2Bits);
    if (Top >= (uint64_t(1) << kL1Bits))
      return;
    if (L2Table *T = l2For(Top, Create))
      if (Chunk *C =
              chunkFor(*T, (G >> kChunkBits) & ((1u << kL2Bits) - 1), Create))
        F(C + (G & (kChunkCells - 1)), Stop - G);
    G = Stop;
  }
}

// Zeroes Count cells; whole pages inside go back to the system (so that
// clearing never makes memory resident).
void zeroCells(Cell *First, uint64_t Count) {
  char *Lo = reinterpret_cast<char *>(First);
  char *Hi = Lo + Count * sizeof(Cell);
  static const uintptr_t Page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t PLo = (uintptr_t(Lo) + Page - 1) & ~(Page - 1);
  uintptr_t PHi = uintptr_t(Hi) & ~(Page - 1);
  if (PHi > PLo) {
    std::memset(Lo, 0, PLo - uintptr_t(Lo));
    madvise(reinterpret_cast<void *>(PLo), PHi - PLo, MADV_DONTNEED);
    std::memset(reinterpret_cast<void *>(PHi), 0, uintptr_t(Hi) - PHi);
    return;
  }
  std::memset(Lo, 0, Hi - Lo);
}

} // namespace

Cell *cellFor(uintptr_t Addr) {
  uint64_t G = Addr >> 2;
  uint64_t Top = G >> (kChunkBits + kL2Bits);
  if (Top >= (uint64_t(1) << kL1Bits))
    return nullptr;
  L2Table *T = L1[Top].load(std::memory_order_acquire);
  if (!T)
    T = l2For(Top, true);
  uint64_t Mid = (G >> kChunkBits) & ((1u << kL2Bits) - 1);
  Chunk *C = T->chunks[Mid].load(std::memory_order_acquire);
  if (!C)
    C = chunkFor(*T, Mid, true);
  return C + (G & (kChunkCells - 1));
}

void clearCells(uintptr_t Lo, uintptr_t Hi) {
  forCellRuns(Lo, Hi, false, zeroCells);
}

} // namespace pcj::rt::cpu::san::detail
