"""torch/nn/_reduction.py: the loss reduction strings, their enum (none 0, mean 1, sum 2) and the legacy
size_average / reduce arguments. The one home of these rules for every loss in nn.functional."""
import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum", "reduction_enum"]


def get_enum(reduction):
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction string the deprecated size_average / reduce pair stands for (None means True)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.")
    return ret


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))


def reduction_enum(reduction, size_average=None, reduce=None):
    """What every loss does with its arguments: the legacy pair wins (with a warning) when either is given."""
    if size_average is not None or reduce is not None:
        return legacy_get_enum(size_average, reduce)
    return get_enum(reduction)
