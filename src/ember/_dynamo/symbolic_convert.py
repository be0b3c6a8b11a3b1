"""torch._dynamo.symbolic_convert: InstructionTranslator, which runs a frame's CPython 3.11 bytecode over
variable trackers. Tensor ops become nodes of the fx graph (their fake values computed by the Meta kernels);
Python values read from the frame become guards; user functions, methods and nn.Module calls are inlined.
Something that cannot be captured raises Unsupported: at the top frame capture restarts with a graph break at
that instruction (a call inside an inlined function breaks at the top frame's call site)."""
import builtins
import dis
import inspect
import math
import operator
import sys
import types

import ember
from ember._core.tls import state as _tls
from ember._grad_mode import _set_enabled
from ember._tensor import Tensor
from ember.nn import Module
from ember._subclasses.fake_tensor import (DataDependentOutputException, DynamicOutputShapeException,
                                           UnsupportedOperatorException)

from . import config
from .exc import RestartAnalysis, Unsupported
from .resume_execution import ResumeIterator
from .guards import AttrSource, ClosureSource, GlobalSource, ItemSource, LocalSource, ParamSource
from .utils import user_location
from .variables import (BuiltinVariable, CellVariable, ConstantVariable, DictVariable, GradModeVariable,
                        IteratorVariable, ListVariable, MethodVariable, NestedFunctionVariable, NNModuleVariable,
                        NullVariable, TensorMethodVariable, TensorVariable, TorchVariable, TupleVariable,
                        UserFunctionVariable, UserMethodVariable, UserObjectVariable, VariableTracker)

SUPPORTED_VERSIONS = {(3, 11), (3, 12)}
_PY312 = sys.version_info[:2] >= (3, 12)

_CONST_TYPES = (int, float, bool, str, bytes, type(None), complex, type(Ellipsis), slice, range)
_BREAK_METHODS = {"item", "tolist", "numpy", "__bool__", "backward", "data_ptr", "__array__", "__index__",
                  "__int__", "__float__", "register_hook", "retain_grad", "untyped_storage"}
_BREAK_BUILTINS = {print, input, open, id, exec, eval, globals, locals, vars, breakpoint}
_PURE_BUILTINS = {len, abs, min, max, int, float, bool, str, round, divmod, pow, sorted, tuple, list, any, all,
                  sum, chr, ord, hash, repr, format, complex, slice, isinstance, issubclass, callable, type,
                  hasattr, set, frozenset}
_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
           "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
           "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
           "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
           "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
           ">>=": operator.irshift}
_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
            ">=": operator.ge}
MAX_INLINE_DEPTH = 48

_allowed_in_graph = set()     # functions registered with allow_in_graph: graph leaves
_disallowed = set()           # functions under compiler.disable: always a graph break, called eagerly


def _is_ember_leaf(fn):
    if fn in _allowed_in_graph:
        return True
    mod = getattr(fn, "__module__", None) or ""
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType)) and mod.startswith("ember"):
        return True
    if not mod.startswith("ember"):
        return hasattr(fn, "_schema") or type(fn).__module__.startswith("ember._ops")
    if mod.startswith(("ember.nn.modules", "ember._dynamo", "ember.compiler")):
        return False
    return True


def _is_fake_friendly_exc(e):
    return isinstance(e, (DataDependentOutputException, DynamicOutputShapeException, UnsupportedOperatorException))


