// The state analyzeKernel hands to generateKernel (Compile.h): the typed
// kernel, the device-function specializations it calls, and the partial
// result.  Internal to the driver: Analyze.cpp builds it (no LLVM),
// Generate.cpp lowers it (LLVM), possibly in another shared object.
#pragma once

#include "driver/Compile.h"

#include "bytecode/RawCode.h"
#include "ir/IR.h"
#include "lower/Lower.h"
#include "support/Diagnostics.h"
#include "typeinfer/TypeInfer.h"
#include "types/Overloads.h"
#include "types/Signature.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pcj::driver {

class Stopwatch {
public:
  explicit Stopwatch(std::vector<StageTiming> &Out) : Out(Out) {}
  void lap(const char *Stage) {
    auto Now = std::chrono::steady_clock::now();
    Out.push_back(
        {Stage, std::chrono::duration<double, std::milli>(Now - Last).count()});
    Last = Now;
  }

private:
  std::vector<StageTiming> &Out;
  std::chrono::steady_clock::time_point Last = std::chrono::steady_clock::now();
};

// The typed IR of one function (kernel or device-function specialization).
struct Typed {
  std::unique_ptr<ir::Function> fn;
  std::vector<typeinfer::Resolution> resolutions;
};

// What in a code object determines the compiled code: bytecode, constants,
// names, parameters -- and line numbers only when the output embeds them.
std::string codeFingerprint(const bc::RawCode &C, bool IncludeLines);

// Decode -> CFG -> SSA -> type inference -> casts, with dumps and timings
// for the kernel (Dumps == nullptr for device functions).
Typed frontend(const bc::RawCode &Raw, const std::vector<types::TypeRef> &Args,
               ir::Resolver &R, const typeinfer::Options &TO,
               std::map<std::string, std::string> *Dumps,
               const std::set<std::string> &Want, Stopwatch *Clock);

// Device-function specializations needed by one kernel compile: typed on
// demand (CalleeTyper), lowered into the kernel's module.
class Session : public typeinfer::CalleeTyper {
public:
  Session(ir::Resolver &Root, bool IncludeLines)
      : Root(Root), IncludeLines(IncludeLines) {}

  // A device function typed for one argument list (a specialization of a
  // callee; the extension's py::Specialization is a kernel's).
  struct Callee {
    std::string key, identity, symbol;
    std::string codeFingerprint; // of the callee's bytecode (cache keys)
    std::string argSignature;    // "(int64, float32 = const 2.0)"
    std::unique_ptr<ir::Resolver> resolver;
    Typed typed;
    types::TypeRef provisional = nullptr;
    bool done = false, inlineAlways = false;
    // It called itself (saw its provisional return type) while typed.
    bool recursed = false;
  };
  std::vector<Callee *> order; // completed specializations, callees first
  // The device functions' resolvers, needed by the analysis only.
  void dropResolvers() {
    for (auto &Entry : Callees)
      Entry.second->resolver.reset();
  }

  // A foreign function (cuda.declare_device) the kernel calls, directly or
  // through device functions: calls go to `wrapper`, an internal function
  // that calls `info.symbol` with its ABI (lower/Foreign.cpp).
  struct ForeignUse {
    std::string wrapper;
    ir::ForeignInfo info;
    std::vector<types::TypeRef> params; // as called: an array for a pointer
    SourceLoc at;                       // the first call
  };
  std::vector<ForeignUse> foreign; // in order of first call

  typeinfer::CalleeParams parameters(const ir::CTValue &Fn,
                                     const SourceLoc &At) override {
    ir::CalleeInfo Info = Root.callee(Fn);
    typeinfer::CalleeParams P;
    if (Info.isForeign) { // positional arguments only
      for (size_t K = 0; K < Info.foreign.signature.args.size(); ++K)
        P.names.push_back("arg" + std::to_string(K));
      return P;
    }
    const bc::RawCode &C = Info.code;
    if (C.flags & 0x08) // CO_VARKEYWORDS
      throw CompileError(ErrorKind::Unsupported, At,
                         "device function '" + Fn.name +
                             "' takes **kwargs, which kernels cannot pass");
    if (C.kwOnlyArgCount)
      throw CompileError(
          ErrorKind::Unsupported, At,
          "device function '" + Fn.name +
              "' has keyword-only parameters, which are not supported yet");
    if (C.freevarsAsParams) { // a nested function (bytecode/Decoder.cpp)
      P.names = C.freevars;
      P.captures = C.freevars.size();
    }
    P.names.insert(P.names.end(), C.varnames.begin(),
                   C.varnames.begin() + C.argCount);
    if (C.flags & 0x04) { // CO_VARARGS: the tuple is one more parameter
      P.names.push_back(C.varnames.at(C.argCount));
      P.varargs = true;
    }
    P.defaults = std::move(Info.defaults);
    return P;
  }

