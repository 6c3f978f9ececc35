// Printf: pcj_cpu_vprintf, CUDA's device-side vprintf for the CPU executor.
//
// The compiler packs printf's arguments like CUDA does: after C's default
// promotions (char/short -> int, float -> double), each at an offset aligned
// to its own size: 4 bytes for int, 8 for long long / size_t / double /
// pointers (including %s strings).  This walks the format string, reads each
// argument per its conversion and length modifier, formats it with the host
// snprintf and writes the whole line with one fwrite under a mutex, then
// flushes, so output from concurrent CUDA threads never interleaves.
//
//   fmt "%d %5.2f %s\n", buffer {int32 7, pad 4, double 3.14159, char* "x"}
//   -> "7  3.14 x\n", returns 3 (arguments consumed)
//
// Supported: %d %i %u %x %X %o %c %s %p %f %F %e %E %g %G %a %A %%, flags
// "-+ #0", width and precision (digits or '*', read as int), length
// modifiers hh h l ll z j t (and L, q, treated like the 64-bit ones / double).
// %n is consumed and ignored.  Anything else is copied verbatim.  Returns the
// number of arguments read (like CUDA), -1 for a null format.
#include "runtime/cpu/BlockState.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

namespace pcj::rt::cpu::detail {

std::mutex &printMutex() {
  static std::mutex *Mu = new std::mutex(); // leaked: usable at exit
  return *Mu;
}

namespace {

class ArgReader {
public:
  explicit ArgReader(const void *Args)
      : Base(static_cast<const unsigned char *>(Args)) {}

