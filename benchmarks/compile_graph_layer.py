"""The graph layer on a GPT train step, ember next to torch: make_fx + AOT autograd compile time (first call of
aot_module_simplified with the nop compiler: fake-tensor analysis, joint trace, functionalization,
partition), the per-step time of the compiled pair against eager, and the bytes saved for backward by each
partition against eager autograd (counted with saved_tensors_hooks, distinct storages; graph inputs, i.e.
parameters and data, excluded, since eager keeps those anyway).
torch's side: functorch's aot_module_simplified with the same partitions, and torch.compile(backend="aot_eager").
Prints one JSON object. Run from the repo root: python benchmarks/compile_graph_layer.py [--threads N] [--small]
"""
import copy
import json
import sys
import time

from _harness import best, threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

import ember  # noqa: E402


def build_gpt(lib, vocab=65, block=32, n_embd=64, n_head=4, n_layer=2):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
            self.c_fc, self.mlp_proj = nn.Linear(n_embd, 4 * n_embd), nn.Linear(4 * n_embd, n_embd)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(n_embd, dim=2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)         # (B, nh, T, hs)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.c_proj(y)
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.wte.weight = self.lm_head.weight                          # tied

        def forward(self, idx, targets):
            return (self.loss(idx, targets),)          # a tuple, as torch's aot_module_simplified requires

        def loss(self, idx, targets):
            T = idx.shape[1]
            x = self.wte(idx) + self.wpe(lib.arange(0, T))
            for b in self.h:
                x = b(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))

    return GPT()


def saved_bytes_eager(lib, step, inputs):
    """Bytes of distinct storages eager autograd saves for backward, graph inputs excluded."""
    seen = {}
    skip = {t.data_ptr() for t in inputs}

    def pack(t):
        p = t.data_ptr()
        if p not in skip:
            seen[(p, t.dtype)] = max(seen.get((p, t.dtype), 0), t.numel() * t.element_size())
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = step()
    del loss
    return sum(seen.values())


def main():
    threads = threads_arg()
    small = "--small" in sys.argv
    cfg = dict(n_layer=1, n_embd=32, block=16) if small else {}
    B, T = (4, 16) if small else (8, 32)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 65, (B, T)).astype(np.int64)
    tgt = rng.integers(0, 65, (B, T)).astype(np.int64)
    out = {"config": {"B": B, "T": T, **cfg, "threads": threads}}

    from ember._functorch.aot_autograd import aot_module_simplified, nop
    from ember._functorch.partitioners import default_partition, min_cut_rematerialization_partition
    from ember._functorch.partitioners import saved_bytes as graph_saved_bytes
    ember.manual_seed(0)
    model = build_gpt(ember, **cfg)
    ei, et = ember.from_numpy(idx), ember.from_numpy(tgt)
    params = list(model.parameters()) + [ei, et]

    def eager_step(m=model):
        loss = m(ei, et)[0]
        loss.backward()
        return loss

    ember_res = {"eager_step_ms": best(eager_step, 5),
                 "eager_saved_bytes": saved_bytes_eager(ember, lambda: model(ei, et)[0], params)}
    for name, part in (("default", default_partition), ("min_cut", min_cut_rematerialization_partition)):
        m = copy.deepcopy(model)
        t0 = time.perf_counter()
        fn = aot_module_simplified(m, (ei, et), nop, partition_fn=part)
        fn(ei, et)[0].backward()
        compile_s = time.perf_counter() - t0
        (entry,) = fn._aot_compiled._aot_cache.values()
        ember_res[name] = {
            "compile_s (make_fx + AOT, first call)": round(compile_s, 3),
            "step_ms": best(lambda: fn(ei, et)[0].backward(), 5),
            "saved_bytes": graph_saved_bytes(entry.fw_graph, exclude_inputs=True),
            "fw_nodes": len(entry.fw_graph.graph.nodes), "bw_nodes": len(entry.bw_graph.graph.nodes)}
    out["ember"] = ember_res

    try:
        import torch
    except ImportError:
        print(json.dumps(out, indent=1))
        return
    torch.set_num_threads(threads)
    from functorch.compile import aot_module_simplified as t_aot, default_partition as t_def
    from functorch.compile import min_cut_rematerialization_partition as t_min, nop as t_nop
    torch.manual_seed(0)
    tmodel = build_gpt(torch, **cfg)
    ti, tt = torch.from_numpy(idx), torch.from_numpy(tgt)
    tparams = list(tmodel.parameters()) + [ti, tt]
    torch_res = {"eager_step_ms": best(lambda: tmodel(ti, tt)[0].backward(), 5),
                 "eager_saved_bytes": saved_bytes_eager(torch, lambda: tmodel(ti, tt)[0], tparams)}
    for name, part in (("default", t_def), ("min_cut", t_min)):
        m = copy.deepcopy(tmodel)
        info = {}

        def fw_compiler(gm, example_inputs, info=info):
            info["fw"] = gm
            return gm

        t0 = time.perf_counter()
        fn = t_aot(m, (ti, tt), fw_compiler=fw_compiler, bw_compiler=t_nop, partition_fn=part)
        fn(ti, tt)[0].backward()
        compile_s = time.perf_counter() - t0
        torch_res[name] = {"compile_s (aot_module_simplified, first call)": round(compile_s, 3),
                           "step_ms": best(lambda: fn(ti, tt)[0].backward(), 5),
                           "saved_bytes": _torch_saved_bytes(info["fw"], len(tparams))}
    torch._dynamo.reset()
    m = copy.deepcopy(tmodel)
    cm = torch.compile(m, backend="aot_eager")
    t0 = time.perf_counter()
    cm(ti, tt)[0].backward()
    torch_res["torch.compile(aot_eager)"] = {"first_call_s": round(time.perf_counter() - t0, 3),
                                             "step_ms": best(lambda: cm(ti, tt)[0].backward(), 5)}
    out["torch"] = torch_res
    print(json.dumps(out, indent=1))


def _torch_saved_bytes(fw_gm, n_inputs):
    """Bytes of the forward graph's saved outputs that are not graph inputs (from their fake values)."""
    out = next(n for n in fw_gm.graph.nodes if n.op == "output")
    vals = out.args[0]
    n_outs = fw_gm.meta.get("num_fwd_outputs")
    placeholders = {n for n in fw_gm.graph.nodes if n.op == "placeholder"}
    total = 0
    for n in vals[1:] if n_outs is None else vals[n_outs:]:
        if n in placeholders or not hasattr(n, "meta"):
            continue
        v = n.meta.get("val")
        if v is not None and hasattr(v, "numel"):
            total += v.numel() * v.element_size()
    return total


if __name__ == "__main__":
    main()
