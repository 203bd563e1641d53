#!/usr/bin/python3
"""PyTorch goldens for every option of nn.MultiheadAttention (lib/kernels/multihead_attention).

Run from the repository root with Debian's PyTorch 1.13 (package python3-torch):

    /usr/bin/python3 scripts/make_mha_options_goldens.py

Writes data/kernels/mha_options.json (with a "_generated_by" field), a list of cases. Each case names
its constructor options (embed_dim, num_heads, bias, add_bias_kv, add_zero_attn, kdim, vdim,
batch_first, dropout) and holds:
  init     the state_dict right after torch.manual_seed(0) and the constructor, as exact float32
           values in state_dict order, plus the next generator word (the draw count);
  forward  inputs (query, key, value in the case's layout, masks, upstream gradient g), the
           parameters used (the init with biases made nonzero), and PyTorch's output, averaged
           and per-head weights, and the gradient of sum(out * g) for every input and parameter.
           Self-attention cases pass one tensor three times (the stored d_query is then the sum).
A dropout case seeds torch.manual_seed(DROPOUT_SEED) right before the forward pass, so the C++
test draws the same mask from the same seed and so proves the draw order and count.
"""
import json
import math
import os

import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "data", "nn", "mha_options.json")
GENERATED_BY = "scripts/make_mha_options_goldens.py with torch " + torch.__version__
DROPOUT_SEED = 11


def exact(t):
    """float32 values as Python floats: repr of the double is exact and round-trips."""
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def masked(t):
    """A float mask: -inf stays a string, JSON has no infinity."""
    return [float(v) if math.isfinite(v) else "-inf" for v in t.reshape(-1).tolist()]


# name, constructor options, and the forward call: T queries, S keys, B batch, self-attention
# (one tensor for query, key and value) or key is value, and masks.
CASES = [
    dict(name="default_seq_first", opts=dict(embed_dim=8, num_heads=2), T=5, S=5, B=3, self=True),
    dict(name="kdim_vdim", opts=dict(embed_dim=8, num_heads=2, kdim=5, vdim=3), T=4, S=6, B=2),
    dict(name="no_bias", opts=dict(embed_dim=8, num_heads=2, bias=False), T=4, S=6, B=2, kv_same=True),
    dict(name="add_bias_kv", opts=dict(embed_dim=8, num_heads=4, add_bias_kv=True), T=4, S=5, B=2,
         key_padding=True, float_mask=True),
    dict(name="add_bias_kv_wide", opts=dict(embed_dim=16, num_heads=2, add_bias_kv=True), T=3, S=3, B=2,
         self=True),
    dict(name="add_zero_attn", opts=dict(embed_dim=8, num_heads=2, add_zero_attn=True), T=4, S=5, B=2,
         key_padding=True, bool_mask=True),
    dict(name="all_options", opts=dict(embed_dim=8, num_heads=2, kdim=5, vdim=3, bias=False, add_bias_kv=True,
                                       add_zero_attn=True), T=4, S=5, B=2, key_padding=True, float_mask=True),
    dict(name="all_options_batch_first", opts=dict(embed_dim=8, num_heads=2, kdim=5, vdim=3, add_bias_kv=True,
                                                   add_zero_attn=True, batch_first=True),
         T=3, S=4, B=2, key_padding=True, bool_mask=True, mask_3d=True),
    dict(name="mask_3d_float_self", opts=dict(embed_dim=8, num_heads=2, batch_first=True), T=4, S=4, B=2,
         self=True, float_mask=True, mask_3d=True),
    dict(name="dropout_bias_kv", opts=dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True,
                                           dropout=0.2), T=3, S=4, B=2, key_padding=True),
]


def state(m):
    return [{"name": k, "shape": list(v.shape), "values": exact(v)} for k, v in m.state_dict().items()]


