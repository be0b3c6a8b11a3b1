"""SavedVariable: a tensor saved for backward, with a version check (torch/csrc/autograd/saved_variable.cpp).

The generated kernels keep the common case without a SavedVariable: an input tensor of a plain tensor type, saved
outside any saved_tensors_hooks block, goes into the node as two attributes, `s_<name>` (the tensor) and
`v_<name>` (its version when saved). That is one object fewer for the cyclic GC to track per saved tensor while the
graph lives, and no __init__ frame per save. Their backward checks the version inline and calls `unpack_slot` for
everything else: a SavedVariable in the slot (hooks, non-tensors, in-place clones, outputs other than a plain one),
a released slot (`RELEASED`) or a changed version (SavedVariable's error). A node's one plain cpu output is saved
the same way, as a shell without its history (see `unpack_output`).
"""
from weakref import ref as _weakref

from .._core.dispatch_keys import AUTOGRAD_BIT
from .._core.tensor_impl import INFERENCE_VC, TensorImpl as Tensor
from .._core.tls import state as _tls
from . import forward_ad as _forward_ad, graph as _graph

ERR_INFERENCE = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                 "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
                 "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


_AUTOGRAD_FIELDS = ("grad_fn", "_requires_grad", "_grad", "_retains_grad", "_backward_hooks", "_post_acc_hooks",
                    "_output_nr", "_grad_acc_ref", "_grad_acc_strong", "_gfv")


def _shell(t):
    """t without its autograd fields: the same data, geometry, version counter and view base, but no
    grad_fn. A node saving its own output keeps this instead of the output itself, so the output
    and the node do not hold each other (torch saves an output's data and weakly its grad_fn):
    otherwise a forward run with grad on and no backward frees nothing until the cycle collector."""
    sh = object.__new__(type(t))
    d = sh.__dict__
    d.update(t.__dict__)
    for k in _AUTOGRAD_FIELDS:
        d.pop(k, None)
    d["_ks"] = t._ks & ~AUTOGRAD_BIT
    return sh


