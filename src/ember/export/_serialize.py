"""torch.export.save / load, in ember's own file format (torch's .pt2 archive is not read or written).

The file is an `ember.save` checkpoint (a zip archive loadable with weights_only=True) holding one dict:
    format       "ember.export", version 1
    nodes        the graph, one dict per node in order: op, name, target ("aten::add.Tensor", "operator.getitem"
                 or the placeholder's name), args / kwargs (a node reference is {"__node__": name}, a tuple
                 {"__tuple__": [...]}, a dtype {"__dtype__": "float32"}, a device {"__device__": "cpu"}, a
                 memory format or layout {"__attr__": "channels_last"}), val (shape, stride, dtype of tensors)
    input_specs  [kind, placeholder name, target, persistent, {"value": v} for a constant input or None]
    output_specs [kind, output name or None, target, constant value]
    state_dict, constants   the tensors
    call_spec    the user inputs' names, keyword flags, leaf paths and non-tensor values; the outputs' structure
Programs with dynamic shapes are not saved yet (NotImplementedError).
"""
import operator

import ember
from ember._ops import OpOverload, ops
from ember._tensor import Tensor
from ember.fx import Graph, GraphModule
from ember.fx.experimental.proxy_tensor import _MetaVal

from .graph_signature import (ConstantArgument, ExportGraphSignature, InputKind, InputSpec, OutputKind, OutputSpec,
                              TensorArgument)

FORMAT = "ember.export"
VERSION = 1


def _enc(a):
    if hasattr(a, "op") and hasattr(a, "graph"):
        return {"__node__": a.name}
    if isinstance(a, tuple):
        return {"__tuple__": [_enc(x) for x in a]}
    if isinstance(a, list):
        return [_enc(x) for x in a]
    if isinstance(a, dict):
        return {"__dict__": [[k, _enc(v)] for k, v in a.items()]}
    if isinstance(a, ember.dtype):
        return {"__dtype__": str(a).split(".")[-1]}
    if isinstance(a, ember.device):
        return {"__device__": str(a)}
    if isinstance(a, (ember.memory_format, ember.layout)):
        return {"__attr__": str(a).split(".")[-1]}
    if a is None or isinstance(a, (bool, int, float, str)):
        return a
    raise NotImplementedError(f"ember.export.save: cannot serialize the graph argument {a!r} ({type(a).__name__})")


def _dec(a, env):
    if isinstance(a, list):
        return [_dec(x, env) for x in a]
    if isinstance(a, dict):
        if "__node__" in a:
            return env[a["__node__"]]
        if "__tuple__" in a:
            return tuple(_dec(x, env) for x in a["__tuple__"])
        if "__dict__" in a:
            return {k: _dec(v, env) for k, v in a["__dict__"]}
        if "__dtype__" in a:
            return getattr(ember, a["__dtype__"])
        if "__device__" in a:
            return ember.device(a["__device__"])
        if "__attr__" in a:
            return getattr(ember, a["__attr__"])
    return a


def _enc_target(n):
    if n.op != "call_function":
        return n.target
    if isinstance(n.target, OpOverload):
        return n.target.name()
    if n.target is operator.getitem:
        return "operator.getitem"
    raise NotImplementedError(f"ember.export.save: cannot serialize a call to {n.target}")


def _dec_target(op, t):
    if op != "call_function":
        return t
    if t == "operator.getitem":
        return operator.getitem
    ns, rest = t.split("::")
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(ops, ns), name), overload or "default")


def _enc_val(v):
    if isinstance(v, (tuple, list)):
        return [_enc_val(x) for x in v]
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return {"shape": [int(s) for s in v.shape], "stride": [int(s) for s in v.stride()],
                "dtype": str(v.dtype).split(".")[-1]}
    return None


def _dec_val(v):
    if isinstance(v, list):
        return [_dec_val(x) for x in v]
    if isinstance(v, dict):
        return _MetaVal(tuple(v["shape"]), tuple(v["stride"]), getattr(ember, v["dtype"]), 0, False)
    return None


def _enc_spec(s):
    if s is None:
        return None
    t, children = s
    if t is dict:
        return {"t": "dict", "c": [[k, _enc_spec(c)] for k, c in children.items()]}
    return {"t": "list" if t is list else "tuple", "c": [_enc_spec(c) for c in children]}


