// SPDX-License-Identifier: GPL-2.0-only
/*
 * Print the size in bytes of this machine's XSAVE area as ptrace's
 * NT_X86_XSTATE register set has it: the size a User-Mode Linux kernel
 * must pass to PTRACE_SETREGSET (the host refuses any other with EFAULT).
 * scripts/uml-kernel.sh builds UML for it when it is not the 2696 bytes
 * that UML assumes (AVX-512 with PKRU): AMX raises it to about 11 KiB.
 */
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

int main(void)
{
	static char buf[1 << 20];
	struct iovec iov = { buf, sizeof(buf) };
	int status, r;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return 1;
	r = ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (r < 0) {
		perror("PTRACE_GETREGSET NT_X86_XSTATE");
		return 1;
	}
	printf("%zu\n", iov.iov_len);
	return 0;
}
