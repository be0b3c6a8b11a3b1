"""torch/_inductor/codecache.py's FxGraphCache: the graph-level disk cache that lets a new process skip AOT
autograd, lowering, scheduling and code generation for a graph it has compiled before.

The key hashes what decides the compiled result: the captured graph's code, the metadata of the example inputs
and of the module's parameters and buffers (sizes, strides, dtypes, requires_grad), the values of tensor
constants baked into the graph, global state (grad mode, default dtype, ...), the inductor config, ember's
version and its source files (path, size, modification time of each: an edit anywhere in ember makes every key
new). The value is one pickle per key: what AOT autograd learned about the outputs (which require grad,
alias an input, mutate one), the runtime signature it was compiled for, and the generated wrapper and C source
of the forward and backward (or inference) graphs, whose libraries come from the code cache (codecache.py,
keyed by the C source). A hit rebuilds AOT autograd's runtime entry around them; a call whose signature or grad
mode differs from the cached one goes through AOT autograd as usual. Files are written atomically (temp file +
rename), so concurrent processes never read half a file; a file that does not load is ignored.
`config.fx_graph_cache = False` (EMBER_INDUCTOR_FX_GRAPH_CACHE=0) turns it off.
"""
import functools
import hashlib
import os
import pickle
import tempfile

from ember._dynamo.utils import counters

_FORMAT = 15                # 2: entries record kept_mutated (input writes kept in the graph); 3: blas_bits;
#                             4: dconv (convolutions called from C); 5: im2col convolutions called from C;
#                             6: a returned permuted value whose base an extern reads is a strided view of that
#                             base; 7: a permuted value an extern reads and the graph returns (saved q, k, v) is
#                             one buffer, in the output's layout; 8: a matmul operand BLAS cannot read in place
#                             (a 0-stride gradient) is copied to contiguous scratch in the C entry; 9: dconv's
#                             channel-vector weight gradient is bound too (conv_calls._BIND_NAMES); 10: float
#                             sums in numpy's order (eager's bits: codegen/cpp.py KernelCodegen._numpy_sum),
#                             max pools call pool.c (CompiledModule.pool), parallel loops and gemm blocks run on
#                             ember's C pool (ember_set_parallel); 11: kernel pointers declared by
#                             extern_plan.pointer_preamble; 12: last-dim softmax calls softmax.c, nll_loss_forward
#                             nll.c; extern helpers named without the process's graph count
#                             13: attention pairs and bmm matrices over the pool, attention's rowsum(dO * O)
#                             by cblas dots (ember_set_attention_dot); 14: generated loops split from
#                             PARALLEL_MIN_WORK 2^15 (was 2^21); 15: attention calls attention.c's fused
#                             attn_flash_fwd/bwd (eager's kernel) through its descriptor


def cache_dir():
    from ember._cc.build import cache_dir as c_dir
    return os.path.join(os.path.dirname(c_dir()), "fxgraph")


@functools.lru_cache(maxsize=None)
def _compiler_source_hash():
    """A hash of the path, size and modification time of every source file of ember (Python, yaml, C): any
    edit to the library (the compiler, a decomposition, an autograd formula, a kernel) makes every key new.
    Read once per process; stat() keeps it at a few ms where hashing the 4.7 MB of source takes ~70."""
    import ember
    root = os.path.dirname(ember.__file__)
    parts = []

    def walk(d, rel):
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name != "__pycache__":
                    walk(e.path, rel + e.name + "/")
            elif e.name.endswith((".py", ".yaml", ".c", ".h")):
                st = e.stat()
                parts.append(f"{rel}{e.name} {st.st_size} {st.st_mtime_ns}")
    walk(root, "")
    h = hashlib.sha256("\n".join(parts).encode())
    return h.hexdigest()


def _config_repr():
    """The knobs, and the thread count generated loops split over (it decides which kernels run parallel)."""
    from . import config
    knobs = sorted((k, v) for k, v in config.get_config_copy().items() if k != "fx_graph_cache")
    return repr((knobs, config.threads()))


def _global_state():
    """What AOT autograd's trace depends on besides the graph: grad mode (a joint or an inference graph), the
    default dtype (factory calls in the graph), inference mode, the dispatch key sets, determinism."""
    import ember
    from ember._core.promotion import get_default_dtype
    from ember._core.tls import state
    det = getattr(ember, "are_deterministic_algorithms_enabled", lambda: None)()
    return repr((bool(state.grad_enabled), str(get_default_dtype()), getattr(state, "inference_mode", None),
                 getattr(state, "include", None), getattr(state, "exclude", None), det))


