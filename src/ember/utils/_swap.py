"""torch.utils.swap_tensors (torch/utils/__init__.py): exchange the contents of two tensor objects in place,
so every reference to either sees the other's data, metadata, autograd state and Python attributes."""
import weakref

__all__ = ["swap_tensors"]


def _foreign_weakrefs(t):
    """Weak references to `t` other than its storage's own (the list of views it re-points on resize)."""
    st = t.__dict__.get("_storage")
    mine = getattr(st, "_views", ()) if st is not None else ()
    return [r for r in weakref.getweakrefs(t) if not any(r is v for v in mine)]


def swap_tensors(t1, t2):
    """Swap everything two Tensors hold and their classes; the Python objects keep their identity.
    An ember Tensor is its own TensorImpl: storage, geometry, dtype, autograd fields and user attributes
    are all in its __dict__, so swapping the dicts (and the classes, for subclasses such as Parameter)
    swaps the tensors, which torch does by also swapping the C++ TensorImpls."""
    from .._tensor import Tensor
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(f"swap_tensors expects two Tensors, got {type(t1).__name__} and {type(t2).__name__}")
    if _foreign_weakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if _foreign_weakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for t in (t1, t2):      # each storage now re-points the other object when its bytes move
        st = t.__dict__.get("_storage")
        if st is not None and hasattr(st, "_track"):
            st._track(t)
