#!/usr/bin/python3
"""Writes data/stats/*.json: SciPy's figures for the statistics of lib/stats,
for tests/stats (attnlab's own code against SciPy 1.10).

  t_distribution.json  stats.t.ppf and stats.t.cdf over a grid of
                       probabilities, points and degrees of freedom (integer
                       and not: Welch's df is fractional), beside the same
                       figures from mpmath at 50 digits (python3-mpmath): SciPy
                       1.10's t.ppf is good to only ~1e-9 relative, so the
                       quantiles are held to mpmath at 1e-12
  summary.json         mean, std (ddof=1), n and the 95 % interval of the
                       mean, stats.t.interval(0.95, n - 1, mean, sem),
                       clipped to the metric's range
  paired_t.json        stats.ttest_rel: t, p, df, estimate and its
                       confidence_interval(0.95); P(A > B) over seeds
  welch_t.json         stats.ttest_ind(equal_var=False): t, p; the
                       Welch-Satterthwaite df (SciPy 1.10 does not return it:
                       computed here by the formula and checked by giving back
                       SciPy's p); the interval stats.t.interval(0.95, df,
                       diff, se); Mann-Whitney U and U / (n_a n_b)
  mann_whitney.json    stats.mannwhitneyu(a, b).statistic (U of a), U / (n_a n_b)
  holm.json            Holm's adjusted p-values, computed here by the
                       definition (Holm 1979): statsmodels is not installed
  compare.json         families of pairs compared as `attnlab compare` does:
                       every field of a lib/stats Comparison, from the SciPy
                       figures above and Holm by definition

The inputs include ties, zero variance (with and without a difference),
unequal n, n = 2, n = 1, accuracies near 1 (so intervals clip) and large
differences. Where SciPy 1.10 gives NaN (0/0: identical inputs; n = 1), the
golden records null; attnlab defines those cases itself (lib/stats/*.hpp)
and the tests check that definition with exact values.

JSON has no inf or NaN: inf is written as the string "inf" ("-inf"), NaN as
null. Run:  /usr/bin/python3 scripts/make_stats_goldens.py   (python3-scipy 1.10)
"""
import datetime
import json
import math
import os
import warnings

import mpmath
import numpy as np
import scipy
from scipy import stats

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'stats')
SEEDS_TO_CLAIM = 5
ALPHA = 0.05

warnings.simplefilter('ignore')  # SciPy warns on the 0/0 cases it answers with NaN: recorded as null


def num(x):
    """A float as the goldens write it: "inf", "-inf", or null for NaN."""
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return 'inf' if x > 0 else '-inf'
    return x


def made_by():
    return {'script': 'scripts/make_stats_goldens.py', 'scipy': scipy.__version__, 'numpy': np.__version__, 'mpmath': mpmath.__version__,
            'date': datetime.date.today().isoformat(),
            'command': '/usr/bin/python3 scripts/make_stats_goldens.py'}


def write(name, doc):
    doc = {'_generated_by': made_by(), **doc}
    path = os.path.join(OUT, name)
    with open(path, 'w') as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write('\n')
    print('wrote', os.path.relpath(path))


# --- Student's t ------------------------------------------------------------

DFS = [1, 2, 3, 4, 5, 9, 19, 29, 2.5, 3.7, 7.31, 100, 1e4]
PROBS = [1e-6, 0.001, 0.025, 0.1, 0.5, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995]
POINTS = [-40.0, -8.0, -3.0, -2.1, -0.5, 0.0, 0.7, 1.96, 4.3, 12.7, 60.0]


def exact_cdf(x, df):
    """P(T <= x) to 50 digits: 1/2 I_{df/(df+x^2)}(df/2, 1/2) in the lower tail (Abramowitz & Stegun 26.7.1)."""
    x, df = mpmath.mpf(x), mpmath.mpf(df)
    if x == 0:
        return mpmath.mpf(1) / 2
    tail = mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + x * x), regularized=True) / 2
    return tail if x < 0 else 1 - tail


