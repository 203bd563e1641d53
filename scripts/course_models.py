#!/usr/bin/python3
"""attnlab's own PyTorch statement of the course's task, models and training.

The course (week 8, "Attention") trains its models with one shared recipe; this
module says the same things in our words, so that the golden writers and the
benchmark need nothing from the course but its printed digits:

  make_sequences   the task: is the first digit repeated later in the sequence?
  PositionsModel   token (+ learned position) embeddings, one attention layer with
                   a residual and LayerNorm, mean over positions, a 2-way head
                   (scripts 13 and 19, and the heads table)
  BlockModel       token + position embeddings, pre-norm transformer blocks with a
                   GELU feed-forward and dropout, a final LayerNorm (script 18)
  RecurrentModel   embedding, RNN / GRU / LSTM, the head on the last step (01, 18)
  train            AdamW at 3e-3, gradient norm clipped to 1, shuffled batches of 64,
                   torch.manual_seed(seed) first; returns validation accuracy

Each model creates its layers in the order the course does, so torch.manual_seed(0)
gives the same initial weights, and names them as the course does, so the
state_dict names (tok.weight, blocks.0.attn.in_proj_weight, rnn.weight_ih_l0)
are the ones attnlab's nn::Parameters mirror.

Run a table as the course prints it, or check it against what the course's own
script prints under PyTorch 1.13 here (data/course/NN_*.torch113.txt; wall times
are compared by presence only):

    /usr/bin/python3 scripts/course_models.py positions           # 13
    /usr/bin/python3 scripts/course_models.py --check all         # 01, 13, 18, 19

Needs Debian's python3-torch (1.13); attnlab and its tests never import this.
"""
import argparse
import os
import re
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VOCAB, MAX_LEN = 10, 16  # digits 0-9 (0 unused by the task), position table size


# ---- the task -------------------------------------------------------------------------

def make_sequences(n, length=8, seed=0):
    """n sequences of `length` digits and their labels, from generator `seed`.

    Digit 0 is drawn from 1..9; the other length-1 digits from 1..9 without it
    (a draw from 1..8, bumped by one at or above it). Half the sequences (label
    1, drawn per sequence) then get digit 0 copied into one random later slot.
    The draws, in this order, are what attnlab's data::make_sequences replays:
    first (n, 1), others (n, length-1), labels (n,), slots (n, 1).
    Returns (tokens (n, length) int64, labels (n,) int64).
    """
    gen = torch.Generator().manual_seed(seed)
    head = torch.randint(1, 10, (n, 1), generator=gen)
    tail = torch.randint(1, 9, (n, length - 1), generator=gen)
    tail += (tail >= head).long()  # skip the first digit's value
    labels = torch.randint(0, 2, (n,), generator=gen)
    slot = torch.randint(0, length - 1, (n, 1), generator=gen)
    copy_here = (labels[:, None] == 1) & (torch.arange(length - 1)[None, :] == slot)
    tail = torch.where(copy_here, head.expand_as(tail), tail)
    return torch.cat([head, tail], dim=1), labels


def loaders(n_train=8000, n_val=2000, length=8, batch_size=64):
    """The course's data: training seed 0 shuffled in batches of 64, validation
    seed 1 in batches of 512."""
    x_tr, y_tr = make_sequences(n_train, length, seed=0)
    x_va, y_va = make_sequences(n_val, length, seed=1)
    return (DataLoader(TensorDataset(x_tr, y_tr), batch_size=batch_size, shuffle=True),
            DataLoader(TensorDataset(x_va, y_va), batch_size=512))


# ---- the models -----------------------------------------------------------------------

class PositionsModel(nn.Module):
    """(B, T) digits -> (B, 2) logits: embed (+ positions), x + attention(x, x, x),
    LayerNorm, mean over T, linear head. forward(x, weights=True) also returns the
    attention weights averaged over heads, (B, T, T)."""

    def __init__(self, d_model=32, n_heads=4, use_positions=True):
        super().__init__()
        self.use_positions = use_positions
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Embedding(MAX_LEN, d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, 2)

    def forward(self, x, weights=False):
        h = self.tok(x)
        if self.use_positions:
            h = h + self.pos(torch.arange(x.shape[1]))
        mixed, w = self.attn(h, h, h)
        logits = self.head(self.norm(h + mixed).mean(dim=1))
        return (logits, w) if weights else logits


class Block(nn.Module):
    """Pre-norm transformer block: x + attn(LN(x)), then + FF(LN(.)) with
    FF = Linear(C, 4C), GELU, Linear(4C, C), Dropout; dropout also on the
    attention weights."""

    def __init__(self, d_model, n_heads, dropout=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                nn.Linear(4 * d_model, d_model), nn.Dropout(dropout))

    def forward(self, x):
        normed = self.norm1(x)
        x = x + self.attn(normed, normed, normed, need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class BlockModel(nn.Module):
    """(B, T) digits -> (B, 2): token + position embeddings, n_blocks Blocks,
    LayerNorm, mean over T, linear head."""

    def __init__(self, d_model=32, n_heads=4, n_blocks=2, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Embedding(MAX_LEN, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, dropout) for _ in range(n_blocks))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, 2)

    def forward(self, x):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h).mean(dim=1))


