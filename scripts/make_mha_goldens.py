#!/usr/bin/python3
"""PyTorch parity goldens for attnlab's multi-head attention (lib/kernels/multihead_attention).

Run from the repository root with Debian's PyTorch 1.13 (package python3-torch;
the python3 on PATH may have no torch):

    /usr/bin/python3 scripts/make_mha_goldens.py

Writes (each file carries a "_generated_by" field naming this script and the torch version):
  data/kernels/mha_init.json         nn.MultiheadAttention(32, 4) parameters right after
                                torch.manual_seed(0), as exact float32 values (bit-for-bit test
                                of multihead_attention_init), plus the next generator word.
  data/kernels/mha_inputs.json       the shared inputs of the parity cases: seeded parameters of
                                nn.MultiheadAttention(32, 4, batch_first=True) with nonzero biases,
                                x (2, 6, 32), key/value (2, 5, 32) for cross-attention, the upstream
                                gradient g (2, 6, 32), key_padding_mask (2, 6) and a float attn_mask
                                (6, 6); all exact float32 values.
  data/kernels/mha_case_<name>.json  for each case: forward output, averaged and per-head weights, and
                                the gradients of loss = sum(out * g) with respect to every input
                                and parameter (9 significant digits; compared within 1e-5).
Cases: plain, key_padding, causal (bool attn_mask), float_mask, both (key padding + causal),
cross (T=6, S=5, separate key and value), dropout (training, p=0.1, torch.manual_seed(7)
just before the forward pass: the C++ test draws the mask with its Generator from the same
seed, which checks the draw order too).

Self-attention cases pass the same tensor x as query, key and value, as the course does, so the
stored gradient d_x is the sum of the three input gradients.
"""
import json
import math
import os

import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "data", "nn")
GENERATED_BY = "scripts/make_mha_goldens.py with torch " + torch.__version__

C, H, B, T, S_CROSS = 32, 4, 2, 6, 5
DROPOUT_P, DROPOUT_SEED = 0.1, 7


def exact(t):
    """float32 values as Python floats: repr of the double is exact and round-trips."""
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def short(t):
    """9 significant digits: enough for the 1e-5 comparisons, a third of the size."""
    return [float("%.9g" % v) for v in t.detach().reshape(-1).tolist()]


def write(name, obj):
    obj = {"_generated_by": GENERATED_BY, **obj}
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")


def make_init():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(C, H)
    next_word = torch.randint(0, 2**31, (1,)).item()  # one w() mod 2^31: proves the draw count
    write("mha_init.json", {
        "C": C, "H": H, "seed": 0,
        "in_proj_weight": exact(m.in_proj_weight),
        "in_proj_bias": exact(m.in_proj_bias),
        "out_proj_weight": exact(m.out_proj.weight),
        "out_proj_bias": exact(m.out_proj.bias),
        "next_word_mod_2_31": next_word,
    })


def make_inputs():
    torch.manual_seed(1234)
    m = nn.MultiheadAttention(C, H, batch_first=True)
    with torch.no_grad():  # nonzero biases so the bias paths are exercised
        m.in_proj_bias.uniform_(-0.2, 0.2)
        m.out_proj.bias.uniform_(-0.2, 0.2)
    x = torch.randn(B, T, C)
    key = torch.randn(B, S_CROSS, C)
    value = torch.randn(B, S_CROSS, C)
    g = torch.randn(B, T, C)
    kpm = torch.zeros(B, T, dtype=torch.bool)
    kpm[0, 4:] = True   # batch 0: last two keys are padding
    kpm[1, 5:] = True   # batch 1: last key is padding
    float_mask = torch.randn(T, T) * 0.7
    float_mask[2, 3] = -math.inf  # one -inf entry, as a user-built mask may hold
    write("mha_inputs.json", {
        "B": B, "T": T, "S_cross": S_CROSS, "C": C, "H": H,
        "in_proj_weight": exact(m.in_proj_weight),
        "in_proj_bias": exact(m.in_proj_bias),
        "out_proj_weight": exact(m.out_proj.weight),
        "out_proj_bias": exact(m.out_proj.bias),
        "x": exact(x), "key": exact(key), "value": exact(value), "g": exact(g),
        "key_padding_mask": [int(v) for v in kpm.reshape(-1).tolist()],
        "float_attn_mask": [float(v) if math.isfinite(v) else "-inf"
                            for v in float_mask.reshape(-1).tolist()],
    })
    return m, x, key, value, g, kpm, float_mask


def run_case(name, m, q, k, v, g, seed=None, **kw):
    """One forward (averaged weights) + backward, and one forward for per-head weights."""
    m.zero_grad()
    leaves = [t.detach().clone().requires_grad_(True) for t in (q, k, v)]
    if q is k and k is v:  # self-attention: the same tensor three times
        leaves = [leaves[0]] * 3
    if seed is not None:
        torch.manual_seed(seed)
    out, w_avg = m(*leaves, **kw)
    extra = {}
    if seed is not None:
        extra["next_word_mod_2_31"] = torch.randint(0, 2**31, (1,)).item()
    (out * g).sum().backward()
    if seed is not None:
        torch.manual_seed(seed)  # the same mask again for the per-head weights
    detached = [t.detach() for t in leaves]
    if leaves[0] is leaves[1]:
        detached = [detached[0]] * 3  # keep self-attention on its packed path
    with torch.no_grad():
        out2, w_head = m(*detached, average_attn_weights=False, **kw)
    assert torch.equal(out, out2), name  # same path, same dropout mask
    res = {
        "case": name, "out": short(out), "weights_avg": short(w_avg), "weights_head": short(w_head),
        "d_in_proj_weight": short(m.in_proj_weight.grad), "d_in_proj_bias": short(m.in_proj_bias.grad),
        "d_out_proj_weight": short(m.out_proj.weight.grad), "d_out_proj_bias": short(m.out_proj.bias.grad),
    }
    if leaves[0] is leaves[1]:
        res["d_x"] = short(leaves[0].grad)
    else:
        res["d_query"], res["d_key"], res["d_value"] = (short(t.grad) for t in leaves)
    res.update(extra)
    if seed is not None:
        res["dropout_p"], res["seed"] = DROPOUT_P, seed
    write("mha_case_%s.json" % name, res)


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    make_init()
    m, x, key, value, g, kpm, float_mask = make_inputs()
    m.train()  # dropout is 0: the Python path, no draws, autograd available
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    run_case("plain", m, x, x, x, g)
    run_case("key_padding", m, x, x, x, g, key_padding_mask=kpm)
    run_case("causal", m, x, x, x, g, attn_mask=causal)
    run_case("float_mask", m, x, x, x, g, attn_mask=float_mask)
    run_case("both", m, x, x, x, g, key_padding_mask=kpm, attn_mask=causal)
    run_case("cross", m, x, key, value, g)

    md = nn.MultiheadAttention(C, H, dropout=DROPOUT_P, batch_first=True)
    md.load_state_dict(m.state_dict())
    md.train()
    run_case("dropout", md, x, x, x, g, seed=DROPOUT_SEED)


if __name__ == "__main__":
    main()