def exact_ppf(p, df):
    """The x with exact_cdf(x, df) = p (p the double given), to 40 digits, from SciPy's value."""
    p = mpmath.mpf(p)
    if p == mpmath.mpf(1) / 2:
        return mpmath.mpf(0)
    return mpmath.findroot(lambda x: exact_cdf(x, df) - p, mpmath.mpf(stats.t.ppf(float(p), df)),
                           tol=mpmath.mpf(10) ** -40)


def t_distribution():
    """SciPy's figures and, as the reference both are held to, mpmath's at 50 digits:
    SciPy 1.10's t.ppf (CDFLIB's cdft, inverted by a search) is good to only about
    1e-9 relative, its t.cdf to about 1e-15."""
    mpmath.mp.dps = 50
    ppf = [{'p': p, 'df': df, 'x': num(exact_ppf(p, df)), 'scipy': num(stats.t.ppf(p, df))} for df in DFS for p in PROBS]
    cdf = [{'x': x, 'df': df, 'p': num(exact_cdf(x, df)), 'scipy': num(stats.t.cdf(x, df))} for df in DFS for x in POINTS]
    worst_ppf = max(abs(c['scipy'] - c['x']) / max(abs(c['x']), 1e-300) for c in ppf if c['x'] != 0)
    worst_cdf = max(abs(c['scipy'] - c['p']) / c['p'] for c in cdf if c['p'] > 0)
    write('t_distribution.json', {
        'reference': 'x and p: mpmath at 50 digits (incomplete beta; findroot for the quantile); '
                     'scipy: stats.t.ppf and stats.t.cdf',
        'scipy_worst_relative_error': {'ppf': worst_ppf, 'cdf': worst_cdf},
        'ppf': ppf, 'cdf': cdf})


# --- summaries --------------------------------------------------------------

SUMMARIES = [
    # name, values, metric range (None: unbounded on that side)
    ('five_seeds', [0.81, 0.79, 0.84, 0.80, 0.83], [0, 1]),
    ('ten_seeds', [0.712, 0.698, 0.731, 0.705, 0.689, 0.722, 0.716, 0.701, 0.694, 0.727], [0, 1]),
    ('n2_clipped_high', [0.62, 0.70], [0, 1]),            # t_{0.975,1} = 12.7: the interval leaves [0, 1]
    ('near_one_clipped', [1.0, 0.998, 1.0, 0.9995, 1.0], [0, 1]),
    ('near_zero_clipped', [0.0, 0.002, 0.0, 0.0005, 0.001], [0, 1]),
    ('loss_unbounded_above', [2.31, 2.28, 2.35, 2.30], [0, None]),
    ('unbounded', [-1.5, 3.25, 0.125, 7.0, -2.0, 1.0], [None, None]),
    ('n1_no_interval', [0.93], [0, 1]),                   # SciPy: std and interval NaN
]


def summary():
    cases = []
    for name, values, rng in SUMMARIES:
        v = np.array(values, dtype=np.float64)
        n = len(v)
        mean = np.mean(v)
        std = np.std(v, ddof=1) if n > 1 else math.nan
        lo, hi = stats.t.interval(0.95, n - 1, loc=mean, scale=stats.sem(v)) if n > 1 else (math.nan, math.nan)
        low = -math.inf if rng[0] is None else rng[0]
        high = math.inf if rng[1] is None else rng[1]
        cases.append({'name': name, 'values': values, 'range': [num(low), num(high)], 'n': n, 'mean': num(mean),
                      'std': num(std), 'ci95': None if math.isnan(lo) else [num(np.clip(lo, low, high)),
                                                                             num(np.clip(hi, low, high))],
                      'ci95_unclipped': None if math.isnan(lo) else [num(lo), num(hi)]})
    write('summary.json', {'cases': cases})


# --- paired t -----------------------------------------------------------------