  typeinfer::CallSpec specialize(const ir::CTValue &Fn,
                                 const std::vector<types::TypeRef> &ArgTypes,
                                 const std::vector<ir::CTValue> &ArgValues,
                                 const SourceLoc &At) override {
    ir::CalleeInfo Info = Root.callee(Fn);
    if (Info.isForeign)
      return specializeForeign(Fn, Info.foreign, ArgTypes, At);
    types::Signature Sig{nullptr, ArgTypes};
    std::vector<ir::CTValue> Values = ArgValues;
    if (!Info.signatures.empty()) {
      // An explicit signature fixes the parameter types: the arguments
      // convert to them, and the callee knows no value.
      Sig = chooseSignature(Fn, Info.signatures, ArgTypes, At);
      Values.assign(ArgTypes.size(), ir::CTValue::invalid());
    }
    const std::vector<types::TypeRef> &Args = Sig.args;
    // One specialization per argument types and compile-time values.  The
    // key tells device functions apart by identity (this process); the
    // printed signature (cache keys) by name, their code listed separately.
    std::string KeyArgs = "(", Printed = "(", TypesOnly = Info.identity + "(";
    for (size_t K = 0; K < Args.size(); ++K) {
      std::string Sep = K ? ", " : "";
      TypesOnly += Sep + Args[K]->str();
      KeyArgs += Sep + Args[K]->str();
      Printed += Sep + Args[K]->str();
      const ir::CTValue &V = Values[K];
      if (V.kind == ir::CTValue::Kind::Invalid)
        continue;
      if (V.kind == ir::CTValue::Kind::Const) // other values: the type says it
        Printed += " = " + V.value.repr();
      KeyArgs += " = " + V.repr();
      if (V.kind == ir::CTValue::Kind::Function ||
          V.kind == ir::CTValue::Kind::Module)
        KeyArgs += "@" + std::to_string(V.handle);
    }
    KeyArgs += ")";
    Printed += ")";
    if (Sig.ret) { // a declared return type is part of the specialization
      KeyArgs += " -> " + Sig.ret->str();
      Printed += " -> " + Sig.ret->str();
    }
    std::string Key = Info.identity + KeyArgs;
    auto It = Callees.find(Key);
    if (It != Callees.end()) {
      Callee &S = *It->second;
      if (!S.done && (InProgress.empty() || InProgress.back() != Key))
        throw CompileError(
            ErrorKind::Unsupported, At,
            "recursion between device functions is not supported (" +
                chain(Fn.name) + ")",
            "only a function calling itself with the same "
            "argument types can recurse");
      S.recursed = S.recursed || !S.done;
      return {S.done ? S.typed.fn->returnType : S.provisional, S.symbol, Args};
    }
    // Recursion with the same types but other values (`f(x, 3)` calling
    // `f(x, n - 1)`) is another specialization, not recursion.
    TypesOnly += ")";
    for (const std::string &P : InProgressTypes)
      if (P.rfind(Info.identity + "(", 0) == 0 && P != TypesOnly)
        throw CompileError(
            ErrorKind::Unsupported, At,
            "device function '" + Fn.name +
                "' calls itself with different argument types " + Printed,
            "recursion needs the same argument types on every call");
    if (InProgress.size() > 64)
      throw CompileError(ErrorKind::Unsupported, At,
                         "device functions are nested too deeply");
    auto S = std::make_unique<Callee>();
    Callee &Ref = *S;
    Ref.key = Key;
    Ref.identity = Info.identity;
    Ref.inlineAlways = Info.inlineAlways;
    Ref.symbol = lower::mangleKernelName(Info.code.qualname, Key);
    Ref.codeFingerprint = codeFingerprint(Info.code, IncludeLines);
    Ref.argSignature = Printed;
    Ref.resolver = std::move(Info.resolver);
    Callees.emplace(Key, std::move(S));
    InProgress.push_back(Key);
    InProgressTypes.push_back(TypesOnly);
    Names.push_back(Fn.name);
    typeinfer::Options TO;
    TO.isKernel = false;
    TO.callees = this;
    TO.provisionalReturn = &Ref.provisional;
    TO.recursed = &Ref.recursed;
    if (Sig.ret)
      TO.declaredReturn =
          Sig.ret == types::voidTy() ? types::noneTy() : Sig.ret;
    TO.argValues = Values;
    Info.code.varargsAsParam = (Info.code.flags & 0x04) != 0; // CO_VARARGS
    Ref.typed =
        frontend(Info.code, Args, *Ref.resolver, TO, nullptr, {}, nullptr);
    InProgress.pop_back();
    InProgressTypes.pop_back();
    Names.pop_back();
    Ref.done = true;
    order.push_back(&Ref);
    return {Ref.typed.fn->returnType, Ref.symbol, Args};
  }

private:
  ir::Resolver &Root;
  bool IncludeLines;

