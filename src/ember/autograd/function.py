"""Custom autograd Functions (torch/autograd/function.py + csrc/autograd/python_function.cpp).

`MyFn.apply(*args)` runs `forward` with grad disabled and makes one node, an instance of the
generated `MyFnBackward` class, which is also the `ctx` the user's forward and backward see."""
import functools

from .._core.tls import state
from .._grad_mode import no_grad, _set_enabled
from .._core.tensor_impl import TensorImpl as Tensor
from ._kernel import edge, check_inplace, differentiable
from ._saved import SavedVariable
from .graph import Node, ERR_SECOND_BACKWARD, _clone_detached


class FunctionCtx:
    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    _forward_cls = None
    # a custom Function's node is a Python class: object's repr, with its module (torch's
    # <torch.autograd.function.MyFnBackward object at 0x...>), unlike the generated nodes' <MulBackward0 ...>
    __repr__ = object.__repr__

    def __init__(self):
        Node.__init__(self)
        self.to_save = ()
        self._saved = None
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._is_tensor_arg = ()

    @property
    def _materialize(self):
        return self.materialize_grads

    @property
    def saved_tensors(self):
        if self._saved is None:
            return tuple(self.to_save) if self.to_save else ()
        if self._released:
            raise RuntimeError(ERR_SECOND_BACKWARD)
        return tuple(s.unpack(self) if s is not None else None for s in self._saved)

    @property
    def saved_variables(self):
        return self.saved_tensors

    def release_variables(self):
        self._released = True
        if self._saved:
            for s in self._saved:
                if s is not None:
                    s.release()

    def apply(self, grads):
        cls = self._forward_cls
        res = cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self.next_edges)
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(res)})")
        out = []
        for i, r in enumerate(res):
            if r is not None and not self._is_tensor_arg[i]:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
            out.append(r)
        return tuple(out)


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        node = cls._backward_cls()
        is_t = tuple(isinstance(a, Tensor) for a in args)
        node._is_tensor_arg = is_t
        needs = state.grad_enabled and any(isinstance(a, Tensor) and a._requires_grad for a in args)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad and needs for a in args)
        setup = cls.setup_context is not Function.setup_context
        prev = state.grad_enabled
        _set_enabled(False)
        try:
            if setup:
                out = cls.forward(*args, **kwargs)
            else:
                out = cls.forward(node, *args, **kwargs)
        finally:
            _set_enabled(prev)
        if setup:
            cls.setup_context(node, args, out)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not needs:
            return out
        node.next_edges = tuple(edge(a) if is_t[i] else None for i, a in enumerate(args))
        dirty = {id(t) for t in node.dirty_tensors}
        nondiff = {id(t) for t in node.non_differentiable}
        inputs = {id(a) for a in args if isinstance(a, Tensor)}
        new_outs = []
        for o in outs:
            if not isinstance(o, Tensor):
                new_outs.append(o)
                continue
            if id(o) in dirty:
                check_inplace(o)
            elif id(o) in inputs:
                o = o.detach()   # an input returned as-is becomes an alias carrying the new history
                if id(o) not in nondiff and differentiable(o):
                    pass
            nr = node._add_input_meta(o)
            if id(o) in nondiff or not differentiable(o):
                if id(o) not in dirty:
                    o._requires_grad = False
                new_outs.append(o)
                continue
            o._output_nr = nr
            o.grad_fn = node
            o._requires_grad = True
            from .._core.dispatch_keys import AUTOGRAD_BIT
            o._ks |= AUTOGRAD_BIT
            if id(o) in dirty and hasattr(o, "_grad_acc_ref"):
                del o._grad_acc_ref
            new_outs.append(o)
        outs_ids = {id(o) for o in new_outs if isinstance(o, Tensor)}
        if node.to_save:
            node._saved = [None if t is None else SavedVariable(t, id(t) in outs_ids) for t in node.to_save]
            node.to_save = ()
        return new_outs[0] if single else tuple(new_outs)

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("vmap is not supported for ember custom Functions")


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


class _DelayedError(Node):
    def __init__(self, msg, n):
        super().__init__()
        self.msg = msg
        self.n = n

    def apply(self, grads):
        raise RuntimeError(self.msg)


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not state.grad_enabled:
            return outputs
        requires = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires:
            return outputs
        tup = outputs if isinstance(outputs, tuple) else (outputs,)
        err = _DelayedError("trying to differentiate twice a function that was marked with @once_differentiable",
                            len(tup))
        err.next_edges = tuple(edge(a) for a in args)
        res = []
        for o in tup:
            if isinstance(o, Tensor):
                o = _clone_detached(o) if o._np is not None else o.detach()
                nr = err._add_input_meta(o)
                o._output_nr, o.grad_fn, o._requires_grad = nr, err, True
                from .._core.dispatch_keys import AUTOGRAD_BIT
                o._ks |= AUTOGRAD_BIT
            res.append(o)
        return tuple(res) if isinstance(outputs, tuple) else res[0]
    return wrapper
