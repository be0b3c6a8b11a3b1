"""The layer rule: ember's modules import only downwards.

    _core < _dispatch < ops < _generated < kernels < autograd < facade (Tensor, ember.*)
          < nn / optim / utils.data < serialization < fx / compiler < distributed < testing

Two checks:
- each layer is imported in a fresh interpreter with every layer above it blocked (a meta path finder
  that raises ImportError on them), so a module-level import that goes upwards fails;
- every deferred import (an import inside a function) is read with `ast`; one that goes upwards must be
  listed in DEFERRED_ALLOWED with the reason it cannot be a registration hook or a downward import.

To shrink the allowlists: fix an entry, delete its line; the test fails on entries that no longer occur,
so they cannot go stale.
"""
import ast
import functools
import os
import subprocess
import sys
import textwrap

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
PKG = os.path.join(SRC, "ember")

# Layers, lowest first. A module belongs to the layer of its longest matching prefix.
LAYERS = [
    ("core", ["ember._core", "ember._grad_mode", "ember._dtype_info", "ember.version", "ember._numeric_flags",
              "ember.torch_version", "ember._C"]),
    ("dispatch", ["ember._dispatch"]),
    ("ops", ["ember._ops", "ember._schema", "ember._arg_parser", "ember._fallbacks", "ember._math_bits", "ember.library",
             "ember._random", "ember._bindings"]),
    ("generated", ["ember._generated", "ember.return_types"]),
    ("kernels", ["ember.kernels", "ember._cc"]),
    ("autograd", ["ember.autograd", "ember._generated.autograd", "ember._generated.autograd_registrations"]),
    ("facade", ["ember", "ember._tensor", "ember._indexing", "ember._conversions", "ember._tensor_str",
                "ember.functional", "ember.linalg", "ember.func", "ember._tensor_types", "ember.fft", "ember.special",
                "ember.signal", "ember.overrides"]),
    ("nn", ["ember.nn", "ember.optim", "ember.utils", "ember.utils.data", "ember.utils.checkpoint", "ember.amp",
            "ember.distributions",
            "ember.cuda", "ember.backends", "ember.cpu", "ember.accelerator", "ember.random", "ember.profiler",
            "ember.multiprocessing", "ember.types"]),
    ("serialization", ["ember.serialization", "ember.utils.safetensors", "ember.hub"]),
    ("compiler", ["ember.fx", "ember._dynamo", "ember._functorch", "ember._inductor", "ember.compiler", "ember._decomp",
                  "ember._subclasses", "ember.jit", "ember.onnx", "ember.export"]),
    ("distributed", ["ember.distributed"]),
    ("testing", ["ember.testing"]),
]
LAYER_INDEX = {name: i for i, (name, _) in enumerate(LAYERS)}

# Modules whose module-level imports still go upwards (so they are not imported in their layer's check),
# module -> reason.
MODULE_LEVEL_ALLOWED = {
}

# Deferred upward imports still allowed: importing module -> {imported module: reason}.
DEFERRED_ALLOWED = {
    "ember.func": {"ember._functorch.eager_transforms": "torch.func.functionalize is a compiler-layer transform "
                                                        "(make_fx trace + functionalization pass), exposed at "
                                                        "torch's facade path, imported when called"},
    "ember.nn.parallel.distributed": {"ember.distributed": "DistributedDataParallel lives at torch's nn.parallel path "
                                                           "but is a distributed-layer object: it imports the "
                                                           "process group at construction"},
    "ember.utils.data.distributed": {"ember.distributed": "DistributedSampler (torch's path) asks the default process "
                                                          "group for rank and world size when they are not given"},
}


# Import cycles (module-level and deferred imports together) still present, each a sorted tuple of modules.
KNOWN_CYCLES = {
}


def layer_of(module):
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            # "ember" is the package __init__ only: every other module is placed by its own entry
            if (module == p or p != "ember" and module.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def _all_modules():
    out = {}
    for root, dirs, files in os.walk(PKG):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, SRC)[:-3].replace(os.sep, ".")
            mod = rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
            out[mod] = path
    return out


MODULES = _all_modules()


