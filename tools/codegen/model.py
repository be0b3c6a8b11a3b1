"""Load the schema YAML files into NativeFunction records (torchgen/model.py's NativeFunction)."""
import dataclasses
import importlib.util
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_schema_package():
    """ember/_schema alone, registered as the top-level module `_schema`, without importing ember. The
    package is loaded by path: putting src/ember itself on sys.path would let ember's subpackages (onnx,
    cuda, distributed, ...) shadow the real packages of those names in the same process."""
    if "_schema" in sys.modules:
        return sys.modules["_schema"]
    path = os.path.join(ROOT, "src", "ember", "_schema")
    spec = importlib.util.spec_from_file_location("_schema", os.path.join(path, "__init__.py"),
                                                  submodule_search_locations=[path])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_schema"] = mod
    spec.loader.exec_module(mod)
    return mod


FunctionSchema = _load_schema_package().FunctionSchema

NATIVE_DIR = os.path.join(ROOT, "src", "ember", "native")
GENERATED_DIR = os.path.join(ROOT, "src", "ember", "_generated")
PYTHON_MODULES = {"": "functions.py", "nn": "nn_functions.py", "linalg": "linalg_functions.py",
                  "special": "special_functions.py"}
DISPATCH_KEYS = ("CPU", "Meta", "BackendSelect", "ADInplaceOrView", "Autograd", "Python",
                 "CompositeExplicitAutograd", "CompositeImplicitAutograd", "CompositeExplicitAutogradNonFunctional")


@dataclasses.dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    variants: tuple          # ("function",), ("method",) or both
    dispatch: dict           # key name -> "module:function" relative to ember.kernels
    tags: tuple
    python: str              # "visible" or "hidden" (no Python binding, still an op)
    source: str              # yaml file it came from
    python_module: str = ""  # torch's python_module: "nn" -> ember._nn (torch._C._nn), not ember.<name>

    @property
    def name(self):
        return self.func.name


def load_native_functions(native_dir=NATIVE_DIR):
    files = sorted(f for f in os.listdir(native_dir) if f.endswith(".yaml") and not f.startswith("derivatives"))
    out, seen = [], {}
    for fname in files:
        with open(os.path.join(native_dir, fname)) as f:
            entries = yaml.safe_load(f) or []
        for e in entries:
            unknown = set(e) - {"func", "variants", "dispatch", "tags", "python", "python_module"}
            if unknown:
                raise ValueError(f"{fname}: unknown keys {sorted(unknown)} in entry {e.get('func')!r}")
            schema = FunctionSchema.parse(e["func"])
            if str(schema) != e["func"]:
                raise ValueError(f"{fname}: schema does not round-trip: {e['func']!r} vs {str(schema)!r}")
            key = str(schema.name)
            if key in seen:
                raise ValueError(f"{fname}: {key} already defined in {seen[key]}")
            seen[key] = fname
            variants = tuple(v.strip() for v in e.get("variants", "function").split(","))
            dispatch = dict(e.get("dispatch") or {})
            for k in dispatch:
                if k not in DISPATCH_KEYS:
                    raise ValueError(f"{fname}: unknown dispatch key {k!r} for {key}")
            tags = e.get("tags") or ()
            tags = tuple([tags] if isinstance(tags, str) else tags)
            module = e.get("python_module", "")
            if module not in PYTHON_MODULES:
                raise ValueError(f"{fname}: unknown python_module {module!r} for {key}")
            out.append(NativeFunction(schema, variants, dispatch, tags, e.get("python", "visible"), fname, module))
    return out
