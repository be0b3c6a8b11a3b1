"""torch._dynamo.guards: the checks that keep a graph valid, over the sources of source.py.

Each guard is one boolean expression over a source; all guards of a cache entry are compiled into one generated function

    def check(L, G, C):   -> the graph inputs (a tuple) or None

Guards on values reached from an `nn.Module` through module attributes are `epoch` guards: they are checked
only when the module-mutation epoch (ember.nn.modules._hooks.MUTATION_EPOCH, bumped by every module change)
moved since the last check, and the parameters/buffers read that way are cached with the epoch. So a
12-layer model costs the root's identity, the epoch and the inputs' tensor matches per call.
"""
import itertools
import re
import sys
import weakref

from ember._core.tls import state as _tls
from ember.nn.modules._hooks import MUTATION_EPOCH

from .source import (AttrSource, is_literal_key, ClosureSource, GlobalSource, ItemSource, LocalSource, ParamSource,  # noqa: F401
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
        self._weak = {}            # id -> object matched by identity, held weakly once compiled
        self.weakrefs = []

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
        """`source is value`. As torch does, the object is held by a weak reference (an entry must not keep a
        model alive): the guard compares ids, and the entry's check fails for good once the object dies."""
        try:
            weakref.ref(value)
        except TypeError:
            self._add("ID_MATCH", source, f"{source.name()} is {self._const(value)}")
            return
        self._weak[id(value)] = value
        self._add("ID_MATCH", source, f"___id({source.name()}) == {id(value)}")

    def type_match(self, source, value):
        if getattr(source, "known_type", None) is type(value):
            return                 # *args / **kwargs of the frame: always a tuple / a dict
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
        if type(value) is int:
            self.guards[("EQUALS_MATCH", source.name())].int_value = value     # (automatic dynamic reads it)

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
        elif all(is_literal_key(k) for k in keys):
            self._add("DICT_KEYS", source, f"list({source.name()}) == {self._const(keys)}")
        else:
            # keys such as tensors compare by identity (their == is elementwise); the constant holds them alive
            self._const(keys)
            ids = [id(k) for k in keys]
            self._add("DICT_KEYS", source, f"list(map(___id, {source.name()})) == {ids!r}")

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
            # the fake's strides were written as the contiguous strides of its symbolic sizes
            parts.append(f"{s}.is_contiguous()")
        else:
            parts.append(f"{s}._size == {sizes!r}")
            parts.append(f"({s}._stride or {s}.stride()) == {strides!r}")
        self._add("TENSOR_MATCH", source, " and ".join(parts))
        self.guards[("TENSOR_MATCH", s)].sizes = sizes

    def global_state(self):
        from ember._core.promotion import get_default_dtype
        from ember._core import dtype as _dt
        # the thread-local state's __dict__ is read once (cheaper than two attribute reads on threading.local)
        self._add("GLOBAL_STATE", None,
                  f"(___s := S.__dict__)['grad_enabled'] is {bool(_tls.grad_enabled)} and ___s.get('default_dtype', "
                  f"{self._const(_dt.float32, 'D')}) is {self._const(get_default_dtype(), 'D')}")

    def compile(self, fresh_inputs, epoch_inputs):
        """The check function of one entry: (L, G, C) -> tuple of graph inputs, or None.

        The per-call guards form one `and` chain in which every source read more than once is evaluated once
        (bound to a local by `:=` at its first read); the epoch-covered guards run only when the module epoch
        moved, and re-read the parameters then."""
        fast = [g.code for g in self.guards.values() if not g.epoch_covered]
        slow = [g.code for g in self.guards.values() if g.epoch_covered]
        cond, names = _common_reads(" and ".join(fast), self._source_names())
        fresh = _substitute("".join(f"{s.name()}, " for s in fresh_inputs), names)
        lines = ["def ___check(L, G, C):"]
        if fast:
            lines.append(f"    if not ({cond}):")
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
            # checked only when the module epoch moved: written plainly (sharing reads would cost more at
            # capture than it saves)
            rev.append(f"    if not ({' and '.join(slow)}):")
            rev.append("        return False")
        rev.append(f"    P[0] = ({''.join(f'{s.name()}, ' for s in epoch_inputs)})")
        rev.append("    E[0] = EP[0]")
        rev.append("    return True")
        from ember._core.promotion import get_default_dtype
        ns = dict(self.consts, EP=MUTATION_EPOCH, E=[None], P=[()], S=_tls, ___default_dtype=get_default_dtype,
                  ___modules=sys.modules, ___id=id)
        src = "\n".join(rev) + "\n\n" + "\n".join(lines) + "\n"
        exec(compile(src, "<ember guards>", "exec"), ns)
        check = ns["___check"]
        check.source = src
        check.revalidate = ns["___revalidate"]
        # objects matched by identity: from now on held weakly; when one dies the check fails for good
        dead = _dead_check.__code__

        def died(_ref, check=check, cache=ns["P"]):
            check.__code__ = dead
            cache[0] = ()
        self.weakrefs = [weakref.ref(v, died) for v in self._weak.values()]
        self._weak = {}
        return check

    def _source_names(self):
        names = set()
        for g in self.guards.values():
            src = g.source
            while src is not None:
                names.add(src.name())
                src = getattr(src, "base", None) or getattr(src, "inner", None)
        return names

    def failure_reason(self, L, G, C):
        """The first guard that fails on (L, G, C), as text (for recompile messages)."""
        from ember._core.promotion import get_default_dtype
        ns = dict(self.consts, EP=MUTATION_EPOCH, S=_tls, ___default_dtype=get_default_dtype, L=L, G=G, C=C,
                  ___modules=sys.modules, ___id=id)
        for g in self.guards.values():
            try:
                ok = eval(g.code, ns)
            except Exception:
                ok = False
            if not ok:
                return g.code
        return None


def _dead_check(L, G, C):
    """The check of an entry one of whose identity-matched objects died: never matches."""
    return None


def _pattern(name):
    # a source expression not preceded by a name character, a dot or `]` (`L[1]` is not found in `XL[1]`)
    return re.compile(r"(?<![\w.\]])" + re.escape(name) + r"(?!\w)")


def _common_reads(cond, source_names):
    """Rewrite the `and` chain `cond` so that each source expression read at least twice is evaluated once:
    its first read (the first evaluated: the chain runs left to right) becomes `(___vN := expr)`, the others
    `___vN`. Longest names first, so `L[1][0]` is bound before `L[1]` inside it is. Returns (cond, {name: var})."""
    names = {}
    for i, name in enumerate(sorted(source_names, key=lambda n: (-len(n), n))):
        if cond.count(name) < 2:               # a cheap filter before the exact (regex) count
            continue
        pat = _pattern(name)
        hits = list(pat.finditer(cond))
        if len(hits) < 2 or name.isidentifier():
            continue
        var = f"___v{i}"
        first = hits[0]
        rest = pat.sub(var, cond[first.end():])
        cond = cond[:first.start()] + f"({var} := {name})" + rest
        names[name] = var
    return cond, names


def _substitute(text, names):
    for name in sorted(names, key=len, reverse=True):
        text = _pattern(name).sub(names[name], text)
    return text
