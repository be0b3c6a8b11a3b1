"""torch._functorch.aot_autograd: aot_function / aot_module_simplified, ahead-of-time forward+backward graphs.

On the first call for a given input signature (shapes, strides, dtypes, requires_grad, which arguments are
the same tensor), the function is
  1. run once on fake tensors to learn its outputs: which require grad, which alias inputs, which inputs it
     mutates;
  2. traced with make_fx (fake tensors, optional decompositions) as a *joint* function
     (primals, tangents) -> (outputs, input gradients), the backward coming from ember's autograd engine
     running under the proxy mode;
  3. functionalized (mutations become out-of-place ops; updated inputs become extra forward outputs);
  4. split by a partitioner into forward and backward graphs, compiled by fw_compiler / bw_compiler;
  5. run inside an autograd.Function: the forward graph under no_grad saves what the partition chose, the
     backward graph computes the gradients. Updated inputs are copied back after the forward (epilogue).
Without grad (no input requires it, or grad mode off) one inference graph is traced and compiled instead.
Duplicate arguments (tied weights) enter the graph once. Double backward through a compiled function raises,
as torch's does.
"""
import functools

from ember._core.dispatch_keys import MATH_BITS
from ember._core.symint import SymInt
from ember._core.tls import state as _tls
from ember._grad_mode import _set_enabled as _set_grad_enabled
from ember._tensor import Tensor

from .functionalize import functionalize_graph, has_mutation
from .partitioners import default_partition, min_cut_rematerialization_partition  # noqa: F401

_DOUBLE_BACKWARD = "torch.compile with aot_autograd does not currently support double backward"


def _flatten(x):
    from ember.fx.experimental.proxy_tensor import _tree_flatten
    return _tree_flatten(x)


def _unflatten(leaves, spec):
    from ember.fx.experimental.proxy_tensor import _tree_unflatten
    return _tree_unflatten(leaves, spec)


def _arg_key(a):
    if isinstance(a, Tensor):
        return ("T", tuple(a.shape), a.stride(), a.dtype, a.requires_grad, a._np is None)
    try:
        hash(a)
        return ("V", type(a).__name__, a)
    except TypeError:
        return ("id", id(a))


class AOTConfig:
    def __init__(self, fw_compiler, bw_compiler, inference_compiler, partition_fn, decompositions,
                 keep_inference_input_mutations=False):
        self.fw_compiler = fw_compiler
        self.bw_compiler = bw_compiler
        self.inference_compiler = inference_compiler
        self.partition_fn = partition_fn
        self.decompositions = decompositions or {}
        self.keep_inference_input_mutations = keep_inference_input_mutations


class _OutputInfo:
    __slots__ = ("is_tensor", "requires_grad", "input_index", "value")

    def __init__(self, is_tensor, requires_grad=False, input_index=None, value=None):
        self.is_tensor, self.requires_grad, self.input_index, self.value = is_tensor, requires_grad, input_index, \
            value


def aot_function(fn, fw_compiler, bw_compiler=None, partition_fn=default_partition, decompositions=None,
                 num_params_buffers=0, keep_inference_input_mutations=False, inference_compiler=None,
                 dynamic=False, enable_log=True):
    """Compile fn's forward and backward ahead of time (torch.func / functorch's aot_function)."""
    config = AOTConfig(fw_compiler, bw_compiler or fw_compiler, inference_compiler or fw_compiler, partition_fn,
                       decompositions, keep_inference_input_mutations)
    if dynamic:
        return _dynamic_aot_function(fn, config)
    cache = {}

    fast_cache = {}

    @functools.wraps(fn)
    def returned(*args, **kwargs):
        if not kwargs:
            # fast path: every argument a tensor (a module's parameters and inputs). The key holds what
            # _arg_key does, read from the fields directly; a miss takes the general path below.
            try:
                ids = {}
                key = (tuple((a._size, a.stride(), a.dtype, a.requires_grad, a._np is None,
                              ids.setdefault(id(a), i)) for i, a in enumerate(args)), _tls.grad_enabled)
            except AttributeError:
                key = None
            if key is not None:
                entry = fast_cache.get(key)
                if entry is not None:
                    return entry(args)
        flat, spec = _flatten((list(args), kwargs))
        ids = {}
        dup = tuple(ids.setdefault(id(a), i) if isinstance(a, Tensor) else i for i, a in enumerate(flat))
        key = (repr(spec), tuple(_arg_key(a) for a in flat), dup, _tls.grad_enabled)
        entry = cache.get(key)
        if entry is None:
            def flat_fn(*leaves):
                a, k = _unflatten(list(leaves), spec)
                return fn(*a, **k)
            flat_fn.enables_grad = getattr(fn, "enables_grad", False)
            entry = cache[key] = _CompiledEntry(flat_fn, flat, config)
        if not kwargs and all(isinstance(a, Tensor) for a in args):
            fast_cache[tuple((a._size, a.stride(), a.dtype, a.requires_grad, a._np is None, dup[i])
                             for i, a in enumerate(args)), _tls.grad_enabled] = entry
        return entry(flat)
    returned._aot_cache = cache
    return returned


