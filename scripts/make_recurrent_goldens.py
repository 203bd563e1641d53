#!/usr/bin/python3
"""PyTorch parity goldens for attnlab's recurrent layers (lib/kernels/{rnn,gru,lstm}).

Run from the repository root:
    /usr/bin/python3 scripts/make_recurrent_goldens.py
Needs Debian's python3-torch (PyTorch 1.13, CPU); the python3 on PATH may have
no torch. Writes data/kernels/recurrent_rnn.json, recurrent_gru.json and
recurrent_lstm.json (about 0.9 MB together) and prints their sizes.

For each of nn.RNN / nn.GRU / nn.LSTM(32, 64, batch_first=True):
  - the module is built right after torch.manual_seed(0), so its parameters are
    PyTorch's initialisation (tests/kernels/*_test.cpp compare attnlab's init to them
    bit for bit, and use them for the parity check);
  - input (4, 8, 32), R_last (4, 64) and R_all (4, 8, 64) are torch.randn from a
    torch.Generator seeded 1234, drawn in that order;
  - output = module(input)[0], shape (4, 8, 64);
  - grad_last: every gradient of loss = sum(output[:, -1, :] * R_last), a fixed
    random projection of the last step, the only place the course's classifier
    puts a gradient;
  - grad_all: every gradient of loss = sum(output * R_all), a gradient on every step.

Tensors are stored as {"shape": [...], "f32le_base64": "..."}: the raw
little-endian float32 bytes in C order, base64-encoded. That is bit-exact and
takes 5.3 characters per value instead of about 15 for decimal text, which
keeps the three files under 1 MB.
"""
import base64
import json
import os

import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "data", "nn")
B, T, I, H = 4, 8, 32, 64
DATA_SEED = 1234


def tensor(t):
    t = t.detach().contiguous().to(torch.float32)
    raw = t.numpy().astype("<f4").tobytes()
    return {"shape": list(t.shape), "f32le_base64": base64.b64encode(raw).decode("ascii")}


def gradients(module, x, loss_fn):
    module.zero_grad()
    x = x.clone().requires_grad_(True)
    out, _ = module(x)
    loss_fn(out).backward()
    grads = {"input": tensor(x.grad)}
    for name, p in module.named_parameters():
        grads[name] = tensor(p.grad)
    return grads


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for cell, cls in [("rnn", nn.RNN), ("gru", nn.GRU), ("lstm", nn.LSTM)]:
        torch.manual_seed(0)
        module = cls(I, H, batch_first=True)
        g = torch.Generator().manual_seed(DATA_SEED)
        x = torch.randn(B, T, I, generator=g)
        r_last = torch.randn(B, H, generator=g)
        r_all = torch.randn(B, T, H, generator=g)
        with torch.no_grad():
            out, _ = module(x)
        doc = {
            "_generated_by": {"script": "scripts/make_recurrent_goldens.py",
                              "torch": torch.__version__,
                              "command": "/usr/bin/python3 scripts/make_recurrent_goldens.py"},
            "module": "nn.%s(%d, %d, batch_first=True) after torch.manual_seed(0)"
                      % (cls.__name__, I, H),
            "cell": cell,
            "batch": B, "length": T, "input_size": I, "hidden_size": H,
            "losses": {"grad_last": "sum(output[:, -1, :] * R_last)",
                       "grad_all": "sum(output * R_all)"},
        }
        for name, p in module.named_parameters():
            doc[name] = tensor(p)
        doc["input"] = tensor(x)
        doc["R_last"] = tensor(r_last)
        doc["R_all"] = tensor(r_all)
        doc["output"] = tensor(out)
        doc["grad_last"] = gradients(module, x, lambda o: (o[:, -1, :] * r_last).sum())
        doc["grad_all"] = gradients(module, x, lambda o: (o * r_all).sum())
        path = os.path.join(OUT_DIR, "recurrent_%s.json" % cell)
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        print("%s: %d bytes" % (os.path.relpath(path, ROOT), os.path.getsize(path)))


if __name__ == "__main__":
    main()
