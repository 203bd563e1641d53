#!/usr/bin/python3
"""Writes the golden files that tests/random and tests/data compare against, from REAL PyTorch.

How to run (from anywhere; paths are relative to this file):

    /usr/bin/python3 scripts/make_rng_goldens.py

It needs Debian's python3-torch (1.13.1, CPU, AVX2 kernels, no MKL; see
the project's notes on PyTorch's random streams). The `python3` on PATH may have no torch.

Outputs (compact JSON, about 0.9 MB in all):
    data/random/engine.json       MT19937 stream, seeding, unseeded Generator, random_() int64
    data/random/uniform.json      rand(7), uniform_ over three ranges
    data/random/integers.json     randint incl. ranges >= 2^32
    data/random/normal.json       randn on both paths, the cache across calls, normal_(mean, std)
    data/random/permutation.json  randperm
    data/random/dropout.json      F.dropout keep masks and scales
    data/data/loader_order.json   DataLoader(shuffle=True / False) sample order
    data/data/sequences.json      the course's make_sequences(8000, seed 0) and (2000, seed 1)

Every file is {"_generated_by": {...}, "cases": [...]}. A case names its seed, a list of
calls made one after another on ONE generator (each with its arguments and PyTorch's result)
and "after": what that generator yields next, first randn(1) (which consumes a cached
Box-Muller value if one is held, otherwise 4 words) and then 8 words. So a test that
replays the calls and matches "after" has matched the engine state and the normal cache.

Floats are the float32 results written as Python floats (exact round-trip); words are
uint32; int64 results are JSON integers; a "seed_u64" is the seed as the uint64 the
generator stores (negative seeds become two's complement).
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from course_models import make_sequences  # noqa: E402  the course's task, in our words

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED_BY = {
    "script": "scripts/make_rng_goldens.py",
    "torch": torch.__version__,
    "command": "/usr/bin/python3 scripts/make_rng_goldens.py",
}
U64 = (1 << 64) - 1


# ---- drawing raw words from a torch generator ---------------------------------------------

def words(g, k):
    """The next k (even) 32-bit engine outputs. random_(-2^63, None) on int64 is the
    full-range transformation: the raw random64(), whose first word is the high half."""
    assert k % 2 == 0
    pairs = torch.empty(k // 2, dtype=torch.int64).random_(-2**63, None, generator=g).tolist()
    out = []
    for v in pairs:
        v &= U64
        out += [v >> 32, v & 0xFFFFFFFF]
    return out


def after(g):
    return {"normal": torch.randn(1, generator=g).item(), "words": words(g, 8)}


def fnv1a_bits(t):
    """64-bit FNV-1a over the float32 bit patterns, one 32-bit word per step
    (h ^= bits; h *= 0x100000001b3), for results too long to store."""
    h = 0xCBF29CE484222325
    for b in t.contiguous().view(torch.int32).flatten().tolist():
        h ^= b & 0xFFFFFFFF
        h = (h * 0x100000001B3) & U64
    return h


def seeded(seed):
    return torch.Generator().manual_seed(seed)


def case(name, seed, g, calls, **extra):
    c = {"name": name, "seed": seed, "seed_u64": seed & U64}
    c.update(extra)
    c["calls"] = calls
    c["after"] = after(g)
    return c


# ---- one recorded call per PyTorch operation ----------------------------------------------

def c_words(g, k):
    return {"op": "words", "n": k, "values": words(g, k)}


def c_uniform(g, n, a, b):
    t = torch.empty(n).uniform_(a, b, generator=g)
    return {"op": "uniform", "n": n, "from": a, "to": b, "values": t.tolist()}


def c_normal(g, shape, mean=0.0, std=1.0, store_all=True):
    if mean == 0.0 and std == 1.0:
        t = torch.randn(shape, generator=g)
    else:
        t = torch.empty(shape).normal_(mean, std, generator=g)
    call = {"op": "normal", "shape": list(shape), "n": t.numel(), "mean": mean, "std": std}
    if store_all:
        call["values"] = t.flatten().tolist()
    else:
        flat = t.flatten()
        call["head"] = flat[:32].tolist()
        call["tail"] = flat[-32:].tolist()
        call["fnv1a_bits"] = fnv1a_bits(flat)
    return call


def c_randint(g, low, high, n):
    t = torch.randint(low, high, (n,), generator=g)
    return {"op": "randint", "n": n, "low": low, "high": high, "values": t.tolist()}


def c_random_int64(g, n):
    """torch.empty((), dtype=int64).random_(): random64() mod 2^63 (docs/torch_rng.md section 3)."""
    vals = [torch.empty((), dtype=torch.int64).random_(generator=g).item() for _ in range(n)]
    return {"op": "random_int64", "n": n, "values": vals}


def c_randperm(g, n):
    return {"op": "randperm", "n": n, "values": torch.randperm(n, generator=g).tolist()}


def c_manual_seed(g, seed):
    g.manual_seed(seed)
    return {"op": "manual_seed", "seed": seed, "seed_u64": seed & U64}


def c_dropout(n, p):
    """F.dropout on ones (global generator): kept elements equal the scale, dropped are 0."""
    out = F.dropout(torch.ones(n), p, training=True)
    keep = [1 if v != 0.0 else 0 for v in out.tolist()]
    kept = out[out != 0.0]
    scales = set(kept.tolist())
    assert len(scales) <= 1, scales
    return {"op": "dropout", "n": n, "p": p, "keep": keep,
            "scale": scales.pop() if scales else None}


# ---- the files ----------------------------------------------------------------------------

def engine_cases():
    cases = []
    # Long streams cross the block regenerations at 624 and 1248 outputs.
    for seed in (0, 42):
        g = seeded(seed)
        cases.append(case("words_1300_seed_%d" % seed, seed, g, [c_words(g, 1300)]))
    # Only the low 32 bits of a seed reach the engine; negative seeds are two's complement.
    for seed in (1, 5, 2**32 + 5, 5489, -1, -12345, 2**63 + 7, 2**64 - 1):
        g = seeded(seed)
        cases.append(case("words_seed_%d" % seed, seed, g, [c_words(g, 16)]))
    g = torch.Generator()  # never seeded
    cases.append(case("unseeded_generator", g.initial_seed(), g, [c_words(g, 16)],
                      unseeded=True))
    torch.manual_seed(0)
    g = torch.default_generator
    cases.append(case("global_manual_seed_0", 0, g, [c_words(g, 16)], global_generator=True))
    g = seeded(3)
    cases.append(case("random_int64_seed_3", 3, g, [c_random_int64(g, 50)]))
    # Re-seeding mid-stream restarts the stream.
    g = seeded(9)
    cases.append(case("reseed_mid_stream", 9, g,
                      [c_words(g, 10), c_manual_seed(g, 9), c_words(g, 10)]))
    return cases


def uniform_cases():
    cases = []
    g = seeded(0)
    t = torch.rand(7, generator=g)
    cases.append(case("rand_7", 0, g, [{"op": "uniform", "n": 7, "from": 0.0, "to": 1.0,
                                        "values": t.tolist()}]))
    # nn.Linear(32, .)'s weight bound: sqrt(3) * gain(a=sqrt(5)) / sqrt(32) in double.
    linear_bound = math.sqrt(3.0) * math.sqrt(2.0 / (1 + math.sqrt(5) ** 2)) / math.sqrt(32)
    for seed, (a, b) in ((1, (-0.3, 0.3)), (2, (-linear_bound, linear_bound)), (3, (1.5, 4.0))):
        g = seeded(seed)
        cases.append(case("uniform_%g_%g" % (a, b), seed, g, [c_uniform(g, 2000, a, b)]))
    return cases


def integer_cases():
    cases = []
    specs = [
        ("digits_1_10", 0, 1, 10),
        ("bits_0_2", 1, 0, 2),
        ("negative_low", 2, -5, 5),
        ("range_2p32_minus_1", 3, 0, 2**32 - 1),  # last 32-bit range: one word each
        ("range_2p32", 4, 0, 2**32),              # first 64-bit range: two words each
        ("range_2p40", 5, -2**39, 2**39),
        ("range_2p62", 6, -2**62, 2**62),
        ("range_full_int64", 7, -2**63, 2**63 - 1),  # range computed in uint64
    ]
    for name, seed, low, high in specs:
        g = seeded(seed)
        cases.append(case(name, seed, g, [c_randint(g, low, high, 200)]))
    # The course's shapes on a fresh seed-0 generator: C order, one word each.
    g = seeded(0)
    calls = []
    for (low, high, shape) in ((1, 10, (8000, 1)), (1, 9, (8000, 7))):
        t = torch.randint(low, high, shape, generator=g)
        calls.append({"op": "randint", "n": t.numel(), "low": low, "high": high,
                      "fnv1a_values": fnv1a_ints(t), "head": t.flatten()[:32].tolist()})
    cases.append(case("course_shapes_8000", 0, g, calls))
    return cases


def fnv1a_ints(t):
    """64-bit FNV-1a over int64 values truncated to their low 32 bits (fine for small ints)."""
    h = 0xCBF29CE484222325
    for v in t.flatten().tolist():
        h ^= v & 0xFFFFFFFF
        h = (h * 0x100000001B3) & U64
    return h


def normal_cases():
    cases = []
    shapes = [(1, 8), (20, 8), (1, 64), (20, 512), (5, 8), (4, 6), (2, 6, 32),
              (3,), (15,), (16,), (17,), (31,), (33,)]
    for i, shape in enumerate(shapes):
        g = seeded(i)
        cases.append(case("randn_" + "x".join(map(str, shape)), i, g, [c_normal(g, shape)]))
    g = seeded(100)
    cases.append(case("randn_100003", 100, g, [c_normal(g, (100003,), store_all=False)]))
    # The double Box-Muller cache lives in the generator: randn(3) leaves one value, randn(40)
    # (path A) neither reads nor clears it, randn(5) starts with it, randn(1,8) continues.
    g = seeded(0)
    calls = [c_normal(g, s) for s in ((3,), (40,), (5,), (1, 8))]
    cases.append(case("cache_across_calls", 0, g, calls))
    # Odd small sizes repeated: the cache flips between held and empty.
    g = seeded(11)
    cases.append(case("odd_sizes_repeated", 11, g, [c_normal(g, (s,)) for s in (1, 3, 5, 7, 1, 9, 15, 1)]))
    # manual_seed clears the cache.
    g = seeded(12)
    calls = [c_normal(g, (3,)), c_manual_seed(g, 12), c_normal(g, (3,))]
    cases.append(case("manual_seed_clears_cache", 12, g, calls))
    # normal_(mean, std) on both paths; the cache is scaled when consumed, not when stored.
    for seed, (mean, std) in ((21, (0.5, 0.02)), (22, (-1.3, 3.7))):
        g = seeded(seed)
        calls = [c_normal(g, (64,), mean, std), c_normal(g, (7,), mean, std),
                 c_normal(g, (5,), 0.0, 1.0), c_normal(g, (50,), mean, std)]
        cases.append(case("normal_mean_%g_std_%g" % (mean, std), seed, g, calls))
    return cases


def permutation_cases():
    cases = []
    for n in (0, 1, 2, 3, 10, 100, 1000, 8000):
        g = seeded(n + 1)
        cases.append(case("randperm_%d" % n, n + 1, g, [c_randperm(g, n)]))
    return cases


def dropout_cases():
    cases = []
    for seed, p, n in ((0, 0.1, 1000), (1, 0.5, 1000), (2, 0.0, 100), (3, 1.0, 100), (4, 0.25, 37)):
        torch.manual_seed(seed)
        g = torch.default_generator
        cases.append(case("dropout_p_%g" % p, seed, g, [c_dropout(n, p)], global_generator=True))
    return cases


def loader_cases():
    cases = []

    def epoch(loader):
        batches = [b[0] for b in loader]
        return {"op": "shuffled_epoch", "n": len(loader.dataset), "batch_size": loader.batch_size,
                "order": torch.cat(batches).tolist(), "batch_sizes": [len(b) for b in batches]}

    def epoch_seeds(seed, k, between=None):
        """Replays the loader's draws by hand: per epoch _base_seed, then the sampler's seed."""
        torch.manual_seed(seed)
        out = []
        for _ in range(k):
            torch.empty((), dtype=torch.int64).random_()
            out.append(torch.empty((), dtype=torch.int64).random_().item())
            if between:
                between()
        return out

    # The course's training loader: 8000 samples, batch 64, after torch.manual_seed(0).
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.arange(8000)), batch_size=64, shuffle=True)
    calls = [epoch(loader), epoch(loader)]
    cases.append(case("shuffled_8000_two_epochs", 0, torch.default_generator, calls,
                      global_generator=True, epoch_seeds=epoch_seeds(0, 2)))

    # Any draw between epochs shifts the next epoch's seed.
    torch.manual_seed(5)
    loader = DataLoader(TensorDataset(torch.arange(1000)), batch_size=64, shuffle=True)
    calls = [epoch(loader)]
    calls.append(c_normal(torch.default_generator, (37,)))
    calls.append(epoch(loader))
    cases.append(case("shuffled_1000_randn_between", 5, torch.default_generator, calls,
                      global_generator=True))

    # shuffle=False still draws the iterator's _base_seed.
    torch.manual_seed(3)
    loader = DataLoader(TensorDataset(torch.arange(100)), batch_size=64, shuffle=False)
    order = torch.cat([b[0] for b in loader]).tolist()
    assert order == list(range(100))
    calls = [{"op": "sequential_epoch", "n": 100}]
    cases.append(case("sequential_100", 3, torch.default_generator, calls, global_generator=True))
    return cases


def sequence_cases():
    cases = []
    for n, seed in ((8000, 0), (2000, 1)):
        x, y = make_sequences(n, seed=seed)
        cases.append({"name": "make_sequences_%d_seed_%d" % (n, seed), "n": n, "length": 8,
                      "seed": seed, "tokens": x.flatten().tolist(), "labels": y.tolist()})
    return cases


def write(relative, cases):
    path = os.path.join(ROOT, "data", relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"_generated_by": GENERATED_BY, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print("%-28s %3d cases %8d bytes" % (relative, len(cases), os.path.getsize(path)))


def main():
    if not torch.__version__.startswith("1.13"):
        sys.exit("expected PyTorch 1.13 (Debian python3-torch), got " + torch.__version__)
    if torch.backends.mkl.is_available():
        print("warning: MKL builds draw dropout masks differently (docs/torch_rng.md section 6)")
    torch.set_num_threads(1)  # not needed for these kernels (section 2), but removes a doubt
    write("random/engine.json", engine_cases())
    write("random/uniform.json", uniform_cases())
    write("random/integers.json", integer_cases())
    write("random/normal.json", normal_cases())
    write("random/permutation.json", permutation_cases())
    write("random/dropout.json", dropout_cases())
    write("data/loader_order.json", loader_cases())
    write("data/sequences.json", sequence_cases())


if __name__ == "__main__":
    main()
