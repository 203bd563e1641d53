#!/usr/bin/python3
"""attnlab's PyTorch twin of the `translation` experiment (issue 13).

Bahdanau, Cho & Bengio 2015 (arXiv:1409.0473) show that an encoder-decoder
squeezing the source into one vector (RNNenc, after Cho et al. 2014) degrades
as sentences grow, while a decoder that searches the source at every step
(RNNsearch) holds (their Figure 2). This script states the toy task and the
four models in PyTorch so that attnlab's C++ can be held to them:

  make_translation   digits mapped through a fixed dictionary, adjacent pairs
                     swapped (the local reordering of adjective-noun order), or
                     the plain copy / reverse tasks; BOS/EOS, padding, lengths
                     drawn uniformly in [min_len, max_len]
  EncoderDecoder     GRU encoder, its last state initialises a GRUCell decoder
  Additive           bidirectional GRU encoder, additive attention on s_{i-1},
                     context fed to the decoder cell and to the output layer
  DotProduct         bidirectional GRU encoder, Luong's "general" score
                     s_i^T W_a h_j on the current state, context to the output
  train / evaluate   AdamW, gradient norm clipped to 1, shuffled batches,
                     cross-entropy ignoring padding; greedy decoding and
                     exact-sentence accuracy by source-length bucket

Token ids: 0 PAD, 1 BOS, 2 EOS, 3.. the words (source and target share ids).

Usage:
    /usr/bin/python3 scripts/translation_models.py table [--seeds 0,1,2]   # print only
    /usr/bin/python3 scripts/translation_models.py seeds --seeds 0,1,2     # data/models/translation_torch_seeds.json
    /usr/bin/python3 scripts/translation_models.py goldens     # data/models/translation_*.json

Needs Debian's python3-torch (1.13); attnlab and its tests never import this.
"""
import argparse
import json
import math
import os
import sys
import time

# One BLAS thread, set before torch loads OpenBLAS. Its own threads spin beside
# torch's single intra-op thread (measured: the no-attention row alone took 24 s
# wall with 20.6 s of system time, against 1.5 s with one thread; beside other
# processes such rows took 1423 s), and they change the order of the sums: the
# same seed gave 0.062 or 0.071 on the 4-7 bucket depending on the thread count.
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
os.environ.setdefault('OMP_NUM_THREADS', '1')

import torch  # noqa: E402 (after the environment above)
from torch import nn  # noqa: E402
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from torch.utils.data import DataLoader, TensorDataset

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAD, BOS, EOS, FIRST_WORD = 0, 1, 2, 3

# The default experiment; experiments/translation.json holds the same values.
DEFAULTS = dict(task='translation', n_words=10, min_len=4, max_len=16, test_max_len=20,
                buckets=[[4, 7], [8, 10], [11, 13], [14, 16], [17, 20]],
                n_train=6000, n_val=1000, data_seed=0, embed=32, hidden=64, attn=64, d_model=64, n_heads=4, n_layers=2,
                epochs=16, lr=3e-3, lr_schedule='cosine', batch_size=64, max_norm=1.0, teacher_forcing=1.0)


# ---- the task -------------------------------------------------------------------------

def dictionary_multiplier(n_words):
    """The smallest a >= 3 with gcd(a, n_words) = 1: w -> (a*w + 1) mod n is a bijection."""
    a = 3
    while math.gcd(a, n_words) != 1:
        a += 1
    return a


