"""Cache prefetch hints for the numba kernel: no effect on any number, only on memory stalls.

`prefetch1(a, i)` and `prefetch2(a, i, j)` emit LLVM's llvm.prefetch (read, high locality) for
the address of a[i] / a[i, j]. A prefetch never faults, so an index past the array (NO_PAGE,
NIL) is harmless. The pure-Python twin has no counterpart: there is nothing to mirror. With
NUMBA_DISABLE_JIT=1 (the kernel run as Python, as the no-JIT test leg does) they do nothing: an
intrinsic cannot run outside compiled code.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic


def _emit_prefetch(context, builder, arrty, arr, inds):
    ary = context.make_array(arrty)(context, builder, arr)
    ptr = cgutils.get_item_pointer2(
        context,
        builder,
        data=ary.data,
        shape=cgutils.unpack_tuple(builder, ary.shape),
        strides=cgutils.unpack_tuple(builder, ary.strides),
        layout=arrty.layout,
        inds=inds,
        wraparound=False,
        boundscheck=False,
    )
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
    # (address, rw = read, locality = 3 (keep in all levels), cache type = data)
    builder.call(
        fn,
        [
            builder.bitcast(ptr, cgutils.voidptr_t),
            ir.Constant(i32, 0),
            ir.Constant(i32, 3),
            ir.Constant(i32, 1),
        ],
    )


def _no_hint(*_args) -> None:
    """Compiled code only: as Python, a hint is nothing."""


@intrinsic
def prefetch1(typingctx, arr, i):
    """Prefetch the cache line of arr[i] (1-D array)."""

    def codegen(context, builder, signature, args):
        idx = [context.cast(builder, args[1], signature.args[1], types.intp)]
        _emit_prefetch(context, builder, signature.args[0], args[0], idx)
        return context.get_dummy_value()

    return types.void(arr, i), codegen


@intrinsic
def prefetch2(typingctx, arr, i, j):
    """Prefetch the cache line of arr[i, j] (2-D array)."""

    def codegen(context, builder, signature, args):
        idx = [
            context.cast(builder, args[1], signature.args[1], types.intp),
            context.cast(builder, args[2], signature.args[2], types.intp),
        ]
        _emit_prefetch(context, builder, signature.args[0], args[0], idx)
        return context.get_dummy_value()

    return types.void(arr, i, j), codegen


if config.DISABLE_JIT:
    prefetch1 = prefetch2 = _no_hint  # noqa: F811