class InstructionTranslatorBase:
    def __init__(self, output, code, f_globals, symbolic_locals, cells, depth, fn_source=None):
        self.output, self.code, self.f_globals = output, code, f_globals
        self.locals = symbolic_locals
        self.cells = cells
        self.depth = depth
        self.instructions = list(dis.get_instructions(code))
        self.index_of = {inst.offset: i for i, inst in enumerate(self.instructions)}
        self.stack = []
        self.ip = 0
        self.kw_names = None
        self.block_stack = []
        self.current = None
        self.fn_source = fn_source

    # ------------------------------------------------------------------ helpers
    def location(self):
        return user_location(self.code, self.current.offset if self.current else 0)

    def push(self, vt):
        self.stack.append(vt)

    def pop(self):
        return self.stack.pop()

    def popn(self, n):
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def jump(self, inst):
        self.ip = self.index_of[inst.argval]

    def step(self, inst):
        self.current = inst
        handler = getattr(self, inst.opname, None)
        if handler is None:
            raise Unsupported(f"opcode {inst.opname} is not supported")
        return handler(inst)

    # ------------------------------------------------------------------ wrapping real values
    def wrap(self, value, source):
        out = self.output
        if isinstance(value, Tensor):
            if source is None:
                raise Unsupported("a tensor without a source (a constant tensor captured from a closure)")
            return out.tensor_input(value, source)
        if isinstance(value, Module):
            if source is not None:
                out.guards.id_match(source, value)
                if not source.epoch_covered:
                    source = _Covered(source)
            return NNModuleVariable(value, source)
        if isinstance(value, _CONST_TYPES) or isinstance(value, (ember.dtype, ember.device)):
            if source is not None:
                out.guards.equals_match(source, value)
            return ConstantVariable(value, source)
        if type(value) in (list, tuple, dict) or isinstance(value, (ember.Size,)):
            if source is not None:
                vt = out.object_vts.get(id(value))
                if vt is not None:
                    return vt
                out.guards.type_match(source, value)
                if isinstance(value, dict):
                    out.guards.dict_keys(source, value.keys())
                else:
                    out.guards.length_check(source, len(value))
            cov = source is not None and source.epoch_covered
            if isinstance(value, dict):
                vt = DictVariable({k: self.wrap(v, ItemSource(source, k, cov) if source else None)
                                   for k, v in value.items()}, source)
            else:
                items = [self.wrap(v, ItemSource(source, i, cov) if source else None) for i, v in enumerate(value)]
                vt = ListVariable(items, source) if isinstance(value, list) else TupleVariable(items, source)
            if source is not None and isinstance(value, (list, dict)):
                out.object_vts[id(value)] = vt
                out.keepalive.append(value)
            return vt
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            if source is not None:
                out.guards.type_match(source, value)
            cov = source is not None and source.epoch_covered
            return TupleVariable([self.wrap(v, AttrSource(source, f, cov) if source else None)
                                  for f, v in zip(value._fields, value)], source, type(value))
        if value in (ember.no_grad, ember.enable_grad, ember.set_grad_enabled, ember.is_grad_enabled) or \
                value in _SPECIAL_FUNCTIONS:
            return TorchVariable(value, source)
        if type(value) is ResumeIterator:
            if source is None:
                raise Unsupported("an iterator without a source")
            out.guards.type_match(source, value)
            out.guards.length_check(AttrSource(source, "items"), len(value.items))
            out.guards.equals_match(AttrSource(source, "index"), value.index)
            it = IteratorVariable([self.wrap(v, ItemSource(AttrSource(source, "items"), i))
                                   for i, v in enumerate(value.items)])
            it.index = value.index
            return it
        if isinstance(value, types.ModuleType):
            return UserObjectVariable(value, source)
        if isinstance(value, types.FunctionType):
            if value in _disallowed:
                return TorchVariable(value, source)
            if _is_ember_leaf(value):
                return TorchVariable(value, source)
            if source is not None and not _from_python_module(source):
                out.guards.id_match(source, value)
            return UserFunctionVariable(value, source)
        if isinstance(value, types.MethodType):
            obj = self.wrap(value.__self__, AttrSource(source, "__self__", source.epoch_covered) if source else None)
            if isinstance(value.__func__, types.FunctionType) and not _is_ember_leaf(value.__func__):
                return UserMethodVariable(value.__func__, obj, source)
            return TorchVariable(value, source)
        if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            if _is_ember_leaf(value):
                return TorchVariable(value, source)
            return BuiltinVariable(value, source)
        if callable(value) and (hasattr(value, "_schema") or type(value).__module__.startswith("ember._ops")):
            return TorchVariable(value, source)
        if isinstance(value, type):
            if source is not None and not _from_python_module(source):
                out.guards.id_match(source, value)
            return UserObjectVariable(value, source)
        if source is None:
            raise Unsupported(f"a {type(value).__name__} object without a source")
        vt = out.object_vts.get(id(value))
        if vt is not None:
            return vt
        out.guards.type_match(source, value)
        vt = UserObjectVariable(value, source)
        out.object_vts[id(value)] = vt
        out.keepalive.append(value)
        return vt

    # ------------------------------------------------------------------ graph calls
    def graph_arg(self, vt):
        if isinstance(vt, TensorVariable):
            return vt.node, vt.fake
        if isinstance(vt, ConstantVariable):
            v = vt.value
            if isinstance(v, slice):
                return v, v
            return v, v
        if isinstance(vt, (ListVariable, TupleVariable)):
            pairs = [self.graph_arg(i) for i in vt.items]
            t = list if isinstance(vt, ListVariable) else tuple
            return t(p[0] for p in pairs), t(p[1] for p in pairs)
        if isinstance(vt, DictVariable):
            pairs = {k: self.graph_arg(v) for k, v in vt.items.items()}
            return {k: p[0] for k, p in pairs.items()}, {k: p[1] for k, p in pairs.items()}
        if isinstance(vt, TorchVariable) and isinstance(vt.fn, type):
            return vt.fn, vt.fn
        if vt.is_python_constant():
            v = vt.as_python_constant()
            return v, v
        raise Unsupported(f"{type(vt).__name__} as an argument of a graph op")

    def call_graph(self, kind, target, args, kwargs):
        """Add a node and compute its fake result; wrap the result as trackers."""
        gargs, fargs = zip(*[self.graph_arg(a) for a in args]) if args else ((), ())
        gkw = {k: self.graph_arg(v)[0] for k, v in kwargs.items()}
        fkw = {k: self.graph_arg(v)[1] for k, v in kwargs.items()}
        prev = _tls.grad_enabled
        _set_enabled(self.output.grad_enabled)
        try:
            with self.output.fake_mode:
                if kind == "call_method":
                    result = getattr(fargs[0], target)(*fargs[1:], **fkw)
                else:
                    result = target(*fargs, **fkw)
        except Unsupported:
            raise
        except Exception as e:
            raise Unsupported(f"{_name(target)} raised {type(e).__name__} on fake tensors: {e}") from None
        finally:
            _set_enabled(prev)
        if not _contains_tensor(result):
            return _wrap_const_result(result)
        node = self.output.new_node(kind, target, tuple(gargs), gkw)
        return self.wrap_result(node, result)

    def wrap_result(self, node, result):
        if isinstance(result, Tensor):
            return TensorVariable(node, result)
        if isinstance(result, (tuple, list)):
            items = []
            for i, r in enumerate(result):
                sub = self.output.new_node("call_function", operator.getitem, (node, i), {})
                items.append(self.wrap_result(sub, r) if _contains_tensor(r) else _wrap_const_result(r))
            if isinstance(result, list):
                return ListVariable(items)
            return TupleVariable(items, tuple_type=type(result) if type(result) is not tuple else tuple)
        raise Unsupported(f"op result of type {type(result).__name__}")

    # ------------------------------------------------------------------ calls
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
        if isinstance(fn, _WithExit):
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
        if fn in (min, max) and any(isinstance(a, TensorVariable) for a in args):
            raise Unsupported(f"{fn.__name__}() over tensors")
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

    def wrap_type(self, vt):
        if isinstance(vt, NNModuleVariable):
            return UserObjectVariable(type(vt.module))
        if isinstance(vt, UserObjectVariable):
            return UserObjectVariable(type(vt.value))
        return ConstantVariable(vt.python_type()) if not isinstance(vt, TensorVariable) else \
            UserObjectVariable(type(vt.fake) if not hasattr(vt, "is_param") else Tensor)

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
                csrc = AttrSource(AttrSource(source, "__closure__"), f"__getitem__({i}).cell_contents") \
                    if source is not None else None
                cells[name] = _RealCell(cell, _ClosureItemSource(source, i) if source is not None else None)
                del csrc
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
        tx = InliningTranslator(self.output, code, f_globals, symbolic, cells, self.depth + 1, self)
        if is_genexpr:
            # a generator expression is consumed where it is made: run it to the end, collecting what it yields
            tx.yielded = []
            tx.run()
            return IteratorVariable(tx.yielded)
        return tx.run()

    # ------------------------------------------------------------------ attributes
    def getattr(self, obj, name):
        out = self.output
        if isinstance(obj, TensorVariable):
            if name in ("grad", "_base", "grad_fn", "_version"):
                raise Unsupported(f"Tensor.{name}")
            if name in ("shape", "dtype", "device", "ndim", "requires_grad", "is_leaf", "layout", "is_cuda",
                        "is_cpu", "is_meta", "is_sparse", "is_quantized", "itemsize", "nbytes"):
                if name == "is_meta":
                    return ConstantVariable(False)
                if name == "is_leaf":
                    return ConstantVariable(obj.node.op == "placeholder" and True or not obj.fake.requires_grad)
                return ConstantVariable(getattr(obj.fake, name))
            attr = inspect.getattr_static(type(obj.fake), name, None)
            if callable(attr) and not isinstance(attr, property):
                return TensorMethodVariable(obj, name)
            return self.call_graph("call_function", builtins.getattr, [obj, ConstantVariable(name)], {})
        if isinstance(obj, NNModuleVariable):
            return self.module_getattr(obj, name)
        if isinstance(obj, UserObjectVariable):
            if name in obj.pending_attrs:
                return obj.pending_attrs[name]
            value = getattr(obj.value, name)
            src = AttrSource(obj.source, name) if obj.source is not None else None
            if isinstance(obj.value, types.ModuleType) and src is not None:
                src.from_python_module = True
            return self.wrap(value, src)
        if isinstance(obj, (ListVariable, DictVariable)):
            return MethodVariable(obj, name)
        if isinstance(obj, TupleVariable):
            if obj.tuple_type is not tuple and hasattr(obj.tuple_type, "_fields") and name in obj.tuple_type._fields:
                return obj.items[obj.tuple_type._fields.index(name)]
            return MethodVariable(obj, name)
        if isinstance(obj, ConstantVariable):
            return _wrap_const_result(getattr(obj.value, name))
        if isinstance(obj, (UserFunctionVariable, TorchVariable, BuiltinVariable)):
            target = getattr(obj, "fn")
            return self.wrap(getattr(target, name), AttrSource(obj.source, name) if obj.source else None)
        raise Unsupported(f"attribute {name!r} of {type(obj).__name__}")

    def module_getattr(self, mvt, name):
        pending = mvt.__dict__.get("pending_attrs")
        if pending and name in pending:
            return pending[name]
        m = mvt.module
        src = mvt.source
        d = m.__dict__
        if name in d:
            return self.wrap(d[name], AttrSource(src, name, True) if src else None)
        for store in ("_parameters", "_buffers", "_modules"):
            sd = d.get(store)
            if sd is not None and name in sd:
                v = sd[name]
                s = ParamSource(AttrSource(src, store, True), name, True) if src else None
                if v is None:
                    return ConstantVariable(None)
                return self.wrap(v, s)
        attr = inspect.getattr_static(type(m), name, _MISSING)
        if attr is _MISSING:
            raise AttributeError(name)
        if isinstance(attr, property):
            return self.inline_user_function(attr.fget, [mvt], {}, None)
        if isinstance(attr, staticmethod):
            return self.wrap(attr.__func__, None) if not isinstance(attr.__func__, types.FunctionType) \
                else UserFunctionVariable(attr.__func__)
        if isinstance(attr, classmethod):
            return UserMethodVariable(attr.__func__, UserObjectVariable(type(m)))
        if isinstance(attr, types.FunctionType):
            if _is_ember_leaf(attr) and not type(m).__module__.startswith("ember.nn"):
                return TorchVariable(getattr(m, name))
            return UserMethodVariable(attr, mvt)
        return self.wrap(getattr(m, name), AttrSource(src, name, True) if src else None)

    def setattr(self, obj, name, value):
        if isinstance(obj, (NNModuleVariable, UserObjectVariable)):
            if isinstance(obj, NNModuleVariable):
                if isinstance(value, (NNModuleVariable, NestedFunctionVariable)):
                    raise Unsupported("assigning a module or a closure to an nn.Module attribute inside forward")
                pending = obj.__dict__.setdefault("pending_attrs", {})
                pending[name] = value
                self.output.side_effects.append(("setattr", obj, name, value))
                return
            obj.pending_attrs[name] = value
            self.output.side_effects.append(("setattr", obj, name, value))
            return
        raise Unsupported(f"setting attribute {name!r} of {type(obj).__name__}")

    # ------------------------------------------------------------------ iteration, length, truth
    def unpack(self, vt):
        if isinstance(vt, (ListVariable, TupleVariable)):
            return list(vt.items)
        if isinstance(vt, IteratorVariable):
            items = vt.remaining()
            vt.index = len(vt.items)
            return items
        if isinstance(vt, DictVariable):
            return [ConstantVariable(k) for k in vt.items]
        if isinstance(vt, ConstantVariable) and isinstance(vt.value, (tuple, list, range, str)):
            return [ConstantVariable(v) for v in vt.value]
        if isinstance(vt, NNModuleVariable):
            return self.module_items(vt)
        if isinstance(vt, TensorVariable):
            n = vt.fake.shape[0]
            return [self.call_graph("call_function", operator.getitem, [vt, ConstantVariable(i)], {})
                    for i in range(n)]
        raise Unsupported(f"iterating over {type(vt).__name__}")

    def module_items(self, mvt):
        from ember.nn import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
        m = mvt.module
        if isinstance(m, (ModuleList, Sequential)):
            return [self.wrap(v, ParamSource(AttrSource(mvt.source, "_modules", True), k, True))
                    for k, v in m._modules.items()]
        if isinstance(m, ModuleDict):
            return [ConstantVariable(k) for k in m._modules]
        if isinstance(m, ParameterList):
            return [self.module_getattr(mvt, k) for k in m._parameters]
        if isinstance(m, ParameterDict):
            return [ConstantVariable(k) for k in m._parameters]
        raise Unsupported(f"iterating over {type(m).__name__}")

    def get_iter(self, vt):
        if isinstance(vt, IteratorVariable):
            return vt
        return IteratorVariable(self.unpack(vt))

    def length(self, vt):
        if isinstance(vt, (ListVariable, TupleVariable, DictVariable)):
            return len(vt.items)
        if isinstance(vt, ConstantVariable):
            return len(vt.value)
        if isinstance(vt, TensorVariable):
            if vt.fake.dim() == 0:
                raise Unsupported("len() of a 0-d tensor")
            return vt.fake.shape[0]
        if isinstance(vt, NNModuleVariable):
            return len(self.module_items(vt))
        if isinstance(vt, IteratorVariable):
            return len(vt.remaining())
        raise Unsupported(f"len() of {type(vt).__name__}")

    def truth(self, vt):
        if isinstance(vt, TensorVariable):
            raise Unsupported("data-dependent branch on a tensor (bool(tensor))")
        if isinstance(vt, ConstantVariable):
            return bool(vt.value)
        if isinstance(vt, (ListVariable, TupleVariable, DictVariable)):
            return bool(vt.items)
        if isinstance(vt, NNModuleVariable):
            if hasattr(type(vt.module), "__len__"):
                return bool(self.length(vt))
            return True
        if isinstance(vt, UserObjectVariable):
            t = type(vt.value)
            if hasattr(t, "__bool__") or hasattr(t, "__len__"):
                if isinstance(vt.value, (type, types.ModuleType)):
                    return True
                raise Unsupported(f"truth of a {t.__name__} object")
            return True
        if isinstance(vt, (UserFunctionVariable, UserMethodVariable, TorchVariable, BuiltinVariable,
                           NestedFunctionVariable, TensorMethodVariable, MethodVariable)):
            return True
        raise Unsupported(f"truth of {type(vt).__name__}")

    # ------------------------------------------------------------------ binary ops
    def binary(self, fn, a, b):
        if isinstance(a, TensorVariable) or isinstance(b, TensorVariable):
            return self.call_graph("call_function", fn, [a, b], {})
        if a.is_python_constant() and b.is_python_constant():
            try:
                return _wrap_const_result(fn(a.as_python_constant(), b.as_python_constant()))
            except Exception as e:
                raise Unsupported(f"{_name(fn)} raised {type(e).__name__}: {e}") from None
        if isinstance(a, (ListVariable, TupleVariable)) and fn in (operator.add, operator.iadd) and \
                isinstance(b, (ListVariable, TupleVariable)):
            if fn is operator.iadd and isinstance(a, ListVariable):
                self.mutate(a)
                a.items.extend(b.items)
                return a
            return type(a)(a.items + b.items)
        if isinstance(a, (ListVariable, TupleVariable)) and fn is operator.mul and b.is_python_constant():
            return type(a)(a.items * b.as_python_constant())
        if fn in (operator.eq, operator.ne) and isinstance(a, NNModuleVariable) and isinstance(b, NNModuleVariable):
            return ConstantVariable((a.module is b.module) == (fn is operator.eq))
        raise Unsupported(f"{_name(fn)} on {type(a).__name__} and {type(b).__name__}")

    def is_op(self, a, b):
        if a is b:
            return True
        if a.is_python_constant() and b.is_python_constant():
            return a.as_python_constant() is b.as_python_constant()
        for x, y in ((a, b), (b, a)):
            if isinstance(x, ConstantVariable) and x.value is None:
                return False
        for attr in ("module", "value", "fn"):
            if hasattr(a, attr) and hasattr(b, attr) and type(a) is type(b):
                return getattr(a, attr) is getattr(b, attr)
        if isinstance(a, TensorVariable) and isinstance(b, TensorVariable):
            return a.node is b.node
        raise Unsupported(f"`is` between {type(a).__name__} and {type(b).__name__}")

    def subscript(self, obj, idx):
        if isinstance(obj, TensorVariable):
            return self.call_graph("call_function", operator.getitem, [obj, idx], {})
        if isinstance(obj, NNModuleVariable):
            key = idx.as_python_constant()
            items = self.module_items(obj)
            if isinstance(key, int):
                return items[key]
            if isinstance(key, str):
                return self.module_getattr(obj, key)
            raise Unsupported("slicing a module container")
        key = idx.as_python_constant() if not isinstance(idx, TensorVariable) else None
        if isinstance(idx, TensorVariable):
            raise Unsupported("indexing a Python container with a tensor")
        if isinstance(obj, (ListVariable, TupleVariable)):
            if isinstance(key, slice):
                return type(obj)(obj.items[key]) if isinstance(obj, ListVariable) else TupleVariable(obj.items[key])
            return obj.items[key]
        if isinstance(obj, DictVariable):
            if key not in obj.items:
                raise Unsupported(f"KeyError {key!r}")
            return obj.items[key]
        if isinstance(obj, ConstantVariable):
            return _wrap_const_result(obj.value[key])
        raise Unsupported(f"subscript of {type(obj).__name__}")

    # ================================================================== opcodes (CPython 3.11)
    def NOP(self, inst):
        pass

    RESUME = PRECALL = CACHE = EXTENDED_ARG = COPY_FREE_VARS = NOP

    def PUSH_NULL(self, inst):
        self.push(NullVariable())

    def POP_TOP(self, inst):
        self.pop()

    def COPY(self, inst):
        self.push(self.stack[-inst.arg])

    def SWAP(self, inst):
        self.stack[-1], self.stack[-inst.arg] = self.stack[-inst.arg], self.stack[-1]

    def LOAD_CONST(self, inst):
        self.push(ConstantVariable(inst.argval))

    def LOAD_FAST(self, inst):
        if inst.argval not in self.locals:
            raise Unsupported(f"local {inst.argval!r} read before assignment")
        self.push(self.locals[inst.argval])

    LOAD_FAST_CHECK = LOAD_FAST

    def STORE_FAST(self, inst):
        v = self.pop()
        if isinstance(v, NullVariable):        # 3.12: restoring a local a comprehension shadowed
            self.locals.pop(inst.argval, None)
        else:
            self.locals[inst.argval] = v

    def DELETE_FAST(self, inst):
        self.locals.pop(inst.argval, None)

    def LOAD_GLOBAL(self, inst):
        if inst.arg & 1:
            self.push(NullVariable())
        name = inst.argval
        if self.f_globals is self.output.f_globals and name in self.output.global_overrides:
            self.push(self.output.global_overrides[name])
        elif name in self.f_globals:
            self.push(self.wrap(self.f_globals[name], _global_source(self, name)))
        elif hasattr(builtins, name):
            self.push(self.wrap_builtin(getattr(builtins, name)))
        else:
            raise Unsupported(f"name {name!r} is not defined")

    def wrap_builtin(self, value):
        if isinstance(value, type) and issubclass(value, BaseException):
            return UserObjectVariable(value)
        if isinstance(value, type) and value not in (list, tuple, dict, int, float, bool, str, range, zip,
                                                     enumerate, reversed, slice, set, frozenset, type, complex):
            return UserObjectVariable(value)
        return BuiltinVariable(value)

    def STORE_GLOBAL(self, inst):
        v = self.pop()
        self.output.side_effects.append(("setglobal", inst.argval, v))
        self.output.global_overrides[inst.argval] = v

    def LOAD_ATTR(self, inst):
        obj = self.pop()
        attr = self.getattr(obj, inst.argval)
        if _PY312 and inst.arg & 1:            # 3.12 folds LOAD_METHOD into LOAD_ATTR
            self.push(NullVariable())
        self.push(attr)

    def LOAD_METHOD(self, inst):
        obj = self.pop()
        attr = self.getattr(obj, inst.argval)
        self.push(NullVariable())
        self.push(attr)

    def STORE_ATTR(self, inst):
        obj = self.pop()
        val = self.pop()
        self.setattr(obj, inst.argval, val)

    def MAKE_CELL(self, inst):
        self.cells[inst.argval] = CellVariable(self.locals.pop(inst.argval, None))

    def LOAD_CLOSURE(self, inst):
        self.push(self.cells[inst.argval])

    def LOAD_DEREF(self, inst):
        cell = self.cells[inst.argval]
        if isinstance(cell, _RealCell):
            self.push(cell.load(self))
        else:
            if cell.contents is None:
                raise Unsupported(f"free variable {inst.argval!r} read before assignment")
            self.push(cell.contents)

    def STORE_DEREF(self, inst):
        cell = self.cells[inst.argval]
        if isinstance(cell, _RealCell):
            raise Unsupported("assigning a nonlocal that exists outside the compiled function")
        cell.contents = self.pop()

    def MAKE_FUNCTION(self, inst):
        code = self.pop().value
        flags = inst.arg
        closure = self.pop().items if flags & 0x08 else None
        if flags & 0x04:
            self.pop()
        kwdefaults = self.pop() if flags & 0x02 else None
        defaults = self.pop() if flags & 0x01 else None
        self.push(NestedFunctionVariable(code, self.f_globals, code.co_qualname, defaults, kwdefaults, closure))

    def KW_NAMES(self, inst):
        self.kw_names = self.code.co_consts[inst.arg]

    def CALL(self, inst):
        argc = inst.arg
        items = self.popn(argc + 2)
        kw = self.kw_names or ()
        self.kw_names = None
        if isinstance(items[0], NullVariable):
            fn, args = items[1], items[2:]
        else:
            fn, args = items[0], items[1:]
        kwargs = {}
        if kw:
            kwargs = dict(zip(kw, args[len(args) - len(kw):]))
            args = args[:len(args) - len(kw)]
        self.push(self.call_function(fn, list(args), kwargs))

    def CALL_FUNCTION_EX(self, inst):
        kwargs = self.pop() if inst.arg & 1 else DictVariable({})
        args = self.pop()
        fn = self.pop()
        self.pop()   # NULL
        if not isinstance(kwargs, DictVariable):
            raise Unsupported("**kwargs of a non-dict")
        self.push(self.call_function(fn, self.unpack(args), dict(kwargs.items)))

    def BINARY_OP(self, inst):
        b = self.pop()
        a = self.pop()
        fn = _BINARY.get(inst.argrepr)
        if fn is None:
            raise Unsupported(f"binary operator {inst.argrepr}")
        self.push(self.binary(fn, a, b))

    def COMPARE_OP(self, inst):
        b = self.pop()
        a = self.pop()
        self.push(self.binary(_COMPARE[inst.argval], a, b))

    def IS_OP(self, inst):
        b = self.pop()
        a = self.pop()
        self.push(ConstantVariable(self.is_op(a, b) != bool(inst.arg)))

    def CONTAINS_OP(self, inst):
        container = self.pop()
        item = self.pop()
        if isinstance(container, DictVariable):
            r = item.as_python_constant() in container.items
        elif isinstance(container, NNModuleVariable):
            r = item.as_python_constant() in container.module._modules
        else:
            items = self.unpack(container)
            if not (item.is_python_constant() and all(i.is_python_constant() for i in items)):
                raise Unsupported("`in` over non-constant items")
            r = item.as_python_constant() in [i.as_python_constant() for i in items]
        self.push(ConstantVariable(r != bool(inst.arg)))

    def UNARY_NOT(self, inst):
        self.push(ConstantVariable(not self.truth(self.pop())))

    def _unary(self, fn):
        v = self.pop()
        if isinstance(v, TensorVariable):
            self.push(self.call_graph("call_function", fn, [v], {}))
        else:
            self.push(_wrap_const_result(fn(v.as_python_constant())))

    def UNARY_NEGATIVE(self, inst):
        self._unary(operator.neg)

    def UNARY_INVERT(self, inst):
        self._unary(operator.invert)

    def UNARY_POSITIVE(self, inst):
        self._unary(operator.pos)

    def BINARY_SUBSCR(self, inst):
        idx = self.pop()
        obj = self.pop()
        self.push(self.subscript(obj, idx))

    def STORE_SUBSCR(self, inst):
        idx = self.pop()
        obj = self.pop()
        val = self.pop()
        if isinstance(obj, TensorVariable):
            self.call_graph("call_function", operator.setitem, [obj, idx, val], {})
        elif isinstance(obj, ListVariable):
            self.mutate(obj)
            obj.items[idx.as_python_constant()] = val
        elif isinstance(obj, DictVariable):
            self.mutate(obj)
            obj.items[idx.as_python_constant()] = val
        else:
            raise Unsupported(f"item assignment on {type(obj).__name__}")

    def BUILD_TUPLE(self, inst):
        self.push(TupleVariable(self.popn(inst.arg)))

    def BUILD_LIST(self, inst):
        self.push(ListVariable(self.popn(inst.arg)))

    def BUILD_MAP(self, inst):
        items = self.popn(2 * inst.arg)
        self.push(DictVariable({items[i].as_python_constant(): items[i + 1] for i in range(0, len(items), 2)}))

    def BUILD_CONST_KEY_MAP(self, inst):
        keys = self.pop().as_python_constant()
        vals = self.popn(inst.arg)
        self.push(DictVariable(dict(zip(keys, vals))))

    def BUILD_SLICE(self, inst):
        parts = self.popn(inst.arg)
        if not all(p.is_python_constant() for p in parts):
            raise Unsupported("a slice with tensor bounds")
        self.push(ConstantVariable(slice(*[p.as_python_constant() for p in parts])))

    def BUILD_STRING(self, inst):
        parts = self.popn(inst.arg)
        self.push(ConstantVariable("".join(p.as_python_constant() for p in parts)))

    def FORMAT_VALUE(self, inst):
        spec = self.pop().as_python_constant() if inst.arg & 0x04 else ""
        v = self.pop()
        if not v.is_python_constant():
            raise Unsupported(f"formatting a {type(v).__name__} into a string")
        v = v.as_python_constant()
        conv = inst.arg & 0x03
        v = str(v) if conv == 1 else repr(v) if conv == 2 else ascii(v) if conv == 3 else v
        self.push(ConstantVariable(format(v, spec)))

    def LIST_APPEND(self, inst):
        v = self.pop()
        self.stack[-inst.arg].items.append(v)

    def LIST_EXTEND(self, inst):
        v = self.pop()
        self.stack[-inst.arg].items.extend(self.unpack(v))

    def LIST_TO_TUPLE(self, inst):
        self.push(TupleVariable(self.pop().items))

    def DICT_MERGE(self, inst):
        v = self.pop()
        if not isinstance(v, DictVariable):
            raise Unsupported("** of a non-dict")
        self.stack[-inst.arg].items.update(v.items)

    DICT_UPDATE = DICT_MERGE

    def MAP_ADD(self, inst):
        v = self.pop()
        k = self.pop()
        self.stack[-inst.arg].items[k.as_python_constant()] = v

    def UNPACK_SEQUENCE(self, inst):
        items = self.unpack(self.pop())
        if len(items) != inst.arg:
            raise Unsupported(f"unpacking {len(items)} values into {inst.arg}")
        for v in reversed(items):
            self.push(v)

    def GET_ITER(self, inst):
        self.push(self.get_iter(self.pop()))

    def FOR_ITER(self, inst):
        it = self.stack[-1]
        if not isinstance(it, IteratorVariable):
            raise Unsupported(f"iterating over {type(it).__name__}")
        v = it.next()
        if v is None:
            self.pop()
            self.jump(inst)
            if _PY312 and self.instructions[self.ip].opname == "END_FOR":
                self.ip += 1                   # 3.12: an exhausted FOR_ITER skips its END_FOR
        else:
            self.push(v)

    # ---- CPython 3.12 additions
    def RETURN_CONST(self, inst):
        self.push(ConstantVariable(inst.argval))
        return "return"

    def LOAD_FAST_AND_CLEAR(self, inst):
        self.push(self.locals.pop(inst.argval, NullVariable()))

    def END_FOR(self, inst):
        self.popn(2)

    def BINARY_SLICE(self, inst):
        end = self.pop()
        start = self.pop()
        obj = self.pop()
        if not (start.is_python_constant() and end.is_python_constant()):
            raise Unsupported("a slice with tensor bounds")
        self.push(self.subscript(obj, ConstantVariable(slice(start.as_python_constant(), end.as_python_constant()))))

    def STORE_SLICE(self, inst):
        end = self.pop()
        start = self.pop()
        obj = self.pop()
        val = self.pop()
        self.push(val)
        self.push(obj)
        self.push(ConstantVariable(slice(start.as_python_constant(), end.as_python_constant())))
        self.STORE_SUBSCR(inst)

    def CALL_INTRINSIC_1(self, inst):
        name = inst.argrepr
        if name == "INTRINSIC_LIST_TO_TUPLE":
            self.push(TupleVariable(self.pop().items))
        elif name == "INTRINSIC_UNARY_POSITIVE":
            self._unary(operator.pos)
        else:
            raise Unsupported(f"CALL_INTRINSIC_1 {name}")

    def JUMP_FORWARD(self, inst):
        self.jump(inst)

    JUMP_BACKWARD = JUMP_BACKWARD_NO_INTERRUPT = JUMP_ABSOLUTE = JUMP_FORWARD

    def _pop_jump(self, inst, when):
        v = self.stack[-1]
        t = self.truth(v)
        self.pop()
        if t == when:
            self.jump(inst)

    def POP_JUMP_FORWARD_IF_TRUE(self, inst):
        self._pop_jump(inst, True)

    POP_JUMP_BACKWARD_IF_TRUE = POP_JUMP_IF_TRUE = POP_JUMP_FORWARD_IF_TRUE

    def POP_JUMP_FORWARD_IF_FALSE(self, inst):
        self._pop_jump(inst, False)

    POP_JUMP_BACKWARD_IF_FALSE = POP_JUMP_IF_FALSE = POP_JUMP_FORWARD_IF_FALSE

    def _none_jump(self, inst, when_none):
        v = self.pop()
        is_none = isinstance(v, ConstantVariable) and v.value is None
        if is_none == when_none:
            self.jump(inst)

    def POP_JUMP_FORWARD_IF_NONE(self, inst):
        self._none_jump(inst, True)

    POP_JUMP_BACKWARD_IF_NONE = POP_JUMP_IF_NONE = POP_JUMP_FORWARD_IF_NONE

    def POP_JUMP_FORWARD_IF_NOT_NONE(self, inst):
        self._none_jump(inst, False)

    POP_JUMP_BACKWARD_IF_NOT_NONE = POP_JUMP_IF_NOT_NONE = POP_JUMP_FORWARD_IF_NOT_NONE

    def JUMP_IF_TRUE_OR_POP(self, inst):
        if self.truth(self.stack[-1]):
            self.jump(inst)
        else:
            self.pop()

    def JUMP_IF_FALSE_OR_POP(self, inst):
        if not self.truth(self.stack[-1]):
            self.jump(inst)
        else:
            self.pop()

    def LOAD_ASSERTION_ERROR(self, inst):
        self.push(UserObjectVariable(AssertionError))

    def RAISE_VARARGS(self, inst):
        raise Unsupported("raise (the exception is raised by Python)")

    def RETURN_GENERATOR(self, inst):
        if getattr(self, "yielded", None) is None:
            raise Unsupported("generator")
        self.push(ConstantVariable(None))

    def YIELD_VALUE(self, inst):
        if getattr(self, "yielded", None) is None:
            raise Unsupported("yield")
        self.yielded.append(self.pop())
        self.push(ConstantVariable(None))

    def BEFORE_WITH(self, inst):
        ctx = self.pop()
        if not isinstance(ctx, GradModeVariable):
            raise Unsupported(f"with {type(ctx).__name__}")
        ctx.prev = self.output.grad_enabled
        self.set_grad(ctx.mode)
        self.block_stack.append(ctx)
        self.push(_WithExit(ctx))
        self.push(ConstantVariable(None))

    def set_grad(self, mode):
        if mode != self.output.grad_enabled:
            self.output.new_node("call_function", _set_enabled, (mode,), {})
            self.output.grad_enabled = mode


