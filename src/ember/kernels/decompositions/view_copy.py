"""The *_copy variants of the view ops (torch's CompositeExplicitAutogradNonFunctional view_copy kernels, the ops
functionalization emits): each runs its view op and copies the result into fresh contiguous memory; the out=
forms (torchgen's autogen `.out`) check that `out` has the result's dtype, resize it like
at::native::resize_output and copy into it. One maker serves every op; the derivatives are the views' (native/derivatives/view_copy.yaml)."""
from ..._core.tls import state
from ..._ops import ops
from ..common import c_type_name, resize_out

aten = ops.aten


def _make(view, overload):
    """(functional, out) kernels of `<view>_copy.<overload>`."""
    list_name = {"split": "split_copy_Tensor_out()", "unbind": "unbind_copy_int_out"}.get(view, f"{view}_copy_out")
    def functional(*args, **kwargs):
        r = getattr(getattr(aten, view), overload)(*args, **kwargs)
        if isinstance(r, (list, tuple)):
            return [aten.clone.default(t).contiguous() for t in r]
        return aten.clone.default(r).contiguous()

    def out_variant(*args, out, **kwargs):
        r = functional(*args, **kwargs)
        if isinstance(r, list):
            if len(out) != len(r):
                raise RuntimeError(f"{list_name} expected an out= argument of size {len(r)}, got size {len(out)}")
            if view != "unbind":        # split's: copied into each piece (broadcasting, casting; no resize)
                for o, t in zip(out, r):
                    o.copy_(t)
                return None
        pairs = list(zip(out, r)) if isinstance(r, list) else [(out, r)]
        for o, t in pairs:
            if o.dtype is not t.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(t.dtype)}, but got "
                                   f"{c_type_name(o.dtype)} instead")
        for o, t in pairs:
            resize_out(o, t._size)
            o.copy_(t)
        return None if isinstance(r, list) else out
    functional.__name__, out_variant.__name__ = f"{view}_copy", f"{view}_copy_out"
    return functional, out_variant


alias_copy, alias_copy_out = _make("alias", "default")
as_strided_copy, as_strided_copy_out = _make("as_strided", "default")
detach_copy, detach_copy_out = _make("detach", "default")
diagonal_copy, diagonal_copy_out = _make("diagonal", "default")
expand_copy, expand_copy_out = _make("expand", "default")
permute_copy, permute_copy_out = _make("permute", "default")
select_copy_int, select_copy_int_out = _make("select", "int")
slice_copy_Tensor, slice_copy_Tensor_out = _make("slice", "Tensor")
split_copy_Tensor, split_copy_Tensor_out = _make("split", "Tensor")
split_with_sizes_copy, split_with_sizes_copy_out = _make("split_with_sizes", "default")
squeeze_copy, squeeze_copy_out = _make("squeeze", "default")
squeeze_copy_dim, squeeze_copy_dim_out = _make("squeeze", "dim")
squeeze_copy_dims, squeeze_copy_dims_out = _make("squeeze", "dims")
t_copy, t_copy_out = _make("t", "default")
transpose_copy_int, transpose_copy_int_out = _make("transpose", "int")
unbind_copy_int, unbind_copy_int_out = _make("unbind", "int")
unfold_copy, unfold_copy_out = _make("unfold", "default")
unsqueeze_copy, unsqueeze_copy_out = _make("unsqueeze", "default")
_view_as_complex_copy, view_as_complex_copy_out = _make("view_as_complex", "default")
view_as_real_copy, view_as_real_copy_out = _make("view_as_real", "default")
view_copy, view_copy_out = _make("view", "default")
view_copy_dtype, view_copy_dtype_out = _make("view", "dtype")


def view_as_complex_copy(self):
    """torch has no complex derivative for view_as_complex_copy (it is not in GRADIENT_IMPLEMENTED_FOR_COMPLEX):
    a result that would require grad is refused (throw_error_for_complex_autograd) rather than given a history."""
    if self.requires_grad and state.grad_enabled:
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for outputs with complex "
                           "dtype.")
    return _view_as_complex_copy(self)