def make_case(c):
    opts = c["opts"]
    torch.manual_seed(0)
    m = nn.MultiheadAttention(**opts)
    init = {"state_dict": state(m), "next_word_mod_2_31": torch.randint(0, 2**31, (1,)).item()}

    E = opts["embed_dim"]
    H = opts["num_heads"]
    kdim, vdim = opts.get("kdim") or E, opts.get("vdim") or E
    T, S, B = c["T"], c["S"], c["B"]
    batch_first = opts.get("batch_first", False)
    torch.manual_seed(100)
    with torch.no_grad():  # nonzero biases so every bias path carries a gradient signal
        for name, p in m.named_parameters():
            if "bias" in name:
                p.uniform_(-0.3, 0.3)

    def shaped(L, D):
        return torch.randn(B, L, D) if batch_first else torch.randn(L, B, D)

    query = shaped(T, E)
    key = shaped(S, kdim)
    value = shaped(S, vdim)
    g = shaped(T, E)
    kw = {}
    fwd = {}
    if c.get("key_padding"):
        kpm = torch.zeros(B, S, dtype=torch.bool)
        kpm[0, S - 1] = True
        kpm[1, 1] = True
        kw["key_padding_mask"] = kpm
        fwd["key_padding_mask"] = [int(v) for v in kpm.reshape(-1).tolist()]
    mshape = (B * H, T, S) if c.get("mask_3d") else (T, S)
    if c.get("bool_mask"):
        mask = torch.zeros(mshape, dtype=torch.bool)
        mask[..., 0, 0] = True
        mask[..., T - 1, S - 2] = True
        if c.get("mask_3d"):
            mask[1, 1, 1] = True
        kw["attn_mask"] = mask
        fwd["attn_mask_bool"] = [int(v) for v in mask.reshape(-1).tolist()]
    if c.get("float_mask"):
        mask = torch.randn(mshape) * 0.7
        mask[..., 1, 0] = -math.inf
        kw["attn_mask"] = mask
        fwd["attn_mask_float"] = masked(mask)
    fwd["attn_mask_3d"] = bool(c.get("mask_3d"))

    leaves = [t.clone().requires_grad_(True) for t in (query, key, value)]
    if c.get("self"):
        leaves = [leaves[0]] * 3
    elif c.get("kv_same"):
        leaves = [leaves[0], leaves[1], leaves[1]]
    m.train()
    dropout = opts.get("dropout", 0.0)
    if dropout:
        torch.manual_seed(DROPOUT_SEED)
    out, w_avg = m(*leaves, **kw)
    if dropout:
        fwd["dropout_seed"] = DROPOUT_SEED
        fwd["next_word_mod_2_31"] = torch.randint(0, 2**31, (1,)).item()
    (out * g).sum().backward()
    if dropout:
        torch.manual_seed(DROPOUT_SEED)
    with torch.no_grad():
        out2, w_head = m(*leaves, average_attn_weights=False, **kw)
        _, w_none = m(*leaves, need_weights=False, **kw)
    assert torch.equal(out, out2) and w_none is None, c["name"]
    fwd.update({
        "state_dict": state(m),
        "query": exact(query), "key": exact(key), "value": exact(value), "g": exact(g),
        "self": bool(c.get("self")), "kv_same": bool(c.get("kv_same")),
        "out": exact(out), "out_shape": list(out.shape),
        "weights_avg": exact(w_avg), "weights_avg_shape": list(w_avg.shape),
        "weights_head": exact(w_head), "weights_head_shape": list(w_head.shape),
        "grads": {k: exact(p.grad) for k, p in m.named_parameters()},
        "d_query": exact(leaves[0].grad),
    })
    if not c.get("self"):
        fwd["d_key"] = exact(leaves[1].grad)
        if not c.get("kv_same"):
            fwd["d_value"] = exact(leaves[2].grad)
    full = dict(embed_dim=E, num_heads=H, kdim=kdim, vdim=vdim, bias=opts.get("bias", True),
                add_bias_kv=opts.get("add_bias_kv", False), add_zero_attn=opts.get("add_zero_attn", False),
                batch_first=batch_first, dropout=dropout)
    return {"name": c["name"], "options": full, "T": T, "S": S, "B": B, "init": init, "forward": fwd}


def main():
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    doc = {"_generated_by": GENERATED_BY, "cases": [make_case(c) for c in CASES]}
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
