"""torch._dynamo.guards: the checks that keep a graph valid, over the sources of source.py.

Each guard is one boolean expression over a source; all guards of a cache entry are compiled into one generated function

    def check(L, G, C):   -> the graph inputs (a tuple) or None

Guards on values reached from an `nn.Module` through module attributes are `epoch` guards: they are checked
only when the module-mutation epoch (ember.nn.modules._hooks.MUTATION_EPOCH, bumped by every module change)
moved since the last check, and the parameters/buffers read that way are cached with the epoch. So a
12-layer model costs the root's identity, the epoch and the inputs' tensor matches per call.
"""
import itertools

from ember._core.tls import state as _tls
from ember.nn.modules._hooks import MUTATION_EPOCH

from .source import (AttrSource, ClosureSource, GlobalSource, ItemSource, LocalSource, ParamSource,  # noqa: F401
                     Source, TypeSource)


class Guard:
    """One check: `kind` (TENSOR_MATCH, ID_MATCH, TYPE_MATCH, EQUALS_MATCH, LENGTH_CHECK, DICT_KEYS,
    GLOBAL_STATE, EPOCH) on `source`, as the Python expression `code`."""

    def __init__(self, kind, source, code, epoch_covered=False):
        self.kind, self.source, self.code, self.epoch_covered = kind, source, code, epoch_covered

    def __repr__(self):
        return f"{self.kind}: {self.code}"


_CONST_TYPES = (int, float, bool, str, bytes, type(None), complex)


class GuardBuilder:
    """Collects the guards of one capture (deduplicated by (kind, source)) and compiles them."""

    def __init__(self):
        self.guards = {}
        self.dynamic = {}          # source name -> dims left free by its TENSOR_MATCH
        self.consts = {}
        self._names = itertools.count()

    def _const(self, value, hint="K"):
        for k, v in self.consts.items():
            if v is value:
                return k
        name = f"{hint}{next(self._names)}"
        self.consts[name] = value
        return name

    def _add(self, kind, source, code):
        key = (kind, source.name() if source is not None else code)
        if key not in self.guards:
            self.guards[key] = Guard(kind, source, code, bool(source is not None and source.epoch_covered))

    def id_match(self, source, value):
        self._add("ID_MATCH", source, f"{source.name()} is {self._const(value)}")

    def type_match(self, source, value):
        self._add("TYPE_MATCH", source, f"type({source.name()}) is {self._const(type(value), 'T')}")

    def equals_match(self, source, value):
        if isinstance(value, float) and value != value:
            self._add("EQUALS_MATCH", source, f"{source.name()} != {source.name()}")
            return
        if isinstance(value, (tuple, list)) and all(isinstance(v, _CONST_TYPES) for v in value):
            code = f"type({source.name()}) is {self._const(type(value), 'T')} and {source.name()} == {value!r}"
        elif value is None or isinstance(value, bool):
            code = f"{source.name()} is {value!r}"
        elif type(value) in (int, float, str):
            code = f"type({source.name()}) is {type(value).__name__} and {source.name()} == {value!r}"
        elif isinstance(value, _CONST_TYPES):
            code = f"type({source.name()}) is {self._const(type(value), 'T')} and {source.name()} == {self._const(value)}"
        else:
            code = f"{source.name()} == {self._const(value)}"
        self._add("EQUALS_MATCH", source, code)

    def expr_guard(self, kind, code, epoch_covered=False):
        key = (kind, code)
        if key not in self.guards:
            self.guards[key] = Guard(kind, None, code, epoch_covered)

    def length_check(self, source, n):
        self._add("LENGTH_CHECK", source, f"len({source.name()}) == {n}")

    def dict_keys(self, source, keys):
        keys = list(keys)
        if not keys:
            self._add("DICT_KEYS", source, f"not {source.name()}")
        else:
            self._add("DICT_KEYS", source, f"list({source.name()}) == {self._const(keys)}")

    def tensor_match(self, source, t, dynamic_dims=()):
        s = source.name()
        sizes = tuple(t.shape)
        strides = tuple(t.stride())
        parts = [f"type({s}) is {self._const(type(t), 'T')}", f"{s}._ks == {t._ks}",
                 f"{s}.dtype is {self._const(t.dtype, 'D')}", f"{s}._requires_grad is {bool(t.requires_grad)}"]
        if dynamic_dims:
            self.dynamic[s] = tuple(dynamic_dims)
            parts.append(f"len({s}._size) == {len(sizes)}")
            for d in range(len(sizes)):
                if d not in dynamic_dims:
                    parts.append(f"{s}._size[{d}] == {sizes[d]}")
        else:
            parts.append(f"{s}._size == {sizes!r}")
            parts.append(f"{s}.stride() == {strides!r}")
        self._add("TENSOR_MATCH", source, " and ".join(parts))
        self.guards[("TENSOR_MATCH", s)].sizes = sizes

    def global_state(self):
        from ember._core.promotion import get_default_dtype
        from ember._core import dtype as _dt
        self._add("GLOBAL_STATE", None,
                  f"S.grad_enabled is {bool(_tls.grad_enabled)} and S.__dict__.get('default_dtype', "
                  f"{self._const(_dt.float32, 'D')}) is {self._const(get_default_dtype(), 'D')}")

    def compile(self, fresh_inputs, epoch_inputs):
        """The check function of one entry: (L, G, C) -> tuple of graph inputs, or None."""
        fast = [g.code for g in self.guards.values() if not g.epoch_covered]
        slow = [g.code for g in self.guards.values() if g.epoch_covered]
        fresh = "".join(f"{s.name()}, " for s in fresh_inputs)
        lines = ["def ___check(L, G, C):"]
        if fast:
            lines.append(f"    if not ({' and '.join(fast)}):")
            lines.append("        return None")
        if slow or epoch_inputs:
            lines.append("    if EP[0] != E[0]:")
            lines.append("        if not ___revalidate(L, G, C):")
            lines.append("            return None")
            lines.append(f"    return ({fresh}) + P[0]")
        else:
            lines.append(f"    return ({fresh})")
        rev = ["def ___revalidate(L, G, C):"]
        if slow:
            rev.append(f"    if not ({' and '.join(slow)}):")
            rev.append("        return False")
        rev.append(f"    P[0] = ({''.join(f'{s.name()}, ' for s in epoch_inputs)})")
        rev.append("    E[0] = EP[0]")
        rev.append("    return True")
        from ember._core.promotion import get_default_dtype
        import sys
        ns = dict(self.consts, EP=MUTATION_EPOCH, E=[None], P=[()], S=_tls, ___default_dtype=get_default_dtype,
                  ___modules=sys.modules)
        src = "\n".join(rev) + "\n\n" + "\n".join(lines) + "\n"
        exec(compile(src, "<ember guards>", "exec"), ns)
        check = ns["___check"]
        check.source = src
        check.revalidate = ns["___revalidate"]
        return check

    def failure_reason(self, L, G, C):
        """The first guard that fails on (L, G, C), as text (for recompile messages)."""
        from ember._core.promotion import get_default_dtype
        import sys
        ns = dict(self.consts, EP=MUTATION_EPOCH, S=_tls, ___default_dtype=get_default_dtype, L=L, G=G, C=C,
                  ___modules=sys.modules)
        for g in self.guards.values():
            try:
                ok = eval(g.code, ns)
            except Exception:
                ok = False
            if not ok:
                return g.code
        return None