def make_translation(n, min_len, max_len, task='translation', n_words=10, seed=0):
    """n source/target pairs from generator `seed`: two randint calls, lengths
    (n,) in [min_len, max_len] then words (n, max_len) in [0, n_words) (the words
    past a sentence's length are drawn and dropped). Returns (src (n, max_len),
    src_len (n,), tgt_in (n, max_len+1) = BOS y..., tgt_out (n, max_len+1) = y... EOS),
    int64, padded with PAD."""
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.randint(min_len, max_len + 1, (n,), generator=gen)
    words = torch.randint(0, n_words, (n, max_len), generator=gen)
    a = dictionary_multiplier(n_words)
    src = torch.full((n, max_len), PAD, dtype=torch.int64)
    tgt_in = torch.full((n, max_len + 1), PAD, dtype=torch.int64)
    tgt_out = torch.full((n, max_len + 1), PAD, dtype=torch.int64)
    for i in range(n):
        L = int(lengths[i])
        w = words[i, :L].tolist()
        if task == 'copy':
            y = list(w)
        elif task == 'reverse':
            y = w[::-1]
        else:  # dictionary, then adjacent pairs swapped; an odd last word stays
            y = [(a * x + 1) % n_words for x in w]
            for k in range(0, L - 1, 2):
                y[k], y[k + 1] = y[k + 1], y[k]
        src[i, :L] = torch.tensor(w) + FIRST_WORD
        tgt_in[i, 0] = BOS
        tgt_in[i, 1:L + 1] = torch.tensor(y) + FIRST_WORD
        tgt_out[i, :L] = torch.tensor(y) + FIRST_WORD
        tgt_out[i, L] = EOS
    return src, lengths, tgt_in, tgt_out


# ---- the models -----------------------------------------------------------------------

def encode_bidirectional(gru, x, lengths):
    """nn.GRU(bidirectional=True) over padded x (B, S, E) with per-row lengths:
    annotations (B, S, 2H) = [forward ; backward], zero past each length."""
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, _ = gru(packed)
    out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    return out


def key_padding(src):
    return src == PAD  # True = blocked, as key_padding_mask


class EncoderDecoder(nn.Module):
    """RNNenc: the encoder's last state (at each row's length) is the decoder's s_0."""

    def __init__(self, vocab, embed, hidden, attn=None):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, embed)
        self.encoder = nn.GRU(embed, hidden, batch_first=True)
        self.tgt_emb = nn.Embedding(vocab, embed)
        self.decoder = nn.GRUCell(embed, hidden)
        self.out = nn.Linear(hidden, vocab)

    def start(self, src, lengths):
        packed = pack_padded_sequence(self.src_emb(src), lengths, batch_first=True, enforce_sorted=False)
        _, h = self.encoder(packed)
        return {'s': h[0]}

    def step(self, state, y_prev):
        state['s'] = self.decoder(self.tgt_emb(y_prev), state['s'])
        return self.out(state['s']), None


class Additive(nn.Module):
    """RNNsearch: e_ij = v_a . tanh(W_a s_{i-1} + U_a h_j), c_i = sum_j a_ij h_j,
    s_i = GRUCell([emb(y_{i-1}); c_i], s_{i-1}), logits = out([s_i; c_i]);
    s_0 = tanh(init(backward h_1))."""

    def __init__(self, vocab, embed, hidden, attn):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, embed)
        self.encoder = nn.GRU(embed, hidden, batch_first=True, bidirectional=True)
        self.init = nn.Linear(hidden, hidden)
        self.W_a = nn.Linear(hidden, attn, bias=False)
        self.U_a = nn.Linear(2 * hidden, attn, bias=False)
        self.v_a = nn.Linear(attn, 1, bias=False)
        self.tgt_emb = nn.Embedding(vocab, embed)
        self.decoder = nn.GRUCell(embed + 2 * hidden, hidden)
        self.out = nn.Linear(3 * hidden, vocab)
        self.hidden = hidden

    def start(self, src, lengths):
        h = encode_bidirectional(self.encoder, self.src_emb(src), lengths)
        s0 = torch.tanh(self.init(h[:, 0, self.hidden:]))
        return {'s': s0, 'h': h, 'pk': self.U_a(h), 'mask': key_padding(src)}

    def step(self, state, y_prev):
        e = self.v_a(torch.tanh(self.W_a(state['s']).unsqueeze(1) + state['pk'])).squeeze(2)  # (B, S)
        w = torch.softmax(e.masked_fill(state['mask'], float('-inf')), dim=1)
        c = torch.bmm(w.unsqueeze(1), state['h']).squeeze(1)  # (B, 2H)
        state['s'] = self.decoder(torch.cat([self.tgt_emb(y_prev), c], 1), state['s'])
        return self.out(torch.cat([state['s'], c], 1)), w