def _dynamic_aot_function(fn, config):
    """aot_function(dynamic=True): each input signature (everything but the sizes) is traced once with symbolic
    sizes; the ShapeEnv's guards (0/1 specialisation, duck-sized equalities, branches on sizes) become a check
    over the arguments, and a call that fails every check traces a new entry."""
    from ember._subclasses.fake_tensor import FakeTensorMode
    from ember.fx.experimental.symbolic_shapes import ShapeEnv
    entries = {}

    def signature(flat, spec):
        return (repr(spec), _tls.grad_enabled, tuple(
            ("T", a.dtype, a.dim(), a.requires_grad, a.is_contiguous()) if isinstance(a, Tensor) else _arg_key(a)
            for a in flat))

    @functools.wraps(fn)
    def returned(*args, **kwargs):
        flat, spec = _flatten((list(args), kwargs))
        bucket = entries.setdefault(signature(flat, spec), [])
        for check, entry in bucket:
            if check(flat):
                return entry(flat)
        mode = FakeTensorMode(shape_env=ShapeEnv())
        fakes = [mode.from_tensor(a, static_shapes=False, source=f"a[{i}]") if isinstance(a, Tensor) else a
                 for i, a in enumerate(flat)]

        def flat_fn(*leaves):
            a, k = _unflatten(list(leaves), spec)
            return fn(*a, **k)
        flat_fn.enables_grad = getattr(fn, "enables_grad", False)
        entry = _CompiledEntry(flat_fn, fakes, config)
        exprs = mode.shape_env.produce_guards_expression(lambda src: f"{src.base}._size[{src.dim}]")
        for i, a in enumerate(flat):           # sizes that stayed static (0, 1) are checked as they are
            if isinstance(a, Tensor):
                exprs += [f"a[{i}]._size[{d}] == {s}" for d, s in enumerate(fakes[i]._size) if s.__class__ is int]
        ns = {}
        exec(f"def check(a):\n    return {' and '.join(exprs) or 'True'}\n", ns)
        check = ns["check"]
        check.source = exprs
        bucket.append((check, entry))
        return entry(flat)
    returned._aot_cache = entries
    return returned