def _dec_spec(s):
    if s is None:
        return None
    if s["t"] == "dict":
        return (dict, {k: _dec_spec(c) for k, c in s["c"]})
    return (list if s["t"] == "list" else tuple, [_dec_spec(c) for c in s["c"]])


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write ExportedProgram `ep` to `f` (a path or a binary file object) in ember's format."""
    from .exported_program import ExportedProgram
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' "
                        f"instead.")
    spec = ep._call_spec
    if ep._range_constraints or (spec is not None and spec.shape_env is not None):
        raise NotImplementedError("ember.export.save: programs exported with dynamic_shapes cannot be saved yet")
    nodes = [{"op": n.op, "name": n.name, "target": _enc_target(n), "args": _enc(n.args), "kwargs": _enc(n.kwargs),
              "val": _enc_val(n.meta.get("val")) if hasattr(n.meta.get("val"), "shape") or n.op != "placeholder"
              else _enc(n.meta.get("val"))} for n in ep.graph.nodes]
    sig = ep.graph_signature
    payload = {
        "format": FORMAT, "version": VERSION, "nodes": nodes,
        "input_specs": [[s.kind.name, s.arg.name, s.target, s.persistent,
                         {"value": _enc(s.arg.value)} if isinstance(s.arg, ConstantArgument) else None]
                        for s in sig.input_specs],
        "output_specs": [[s.kind.name, getattr(s.arg, "name", None), s.target,
                          _enc(s.arg.value) if isinstance(s.arg, ConstantArgument) else None]
                         for s in sig.output_specs],
        "state_dict": {k: v.detach() for k, v in ep.state_dict.items()},
        "param_names": list(sig.parameters),
        "constants": dict(ep.constants),
        "call_spec": {
            "top": [[n, kw] for n, kw in spec.top],
            "top_values": [_enc(_strip_tensors(v)) for v in spec.top_values],
            "leaves": [[name, ti, _enc(tuple(path)), is_tensor, _enc(value)]
                       for name, ti, path, is_tensor, value in spec.leaves],
            "out_spec": _enc_spec(spec.out_spec)},
        "extra_files": dict(extra_files or {}),
    }
    ember.save(payload, f)


def _strip_tensors(v):
    """The inputs' structure with each tensor replaced by a marker (only the structure and non-tensors are saved)."""
    if isinstance(v, (list, tuple)):
        return type(v)(_strip_tensors(x) for x in v)
    if isinstance(v, dict):
        return {k: _strip_tensors(x) for k, x in v.items()}
    return "<tensor>" if isinstance(v, Tensor) else v


class _LoadedTensorMarker:
    pass


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read an ExportedProgram written by ember.export.save."""
    from ember.nn import Parameter
    from ._trace import _CallSpec
    from .exported_program import ExportedProgram
    payload = ember.load(f, weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise RuntimeError("ember.export.load: not a file written by ember.export.save (torch's .pt2 archives "
                           "are not supported)")
    if payload["version"] > VERSION:
        raise RuntimeError(f"ember.export.load: file format version {payload['version']} is newer than this "
                           f"ember's ({VERSION})")
    g = Graph()
    env = {}
    for d in payload["nodes"]:
        target = _dec_target(d["op"], d["target"])
        args, kwargs = _dec(d["args"], env), _dec(d["kwargs"], env)
        n = g.create_node(d["op"], target, tuple(args), kwargs, name=d["name"])
        val = _dec_val(d["val"]) if d["op"] != "placeholder" or isinstance(d["val"], (dict, list)) else \
            _dec(d["val"], {})
        if val is not None:
            n.meta["val"] = tuple(val) if isinstance(val, list) else val
        env[d["name"]] = n
    in_specs = [InputSpec(InputKind[k], TensorArgument(name) if const is None else
                          ConstantArgument(name, _dec(const["value"], {})), target, persistent)
                for k, name, target, persistent, const in payload["input_specs"]]
    out_specs = [OutputSpec(OutputKind[k], TensorArgument(name) if name is not None else ConstantArgument("", _dec(c, {})),
                            target) for k, name, target, c in payload["output_specs"]]
    params = set(payload["param_names"])
    state = {k: (Parameter(v) if k in params else v) for k, v in payload["state_dict"].items()}
    cs = payload["call_spec"]
    spec = _CallSpec.__new__(_CallSpec)
    spec.top = [(n, kw) for n, kw in cs["top"]]
    spec.top_values = [_dec(v, {}) for v in cs["top_values"]]
    spec.top_values = [_restore_tensors(v) for v in spec.top_values]
    spec.leaves = [(name, ti, list(_dec(path, {})), is_tensor, _dec(value, {}))
                   for name, ti, path, is_tensor, value in cs["leaves"]]
    spec.out_spec = _dec_spec(cs["out_spec"])
    spec.shape_env = None
    if extra_files is not None:
        for k in extra_files:
            extra_files[k] = payload["extra_files"].get(k, "")
    return ExportedProgram(GraphModule({}, g), ExportGraphSignature(in_specs, out_specs), state,
                           constants=payload["constants"], example_inputs=None, _call_spec=spec)


def _restore_tensors(v):
    if isinstance(v, (list, tuple)):
        return type(v)(_restore_tensors(x) for x in v)
    if isinstance(v, dict):
        return {k: _restore_tensors(x) for k, x in v.items()}
    return ember.empty(0) if v == "<tensor>" else v