class DotProduct(nn.Module):
    """Luong's "general" score on the current state: s_i = GRUCell(emb(y_{i-1}), s_{i-1}),
    e_ij = (W_a s_i) . h_j, c_i = sum_j a_ij h_j, logits = out([s_i; c_i])."""

    def __init__(self, vocab, embed, hidden, attn=None):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, embed)
        self.encoder = nn.GRU(embed, hidden, batch_first=True, bidirectional=True)
        self.init = nn.Linear(hidden, hidden)
        self.tgt_emb = nn.Embedding(vocab, embed)
        self.decoder = nn.GRUCell(embed, hidden)
        self.W_a = nn.Linear(hidden, 2 * hidden, bias=False)
        self.out = nn.Linear(3 * hidden, vocab)
        self.hidden = hidden

    def start(self, src, lengths):
        h = encode_bidirectional(self.encoder, self.src_emb(src), lengths)
        s0 = torch.tanh(self.init(h[:, 0, self.hidden:]))
        return {'s': s0, 'h': h, 'mask': key_padding(src)}

    def step(self, state, y_prev):
        state['s'] = self.decoder(self.tgt_emb(y_prev), state['s'])
        e = torch.bmm(state['h'], self.W_a(state['s']).unsqueeze(2)).squeeze(2)  # (B, S)
        w = torch.softmax(e.masked_fill(state['mask'], float('-inf')), dim=1)
        c = torch.bmm(w.unsqueeze(1), state['h']).squeeze(1)
        return self.out(torch.cat([state['s'], c], 1)), w


class Block(nn.Module):
    """The course's pre-norm AttentionBlock (day 7, 17_block.py) without
    dropout: x + MHA(LN1(x)), then + Linear(GELU(Linear(LN2(x))))."""

    def __init__(self, width, heads, ff):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, ff), nn.GELU(), nn.Linear(ff, width))

    def forward(self, x, key_padding_mask=None, attn_mask=None):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=attn_mask, need_weights=False)
        x = x + a
        return x + self.ff(self.norm2(x))


class DecoderLayer(nn.Module):
    """The library's block with a causal mask, then a pre-norm cross-attention
    sublayer over the encoder's memory (T != S, source padding blocked)."""

    def __init__(self, width, heads, ff):
        super().__init__()
        self.block = Block(width, heads, ff)
        self.cross_norm = nn.LayerNorm(width)
        self.cross = nn.MultiheadAttention(width, heads, batch_first=True)

    def forward(self, y, memory, src_mask, need_weights=False):
        T = y.shape[1]
        u = self.block(y, attn_mask=torch.triu(torch.ones(T, T, dtype=torch.bool), 1))
        a, w = self.cross(self.cross_norm(u), memory, memory, key_padding_mask=src_mask, need_weights=need_weights)
        return u + a, w


class Transformer(nn.Module):
    """Encoder-decoder of pre-norm blocks with learned positions (P rows each)."""

    def __init__(self, vocab, d_model, n_heads, n_layers, positions):
        super().__init__()
        ff = 4 * d_model
        self.src_emb = nn.Embedding(vocab, d_model)
        self.src_pos = nn.Embedding(positions, d_model)
        self.encoder = nn.ModuleList([Block(d_model, n_heads, ff) for _ in range(n_layers)])
        self.enc_norm = nn.LayerNorm(d_model)
        self.tgt_emb = nn.Embedding(vocab, d_model)
        self.tgt_pos = nn.Embedding(positions, d_model)
        self.decoder = nn.ModuleList([DecoderLayer(d_model, n_heads, ff) for _ in range(n_layers)])
        self.dec_norm = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, vocab)

    def encode(self, src):
        mask = key_padding(src)
        x = self.src_emb(src) + self.src_pos(torch.arange(src.shape[1]))
        for blk in self.encoder:
            x = blk(x, key_padding_mask=mask)
        return self.enc_norm(x), mask

    def decode(self, memory, mask, ids, need_weights=False):
        y = self.tgt_emb(ids) + self.tgt_pos(torch.arange(ids.shape[1]))
        w = None
        for k, layer in enumerate(self.decoder):
            y, w = layer(y, memory, mask, need_weights and k + 1 == len(self.decoder))
        return self.out(self.dec_norm(y)), w


