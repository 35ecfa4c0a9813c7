#!/usr/bin/env python3
"""Which writes cost the device a merge: a bench trace replayed on the FTL model.

The bench traces the writes that reach the emulated SSD during a traced
randw4k run (tests/bench/bench-guest.sh, TRACE: "time sector bytes" a line,
in <out>/guest/trace-<preset>-<stack>.txt; the runs of other workloads too
with BENCH_TRACE_WORKLOADS, e.g. "randw4k postmark", in
trace-<preset>-<stack>-<workload>.txt).  This replays them on the
log-block model (class HLB of the Python sketch that dm-ftlsim implements,
as tools/model/density-rule.py does) and prints every merge that is not a
switch merge, with the write that caused it and whether the unit lies in
the normal area or the reserved one.  The model starts with no open log
blocks: the device's state only when the first trace is the stack's prep
trace (below); a run's trace alone starts from an unknown state.

  HLB_MODEL=<hlb_model.py> python3 ftl-replay.py PRESET TRACE[,TRACE...] [LOG_SECTOR]

Several traces, comma-separated, are replayed in order: the bench also
traces each traced stack from its creation to the run of its first
workload, when that one is traced (trace-<preset>-<stack>-prep.txt: the
stack's setup, mkfs, the fio file's layout), and each stack starts on a
fresh model (no open log blocks), so "PREP,RUN" of that first workload
replays everything the device saw.  A later workload's trace starts from a
state the replay does not know (the earlier workloads and its own
preparation are not traced).  LOG_SECTOR: the first
sector of the reserved area (the table's log offset), to name the region
of each write; without it every unit is "?".
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftlmodel import HLB, PRESETS  # noqa: E402

if len(sys.argv) < 3 or sys.argv[1] not in PRESETS:
    sys.exit(__doc__)
m = HLB(*PRESETS[sys.argv[1]])
log_sector = int(sys.argv[3]) if len(sys.argv) > 3 else None
cur = {}
merge = m._merge


def region(sector):
    if log_sector is None:
        return '?'
    return 'reserved' if sector >= log_sector else 'normal'


def traced_merge(lbn, lg):
    used, seq = lg[0], lg[1]
    if not (seq and used == m.P):
        kind = 'partial' if seq else 'full'
        print(f"{kind} merge of unit {lbn} ({region(lbn * m.P * 8)}, {used} pages in its log "
              f"block) at t={cur['t']} s of {cur['file']}, by a write of {cur['bytes']} bytes "
              f"at sector {cur['sector']} ({region(cur['sector'])})")
    return merge(lbn, lg)


m._merge = traced_merge
for path in sys.argv[2].split(','):
    name = os.path.basename(path)
    for line in open(path):
        t, sector, nbytes = line.split()
        cur = {'t': t, 'file': name, 'sector': int(sector), 'bytes': int(nbytes)}
        m.write(int(sector) // 8, max(1, int(nbytes) // 4096))
print('merges:', ', '.join(f'{k} {v}' for k, v in m.stats.items()))
