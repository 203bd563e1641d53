#!/usr/bin/python3
"""PyTorch goldens for the attention page's library pieces (issue 12).

Run from the repository root with Debian's PyTorch 1.13 (package python3-torch):

    /usr/bin/python3 scripts/make_attention_page_goldens.py

Writes, each with a "_generated_by" field:
  data/kernels/post_norm_block.json   nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                 activation="relu", batch_first=True, norm_first=False): the state_dict
                                 right after torch.manual_seed(0) and the constructor (plus the next
                                 generator word, which proves the draw count), then with biases and
                                 norms made nonzero: the output in eval mode (slow path, with autograd),
                                 the eval fast path (torch._transformer_encoder_layer_fwd, no_grad), a
                                 training-mode forward after torch.manual_seed(DROPOUT_SEED) (the dropout
                                 masks in PyTorch's order), and the gradient of sum(out * g) for the input
                                 and every parameter; one case with a causal src_mask.
  data/kernels/additive_attention.json  the twin AdditiveAttention module below (Bahdanau et al. 2015, §3.1 and
                                 Appendix A.1.2; the nn.MultiheadAttention page's (data/sources/torch_mha_page.txt) f(u, v) = tanh(u W1 + v W2) b): init after
                                 manual_seed(0), then context and weights for a batch with a key padding
                                 mask (one query per sequence, as a decoder step, and T queries at once),
                                 and the gradients of sum(context * g) + sum(weights * gw).
  data/kernels/sdpa.json              torch._C._nn._scaled_dot_product_attention (1.13's form of
                                 F.scaled_dot_product_attention, returning the weights): the page's
                                 example (13.3024) and batched cases with a boolean mask (True = takes
                                 part), a float mask and is_causal, with the gradients of
                                 sum(out * g) + sum(weights * gw).
  data/kernels/positions.json         the course's sinusoidal formula (data/course/12_sinusoidal.py) for even
                                 and odd widths (the cos columns take the first floor(d/2) rates), and the
                                 learned table nn.init.normal_(std=0.02) after manual_seed(0).
"""
import json
import math
import os

import torch
from torch import nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED_BY = "scripts/make_attention_page_goldens.py with torch " + torch.__version__
DROPOUT_SEED = 7


def exact(t):
    """float32 values as Python floats: repr of the double is exact and round-trips."""
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def masked(t):
    """A float mask: -inf stays a string, JSON has no infinity."""
    return [float(v) if math.isfinite(v) else "-inf" for v in t.reshape(-1).tolist()]


def state(m):
    return [{"name": k, "shape": list(v.shape), "values": exact(v)} for k, v in m.state_dict().items()]


def write(relative, doc):
    path = os.path.join(ROOT, "data", relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    doc = {"_generated_by": GENERATED_BY, **doc}
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")


# --- the post-norm block -------------------------------------------------------------------------

BLOCK_CASES = [
    dict(name="page", d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, B=3, T=5),
    dict(name="dropout", d_model=16, nhead=4, dim_feedforward=24, dropout=0.2, B=2, T=4),
    dict(name="causal", d_model=8, nhead=2, dim_feedforward=12, dropout=0.1, B=2, T=6, causal=True),
]


def block_case(c):
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["dim_feedforward"], c["dropout"],
                                   activation="relu", batch_first=True, norm_first=False)
    init = {"state_dict": state(m), "next_word_mod_2_31": torch.randint(0, 2**31, (1,)).item()}
    B, T, C = c["B"], c["T"], c["d_model"]
    torch.manual_seed(100)
    with torch.no_grad():  # nonzero biases and non-unit norms, so every path carries a signal
        for name, p in m.named_parameters():
            if "bias" in name:
                p.uniform_(-0.3, 0.3)
            elif name.startswith("norm"):
                p.uniform_(0.5, 1.5)
    x = torch.randn(B, T, C)
    g = torch.randn(B, T, C)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1) if c.get("causal") else None

    m.eval()
    leaf = x.clone().requires_grad_(True)
    out_eval = m(leaf, src_mask=mask)  # autograd is on: the slow path
    with torch.no_grad():
        out_fast = m(x, src_mask=mask)  # no mask: torch._transformer_encoder_layer_fwd
    doc = {"name": c["name"], **{k: c[k] for k in ("d_model", "nhead", "dim_feedforward", "dropout", "B", "T")},
           "causal": bool(c.get("causal")), "init": init, "state_dict": state(m), "x": exact(x), "g": exact(g),
           "out_eval": exact(out_eval), "out_eval_fastpath": exact(out_fast)}

    m.train()
    torch.manual_seed(DROPOUT_SEED)
    out = m(leaf, src_mask=mask)
    doc["dropout_seed"] = DROPOUT_SEED
    doc["next_word_after_train_mod_2_31"] = torch.randint(0, 2**31, (1,)).item()
    (out * g).sum().backward()
    doc["out_train"] = exact(out)
    doc["grads"] = {k: exact(p.grad) for k, p in m.named_parameters()}
    doc["d_x"] = exact(leaf.grad)
    return doc


