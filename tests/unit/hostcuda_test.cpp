// HostCuda: CUDA C built for the host (support/HostCuda.h) -- the numba and
// C ABIs called directly, several sources in one object, the thread
// context the foreign code reads, the on-disk cache, and the compiler's
// messages under the sources' own names.
#include "support/HostCuda.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace pcj::hostcu;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char T[] = "/tmp/pcj-hostcuda-test-XXXXXX";
    path = ::mkdtemp(T);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

bool haveCompiler() {
  return !hostCompiler().empty() && hostCompiler()[0] == '/';
}

} // namespace

TEST(HostCuda, BothAbisAndSeveralSources) {
  if (!haveCompiler())
    GTEST_SKIP() << "no C++ compiler";
  TempDir D;
  Library L = buildForHost(
      {{"times.cu", "extern \"C\" __device__ int times3(int *o, int a)"
                    " { *o = 3 * a; return 0; }"},
       {"<CUSource>", "extern \"C\" __device__ int times3(int *, int);\n"
                      "extern \"C\" __device__ long long six(int a)"
                      " { int t; times3(&t, a); return 2LL * t; }"}},
      D.path);
  ASSERT_TRUE(L.handle) << L.error;
  auto *Times3 = reinterpret_cast<int (*)(int *, int)>(L.symbol("times3"));
  auto *Six = reinterpret_cast<long long (*)(int)>(L.symbol("six"));
  ASSERT_TRUE(Times3 && Six);
  int R = 0;
  EXPECT_EQ(Times3(&R, -41), 0);
  EXPECT_EQ(R, -123);
  EXPECT_EQ(Six(1 << 20), 6LL << 20);
  EXPECT_EQ(L.symbol("not_there"), nullptr);
  // Cached on disk: one object in host-cu/.
  int Objects = 0;
  for (const auto &E : std::filesystem::directory_iterator(D.path + "/host-cu"))
    Objects += E.path().extension() == ".so";
  EXPECT_EQ(Objects, 1);
}

TEST(HostCuda, ThreadIndicesComeFromTheEnteredContext) {
  if (!haveCompiler())
    GTEST_SKIP() << "no C++ compiler";
  TempDir D;
  Library L = buildForHost(
      {{"idx.cu", "extern \"C\" __device__ unsigned idx() {\n"
                  "  return threadIdx.x + 10 * threadIdx.y + 100 * blockIdx.z"
                  " + 1000 * blockDim.x + 10000 * gridDim.y;\n}"}},
      D.path);
  ASSERT_TRUE(L.handle) << L.error;
  auto *Idx = reinterpret_cast<unsigned (*)()>(L.symbol("idx"));
  ASSERT_TRUE(Idx);
  // pcj_thread_ctx's first words: tid, ntid, ctaid, nctaid (x, y, z each).
  uint32_t Ctx[14] = {3, 4, 0, 8, 8, 1, 0, 0, 5, 1, 2, 1};
  pcj_cpu_foreign_enter(Ctx);
  EXPECT_EQ(Idx(), 3u + 40 + 500 + 8000 + 20000);
  Ctx[0] = 7;
  EXPECT_EQ(Idx(), 7u + 40 + 500 + 8000 + 20000);
}

TEST(HostCuda, CompilerMessagesNameTheSource) {
  if (!haveCompiler())
    GTEST_SKIP() << "no C++ compiler";
  TempDir D;
  Library L = buildForHost(
      {{"/some/dir/kernel_helpers.cu",
        "extern \"C\" __device__ int f(int *o, int a) { *o = a SYNTAX; }"}},
      D.path);
  EXPECT_EQ(L.handle, nullptr);
  EXPECT_NE(L.error.find("/some/dir/kernel_helpers.cu:1"), std::string::npos)
      << L.error;
  Library B =
      buildForHost({{"bar.cu", "extern \"C\" __device__ int g(int *o, int a)"
                               " { __syncthreads(); *o = a; return 0; }"}},
                   D.path);
  EXPECT_EQ(B.handle, nullptr);
  EXPECT_NE(B.error.find("__syncthreads: a block barrier needs the GPU"),
            std::string::npos)
      << B.error;
}
