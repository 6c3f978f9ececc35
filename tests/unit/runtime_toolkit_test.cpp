// Tests for support/Toolkit.h, the one search for CUDA toolkit pieces: the
// order of places, the pip wheel layouts (CUDA 13: nvidia/cu13/...), the
// exclusive overrides, PYCUDA_JIT_SYSTEM_CUDA=0 and the install hints.
// Files are made in a temporary directory laid out like site-packages.
#include "support/Toolkit.h"

#include <gtest/gtest.h>

#include "support/ScopedEnv.h"
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

using namespace pcj;
namespace fs = std::filesystem;

namespace {

using pcj::test::ScopedEnv;

// A fresh directory, removed at the end of the test.
struct TempDir {
  fs::path Path;
  TempDir() {
    std::string Tmpl =
        (fs::temp_directory_path() / "pcj-toolkit-XXXXXX").string();
    Path = mkdtemp(Tmpl.data());
  }
  ~TempDir() {
    std::error_code EC;
    fs::remove_all(Path, EC);
  }
  std::string touch(const std::string &Rel) const {
    fs::path P = Path / Rel;
    fs::create_directories(P.parent_path());
    std::ofstream(P) << "x";
    return P.string();
  }
};

// No variable of the search set, nothing from the system: only what the
// test puts in place.
struct CleanEnv {
  ScopedEnv A{"CUDA_HOME", nullptr}, B{"CUDA_PATH", nullptr},
      C{"PYCUDA_JIT_SITE_PACKAGES", nullptr}, D{"VIRTUAL_ENV", nullptr},
      E{"CONDA_PREFIX", nullptr}, F{"PYCUDA_JIT_LIBDEVICE", nullptr},
      G{"PYCUDA_JIT_NVJITLINK", nullptr}, H{"PYCUDA_JIT_NVDISASM", nullptr},
      I{"PYCUDA_JIT_SYSTEM_CUDA", "0"};
  ~CleanEnv() { setToolkitSitePackages({}); }
};

std::vector<std::string> paths(const ToolkitSearch &S) {
  std::vector<std::string> Out;
  for (const ToolkitCandidate &C : S.Candidates)
    Out.push_back(C.Path);
  return Out;
}

} // namespace

TEST(Toolkit, PipWheelLayoutOfCuda13IsFoundThroughPythonSitePackages) {
  CleanEnv Env;
  TempDir Site;
  std::string Bc = Site.touch("nvidia/cu13/nvvm/libdevice/libdevice.10.bc");
  std::string Dis = Site.touch("nvidia/cu13/bin/nvdisasm");
  EXPECT_EQ(findToolkitFile(ToolkitPiece::Libdevice), "");
  setToolkitSitePackages({Site.Path.string()});
  std::string Origin;
  EXPECT_EQ(findToolkitFile(ToolkitPiece::Libdevice, nullptr, &Origin), Bc);
  EXPECT_EQ(Origin, "pip nvidia-nvvm");
  EXPECT_EQ(findToolkitFile(ToolkitPiece::Nvdisasm, nullptr, &Origin), Dis);
  EXPECT_EQ(Origin, "pip nvidia-cuda-nvdisasm");
  std::vector<std::string> Jl = paths(searchToolkit(ToolkitPiece::NvJitLink));
  EXPECT_NE(
      std::find(Jl.begin(), Jl.end(),
                Site.Path.string() + "/nvidia/cu13/lib/libnvJitLink.so.13"),
      Jl.end());
}

TEST(Toolkit, Cuda12WheelLayoutIsFoundToo) {
  CleanEnv Env;
  TempDir Site;
  std::string Bc =
      Site.touch("nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc");
  ScopedEnv Sites("PYCUDA_JIT_SITE_PACKAGES", Site.Path.c_str());
  std::string Origin;
  EXPECT_EQ(findToolkitFile(ToolkitPiece::Libdevice, nullptr, &Origin), Bc);
  EXPECT_EQ(Origin, "pip nvidia-nvvm-cu12");
}