# --- additive attention --------------------------------------------------------------------------

class AdditiveAttention(nn.Module):
    """e_ij = v_a^T tanh(W_a s_i + U_a h_j); alpha = softmax_j(e); context_i = sum_j alpha_ij value_j.

    Bahdanau et al. 2015, §3.1 and Appendix A.1.2 (no biases); the nn.MultiheadAttention page, data/sources/torch_mha_page.txt writes the same score as
    f(u, v) = tanh(u W1 + v W2) b with W1 = W_a^T, W2 = U_a^T, b = v_a. U_a h_j does not depend on i, so a
    decoder computes project_keys once per sentence and calls attend once per output step.
    """

    def __init__(self, query_size, key_size, hidden_size):
        super().__init__()
        self.W_a = nn.Linear(query_size, hidden_size, bias=False)
        self.U_a = nn.Linear(key_size, hidden_size, bias=False)
        self.v_a = nn.Linear(hidden_size, 1, bias=False)

    def project_keys(self, keys):  # (B, S, key_size) -> (B, S, hidden)
        return self.U_a(keys)

    def attend(self, query, projected_keys, values, key_padding_mask=None):
        # query (B, T, query_size), projected_keys (B, S, hidden), values (B, S, Dv)
        e = self.v_a(torch.tanh(self.W_a(query).unsqueeze(2) + projected_keys.unsqueeze(1))).squeeze(-1)
        if key_padding_mask is not None:  # (B, S), True = padding
            e = e.masked_fill(key_padding_mask.unsqueeze(1), float("-inf"))
        w = torch.softmax(e, dim=-1)  # (B, T, S)
        return torch.bmm(w, values), w


ADDITIVE_CASES = [
    dict(name="decoder_step", query_size=5, key_size=6, hidden_size=7, value_size=6, B=3, T=1, S=5,
         values_are_keys=True),
    dict(name="all_queries", query_size=4, key_size=3, hidden_size=8, value_size=2, B=2, T=4, S=6,
         values_are_keys=False),
]


def additive_case(c):
    torch.manual_seed(0)
    m = AdditiveAttention(c["query_size"], c["key_size"], c["hidden_size"])
    init = {"state_dict": state(m), "next_word_mod_2_31": torch.randint(0, 2**31, (1,)).item()}
    B, T, S = c["B"], c["T"], c["S"]
    torch.manual_seed(101)
    query = torch.randn(B, T, c["query_size"])
    keys = torch.randn(B, S, c["key_size"])
    values = keys.clone() if c["values_are_keys"] else torch.randn(B, S, c["value_size"])
    kpm = torch.zeros(B, S, dtype=torch.bool)
    kpm[0, S - 1] = True
    kpm[1, S - 2:] = True
    g = torch.randn(B, T, values.shape[-1])
    gw = torch.randn(B, T, S)
    leaves = [t.clone().requires_grad_(True) for t in (query, keys, values)]
    pk = m.project_keys(leaves[1])
    ctx, w = m.attend(leaves[0], pk, leaves[2] if not c["values_are_keys"] else leaves[1], kpm)
    ((ctx * g).sum() + (w * gw).sum()).backward()
    doc = {"name": c["name"], **{k: c[k] for k in ("query_size", "key_size", "hidden_size", "B", "T", "S",
                                                    "values_are_keys")},
           "value_size": values.shape[-1], "init": init, "query": exact(query), "keys": exact(keys),
           "values": exact(values), "key_padding_mask": [int(v) for v in kpm.reshape(-1).tolist()],
           "g": exact(g), "gw": exact(gw), "projected_keys": exact(pk), "context": exact(ctx), "weights": exact(w),
           "grads": {k: exact(p.grad) for k, p in m.named_parameters()},
           "d_query": exact(leaves[0].grad), "d_keys": exact(leaves[1].grad)}
    if not c["values_are_keys"]:
        doc["d_values"] = exact(leaves[2].grad)
    return doc


