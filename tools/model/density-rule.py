#!/usr/bin/env python3
"""Density-first cleaning's threshold rule on the log-block FTL model.

The mover simulation of mover_model.py (uniform 4 KiB random writes at QD1
over SPAN blocks, the log SPAN/LOGDIV blocks after it on the same device,
every device request charged, a drain at the end), with the kernel's round
(dm-ressd-mover.c, ressd_round_decide()): rounds while the log is at or
above 90 %, a segment of an eighth of the log from the tail, gap filling
priced per unit, copies at most min(segment/2, room/2), a dense unit home
with all its logged blocks.  Rules for the threshold d:

  k34      d from 3/4 of the mean logged blocks of the units the segment
           touches, lowered until the copies fit (dm-ressd up to 0.4.5)
  max      d from one above the densest unit, lowered until the copies fit:
           as few units home as the budget allows (0.4.6)
  fifogap  no density: everything home at half full, gap filling priced

  HLB_MODEL=<hlb_model.py> python3 density-rule.py SPAN WRITES LOGDIV PRESETS RULES
  e.g. ... density-rule.py 65536 8192 8 ssd-a,ssd-b k34,max
  HOT=1: 90 % of the writes to the first tenth of the span.
  HW, RDIV, FF, RF: the round's knobs, defaults the kernel's: rounds from
  HW (0.90) of the log, a region of 1/RDIV (8) of it, copies at most FF
  (0.5) of the region and RF (0.5) of the free slots.  The simulation's
  writes wait for a round; the kernel's do not (performance.md, "The
  round's region and copy budget").

HLB_MODEL names the Python sketch of the FTL model (class HLB) that
dm-ftlsim implements (tools/ftlsim/README.md); default: hlb_model.py beside
this file.  Prints the speed-up over raw (the same writes straight home),
the device time, units written whole / sparse, copies and rounds.
"""
import os, random, sys
from collections import defaultdict
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftlmodel import HLB, PRESETS
S = int(sys.argv[1]); NW = int(sys.argv[2]); L = S // int(sys.argv[3])
ONLY = sys.argv[4].split(','); RULES = sys.argv[5].split(',')
def knob(name, default):
    return type(default)(os.environ.get(name, default))
HW = knob('HW', 0.90); RDIV = knob('RDIV', 8); FF = knob('FF', 0.5); RF = knob('RF', 0.5)
HOT = os.environ.get('HOT')
def pick(rnd):
    return rnd.randrange(S // 10) if HOT and rnd.random() < 0.9 else rnd.randrange(S)

def precondition(m):
    for p in range(0, S + L + 1024, 256):
        m.write(p, 256)

def read_runs(m, addrs, gap=0):
    t, a = 0.0, sorted(addrs); i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[j + 1] - a[j] <= 1 + gap and a[j+1] - a[i] < 2048:
            j += 1
        t += m.read(a[i], a[j] - a[i] + 1); i = j + 1
    return t

def home_unit(m, unit, blocks):
    P = m.P
    whole = (m.br + m.ar * P) + (m.bw + m.aw * P + m.e)
    sparse = P * m.c + 2 * m.e + len(blocks) * (m.bw + m.aw)
    if whole < sparse:
        return m.read(unit * P, P) + m.write(unit * P, P), 'whole'
    t, bs, i = 0.0, sorted(blocks), 0
    while i < len(bs):
        j = i
        while j + 1 < len(bs) and bs[j + 1] == bs[j] + 1:
            j += 1
        t += m.write(bs[i], j - i + 1); i = j + 1
    return t, 'sparse'

def fwd_of(tally, d):
    return sum(nr for dirty, nr in tally.values() if dirty < d)

def decide(tally, max_fwd, rule):
    if rule == 'k34':
        s = sum(d for d, _ in tally.values()); n = len(tally)
        hi = max(2, (3 * s + 2 * n) // (4 * n)) if n else 2
    elif rule == 'max':
        hi = max(d for d, _ in tally.values()) + 1
    elif rule.startswith('m'):   # mXX: hi = XX/100 of the max
        hi = max(2, int(max(d for d, _ in tally.values()) * int(rule[1:]) / 100))
    if fwd_of(tally, hi) > max_fwd:
        lo = 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fwd_of(tally, mid) <= max_fwd: lo = mid
            else: hi = mid
        hi = lo
    return hi

def run(p, rule, seed=1):
    m = HLB(*p); precondition(m)
    rnd = random.Random(seed); P = m.P
    log = [None] * L; where = {}; per_unit = defaultdict(set)
    st = {'t': 0.0, 'head': 0, 'tail': 0, 'used': 0, 'whole': 0, 'sparse': 0, 'copies': 0, 'rounds': 0}
    def append(b):
        old = where.get(b)
        if old is not None: log[old] = None
        h = st['head']; log[h] = b; where[b] = h; per_unit[b // P].add(b)
        st['t'] += m.write(S + h, 1); st['head'] = (h + 1) % L; st['used'] += 1
    def forget(blocks):
        for b in blocks:
            log[where.pop(b)] = None; per_unit[b // P].discard(b)
    def advance_tail():
        while st['used'] and log[st['tail']] is None:
            st['tail'] = (st['tail'] + 1) % L; st['used'] -= 1
    def move_home(blocks):
        st['t'] += read_runs(m, [S + where[b] for b in blocks], gap=4)
        by_unit = defaultdict(list)
        for b in blocks: by_unit[b // P].append(b)
        for u in sorted(by_unit):
            t, kind = home_unit(m, u, by_unit[u]); st['t'] += t; st[kind] += 1
        forget(blocks)
    R = L // RDIV
    for _ in range(NW):
        append(pick(rnd))
        if rule == 'fifogap':
            if st['used'] >= L // 2:
                move_home(list(where)); advance_tail()
            continue
        while st['used'] >= HW * L:
            st['rounds'] += 1
            seg, s = [], st['tail']
            n = min(R, st['used'])
            for _ in range(n):
                if log[s] is not None: seg.append(log[s])
                s = (s + 1) % L
            units = defaultdict(list)
            for b in seg: units[b // P].append(b)
            tally = {u: (len(per_unit[u]), len(v)) for u, v in units.items()}
            max_fwd = int(min(R * FF, max(0, L - st['used']) * RF))
            d = decide(tally, max_fwd, rule)
            home, forward = [], []
            for u, in_seg in units.items():
                if tally[u][0] >= d: home.extend(per_unit[u])
                else: forward.extend(in_seg)
            if home: move_home(home)
            if forward:
                st['t'] += read_runs(m, [S + where[b] for b in forward], gap=4)
                forget(forward); st['copies'] += len(forward)
                for b in forward: append(b)
            for _ in range(n):
                if st['used'] == 0 or log[st['tail']] is not None: break
                st['tail'] = (st['tail'] + 1) % L; st['used'] -= 1
            advance_tail()
    move_home(list(where))
    return st

for name in ONLY:
    p = PRESETS[name]; m = HLB(*p); precondition(m)
    rnd = random.Random(1)
    raw = sum(m.write(pick(rnd), 1) for _ in range(NW))
    out = []
    for rule in RULES:
        st = run(p, rule)
        out.append(f"{rule}={raw/st['t']:.1f}x(t={st['t']/1e6:.1f}s w{st['whole']} s{st['sparse']} c{st['copies']} r{st['rounds']})")
    print(name, f'S={S} NW={NW} L={L} raw={raw/1e6:.0f}s', ' '.join(out), flush=True)
