#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "ressdsetup probe" on the host, without a VM:
#
#  - --self-test: the least-squares fit recovers known alpha and beta
#    exactly, the runner on an exactly affine device, Eq. 5 by hand, and the
#    probe on the dm-ftlsim presets emulated in user space, with the verdict
#    Eq. 5 gives for each (ssd-a, ssd-b, sd-worst: yes; sd-card: locality;
#    ssd-c: no, in every state);
#  - the refusals, each with its message and exit code, and that a refused
#    probe writes nothing: no --destructive and no --range, both, a bad,
#    misaligned, too small or out-of-bounds range, a bad --seconds, a file
#    too small for --destructive, a missing device;
#  - a real probe (O_DIRECT pwrite/pread) of a sparse file in --range mode:
#    JSON that python3 -m json.tool accepts, with every test measured and
#    a verdict; only the range written; the human table; progress on
#    stderr unless --quiet; --destructive announced before it starts;
#  - --model: the same output from dm-ftlsim's cost model, which is
#    tools/ftlsim/ftlsim-model.c itself, built into ressdsetup, with the
#    presets of its table;
#  - --help and the man page.
#
# Prints "ok:" lines; exits non-zero at the first failure.  Root only to
# install missing packages.
set -uo pipefail
# shellcheck source=scripts/common.sh source-path=SCRIPTDIR/../.. disable=SC1091  # followed with -x
. "$(dirname "$0")/../../scripts/common.sh"
top=$RESSD_TOP
dir=$top/tools/ressdsetup
tool=$dir/ressdsetup

fail() {
	echo "FAIL: $*"
	exit 1
}
ok() { echo "ok: $*"; }

ressd_apt_install gcc make python3 man-db groff-base e2fsprogs fdisk util-linux ||
	fail "could not install the packages this test needs"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ressdsetup-probe-test.XXXXXX") || fail "mktemp"
# shellcheck disable=SC2064  # expand $tmp now
trap "rm -rf '$tmp'" EXIT

# ---- build, help, man page ----
make -C "$dir" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "make -C tools/ressdsetup"; }
[ -x "$tool" ] || fail "the build made no ressdsetup"
grep -q 'devprobe\.c' "$tmp/build.log" || [ "$dir/devprobe.o" -nt "$dir/devprobe.c" ] ||
	fail "devprobe.c was not compiled"
ok "built with -Wall -Wextra -Werror"
"$tool" probe --help >"$tmp/help" 2>&1 || fail "ressdsetup probe --help failed"
grep -q '^usage: ressdsetup probe' "$tmp/help" || fail "probe --help: no usage line"
"$tool" --help >"$tmp/help" 2>&1 || fail "ressdsetup --help failed"
grep -q 'probe <device> --destructive | --range' "$tmp/help" ||
	fail "ressdsetup --help does not list probe"
man --warnings -l "$dir/ressdsetup.8" 2>"$tmp/man.err" >"$tmp/man.txt" || fail "man -l ressdsetup.8"
[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; fail "man page warnings"; }
for w in "probe device" "probe --model" "probe --self-test" "--destructive" "--range" \
	"1/SW + 1/RR4K + 1/OW4K < 1/RW4K"; do
	grep -qF -- "$w" "$tmp/man.txt" || fail "the man page does not describe '$w'"
done
ok "probe --help, ressdsetup --help and the man page (no warnings) describe probe"

# ---- self-test ----
"$tool" probe --self-test >"$tmp/self" 2>&1 || { cat "$tmp/self"; fail "probe --self-test failed"; }
grep -q '^self-test: [0-9]* checks, 0 failed$' "$tmp/self" || { cat "$tmp/self"; fail "self-test summary"; }
! grep -q '^FAIL' "$tmp/self" || fail "self-test printed a FAIL line"
grep -q '^ok: least squares recovers alpha' "$tmp/self" || fail "self-test: no exact-recovery check"
grep -q '^ok: runner + fit: random alpha 40 us, beta 5000 us' "$tmp/self" ||
	fail "self-test: the runner on the affine device"
