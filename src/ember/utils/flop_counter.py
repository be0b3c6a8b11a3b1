"""torch.utils.flop_counter: FlopCounterMode, which counts the floating-point operations of the matrix
products (mm, addmm, bmm, baddbmm), convolutions (forward and backward) and attention kernels run inside it,
per module (through ModuleTracker), with torch's formulas and torch's registry of counted ops.

It is a TorchDispatchMode: an op it has no formula for is decomposed (its CompositeImplicitAutograd kernel
run under the mode), as torch does, so `conv2d` is counted as the `convolution` it becomes and `matmul` as
its `mm`/`bmm`. Like torch, the CPU attention kernel (`_scaled_dot_product_flash_attention_for_cpu`) has no
formula: scaled_dot_product_attention on cpu counts 0 in both.
"""
from collections import defaultdict
from math import prod

from .. import _ops
from .._tensor import Tensor
from ..utils._python_dispatch import TorchDispatchMode
from .module_tracker import ModuleTracker

__all__ = ["FlopCounterMode", "register_flop_formula"]

aten = _ops.ops.aten

flop_registry = {}


def get_shape(i):
    if isinstance(i, Tensor):
        return tuple(i.shape)
    return i


def shape_wrapper(f):
    """A formula over shapes, called with the op's arguments (tensors replaced by their shapes)."""
    def nf(*args, out_val=None, **kwargs):
        args, kwargs, out_shape = _map_shapes((args, kwargs, out_val))
        return f(*args, out_shape=out_shape, **kwargs)
    nf.__wrapped__ = f
    return nf


def _map_shapes(v):
    if isinstance(v, Tensor):
        return tuple(v.shape)
    if isinstance(v, tuple):
        return tuple(_map_shapes(x) for x in v)
    if isinstance(v, list):
        return [_map_shapes(x) for x in v]
    if isinstance(v, dict):
        return {k: _map_shapes(x) for k, x in v.items()}
    return v


def register_flop_formula(targets, get_raw=False):
    """Decorator: `formula(*shapes, out_shape=...)` counts the flops of the op packet(s) `targets`
    (with get_raw, the formula gets the tensors themselves)."""
    def register_fun(flop_formula):
        if not get_raw:
            flop_formula = shape_wrapper(flop_formula)
        for t in targets if isinstance(targets, (list, tuple)) else [targets]:
            if t in flop_registry:
                raise RuntimeError(f"duplicate registrations for {t}")
            flop_registry[t] = flop_formula
        return flop_formula
    return register_fun


@register_flop_formula(aten.mm)
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs):
    """(m, k) @ (k, n): m * n * k multiply-adds, 2 flops each."""
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


@register_flop_formula(aten.addmm)
def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs):
    return mm_flop(a_shape, b_shape)      # the bias add is not counted (torch's convention)


@register_flop_formula(aten.bmm)
def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs):
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


@register_flop_formula(aten.baddbmm)
def baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs):
    return bmm_flop(a_shape, b_shape)


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False):
    """2 * batch * c_out * c_in/groups... as torch counts it: each point of the output (of the input, for a
    transposed conv) takes prod(filter) * c_in multiply-adds per output channel."""
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return prod(conv_shape) * prod(filter_size) * batch_size * c_out * c_in * 2


@register_flop_formula([aten.convolution])
def conv_flop(x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed, *args, out_shape=None, **kwargs):
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


@register_flop_formula(aten.convolution_backward)
def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed,
                       _output_padding, _groups, output_mask, out_shape, **kwargs):
    """grad_input is a transposed conv of grad_out with the weight; grad_weight a conv of the input with
    grad_out (batch and channels swapped)."""
    def t(shape):
        return [shape[1], shape[0]] + list(shape[2:])
    flops = 0
    if output_mask[0]:
        flops += conv_flop_count(grad_out_shape, w_shape, get_shape(out_shape[0]), not transposed)
    if output_mask[1]:
        gw = get_shape(out_shape[1])
        if transposed:
            flops += conv_flop_count(t(grad_out_shape), t(x_shape), t(gw), transposed=False)
        else:
            flops += conv_flop_count(t(x_shape), t(grad_out_shape), t(gw), transposed=False)
    return flops


def sdpa_flop_count(query_shape, key_shape, value_shape):
    """q @ k^T and scores @ v, per batch and query head (key/value heads may be fewer: GQA)."""
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    if not (b == _b2 == _b3 and h_kv == _h3 and d_q == _d2 and s_k == _s3):
        raise AssertionError(f"sdpa_flop_count: query/key/value shapes are incompatible: q={query_shape}, "
                             f"k={key_shape}, v={value_shape}")
    return bmm_flop((b * h_q, s_q, d_q), (b * h_q, d_q, s_k)) + bmm_flop((b * h_q, s_q, s_k), (b * h_q, s_k, d_v))


