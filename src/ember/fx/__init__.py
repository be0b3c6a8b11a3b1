"""torch.fx: graphs of Python operations (Graph, Node, GraphModule), symbolic tracing and the Interpreter.

    gm = ember.fx.symbolic_trace(model)     # Graph of call_module / call_function / call_method nodes
    print(gm.code)                          # readable Python; gm(x) runs it
    ember.fx.Interpreter(gm).run(x)         # node by node
"""
from .._core.unimplemented import missing_attribute as _missing_attribute
from . import annotate, config, immutable_collections, operator_schemas, passes, tensor_type  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap  # noqa: F401
from .graph import Graph, PythonCode  # noqa: F401
from .graph_module import GraphModule  # noqa: F401
from .interpreter import Interpreter, Transformer  # noqa: F401
from .node import Node, has_side_effect, map_aggregate, map_arg  # noqa: F401
from .proxy import Attribute, GraphAppendingTracer, Proxy, TraceError  # noqa: F401
from .subgraph_rewriter import replace_pattern  # noqa: F401


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
