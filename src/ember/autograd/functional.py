"""torch.autograd.functional: jacobian, hessian, vjp, jvp, vhp, hvp of a Python function of tensors,
computed with the reverse-mode engine (`autograd.grad`), row by row. Inputs and outputs may each be a
tensor or a tuple of tensors; results follow torch's nesting (per output, then per input)."""
from .. import _grad_mode
from .._core.tensor_impl import TensorImpl as Tensor
from .._generated.functions import ones_like, stack, zeros, zeros_like
from ._backward import grad as _grad


def _as_tuple(inp, arg_name, fn_name):
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {where} has type {type(el)}.")
    return is_tuple, items


def _grad_preprocess(inputs, create_graph):
    """Fresh leaves that require grad (views of the inputs when create_graph, so gradients flow through)."""
    if create_graph:
        return tuple(x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True) for x in inputs)
    return tuple(x.detach().requires_grad_(True) for x in inputs)


def _postprocess(values, create_graph):
    if isinstance(values, tuple):
        return tuple(_postprocess(v, create_graph) for v in values)
    return values if create_graph else values.detach()


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what="grad_inputs"):
    outs = [o for o in outputs if o.requires_grad]
    gos = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        res = (None,) * len(inputs)
    else:
        res = _grad(outs, inputs, gos, retain_graph=True, create_graph=create_graph, allow_unused=True)
    out = []
    for i, (r, x) in enumerate(zip(res, inputs)):
        if r is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                                   "not allowed in strict mode.")
            r = zeros_like(x)
        out.append(r)
    return tuple(out)


def _check_outputs(outputs, strict):
    if strict:
        for i, o in enumerate(outputs):
            if not o.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The "
                                   "outputs must be computed in a differentiable manner from the input when "
                                   "running in strict mode.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with _grad_mode.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_outputs(outputs, strict)
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            v = (ones_like(outputs[0]),)
        else:
            _, v = _as_tuple(v, "v", "vjp")
        res = _grads(outputs, inputs, v, create_graph, strict)
    outputs = _postprocess(outputs, create_graph)
    res = _postprocess(res, create_graph)
    return (outputs if is_out_tuple else outputs[0]), (res if is_in_tuple else res[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick (the vjp is linear in
    its cotangent u, so the gradient of u -> u^T J along v is J v)."""
    with _grad_mode.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            v = (ones_like(inputs[0]),)
        else:
            _, v = _as_tuple(v, "v", "jvp")
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_outputs(outputs, strict)
        cotangents = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        vjps = _grads(outputs, inputs, cotangents, True, strict)
        res = _grads(vjps, cotangents, v, create_graph, strict)
    outputs = _postprocess(outputs, create_graph)
    res = _postprocess(res, create_graph)
    return (outputs if is_out_tuple else outputs[0]), (res if is_out_tuple else res[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(inputs) / d inputs: for output i and input j a tensor of shape out_i.shape + in_j.shape."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                         'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                         'prefer to use "reverse-mode".')
    with _grad_mode.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_outputs(outputs, strict)
        jac = []
        for out in outputs:
            flat = out.reshape(-1)
            rows = [[] for _ in inputs]
            for k in range(flat.numel()):
                if out.requires_grad:
                    gs = _grad(flat[k], inputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
                else:
                    gs = (None,) * len(inputs)
                for j, (g, x) in enumerate(zip(gs, inputs)):
                    if g is None and strict:
                        raise RuntimeError(f"Output {len(jac)} of the user-provided function is independent of "
                                           f"input {j}. This is not allowed in strict mode.")
                    rows[j].append(zeros_like(x) if g is None else g)
            per_input = tuple(
                (stack(r) if r else zeros(0, *x.shape, dtype=x.dtype)).reshape((*out.shape, *x.shape))
                for r, x in zip(rows, inputs))
            jac.append(per_input if is_in_tuple else per_input[0])
    jac = _postprocess(tuple(jac), create_graph)
    return jac if is_out_tuple else jac[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Jacobian of the gradient of a function returning a single-element tensor."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_func(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return out.squeeze()

    def jac_func(*inp):
        return jacobian(scalar_func, inp, create_graph=True, strict=strict)

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)
    if not is_in_tuple:
        return res[0][0] if isinstance(res, tuple) and isinstance(res[0], tuple) else res[0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a function returning a single-element tensor."""
    with _grad_mode.enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            v = (ones_like(inputs[0]),)
        else:
            _, v = _as_tuple(v, "v", "vhp")
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vhp")
        if is_out_tuple or not isinstance(outputs[0], Tensor):
            raise RuntimeError("The function given to vhp should return a single Tensor")
        if outputs[0].nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to vhp should contain a single element")
        jac = _grads(outputs, inputs, (ones_like(outputs[0]),), True, strict)
        res = _grads(jac, inputs, v, create_graph, strict)
    out = _postprocess(outputs[0], create_graph)
    res = _postprocess(res, create_graph)
    return out, (res if is_in_tuple else res[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v). The Hessian of a twice continuously differentiable function is symmetric, so
    H v = (v^T H)^T and this is vhp's product."""
    return vhp(func, inputs, v, create_graph, strict)
