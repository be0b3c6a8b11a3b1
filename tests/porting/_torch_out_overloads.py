"""The functions real torch's Python API accepts `out=` on, read from torch's own schema file and binding
generator (torchgen ships inside the torch wheel: native_functions.yaml and gen_python_functions.py), so
the list is torch's installed version, not a copy that could go stale. Empty when torch is absent."""
import functools
import os


@functools.lru_cache(maxsize=None)
def out_overloads():
    """[(module, python name, torch out-overload name, PythonSignatureGroup)] for torch.*, torch.linalg.*,
    torch.fft.* and torch.special.*: every public function with a Python signature that takes out=."""
    try:
        import torch
        import torchgen
        from torchgen.gen import parse_native_yaml
        from torchgen.packaged.autograd import gen_python_functions as g
    except ImportError:
        return []
    root = os.path.dirname(torchgen.__file__)
    native = os.path.join(root, "packaged", "ATen", "native")
    parsed = parse_native_yaml(os.path.join(native, "native_functions.yaml"), os.path.join(native, "tags.yaml"))
    fns = [f for f in parsed.native_functions if g.should_generate_py_binding(f)]
    pairs = g.load_signatures(fns, os.path.join(root, "packaged", "autograd", "deprecated.yaml"), method=False,
                              skip_deprecated=True)
    modules = {"torch": (g.is_py_torch_function, ""), "linalg": (g.is_py_linalg_function, "linalg_"),
               "fft": (g.is_py_fft_function, "fft_"), "special": (g.is_py_special_function, "special_")}
    found = []
    for module, (pred, prefix) in modules.items():
        namespace = torch if module == "torch" else getattr(torch, module)
        for name, overloads in g.group_filter_overloads(pairs, pred).items():
            pyname = str(name)[len(prefix):]
            if pyname.startswith("_") or not hasattr(namespace, pyname):
                continue
            for group in g.group_overloads(overloads):
                if group.outplace is not None:
                    found.append((module, pyname, group.outplace.func.name.overload_name, group))
    return found


def sample_arguments(group, T):
    """Positional args and kwargs for the group's required arguments, built for module T (ember or torch):
    a 3x3 float matrix for tensors, 1 for ints, 0.5 for floats, ... None when a type has no sample."""
    from torchgen.api.python import argument_type_str
    sig = group.signature
    pos, kw = [], {}
    for a in sig.input_args + sig.input_kwargs:
        if a.default is not None:
            continue
        t = argument_type_str(a.type)
        if t == "Tensor":
            v = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [0.1, 0.2, 3.0]])
            if a.name in ("index", "indices"):
                v = T.tensor([[0, 1, 0], [1, 0, 2], [2, 2, 1]])
        elif t == "TensorList":
            v = [T.ones(3, 3), T.ones(3, 3)]
        elif t in ("Scalar", "Number"):
            v = 2
        elif t in ("int64_t", "SymInt"):
            v = 1
        elif t == "double":
            v = 0.5
        elif t == "bool":
            v = False
        elif t.startswith(("IntArrayRef", "SymIntArrayRef")):
            v = [3, 3] if a.name == "size" else [1]
        elif t == "ScalarType":
            v = T.float32
        else:
            return None
        if a in sig.input_args:
            pos.append(v)
        else:
            kw[a.name] = v
    return pos, kw
