#!/usr/bin/env python3
"""Times PyTorch and attnlab on the same experiments, in one run on this
machine, and prints wall seconds and their ratio. PyTorch's side is
scripts/course_models.py, our statement of the course's models and training
(it prints the course scripts' digits: course_models.py --check all).

Then, for each row of attnlab's tables, the achieved GFLOP/s of its training
(2 x the multiply-adds of every forward and backward pass and of every
evaluation the row timed, `timed_multiply_adds` of `--format json`, over the
row's median seconds in N more runs) against the single-threaded
sgemm peak measured in the same run (build/bench/train_step_bench).

Then each table's FLOP floor: its training FLOPs over two cores at that
peak (the time no implementation on this machine can beat), and attnlab's
wall time as a multiple of it. And the same for `timing`'s attention forward:
2 x (4·B·T·C² + 2·B·H·T²·D) FLOPs per pass at each length, against its
measured milliseconds, run with --jobs 1 against the one-core floor and with
--jobs 2 (its heads and its projections' rows split over two threads) against
the two-core floor.

Run:  python3 scripts/bench_vs_pytorch.py [--repeat N] [--attnlab build/attnlab] [--timing-only] [PAIR ...]
PAIR is a course script number with its spec, e.g. 13, or `heads` (the
default set is every pair below). PyTorch runs under /usr/bin/python3 (Debian's
python3-torch); attnlab needs no Python. Each side is run N times (default 3)
and the median wall time is reported (timing's too, N runs at each --jobs); the PyTorch figure includes its ~2 s
`import torch`, as a student running the script pays it too.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE_MODELS = os.path.join(ROOT, 'scripts', 'course_models.py')
PAIRS = {  # course script: (its table in course_models.py, attnlab's spec)
    '13': ('positions', 'experiments/positions.json'),
    '01': ('bottleneck', 'experiments/bottleneck.json'),
    '18': ('rnn_vs_attention', 'experiments/rnn_vs_attention.json'),
    '19': ('attention_map', 'experiments/attention_map.json'),
    'heads': ('heads', 'experiments/heads.json'),  # no course script trains it: course_models.py's heads table
}


def wall(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sgemm_peak(bench):
    out = subprocess.run([bench, '--benchmark_filter=SgemmPeak', '--benchmark_format=json',
                          '--benchmark_min_time=0.3'], check=True, capture_output=True, text=True).stdout
    return max(b['GFLOP/s'] for b in json.loads(out)['benchmarks']) / 1e9


def table_rows(out):
    """(label, training FLOPs, timed FLOPs, seconds) of each row of a
    `--format json` table. The training FLOPs are the course's work (its
    steps and one evaluation: what a text run does, which the floor is
    for); the timed FLOPs are what the row's seconds did, which in a JSON
    run include an evaluation after every epoch (for the learning curves):
    a row's rate divides those."""
    data = json.loads(out)['results'][0]['data']
    rows = data.get('rows', [data])
    for row in rows:
        macs = row.get('training_multiply_adds') or row.get('multiply_adds')  # heads: its cost column is one forward
        if macs:
            label = next((str(row[k]) for k in ('model', 'label', 'hidden_size', 'heads') if k in row), 'run')
            yield label, 2 * macs, 2 * row.get('timed_multiply_adds', macs), row['seconds']


def row_medians(attnlab, spec, repeat):
    """Each row's median training seconds over `repeat` runs with
    `--format json` (one run's rows move with the machine as much as its
    wall time does). Separate from the wall-time runs, which print text as a
    student's do: writing the JSON (attention_map's maps) adds ~25 ms."""
    per_row = {}
    for _ in range(repeat):
        out = subprocess.run([attnlab, 'run', spec, '--format', 'json'], check=True, capture_output=True,
                             text=True, cwd=ROOT).stdout
        for label, flops, timed, seconds in table_rows(out):
            per_row.setdefault(label, (flops, timed, []))[2].append(seconds)
    return [(label, flops, timed, statistics.median(secs)) for label, (flops, timed, secs) in per_row.items()]


