"""torch.export.exported_program: ExportedProgram, a functional aten graph plus the state it runs on.

`graph_module` takes every input as a placeholder (parameters, buffers, lifted constants, then the user's
inputs) and returns the new values of mutated buffers before the user's outputs (`graph_signature` says which is
which). `module()` turns it back into a callable GraphModule over the user's inputs only: the state becomes
attributes (get_attr), a buffer mutation becomes an in-place copy into the buffer, and the input sizes the graph
was traced for are checked first (AssertionError "Guard failed: ...", as torch's).
"""
import operator

from ember._tensor import Tensor
from ember.fx import Graph, GraphModule
from ember.fx.experimental.proxy_tensor import _tree_unflatten

from .graph_signature import ConstantArgument, InputKind, OutputKind


def _dtype_abbr(dtype):
    name = str(dtype).split(".")[-1]
    table = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
             "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8", "complex64": "c64",
             "complex128": "c128"}
    return table.get(name, name)


def _annotation(val):
    if val is None or not hasattr(val, "shape") or not hasattr(val, "dtype"):
        return ""
    return f': "{_dtype_abbr(val.dtype)}[{", ".join(str(s) for s in val.shape)}]"'


def _fmt_range(lo, hi):
    return f"VR[{lo}, {'int_oo' if hi == float('inf') else hi}]"


