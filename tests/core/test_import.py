"""`import ember` never imports torch, stays light (no ml_dtypes until bfloat16/float8 are used, no
compiler, distributed or nn layers until they are named)."""
import os
import subprocess
import sys

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")


def _run(code):
    r = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {SRC!r}); " + code],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_library_never_imports_torch():
    out = _run("import ember; x = ember.tensor([1.0, 2.0]); (x + x).sum() if hasattr(x, 'sum') else None; "
               "print('torch' in sys.modules, 'torchgen' in sys.modules)")
    assert out == "False False"


def test_no_source_file_imports_torch():
    import re
    pat = re.compile(r"^\s*(import torch|from torch)\b", re.M)
    for root, _, files in os.walk(os.path.join(SRC, "ember")):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(root, f)) as fh:
                    assert not pat.search(fh.read()), os.path.join(root, f)


def test_heavy_parts_load_lazily():
    out = _run("import ember; print(sorted(m for m in ('ml_dtypes', 'ember.nn', 'ember.optim', 'ember.serialization', "
               "'ember.autograd', 'yaml') if m in sys.modules))")
    assert out == "[]"


def test_bfloat16_loads_ml_dtypes_on_demand():
    out = _run("import ember; t = ember.tensor([1.5], dtype=ember.bfloat16); print(t.dtype, 'ml_dtypes' in sys.modules)")
    assert out == "ember.bfloat16 True"


# What `import ember` must leave unloaded: every layer above the eager core (they load on first
# attribute access through ember.__getattr__), the kernels beyond the cpu runtime (registered lazily
# by the op table), and the stdlib/numpy modules whose import cost nothing at import time needs.
_HEAVY = (
    "ember.fx", "ember._dynamo", "ember._functorch", "ember._inductor", "ember._subclasses", "ember._decomp",
    "ember.compiler", "ember.distributed", "ember.onnx", "ember.jit", "ember.amp", "ember.cuda",
    "ember.backends", "ember.func", "ember.linalg", "ember.testing", "ember.utils", "ember.library",
    "ember.nn", "ember.optim", "ember.autograd", "ember.serialization", "ember._cc",
    "ember.kernels.cpu.elementwise", "ember.kernels.meta", "ember.kernels.decompositions",
    "ember._generated.autograd_registrations", "ember._generated.nn_functions", "ember._generated.linalg_functions",
    "numpy.random", "concurrent.futures", "logging", "secrets", "ml_dtypes", "yaml", "sympy", "mpi4py",
    "ember.distributions", "ember.fft", "ember.special", "ember.return_types", "ember.overrides",
    "ember.utils.tensorboard", "ember.nn.functional", "ember.optim.lr_scheduler",
    "zlib", "mmap", "subprocess", "tempfile", "json", "importlib.util",
)


def test_import_leaves_upper_layers_and_heavy_modules_unloaded():
    out = _run(f"import ember; print(sorted(m for m in {_HEAVY!r} if m in sys.modules))")
    assert out == "[]"


def test_upper_layers_load_on_first_access():
    out = _run("import ember; ember.nn; ember.fx; print('ember.nn' in sys.modules, 'ember.fx' in sys.modules)")
    assert out == "True True"


def test_random_stream_is_built_lazily_and_reproducible():
    out = _run("import ember; ember.manual_seed(3); a = ember.rand(4).tolist(); "
               "print('numpy.random' in sys.modules); ember.manual_seed(3); print(a == ember.rand(4).tolist())")
    assert out == "True\nTrue"


def test_import_leaves_the_cycle_collector_as_it_found_it():
    # the import pauses the collector while it builds its objects
    out = _run("import gc; import ember; print(gc.isenabled(), hasattr(ember, '_gc'))")
    assert out == "True False"
    out = _run("import gc; gc.disable(); import ember; print(gc.isenabled())")
    assert out == "False"


def test_bindings_build_their_op_overloads_on_first_call():
    out = _run(
        "import ember; from ember import _ops; from ember._generated.torch_functions import elementwise as F; "
        "print(type(F._op_addcmul_default).__name__, F._c_addcmul_default is _ops.lookup('aten', 'addcmul')"
        ".cache); a = ember.ones(2); print(ember.addcmul(a, a, a, value=2).tolist()); "
        "op = ember.ops.aten.addcmul.default; print(F._op_addcmul_default is op, F._c_addcmul_default is "
        "op._dispatch_cache, len(op._dispatch_cache) > 0)")
    assert out == "LazyOverload True\n[3.0, 3.0]\nTrue True True"


