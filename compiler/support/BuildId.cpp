// GNU build-id notes of loaded images and ELF files (see BuildId.h).
#include "support/BuildId.h"

#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>
#include <vector>

namespace pcj {

namespace {

std::string hex(const uint8_t *P, size_t N) {
  static const char Digits[] = "0123456789abcdef";
  std::string S;
  for (size_t K = 0; K < N; ++K) {
    S += Digits[P[K] >> 4];
    S += Digits[P[K] & 15];
  }
  return S;
}

// The NT_GNU_BUILD_ID descriptor among the notes of one PT_NOTE segment
// (Size bytes at P, entries padded to Align).
std::string buildIdInNotes(const uint8_t *P, size_t Size, size_t Align) {
  auto Pad = [Align](size_t N) { return (N + Align - 1) / Align * Align; };
  size_t Off = 0;
  while (Off + sizeof(ElfW(Nhdr)) <= Size) {
    ElfW(Nhdr) H;
    std::memcpy(&H, P + Off, sizeof H);
    size_t Name = Off + sizeof H, Desc = Name + Pad(H.n_namesz);
    if (Desc > Size || H.n_descsz > Size - Desc)
      return "";
    if (H.n_type == NT_GNU_BUILD_ID && H.n_namesz == 4 &&
        std::memcmp(P + Name, "GNU", 4) == 0)
      return hex(P + Desc, H.n_descsz);
    Off = Desc + Pad(H.n_descsz);
  }
  return "";
}

size_t noteAlign(uint64_t PAlign) { return PAlign == 8 ? 8 : 4; }

struct Search {
  uintptr_t address;
  std::string id;
  bool found = false;
};

int visitImage(dl_phdr_info *Info, size_t, void *Data) {
  auto *S = static_cast<Search *>(Data);
  bool Contains = false;
  for (int K = 0; K < Info->dlpi_phnum && !Contains; ++K) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[K];
    uintptr_t Start = Info->dlpi_addr + P.p_vaddr;
    Contains = P.p_type == PT_LOAD && S->address >= Start &&
               S->address < Start + P.p_memsz;
  }
  if (!Contains)
    return 0;
  S->found = true;
  for (int K = 0; K < Info->dlpi_phnum && S->id.empty(); ++K) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[K];
    if (P.p_type == PT_NOTE)
      S->id = buildIdInNotes(
          reinterpret_cast<const uint8_t *>(Info->dlpi_addr + P.p_vaddr),
          P.p_memsz, noteAlign(P.p_align));
  }
  return 1; // stop
}

bool readAt(int Fd, void *Out, size_t N, uint64_t Off) {
  size_t Got = 0;
  while (Got < N) {
    ssize_t R =
        ::pread(Fd, static_cast<char *>(Out) + Got, N - Got, off_t(Off + Got));
    if (R <= 0)
      return false;
    Got += size_t(R);
  }
  return true;
}

std::string buildIdOfFd(int Fd) {
  Elf64_Ehdr E;
  if (!readAt(Fd, &E, sizeof E, 0) ||
      std::memcmp(E.e_ident, ELFMAG, SELFMAG) != 0 ||
      E.e_ident[EI_CLASS] != ELFCLASS64 ||
      E.e_phentsize != sizeof(Elf64_Phdr) || E.e_phnum == 0 || E.e_phnum > 256)
    return "";
  std::vector<Elf64_Phdr> Ph(E.e_phnum);
  if (!readAt(Fd, Ph.data(), Ph.size() * sizeof(Elf64_Phdr), E.e_phoff))
    return "";
  for (const Elf64_Phdr &P : Ph) {
    if (P.p_type != PT_NOTE || P.p_filesz > 64 * 1024)
      continue;
    std::vector<uint8_t> Notes(P.p_filesz);
    if (!readAt(Fd, Notes.data(), Notes.size(), P.p_offset))
      return "";
    std::string Id =
        buildIdInNotes(Notes.data(), Notes.size(), noteAlign(P.p_align));
    if (!Id.empty())
      return Id;
  }
  return "";
}

} // namespace

std::string buildIdOfLoadedImage(const void *Address) {
  Search S{reinterpret_cast<uintptr_t>(Address), {}};
  dl_iterate_phdr(visitImage, &S);
  return S.id;
}

std::string buildIdOfFile(const std::string &Path) {
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0)
    return "";
  std::string Id = buildIdOfFd(Fd);
  ::close(Fd);
  return Id;
}

} // namespace pcj
