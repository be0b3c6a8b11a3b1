"""torch.jit: TorchScript's entry points as scripts meet them in eager code. ember has no TorchScript
compiler: code is never being scripted or traced (`is_scripting()`/`is_tracing()` are False), the
decorators that steer the scripting compiler (`ignore`, `unused`, `export`, ...) return their function
unchanged, and `script`/`trace`/`save`/`load` raise NotImplementedError pointing to `ember.compile`.
"""
from .._core.unimplemented import missing_attribute as _missing_attribute
import typing as _typing

_NO_JIT = ("ember has no TorchScript compiler; {what} is not supported. To speed up a model, use "
           "ember.compile(model), which captures the graph and generates fused C kernels.")

Final = _typing.Final


def is_scripting():
    """False: eager code is never being compiled by TorchScript."""
    return False


def is_tracing():
    """False: eager code is never being recorded by torch.jit.trace."""
    return False




def ignore(drop=False, **kwargs):
    """`@torch.jit.ignore` or `@torch.jit.ignore(drop=True)`: leaves the function as Python."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """`@torch.jit.unused`: the compiler would replace the body with a raise; eager keeps it."""
    return fn


def export(fn):
    """`@torch.jit.export`: marks a method as a compilation entry point; eager keeps it as is."""
    return fn


def interface(obj):
    return obj


def script_if_tracing(fn):
    return fn


def annotate(the_type, the_value):
    """`torch.jit.annotate(List[int], [])` tells the compiler a type; in eager it is the value."""
    return the_value


def _overload(fn):
    return fn


def _overload_method(fn):
    return fn


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    raise NotImplementedError(_NO_JIT.format(what="torch.jit.script"))


def trace(func, example_inputs=None, *args, **kwargs):
    raise NotImplementedError(_NO_JIT.format(what="torch.jit.trace"))


def trace_module(mod, inputs, *args, **kwargs):
    raise NotImplementedError(_NO_JIT.format(what="torch.jit.trace_module"))


def save(m, f, _extra_files=None):
    raise NotImplementedError(_NO_JIT.format(what="torch.jit.save (TorchScript archives)")
                              + " Save weights with ember.save(model.state_dict(), path).")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError(_NO_JIT.format(what="torch.jit.load (TorchScript archives)")
                              + " Load weights with ember.load(path) and Module.load_state_dict.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    raise NotImplementedError(_NO_JIT.format(what="torch.jit.freeze"))


class ScriptModule:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_JIT.format(what="torch.jit.ScriptModule"))


class ScriptFunction:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_JIT.format(what="torch.jit.ScriptFunction"))


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
