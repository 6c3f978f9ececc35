// HostCuda: foreign CUDA C compiled for the CPU executor (see HostCuda.h).
//
//   sources -> key (sources, header, compiler, flags) -> cached .so? load
//           -> else: temp dir with the header and the sources, run the
//              compiler (stdout+stderr to a file), rename into the cache,
//              load (RTLD_LOCAL), bind the context getter
#include "support/HostCuda.h"
#include "support/Env.h"
#include "support/HostCudaHeader.h"
#include "support/Sha256.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <mutex>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pcj::hostcu {

namespace {

thread_local const void *CurrentCtx = nullptr;

// What the foreign code's __pcj_cu_ctx() calls.
const void *currentCtx() { return CurrentCtx; }

bool isFile(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode) &&
         ::access(Path.c_str(), X_OK) == 0;
}

// $CXX (a path or a name on $PATH), else the first of c++, g++, clang++.
std::string findCompiler() {
  auto OnPath = [](const std::string &Name) -> std::string {
    if (Name.find('/') != std::string::npos)
      return isFile(Name) ? Name : "";
    const char *P = env::raw(env::Var::Path);
    std::string Dirs = P ? P : "/usr/local/bin:/usr/bin:/bin";
    size_t Start = 0;
    while (Start <= Dirs.size()) {
      size_t End = Dirs.find(':', Start);
      if (End == std::string::npos)
        End = Dirs.size();
      std::string Dir = Dirs.substr(Start, End - Start);
      std::string Full = (Dir.empty() ? "." : Dir) + "/" + Name;
      if (isFile(Full))
        return Full;
      Start = End + 1;
    }
    return "";
  };
  if (const char *Cxx = env::raw(env::Var::Cxx); Cxx && *Cxx) {
    // CXX may carry flags ("ccache g++"): the last word is the compiler.
    std::string S = Cxx;
    size_t Sp = S.find_last_of(' ');
    return OnPath(Sp == std::string::npos ? S : S.substr(Sp + 1));
  }
  for (const char *Name : {"c++", "g++", "clang++"})
    if (std::string Found = OnPath(Name); !Found.empty())
      return Found;
  return "";
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

bool writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Text;
  return bool(Out);
}

// Runs Argv with stdout and stderr into LogPath; the exit status, or -1.
int run(const std::vector<std::string> &Argv, const std::string &LogPath) {
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_addopen(&FA, 1, LogPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&FA, 1, 2);
  posix_spawn_file_actions_addopen(&FA, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  pid_t Pid;
  int Rc = posix_spawn(&Pid, Argv[0].c_str(), &FA, nullptr, Args.data(),
                       env::processEnvironment());
  posix_spawn_file_actions_destroy(&FA);
  if (Rc != 0)
    return -1;
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

struct Compiler {
  std::string path, version;
  std::vector<std::string> flags;
};

const Compiler &compiler() {
  static const Compiler C = [] {
    Compiler C;
    C.path = findCompiler();
    if (C.path.empty())
      return C;
    char Tmp[] = "/tmp/pcj-cxx-version-XXXXXX";
    int Fd = ::mkstemp(Tmp);
    if (Fd >= 0) {
      ::close(Fd);
      run({C.path, "--version"}, Tmp);
      std::string V = readFile(Tmp);
      C.version = V.substr(0, V.find('\n'));
      ::unlink(Tmp);
    }
    C.flags = {"-std=c++17",
               "-O2",
               "-fPIC",
               "-shared",
               "-w",
               "-fno-math-errno",
               "-fno-exceptions",
               "-ffp-contract=fast",
               "-Wl,-z,defs"};
#if defined(__x86_64__)
    // CUDA contracts a*b+c into one fma by default: the host does too
    // where it has the instruction.
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma"))
      C.flags.push_back("-mfma");
#endif
    return C;
  }();
  return C;
}

// A file name for source K that keeps the user's base name readable in the
// compiler's messages (which are mapped back to the source's name).
std::string unitName(const Source &S, size_t K) {
  std::string Base = S.name.substr(S.name.find_last_of('/') + 1);
  std::string Clean;
  for (char C : Base)
    Clean += (isalnum((unsigned char)C) || C == '.' || C == '_' || C == '-')
                 ? C
                 : '_';
  if (Clean.size() < 3 || Clean.compare(Clean.size() - 3, 3, ".cu") != 0)
    Clean += ".cu";
  return "u" + std::to_string(K) + "_" + Clean;
}

std::string replaceAll(std::string S, const std::string &From,
                       const std::string &To) {
  if (From.empty())
    return S;
  for (size_t At = S.find(From); At != std::string::npos;
       At = S.find(From, At + To.size()))
    S.replace(At, From.size(), To);
  return S;
}

bool makeDirs(const std::string &Dir) {
  for (size_t I = 1; I <= Dir.size(); ++I)
    if (I == Dir.size() || Dir[I] == '/')
      if (::mkdir(Dir.substr(0, I).c_str(), 0700) != 0 && errno != EEXIST)
        return false;
  return true;
}

// Loads a built object and binds its context getter.
Library load(const std::string &Path) {
  Library L;
  L.handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!L.handle) {
    const char *E = ::dlerror();
    L.error = std::string("cannot load the built object: ") + (E ? E : "?");
    return L;
  }
  using Getter = const void *(*)();
  auto *Slot =
      reinterpret_cast<Getter *>(::dlsym(L.handle, "__pcj_cu_ctx_getter"));
  if (Slot)
    *Slot = &currentCtx;
  return L;
}

// Compiles Sources into Out (a .so path); "" or the compiler's messages.
std::string compile(const std::vector<Source> &Sources, const std::string &Out,
                    const std::string &WorkDir) {
  const Compiler &C = compiler();
  std::string Inc = WorkDir + "/include";
  if (!makeDirs(Inc))
    return "cannot create " + Inc + ": " + std::strerror(errno);
  std::string Header = Inc + "/pcj_cuda_host.h";
  bool Ok = writeFile(Header, kHostCudaHeader);
  Ok &= writeFile(Inc + "/cuda_fp16.h", kHostCudaFp16Header);
  // CUDA headers device code commonly includes: ours stand in for them.
  for (const char *Name :
       {"cuda_runtime.h", "cuda_runtime_api.h", "cuda_device_runtime_api.h",
        "cuda.h", "device_launch_parameters.h", "vector_types.h"})
    Ok &= writeFile(Inc + "/" + Name, "#include \"pcj_cuda_host.h\"\n");
  std::vector<std::string> Argv{C.path};
  Argv.insert(Argv.end(), C.flags.begin(), C.flags.end());
  Argv.insert(Argv.end(), {"-I", Inc, "-include", Header, "-x", "c++"});
  std::vector<std::pair<std::string, std::string>> Names;
  for (size_t K = 0; K < Sources.size(); ++K) {
    std::string Unit = WorkDir + "/" + unitName(Sources[K], K);
    Ok &= writeFile(Unit, Sources[K].text);
    Argv.push_back(Unit);
    Names.push_back({Unit, Sources[K].name});
  }
  if (!Ok)
    return "cannot write the sources to " + WorkDir;
  Argv.insert(Argv.end(), {"-x", "none", "-o", Out});
  std::string Log = WorkDir + "/compiler.log";
  int Rc = run(Argv, Log);
  if (Rc == 0)
    return "";
  std::string Msg = readFile(Log);
  for (const auto &[Unit, Name] : Names)
    Msg = replaceAll(Msg, Unit, Name);
  Msg = replaceAll(Msg, Header, "<pycuda_jit host CUDA header>");
  if (Rc < 0)
    Msg = "could not run " + C.path + (Msg.empty() ? "" : ": " + Msg);
  while (!Msg.empty() && (Msg.back() == '\n' || Msg.back() == ' '))
    Msg.pop_back();
  return Msg.empty() ? C.path + " failed (exit status " + std::to_string(Rc) +
                           ") and printed nothing"
                     : Msg;
}

void removeTree(const std::string &Dir) {
  std::vector<std::string> Argv{"/bin/rm", "-rf", Dir};
  run(Argv, "/dev/null");
}

} // namespace