# The spec's names for the rows, their classes and the labels printed.
MODELS = {'rnnenc': EncoderDecoder, 'additive': Additive, 'dot': DotProduct, 'transformer': Transformer}
LABELS = {'rnnenc': 'encoder-decoder, no attention', 'additive': 'additive attention (Bahdanau)',
          'dot': 'dot-product attention (Luong)', 'transformer': 'transformer'}


def make_model(name, cfg, seed):
    torch.manual_seed(seed)
    if name == 'transformer':
        return Transformer(cfg['n_words'] + FIRST_WORD, cfg['d_model'], cfg['n_heads'], cfg['n_layers'],
                           cfg['test_max_len'] + 1)
    return MODELS[name](cfg['n_words'] + FIRST_WORD, cfg['embed'], cfg['hidden'], cfg['attn'])


def decode_logits(model, src, lengths, tgt_in, teacher_forcing=1.0):
    """Logits (B, T, V) with the reference's previous word fed at each step
    (teacher forcing); with ratio < 1 each step draws torch.rand(1) on the
    global generator and feeds the model's own argmax when it is >= ratio.
    The transformer reads the whole reference at once (ratio 1 only)."""
    if isinstance(model, Transformer):
        assert teacher_forcing >= 1.0, 'the transformer trains with teacher forcing 1 only'
        memory, mask = model.encode(src)
        return model.decode(memory, mask, tgt_in)[0]
    state = model.start(src, lengths)
    outs, y_prev = [], tgt_in[:, 0]
    for t in range(tgt_in.shape[1]):
        logits, _ = model.step(state, y_prev)
        outs.append(logits)
        if t + 1 < tgt_in.shape[1]:
            if teacher_forcing >= 1.0 or float(torch.rand(1)) < teacher_forcing:
                y_prev = tgt_in[:, t + 1]
            else:
                y_prev = logits.argmax(1).detach()
    return torch.stack(outs, 1)


def loss_of(logits, tgt_out):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1), ignore_index=PAD)


@torch.no_grad()
def greedy(model, src, lengths, steps):
    """Greedy decoding for `steps` steps from BOS: (B, steps) predictions and
    the (B, steps, S) attention weights (None for the model without attention;
    the transformer's: its last layer's cross-attention, mean over heads)."""
    if isinstance(model, Transformer):
        memory, mask = model.encode(src)
        ids = torch.full((src.shape[0], 1), BOS, dtype=torch.int64)
        for t in range(steps):  # the whole prefix again at each step (causal: earlier rows unchanged)
            logits, w = model.decode(memory, mask, ids, need_weights=t + 1 == steps)
            ids = torch.cat([ids, logits[:, -1].argmax(1, keepdim=True)], 1)
        return ids[:, 1:], w
    state = model.start(src, lengths)
    y = torch.full((src.shape[0],), BOS, dtype=torch.int64)
    preds, weights = [], []
    for _ in range(steps):
        logits, w = model.step(state, y)
        y = logits.argmax(1)
        preds.append(y)
        weights.append(w)
    return torch.stack(preds, 1), (torch.stack(weights, 1) if weights[0] is not None else None)


def exact(pred, tgt_out, lengths):
    """1 where the first len+1 predictions equal the reference (words and EOS)."""
    return torch.tensor([bool((pred[i, :L + 1] == tgt_out[i, :L + 1]).all()) for i, L in
                         enumerate((lengths).tolist())])


def train(model, cfg, train_set, seed, record=0):
    src, lengths, tgt_in, tgt_out = train_set
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg['lr'])
    losses = []
    n = src.shape[0]
    # lr_schedule 'cosine': lr * (1 + cos(pi t / total)) / 2 at step t of the run.
    # LambdaLR's closed form, not CosineAnnealingLR, whose recursive update
    # draws the same curve with different rounding (lib/training/lr_schedule.hpp).
    total = cfg['epochs'] * ((n + cfg['batch_size'] - 1) // cfg['batch_size'])
    sched = None
    if cfg.get('lr_schedule', 'constant') == 'cosine':
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 0.5 * (1 + math.cos(math.pi * t / total)))
    # fit()'s loader: DataLoader(shuffle=True) over the row indices draws its
    # order from the global generator exactly as attnlab's shuffled_epoch_order
    loader = DataLoader(TensorDataset(torch.arange(n)), batch_size=cfg['batch_size'], shuffle=True)
    for _ in range(cfg['epochs']):
        for (idx,) in loader:
            T = int(lengths[idx].max()) + 1  # the batch is cut to its longest sentence
            S = T - 1
            logits = decode_logits(model, src[idx, :S], lengths[idx], tgt_in[idx, :T], cfg['teacher_forcing'])
            loss = loss_of(logits, tgt_out[idx, :T])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg['max_norm'])
            opt.step()
            if sched is not None:
                sched.step()
            if len(losses) < record:
                losses.append(float(loss))
    return losses


