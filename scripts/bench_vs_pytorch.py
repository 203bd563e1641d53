#!/usr/bin/env python3
"""Times the course's PyTorch scripts and attnlab on the same experiments, in
one run on this machine, and prints wall seconds and their ratio.

Run:  python3 scripts/bench_vs_pytorch.py [--repeat N] [--attnlab build/attnlab] [PAIR ...]
PAIR is a course script number with its spec, e.g. 13 (the default set is
every pair below). PyTorch runs under /usr/bin/python3 (Debian's
python3-torch); attnlab needs no Python. Each side is run N times (default 3)
and the median wall time is reported; the PyTorch figure includes its ~2 s
`import torch`, as a student running the script pays it too.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE = os.path.join(ROOT, '..', 'shared', 'course')
PAIRS = {
    '13': ('13_positions_vs_none.py', 'experiments/positions.json'),
    '01': ('01_bottleneck.py', 'experiments/bottleneck.json'),
    '18': ('18_rnn_vs_attention.py', 'experiments/rnn_vs_attention.json'),
    '19': ('19_attention_map.py', 'experiments/attention_map.json'),
}


def wall(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--attnlab', default=os.path.join(ROOT, 'build', 'attnlab'))
    ap.add_argument('pairs', nargs='*', default=list(PAIRS))
    args = ap.parse_args()
    print('%-6s %-28s %10s %10s %8s' % ('script', 'spec', 'pytorch s', 'attnlab s', 'ratio'))
    for key in args.pairs:
        script, spec = PAIRS[key]
        if not os.path.exists(os.path.join(ROOT, spec)):
            print('%-6s %-28s (no spec yet)' % (key, spec))
            continue
        torch_s = wall(['/usr/bin/python3', os.path.join(COURSE, script)], args.repeat)
        ours_s = wall([args.attnlab, 'run', spec], args.repeat)
        print('%-6s %-28s %10.2f %10.2f %7.1fx' % (key, spec, torch_s, ours_s, torch_s / ours_s))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
