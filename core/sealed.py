"""Read-only views of the engine's arrays for compiled strategies: :func:`read_only`.

A compiled strategy is handed slices of the engine's own arrays (no copy: the
view is built once per decision on the hot path). Numba types an array as
*read-only* when it comes from a NumPy array whose ``writeable`` flag is off,
but it cannot mark an array read-only inside compiled code; :func:`read_only`
does exactly that, at no run-time cost: the same array, typed
``readonly array(...)``. Any write a strategy makes to its view is then a
typing error when its kernel is compiled, named in one line
(:mod:`sim.engine.checked_strategies`), never a change to the match.
"""

from __future__ import annotations

from numba import types
from numba.core.extending import intrinsic
from numba.core.imputils import impl_ret_borrowed


@intrinsic
def read_only(typingctx, array):
    """The same array, typed read-only (``array.copy(readonly=True)``); same data, no copy.

    Parameters
    ----------
    array : any Numba array

    Returns
    -------
    readonly array of the same dtype, dimensions and layout
    """
    if not isinstance(array, types.Array):
        return None
    typed = array.copy(readonly=True)

    def codegen(context, builder, signature, args):
        # Read-only and writable arrays share one data model: the value passes through, as a
        # new reference where reference counting is on (a no-op in the engine's kernels).
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return typed(array), codegen
