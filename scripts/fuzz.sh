#!/bin/bash
# Fuzz dm-ressd's metadata code in user space: libFuzzer with ASan and UBSan
# over dm-ressd-format.c and dm-ressd-rbtree.c, compiled unchanged through the
# shim in tests/fuzz/ (see Documentation/fuzzing.md).
#
#   scripts/fuzz.sh                     60 s per target (make test: --seconds 20)
#   scripts/fuzz.sh --seconds 3600      the long run
#   scripts/fuzz.sh --target replay     one target only (replay, record, index)
#   scripts/fuzz.sh --repro FILE        run one input, with the harness's trace
#   scripts/fuzz.sh --coverage          afterwards, llvm-cov line coverage of
#                                       the code under test by the corpus
#
# Installs the Debian packages it needs (as root, only those missing),
# builds into .out/fuzz, checks the shim's crc32c, writes the seed corpora
# with the project's own encoders, replays the known reproducers in
# tests/fuzz/crashes/<target>/, then fuzzes each target for the given time.
# The working corpus (.out/fuzz/corpus/<target>) is kept between runs, so
# that runs build on each other.  New crash, leak or timeout inputs are kept
# in .out/fuzz/artifacts/<target>/.
#
# Exits non-zero on any crash, leak or sanitizer report, or a known
# reproducer that still fails.  Last line:
#   fuzz: N targets, N executions, N crashes
# .out/fuzz/counts gets "<targets clean> <targets failed>" for
# scripts/test-all.sh.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$RESSD_TOP"

seconds=60
targets=()
repro=
coverage=
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
	--seconds=*) seconds=${1#*=}; shift ;;
	--target) targets+=("${2:?--target needs a name}"); shift 2 ;;
	--target=*) targets+=("${1#*=}"); shift ;;
	--repro) repro=${2:?--repro needs a file}; shift 2 ;;
	--coverage) coverage=1; shift ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) ressd_die "unknown argument: $1 (see --help)" ;;
	esac
done
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || ressd_die "--seconds wants a positive number"
[ ${#targets[@]} -gt 0 ] || targets=(replay record index)
for t in "${targets[@]}"; do
	case $t in replay|record|index) ;; *) ressd_die "unknown target $t (replay, record, index)" ;; esac
done

OUT=$RESSD_TOP/.out/fuzz
mkdir -p "$OUT"
rm -f "$OUT/counts"
# A failure before any target ran: one failed, for test-all.sh.
fail_early() {
	echo "0 1" >"$OUT/counts"
	echo "fuzz: 0 targets, 0 executions, 1 crashes"
	ressd_die "$*"
}

# ---- packages: clang, libFuzzer (libclang-rt-14-dev on Debian 12), the kernel source ----
pkgs=(clang libclang-rt-14-dev make gawk xz-utils linux-source-6.1)
[ -n "$coverage" ] && pkgs+=(llvm-14)	# llvm-profdata-14, llvm-cov-14
ressd_apt_install "${pkgs[@]}" || fail_early "could not install ${pkgs[*]}"
[ -e "$(clang -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-x86_64.a" ] ||
	fail_early "clang has no libFuzzer runtime (libclang_rt.fuzzer-x86_64.a): install libclang-rt-14-dev"

# ---- build ----
ksrc=
if ver=$(ressd_source_version 6.1) && [ -e "$RESSD_CACHE/linux-source-$ver/.extracted" ]; then
	ksrc=$RESSD_CACHE/linux-source-$ver	# already extracted for the UML kernel
fi
ressd_log "building the fuzz targets into $OUT"
if ! make -s -C tests/fuzz -j"$(nproc)" OUT="$OUT" KSRC="$ksrc" all >"$OUT/build.log" 2>&1; then
	cat "$OUT/build.log" >&2
	fail_early "build failed (log: $OUT/build.log)"
fi
if grep -q 'warning:' "$OUT/build.log"; then
	grep 'warning:' "$OUT/build.log" >&2
fi

# ---- one input, traced ----
if [ -n "$repro" ]; then
	[ -r "$repro" ] || ressd_die "cannot read $repro"
	t=${targets[0]}
	[ ${#targets[@]} -eq 1 ] || case $repro in
		*record*) t=record ;;
		*index*) t=index ;;
		*) t=replay ;;
	esac
	ressd_log "running $repro through fuzz-$t"
	RESSD_FUZZ_VERBOSE=1 "$OUT/fuzz-$t" "$repro"
	exit $?
fi

"$OUT/crc32c-test" || fail_early "the shim's crc32c is wrong"
ressd_log "writing the seed corpora"
if ! make -s -C tests/fuzz OUT="$OUT" KSRC="$ksrc" seeds >"$OUT/seeds.log" 2>&1; then
	cat "$OUT/seeds.log" >&2
	fail_early "the seed generator failed (log: $OUT/seeds.log)"
fi
grep -E '^  ' "$OUT/seeds.log" >&2

max_len_replay=65536	# compact images: see Documentation/fuzzing.md
max_len_record=4200	# a 26-byte header and a 4 KiB block
max_len_index=2048	# about 225 operations

