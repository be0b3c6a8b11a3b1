"""torch._dynamo.variables.{functions,builtin,nn_module}.call_function: what the translator does at a call.

ember ops become graph nodes (through `call_graph`), user functions, methods, nested closures and
`nn.Module.__call__`/`forward` are inlined (their bytecode run by an InliningTranslator over the same graph),
builtins fold on constants or act on trackers (`len`, `isinstance`, `getattr`, `zip`, `enumerate`...), list and
dict methods mutate trackers (replayed after the graph as side effects). Anything else raises Unsupported.
"""
import inspect
import itertools
import operator
import types

import ember
from ember._bindings import LazyMethod
from ember._tensor import Tensor

from .exc import Unsupported
from .source import AttrSource, ClosureItemSource, ItemSource
from .trace_rules import (_BREAK_BUILTINS, _BREAK_METHODS, _CONST_TYPES, _PURE_BUILTINS, _SPECIAL_FUNCTIONS, _disallowed,
                          _is_ember_leaf)
from .utils import qualified_name as _name
from .variables import (BuiltinVariable, ConstantVariable, DictVariable, GradModeVariable, IteratorVariable,
                        ListVariable, MethodVariable, NestedFunctionVariable, NNModuleVariable, TensorMethodVariable,
                        TensorVariable, TorchVariable, TupleVariable, UserFunctionVariable, UserMethodVariable,
                        UserObjectVariable, WithExitVariable)
from .variables.functions import SuperVariable
from .variables.builder import RealCellVariable, _wrap_const_result

MAX_INLINE_DEPTH = 48


