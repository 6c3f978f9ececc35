// Typing of cuda.libdevice.NAME(...) (registry/libdevice.def): one rule for
// every row, from the row's libdevice signature.  Arguments convert to the
// parameter types (as numba-cuda's single-signature templates do); the
// result is the return value, or a tuple of the return value (unless void)
// and the values written through the out-pointers, in parameter order:
//   libdevice.sincosf(x)  f32(f32, f32_out, f32_out)  ->  (float32, float32)
//   libdevice.frexp(x)    f64(f64, i32_out)           ->  (float64, int32)
#include "stdlib/Libdevice.h"
#include "stdlib/typing/RuleHelpers.h"

#include "support/Diagnostics.h"

#include <map>
#include <memory>
#include <mutex>

namespace pcj::stdlib {

using namespace types;

size_t LibdeviceSignature::inputs() const {
  size_t N = 0;
  for (const LibdeviceParam &P : params)
    N += !P.out;
  return N;
}

size_t LibdeviceSignature::results() const {
  return (ret ? 1 : 0) + params.size() - inputs();
}

namespace {

TypeRef scalarOf(const std::string &Code) {
  if (Code == "i16")
    return intTy(16);
  if (Code == "i32")
    return intTy(32);
  if (Code == "i64")
    return intTy(64);
  if (Code == "f32")
    return floatTy(32);
  if (Code == "f64")
    return floatTy(64);
  return nullptr;
}

LibdeviceSignature parse(const IntrinsicInfo &Info) {
  LibdeviceSignature S;
  std::string Key = Info.key;
  S.name = Key.substr(Key.rfind('.') + 1);
  std::string Text = Info.sdata; // "f32(f32, f32_out)"
  size_t Open = Text.find('(');
  PCJ_ASSERT(Open != std::string::npos && Text.back() == ')',
             "bad libdevice signature " + Text);
  std::string Ret = Text.substr(0, Open);
  S.ret = Ret == "void" ? nullptr : scalarOf(Ret);
  PCJ_ASSERT(Ret == "void" || S.ret, "bad libdevice return type " + Text);
  std::string Params = Text.substr(Open + 1, Text.size() - Open - 2);
  size_t Pos = 0;
  while (Pos < Params.size()) {
    size_t End = Params.find(',', Pos);
    if (End == std::string::npos)
      End = Params.size();
    std::string P = Params.substr(Pos, End - Pos);
    P.erase(0, P.find_first_not_of(' '));
    P.erase(P.find_last_not_of(' ') + 1);
    LibdeviceParam LP;
    if (P.size() > 4 && P.compare(P.size() - 4, 4, "_out") == 0) {
      LP.out = true;
      P.resize(P.size() - 4);
    }
    LP.type = scalarOf(P);
    PCJ_ASSERT(LP.type, "bad libdevice parameter type " + Text);
    S.params.push_back(LP);
    Pos = End + 1;
  }
  return S;
}

} // namespace

const LibdeviceSignature &libdeviceSignature(const IntrinsicInfo &Info) {
  static std::mutex Mu;
  static std::map<IntrinsicId, std::unique_ptr<LibdeviceSignature>> Cache;
  std::lock_guard<std::mutex> Lock(Mu);
  auto &Slot = Cache[Info.id];
  if (!Slot)
    Slot = std::make_unique<LibdeviceSignature>(parse(Info));
  return *Slot;
}

namespace rules {

TypingResult typeLibdevice(const TypingRequest &R) {
  const LibdeviceSignature &S = libdeviceSignature(R.info);
  size_t N = S.inputs();
  expectArgs(R, N, N);
  noKeywords(R);
  TypingResult Out;
  size_t K = 0;
  for (const LibdeviceParam &P : S.params) {
    if (P.out)
      continue;
    TypeRef T = R.args[K].type;
    if (!T->isNumeric() || T->isComplex())
      R.fail(name(R) + "() argument " + std::to_string(K + 1) + " must be " +
                 P.type->str() + ", not " + T->str(),
             "libdevice functions take the types of their C signature "
             "(docs/language.md, cuda.libdevice)");
    Out.argTypes.push_back(P.type);
    ++K;
  }
  std::vector<TypeRef> Results;
  if (S.ret)
    Results.push_back(S.ret);
  for (const LibdeviceParam &P : S.params)
    if (P.out)
      Results.push_back(P.type);
  PCJ_ASSERT(!Results.empty(), "libdevice function without a result");
  Out.type = Results.size() == 1 ? Results[0] : tupleTy(Results);
  return Out;
}

} // namespace rules
} // namespace pcj::stdlib