def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape):
    """The scores recomputed, then the gradients through scores @ v and q @ k^T (five bmm's)."""
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    return (bmm_flop((b * h_q, s_q, d_q), (b * h_q, d_q, s_k)) + bmm_flop((b * h_q, s_q, d_v), (b * h_q, d_v, s_k))
            + bmm_flop((b * h_q, s_k, s_q), (b * h_q, s_q, d_v)) + bmm_flop((b * h_q, s_q, s_k), (b * h_q, s_k, d_q))
            + bmm_flop((b * h_q, d_q, s_q), (b * h_q, s_q, s_k)))


def _packets(*names):
    return [getattr(aten, n) for n in names if hasattr(aten, n)]


for _p in _packets("_scaled_dot_product_efficient_attention", "_scaled_dot_product_flash_attention",
                   "_scaled_dot_product_cudnn_attention"):
    register_flop_formula(_p)(lambda q, k, v, *args, out_shape=None, **kwargs: sdpa_flop_count(q, k, v))
for _p in _packets("_scaled_dot_product_efficient_attention_backward", "_scaled_dot_product_flash_attention_backward",
                   "_scaled_dot_product_cudnn_attention_backward"):
    register_flop_formula(_p)(lambda g, q, k, v, *args, out_shape=None, **kwargs:
                              sdpa_backward_flop_count(g, q, k, v))

suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number):
    return suffixes[max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number, suffix):
    index = suffixes.index(suffix)
    return f"{number / 1000 ** index:.3f}" + suffixes[index]


def convert_to_percent_str(num, denom):
    if denom == 0:
        return "0%"
    return f"{num / denom:.2%}"


def _simple_table(rows, headers, align):
    """tabulate's "simple" format (torch's get_table uses the tabulate package; ember prints the same)."""
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]

    def line(cells):
        return "  ".join(str(c).ljust(w) if a == "left" else str(c).rjust(w)
                         for c, w, a in zip(cells, widths, align)).rstrip()
    return "\n".join([line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


class FlopCounterMode:
    """`with FlopCounterMode(display=False) as fc: model(x).sum().backward()`, then `fc.get_total_flops()`,
    `fc.get_flop_counts()` ({module name: {op packet: flops}}, "Global" for everything), `fc.get_table()`."""

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        import warnings
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        self.flop_registry = {**flop_registry, **{k: v if getattr(v, "_get_raw", False) else shape_wrapper(v)
                                                  for k, v in (custom_mapping or {}).items()}}
        self.mod_tracker = ModuleTracker()

    def get_total_flops(self):
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self):
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        if depth is None:
            depth = self.depth if self.depth is not None else 999999
        header = ["Module", "FLOP", "% Total"]
        global_flops = self.get_total_flops()
        suffix = get_suffix_str(global_flops)
        subsumed = False

        def process_mod(name, d):
            nonlocal subsumed
            total = sum(self.flop_counts[name].values())
            subsumed |= total >= global_flops
            pad = " " * d
            rows = [[pad + name, convert_num_with_suffix(total, suffix), convert_to_percent_str(total, global_flops)]]
            for k, v in self.flop_counts[name].items():
                rows.append([pad + " - " + str(k), convert_num_with_suffix(v, suffix),
                             convert_to_percent_str(v, global_flops)])
            return rows

        values = []
        for mod in sorted(self.flop_counts):
            if mod == "Global" or mod.count(".") + 1 > depth:
                continue
            values.extend(process_mod(mod, mod.count(".")))
        if "Global" in self.flop_counts and not subsumed:
            for v in values:
                v[0] = " " + v[0]
            values = process_mod("Global", 0) + values
        if not values:
            values = [["Global", "0", "0%"]]
        return _simple_table(values, header, ("left", "right", "right"))

    def __enter__(self):
        self.flop_counts.clear()
        self.mod_tracker.__enter__()
        self.mode = _FlopCounterMode(self)
        self.mode.__enter__()
        return self

    def __exit__(self, *args):
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        b = self.mode.__exit__(*args)
        self.mode = None
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return b

    def _count_flops(self, func_packet, out, args, kwargs):
        formula = self.flop_registry.get(func_packet)
        if formula is not None:
            n = formula(*args, **kwargs, out_val=out)
            for parent in set(self.mod_tracker.parents):
                self.flop_counts[parent][func_packet] += n
        return out


class _FlopCounterMode(TorchDispatchMode):
    def __init__(self, counter):
        self.counter = counter

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        packet = func.overloadpacket
        if packet not in self.counter.flop_registry:
            with self:
                r = func.decompose(*args, **kwargs)
            if r is not NotImplemented:
                return r
        out = func(*args, **kwargs)
        return self.counter._count_flops(packet, out, args, kwargs)
