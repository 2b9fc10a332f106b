"""A tiny GPT trained and served with the same bits: python -m reproblas.torch.gpt_demo.

A character-level transformer (rotary position embeddings, RMSNorm, causal attention,
GELU, AdamW) is trained on the short text below, then greedy generation continues a
prompt. The same model is run four ways: the prompt alone or left-padded inside a batch of
8 prompts of other lengths, each recomputing the whole sequence at every step or with a
key/value cache. With ``reproblas.torch`` the logits of every step are bitwise the same in
all four, and the trained weights and logits are the same on every CPU path and thread
count. Plain PyTorch runs the same model (same initial weights) for comparison.

The checks hold for the sequential order: a padded key is a zero term of the attention
sums, which leaves a sequential chain unchanged but moves the blocks of a pairwise tree.
"""
import argparse
import hashlib
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..demo import cpu_paths, environ
from . import (AdamW, apply_rotary, cross_entropy, embedding, gelu, linear, rms_norm,
               rotary_cos_sin, scaled_dot_product_attention)

TEXT = (
    "The lighthouse keeper counted the waves each night and wrote the number in a book. "
    "When the book was full he began another, and when the shelf was full he built a new "
    "shelf. Ships passed the rock and saw the lamp turn, slow and patient, and the sailors "
    "said that the keeper never slept. He slept in the afternoons, when the sea was calm "
    "and the gulls were quiet. In winter the storms came from the north and the spray rose "
    "over the gallery, and the keeper trimmed the wick and wiped the glass and counted the "
    "waves again. One spring a girl rowed out from the harbour with bread and oranges and "
    "asked him why he counted. He said that a number written down is a promise kept: "
    "tomorrow someone may read it and know that tonight was like this, no more and no less. "
    "She took the oldest book home and read it by the fire, and every night after that she "
    "counted the waves from her window and wrote the number down, and the two numbers were "
    "always the same."
)
VOCAB = sorted(set(TEXT))
STOI = {c: i for i, c in enumerate(VOCAB)}
PROMPTS = ("The keeper", "Ships passed the", "In winter", "She took the oldest",
           "He slept", "One spring a girl", "the waves", "When the book was")


def encode(s):
    return [STOI[c] for c in s]


def decode(ids):
    return "".join(VOCAB[i] for i in ids)


class ReproOps:
    """The model's operations on reproblas.torch (sequential order)."""
    linear = staticmethod(linear)
    gelu = staticmethod(gelu)
    embedding = staticmethod(embedding)
    cross_entropy = staticmethod(cross_entropy)
    apply_rotary = staticmethod(apply_rotary)
    rotary_cos_sin = staticmethod(rotary_cos_sin)
    attention = staticmethod(scaled_dot_product_attention)

    @staticmethod
    def rms_norm(x, w):
        return rms_norm(x, (x.shape[-1],), w, eps=1e-5)