def evaluate(model, cfg, val_set):
    src, lengths, tgt_in, tgt_out = val_set
    pred, _ = greedy(model, src, lengths, tgt_out.shape[1])
    ok = exact(pred, tgt_out, lengths)
    accs = []
    for lo, hi in cfg['buckets']:
        sel = (lengths >= lo) & (lengths <= hi)
        accs.append(float(ok[sel].float().mean()) if int(sel.sum()) else float('nan'))
    return accs


def datasets(cfg):
    tr = make_translation(cfg['n_train'], cfg['min_len'], cfg['max_len'], cfg['task'], cfg['n_words'],
                          cfg['data_seed'])
    va = make_translation(cfg['n_val'], cfg['min_len'], cfg['test_max_len'], cfg['task'], cfg['n_words'],
                          cfg['data_seed'] + 1)
    return tr, va


def table(cfg, seeds, names):
    torch.set_num_threads(1)
    tr, va = datasets(cfg)
    head = ''.join(f'{f"{lo}-{hi}":>8}' for lo, hi in cfg['buckets'])
    print(f'{"":32}{"params":>8}{head}{"time":>8}')
    rows = []
    for name in names:
        for seed in seeds:
            model = make_model(name, cfg, seed)
            t0 = time.time()
            train(model, cfg, tr, seed)
            accs = evaluate(model, cfg, va)
            dt = time.time() - t0
            params = sum(p.numel() for p in model.parameters())
            print(f'{LABELS[name]:32}{params:8d}' + ''.join(f'{a:8.3f}' for a in accs) + f'{dt:7.0f}s  seed {seed}',
                  flush=True)
            rows.append({'model': name, 'label': LABELS[name], 'seed': seed, 'params': params, 'accuracy': accs,
                         'seconds': round(dt, 1)})
    return rows


def seeds_table(cfg, seeds, names):
    """PyTorch's table on each seed, committed as data/models/translation_torch_seeds.json:
    attnlab's seed-0 rows must sit inside its spread (tests/experiments). Rows
    are merged into the file when it holds the same configuration, so that the
    models may be trained by separate processes (one per core)."""
    for seed in seeds:  # each seed's rows are written as soon as they are trained
        merge_seed_rows(cfg, table(cfg, [seed], names))


