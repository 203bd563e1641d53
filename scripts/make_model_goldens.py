#!/usr/bin/python3
"""Writes data/models/*.json: PyTorch 1.13's view of the course's models.

For each model, built after torch.manual_seed(0) exactly as the course builds
it, the file holds:
  - every initial parameter (attnlab's init must equal them bit for bit);
  - one fixed batch (the first batch fit() draws), the logits and loss of a
    training-mode forward pass on it, and every parameter's gradient;
  - the losses of fit()'s first 100 training steps (AdamW, clipping, the
    DataLoader's order, dropout masks), from those same weights.

Run:  /usr/bin/python3 scripts/make_model_goldens.py [MODEL ...]
Needs Debian's python3-torch (apt-get install python3-torch); the tests read
the JSON and never need Python. Models: positions_none, positions_learned,
attention_map (script 19's one-head model), lstm (script 18's Recurrent('lstm')),
attention_1block and attention_2blocks (script 18's AttentionClassifier),
rnn (script 18's Recurrent('rnn')).
"""
import json
import os
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'models')
STEPS = 100


# --- the course's code (shared/course/13_*.py, 18_*.py, 19_*.py), verbatim in substance ---
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_rng_goldens import make_sequences  # noqa: E402  the course's task, written once
class PositionsClassifier(nn.Module):  # script 13's AttentionClassifier; script 19's Simple with heads=1
    def __init__(self, width=32, heads=4, use_positions=True):
        super().__init__()
        self.use_positions = use_positions
        self.tok = nn.Embedding(10, width)
        self.pos = nn.Embedding(16, width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        h = self.tok(x)
        if self.use_positions:
            h = h + self.pos(torch.arange(x.shape[1]))
        a, _ = self.attn(h, h, h)
        h = self.norm(h + a)
        return self.head(h.mean(dim=1))


class AttentionBlock(nn.Module):  # script 18
    def __init__(self, width, heads, expansion=4, dropout=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, width * expansion), nn.GELU(),
                                nn.Linear(width * expansion, width), nn.Dropout(dropout))

    def forward(self, x):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        return x + self.ff(self.norm2(x))


class AttentionClassifier(nn.Module):  # script 18
    def __init__(self, width=32, heads=4, blocks=2):
        super().__init__()
        self.tok = nn.Embedding(10, width)
        self.pos = nn.Embedding(16, width)
        self.blocks = nn.ModuleList([AttentionBlock(width, heads) for _ in range(blocks)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h).mean(dim=1))


class Recurrent(nn.Module):  # script 18 (script 01's LastState with hidden=64 is the same LSTM model)
    def __init__(self, cell, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(10, 32)
        self.rnn = {'rnn': nn.RNN, 'gru': nn.GRU, 'lstm': nn.LSTM}[cell](32, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        out, _ = self.rnn(self.emb(x))
        return self.head(out[:, -1, :])


MODELS = {
    'positions_none': lambda: PositionsClassifier(use_positions=False),
    'positions_learned': lambda: PositionsClassifier(use_positions=True),
    'attention_map': lambda: PositionsClassifier(heads=1),
    'lstm': lambda: Recurrent('lstm'),
    'rnn': lambda: Recurrent('rnn'),
    'attention_1block': lambda: AttentionClassifier(blocks=1),
    'attention_2blocks': lambda: AttentionClassifier(blocks=2),
}


def floats(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def write(name, model_maker, X_tr, y_tr):
    torch.manual_seed(0)
    model = model_maker()
    init = {k: floats(v) for k, v in model.named_parameters()}
    shapes = {k: list(v.shape) for k, v in model.named_parameters()}

    # The first batch fit() trains on: fit() seeds 0, then the loader draws its order.
    loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
    torch.manual_seed(0)
    xb, yb = next(iter(loader))
    model.train()
    logits = model(xb)
    loss = nn.CrossEntropyLoss()(logits, yb)
    loss.backward()
    grads = {k: floats(v.grad) if v.grad is not None else [0.0] * v.numel() for k, v in model.named_parameters()}

    # fit()'s first STEPS steps from the same initial weights.
    torch.manual_seed(0)
    model = model_maker()
    torch.manual_seed(0)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    model.train()
    while len(losses) < STEPS:
        for xb2, yb2 in loader:
            opt.zero_grad()
            step_loss = loss_fn(model(xb2), yb2)
            step_loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(float(step_loss.item()))
            if len(losses) == STEPS:
                break

    doc = {
        '_generated_by': {'script': 'scripts/make_model_goldens.py', 'torch': torch.__version__,
                          'command': '/usr/bin/python3 scripts/make_model_goldens.py ' + name},
        'model': name,
        'parameter_names': list(shapes),
        'shapes': shapes,
        'init': init,
        'batch': {'tokens': xb.reshape(-1).tolist(), 'labels': yb.tolist(), 'B': xb.shape[0], 'T': xb.shape[1]},
        'logits': floats(logits),
        'loss': float(loss.item()),
        'grads': grads,
        'losses': losses,
    }
    path = os.path.join(OUT, name + '.json')
    with open(path, 'w') as f:
        json.dump(doc, f, separators=(',', ':'))
    print('wrote', path, 'parameters', sum(len(v) for v in init.values()))


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    X_tr, y_tr = make_sequences(8000, seed=0)
    for name in sys.argv[1:] or MODELS:
        write(name, MODELS[name], X_tr, y_tr)


if __name__ == '__main__':
    main()
