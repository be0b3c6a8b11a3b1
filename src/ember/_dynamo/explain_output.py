"""torch._dynamo.explain (backends/debugging.py ExplainOutput): run a function under capture and report its
graphs, graph breaks (reason and user file:line), ops per graph and guards."""
from . import eval_frame


class ExplainOutput:
    def __init__(self, graphs, graph_count, graph_break_count, break_reasons, op_count, ops_per_graph,
                 out_guards, compile_times=None):
        self.graphs = graphs
        self.graph_count = graph_count
        self.graph_break_count = graph_break_count
        self.break_reasons = break_reasons
        self.op_count = op_count
        self.ops_per_graph = ops_per_graph
        self.out_guards = out_guards
        self.compile_times = compile_times

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, (reason, loc) in enumerate(self.break_reasons, 1):
            lines.append(f"  Break Reason {i}:")
            lines.append(f"    Reason: {reason}")
            lines.append(f"    User Stack: {loc}")
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    {op}" for op in ops]
        lines.append("Out Guards:")
        lines += [f"  {g}" for g in self.out_guards]
        return "\n".join(lines) + "\n"


def explain(fn, *extra_args, **extra_kwargs):
    def inner(*args, **kwargs):
        seen = set(eval_frame._STATES)
        compiled = eval_frame.optimize(fn, {"backend": "eager", "fullgraph": False, "dynamic": None,
                                            "mode": "explain"})
        compiled(*args, **kwargs)
        graphs, breaks, ops, guards = [], [], [], []
        for key, st in eval_frame._STATES.items():
            if key in seen or key[1][3] != "explain":
                continue
            breaks += st.break_log
            for e in st.entries:
                subs = list(e.sub.values()) if hasattr(e, "sub") else [e]
                for s in subs:
                    for gm in s.graphs:
                        graphs.append(gm)
                        ops.append([n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method")])
                    guards += list(s.guard_builder.guards.values())
        return ExplainOutput(graphs, len(graphs), len(breaks), breaks, sum(len(o) for o in ops), ops, guards)
    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
