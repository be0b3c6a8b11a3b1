"""Every kernel a native/*.yaml entry names ("module:function" under ember.kernels) imports and is
callable, and the codegen refuses a name that does not resolve."""
import importlib
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tools.codegen import gen_registrations  # noqa: E402
from tools.codegen.model import load_native_functions  # noqa: E402


def _names():
    return sorted({v for f in load_native_functions() for v in f.dispatch.values()})


def test_every_dispatch_string_resolves_to_a_callable():
    names = _names()
    assert len(names) > 500
    bad = []
    for name in names:
        mod, _, attr = name.partition(":")
        try:
            fn = getattr(importlib.import_module("ember.kernels." + mod), attr)
        except (ImportError, AttributeError) as e:
            bad.append(f"{name}: {type(e).__name__}: {e}")
            continue
        if not callable(fn):
            bad.append(f"{name}: not callable ({type(fn).__name__})")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name, message", [
    ("cpu.elementwise:no_such_kernel", "defines no 'no_such_kernel'"),
    ("cpu.no_such_module:add", "no module ember.kernels.cpu.no_such_module"),
    ("cpu.elementwise.add", "is not a 'module:function' name"),
])
def test_codegen_refuses_a_kernel_name_that_does_not_resolve(name, message):
    with pytest.raises(ValueError, match=message):
        gen_registrations.check_kernel_name(name, "test.yaml: op")
