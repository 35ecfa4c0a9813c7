# Helpers for the tests that use the self-checking writer
# (tests/tools/ressd-writer.c; its header comment defines the block format,
# the journal and what each verify mode allows).  Sourced after testlib.sh.

# writer_build: compile the writer into $TMPDIR (once per guest boot) and set
# $WRITER.  The guest sees the host's root, so cc is there; the arm64 guest
# has no compiler: the host built it for it into $RESSD_PREBUILT.
writer_build() {
	local src=$RESSD_TOP/tests/tools/ressd-writer.c
	if [ -n "${RESSD_PREBUILT:-}" ]; then
		WRITER=$RESSD_PREBUILT/ressd-writer
		[ -x "$WRITER" ] || fail "no $WRITER"
		return
	fi
	WRITER=$TMPDIR/ressd-writer
	if [ ! -x "$WRITER" ] || [ "$src" -nt "$WRITER" ]; then
		cc -O2 -Wall -Wextra -o "$WRITER.new" "$src" \
			"$RESSD_TOP/tools/lib/crc32c.c" -lpthread \
			|| fail "could not build $src"
		mv "$WRITER.new" "$WRITER"
	fi
}

# show_status <name> <when>: the target's INFO status, for the log.
show_status() {
	echo "status $2: $(dmsetup status "$1")"
}

# writer_verify <dev> <journal> <what> [crash <cut-ns> [seen]]: read every block and
# check it against the journal (live by default); fail on any violation.
# "seen" records what recovery presented in the journal, so that a write run
# may continue it and a later crash is judged against it (crash after crash).
writer_verify() {
	local dev=$1 j=$2 what=$3 mode=(--mode live)
	[ "${4:-}" = crash ] && mode=(--mode crash --cut "$5")
	[ "${6:-}" = seen ] && mode+=(--seen)
	"$WRITER" verify --dev "$dev" --journal "$j" "${mode[@]}" \
		>"$TMPDIR/verify.out" 2>&1
	local rc=$?
	cat "$TMPDIR/verify.out"
	[ $rc -eq 0 ] || fail "verify ${mode[1]} $what: exit $rc"
	echo "ok: verify ${mode[1]} $what"
}

# writer_run <dm name> <journal> <seed> <what>: the writer on /dev/mapper/<dm
# name> for $SECS seconds over $NBLK blocks, checking every block every 3000
# operations; then the status, and every block against the journal.
writer_run() {
	local dev=/dev/mapper/$1
	"$WRITER" write --dev "$dev" --blocks "$NBLK" --seconds "$SECS" --seed "$3" \
		--journal "$2" --verify-every 3000 || fail "$4: writer: violation or error (exit $?)"
	show_status "$1" "after the writer"
	writer_verify "$dev" "$2" "$4, after the writer"
}

# wait_for_line <file> <pattern> <seconds> <pid>: wait until a line of the
# file matches, while process pid lives.
wait_for_line() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || { cat "$1"; fail "writer exited before '$2'"; }
		sleep 0.1
	done
	cat "$1"
	fail "no '$2' from the writer in $3 s"
}

# writer_field <verify output> <label>: the number before a label of the
# verify summary, e.g. "older (acked, lost)".
writer_field() {
	grep -m1 '^verify ' "$1" | grep -oE "[0-9]+ $2" | cut -d' ' -f1
}
