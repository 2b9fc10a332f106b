"""The tiny-GPT part of ``python -m reproblas.torch.demo``: a character-level transformer
(rotary embeddings, RMSNorm, causal attention, GELU, AdamW) trained on TEXT, then greedy
generation. Each prompt's logits and tokens are compared bit for bit alone, inside a
left-padded batch of 8 prompts of other lengths, and with a KV cache; with reproblas.torch they
are the same bits, and the same on every thread count and CPU path. The same weights run
through stock PyTorch functions are shown on the same checks.
"""
import hashlib

import torch

from . import _layers, _nn
from ._functions import linear as rt_linear
from ._optim import AdamW

F = torch.nn.functional

TEXT = """\
A sum of floating-point numbers depends on the order of its additions. Add the same numbers
in another order and the last bits of the result may change. A program that splits a sum
over threads, over the lanes of a vector register or over the processes of a cluster picks an
order from the number of threads, the width of the register or the number of processes, so
its results move when any of these move. A written order removes the choice: the terms are
added one after another, or in a fixed tree, whatever the machine. Then a model trained on
one core and on many cores ends with the same weights, and a sentence completed alone or in
a batch of other sentences ends with the same words. The price is that the library must keep
the order itself: every block, every thread and every kernel adds its terms where the order
says, and no faster path may add them elsewhere.
"""
PROMPTS = ["A sum of", "The price", "Then a model tr", "A written order re", "its results",
           "whatever the machine. ", "and no fas", "A program that splits a sum"]
D, HEADS, LAYERS, CTX, BATCH, MAXPOS = 32, 2, 2, 32, 8, 64


def vocabulary():
    chars = sorted(set(TEXT))
    return chars, {c: i + 1 for i, c in enumerate(chars)}  # 0 is the padding token


class RtOps:
    """The model's functions: reproblas.torch."""
    name = "reproblas.torch"
    linear = staticmethod(rt_linear)
    embedding = staticmethod(_layers.embedding)
    gelu = staticmethod(_nn.gelu)
    attention = staticmethod(_layers.scaled_dot_product_attention)
    rotary = staticmethod(_layers.rotary_cos_sin)
    apply_rotary = staticmethod(_layers.apply_rotary)

    @staticmethod
    def rms_norm(x, w):
        return _nn.rms_norm(x, (x.shape[-1],), w)


class TorchOps:
    """The same graph with stock PyTorch functions."""
    name = "stock PyTorch"
    linear = staticmethod(F.linear)
    embedding = staticmethod(F.embedding)
    gelu = staticmethod(F.gelu)
    attention = staticmethod(F.scaled_dot_product_attention)

    @staticmethod
    def rotary(positions, dim, base=10000.0):
        inv = base ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
        ang = positions.to(torch.float32)[:, None] * inv
        ang = torch.cat([ang, ang], -1)
        return ang.cos(), ang.sin()

    @staticmethod
    def apply_rotary(x, cos, sin):
        h = x.shape[-1] // 2
        return x * cos + torch.cat([-x[..., h:], x[..., :h]], -1) * sin

    @staticmethod
    def rms_norm(x, w):
        return F.rms_norm(x, (x.shape[-1],), w)


class TinyGPT(torch.nn.Module):
    def __init__(self, vocab):
        super().__init__()
        p = torch.nn.Parameter
        self.embed = p(torch.randn(vocab, D) * 0.3)
        self.layers = torch.nn.ParameterList()
        for _ in range(LAYERS):
            for shape, scale in (((D,), None), ((3 * D, D), D ** -0.5), ((D, D), D ** -0.5),
                                 ((D,), None), ((4 * D, D), D ** -0.5),
                                 ((D, 4 * D), (4 * D) ** -0.5)):
                self.layers.append(p(torch.ones(shape) if scale is None
                                     else torch.randn(shape) * scale))
        self.norm = p(torch.ones(D))
        self.head = p(torch.randn(vocab, D) * D ** -0.5)

    def forward(self, ops, tokens, positions, mask, cache=None):
        """Logits (B, T, V) of tokens (B, T) at positions (B, T); mask (B, 1, T, S) is True
        where a query may see a key (S = cached + T keys); cache, when given, is a list of
        (k, v) per layer, extended in place."""
        b, t = tokens.shape
        hd = D // HEADS
        cos, sin = ops.rotary(torch.arange(MAXPOS), hd)
        cos, sin = cos[positions][:, None], sin[positions][:, None]  # (B, 1, T, hd)
        x = ops.embedding(tokens, self.embed)
        for i in range(LAYERS):
            n1, wqkv, wo, n2, w1, w2 = self.layers[6 * i:6 * i + 6]
            q, k, v = ops.linear(ops.rms_norm(x, n1), wqkv).split(D, -1)
            q, k, v = (z.reshape(b, t, HEADS, hd).transpose(1, 2) for z in (q, k, v))
            q, k = ops.apply_rotary(q, cos, sin), ops.apply_rotary(k, cos, sin)
            if cache is not None:
                if len(cache) > i:
                    k = torch.cat([cache[i][0], k], 2)
                    v = torch.cat([cache[i][1], v], 2)
                    cache[i] = (k, v)
                else:
                    cache.append((k, v))
            a = ops.attention(q, k, v, attn_mask=mask)
            x = x + ops.linear(a.transpose(1, 2).reshape(b, t, D), wo)
            x = x + ops.linear(ops.gelu(ops.linear(ops.rms_norm(x, n2), w1)), w2)
        return ops.linear(ops.rms_norm(x, self.norm), self.head)


