"""grad_fn names over the whole op database equal torch's (tutorials and debugging sessions print them).

For every op of `ember.testing.op_db` with a floating dtype, the first samples run in ember and in torch 2.13
with the floating inputs requiring grad; the class names of the outputs' grad_fn must agree. The ops listed in
KNOWN_DIFFERENCES build their result through other ops than torch's (or have a node where torch has none) and
are checked to still differ, so fixing one forces its entry out of the list."""
import warnings

import numpy as np
import pytest

import ember
from ember.testing import op_db
from ember.testing._opinfo import resolve

KNOWN_DIFFERENCES = {
    # ember composes these from other ops; torch has one op (and one Node) of its own
    "nn.functional.pixel_shuffle": "ember reshapes and permutes (UnsafeView); torch has PixelShuffleBackward0",
    "pixel_shuffle": "as nn.functional.pixel_shuffle",
    "nn.functional.pixel_unshuffle": "ember reshapes and permutes; torch has PixelUnshuffleBackward0",
    "rot90": "ember flips and transposes; torch has Rot90Backward0",
    "geqrf": "ember has no geqrf formula (NotImplemented); torch's GeqrfBackward0 raises when run",
    "linalg.eigvals": "ember's eigvals has no formula; torch goes through linalg_eig",
    "unique": "ember's unique has no node of its own (NotImplemented); torch names it Unique2Backward0",
    # torch's composite ends in another op than ember's
    "diag": "ember copies the diagonal (CloneBackward0); torch uses diagonal_copy",
    "linalg.tensorinv": "ember reshapes through view; torch through _reshape_alias",
    "linalg.cond": "ember divides norms; torch squeezes the result of linalg_cond's svd path",
    "linalg.matrix_norm": "ember has a linalg_matrix_norm node; torch decomposes 'fro' to linalg_vector_norm",
    "nuclear_norm": "as linalg.matrix_norm: ember has a linalg_matrix_norm node; torch sums the svdvals",
    "linalg.matrix_power": "power 1 returns a copy without a node in ember; torch records CopyBackwards",
    "nn.functional.bilinear": "ember's bilinear ends in a sum; torch's _trilinear in a view",
    "nn.functional.kl_div": "ember has a kl_div op; torch computes it from pointwise ops",
    "nn.functional.linear": "3-D input: ember adds the bias after matmul; torch folds to addmm + view",
    "_nn.linear": "3-D input: ember's matmul keeps its node; torch's folds to mm + _unsafe_view",
    "nn.functional.scaled_dot_product_attention": "ember's math path ends in matmul; torch's in _unsafe_view",
    "_nn.scaled_dot_product_attention": "as nn.functional.scaled_dot_product_attention",
    "nn.functional.max_pool1d": "ember has a 1-d max pool op; torch unsqueezes to 2-d and squeezes",
    "nn.functional.pad": "circular pad: ember has a node of its own; torch writes slices (CopySlices)",
    "nn.functional.pairwise_distance": "ember uses linalg_vector_norm; torch uses norm",
    "pairwise_distance": "as nn.functional.pairwise_distance",
    "repeat_interleave": "ember gathers with index_select; torch expands and views",
    "linalg.matmul": "ember's linalg_matmul is an op with a node of its own (MatmulBackward0); torch's is matmul, "
                     "which ends in mm or _unsafe_view",
    "linalg.solve_triangular": "ember has no linalg_solve_triangular formula yet (NotImplemented); torch has "
                               "LinalgSolveTriangularBackward0",
    "cholesky": "ember's legacy cholesky runs linalg_cholesky_ex (LinalgCholeskyExBackward0); torch's has "
                "CholeskyBackward0",
    "linalg.eig": "ember has no linalg_eig formula yet (NotImplemented); torch has LinalgEigBackward0",
    "nansum": "ember's nansum is a composite (where + sum: SumBackward1); torch's an op (NansumBackward0)",
    "quantile": "torch's composite ends in an in-place squeeze_(-1) (SqueezeBackward4); ember has no squeeze_",
    "nanquantile": "as quantile",
    "complex": "ember stacks and views as complex (ViewAsComplexBackward0); torch has ComplexBackward0",
    "polar": "ember's polar is complex(abs cos, abs sin) (ViewAsComplexBackward0); torch has PolarBackward0",
}

torch = pytest.importorskip("torch")


def _names(r):
    r = list(r) if isinstance(r, (tuple, list)) else [r]
    return [type(x.grad_fn).__name__ if x.grad_fn is not None else None for x in r if hasattr(x, "grad_fn")]


def _convert(make):
    def conv(a):
        t = make(np.array(a, copy=True))
        return t.requires_grad_() if t.dtype.is_floating_point else t
    return conv


def _cases():
    out = []
    for op in op_db:
        if op.randomness:
            continue
        dt = next((d for d in ("float64", "float32") if d in op.dtypes), None)
        if dt is not None:
            out.append(pytest.param(op, dt, id=op.name))
    return out


def _pairs(op, dt):
    """(sample name, ember names, torch names) for the first three samples both libraries accept."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in list(op.sample_inputs(dt))[:3]:
            try:
                x, a, k = s.convert(_convert(torch.from_numpy))
                want = _names(resolve(torch, op.torch_name)(x, *a, **k))
            except Exception:   # noqa: BLE001  (a sample torch refuses says nothing about names)
                continue
            x, a, k = s.convert(_convert(ember.from_numpy))
            out.append((s.name, _names(op.op(x, *a, **k)), want))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("op,dt", _cases())
def test_grad_fn_names_match_torch(op, dt):
    if op.name in KNOWN_DIFFERENCES:
        pytest.skip(KNOWN_DIFFERENCES[op.name])
    differ = [p for p in _pairs(op, dt) if p[1] != p[2]]
    assert not differ, differ


@pytest.mark.parity
def test_known_differences_still_differ():
    """An op fixed to name its nodes like torch must leave KNOWN_DIFFERENCES."""
    by_name = {}
    for p in _cases():
        op, dt = p.values
        by_name.setdefault(op.name, []).append((op, dt))
    assert not set(KNOWN_DIFFERENCES) - set(by_name), "KNOWN_DIFFERENCES names an op the database lacks"
    fixed = [n for n in KNOWN_DIFFERENCES
             if not any(p[1] != p[2] for op, dt in by_name[n] for p in _pairs(op, dt))]
    assert not fixed, f"these now name their nodes like torch: remove them from KNOWN_DIFFERENCES: {fixed}"