class TorchOps:
    """The same operations in plain PyTorch."""
    linear = staticmethod(F.linear)
    gelu = staticmethod(F.gelu)
    embedding = staticmethod(F.embedding)
    cross_entropy = staticmethod(F.cross_entropy)
    attention = staticmethod(F.scaled_dot_product_attention)

    @staticmethod
    def rms_norm(x, w):
        return F.rms_norm(x, (x.shape[-1],), w, eps=1e-5)

    @staticmethod
    def rotary_cos_sin(positions, dim):
        freq = torch.exp(math.log(10000.0) * (-(torch.arange(dim // 2) * 2.0) / dim))
        angle = positions.reshape(-1, 1).float() * freq
        angle = torch.cat([angle, angle], dim=1)
        return torch.cos(angle), torch.sin(angle)

    @staticmethod
    def apply_rotary(x, cos, sin):
        h = x.shape[-1] // 2
        return x * cos + torch.cat([-x[..., h:], x[..., :h]], dim=-1) * sin


class TinyGPT(torch.nn.Module):
    def __init__(self, ops, vocab, d=48, heads=3, layers=2, seed=0):
        super().__init__()
        self.ops, self.heads = ops, heads
        rng = np.random.default_rng(seed)

        def param(*shape, scale):
            return torch.nn.Parameter(torch.from_numpy(
                (rng.standard_normal(shape) * scale).astype(np.float32)))
        self.embed = param(vocab, d, scale=0.3)
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            block = torch.nn.Module()
            block.norm1 = torch.nn.Parameter(torch.ones(d))
            block.qkv = param(3 * d, d, scale=d ** -0.5)
            block.proj = param(d, d, scale=(2 * layers * d) ** -0.5)
            block.norm2 = torch.nn.Parameter(torch.ones(d))
            block.fc = param(4 * d, d, scale=d ** -0.5)
            block.out = param(d, 4 * d, scale=(8 * layers * d) ** -0.5)
            self.blocks.append(block)
        self.norm = torch.nn.Parameter(torch.ones(d))

    def forward(self, tokens, positions, mask, cache=None):
        """Logits (B, L, vocab) of tokens (B, L) at positions (B, L); mask (B, 1, L, T)
        says which keys a query sees; cache: per block [k, v] extended in place."""
        ops, (b, n) = self.ops, tokens.shape
        cos, sin = ops.rotary_cos_sin(positions.reshape(-1), self.embed.shape[1] // self.heads)
        cos, sin = cos.reshape(b, 1, n, -1), sin.reshape(b, 1, n, -1)
        x = ops.embedding(tokens, self.embed)
        for i, blk in enumerate(self.blocks):
            q, k, v = (ops.linear(ops.rms_norm(x, blk.norm1), blk.qkv)
                       .reshape(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4))
            q, k = ops.apply_rotary(q, cos, sin), ops.apply_rotary(k, cos, sin)
            if cache is not None:
                if len(cache) > i:
                    k, v = torch.cat([cache[i][0], k], 2), torch.cat([cache[i][1], v], 2)
                    cache[i] = [k, v]
                else:
                    cache.append([k, v])
            a = ops.attention(q, k, v, attn_mask=mask).transpose(1, 2).reshape(b, n, -1)
            x = x + ops.linear(a, blk.proj)
            x = x + ops.linear(ops.gelu(ops.linear(ops.rms_norm(x, blk.norm2), blk.fc)), blk.out)
        return ops.linear(ops.rms_norm(x, self.norm), self.embed)


def causal(valid_keys, queries):
    """(B, 1, Lq, T) mask: the last Lq of T positions see earlier valid keys and
    themselves (a padding query sees only itself, so no softmax row is empty)."""
    t = valid_keys.shape[1]
    q = torch.arange(t - queries, t).reshape(-1, 1)
    k = torch.arange(t).reshape(1, -1)
    mask = (k <= q) & valid_keys[:, None, :]
    return (mask | (k == q)[None]).unsqueeze(1)


def train(ops, optimizer_cls, steps, batch=8, ctx=32, seed=0):
    model = TinyGPT(ops, len(VOCAB), seed=seed)
    opt = optimizer_cls(model.parameters(), lr=3e-3, weight_decay=0.01)
    data = torch.tensor(encode(TEXT))
    g = torch.Generator().manual_seed(seed)
    positions = torch.arange(ctx).expand(batch, ctx)
    mask = causal(torch.ones(batch, ctx, dtype=torch.bool), ctx)
    for _ in range(steps):
        start = torch.randint(0, len(data) - ctx - 1, (batch,), generator=g)
        x = torch.stack([data[s:s + ctx] for s in start])
        y = torch.stack([data[s + 1:s + ctx + 1] for s in start])
        logits = model(x, positions, mask)
        loss = ops.cross_entropy(logits.reshape(-1, len(VOCAB)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model, loss.item()


@torch.no_grad()
def generate(model, prompts, steps, use_cache):
    """Greedy continuation of left-padded prompts: tokens (B, steps) and the logits of
    every step (B, steps, vocab)."""
    lens = [len(p) for p in prompts]
    width = max(lens)
    tokens = torch.zeros(len(prompts), width, dtype=torch.long)
    valid = torch.zeros(len(prompts), width, dtype=torch.bool)
    for i, p in enumerate(prompts):
        tokens[i, width - len(p):] = torch.tensor(encode(p))
        valid[i, width - len(p):] = True
    positions = (valid.long().cumsum(1) - 1).clamp(min=0)
    cache = [] if use_cache else None
    fed, fed_pos, out, logits_steps = tokens, positions, [], []
    for _ in range(steps):
        logits = model(fed, fed_pos, causal(valid, fed.shape[1]), cache)[:, -1]
        nxt = logits.argmax(-1, keepdim=True)
        out.append(nxt)
        logits_steps.append(logits)
        valid = torch.cat([valid, torch.ones_like(nxt, dtype=torch.bool)], 1)
        positions = torch.cat([positions, positions[:, -1:] + 1], 1)
        tokens = torch.cat([tokens, nxt], 1)
        fed, fed_pos = (nxt, positions[:, -1:]) if use_cache else (tokens, positions)
    return torch.cat(out, 1), torch.stack(logits_steps, 1)


def bench_steps(library, batch=8, ctx=32):
    """{"train": one AdamW step, "infer": one forward under no_grad} of a fresh model on
    fixed data, on reproblas.torch (library "reproblas") or plain PyTorch ("torch");
    tools/bench_torch_models.py and asv_bench time them."""
    ops, optimizer_cls = ((ReproOps, AdamW) if library == "reproblas"
                          else (TorchOps, torch.optim.AdamW))
    model = TinyGPT(ops, len(VOCAB))
    opt = optimizer_cls(model.parameters(), lr=3e-3, weight_decay=0.01)
    data = torch.tensor(encode(TEXT))
    starts = range(0, batch * 37, 37)
    x = torch.stack([data[s:s + ctx] for s in starts])
    y = torch.stack([data[s + 1:s + ctx + 1] for s in starts])
    positions = torch.arange(ctx).expand(batch, ctx)
    mask = causal(torch.ones(batch, ctx, dtype=torch.bool), ctx)

    def train_step():
        loss = ops.cross_entropy(model(x, positions, mask).reshape(-1, len(VOCAB)),
                                 y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    @torch.no_grad()
    def infer():
        model(x, positions, mask)
    return {"train": train_step, "infer": infer}


def digest(*tensors):
    h = hashlib.sha256()
    for t in tensors:
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def serving_checks(model, steps):
    """For PROMPTS[0]: (tokens, logits) alone / in the padded batch, without / with the
    cache; returns {way: (tokens row, logits row)}."""
    ways = {}
    for cache in (False, True):
        tok, log = generate(model, PROMPTS[:1], steps, cache)
        ways[f"alone, {'cache' if cache else 'recompute'}"] = (tok[0], log[0])
        tok, log = generate(model, PROMPTS, steps, cache)
        ways[f"batch of 8, {'cache' if cache else 'recompute'}"] = (tok[0], log[0])
    return ways


def run(train_steps=150, gen_steps=24, threads=(1, 2, 3), out=print):
    """Train and serve on every configuration; returns True when every reproblas result
    is the same everywhere."""
    configs = [(isa, t) for isa in cpu_paths() for t in threads]
    out(f"Tiny GPT on a {len(TEXT)}-character text, {train_steps} AdamW steps; greedy "
        f"continuation of {PROMPTS[0]!r}, {gen_steps} tokens.\n")
    weights, serving, shown = set(), set(), None
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)  # PyTorch's own thread pool only runs elementwise steps here
    for isa, t in configs:
        with environ(REPROBLAS_ISA=isa, CRLIBM_ISA=isa, REPROBLAS_NUM_THREADS=t):
            model, loss = train(ReproOps, AdamW, train_steps)
            ways = serving_checks(model, gen_steps)
        w = digest(*model.parameters())
        same_ways = len({digest(lg) for _, lg in ways.values()}) == 1 and \
            len({digest(tk) for tk, _ in ways.values()}) == 1
        weights.add(w)
        serving.add(digest(*(lg for _, lg in ways.values())))
        out(f"  reproblas  {isa:7s} {t} thread(s): loss {loss:.4f}  weights {w}  "
            f"4 ways identical: {same_ways}")
        shown = shown or ways
        if not same_ways:
            serving.add(None)
    text = decode(shown["alone, recompute"][0].tolist())
    out(f"\n  continuation: {PROMPTS[0]!r} -> {text!r}")
    ok = len(weights) == 1 and len(serving) == 1 and None not in serving
    out(f"  reproblas: {len(weights)} distinct trained weights, {len(serving)} distinct "
        f"serving results over {len(configs)} configurations -> "
        f"{'the same bits everywhere' if ok else 'DIFFERENT BITS'}\n")
    for t in threads:
        torch.set_num_threads(t)
        model, loss = train(TorchOps, torch.optim.AdamW, train_steps)
        ways = serving_checks(model, gen_steps)
        ref_tokens, ref_logits = ways["alone, recompute"]
        logits = [w for w, (_, lg) in ways.items()
                  if not torch.equal(lg.view(torch.int32), ref_logits.view(torch.int32))]
        tokens = [w for w, (tk, _) in ways.items() if not torch.equal(tk, ref_tokens)]
        out(f"  PyTorch    {t} thread(s): loss {loss:.4f}  weights {digest(*model.parameters())}")
        out(f"             differ from the prompt alone: logits {', '.join(logits) or 'none'}; "
            f"tokens {', '.join(tokens) or 'none'}")
    torch.set_num_threads(torch_threads)
    return ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train-steps", type=int, default=150)
    p.add_argument("--gen-steps", type=int, default=24)
    args = p.parse_args(argv)
    if not run(args.train_steps, args.gen_steps):
        raise SystemExit("reproblas gave different bits: this is a bug, please report it")


if __name__ == "__main__":
    main()
