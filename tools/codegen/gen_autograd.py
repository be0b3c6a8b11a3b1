"""Emit the autograd layer from src/ember/native/derivatives/<family>.yaml (torchgen/packaged/autograd).

    _generated/autograd/<family>.py       Node classes (MulBackward0, ...) and Autograd kernels of one family
    _generated/autograd_registrations.py  registers each kernel at the Autograd key by name (lazy)

A formula entry names an op's schema and gives, per differentiable input, a Python expression over
ember ops and the helpers of ember/autograd/formulas/<family>.py (each module's `__all__`; the generated
module imports every helper it uses by name). Its in-place variant (`mul_.Tensor`) reuses it:
the kernel checks the leaf rule, saves a copy of `self` if the formula reads it, and rebases
history. Ops with no entry fall to the boxed Autograd fallback (not-implemented node; `.out`
overloads refuse autograd). Any inconsistency (an unknown op or argument, a helper defined in two
formula modules, a name a formula uses that nothing defines) raises: nothing is skipped silently.
"""
import ast
import builtins
import glob
import keyword
import os
import re
from collections import Counter

import yaml

from .model import NATIVE_DIR, PYTHON_MODULES
from .gen_python import _default, _is_tensor, emit_functions
from _schema import BaseTy, BaseType, ListType, OptionalType

DERIVATIVES_DIR = os.path.join(NATIVE_DIR, "derivatives")
FORMULAS_DIR = os.path.join(os.path.dirname(NATIVE_DIR), "autograd", "formulas")
GENERATED_PACKAGE = "autograd"     # _generated/autograd/<family>.py


def derivative_files():
    """(family, path) of every native/derivatives/<family>.yaml, in name order."""
    paths = sorted(glob.glob(os.path.join(DERIVATIVES_DIR, "*.yaml")))
    if not paths:
        raise FileNotFoundError(f"no derivatives yaml under {DERIVATIVES_DIR}")
    return [(os.path.basename(p)[:-5], p) for p in paths]


