"""View and shape ops and RNN cells at small models' shapes, ember vs torch in one process: CPU-time minima in us.

    python benchmarks/view_ops.py [--only SUBSTRING[,SUBSTRING]] [--number 2000] [--repeat 9] [--json out.json]

Issue 18's transformer and LSTMCell workloads (small_models.py) spend much of a step in views: a split of the
fused qkv projection, views and transposes of the strided pieces, matmul's reshapes of them (`_reshape_alias` of a
viewable non-contiguous tensor, `_unsafe_view` of a copy), chunk/unbind/narrow/select/expand/permute, contiguous()
of a small permuted tensor, each with and without grad; and the cell forward (LSTMCell/GRUCell at the
time-sequence example's shapes: batch 8, 51 units), forward alone and forward+backward.

Each row is the minimum over `--repeat` rounds of the mean CPU time (time.process_time) of `--number` calls: on a
shared machine CPU-time minima stay comparable where wall time measures waiting for a core. Prints JSON:
{row: {"ember": us, "torch": us, "ratio": ember/torch}} plus the load average.
"""
import argparse
import json
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))


def cpu_min_us(stmt, glb, number, repeat):
    times = timeit.Timer(stmt, globals=glb, timer=time.process_time).repeat(number=number, repeat=repeat)
    return min(times) / number * 1e6


def setup(mod):
    """The tensors each row works on (the transformer's shapes: batch 8, 32 tokens, d 64, 4 heads)."""
    g = {"mod": mod, "F": mod.nn.functional}
    for grad in (False, True):
        sfx = "g" if grad else ""
        base = mod.randn(8, 32, 192, requires_grad=grad)
        qkv = base * 1.0 if grad else base                          # a non-leaf with grad, like a Linear's output
        g["qkv" + sfx] = qkv
        q = qkv.split(64, dim=2)[0]                                  # (8, 32, 64), strides (6144, 192, 1)
        g["q" + sfx] = q
        g["qh" + sfx] = q.view(8, 32, 4, 16).transpose(1, 2)         # (8, 4, 32, 16), not viewable as (32, 32, 16)
        g["m" + sfx] = mod.randn(8, 4, 32, 32, requires_grad=grad) * 1.0 if grad else mod.randn(8, 4, 32, 32)
        x = mod.randn(8, 32, 64, requires_grad=grad)
        g["x" + sfx] = x * 1.0 if grad else x
        g["xt" + sfx] = g["x" + sfx].transpose(0, 1)                 # (32, 8, 64): reshape (32, 512) copies
        s = mod.randn(8, 51, requires_grad=grad)
        g["s" + sfx] = s * 1.0 if grad else s
        g["p" + sfx] = g["x" + sfx].permute(0, 2, 1)                 # small permuted: contiguous() copies
        col = mod.randn(8, 1, requires_grad=grad)
        g["col" + sfx] = col * 1.0 if grad else col
    return g


ROWS = {
    # name: statement (run on the tensors of setup(); the "(grad)" twin uses the g-suffixed tensors)
    "split(64, dim=2)": "qkv{g}.split(64, dim=2)",
    "chunk(3, dim=2)": "qkv{g}.chunk(3, dim=2)",
    "unbind(0) 8x51": "s{g}.unbind(0)",
    "narrow(2, 0, 64)": "qkv{g}.narrow(2, 0, 64)",
    "select(1, 3)": "x{g}.select(1, 3)",
    "x[:, 3]": "x{g}[:, 3]",
    "view(B,T,nh,hs) of split": "q{g}.view(8, 32, 4, 16)",
    "transpose(1, 2)": "x{g}.transpose(1, 2)",
    "permute(0, 2, 1)": "x{g}.permute(0, 2, 1)",
    "expand(4, 8, 51)": "s{g}.expand(4, 8, 51)",
    "expand_as own size": "s{g}.expand(8, 51)",
    "reshape viewable strided (split piece)": "q{g}.reshape(256, 64)",
    "reshape copy (transposed)": "xt{g}.reshape(32, 512)",
    "reshape contiguous": "x{g}.reshape(256, 64)",
    "reshape copy (qh -> 32,32,16)": "qh{g}.reshape(32, 32, 16)",
    "_reshape_alias": "mod.ops.aten._reshape_alias.default(q{g}, (256, 64), (192, 1))",
    "_unsafe_view": "mod.ops.aten._unsafe_view.default(m{g}, (32, 32, 32))",
    "contiguous() permuted 8x64x32": "p{g}.contiguous()",
    "flatten(1)": "x{g}.flatten(1)",
    "unsqueeze(0)": "x{g}.unsqueeze(0)",
    "squeeze(1) 8x1": "col{g}.squeeze(1)",
    "x_t of split(1, dim=1) 8x51": "s{g}.split(1, dim=1)",
}


def cell_rows(mod, out, only, number, repeat):
    """LSTMCell(51, 51) and GRUCell(51, 51) at batch 8 (the time-sequence example), forward and fwd+bwd."""
    mod.manual_seed(0)
    lstm, gru = mod.nn.LSTMCell(51, 51), mod.nn.GRUCell(51, 51)
    x = mod.randn(8, 51)
    h, c = mod.randn(8, 51), mod.randn(8, 51)
    x1 = mod.randn(8, 1)
    lstm1 = mod.nn.LSTMCell(1, 51)
    g = {"mod": mod, "lstm": lstm, "gru": gru, "lstm1": lstm1, "x": x, "x1": x1, "h": h, "c": c}
    rows = {"LSTMCell 51 fwd": "lstm(x, (h, c))",
            "LSTMCell 1->51 fwd": "lstm1(x1, (h, c))",
            "LSTMCell 51 fwd no_grad": "with mod.no_grad(): lstm(x, (h, c))",
            "LSTMCell 51 fwd+bwd": "hy, cy = lstm(x, (h, c)); (hy.sum() + cy.sum()).backward()",
            "GRUCell 51 fwd": "gru(x, h)",
            "GRUCell 51 fwd+bwd": "gru(x, h).sum().backward()"}
    for name, stmt in rows.items():
        if only and not any(o in name for o in only):
            continue
        out.setdefault(name, {})[mod.__name__] = round(cpu_min_us(stmt, g, max(number // 10, 50), repeat), 3)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    only = [o for o in args.only.split(",") if o]
    import ember
    import torch
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    out = {}
    for mod in (torch, ember):
        mod.manual_seed(0)
        g = setup(mod)
        for name, stmt in ROWS.items():
            for grad in (False, True):
                row = name + (" (grad)" if grad else "")
                if only and not any(o in row for o in only):
                    continue
                s = stmt.format(g="g" if grad else "")
                try:
                    eval(compile(s, "<row>", "exec"), g)
                except Exception as e:   # noqa: BLE001 - reported, not timed
                    out.setdefault(row, {})[mod.__name__] = f"error: {type(e).__name__}: {e}"[:100]
                    continue
                out.setdefault(row, {})[mod.__name__] = round(cpu_min_us(s, g, args.number, args.repeat), 3)
        cell_rows(mod, out, only, args.number, args.repeat)
    for row in out.values():
        if isinstance(row.get("ember"), float) and isinstance(row.get("torch"), float):
            row["ratio"] = round(row["ember"] / row["torch"], 2)
    out["load"] = os.getloadavg()
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
