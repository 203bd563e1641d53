#!/usr/bin/python3
"""PyTorch's side of `attnlab run experiments/heads.json`: script 13's
attention classifier (with learned positions) trained with 1, 2, 4 and 8
heads at width 32, seed 0, exactly as the course's fit() trains it.
Writes data/experiments/heads_torch.json with the accuracies; the test
tests/experiments/heads_trained_test.cpp compares attnlab's with them.

Run:  /usr/bin/python3 scripts/heads_reference.py   (needs python3-torch; ~40 s)
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_model_goldens import PositionsClassifier, make_sequences  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402


def fit(model, train_loader, val_loader, epochs=10, lr=3e-3):
    torch.manual_seed(0)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(epochs):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
    model.eval()
    right = seen = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            right += (model(xb).argmax(1) == yb).sum().item()
            seen += yb.numel()
    return right / seen


def main():
    X_tr, y_tr = make_sequences(8000, seed=0)
    X_va, y_va = make_sequences(2000, seed=1)
    train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
    val_loader = DataLoader(TensorDataset(X_va, y_va), batch_size=512)
    rows = []
    for heads in [1, 2, 4, 8]:
        torch.manual_seed(0)
        acc = fit(PositionsClassifier(heads=heads), train_loader, val_loader)
        rows.append({'heads': heads, 'accuracy': acc})
        print('%8d %10.4f' % (heads, acc), flush=True)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'experiments')
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'heads_torch.json'), 'w') as f:
        json.dump({'_generated_by': {'script': 'scripts/heads_reference.py', 'torch': torch.__version__,
                                     'command': '/usr/bin/python3 scripts/heads_reference.py'},
                   'rows': rows}, f, indent=1)


if __name__ == '__main__':
    main()
