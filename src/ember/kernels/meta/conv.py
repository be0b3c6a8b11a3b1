"""Meta function for aten::convolution (forward and transposed, any spatial rank): torch's
argument checks (check_shape_forward) and the output-size formula."""
from ..common import alloc, size_str, tup
from .softmax import _like


def conv_params(input, weight, stride, padding, dilation, transposed, output_padding, groups):
    d = weight.dim() - 2
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    st, pd, dl = tup(stride, d), tup(padding, d), tup(dilation, d)
    op = (0,) * d if output_padding is None or output_padding in ([], ()) else tup(output_padding, d)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in st):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in pd):
        raise RuntimeError("negative padding is not supported")
    if any(x <= 0 for x in dl):
        raise RuntimeError(f"dilation should be greater than zero, but got {size_str(dl)}")
    return d, st, pd, dl, op


def conv_spec(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    d, st, pd, dl, op = conv_params(input, weight, stride, padding, dilation, transposed, output_padding, groups)
    ws, xs = tuple(weight._size), tuple(input._size)
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{size_str(ws)}, but got {input.dim()}-dimensional input of size {size_str(xs)} instead")
    if not transposed:
        if ws[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                               f"but got weight of size {size_str(ws)} instead")
        if xs[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {size_str(ws)}, expected input{size_str(xs)} "
                               f"to have {ws[1] * groups} channels, but got {xs[1]} channels instead")
        cout = ws[0]
        padded = [xs[2 + i] + 2 * pd[i] for i in range(d)]
        kern = [dl[i] * (ws[2 + i] - 1) + 1 for i in range(d)]
        if any(p < k for p, k in zip(padded, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, kern))}). Kernel size can't be greater than actual "
                               f"input size")
        out = [(padded[i] - kern[i]) // st[i] + 1 for i in range(d)]
    else:
        if xs[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {size_str(ws)}, expected input{size_str(xs)} "
                               f"to have {ws[0]} channels, but got {xs[1]} channels instead")
        if ws[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                               f"but got weight of size {size_str(ws)} instead")
        for i in range(d):
            if op[i] >= st[i] and op[i] >= dl[i]:
                names = ("depth", "height", "width")[-d:]
                raise RuntimeError("output padding must be smaller than either stride or dilation, but got " +
                                   " ".join(f"output_padding_{n}: {v}" for n, v in zip(names, op)) + " " +
                                   " ".join(f"stride_{n}: {v}" for n, v in zip(names, st)) + " " +
                                   " ".join(f"dilation_{n}: {v}" for n, v in zip(names, dl)))
        cout = ws[1] * groups
        out = [(xs[2 + i] - 1) * st[i] - 2 * pd[i] + dl[i] * (ws[2 + i] - 1) + op[i] + 1 for i in range(d)]
        if any(o <= 0 for o in out):
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, xs[2:]))}). Calculated output "
                               f"size per channel: ({' x '.join(map(str, out))}). Output size is too small")
    if bias is not None and (bias.dim() != 1 or bias._size[0] != cout):
        raise RuntimeError(f"Given weight of size {size_str(ws)}, expected bias to be 1-dimensional with {cout} "
                           f"elements, but got bias of size {size_str(bias._size)} instead")
    if input.dtype is not weight.dtype or bias is not None and bias.dtype is not input.dtype and not transposed:
        _dtype_mismatch(input.dtype, weight.dtype, None if bias is None or transposed else bias.dtype)
    return (xs[0], cout, *out), input.dtype, (d, st, pd, dl, op)


def _dtype_mismatch(x, w, b):
    """torch 2.13's errors for operands of different dtypes (cpu): the bias first ("Input type (double) and
    bias type (float) should be the same", C type names; not checked for a transposed convolution, whose
    bias is added in the input's dtype), then the weight as the backend it picked says it:
    the slow kernels' "expected scalar type Double but found Float", mkldnn's for a bfloat16 input and the
    generic check's for a complex one (their legacy type strings)."""
    from ..common import _tname, c_type_name
    if b is not None and b is not x:
        raise RuntimeError(f"Input type ({c_type_name(x)}) and bias type ({c_type_name(b)}) should be the same")
    if x.name == "bfloat16":
        raise RuntimeError(f"Input type (CPU{_tname(x)}Type) and weight type (torch.{_tname(w)}Tensor) should be the "
                           "same or input should be a MKLDNN tensor and weight is a dense tensor")
    if x.is_complex:
        raise RuntimeError(f"Input type (CPU{_tname(x)}Type) and weight type (torch.{_tname(w)}Tensor) should be the "
                           "same")
    raise RuntimeError(f"expected scalar type {_tname(x)} but found {_tname(w)}")


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    shape, dt, _ = conv_spec(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    return alloc(shape, dt, input.device)


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    gb = alloc(tuple(bias_sizes), grad_output.dtype, grad_output.device) if bias_sizes is not None and \
        output_mask[2] else None
    return (_like(input) if output_mask[0] else None, _like(weight) if output_mask[1] else None, gb)
