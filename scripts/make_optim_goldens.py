#!/usr/bin/python3
"""Writes data/optim/optim.json: torch.optim.AdamW and clip_grad_norm_ on fixed
numbers, for tests/optim (attnlab's lib/optim against PyTorch 1.13).

AdamW cases: 96 parameters and, for each of 4 steps, a gradient whose entries
span 1e-9 to 1 in magnitude (so eps matters for the small ones and bias
correction for all of them at steps 1 and 2); the parameters after every step.
Three configurations: the course's (lr 3e-3, PyTorch's defaults: betas 0.9,
0.999, eps 1e-8, weight decay 0.01), one with every hyperparameter changed,
and one without weight decay.

Clipping cases: clip_grad_norm_(max_norm) over two tensors, one whose total
norm exceeds max_norm (the gradients are scaled) and one below it (PyTorch
still multiplies by the clamped factor 1); the total norm returned and the
gradients after.

Steps with clipping: the course's training step (clip to 1, then AdamW) on
gradients whose norm is above 1 at steps 2 and 3 and below it at steps 1 and 4.

Run:  /usr/bin/python3 scripts/make_optim_goldens.py   (needs python3-torch 1.13)
Floats are written as the exact double of each float32 value.
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'optim', 'optim.json')
N, STEPS = 96, 4


def floats(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def spanning_gradients(gen, scale=1.0):
    """STEPS gradients of N entries: a normal draw times 10^u, u uniform in [-9, 0]."""
    out = []
    for _ in range(STEPS):
        magnitude = torch.pow(10.0, -9.0 * torch.rand(N, generator=gen))
        out.append(torch.randn(N, generator=gen) * magnitude * scale)
    return out


def adamw_case(name, config, gen):
    p0 = torch.randn(N, generator=gen)
    grads = spanning_gradients(gen)
    p = p0.clone().requires_grad_(True)
    opt = torch.optim.AdamW([p], **config)
    after = []
    for g in grads:
        p.grad = g.clone()
        opt.step()
        after.append(floats(p))
    return {'name': name, 'config': config, 'params': floats(p0), 'grads': [floats(g) for g in grads],
            'after': after}


def clip_case(name, max_norm, scale, gen):
    a, b = torch.randn(40, generator=gen) * scale, torch.randn(24, generator=gen) * scale
    pa, pb = torch.zeros(40, requires_grad=True), torch.zeros(24, requires_grad=True)
    pa.grad, pb.grad = a.clone(), b.clone()
    total = torch.nn.utils.clip_grad_norm_([pa, pb], max_norm)
    return {'name': name, 'max_norm': max_norm, 'grads': floats(torch.cat([a, b])),
            'total_norm': float(total), 'clipped': floats(torch.cat([pa.grad, pb.grad]))}


def clipped_steps_case(gen):
    """clip_grad_norm_(1.0) then AdamW(lr=3e-3) for 4 steps; the gradient norm
    is about 0.3, 3, 30 and 0.3, so clipping triggers at steps 2 and 3."""
    p0 = torch.randn(N, generator=gen)
    scales = [0.03, 0.3, 3.0, 0.03]
    grads = [torch.randn(N, generator=gen) * s for s in scales]
    p = p0.clone().requires_grad_(True)
    opt = torch.optim.AdamW([p], lr=3e-3)
    after, norms = [], []
    for g in grads:
        p.grad = g.clone()
        norms.append(float(torch.nn.utils.clip_grad_norm_([p], 1.0)))
        opt.step()
        after.append(floats(p))
    return {'name': 'clip_then_adamw', 'params': floats(p0), 'grads': [floats(g) for g in grads],
            'total_norms': norms, 'after': after}


def main():
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(8)
    course = {'lr': 3e-3, 'betas': (0.9, 0.999), 'eps': 1e-8, 'weight_decay': 0.01}
    other = {'lr': 1e-2, 'betas': (0.8, 0.99), 'eps': 1e-6, 'weight_decay': 0.1}
    no_decay = {'lr': 3e-3, 'betas': (0.9, 0.999), 'eps': 1e-8, 'weight_decay': 0.0}
    doc = {
        '_generated_by': {'script': 'scripts/make_optim_goldens.py', 'torch': torch.__version__,
                          'command': '/usr/bin/python3 scripts/make_optim_goldens.py'},
        'adamw': [adamw_case('course', course, gen), adamw_case('other', other, gen),
                  adamw_case('no_decay', no_decay, gen)],
        'clip': [clip_case('triggers', 1.0, 1.0, gen), clip_case('below', 5.0, 0.1, gen)],
        'clip_then_adamw': clipped_steps_case(gen),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, 'w') as f:
        json.dump(doc, f, separators=(',', ':'))
        f.write('\n')
    print('wrote', OUT, os.path.getsize(OUT), 'bytes')


if __name__ == '__main__':
    main()