_SPECIAL_FUNCTIONS = set()


class _WithExit(VariableTracker):
    def __init__(self, ctx):
        self.ctx = ctx

    def exit(self, tx):
        tx.set_grad(self.ctx.prev)
        if tx.block_stack and tx.block_stack[-1] is self.ctx:
            tx.block_stack.pop()
        return ConstantVariable(None)


class _RealCell(CellVariable):
    """A closure cell of a function defined outside the capture: read through its source."""

    def __init__(self, cell, source):
        super().__init__(None, source)
        self.cell = cell
        self.loaded = None

    def load(self, tx):
        if self.loaded is None:
            try:
                value = self.cell.cell_contents
            except ValueError:
                raise Unsupported("empty closure cell") from None
            self.loaded = tx.wrap(value, self.source)
        return self.loaded


class _ClosureItemSource(AttrSource):
    def __init__(self, fn_source, index):
        self.base, self.index, self.epoch_covered = fn_source, index, fn_source.epoch_covered

    def name(self):
        return f"{self.base.name()}.__closure__[{self.index}].cell_contents"


class _Covered(AttrSource):
    """A module read from an unguarded source, pinned by ID_MATCH: reads through it are epoch-covered."""

    def __init__(self, inner):
        self.inner = inner
        self.epoch_covered = False

    def name(self):
        return self.inner.name()