def _resolve(importer, is_pkg, node):
    """The modules an import statement names (a `from pkg import name` counts as pkg.name when that is a
    module, else as pkg)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = importer.split(".")
        if not is_pkg:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        pkg = ".".join(base + ([node.module] if node.module else []))
    else:
        pkg = node.module
    out = []
    for a in node.names:
        sub = f"{pkg}.{a.name}"
        out.append(sub if sub in MODULES else pkg)
    return out


@functools.lru_cache(maxsize=None)
def _imports(module):
    """(module-level imports, deferred imports) of an ember module, as sets of ember module names."""
    path = MODULES[module]
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    is_pkg = path.endswith("__init__.py")
    top, deferred = set(), set()

    def visit(node, in_func):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                names = [n for n in _resolve(module, is_pkg, child) if n == "ember" or n.startswith("ember.")]
                (deferred if in_func else top).update(names)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            else:
                visit(child, in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    visit(tree, False)
    return top, deferred


def _upward(module, targets):
    lm = layer_of(module)
    return {t for t in targets if layer_of(t) is not None and lm is not None and layer_of(t) > lm}


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_deferred_imports_go_downwards_or_are_allowed():
    found = {}
    for m in sorted(MODULES):
        up = _upward(m, _imports(m)[1])
        if up:
            found[m] = up
    unexpected = {m: sorted(t for t in ts if t not in DEFERRED_ALLOWED.get(m, {})) for m, ts in found.items()}
    unexpected = {m: ts for m, ts in unexpected.items() if ts}
    assert unexpected == {}, "deferred imports into a higher layer (use a registration hook, or allow with a reason)"
    stale = {m: sorted(t for t in ts if t not in found.get(m, set())) for m, ts in DEFERRED_ALLOWED.items()}
    assert {m: ts for m, ts in stale.items() if ts} == {}, "allowlist entries that no longer occur: delete them"


def test_allowlists_give_reasons():
    for m, ts in DEFERRED_ALLOWED.items():
        assert m in MODULES, m
        for t, why in ts.items():
            assert isinstance(why, str) and len(why) > 20, (m, t)
    for m, why in MODULE_LEVEL_ALLOWED.items():
        assert m in MODULES and isinstance(why, str) and len(why) > 20, m


def test_module_level_imports_go_downwards():
    """The static form of the check below: names each offending import."""
    found = {}
    for m in sorted(MODULES):
        up = _upward(m, _imports(m)[0])
        if up:
            found[m] = sorted(up)
    assert {m: ts for m, ts in found.items() if m not in MODULE_LEVEL_ALLOWED} == {}
    assert sorted(m for m in MODULE_LEVEL_ALLOWED if m not in found) == [], "allowlist entries that no longer occur"


_CHILD = textwrap.dedent("""
    import importlib, importlib.abc, sys, types
    src, stub, blocked, modules = sys.argv[1], sys.argv[2] == "1", sys.argv[3].split(","), sys.argv[4].split(",")
    sys.path.insert(0, src)

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            for p in blocked:
                if p and (name == p or name.startswith(p + ".")):
                    raise ImportError(f"layer rule: {name} is above the layer being imported")
            return None

    sys.meta_path.insert(0, Block())
    if stub:
        # the facade is ember/__init__.py itself: load the package's modules without running it
        pkg = types.ModuleType("ember")
        pkg.__path__ = [src + "/ember"]

        def __getattr__(name):
            raise AttributeError(f"layer rule: ember.{name} is the public facade, above this layer")
        pkg.__getattr__ = __getattr__
        sys.modules["ember"] = pkg
    optional = set(sys.argv[5].split(","))
    for m in modules:
        if m:
            try:
                importlib.import_module(m)
            except ModuleNotFoundError as e:
                # a module that needs an optional package raises torch's error when it is missing: not a layer break
                if (e.name or "").split(".")[0] not in optional:
                    raise
""")

# Third-party packages that some modules need and the test extras do not install: a module that fails to import
# only because one of these is missing is not a layer break (ember.utils.tensorboard raises as torch's does).
OPTIONAL_PACKAGES = ("tensorboard", "onnx", "onnxruntime")


def _blocked_above(i):
    """Prefixes of the layers above i, except `ember` (the facade is every module's package: it is
    replaced by a stub instead) and prefixes of modules at or below i."""
    mine = [p for _, ps in LAYERS[: i + 1] for p in ps]
    return [p for _, ps in LAYERS[i + 1:] for p in ps
            if p != "ember" and not any(q == p or q.startswith(p + ".") for q in mine)]


@pytest.mark.parametrize("layer", [name for name, _ in LAYERS])
def test_layer_imports_with_higher_layers_blocked(layer):
    i = LAYER_INDEX[layer]
    mods = sorted(m for m in MODULES if layer_of(m) == i and m not in MODULE_LEVEL_ALLOWED)
    if not mods:
        pytest.skip(f"no modules in layer {layer}")
    stub = "1" if i < LAYER_INDEX["facade"] else "0"
    r = subprocess.run([sys.executable, "-c", _CHILD, SRC, stub, ",".join(_blocked_above(i)), ",".join(mods),
                        ",".join(OPTIONAL_PACKAGES)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]


def _cycles():
    """The strongly connected components (of two or more modules) of the import graph."""
    graph = {m: sorted((lambda ti: (ti[0] | ti[1]) & set(MODULES))(_imports(m)) - {m}) for m in MODULES}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):   # Tarjan's algorithm
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(old)
    return set(out)


def test_no_import_cycles_but_the_known_ones():
    found = _cycles()
    assert found - set(KNOWN_CYCLES) == set(), "new import cycles"
    assert set(KNOWN_CYCLES) - found == set(), "known cycles that are gone or changed: update KNOWN_CYCLES"