def test_import_freezes_its_objects_out_of_the_collector():
    """The ~30k long-lived objects `import ember` makes go to the collector's permanent generation: the first
    young pass after the import no longer walks them (it was the largest self time of the import)."""
    out = _run("import gc; import ember; print(gc.get_freeze_count() > 10000, len(gc.get_objects(0)) < 2000, "
               "gc.isenabled())")
    assert out == "True True True"


def test_cycles_made_after_the_import_are_still_collected():
    out = _run("import gc, weakref; import ember\n"
               "class Node: pass\n"
               "a = Node(); a.me = a; a.t = ember.ones(3); r = weakref.ref(a); del a\n"
               "gc.collect(); print(r() is None)")
    assert out == "True"


def test_import_with_the_collector_off_freezes_nothing():
    out = _run("import gc; gc.disable(); import ember; print(gc.get_freeze_count(), gc.isenabled())")
    assert out == "0 False"


def test_import_compiles_no_binding_family():
    """The generated bindings are split per op family and loaded on first use (ember/_bindings.py): `import ember`
    runs none of the family modules (1.4 MB of source, compiled at every import without cached bytecode)."""
    out = _run("import ember; print(sorted(m for m in sys.modules if m.startswith(('ember._generated.torch_functions.', "
               "'ember._generated.variable_methods.'))))")
    assert out == "[]"


def test_a_binding_loads_its_family_only():
    out = _run("import ember; f = ember.addcmul; fams = lambda: sorted(m.rpartition('.')[2] for m in sys.modules "
               "if m.startswith('ember._generated.torch_functions.')); print(fams()); "
               "print(f is ember.addcmul, 'addcmul' in vars(ember), ember.sub is vars(ember)['sub'], fams())")
    assert out == "['elementwise']\nTrue True True ['elementwise']"


def test_a_method_loads_its_family_and_takes_the_placeholders_place():
    out = _run("import ember; from ember._generated.tensor_methods import TensorMethods as M; "
               "from ember._bindings import LazyMethod; T = ember.Tensor; "
               "print(type(vars(M)['add']).__name__, vars(T)['__add__'] is vars(M)['add']); "
               "x = ember.ones(2); print((x + x).tolist(), type(vars(M)['add']).__name__, vars(T)['__add__'] is vars(M)['add'], "
               "type(vars(M)['sub_']).__name__, type(vars(M)['view']).__name__, T.add.__qualname__)")
    assert out == "LazyMethod True\n[2.0, 2.0] function True function LazyMethod add"


def test_a_bad_first_call_of_a_family_raises_what_later_calls_raise():
    """Loading a family inside the call that first needs it changes nothing about that call's error."""
    code = ("import ember; x = ember.ones(2)\n"
            "def err(f):\n"
            "    try:\n"
            "        f()\n"
            "    except TypeError as e:\n"
            "        return str(e)\n"
            "a, b = err(lambda: x.view('a')), err(lambda: ember.cumsum(x, 'a'))\n"
            "print(a == err(lambda: x.view('a')), b == err(lambda: ember.cumsum(x, 'a')), bool(a and b))")
    assert _run(code) == "True True True"


def test_autograd_loads_the_binding_families_its_formulas_call_only():
    """The generated Autograd modules import the bindings they call by name (not `import *`, which would load
    every family the first time a tensor requires grad)."""
    out = _run("import ember; x = ember.ones(3, requires_grad=True); (x * 2).sum().backward(); print(x.grad.tolist()); "
               "print(sorted(m for m in ('conv', 'linalg', 'loss', 'pool', 'rnn', 'fft', 'sort') "
               "if 'ember._generated.torch_functions.' + m in sys.modules))")
    assert out == "[2.0, 2.0, 2.0]\n[]"


def test_subclasses_made_before_a_family_loads_get_its_operators():
    """A Tensor subclass (Parameter, a user's) exists before the first `-`/`+=` loads the elementwise methods:
    putting them in place of the placeholders updates the subclasses' operator slots too."""
    out = _run("import ember\nclass Sub(ember.Tensor): pass\n"
               "s = Sub([1.0, 2.0]); p = ember.nn.Parameter(ember.ones(2))\n"
               "with ember.no_grad():\n    p += 1\n"
               "print(type(s).__name__, (s - 1).tolist(), (-s).tolist(), p.tolist(), (p * 2).tolist())")
    assert out == "Sub [0.0, 1.0] [-1.0, -2.0] [2.0, 2.0] [4.0, 4.0]"
