// runtime/jit/SpecializationTable.h: which entry serves a signature
// (lookup, first insert wins, the explicit signatures' choice, a failed
// entry retired), a signature compiled once however many threads ask for it
// at once, per-architecture images and per-device slots, the alias variant.
#include "runtime/jit/SpecializationTable.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace pcj::jit;

namespace {

// Interned "types": the addresses of these strings.
const std::string I32 = "int32", F32 = "float32", F64 = "float64";
using Ty = const std::string *;

struct Entry {
  std::string name;
  int ccMajor = 0, ccMinor = 0;
};
using Table = SpecializationTable<Ty, Entry>;

std::shared_ptr<Entry> make(std::string Name) {
  auto E = std::make_shared<Entry>();
  E->name = std::move(Name);
  return E;
}

} // namespace

TEST(JitSpecializations, LookupAndFirstInsertWins) {
  Table T;
  EXPECT_EQ(T.find({&I32}), nullptr);
  auto A = make("a"), B = make("b");
  EXPECT_EQ(T.insert({&I32}, A), A);
  EXPECT_EQ(T.insert({&I32}, B), A); // a repeated signature: one candidate
  EXPECT_EQ(T.insert({&F32, &I32}, B), B);
  EXPECT_EQ(T.find({&I32}), A);
  EXPECT_EQ(T.find({&F32, &I32}), B);
  EXPECT_EQ(T.find({&I32, &F32}), nullptr); // order matters
  ASSERT_EQ(T.ordered.size(), 2u);
  EXPECT_EQ(T.ordered[0], A);
  EXPECT_EQ(T.ordered[1], B);
}

TEST(JitSpecializations, ChooserPicksAmongCandidatesAndIsRemembered) {
  Table T;
  auto A = make("f64"), B = make("i32");
  T.insert({&F64}, A);
  T.insert({&I32}, B);
  int Calls = 0;
  auto Choose = [&](const std::vector<std::shared_ptr<Entry>> &C)
      -> std::optional<size_t> {
    ++Calls;
    EXPECT_EQ(C.size(), 2u);
    return 0; // float32 converts to float64
  };
  EXPECT_EQ(T.find({&F32}, Choose), A);
  EXPECT_EQ(T.find({&F32}, Choose), A);
  EXPECT_EQ(Calls, 1);             // the choice is kept under the new signature
  EXPECT_EQ(T.ordered.size(), 2u); // and adds no candidate
  auto None =
      [](const std::vector<std::shared_ptr<Entry>> &) -> std::optional<size_t> {
    return std::nullopt;
  };
  EXPECT_EQ(T.find({&I32, &I32}, None), nullptr);
  auto Throws =
      [](const std::vector<std::shared_ptr<Entry>> &) -> std::optional<size_t> {
    throw std::runtime_error("no match");
  };
  EXPECT_THROW(T.find({&F32, &F32}, Throws), std::runtime_error);
  // The lock was released by the throw.
  EXPECT_EQ(T.find({&F64}), A);
}

TEST(JitSpecializations, LastLaunchFastPath) {
  Table T;
  auto A = make("a");
  T.insert({&I32, &F32}, A);
  std::vector<Ty> Args{&I32, &F32};
  auto At = [&](size_t K) { return Args[K]; };
  EXPECT_EQ(T.lastMatch(2, At), nullptr);
  T.remember(Args, A.get());
  EXPECT_EQ(T.lastMatch(2, At), A.get());
  EXPECT_EQ(T.lastMatch(1, At), nullptr);
  Args[1] = &F64;
  EXPECT_EQ(T.lastMatch(2, At), nullptr);
}

TEST(JitSpecializations, RetiredEntryIsNeverServedAgain) {
  Table T;
  auto A = make("a");
  T.insert({&I32}, A);
  T.find({&F32}, [](const auto &) -> std::optional<size_t> { return 0; });
  T.remember({&I32}, A.get());
  EXPECT_FALSE(T.retired(A));
  T.retire(A);
  EXPECT_TRUE(T.retired(A));
  EXPECT_EQ(T.find({&I32}), nullptr);
  EXPECT_EQ(T.find({&F32}), nullptr); // the chosen alias goes too
  EXPECT_TRUE(T.ordered.empty());
  EXPECT_EQ(T.lastSpec, nullptr);
  ASSERT_EQ(T.failed.size(), 1u); // kept alive
  // The next request compiles again.
  auto B = T.obtain({&I32}, [] { return make("b"); });
  EXPECT_EQ(B->name, "b");
}

// Eight threads ask for one new signature at once: one compile, one entry.
TEST(JitSpecializations, ConcurrentRequestsCompileOnce) {
  Table T;
  std::atomic<int> Compiles{0}, Waits{0};
  std::atomic<bool> Go{false};
  auto Compile = [&] {
    ++Compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return make("only");
  };
  WaitHook Hook = [&](const std::function<void()> &W) {
    ++Waits;
    W();
  };
  std::vector<std::shared_ptr<Entry>> Got(8);
  std::vector<std::thread> Threads;
  for (int K = 0; K < 8; ++K)
    Threads.emplace_back([&, K] {
      while (!Go)
        std::this_thread::yield();
      Got[K] = T.obtain({&F32, &F32}, Compile, Hook);
    });
  Go = true;
  for (auto &Th : Threads)
    Th.join();
  EXPECT_EQ(Compiles.load(), 1);
  for (auto &E : Got)
    EXPECT_EQ(E, Got[0]);
  EXPECT_EQ(T.ordered.size(), 1u);
  EXPECT_LE(Waits.load(), 7);
}

