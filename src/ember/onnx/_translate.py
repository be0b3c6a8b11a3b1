"""aten graph -> ONNX nodes: one emitter per aten op (the counterpart of torch.onnx's symbolic functions).

`Translator.run(gm, inputs, params)` walks a make_fx GraphModule: placeholders become graph inputs (the
example inputs) or initializers (the module's parameters and buffers), each call_function node emits ONNX
nodes through the emitter registered for its aten op, and the output node names the graph outputs.
An op without an emitter raises NotImplementedError naming it.
"""
import operator

import numpy as np

_EMITTERS = {}


def emits(*names):
    def deco(fn):
        for n in names:
            _EMITTERS[n] = fn
        return fn
    return deco


class Translator:
    def __init__(self, onnx):
        self.onnx = onnx
        self.helper = onnx.helper
        self.nodes, self.initializers = [], []
        self.names = {}        # fx node -> ONNX value name (or a tuple of names for multi-output ops)
        self._n = 0

    # ------------------------------------------------------------ values
    def fresh(self, base):
        self._n += 1
        return f"{base}_{self._n}"

    def const(self, value, dtype=None):
        arr = np.asarray(value, dtype=dtype)
        name = self.fresh("const")
        self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def ints(self, values):
        return self.const(np.asarray(list(values), dtype=np.int64))

    def node(self, op, inputs, n_out=1, **attrs):
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(self.helper.make_node(op, list(inputs), outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def value(self, arg, like=None):
        """The ONNX name of an fx argument: a node's value, or a Python scalar as a constant of `like`'s dtype."""
        if hasattr(arg, "op"):
            return self.names[arg]
        dtype = like if like is not None else (np.int64 if isinstance(arg, int) and not isinstance(arg, bool)
                                               else np.float32)
        return self.const(np.asarray(arg, dtype=dtype))

    def np_dtype(self, fx_node):
        val = fx_node.meta.get("val") if hasattr(fx_node, "meta") else None
        return np.dtype(val.dtype._np) if val is not None else np.float32

    # ------------------------------------------------------------ the walk
    def run(self, gm, input_names, params):
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        for node, name in zip(placeholders, input_names):
            self.names[node] = name
        for node, (name, arr) in zip(placeholders[len(input_names):], params):
            self.names[node] = name
            self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
        outputs = []
        for node in gm.graph.nodes:
            if node.op == "call_function":
                if node.target is operator.getitem:
                    self.names[node] = self.names[node.args[0]][node.args[1]]
                    continue
                key = getattr(node.target, "__name__", str(node.target))      # "addmm.default"
                fn = _EMITTERS.get(key) or _EMITTERS.get(key.split(".")[0])
                if fn is None:
                    raise NotImplementedError(f"ember.onnx.export: no ONNX translation for aten.{key} yet")
                self.names[node] = fn(self, node, *node.args, **node.kwargs)
            elif node.op == "output":
                outs = node.args[0]
                outputs = [self.names[o] for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
        return outputs


# ---------------------------------------------------------------- emitters
@emits("t")
def _t(tr, node, x):
    return tr.node("Transpose", [tr.value(x)], perm=[1, 0])


@emits("transpose")
def _transpose(tr, node, x, d0, d1):
    rank = len(x.meta["val"].shape)
    perm = list(range(rank))
    perm[d0 % rank], perm[d1 % rank] = perm[d1 % rank], perm[d0 % rank]
    return tr.node("Transpose", [tr.value(x)], perm=perm)


@emits("permute")
def _permute(tr, node, x, dims):
    return tr.node("Transpose", [tr.value(x)], perm=list(dims))


@emits("addmm")
def _addmm(tr, node, bias, a, b, beta=1, alpha=1):
    return tr.node("Gemm", [tr.value(a), tr.value(b), tr.value(bias)], alpha=float(alpha), beta=float(beta))


@emits("mm", "bmm", "matmul")
def _matmul(tr, node, a, b):
    return tr.node("MatMul", [tr.value(a), tr.value(b)])


@emits("view", "_unsafe_view", "reshape")
def _reshape(tr, node, x, shape):
    return tr.node("Reshape", [tr.value(x), tr.ints(shape)])


@emits("flatten")
def _flatten(tr, node, x, start_dim=0, end_dim=-1):
    return tr.node("Reshape", [tr.value(x), tr.ints(node.meta["val"].shape)])


@emits("unsqueeze")
def _unsqueeze(tr, node, x, dim):
    return tr.node("Unsqueeze", [tr.value(x), tr.ints([dim])])


@emits("squeeze")
def _squeeze(tr, node, x, dim=None):
    return tr.node("Reshape", [tr.value(x), tr.ints(node.meta["val"].shape)])


@emits("expand")
def _expand(tr, node, x, size, implicit=False):
    return tr.node("Expand", [tr.value(x), tr.ints(node.meta["val"].shape)])


def _unary(onnx_op):
    return lambda tr, node, x, *rest: tr.node(onnx_op, [tr.value(x)])


for _aten, _onnx in (("relu", "Relu"), ("sigmoid", "Sigmoid"), ("tanh", "Tanh"), ("exp", "Exp"), ("log", "Log"),
                     ("neg", "Neg"), ("sqrt", "Sqrt"), ("abs", "Abs"), ("erf", "Erf"), ("rsqrt", None)):
    if _onnx is not None:
        emits(_aten)(_unary(_onnx))


@emits("rsqrt")
def _rsqrt(tr, node, x):
    return tr.node("Reciprocal", [tr.node("Sqrt", [tr.value(x)])])


@emits("clone", "detach", "alias", "dropout", "lift_fresh_copy", "contiguous")
def _identity(tr, node, x, *rest, **kw):
    return tr.node("Identity", [tr.value(x)])


def _binary(onnx_op):
    def emit(tr, node, a, b, alpha=1):
        like = tr.np_dtype(node)
        rhs = tr.value(b, like)
        if alpha != 1:
            rhs = tr.node("Mul", [rhs, tr.value(alpha, like)])
        return tr.node(onnx_op, [tr.value(a, like), rhs])
    return emit


for _aten, _onnx in (("add", "Add"), ("sub", "Sub"), ("mul", "Mul"), ("div", "Div"), ("pow", "Pow"),
                     ("maximum", "Max"), ("minimum", "Min")):
    emits(_aten)(_binary(_onnx))


@emits("gelu")
def _gelu(tr, node, x, approximate="none"):
    # 0.5 * x * (1 + erf(x / sqrt(2))) (the exact form; opset 17 has no Gelu op)
    v = tr.value(x)
    inner = tr.node("Erf", [tr.node("Div", [v, tr.value(float(np.sqrt(2.0)))])])
    return tr.node("Mul", [tr.node("Mul", [v, tr.value(0.5)]), tr.node("Add", [inner, tr.value(1.0)])])


@emits("_softmax", "softmax")
def _softmax(tr, node, x, dim, *rest):
    return tr.node("Softmax", [tr.value(x)], axis=int(dim))


@emits("_log_softmax", "log_softmax")
def _log_softmax(tr, node, x, dim, *rest):
    return tr.node("LogSoftmax", [tr.value(x)], axis=int(dim))


@emits("cat")
def _cat(tr, node, tensors, dim=0):
    return tr.node("Concat", [tr.value(t) for t in tensors], axis=int(dim))


@emits("mean", "sum")
def _reduce(tr, node, x, dim=None, keepdim=False, dtype=None):
    op = "ReduceMean" if str(node.target).split(".")[0].endswith("mean") else "ReduceSum"
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tr.node(op, [tr.value(x)], keepdims=int(bool(keepdim)))
    if op == "ReduceSum":
        return tr.node(op, [tr.value(x), tr.ints(dim)], keepdims=int(bool(keepdim)))
    return tr.node(op, [tr.value(x)], axes=list(dim), keepdims=int(bool(keepdim)))


@emits("convolution")
def _convolution(tr, node, x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        raise NotImplementedError("ember.onnx.export: no ONNX translation for transposed convolution yet")
    inputs = [tr.value(x), tr.value(w)] + ([tr.value(b)] if b is not None else [])
    return tr.node("Conv", inputs, strides=list(stride), pads=list(padding) * 2, dilations=list(dilation),
                   group=int(groups))


def _pair(v, default=None):
    if isinstance(v, (list, tuple)):
        return list(v) * (2 if len(v) == 1 else 1) if v else default
    return [v, v]


@emits("max_pool2d_with_indices")
def _max_pool2d(tr, node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    k = _pair(kernel_size)
    s = _pair(stride, k)
    p = _pair(padding)
    d = _pair(dilation)
    out = tr.node("MaxPool", [tr.value(x)], kernel_shape=k, strides=s, pads=p * 2, dilations=d,
                  ceil_mode=int(bool(ceil_mode)))
    return (out, None)


@emits("max_pool2d")
def _max_pool2d_plain(tr, node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool2d(tr, node, x, kernel_size, stride, padding, dilation, ceil_mode)[0]


@emits("avg_pool2d")
def _avg_pool2d(tr, node, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    k = _pair(kernel_size)
    s = _pair(stride, k)
    p = _pair(padding)
    return tr.node("AveragePool", [tr.value(x)], kernel_shape=k, strides=s, pads=p * 2,
                   ceil_mode=int(bool(ceil_mode)), count_include_pad=int(bool(count_include_pad)))


@emits("native_layer_norm")
def _layer_norm(tr, node, x, normalized_shape, w, b, eps):
    axis = -len(normalized_shape)
    inputs = [tr.value(x), tr.value(w) if w is not None else tr.const(np.ones(normalized_shape, np.float32))]
    if b is not None:
        inputs.append(tr.value(b))
    return (tr.node("LayerNormalization", inputs, axis=axis, epsilon=float(eps)), None, None)


@emits("_native_batch_norm_legit_no_training", "native_batch_norm")
def _batch_norm(tr, node, x, w, b, mean, var, *rest):
    eps = rest[-1]
    return (tr.node("BatchNormalization", [tr.value(x), tr.value(w), tr.value(b), tr.value(mean), tr.value(var)],
                    epsilon=float(eps)), None, None)


@emits("embedding")
def _embedding(tr, node, weight, indices, *rest):
    return tr.node("Gather", [tr.value(weight), tr.value(indices)], axis=0)
