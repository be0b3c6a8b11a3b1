"""torch/_inductor/compile_fx.py: compile_fx, the "inductor" backend's entry point.

`compile_fx(gm, example_inputs)` runs AOT autograd (ember._functorch) with `compile_fx_inner` as the forward,
backward and inference compiler, and inductor's decomposition table. `compile_fx_inner(gm, example_inputs)`
lowers one aten graph (graph.py), schedules and fuses it (scheduler.py), generates C and the Python wrapper
(codegen/), builds the C and returns the wrapper's `call`. If the graph holds something the IR cannot express
(`graph.UnsupportedGraph`), it runs as the fx graph (quietly: that is a known limit); if gcc fails, it runs
as the fx graph with a warning. Never wrong results.
"""
import warnings

from ember._cc import CompileError
from ember._dynamo.utils import counters, log

from .graph import GraphLowering, UnsupportedGraph
from .scheduler import Scheduler


def _compile_c(source, name):
    """Build C through the code cache (ember._inductor.codecache when present, else ember._cc)."""
    try:
        from . import codecache
        return codecache.compile_c(source, name)
    except ImportError:
        from ember import _cc
        return _cc.load(source, name)


def compile_to_module(gm, example_inputs=None, size_hints=None, concrete=False):
    """Lower, schedule and generate code for gm: (GraphLowering, Scheduler, CompiledModule). For a dynamic-shape
    graph, `size_hints` and `concrete` are GraphLowering's (symbolic sizes by default)."""
    from .codegen.wrapper import generate
    graph = GraphLowering(gm, example_inputs, size_hints, concrete).run()
    outs = [n for n in gm.graph.nodes if n.op == "output"]
    graph.single_output = bool(outs) and not isinstance(outs[0].args[0], (tuple, list))
    nbytes = {b.name: b.nbytes() for b in graph.inputs + graph.constants + graph.buffers}
    sched = Scheduler(graph.buffers, lambda n: nbytes.get(n, 0),
                      output_names=[o.buffer.name for o in graph.outputs if o is not None])
    module = generate(graph, sched)
    return graph, sched, module


def compile_fx_inner(gm, example_inputs=None, **kwargs):
    from .graph import is_symbolic_graph
    if is_symbolic_graph(gm):
        return _compile_dynamic(gm, example_inputs)
    return _compile_graph(gm, example_inputs)


def _compile_graph(gm, example_inputs=None, size_hints=None, concrete=False, module=None):
    try:
        if module is None:
            graph, sched, module = compile_to_module(gm, example_inputs, size_hints, concrete)
        else:
            graph = module._ember_graph
    except UnsupportedGraph as e:
        counters["inductor"]["fx_fallback"] += 1
        log("output_code", f"graph runs as fx: {e}")
        return gm.forward
    except Exception as e:             # a bug in lowering or code generation: say so, stay correct
        from . import config
        if config.debug:
            raise
        counters["inductor"]["lowering_failed"] += 1
        warnings.warn(f"ember._inductor: lowering failed, running the graph with the fx interpreter "
                      f"({type(e).__name__}: {e})", UserWarning, stacklevel=2)
        return gm.forward
    log("output_code", f"C source:\n{module.c_source}\nwrapper:\n{module.py_source}")
    counters["inductor"]["graphs"] += 1
    counters["inductor"]["kernels"] += module.n_kernels
    if not module.entry_names:
        call = load_module(module)
    else:
        call = _deferred_call(module, gm, _build_in_background(module.c_source))
    call._ember_graph = graph
    call._ember_module = module
    return call


# ---------------------------------------------------------------------------- dynamic shapes
def _compile_dynamic(gm, example_inputs):
    """A graph with symbolic sizes: C that takes the sizes as run-time arguments (one build for every size),
    checked by lowering the graph a second time at other sizes: if any decision of lowering, fusion or code
    generation depended on the example sizes, the two sources differ and the graph is compiled per concrete
    size instead (`_per_size_call`, counted in counters["inductor"]["specialized_symbolic_graphs"])."""
    from . import config, sizevars
    from .graph import UnsupportedGraph, default_size_hints
    from .sizevars import SizeUnsupported
    if sizevars.dynamic_codegen:
        reason = None
        try:
            hints = default_size_hints(gm)
            graph, _, module = compile_to_module(gm, example_inputs, hints)
            other = {k: 3 * v + 7 + 11 * i for i, (k, v) in enumerate(sorted(hints.items()))}
            _, _, module2 = compile_to_module(gm, example_inputs, other)
            if module2.c_source != module.c_source or module2.py_source != module.py_source:
                reason = "the generated code depends on the example sizes"
        except SizeUnsupported as e:
            reason = str(e)
        except UnsupportedGraph:
            return _compile_graph(gm, example_inputs)            # runs as fx (it says why)
        except Exception as e:                                  # noqa: BLE001 - the per-size path decides
            if config.debug:
                raise
            reason = f"{type(e).__name__}: {e}"
        if reason is None:
            counters["inductor"]["dynamic_graphs"] += 1
            module._ember_graph = graph
            return _compile_graph(gm, example_inputs, module=module)
        log("output_code", f"dynamic shapes: compiling per size ({reason})")
        log("recompiles", f"ember._inductor: a symbolic graph is compiled per size: {reason}")
        counters["inductor"]["dynamic_codegen_fallback"] += 1
    return _per_size_call(gm)


