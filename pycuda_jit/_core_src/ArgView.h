// What a launch reads from its arguments, for tests and benchmarks: the
// classification of one value as data, and the time classification takes
// (no compile, no launch).
#pragma once

#include "Glue.h"

namespace pcj::py {

// _core.arg_view(value) -> {"type": describeType, "ptr", "shape",
// "strides", "readonly", "stream" (None: no stream field), "path"
// ("foreign": a torch/CuPy array read through its attributes; "other")}.
PyObject *pyArgView(PyObject *Module, PyObject *Value);

// _core.classify_seconds(args, rounds) -> seconds for `rounds` passes of
// classifying every element of the tuple `args` as a launch does.
PyObject *pyClassifySeconds(PyObject *Module, PyObject *Args);

} // namespace pcj::py