TEST(Toolkit, CudaHomeComesBeforePipWheelsAndTheSystem) {
  CleanEnv Env;
  TempDir Home, Site;
  std::string HomeBc = Home.touch("nvvm/libdevice/libdevice.10.bc");
  Site.touch("nvidia/cu13/nvvm/libdevice/libdevice.10.bc");
  setToolkitSitePackages({Site.Path.string()});
  ScopedEnv H("CUDA_HOME", Home.Path.c_str());
  std::string Origin;
  EXPECT_EQ(findToolkitFile(ToolkitPiece::Libdevice, nullptr, &Origin), HomeBc);
  EXPECT_EQ(Origin, "CUDA_HOME");
  ToolkitSearch S = searchToolkit(ToolkitPiece::NvJitLink);
  ASSERT_GE(S.Candidates.size(), 2u);
  EXPECT_EQ(S.Candidates[0].Path,
            Home.Path.string() + "/lib64/libnvJitLink.so.13");
  EXPECT_EQ(S.Candidates[1].Path,
            Home.Path.string() + "/lib64/libnvJitLink.so");
}

TEST(Toolkit, OverrideIsTheOnlyPlaceTried) {
  CleanEnv Env;
  TempDir Site;
  Site.touch("nvidia/cu13/nvvm/libdevice/libdevice.10.bc");
  setToolkitSitePackages({Site.Path.string()});
  ScopedEnv O("PYCUDA_JIT_LIBDEVICE", "/nonexistent/libdevice.10.bc");
  std::vector<std::string> Searched;
  EXPECT_EQ(findToolkitFile(ToolkitPiece::Libdevice, &Searched), "");
  EXPECT_EQ(Searched, std::vector<std::string>{"/nonexistent/libdevice.10.bc"});
  EXPECT_TRUE(searchToolkit(ToolkitPiece::Libdevice).Overridden);
}

TEST(Toolkit, SystemSearchCanBeTurnedOff) {
  CleanEnv Env;
  for (ToolkitPiece P : allToolkitPieces())
    for (const ToolkitCandidate &C : searchToolkit(P).Candidates) {
      EXPECT_NE(C.Origin, "system") << C.Path;
      EXPECT_NE(C.Origin, "loader") << C.Path;
    }
  ScopedEnv On("PYCUDA_JIT_SYSTEM_CUDA", nullptr);
  std::vector<std::string> Jl = paths(searchToolkit(ToolkitPiece::NvJitLink));
  EXPECT_NE(std::find(Jl.begin(), Jl.end(),
                      "/usr/local/cuda/lib64/libnvJitLink.so.13"),
            Jl.end());
  EXPECT_NE(std::find(Jl.begin(), Jl.end(), "libnvJitLink.so.13"), Jl.end());
}

TEST(Toolkit, InstallHintNamesPipAndAptPackages) {
  std::string H = toolkitInstallHint(ToolkitPiece::Libdevice);
  EXPECT_NE(H.find("pip install nvidia-nvvm"), std::string::npos) << H;
  EXPECT_NE(H.find("pycuda_jit[cu13]"), std::string::npos) << H;
  EXPECT_NE(H.find("apt install cuda-nvvm-13-0"), std::string::npos) << H;
  EXPECT_NE(H.find("PYCUDA_JIT_LIBDEVICE"), std::string::npos) << H;
  H = toolkitInstallHint(ToolkitPiece::NvJitLink);
  EXPECT_NE(H.find("pip install nvidia-nvjitlink"), std::string::npos) << H;
}

