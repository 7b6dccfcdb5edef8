"""Bit intrinsics over ``int64`` tile and value sets (LLVM ``cttz`` and ``ctpop``).

Tile sets and value sets are ``int64`` bitmasks (:mod:`core.state`); these
two intrinsics are how the rule primitives walk them without a loop over 28
bits.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def lowest_bit_index(typingctx, mask):
    """Index of the lowest set bit of a nonzero int64 (LLVM ``cttz``)."""
    if mask != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.int64), codegen


@intrinsic
def bit_count(typingctx, mask):
    """Number of set bits of an int64 (LLVM ``ctpop``)."""
    if mask != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen
