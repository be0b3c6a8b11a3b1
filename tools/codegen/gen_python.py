"""Emit the Python bindings: `_generated/functions.py` (ember.add, ...) and
`_generated/tensor_methods.py` (Tensor.add, Tensor.add_, ...) — torch's python_arg_parser + the
generated python_torch_functions.cpp, as plain Python defs.

Argument parsing is done by Python's own call binding: each overload becomes a `def` with the
overload's Python signature. A name with one overload type-checks every argument (raising torch's
TypeError "f(): argument 'x' (position n) must be T, not U") and calls its op directly; a name with
several gets a generated matcher per overload (type checks on its parameters, scored: 0 exact, +1 for
each number passed where a Tensor is expected) and calls the best match, raising TypeError that lists
the accepted signatures when none fits.

A Python number binds to a Tensor parameter only for the names in NUMBERS_AS_TENSORS (torch's
python_arg_parser allow-list: `a + 1` is add.Tensor with a wrapped number). Elsewhere a number picks
the Scalar overload of the same name that takes a number in that place, as torch's parser does after
the Tensor overload fails to bind: `x ** 2` is pow.Tensor_Scalar, `2 ** x` pow.Scalar, `x == 1`
eq.Scalar, `where(c, x, 0.)` where.ScalarOther. Such a Scalar "twin" gets no matcher of its own: the
Tensor overload's binding accepts the number and calls the twin's op.
"""
import keyword

from . import model as _model  # noqa: F401  (puts the schema parser on sys.path)
from _schema import BaseTy, BaseType, ListType, OptionalType, SchemaKind, parse_default


# torch/csrc/utils/python_arg_parser.cpp should_allow_numbers_as_tensors (torch._C._should_allow_numbers_as_tensors)
NUMBERS_AS_TENSORS = frozenset({
    "add", "add_", "sub", "sub_", "subtract", "subtract_", "mul", "mul_", "multiply", "multiply_",
    "div", "div_", "divide", "divide_", "true_divide", "true_divide_", "floor_divide", "floor_divide_",
    "copy", "copy_", "_conj", "_to_copy", "to",
})


def _base(t):
    return t.elem if isinstance(t, OptionalType) else t


def _is_tensor(t):
    return isinstance(_base(t), BaseType) and _base(t).name == BaseTy.Tensor


def _is_intlist(t):
    b = _base(t)
    return isinstance(b, ListType) and isinstance(b.elem, BaseType) and b.elem.name in (BaseTy.int, BaseTy.SymInt)


class Overload:
    """One Python-visible overload: its op, optional out op, and Python parameter list."""

    def __init__(self, fn, out_fn, method):
        self.fn = fn
        self.out_fn = out_fn
        self.method = method
        a = fn.func.arguments
        self.positional = [x for x in a.flat_positional]
        if method:
            self.positional = [x for x in self.positional if x.name != "self"]
        self.kwonly = [x for x in a.flat_kwarg_only]
        self.has_tensor_input = any(_is_tensor(x.type) for x in a.flat_non_out)
        self.factory = a.tensor_options is not None and (not self.has_tensor_input or fn.func.name.name.base.endswith("_like"))
        self.varargs = (len(self.positional) >= 1 and _is_intlist(self.positional[0].type)
                        and all(x.default is not None for x in self.positional[1:])
                        and (method or not self.has_tensor_input) and self.positional[0].default is None
                        and len(self.positional) == 1)
        self.out_names = [x.name for x in out_fn.func.arguments.out] if out_fn else []
        self.scalar_sets = []    # per shadowed Scalar twin: the Tensor params it takes a number for
        self.twins = []          # (those params, the twin Overload): a number there calls the twin's op
        self.numbers_anywhere = str(fn.func.name.name) in NUMBERS_AS_TENSORS
        self.sigs_var = None     # a lone overload with Scalar twins: the name of its signature listing

    @property
    def scalar_ok(self):
        """Tensor parameters that accept a Python number."""
        if self.numbers_anywhere:
            return {x.name for x in self.positional + self.kwonly if _is_tensor(x.type)} | {"self"}
        return set().union(*self.scalar_sets)

    def pyname(self, arg):
        if keyword.iskeyword(arg.name):
            return arg.name + "_"   # `from` (uniform_, random_) is spelled `from_` in Python
        return "input" if arg.name == "self" and not self.method else arg.name

    def signature(self, for_matcher=False):
        parts = []
        if self.method:
            parts.append("self")
        for i, x in enumerate(self.positional):
            if self.varargs and i == 0:
                parts.append("*_va")     # `zeros(2, 3)`, `zeros((2, 3))`; `zeros(size=(2, 3))` below
            else:
                parts.append(self.pyname(x) + _default(x))
        kw = [self.pyname(x) + _default(x) for x in self.kwonly]
        if self.varargs:
            kw.insert(0, self.positional[0].name + "=None")
        if self.out_fn:
            kw.append("out=None")
        if self.factory:
            kw.append("requires_grad=False")
        if kw and not self.varargs:
            parts.append("*")
        parts.extend(kw)
        return ", ".join(parts)

    def human(self):
        ps = []
        for x in self.positional:
            if x.name == "self":
                ps.append(f"{_human_type(x.type)} input")
                continue
            ps.append(f"{_human_type(x.type)} {x.name}" + _human_default(x))
        kw = [f"{_human_type(x.type)} {x.name}" + _human_default(x) for x in self.kwonly]
        if self.out_fn and not self.method:     # (torch's Tensor methods take no out=)
            kw.append(("tuple of Tensors" if len(self.out_names) > 1 or "[]" in str(self.out_fn.func.arguments.out[0].type)
                       else "Tensor") + " out = None")
        if kw:
            ps.append("*")
            ps.extend(kw)
        return "(" + ", ".join(ps) + ")"

    def defaults_check(self):
        """Python condition true when every keyword-only argument equals its schema default."""
        conds = []
        for x in self.fn.func.arguments.flat_kwarg_only:
            if x.default is None:
                return None
            v = _default(x)[1:]
            n = self.pyname(x)
            if v == "None":
                conds.append(f"{n} is None")
            elif v in ("True", "False"):
                conds.append(f"{n} is {v}")
            elif v.lstrip("-").isdigit():
                conds.append(f"{n}.__class__ is int and {n} == {v}")
            elif v[:1] == "'" and v[1:-1].isidentifier():
                # a string default (contiguous's memory_format, gelu's approximate): the default itself, not an
                # object comparing equal to it (a memory-format object takes the general call)
                conds.append(f"{n}.__class__ is str and {n} == {v}")
            else:
                return None
        return " and ".join(conds) if conds else None

    def call_args(self, op_fn, out=False, positional_only=False):
        a = op_fn.func.arguments
        pos = [("self" if x.name == "self" and self.method else self.pyname(x)) for x in a.flat_positional]
        if positional_only:
            return ", ".join(pos)
        kws = [f"{x.name}={self.pyname(x)}" for x in a.flat_kwarg_only]
        if out:
            if len(self.out_names) == 1:
                kws.append(f"{self.out_names[0]}=out")
            else:
                kws.extend(f"{n}=out[{i}]" for i, n in enumerate(self.out_names))
        return ", ".join(pos + kws)

    def _torch_name(self, x):
        return "input" if x.name == "self" and not self.method else x.name

    def arg_checks(self, kwonly=False):
        """Lines raising torch's TypeError for an argument of the wrong type (one overload only: with
        several, the matchers decide). Positional parameters come first; keyword-only ones are checked
        only off the fast path (the fast path already saw them at their defaults)."""
        name = str(self.fn.func.name.name)
        lines = []
        params = self.kwonly if kwonly else self.positional
        for i, x in enumerate(params):
            if self.varargs and not kwonly and i == 0:
                v = x.name
                lines.append(f"if not _is_intlist({v}):")
                lines.append(f"    raise _bad_varargs({name!r}, {v!r}, {v}, _va)")
                continue
            bad = _bad_cond(self.pyname(x), x.type, x.default, x.name in self.scalar_ok)
            if bad is None:
                continue
            cond, expected = bad
            pos = None if kwonly else i + 1
            if self.sigs_var:
                lines.append(f"if {cond}:")
                lines.append(f"    raise {self._twin_no_match(name)}")
                continue
            if expected == "tuple of Tensors":
                lines.append(f"if {cond}:")
                lines.append(f"    _bad_tensorlist({name!r}, {self._torch_name(x)!r}, {pos}, {self.pyname(x)})")
                continue
            lines.append(f"if {cond}:")
            lines.append(f"    raise _bad_arg({name!r}, {self._torch_name(x)!r}, {pos}, {expected!r}, {self.pyname(x)})")
        if not kwonly:
            lines += self._combination_check(name)
        return lines

    def _twin_no_match(self, name):
        """The error of a binding with Scalar twins (eq.Tensor / eq.Scalar): torch has a signature for each, so a
        bad argument fits the argument count of two and torch lists them ("received an invalid combination").
        The call's shape is rebuilt from the parameters: positional ones up to the last not at its default."""
        def dflt(x):
            return _default(x)[1:] if x.default is not None else "_NO_DEFAULT"
        pos = ", ".join(f"({self.pyname(x)}, {dflt(x)})" for x in self.positional)
        kw = [f"({x.name!r}, {self.pyname(x)}, {dflt(x)})" for x in self.kwonly]
        if self.out_fn:
            kw.append("('out', out, None)")
        return f"_no_match_named({name!r}, ({pos},), ({', '.join(kw)}{',' if kw else ''}), {self.sigs_var})"

    def _combination_check(self, name):
        """Scalar twins pow.Tensor_Scalar and pow.Scalar take a number for `exponent` or for `self`,
        never both: reject numbers for every such parameter at once when no twin takes them all."""
        if self.numbers_anywhere or len(self.scalar_sets) < 2:
            return []
        union = set().union(*self.scalar_sets)
        if frozenset(union) in self.scalar_sets:
            return []
        vs = [self.pyname(x) for x in self.positional + self.kwonly if x.name in union]
        cond = " and ".join(f"not isinstance({v}, TensorImpl)" for v in vs)
        return [f"if {cond}:",
                f"    raise TypeError({name + '() received an invalid combination of arguments: at most one of ' + ', '.join(vs) + ' may be a number'!r})"]

    def twin_dispatch(self, rtvar):
        """Lines calling a Scalar twin's op when Python numbers stand where it takes Scalars (torch's
        parser tries the Tensor overload first; a number does not fit a Tensor parameter outside the
        NUMBERS_AS_TENSORS names, so the twin binds: `x ** 2` is pow.Tensor_Scalar, `x == 1` eq.Scalar).
        The twin taking the most numbers is tried first (where.Scalar before where.ScalarSelf)."""
        lines = []
        wrap = _wrap_call(rtvar)
        for params, twin in sorted(self.twins, key=lambda t: -len(t[0])):
            names = [self.pyname(x) for x in self.positional + self.kwonly if x.name in params]
            cond = " and ".join(f"not isinstance({v}, TensorImpl)" for v in names)
            lines.append(f"if {cond}:")
            call = f"{_opvar(twin.fn)}({self.call_args(twin.fn)})"
            if self.out_fn and twin.out_fn:
                lines.append("    if out is not None:")
                lines.append(f"        return {wrap(_opvar(twin.out_fn) + '(' + self.call_args(twin.out_fn, out=True) + ')')}")
                lines.append(f"    return {wrap(call)}")
            elif self.out_fn:
                lines.append("    if out is None:")   # no out= twin: out= takes the number wrapped
                lines.append(f"        return {wrap(call)}")
            else:
                lines.append(f"    return {wrap(call)}")
        return lines

    def none_defaults(self):
        """Lines replacing None by the empty list for a parameter whose schema default is `[]` (amax's
        `int[1] dim=[]`): torch's Python signature spells that C++ default `{}` as None, so its parser
        takes None there and binds the default (`torch.amax(x, dim=None)` reduces over every dim)."""
        lines = []
        for x in self.positional + self.kwonly:
            if x.default == "[]" and not isinstance(x.type, OptionalType):
                v = self.pyname(x)
                lines.append(f"if {v} is None:")
                lines.append(f"    {v} = ()")
        return lines

    def varargs_prelude(self, matcher=False):
        """Lines binding a `*size` parameter as torch's parser does: the sizes given positionally (`zeros(2, 3)`,
        one sequence `zeros((2, 3))`) or by keyword (`zeros(size=(2, 3))`), never both; none at all is torch's
        "missing 1 required positional arguments" (a matcher answers None: no fit)."""
        v = self.positional[0].name
        name = str(self.fn.func.name.name)
        missing = "return None" if matcher else (
            f"raise TypeError('{name}() missing 1 required positional arguments: \"{v}\"')")
        twice = "return None" if matcher else f"raise TypeError(\"{name}() got multiple values for argument '{v}'\")"
        return [f"if {v} is None:",
                "    if not _va:",
                f"        {missing}",
                "elif _va:",
                f"    {twice}",
                "else:",
                f"    _va = _KwSizes(({v},))",
                f"{v} = _va",
                f"if len({v}) == 1 and not isinstance({v}[0], (int, TensorImpl)) and not _is_int({v}[0]):",
                f"    {v} = {v}[0]"]

    def body(self, opvar, outvar, rtvar, indent="    ", check=False):
        lines = []
        if self.varargs:
            lines += self.varargs_prelude()
        lines += self.none_defaults()
        if check:
            lines += self.arg_checks()
        lines += self.twin_dispatch(rtvar)
        call = f"{opvar}({self.call_args(self.fn)})"
        wrap = _wrap_call(rtvar)
        fast = self.defaults_check()
        direct = self.direct_dispatch(opvar, wrap)
        if fast and not self.factory:
            # keyword-only arguments left at their defaults are not passed: the op sees only the
            # positional arguments (a cheaper call, and what a mode logging the call would show)
            lines.append(f"if out is None and {fast}:" if self.out_fn else f"if {fast}:")
            if direct:
                lines += ["    " + ln for ln in direct]
            else:
                lines.append(f"    return {wrap(opvar + '(' + self.call_args(self.fn, positional_only=True) + ')')}")
        if check:
            lines += self.arg_checks(kwonly=True)
        if self.out_fn:
            lines.append("if out is not None:")
            list_out = len(self.out_fn.func.arguments.out) == 1 and "[]" in str(self.out_fn.func.arguments.out[0].type)
            if check and len(self.out_names) == 1 and not self.numbers_anywhere and list_out:
                lines.append("    if not (isinstance(out, (list, tuple)) and not [o for o in out if not isinstance(o, TensorImpl)]):")
                lines.append(f"        raise _bad_arg({str(self.fn.func.name.name)!r}, 'out', None, 'tuple of Tensors', "
                             "out)")
            elif check and len(self.out_names) == 1 and not self.numbers_anywhere:
                lines.append("    if not isinstance(out, TensorImpl):")
                lines.append(f"        raise _bad_arg({str(self.fn.func.name.name)!r}, 'out', None, 'Tensor', out)")
            outcall = f"{outvar}({self.call_args(self.out_fn, out=True)})"
            lines.append(f"    return {wrap(outcall)}")
        if self.factory:
            lines.append(f"r = {call}")
            lines.append("if requires_grad:")
            lines.append("    r._factory_requires_grad()")     # torch's factory refusal message
            lines.append("return r")
        elif direct and not self.fn.func.arguments.flat_kwarg_only:
            lines += direct           # no keyword-only arguments (out= went above): the call is positional
        else:
            lines.append(f"return {wrap(call)}")
        return "\n".join(indent + ln for ln in lines)

    def direct_dispatch(self, opvar, wrap):
        """Lines calling the op's kernel for a positional-only call straight from the op's dispatch cache
        (the OpOverload.__call__ work inlined for this schema: the key set is the OR of the arguments that
        can be tensors; see _ops.py), or None where that call is not one (a list parameter, whose tensors
        the dispatcher would have to look through). Anything but a plain key set in the cache, a thread
        with dispatch keys included or excluded (modes, autocast, fake tensors: tls.KEYS_ACTIVE), or no
        tensor argument takes the OpOverload call, so every op is still dispatched and seen."""
        if self.factory:
            return None
        if self.varargs:
            return self.varargs_dispatch(opvar, wrap)
        args = []
        guards = []
        for x in self.fn.func.arguments.flat_positional:
            b = _base(x.type)
            if _is_intlist(x.type):
                # an int list given as one int (`x.mean(-1)`, `x.sum(0)`) or None (`x.norm()`) holds no tensor:
                # the key set is the other arguments'; a list or tuple (which could hold a 0-dim tensor) takes
                # the OpOverload call
                v = self.pyname(x)
                guards.append(f" and ({v} is None or {v}.__class__ is int)" if isinstance(x.type, OptionalType)
                              else f" and {v}.__class__ is int")
                continue
            if (isinstance(x.type, ListType) and isinstance(x.type.elem, BaseType) and x.type.elem.name == BaseTy.Tensor
                    and not any(s == "list" for _, s in args)):
                # a Tensor[] (cat, stack): its checks let only a list or tuple of tensors through; the key set
                # is theirs, looked through as OpOverload.__call__ does (one frame less per call)
                args.append((self.pyname(x), "list"))
                continue
            if not isinstance(b, BaseType):
                return None
            v = "self" if x.name == "self" and self.method else self.pyname(x)
            n = b.name
            if n == BaseTy.Tensor:
                # the argument checks (or the matcher) let only a tensor through a non-optional Tensor parameter
                # that takes no number; a method's `self` is not checked
                sure = not (self.method and v == "self") and not (
                    isinstance(x.type, OptionalType) or x.default == "None" or x.name in self.scalar_ok)
                args.append((v, sure))
            elif n in (BaseTy.int, BaseTy.SymInt, BaseTy.float, BaseTy.Scalar):
                args.append((v, False))      # a 0-dim tensor binds here too
            elif n not in (BaseTy.bool, BaseTy.str, BaseTy.ScalarType, BaseTy.Layout, BaseTy.Device,
                           BaseTy.MemoryFormat):
                return None
        if not args:
            return None
        lines = []
        for i, (v, sure) in enumerate(args):
            if sure == "list":
                lines += (["_ks = 0"] if i == 0 else []) + [f"for _t in {v}:", "    if _t.__class__ in _TENSOR_TYPES:",
                                                            "        _ks |= _t._ks"]
            elif sure:
                lines.append(f"_ks = {v}._ks" if i == 0 else f"_ks |= {v}._ks")
            elif i == 0:
                lines.append(f"_ks = {v}._ks if {v}.__class__ in _TENSOR_TYPES else 0")
            else:
                # (an int `|=` costs more than a compare: two tensors of one key set skip it)
                lines.append(f"if {v}.__class__ in _TENSOR_TYPES and {v}._ks != _ks:")
                lines.append(f"    _ks |= {v}._ks")
        call_args = self.call_args(self.fn, positional_only=True)
        cache = "_c" + opvar[3:]
        # (GRAD_OFF first: while grad mode is on everywhere, the Autograd bit is not even tested)
        lines += ["if _ks & _BACKEND_BITS and not _KEYS_ACTIVE[0]" + "".join(guards) + ":",
                  f"    _k = {cache}.get(_ks & ~_tls._exclude if _GRAD_OFF and _ks & _AUTOGRAD_BIT else _ks)",
                  "    if _k is not None:",
                  f"        return {wrap('_k(' + call_args + ')')}",
                  f"return {wrap(opvar + '(' + call_args + ')')}"]
        return lines

    def varargs_dispatch(self, opvar, wrap):
        """direct_dispatch for a method taking `*size` after self (reshape, expand, permute, repeat): with only
        Python ints in the sizes no tensor hides in the list, so the key set is self's."""
        if not (self.method and len(self.fn.func.arguments.flat_positional) == 2):
            return None
        call_args = self.call_args(self.fn, positional_only=True)
        v = self.positional[0].name
        cache = "_c" + opvar[3:]
        return [f"if {v}.__class__ is tuple or {v}.__class__ is list:     # (not one SymInt)",
                f"    for _a in {v}:",
                "        if _a.__class__ is not int:",
                "            break",
                "    else:",
                "        _ks = self._ks if self.__class__ in _TENSOR_TYPES else 0",
                "        if _ks & _BACKEND_BITS and not _KEYS_ACTIVE[0]:",
                f"            _k = {cache}.get(_ks & ~_tls._exclude if _GRAD_OFF and _ks & _AUTOGRAD_BIT else _ks)",
                "            if _k is not None:",
                f"                return {wrap('_k(' + call_args + ')')}",
                f"return {wrap(opvar + '(' + call_args + ')')}"]

    def arity(self):
        """(min_args, max_args) of torch's FunctionSignature for this overload: the parameters without a
        default, and all of them (out= and a factory's requires_grad included; `*size` is one parameter)."""
        params = self.positional + self.kwonly
        lo = sum(1 for x in params if x.default is None)     # `*size` too: torch's parser requires it
        hi = len(params) + (1 if self.out_fn else 0) + (1 if self.factory else 0)
        return lo, hi

    def error_body(self, indent="    "):
        """Lines raising the TypeError a lone overload's binding raises for these arguments (torch's
        print_error parses the one plausible signature again with raise_exception=true)."""
        lines = []
        if self.varargs:
            lines += self.varargs_prelude()
        lines += self.none_defaults() + self._out_twin_checks(raise_error=True) + self.arg_checks() \
            + self.arg_checks(kwonly=True)
        if self.out_fn and len(self.out_names) == 1 and not self.numbers_anywhere:
            list_out = "[]" in str(self.out_fn.func.arguments.out[0].type)
            name = str(self.fn.func.name.name)
            lines.append("if out is not None and " + (
                "not (isinstance(out, (list, tuple)) and not [o for o in out if not isinstance(o, TensorImpl)]):"
                if list_out else "not isinstance(out, TensorImpl):"))
            lines.append(f"    raise _bad_arg({name!r}, 'out', None, {'tuple of Tensors' if list_out else 'Tensor'!r}, out)")
        lines.append("return None")
        return "\n".join(indent + ln for ln in lines)

    def _out_twin_checks(self, raise_error=False):
        """With out= given only the Tensor overload's out form applies (where.ScalarOther has none): a number
        where a Scalar twin would take it is then torch's "must be Tensor, not float" (ops that take numbers
        as tensors anywhere, add/mul/..., excepted)."""
        if not (self.out_fn and self.twins and len(self.out_names) == 1) or self.numbers_anywhere:
            return []
        name = str(self.fn.func.name.name)
        with_out = set().union(*(set(params) for params, t in self.twins if t.out_fn is not None))
        lines = []
        for i, x in enumerate(self.positional):
            if x.name in self.scalar_ok and x.name not in with_out and _is_tensor(x.type):
                v = self.pyname(x)
                lines.append(f"if out is not None and {v}.__class__ not in _TENSOR_TYPES:")
                lines.append(f"    raise _bad_arg({name!r}, {self._torch_name(x)!r}, {i + 1}, 'Tensor', {v})"
                             if raise_error else "    return None")
        return lines

    def matcher_body(self, indent="    "):
        checks = []
        for x in self.positional + self.kwonly:
            if self.varargs and x is self.positional[0]:
                v = x.name
                checks.append("\n".join(self.varargs_prelude(matcher=True)))
                checks.append(f"if not _is_intlist({v}):\n{indent}    return None")
                continue
            c = _check(self.pyname(x), x.type, x.default, x.name in self.scalar_ok)
            if c:
                checks.append(c)
        lines = self.none_defaults() + self._out_twin_checks() + ["s = 0"]
        for c in checks:
            lines.extend(c.split("\n") if "\n" in c else [c])
        lines.append("return s")
        return "\n".join(indent + ln for ln in lines)


def _check(v, t, default, numbers_ok):
    """Code (possibly multi-line) that returns None from the matcher when `v` can't be type `t`."""
    opt = isinstance(t, OptionalType) or default == "None"
    b = _base(t)
    pre = f"{v} is not None and " if opt else ""
    if isinstance(b, BaseType):
        n = b.name
        if n == BaseTy.Tensor:
            if not numbers_ok:
                return f"if {pre}not isinstance({v}, TensorImpl):\n    return None"
            return (f"if {pre}not isinstance({v}, TensorImpl):\n"
                    f"    if not _is_num({v}):\n        return None\n    s += 1")
        if n in (BaseTy.int, BaseTy.SymInt):
            return f"if {pre}not _is_int({v}):\n    return None"
        if n == BaseTy.float:
            return f"if {pre}not _is_real({v}):\n    return None"
        if n == BaseTy.bool:
            return f"if {pre}not isinstance({v}, bool):\n    return None"
        if n == BaseTy.Scalar:
            return (f"if {pre}not _is_num({v}):\n"
                    f"    if not (isinstance({v}, TensorImpl) and {v}.numel() == 1):\n        return None\n    s += 1")
        if n == BaseTy.ScalarType:
            if default not in (None, "None"):   # a named default (dtype=long) arrives as its name
                pre += f"{v} != {default!r} and "
            return f"if {pre}not _is_dtype({v}):\n    return None"
        if n == BaseTy.str:
            return f"if {pre}not isinstance({v}, str):\n    return None"
        return None
    if isinstance(b, ListType):
        e = b.elem
        if _is_tensor(e):
            return f"if {pre}not isinstance({v}, (list, tuple)):\n    return None"
        if isinstance(e, BaseType) and e.name in (BaseTy.int, BaseTy.SymInt):
            return f"if {pre}not {_intlist_test(b)}({v}):\n    return None"
    return None


def _intlist_test(b):
    """torch takes a lone int for a sized list (int[2] stride=2) but only a list or tuple for int[]."""
    return "_is_intlist" if b.size else "_is_intseq"


def _bad_cond(v, t, default, numbers_ok):
    """(condition true when `v` is not a valid `t`, torch's name of the expected type), or None when
    the type is not checked here (Generator, Device, Layout, MemoryFormat, float lists...).
    Exact-class tests come first so a well-typed argument costs one comparison (for a Tensor, one set
    lookup: every TensorImpl subclass is in TENSOR_TYPES)."""
    opt = isinstance(t, OptionalType) or default == "None"
    b = _base(t)
    pre = f"{v} is not None and " if opt else ""
    if isinstance(b, BaseType):
        n = b.name
        if n == BaseTy.Tensor:
            c = f"{pre}{v}.__class__ not in _TENSOR_TYPES"
            return (c + f" and {v}.__class__ is not float and {v}.__class__ is not int and not _is_num({v})"
                    if numbers_ok else c), "Tensor"
        if n in (BaseTy.int, BaseTy.SymInt):
            return f"{pre}{v}.__class__ is not int and not _is_int({v})", "int"
        if n == BaseTy.float:
            return f"{pre}{v}.__class__ is not float and not _is_double({v})", "float"
        if n == BaseTy.bool:
            return f"{pre}{v}.__class__ is not bool", "bool"
        if n == BaseTy.Scalar:
            return f"{pre}{v}.__class__ is not int and {v}.__class__ is not float and not _is_scalar({v})", "Number"
        if n == BaseTy.ScalarType:
            if default not in (None, "None"):   # a named default (dtype=long) arrives as its name
                pre += f"{v} != {default!r} and "
            return f"{pre}not _is_dtype({v})", "ember.dtype"
        if n == BaseTy.str:
            return f"{pre}{v}.__class__ is not str", "str"
        return None
    if isinstance(b, ListType):
        e = b.elem
        if _is_tensor(e) and not isinstance(e, OptionalType):
            return f"{pre}not _is_tensorlist({v})", "tuple of Tensors"
        if isinstance(e, BaseType) and e.name in (BaseTy.int, BaseTy.SymInt):
            return f"{pre}not {_intlist_test(b)}({v})", "tuple of ints"
    return None


_LIST_NAMES = {"int": "tuple of ints", "SymInt": "tuple of ints", "Tensor": "tuple of Tensors",
               "float": "tuple of floats", "bool": "tuple of bools"}
_TYPE_NAMES = {"Scalar": "Number", "SymInt": "int", "ScalarType": "ember.dtype", "Generator": "ember.Generator",
               "Device": "ember.device", "Layout": "ember.layout", "MemoryFormat": "ember.memory_format"}


def _human_type(t):
    """A parameter type as torch's signature listing prints it (python_arg_parser's type names: no `?`,
    Number for Scalar, "tuple of ints" for int lists)."""
    b = _base(t)
    if isinstance(b, ListType):
        return _LIST_NAMES.get(str(_base(b.elem)), str(t))
    return _TYPE_NAMES.get(str(b), str(b))


def _human_default(x):
    """A default as torch's signature listing prints it: the C++ `{}` of a list (`dim=[]`) is None there."""
    if x.default is None:
        return ""
    return " = None" if x.default == "[]" else f" = {x.default}"


def _default(arg):
    if arg.default is None:
        return ""
    if str(arg.type) == "int" and arg.default in ("Mean", "Sum"):
        # torch's Python arg parser reads an int default with atol(): at::Reduction::Mean reads as 0, so
        # torch.kl_div(x, y) and torch._C._nn.mse_loss(x, y) reduce nothing (reduction=None) by default
        return "=0"
    try:
        v = parse_default(arg.default, arg.type)
    except ValueError:
        v = parse_default(arg.default, "Scalar") if arg.default.lstrip("-").isdigit() else arg.default
    if isinstance(v, list):
        v = tuple(v)
    return "=" + repr(v)


def python_groups(fns, module=""):
    """Map (name, is_method) -> [Overload, ...] in schema-file order. Functions come from the entries of
    `module` (torch's python_module: "" for ember.<name>, "nn" for ember._nn.<name>), methods from all."""
    by_sig = {}
    for f in fns:
        if f.func.kind() == SchemaKind.out:
            by_sig.setdefault(str(f.func.signature()), f)
    groups = {}
    for f in fns:
        if f.python == "hidden" or f.func.kind() == SchemaKind.out:
            continue
        if any("Dimname" in str(x.type) for x in f.func.arguments.flat_all):
            continue   # torch 2.13's Python bindings have no named-tensor overloads
        out_fn = by_sig.get(str(f.func.signature())) if f.func.kind() == SchemaKind.functional else None
        name = str(f.func.name.name)
        for variant in ("function", "method"):
            if variant not in f.variants or variant == "function" and f.python_module != module:
                continue
            ov = Overload(f, out_fn, method=variant == "method")
            lst = groups.setdefault((name, variant == "method"), [])
            shadow = next((o for o in lst if _shadows(o, ov)), None)
            if shadow is not None:
                params = frozenset(
                    x.name for x, y in zip(shadow.positional + shadow.kwonly, ov.positional + ov.kwonly)
                    if _is_tensor(x.type) and not _is_tensor(y.type))
                shadow.scalar_sets.append(params)
                if not shadow.numbers_anywhere:
                    shadow.twins.append((params, ov))
                continue   # a Scalar twin of an earlier Tensor overload: its binding calls the twin for numbers
            lst.append(ov)
    return groups


def _shadows(earlier, later):
    """True when `later` has the same parameters as `earlier` and differs only where `earlier`
    takes a Tensor and `later` a Scalar: `earlier` then accepts every call `later` would."""
    a = earlier.positional + earlier.kwonly
    b = later.positional + later.kwonly
    if [(x.name, x.default) for x in a] != [(x.name, x.default) for x in b]:
        return False
    if len(earlier.positional) != len(later.positional):
        return False   # rsub.Scalar takes alpha positionally where rsub.Tensor has it keyword-only
    for x, y in zip(a, b):
        if str(x.type) != str(y.type) and not (_is_tensor(x.type) and str(_base(y.type)) == "Scalar"):
            return False
    return True


def _opvar(f):
    n = f.func.name
    return f"_op_{n.name}_{n.overload_name or 'default'}".replace(".", "_")


def _rt_name(f):
    rets = f.func.returns
    if len(rets) > 1 and all(r.name for r in rets):
        return f"_rt_{f.func.name.name.base}", tuple(r.name for r in rets)
    return None, None


HEADER = '"""@generated by tools/codegen/gen.py from src/ember/native/*.yaml. Do not edit."""\n'


def _ops_imports(groups):
    used = {}
    for ovs in groups.values():
        for ov in ovs:
            for f in (ov.fn, ov.out_fn, *(g for _, t in ov.twins for g in (t.fn, t.out_fn))):
                if f is not None:
                    used[_opvar(f)] = f
    lines = []
    for var in sorted(used):
        f = used[var]
        n = f.func.name
        ov = n.overload_name or "default"
        lines.append(f"{var}, _c{var[3:]} = _lazy(_G, {var!r}, 'aten', {str(n.name)!r}, {ov!r})")
    return lines


def _wrap_call(rtvar):
    """How a binding wraps an op call's code `c`: a named tuple takes the results spread, `_as_tuple` the list."""
    if rtvar == "_as_tuple":
        return lambda c: f"_as_tuple({c})"
    return (lambda c: f"{rtvar}(*{c})") if rtvar else (lambda c: c)


def _result_wrapper(f):
    """The name the binding passes the op's results to: the named tuple of a multi-output op, `_as_tuple` for a
    `Tensor[]` result (torch's bindings return a tuple for a tensor list), else None."""
    rt, _ = _rt_name(f)
    if rt is None and len(f.func.returns) == 1 and str(f.func.returns[0].type) == "Tensor[]":
        return "_as_tuple"
    return rt


def _torch_type_str(t):
    """torchgen's argument_type_str: the C++-ish type name its Python signatures are sorted by."""
    if isinstance(t, OptionalType):
        return _torch_type_str(t.elem) + "?"
    if isinstance(t, ListType):
        e, size = str(t.elem), "" if t.size is None else f"[{t.size}]"
        names = {"bool": f"::std::array<bool,{t.size}>", "int": "IntArrayRef" + size, "SymInt": "SymIntArrayRef" + size,
                 "Tensor": "TensorList" + size, "Scalar": "ScalarList" + size,
                 "Tensor?": "c10::List<::std::optional<Tensor>>", "Dimname": "DimnameList" + size}
        return names.get(e, f"ArrayRef<{_torch_type_str(t.elem)}>")
    n = str(t)
    return {"int": "int64_t", "float": "double", "str": "c10::string_view"}.get(n, n)


def _torch_overload_order(ovs):
    """The order torch lists a binding's signatures in (torchgen's sort_overloads): sorted by signature text, then
    a topological sort putting an overload whose parameter types are each the same or "smaller" (Scalar below
    Tensor, int[] below int, ...) after the one it is smaller than. Display only: binding tries exact fits first."""
    def arg_str(x, ov):
        name = "input" if x.name == "self" and str(x.type) in ("Tensor", "Scalar") and not ov.method else x.name
        d = "" if x.default is None else "=" + {"[]": "None"}.get(x.default, x.default)
        return f"{_torch_type_str(x.type)} {name}{d}"

    def sig_str(ov):
        a = ov.fn.func.arguments
        pos = [x for x in a.flat_positional if not (ov.method and x.name == "self")]
        kw = list(a.flat_kwarg_only) + (list(ov.out_fn.func.arguments.out) if ov.out_fn else [])
        formals = [arg_str(x, ov) for x in pos] + (["*"] if kw else []) + [arg_str(x, ov) for x in kw]
        return f"{ov.fn.func.name.name.base}({', '.join(formals)})"

    def types(ov):
        a = ov.fn.func.arguments
        return [str(x.type) for x in a.flat_positional if not (ov.method and x.name == "self")] + [
            str(x.type) for x in a.flat_kwarg_only]

    def arg_smaller(t1, t2):
        return (t1 == "Scalar" and t2 == "Tensor" or t1 == "Scalar?" and t2 == "Tensor?"
                or "Dimname" in t1 and "Dimname" not in t2 or t1 == "int[]" and t2 in ("int", "int?")
                or t1 == "Tensor[]" and "[]" in t2 or t1 == "SymInt[]" and t2 == "int[]"
                or t1 in ("SymInt", "int") and t2 == "Tensor")

    def smaller(o1, o2):
        a1, a2 = types(o1), types(o2)
        if len(a1) != len(a2):
            return False
        return all(x == y or arg_smaller(x, y) for x, y in zip(a1, a2)) and a1 != a2

    order = sorted(range(len(ovs)), key=lambda i: sig_str(ovs[i]))
    larger = {}
    for i1 in order:
        for i2 in order:
            if smaller(ovs[i1], ovs[i2]):
                larger.setdefault(i1, set()).add(i2)
    if not larger:
        return order
    out = [i for i in order if i not in larger]
    for idx in range(len(order)):
        i = out[idx]
        for j in sorted(larger, key=order.index):
            if j in larger:
                larger[j].discard(i)
                if not larger[j]:
                    del larger[j]
                    out.append(j)
    return out


def _tf_relevant(ov):
    """The Python names of an overload's parameters where torch's parser looks for `__torch_function__` overrides:
    Tensor, Tensor? and Tensor[] parameters (self of a method too), and out=."""
    names = ["self"] if ov.method else []
    for x in ov.positional + ov.kwonly:
        b = _base(x.type)
        if _is_tensor(x.type) or isinstance(b, ListType) and _is_tensor(b.elem):
            names.append(ov.pyname(x))
    if ov.out_fn:
        names.append("out")
    return tuple(names)


def _tf_prologue(call, plain=None):
    """The protocol's check at the top of a binding (see ember/_core/torch_function.py): one read of the module
    global `_TF` (kept by `_tf_register(globals())`) while no tensor subclass takes part in it and no mode is
    pushed. `plain`: the inline test that no argument can override (then, with no mode pushed, `call` is skipped:
    a subclass defined somewhere costs plain-tensor calls a few class reads, not locals() and the scan)."""
    if plain is not None:
        return [f"    if _TF and (_TFM or {plain}):",
                f"        _r = {call}",
                "        if _r is not _NOT_HANDLED:",
                "            return _r",
                "    try:"]
    return ["    if _TF:",
            f"        _r = {call}",
            "        if _r is not _NOT_HANDLED:",
            "            return _r",
            "    try:"]


def _tf_epilogue(call):
    """A TypeError from the argument checks may be an object with `__torch_function__` that is not a tensor: the
    override torch would have called (checked only then; a `try` costs nothing until something raises)."""
    return ["    except TypeError:",
            f"        _r = {call}",
            "        if _r is _NOT_HANDLED:",
            "            raise",
            "        return _r"]


def _emit_group(pyname, defname, ovs, lines, method, prefix="ember"):
    display = f"{prefix}.Tensor.{pyname}" if method else f"{prefix}.{pyname}"
    if len(ovs) == 1:
        ov = ovs[0]
        rt = _result_wrapper(ov.fn)
        if ov.twins:
            ov.sigs_var = f"_{defname}_sigs"
            lines.append(f"{ov.sigs_var} = {(ov.human(),) + tuple(t.human() for _, t in ov.twins)!r}")
        lines.append(f"def {defname}({ov.signature()}):")
        rel = _tf_relevant(ov)
        # the function itself, which a parameter of the same name hides (`pad(input, pad, ...)`)
        params = {ov.pyname(x) for x in ov.positional + ov.kwonly} | {"out", "requires_grad"}
        fnref = f"_G[{defname!r}]" if defname in params else defname
        # (no Tensor parameter: only a mode can take the call; more than four: the full check)
        plain = "False" if not rel else " or ".join(f"{n}.__class__ not in _TFP" for n in rel) if len(rel) <= 4 \
            else None
        lines.extend(_tf_prologue(f"_tf_bound({fnref}, locals(), {rel!r}, {display!r})", plain))
        lines.append(ov.body(_opvar(ov.fn), _opvar(ov.out_fn) if ov.out_fn else None, rt, indent="        ",
                             check=True))
        lines.extend(_tf_epilogue(f"_tf_duck_bound({fnref}, locals(), {rel!r}, {display!r})"))
        lines.append("")
        return
    entries = []
    for i, ov in enumerate(ovs):
        rt = _result_wrapper(ov.fn)
        b, c = f"_{defname}_b{i}", f"_{defname}_c{i}"
        lines.append(f"def {c}({ov.signature()}):")
        lines.append(ov.matcher_body())
        lines.append("")
        lines.append(f"def {b}({ov.signature()}):")
        lines.append(ov.body(_opvar(ov.fn), _opvar(ov.out_fn) if ov.out_fn else None, rt))
        lines.append("")
        # the most positional arguments the overload binds (a `*size` one: any number): the loop below skips an
        # overload a call gives more, whose matcher would raise TypeError (~1 us each: `x.mean(-1)` tried
        # `mean(*, dtype)` first)
        most = 1 << 20 if ov.varargs else len(ov.positional) + (1 if ov.method else 0)
        entries.append(f"({c}, {b}, {most})")
    errs = []
    for i, ov in enumerate(ovs):
        e = f"_{defname}_e{i}"
        lines.append(f"def {e}({ov.signature()}):")
        lines.append(ov.error_body())
        lines.append("")
        errs.append(f"({ov.arity()[0]}, {ov.arity()[1]}, {e})")
        # torch has a signature per twin, taking out= only if the twin has an out form (where.ScalarOther has none)
        errs += [f"({t.arity()[0]}, {t.arity()[1]}, None)" for _, t in ov.twins]
    sigs = tuple(ovs[i].human() for i in _torch_overload_order(ovs))
    lines.append(f"_{defname}_errs = ({', '.join(errs)},)")
    lines.append(f"_{defname}_ovs = ({', '.join(entries)},)")
    lines.append(f"_{defname}_sigs = {sigs!r}")
    lines.append("")
    if method:
        # a method's self is its own positional-only parameter (`_NO_DEFAULT` when the call has no positional
        # argument, `ember.Tensor.view()`): the fast paths below read it and the rest of the positional
        # arguments without slicing a packed tuple; the general path packs them again as `args`
        lines.append(f"def {defname}(self=_NO_DEFAULT, /, *_va, **kwargs):")
        allargs = "_va if self is _NO_DEFAULT else (self, *_va)"
    else:
        lines.append(f"def {defname}(*args, **kwargs):")
        allargs = "args"
    plain = ("self.__class__ not in _TFP or not _tf_plain(_va, kwargs)" if method
             else "not _tf_plain(args, kwargs)")
    lines.extend(_tf_prologue(f"_tf_varargs({defname}, {allargs}, kwargs, {display!r})", plain))
    body_start = len(lines)
    # the first overload an argument-less call can bind (every parameter defaulted, or a `*size` one)
    bare = next((i for i, ov in enumerate(ovs) if all(x.default is not None or (ov.varargs and x is ov.positional[0])
                                                      for x in ov.positional + ov.kwonly)), None)
    if method and bare is not None and not ovs[bare].varargs:
        # `x.sum()`: a method call with no argument binds the first overload taking none (the loop below
        # would reach it with an exact fit: an argument-less call raises TypeError in the matchers before it)
        lines.append("    if not _va and not kwargs and self is not _NO_DEFAULT:")
        ovb = ovs[bare]
        if (len(ovb.fn.func.arguments.flat_positional) == 1 and _result_wrapper(ovb.fn) is None
                and ovb.direct_dispatch(_opvar(ovb.fn), lambda c: c) is not None):
            # `x.sum()`: self is the only positional argument of that overload, so its kernel takes self alone
            # (what that overload's body would call, one frame further down)
            lines += ["        if self.__class__ in _TENSOR_TYPES and not _KEYS_ACTIVE[0]:",
                      "            _ks = self._ks",
                      "            if _ks & _BACKEND_BITS:",
                      f"                _k = _c{_opvar(ovb.fn)[3:]}.get(_ks & ~_tls._exclude if _GRAD_OFF and "
                      "_ks & _AUTOGRAD_BIT else _ks)",
                      "                if _k is not None:",
                      "                    return _k(self)"]
        lines.append(f"        return _{defname}_b{bare}(self)")
    v0 = ovs[0]
    if (method and v0.varargs and not v0.factory and len(v0.fn.func.arguments.flat_positional) == 2
            and all(x.default is not None for x in v0.kwonly) and not v0.out_fn):
        # `x.view(2, 3)`: ints after self bind the first overload's `*size` exactly (the loop below would call it
        # first), and with ints only no tensor hides in the list: its op's kernel straight from the dispatch cache
        # (the key set of self; see Overload.direct_dispatch)
        op0 = _opvar(v0.fn)
        lines += ["    if _va and not kwargs:",
                  "        for _a in _va:",
                  "            if _a.__class__ is not int:",
                  "                break",
                  "        else:",
                  "            if self.__class__ in _TENSOR_TYPES and not _KEYS_ACTIVE[0]:",
                  "                _ks = self._ks",
                  f"                _k = _c{op0[3:]}.get(_ks & ~_tls._exclude if _GRAD_OFF and _ks & _AUTOGRAD_BIT else _ks)",
                  "                if _k is not None:",
                  "                    return _k(self, _va)",
                  f"            return _{defname}_b0(self, *_va)"]
    if method:
        lines.append("    args = _va if self is _NO_DEFAULT else (self, *_va)")
    lines.append("    best = None")
    lines.append("    _na = len(args)")
    lines.append(f"    for c, b, _most in _{defname}_ovs:")
    lines.append("        if _na > _most:")
    lines.append("            continue")
    lines.append("        try:")
    lines.append("            s = c(*args, **kwargs)")
    lines.append("        except TypeError:")
    lines.append("            continue")
    lines.append("        if s == 0:")
    lines.append("            return b(*args, **kwargs)")
    lines.append("        if s is not None and best is None:")
    lines.append("            best = b")
    lines.append("    if best is not None:")
    lines.append("        return best(*args, **kwargs)")
    # torch's print_error: when the number of arguments fits one overload only, that overload's own argument
    # error ("argument 'x' (position n) must be T, not U"), else the list of signatures
    lines.append(f"    _n = len(args) + len(kwargs){' - 1' if method else ''}")
    # (a loop, not a comprehension: a comprehension reading _n makes it a closure cell, built on every call)
    lines.append("    _p = []")
    lines.append(f"    for lo, hi, e in _{defname}_errs:")
    lines.append("        if lo <= _n <= hi:")
    lines.append("            _p.append(e)")
    lines.append("    if len(_p) == 1 and _p[0] is not None:")
    lines.append("        try:")
    lines.append("            _p[0](*args, **kwargs)")
    lines.append("        except TypeError as _e:")
    lines.append("            _m = str(_e)")
    lines.append(f"            if not _m.startswith({'_' + defname + '_e'!r}):")
    lines.append("                raise _e from None")
    if not method:
        # a call that cannot bind that overload: torch's message for it ("sum() takes from 2 to 3 positional
        # arguments but 4 were given", "max() missing 1 required positional arguments", "got an unexpected ...")
        lines.append(f"            raise _unbound_call({pyname!r}, _p[0], args, kwargs, _m) from None")
    lines.append(f"    raise _no_match({pyname!r}, args, kwargs, _{defname}_sigs, {method!r})")
    lines[body_start:] = ["    " + ln for ln in lines[body_start:]]
    lines.extend(_tf_epilogue(f"_tf_duck({defname}, {allargs}, kwargs, {display!r})"))
    lines.append("")


def _return_types(groups):
    seen = {}
    for ovs in groups.values():
        for ov in ovs:
            rt, names = _rt_name(ov.fn)
            if rt and rt not in seen:
                seen[rt] = (ov.fn.func.name.name.base, names)
    return seen


def _imports(extra=""):
    return [HEADER, "from .. import _ops as _opsmod",
            "from . import registrations as _registrations  # noqa: F401  (defines the aten ops bound below)",
            "from .._core.tensor_impl import TENSOR_TYPES as _TENSOR_TYPES, TensorImpl",
            "from .._core.dispatch_keys import AUTOGRAD_BIT as _AUTOGRAD_BIT, BACKEND_BITS as _BACKEND_BITS",
            "from .._core.tls import GRAD_OFF as _GRAD_OFF, KEYS_ACTIVE as _KEYS_ACTIVE, state as _tls",
            "from .._core.torch_function import (NOT_HANDLED as _NOT_HANDLED, bound as _tf_bound, varargs as _tf_varargs,",
            "                                    duck_retry as _tf_duck, duck_retry_bound as _tf_duck_bound,",
            "                                    register as _tf_register, PLAIN_TYPES as _TFP, plain_args as _tf_plain)",
            "from .._arg_parser import (_is_num, _is_real, _is_int, _is_intlist, _is_intseq, _is_dtype, _is_double, _is_scalar,",
            "                           _is_tensorlist, _no_match, _no_match_named, _NO_DEFAULT, _bad_arg, _bad_tensorlist,",
            "                           _unbound_call, _as_tuple, _bad_varargs, _KwSizes)"]


def _rt_import(groups):
    rts = _return_types(groups)
    if not rts:
        return []
    return ["from .return_types import (" + ", ".join(f"{base} as {rt}" for rt, (base, _) in sorted(rts.items())) + ")"]


def _one_level_down(lines):
    """Header lines for a module one package below `_generated/` (torch_functions/, variable_methods/): every
    relative import reaches one level further up."""
    return ["from ." + ln[5:] if ln.startswith("from .") else ln for ln in lines]


def _family(ovs):
    """The op family a binding name's module is: the native/<family>.yaml of its first overload."""
    return ovs[0].fn.source[:-len(".yaml")]


def _by_family(groups, method):
    fams = {}
    for (name, m), ovs in groups.items():
        if m == method:
            fams.setdefault(_family(ovs), {})[(name, m)] = ovs
    return dict(sorted(fams.items()))