total_exec=0 total_crash=0 ran=0 bad_targets=0
for t in "${targets[@]}"; do
	bin=$OUT/fuzz-$t
	corpus=$OUT/corpus/$t
	art=$OUT/artifacts/$t
	log=$OUT/$t.log
	mkdir -p "$corpus" "$art"
	crashes=0

	# Known reproducers: each must run clean (once its bug is fixed).
	known=()
	if [ -d "tests/fuzz/crashes/$t" ]; then
		while IFS= read -r -d '' f; do known+=("$f"); done \
			< <(find "tests/fuzz/crashes/$t" -type f ! -name '*.md' ! -name '*.txt' -print0 | sort -z)
	fi
	for f in "${known[@]}"; do
		if "$bin" "$f" >"$OUT/$t.known.log" 2>&1; then
			ressd_log "fuzz-$t: known reproducer $f passes"
		else
			ressd_log "fuzz-$t: known reproducer $f still FAILS:"
			grep -m3 -E 'ressd-fuzz: FAILED|ressd-shim:|ERROR: [A-Za-z]+Sanitizer|runtime error' \
				"$OUT/$t.known.log" | sed 's/^/    /' >&2
			crashes=$((crashes + 1))
		fi
	done

	ressd_log "fuzz-$t: fuzzing for $seconds s (corpus $corpus, $(ls "$corpus" | wc -l) inputs kept)"
	before=$(ls "$art" | wc -l)
	max_len_var=max_len_$t
	"$bin" -max_total_time="$seconds" -print_final_stats=1 -max_len="${!max_len_var}" \
		-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
		-artifact_prefix="$art/" "$corpus" "$OUT/seeds/$t" >"$log" 2>&1
	rc=$?
	after=$(ls "$art" | wc -l)
	new=$((after - before))
	[ $rc -ne 0 ] && [ $new -eq 0 ] && new=1	# a failure that left no input
	crashes=$((crashes + new))

	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	if [ -z "$execs" ]; then	# a crash stops before the final stats
		execs=$(grep -oE '^#[0-9]+' "$log" | tail -n1 | tr -d '#')
	fi
	execs=${execs:-0}
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n1)
	corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -n1)
	printf 'fuzz-%s: %s executions in %s s (%s/s), %s, %s, %d crashes\n' \
		"$t" "$execs" "$seconds" "${rate:-?}" "${cov:-cov: ?}" "${corp:-corp: ?}" "$crashes"
	if [ $rc -ne 0 ]; then
		ressd_log "fuzz-$t failed (exit $rc); report:"
		grep -E -A25 'ressd-fuzz: FAILED|ressd-shim:|ERROR: [A-Za-z]+Sanitizer|runtime error:|ERROR: libFuzzer' \
			"$log" | head -n 60 >&2
		for f in $(ls -t "$art" | head -n "$new"); do
			ressd_log "reproduce: $OUT/fuzz-$t $art/$f   (trace: scripts/fuzz.sh --target $t --repro $art/$f)"
		done
		ressd_log "full log: $log"
	fi
	total_exec=$((total_exec + execs))
	total_crash=$((total_crash + crashes))
	[ "$crashes" -gt 0 ] && bad_targets=$((bad_targets + 1))
	ran=$((ran + 1))
done

# Line coverage of the code under test by the corpus (and the seeds).
if [ -n "$coverage" ]; then
	ressd_log "coverage: running the corpora through the llvm-cov builds"
	if make -s -C tests/fuzz -j"$(nproc)" OUT="$OUT" KSRC="$ksrc" cov >>"$OUT/build.log" 2>&1; then
		rm -f "$OUT"/cov/*.profraw
		objs=()
		for t in "${targets[@]}"; do
			LLVM_PROFILE_FILE=$OUT/cov/$t.profraw "$OUT/cov/fuzz-$t" \
				"$OUT/corpus/$t" "$OUT/seeds/$t" >/dev/null
			objs+=(-object "$OUT/cov/fuzz-$t")
		done
		llvm-profdata-14 merge -o "$OUT/cov/all.profdata" "$OUT"/cov/*.profraw &&
		llvm-cov-14 report -instr-profile "$OUT/cov/all.profdata" "${objs[@]:1}" \
			-show-functions dm-ressd-format.c dm-ressd-rbtree.c >"$OUT/coverage.txt" 2>&1
		grep -E '^(ressd_|__ressd_|dm-ressd-format.c:|dm-ressd-rbtree.c:)' \
			"$OUT/coverage.txt" | awk '{printf "  %-42s %4s lines, %7s covered", $1, $5, $7;
			  if ($8 > 0) printf "; %3s branches, %7s covered", $8, $10; printf "\n"}' >&2
		ressd_log "coverage: full report in $OUT/coverage.txt (llvm-cov-14 show for lines)"
	else
		ressd_log "coverage: build failed (log: $OUT/build.log)"
	fi
fi

echo "$((ran - bad_targets)) $bad_targets" >"$OUT/counts"
echo "fuzz: $ran targets, $total_exec executions, $total_crash crashes"
[ "$total_crash" -eq 0 ]