TEST(Toolkit, ProbeReportsEveryFailedCandidate) {
  CleanEnv Env;
  ScopedEnv O("PYCUDA_JIT_NVRTC", "/nonexistent/libnvrtc.so.13");
  ToolkitProbe P = probeToolkitLibrary(ToolkitPiece::Nvrtc);
  EXPECT_EQ(P.Path, "");
  EXPECT_NE(P.Error.find("/nonexistent/libnvrtc.so.13: no such file"),
            std::string::npos)
      << P.Error;
}

// The linker's version for the cache key comes from its file's name when
// the name states one (no dlopen on a disk-cache hit).
TEST(Toolkit, VersionFromFileNameFollowsSymlinks) {
  TempDir T;
  std::string Real = T.touch("lib64/libnvJitLink.so.13.1.57");
  fs::path Link = T.Path / "lib64" / "libnvJitLink.so.13";
  fs::create_symlink(Real, Link);
  int Major = -1, Minor = -1;
  ASSERT_TRUE(toolkitVersionFromFileName(Link.string(), Major, Minor));
  EXPECT_EQ(Major, 13);
  EXPECT_EQ(Minor, 1);
  ASSERT_TRUE(toolkitVersionFromFileName(T.touch("b/libnvJitLink.so.12.8"),
                                         Major, Minor));
  EXPECT_EQ(Major, 12);
  EXPECT_EQ(Minor, 8);
}

TEST(Toolkit, VersionFromFileNameRefusesNamesWithoutMinor) {
  TempDir T;
  int Major = -1, Minor = -1;
  // NVIDIA's pip wheel: the soname is the file itself.
  EXPECT_FALSE(toolkitVersionFromFileName(
      T.touch("nvidia/cu13/lib/libnvJitLink.so.13"), Major, Minor));
  EXPECT_FALSE(
      toolkitVersionFromFileName(T.touch("c/libnvJitLink.so"), Major, Minor));
  EXPECT_FALSE(toolkitVersionFromFileName(T.touch("d/libnvJitLink.so.x.1"),
                                          Major, Minor));
  EXPECT_FALSE(toolkitVersionFromFileName((T.Path / "missing.so.13.0").string(),
                                          Major, Minor));
  EXPECT_EQ(Major, -1);
}

// The version read from a file's name must be that of the library dlopen
// would load: a bare soname tried first loads through LD_LIBRARY_PATH.
TEST(Toolkit, FileLoadsFirstUnlessTheLoaderPathHasAnother) {
  CleanEnv Clean;
  ScopedEnv System{"PYCUDA_JIT_SYSTEM_CUDA", "1"};
  TempDir T;
  std::string Ours = T.touch("toolkit/lib64/libnvJitLink.so.13");
  std::string Other = T.touch("elsewhere/libnvJitLink.so.13");
  {
    ScopedEnv Ld{"LD_LIBRARY_PATH", (T.Path / "elsewhere").c_str()};
    EXPECT_FALSE(toolkitFileLoadsFirst(ToolkitPiece::NvJitLink, Ours));
    EXPECT_TRUE(toolkitFileLoadsFirst(ToolkitPiece::NvJitLink, Other));
  }
  {
    ScopedEnv Ld{"LD_LIBRARY_PATH", (T.Path.string() + "/nothing:" +
                                     T.Path.string() + "/toolkit/lib64")
                                        .c_str()};
    EXPECT_TRUE(toolkitFileLoadsFirst(ToolkitPiece::NvJitLink, Ours));
  }
  {
    ScopedEnv Ld{"LD_LIBRARY_PATH", nullptr};
    EXPECT_TRUE(toolkitFileLoadsFirst(ToolkitPiece::NvJitLink, Ours));
  }
  // A toolkit root named by the user comes before the loader.
  ScopedEnv Home{"CUDA_HOME", (T.Path / "toolkit").c_str()};
  ScopedEnv Ld{"LD_LIBRARY_PATH", (T.Path / "elsewhere").c_str()};
  EXPECT_TRUE(toolkitFileLoadsFirst(ToolkitPiece::NvJitLink, Ours));
}
