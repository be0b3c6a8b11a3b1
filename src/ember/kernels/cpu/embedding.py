"""cpu embedding (one np.take over rows) and one_hot (one comparison against arange)."""
import numpy as np

from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..meta.embedding import embedding_spec, one_hot_check
from ..common import size_str, _tn
from .runtime.arrays import wrap
from .index import add_rows
from .runtime import clib


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    shape, dt = embedding_spec(weight, indices)
    idx = indices._np
    if idx.size and idx.min() < 0:
        raise IndexError("index out of range in self")
    try:
        r = np.take(weight._np, idx, axis=0)        # checks the upper bound itself
    except IndexError:
        raise IndexError("index out of range in self") from None
    if r.dtype == dt._np and r.flags.c_contiguous:
        return Tensor._wrap_fresh(r, dt)            # np.take's fresh result: no copy
    return wrap(r, dt)


def one_hot(self, num_classes=-1):
    one_hot_check(self)
    x = self._np
    if num_classes == -1:
        if x.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size:
        if x.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if x.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap(x[..., None] == np.arange(num_classes), D.int64)


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    """Bags as segments of `indices`: one scatter-reduce (add_rows / np.maximum.at) into the bag rows."""
    from ..meta.embedding import embedding_bag_spec
    b, d = embedding_bag_spec(weight, indices, offsets, mode, per_sample_weights, include_last_offset)
    w, idx, off = weight._np, indices._np.astype(np.int64), offsets._np.astype(np.int64)
    _check_bags(idx, off, w.shape[0], D.int64 if D.int64 in (indices.dtype, offsets.dtype) else D.int32,
                mode == 2 or w.dtype == np.float64)
    seg = np.searchsorted(off[:b], np.arange(idx.size), side="right") - 1 if b else np.zeros(0, np.int64)
    keep = (idx != padding_idx) if padding_idx is not None and padding_idx >= 0 else np.ones(idx.size, bool)
    rows = w[idx]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights._np[:, None]
    count = np.bincount(seg[keep], minlength=b)[:b] if b else np.zeros(0, np.int64)
    if mode == 2:
        out = np.full((b, d), -np.inf, w.dtype)
        sk, rk = seg[keep], rows[keep]
        bags, starts = np.unique(sk, return_index=True)          # bags are contiguous runs of sk
        if starts.size:
            out[bags] = np.maximum.reduceat(rk, starts, axis=0)
        out[count == 0] = 0
        maxi = _argmax_rows(rk, idx[keep], sk, out, (b, d), bags, starts)
    else:
        out = np.zeros((b, d), w.dtype)
        add_rows(out, seg[keep], rows[keep])
        if mode == 1:
            out /= np.maximum(count, 1)[:, None].astype(w.dtype)
        maxi = np.zeros((b,), np.int64)
    return wrap(out, weight.dtype), wrap(seg, D.int64), wrap(count, D.int64), wrap(maxi, D.int64)


def _check_bags(idx, off, num_weights, off_dtype, generic):
    """EmbeddingBag.cpp's checks of the offsets (promoted with the indices) and indices, with its messages (the
    0-dim tensor TORCH_CHECK prints after the first one included). `generic`: max mode or float64, whose loop
    has its own index message; the fbgemm path's (float32/16, sum/mean) is the clear one it gives for a bad
    index in the last bag (for an earlier bag it says "Expected i < index_size", not reproduced)."""
    if off.size and off[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {off[0]}\n[ torch.{_tn(off_dtype)}Tensor{{}} ]")
    if off.size and off[-1] > idx.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.size} but got offsets[-1] of "
                           f"{off[-1]}")
    if idx.size:
        bad = np.flatnonzero((idx < 0) | (idx >= num_weights))
        if bad.size and generic:
            raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                               f"{idx[bad[0]]}")
        if bad.size:
            raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in the valid range "
                               f"[0, {num_weights})")


def _argmax_rows(rows, idx, seg, out, shape, bags, starts):
    """max mode's maximum_indices: per (bag, column) the weight row of the first element attaining the max
    (0 for an empty bag); the backward sends each bag's grad there. `bags`/`starts`: each non-empty bag
    and where its contiguous run of rows starts (a reduceat per run instead of np.minimum.at)."""
    k = rows.shape[0]
    pos = np.where(rows == out[seg], np.arange(k)[:, None], k)
    first = np.full(shape, k, np.int64)
    if starts.size:
        first[bags] = np.minimum.reduceat(pos, starts, axis=0)
    return np.where(first < k, np.append(idx, 0)[first], 0)


_C_BWD = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def _c_add_rows(gw, idx, go):
    """gw[idx[r]] += go[r] over the rows in order by csrc/embedding_bwd.c (torch's bits, see there) for float32/64
    c-contiguous arrays of one dtype; False (nothing written) when C is off or an index is out of range.
    A GPT's token-embedding gradient, (16, 64) indices of (16, 64, 128) float32, min us at 1 and 2 threads,
    torch in the same process, load ~6: 168 -> 22 (torch 65; before: numpy's argsort + reduceat + gather)."""
    suf = _C_BWD.get(go.dtype)
    if suf is None or gw.dtype != go.dtype or not go.flags.c_contiguous:
        return False
    fn = clib.kernel("embedding_bwd", "embedding_bwd_" + suf, "plplpl", "i")
    if fn is None:
        return False
    return fn(clib.address(idx), idx.size, clib.address(go), go.shape[1], clib.address(gw), gw.shape[0]) == 0


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    idx = indices._np.reshape(-1).astype(np.int64)
    go = grad_output._np.reshape(idx.size, -1)
    gw = np.zeros((num_weights, go.shape[1]), go.dtype)
    if not (go.size and _c_add_rows(gw, idx, go)):
        add_rows(gw, idx, go)
    if scale_grad_by_freq:
        cnt = np.bincount(idx, minlength=num_weights)
        gw /= np.maximum(cnt, 1)[:, None].astype(go.dtype)
    if 0 <= padding_idx < num_weights:
        gw[padding_idx] = 0
    return wrap(gw, grad_output.dtype)


def embedding_renorm_(self, indices, max_norm, norm_type):
    """Rescale (in place) the referenced rows whose norm exceeds max_norm, like torch (scale uses +1e-7).
    Rows are visited as torch does (sorted unique indices, negative ones counted from the end); an index out of
    range raises torch's select() IndexError, but only after validation, so the weight is left unchanged."""
    from ..meta.embedding import embedding_renorm_check
    embedding_renorm_check(self, indices)
    w = self._np
    n = w.shape[0]
    rows = np.unique(indices._np.reshape(-1).astype(np.int64))
    bad = rows[(rows < -n) | (rows >= n)]
    if bad.size:
        raise IndexError(f"select(): index {bad[0]} out of range for tensor of size {size_str(self._size)} at "
                         f"dimension 0")
    rows = np.unique(rows % n) if n else rows
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    w[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(w.dtype)
    return self