def _size_sources(gm):
    """{size symbol: (input position, dim or None for an int input)} from the graph's placeholders."""
    from ember._core.symint import SymInt
    from ember._tensor import Tensor
    out = {}
    pos = 0
    for n in gm.graph.nodes:
        if n.op != "placeholder":
            continue
        v = n.meta.get("val")
        if v.__class__ is SymInt and v.node.expr.is_Symbol:
            out.setdefault(v.node.expr.name, (pos, None))
        elif isinstance(v, Tensor):
            for d, sz in enumerate(v._size):
                if sz.__class__ is SymInt and sz.node.expr.is_Symbol:
                    out.setdefault(sz.node.expr.name, (pos, d))
        pos += 1
    return out


def _per_size_call(gm):
    """The graph compiled for the concrete sizes of each call (a build per distinct size)."""
    from .graph import default_size_hints
    sources = _size_sources(gm)
    if set(default_size_hints(gm)) - set(sources):
        counters["inductor"]["fx_fallback"] += 1
        log("output_code", "graph runs as fx: a size symbol has no input to read it from")
        return gm.forward
    syms = sorted(sources)
    where = [sources[s] for s in syms]
    cache = {}

    def call(*args):
        key = tuple(args[p] if d is None else args[p]._size[d] for p, d in where)
        fn = cache.get(key)
        if fn is None:
            counters["inductor"]["specialized_symbolic_graphs"] += 1
            log("recompiles", f"ember._inductor: building the graph for sizes {dict(zip(syms, key))}")
            fn = cache[key] = _compile_graph(gm, None, dict(zip(syms, key)), concrete=True)
        return fn(*args)
    return call


_BUILDERS = []


def _build_in_background(source):
    """A Future of the built library: gcc runs (in a subprocess, from a worker thread) while AOT autograd goes
    on, e.g. lowering the backward graph while the forward's C compiles (the two builds of a training graph
    overlap the Python work between them)."""
    from concurrent.futures import ThreadPoolExecutor
    if not _BUILDERS:
        _BUILDERS.append(ThreadPoolExecutor(max_workers=2, thread_name_prefix="ember-inductor-build"))
    return _BUILDERS[0].submit(lambda: _compile_c(source, "ember_inductor"))


def _deferred_call(module, gm, future):
    """The graph's `call`, which waits for its library on the first call. A failed build runs the graph with
    the fx interpreter from then on, with a warning (never wrong results)."""
    state = [None]

    def call(*args):
        fn = state[0]
        if fn is None:
            try:
                fn = module.load(future.result())
            except (CompileError, RuntimeError, OSError) as e:
                counters["inductor"]["compile_failed"] += 1
                warnings.warn(f"ember._inductor: building the generated C failed, running the graph with the fx "
                              f"interpreter instead ({str(e).splitlines()[0]})", UserWarning, stacklevel=2)
                fn = gm.forward
            state[0] = fn
        return fn(*args)
    return call


def load_module(module):
    """Build (or find in the code cache) a CompiledModule's C and return its `call`."""
    lib = _compile_c(module.c_source, "ember_inductor") if module.entry_names else _NoLib()
    call = module.load(lib)
    call._ember_module = module
    return call


class _NoLib:
    def __getitem__(self, name):
        raise KeyError(name)