class _CompiledEntry:
    """The compiled graphs for one input signature, and the wrapper that runs them."""

    def __init__(self, flat_fn, flat_args, config):
        self.config = config
        # the tensor arguments, each distinct tensor once; other arguments are constants of this entry
        # (a SymInt argument, an int dynamo made symbolic, is an input too: the graph reads it per call)
        self.tensor_pos = [i for i, a in enumerate(flat_args) if isinstance(a, Tensor) or a.__class__ is SymInt]
        uniq, self.slot_of = [], {}
        for i in self.tensor_pos:
            t = flat_args[i]
            for j, u in enumerate(uniq):
                if u is t:
                    self.slot_of[i] = j
                    break
            else:
                self.slot_of[i] = len(uniq)
                uniq.append(t)
        consts = list(flat_args)
        slot_of = self.slot_of

        def tensor_fn(*ts):
            leaves = list(consts)
            for i in slot_of:
                leaves[i] = ts[slot_of[i]]
            return flat_fn(*leaves)
        self.tensor_fn = tensor_fn
        # a graph entered with grad mode off may switch it on inside (dynamo's graph of a frame resumed in a
        # `with no_grad()` block): it still records autograd from there, so its outputs can require grad
        self.enables_grad = getattr(flat_fn, "enables_grad", False)
        self.needs_autograd = ((_tls.grad_enabled or self.enables_grad)
                               and any(_requires_grad(t) for t in uniq))
        # symbolic example inputs (dynamo with dynamic shapes): trace once in their fake mode, sizes as symbols
        self.fake_mode = _symbolic_fake_mode(uniq)
        prev_allow = None
        if self.fake_mode is not None:
            prev_allow = self.fake_mode.allow_non_fake_inputs
            self.fake_mode.allow_non_fake_inputs = True      # parameters are real; formulas make constants
        try:
            self._analyze(uniq)
            if self.needs_autograd:
                self._compile_joint(uniq)
            else:
                self._compile_inference(uniq)
        finally:
            if self.fake_mode is not None:
                self.fake_mode.allow_non_fake_inputs = prev_allow

    # ------------------------------------------------------------------ 1. metadata
    def _analyze(self, uniq):
        from ember._subclasses.fake_tensor import FakeTensorMode
        mode = self.fake_mode
        if mode is None:
            mode = FakeTensorMode(allow_non_fake_inputs=True)    # constants made inside (formulas) are fine
        fakes = [mode.from_tensor(t) if isinstance(t, Tensor) else t for t in uniq]
        versions = [getattr(f, "_version", None) for f in fakes]
        with mode:
            out = self.tensor_fn(*fakes)
        flat_out, self.out_spec = _flatten(out)
        infos = []
        for o in flat_out:
            if isinstance(o, Tensor):
                idx = next((k for k, f in enumerate(fakes) if f is o), None)
                infos.append(_OutputInfo(True, o.requires_grad and self.needs_autograd, idx,
                                         (tuple(o.shape), o.stride(), o.dtype)))
            else:
                infos.append(_OutputInfo(False, value=o))
        self.out_infos = infos
        if self.needs_autograd and not any(i.requires_grad for i in infos):
            # nothing to differentiate (an optimizer step: params updated in place under no_grad inside the graph):
            # one inference graph, as torch's aot_autograd does when no output requires grad
            self.needs_autograd = False
        self.mutated_slots = [k for k, f in enumerate(fakes) if getattr(f, "_version", None) != versions[k]]
        for k in self.mutated_slots:
            if uniq[k].requires_grad and self.needs_autograd and uniq[k].grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")

    # ------------------------------------------------------------------ 2-4. inference
    def _compile_inference(self, uniq):
        from ember.fx.experimental.proxy_tensor import make_fx
        gm = make_fx(self.tensor_fn, self.config.decompositions, tracing_mode="fake",
                     _allow_non_fake_inputs=True)(*uniq)
        self.n_out = len(self.out_infos)
        fg = functionalize_graph(gm)
        self.mutated = fg.mutated_inputs
        if self.config.keep_inference_input_mutations and self.mutated:
            _keep_input_mutations(fg.gm, self.n_out, self.mutated)
            self.kept_mutated = self.mutated   # for a conj / neg view input: written back from its resolved copy
            self.mutated = []              # the graph writes the inputs itself
        self.graph = fg.gm
        self.compiled = self.config.inference_compiler(fg.gm, _fake_inputs(fg.gm))

    # ------------------------------------------------------------------ 2-4. training
    def _compile_joint(self, uniq):
        import ember
        from ember.fx.experimental.proxy_tensor import make_fx
        self.diff_in = [k for k, t in enumerate(uniq) if _requires_grad(t)]
        self.diff_out = [j for j, info in enumerate(self.out_infos) if info.is_tensor and info.requires_grad]
        tensor_fn, diff_in, diff_out = self.tensor_fn, self.diff_in, self.diff_out

        def joint(primals, tangents):
            out = tensor_fn(*primals)
            flat_out, _ = _flatten(out)
            douts = [flat_out[j] for j in diff_out]
            grads = ember.autograd.grad(douts, [primals[k] for k in diff_in], list(tangents), allow_unused=True)
            return (*flat_out, *grads)

        if self.fake_mode is not None:
            with self.fake_mode:              # symbolic output sizes: the tangents are fakes with those sizes
                tangents = [ember.empty_strided(self.out_infos[j].value[0], self.out_infos[j].value[1],
                                                dtype=self.out_infos[j].value[2]) for j in diff_out]
        else:
            tangents = [ember.empty_strided(self.out_infos[j].value[0], self.out_infos[j].value[1],
                                            dtype=self.out_infos[j].value[2]) for j in diff_out]
        primals = [t.detach().requires_grad_(t.requires_grad) if getattr(t, "grad_fn", None) is not None else t
                   for t in uniq]
        from ember.fx.graph_module import _use_lazy_graph_module
        with _use_lazy_graph_module():        # the joint graph is partitioned, never run: no code unless asked
            jgm = make_fx(joint, self.config.decompositions, tracing_mode="fake",
                          _allow_non_fake_inputs=True)(primals, tangents)
        # make_fx already names the leaves of `primals`/`tangents` primals_1.../tangents_1...: regenerate the
        # joint graph's code only if a name differs
        renamed = False
        for i, n in enumerate(n for n in jgm.graph.nodes if n.op == "placeholder"):
            name = f"primals_{i + 1}" if i < len(uniq) else f"tangents_{i - len(uniq) + 1}"
            if n.name != name or n.target != name:
                n.target = n.name = name
                renamed = True
        if renamed:
            jgm.recompile()
        n_out = len(self.out_infos)
        mutated = []
        if has_mutation(jgm):
            fg = functionalize_graph(jgm)
            mutated = [k for k in fg.mutated_inputs if k < len(uniq)]
            jgm = fg.gm
            # outputs: forward outs, grads, mutated inputs  ->  forward outs, mutated inputs, grads
            out = next(n for n in jgm.graph.nodes if n.op == "output")
            vals = list(out.args[0])
            fw_vals, grad_vals, mut_vals = vals[:n_out], vals[n_out:len(vals) - len(fg.mutated_inputs)], \
                vals[len(vals) - len(fg.mutated_inputs):]
            mut_vals = [v for k, v in zip(fg.mutated_inputs, mut_vals) if k < len(uniq)]
            out.args = (tuple(fw_vals + mut_vals + grad_vals),)
            jgm.recompile()
        self.joint_graph = jgm
        self.mutated = mutated
        self.n_out = n_out
        with _use_lazy_graph_module():        # a compiler that lowers the graphs (inductor) never needs their code
            fw, bw = self.config.partition_fn(jgm, None, num_fwd_outputs=n_out + len(mutated))
        self.fw_graph, self.bw_graph = fw, bw
        self.compiled_fw = self.config.fw_compiler(fw, _fake_inputs(fw))
        self.compiled_bw = self.config.bw_compiler(bw, _fake_inputs(bw))
        self.function = _make_autograd_function(self)

    # ------------------------------------------------------------------ 5. runtime
    def _runtime_plan(self):
        """What __call__ needs, computed once: how to pick the distinct tensors out of the flat arguments,
        which outputs are inputs, and whether the output structure is flat."""
        items = sorted(self.slot_of.items())
        self._n_uniq = max(self.slot_of.values()) + 1 if self.slot_of else 0
        self._identity = [i for i, _ in items] == list(range(len(items))) and \
            all(i == k for i, k in items)
        self._slot_items = items
        self._out_inputs = [(j, info.input_index) for j, info in enumerate(self.out_infos)
                            if info.is_tensor and info.input_index is not None]
        spec = self.out_spec
        self._flat_out = spec[0] in (tuple, list) and all(e is None for e in spec[1]) if spec else False
        self._single_out = spec is None

    def __call__(self, flat_args):
        if not hasattr(self, "_slot_items"):
            self._runtime_plan()
        if self._identity and len(flat_args) == self._n_uniq:
            uniq = flat_args
        else:
            uniq = [None] * self._n_uniq
            for i, k in self._slot_items:
                uniq[k] = flat_args[i]
        run = uniq
        if any(a.__class__ is Tensor and a._ks & MATH_BITS for a in uniq):
            # the graph was traced and compiled for stored values: a conj / neg view goes in resolved (through
            # resolve_conj, so its grad still flows); mutations are written back into the view itself below
            run = [a.resolve_conj().resolve_neg() if a.__class__ is Tensor and a._ks & MATH_BITS else a
                   for a in uniq]
        if self.needs_autograd:
            if _tls.grad_enabled:
                res = self.function.apply(*run)
            else:                        # entered with grad off, switched on inside: the outputs record it
                _set_grad_enabled(True)  # through the setter: it keeps tls.GRAD_OFF exact (see _core/tls)
                try:
                    res = self.function.apply(*run)
                finally:
                    _set_grad_enabled(False)
        else:
            prev = _tls.grad_enabled
            _set_grad_enabled(False)
            try:
                res = self.compiled(*run)
            finally:
                _set_grad_enabled(prev)
        res = list(res) if isinstance(res, (tuple, list)) else [res]
        if run is not uniq and getattr(self, "kept_mutated", None):
            import ember
            with ember.no_grad():
                for k in self.kept_mutated:
                    if run[k] is not uniq[k]:
                        uniq[k].copy_(run[k])      # the graph wrote the resolved copy; copy_ applies the bit
        outs = res[:self.n_out]
        if len(res) > self.n_out:
            import ember
            with ember.no_grad():
                for k, v in zip(self.mutated, res[self.n_out:]):
                    if tuple(uniq[k].shape) != tuple(v.shape):
                        from ..kernels.common import resize_internal     # an out= argument the op resized
                        resize_internal(uniq[k], v.shape)                # (metadata mutation)
                    uniq[k].copy_(v)
        for j, k in self._out_inputs:
            outs[j] = uniq[k]          # an output that is an input: the input itself
        if self._single_out:
            return outs[0]
        if self._flat_out:
            return tuple(outs) if self.out_spec[0] is tuple else outs
        return _unflatten(outs, self.out_spec)


