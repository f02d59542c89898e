// SPDX-License-Identifier: GPL-2.0
/*
 * pidload: tasks with system calls of their own, for 37-pid-filter's
 * set_ftrace_pid checks.
 *
 *	pidload [-w] chosen N	N rounds of getppid(), getuid(), getgid(), in
 *				that order (N = 0: until killed)
 *	pidload [-w] other N	N rounds of uname() (N = 0: until killed)
 *	pidload [-w] fork N	fork a child that runs "chosen N", then
 *				sleeps in pause() until its parent dies (so
 *				that neither its exit nor a "done" written to
 *				a file pushes its calls out of a history: poll
 *				its state); the parent makes none of the calls
 *	pidload reuse PID N	clone3() a child with pid PID (set_tid: root)
 *				that runs "chosen N", wait for it
 *
 * With -w the task waits for SIGUSR1 before it starts (the test sets the
 * pid filter in between) and first prints its own pid. Prints the pid of
 * the task that makes the calls, then, when they are done, "done" (but
 * fork's child, see above).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void chosen(long n)
{
	volatile long s = 0;

	for (long i = 0; !n || i < n; i++) {
		s += getppid();
		s += getuid();
		s += getgid();
	}
}

static void other(long n)
{
	struct utsname u;

	for (long i = 0; !n || i < n; i++)
		uname(&u);
}

static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0) {
		perror("pidload: fork");
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int wait_go = argc > 1 && !strcmp(argv[1], "-w");
	const char *mode;
	long n;
	pid_t pid;

	argv += wait_go;
	argc -= wait_go;
	if (argc < 3) {
		fprintf(stderr, "usage: pidload [-w] chosen|other|fork N | pidload reuse PID N\n");
		return 2;
	}
	mode = argv[1];
	n = atol(argv[argc - 1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (wait_go) {
		sigset_t none, usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, &none);
		sigaction(SIGUSR1, &sa, NULL);
		printf("%d\n", getpid());
		while (!go)
			sigsuspend(&none);
	}
	if (!strcmp(mode, "chosen") || !strcmp(mode, "other")) {
		if (!wait_go)
			printf("%d\n", getpid());
		if (*mode == 'c')
			chosen(n);
		else
			other(n);
	} else if (!strcmp(mode, "fork")) {
		pid = fork();
		if (!pid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(1);
			chosen(n);
			for (;;)
				pause();
		}
		printf("%d\n", pid);
		return wait_child(pid);
	} else if (!strcmp(mode, "reuse") && argc > 3) {
		pid_t tid = atoi(argv[2]);
		struct clone_args args = {
			.exit_signal = SIGCHLD,
			.set_tid = (uintptr_t)&tid,
			.set_tid_size = 1,
		};

		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (!pid) {
			chosen(n);
			_exit(0);
		}
		if (pid != tid) {
			fprintf(stderr, "pidload: clone3 with pid %d: %s\n", tid,
				pid < 0 ? strerror(errno) : "another pid");
			return 1;
		}
		printf("%d\n", pid);
		if (wait_child(pid))
			return 1;
	} else {
		fprintf(stderr, "pidload: unknown mode %s\n", mode);
		return 2;
	}
	printf("done\n");
	return 0;
}