class CallHandlers:
    """Mixed into the instruction translator: calls of every kind of tracker."""

    def call_function(self, fn, args, kwargs):
        if isinstance(fn, TorchVariable):
            return self.call_torch(fn.fn, args, kwargs)
        if isinstance(fn, UserFunctionVariable):
            return self.inline_user_function(fn.fn, args, kwargs, fn.source)
        if isinstance(fn, NestedFunctionVariable):
            return self.inline_nested(fn, args, kwargs)
        if isinstance(fn, UserMethodVariable):
            return self.inline_user_function(fn.fn, [fn.obj, *args], kwargs, None)
        if isinstance(fn, NNModuleVariable):
            return self.call_module(fn, args, kwargs)
        if isinstance(fn, TensorMethodVariable):
            return self.call_tensor_method(fn.tensor, fn.name, args, kwargs)
        if isinstance(fn, MethodVariable):
            return self.call_container_method(fn.obj, fn.name, args, kwargs)
        if isinstance(fn, BuiltinVariable):
            return self.call_builtin(fn.fn, args, kwargs)
        if isinstance(fn, WithExitVariable):
            return fn.exit(self)
        if isinstance(fn, UserObjectVariable) and isinstance(fn.value, type):
            return self.construct(fn, args, kwargs)
        raise Unsupported(f"calling {type(fn).__name__}")

    def construct(self, cls_vt, args, kwargs):
        cls = cls_vt.value
        if issubclass(cls, BaseException):
            raise Unsupported(f"constructing {cls.__name__} (an exception)")
        if all(a.is_python_constant() for a in args) and all(v.is_python_constant() for v in kwargs.values()) \
                and cls.__module__ in ("builtins", "collections", "fractions", "decimal"):
            return ConstantVariable(cls(*[a.as_python_constant() for a in args],
                                        **{k: v.as_python_constant() for k, v in kwargs.items()}))
        if cls is itertools.chain and not kwargs:
            return IteratorVariable([v for a in args for v in self.unpack(a)])
        raise Unsupported(f"constructing a {cls.__name__} object")

    def call_torch(self, fn, args, kwargs):
        if fn in _disallowed:
            raise Unsupported(f"call to {_name(fn)}, disabled with ember.compiler.disable")
        if fn is ember.no_grad:
            return GradModeVariable(False)
        if fn is ember.enable_grad:
            return GradModeVariable(True)
        if fn is ember.set_grad_enabled:
            return GradModeVariable(bool(args[0].as_python_constant()))
        if fn is ember.is_grad_enabled:
            return ConstantVariable(self.output.grad_enabled)
        if getattr(fn, "_ember_is_compiling", False):     # ember.compiler.is_compiling(): True under capture
            return ConstantVariable(True)
        if fn in _SPECIAL_FUNCTIONS:       # ember._dynamo.graph_break
            raise Unsupported(f"ember._dynamo.{fn.__name__}() called")
        if fn is ember.manual_seed or getattr(fn, "__name__", "") in ("manual_seed", "seed", "set_rng_state"):
            raise Unsupported(f"{_name(fn)} (changes global random state)")
        if isinstance(fn, type) and not issubclass(fn, Tensor):
            if all(a.is_python_constant() for a in args):
                return ConstantVariable(fn(*[a.as_python_constant() for a in args],
                                           **{k: v.as_python_constant() for k, v in kwargs.items()}))
        return self.call_graph("call_function", fn, args, kwargs)

    def call_tensor_method(self, t, name, args, kwargs):
        if name in _BREAK_METHODS:
            raise Unsupported(f"Tensor.{name}() needs the tensor's data")
        return self.call_graph("call_method", name, [t, *args], kwargs)

    def call_builtin(self, fn, args, kwargs):
        if fn in _BREAK_BUILTINS:
            raise Unsupported(f"builtin {fn.__name__}()")
        if fn is super and not args:
            return self.zero_arg_super()
        if fn is super and len(args) == 2 and isinstance(getattr(args[0], "value", None), type):
            return SuperVariable(args[0].value, args[1])
        if fn is isinstance:
            obj, cls = args
            cls = cls.as_python_constant() if cls.is_python_constant() else getattr(cls, "value", None)
            if cls is None:
                raise Unsupported("isinstance() with a non-constant class")
            return ConstantVariable(_isinstance(obj, cls))
        if fn is len:
            return ConstantVariable(self.length(args[0]))
        if fn is getattr:
            try:
                return self.getattr(args[0], args[1].as_python_constant())
            except AttributeError:
                if len(args) == 3:
                    return args[2]
                raise Unsupported("getattr() raising AttributeError")
        if fn is hasattr:
            try:
                self.getattr(args[0], args[1].as_python_constant())
                return ConstantVariable(True)
            except AttributeError:
                return ConstantVariable(False)
        if fn is setattr:
            self.setattr(args[0], args[1].as_python_constant(), args[2])
            return ConstantVariable(None)
        if fn is type and len(args) == 1:
            return self.wrap_type(args[0])
        if fn in (iter,) and len(args) == 1:
            return self.get_iter(args[0])
        if fn is next:
            v = args[0].next() if isinstance(args[0], IteratorVariable) else None
            if v is None:
                raise Unsupported("next() on an exhausted or unknown iterator")
            return v
        if fn is range:
            return ConstantVariable(range(*[a.as_python_constant() for a in args]))
        if fn is zip:
            lists = [self.unpack(a) for a in args]
            return IteratorVariable([TupleVariable(list(t)) for t in zip(*lists)])
        if fn is enumerate:
            start = args[1].as_python_constant() if len(args) > 1 else kwargs.get("start", ConstantVariable(0)).value
            return IteratorVariable([TupleVariable([ConstantVariable(i), v])
                                     for i, v in enumerate(self.unpack(args[0]), start)])
        if fn is reversed:
            return IteratorVariable(list(reversed(self.unpack(args[0]))))
        if fn in (list, tuple) and len(args) == 1:
            items = self.unpack(args[0])
            return ListVariable(items) if fn is list else TupleVariable(items)
        if fn in (list, tuple) and not args:
            return ListVariable([]) if fn is list else TupleVariable([])
        if fn is dict and not args:
            return DictVariable({k: v for k, v in kwargs.items()})
        if fn is sum and args and not args[0].is_python_constant():
            items = self.unpack(args[0])
            if any(isinstance(i, TensorVariable) for i in items):
                acc = args[1] if len(args) > 1 else kwargs.get("start", ConstantVariable(0))
                for i in items:                # as Python does: ((start + a) + b) + ...
                    acc = self.binary(operator.add, acc, i)
                return acc
        if fn in (min, max) and not kwargs:
            items = args
            if len(args) == 1 and not args[0].is_python_constant():
                items = self.unpack(args[0])          # consumes an iterator: hand the items on below
                args = [ListVariable(items)]
            if len(items) > 1 and any(isinstance(a, TensorVariable) for a in items):
                return self.tensor_min_max(fn, items)
        if fn in (min, max, sum, any, all, sorted) and len(args) == 1 and not args[0].is_python_constant():
            items = self.unpack(args[0])
            if all(i.is_python_constant() for i in items):
                return ConstantVariable(fn([i.as_python_constant() for i in items]))
        consts_ok = all(a.is_python_constant() for a in args) and all(v.is_python_constant()
                                                                      for v in kwargs.values())
        pure = fn in _PURE_BUILTINS or getattr(fn, "__module__", None) in ("math", "operator", "_operator") \
            or (getattr(fn, "__self__", None) is not None and isinstance(fn.__self__, _CONST_TYPES + (tuple,)))
        if consts_ok and pure:
            try:
                return _wrap_const_result(fn(*[a.as_python_constant() for a in args],
                                             **{k: v.as_python_constant() for k, v in kwargs.items()}))
            except Exception as e:
                raise Unsupported(f"{_name(fn)} raised {type(e).__name__}") from None
        if getattr(fn, "__module__", None) in ("operator", "_operator") and \
                any(isinstance(a, TensorVariable) for a in args):
            return self.call_graph("call_function", fn, args, kwargs)
        if fn in (float, int, bool) and args and isinstance(args[0], TensorVariable):
            raise Unsupported(f"{fn.__name__}(tensor) needs the tensor's data")
        raise Unsupported(f"builtin {_name(fn)} with these arguments")

    def call_container_method(self, obj, name, args, kwargs):
        if isinstance(obj, ListVariable):
            if name == "append":
                self.mutate(obj)
                obj.items.append(args[0])
                return ConstantVariable(None)
            if name == "extend":
                self.mutate(obj)
                obj.items.extend(self.unpack(args[0]))
                return ConstantVariable(None)
            if name == "insert":
                self.mutate(obj)
                obj.items.insert(args[0].as_python_constant(), args[1])
                return ConstantVariable(None)
            if name == "pop":
                self.mutate(obj)
                return obj.items.pop(*(a.as_python_constant() for a in args))
            if name == "clear":
                self.mutate(obj)
                obj.items.clear()
                return ConstantVariable(None)
            if name == "copy":
                return ListVariable(list(obj.items))
        if isinstance(obj, DictVariable):
            if name == "items":
                return ListVariable([TupleVariable([ConstantVariable(k), v]) for k, v in obj.items.items()])
            if name == "keys":
                return ListVariable([ConstantVariable(k) for k in obj.items])
            if name == "values":
                return ListVariable(list(obj.items.values()))
            if name == "get":
                k = args[0].as_python_constant()
                return obj.items.get(k, args[1] if len(args) > 1 else ConstantVariable(None))
            if name == "__contains__":
                return ConstantVariable(args[0].as_python_constant() in obj.items)
            if name == "update" and isinstance(args[0], DictVariable):
                self.mutate(obj)
                obj.items.update(args[0].items)
                return ConstantVariable(None)
            if name == "pop":
                self.mutate(obj)
                return obj.items.pop(args[0].as_python_constant(), *args[1:])
            if name == "setdefault":
                k = args[0].as_python_constant()
                if k not in obj.items:
                    self.mutate(obj)
                    obj.items[k] = args[1] if len(args) > 1 else ConstantVariable(None)
                return obj.items[k]
        if isinstance(obj, TupleVariable) and name in ("index", "count") and obj.is_python_constant():
            return ConstantVariable(getattr(obj.as_python_constant(), name)(*[a.as_python_constant() for a in args]))
        raise Unsupported(f"{type(obj).__name__}.{name}()")

    def tensor_min_max(self, fn, items):
        """max()/min() with tensors among the items, as torch.compile rewrites them: elementwise maximum/minimum
        of tensors, clamp against numbers (Python's own max would need bool(tensor))."""
        acc = items[0]
        for b in items[1:]:
            a_t, b_t = isinstance(acc, TensorVariable), isinstance(b, TensorVariable)
            if a_t and b_t:
                acc = self.call_graph("call_function", ember.maximum if fn is max else ember.minimum, [acc, b], {})
            elif a_t or b_t:
                t, n = (acc, b) if a_t else (b, acc)
                if not n.is_python_constant():
                    raise Unsupported(f"{fn.__name__}() of a tensor and a {type(n).__name__}")
                bound = {"min": n} if fn is max else {"max": n}
                acc = self.call_graph("call_function", ember.clamp, [t], bound)
            else:
                acc = self.call_builtin(fn, [acc, b], {})
        return acc

    def zero_arg_super(self):
        """`super()` in a method: the class from its `__class__` cell, the object from its first argument."""
        cell = self.cells.get("__class__")
        if cell is None or not self.code.co_argcount:
            raise Unsupported("super() outside a method")
        cls = cell.load(self) if isinstance(cell, RealCellVariable) else cell.contents
        obj = self.locals.get(self.code.co_varnames[0])
        if cls is None or obj is None or not isinstance(getattr(cls, "value", None), type):
            raise Unsupported("super() whose class or object is not known")
        return SuperVariable(cls.value, obj)

    def super_getattr(self, sup, name):
        """An attribute of `super(cls, obj)`: the first class after `cls` in obj's MRO that defines it."""
        value = getattr(sup.obj, "module", None)
        if value is None:
            value = getattr(sup.obj, "value", None)
        if value is None:
            raise Unsupported(f"super() of a {type(sup.obj).__name__}")
        mro = type(value).__mro__
        for klass in mro[mro.index(sup.cls) + 1:]:
            if name in klass.__dict__:
                attr = klass.__dict__[name]
                if attr.__class__ is LazyMethod:
                    # a generated method whose family is not loaded yet: load it (the placeholder's classes
                    # then hold the function) rather than break the graph on the placeholder
                    attr.resolve()
                    attr = klass.__dict__[name]
                if isinstance(attr, types.FunctionType):
                    if _is_ember_leaf(attr) and not klass.__module__.startswith("ember.nn"):
                        return TorchVariable(getattr(super(sup.cls, value), name))
                    return UserMethodVariable(attr, sup.obj)
                raise Unsupported(f"super().{name} is a {type(attr).__name__}")
        raise Unsupported(f"super() has no attribute {name!r}")

    def mutate(self, vt):
        vt.mutated = True
        if vt.source is not None:
            self.output.object_vts[id(vt)] = vt

    def call_module(self, mod_vt, args, kwargs):
        m = mod_vt.module
        from ember.nn.modules import module as _mm
        if (m._backward_hooks or m._backward_pre_hooks or _mm._global_backward_hooks
                or _mm._global_backward_pre_hooks):
            raise Unsupported("a module with backward hooks")
        if m._forward_pre_hooks_with_kwargs or m._forward_hooks_with_kwargs or m._forward_hooks_always_called:
            raise Unsupported("module hooks with kwargs or always_call")
        src = mod_vt.source
        if src is not None:
            # hook registration and removal bump the epoch: these are checked when it moved
            for d in ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_backward_pre_hooks"):
                self.output.guards.length_check(AttrSource(src, d, True), len(getattr(m, d)))
        for d in ("_global_forward_pre_hooks", "_global_forward_hooks", "_global_backward_hooks",
                  "_global_backward_pre_hooks"):
            self.output.guards.expr_guard(
                "GLOBAL_HOOKS", f"not ___modules['ember.nn.modules.module'].{d}", epoch_covered=True)
        for hooks_name, hooks in (("_forward_pre_hooks", m._forward_pre_hooks),):
            for hid, hook in hooks.items():
                hsrc = ItemSource(AttrSource(src, hooks_name, True), hid, True) if src else None
                hvt = self.wrap(hook, hsrc)
                res = self.call_function(hvt, [mod_vt, TupleVariable(list(args))], {})
                if not (isinstance(res, ConstantVariable) and res.value is None):
                    args = list(res.items) if isinstance(res, TupleVariable) else [res]
        if _mm._global_forward_pre_hooks or _mm._global_forward_hooks:
            raise Unsupported("global module hooks")
        fwd = inspect.getattr_static(type(m), "forward")
        if "forward" in m.__dict__:
            result = self.call_function(self.getattr(mod_vt, "forward"), list(args), kwargs)
        else:
            result = self.inline_user_function(fwd, [mod_vt, *args], kwargs, None)
        for hid, hook in m._forward_hooks.items():
            hsrc = ItemSource(AttrSource(src, "_forward_hooks", True), hid, True) if src else None
            hvt = self.wrap(hook, hsrc)
            res = self.call_function(hvt, [mod_vt, TupleVariable(list(args)), result], {})
            if not (isinstance(res, ConstantVariable) and res.value is None):
                result = res
        return result

    def inline_user_function(self, fn, args, kwargs, source):
        if fn in _disallowed:
            raise Unsupported(f"call to {fn.__qualname__}, disabled with ember.compiler.disable")
        code = fn.__code__
        cells = {}
        if code.co_freevars:
            for i, (name, cell) in enumerate(zip(code.co_freevars, fn.__closure__)):
                cells[name] = RealCellVariable(cell, ClosureItemSource(source, i) if source is not None else None)
        defaults = [self.wrap(d, None) if isinstance(d, _CONST_TYPES) or d is None else
                    self.wrap(d, ItemSource(AttrSource(source, "__defaults__"), i) if source else None)
                    for i, d in enumerate(fn.__defaults__ or ())]
        kwdefaults = {k: self.wrap(v, None if isinstance(v, _CONST_TYPES) else
                                   (ItemSource(AttrSource(source, "__kwdefaults__"), k) if source else None))
                      for k, v in (fn.__kwdefaults__ or {}).items()}
        return self.inline_code(code, fn.__globals__, cells, args, kwargs, defaults, kwdefaults, fn.__qualname__)

    def inline_nested(self, nf, args, kwargs):
        cells = dict(zip(nf.code.co_freevars, nf.closure or ()))
        defaults = [] if nf.defaults is None else list(nf.defaults.items) if not isinstance(
            nf.defaults, ConstantVariable) else [ConstantVariable(v) for v in nf.defaults.value]
        kwdefaults = {} if nf.kwdefaults is None else dict(nf.kwdefaults.items) if isinstance(
            nf.kwdefaults, DictVariable) else {k: ConstantVariable(v) for k, v in nf.kwdefaults.value.items()}
        return self.inline_code(nf.code, nf.f_globals, cells, args, kwargs, defaults, kwdefaults, nf.name)

    def inline_code(self, code, f_globals, cells, args, kwargs, defaults, kwdefaults, name):
        is_genexpr = code.co_flags & inspect.CO_GENERATOR and code.co_name == "<genexpr>"
        if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR) and \
                not is_genexpr:
            raise Unsupported(f"inlining generator or coroutine {name}")
        if self.depth >= MAX_INLINE_DEPTH:
            raise Unsupported("inlining too deep (recursion?)")
        symbolic = bind_args(code, args, kwargs, defaults, kwdefaults, name)
        tx = self.inlining_translator(self.output, code, f_globals, symbolic, cells, self.depth + 1, self)
        if is_genexpr:
            # a generator expression is consumed where it is made: run it to the end, collecting what it yields
            tx.yielded = []
            tx.run()
            return IteratorVariable(tx.yielded)
        return tx.run()


