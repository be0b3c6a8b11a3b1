"""torch.nn.parallel.DistributedDataParallel: gradients averaged across ranks, bucketed, overlapping backward.

At construction the parameters and buffers of rank 0 are broadcast to every rank.  Parameters are grouped into
buckets of about ``bucket_cap_mb`` (in reverse registration order, roughly the order backward produces their
gradients, as torch's reducer does).  Each parameter's post-accumulate-grad hook counts it ready; a full bucket
is flattened and all-reduced asynchronously while backward goes on, and when the last bucket has been launched
the reducer waits for all of them and writes the averaged gradients back to ``param.grad``.
``find_unused_parameters=True`` walks the autograd graph of the outputs after forward and counts the parameters
it cannot reach as ready (they contribute zeros).  ``no_sync()`` lets gradients accumulate locally.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ...autograd.graph import edge_pairs as _edge_pairs
from ..modules import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    __slots__ = ("params", "ready", "work", "flat", "dtype")

    def __init__(self, params, dtype):
        self.params = params
        self.dtype = dtype
        self.ready = set()
        self.work = None
        self.flat = None


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        import ember.distributed as dist
        if not dist.is_initialized():
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.module = module
        self.process_group = process_group
        self.dim = dim
        self.device_ids = None
        self.output_device = None
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._world = dist.get_world_size(process_group)
        self._dist = dist
        params = [p for p in module.parameters() if p.requires_grad]
        if init_sync:
            self._sync_module_states()
        self._buckets = self._build_buckets(params)
        self._bucket_of = {}
        for b in self._buckets:
            for p in b.params:
                self._bucket_of[id(p)] = b
        self._expect = False            # a synced backward is pending
        self._launched = 0
        self._hooks = [p.register_post_accumulate_grad_hook(self._on_grad) for p in params]

    # ------------------------------------------------------------------ setup
    def _sync_module_states(self):
        import ember
        tensors = [p.detach() for p in self.module.parameters()] + [b for b in self.module.buffers()]
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        for dt, ts in by_dtype.items():
            flat = ember.from_numpy(np.concatenate([np.ascontiguousarray(t._np).reshape(-1) for t in ts]))
            self._dist.broadcast(flat, src=self._dist.get_global_rank(self.process_group, 0)
                                 if self.process_group is not None else 0, group=self.process_group)
            pos = 0
            for t in ts:
                n = t.numel()
                np.copyto(t._np, flat._np[pos:pos + n].reshape(t._np.shape))
                pos += n

    def _build_buckets(self, params):
        """Reverse registration order; the first bucket holds about 1 MiB (torch's _DEFAULT_FIRST_BUCKET_BYTES) so
        that communication starts early in backward, the others about bucket_cap_mb."""
        buckets, cur, size, dt = [], [], 0, None
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap) if not buckets else self.bucket_bytes_cap
            if cur and (p.dtype != dt or size + nbytes > cap):
                buckets.append(_Bucket(cur, dt))
                cur, size = [], 0
            cur.append(p)
            dt = p.dtype
            size += nbytes
        if cur:
            buckets.append(_Bucket(cur, dt))
        return buckets

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs, **kwargs):
        if self._expect and self._launched:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
                "participate in calculating loss.")
        if self.broadcast_buffers and self.require_forward_param_sync:
            bufs = list(self.module.buffers())
            if bufs:
                for b in bufs:
                    self._dist.broadcast(b, src=0 if self.process_group is None else
                                         self._dist.get_global_rank(self.process_group, 0), group=self.process_group)
        self._reset()
        out = self.module(*inputs, **kwargs)
        import ember
        self._expect = self.require_backward_grad_sync and ember.is_grad_enabled()
        if self._expect and self.find_unused_parameters:
            used = _reachable_params(out)
            for b in self._buckets:
                for p in b.params:
                    if id(p) not in used:
                        self._mark(p)
        return out

    def _reset(self):
        for b in self._buckets:
            b.ready.clear()
            b.work = None
            b.flat = None
        self._launched = 0
        self._expect = False

    # ------------------------------------------------------------------ backward
    def _on_grad(self, param):
        if not self._expect:
            return
        if self._launched:              # MPI progresses only inside MPI calls: poll the buckets in flight
            for b in self._buckets:
                if b.work is not None and not b.work.is_completed():
                    break
        self._mark(param)

    def _mark(self, param):
        b = self._bucket_of[id(param)]
        if id(param) in b.ready:
            return
        b.ready.add(id(param))
        if len(b.ready) == len(b.params):
            self._launch(b)

    def _launch(self, b):
        import ember
        parts = []
        for p in b.params:
            g = p.grad
            parts.append(np.zeros(p.numel(), p.detach()._np.dtype) if g is None
                         else np.ascontiguousarray(g._np).reshape(-1))
        b.flat = ember.from_numpy(np.concatenate(parts))
        b.work = self._dist.all_reduce(b.flat, group=self.process_group, async_op=True)
        self._launched += 1
        for other in self._buckets:          # give MPI a chance to progress the earlier buckets
            if other.work is not None and other is not b:
                other.work.is_completed()
        if self._launched == len(self._buckets):
            self._finalize()

    def _finalize(self):
        import ember
        for b in self._buckets:
            b.work.wait()
            flat = b.flat._np
            flat /= self._world
            pos = 0
            for p in b.params:
                n = p.numel()
                chunk = flat[pos:pos + n].reshape(tuple(p.shape))
                pos += n
                if p.grad is None:
                    p.grad = ember.from_numpy(chunk.copy())
                else:
                    np.copyto(p.grad._np, chunk)
            b.work = b.flat = None
        self._expect = False
        self._launched = 0

    # ------------------------------------------------------------------ API
    @contextlib.contextmanager
    def no_sync(self):
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        raise NotImplementedError("DistributedDataParallel.register_comm_hook is not implemented in ember")

    def _set_static_graph(self):
        self.static_graph = True


def _reachable_params(out):
    """ids of the leaf tensors the autograd graph of `out` (tensors in any nesting) reaches."""
    import ember
    roots = []

    def collect(o):
        if isinstance(o, ember.Tensor):
            if o.grad_fn is not None:
                roots.append(o.grad_fn)
        elif isinstance(o, (list, tuple)):
            for x in o:
                collect(x)
        elif isinstance(o, dict):
            for x in o.values():
                collect(x)
    collect(out)
    seen, found, stack = set(), set(), list(roots)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if getattr(n, "_is_accumulate", False):
            found.add(id(n.variable))
        for e in _edge_pairs(n):       # (a leaf input's edge is made when first read)
            if e is not None:
                stack.append(e[0])
    return found
