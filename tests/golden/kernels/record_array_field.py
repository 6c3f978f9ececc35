# SIGNATURE: void(Record(n: int32 @0, v: nestedarray(float32, (4,)) @4; 20 bytes, align 4)[::1], float32[::1])
# An array field of a record is a view of the record's bytes: its data
# pointer is the record's address plus the field's offset (4), its shape and
# strides are constants, so an element is one address computation; the
# generic view of a global record becomes global loads and stores.
# CHECK-TYPED: getattr %{{[0-9]+}}, "v" {{ *}}: array(float32, 1d, C, generic)
# CHECK-TYPED: call %{{[0-9]+}}(%{{[0-9]+}}) {{ *}}: int64 [len]
# CHECK-PTX: mad.lo.s64 [[REC:%rd[0-9]+]], %rd{{[0-9]+}}, 20,
# CHECK-PTX: ld.global.b32 %r{{[0-9]+}}, {{\[}}[[REC]]{{\]}}
# CHECK-PTX: ld.global.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+4]
# CHECK-PTX: st.global.b32 {{\[}}[[REC]]+4{{\]}}
from pycuda_jit import cuda


def record_array_field(a, out):
    i = cuda.grid(1)
    if i < a.size:
        r = a[i]
        out[i] = r.v[r.n & 3] + len(r.v)
        r.v[0] = 2.0 * out[i]