def _isinstance(vt, cls):
    if isinstance(vt, TensorVariable):
        from ember.nn.parameter import Parameter
        if isinstance(cls, tuple):
            return any(_isinstance(vt, c) for c in cls)
        if cls is Parameter or (isinstance(cls, type) and issubclass(cls, Parameter)):
            return bool(getattr(vt, "is_param", False))
        return isinstance(cls, type) and issubclass(Tensor, cls)
    if isinstance(vt, NNModuleVariable):
        return isinstance(vt.module, cls)
    if isinstance(vt, UserObjectVariable):
        return isinstance(vt.value, cls)
    if isinstance(vt, TupleVariable):
        return issubclass(vt.tuple_type, cls) if isinstance(cls, type) else \
            any(issubclass(vt.tuple_type, c) for c in cls)
    if isinstance(vt, (ListVariable, DictVariable, ConstantVariable, UserFunctionVariable, NestedFunctionVariable,
                       BuiltinVariable, TorchVariable)):
        if isinstance(vt, ConstantVariable):
            return isinstance(vt.value, cls)
        if isinstance(vt, (BuiltinVariable, TorchVariable)):
            return isinstance(vt.fn, cls)
        if isinstance(vt, UserFunctionVariable):
            return isinstance(vt.fn, cls)
        t = vt.python_type()
        return issubclass(t, cls) if isinstance(cls, type) else any(issubclass(t, c) for c in cls)
    raise Unsupported(f"isinstance() of {type(vt).__name__}")