def timing_rows(attnlab, jobs, repeat):
    """(T, forward FLOPs, attention seconds) of experiments/timing.json, the
    median over `repeat` runs (each run's figure is already a mean of 10 calls)."""
    per_length = {}
    for _ in range(repeat):
        out = subprocess.run([attnlab, 'run', 'experiments/timing.json', '--format', 'json', '--jobs', str(jobs)],
                             check=True, capture_output=True, text=True, cwd=ROOT).stdout
        result = json.loads(out)['results'][0]
        spec, rows = result.get('spec', {}), result['data']['rows']
        B, C, H = spec.get('batch', 8), spec.get('width', 64), spec.get('heads', 4)
        for row in rows:
            T = row['length']
            flops = 2.0 * (4 * B * T * C * C + 2 * B * H * T * T * (C // H))
            per_length.setdefault(T, (flops, []))[1].append(row['attention_seconds'])
    for T, (flops, secs) in per_length.items():
        yield T, flops, statistics.median(secs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--attnlab', default=os.path.join(ROOT, 'build', 'attnlab'))
    ap.add_argument('--bench', default=os.path.join(ROOT, 'build', 'bench', 'train_step_bench'))
    ap.add_argument('--timing-only', action='store_true', help='only the sgemm peak and the timing floors')
    ap.add_argument('pairs', nargs='*', default=list(PAIRS))
    args = ap.parse_args()
    if args.timing_only:
        print_timing(args, sgemm_peak(args.bench))
        return
    rates = []
    walls = {}
    print('%-6s %-28s %10s %10s %8s' % ('script', 'spec', 'pytorch s', 'attnlab s', 'ratio'))
    for key in args.pairs:
        table, spec = PAIRS[key]
        if not os.path.exists(os.path.join(ROOT, spec)):
            print('%-6s %-28s (no spec yet)' % (key, spec))
            continue
        torch_s = wall(['/usr/bin/python3', COURSE_MODELS, table], args.repeat)
        ours_s = wall([args.attnlab, 'run', spec], args.repeat)
        rows = row_medians(args.attnlab, spec, args.repeat)
        print('%-6s %-28s %10.2f %10.2f %7.1fx' % (key, spec, torch_s, ours_s, torch_s / ours_s))
        sys.stdout.flush()
        walls[spec] = ours_s
        rates += [(spec,) + row for row in rows]  # (spec, label, flops, timed flops, seconds)
    peak = sgemm_peak(args.bench)
    print('\nsgemm peak, one thread: %.1f GFLOP/s' % peak)
    print('%-28s %-22s %10s %8s' % ('spec', 'row', 'GFLOP/s', 'of peak'))
    for spec, label, _, timed, seconds in rates:
        rate = timed / seconds / 1e9
        print('%-28s %-22s %10.2f %7.1f%%' % (spec, label, rate, 100 * rate / peak))

    # the floor: every training FLOP at the sgemm peak on both cores
    print('\nFLOP floor: training FLOPs over 2 cores at %.1f GFLOP/s' % peak)
    print('%-28s %10s %10s %10s %9s' % ('spec', 'GFLOP', 'floor s', 'attnlab s', 'x floor'))
    for spec, ours_s in walls.items():
        gflop = sum(flops for s, _, flops, _, _ in rates if s == spec) / 1e9
        if gflop > 0:
            floor = gflop / (2 * peak)
            print('%-28s %10.1f %10.3f %10.2f %8.1fx' % (spec, gflop, floor, ours_s, ours_s / floor))

    print_timing(args, peak)


def print_timing(args, peak):
    print('\ntiming (attention forward, need_weights=False; sgemm peak %.1f GFLOP/s a core)' % peak)
    print('%6s %8s %10s %10s %12s %9s' % ('cores', 'length', 'GFLOP', 'floor ms', 'attnlab ms', 'x floor'))
    for cores in (1, 2):
        for T, flops, seconds in timing_rows(args.attnlab, cores, args.repeat):
            floor = flops / 1e9 / (cores * peak)
            print('%6d %8d %10.3f %10.2f %12.2f %8.1fx' % (cores, T, flops / 1e9, 1e3 * floor, 1e3 * seconds,
                                                          seconds / floor))


if __name__ == '__main__':
    main()