def compile_fx(model, example_inputs, inner_compile=compile_fx_inner, decompositions=None, **kwargs):
    """The "inductor" backend: AOT autograd with every graph compiled to C.

    AOT autograd traces on the first call. If that trace fails (an op whose meta or backward formula cannot
    run on fake tensors), the graph runs as captured from then on, with a warning naming the error: a
    failure to compile never becomes a failure of the user's program (a genuine error in the program is
    raised again by the eager run)."""
    from ember._functorch.aot_autograd import _symbolic_fake_mode, aot_module_simplified
    from . import config, fxgraph_cache, sizevars
    from .decomposition import select_decomp_table
    symbolic = _symbolic_fake_mode(list(example_inputs)) is not None
    if symbolic and not sizevars.dynamic_codegen:
        # Dynamic shapes with sizevars.dynamic_codegen off: a symbolic graph is specialised to the sizes of each
        # call. AOT autograd then traces per input signature (its cache keyed by shapes, as with static graphs),
        # and each signature gets its own kernels: one capture, one kernel build per distinct size. (With it on,
        # the one symbolic AOT trace is compiled to size-parameterised C: compile_fx_inner, _compile_dynamic.)
        counters["inductor"]["specialized_symbolic_graphs"] += 1
        example_inputs = [None] * len(example_inputs)
    # keep_inference_input_mutations: an inference graph that updates its inputs (an optimizer step) writes them
    # from the generated kernels (graph.py: `copy_` into an input), not by copies after the graph
    compiled = aot_module_simplified(model, example_inputs, fw_compiler=inner_compile, bw_compiler=inner_compile,
                                     inference_compiler=inner_compile,
                                     decompositions=decompositions or select_decomp_table(),
                                     keep_inference_input_mutations=True)
    eager = [None]
    # the graph-level disk cache (fxgraph_cache.py), for the default compiler and decompositions only
    key = None
    if config.fx_graph_cache and inner_compile is compile_fx_inner and decompositions is None and not symbolic:
        try:
            key = fxgraph_cache.graph_key(model, example_inputs)
        except Exception:                          # noqa: BLE001 - an undescribable graph is not cached
            key = None
    cached = [None, None]                          # (signature, entry) of a hit; set by a save too
    if key is not None:
        record = fxgraph_cache.load(key)
        if record is not None:
            try:
                cached[:] = [record["signature"], fxgraph_cache.entry_of(record, load_module)]
                counters["inductor"]["fxgraph_cache_hit"] += 1
            except Exception:                      # noqa: BLE001 - an entry that does not load is a miss
                counters["inductor"]["fxgraph_cache_bad"] += 1
        else:
            counters["inductor"]["fxgraph_cache_miss"] += 1
    names = [k for k, _ in model.named_parameters(remove_duplicate=False)] + \
        [k for k, _ in model.named_buffers(remove_duplicate=False)] if key is not None else []

    def flat_args(args):
        from ember._functorch.aot_autograd import _attr
        return [_attr(model, k) for k in names] + list(args)

    def forward(*args):
        if eager[0] is not None:
            return eager[0](*args)
        if cached[1] is not None:
            flat = flat_args(args)
            try:
                sig = fxgraph_cache.signature(flat)
            except AttributeError:                 # a non-tensor argument
                sig = None
            if sig == cached[0]:
                return cached[1](flat)
        try:
            out = compiled(*args)
            if key is not None and cached[0] is None:
                cached[0] = False                  # tried once
                _save(key, compiled, flat_args(args))
            return out
        except Exception as e:
            from . import config
            if not _raised_while_tracing(e) or config.debug:
                raise                   # a genuine run-time error of the compiled program (or debugging)
            counters["inductor"]["aot_failed"] += 1
            warnings.warn(f"ember._inductor: AOT autograd could not trace this graph, running it as captured "
                          f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})", UserWarning,
                          stacklevel=2)
            eager[0] = model.forward if hasattr(model, "forward") else model
            return eager[0](*args)
    forward._aot_compiled = compiled._aot_compiled
    forward.zero_grad = compiled.zero_grad
    forward.named_parameters = compiled.named_parameters
    forward.named_buffers = compiled.named_buffers
    return forward


def _save(key, compiled, flat):
    """Store the one AOT entry the first call compiled (fxgraph_cache.py)."""
    from . import fxgraph_cache
    entries = list(compiled._aot_compiled._aot_cache.values())
    if len(entries) != 1:
        return
    try:
        sig = fxgraph_cache.signature(flat)
    except AttributeError:
        return
    record = fxgraph_cache.record_of(entries[0], sig)
    if record is not None:
        fxgraph_cache.save(key, record)


_TRACE_STEPS = {"_analyze", "_compile_joint", "_compile_inference"}


def _raised_while_tracing(e):
    """True if e came out of AOT autograd's trace of a new input signature (not out of running a graph)."""
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name in _TRACE_STEPS and code.co_filename.endswith("aot_autograd.py"):
            return True
        tb = tb.tb_next
    return False