def _keep_input_mutations(gm, n_out, mutated):
    """keep_inference_input_mutations=True: the functional graph's new values of mutated inputs (returned after
    its outputs) are written back by `copy_` nodes at the end of the graph instead of by the runtime wrapper."""
    from ember._ops import ops
    g = gm.graph
    phs = [n for n in g.nodes if n.op == "placeholder"]
    out = next(n for n in g.nodes if n.op == "output")
    vals = list(out.args[0])
    with g.inserting_before(out):
        for k, v in zip(mutated, vals[n_out:]):
            g.call_function(ops.aten.copy_.default, (phs[k], v))
    out.args = (tuple(vals[:n_out]),)
    gm.recompile()


def _make_autograd_function(entry):
    import ember
    from ember.autograd import Function

    n_out, n_mut = entry.n_out, len(entry.mutated)
    diff_out = entry.diff_out
    diff_in = entry.diff_in
    out_infos = entry.out_infos

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx, *primals):
            res = entry.compiled_fw(*primals)
            res = list(res)
            outs, muts, saved = res[:n_out], res[n_out:n_out + n_mut], res[n_out + n_mut:]
            tensors = [s for s in saved if isinstance(s, Tensor)]
            ctx.saved_layout = [isinstance(s, Tensor) for s in saved]
            ctx.saved_consts = [s for s in saved if not isinstance(s, Tensor)]
            ctx.n_primals = len(primals)
            ctx.out_shapes = [tuple(o.shape) if isinstance(o, Tensor) else None for o in outs]
            ctx.save_for_backward(*tensors)
            nondiff = [o for j, o in enumerate(outs) if isinstance(o, Tensor) and j not in diff_out] + \
                [m for m in muts if isinstance(m, Tensor)]
            if nondiff:
                ctx.mark_non_differentiable(*nondiff)
            return tuple(outs) + tuple(muts)

        @staticmethod
        def backward(ctx, *grad_outs):
            tensors = iter(ctx.saved_tensors)
            consts = iter(ctx.saved_consts)
            saved = [next(tensors) if is_t else next(consts) for is_t in ctx.saved_layout]
            tangents = []
            for j in diff_out:
                g = grad_outs[j]
                if g is None:
                    shape, stride, dtype = out_infos[j].value
                    g = ember.zeros(ctx.out_shapes[j], dtype=dtype)     # (the traced shape may be symbolic)
                tangents.append(g.contiguous() if isinstance(g, Tensor) else g)
            create_graph = _tls.grad_enabled
            with ember.no_grad():
                grads = entry.compiled_bw(*saved, *tangents)
            grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
            if create_graph:          # the gradients get a history whose backward refuses (torch's behaviour)
                anchor = ember.zeros((), requires_grad=True)
                grads = [CompiledFunctionBackward.apply(g, anchor) if isinstance(g, Tensor) else g for g in grads]
            out = [None] * ctx.n_primals
            for k, g in zip(diff_in, grads):
                out[k] = g
            return tuple(out)

    class CompiledFunctionBackward(Function):
        @staticmethod
        def forward(ctx, g, anchor):
            return g.clone()

        @staticmethod
        def backward(ctx, *gg):
            raise RuntimeError(_DOUBLE_BACKWARD)

    CompiledFunction.__name__ = "CompiledFunction"
    return CompiledFunction


