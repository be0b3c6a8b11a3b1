"""torch.utils.tensorboard.summary: the Summary protocol buffers SummaryWriter writes (scalars,
histograms, text), built from ember tensors, numpy arrays or Python numbers."""
import numpy as np
from tensorboard.compat.proto.histogram_pb2 import HistogramProto
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData


def make_np(x):
    """A numpy array from a tensor (detached, on the cpu), an array, or a Python number."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (int, float, bool, np.number)):
        return np.array([x])
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name, tensor, new_style=False, double_precision=False):
    value = make_np(tensor).squeeze()
    if value.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {value.size} "
                             f"and {value.ndim} dimensions.")
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=meta)])


def _tensorflow_bins():
    """TensorFlow's default bucket edges: +-1e-12 growing by 10% up to 1e20, with 0 in the middle."""
    pos = [1e-12]
    while pos[-1] < 1e20:
        pos.append(pos[-1] * 1.1)
    return [-v for v in reversed(pos)] + [0.0] + pos


def histogram(name, values, bins="tensorflow", max_bins=None):
    values = make_np(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    edges = _tensorflow_bins() if bins == "tensorflow" else bins
    counts, limits = np.histogram(values, bins=edges)
    if max_bins is not None and len(counts) > max_bins:       # merge neighbouring buckets
        group = len(counts) // max_bins
        counts = np.pad(counts, (0, -len(counts) % group)).reshape(-1, group).sum(axis=-1)
        limits = np.append(limits[:-1:group], limits[-1])
    # keep the non-empty range plus one empty bucket before it (its right edge is the range's left edge)
    nonzero = np.nonzero(counts)[0]
    first, last = (int(nonzero[0]), int(nonzero[-1])) if nonzero.size else (0, 0)
    counts = counts[first - 1:last + 1] if first > 0 else np.concatenate([[0], counts[:last + 1]])
    limits = limits[first:last + 2]
    hist = HistogramProto(min=float(values.min()), max=float(values.max()), num=int(values.size),
                          sum=float(values.sum()), sum_squares=float(values.dot(values)),
                          bucket_limit=limits.tolist(), bucket=counts.astype(float).tolist())
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def text(tag, text):
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text.encode("utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])