PAIRED = [
    ('five_seeds', [0.71, 0.68, 0.74, 0.70, 0.73], [0.66, 0.65, 0.70, 0.69, 0.66]),
    ('ten_seeds', [0.812, 0.797, 0.825, 0.803, 0.790, 0.818, 0.809, 0.799, 0.821, 0.806],
     [0.801, 0.800, 0.811, 0.790, 0.795, 0.812, 0.800, 0.801, 0.806, 0.799]),
    ('n2', [0.9, 0.8], [0.7, 0.75]),
    ('ties_some_seeds_equal', [0.9, 0.8, 0.85, 0.7, 0.95], [0.9, 0.75, 0.85, 0.72, 0.9]),
    ('near_one', [1.0, 0.9995, 1.0, 0.999, 1.0], [0.998, 0.9995, 0.997, 0.999, 0.9985]),
    ('large_difference', [0.97, 0.98, 0.96, 0.99, 0.975], [0.12, 0.15, 0.10, 0.13, 0.11]),
    # every difference the same number (dyadic values: exact in binary): SciPy divides by 0
    ('zero_variance_positive', [0.75, 0.5, 0.625, 1.0], [0.5, 0.25, 0.375, 0.75]),
    ('zero_variance_negative', [0.5, 0.25, 0.375, 0.75], [0.75, 0.5, 0.625, 1.0]),
    ('identical_per_seed', [0.9, 0.8, 0.85, 0.7, 0.95], [0.9, 0.8, 0.85, 0.7, 0.95]),  # SciPy: NaN
    ('identical_constant', [1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0]),       # SciPy: NaN
    ('n1', [0.9], [0.8]),                                                                # SciPy: NaN
]


def paired_share(a, b):
    """P(A > B) for paired runs: the share of seeds where A beats B, ties 1/2."""
    a, b = np.asarray(a), np.asarray(b)
    return float(np.mean((a > b) + 0.5 * (a == b)))


def paired_case(name, a, b):
    r = stats.ttest_rel(a, b)
    ci = r.confidence_interval(0.95)
    return {'name': name, 'a': a, 'b': b, 'n': len(a), 't': num(r.statistic), 'p': num(r.pvalue),
            'df': num(r.df), 'estimate': num(np.mean(np.subtract(a, b))),
            'ci95': None if math.isnan(ci.low) else [num(ci.low), num(ci.high)],
            'p_a_gt_b': paired_share(a, b)}


def paired_t():
    write('paired_t.json', {'cases': [paired_case(*c) for c in PAIRED]})


# --- Welch's t ----------------------------------------------------------------

WELCH = [
    ('five_each', [0.71, 0.68, 0.74, 0.70, 0.73], [0.66, 0.65, 0.70, 0.69, 0.66]),
    ('unequal_n_3_7', [0.62, 0.70, 0.66], [0.71, 0.69, 0.74, 0.70, 0.73, 0.68, 0.72]),
    ('unequal_n_8_4', [0.5, 0.55, 0.52, 0.49, 0.58, 0.51, 0.53, 0.56], [0.47, 0.62, 0.41, 0.55]),
    ('n2_each', [0.9, 0.8], [0.7, 0.75]),
    ('ties_shared_values', [0.8, 0.85, 0.8, 0.9, 0.85], [0.8, 0.8, 0.85, 0.75, 0.8]),
    ('one_side_constant', [1.0, 1.0, 1.0, 1.0, 1.0], [0.9, 0.95, 0.85, 0.92, 0.88]),
    ('near_one', [1.0, 0.9995, 1.0, 0.999, 1.0], [0.998, 0.9995, 0.997, 0.999, 0.9985, 0.9975]),
    ('large_difference', [0.97, 0.98, 0.96, 0.99, 0.975], [0.12, 0.15, 0.10, 0.13, 0.11, 0.14]),
    ('both_constant_different', [1.0, 1.0, 1.0], [0.5, 0.5, 0.5, 0.5]),  # SciPy: t = inf, p = 0
    ('both_constant_same', [1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]),       # SciPy: NaN
    ('n1_vs_3', [0.9], [0.8, 0.85, 0.82]),                               # SciPy: NaN
]


