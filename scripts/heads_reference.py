#!/usr/bin/python3
"""PyTorch's side of `attnlab run experiments/heads.json`: script 13's
attention classifier (with learned positions) trained with 1, 2, 4 and 8
heads at width 32, seed 0, as the course trains it (scripts/course_models.py).
Writes data/experiments/heads_torch.json with the accuracies; the test
tests/experiments/trained_tables_test.cpp compares attnlab's with them.

Run:  /usr/bin/python3 scripts/heads_reference.py   (needs python3-torch; ~40 s)
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from course_models import PositionsModel, fresh, loaders, train  # noqa: E402


def main():
    train_loader, val_loader = loaders()
    rows = []
    for heads in [1, 2, 4, 8]:
        acc = train(fresh(lambda: PositionsModel(n_heads=heads)), train_loader, val_loader)
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