class RecurrentModel(nn.Module):
    """(B, T) digits -> (B, 2): 32-wide embedding, one recurrent layer
    ('rnn', 'gru' or 'lstm', batch_first), linear head on the last step."""

    CELLS = {'rnn': nn.RNN, 'gru': nn.GRU, 'lstm': nn.LSTM}

    def __init__(self, cell='lstm', hidden=64):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32)
        self.rnn = self.CELLS[cell](32, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        states, _ = self.rnn(self.emb(x))
        return self.head(states[:, -1])


# ---- training -------------------------------------------------------------------------

def train(model, train_loader, val_loader, epochs=10, lr=3e-3, seed=0, losses=None, max_steps=None):
    """The course's recipe: torch.manual_seed(seed), AdamW(lr), each epoch a fresh
    shuffle of the training loader, cross-entropy, clip the gradient norm to 1,
    step; then argmax accuracy on the validation loader in eval mode.
    `losses` (a list) receives every step's loss; max_steps stops training early
    (and skips the evaluation, returning None)."""
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    loss_of = nn.CrossEntropyLoss()
    steps = 0
    for _ in range(epochs):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = loss_of(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if losses is not None:
                losses.append(float(loss.item()))
            steps += 1
            if max_steps is not None and steps == max_steps:
                return None
    model.eval()
    right = total = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            right += int((model(xb).argmax(dim=1) == yb).sum())
            total += yb.numel()
    return right / total


def fresh(maker, seed=0):
    """A model built right after torch.manual_seed(seed), as the course builds each row."""
    torch.manual_seed(seed)
    return maker()


# ---- the course's tables --------------------------------------------------------------

def table_bottleneck(out):
    tr, va = loaders()
    out('%14s %12s' % ('hidden size', 'accuracy'))
    for hidden in [2, 4, 8, 64]:
        out('%14d %12.4f' % (hidden, train(fresh(lambda: RecurrentModel('lstm', hidden)), tr, va)))


def table_positions(out):
    tr, va = loaders()
    out('%-22s %12s' % ('', 'accuracy'))
    for use in [False, True]:
        acc = train(fresh(lambda: PositionsModel(use_positions=use)), tr, va)
        out('%-22s %12.4f' % ('with positions' if use else 'no positions', acc))


def table_rnn_vs_attention(out):
    tr, va = loaders()
    out('%-26s %10s %10s %9s' % ('', 'params', 'accuracy', 'time'))
    rows = [('plain RNN', lambda: RecurrentModel('rnn')), ('LSTM', lambda: RecurrentModel('lstm')),
            ('attention, 1 block', lambda: BlockModel(n_blocks=1)),
            ('attention, 2 blocks', lambda: BlockModel(n_blocks=2))]
    for label, maker in rows:
        model = fresh(maker)
        started = time.time()
        acc = train(model, tr, va)
        out('%-26s %10d %10.4f %8.0fs' % (label, sum(p.numel() for p in model.parameters()), acc,
                                          time.time() - started))


def table_attention_map(out):
    tr, va = loaders()
    model = fresh(lambda: PositionsModel(n_heads=1))
    out('accuracy %.4f\n' % train(model, tr, va))
    x_va, y_va = va.dataset.tensors
    model.eval()
    with torch.no_grad():
        _, w = model(x_va[:1], weights=True)
    digits = x_va[0].tolist()
    out('sequence %s, label %d' % (''.join(map(str, digits)), y_va[0]))
    out('\nattention weights from each position:')
    out('      ' + ' '.join('%5d' % d for d in digits))
    for i, row in enumerate(w[0].tolist()):
        out('%2d %s  %s' % (i, str(digits[i]).rjust(2), ' '.join('%5.2f' % v for v in row)))


def table_heads(out):
    """The trained half of attnlab's heads table (1, 2, 4, 8 heads at width 32)."""
    tr, va = loaders()
    for heads in [1, 2, 4, 8]:
        out('%8d %10.4f' % (heads, train(fresh(lambda: PositionsModel(n_heads=heads)), tr, va)))


TABLES = {  # name -> (printer, the course script whose PyTorch 1.13 output it must equal)
    'bottleneck': (table_bottleneck, '01_bottleneck.torch113.txt'),
    'positions': (table_positions, '13_positions_vs_none.torch113.txt'),
    'rnn_vs_attention': (table_rnn_vs_attention, '18_rnn_vs_attention.torch113.txt'),
    'attention_map': (table_attention_map, '19_attention_map.torch113.txt'),
    'heads': (table_heads, None),
}


def without_times(text):
    return re.sub(r' +\d+s$', ' T', text, flags=re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('tables', nargs='+', help='%s, or all' % ', '.join(TABLES))
    ap.add_argument('--check', action='store_true',
                    help="compare with data/course/NN_*.torch113.txt (the course script's own output)")
    args = ap.parse_args()
    names = list(TABLES) if args.tables == ['all'] else args.tables
    failed = False
    for name in names:
        printer, reference = TABLES[name]
        if args.check and reference is None:
            continue
        lines = []
        printer(lambda s: (lines.append(s), None if args.check else print(s, flush=True)))
        if args.check:
            got = '\n'.join(lines) + '\n'
            with open(os.path.join(ROOT, 'data', 'course', reference)) as f:
                want = f.read()
            same = without_times(got) == without_times(want)
            failed |= not same
            print('%-17s %s %s' % (name, 'prints' if same else 'DIFFERS from', reference))
            if not same:
                sys.stdout.write(got)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