  // A call of a foreign function: the arguments convert to its one
  // signature; one wrapper per symbol and signature.
  typeinfer::CallSpec
  specializeForeign(const ir::CTValue &Fn, ir::ForeignInfo &Info,
                    const std::vector<types::TypeRef> &ArgTypes,
                    const SourceLoc &At) {
    // An array passed for a CPointer(dtype) or voidptr parameter passes its
    // data pointer: the wrapper takes the array itself (one per array type).
    types::Signature Decayed = Info.signature;
    for (size_t K = 0; K < Decayed.args.size() && K < ArgTypes.size(); ++K) {
      types::TypeRef P = Decayed.args[K], A = ArgTypes[K];
      if (P->kind() == types::Kind::Pointer && A->isArray() &&
          (P->inner() == types::voidTy() || P->inner() == A->dtype()))
        Decayed.args[K] = A;
    }
    types::Signature Sig = chooseSignature(Fn, {Decayed}, ArgTypes, At);
    types::TypeRef Ret = Sig.ret == types::voidTy() ? types::noneTy() : Sig.ret;
    std::string Key = Info.symbol + (Info.cAbi ? " c " : " numba ") +
                      Info.signature.str() + " called with " + Sig.str();
    std::string Wrapper =
        lower::mangleKernelName("pcj_ffi_" + Info.symbol, Key);
    for (ForeignUse &U : foreign) {
      if (U.wrapper == Wrapper)
        return {Ret, Wrapper, Sig.args};
      if (U.info.symbol == Info.symbol &&
          (U.info.signature.str() != Info.signature.str() ||
           U.info.cAbi != Info.cAbi))
        throw CompileError(
            ErrorKind::Typing, At,
            "foreign function '" + Info.symbol +
                "' is declared twice with different signatures or "
                "ABIs: " +
                U.info.signature.str() + " and " + Info.signature.str());
    }
    foreign.push_back({Wrapper, std::move(Info), Sig.args, At});
    return {Ret, Wrapper, Sig.args};
  }

  // The explicit signature a call converts to (types/Overloads.h).
  static types::Signature chooseSignature(
      const ir::CTValue &Fn, const std::vector<types::Signature> &Sigs,
      const std::vector<types::TypeRef> &Args, const SourceLoc &At) {
    std::vector<std::vector<types::TypeRef>> Params;
    for (const types::Signature &S : Sigs)
      Params.push_back(S.args);
    types::OverloadChoice C = types::chooseOverload(Args, Params);
    if (C.best.size() == 1)
      return Sigs[C.best[0]];
    std::string Msg = "device function '" + Fn.name + "' called with " +
                      types::Signature{nullptr, Args}.str();
    Msg += C.best.empty()
               ? ": no matching signature; it is declared for:"
               : ": ambiguous call; these signatures fit equally well:";
    for (size_t K = 0; K < Sigs.size(); ++K)
      if (C.best.empty() ||
          std::find(C.best.begin(), C.best.end(), K) != C.best.end())
        Msg += "\n  " + Sigs[K].str();
    throw CompileError(ErrorKind::Typing, At, Msg);
  }
  std::map<std::string, std::unique_ptr<Callee>> Callees;
  std::vector<std::string> InProgress, InProgressTypes, Names;

  std::string chain(const std::string &Last) const {
    std::string S;
    for (const std::string &N : Names)
      S += N + " -> ";
    return S + Last;
  }
};

struct Analysis {
  Session session;
  Typed kernel;
  CompileResult result; // filled so far: names, signature, resolutions
  std::string key;
  std::vector<StageTiming> timings;

  Analysis(ir::Resolver &R, bool IncludeLines) : session(R, IncludeLines) {}
};

} // namespace pcj::driver
