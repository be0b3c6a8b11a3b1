"""Runtime helpers for the generated Autograd kernels (torch/csrc/autograd/functions/utils.h,
VariableTypeUtils.h) and the boxed Autograd fallback for ops without a formula."""
import re
from .._core.tls import state
from .._core.dispatch_keys import AUTOGRAD_BIT, CPU_BIT, META_BIT, PYTHON_BIT, DispatchKey
from .._ops import _keyset
from .._core.tensor_impl import TENSOR_TYPES as _TENSOR_TYPES, TensorImpl as Tensor
from .._core.device import CPU as _CPU, META as _META
from .forward_ad import _FW, fw_has, fw_unsupported
from ._views import rebase_view
from .graph import PLAIN_CPU, Node, _clone_detached, cpu_meta, gradient_entry

BELOW_AUTOGRAD = (1 << int(DispatchKey.Autograd)) - 1
BELOW_AUTOGRAD_OR_PYTHON = BELOW_AUTOGRAD | PYTHON_BIT   # what below_ks keeps


def below_ks(args, kwargs=None):
    if kwargs is None:             # the generated kernels' call: tensors, numbers and lists, no kwargs
        ks = 0
        for a in args:
            if a.__class__ in _TENSOR_TYPES:
                ks |= a._ks
            elif type(a) in (list, tuple):
                for t in a:
                    if t.__class__ in _TENSOR_TYPES:
                        ks |= t._ks
        if ks & (CPU_BIT | META_BIT):
            ks = (ks | state._include) & ~state._exclude
            # a formula calling a kernel directly (cat(grads) in a backward) is still seen by an active
            # dispatch mode / tensor subclass: the Python key is kept unless the dispatcher already passed it
            return ks & BELOW_AUTOGRAD | ks & PYTHON_BIT
    ks = _keyset(args, kwargs or {})
    return ks & BELOW_AUTOGRAD | ks & PYTHON_BIT


def rg(t):
    """compute_requires_grad for one argument (Tensor, number, None or list). (Tensors are told by
    TENSOR_TYPES, a set lookup, and a list by a plain loop: no isinstance call or generator per element;
    stack/cat of a CRF loop's 0-d scores call this and `edge` once per element.)"""
    if t.__class__ in _TENSOR_TYPES:
        return t._requires_grad
    if type(t) in (list, tuple):
        for x in t:
            if x.__class__ in _TENSOR_TYPES and x._requires_grad:
                return True
    return False


def edge(t):
    """t's `next_edges` entry (graph.gradient_entry), None for what needs no grad."""
    if t.__class__ in _TENSOR_TYPES and t._requires_grad:
        return gradient_entry(t)
    return None


def edges(ts):
    """[edge(t) for t in ts] for a Tensor[] argument (stack, cat), each entry as the generated kernels make a
    single tensor's: a non-view input's grad_fn (or `(grad_fn, output_nr)`) inline, a view's through
    gradient_entry, a leaf needing grad as itself, its AccumulateGrad made when the edge is first read
    (graph.leaf_edges). `stack` of 16 leaf rows made 16 AccumulateGrads per call before (issue 18: 16.7 us
    against torch's 5.4)."""
    out = []
    for t in ts:
        if t.__class__ in _TENSOR_TYPES and t._requires_grad:
            if t._base is not None:
                out.append(gradient_entry(t))
            else:
                fn = t.grad_fn
                if fn is None:
                    out.append(t)
                else:
                    nr = t._output_nr
                    out.append(fn if nr == 0 else (fn, nr))
        else:
            out.append(None)
    return out


def no_requires_grad(t, arg, fn):
    """torch's check_no_requires_grad: an input the op has no derivative for must not require grad (rather
    than silently getting no gradient)."""
    if isinstance(t, Tensor) and t._requires_grad and state.grad_enabled:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{arg}'. "
                           "This input cannot have requires_grad True.")


def differentiable(t):
    return isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def set_history(result, node, single_grad=False):
    """Attach `node` as grad_fn of each differentiable output (a Tensor or tuple of Tensors).
    single_grad: the formulas read only `grad`, so (as in torch's codegen) only the first differentiable
    output gets a history; the others (mean/rstd of a norm, CTC's log_alpha ...) do not require grad."""
    if result.__class__ in _TENSOR_TYPES:
        dt = result.dtype
        if dt.is_floating_point or dt.is_complex:
            if result._base is not None:
                result._gfv = result._version_counter.value
            meta = node.input_meta
            result._output_nr = len(meta)
            ks = result._ks
            # (result.device); a plain cpu output's record is the shared tuple of graph.cpu_meta (one object
            # fewer for the cyclic GC per output of a multi-output node while the graph lives)
            meta.append(cpu_meta(result._size, dt)[0] if ks == PLAIN_CPU else
                        (result._size, dt, _META if ks & META_BIT else _CPU))
            result.grad_fn = node
            result._requires_grad = True
            result._ks = ks | AUTOGRAD_BIT
        else:
            node._add_input_meta(result)
        return result
    done = False
    for t in result:
        if isinstance(t, Tensor):
            if done:
                node._add_input_meta(t)
                continue
            set_history(t, node)
            done = single_grad and differentiable(t)
        elif t is None:     # an undefined output (convolution_backward's unrequested grads) keeps its
            node.input_meta.append(None)    # slot, so grads[i] in the node's formula is output i
    return result


