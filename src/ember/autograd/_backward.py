"""backward and grad, the entry points that run the engine (torch/autograd/__init__.py's functions,
torch/csrc/autograd/autograd.cpp): root gradients made or checked, edges of the roots and inputs found,
the engine run; `ember.autograd` re-exports both."""
import numpy as np

from .._core.tensor_impl import TensorImpl as Tensor
from .._core.tls import state as _tls
from .engine import run_backward
from .graph import AccumulateGrad, _clone_detached, gradient_edge
from .._core.strides import same_shape
from .._core import torch_function as _tf

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["backward", "grad"]


def _tensor_or_tensors_to_tuple(t, n):
    if t is None:
        return (None,) * n
    if isinstance(t, Tensor):
        return (t,)
    return tuple(t)


def _make_grads(outputs, grads):
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o.requires_grad:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not o.dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                       f"{o.dtype}")
                if o._np is None or _tls.mode_stack:   # meta/fake output or a tracing mode: torch's ones_like
                    from .._ops import ops
                    g = ops.aten.ones_like.default(o)
                else:
                    g = Tensor._wrap_np(np.ones(o._size, o.dtype._np), o.dtype)
        elif isinstance(g, Tensor):
            if not same_shape(g._size, o._size):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and "
                                   f"output[{i}] has a shape of {o.shape!r}.")
            if o.dtype.is_complex != g.dtype.is_complex:
                raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the "
                                   f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and "
                                   f"output[{i}] has a dtype of {o.dtype}.")
        else:
            raise TypeError("gradients can be either Tensors or None, but got " + type(g).__name__)
        out.append(g)
    return out


def _root_edges(outputs):
    roots = []
    for i, o in enumerate(outputs):
        e = gradient_edge(o) if isinstance(o, Tensor) else None
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(e)
    return roots


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    if grad_variables is not None:
        grad_tensors = grad_variables
    if inputs is not None and len(_tensor_or_tensors_to_tuple(inputs, 0)) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if _TF:     # torch's handle_torch_function(backward, tensors + inputs, ...): a mode sees the call, not the engine
        inputs_tuple = () if inputs is None else (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        r = _tf.handle(backward, tensors + inputs_tuple, (tensors,),
                       {"grad_tensors": grad_tensors, "retain_graph": retain_graph, "create_graph": create_graph,
                        "inputs": inputs_tuple if inputs is not None else None})
        if r is not _tf.NOT_HANDLED:
            return r
    grads = _make_grads(tensors, _tensor_or_tensors_to_tuple(grad_tensors, len(tensors)))
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(tensors)
    # a leaf root receives the user's gradient directly: copy it so .grad does not alias it
    grads = [_clone_detached(g) if g is not None and isinstance(e[0], AccumulateGrad) and not create_graph else g
             for e, g in zip(roots, grads)]
    if inputs is None:
        run_backward(roots, grads, retain_graph, create_graph)
        return
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    edges = []
    for t in inputs:
        e = gradient_edge(t)
        if e is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(e)
    captured = run_backward(roots, grads, retain_graph, create_graph, inputs=edges, accumulate_grad=True)
    for t, g in zip(inputs, captured):
        if t.grad_fn is not None and g is not None:   # non-leaf input: accumulate into its .grad
            t._grad = (g if create_graph else g.detach()) if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    if _TF:     # torch's handle_torch_function(grad, outputs + inputs, ...)
        r = _tf.handle(grad, outputs + inputs, (outputs, inputs),
                       {"grad_outputs": grad_outputs, "retain_graph": retain_graph, "create_graph": create_graph,
                        "only_inputs": only_inputs, "allow_unused": allow_unused,
                        "is_grads_batched": is_grads_batched, "materialize_grads": materialize_grads})
        if r is not _tf.NOT_HANDLED:
            return r
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by ember.autograd.grad yet")
    grads = _make_grads(outputs, _tensor_or_tensors_to_tuple(grad_outputs, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outputs)
    edges = []
    for t in inputs:
        e = gradient_edge(t) if isinstance(t, Tensor) else None
        if e is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(e)
    captured = run_backward(roots, grads, retain_graph, create_graph, inputs=edges, accumulate_grad=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                g = Tensor._wrap_np(np.zeros(t._size, t.dtype._np), t.dtype)
        out.append(g)
    return tuple(out)