def _functions_module(groups, down=False, prefix="ember"):
    """The text of a module defining the function bindings of `groups` (no methods among them); `prefix` is the
    module torch's messages name them in (`ember.add`, `ember._C._nn.gelu`)."""
    head = _imports() + _rt_import(groups) + ["", "_G = globals()", "_lazy = _opsmod.lazy_overload", "_TF = False", "_tf_register(_G)", ""]
    lines = (_one_level_down(head) if down else head) + _ops_imports(groups)
    lines.append("")
    names = []
    for (name, _), ovs in groups.items():
        _emit_group(name, name, ovs, lines, False, prefix)
        names.append(name)
    lines.append(f"__all__ = {sorted(names)!r}")
    return "\n".join(lines) + "\n"


def emit_functions(fns, module=""):
    """One module with every function binding of torch's python_module `module` (nn, linalg, special: each
    loaded whole on first use of ember._nn, ember._linalg, ember.special)."""
    groups = python_groups(fns, module)
    return _functions_module({k: v for k, v in groups.items() if not k[1]}, prefix=f"ember._C._{module}")


def emit_function_families(fns):
    """The ember.<name> bindings: `functions.py`, the index (name -> family; the family's module is imported on
    the first read of one of its names through the index's module __getattr__, see ember/_bindings.py), and
    `torch_functions/<family>.py` per native/<family>.yaml, so `import ember` compiles none of them."""
    fams = _by_family(python_groups(fns, ""), False)
    out = {"torch_functions/__init__.py": '"""@generated by tools/codegen/gen.py: the ember.<name> bindings, one module '
                                           'per op family (see ../functions.py). Do not edit."""\n'}
    index = {}
    for fam, groups in fams.items():
        out[f"torch_functions/{fam}.py"] = _functions_module(groups, down=True)
        for name, _ in groups:
            index[name] = fam
    lines = [HEADER, "# The ember.<name> bindings (torch's python_torch_functions.cpp), one module per op family in",
             "# torch_functions/, each imported the first time one of its names is read from here: see ember/_bindings.py.",
             "from .._bindings import module_getattr as _module_getattr",
             "from . import registrations as _registrations  # noqa: F401  (defines the aten ops the bindings call)", "",
             "_FAMILIES = {"]
    lines += [f"    {n!r}: {index[n]!r}," for n in sorted(index)]
    lines += ["}", "__all__ = sorted(_FAMILIES)",
              "__getattr__, __dir__ = _module_getattr(globals(), 'ember._generated.torch_functions.', _FAMILIES)"]
    out["functions.py"] = "\n".join(lines) + "\n"
    return out


def emit_method_families(fns):
    """The Tensor binding methods: `tensor_methods.py`, the class TensorMethods with a placeholder per method
    (ember._bindings.LazyMethod), and `variable_methods/<family>.py` per native/<family>.yaml defining the
    family's methods, imported on the first lookup of one of them."""
    fams = _by_family(python_groups(fns), True)
    out = {"variable_methods/__init__.py": '"""@generated by tools/codegen/gen.py: the Tensor binding methods, one module '
                                           'per op family (see ../tensor_methods.py). Do not edit."""\n'}
    index = {}
    for fam, groups in fams.items():
        head = _imports() + _rt_import(groups) + ["", "_G = globals()", "_lazy = _opsmod.lazy_overload", "_TF = False", "_tf_register(_G)", ""]
        lines = _one_level_down(head) + _ops_imports(groups)
        lines.append("")
        names = []
        for (name, _), ovs in groups.items():
            _emit_group(name, "_m_" + name, ovs, lines, True)
            names.append(name)
            index[name] = fam
        lines.append("")
        lines.append("# name -> method, put in TensorMethods by ember._bindings.LazyMethod")
        lines.append("METHODS = {" + ", ".join(f"{n!r}: _m_{n}" for n in sorted(names)) + "}")
        lines.append("")
        lines.append("# Python names a function by its qualname in a call error: `reshape() got an unexpected keyword argument`,")
        lines.append("# as torch's binding says (not `_m_reshape()`)")
        lines.append("for _n, _f in METHODS.items():")
        lines.append("    _f.__qualname__ = _f.__name__ = _n")
        out[f"variable_methods/{fam}.py"] = "\n".join(lines) + "\n"
    lines = [HEADER + "from .._bindings import LazyMethod as _Lazy",
             "from . import registrations as _registrations  # noqa: F401  (defines the aten ops the methods call)", ""]
    lines += [f"_fam_{fam} = 'ember._generated.variable_methods.{fam}'" for fam in fams]
    lines += ["", "",
              "class TensorMethods:",
              '    """The generated binding methods (torch\'s python_variable_methods.cpp): a mixin `ember.Tensor`',
              "    names in its class statement. Each name holds a placeholder until its family's module under",
              "    variable_methods/ is loaded, on the first lookup of any of them (see ember/_bindings.py).\"\"\"",
              "    __slots__ = ()"]
    lines += [f"    {n} = _Lazy(_fam_{index[n]})" for n in sorted(index)]
    out["tensor_methods.py"] = "\n".join(lines) + "\n"
    return out


def emit_return_types(fns):
    """`_generated/return_types.py`: one named-tuple class per op name with named outputs (torch's
    structseq types), re-exported by `ember/return_types.py` so that they pickle by name."""
    seen = {}
    for module in _python_modules():
        for base, names in _return_types(python_groups(fns, module)).values():
            if seen.setdefault(base, names) != names:
                raise ValueError(f"return type {base}: two overloads name their outputs differently")
    lines = [HEADER, "import operator", "",
             "",
             "def _structseq(name, fields):",
             '    """A tuple type with named fields (torch\'s structseq) that prints and pickles as',
             "    ember.return_types.<name>. Built with type() and itemgetter properties, not",
             '    collections.namedtuple (which compiles source per type: ~0.3 ms each at import)."""',
             "    def __new__(cls, *values):",
             "        if len(values) != len(fields):",
             '            raise TypeError(f"ember.return_types.{name} takes {len(fields)} values "',
             """                            f"({', '.join(fields)}), got {len(values)}")""",
             "        return tuple.__new__(cls, values)",
             "",
             "    def __getnewargs__(self):",
             "        return tuple(self)",
             "",
             "    def __repr__(self):",
             '        inner = ",\\n".join(f"{f}={v!r}" for f, v in zip(fields, self))',
             '        return f"ember.return_types.{name}(\\n{inner})"',
             "",
             '    ns = {"__new__": __new__, "__getnewargs__": __getnewargs__, "__repr__": __repr__, "__slots__": (),',
             '          "__module__": "ember.return_types", "__qualname__": name, "_fields": tuple(fields)}',
             "    for i, f in enumerate(fields):",
             '        ns[f] = property(operator.itemgetter(i), doc=f"Alias for field number {i}")',
             "    return type(name, (tuple,), ns)",
             "", ""]
    for base in sorted(seen):
        lines.append(f"{base} = _structseq({base!r}, {seen[base]!r})")
    lines.append("")
    lines.append(f"__all__ = {sorted(seen)!r}")
    return "\n".join(lines) + "\n"


def _python_modules():
    from .model import PYTHON_MODULES
    return PYTHON_MODULES
