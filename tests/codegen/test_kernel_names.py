"""Every kernel a native/*.yaml entry names ("module:function" under ember.kernels) imports and is
callable, and the codegen refuses a name that does not resolve."""
import ast
import importlib
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tools.codegen import gen_registrations  # noqa: E402
from tools.codegen.model import load_native_functions  # noqa: E402


# nn.functional's implementation, moving out of kernels/ to nn/functional/ (issue 13, the nn part)
_LEAVING_KERNELS = set()


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


def test_no_kernel_module_imports_the_public_facade():
    """Kernels sit below the public `ember` namespace (layer rule): no `import ember`, no `from ember import
    <public name>` (absolute or relative), anywhere in a kernel module, including inside functions."""
    kdir = os.path.join(ROOT, "src", "ember", "kernels")
    offenders = []
    for r, _, fs in os.walk(kdir):
        for f in fs:
            if not f.endswith(".py") or f in _LEAVING_KERNELS:
                continue
            p = os.path.join(r, f)
            pkg = ["ember"] + os.path.relpath(r, os.path.dirname(kdir)).split(os.sep)   # ember, kernels, ...
            for node in ast.walk(ast.parse(open(p).read())):
                if isinstance(node, ast.Import):
                    bad = [a.name for a in node.names if a.name == "ember" or a.name.startswith("ember.")
                           and not a.name.split(".")[1].startswith("_")]
                elif isinstance(node, ast.ImportFrom):
                    mod = node.module or ""
                    if node.level:
                        base = pkg[:len(pkg) - node.level + 1]
                        mod = ".".join(base + ([mod] if mod else []))
                    bad = [a.name for a in node.names if mod == "ember" and not a.name.startswith("_")]
                else:
                    continue
                if bad:
                    offenders.append(f"{os.path.relpath(p, ROOT)}:{node.lineno}: {bad}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("name, message", [
    ("cpu.elementwise:no_such_kernel", "defines no 'no_such_kernel'"),
    ("cpu.no_such_module:add", "no module ember.kernels.cpu.no_such_module"),
    ("cpu.elementwise.add", "is not a 'module:function' name"),
])
def test_codegen_refuses_a_kernel_name_that_does_not_resolve(name, message):
    with pytest.raises(ValueError, match=message):
        gen_registrations.check_kernel_name(name, "test.yaml: op")