def _requires_grad(t):
    return isinstance(t, Tensor) and t.requires_grad


def _symbolic_fake_mode(tensors):
    """The FakeTensorMode of the first fake tensor with a symbolic size among `tensors`, else None."""
    from ember._core.symint import SymInt
    from ember._subclasses.fake_tensor import FakeTensor
    sym_arg = any(t.__class__ is SymInt for t in tensors)       # a SymInt argument (an unspecialised int)
    for t in tensors:
        if isinstance(t, FakeTensor) and t.fake_mode.shape_env is not None and \
                (sym_arg or any(s.__class__ is SymInt for s in t._size)):
            return t.fake_mode
    return None


def _fake_inputs(gm):
    return [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]


def aot_module_simplified(mod, args, fw_compiler, bw_compiler=None, partition_fn=default_partition,
                          decompositions=None, keep_inference_input_mutations=False, inference_compiler=None,
                          cudagraphs=None):
    """AOT-compile an nn.Module (or GraphModule): parameters and buffers become leading graph inputs, so the
    compiled backward returns their gradients; returns a function of the module's own inputs."""
    from ember.func import functional_call
    params = dict(mod.named_parameters(remove_duplicate=False))
    params.update(dict(mod.named_buffers(remove_duplicate=False)))
    names = list(params)
    n = len(names)

    def functional(*all_args):
        return functional_call(mod, dict(zip(names, all_args[:n])), tuple(all_args[n:]))
    graph = getattr(mod, "graph", None)
    if graph is not None:                # a dynamo graph that switches grad mode on somewhere inside
        from ember._grad_mode import _set_enabled
        functional.enables_grad = any(nd.op == "call_function" and nd.target is _set_enabled and nd.args[0]
                                      for nd in graph.nodes)

    if args is not None and _symbolic_fake_mode(list(args)) is not None:
        # dynamo's example inputs have symbolic sizes: one trace now, valid for every size its guards admit
        # (dynamo guards requires_grad and grad mode, so the signature cannot change under this entry)
        config = AOTConfig(fw_compiler, bw_compiler or fw_compiler, inference_compiler or fw_compiler, partition_fn,
                           decompositions, keep_inference_input_mutations)
        entry = _CompiledEntry(functional, [_attr(mod, k) for k in names] + list(args), config)

        def compiled(*flat):
            return entry(list(flat))
        compiled._aot_cache = {"symbolic": entry}
    else:
        compiled = aot_function(functional, fw_compiler, bw_compiler, partition_fn, decompositions,
                                num_params_buffers=n, keep_inference_input_mutations=keep_inference_input_mutations,
                                inference_compiler=inference_compiler)

    def forward(*runtime_args):
        return compiled(*[_attr(mod, k) for k in names], *runtime_args)
    forward._aot_compiled = compiled
    forward.zero_grad = mod.zero_grad
    forward.named_parameters = mod.named_parameters
    forward.named_buffers = mod.named_buffers
    return forward


def _attr(mod, qualname):
    obj = mod
    for a in qualname.split("."):
        obj = getattr(obj, a)
    return obj


def aot_module(mod, *args, **kwargs):
    """aot_module_simplified as an nn.Module (torch's aot_module)."""
    from ember.nn import Module
    fn = aot_module_simplified(mod, None, *args, **kwargs)

    class AOTModule(Module):
        def __init__(self):
            super().__init__()
            self.orig_module = mod

        def forward(self, *a):
            return fn(*a)
    return AOTModule()


def make_boxed_func(f):
    """torch's boxed calling convention helper: here compiled functions take unboxed arguments directly."""
    return f


def nop(gm, example_inputs):
    """A compiler that returns the graph itself (its generated forward runs it)."""
    return gm