# --- scaled dot-product attention ----------------------------------------------------------------

def sdpa(q, k, v, mask=None, is_causal=False):
    return torch._C._nn._scaled_dot_product_attention(q, k, v, mask, 0.0, True, is_causal)


def sdpa_cases():
    cases = []
    # the page's example, unbatched: one query [1, 0], keys [1, 0] and [0, 1], values 10 and 20
    q = torch.tensor([[1.0, 0.0]])
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    v = torch.tensor([[10.0], [20.0]])
    out, w = sdpa(q, k, v)
    cases.append({"name": "page", "shape_q": [1, 2], "shape_k": [2, 2], "shape_v": [2, 1], "q": exact(q),
                  "k": exact(k), "v": exact(v), "out": exact(out), "weights": exact(w)})
    torch.manual_seed(102)
    for name, L, S, E, Ev, mask_kind, causal in [("plain", 3, 5, 4, 6, None, False),
                                                 ("bool_mask", 4, 5, 4, 3, "bool", False),
                                                 ("float_mask", 4, 4, 8, 8, "float", False),
                                                 ("causal", 5, 5, 4, 4, None, True)]:
        B = 2
        q, k, v = torch.randn(B, L, E), torch.randn(B, S, E), torch.randn(B, S, Ev)
        g, gw = torch.randn(B, L, Ev), torch.randn(B, L, S)
        mask = None
        case = {"name": name, "shape_q": [B, L, E], "shape_k": [B, S, E], "shape_v": [B, S, Ev],
                "is_causal": causal}
        if mask_kind == "bool":  # True = takes part (PyTorch's convention for this function)
            mask = torch.rand(L, S) > 0.3
            mask[:, 0] = True
            case["mask_bool"] = [int(x) for x in mask.reshape(-1).tolist()]
        elif mask_kind == "float":
            mask = torch.randn(L, S)
            mask[0, 1] = -math.inf
            case["mask_float"] = masked(mask)
        leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
        out, w = sdpa(*leaves, mask, causal)
        ((out * g).sum() + (w * gw).sum()).backward()
        case.update({"q": exact(q), "k": exact(k), "v": exact(v), "g": exact(g), "gw": exact(gw), "out": exact(out),
                     "weights": exact(w), "d_q": exact(leaves[0].grad), "d_k": exact(leaves[1].grad),
                     "d_v": exact(leaves[2].grad)})
        cases.append(case)
    return cases


# --- positions -----------------------------------------------------------------------------------

def sinusoidal(max_len, width):
    """data/course/12_sinusoidal.py's formula; an odd width has one more sin column than cos columns,
    and the cos columns take the first floor(width / 2) rates."""
    pos = torch.arange(max_len).unsqueeze(1).float()
    i = torch.arange(0, width, 2).float()
    rate = torch.exp(-math.log(10000.0) * i / width)
    pe = torch.zeros(max_len, width)
    pe[:, 0::2] = torch.sin(pos * rate)
    pe[:, 1::2] = torch.cos(pos * rate[: width // 2])
    return pe


def positions_doc():
    tables = [{"length": L, "d_model": d, "values": exact(sinusoidal(L, d))}
              for L, d in [(4, 4), (6, 8), (5, 1), (5, 2), (7, 3), (9, 7), (20, 33), (64, 64)]]
    learned = []
    for max_len, d in [(4, 3), (16, 8)]:
        torch.manual_seed(0)
        w = torch.empty(max_len, d)
        nn.init.normal_(w, std=0.02)
        learned.append({"max_len": max_len, "d_model": d, "weight": exact(w),
                        "next_word_mod_2_31": torch.randint(0, 2**31, (1,)).item()})
    return {"sinusoidal": tables, "learned": learned}


def main():
    write("kernels/post_norm_block.json", {"dropout_seed": DROPOUT_SEED, "cases": [block_case(c) for c in BLOCK_CASES]})
    write("kernels/additive_attention.json", {"cases": [additive_case(c) for c in ADDITIVE_CASES]})
    write("kernels/sdpa.json", {"cases": sdpa_cases()})
    write("kernels/positions.json", positions_doc())


if __name__ == "__main__":
    main()
