# SPDX-License-Identifier: GPL-2.0-only
#
# dm-ressd: build the module, check it, and run its tests.
#
#   make                 build dm_ressd.ko against KDIR (FTLSIM=1: and
#                        tools/ftlsim/dm_ftlsim.ko, the emulated SSD)
#   make tools           build tools/ressdsetup (the setup tool)
#   make install         modules_install + depmod, and ressdsetup with its man page
#                        (FTLSIM=1: dm_ftlsim.ko too)
#   make check           W=1 and sparse builds, checkpatch, kernel-doc
#   make graph           the kernel files, what each owns, calls between them, no cycle
#   make kunit           KUnit suites in the UML debug kernel
#   make kunit-arm64     the same suites in an arm64 debug kernel under
#                        qemu-system-aarch64 (cross-built once, cached)
#   make test-uml        functional tests in the UML debug kernel
#   make test-vm         functional tests in the Debian kernel under QEMU
#                        (these four in the kernel series RESSD_KERNEL:
#                        6.1 by default, or 6.12)
#   make test-arm64      the arm64 smoke set in Debian's arm64 kernel under
#                        qemu-system-aarch64 (ARM64_TESTS= other tests)
#   make test-boot       a root file system on dm-ressd booted through the
#                        initramfs-tools hook and the dracut module, killed
#                        and booted again (tests/boot/root-initramfs.sh;
#                        BOOT_DRACUT=both: dracut with and without systemd)
#   make test-boot-arm64 the same with Debian's arm64 kernel under
#                        qemu-system-aarch64 (the images made in the arm64 guest)
#   make test-host       host tests of the tools and packaging (tests/host)
#   make test            check, test-host, kunit, test-uml and test-vm in
#                        both kernels, one summary line; sized for CI's 90
#                        minutes (scripts/test-all.sh says which test runs
#                        where; the arm64 targets are outside it)
#   make test-quick      make test without the Debian-kernel (vm) layers
#   make test-full       every test in every layer that can run it, and
#                        test-boot (about twice make test)
#   make deps            install build and test dependencies (root)
#   make demo            raw ext4 against ext4 on dm-ressd on an emulated SSD
#   make bench           the benchmark protocol (BENCH_ARGS=--quick for short)
#   make bench-cpu       CPU overhead against dm-linear on a RAM disk
#   make soak            SOAK_SECONDS (1800) of load, reloads and power cuts in the UML kernel
#   make dkms-install    install as the DKMS package dm-ressd (root)
#   make dkms-remove     remove the DKMS package (root)
#
# KDIR defaults to the running kernel's build directory when it exists, else
# to the newest installed Debian headers of the series RESSD_KERNEL (6.1 by
# default, as the tests: a 6.12 installed beside it is taken only when
# asked for with RESSD_KERNEL=6.12).

RESSD_KERNEL ?= 6.1
# The scripts choose the guest kernel by it too (make test-vm RESSD_KERNEL=6.12).
export RESSD_KERNEL
# FTLSIM=1 (or y, yes): dm-ftlsim as well, for make, make install and clean.
ftlsim-args := $(if $(filter 1 y yes,$(FTLSIM)),CONFIG_DM_RESSD_FTLSIM=m)
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; \
	else \
		ls -d /usr/src/linux-headers-$(RESSD_KERNEL).*-amd64 2>/dev/null | sort -V | tail -n 1; \
	fi)

# Run these scripts with bash explicitly: a fresh clone may lose modes.
SH := bash

.PHONY: all modules tools clean install check kunit kunit-arm64 test-uml test-vm test-arm64 test-boot test-boot-arm64 test-host test test-quick test-full deps demo bench \
	bench-cpu dkms-install dkms-remove soak graph

all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers found: set KDIR or run 'make deps'"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(ftlsim-args) modules

tools:
	$(MAKE) -C tools/ressdsetup

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_DM_RESSD_FTLSIM=m clean; fi
	rm -f tests/kunit/*.o tests/kunit/.*.cmd tests/kunit/*.ko tests/kunit/*.mod*
	$(MAKE) -C tools/ressdsetup clean

install: modules tools
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(ftlsim-args) modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))
	$(MAKE) -C tools/ressdsetup install

deps:
	$(SH) scripts/deps.sh test

check:
	$(SH) scripts/check.sh

graph:
	python3 scripts/graph.py

kunit:
	$(SH) scripts/test-guest.sh kunit

kunit-arm64:
	$(SH) scripts/test-guest.sh kunit-arm64

test-uml:
	$(SH) scripts/test-guest.sh uml

test-vm:
	$(SH) scripts/test-guest.sh vm

test-arm64:
	$(SH) scripts/test-guest.sh arm64 $(ARM64_TESTS)

test-boot:
	$(SH) tests/boot/root-initramfs.sh

test-boot-arm64:
	$(SH) tests/boot/root-initramfs.sh arm64

test-host:
	$(SH) scripts/test-host.sh

test:
	$(SH) scripts/test-all.sh

test-quick:
	$(SH) scripts/test-all.sh --quick

test-full:
	$(SH) scripts/test-all.sh --full

demo:
	$(SH) scripts/demo.sh

bench:
	$(SH) scripts/bench.sh $(BENCH_ARGS)

bench-cpu:
	$(SH) scripts/bench-cpu.sh

soak:
	$(SH) scripts/soak.sh

dkms-install:
	$(SH) scripts/dkms.sh install

dkms-remove:
	$(SH) scripts/dkms.sh remove
