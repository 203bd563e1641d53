#!/usr/bin/python3
"""Writes the golden files that tests/nn compares the basic layers against, from REAL PyTorch.

How to run (from anywhere; paths are relative to this file):

    /usr/bin/python3 scripts/make_layer_goldens.py

It needs Debian's python3-torch (1.13.1, CPU; see docs/torch_rng.md section 0).
The `python3` on PATH has no torch.

Outputs (compact JSON, about 110 kB in all):
    data/kernels/layers_parity.json  one case per layer: nn.Linear (3-d input, with and without
                                bias), nn.Embedding, learned positions (x + pos(arange(T))),
                                nn.LayerNorm (with its cached mean and rstd), nn.GELU(),
                                F.dropout (with the keep mask and seed), h.mean(dim=1),
                                nn.CrossEntropyLoss() (ordinary and +-1e4 logits).
                                Each case holds its dims, the inputs and parameters (drawn
                                after torch.manual_seed so they are reproducible), a fixed
                                upstream gradient, PyTorch's forward output and every
                                gradient from autograd.
    data/kernels/layers_init.json    initial parameters right after torch.manual_seed(0) of
                                nn.Linear(32,96), nn.Linear(64,2), nn.Embedding(10,32),
                                nn.Embedding(16,32), built in that order; and after
                                torch.manual_seed(1) of nn.Linear(5,3,bias=False),
                                nn.Linear(3,2), nn.Embedding(3,5) (15 values: the short
                                normal path), nn.LayerNorm(4).

Every file is {"_generated_by": {...}, ...}. Tensors are flat lists in C (row-major) order;
floats are the float32 values written as Python floats (exact round-trip, -0.0 kept);
ids and labels are integers.
"""

import json
import os

# Pin the AVX2 kernels (docs/torch_rng.md section 0): on an AVX-512 machine ATen
# could otherwise pick other kernels and the normal_ draws would differ. On
# this machine the default already is AVX2 (checked: identical output).
os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")

import torch  # noqa: E402 (after the environment variable)
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED_BY = {
    "script": "scripts/make_layer_goldens.py",
    "torch": torch.__version__,
    "command": "/usr/bin/python3 scripts/make_layer_goldens.py",
    "aten_cpu_capability": os.environ["ATEN_CPU_CAPABILITY"],
}


def flat(t):
    """A tensor as a flat list: floats exactly (float32 -> Python float), ints as ints."""
    return t.detach().reshape(-1).tolist()


def linear_case(bias):
    torch.manual_seed(1 if bias else 2)
    B, T, C, OC = 2, 3, 4, 5
    lin = nn.Linear(C, OC, bias=bias)
    x = torch.randn(B, T, C, requires_grad=True)
    dout = torch.randn(B, T, OC)
    y = lin(x)
    y.backward(dout)
    case = {"N": B * T, "C": C, "OC": OC, "inp": flat(x), "weight": flat(lin.weight),
            "dout": flat(dout), "out": flat(y), "dinp": flat(x.grad),
            "dweight": flat(lin.weight.grad)}
    if bias:
        case["bias"] = flat(lin.bias)
        case["dbias"] = flat(lin.bias.grad)
    return case


def embedding_case():
    torch.manual_seed(3)
    V, D = 7, 3
    emb = nn.Embedding(V, D)
    ids = torch.randint(0, V, (2, 5))  # 10 ids from 7: some repeat, so dweight accumulates
    dout = torch.randn(2, 5, D)
    y = emb(ids)
    y.backward(dout)
    return {"N": 10, "V": V, "D": D, "ids": flat(ids), "weight": flat(emb.weight),
            "dout": flat(dout), "out": flat(y), "dweight": flat(emb.weight.grad)}


def positions_case():
    torch.manual_seed(4)
    B, T, D, P = 2, 4, 3, 6
    pos = nn.Embedding(P, D)
    x = torch.randn(B, T, D, requires_grad=True)
    dout = torch.randn(B, T, D)
    y = x + pos(torch.arange(T))
    y.backward(dout)
    return {"B": B, "T": T, "D": D, "P": P, "x": flat(x), "weight": flat(pos.weight),
            "dout": flat(dout), "out": flat(y), "dx": flat(x.grad),
            "dweight": flat(pos.weight.grad)}


def layer_norm_case():
    torch.manual_seed(5)
    N, C = 4, 6
    ln = nn.LayerNorm(C)
    with torch.no_grad():  # not the ones/zeros init, so weight and bias matter
        ln.weight.copy_(1 + 0.5 * torch.randn(C))
        ln.bias.copy_(0.5 * torch.randn(C))
    x = (3 + 2 * torch.randn(N, C)).requires_grad_()
    dout = torch.randn(N, C)
    y = ln(x)
    y.backward(dout)
    _, mean, rstd = torch.native_layer_norm(x.detach(), (C,), ln.weight.detach(),
                                            ln.bias.detach(), 1e-5)
    return {"N": N, "C": C, "inp": flat(x), "weight": flat(ln.weight), "bias": flat(ln.bias),
            "dout": flat(dout), "out": flat(y), "mean": flat(mean), "rstd": flat(rstd),
            "dinp": flat(x.grad), "dweight": flat(ln.weight.grad), "dbias": flat(ln.bias.grad)}


