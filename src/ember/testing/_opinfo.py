"""OpInfo: one op's test description (torch.testing._internal.opinfo.core, reduced).

Sample inputs hold numpy arrays, so the same sample becomes an ember tensor (contiguous or a strided,
non-contiguous view), a meta tensor with the same strides, or a torch tensor for parity."""
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np


@dataclass(frozen=True)
class DType:
    """A dtype argument of a sample (``dtype=DType("float64")``): ``SampleInput.convert`` makes it the dtype of
    the library whose tensors the conversion gives (torch's for torch tensors, ember's otherwise)."""
    name: str


def _is_tensor_list(x):
    """A TensorList argument: a non-empty list or tuple of arrays (cat's tensors, multi_dot's matrices)."""
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(e, np.ndarray) for e in x)


@dataclass
class SampleInput:
    input: Any
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    name: str = ""

    def __repr__(self):
        def d(x):
            if _is_tensor_list(x):
                return f"[{', '.join(d(e) for e in x)}]"
            return f"array{tuple(x.shape)}:{x.dtype}" if isinstance(x, np.ndarray) else repr(x)
        kw = ", ".join(f"{k!r}: {d(v)}" for k, v in self.kwargs.items())
        return f"SampleInput({d(self.input)}, args=({', '.join(d(a) for a in self.args)}), kwargs={{{kw}}})"

    def arrays(self):
        """The sample's arrays in argument order, those of TensorList arguments included."""
        out = []
        for x in (self.input, *self.args, *self.kwargs.values()):
            if isinstance(x, np.ndarray):
                out.append(x)
            elif _is_tensor_list(x):
                out.extend(x)
        return out

    def convert(self, fn):
        """(input, args, kwargs) with every ndarray replaced by fn(ndarray), a list (or tuple) of arrays by the
        list of their conversions (a TensorList argument), and a DType by that dtype of the converted tensors'
        library."""
        lib = []

        def dtype(name):
            if not lib:
                probe = next(iter(converted), None)
                probe = fn(np.zeros(1, np.float32)) if probe is None else probe
                lib.append(importlib.import_module("torch" if type(probe).__module__.startswith("torch") else "ember"))
            return getattr(lib[0], name)

        converted = []

        def c(x):
            if isinstance(x, np.ndarray):
                converted.append(fn(x))
                return converted[-1]
            if _is_tensor_list(x):
                return [c(e) for e in x]
            return x
        values = c(self.input), tuple(c(a) for a in self.args), {k: c(v) for k, v in self.kwargs.items()}
        d = lambda x: dtype(x.name) if isinstance(x, DType) else x  # noqa: E731
        return d(values[0]), tuple(d(a) for a in values[1]), {k: d(v) for k, v in values[2].items()}

    def bind(self, values):
        """(input, args, kwargs) with the arrays (in ``arrays()`` order) replaced by ``values`` (tensors)."""
        it = iter(values)
        return self.convert(lambda a: next(it))


def resolve(module, path):
    obj = module
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass
class OpInfo:
    name: str                                    # ember function path ("exp2", "linalg.vector_norm")
    sample_inputs_func: Callable = None          # (op, dtype_name) -> list[SampleInput]
    ref: Optional[Callable] = None               # numpy reference on the sample's arrays and args
    dtypes: tuple = ("float32", "float64")
    torch_name: Optional[str] = None             # path in torch for parity (default: name)
    supports_out: bool = False
    inplace_variant: Optional[str] = None        # Tensor method name ("exp2_")
    method_variant: bool = True
    supports_meta: bool = True
    check_strides: bool = True
    layout_dependent: bool = False               # result reads the input's storage positions (as_strided_scatter)
    rtol: Optional[float] = None
    atol: Optional[float] = None
    equal_nan: bool = True
    skip_parity: tuple = ()                      # sample names whose parity is not defined (ties...)
    aten_name: Optional[str] = None              # the aten op (coverage); default: name's last part
    # random ops: no value parity; the generic tests check seeding, shapes/strides and moments instead
    randomness: bool = False
    supports_generator: bool = False             # accepts generator= (an explicit ember.Generator)
    stat_inputs_func: Optional[Callable] = None  # (op, dtype) -> large samples whose output moments match torch's
    output_func: Optional[Callable] = None       # list of numpy outputs -> canonical form (svd/eigh signs) for parity
    parity_outputs: Optional[tuple] = None       # indices of the outputs parity compares (the rest: torch's scratch)
    known_bugs: dict = field(default_factory=dict)  # sample name -> reason; run as strict xfail, skipped elsewhere

    def __post_init__(self):
        self.torch_name = self.torch_name or self.name
        self.aten_name = self.aten_name or self.name.split(".")[-1]

    @property
    def op(self):
        import ember
        return resolve(ember, self.name)

    def sample_inputs(self, dtype, include_known_bugs=False):
        return [s for s in self.sample_inputs_func(self, dtype) if include_known_bugs or s.name not in self.known_bugs]

    def __repr__(self):
        return f"OpInfo({self.name})"