def merge_seed_rows(cfg, rows):
    import fcntl
    rel = 'models/translation_torch_seeds.json'
    with open(os.path.join(ROOT, 'data', rel + '.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        path = os.path.join(ROOT, 'data', rel)
        old = []
        if os.path.exists(path):
            with open(path) as f:
                prev = json.load(f)
            if prev['config'] == cfg:
                old = [r for r in prev['rows'] if (r['model'], r['seed']) not in {(x['model'], x['seed']) for x in rows}]
        rows = sorted(old + rows, key=lambda r: (list(MODELS).index(r['model']), r['seed']))
        spread = {}
        for name in MODELS:
            accs = [r['accuracy'] for r in rows if r['model'] == name]
            if accs:
                spread[name] = {'seeds': sorted(r['seed'] for r in rows if r['model'] == name),
                                'min': [min(a[k] for a in accs) for k in range(len(cfg['buckets']))],
                                'max': [max(a[k] for a in accs) for k in range(len(cfg['buckets']))]}
        write_json(rel, {
            '_generated_by': generated_by('seeds --seeds 0,1,2') +
            '; the default experiment (experiments/translation.json), torch.set_num_threads(1); '
            'seconds are wall times on a shared machine',
            'config': cfg, 'rows': rows, 'spread': spread})


def write_json(rel, obj):
    path = os.path.join(ROOT, 'data', rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + '.tmp', 'w') as f:
        json.dump(obj, f, separators=(',', ':'))
        f.write('\n')
    os.replace(path + '.tmp', path)
    print('wrote', path, os.path.getsize(path), 'bytes')


def generated_by(command):
    return f'scripts/translation_models.py {command} (torch {torch.__version__})'


# The parity configuration: small enough that every weight and gradient fits
# a small golden, with lengths that differ inside every batch.
PARITY = dict(DEFAULTS, n_words=6, min_len=2, max_len=7, test_max_len=9, n_train=1600, n_val=64, embed=8,
              hidden=12, attn=10, d_model=8, n_heads=2, n_layers=2, epochs=4, batch_size=64)


def floats(t):
    return [float(x) for x in t.detach().flatten().tolist()]


def model_goldens(name):
    cfg = PARITY
    tr, _ = datasets(cfg)
    model = make_model(name, cfg, 0)
    init = {k: floats(v) for k, v in model.state_dict().items()}
    shapes = {k: list(v.shape) for k, v in model.state_dict().items()}
    # one batch: the first 8 training pairs, cut to their longest sentence
    src, lengths, tgt_in, tgt_out = (x[:8] for x in tr)
    S = int(lengths.max())
    logits = decode_logits(model, src[:, :S], lengths, tgt_in[:, :S + 1])
    loss = loss_of(logits, tgt_out[:, :S + 1])
    model.zero_grad()
    loss.backward()
    grads = {k: floats(p.grad) for k, p in model.named_parameters()}
    losses = {}
    for schedule in ('constant', 'cosine'):  # 100 steps = the PARITY run: the whole cosine
        model = make_model(name, cfg, 0)
        losses[schedule] = train(model, dict(cfg, lr_schedule=schedule), tr, 0, record=100)
    write_json(f'models/translation_{name}.json', {
        '_generated_by': generated_by('goldens') + f'; PARITY config, model {name}, manual_seed(0)',
        'config': {k: cfg[k] for k in ('n_words', 'min_len', 'max_len', 'test_max_len', 'n_train', 'embed', 'hidden',
                                      'attn', 'd_model', 'n_heads', 'n_layers', 'epochs', 'lr', 'batch_size',
                                      'data_seed')},
        'parameter_names': list(init), 'shapes': shapes, 'init': init, 'grads': grads,
        'batch': {'B': 8, 'S': S, 'logits': floats(logits), 'loss': float(loss)},
        'losses': losses['constant'], 'losses_cosine': losses['cosine']})


def data_goldens():
    cases = []
    for task, n, lo, hi, words, seed in [('translation', 6, 3, 9, 10, 0), ('copy', 4, 1, 5, 7, 3),
                                         ('reverse', 5, 2, 6, 10, 1), ('translation', 3, 5, 8, 6, 2)]:
        src, lengths, tgt_in, tgt_out = make_translation(n, lo, hi, task, words, seed)
        cases.append(dict(task=task, n=n, min_len=lo, max_len=hi, n_words=words, seed=seed,
                          src=src.flatten().tolist(), src_len=lengths.tolist(),
                          tgt_in=tgt_in.flatten().tolist(), tgt_out=tgt_out.flatten().tolist()))
    write_json('data/translation.json', {'_generated_by': generated_by('goldens'), 'cases': cases})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('what', choices=['table', 'seeds', 'goldens'])
    ap.add_argument('--seeds', default='0')
    ap.add_argument('--models', default=','.join(MODELS))
    ap.add_argument('--set', action='append', default=[], help='key=value over the defaults (JSON values)')
    args = ap.parse_args()
    cfg = dict(DEFAULTS)
    for kv in args.set:
        k, v = kv.split('=', 1)
        cfg[k] = json.loads(v)
    if args.what == 'table':
        table(cfg, [int(s) for s in args.seeds.split(',')], args.models.split(','))
    elif args.what == 'seeds':
        seeds_table(cfg, [int(s) for s in args.seeds.split(',')], args.models.split(','))
    else:
        data_goldens()
        for name in args.models.split(','):
            model_goldens(name)


if __name__ == '__main__':
    main()
