"""torch.export._trace: export(), a non-strict trace of a Module into an ExportedProgram.

The module runs once under make_fx on fake tensors (torch's non-strict export): parameters, buffers and the
user's tensor inputs are the placeholders (the module called through functional_call, so its state is never
touched), ops are recorded at the aten level (CompositeImplicitAutograd ops decomposed, as make_fx does), and
the graph is functionalized: an in-place write to a buffer (BatchNorm's running stats and num_batches_tracked in
train mode) becomes an out-of-place op whose result the graph returns as a BUFFER_MUTATION output. Placeholders
are then renamed as torch names them (`p_<param>`, `b_<buffer>`, `c_<constant>`, the forward's argument names).
With `dynamic_shapes` the marked dimensions are symbols of a ShapeEnv (make_fx's symbolic mode).
"""
import inspect

from ember._tensor import Tensor
from ember.fx import Graph, GraphModule
from ember.fx.experimental.proxy_tensor import _tree_flatten, _tree_unflatten, make_fx

from .dynamic_shapes import Dim, _DimHint, flatten_dynamic_shapes, _user_error
from .graph_signature import (ConstantArgument, ExportGraphSignature, InputKind, InputSpec, OutputKind, OutputSpec,
                              TensorArgument)


class _UserInputs:
    """The top-level user inputs (name, value, positional?) and their flat leaves with paths."""

    def __init__(self, mod, args, kwargs):
        try:
            sig = inspect.signature(mod.forward)
        except (TypeError, ValueError):
            sig = None
        self.top = []                    # (name, value, is_keyword)
        params = list(sig.parameters.values()) if sig is not None else []
        pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = next((p for p in params if p.kind == p.VAR_POSITIONAL), None)
        for i, a in enumerate(args):
            if i < len(pos):
                self.top.append((pos[i].name, a, False))
            elif var is not None:
                self.top.append((f"{var.name}_{i - len(pos)}", a, False))
            else:
                raise TypeError(f"{type(mod).__name__}.forward() takes {len(pos)} positional arguments but "
                                f"{len(args)} were given")
        for k in kwargs:                 # in the order given, as torch's pytree flattening of the kwargs dict
            self.top.append((k, kwargs[k], True))
        self.leaves = []                 # (leaf name, top index, path, value)
        for ti, (name, value, _) in enumerate(self.top):
            leaves, _spec = _tree_flatten(value)
            paths = _leaf_paths(value)
            for k, (leaf, path) in enumerate(zip(leaves, paths)):
                self.leaves.append((name if not path else f"{name}_{'_'.join(str(p) for p in path)}", ti, path, leaf))

    def rebuild(self, leaf_values):
        """args, kwargs with the leaves replaced (in order)."""
        tops = [list(_tree_flatten(v)[0]) for _, v, _ in self.top]
        for (_, ti, path, _), new in zip(self.leaves, leaf_values):
            tops[ti][_leaf_index(self.top[ti][1], path)] = new
        vals = [_tree_unflatten(t, _tree_flatten(v)[1]) for t, (_, v, _) in zip(tops, self.top)]
        args = tuple(v for v, (_, _, kw) in zip(vals, self.top) if not kw)
        kwargs = {n: v for v, (n, _, kw) in zip(vals, self.top) if kw}
        return args, kwargs


def _leaf_paths(x, prefix=()):
    if isinstance(x, (list, tuple)):
        return [p for i, e in enumerate(x) for p in _leaf_paths(e, prefix + (i,))]
    if isinstance(x, dict):
        return [p for k, e in x.items() for p in _leaf_paths(e, prefix + (k,))]
    return [prefix]


def _leaf_index(value, path):
    return _leaf_paths(value).index(tuple(path))


