"""Hints for the numba kernel's compiler: no effect on any number, only on the code LLVM makes.

`prefetch1`/`prefetch2` emit llvm.prefetch for a[i] / a[i, j] (never faults); `nonneg(x)` tells
LLVM x is not negative and `columns(a, n)` that a has n columns, so it drops numba's
negative-index wrap and row-stride loads. Under NUMBA_DISABLE_JIT the hints do nothing.
A hint can make LLVM emit a call numba cannot link (__udivti3): compile a preset after adding
one. See docs/development.md, section Compiler hints.
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


def _assume(builder, cond):
    """Emit llvm.assume(cond): LLVM may take the i1 `cond` as true from here on."""
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(1)])
    builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.assume"), [cond])


@intrinsic
def nonneg(typingctx, x):
    """x, which the caller knows is not negative, with LLVM told so (llvm.assume).

    LLVM then drops numba's negative-index wraparound (index + size if negative) and the sign
    fixes of Python's // and % wherever x is used. A negative x is undefined behaviour, as an
    index past the array already is (numba does no bounds checks).
    """
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        (v,) = args
        _assume(builder, builder.icmp_signed(">=", v, ir.Constant(v.type, 0)))
        return v

    return x(x), codegen


@intrinsic
def columns(typingctx, arr, n):
    """Tell LLVM that the 2-D array `arr` has `n` columns, a constant (llvm.assume).

    Indexing then multiplies a row by that constant (a shift and an add) instead of by the
    column count loaded from the array, and the count need not be kept in a register. A wrong
    n is undefined behaviour: the tables are made with these widths (sim.init_state,
    sim.simulate_kernel) and nowhere else. n must be a literal: import the width by name
    (`from .layout import N_TH`); numba types a module attribute (`L.N_TH`) as a plain int64.
    """
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and isinstance(n, types.IntegerLiteral)):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        cols = cgutils.unpack_tuple(builder, ary.shape)[1]
        n = ir.Constant(cols.type, signature.args[1].literal_value)
        _assume(builder, builder.icmp_signed("==", cols, n))
        return context.get_dummy_value()

    return types.void(arr, n), codegen


def _same(x):
    """Compiled code only: as Python, x itself."""
    return x


if config.DISABLE_JIT:
    prefetch1 = prefetch2 = columns = _no_hint  # noqa: F811
    nonneg = _same  # noqa: F811