def check_inplace(t):
    if isinstance(t, Tensor) and state.grad_enabled:
        b = t._base
        if b is None and t._requires_grad and t.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        ng = t.__dict__.get("_no_grad_view") if b is not None else None
        if ng:
            # torch's handle_view_on_rebase for CreationMeta::NO_GRAD_MODE; a view made with grad mode of such a
            # view is named by its op (torch's one has a grad_fn there: "Output 0 of Slice is a view of a view")
            head = "A view was created in" if ng is True else f"Output 0 of {ng} is a view of a view which was created in"
            raise RuntimeError(
                f"{head} no_grad mode and is being modified inplace with grad mode enabled. Given "
                "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
        if b is not None and b._requires_grad and b.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        if b is not None and isinstance(t.grad_fn, Node) and (t.grad_fn._multi_view
                                                             or t.__dict__.get("_multi_view_meta")):
            n = re.sub(r"Backward\d*$", "", t.grad_fn.name())       # torch's forward_op_name
            raise RuntimeError(f"Output {t._output_nr} of {n} is a view and is being modified inplace. This view is "
                               "the output of a function that returns multiple views. Such functions do not allow "
                               "the output views to be modified inplace. You should replace the inplace operation "
                               "by an out-of-place one.")
        if b is not None and t._requires_grad and t.grad_fn is None:     # (torch checks the views first)
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if isinstance(t, Tensor) and getattr(t, "_is_inference", False) and not state.inference_mode:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                           "You can make a clone to get a normal tensor before doing inplace update."
                           "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def rebase_history(t, node):
    """In-place op on a non-leaf (or on a tensor not requiring grad): `node` becomes its grad_fn.
    On a view, the base's history is rebased instead (CopySlices, see _views.py)."""
    node.input_meta = []
    if t._base is not None and differentiable(t):
        node._add_input_meta(t)
        rebase_view(t, node)
        return
    t._output_nr = node._add_input_meta(t)
    t.grad_fn = node
    t._requires_grad = True
    t._ks |= AUTOGRAD_BIT
    t.__dict__.pop("_grad_acc_ref", None)
    t.__dict__.pop("_grad_acc_strong", None)


def bump(t):
    t._version_counter.bump()


def out_error(name):
    raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                       "but one of the arguments requires grad.")


class NotImplemented(Node):   # noqa: A001  (torch's class name; this module never uses the builtin)
    """grad_fn of outputs of an op with no derivative formula: differentiating through it raises."""

    def __init__(self, qualname):
        super().__init__()
        self._op_name = qualname.split(".")[0]     # torch names the op without its overload

    def name(self):
        return "torch::autograd::NotImplemented"   # torch reports the C++ class name

    def apply(self, grads):
        raise RuntimeError(f"derivative for {self._op_name} is not implemented")


def _tensor_args(args, kwargs):
    out = []
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, Tensor):
            out.append(a)
        elif type(a) in (list, tuple):
            out.extend(x for x in a if isinstance(x, Tensor))
    return out


def autograd_fallback(op, below):
    """Boxed Autograd kernel for ops without a generated kernel (torch's autogradNotImplementedFallback)."""
    schema = op._schema
    mutable = schema.is_mutable() if hasattr(schema, "is_mutable") else "!" in op._entry.schema_str
    qual = op._entry.qualname
    is_out = "out" in op._entry.schema_str.split("->")[0] and qual.split(".")[-1].startswith("out") or ".out" in qual \
        or qual.endswith("_out")

    def kernel(*args, **kwargs):
        tensors = _tensor_args(args, kwargs)
        if _FW[0] and fw_has(tensors):
            fw_unsupported(qual.split("::")[-1])
        needs = any(t._requires_grad for t in tensors)
        if needs and is_out:
            out_error(qual.split("::")[1].split(".")[0])
        if needs and mutable:
            for t in tensors:
                pass
        result = op.redispatch(below_ks(args, kwargs), *args, **kwargs)
        if not needs:
            return result
        outs = [result] if isinstance(result, Tensor) else [r for r in (result if isinstance(result, (tuple, list)) else ()) if isinstance(r, Tensor)]
        if not any(differentiable(o) for o in outs):
            return result
        node = NotImplemented(qual)
        node.next_edges = tuple(edge(t) for t in tensors)
        if mutable:
            for o in outs:
                if differentiable(o):
                    rebase_history(o, node) if o.grad_fn is not None or not o._requires_grad else None
            return result
        set_history(result if isinstance(result, Tensor) else tuple(outs), node)
        return result
    return kernel


def nondifferentiable_kernel(op):
    """Ops whose outputs never carry grad (comparisons, argmax, integer results): just run below."""
    def kernel(*args, **kwargs):
        return op.redispatch(below_ks(args, kwargs), *args, **kwargs)
    return kernel


def saved_clone(t):
    """The pre-op value of `self` saved by an in-place kernel: a recorded clone when it requires grad
    (so double backward reaches self's old history), else a plain copy."""
    if t._requires_grad and state.grad_enabled:
        from .._ops import ops
        return ops.aten.clone.default(t)
    return _clone_detached(t)
