"""The op database (torch's common_methods_invocations.py op_db): one OpInfo per op and sample set, one
module per op family; `op_db` is all of them, families in name order. Driven by tests/ops/test_ops.py and
tests/autograd/test_op_db*.py."""
from . import activation
from . import attention
from . import complex
from . import conv
from . import distance
from . import dropout
from . import elementwise
from . import elementwise_polynomial
from . import elementwise_special
from . import embedding
from . import fft
from . import index
from . import interpolate
from . import linear
from . import linalg
from . import linalg_lu
from . import loss
from . import norm
from . import padding
from . import pool
from . import random
from . import reduction
from . import reduction_stats
from . import scan
from . import shape
from . import softmax
from . import sort
from . import view

FAMILIES = {
    "activation": activation.op_db,
    "attention": attention.op_db,
    "complex": complex.op_db,
    "conv": conv.op_db,
    "distance": distance.op_db,
    "dropout": dropout.op_db,
    "elementwise": elementwise.op_db,
    "elementwise_polynomial": elementwise_polynomial.op_db,
    "elementwise_special": elementwise_special.op_db,
    "embedding": embedding.op_db,
    "fft": fft.op_db,
    "index": index.op_db,
    "interpolate": interpolate.op_db,
    "linear": linear.op_db,
    "linalg": linalg.op_db,
    "linalg_lu": linalg_lu.op_db,
    "loss": loss.op_db,
    "norm": norm.op_db,
    "padding": padding.op_db,
    "pool": pool.op_db,
    "random": random.op_db,
    "reduction": reduction.op_db,
    "reduction_stats": reduction_stats.op_db,
    "scan": scan.op_db,
    "shape": shape.op_db,
    "softmax": softmax.op_db,
    "sort": sort.op_db,
    "view": view.op_db,
}
op_db = [op for family in FAMILIES.values() for op in family]