def welch_df_se(a, b):
    """Welch-Satterthwaite df (Welch 1947) and the standard error of the difference."""
    va = np.var(a, ddof=1) / len(a)
    vb = np.var(b, ddof=1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if se > 0 else math.nan
    return df, se


def welch_case(name, a, b):
    r = stats.ttest_ind(a, b, equal_var=False)
    case = {'name': name, 'a': a, 'b': b, 'n_a': len(a), 'n_b': len(b), 't': num(r.statistic), 'p': num(r.pvalue),
            'df': None, 'diff': num(np.mean(a) - np.mean(b)), 'ci95': None}
    if len(a) > 1 and len(b) > 1:
        df, se = welch_df_se(np.array(a), np.array(b))
        if se > 0:
            # the df is ours; SciPy's p from it proves it is SciPy's too
            assert abs(2 * stats.t.sf(abs(r.statistic), df) - r.pvalue) < 1e-14, name
            lo, hi = stats.t.interval(0.95, df, loc=np.mean(a) - np.mean(b), scale=se)
            case['df'] = num(df)
            case['ci95'] = [num(lo), num(hi)]
    u = stats.mannwhitneyu(a, b).statistic
    case['u'] = float(u)
    case['p_a_gt_b'] = float(u) / (len(a) * len(b))
    return case


def welch_t():
    write('welch_t.json', {'cases': [welch_case(*c) for c in WELCH]})


# --- Mann-Whitney U -----------------------------------------------------------

MANN_WHITNEY = [
    ('no_ties', [0.71, 0.68, 0.74, 0.70, 0.73], [0.66, 0.65, 0.70, 0.69, 0.66]),
    ('ties', [0.8, 0.85, 0.8, 0.9, 0.85], [0.8, 0.8, 0.85, 0.75, 0.8]),
    ('all_equal', [1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]),
    ('a_always_better', [0.9, 0.95, 0.92], [0.1, 0.2]),
    ('a_always_worse', [0.1, 0.2], [0.9, 0.95, 0.92]),
    ('unequal_n', [0.5, 0.55, 0.52, 0.49, 0.58, 0.51, 0.53, 0.56], [0.47, 0.62, 0.41, 0.55]),
    ('n1_each', [0.3], [0.3]),
]


def mann_whitney():
    cases = []
    for name, a, b in MANN_WHITNEY:
        u = float(stats.mannwhitneyu(a, b).statistic)
        cases.append({'name': name, 'a': a, 'b': b, 'u': u, 'p_a_gt_b': u / (len(a) * len(b))})
    write('mann_whitney.json', {'cases': cases})


# --- Holm -----------------------------------------------------------------------

def holm(p):
    """Holm 1979 by its definition: with p_(1) <= ... <= p_(m),
    adjusted p_(k) = max over j <= k of min(1, (m - j + 1) p_(j)), in the order given."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):  # k = j - 1
        running = max(running, min(1.0, (m - k) * p[i]))
        out[i] = running
    return out


HOLM = [
    ('four', [0.01, 0.04, 0.03, 0.005]),
    ('ties', [0.02, 0.02, 0.5]),
    ('capped_at_one', [0.4, 0.6, 0.9]),
    ('step_down_keeps_order', [0.001, 0.013, 0.012, 0.04]),  # 4*0.001, 3*0.012, then 2*0.013 < 0.036: raised
    ('single', [0.03]),
    ('zero_and_one', [0.0, 1.0, 0.2]),
    ('six_pairs', [0.0021, 0.049, 0.31, 0.0003, 0.012, 0.74]),
]


def holm_goldens():
    write('holm.json', {'method': 'by the definition in this script (statsmodels is not installed)',
                        'cases': [{'name': n, 'p': p, 'p_holm': holm(p)} for n, p in HOLM]})


# --- pair comparisons ---------------------------------------------------------------

# Families as one `attnlab compare` call sees them: a table's rows over seeds.
FAMILIES = [
    # Like the bottleneck table: hidden sizes over the same 5 seeds (paired).
    ('bottleneck_like', 'paired', [
        ('2', [0.621, 0.598, 0.664, 0.587, 0.640]),
        ('4', [0.655, 0.603, 0.671, 0.622, 0.668]),
        ('8', [0.702, 0.688, 0.695, 0.671, 0.714]),
        ('64', [0.968, 0.975, 0.961, 0.979, 0.970]),
    ]),
    # Out-of-distribution accuracies that saturate: identical rows, and a
    # difference with no spread at all (every seed 1.0 against every seed 0.5).
    ('saturated', 'paired', [
        ('t5', [1.0, 1.0, 1.0, 1.0, 1.0]),
        ('rope', [1.0, 1.0, 1.0, 1.0, 1.0]),
        ('learned', [1.0, 0.98, 1.0, 1.0, 0.99]),
        ('none', [0.5, 0.5, 0.5, 0.5, 0.5]),
    ]),
    # Three seeds a row: every claim comes with the n < 5 note.
    ('three_seeds', 'paired', [
        ('lr=0.001', [0.81, 0.84, 0.79]),
        ('lr=0.003', [0.72, 0.70, 0.75]),
    ]),
    # Rows that did not share seeds (some runs failed): Welch; one row has a single run.
    ('unpaired', 'unpaired', [
        ('lstm', [0.71, 0.69, 0.74, 0.70, 0.73, 0.68]),
        ('attention', [0.78, 0.81, 0.77, 0.80, 0.79]),
        ('gru', [0.72, 0.75, 0.70]),
        ('rnn', [0.55]),
    ]),
]


def compare_pair(table, pairing, la, a, lb, b):
    c = {'table': table, 'a': la, 'b': lb, 'a_values': a, 'b_values': b, 'pairing': pairing,
         'n_a': len(a), 'n_b': len(b), 'mean_a': float(np.mean(a)), 'mean_b': float(np.mean(b))}
    if pairing == 'paired':
        r = paired_case('', a, b)
        c.update(test='paired t', diff=float(np.mean(np.subtract(a, b))), ci95=r['ci95'], t=r['t'], df=r['df'],
                 p=r['p'], p_a_gt_b=r['p_a_gt_b'])
        identical = a == b
    else:
        r = welch_case('', a, b)
        c.update(test='Welch t', diff=r['diff'], ci95=r['ci95'], t=r['t'], df=r['df'], p=r['p'],
                 p_a_gt_b=r['p_a_gt_b'])
        identical = len(set(a + b)) == 1
    if identical:  # attnlab's definition (SciPy: NaN)
        c.update(diff=0.0, p=1.0)
        if c['t'] is None and len(a) > 1 and len(b) > 1:
            c.update(t=0.0, ci95=[0.0, 0.0])
    c['identical'] = identical
    c['too_few_seeds'] = len(a) < SEEDS_TO_CLAIM or len(b) < SEEDS_TO_CLAIM
    return c


def compare():
    families = []
    for table, pairing, rows in FAMILIES:
        pairs = [compare_pair(table, pairing, rows[i][0], rows[i][1], rows[j][0], rows[j][1])
                 for i in range(len(rows)) for j in range(i + 1, len(rows))]
        tested = [k for k, c in enumerate(pairs) if c['p'] is not None]
        adjusted = holm([pairs[k]['p'] for k in tested])
        for c in pairs:
            c['p_holm'] = None
        for k, ph in zip(tested, adjusted):
            pairs[k]['p_holm'] = ph
        for c in pairs:
            if c.pop('identical'):
                c['verdict'] = 'identical'
            elif c['p_holm'] is not None and c['p_holm'] < ALPHA and c['diff'] != 0:
                c['verdict'] = 'A > B' if c['diff'] > 0 else 'A < B'
            else:
                c['verdict'] = 'no evidence'
        families.append({'table': table, 'pairing': pairing, 'pairs': pairs})
    write('compare.json', {'alpha': ALPHA, 'seeds_to_claim': SEEDS_TO_CLAIM,
                           'holm': 'by the definition in this script (statsmodels is not installed)',
                           'families': families})


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    t_distribution()
    summary()
    paired_t()
    welch_t()
    mann_whitney()
    holm_goldens()
    compare()
