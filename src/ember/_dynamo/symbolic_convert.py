"""torch._dynamo.symbolic_convert: InstructionTranslator, which runs a frame's CPython bytecode over variable
trackers. Tensor ops become nodes of the fx graph (their fake values computed by the Meta kernels); Python values
read from the frame become guards; user functions, methods and nn.Module calls are inlined.
Something that cannot be captured raises Unsupported: at the top frame capture restarts with a graph break at
that instruction (a call inside an inlined function breaks at the top frame's call site).

The translator is split by idea, as torch's is: this module holds the interpreter loop, the value stack, graph
calls and the Python semantics of attributes, iteration, truth and operators; `opcodes.py` the per-version
opcode handlers; `calls.py` calls and inlining; `variables/builder.py` the wrapping of real values with guards;
`trace_rules.py` what is a graph leaf, inlined, or a break.
"""
import builtins
import dis
import inspect
import operator
import sys
import types

from ember._core.symint import SymInt
from ember._core.tls import state as _tls
from ember._grad_mode import _set_enabled
from ember._tensor import Tensor

from .calls import CallHandlers
from .exc import RestartAnalysis, Unsupported
from .opcodes import OPCODE_TABLE, SUPPORTED_VERSIONS, OpcodeHandlers  # noqa: F401
from .source import AttrSource, ParamSource
from .trace_rules import _SPECIAL_FUNCTIONS, _allowed_in_graph, _disallowed, _is_ember_leaf  # noqa: F401
from .utils import qualified_name as _name, user_location
from .variables import (BuiltinVariable, ConstantVariable, DictVariable, IteratorVariable, ListVariable,
                        MethodVariable, NestedFunctionVariable, NNModuleVariable, TensorMethodVariable,
                        TensorVariable, TorchVariable, TupleVariable, UserFunctionVariable, UserMethodVariable,
                        UserObjectVariable)
from .variables.functions import SuperVariable
from .variables.builder import RealCellVariable, VariableBuilder, _contains_tensor, _wrap_const_result  # noqa: F401


_PY310 = sys.version_info[:2] < (3, 11)


class InstructionTranslatorBase(VariableBuilder, CallHandlers, OpcodeHandlers):
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
        handler = OPCODE_TABLE.get(inst.opname)
        if handler is None:
            raise Unsupported(f"opcode {inst.opname} is not supported")
        return handler(self, inst)


    # ------------------------------------------------------------------ graph calls
    def graph_arg(self, vt):
        if isinstance(vt, TensorVariable):
            return vt.node, vt.fake
        if isinstance(vt, ConstantVariable):
            v = vt.value
            if isinstance(v, slice):
                if any(x.__class__ is SymInt for x in (v.start, v.stop, v.step)):
                    return slice(*self.output.sym_arg((v.start, v.stop, v.step))), v
                return v, v
            return self.output.sym_arg(v), v
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
            if target is operator.setitem:      # t[i] = v returns None but writes t: the graph must run it
                self.output.new_node(kind, target, tuple(gargs), gkw)
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

    # ------------------------------------------------------------------ attributes
    def getattr(self, obj, name):
        if isinstance(obj, TensorVariable):
            if name == "grad" and obj.source is not None:
                # a frame input's .grad is read as an input of its own (guarded per call: backward sets it
                # without touching the module epoch)
                real = next((v for _, v, t in self.output.inputs if t is obj), None)
                if real is not None:
                    return self.wrap(real.grad, AttrSource(obj.source, "grad"))
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
        if isinstance(obj, SuperVariable):
            return self.super_getattr(obj, name)
        if isinstance(obj, UserObjectVariable):
            if name in obj.pending_attrs:
                return obj.pending_attrs[name]
            value = getattr(obj.value, name)
            src = AttrSource(obj.source, name) if obj.source is not None else None
            if isinstance(obj.value, types.ModuleType) and src is not None:
                src.module_name = obj.value.__name__
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


class _Missing:
    pass


_MISSING = _Missing()


class InliningTranslator(InstructionTranslatorBase):
    def __init__(self, output, code, f_globals, symbolic_locals, cells, depth, parent):
        super().__init__(output, code, f_globals, symbolic_locals, cells, depth)
        self.parent = parent

    def run(self):
        if _PY310 and self.ip == 0:
            self.make_cells_310()
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
        output.entry_grad_enabled = output.grad_enabled
        output.global_overrides = {}

    def run(self):
        """Run to RETURN_VALUE or a break. Returns ("return", vt) or ("break", inst, reason)."""
        if _PY310 and self.ip == 0:
            self.make_cells_310()
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


InstructionTranslatorBase.inlining_translator = InliningTranslator