class _Missing:
    pass


_MISSING = _Missing()


def _global_source(tx, name):
    return GlobalSource(name) if tx.f_globals is tx.output.f_globals else _ForeignGlobal(tx.f_globals, name)


class _ForeignGlobal(GlobalSource):
    """A global of another Python module (an inlined function's module): `__import__(mod).__dict__[name]`."""

    def __init__(self, f_globals, name):
        super().__init__(name)
        self.module_name = f_globals.get("__name__")
        if self.module_name not in sys.modules or sys.modules[self.module_name].__dict__ is not f_globals:
            raise Unsupported(f"globals of {self.module_name!r} are not a module's")

    def name(self):
        return f"___modules[{self.module_name!r}].__dict__[{self.global_name!r}]"


def _from_python_module(source):
    return getattr(source, "from_python_module", False) or isinstance(source, _ForeignGlobal)


def _name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or str(fn)


def _contains_tensor(x):
    if isinstance(x, Tensor):
        return True
    if isinstance(x, (tuple, list)):
        return any(_contains_tensor(i) for i in x)
    return False


def _wrap_const_result(r):
    if isinstance(r, (list,)):
        return ListVariable([_wrap_const_result(i) for i in r])
    if type(r) is tuple:
        return TupleVariable([_wrap_const_result(i) for i in r])
    if isinstance(r, (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType)):
        return BuiltinVariable(r)
    return ConstantVariable(r)


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


