// The compiler's identity in cache keys: GNU build ids read from loaded
// images and from files, and compilerBuildId combining both binaries' ids
// with the CPU executor's ABI version.
#include "driver/Compile.h"
#include "runtime/cpu/ThreadCtx.h"
#include "support/BuildId.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace pcj;

namespace {

bool isHex(const std::string &S) {
  return !S.empty() &&
         S.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string selfPath() {
  char Buf[4096];
  ssize_t N = readlink("/proc/self/exe", Buf, sizeof Buf - 1);
  return N > 0 ? std::string(Buf, size_t(N)) : "";
}

} // namespace

// This test binary is linked with --build-id=sha1 like every binary of the
// project: the id read from the loaded image is the one in the file.
TEST(BuildId, LoadedImageAndFileAgree) {
  std::string Mem =
      buildIdOfLoadedImage(reinterpret_cast<const void *>(&selfPath));
  EXPECT_TRUE(isHex(Mem)) << Mem;
  EXPECT_EQ(Mem.size(), 40u); // SHA-1
  EXPECT_EQ(buildIdOfFile(selfPath()), Mem);
  EXPECT_EQ(driver::frontendBuildId(), Mem); // the driver is linked in here
}

TEST(BuildId, UnreadableFilesHaveNone) {
  EXPECT_EQ(buildIdOfFile("/nonexistent/libpcj_codegen.so"), "");
  char Path[] = "/tmp/pcj-buildid-XXXXXX";
  int Fd = mkstemp(Path);
  ASSERT_GE(Fd, 0);
  std::string Junk = "\x7f"
                     "ELF but not really an ELF file, only its magic";
  ASSERT_EQ(write(Fd, Junk.data(), Junk.size()), ssize_t(Junk.size()));
  close(Fd);
  EXPECT_EQ(buildIdOfFile(Path), "");
  unlink(Path);
}

// The key's compiler part holds both binaries' ids and the CPU ABI version:
// changing either id changes it.
TEST(BuildId, CompilerIdentityCoversBothBinariesAndTheCpuAbi) {
  std::string Base = driver::compilerBuildId("aaaa", "bbbb");
  EXPECT_NE(Base.find("frontend-aaaa"), std::string::npos) << Base;
  EXPECT_NE(Base.find("codegen-bbbb"), std::string::npos) << Base;
  EXPECT_NE(Base.find("cpu-abi-" + std::to_string(rt::cpu::kCpuAbiVersion)),
            std::string::npos)
      << Base;
  EXPECT_NE(driver::compilerBuildId("aaab", "bbbb"), Base);
  EXPECT_NE(driver::compilerBuildId("aaaa", "bbbc"), Base);
  EXPECT_EQ(driver::compilerBuildId("aaaa", "bbbb"), Base); // deterministic
  EXPECT_NE(driver::compilerBuildId("aaaa", ""), Base);
}