expect_verdict() {	# <preset> <verdict>: every run of the preset
	local n
	n=$(grep -c "^ok: $1: verdict $2 " "$tmp/self")
	[ "$n" -ge 1 ] || fail "self-test: $1 is not '$2'"
	! grep "^ok: $1: verdict " "$tmp/self" | grep -qv "verdict $2 " || fail "self-test: $1 not always '$2'"
}
expect_verdict ssd-a yes
expect_verdict ssd-b yes
expect_verdict sd-worst yes
expect_verdict sd-card locality
expect_verdict ssd-c no
[ "$(grep -c '^ok: ssd-c: verdict no' "$tmp/self")" = 3 ] || fail "self-test: ssd-c in three states"
ok "self-test: $(sed -n 's/^self-test: //p' "$tmp/self"); ssd-a, ssd-b, sd-worst yes, sd-card locality, ssd-c no"
# Test 5 against each preset's own parameters (ftlsim-model.c's table).
for pu in ssd-a:512:8 ssd-b:2048:4 sd-card:64:4 sd-worst:4096:2; do
	IFS=: read -r p unit open <<<"$pu"
	grep -q "^ok: $p: unit $unit KiB at offset 0, exactly the preset's $unit KiB$" "$tmp/self" ||
		fail "self-test: $p's erase unit is not $unit KiB"
	grep -q "^ok: $p: $open open units, exactly the preset's $open$" "$tmp/self" ||
		fail "self-test: $p's open units are not $open"
	[ "$(grep -c "^ok: $p: [a-z_]* [0-9.e+]* us, within 20 % of the preset's " "$tmp/self")" = 6 ] ||
		fail "self-test: $p: not all six costs within 20 %"
	grep -q "^ok: $p: dev_model [0-9:]* is one the target accepts" "$tmp/self" ||
		fail "self-test: $p: no dev_model the target accepts"
done
[ "$(grep -c '^ok: ssd-c (.*): no unit effect from 8 KiB to 64 MiB$' "$tmp/self")" = 3 ] ||
	fail "self-test: ssd-c shows a unit effect"
ok "self-test, test 5: the unit and open units of ssd-a, ssd-b, sd-card, sd-worst exactly, their costs within 20 %; ssd-c no unit effect"
sed -n '/^ssd-a:/,$p' "$tmp/self" | grep -v '^ok:' | grep -v '^$' | grep -v '^self-test' | sed 's/^/    /'

# ---- refusals: nothing written ----
img=$tmp/scratch.img
truncate -s 64M "$img" || fail "truncate"
# a pattern in front of and behind the range the probe may use later
head -c 16M /dev/urandom >"$tmp/pat" || fail "urandom"
dd if="$tmp/pat" of="$img" bs=1M conv=notrunc status=none || fail "dd"
dd if="$tmp/pat" of="$img" bs=1M seek=48 conv=notrunc status=none || fail "dd"
sum_all() { sha256sum <"$img" | cut -d' ' -f1; }
before=$(sum_all)

# expect_fail <exit code> <message part> <probe arguments...>
expect_fail() {
	local want=$1 msg=$2 rc
	shift 2
	"$tool" probe "$@" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { cat "$tmp/out"; fail "probe $*: exit $rc, expected $want"; }
	grep -qF -- "$msg" "$tmp/out" || { cat "$tmp/out"; fail "probe $*: no '$msg'"; }
	[ "$(sum_all)" = "$before" ] || fail "probe $* changed the file"
}
expect_fail 1 "refusing to write to $img" "$img"
expect_fail 1 "Nothing was written" "$img" --json --quiet
expect_fail 1 "either --destructive" "$img" --destructive --range 16M:32M
expect_fail 1 "invalid --range '16M'" "$img" --range 16M
expect_fail 1 "must be multiples of 4 KiB" "$img" --range 16M:1000000
expect_fail 1 "is too small, the tests need at least 8.0 MiB" "$img" --range 16M:4M
expect_fail 1 "beyond the end of $img" "$img" --range 60M:16M
expect_fail 1 "invalid --seconds 'x'" "$img" --range 16M:32M --seconds x
expect_fail 1 "unknown option --frobnicate" "$img" --range 16M:32M --frobnicate
expect_fail 1 "unknown --model 'ssd-z'" --model ssd-z
expect_fail 4 "cannot open $tmp/missing" "$tmp/missing" --range 0:16M
truncate -s 4M "$tmp/small.img"
expect_fail 4 "is too small (4.0 MiB)" "$tmp/small.img" --destructive
expect_fail 1 "invalid --medium-offset '1000'" "$img" --range 16M:32M --medium-offset 1000
expect_fail 1 "the emulated medium is 1.0 GiB" --model ssd-b --medium-offset 1020M
expect_fail 1 "--self-test takes no device" --self-test --medium-offset 1M
ok "refusals with their messages and exit codes; a refused probe writes nothing"

# ---- a real probe of the range 16M:32M ----
"$tool" probe "$img" --range 16M:32M --seconds 0.1 --json --quiet >"$tmp/probe.json" 2>"$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "probe --range --json failed"; }
python3 -m json.tool "$tmp/probe.json" >/dev/null || { cat "$tmp/probe.json"; fail "the JSON does not parse"; }
python3 - "$tmp/probe.json" <<'EOF' || fail "the JSON's contents"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["range"] == {"offset": 16 << 20, "length": 32 << 20}, d["range"]
assert d["kind"] == "regular file" and d["destructive"] is False
m = d["measurements"]
sizes = {"sequential_write": [1 << 20, 256 << 10, 64 << 10, 16 << 10, 4 << 10],
         "random_write": [4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10],
         "random_read": [4 << 10],
         "ordered_sequential_write": [4 << 10, 128 << 10, 256 << 10, 384 << 10, 512 << 10]}
for test, want in sizes.items():
    assert [s["size_bytes"] for s in m[test]] == want, test
    for s in m[test]:
        assert s["requests"] > 0 and s["mbps"] > 0, (test, s)
assert m["ordered_gap_bytes"] == 128 << 10
for k in ("sequential_write", "random_write"):
    f = d["model"][k]
    assert f["ok"] is True and f["sizes"] == 5, (k, f)
e = d["eq5"]
assert e["holds"] in (True, False)
lhs = 1 / e["sw_mbps"] + 1 / e["rr4k_mbps"] + 1 / e["ow4k_mbps"]
assert abs(lhs - e["lhs_s_per_mb"]) <= 2e-3 * lhs, (lhs, e)
assert e["holds"] == (e["lhs_s_per_mb"] < e["rhs_s_per_mb"])
r = d["recommendation"]
assert r["use_dm_ressd"] in ("yes", "locality", "no"), r
assert r["small_write_max"] % 8 == 0 and r["mover_batch"] % 8 == 0
assert 16 <= r["mover_batch"] <= 8192 and r["small_write_max"] < r["mover_batch"]
assert (r["reserved_bytes"] > 0) == (r["use_dm_ressd"] != "no")
u = d["device_model"]
assert len(u["boundary_scan"]) >= 1 and u["boundary_scan"][0]["boundary_bytes"] == 8192, u
assert len(u["dev_model"].split(":")) == 11, u
assert int(u["dev_model"].split(":")[0]) * 512 == u["unit_bytes"], u
print("    %s: SW %s, RW4K %s, RR4K %s, OW4K %s MB/s; Eq. 5 %s; use dm-ressd: %s" % (
    "file", e["sw_mbps"], e["rw4k_mbps"], e["rr4k_mbps"], e["ow4k_mbps"],
    "holds" if e["holds"] else "fails", r["use_dm_ressd"]))
EOF
ok "probe --range --json on a sparse file: every test measured, the fits, Eq. 5 and a verdict"
grep -q "writing to bytes 16777216 to 50331648 of $img" "$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "probe did not say what it overwrites"; }
! grep -q '^probe: \[' "$tmp/probe.err" || fail "--quiet still shows progress"
head -c 16M "$img" | cmp -s - "$tmp/pat" || fail "probe wrote before its range"
tail -c 16M "$img" | cmp -s - "$tmp/pat" || fail "probe wrote after its range"
[ "$(dd if="$img" bs=1M skip=16 count=32 status=none | sha256sum)" != \
	"$(head -c 32M /dev/zero | sha256sum)" ] || fail "probe wrote nothing in its range"
ok "it said what it overwrites, wrote inside the range and nothing outside"

"$tool" probe "$img" --range 16M:32M --seconds 0.05 >"$tmp/probe.txt" 2>"$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "probe --range (table) failed"; }
for w in "ordered-sequential write   512 KiB" "Affine model t = alpha * n + beta" \
	"ReSSD condition (Eq. 5): 1/SW + 1/RR4K + 1/OW4K < 1/RW4K" "Recommendation: "; do
	grep -qF -- "$w" "$tmp/probe.txt" || { cat "$tmp/probe.txt"; fail "the table has no '$w'"; }
done
grep -q '^probe: \[4/5\] ordered-sequential write, 512 KiB requests' "$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "no progress on stderr"; }
ok "the human table, and progress on stderr"

"$tool" probe "$img" --destructive --seconds 0.02 --quiet >"$tmp/probe.txt" 2>"$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "probe --destructive failed"; }
grep -q -- "--destructive: writing all over $img (64.0 MiB" "$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "--destructive was not announced"; }
mkfs.ext4 -q -F "$img" >/dev/null 2>&1 || fail "mkfs.ext4"
"$tool" probe "$img" --destructive --seconds 0.02 --quiet >/dev/null 2>"$tmp/probe.err" ||
	fail "probe --destructive over ext4 failed"
grep -q "it holds an ext4 file system" "$tmp/probe.err" ||
	{ cat "$tmp/probe.err"; fail "--destructive did not name the file system it destroys"; }
ok "--destructive announced (with the file system it destroys) before it starts"

# ---- --model ----
"$tool" probe --model ssd-b --json --quiet >"$tmp/model.json" || fail "probe --model ssd-b"
python3 -m json.tool "$tmp/model.json" >/dev/null || fail "--model JSON does not parse"
python3 - "$tmp/model.json" <<'EOF' || fail "--model ssd-b figures"
import json, sys
d = json.load(open(sys.argv[1]))
e, r = d["eq5"], d["recommendation"]
assert abs(e["sw_mbps"] - 79) < 7.9 and abs(e["rw4k_mbps"] - 0.018) < 0.0018, e
assert e["holds"] is True and r["use_dm_ressd"] == "yes", (e, r)
u = d["device_model"]
assert u["unit_bytes"] == 2 << 20 and u["open_units"] == 4, u
assert u["dev_model"].split(":")[:3] == ["4096", "0", "4"], u
EOF
"$tool" probe --model ssd-b --quiet >"$tmp/model.txt" || fail "probe --model ssd-b (table)"
grep -q '^  unit 2 MiB, aligned to the start of the device; open units: 4$' "$tmp/model.txt" ||
	{ cat "$tmp/model.txt"; fail "probe --model ssd-b: no unit line"; }
grep -q -- '--dev-model 4096:0:4:' "$tmp/model.txt" ||
	{ cat "$tmp/model.txt"; fail "probe --model ssd-b: the format line has no --dev-model"; }
grep -q -- '--mover-policy density --high-watermark 90$' "$tmp/model.txt" ||
	{ cat "$tmp/model.txt"; fail "probe --model ssd-b: the format line has no --mover-policy density"; }
"$tool" probe --model ssd-c --quiet >"$tmp/model.txt" || fail "probe --model ssd-c (table)"
grep -q -- '(or format with --dev-model 0:0:0:[0-9:]* --log-mode auto:$' "$tmp/model.txt" ||
	{ cat "$tmp/model.txt"; fail "probe --model ssd-c: no --log-mode auto hint"; }
ok "probe --model ssd-b: ftlsim.md's figures, Eq. 5 holds, use dm-ressd; unit 2 MiB, 4 open, --dev-model; ssd-c: --log-mode auto"

# The model is dm-ftlsim's own: ftlsim-model.c linked in, its preset table
# the one --model knows (and --help lists), the kernel's spelling of a
# preset accepted case-insensitively as ftlsim_preset_find() does.
nm "$tool" >"$tmp/nm" || fail "nm $tool"
grep -q ' T ftlsim_model_submit$' "$tmp/nm" || fail "ressdsetup does not contain ftlsim-model.c"
want=$(sed -n 's/^\t{ "\([a-z0-9-]*\)", ".*", {$/\1/p' "$top/tools/ftlsim/ftlsim-model.c" | xargs)
[ -n "$want" ] || fail "no presets found in tools/ftlsim/ftlsim-model.c"
"$tool" probe --help >"$tmp/help" 2>&1 || fail "probe --help"
grep -qxF -- "--model: no device, an emulated dm-ftlsim preset: $want." "$tmp/help" ||
	{ cat "$tmp/help"; fail "probe --help does not list ftlsim-model.c's presets ($want)"; }
"$tool" probe --model ssd-z >"$tmp/out" 2>&1 && fail "probe --model ssd-z succeeded"
grep -qF "(presets: ${want// /, })" "$tmp/out" || { cat "$tmp/out"; fail "--model ssd-z: presets not listed"; }
for p in $want; do
	"$tool" probe --model "${p^^}" --seconds 0.05 --json --quiet >"$tmp/model.json" ||
		fail "probe --model ${p^^}"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["device"] == sys.argv[2], d["device"]' \
		"$tmp/model.json" "$p" || fail "probe --model ${p^^}: not preset $p"
done
ok "probe --model runs tools/ftlsim/ftlsim-model.c and its presets: $want"

# ---- a device that does not start on a unit boundary (a partition) ----
# The erase units are aligned to the medium, not to a partition on it: the
# probe seeks them at multiples on the medium and says where one starts on
# the device (dev_model's unit_offset).  Before, a device 1 MiB into
# ssd-b's 2 MiB units showed no unit effect at all.
declare -A half=([ssd-a]=266240 [ssd-b]=1052672 [sd-card]=36864 [sd-worst]=2101248)
for p in ssd-a ssd-b sd-card sd-worst; do
	for at in 1048576 "${half[$p]}" 32256; do
		grep -q "^ok: $p from byte $at of the medium: unit " "$tmp/self" ||
			fail "self-test: $p from byte $at of the medium"
	done
	for at in 1048576 "${half[$p]}"; do
		grep -q "^ok: $p from byte $at: dev_model [0-9]*:[0-9]*:" "$tmp/self" ||
			fail "self-test: $p from byte $at: no dev_model with its unit_offset"
		grep -q "^ok: $p from byte $at: SW .* within 2 %, the costs within 20 % of the device from byte 0" "$tmp/self" ||
			fail "self-test: $p from byte $at: SW, OW4K or the costs differ from the device from byte 0"
	done
	grep -q "^ok: $p from byte 32256 of the medium: .*no dev_model (none), no costs measured" "$tmp/self" ||
		fail "self-test: $p from 63 sectors: a dev_model, or costs, with units off 4 KiB blocks"
done
for kib in 16384 16; do
	grep -q "^ok: runner: a $kib KiB effect that in-order writes cannot confirm is no unit" "$tmp/self" ||
		fail "self-test: a $kib KiB boundary effect without a merge to save taken for a unit"
done
"$tool" probe --model ssd-b --medium-offset 1M --quiet >"$tmp/shift.txt" || fail "probe --model ssd-b --medium-offset 1M"
grep -qxF 'Medium:   the device starts 1 MiB (1048576 bytes) into it (--medium-offset: the emulated device from there on)' \
	"$tmp/shift.txt" || { cat "$tmp/shift.txt"; fail "--medium-offset 1M: no Medium line"; }
grep -qxF '  unit 2 MiB, starting 1 MiB into the device; open units: 4' "$tmp/shift.txt" ||
	{ cat "$tmp/shift.txt"; fail "--medium-offset 1M: unit line"; }
grep -q -- '--dev-model 4096:2048:4:' "$tmp/shift.txt" ||
	{ cat "$tmp/shift.txt"; fail "--medium-offset 1M: the format line's dev_model has no unit_offset 2048"; }
"$tool" probe --model ssd-b --medium-offset 1M --quiet --json >"$tmp/shift.json" || fail "--medium-offset 1M --json"
python3 - "$tmp/shift.json" <<'PY' || fail "--medium-offset 1M --json: unit, offsets, dev_model"
import json, sys
m = json.load(open(sys.argv[1]))["device_model"]
assert m["unit_bytes"] == 2 << 20 and m["unit_offset_bytes"] == 1 << 20, m
assert m["medium_offset_bytes"] == 1 << 20 and m["dev_model"].startswith("4096:2048:4:"), m
PY
"$tool" probe --model sd-worst --medium-offset 63s --quiet >"$tmp/shift.txt" || fail "probe --model sd-worst --medium-offset 63s"
grep -qF 'not on a 4 KiB block: dm-ressd' "$tmp/shift.txt" && grep -qxF '  dev_model none' "$tmp/shift.txt" &&
	! grep -q -- '--dev-model' "$tmp/shift.txt" ||
	{ cat "$tmp/shift.txt"; fail "--medium-offset 63s: units off 4 KiB blocks, yet a dev_model"; }
ok "a device 1 MiB into ssd-b: unit 2 MiB starting 1 MiB into it (dev_model 4096:2048:...); 63 sectors into sd-worst: no dev_model; self-test from 1 MiB, half a unit and 63 sectors on every log-block preset, the figures those of byte 0; an unconfirmed 16 MiB or 16 KiB effect is no unit"

# A partition's start, from sysfs: tools/ressdsetup/tests/guest-probe.sh
# (partition scanning of loop devices needs a kernel of its own).
