"""A small character-level GPT (nanoGPT-style) trained with ember on examples/tiny_tales.txt, then sampled.

    python examples/char_gpt.py              # a few hundred steps (a few minutes on 2 cores)
    python examples/char_gpt.py --quick      # a handful of steps (CI); or EMBER_QUICK=1

Shapes: B batch, T time (<= block_size), C n_embd, H heads, hs = C // H, V vocab size.
"""
import argparse
import math
import os
import time
from dataclasses import dataclass

import numpy as np

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class GPTConfig:
    block_size: int = 64
    vocab_size: int = 65
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0
    bias: bool = True


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg.n_embd % cfg.n_head == 0
        self.c_attn = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=cfg.bias)   # q, k, v for all heads at once
        self.c_proj = nn.Linear(cfg.n_embd, cfg.n_embd, bias=cfg.bias)
        self.resid_dropout = nn.Dropout(cfg.dropout)
        self.n_head, self.n_embd, self.dropout = cfg.n_head, cfg.n_embd, cfg.dropout

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)                   # 3 x (B, T, C)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)      # (B, H, T, hs)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=True)                  # (B, H, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)                     # (B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg.n_embd, 4 * cfg.n_embd, bias=cfg.bias)    # (B, T, 4C)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * cfg.n_embd, cfg.n_embd, bias=cfg.bias)  # (B, T, C)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd, bias=cfg.bias)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd, bias=cfg.bias)
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(cfg.vocab_size, cfg.n_embd),                   # token embeddings (V, C)
            wpe=nn.Embedding(cfg.block_size, cfg.n_embd),                   # position embeddings (block, C)
            drop=nn.Dropout(cfg.dropout),
            h=nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)]),
            ln_f=nn.LayerNorm(cfg.n_embd, bias=cfg.bias),
        ))
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight                  # weight tying
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * cfg.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        assert T <= self.config.block_size, f"sequence of length {T} exceeds block size {self.config.block_size}"
        pos = torch.arange(0, T, dtype=torch.long)                           # (T,)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))   # (B, T, C)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))                      # (B, T, V)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.shape[1] <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature                          # (B, V)
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.shape[-1]))
                logits = torch.where(logits < v[:, [-1]], torch.full((), float("-inf")), logits)
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)              # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--quick", action="store_true", default=os.environ.get("EMBER_QUICK") == "1")
    args = ap.parse_args(argv)
    torch.manual_seed(1337)
    text = open(os.path.join(HERE, "tiny_tales.txt"), encoding="utf-8").read()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    cfg = GPTConfig(vocab_size=len(chars))
    if args.quick:
        cfg = GPTConfig(vocab_size=len(chars), n_layer=1, n_head=2, n_embd=32, block_size=16)
    steps = 3 if args.quick else args.steps
    model = GPT(cfg)
    print(f"{sum(p.numel() for p in model.parameters())} parameters, vocab {len(chars)}, text {len(text)} chars")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    rng = np.random.default_rng(0)
    start = time.time()
    for step in range(1, steps + 1):
        ix = rng.integers(0, len(data) - cfg.block_size - 1, args.batch_size)
        x = torch.tensor(np.stack([data[i:i + cfg.block_size] for i in ix]))         # (B, T)
        y = torch.tensor(np.stack([data[i + 1:i + 1 + cfg.block_size] for i in ix])) # (B, T)
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 25 == 0 or step == 1 or step == steps:
            print(f"step {step:4d} | loss {loss.item():.4f} | {time.time() - start:.1f}s")
    model.eval()
    prompt = torch.tensor([[stoi["T"]]])
    out = model.generate(prompt, 40 if args.quick else 300, temperature=0.8, top_k=10)
    print("---- sample ----")
    print("".join(chars[i] for i in out[0].tolist()))
    return loss.item()


if __name__ == "__main__":
    main()