def causal_mask(pad, t):
    """(B, 1, T, T): query i sees key j <= i of its own row's tokens (j >= pad); a padding
    query sees itself only (its row stays finite and is never read)."""
    i = torch.arange(t)
    seen = (i[None, :] <= i[:, None])[None] & (i[None, None, :] >= pad[:, None, None])
    return (seen | torch.eye(t, dtype=torch.bool)[None])[:, None]


def train(steps, seed=0):
    chars, index = vocabulary()
    data = torch.tensor([index[c] for c in TEXT])
    torch.manual_seed(seed)
    model = TinyGPT(len(chars) + 1)
    opt = AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    g = torch.Generator().manual_seed(seed)
    pos = torch.arange(CTX).expand(BATCH, CTX)
    mask = causal_mask(torch.zeros(BATCH, dtype=torch.int64), CTX)
    for _ in range(steps):
        start = torch.randint(0, len(data) - CTX - 1, (BATCH,), generator=g)
        rows = start[:, None] + torch.arange(CTX + 1)
        x, y = data[rows[:, :-1]], data[rows[:, 1:]]
        opt.zero_grad()
        logits = model(RtOps, x, pos, mask)
        loss = _nn.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
    return model, float(loss.detach())


@torch.no_grad()
def generate(model, ops, prompts, new, cache):
    """Greedy continuation of the prompts as one left-padded batch: (tokens (B, new),
    logits (B, new, V)), every step's logits of each row's last position."""
    _, index = vocabulary()
    ids = [[index[c] for c in p] for p in prompts]
    width = max(map(len, ids))
    pad = torch.tensor([width - len(r) for r in ids])
    tokens = torch.tensor([[0] * (width - len(r)) + r for r in ids])
    out_tokens, out_logits, kv = [], [], [] if cache else None
    step_in = tokens
    for step in range(new):
        t = tokens.shape[1]
        positions = (torch.arange(t)[None] - pad[:, None]).clamp(min=0)
        if cache and step:
            mask = (torch.arange(t)[None] >= pad[:, None])[:, None, None]  # (B, 1, 1, S)
            logits = model(ops, step_in, positions[:, -1:], mask, kv)[:, -1]
        else:
            logits = model(ops, tokens, positions, causal_mask(pad, t), kv)[:, -1]
        nxt = logits.argmax(-1)  # the first maximum: ties resolved the same way everywhere
        out_tokens.append(nxt)
        out_logits.append(logits)
        step_in = nxt[:, None]
        tokens = torch.cat([tokens, step_in], 1)
    return torch.stack(out_tokens, 1), torch.stack(out_logits, 1)


def checks(model, ops, new=12):
    """({check: (logits differing from the prompts alone, logits compared, tokens
    differing)}, digest of the logits and tokens of the prompts alone, the texts generated)."""
    alone = [generate(model, ops, [p], new, cache=False) for p in PROMPTS]
    ref_t = torch.cat([t for t, _ in alone])
    ref_l = torch.cat([lg for _, lg in alone])

    def compare(t, lg):
        n = len(t)
        return (int((lg.view(torch.int32) != ref_l[:n].view(torch.int32)).sum()),
                lg.numel(), int((t != ref_t[:n]).sum()))

    diff = {"in a padded batch of 8": compare(*generate(model, ops, PROMPTS, new, False)),
            "with a KV cache (batch of 8)": compare(*generate(model, ops, PROMPTS, new, True)),
            "alone, with a KV cache": compare(*generate(model, ops, PROMPTS[:1], new, True))}
    h = hashlib.sha256(ref_l.numpy().tobytes())
    h.update(ref_t.numpy().tobytes())
    chars, _ = vocabulary()
    text = ["".join(chars[i - 1] if i else "?" for i in row.tolist()) for row in ref_t]
    return diff, h.hexdigest(), text


def weights_digest(model):
    h = hashlib.sha256()
    for t in model.state_dict().values():
        h.update(t.numpy().tobytes())
    return h.hexdigest()
