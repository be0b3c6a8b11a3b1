"""torch._dynamo.variables.builder: VariableBuilder, which wraps a real Python value read from the frame into a
tracker and installs the guards its source needs (tensor match, identity, type, equality, length, dict keys)."""
import types
from collections import OrderedDict

import ember
from ember._tensor import Tensor
from ember.nn import Module

from ..exc import Unsupported
from ..._core.torch_function import _tf_of
from ..resume_execution import ResumeIterator
from ..source import (AttrSource, CoveredSource, ForeignGlobalSource, GlobalSource, ItemSource, IterItemSource,
                      from_library_module)
from ..trace_rules import _CONST_TYPES, _SPECIAL_FUNCTIONS, _disallowed, _is_ember_leaf
from .base import CellVariable, VariableTracker
from .constant import ConstantVariable
from .functions import BuiltinVariable, TorchVariable, UserFunctionVariable, UserMethodVariable
from .lists import DictVariable, ListVariable, ResumeIteratorVariable, TupleVariable
from .nn_module import NNModuleVariable
from .tensor import TensorVariable
from .user_defined import GradModeVariable, UserObjectVariable, WithExitVariable


class VariableBuilder:
    """Mixed into the instruction translator (which owns `self.output`, the OutputGraph)."""

    def wrap(self, value, source):
        out = self.output
        if isinstance(value, Tensor):
            if source is None:
                raise Unsupported("a tensor without a source (a constant tensor captured from a closure)")
            if type(value) is not Tensor and _tf_of(type(value)) is not None:
                # its __torch_function__ decides what each op does and returns (torch's dynamo traces it; ember
                # runs such code eagerly): a graph break, so the results are eager's
                raise Unsupported(f"a {type(value).__name__} tensor subclass with __torch_function__")
            return out.tensor_input(value, source)
        if isinstance(value, Module):
            if source is not None:
                out.guards.id_match(source, value)
                if not source.epoch_covered:
                    source = CoveredSource(source)
            return NNModuleVariable(value, source)
        if isinstance(value, _CONST_TYPES) or isinstance(value, (ember.dtype, ember.device, ember.memory_format, ember.layout)):
            if type(value) is int and source is not None:
                sym = out.int_input(value, source)
                if sym is not None:
                    return ConstantVariable(sym, source)
            if source is not None:
                out.guards.equals_match(source, value)
            return ConstantVariable(value, source)
        if type(value) in (list, tuple, dict, OrderedDict) or isinstance(value, (ember.Size,)):
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
                vt = DictVariable({k: self.wrap(v, ItemSource(source, k, cov, i) if source else None)
                                   for i, (k, v) in enumerate(value.items())}, source)
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
        if callable(value) and not isinstance(value, dict) and (
                value in (ember.no_grad, ember.enable_grad, ember.set_grad_enabled, ember.is_grad_enabled) or
                getattr(value, "_ember_is_compiling", False) or value in _SPECIAL_FUNCTIONS):
            return TorchVariable(value, source)
        if type(value) is ResumeIterator:
            if source is None:
                raise Unsupported("an iterator without a source")
            out.guards.type_match(source, value)
            return ResumeIteratorVariable(source, len(value.items) - value.index,
                                          lambda k: self.wrap(value.items[value.index + k], IterItemSource(source, k)),
                                          out.guards)
        if isinstance(value, types.ModuleType):
            return UserObjectVariable(value, source)
        if isinstance(value, types.FunctionType):
            if value in _disallowed:
                return TorchVariable(value, source)
            if _is_ember_leaf(value):
                return TorchVariable(value, source)
            if source is not None and not from_library_module(source):
                out.guards.id_match(source, value)
            return UserFunctionVariable(value, source)
        if isinstance(value, types.MethodType) and source is not None and value.__name__ == "__exit__" and \
                type(value.__self__) in (ember.no_grad, ember.enable_grad, ember.set_grad_enabled):
            # a resume function's stack holds the `__exit__` of each grad-mode block the break was inside
            ctx_src = AttrSource(source, "__self__")
            out.guards.type_match(ctx_src, value.__self__)
            out.guards.equals_match(AttrSource(ctx_src, "prev"), bool(value.__self__.prev))
            ctx = GradModeVariable(out.grad_enabled)
            ctx.prev = bool(value.__self__.prev)
            self.block_stack.append(ctx)
            return WithExitVariable(ctx)
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
            if source is not None and not from_library_module(source):
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

    def wrap_builtin(self, value):
        if isinstance(value, type) and issubclass(value, BaseException):
            return UserObjectVariable(value)
        if isinstance(value, type) and value not in (list, tuple, dict, int, float, bool, str, range, zip,
                                                     enumerate, reversed, slice, set, frozenset, type, complex, super):
            return UserObjectVariable(value)
        return BuiltinVariable(value)

    def wrap_type(self, vt):
        if isinstance(vt, NNModuleVariable):
            return UserObjectVariable(type(vt.module))
        if isinstance(vt, UserObjectVariable):
            return UserObjectVariable(type(vt.value))
        return ConstantVariable(vt.python_type()) if not isinstance(vt, TensorVariable) else \
            UserObjectVariable(type(vt.fake) if not hasattr(vt, "is_param") else Tensor)


class LazyLocal(VariableTracker):
    """A frame argument not read yet: wrapped (and guarded) at its first LOAD_FAST, as torch's
    VariableBuilder does lazily. An argument the capture never reads gets no guard, and is handed on to a
    resume function through its source."""

    def __init__(self, value, source):
        self.value, self.source = value, source


class RealCellVariable(CellVariable):
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


def global_source(tx, name):
    return GlobalSource(name) if tx.f_globals is tx.output.f_globals else ForeignGlobalSource(tx.f_globals, name)


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
