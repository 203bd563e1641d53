#!/usr/bin/python3
"""PyTorch 1.13's figures for the torch_mha experiment (the nn.MultiheadAttention page's (data/sources/torch_mha_page.txt) two snippets).

Run from the repository root with Debian's PyTorch 1.13 (package python3-torch):

    /usr/bin/python3 scripts/make_torch_mha_goldens.py

Writes data/experiments/torch_mha.json: for each case (a set of spec overrides), the figures
`attnlab run experiments/torch_mha.json --format json` puts under "data", computed here with
PyTorch itself, as the page's code does:
  part 1  torch.manual_seed(seed); Q, K, V = torch.rand(N, B, E), torch.rand(M, B, kdim),
          torch.rand(M, B, vdim); MHA = nn.MultiheadAttention(E, H, bias=, add_bias_kv=,
          add_zero_attn=, kdim=, vdim=); A, W = MHA(Q, K, V)
  part 2  torch.manual_seed(seed); E, H, N, M, B = 8, 4, 3, 4, 1; Q, K, V = torch.rand(...);
          MHA = nn.MultiheadAttention(E, H); W with key_padding_mask, then with attn_mask
  part 3  the page's MultiHeadAttention function on part 2's layer with both masks, and
          ((A1 - A2)**2).sum()**0.5 for the output and the weights
"""
import json
import os

import torch
from torch import bmm, nn
from torch.nn.functional import linear, softmax

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "data", "experiments", "torch_mha.json")

DEFAULTS = dict(embed_dim=100, num_heads=10, n_queries=3, n_keys=3, batch=1, kdim=0, vdim=0, bias=True,
                add_bias_kv=False, add_zero_attn=False, seed=0)
CASES = [
    dict(name="default"),
    dict(name="kdim_vdim", kdim=40, vdim=60),
    dict(name="no_bias", bias=False),
    dict(name="add_bias_kv", add_bias_kv=True),
    dict(name="add_zero_attn", add_zero_attn=True),
    dict(name="all_options", kdim=40, vdim=60, bias=False, add_bias_kv=True, add_zero_attn=True),
    dict(name="all_options_larger", kdim=24, vdim=36, add_bias_kv=True, add_zero_attn=True, embed_dim=48,
         num_heads=6, n_queries=4, n_keys=5, batch=2, seed=7),
]


def page_function(Q, K, V, Wq, Wk, Wv, Wo, Bq, Bk, Bv, Bo, H, key_mask=None, attn_mask=None):
    """The page's MultiHeadAttention, as written there (N, M, B, E taken from the inputs)."""
    N, B, E = Q.shape
    M = K.shape[0]
    q = linear(Q, Wq, Bq)
    k = linear(K, Wk, Bk)
    v = linear(V, Wv, Bv)
    q = q.view(N, B * H, E // H).transpose(0, 1)
    k = k.view(M, B * H, E // H).transpose(0, 1)
    v = v.view(M, B * H, E // H).transpose(0, 1)
    W = bmm(q, k.transpose(1, 2)) * float(E // H) ** -0.5
    if attn_mask is not None:
        W += attn_mask.unsqueeze(0)
    if key_mask is not None:
        W = W.view(B, H, N, M)
        key_mask = key_mask.unsqueeze(1).unsqueeze(2)
        W = W.masked_fill(key_mask, float('-inf'))
        W = W.view(B * H, N, M)
    W = softmax(W, dim=-1)
    A = bmm(W, v)
    A = A.transpose(0, 1).contiguous().view(N, B, E)
    W = W.view(B, H, N, M)
    return linear(A, Wo, Bo), W.sum(dim=1) / H


def figures(o):
    # part 1
    E, H, N, M, B = o["embed_dim"], o["num_heads"], o["n_queries"], o["n_keys"], o["batch"]
    Ek, Ev = o["kdim"] or E, o["vdim"] or E
    torch.manual_seed(o["seed"])
    Q, K, V = torch.rand(N, B, E), torch.rand(M, B, Ek), torch.rand(M, B, Ev)
    MHA = nn.MultiheadAttention(E, H, bias=o["bias"], add_bias_kv=o["add_bias_kv"],
                                add_zero_attn=o["add_zero_attn"], kdim=Ek, vdim=Ev)
    A, W = MHA(Q, K, V)
    data = {
        "output_shape": list(A.shape), "weights_shape": list(W.shape),
        "state_dict": [{"name": k, "shape": list(v.shape)} for k, v in MHA.state_dict().items()],
        "output": A.tolist(), "weights": W.tolist(),
    }
    # part 2, the page's snippet
    E, H, N, M, B = 8, 4, 3, 4, 1
    torch.manual_seed(o["seed"])
    Q, K, V = torch.rand(N, B, E), torch.rand(M, B, E), torch.rand(M, B, E)
    MHA = nn.MultiheadAttention(E, H)
    key_mask = torch.tensor([[False, True, False, True]])
    inf = float("-inf")
    attn_mask = torch.tensor([[inf, 0.0, 0.0, inf], [0.0, 0.0, 0.0, 0.0], [inf, 0.0, 0.0, inf]])
    _, W = MHA(Q, K, V, key_padding_mask=key_mask)
    data["weights_key_padding"] = W.tolist()
    _, W = MHA(Q, K, V, attn_mask=attn_mask)
    data["weights_attn_mask"] = W.tolist()
    # part 3
    A1, W1 = MHA(Q, K, V, key_padding_mask=key_mask, attn_mask=attn_mask)
    A2, W2 = page_function(Q, K, V, MHA.in_proj_weight[0:E], MHA.in_proj_weight[E:2 * E],
                           MHA.in_proj_weight[E * 2:], MHA.out_proj.weight, MHA.in_proj_bias[0:E],
                           MHA.in_proj_bias[E:E * 2], MHA.in_proj_bias[E * 2:], MHA.out_proj.bias, H,
                           key_mask=key_mask, attn_mask=attn_mask)
    data["by_hand_difference"] = {
        "output": (((A1.detach() - A2.detach()) ** 2).sum() ** 0.5).item(),
        "weights": (((W1.detach() - W2.detach()) ** 2).sum() ** 0.5).item(),
    }
    return data


def main():
    cases = []
    for c in CASES:
        overrides = {k: v for k, v in c.items() if k != "name"}
        cases.append({"name": c["name"], "overrides": overrides, "data": figures({**DEFAULTS, **overrides})})
    doc = {"_generated_by": "scripts/make_torch_mha_goldens.py with torch " + torch.__version__, "cases": cases}
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