def bind_args(code, args, kwargs, defaults, kwdefaults, name):
    """Map call arguments (trackers) to the callee's parameter names, as CPython does."""
    nargs = code.co_argcount
    nkw = code.co_kwonlyargcount
    names = code.co_varnames
    pos_names = names[:nargs]
    kwonly = names[nargs:nargs + nkw]
    i = nargs + nkw
    varargs = names[i] if code.co_flags & inspect.CO_VARARGS else None
    if varargs:
        i += 1
    varkw = names[i] if code.co_flags & inspect.CO_VARKEYWORDS else None
    out = {}
    for n, a in zip(pos_names, args):
        out[n] = a
    extra = args[nargs:]
    if extra:
        if varargs is None:
            raise Unsupported(f"{name}() takes {nargs} positional arguments but {len(args)} were given")
    if varargs:
        out[varargs] = TupleVariable(list(extra))
    extra_kw = {}
    posonly = code.co_posonlyargcount
    for k, v in kwargs.items():
        if k in pos_names[posonly:] or k in kwonly:
            if k in out:
                raise Unsupported(f"{name}() got multiple values for argument {k!r}")
            out[k] = v
        elif varkw:
            extra_kw[k] = v
        else:
            raise Unsupported(f"{name}() got an unexpected keyword argument {k!r}")
    if varkw:
        out[varkw] = DictVariable(extra_kw)
    ndef = len(defaults)
    for j, n in enumerate(pos_names):
        if n not in out:
            di = j - (nargs - ndef)
            if di < 0:
                raise Unsupported(f"{name}() missing required argument {n!r}")
            out[n] = defaults[di]
    for n in kwonly:
        if n not in out:
            if n not in kwdefaults:
                raise Unsupported(f"{name}() missing keyword-only argument {n!r}")
            out[n] = kwdefaults[n]
    return out