void *Library::symbol(const std::string &Name) const {
  return handle ? ::dlsym(handle, Name.c_str()) : nullptr;
}

extern "C" void pcj_cpu_foreign_enter(const void *Ctx) { CurrentCtx = Ctx; }

std::string hostCompiler() {
  const Compiler &C = compiler();
  std::string S = C.path;
  for (const std::string &F : C.flags)
    S += " " + F;
  return S;
}

Library buildForHost(const std::vector<Source> &Sources,
                     const std::string &CacheDir) {
  const Compiler &C = compiler();
  if (C.path.empty()) {
    Library L;
    L.error = "no C++ compiler found (set $CXX, or install g++ or clang++ "
              "on $PATH)";
    return L;
  }
  Sha256 H;
  H.field("pycuda_jit-host-cu/1").field(kHostCudaHeader);
  H.field(kHostCudaFp16Header);
  H.field(C.path).field(C.version);
  for (const std::string &F : C.flags)
    H.field(F);
  for (const Source &S : Sources)
    H.field(S.name).field(S.text);
  std::string Key = H.hexDigest();

  static std::mutex Mu;
  static std::map<std::string, Library> Loaded;
  std::lock_guard<std::mutex> Lock(Mu);
  if (auto It = Loaded.find(Key); It != Loaded.end())
    return It->second;

  std::string Dir = CacheDir.empty() ? "" : CacheDir + "/host-cu";
  bool Keep = !Dir.empty() && makeDirs(Dir);
  if (!Keep)
    Dir = "/tmp";
  std::string Final = Dir + "/" + Key + ".so";
  if (Keep && isFile(Final)) {
    Library L = load(Final);
    if (L.handle)
      return Loaded[Key] = L;
    // A damaged object: built again below.
  }
  std::string Template = Dir + "/build-XXXXXX";
  std::vector<char> Buf(Template.begin(), Template.end());
  Buf.push_back('\0');
  if (!::mkdtemp(Buf.data())) {
    Library L;
    L.error = "cannot create a build directory in " + Dir + ": " +
              std::strerror(errno);
    return L;
  }
  std::string Work = Buf.data();
  std::string Built = Work + "/out.so";
  Library L;
  L.error = compile(Sources, Built, Work);
  if (L.error.empty()) {
    std::string Path = Built;
    // Published by rename: another process sees all of it or nothing.
    if (Keep && ::rename(Built.c_str(), Final.c_str()) == 0)
      Path = Final;
    L = load(Path);
  }
  removeTree(Work); // a loaded object stays mapped after its file is gone
  if (L.handle)
    Loaded[Key] = L;
  return L;
}

} // namespace pcj::hostcu
