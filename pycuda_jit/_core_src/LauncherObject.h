// The object kernel[grid, block, stream, shared] returns (_core.Launcher):
// a kernel with a launch configuration.  Dispatcher.cpp creates and launches
// it; LauncherApi.cpp gives it numba-cuda's attributes (griddim, blockdim,
// stream, sharedmem, dispatcher, pre_launch_callbacks) and pickling.
#pragma once

#include "DispatcherObject.h"
#include "Streams.h"

#include "runtime/Launch.h"

namespace pcj::py {

// CPython's vectorcall protocol (PEP 590), which the limited API names only
// from 3.12 but every supported version (3.10+) implements with the same
// flag bit, member name and function type: a launch then gets its
// arguments as an array, with no argument tuple built per call.
using VectorcallFn = PyObject *(*)(PyObject *, PyObject *const *, size_t,
                                   PyObject *);

struct LauncherObject {
  PyObject_HEAD VectorcallFn vectorcall; // at __vectorcalloffset__
  DispatcherObject *disp;
  rt::Dim3 grid, block;
  unsigned shared;
  rt::CUstream stream;
  PyObject *streamObj; // the stream argument, kept alive (may be null)
  StreamObject *ours;  // == streamObj when it is one of our Streams
  // pre_launch_callbacks: a list, made on first use (null: none).
  PyObject *callbacks;
};

// Launcher attributes and methods (LauncherApi.cpp).
extern PyGetSetDef LauncherGetSet[];
extern PyMethodDef LauncherMethods[];

// Calls each of L's pre_launch_callbacks with (the Overload of Signature,
// L); throws PythonError when one raises.
void runPreLaunchCallbacks(LauncherObject *L, const std::string &Signature);

} // namespace pcj::py
