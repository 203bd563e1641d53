#!/usr/bin/python3
"""Writes data/models/*.json: PyTorch 1.13's view of the course's models.

For each model, built after torch.manual_seed(0) as the course builds it, the
file holds:
  - every initial parameter (attnlab's init must equal them bit for bit);
  - one fixed batch (the first batch training draws), the logits of an
    evaluation-mode forward pass on it (eval_logits), the logits and loss of a
    training-mode forward pass (dropout drawn as training draws it), and every
    parameter's gradient;
  - the losses of the first 250 training steps (two epochs: AdamW, clipping,
    the DataLoader's order, dropout masks), from those same weights.

The models, the task and the training loop are scripts/course_models.py,
attnlab's own PyTorch statement of the course's (checked to print the course
scripts' digits: course_models.py --check all).

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

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'models')
STEPS = 250  # two epochs of 125 batches: the second epoch's shuffle is checked too


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from course_models import BlockModel, PositionsModel, RecurrentModel, loaders, train  # noqa: E402

MODELS = {  # our statement of each course model (scripts/course_models.py)
    'positions_none': lambda: PositionsModel(use_positions=False),   # script 13
    'positions_learned': lambda: PositionsModel(use_positions=True),  # script 13
    'attention_map': lambda: PositionsModel(n_heads=1),               # script 19
    'lstm': lambda: RecurrentModel('lstm'),                            # scripts 01 (hidden 64) and 18
    'rnn': lambda: RecurrentModel('rnn'),                              # script 18
    'attention_1block': lambda: BlockModel(n_blocks=1),                # script 18
    'attention_2blocks': lambda: BlockModel(n_blocks=2),               # script 18
}


def floats(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def fresh_model(maker):
    torch.manual_seed(0)
    return maker()


def write(name, model_maker, loader):
    model = fresh_model(model_maker)
    init = {k: floats(v) for k, v in model.named_parameters()}
    shapes = {k: list(v.shape) for k, v in model.named_parameters()}

    # The first batch training sees: it seeds 0, then the loader draws its order.
    torch.manual_seed(0)
    xb, yb = next(iter(loader))
    model.eval()  # no dropout, no draws: the logits every model must match
    with torch.no_grad():
        eval_logits = model(xb)
    model.train()
    logits = model(xb)
    loss = nn.CrossEntropyLoss()(logits, yb)
    loss.backward()
    grads = {k: floats(v.grad) if v.grad is not None else [0.0] * v.numel() for k, v in model.named_parameters()}

    # The course's training, stopped after STEPS steps, from the same initial weights.
    losses = []
    train(fresh_model(model_maker), loader, None, epochs=STEPS // len(loader) + 1, losses=losses,
          max_steps=STEPS)

    doc = {
        '_generated_by': {'script': 'scripts/make_model_goldens.py', 'torch': torch.__version__,
                          'command': '/usr/bin/python3 scripts/make_model_goldens.py ' + name},
        'model': name,
        'parameter_names': list(shapes),
        'shapes': shapes,
        'init': init,
        'batch': {'tokens': xb.reshape(-1).tolist(), 'labels': yb.tolist(), 'B': xb.shape[0], 'T': xb.shape[1]},
        'logits': floats(logits),
        'eval_logits': floats(eval_logits),
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
    loader, _ = loaders()
    for name in sys.argv[1:] or MODELS:
        write(name, MODELS[name], loader)


if __name__ == '__main__':
    main()
