"""torch._dynamo.variables.functions + builtin + torch: user functions (inlined), bound methods, builtins and
ember's ops (graph leaves)."""
from .base import VariableTracker


class UserFunctionVariable(VariableTracker):
    """A Python function that exists outside the capture; calling it inlines its bytecode."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def python_type(self):
        return type(self.fn)


class NestedFunctionVariable(VariableTracker):
    """A function made by MAKE_FUNCTION during capture (a closure over trackers)."""

    def __init__(self, code, f_globals, name, defaults=None, kwdefaults=None, closure=None):
        self.code, self.f_globals, self.name = code, f_globals, name
        self.defaults, self.kwdefaults, self.closure = defaults, kwdefaults, closure

    def python_type(self):
        import types
        return types.FunctionType


class UserMethodVariable(VariableTracker):
    """`obj.method` for a Python-level method: the function and the tracker of `self`."""

    def __init__(self, fn, obj, source=None):
        self.fn, self.obj, self.source = fn, obj, source


class BuiltinVariable(VariableTracker):
    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def python_type(self):
        return type(self.fn)

    def is_python_constant(self):
        return True

    def as_python_constant(self):
        return self.fn


class TorchVariable(VariableTracker):
    """An ember op or function (a graph leaf): `ember.relu`, `ember.nn.functional.linear`, an OpOverload..."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def python_type(self):
        return type(self.fn)

    def is_python_constant(self):
        return True

    def as_python_constant(self):
        return self.fn


class MethodVariable(VariableTracker):
    """`obj.name` for a method of a container tracker (`lst.append`, `d.items`...) before it is called."""

    def __init__(self, obj, name):
        self.obj, self.name = obj, name


class SuperVariable(VariableTracker):
    """`super()` (or `super(cls, obj)`) inside a traced method: attribute reads start after `cls` in obj's MRO."""

    def __init__(self, cls, obj):
        self.cls, self.obj = cls, obj
