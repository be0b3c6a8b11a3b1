"""Generated bindings (tools/codegen/gen_python.py): a keyword-only argument left at its schema default is not
passed on, string defaults included (gelu's approximate), so a dispatch mode sees the call as torch's does."""
import pytest

import ember

torch = pytest.importorskip("torch")


def _seen(mod, fn):
    from importlib import import_module
    base = import_module(mod.__name__ + ".utils._python_dispatch").TorchDispatchMode
    seen = []

    class Log(base):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((str(func), len(args), dict(kwargs or {})))
            return func(*args, **(kwargs or {}))

    x = mod.randn(3, 4)
    with Log():
        fn(mod, x)
    return [(f, n, {k: str(v) for k, v in kw.items()}) for f, n, kw in seen]


@pytest.mark.parity
@pytest.mark.parametrize("call", [lambda m, x: m.nn.functional.gelu(x),
                                  lambda m, x: m.nn.functional.gelu(x, approximate="none"),
                                  lambda m, x: m.nn.functional.gelu(x, approximate="tanh")])
def test_a_string_default_is_not_passed_to_the_op(call):
    assert _seen(ember, call) == _seen(torch, call)
