// compile_ptx(func, sig, cc, options, stages): one compile for a GPU
// architecture outside any dispatcher (tools, tests, cuda.compile_ptx), its
// PTX, kernel name, stage dumps and return type (see Dispatcher.h).
#include "CodeReader.h"
#include "CodegenPlugin.h"
#include "CompileReport.h"
#include "Dispatcher.h"
#include "GpuTarget.h"
#include "JitOptions.h"
#include "KernelCache.h"
#include "Resolver.h"
#include "Specializations.h"
#include "driver/Compile.h"
#include "types/Signature.h"

namespace pcj::py {

using types::parseSignature;
using types::Signature;

PyObject *compilePtx(PyObject *Self, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    PyObject *Func, *Options = nullptr, *Stages = nullptr;
    const char *SigText;
    int Major = 9, Minor = 0;
    const char *Suffix = "";
    // output="ltoir" (cuda.compile): libNVVM's LTO-IR as bytes in place of
    // the PTX; the NVVM IR writer's errors are raised.
    const char *Output = "ptx";
    int ForceInline = 0;
    static const char *Names[] = {
        "func",   "sig",       "cc_major", "cc_minor",    "options",
        "stages", "cc_suffix", "output",   "forceinline", nullptr};
    if (!PyArg_ParseTupleAndKeywords(
            Args, Kw, "Os|iiOOssp", const_cast<char **>(Names), &Func, &SigText,
            &Major, &Minor, &Options, &Stages, &Suffix, &Output, &ForceInline))
      return nullptr;
    bool LtoIr = std::string(Output) == "ltoir";
    JitOptions O =
        parseJitOptions(Options && Options != Py_None ? Options : nullptr);
    Signature Sig = parseSignature(SigText);
    driver::CompileOptions CO = toCompileOptions(O, driver::Backend::CUDA);
    // The newest architecture here at or below cc (numba-cuda's closest
    // arch); arch-specific only when asked (cc=(9, 0, 'a')).
    applyGpuTarget(CO, gpuTargetForArch(Major, Minor, Suffix));
    CO.links = readLinkItems(O.link.get());
    // Tests and tools: compile read-only arrays as noalias (the dispatcher
    // does this only after checking the arguments do not overlap).
    CO.noAliasReadOnly = O.assumeNoalias;
    // compile_ptx(device=True): an exported device function (C ABI),
    // named device_name (None: the mangled name).
    if (O.device) {
      CO.deviceFunction = true;
      CO.deviceName = O.deviceName;
      CO.declaredReturn = Sig.ret;
    } else {
      Sig.args = types::kernelArgTypes(Sig.args);
    }
    if (LtoIr) {
      CO.lto = CO.viaNvvm = true;
      CO.forceInline = ForceInline != 0;
    }
    CO.dumps = envDumps();
    if (Stages && Stages != Py_None) {
      Ref It = check(PyObject_GetIter(Stages));
      while (PyObject *Item = PyIter_Next(It.get())) {
        Ref Owned(Item);
        std::string Stage = utf8(Item);
        checkStageName(Stage);
        CO.dumps.insert(Stage);
      }
      if (PyErr_Occurred())
        return nullptr;
    }
    bc::RawCode Raw = readCode(Func);
    PyResolver R(Func);
    // Analysis with the GIL (it reads Python objects); code generation
    // without it, so that threads compile in parallel.
    driver::AnalysisPtr A = driver::analyzeKernel(Raw, Sig.args, R, CO);
    const driver::CodegenApi &Codegen = codegenPlugin();
    driver::dropResolvers(*A);
    driver::CompileResult Res;
    {
      WithoutGil Released;
      Res = Codegen.generateKernel(std::move(A), CO);
    }
    printDumps(Res);
    printTimings(Res, "compile_ptx");
    Ref Dumps(PyDict_New());
    for (const auto &[Stage, Text] : Res.dumps) {
      Ref V(PyUnicode_FromStringAndSize(Text.data(), Py_ssize_t(Text.size())));
      PyDict_SetItemString(Dumps.get(), Stage.c_str(), V.get());
    }
    std::string Ret = Res.returnType ? Res.returnType->str() : "none";
    if (LtoIr)
      return Py_BuildValue("(y#,s,O,s)", Res.ltoir.data(),
                           Py_ssize_t(Res.ltoir.size()), Res.kernelName.c_str(),
                           Dumps.get(), Ret.c_str());
    return Py_BuildValue("(s#,s,O,s)", Res.ptx.data(),
                         Py_ssize_t(Res.ptx.size()), Res.kernelName.c_str(),
                         Dumps.get(), Ret.c_str());
  });
}

} // namespace pcj::py