def gelu_case():
    torch.manual_seed(6)
    special = torch.tensor([0.0, 1.0, -1.0, 5.0, -5.0, -10.0, 0.001, -0.001])
    x = torch.cat([special, 3 * torch.randn(40)]).requires_grad_()
    dout = torch.randn(x.numel())
    y = nn.GELU()(x)
    y.backward(dout)
    return {"n": x.numel(), "inp": flat(x), "dout": flat(dout), "out": flat(y),
            "dinp": flat(x.grad)}


def dropout_case():
    seed, p = 7, 0.25
    torch.manual_seed(8)
    x = torch.randn(4, 8, requires_grad=True)
    dout = torch.randn(4, 8)
    torch.manual_seed(seed)
    y = F.dropout(x, p, training=True)
    y.backward(dout)
    # the keep mask F.dropout drew: the same draws through bernoulli_(1 - p)
    # (docs/torch_rng.md section 6); checked against the output bit for bit
    torch.manual_seed(seed)
    keep = torch.empty(4, 8).bernoulli_(1 - p)
    scale = torch.tensor(1.0) / torch.tensor(1 - p)  # fl(1 / fl(1 - p))
    assert torch.equal(y, x.detach() * (keep * scale)), "mask does not reproduce F.dropout"
    assert bool((keep == 0).any()) and bool((keep == 1).any())
    return {"n": x.numel(), "seed": seed, "p": p, "scale": scale.item(), "inp": flat(x),
            "keep": [int(k) for k in flat(keep)], "dout": flat(dout), "out": flat(y),
            "dinp": flat(x.grad)}


def mean_over_time_case():
    torch.manual_seed(9)
    B, T, C = 3, 4, 5
    x = torch.randn(B, T, C, requires_grad=True)
    dout = torch.randn(B, C)
    y = x.mean(dim=1)
    y.backward(dout)
    return {"B": B, "T": T, "C": C, "inp": flat(x), "dout": flat(dout), "out": flat(y),
            "dinp": flat(x.grad)}


def cross_entropy_case(large):
    if large:
        logits = torch.tensor([[1e4, -1e4], [-1e4, 1e4], [3000.0, 3000.5]], requires_grad=True)
        labels = torch.tensor([1, 1, 0])
    else:
        torch.manual_seed(10)
        logits = (2 * torch.randn(6, 3)).requires_grad_()
        labels = torch.randint(0, 3, (6,))
    dloss = 0.7  # upstream gradient, not 1, so the scaling is checked
    loss = nn.CrossEntropyLoss()(logits, labels)
    loss.backward(torch.tensor(dloss))
    B, K = logits.shape
    return {"B": B, "K": K, "logits": flat(logits), "labels": flat(labels), "dloss": dloss,
            "loss": loss.item(), "dlogits": flat(logits.grad)}


def parity():
    return {
        "_generated_by": GENERATED_BY,
        "linear": linear_case(bias=True),
        "linear_nobias": linear_case(bias=False),
        "embedding": embedding_case(),
        "positions": positions_case(),
        "layer_norm": layer_norm_case(),
        "gelu": gelu_case(),
        "dropout": dropout_case(),
        "mean_over_time": mean_over_time_case(),
        "cross_entropy": cross_entropy_case(large=False),
        "cross_entropy_large": cross_entropy_case(large=True),
    }


def init():
    torch.manual_seed(0)
    l1 = nn.Linear(32, 96)
    l2 = nn.Linear(64, 2)
    e1 = nn.Embedding(10, 32)
    e2 = nn.Embedding(16, 32)
    seed0 = [
        {"module": "Linear", "in": 32, "out": 96, "weight": flat(l1.weight), "bias": flat(l1.bias)},
        {"module": "Linear", "in": 64, "out": 2, "weight": flat(l2.weight), "bias": flat(l2.bias)},
        {"module": "Embedding", "V": 10, "D": 32, "weight": flat(e1.weight)},
        {"module": "Embedding", "V": 16, "D": 32, "weight": flat(e2.weight)},
    ]
    torch.manual_seed(1)
    m1 = nn.Linear(5, 3, bias=False)
    m2 = nn.Linear(3, 2)
    m3 = nn.Embedding(3, 5)
    m4 = nn.LayerNorm(4)
    seed1 = [
        {"module": "Linear", "in": 5, "out": 3, "weight": flat(m1.weight)},
        {"module": "Linear", "in": 3, "out": 2, "weight": flat(m2.weight), "bias": flat(m2.bias)},
        {"module": "Embedding", "V": 3, "D": 5, "weight": flat(m3.weight)},
        {"module": "LayerNorm", "C": 4, "weight": flat(m4.weight), "bias": flat(m4.bias)},
    ]
    return {"_generated_by": GENERATED_BY,
            "seed0": {"seed": 0, "modules": seed0},
            "seed1": {"seed": 1, "modules": seed1}}


def write(relative, obj):
    path = os.path.join(ROOT, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print("wrote %s (%d bytes)" % (relative, os.path.getsize(path)))


if __name__ == "__main__":
    torch.set_num_threads(1)
    write("data/kernels/layers_parity.json", parity())
    write("data/kernels/layers_init.json", init())
