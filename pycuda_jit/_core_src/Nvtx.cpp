// NVTX ranges (see Nvtx.h).
#include "Nvtx.h"
#include "support/Env.h"

#include <cstdlib>
#include <cstring>
#include <string>

#ifdef PCJ_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace pcj::py {

bool nvtxBuiltIn() {
#ifdef PCJ_HAVE_NVTX
  return true;
#else
  return false;
#endif
}

bool nvtxEnabled() {
  static const bool On = [] {
    const char *V = env::raw(env::Var::Nvtx);
    return nvtxBuiltIn() && V && std::strcmp(V, "1") == 0;
  }();
  return On;
}

void NvtxRange::push(const char *What, PyObject *Func) {
#ifdef PCJ_HAVE_NVTX
  std::string Name = std::string("pycuda_jit ") + What;
  PyObject *Type, *Value, *Trace;
  PyErr_Fetch(&Type, &Value, &Trace);
  if (Ref Q{PyObject_GetAttrString(Func, "__qualname__")}) {
    if (const char *S = PyUnicode_AsUTF8AndSize(Q.get(), nullptr))
      Name += std::string(" ") + S;
  }
  PyErr_Clear();
  PyErr_Restore(Type, Value, Trace);
  nvtxRangePushA(Name.c_str());
  Pushed = true;
#endif
}

void NvtxRange::pop() {
#ifdef PCJ_HAVE_NVTX
  nvtxRangePop();
#endif
}

} // namespace pcj::py
