"""torch/_inductor/decomposition.py: the decomposition table inductor traces its graphs with.

It is the core-aten table of `ember._decomp` minus the ops that lower better as a whole here: `_softmax` and
`_log_softmax` become one fused row kernel straight from `lowering.py` (max, sum of exp and the division in
one loop nest per row), and `gelu` uses the eager kernel's vectorised normal CDF instead of libm's erf (which
gcc cannot vectorise), so their decompositions are left out. So is `gelu_backward`'s: decomposed, its erf and
exp of the forward's input were computed by the forward kernel and saved (the forward evaluated the normal CDF
twice per element, once for gelu and once for its derivative); whole, the backward computes the derivative from
the saved input with the same CDF. `embedding` is lowered whole too: its decomposition
(index_select) would be traced under autograd as index_select, whose backward knows nothing of `padding_idx`
(the padding row got gradient), where `embedding`'s own backward (embedding_dense_backward) masks it. The softmax backwards are lowered whole too: over the last dim they call eager's softmax.c
(codegen/softmax_calls.py, eager's bits), as the forwards do. `nll_loss_forward` and its backward are lowered whole: the forward
calls eager's nll.c (its sum in double, eager's bits; codegen/loss_calls.py), the backward is one pointwise kernel
(the decomposition's saved a (N, C) mask from the forward). Inductor-specific decompositions are in
`decompositions` below: the lazy conj / neg views (`_conj`, `_neg_view`) become the physical ops, since generated
loops read a buffer's stored values and know no math bits.
"""
from ember._decomp import core_aten_decompositions
from ember._ops import ops

aten = ops.aten


def _conj_physical(x):
    return aten.conj_physical.default(x)


def _neg(x):
    return aten.neg.default(x)


decompositions = {           # inductor-only entries (op -> function)
    aten._conj.default: _conj_physical,
    aten._neg_view.default: _neg,
}

_LOWERED_WHOLE = (aten._softmax.default, aten._log_softmax.default, aten.gelu.default, aten.gelu_backward.default,
                  aten.embedding.default, aten.nll_loss_forward.default, aten.nll_loss_backward.default,
                  aten._softmax_backward_data.default, aten._log_softmax_backward_data.default)


def select_decomp_table():
    table = core_aten_decompositions()
    for op in _LOWERED_WHOLE:
        table.pop(op, None)
    table.update(decompositions)
    return table