def _module_all(path, text=None):
    """The names a module declares in `__all__` (a literal list; None without one) and the names it binds
    at top level."""
    tree = ast.parse(open(path).read() if text is None else text, path)
    bound, exported = set(), None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bound.add(n.id)
                        if n.id == "__all__":
                            exported = ast.literal_eval(node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return exported, bound


def formula_helpers():
    """name -> module (`formulas.softmax`) for every helper the formulas may call: the `__all__` of each
    ember/autograd/formulas/*.py. A module without `__all__`, a name exported but not defined, or a name
    defined in two modules is an error (import order must never pick between two meanings)."""
    out, defined_in = {}, {}
    paths = sorted(glob.glob(os.path.join(FORMULAS_DIR, "*.py")))
    if not paths:
        raise FileNotFoundError(f"no formula modules under {FORMULAS_DIR}")
    for path in paths:
        mod = os.path.basename(path)[:-3]
        if mod == "__init__":
            continue
        exported, bound = _module_all(path)
        if exported is None:
            raise ValueError(f"{path}: a formula module must declare __all__")
        tree = ast.parse(open(path).read(), path)
        for node in tree.body:     # public definitions (not imports) must be unique across modules
            names = [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else \
                [n.id for t in getattr(node, "targets", []) for n in ast.walk(t) if isinstance(n, ast.Name)]
            for n in names:
                if n.startswith("_"):
                    continue
                if n in defined_in and defined_in[n] != mod:
                    raise ValueError(f"formula helper {n!r} is defined twice: formulas/{defined_in[n]}.py and "
                                     f"formulas/{mod}.py (give each meaning its own name)")
                defined_in[n] = mod
        for n in exported:
            if n not in bound:
                raise ValueError(f"{path}: __all__ names {n!r}, which the module does not define")
            if n in out:
                raise ValueError(f"formula helper {n!r} is exported by formulas/{out[n]}.py and formulas/{mod}.py")
            out[n] = mod
    return out


def generated_function_names(fns):
    """The names `from ember._generated.<module> import *` brings (each module's __all__)."""
    names = set()
    for module in PYTHON_MODULES:
        exported, bound = _module_all(f"_generated/{PYTHON_MODULES[module]}", emit_functions(fns, module))
        names |= set(exported) if exported is not None else {n for n in bound if not n.startswith("_")}
    return names


HEADER = '"""@generated by tools/codegen/gen_autograd.py from src/ember/native/derivatives/{family}.yaml. Do not edit."""\n'


def _ident(fn):
    n = fn.func.name
    return str(n).replace(".", "_")


def _names(expr):
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}


def _is_tensor_list(t):
    b = t.elem if isinstance(t, OptionalType) else t
    return isinstance(b, ListType) and _is_tensor(b.elem)


# `<arg>_<attr>` in a formula saves that attribute of the argument at forward time instead of the
# tensor itself (torch's self_sym_sizes, ...): no version check, nothing kept alive.
ATTRS = {
    "sym_sizes": "{x}._size",
    "sym_strides": "{x}.stride()",
    "sym_storage_offset": "{x}._offset",
    "scalar_type": "{x}.dtype",
    "numel": "{x}.numel()",
    "dim": "{x}.dim()",
}


class Entry:
    def __init__(self, raw, fn):
        self.fn = fn
        self.name = raw["name"]
        # torch's output_differentiability: [False] makes the whole op non-differentiable; a per-output
        # list ([True, True, False, False] for linalg_lstsq) leaves the False outputs without grad_fn
        od = raw.get("output_differentiability")
        self.nondiff_outputs = od == [False]
        self.output_mask = None
        if od is not None and not self.nondiff_outputs:
            if len(od) != len(fn.func.returns) or not all(isinstance(x, bool) for x in od):
                raise ValueError(f"derivatives: {self.name}: output_differentiability needs one bool per output")
            if not all(od):
                self.output_mask = tuple(od)
        args = fn.func.arguments
        self.all_args = list(args.flat_positional) + list(args.flat_kwarg_only)
        self.returns = [r.name for r in fn.func.returns]
        self.formulas = {}
        self.group = {}      # input -> (names, position) when one formula gives several inputs' grads
        self.nondiff = set()
        self.result = raw.get("result")   # forward-mode rule: auto_element_wise | auto_linear | multilinear | expr
        # `result: not_implemented`: no forward-mode rule (torch has none: _ctc_loss), so a dual input
        # raises NotImplementedError instead of getting the auto_double_backward default
        self.no_forward = self.result == "not_implemented"
        if self.no_forward:
            self.result = None
        # `complex:` how the formulas treat complex tensors. By default they are written for real
        # numbers (grad * f'(z)), which is right for complex inputs too once the engine conjugates the
        # incoming grads and the results (torch's convention is grad * conj(f'(z))). `exact`: the
        # formulas already follow torch's convention (abs, the complex views). `not_implemented`: a
        # complex grad raises NotImplementedError (sgn: its complex backward is not written).
        cx = raw.get("complex", "conj")
        if cx not in ("conj", "exact", "not_implemented"):
            raise ValueError(f"derivatives: {self.name}: complex must be exact or not_implemented, not {cx!r}")
        self.complex_mode = {"conj": "conj", "exact": None, "not_implemented": "raise"}[cx]
        # `node:` the Node class name when torch's numbering differs from ember's file order
        # (remainder.Tensor is RemainderBackward1 in torch because remainder.Scalar comes first there);
        # torch names the nodes of the *_copy views after the view's: TBackward0_copy
        self.node = raw.get("node")
        # (torch's hand-written copy_ node is CopyBackwards, the one name outside its numbering)
        if self.node is not None and not re.fullmatch(r"[A-Z][A-Za-z0-9]*Backward[0-9]+(_copy)?|CopyBackwards",
                                                      str(self.node)):
            raise ValueError(f"derivatives: {self.name}: node must look like FooBackward<N>[_copy], not "
                             f"{self.node!r}")
        for k, v in raw.items():
            if k in ("name", "output_differentiability", "result", "complex", "node"):
                continue
            keys = tuple(x.strip() for x in k.split(","))
            for j, a in enumerate(keys):
                if v == "non_differentiable":
                    self.nondiff.add(a)
                else:
                    self.formulas[a] = str(v)
                    if len(keys) > 1:    # torch's `input, weight, bias: f(..., grad_input_mask)` -> a tuple
                        self.group[a] = (keys, j)
        names = {a.name for a in self.all_args}
        for a in self.formulas:
            if a not in names:
                raise ValueError(f"derivatives.yaml: {self.name}: formula for unknown argument {a!r}")
        # differentiable inputs = the node's outputs (next_edges), in schema order
        self.inputs = [a for a in self.all_args if (_is_tensor(a.type) or _is_tensor_list(a.type))
                       and a.name not in self.nondiff and a.name in self.formulas]
        if self.group and any(self.is_list(a) for a in self.inputs):
            raise ValueError(f"derivatives: {self.name}: a multi-input formula cannot have list inputs")

    def is_list(self, a):
        return _is_tensor_list(a.type)

    def is_list_return(self):
        return any(isinstance(r.type, ListType) for r in self.fn.func.returns)


def load(fns):
    raw = []
    for family, path in derivative_files():
        with open(path) as f:
            entries = yaml.safe_load(f) or []
        if not isinstance(entries, list):
            raise ValueError(f"{path}: expected a list of entries")
        raw.extend((family, r) for r in entries)
    by_name = {str(f.func): f for f in fns}
    by_opname = {str(f.func.name): f for f in fns}
    out, seen = [], set()
    for family, r in raw:
        schema = r["name"]
        fn = by_name.get(schema)
        if fn is None:
            opname = schema.split("(")[0]
            if opname in by_opname:
                raise ValueError(f"derivatives.yaml: schema of {opname} differs from native_functions: {schema!r}")
            raise ValueError(f"derivatives: {schema!r} names an op that native/*.yaml does not define")
        if schema in seen:
            raise ValueError(f"derivatives: two formulas for {schema!r} (each op has one entry, in one file)")
        seen.add(schema)
        e = Entry(r, fn)
        e.family = family
        out.append(e)
    return out


class Writer:
    def __init__(self, class_names, reserved, used):
        self.lines = []
        self.class_names = class_names    # shared by every family: names are numbered across files
        self.reserved = reserved          # names given by `node:` entries; numbering skips them
        self.used = used                  # every class name written so far (all families)

    def w(self, s=""):
        self.lines.append(s)

    def class_name(self, base, fixed=None):
        if fixed is not None:
            if fixed in self.used:
                raise ValueError(f"derivatives: two entries are named {fixed}")
            self.used.add(fixed)
            return fixed
        # str.title() per word, as torch's codegen does: a letter after a digit is capitalised too
        # (upsample_bilinear2d -> UpsampleBilinear2D, max_pool2d_with_indices -> MaxPool2DWithIndices)
        # and drops a trailing "Forward" (nll_loss_forward -> NllLossBackward0), as its create_op_name does
        camel = ("".join(p.title() for p in base.strip("_").split("_")) + "Backward").replace("ForwardBackward",
                                                                                           "Backward")
        while True:
            n = self.class_names[camel]
            self.class_names[camel] += 1
            name = f"{camel}{n}"
            if name not in self.reserved and name not in self.used:
                self.used.add(name)
                return name


def _py(name):
    """Python spelling of a schema argument name (`from` -> `from_`)."""
    return name + "_" if keyword.iskeyword(name) else name


def _signature(fn):
    a = fn.func.arguments
    parts = [_py(x.name) + _default(x) for x in a.flat_positional]
    kw = [_py(x.name) + _default(x) for x in a.flat_kwarg_only]
    if kw:
        parts.append("*")
        parts.extend(kw)
    if any(keyword.iskeyword(x.name) for x in list(a.flat_positional) + list(a.flat_kwarg_only)):
        parts.append("**_kw")    # callers may pass a keyword-named argument by its schema name
    return ", ".join(parts)


def _keyword_fixups(fn):
    a = fn.func.arguments
    return [f"    if {x.name!r} in _kw:\n        {_py(x.name)} = _kw.pop({x.name!r})"
            for x in list(a.flat_positional) + list(a.flat_kwarg_only) if keyword.iskeyword(x.name)]


def _argtuple(fn):
    a = fn.func.arguments
    names = [_py(x.name) for x in list(a.flat_positional) + list(a.flat_kwarg_only)]
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def _is_view_op(e, fn, inplace):
    """A view op (view, t, select, slice, permute, expand, ...): one Tensor output aliasing `self` unwritten
    (`Tensor(a) self -> Tensor(a)`), `self` its one differentiable input. Its kernel is emitted with the int-list
    arguments in the inlined key computation (`_kernel_below`) and without the per-input tests a single input
    makes redundant: the view ops are the cheapest ops a model calls with grad, so their fixed cost shows."""
    rets = fn.func.returns
    if inplace or len(rets) != 1 or e.output_mask is not None or e.is_list_return():
        return False
    ann = rets[0].annotation
    first = e.all_args[0] if e.all_args else None
    return (ann is not None and not ann.is_write and first is not None and first.name == "self"
            and first.annotation is not None and first.annotation.alias_set == ann.alias_set
            and [a.name for a in e.inputs] == ["self"])


def _kernel_below(fn, op, indent="    ", rg=None, int_lists=False):
    """Lines binding `_k` to the kernel below Autograd for this call: the key set of the tensor arguments (those
    a tensor can bind to: Tensor, Scalar, int, float) minus Autograd and above, then the op's dispatch cache,
    inlined (what `op.redispatch(below_ks(args), ...)` does). A list argument, a thread with dispatch keys
    included or excluded, or no backend key takes below_ks's general computation. `rg` maps an argument to
    the variable that gets its requires_grad in the same test (a plain attribute read where it is a tensor:
    getattr with a default costs several times more). `int_lists` (the view ops): an int/SymInt list argument
    (view's size, permute's dims) adds the keys of any tensor in it inline, as below_ks's loop does."""
    a = fn.func.arguments
    names, lists = [], []
    for x in list(a.flat_positional) + list(a.flat_kwarg_only):
        b = x.type.elem if isinstance(x.type, OptionalType) else x.type
        if not isinstance(b, BaseType):
            if isinstance(b, ListType) and isinstance(b.elem, BaseType) and b.elem.name in (
                    BaseTy.bool, BaseTy.float, BaseTy.str):
                continue          # lists no tensor binds to
            if int_lists and isinstance(b, ListType) and isinstance(b.elem, BaseType) and b.elem.name in (
                    BaseTy.int, BaseTy.SymInt):
                lists.append(_py(x.name))
                continue
            return None
        if b.name in (BaseTy.Tensor, BaseTy.Scalar, BaseTy.int, BaseTy.SymInt, BaseTy.float):
            names.append(_py(x.name))
    if not names:
        return None
    lines = []
    rg = rg or {}
    for i, v in enumerate(names):
        if v in rg:
            lines.append(f"if {v}.__class__ in _TENSOR_TYPES:")
            lines.append(f"    _ks {'|' if i else ''}= {v}._ks")
            lines.append(f"    {rg[v]} = {v}._requires_grad")
            lines.append("else:")
            if not i:
                lines.append("    _ks = 0")
            lines.append(f"    {rg[v]} = False")
        elif i == 0:
            lines.append(f"_ks = {v}._ks if {v}.__class__ in _TENSOR_TYPES else 0")
        else:
            lines.append(f"if {v}.__class__ in _TENSOR_TYPES:")
            lines.append(f"    _ks |= {v}._ks")
    for v in lists:     # (a list or tuple; a Size or an int holds no tensor)
        lines.append(f"if {v}.__class__ is tuple or {v}.__class__ is list:")
        lines.append(f"    for _a in {v}:")
        lines.append("        if _a.__class__ in _TENSOR_TYPES:")
        lines.append("            _ks |= _a._ks")
    lines += ["if _KEYS_ACTIVE[0] or not _ks & _BACKEND_BITS:",
              f"    _ks = _below_ks({_argtuple(fn)})",
              "else:",
              "    _ks &= _BELOW_AUTOGRAD_OR_PYTHON",
              "try:",
              f"    _k = {op}._dispatch_cache[_ks]",
              "except KeyError:",
              f"    _k = {op}._resolve(_ks)"]
    return [indent + ln for ln in lines]


def _call(fn):
    a = fn.func.arguments
    pos = [_py(x.name) for x in a.flat_positional]
    kw = [f"{x.name}={_py(x.name)}" if not keyword.iskeyword(x.name) else f"**{{{x.name!r}: {_py(x.name)}}}"
          for x in a.flat_kwarg_only]
    return ", ".join(pos + kw)


def _saved_kinds(e):
    """name -> (kind, forward expression) for every name a formula may read."""
    kinds = {}
    for a in e.all_args:
        if _is_tensor(a.type):
            kinds[a.name] = ("tensor", a.name)
        elif _is_tensor_list(a.type):
            kinds[a.name] = ("value", f"list({a.name})")
        else:
            kinds[a.name] = ("value", a.name)
        for attr, tmpl in ATTRS.items():
            if _is_tensor(a.type):
                kinds[f"{a.name}_{attr}"] = ("value", tmpl.format(x=a.name))
            elif _is_tensor_list(a.type):
                kinds[f"{a.name}_{attr}"] = ("value", "[" + tmpl.format(x="_t") + f" for _t in {a.name}]")
    single = len(e.returns) == 1
    kinds["result"] = ("output", "_res")
    for i, r in enumerate(e.returns):
        if r:
            kinds[r] = ("output", "_res" if single else f"_res[{i}]")
        if not single:
            kinds[f"result{i}"] = ("output", f"_res[{i}]")
    return kinds


def _unpack_lines(n, kind, indent):
    """A saved tensor read in a node's apply: an input tensor may sit in the node directly (s_<name> with its
    version in v_<name>): returned after an inline version check; anything else goes through unpack_slot."""
    if kind == "output":
        return [f"{indent}{n} = _unpack_output(_n, {n!r})"]
    return [f"{indent}{n} = _n.s_{n}",
            f"{indent}if {n}.__class__ not in _TENSOR_TYPES or (_v := {n}._vc) is not None and _v.value != _n.v_{n}:",
            f"{indent}    {n} = _unpack_slot(_n, {n!r})"]


def emit_node(w, e, cls):
    kinds = _saved_kinds(e)
    uses = {}
    for a in e.inputs:
        uses[a.name] = sorted(n for n in _names(e.formulas[a.name]) if n in kinds)
    saved = sorted({n for v in uses.values() for n in v})
    w.w(f"class {cls}(_Node):")
    w.w(f"    _op_name = {('aten::' + str(e.fn.func.name))!r}")
    if saved:     # torch's _saved_<name> attributes (graph.saved_attr); an int[] argument reads as a tuple
        types = {a.name: a.type for a in e.all_args}

        def _kind(n):
            t = types.get(n)
            t = getattr(t, "elem", t) if t is not None and not isinstance(t, ListType) else t
            return "list" if kinds[n][0] == "value" and isinstance(t, ListType) else kinds[n][0]
        for n in saved:
            w.w(f"    _saved_{n} = _saved_attr({n!r}, {_kind(n)!r})")
    if e.complex_mode is not None:
        w.w(f"    _complex = {e.complex_mode!r}")
    if cls == "CopyBackwards":          # hand-written in torch: name() reports the C++ class
        w.w("")
        w.w("    def name(self):")
        w.w("        return 'torch::autograd::CopyBackwards'")
    r0 = e.fn.func.returns[0] if e.fn.func.returns else None
    if r0 is not None and isinstance(r0.type, ListType) and r0.annotation is not None:
        w.w("    _multi_view = True")
    if len(e.fn.func.returns) > 1 and not _reads_grads(e):
        # the formulas read `grad` (grads[0]) alone: the engine makes no zeros for the other outputs' missing
        # grads (layer_norm's mean and rstd, max.dim's indices): torch passes them undefined
        w.w("    _grads_read = 1")
    w.w("")
    w.w("    def apply(_n, grads):")
    w.w("        grad = grads[0]")
    w.w("        _e = _n.next_edges")
    # without list inputs, input i's edge is next_edges[i]: literal indices (no running offset)
    static = not any(e.is_list(a) for a in e.inputs)
    if not static:
        w.w("        _k = 0")
    pos = {a.name: i for i, a in enumerate(e.inputs)}
    done = set()
    for i, a in enumerate(e.inputs):
        if a.name in e.group:
            keys = e.group[a.name][0]
            if keys in done:
                continue
            done.add(keys)
            members = [k for k in keys if k in pos]
            for k in members:
                w.w(f"        _r{pos[k]} = None")
            w.w(f"        if {' or '.join(f'_e[{pos[k]}] is not None' for k in members)}:")
            for n in sorted({n for k in members for n in uses[k]}):
                if kinds[n][0] in ("tensor", "output"):
                    w.lines.extend(_unpack_lines(n, kinds[n][0], "            "))
                else:
                    w.w(f"            {n} = _n.s_{n}")
            mask = ", ".join((f"_e[{pos[k]}] is not None" if k in pos else "False") for k in keys)
            w.w(f"            grad_input_mask = [{mask}]")
            w.w(f"            _g = {e.formulas[a.name]}")
            for k in members:
                w.w(f"            _r{pos[k]} = _g[{keys.index(k)}] if _e[{pos[k]}] is not None else None")
            continue
        w.w(f"        _r{i} = None")
        if static:
            w.w(f"        if _e[{i}] is not None:")
        elif e.group:
            w.w(f"        _k = {i}")
        if static:
            pass
        elif e.is_list(a):
            w.w(f"        _s{i} = _k")
            w.w(f"        _k += _n.n_{a.name}")
            w.w(f"        if _bi.any(_x is not None for _x in _e[_s{i}:_k]):")
        else:
            w.w(f"        _s{i} = _k")
            w.w("        _k += 1")
            w.w(f"        if _e[_s{i}] is not None:")
        for n in uses[a.name]:
            if kinds[n][0] in ("tensor", "output"):
                w.lines.extend(_unpack_lines(n, kinds[n][0], "            "))
            else:
                w.w(f"            {n} = _n.s_{n}")
        w.w(f"            _r{i} = {e.formulas[a.name]}")
    if static:
        w.w("        return [" + ", ".join(f"_r{i}" for i in range(len(e.inputs))) + "]")
    else:
        w.w("        _out = []")
    for i, a in enumerate(e.inputs):
        if static:
            break
        if e.is_list(a):
            w.w(f"        _out.extend(_r{i} if _r{i} is not None else [None] * _n.n_{a.name})")
        else:
            w.w(f"        _out.append(_r{i})")
    if not static:
        w.w("        return _out")
    w.w("")
    w.w("    def release_variables(_n):")
    w.w("        _n._released = True")
    for n in saved:
        if kinds[n][0] == "value":
            continue
        w.w(f"        _s = getattr(_n, 's_{n}', None)")
        w.w("        if _s is not None:")
        # (a tensor kept directly, an input or a saved output's shell, leaves the released marker)
        w.w("            if _s.__class__ is _SV:")
        w.w("                _s.release()")
        w.w("            else:")
        w.w(f"                _n.s_{n} = _RELEASED")
    w.w("")
    w.w("")
    return uses, saved


def _reads_grads(e):
    return any("grads" in _names(f) for f in e.formulas.values())


def emit_jvp(w, e, fn):
    """Forward-mode rule for one op (torch's `result:` formulas, reduced): returns the output tangent
    from the inputs' tangents `_ts` (None where an input has none)."""
    ident = _ident(fn)
    kinds = _saved_kinds(e)
    names = [a.name for a in e.all_args]
    w.w(f"def _jvp_{ident}(_ts, {', '.join(_py(n) for n in names)}, result):")
    w.w("    _o = None")
    kind = e.result
    multi = len(e.fn.func.returns) > 1
    # a multi-output entry whose formulas read `grads` and that asks for auto_double_backward
    # explicitly (the nn backward kernels) gives every output a tangent; others give output 0 one
    seed_all = multi and kind == "auto_double_backward" and _reads_grads(e)
    if multi:     # outputs by name / position
        w.w("    _all = result")
        for i, r in enumerate(e.returns):
            if r:
                w.w(f"    {r} = result[{i}]")
            w.w(f"    result{i} = result[{i}]")
        w.w("    result = result[0]")
    if kind in ("auto_reduction", "auto_gather"):
        # auto_reduction: every input element feeds exactly one output element, so the tangent is
        # (backward formula at grad = 1) * self_t, summed over the reduced dims.
        # auto_gather: the output picks input elements at `indices` along `dim` (sort, topk, ...).
        has_dim = "dim" in names
        has_keep = "keepdim" in names
        w.w("    if _ts[0] is not None:")
        if kind == "auto_gather":
            w.w("        _o = _fw_gather(_ts[0], dim, indices)")
        else:
            w.w("        grad = _fw_ones(result)")
            for n in sorted(_names(e.formulas["self"])):
                if n in kinds and kinds[n][0] == "value" and n not in names:
                    w.w(f"        {n} = {kinds[n][1]}")
            w.w(f"        _o = _fw_reduce(({e.formulas['self']}) * _ts[0], {'dim' if has_dim else 'None'}, "
                f"{'keepdim' if has_keep else 'False'}, result)")
    elif kind == "auto_double_backward":
        # J·t from the (linear in grad) backward formulas: differentiate <backward(u), t> w.r.t. u
        if seed_all:
            w.w("    _us = [_fw_seed(_x) if _x is not None else None for _x in _all]")
            w.w("    grads = _us")
            w.w("    _u = _us[0]")
        else:
            w.w("    _u = _fw_seed(result)")
        w.w("    _gs, _tt = [], []")
        w.w("    with _fw_enable_grad():")
        w.w("        grad = _u")
        pos = {a.name: i for i, a in enumerate(e.inputs)}
        done = set()
        for i, a in enumerate(e.inputs):
            if a.name in e.group:     # one formula for several inputs (conv, norms): a tuple of grads
                keys = e.group[a.name][0]
                if keys in done:
                    continue
                done.add(keys)
                members = [k for k in keys if k in pos]
                w.w(f"        if {' or '.join(f'_ts[{pos[k]}] is not None' for k in members)}:")
                for n in sorted(_names(e.formulas[a.name])):
                    if n in kinds and kinds[n][0] == "value" and n not in names:
                        w.w(f"            {n} = {kinds[n][1]}")
                mask = ", ".join((f"_ts[{pos[k]}] is not None" if k in pos else "False") for k in keys)
                w.w(f"            grad_input_mask = [{mask}]")
                w.w(f"            _g = {e.formulas[a.name]}")
                for k in members:
                    w.w(f"            if _ts[{pos[k]}] is not None and _g[{keys.index(k)}] is not None:")
                    w.w(f"                _gs.append(sum_to(_g[{keys.index(k)}], {_py(k)}._size))")
                    w.w(f"                _tt.append(_ts[{pos[k]}])")
                continue
            w.w(f"        if _ts[{i}] is not None:")
            for n in sorted(_names(e.formulas[a.name])):
                if n in kinds and kinds[n][0] == "value" and n not in names:
                    w.w(f"            {n} = {kinds[n][1]}")
            w.w(f"            _gs.append(sum_to({e.formulas[a.name]}, {_py(a.name)}._size))")
            w.w(f"            _tt.append(_ts[{i}])")
        if seed_all:
            w.w("        _o = _fw_transpose_multi(_gs, _us, _tt, _all)")
        else:
            w.w("        _o = _fw_transpose(_gs, _u, _tt, result)")
    elif kind == "auto_element_wise":
        for i, a in enumerate(e.inputs):
            w.w(f"    if _ts[{i}] is not None:")
            w.w(f"        grad = _ts[{i}]")
            for n in sorted(_names(e.formulas[a.name])):
                if n in kinds and kinds[n][0] == "value" and n not in names:
                    w.w(f"        {n} = {kinds[n][1]}")
            w.w(f"        _o = _fw_acc(_o, {e.formulas[a.name]})")
    elif kind in ("auto_linear", "multilinear"):
        op = f"_OP_{ident}"
        call_args = [x.name for x in fn.func.arguments.flat_positional]
        kw = [x.name for x in fn.func.arguments.flat_kwarg_only]
        idx = {a.name: i for i, a in enumerate(e.inputs)}

        def call(sub):
            pos = ", ".join(sub.get(n, _py(n)) for n in call_args)
            kws = "".join(f", {n}={sub.get(n, _py(n))}" for n in kw)
            return f"{op}({pos}{kws})"
        if kind == "auto_linear":
            sub = {}
            for a in e.inputs:
                i = idx[a.name]
                if e.is_list(a):
                    sub[a.name] = f"_z(_ts[{i}], {a.name})"
                else:
                    sub[a.name] = f"_z(_ts[{i}], {a.name})"
            w.w(f"    _o = {call(sub)}")
        else:
            for a in e.inputs:
                i = idx[a.name]
                w.w(f"    if _ts[{i}] is not None:")
                w.w(f"        _o = _fw_acc(_o, {call({a.name: f'_ts[{i}]'})})")
    else:   # an expression over primals and `<input>_t` tangents (zeros where missing)
        for i, a in enumerate(e.inputs):
            w.w(f"    {a.name}_t = _z(_ts[{i}], {a.name})")
        w.w(f"    _o = {kind}")
    w.w("    return _o")
    w.w("")
    w.w("")


def emit_kernel(w, e, fn, cls, uses, saved, inplace):
    ident = _ident(fn)
    kinds = _saved_kinds(e)
    op = f"_OP_{ident}"
    w.w(f"{op} = getattr(_aten.{fn.func.name.name}, {(fn.func.name.overload_name or 'default')!r})")
    w.w("")
    w.w("")
    # the backward formulas are linear in grad and differentiable (the nn backward kernels too, via
    # derivatives_nn_double.yaml), so J·t = d<J^T u, t>/du serves every entry without a `result:`
    if e.result is None and not e.no_forward and not inplace and not e.is_list_return() and not e.nondiff_outputs and e.inputs \
            and not any(e.is_list(a) for a in e.inputs) and not any("grads" in _names(f) for f in e.formulas.values()):
        e.result = "auto_double_backward"
    # in-place ops: the tangent comes from the functional op's rule (jvp_of) evaluated at the old self,
    # or from the entry's own `result:` expression (copy_, fill_, zero_)
    jvp_of = getattr(e, "jvp_of", None)
    own = e.result is not None and (not inplace or e.result not in (
        "auto_element_wise", "auto_linear", "multilinear", "auto_reduction", "auto_gather", "auto_double_backward"))
    fw = own or (inplace and jvp_of is not None)
    if own:
        emit_jvp(w, e, fn)
    w.w(f"def {ident}({_signature(fn)}):")
    for line in _keyword_fixups(fn):
        w.w(line)
    args = _argtuple(fn)
    ins = "(" + "".join(f"{_py(a.name)}, " for a in e.inputs) + ")"
    w.w(f"    if _FW[0] and _fw_has({ins}):")
    if fw:
        names = ", ".join(("_old" if (inplace and a.name == "self") else _py(a.name)) for a in e.all_args)
        w.w(f"        _ts = _fw_take({ins})")
        w.w("        try:")
        if inplace:
            w.w("            _old = _clone(self)")
        w.w(f"            _res = _self_{ident}({_call(fn)})")
        w.w(f"            _t = _jvp_{jvp_of if (inplace and not own) else ident}(_ts, {names}, _res)")
        w.w("        finally:")
        w.w("            _fw_restore()")
        if inplace and "inplace_view" in fn.tags:
            w.w("        _fw_attach(self, _t)      # a view of the old tangent, as self is of its old self")
            w.w("        return _res")
        elif inplace:
            w.w("        _fw_attach(self, _t, True)")
            w.w("        return _res")
        elif e.is_list_return():
            w.w("        for _x, _y in zip(_res, _t):")
            w.w("            _fw_attach(_x, _y)")
            w.w("        return _res")
        elif len(e.fn.func.returns) == 1:
            w.w("        return _fw_attach(_res, _t)")
        elif e.result == "auto_double_backward" and _reads_grads(e):
            w.w("        for _x, _y in zip(_res, _t):")
            w.w("            _fw_attach(_x, _y)")
            w.w("        return _res")
        elif e.result not in ("auto_element_wise", "auto_linear", "multilinear", "auto_reduction", "auto_gather",
                              "auto_double_backward"):
            w.w("        for _x, _y in zip(_res, _t if _t.__class__ is tuple else (_t,)):   # a tuple: every output's")
            w.w("            _fw_attach(_x, _y)")
            w.w("        return _res")
        else:
            w.w("        _fw_attach(_res[0], _t)")
            w.w("        return _res")
    else:
        w.w(f"        _fw_unsupported({str(fn.func.name.name)!r})")
    if inplace:
        w.w("    _check_inplace(self)")
    # torch's check_no_requires_grad: a tensor input without a formula (and not declared non_differentiable)
    # must not require grad; `output` is exempt, as in torch (double-backward entries take it as a constant)
    for a in e.all_args:
        if (_is_tensor(a.type) and a.name not in e.formulas and a.name not in e.nondiff and a.name != "output"
                and not (a.annotation is not None and a.annotation.is_write)):
            w.w(f"    _no_rg({a.name}, {a.name!r}, {str(fn.func.name.name)!r})")
    # requires_grad of each differentiable input, read once (a Tensor-typed argument may be a Python number or
    # None, which never requires grad: getattr's default, without a Python call)
    rg_of = {}
    for i, a in enumerate(e.inputs):
        rg_of[a.name] = f"_g{i}"
    fused = {_py(a.name): rg_of[a.name] for a in e.inputs if not e.is_list(a)}
    view_op = _is_view_op(e, fn, inplace)
    below = _kernel_below(fn, op, rg=fused, int_lists=view_op)
    if not below:
        fused = {}
    for i, a in enumerate(e.inputs):
        if _py(a.name) not in fused or not any(f" {_py(a.name)}.__class__" in ln for ln in below):
            w.w(f"    _g{i} = " + (f"_rg({a.name})" if e.is_list(a) else f"_getattr({a.name}, '_requires_grad', False)"))
    rgs = [rg_of[a.name] for a in e.inputs]
    if below:
        for line in below:
            w.w(line)
    w.w(f"    _need = {' or '.join(rgs) if rgs else 'False'}")
    if below:
        w.w("    if not _need:")
        w.w(f"        return _k({_call(fn)})")
    else:
        w.w("    if not _need:")
        w.w(f"        return {op}.redispatch(_below_ks({args}), {_call(fn)})")
    # Node.__init__ inlined (no Python frame): a sequence number, and the anomaly-mode trace when enabled
    w.w(f"    _n = _new({cls})")
    w.w("    _n._sequence_nr = _next_seq()")
    if view_op:
        w.w("    if _ANOMALY[0]:")
        w.w("        _record_anomaly(_n)")
    # a single Tensor output gets its history inline below; every other kind starts from an empty input_meta
    inline_history = not inplace and e.output_mask is None and len(e.returns) == 1 and not e.is_list_return()
    if not inline_history:
        w.w("    _n.input_meta = []")
    edges = []
    for a in e.inputs:
        if e.is_list(a):
            w.w(f"    _n.n_{a.name} = len({a.name})")
            edges.append(f"*_edges({a.name})")
        else:
            # a non-leaf, non-view input's entry (graph.py: the grad_fn alone for output 0, no tuple; else
            # (grad_fn, output_nr)): inline; a view's via gradient_entry; a leaf input needing grad goes in as
            # itself: its AccumulateGrad is made when the edge is first read (graph.leaf_edges; the engine's first
            # pass, next_functions), not at every forward op
            edge = (f"(_gedge({a.name}) if {a.name}._base is not None else "
                    f"(_f if (_o := {a.name}._output_nr) == 0 else (_f, _o)) "
                    f"if (_f := {a.name}.grad_fn) is not None else {a.name})")
            edges.append(edge if view_op else f"({edge} if {rg_of[a.name]} else None)")
    if view_op:
        # a leaf's AccumulateGrad is made when the edge is first read (backward, next_functions), not here: a
        # forward without backward (inference with parameters needing grad) never makes it (graph.leaf_edges)
        w.w("    if self._base is not None:")
        w.w("        _n.next_edges = (_gedge(self), )")
        w.w("    elif (_f := self.grad_fn) is not None:")
        w.w("        _n.next_edges = (_f if (_o := self._output_nr) == 0 else (_f, _o), )")
        w.w("    elif _ANOMALY[0]:")
        w.w("        _n.next_edges = (_leaf_edge(self), )")
        w.w("    else:")
        w.w("        _n.next_edges = (self, )")
    else:
        w.w("    _n.next_edges = (" + "".join(f"{x}, " for x in edges) + ")")
        # anomaly mode: the trace of the node, then its leaves' AccumulateGrads made at once (their trace is the
        # forward's too), both at the depth Node.__init__ would record from
        w.w("    if _ANOMALY[0]:")
        w.w("        _record_anomaly(_n)")
        w.w("        _leaf_edges(_n)")
    # an argument the op writes besides self (rrelu_with_noise's noise) is saved after the call: the formula
    # reads what the op wrote, and saving it before would trip the version check (torch saves it after too)
    written = {a.name for a in e.all_args if a.annotation is not None and a.annotation.is_write and a.name != "self"}
    after = []
    for n in saved:
        kind, expr = kinds[n]
        if kind == "output":
            continue
        users = [a.name for a in e.inputs if n in uses[a.name]]
        cond = " or ".join(rg_of[u] for u in users)
        if kind == "tensor" and not (inplace and n == "self") and n not in written:
            # SavedVariable's common case kept in the node itself (see autograd/_saved.py): the tensor and its
            # version, two attributes on the node rather than one more GC-tracked object and an __init__ frame
            w.lines.extend([f"    if {cond}:",
                            f"        if {n}.__class__ in _TENSOR_TYPES and not _HOOKS_ANYWHERE[0] "
                            f"and (_v := {n}._vc) is not _INFERENCE_VC:",
                            f"            _n.s_{n} = {n}",
                            f"            _n.v_{n} = 0 if _v is None else _v.value",
                            "        else:",
                            f"            _n.s_{n} = _SV({n})"])
            continue
        if kind == "tensor":
            val = "_SV(_saved_clone(self))" if (inplace and n == "self") else f"_SV({n})"
        else:
            val = expr
        if view_op and users:      # self, the one input, requires grad here (`_need`)
            (after if n in written else w.lines).append(f"    _n.s_{n} = {val}")
            continue
        (after if n in written else w.lines).extend([f"    if {cond}:", f"        _n.s_{n} = {val}"])
    w.w(f"    _res = _k({_call(fn)})" if below else f"    _res = {op}.redispatch(_below_ks({args}), {_call(fn)})")
    for line in after:
        w.w(line)
    if inplace and "inplace_view" in fn.tags:
        # squeeze_, unsqueeze_: self's geometry changed, not its values; as torch's codegen does for in-place
        # views, self gets the node as a new history (a view stays a view of its base: no CopySlices)
        w.w("    _set_history(self, _n)")
    elif inplace:
        w.w("    _rebase_history(self, _n)")
    elif e.output_mask is not None:
        # non-differentiable outputs keep their slot in the node's inputs (grads stay aligned by position)
        # but get no grad_fn
        w.w(f"    for _x, _d in zip(_res, {e.output_mask!r}):")
        w.w("        if _d:")
        w.w("            _set_history(_x, _n)")
        w.w("        else:")
        w.w("            _n._add_input_meta(_x)")
    else:
        # formulas reading `grad` differentiate the first output only; `not_implemented(...)` reads no
        # grad at all: every output gets the node (torch's GeqrfBackward0 on both of geqrf's outputs)
        single = len(e.returns) > 1 and not e.is_list_return() and \
            not any("grads" in _names(f) for f in e.formulas.values()) and \
            any("grad" in _names(f) for f in e.formulas.values())
        if inline_history:
            # set_history inlined for the one differentiable Tensor output (the common case)
            w.w("    if _res.__class__ in _TENSOR_TYPES and ((_d := _res.dtype).is_floating_point or _d.is_complex):")
            w.w("        if _res._base is not None:")
            # (the view kernel below set the shared counter: read without the _version_counter property's frame)
            w.w("            _res._gfv = _v.value if (_v := _res._vc) is not None else _res._version_counter.value")
            w.w("        _x = _res._ks")
            # a plain cpu output's record is graph.cpu_meta's shared tuple (no GC-tracked list + tuple per node)
            w.w("        if _x == _PLAIN_CPU:")
            w.w("            try:")
            w.w("                _n.input_meta = _META_CACHE[_d][_res._size]")
            w.w("            except KeyError:")
            w.w("                _n.input_meta = _cpu_meta(_res._size, _d)")
            w.w("        else:")
            w.w("            _n.input_meta = [(_res._size, _d, _META if _x & _META_BIT else _CPU)]")
            w.w("        _res._output_nr = 0")
            w.w("        _res.grad_fn = _n")
            w.w("        _res._requires_grad = True")
            w.w("        _res._ks = _x | _AUTOGRAD_BIT")
            if "result" in saved and kinds["result"][1] == "_res":
                # the saved output, when a plain cpu tensor of its own (no storage object, no base, no saved-tensor
                # hooks, no dual level, not an inference tensor): a bare shell, the output's array, size, dtype and
                # stride on a new tensor sharing its version counter (made now), without the output's grad_fn
                # (torch saves an output's data without its history, or the two would hold each other).
                # SavedVariable(output, True) otherwise; both read back by _saved.unpack_output
                w.w("        if (_x == _PLAIN_CPU and _res._storage is None and not _HOOKS_ANYWHERE[0] "
                    "and _FW_LEVEL[0] is None")
                w.w("                and (_v := _res._vc) is not _INFERENCE_VC):")
                w.w("            if _v is None:")
                w.w("                _res._vc = _v = _new(_VC)")
                w.w("                _v.value = 0")
                w.w("            _n.s_result = _sh = _new(_res.__class__)")
                w.w("            _sh._np = _res._np")
                w.w("            _sh._size = _res._size")
                w.w("            _sh.dtype = _d")
                w.w("            _sh._ks = _x")
                w.w("            _sh._vc = _v")
                w.w("            if (_st := _res._stride) is not None:")
                w.w("                _sh._stride = _st")
                w.w("            _n.v_result = _v.value")
                w.w("        else:")
                w.w("            _n.s_result = _SV(_res, True)")
            w.w("    else:")
            w.w("        _n.input_meta = []")
            w.w(f"        _set_history(_res, _n{', True' if single else ''})")
            if "result" in saved and kinds["result"][1] == "_res":
                w.w("        _n.s_result = _SV(_res, True)")
        else:
            w.w(f"    _set_history(_res, _n{', True' if single else ''})")
    for n in saved:
        kind, expr = kinds[n]
        if kind == "output" and not (inline_history and n == "result" and expr == "_res"):
            w.w(f"    _n.s_{n} = _SV({expr}, True)")
    w.w("    return _res")
    w.w("")
    w.w("")
    if True:
        w.w(f"_self_{ident} = {ident}   # the kernel, for its forward-AD re-entry (an argument may shadow its name)")
        w.w("")
        w.w("")


def emit_nondiff(w, fn):
    ident = _ident(fn)
    w.w(f"_OP_{ident} = getattr(_aten.{fn.func.name.name}, {(fn.func.name.overload_name or 'default')!r})")
    w.w("")
    w.w("")
    w.w(f"def {ident}(*args, **kwargs):")
    w.w(f"    return _OP_{ident}.redispatch(_below_ks(args, kwargs), *args, **kwargs)")
    w.w("")
    w.w("")


def _arg_sig(fn):
    a = fn.func.arguments
    return [(x.name, str(x.type)) for x in list(a.flat_positional) + list(a.flat_kwarg_only)]


def _inplace_of(fn, fns):
    """The in-place overload taking exactly the functional's arguments (mul_.Tensor for mul.Tensor)."""
    base = str(fn.func.name.name)
    for f in fns:
        if str(f.func.name.name) == base + "_" and _arg_sig(f) == _arg_sig(fn):
            return f
    return None


def _free_names(text):
    """Names a module reads but never binds (at any scope): what must come from an import."""
    tree = ast.parse(text)
    loaded, bound = set(), set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            (loaded if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in n.names)
    return loaded - bound


def _read_from_functions(text, exported):
    """The names of `exported` (the ember.<name> bindings) a module reads anywhere and does not bind at its
    top level: what it imports by name from `_generated/functions.py`. A star import would load every op family
    the first time an autograd module is imported (see ember/_bindings.py); naming them loads only the families
    of the ops its formulas call. A name also bound locally somewhere is imported all the same (harmless)."""
    tree = ast.parse(text)
    top = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                top.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return sorted((read & exported) - top)


FUNCTIONS_STAR = "from ember._generated.functions import *"


def _wrap(head, names, per_line=100):
    """`head` + `(a, b, ...)`, wrapped at `per_line` columns under the opening parenthesis."""
    out, cur = [], head + "("
    for k, n in enumerate(names):
        piece = n + (", " if k + 1 < len(names) else ")")
        if len(cur) + len(piece) > per_line and cur != head + "(":
            out.append(cur.rstrip())
            cur = " " * len(head + "(") + piece
        else:
            cur += piece
    out.append(cur)
    return "\n".join(out)


def _imports(names, per_line=100):
    """`from ember.autograd.formulas.<m> import a, b, ...` lines, wrapped."""
    out = []
    for mod in sorted(names):
        head = f"from ember.autograd.formulas.{mod} import "
        if len(head) + len(", ".join(names[mod])) <= per_line:
            out.append(head + ", ".join(sorted(names[mod])))
            continue
        line = head + "("
        parts = sorted(names[mod])
        cur = line
        for k, n in enumerate(parts):
            piece = n + (", " if k + 1 < len(parts) else ")")
            if len(cur) + len(piece) > per_line and cur.strip() != line.strip():
                out.append(cur.rstrip())
                cur = " " * len(line) + piece
            else:
                cur += piece
        out.append(cur)
    return out


PRELUDE = [
    "# ruff: noqa",
    "import builtins as _bi",
    "from ember._ops import ops as _ops_ns",
    "from ember._generated.functions import *",
    "from ember._generated.nn_functions import *   # formulas call at:: ops whatever their python_module",
    "from ember._generated.linalg_functions import *",
    "from ember.autograd.graph import Node as _Node, gradient_entry as _gedge, leaf_edge as _leaf_edge",
    "from ember.autograd._saved import SavedVariable as _SV",
    "from ember.autograd.graph import _clone_detached as _clone",
    "from ember.autograd._kernel import (rg as _rg, edge as _edge, edges as _edges, below_ks as _below_ks, set_history as _set_history,",
    "                                    check_inplace as _check_inplace, rebase_history as _rebase_history, bump as _bump,",
    "                                    saved_clone as _saved_clone, no_requires_grad as _no_rg)",
    "from ember.autograd.forward_ad import _FW, fw_has as _fw_has, fw_unsupported as _fw_unsupported",
    "from ember.autograd._forward_rules import (fw_take as _fw_take, fw_acc as _fw_acc, zeros_if_none as _z,",
    "                                           fw_restore as _fw_restore, fw_attach as _fw_attach,",
    "                                           fw_ones as _fw_ones, fw_reduce as _fw_reduce, fw_gather as _fw_gather,",
    "                                           fw_seed as _fw_seed, fw_transpose as _fw_transpose,",
    "                                           fw_transpose_multi as _fw_transpose_multi,",
    "                                           enable_grad as _fw_enable_grad)",
    "from ember._core.tensor_impl import TENSOR_TYPES as _TENSOR_TYPES",
    "from ember._core.dispatch_keys import BACKEND_BITS as _BACKEND_BITS",
    "from ember._core.tls import KEYS_ACTIVE as _KEYS_ACTIVE",
    "from ember.autograd._kernel import BELOW_AUTOGRAD_OR_PYTHON as _BELOW_AUTOGRAD_OR_PYTHON",
    "from ember._core.dispatch_keys import AUTOGRAD_BIT as _AUTOGRAD_BIT, META_BIT as _META_BIT",
    "from ember._core.device import CPU as _CPU, META as _META",
    "from ember.autograd.graph import (new_node as _new, next_sequence_nr as _next_seq, ANOMALY as _ANOMALY,",
    "                                  record_anomaly as _record_anomaly, leaf_edges as _leaf_edges,",
    "                                  META_CACHE as _META_CACHE, cpu_meta as _cpu_meta, PLAIN_CPU as _PLAIN_CPU,",
    "                                  HOOKS_ANYWHERE as _HOOKS_ANYWHERE)",
    "from ember.autograd._saved import RELEASED as _RELEASED, unpack_slot as _unpack_slot, unpack_output as _unpack_output",
    "from ember.autograd.graph import saved_attr as _saved_attr",
    "from ember._core.tensor_impl import VersionCounter as _VC",
    "from ember.autograd.forward_ad import _level as _FW_LEVEL",
    "from ember._core.tensor_impl import INFERENCE_VC as _INFERENCE_VC",
    "_getattr = _bi.getattr",
]


def emit(fns):
    entries = load(fns)
    helpers = formula_helpers()
    ops = generated_function_names(fns)
    top_level_ops = set(_module_all("_generated/functions.py", emit_functions(fns, ""))[0])
    kernels = {_ident(e.fn) for e in entries}
    kernels |= {_ident(ip) for e in entries for ip in [_inplace_of(e.fn, fns)] if ip is not None}
    for n, mod in sorted(helpers.items()):
        if n in ops or n in kernels:    # the generated module would bind both: one would silently win
            raise ValueError(f"formula helper {n!r} (formulas/{mod}.py) has the name of an op or of its "
                             "Autograd kernel; give it its own name")
    known = ops | set(dir(builtins)) | {"_aten"}
    explicit = {str(e.fn.func.name) for e in entries}
    class_names = Counter()
    reserved = {e.node for e in entries if e.node}
    used = set()
    registered = []     # (family, fn)
    files = {}
    families = []
    for e in entries:
        if e.family not in families:
            families.append(e.family)
    for family in families:
        w = Writer(class_names, reserved, used)
        for e in (x for x in entries if x.family == family):
            fn = e.fn
            if e.nondiff_outputs:
                emit_nondiff(w, fn)
                registered.append((family, fn))
                continue
            base = str(fn.func.name.name).rstrip("_")
            cls = w.class_name(base, e.node)
            uses, saved = emit_node(w, e, cls)
            inplace = any(a.is_write and a.name == "self" for a in e.all_args)   # self written (not only noise)
            emit_kernel(w, e, fn, cls, uses, saved, inplace)
            registered.append((family, fn))
            if not inplace:
                ip = _inplace_of(fn, fns)
                if ip is not None and str(ip.func.name) not in explicit:
                    ie = Entry({"name": str(ip.func), **{a: f for a, f in e.formulas.items()}, "result": None}, ip)
                    ie.jvp_of = _ident(fn) if e.result is not None else None
                    emit_kernel(w, ie, ip, cls, uses, saved, True)
                    registered.append((family, ip))
        body = "\n".join(w.lines).rstrip() + "\n"
        prelude = "\n".join(PRELUDE) + "\n"
        free = _free_names(prelude + body)
        wanted = {}
        for n in sorted(free):
            if n in helpers:
                wanted.setdefault(helpers[n], []).append(n)
            elif n not in known:
                raise ValueError(f"derivatives/{family}.yaml: a formula reads {n!r}, which is neither an op, an "
                                 "argument nor a helper in ember/autograd/formulas/*.py __all__")
        prelude_lines = []
        for ln in PRELUDE:
            if ln == FUNCTIONS_STAR:     # the bindings by name, in the star import's place (the same precedence)
                named = _read_from_functions(prelude + body, top_level_ops)
                ln = _wrap(f"from ember._generated.functions import ", named) if named else None
            if ln is not None:
                prelude_lines.append(ln)
        text = "\n".join([HEADER.format(family=family).rstrip(), *prelude_lines, *_imports(wanted),
                          "", "_aten = _ops_ns.aten", "", "", body])
        files[f"{GENERATED_PACKAGE}/{family}.py"] = text.rstrip() + "\n"

    files[f"{GENERATED_PACKAGE}/__init__.py"] = (
        '"""@generated by tools/codegen/gen_autograd.py: the Autograd kernels and Nodes, one module per '
        'native/derivatives/<family>.yaml. Do not edit."""\n')
    r = ['"""@generated by tools/codegen/gen_autograd.py from src/ember/native/derivatives/*.yaml. Do not edit."""',
         "from .._ops import lookup as _lookup, register_fallback as _register_fallback, clear_dispatch_caches as _clear",
         "from .._core.dispatch_keys import DispatchKey as _K",
         "",
         f"_M = 'ember._generated.{GENERATED_PACKAGE}.'",
         "_KERNELS = ("]
    for family, fn in registered:
        n = fn.func.name
        r.append(f"    ({str(n.name)!r}, {n.overload_name!r}, {family!r}, {_ident(fn)!r}),")
    r += [")",
          "",
          "",
          "def _fallback(op, below):",
          "    from ..autograd._kernel import autograd_fallback",
          "    return autograd_fallback(op, below)",
          "",
          "",
          "def register():",
          "    for name, overload, family, kernel in _KERNELS:",
          "        _lookup('aten', name, overload).kernels[_K.Autograd] = _M + family + ':' + kernel",
          "    _register_fallback(_K.Autograd, _fallback)",
          "    _clear()",
          "",
          "",
          "register()",
          ""]
    files["autograd_registrations.py"] = "\n".join(r)
    return files
