#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/ressd-trace on synthetic traces with known answers: a random pattern,
# a sequential one, ordered-sequential runs with gaps (and runs just too short
# to count), and a mix of log appends and mover sweeps with a reserved area,
# the mix also in both blkparse forms with other events mixed in.  "stats
# --json" must report exactly the constructed counts; "plot" must write a
# PNG.  Runs on the host, needs python3 and python3-matplotlib, no root.
# Prints what it checks; exits non-zero on the first failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/ressd-trace

fail() {
	echo "FAIL: $*"
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ressd-trace-test.XXXXXX") || fail "mktemp"
# shellcheck disable=SC2064  # expand $tmp now
trap "rm -rf '$tmp'" EXIT

[ -x "$tool" ] || fail "$tool is not executable"
for sub in "" record stats plot; do
	# shellcheck disable=SC2086  # no argument when $sub is empty
	"$tool" $sub --help >"$tmp/help" 2>&1 || fail "ressd-trace $sub --help failed"
	grep -q '^usage: ressd-trace' "$tmp/help" || fail "ressd-trace $sub --help: no usage"
done
echo "ok: --help of ressd-trace and of record, stats and plot"

# Each case: <name>.txt (time sector bytes), <name>.expect.json (the
# answers, by construction) and <name>.args (stats options).  The mix is
# also written as blkparse output in both forms.
python3 - "$tmp" <<'EOF' || fail "generating the traces"
import json
import random
import sys

out = sys.argv[1]
K = 1024
rng = random.Random(4242)
MIN_RUN = 8


def bucket(b):
    if b <= 4 * K:
        return "4k"
    if b < 12 * K:
        return "8k"
    if b <= 64 * K:
        return "12k_64k"
    if b <= 512 * K:
        return "64k_512k"
    return "gt_512k"


class Case:
    """Writes placed run by run: every run starts with a head (a write that
    does not start at or beyond the end of the previous write of its area)
    and goes on with members (each starting at or beyond that end: exactly
    there, contiguous, or further, a gap).  The placement asserts this; the
    expected class follows from the run: head random, contiguous sequential,
    gap ordered-sequential in a run of MIN_RUN or more writes, else random."""

    def __init__(self, name, reserved=None):
        self.name, self.reserved = name, reserved
        self.writes = []            # [sector, bytes, area, class]
        self.prev_end = {}          # area -> end of its last write
        self.runs = {}              # area -> the writes of its current run

    def area_of(self, sector):
        return "log" if self.reserved is not None and sector >= self.reserved else \
            ("home" if self.reserved is not None else "all")

    def _close(self, area):
        run = self.runs.get(area, [])
        for w in run[1:]:
            if w[3] == "gap":
                w[3] = "ordered_sequential" if len(run) >= MIN_RUN else "random"

    def head(self, sector, nbytes):
        a = self.area_of(sector)
        pe = self.prev_end.get(a)
        assert pe is None or sector < pe, (self.name, "head", sector, pe)
        self._close(a)
        w = [sector, nbytes, a, "random"]
        self.runs[a] = [w]
        self._put(w)

    def member(self, sector, nbytes):
        a = self.area_of(sector)
        pe = self.prev_end[a]
        assert sector >= pe, (self.name, "member", sector, pe)
        w = [sector, nbytes, a, "sequential" if sector == pe else "gap"]
        self.runs[a].append(w)
        self._put(w)

    def end(self, area):
        return self.prev_end[area]

    def _put(self, w):
        self.writes.append(w)
        self.prev_end[w[2]] = w[0] + w[1] // 512

    def finish(self):
        for a in list(self.runs):
            self._close(a)
        areas = ["all"] + (["home", "log"] if self.reserved is not None else [])
        exp = {}
        for a in areas:
            sel = [w for w in self.writes if a == "all" or w[2] == a]
            e = {"writes": len(sel), "bytes": sum(w[1] for w in sel), "classes": {},
                 "sizes": {}, "large_writes": sum(1 for w in sel if w[1] >= 12 * K)}
            for c in ("sequential", "ordered_sequential", "random"):
                cw = [w for w in sel if w[3] == c]
                e["classes"][c] = {"writes": len(cw), "bytes": sum(w[1] for w in cw)}
            for b in ("4k", "8k", "12k_64k", "64k_512k", "gt_512k"):
                e["sizes"][b] = sum(1 for w in sel if bucket(w[1]) == b)
            exp[a] = e
        t = 0.0
        with open("%s/%s.txt" % (out, self.name), "w") as f:
            for w in self.writes:
                t += rng.choice((0.0001, 0.0004, 0.002))
                w.append(t)
                f.write("%.9f %d %d\n" % (t, w[0], w[1]))
        with open("%s/%s.expect.json" % (out, self.name), "w") as f:
            json.dump(exp, f, indent=1)
        with open("%s/%s.args" % (out, self.name), "w") as f:
            f.write("--reserved-start %d\n" % self.reserved if self.reserved is not None else "\n")
        return exp


SIZES = [4 * K] * 6 + [8 * K, 10 * K, 12 * K, 16 * K, 64 * K, 68 * K, 128 * K, 512 * K, 600 * K, 1024 * K]

# 1. random: 400 writes anywhere in 1 GiB, never contiguous, and no
#    ascending run reaches MIN_RUN writes (a run that would gets a backward
#    jump instead): every write is random.
c = Case("random")
run = 0
for i in range(400):
    size = SIZES[i % len(SIZES)]
    while True:
        s = rng.randrange(0, 1 << 21) & ~7
        if i == 0:
            break
        pe = c.end("all")
        if s == pe or (s > pe and run + 1 >= MIN_RUN):
            continue
        break
    if i and s >= c.end("all"):
        c.member(s, size)
        run += 1
    else:
        c.head(s, size)
        run = 1
e = c.finish()["all"]
assert e["classes"]["random"]["writes"] == 400

# 2. sequential: 300 writes of mixed sizes, each where the one before ended.
c = Case("sequential")
s = 2048
for i in range(300):
    size = SIZES[(i * 7) % len(SIZES)]
    (c.head if i == 0 else c.member)(s, size)
    s += size // 512
c.finish()

# 3. ordered-sequential: sweeps up from the same base with gaps (and some
#    neighbours); runs of 50, 8 (just long enough), 7 and 5 (too short).
c = Case("ordered")
base = 10000
for length in (50, 50, 8, 7, 50, 5, 8):
    c.head(base, 4 * K)
    for i in range(1, length):
        gap = rng.choice((0, 8, 8, 24, 120, 4096)) if length > 8 else 8 * (i % 3)
        c.member(c.end("all") + gap, rng.choice((4 * K, 4 * K, 8 * K)))
c.finish()

# 4. a mix like dm-ressd's: a log of 2 MiB at sector 2000000 (superblock
#    checkpoints at its start, appends of 8 and 4 KiB that wrap), and in the
#    home area mover sweeps with gaps and direct writes, interleaved in time.
R, L = 2000000, 4096
c = Case("mix", reserved=R)
events = ["log"] * 900 + ["sweep"] * 12 + ["direct"] * 40
rng.shuffle(events)
log_cursor, since_ckpt, first_log = R + 8, 0, True
B, first_home = 100000, True
for ev in events:
    if ev == "log":
        size = rng.choice((8 * K, 8 * K, 8 * K, 4 * K))
        if first_log or log_cursor + size // 512 > R + L or since_ckpt >= rng.choice((3, 40, 80)):
            # a checkpoint (superblock) write; a wrap starts over behind it
            c.head(R, 4 * K)
            first_log, since_ckpt = False, 0
            if log_cursor + size // 512 > R + L:
                log_cursor = R + 8
        c.member(log_cursor, size)
        log_cursor += size // 512
        since_ckpt += 1
    elif ev == "sweep":
        c.head(B, 4 * K)
        first_home = False
        for i in range(1, rng.choice((30, 12, 8, 7, 5))):
            gap = rng.choice((0, 8, 16, 64, 1000))
            c.member(c.end("home") + gap, rng.choice((4 * K, 4 * K, 8 * K, 16 * K)))
    else:
        s = B + 1024 + (rng.randrange(0, 1 << 18) & ~7)
        if not first_home and s >= c.end("home"):
            s = c.end("home") - 8       # overlaps the end of the previous write
        c.head(s, rng.choice((16 * K, 64 * K, 256 * K)))
        first_home = False
exp = c.finish()
assert exp["log"]["classes"]["ordered_sequential"]["writes"] > 0
assert exp["home"]["classes"]["ordered_sequential"]["writes"] > 0

# The mix again as blkparse would print it, with other events around.
def noise(f, t, s, n, form):
    evs = [("G", "W", s, n), ("I", "W", s, n), ("D", "W", s, n), ("C", "W", s, n)]
    if rng.random() < 0.1:
        evs.append(("Q", "R", s + 9999, 8))         # a read
    if rng.random() < 0.05:
        evs.append(("Q", "FWS", t, 0))              # an empty flush
    if rng.random() < 0.05:
        evs.append(("Q", "D", s + 7777, 64))        # a discard
    for a, rwbs, s2, n2 in evs:
        if form == "f":
            f.write("%s %s %.9f %d %d\n" % (a, rwbs, t, s2, n2))
        else:
            f.write("259,0    1   %6d %14.9f  4321  %s %3s %d + %d [kworker/u4:1]\n"
                    % (rng.randrange(1, 99999), t, a, rwbs, s2, n2))


for form, name in (("f", "mix-blkparse"), ("default", "mix-blkparse-default")):
    with open("%s/%s.txt" % (out, name), "w") as f:
        if form == "default":
            f.write("  8,0    0        0     0.000000000     0  m   N some message\n")
        for s, nbytes, _, _, t in c.writes:
            rwbs = rng.choice(("W", "WS", "WFS", "WM"))
            if form == "f":
                f.write("Q %s %.9f %d %d\n" % (rwbs, t, s, nbytes // 512))
            else:
                f.write("259,0    0   %6d %14.9f  4321  Q %3s %d + %d [kworker/u4:1]\n"
                        % (rng.randrange(1, 99999), t, rwbs, s, nbytes // 512))
            noise(f, t, s, nbytes // 512, form)
    with open("%s/%s.expect.json" % (out, name), "w") as f:
        json.dump(exp, f, indent=1)
    with open("%s/%s.args" % (out, name), "w") as f:
        f.write("--reserved-start %d\n" % R)

# The mix without --reserved-start: the two areas are one stream, so the
# answer is not constructed; only the totals are checked.
EOF

# compare <case>: stats --json against the constructed answers.
compare() {
	local name=$1 args
	read -r -a args <"$tmp/$name.args"
	"$tool" stats "$tmp/$name.txt" "${args[@]}" --json >"$tmp/$name.json" 2>"$tmp/$name.err" ||
		fail "stats $name: $(cat "$tmp/$name.err")"
	python3 - "$tmp/$name.json" "$tmp/$name.expect.json" "$name" <<'EOF'
import json
import sys

got = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
name = sys.argv[3]
bad = []


def check(what, g, e):
    if g != e:
        bad.append("%s: got %s, want %s" % (what, g, e))


for area, e in exp.items():
    g = got["areas"].get(area)
    if g is None:
        bad.append("no area %s" % area)
        continue
    check(area + " writes", g["writes"], e["writes"])
    check(area + " bytes", g["bytes"], e["bytes"])
    for c, ce in e["classes"].items():
        check("%s %s writes" % (area, c), g["classes"][c]["writes"], ce["writes"])
        check("%s %s bytes" % (area, c), g["classes"][c]["bytes"], ce["bytes"])
    check(area + " sizes", {s["bucket"]: s["writes"] for s in g["sizes"]}, e["sizes"])
    check(area + " writes >= 12 KiB", g["large_writes"], e["large_writes"])
    want = e["large_writes"] / e["writes"] if e["writes"] else 0.0
    if abs(g["large_writes_share"] - want) > 1e-9:
        bad.append("%s share >= 12 KiB: got %s, want %s" % (area, g["large_writes_share"], want))
if bad:
    print("FAIL: stats %s:\n    %s" % (name, "\n    ".join(bad)))
    sys.exit(1)
summary = []
for area, e in exp.items():
    c = e["classes"]
    summary.append("%s %d seq, %d ordered, %d random" % (
        area, c["sequential"]["writes"], c["ordered_sequential"]["writes"], c["random"]["writes"]))
print("ok: stats %s: %s; sizes and share >= 12 KiB as constructed" % (name, "; ".join(summary)))
EOF
}

for name in random sequential ordered mix mix-blkparse mix-blkparse-default; do
	compare "$name" || exit 1
done

# Without --reserved-start the mix is one stream: same totals, one area.
"$tool" stats "$tmp/mix.txt" --json >"$tmp/mix-one.json" || fail "stats mix without areas"
python3 - "$tmp/mix-one.json" "$tmp/mix.expect.json" <<'EOF' || fail "stats mix without --reserved-start"
import json
import sys
g, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert list(g["areas"]) == ["all"], g["areas"].keys()
a = g["areas"]["all"]
assert (a["writes"], a["bytes"]) == (e["all"]["writes"], e["all"]["bytes"])
assert sum(c["writes"] for c in a["classes"].values()) == a["writes"]
# interleaving the log with the home writes breaks most runs
assert a["classes"]["random"]["writes"] > e["all"]["classes"]["random"]["writes"]
print("ok: stats mix without --reserved-start: one area, %d writes, more of them random"
      % a["writes"])
EOF

# --min-run: with runs of 5 counted, the ordered trace has more ordered writes.
"$tool" stats "$tmp/ordered.txt" --min-run 5 --json >"$tmp/ordered5.json" || fail "stats --min-run"
python3 - "$tmp/ordered5.json" "$tmp/ordered.expect.json" <<'EOF' || fail "stats --min-run 5"
import json
import sys
g, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
go = g["areas"]["all"]["classes"]["ordered_sequential"]["writes"]
eo = e["all"]["classes"]["ordered_sequential"]["writes"]
assert go > eo, (go, eo)
print("ok: stats --min-run 5 counts the runs of 5 and 7 as ordered (%d > %d)" % (go, eo))
EOF

# The text report carries the same numbers.
"$tool" stats "$tmp/mix.txt" --reserved-start 2000000 >"$tmp/mix.report" || fail "stats text"
for want in "all writes:" "home area" "log (reserved area)" "ordered-sequential" \
	"writes of 12 KiB or larger"; do
	grep -q "$want" "$tmp/mix.report" || fail "stats text report lacks '$want'"
done
echo "ok: stats text report has the areas, the patterns and the share >= 12 KiB"

# plot: one PNG with a panel per trace.
png_ok() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$1")" -gt 10000 ]
}
"$tool" plot "$tmp/random.txt" "$tmp/mix.txt" --reserved-start 2000000 \
	--label "raw device" --label "dm-ressd" --title "synthetic" -o "$tmp/two.png" >/dev/null ||
	fail "plot of two traces"
png_ok "$tmp/two.png" || fail "plot wrote no PNG"
echo "ok: plot of two traces with a reserved area: $(stat -c %s "$tmp/two.png") bytes of PNG"
"$tool" plot "$tmp/sequential.txt" --unit GiB -o "$tmp/one.png" >/dev/null || fail "plot of one trace"
png_ok "$tmp/one.png" || fail "plot of one trace wrote no PNG"
echo "ok: plot of one trace: $(stat -c %s "$tmp/one.png") bytes of PNG"

# record refuses what it cannot do, before touching anything.
if "$tool" record "$tmp/random.txt" 1 -o "$tmp/rec" >/dev/null 2>&1; then
	fail "record accepted a regular file as the device"
fi
if "$tool" record /dev/null -o "$tmp/rec" >/dev/null 2>&1; then
	fail "record accepted neither a duration nor --until-signal"
fi
echo "ok: record refuses a non-device and a missing duration"
echo "ok: ressd-trace passed"
