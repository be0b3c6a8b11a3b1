"""torch.onnx: exporting a model to an ONNX file. The module exists so scripts that import it load;
`export` needs a graph of the model's aten ops (ember.fx's tracing) to translate, and raises
NotImplementedError naming that missing layer until it is built on it.
"""

producer_name = "ember"
producer_version = "0.1.0"


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
    raise NotImplementedError(
        "torch.onnx.export is not implemented in ember: exporting needs the model captured as a graph of aten "
        "ops (the ember.fx tracing layer) to translate into ONNX nodes, and that translation is not built yet. "
        "Save the weights with ember.save(model.state_dict(), path) instead.")


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    raise NotImplementedError("torch.onnx.register_custom_op_symbolic: ember has no ONNX exporter yet")


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    raise NotImplementedError("torch.onnx.unregister_custom_op_symbolic: ember has no ONNX exporter yet")