class SavedVariable:
    __slots__ = ("data", "version", "is_output", "packed", "unpack_hook", "released", "leaf_rg", "name",
                 "output_nr", "edge")

    def __init__(self, t, is_output=False):
        self.data = t
        self.is_output = is_output
        self.released = False
        self.packed = None
        self.unpack_hook = None
        self.name = None
        if not isinstance(t, Tensor):
            self.version = 0
            return
        vc = t._vc
        if vc is None:
            self.version = 0          # a counter not made yet starts at 0 when it is (no need to make it now)
        elif vc is INFERENCE_VC:
            raise RuntimeError(ERR_INFERENCE)
        else:
            self.version = vc.value
        stack = _graph.hook_state.stack
        if stack:
            pack, unpack = stack[-1]
            # where the saved tensor sits in the graph, for the tensor the unpack hook returns (torch's
            # SavedVariable keeps grad_fn / the grad accumulator beside the packed object)
            self.edge = None if is_output or not t._requires_grad else _graph.gradient_edge(t)
            self.output_nr = t._output_nr if is_output else 0
            self.packed = pack(t)
            self.unpack_hook = unpack
            self.data = t if is_output else None
            if not is_output:
                self.leaf_rg = None
        elif is_output and t.grad_fn is not None and _forward_ad._level[0] is None:
            # (inside a dual level the output's tangent is attached after this: keep t itself there)
            t._version_counter                  # made now, so the shell shares it with t
            self.data = _shell(t)
            self.output_nr = t._output_nr

    def _with_history(self, out, node):
        """The unpack hook's tensor given the saved tensor's place in the graph, as torch's SavedVariable::unpack
        makes a variable of the hook's data with the saved grad_fn (an output: the saving node) or grad
        accumulator: a hook returning a detached copy (save_on_cpu, checkpointing) keeps double backward
        differentiating through the original graph. A saved tensor that did not require grad comes back as
        the hook gave it."""
        if self.is_output:
            if node is None or not _tls.grad_enabled:
                return out
            edge = (node, self.output_nr)
        else:
            edge = self.edge
            if edge is None:
                return out
        fn, nr = edge
        if out.grad_fn is fn and out._output_nr == nr:
            return out                  # the hook gave back the tensor itself
        t = _shell(out)
        d = t.__dict__
        d["_requires_grad"] = True
        d["_ks"] = t._ks | AUTOGRAD_BIT
        if isinstance(fn, _graph.AccumulateGrad):
            d["_grad_acc_ref"] = _weakref(fn)
            d["_grad_acc_strong"] = fn
        else:
            d["grad_fn"], d["_output_nr"] = fn, nr
        return t

    def unpack(self, node=None):
        if self.released:
            raise RuntimeError(_graph.ERR_SECOND_BACKWARD)
        t = self.data
        if self.unpack_hook is not None:
            out = self.unpack_hook(self.packed)
            if not isinstance(out, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                                f"{type(out).__name__}")
            return self._with_history(out, node)
        if not isinstance(t, Tensor):
            return t
        vc = t._vc
        cur = 0 if vc is None else vc.value
        if self.is_output and t.grad_fn is None and node is not None and cur == self.version \
                and _tls.grad_enabled and getattr(self, "output_nr", None) is not None:
            # only a backward that records (create_graph) needs the output wired to its node
            t = _shell(t)                       # a fresh tensor per unpack, wired to the node (double backward)
            d = t.__dict__
            d["grad_fn"], d["_output_nr"], d["_requires_grad"] = node, self.output_nr, True
            d["_ks"] = t._ks | AUTOGRAD_BIT
            return t
        if cur != self.version:
            # torch names the op only for an output or a tensor with a grad_fn (a leaf: no "which is output")
            fn = t.grad_fn if t.grad_fn is not None else node if self.is_output else None
            where = ""
            if fn is not None:
                n = fn.name()
                nr = getattr(self, "output_nr", None) if t.grad_fn is None else t._output_nr
                where = f", which is output {nr or 0} of {n[:-len('Backward0')] if n.endswith('Backward0') else n},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{_type_str(t)} {list(t._size)}]{where} is at version {cur}; expected version "
                f"{self.version} instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return t

    def release(self):
        self.released = True
        self.data = None
        self.packed = None


def _released():
    sv = SavedVariable(None)
    sv.release()
    return sv


RELEASED = _released()     # what release_variables leaves in a slot that held a tensor directly


def unpack_slot(node, name):
    """The saved value `s_<name>` of a generated node, when the inline check in its backward did not return it:
    a SavedVariable (or RELEASED) unpacks itself; a tensor whose version moved raises SavedVariable's error."""
    s = getattr(node, "s_" + name)
    if s.__class__ is SavedVariable:
        return s.unpack(node)
    sv = SavedVariable(s)
    sv.version = getattr(node, "v_" + name)
    return sv.unpack(node)


def _type_str(t):
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
             "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}
    return "ember." + names.get(t.dtype.name, t.dtype.name)


def unpack_output(node, name):
    """The saved output `s_<name>` of a generated node with one output (output 0). The kernel keeps a plain cpu
    output as a bare shell (see the generator's output save: the output's array, size, dtype and stride on a new
    tensor sharing its version counter, the counter's value at the save in `v_<name>`) instead of
    SavedVariable(output, True), whose _shell copies and prunes the output's __dict__ (saving an exp, sigmoid or
    tanh result cost ~5 us, an input ~0.6). Returned as it is unless its version moved or a backward records
    (create_graph wires a fresh shell to the node): both go through SavedVariable.unpack, as before."""
    s = getattr(node, "s_" + name)
    if s.__class__ is SavedVariable:
        return s.unpack(node)
    version = getattr(node, "v_" + name)
    if s._vc.value == version and not _tls.grad_enabled:
        return s
    sv = SavedVariable(s)
    sv.is_output = True
    sv.version = version
    sv.output_nr = 0
    return sv.unpack(node)


_graph._UNPACK[:] = [unpack_slot, unpack_output]     # graph.Node's `_saved_<name>` reads