// Distinct signatures compile at the same time (nothing serializes them).
TEST(JitSpecializations, DistinctSignaturesCompileInParallel) {
  Table T;
  std::atomic<int> Running{0}, Overlap{0};
  auto Compile = [&](const char *Name) {
    return [&, Name] {
      int Now = ++Running;
      for (int K = 0; K < 10000 && Running.load() < 2; ++K)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (Running.load() >= 2 || Now >= 2)
        ++Overlap;
      --Running;
      return make(Name);
    };
  };
  std::thread A([&] { T.obtain({&I32}, Compile("i")); });
  std::thread B([&] { T.obtain({&F32}, Compile("f")); });
  A.join();
  B.join();
  EXPECT_GE(Overlap.load(), 1);
  EXPECT_EQ(T.ordered.size(), 2u);
}

// The first compile fails: its caller gets the error, a waiter compiles
// itself (and would report its own error), nothing is listed for the
// failure.
TEST(JitSpecializations, FailedCompileIsRetriedByTheWaiter) {
  Table T;
  std::atomic<int> Calls{0};
  std::atomic<bool> FirstStarted{false};
  auto Compile = [&]() -> std::shared_ptr<Entry> {
    if (++Calls == 1) {
      FirstStarted = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      throw std::runtime_error("typing error");
    }
    return make("second");
  };
  std::shared_ptr<Entry> Second;
  std::thread A(
      [&] { EXPECT_THROW(T.obtain({&I32}, Compile), std::runtime_error); });
  while (!FirstStarted)
    std::this_thread::yield();
  std::thread B([&] { Second = T.obtain({&I32}, Compile); });
  A.join();
  B.join();
  EXPECT_EQ(Calls.load(), 2);
  ASSERT_NE(Second, nullptr);
  EXPECT_EQ(Second->name, "second");
  EXPECT_EQ(T.find({&I32}), Second);
}

TEST(JitSpecializations, ImagePerArchitecture) {
  std::vector<std::unique_ptr<Entry>> Images;
  EXPECT_EQ(imageForArch(Images, 9, 0), nullptr);
  for (auto [Ma, Mi] : {std::pair{8, 0}, std::pair{9, 0}, std::pair{12, 0}}) {
    auto E = std::make_unique<Entry>();
    E->name = "sm_" + std::to_string(Ma) + std::to_string(Mi);
    E->ccMajor = Ma;
    E->ccMinor = Mi;
    Images.push_back(std::move(E));
  }
  ASSERT_NE(imageForArch(Images, 9, 0), nullptr);
  EXPECT_EQ(imageForArch(Images, 9, 0)->name, "sm_90");
  EXPECT_EQ(imageForArch(Images, 12, 0)->name, "sm_120");
  EXPECT_EQ(imageForArch(Images, 8, 6), nullptr); // same major, other minor
}

TEST(JitSpecializations, DeviceSlotsFollowContextGenerations) {
  struct Slot {
    uint64_t gen = 0;
    int fn = 0;
  };
  std::vector<Slot> S;
  EXPECT_EQ(loadedOn(S, 0, 1), nullptr);
  slotOf(S, 2) = {5, 42};
  EXPECT_EQ(S.size(), 3u);
  ASSERT_NE(loadedOn(S, 2, 5), nullptr);
  EXPECT_EQ(loadedOn(S, 2, 5)->fn, 42);
  EXPECT_EQ(loadedOn(S, 2, 6), nullptr); // the context was reset since
  EXPECT_EQ(loadedOn(S, -1, 5), nullptr);
  EXPECT_EQ(loadedOn(S, 7, 5), nullptr);
}

TEST(JitSpecializations, AliasVariantIsKeptOnce) {
  std::mutex Mu;
  std::shared_ptr<Entry> Slot;
  int Builds = 0;
  auto Build = [&] {
    ++Builds;
    return make("plain");
  };
  Entry *V = variantOnce<Entry>(Mu, Slot, Build);
  EXPECT_EQ(V->name, "plain");
  EXPECT_EQ(variantOnce<Entry>(Mu, Slot, Build), V);
  EXPECT_EQ(Builds, 1);
  std::shared_ptr<Entry> Empty;
  EXPECT_THROW(variantOnce<Entry>(Mu, Empty,
                                  []() -> std::shared_ptr<Entry> {
                                    throw std::runtime_error("x");
                                  }),
               std::runtime_error);
  EXPECT_EQ(Empty, nullptr);
  std::lock_guard<std::mutex> L(Mu); // left unlocked by the failed build
}
