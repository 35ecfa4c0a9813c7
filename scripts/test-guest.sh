#!/bin/bash
# Boot a guest once and run test scripts inside it.
#
#   scripts/test-guest.sh vm    [test ...]   Debian kernel under QEMU (virtme-ng)
#   scripts/test-guest.sh uml   [test ...]   UML debug kernel (KASAN, lockdep)
#   scripts/test-guest.sh kunit              KUnit suites in the UML kernel
#
# Tests default to every tests/vm/*.sh.  Prints one line per test and a
# closing "N passed, N failed"; writes the counts to .out/<kind>/counts; exits
# non-zero on any failure.  Guests take $RESSD_VM_LOCK, one at a time.
set -uo pipefail
. "$(dirname "$0")/common.sh"

kind=${1:?usage: test-guest.sh vm|uml|kunit [test ...]}
shift
case $kind in vm | uml | kunit) ;; *) ressd_die "unknown guest kind $kind" ;; esac

tests=()
for t in "$@"; do
	[ -f "$t" ] || t=$RESSD_TOP/tests/vm/$t.sh
	[ -f "$t" ] || ressd_die "no such test: $t"
	tests+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")")
done
if [ $kind != kunit ] && [ ${#tests[@]} -eq 0 ]; then
	tests=("$RESSD_TOP"/tests/vm/*.sh)
fi

# RESSD_OUT_NAME: another directory under .out (default: the kind);
# RESSD_KEEP_DISKS=1 keeps its scratch disks from the previous boot (a
# guest killed and booted again on the same disks: scripts/vmkill.sh).
out=$RESSD_TOP/.out/${RESSD_OUT_NAME:-$kind}
res=$out/results
if [ "${RESSD_KEEP_DISKS:-0}" = 1 ]; then
	rm -rf "$res" "$out/counts" "$out/build"
else
	rm -rf "$out"
fi
mkdir -p "$res"
passed=0 failed=0

report() {
	echo "$passed $failed" >"$out/counts"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}
fail_all() {	# <reason>: every planned test fails with it
	local t
	echo "FAIL [$kind] $1"
	failed=$((failed + 1))
	for t in "${tests[@]}"; do
		echo "FAIL [$kind] $(basename "$t" .sh): not run"
		failed=$((failed + 1))
	done
	report
}

# 1. Build the module (and for UML the KUnit module) against the guest kernel.
if [ $kind = vm ]; then
	kver=$(ressd_debian_kver) || ressd_die "no Debian kernel with headers (run make deps)"
	kdir=/usr/src/linux-headers-$kver
	arch=()
else
	kdir=$(bash "$RESSD_TOP/scripts/uml-kernel.sh") || fail_all "uml-kernel-build"
	arch=(ARCH=um)
fi
bdir=$out/build
mkdir -p "$bdir"
rsync -a --delete --exclude=/.out --include='*/' --include='*.c' --include='*.h' \
	--include=Kbuild --include=VERSION --exclude='*' --prune-empty-dirs "$RESSD_TOP/" "$bdir/"
if ! make -C "$kdir" "${arch[@]}" M="$bdir" modules >"$out/build.log" 2>&1; then
	tail -n 20 "$out/build.log"
	fail_all "build: module does not build against $kdir (see $out/build.log)"
fi

# 2. Scratch disks (sparse files).
truncate -s "${RESSD_DISK_A_SIZE:-1G}" "$out/disk-a.img"
truncate -s "${RESSD_DISK_B_SIZE:-512M}" "$out/disk-b.img"

# 3. Boot.  Test settings (CRASH_*, RESSD_TEST_TIMEOUT) are passed into the guest.
genv=$(env | grep -E '^(CRASH_[A-Z0-9_]+|SOAK_[A-Z0-9_]+|PROBE_[A-Z0-9_]+|CORRUPT_[A-Z0-9_]+|TABLE_FUZZ_[A-Z0-9_]+|VMKILL_[A-Z0-9_]+|POWERCUT_[A-Z0-9_]+|STABLE_[A-Z0-9_]+|RESSD_TEST_TIMEOUT)=[A-Za-z0-9_.:-]*$' | tr '\n' ' ')
exec 9>"$RESSD_VM_LOCK"
flock 9
ressd_log "booting the $kind guest (${#tests[@]} tests)"
start=$(date +%s)
limit=${RESSD_GUEST_TIMEOUT:-3600}
if [ $kind = vm ]; then
	export PATH=$RESSD_VENV/bin:$PATH	# vng runs virtme-run from PATH
	kvm=(--disable-kvm)
	[ "${RESSD_KVM:-0}" = 1 ] && kvm=()
	# The guest sees the host read-only, except $out: its results, and
	# what a test keeps for the next boot (vmkill's journal beside them).
	timeout -k 30 "$limit" "$RESSD_VENV/bin/vng" --run "/boot/vmlinuz-$kver" "${kvm[@]}" \
		--memory 2G --cpus 2 --rwdir "$out" \
		--qemu-opts="-drive file=$out/disk-a.img,format=raw,if=virtio,cache=none -drive file=$out/disk-b.img,format=raw,if=virtio,cache=none" \
		--exec "env $genv bash $RESSD_TOP/tests/lib/guest-run.sh vm $res $bdir ${tests[*]}" \
		</dev/null >"$out/console.log" 2>&1
else
	cat >"$out/init.sh" <<EOI
#!/bin/bash
exec env $genv bash $RESSD_TOP/tests/lib/guest-run.sh $kind $res $bdir ${tests[*]}
EOI
	chmod +x "$out/init.sh"
	# panic_on_warn: a WARN (or a KASAN report) stops the guest at once,
	# so no test goes on past one (RESSD_PANIC_ON_WARN=0 to look further).
	timeout -k 30 "$limit" "$kdir/linux" mem=1G log_buf_len=16M ubd0="$out/disk-a.img" ubd1="$out/disk-b.img" \
		panic_on_warn="${RESSD_PANIC_ON_WARN:-1}" root=/dev/root rootfstype=hostfs rootflags=/ rw init="$out/init.sh" \
		con=null con0=fd:0,fd:1 </dev/null >"$out/console.log" 2>&1
fi
grc=$?
flock -u 9
ressd_log "guest ran $(( $(date +%s) - start )) s (exit $grc)"

touch "$res/results.txt"
if ! grep -q '^GUEST-DONE' "$res/results.txt"; then
	echo "FAIL [$kind] guest: did not finish (exit $grc; see $out/console.log)"
	tail -n 15 "$out/console.log" | sed 's/^/    /'
	failed=$((failed + 1))
fi

bad_kernel_log='BUG:|WARNING:|KASAN|UBSAN|Call Trace|lockdep|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked|Oops|general protection fault|kernel BUG|Kernel panic'

# 4. KUnit: parse the KTAP the suites printed.
if [ $kind = kunit ]; then
	src=$(ressd_source_tree)
	if ! grep -q '^INSMOD 0 ' "$res/results.txt"; then
		echo "FAIL [kunit] loading dm_ressd_kunit.ko failed"
		failed=$((failed + 1))
	fi
	# Suites loaded from a module print no top-level KTAP header: add it.
	sed 's/^\[[^]]*\] //' "$res/kunit.dmesg" | sed -n '/^    KTAP version/,$p' >"$out/ktap.body"
	{
		echo "KTAP version 1"
		echo "1..$(grep -cE '^(not )?ok [0-9]+ ' "$out/ktap.body")"
		cat "$out/ktap.body"
	} >"$out/ktap.txt"
	python3 "$src/tools/testing/kunit/kunit.py" parse "$out/ktap.txt" >"$out/kunit.txt" 2>&1
	prc=$?
	sed 's/^/    /' "$out/kunit.txt" | grep -E 'PASSED|FAILED|SKIPPED|CRASHED|Testing complete|ERROR' || true
	line=$(grep -m1 'Testing complete' "$out/kunit.txt")
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$line")
	f=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<<"$line")
	c=$(sed -n 's/.*\(crashed\|errors\): \([0-9]*\).*/\2/p' <<<"$line")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${c:-0}))
	if [ -z "$line" ] || [ "${p:-0}" -eq 0 ]; then
		echo "FAIL [kunit] KTAP: no test result parsed (kunit.py exit $prc)"
		failed=$((failed + 1))
	elif [ $prc -ne 0 ] && [ $((${f:-0} + ${c:-0})) -eq 0 ]; then
		echo "FAIL [kunit] kunit.py parse exited $prc"
		failed=$((failed + 1))
	fi
	if bad=$(sed -n '/KTAP version/,$p' "$res/kunit.dmesg" | grep -E -m1 "$bad_kernel_log"); then
		echo "FAIL [kunit] kernel log: $bad"
		failed=$((failed + 1))
	fi
	report
fi

# 5. Functional tests: one result line each.
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	line=$(grep -m1 -E "^(PASS|FAIL) $name " "$res/results.txt")
	case $line in
	PASS*)
		echo "PASS [$kind] $name ($(cut -d' ' -f3 <<<"$line") s)"
		passed=$((passed + 1)) ;;
	FAIL*)
		echo "FAIL [$kind] $name ($(cut -d' ' -f3 <<<"$line") s): $(cut -d' ' -f4- <<<"$line")"
		tail -n 15 "$res/$name.log" 2>/dev/null | sed 's/^/    /'
		failed=$((failed + 1)) ;;
	*)
		echo "FAIL [$kind] $name: no result (guest died or timed out)"
		failed=$((failed + 1)) ;;
	esac
done
# Failures outside any one test: loading or unloading the module.
while read -r line; do
	echo "FAIL [$kind] $line"
	failed=$((failed + 1))
done < <(grep -E '^FAIL (insmod|rmmod|module-unload) ' "$res/results.txt")
report
