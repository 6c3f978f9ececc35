// GpuTargets: the architecture tables and the target choice (GpuTargets.h).
#include "support/GpuTargets.h"
#include "support/Env.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>

namespace pcj {

namespace {

// The architectures LLVM 22's NVPTX backend knows from Turing on, with the
// lowest PTX ISA it emits for each (plain / 'a' / 'f'; 0: no such variant)
// and the CUDA releases whose tools accept it: from `since`, before `until`
// (0: still accepted).  CUDA 13.0 dropped sm_70/72 and renamed sm_101 to
// sm_110.
struct ArchRow {
  int cc;
  int isa, isaA, isaF;
  int since, until;
};
constexpr ArchRow kArchs[] = {
    {70, 60, 0, 0, 9000, 13000},     {72, 61, 0, 0, 9020, 13000},
    {75, 63, 0, 0, 10000, 0},        {80, 70, 0, 0, 11000, 0},
    {86, 71, 0, 0, 11010, 0},        {87, 74, 0, 0, 11040, 0},
    {88, 90, 0, 0, 13000, 0},        {89, 78, 0, 0, 11080, 0},
    {90, 78, 80, 0, 11080, 0},       {100, 86, 86, 88, 12080, 0},
    {101, 86, 86, 88, 12080, 13000}, {103, 88, 88, 88, 12090, 0},
    {110, 90, 90, 90, 13000, 0},     {120, 87, 87, 88, 12080, 0},
    {121, 88, 88, 88, 12090, 0},
};

// The PTX ISA (x10) each CUDA release reads.
struct IsaRow {
  int cuda, isa;
};
constexpr IsaRow kIsas[] = {
    {11080, 78}, {12000, 80}, {12010, 81}, {12020, 82},
    {12030, 83}, {12040, 84}, {12050, 85}, {12060, 85},
    {12080, 87}, {12090, 88}, {13000, 90}, {13010, 91},
};

// pycuda_jit emits PTX ISA 7.8 at least (Targets.h).
constexpr int kMinIsa = 78;

const ArchRow *rowFor(int Cc) {
  for (const ArchRow &R : kArchs)
    if (R.cc == Cc)
      return &R;
  return nullptr;
}

[[noreturn]] void backendError(std::string Msg) {
  throw CompileError(ErrorKind::Backend, SourceLoc{}, std::move(Msg));
}

std::string ccText(int Cc) {
  return std::to_string(Cc / 10) + "." + std::to_string(Cc % 10);
}

std::string cudaText(int V) {
  return std::to_string(V / 1000) + "." + std::to_string(V % 1000 / 10);
}

// Whether the code generator and the toolchain both take Arch, its PTX ISA
// within MaxIsa (0: any).
bool usable(const GpuArch &Arch, const GpuToolchain &T, int MaxIsa) {
  const ArchRow *R = rowFor(Arch.cc());
  int Isa = minPtxIsaFor(Arch);
  if (!R || !Isa)
    return false;
  int Lo = 0, Hi = 0;
  for (int V : {T.driverVersion, T.linkerVersion}) {
    if (!V)
      continue;
    Lo = Lo ? std::min(Lo, V) : V;
    Hi = std::max(Hi, V);
  }
  if (Lo && R->since > Lo)
    return false;
  if (R->until && (Hi ? Hi >= R->until : true)) // unknown tools: CUDA 13
    return false;
  return !MaxIsa || std::max(Isa, kMinIsa) <= MaxIsa;
}

} // namespace

std::string GpuArch::name(const char *Prefix) const {
  std::string S = Prefix + std::to_string(major) + std::to_string(minor);
  if (suffix)
    S += suffix;
  return S;
}

std::string GpuTargetChoice::describe() const {
  if (!jit)
    return "native " + ptxArch.name();
  return ptxArch.name() + " PTX JIT-compiled for " + device.name();
}

std::string GpuTargetChoice::keyText() const {
  std::string S = ptxArch.name();
  if (jit)
    S += ">" + device.name();
  if (maxPtxIsa)
    S += " isa" + std::to_string(maxPtxIsa);
  return S;
}

int ptxIsaForCuda(int CudaVersion) {
  int Isa = 0;
  for (const IsaRow &R : kIsas)
    if (CudaVersion >= R.cuda)
      Isa = R.isa;
  return Isa;
}

int minPtxIsaFor(const GpuArch &Arch) {
  const ArchRow *R = rowFor(Arch.cc());
  if (!R)
    return 0;
  switch (Arch.suffix) {
  case 0:
    return R->isa;
  case 'a':
    return R->isaA;
  case 'f':
    return R->isaF;
  default:
    return 0;
  }
}

bool codegenKnowsArch(const GpuArch &Arch) { return minPtxIsaFor(Arch) != 0; }

std::string knownArchList() {
  std::string S;
  for (const ArchRow &R : kArchs)
    S += (S.empty() ? "sm_" : " sm_") + std::to_string(R.cc);
  return S;
}

GpuTargetChoice chooseGpuTarget(const GpuArch &Device,
                                const GpuToolchain &Tools) {
  GpuTargetChoice C;
  C.device = Device;
  int Lo = 0;
  for (int V : {Tools.driverVersion, Tools.linkerVersion})
    if (V)
      Lo = Lo ? std::min(Lo, V) : V;
  C.maxPtxIsa = Lo ? ptxIsaForCuda(Lo) : 0;
  auto Fits = [&](const GpuArch &A) {
    return usable(A, Tools, C.maxPtxIsa) &&
           (!Tools.newestCc || A.cc() <= Tools.newestCc);
  };
  if (Fits(Device)) {
    C.ptxArch = Device;
    return C;
  }
  std::string Why = Lo ? " with CUDA " + cudaText(Lo) : "";
  if (Device.suffix)
    backendError("architecture " + Device.name() +
                 " is not supported by pycuda_jit's code generator" + Why +
                 " (arch-specific code runs only on that GPU, so there is no "
                 "PTX fallback); known: " +
                 knownArchList());
  // The newest architecture below the device: its plain PTX runs on every
  // newer GPU through the JIT.
  for (auto It = std::rbegin(kArchs); It != std::rend(kArchs); ++It) {
    GpuArch A{It->cc / 10, It->cc % 10, 0};
    if (A.cc() < Device.cc() && Fits(A)) {
      C.ptxArch = A;
      C.jit = true;
      return C;
    }
  }
  backendError("compute capability " + ccText(Device.cc()) + " (" +
               Device.name() + ") cannot be compiled for" + Why +
               (Device.cc() < 75 ? ": CUDA 13 dropped Volta (sm_70/72); use a "
                                   "CUDA 12 driver and toolkit (nvJitLink 12)"
                                 : "") +
               "; known architectures: " + knownArchList());
}

int newestCcFromEnv() {
  const char *Env = env::raw(env::Var::NewestCc);
  if (!Env || !*Env)
    return 0;
  std::string S(Env);
  size_t Dot = S.find('.');
  char *End = nullptr;
  long Major = std::strtol(S.c_str(), &End, 10);
  long Minor = -1;
  if (Dot != std::string::npos && End == S.c_str() + Dot)
    Minor = std::strtol(S.c_str() + Dot + 1, &End, 10);
  if (Major < 1 || Major > 99 || Minor < 0 || Minor > 9 || *End)
    backendError("PYCUDA_JIT_NEWEST_CC must look like 8.0 (a compute "
                 "capability), not '" +
                 S + "'");
  return int(Major * 10 + Minor);
}

} // namespace pcj