def _state_name(prefix, fqn):
    return prefix + fqn.replace(".", "_")


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=(),
           prefer_deferred_runtime_asserts_over_guards=False):
    """Trace `mod(*args, **kwargs)` into an ExportedProgram (torch.export.export, non-strict)."""
    from ember.nn import Module
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise ValueError(f"Expecting `args` to be a tuple of example positional inputs, got {type(args)}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise ValueError(f"Expecting `kwargs` to be a dict of example keyword inputs, got {type(kwargs)}")
    if strict:
        raise NotImplementedError("ember.export: strict=True (capture through TorchDynamo) is not supported; "
                                  "ember exports non-strict (the default, strict=False)")
    if preserve_module_call_signature:
        raise NotImplementedError("ember.export: preserve_module_call_signature is not supported")
    kwargs = kwargs or {}
    return _export(mod, args, kwargs, dynamic_shapes)


def _export(mod, args, kwargs, dynamic_shapes):
    from ember import no_grad
    from ember.func import functional_call
    from ember._functorch.functionalize import functionalize_graph, has_mutation
    from ember._subclasses.fake_tensor import FakeTensorMode

    inputs = _UserInputs(mod, args, kwargs)
    params = dict(mod.named_parameters())
    buffers = dict(mod.named_buffers())
    persistent = set(mod.state_dict(keep_vars=True))
    tensor_leaves = [(name, v) for name, _, _, v in inputs.leaves if isinstance(v, Tensor)]
    leaf_dims = None
    if dynamic_shapes is not None:
        counts = {}
        for name, ti, _, v in inputs.leaves:
            counts[inputs.top[ti][0]] = counts.get(inputs.top[ti][0], 0) + 1
        leaf_dims = flatten_dynamic_shapes(mod.forward, args, kwargs, dynamic_shapes,
                                           [(n, counts[n]) for n, _, _ in inputs.top])
    shape_env = None
    marked = []
    if leaf_dims is not None and any(leaf_dims):
        from ember.fx.experimental.symbolic_shapes import ShapeEnv
        shape_env = ShapeEnv()
    fake_mode = FakeTensorMode(shape_env=shape_env)
    fake_state = [fake_mode.from_tensor(t, static_shapes=True) for t in list(params.values()) + list(buffers.values())]
    fake_user = []
    li = 0
    for name, _, _, v in inputs.leaves:
        if not isinstance(v, Tensor):
            li += 1
            continue
        dims = leaf_dims[li] if leaf_dims is not None else None
        li += 1
        if shape_env is None or not dims:
            fake_user.append(fake_mode.from_tensor(v, static_shapes=True))
            continue
        fake_user.append(_symbolic_fake(fake_mode, shape_env, v, name, dims, marked))
    n_state = len(fake_state)
    names = list(params) + list(buffers)
    out_spec = []

    def run(*flat):
        state = dict(zip(names, flat[:n_state]))
        it = iter(flat[n_state:])
        leaves = [next(it) if isinstance(v, Tensor) else v for _, _, _, v in inputs.leaves]
        a, kw = inputs.rebuild(leaves)
        out = functional_call(mod, state, a, kw)
        flat_out, spec = _tree_flatten(out)
        out_spec.append(spec)
        return flat_out

    with no_grad():
        gm = make_fx(run, tracing_mode="symbolic" if shape_env is not None else "fake")(*fake_state, *fake_user)
    mutated = []
    n_out = None
    if has_mutation(gm):
        fg = functionalize_graph(gm)
        gm, mutated, n_out = fg.gm, fg.mutated_inputs, fg.num_original_outputs
    if shape_env is not None:
        _check_marked(shape_env, marked)

    # ---- rebuild with torch's placeholder names, constants lifted, mutations first in the outputs
    old_ph = [n for n in gm.graph.nodes if n.op == "placeholder"]
    g = Graph()
    env = {}
    input_specs = []
    for i, fqn in enumerate(params):
        env[old_ph[i]] = _ph(g, _state_name("p_", fqn), old_ph[i])
        input_specs.append(InputSpec(InputKind.PARAMETER, TensorArgument(env[old_ph[i]].name), fqn))
    for j, fqn in enumerate(buffers):
        i = len(params) + j
        env[old_ph[i]] = _ph(g, _state_name("b_", fqn), old_ph[i])
        input_specs.append(InputSpec(InputKind.BUFFER, TensorArgument(env[old_ph[i]].name), fqn,
                                     persistent=fqn in persistent))
    constants = {fqn: buffers[fqn] for fqn in buffers if fqn not in persistent}
    k = 0
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            target = f"lifted_tensor_{k}"
            k += 1
            value = getattr(gm, n.target)
            env[n] = g.placeholder(_state_name("c_", target))
            env[n].meta["val"] = value
            constants[target] = value
            input_specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(env[n].name), target))
    user_ph = iter(old_ph[n_state:])
    for name, _, _, v in inputs.leaves:
        if isinstance(v, Tensor):
            node = next(user_ph)
            env[node] = _ph(g, name, node)
            input_specs.append(InputSpec(InputKind.USER_INPUT, TensorArgument(env[node].target), None))
        elif v is not None:              # a number or string input: a placeholder of its own, as torch's
            ph = g.placeholder(name)
            ph.meta["val"] = v
            input_specs.append(InputSpec(InputKind.USER_INPUT, ConstantArgument(ph.target, v), None))
    for n in gm.graph.nodes:
        if n.op in ("placeholder", "get_attr"):
            continue
        if n.op == "output":
            outs = list(n.args[0]) if isinstance(n.args[0], (list, tuple)) else [n.args[0]]
            break
        env[n] = g.node_copy(n, lambda a: env[a])
    n_out = len(outs) if n_out is None else n_out
    user_outs, extra = outs[:n_out], outs[n_out:]
    output_specs, new_outs = [], []
    for pos, node in zip(mutated, extra):
        new = env[node]
        if pos < len(params):
            kind, target = OutputKind.PARAMETER_MUTATION, list(params)[pos]
        elif pos < n_state:
            kind, target = OutputKind.BUFFER_MUTATION, list(buffers)[pos - len(params)]
        else:
            kind, target = OutputKind.USER_INPUT_MUTATION, tensor_leaves[pos - n_state][0]
        output_specs.append(OutputSpec(kind, TensorArgument(new.name), target))
        new_outs.append(new)
    for o in user_outs:
        if hasattr(o, "op"):
            new = env[o]
            output_specs.append(OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(new.name), None))
            new_outs.append(new)
        else:
            output_specs.append(OutputSpec(OutputKind.USER_OUTPUT, ConstantArgument("", o), None))
            new_outs.append(o)
    g.output(tuple(new_outs))
    new_gm = GraphModule({}, g)
    if any("val" not in n.meta for n in g.nodes if n.op == "call_function"):
        _propagate_vals(new_gm, fake_mode)

    from .exported_program import ExportedProgram
    state_dict = {**{k: v for k, v in params.items()}, **{k: v for k, v in buffers.items() if k in persistent}}
    range_constraints = {}
    if shape_env is not None:
        for sym, name, dim in marked:
            if sym not in shape_env.replacements:
                range_constraints[sym] = (dim.min if dim.min is not None else 0, dim.max)
    return ExportedProgram(new_gm, ExportGraphSignature(input_specs, output_specs), state_dict,
                           range_constraints=range_constraints, constants=constants,
                           example_inputs=(args, kwargs), _call_spec=_CallSpec(inputs, out_spec[0], shape_env))


