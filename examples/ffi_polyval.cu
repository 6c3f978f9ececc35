// A device function in CUDA C++ for examples/ffi.py: Horner's rule for a
// cubic, c0 + c1 x + c2 x^2 + c3 x^3, with coefficients from an array.
//
// It follows the ABI of cuda.declare_device(..., abi="numba"): extern "C"
// (no name mangling), the result stored through the first argument, an int
// status returned (0: no Python exception).  The coefficient array arrives
// as a plain pointer: the kernel passes an array where the declaration says
// CPointer(float64).
extern "C" __device__ int polyval3(double *result, double x, const double *c)
{
  *result = ((c[3] * x + c[2]) * x + c[1]) * x + c[0];
  return 0;
}