  template <typename T> T read() {
    T V{};
    if (!Base)
      return V; // no buffer: the format names more arguments than exist
    Offset = (Offset + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    std::memcpy(&V, Base + Offset, sizeof(T));
    Offset += sizeof(T);
    ++Count;
    return V;
  }
  int32_t count() const { return Count; }

private:
  const unsigned char *Base;
  size_t Offset = 0;
  int32_t Count = 0;
};

__attribute__((format(printf, 2, 3))) void appendf(std::string &Out,
                                                   const char *Fmt, ...) {
  char Small[256];
  va_list Ap;
  va_start(Ap, Fmt);
  int N = std::vsnprintf(Small, sizeof Small, Fmt, Ap);
  va_end(Ap);
  if (N < 0)
    return;
  if (static_cast<size_t>(N) < sizeof Small) {
    Out.append(Small, static_cast<size_t>(N));
    return;
  }
  size_t Old = Out.size();
  Out.resize(Old + static_cast<size_t>(N) + 1);
  va_start(Ap, Fmt);
  std::vsnprintf(&Out[Old], static_cast<size_t>(N) + 1, Fmt, Ap);
  va_end(Ap);
  Out.resize(Old + static_cast<size_t>(N));
}

enum class Length { None, HH, H, L, LL, Big /* z j t */, LongDouble };

// Formats one value with the host printf; Spec is "%<flags><width><prec>".
template <typename T>
void formatValue(std::string &Out, std::string Spec, const char *LengthMod,
                 char Conv, T Value) {
  Spec += LengthMod;
  Spec += Conv;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  appendf(Out, Spec.c_str(), Value);
#pragma GCC diagnostic pop
}

// Formats Fmt with Args into Out; returns the number of arguments read.
int32_t formatCuda(std::string &Out, const char *Fmt, const void *Args) {
  ArgReader R(Args);
  const char *P = Fmt;
  while (*P) {
    if (*P != '%') {
      const char *Next = std::strchr(P, '%');
      size_t N = Next ? static_cast<size_t>(Next - P) : std::strlen(P);
      Out.append(P, N);
      P += N;
      continue;
    }
    const char *Start = P++;
    if (*P == '%') {
      Out += '%';
      ++P;
      continue;
    }
    std::string Spec = "%";
    while (*P && std::strchr("-+ #0", *P))
      Spec += *P++;
    if (*P == '*') {
      Spec += std::to_string(R.read<int32_t>());
      ++P;
    } else {
      while (*P >= '0' && *P <= '9')
        Spec += *P++;
    }
    if (*P == '.') {
      ++P;
      if (*P == '*') {
        int32_t Prec = R.read<int32_t>();
        if (Prec >= 0) // a negative precision is taken as omitted
          Spec += "." + std::to_string(Prec);
        ++P;
      } else {
        Spec += '.';
        while (*P >= '0' && *P <= '9')
          Spec += *P++;
      }
    }
    Length Len = Length::None;
    if (P[0] == 'h' && P[1] == 'h') {
      Len = Length::HH;
      P += 2;
    } else if (P[0] == 'l' && P[1] == 'l') {
      Len = Length::LL;
      P += 2;
    } else if (*P == 'h') {
      Len = Length::H;
      ++P;
    } else if (*P == 'l') {
      Len = Length::L;
      ++P;
    } else if (*P == 'q') {
      Len = Length::LL;
      ++P;
    } else if (*P == 'z' || *P == 'j' || *P == 't') {
      Len = Length::Big;
      ++P;
    } else if (*P == 'L') {
      Len = Length::LongDouble;
      ++P;
    }
    char Conv = *P;
    if (Conv == '\0') { // truncated specification: copy it
      Out.append(Start);
      break;
    }
    ++P;
    bool Wide = Len == Length::L || Len == Length::LL || Len == Length::Big ||
                Len == Length::LongDouble;
    switch (Conv) {
    case 'd':
    case 'i':
      if (Wide) {
        formatValue(Out, Spec, "ll", Conv,
                    static_cast<long long>(R.read<int64_t>()));
      } else {
        int32_t V = R.read<int32_t>();
        if (Len == Length::HH)
          formatValue(Out, Spec, "", Conv, int(static_cast<signed char>(V)));
        else if (Len == Length::H)
          formatValue(Out, Spec, "", Conv, int(static_cast<short>(V)));
        else
          formatValue(Out, Spec, "", Conv, int(V));
      }
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      if (Wide) {
        formatValue(Out, Spec, "ll", Conv,
                    static_cast<unsigned long long>(R.read<uint64_t>()));
      } else {
        uint32_t V = R.read<uint32_t>();
        if (Len == Length::HH)
          V = static_cast<unsigned char>(V);
        else if (Len == Length::H)
          V = static_cast<unsigned short>(V);
        formatValue(Out, Spec, "", Conv, static_cast<unsigned>(V));
      }
      break;
    case 'c':
      formatValue(Out, Spec, "", 'c',
                  int(static_cast<unsigned char>(R.read<int32_t>())));
      break;
    case 's': {
      auto Ptr = static_cast<uintptr_t>(R.read<uint64_t>());
      const char *Str = reinterpret_cast<const char *>(Ptr);
      formatValue(Out, Spec, "", 's', Str ? Str : "(null)");
      break;
    }
    case 'p': {
      auto Ptr = static_cast<uintptr_t>(R.read<uint64_t>());
      formatValue(Out, Spec, "", 'p', reinterpret_cast<void *>(Ptr));
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      formatValue(Out, Spec, "", Conv, R.read<double>());
      break;
    case 'n':
      (void)R.read<uint64_t>(); // CUDA does not support %n
      break;
    default: // unknown conversion: print it as written
      Out.append(Start, static_cast<size_t>(P - Start));
      break;
    }
  }
  return R.count();
}

} // namespace
} // namespace pcj::rt::cpu::detail

extern "C" int32_t pcj_cpu_vprintf(const char *fmt, const void *args) {
  using namespace pcj::rt::cpu::detail;
  if (!fmt)
    return -1;
  try {
    std::string Out;
    int32_t N = formatCuda(Out, fmt, args);
    std::lock_guard<std::mutex> Lock(printMutex());
    std::fwrite(Out.data(), 1, Out.size(), stdout);
    std::fflush(stdout);
    return N;
  } catch (...) {
    return -2; // CUDA: internal error
  }
}