class ExportedProgram:
    """The result of ember.export.export (torch.export.ExportedProgram)."""

    def __init__(self, graph_module, graph_signature, state_dict, *, range_constraints=None, constants=None,
                 example_inputs=None, verifiers=None, _call_spec=None):
        self._graph_module = graph_module
        self._graph_signature = graph_signature
        self._state_dict = state_dict
        self._range_constraints = range_constraints or {}
        self._constants = constants or {}
        self._example_inputs = example_inputs
        self._call_spec = _call_spec

    # ---------------------------------------------------------------- torch's read-only properties
    @property
    def graph_module(self):
        return self._graph_module

    @property
    def graph(self):
        return self._graph_module.graph

    @property
    def graph_signature(self):
        return self._graph_signature

    @property
    def state_dict(self):
        return self._state_dict

    @property
    def constants(self):
        return self._constants

    @property
    def tensor_constants(self):
        return self._constants

    @property
    def range_constraints(self):
        return {s: _fmt_range(lo, hi) for s, (lo, hi) in self._range_constraints.items()}

    @property
    def example_inputs(self):
        return self._example_inputs

    @property
    def call_spec(self):
        return self._call_spec

    @property
    def dialect(self):
        return "ATEN"

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def named_parameters(self):
        for fqn in self._graph_signature.parameters:
            yield fqn, self._state_dict[fqn]

    def buffers(self):
        for _, b in self.named_buffers():
            yield b

    def named_buffers(self):
        for spec in self._graph_signature.input_specs:
            if spec.kind == InputKind.BUFFER:
                src = self._state_dict if spec.persistent else self._constants
                yield spec.target, src[spec.target]

    # ---------------------------------------------------------------- printing
    def _graph_text(self):
        gm = self._graph_module
        lines = gm.code.strip("\n").splitlines()
        phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
        header = "def forward(self, " + ", ".join(f"{n.target}{_annotation(n.meta.get('val'))}" for n in phs) + "):"
        vals = {n.name: n.meta.get("val") for n in gm.graph.nodes if n.op == "call_function"}
        body = []
        for ln in lines[1:]:
            s = ln.strip()
            name = s.split(" = ", 1)[0] if " = " in s else None
            if name in vals and not isinstance(vals[name], (tuple, list)):
                ln = ln.replace(f"{name} = ", f"{name}{_annotation(vals[name])} = ", 1)
            body.append(ln)
        return "class GraphModule(ember.nn.Module):\n    " + header + "\n" + "\n".join(
            "    " + ln if ln else ln for ln in body)

    def __str__(self):
        text = self._graph_text().rstrip()
        graph = "\n".join("    " + ln if ln.strip() else "    " for ln in text.splitlines())
        sig = "\n".join("    " + ln for ln in str(self._graph_signature).split("\n")[1:])
        ranges = ", ".join(f"{k}: {v}" for k, v in self.range_constraints.items())
        return f"ExportedProgram:\n{graph}\n    \nGraph signature: \n{sig}\nRange constraints: {{{ranges}}}\n"

    __repr__ = __str__

    # ---------------------------------------------------------------- running
    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def module(self, check_guards=True):
        """A GraphModule called with the user's inputs; parameters and buffers are its attributes."""
        sig = self._graph_signature
        spec = self._call_spec
        g = Graph()
        tops = []
        for (name, _), value in zip(spec.top, spec.top_values):
            tensor_like = any(isinstance(v, Tensor) for v in _leaves(value))
            tops.append(g.placeholder(name) if tensor_like else g.placeholder(name, default_value=value))
        leaf_nodes = {}
        for name, ti, path, is_tensor, value in spec.leaves:
            node = tops[ti]
            for p in path:
                node = g.call_function(operator.getitem, (node, p))
            if is_tensor or value is not None:
                leaf_nodes[name] = node
        guards = _guards(self) if check_guards else []
        if guards:
            names = list(leaf_nodes)
            g.call_function(_make_guards_fn(names, guards), tuple(leaf_nodes[n] for n in names))
        env = {}
        attrs = {}
        old = self._graph_module.graph
        phs = [n for n in old.nodes if n.op == "placeholder"]
        user_leaves = iter(list(leaf_nodes.values()))
        for s, ph in zip(sig.input_specs, phs):
            if s.kind == InputKind.USER_INPUT:
                env[ph] = next(user_leaves)
            else:
                value = self._state_dict.get(s.target) if s.target in self._state_dict else self._constants[s.target]
                attrs[s.target] = value
                env[ph] = g.get_attr(s.target)
        outs = None
        for n in old.nodes:
            if n.op == "placeholder":
                continue
            if n.op == "output":
                outs = list(n.args[0])
                break
            env[n] = g.node_copy(n, lambda a: env[a])
        from ember._ops import ops
        user_outs = []
        for s, o in zip(sig.output_specs, outs):
            new = env[o] if hasattr(o, "op") else o
            if s.kind == OutputKind.USER_OUTPUT:
                user_outs.append(new)
            elif s.kind in (OutputKind.BUFFER_MUTATION, OutputKind.PARAMETER_MUTATION):
                target = next(n for n in g.nodes if n.op == "get_attr" and n.target == s.target)
                g.call_function(ops.aten.copy_.default, (target, new))
            elif s.kind == OutputKind.USER_INPUT_MUTATION:
                g.call_function(ops.aten.copy_.default, (leaf_nodes[s.target], new))
        g.output(_tree_unflatten(user_outs, spec.out_spec))
        gm = GraphModule(attrs, g)
        for s in sig.input_specs:        # non-persistent buffers stay out of the state_dict, as in the module
            if s.kind == InputKind.BUFFER and not s.persistent:
                *prefix, field = s.target.split(".")
                owner = gm.get_submodule(".".join(prefix)) if prefix else gm
                owner.register_buffer(field, attrs[s.target], persistent=False)
        return gm

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program retraced with `decomp_table` (default: ember's core aten decompositions)."""
        from .decomp import run_decompositions
        return run_decompositions(self, decomp_table)

    def validate(self):
        from .decomp import _verify
        _verify(self)


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [y for e in x for y in _leaves(e)]
    if isinstance(x, dict):
        return [y for e in x.values() for y in _leaves(e)]
    return [x]


def _guards(ep):
    """Python expressions over the user's tensor inputs (by name) that must hold for the graph to apply."""
    spec = ep._call_spec
    gm = ep._graph_module
    sig = ep._graph_signature
    phs = {n.target: n for n in gm.graph.nodes if n.op == "placeholder"}
    out = []
    seen = {}
    for s in sig.input_specs:
        if s.kind != InputKind.USER_INPUT:
            continue
        if isinstance(s.arg, ConstantArgument):
            out.append(f"{s.arg.name} == {s.arg.value!r}")
            continue
        val = phs[s.arg.name].meta.get("val")
        if val is None or not hasattr(val, "shape"):
            continue
        for d, size in enumerate(val.shape):
            src = f"{s.arg.name}.size()[{d}]"
            if not hasattr(size, "node"):
                out.append(f"{src} == {int(size)}")
                continue
            expr = size.node.expr
            if expr in seen:
                out.append(f"{src} == {seen[expr]}")
                continue
            seen[expr] = src
            if expr in ep._range_constraints:
                lo, hi = ep._range_constraints[expr]
                if lo > 0:
                    out.append(f"{src} >= {lo}")
                if hi != float("inf"):
                    out.append(f"{src} <= {hi}")
    env = spec.shape_env
    if env is not None:
        from ember.fx.experimental.symbolic_shapes import to_python
        names = {sym: src for sym, src in ((e, s) for e, s in seen.items())}
        for guard in env.guards:
            text = to_python(guard, names)
            if text not in out and all(str(sym) not in text for sym in env.var_to_val):
                out.append(text)
    return out


def _make_guards_fn(names, guards):
    code = [compile(g, "<guard>", "eval") for g in guards]

    def _guards_fn(*inputs):
        scope = dict(zip(names, inputs))
        for text, c in zip(guards, code):
            if not eval(c, {}, scope):
                raise AssertionError(f"Guard failed: {text}")
        return None
    _guards_fn.__name__ = "_guards_fn"
    return _guards_fn
