"""torch.onnx: exporting a model to an ONNX file. `export` traces the model into an aten graph with
ember.fx's make_fx (parameters and buffers as inputs), translates each aten op into ONNX nodes
(`_translate.py`), checks the model with `onnx.checker` and saves it. The `onnx` package is an optional
extra (`pip install ember[onnx]`); an op without a translation raises NotImplementedError naming it.
"""
from .._core.unimplemented import missing_attribute as _missing_attribute
import numpy as np

from ..version import ember_version as _ember_version

producer_name = "ember"
producer_version = _ember_version      # as torch's is its own release: the exporting library's version


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


class TrainingMode:
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes:
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def is_in_onnx_export():
    """False: ember never runs a model under the ONNX exporter."""
    return False


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None, training=TrainingMode.EVAL,
           operator_export_type=OperatorExportTypes.ONNX, do_constant_folding=True, **options):
    """Write `model(*args)` as an ONNX model to `f` (a path or a binary file object); returns None.
    The graph has fixed shapes (those of `args`); `dynamic_axes` / `dynamic_shapes` are not supported."""
    try:
        import onnx
    except ImportError:
        raise ModuleNotFoundError("ember.onnx.export needs the 'onnx' package: pip install onnx") from None
    if dynamic_axes or dynamic_shapes:
        raise NotImplementedError("ember.onnx.export: dynamic_axes / dynamic_shapes (ember traces with fixed shapes)")
    if kwargs:
        raise NotImplementedError("ember.onnx.export: keyword inputs (pass the model's inputs in `args`)")
    from .. import no_grad
    from ..fx.experimental.proxy_tensor import make_fx
    from ..func import functional_call
    from ._translate import Translator

    args = args if isinstance(args, tuple) else (args,)
    names = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
    values = [p.detach() for _, p in model.named_parameters()] + [b.detach() for _, b in model.named_buffers()]
    was_training = model.training
    model.train(training == TrainingMode.TRAINING)
    try:
        def run(*flat):
            return functional_call(model, dict(zip(names, flat[len(args):])), flat[:len(args)])
        with no_grad():
            gm = make_fx(run)(*args, *values)
    finally:
        model.train(was_training)

    opset = 17 if opset_version is None else opset_version
    input_names = list(input_names or [f"input_{i}" if i else "input" for i in range(len(args))])[:len(args)]
    input_names += [f"input_{i}" for i in range(len(input_names), len(args))]
    tr = Translator(onnx)
    outs = tr.run(gm, input_names, [(n, v.numpy()) for n, v in zip(names, values)])
    output_names = list(output_names or [])
    renamed = []
    for i, name in enumerate(outs):
        want = output_names[i] if i < len(output_names) else (f"output_{i}" if i else "output")
        tr.nodes.append(onnx.helper.make_node("Identity", [name], [want]))
        renamed.append(want)
    example = [n.meta.get("val") for n in _output_nodes(gm)]

    used = {i for n in tr.nodes for i in n.input}
    tr.initializers = [t for t in tr.initializers if t.name in used]     # e.g. BatchNorm's num_batches_tracked

    def info(name, t):
        elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(t.dtype._np))
        return onnx.helper.make_tensor_value_info(name, elem, list(t.shape))
    graph = onnx.helper.make_graph(tr.nodes, getattr(model, "_get_name", lambda: "main_graph")(),
                                   [info(n, a) for n, a in zip(input_names, args)],
                                   [info(n, t) for n, t in zip(renamed, example)], tr.initializers)
    proto = onnx.helper.make_model(graph, producer_name=producer_name, producer_version=producer_version,
                                   opset_imports=[onnx.helper.make_opsetid("", opset)])
    onnx.checker.check_model(proto, full_check=True)
    if f is None:
        raise ValueError("ember.onnx.export: give the destination `f` (a path or a binary file object)")
    onnx.save(proto, f)
    return None


def _output_nodes(gm):
    out = next(n for n in gm.graph.nodes if n.op == "output")
    vals = out.args[0]
    return list(vals) if isinstance(vals, (list, tuple)) else [vals]


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    raise NotImplementedError("torch.onnx.register_custom_op_symbolic: ember has no ONNX exporter yet")


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    raise NotImplementedError("torch.onnx.unregister_custom_op_symbolic: ember has no ONNX exporter yet")


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