def _propagate_vals(gm, fake_mode):
    """node.meta['val'] for the nodes the functionalization pass wrote (the printed annotations): the graph
    run once more on its placeholders' fake values."""
    from ember import no_grad
    from ember.fx import Interpreter

    class _Record(Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op == "call_function" and "val" not in n.meta:
                n.meta["val"] = out
            return out
    vals = [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]
    with no_grad(), fake_mode:
        _Record(gm).run(*vals)


def _ph(g, name, old):
    new = g.placeholder(name)
    new.meta = dict(old.meta)
    return new


def _symbolic_fake(fake_mode, shape_env, t, name, dims, marked):
    from ember.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext
    kinds = []
    for d in range(t.dim()):
        spec = dims.get(d, dims.get(d - t.dim()))
        if spec is None or (isinstance(spec, _DimHint) and spec.kind == "STATIC"):
            kinds.append(DimDynamic.STATIC)
        else:
            kinds.append(DimDynamic.DYNAMIC)
    bad = [d for d in dims if not -t.dim() <= d < t.dim()]
    if bad:
        raise _user_error(f"dynamic_shapes[{name!r}]: dimension {bad[0]} is out of range for a tensor of "
                          f"{t.dim()} dimensions")
    fake = fake_mode.from_tensor(t, source=name, symbolic_context=StatelessSymbolicContext(kinds))
    for d, kind in enumerate(kinds):
        if kind is not DimDynamic.DYNAMIC:
            continue
        spec = dims.get(d, dims.get(d - t.dim()))
        size = fake.shape[d]
        if not hasattr(size, "node"):          # 0 or 1: specialised by the ShapeEnv
            if isinstance(spec, Dim):
                raise _user_error(f"Constraints violated ({spec.__name__})! You marked {spec.__name__} as dynamic "
                                  f"but the example size {size} of {name}.size()[{d}] is specialized (0 and 1 "
                                  f"are static); give an example of size >= 2")
            continue
        sym = size.node.expr
        if isinstance(spec, Dim):
            lo, hi = spec.min, spec.max
            if not lo <= t.shape[d] <= hi:
                raise _user_error(f"Expected input {name}.shape[{d}] = {t.shape[d]} to be of the form {spec!r}, "
                                  f"where {spec.__name__} is an integer in [{lo}, {hi}]")
            shape_env.constrain_range(sym, lower=None if lo <= 2 else lo, upper=None if hi == float("inf") else hi)
            marked.append((sym, name, spec))
        elif spec.kind == "DYNAMIC":
            marked.append((sym, name, Dim(f"{name}_dim{d}")))
        else:
            marked.append((sym, name, None))
    return fake


def _check_marked(shape_env, marked):
    import sympy
    bad = []
    for sym, name, dim in marked:
        if dim is None:
            continue
        if sym in shape_env.replacements:
            bad.append((dim.__name__, shape_env.replacements[sym]))
            continue
        for guard in shape_env.guards:         # an equality on this symbol alone fixes it too (144*s0 == 432)
            if isinstance(guard, sympy.Eq) and guard.free_symbols == {sym}:
                sol = sympy.solve(guard, sym)
                bad.append((dim.__name__, sol[0] if len(sol) == 1 else shape_env.var_to_val[sym]))
                break
    if bad:
        lines = "\n".join(f"  - You marked {n} as dynamic but your code specialized it to be a constant ({v}). If "
                          f"you're using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO." for n, v in bad)
        fixes = "\n".join(f"  {n} = {v}" for n, v in bad)
        raise _user_error(f"Constraints violated ({', '.join(n for n, _ in bad)})! For more information, run with "
                          f"EMBER_LOGS=dynamic.\n{lines}\nSuggested fixes:\n{fixes}")


class _CallSpec:
    """How ep.module() is called: the user's inputs (structure, names) and the outputs' structure; the guards
    (input sizes) the graph was traced under."""

    def __init__(self, inputs, out_spec, shape_env):
        self.top = [(n, kw) for n, _, kw in inputs.top]
        self.top_values = [v for _, v, _ in inputs.top]
        self.leaves = [(name, ti, path, isinstance(v, Tensor), None if isinstance(v, Tensor) else v)
                       for name, ti, path, v in inputs.leaves]
        self.out_spec = out_spec
        self.shape_env = shape_env