def _tensor_meta(t):
    return (tuple(t.shape), tuple(t.stride()), str(t.dtype), bool(t.requires_grad), t.storage_offset())


def graph_key(gm, example_inputs):
    """The cache key of compiling `gm` for `example_inputs` with the current config, or None when the graph
    holds something the key cannot describe (then it is not cached)."""
    import ember
    from ember._tensor import Tensor
    h = hashlib.sha256()
    h.update(f"format {_FORMAT} ember {ember.__version__} {_compiler_source_hash()}\n".encode())
    h.update(_config_repr().encode())
    h.update(_global_state().encode())
    code = getattr(gm, "code", None)
    if not isinstance(code, str):
        return None
    h.update(code.encode())
    params = set()
    for name, p in list(gm.named_parameters(remove_duplicate=False)) + list(gm.named_buffers(remove_duplicate=False)):
        params.add(name)
        h.update(repr((name, _tensor_meta(p))).encode())
    for node in gm.graph.nodes:
        if node.op == "get_attr" and node.target not in params:
            obj = gm
            for part in node.target.split("."):
                obj = getattr(obj, part, None)
            if isinstance(obj, Tensor):
                h.update(repr((node.target, _tensor_meta(obj))).encode())
                h.update(obj.detach().contiguous().numpy().tobytes())
            elif obj is not None and not isinstance(obj, ember.nn.Module):
                return None
    for a in example_inputs:
        if isinstance(a, Tensor):
            h.update(repr(("T", _tensor_meta(a))).encode())
        elif isinstance(a, (bool, int, float, str, type(None))):
            h.update(repr(("V", a)).encode())
        else:
            return None
    return h.hexdigest()


def _path(key):
    return os.path.join(cache_dir(), key[:2], key + ".pkl")


def load(key):
    """The cached record for `key`, or None."""
    try:
        with open(_path(key), "rb") as f:
            record = pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception:                                   # noqa: BLE001 - a damaged entry is a miss
        counters["inductor"]["fxgraph_cache_bad"] += 1
        return None
    if not isinstance(record, dict) or record.get("format") != _FORMAT:
        return None
    return record


def save(key, record):
    """Store `record` under `key` (atomically); False if it cannot be pickled."""
    record = dict(record, format=_FORMAT)
    try:
        data = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:                                   # noqa: BLE001 - an unpicklable constant or op
        counters["inductor"]["fxgraph_cache_unpicklable"] += 1
        return False
    path = _path(key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    counters["inductor"]["fxgraph_cache_saved"] += 1
    return True


# ---------------------------------------------------------------------------- AOT entries <-> records
_ENTRY_FIELDS = ("slot_of", "needs_autograd", "out_infos", "out_spec", "mutated_slots", "mutated", "kept_mutated",
                 "n_out")
_JOINT_FIELDS = ("diff_in", "diff_out")


def signature(args):
    """AOT autograd's fast cache key of a call with these (all tensor) arguments, and grad mode."""
    from ember._core.tls import state
    ids = {}
    return (tuple((a._size, a.stride(), a.dtype, a.requires_grad, a._np is None, ids.setdefault(id(a), i))
                  for i, a in enumerate(args)), state.grad_enabled)


def record_of(entry, sig):
    """A picklable record of a compiled AOT entry, or None if one of its graphs is not generated code."""
    record = {"signature": sig}
    for f in _ENTRY_FIELDS:
        record[f] = getattr(entry, f, None)
    if entry.needs_autograd:
        for f in _JOINT_FIELDS:
            record[f] = getattr(entry, f)
        graphs = {"fw": entry.compiled_fw, "bw": entry.compiled_bw}
    else:
        graphs = {"inference": entry.compiled}
    for name, call in graphs.items():
        module = getattr(call, "_ember_module", None)
        if module is None:
            return None
        record[name] = module
    return record


def entry_of(record, load_module):
    """Rebuild AOT autograd's runtime entry from a record; `load_module(CompiledModule) -> call` builds or finds
    each graph's library in the code cache (compile_fx.load_module)."""
    from ember._functorch.aot_autograd import _CompiledEntry, _make_autograd_function
    entry = _CompiledEntry.__new__(_CompiledEntry)
    entry.config = None
    for f in _ENTRY_FIELDS:
        setattr(entry, f, record.get(f))
    if entry.needs_autograd:
        for f in _JOINT_FIELDS:
            setattr(entry, f, record[f])
        entry.compiled_fw = load_module(record["fw"])
        entry.compiled_bw = load_module(record["bw"])
        entry.function = _make_autograd_function(entry)
    else:
        entry.compiled = load_module(record["inference"])
    return entry