class InliningTranslator(InstructionTranslatorBase):
    def __init__(self, output, code, f_globals, symbolic_locals, cells, depth, parent):
        super().__init__(output, code, f_globals, symbolic_locals, cells, depth)
        self.parent = parent

    def run(self):
        while True:
            inst = self.instructions[self.ip]
            self.ip += 1
            if inst.opname == "RETURN_VALUE":
                return self.pop()
            if inst.opname == "RETURN_CONST":
                return ConstantVariable(inst.argval)
            try:
                self.step(inst)
            except Unsupported as e:
                raise e.with_location(self.location())


class InstructionTranslator(InstructionTranslatorBase):
    """The top frame. `break_offsets` are instructions where an earlier attempt found a graph break."""

    def __init__(self, output, code, f_globals, symbolic_locals, cells, break_offsets):
        super().__init__(output, code, f_globals, symbolic_locals, cells, 0)
        self.break_offsets = break_offsets
        output.grad_enabled = bool(_tls.grad_enabled)
        output.global_overrides = {}

    def run(self):
        """Run to RETURN_VALUE or a break. Returns ("return", vt) or ("break", inst, reason)."""
        while True:
            inst = self.instructions[self.ip]
            self.ip += 1
            self.current = inst
            if inst.offset in self.break_offsets:
                return ("break", inst, self.break_offsets[inst.offset])
            if inst.opname == "RETURN_VALUE":
                return ("return", self.pop())
            if inst.opname == "RETURN_CONST":
                return ("return", ConstantVariable(inst.argval))
            try:
                self.step(inst)
            except Unsupported as e:
                e.with_location(self.location())
                if self.output.options.get("fullgraph"):
                    raise
                raise RestartAnalysis(inst.offset, e) from None


_ = (math, config, ClosureSource, LocalSource)
