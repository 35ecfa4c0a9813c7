#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/crash/ressd-replay.c apply, on the host, on small dm-log-writes logs
# written here: a non-FUA write logged after a FUA write to the same block
# (dm-log-writes logs FUA writes at completion, others at the next flush)
# is left out when it holds an older writer generation of that block (also
# after other such writes), and replayed when it holds a newer one, when it
# is another block's data, when a write without FUA between them is newer,
# or when more than two flushes lie between them.  A discard logged after a
# FUA write of the block is left out likewise (a disk may ignore a discard;
# it never puts one completed before a write over that write), and replayed
# as zeros after a plain write or three flushes on.  Each case checks the
# generation the block holds after the replay.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/replay-apply.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cc -O2 -Wall -Wextra -o "$tmp/ressd-replay" "$top/tests/crash/ressd-replay.c" ||
	fail "could not build ressd-replay.c"

# mklog <file> <entry>...: entry = <flags>:<4 KiB block>:<writer block>:<gen>
# (flags: 0 plain, 2 FUA), or F for a flush without data, or
# 4:<4 KiB block>:<blocks>:0 for a discard; a writer block of 4 KiB, as
# ressd-writer lays it out (magic, block, gen at its start).  The log ends
# with dm-log-writes-end.
mklog() {
	python3 - "$@" <<'EOF'
import struct, sys
out, ents = sys.argv[1], sys.argv[2:]
SS = 512
def sec(b): return b + b'\0' * (SS - len(b))
body = b''
for e in ents:
    if e == 'F':	# a flush, no data
        body += sec(struct.pack('<QQQQ', 0, 0, 1, 0))
        continue
    fl, blk, wblk, gen = (int(x) for x in e.split(':'))
    if fl & 4:	# a discard of wblk blocks, no data
        body += sec(struct.pack('<QQQQ', blk * 8, wblk * 8, fl, 0))
        continue
    data = struct.pack('<QQQ', 0x314b4c4257535352, wblk, gen).ljust(4096, b'\xa5')
    body += sec(struct.pack('<QQQQ', blk * 8, 8, fl, 4096)) + data
txt = b'dm-log-writes-end'
body += sec(struct.pack('<QQQQ', 0, 0, 8, len(txt)) + txt)
sup = sec(struct.pack('<QQQI', 0x6a736677736872, 1, len(ents) + 1, SS))
open(out, 'wb').write(sup + body)
EOF
}

# gen_at <dev> <block>: the writer generation the block holds.
gen_at() {
	python3 -c 'import struct,sys
f=open(sys.argv[1],"rb"); f.seek(int(sys.argv[2])*4096)
m,b,g=struct.unpack("<QQQ",f.read(24)); print(g)' "$1" "$2"
}

# check <what> <want gen of block 3> <entries...>
n=0
check() {
	local what=$1 want=$2 got
	shift 2
	n=$((n + 1))
	mklog "$tmp/log" "$@" || fail "writing the log"
	rm -f "$tmp/dev"
	truncate -s 64K "$tmp/dev"
	"$tmp/ressd-replay" apply --log "$tmp/log" --dev "$tmp/dev" --range "0:$#" \
		2>"$tmp/err" || { cat "$tmp/err"; fail "$what: apply failed"; }
	got=$(gen_at "$tmp/dev" 3)
	[ "$got" = "$want" ] || { cat "$tmp/err"; fail "$what: block 3 holds gen $got, expected $want"; }
	echo "ok: $what: gen $got ($(tr -d '\n' <"$tmp/err"))"
}

check "older plain write logged after a FUA write" 6 2:3:3:6 0:3:3:5
check "newer plain write after a FUA write" 7 2:3:3:6 0:3:3:7
check "plain write after a plain write, log order" 5 0:3:3:6 0:3:3:5
check "another writer block after a FUA write" 2 2:3:3:6 0:3:9:2
check "the newest earlier write decides" 5 2:3:3:6 0:3:3:7 0:3:3:5
check "older FUA write after a FUA write, log order" 5 2:3:3:6 2:3:3:5
# a direct write and then the mover's older copy, both completed before
# the FUA write and logged after it at the next flush
check "two older plain writes logged after a FUA write" 7 2:3:3:7 0:3:3:5 0:3:3:6
check "older plain write three flushes after a FUA write, log order" 5 2:3:3:6 F F F 0:3:3:5
check "older plain write a flush after a FUA write" 6 2:3:3:6 F 0:3:3:5
# a discard completed before a FUA write of one of its blocks, logged after
# it at the next flush (an O_DSYNC write after a discard)
check "discard logged after a FUA write" 6 2:3:3:6 4:2:3:0
check "discard a flush after a FUA write" 6 2:3:3:6 F 4:3:1:0
check "discard after a plain write, log order" 0 2:3:3:6 0:3:3:7 4:3:1:0
check "discard three flushes after a FUA write, log order" 0 2:3:3:6 F F F 4:3:1:0
echo "replay-apply: $n cases passed"
