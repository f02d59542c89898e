// SPDX-License-Identifier: GPL-2.0
/*
 * perfsample: sampling hardware "cycles" events on one CPU while a command
 * runs, and whether every counter overflow became a sample.
 *
 *	perfsample [-c CPU] [-p PERIOD] [-n EVENTS] [-s FILE] -- COMMAND [ARG...]
 *
 * Opens EVENTS (1 to 3, default 1) CPU-wide events PERF_COUNT_HW_CPU_CYCLES
 * on CPU (default 1) with a fixed sample period (default 1000000), nothing
 * excluded; on Intel the first goes to fixed counter 1, the next ones to
 * general-purpose counters. Runs COMMAND, drains the events' ring buffers
 * while it runs, then reads each event's count (C1, still counting),
 * disables it, reads it again (C2) and drains what is left. Prints one
 * line per event and a total line:
 *
 *	event=I samples=S expected=E1..E2 count=C1..C2 period=P throttle=T
 *	unthrottle=U lost=L wrong_cpu=W wrong_period=X child=K enabled=NS
 *	running=NS
 *
 * S is the number of PERF_RECORD_SAMPLE records, E1 = C1 / P the overflows
 * that certainly came before the first read and E2 = C2 / P those before
 * the event stopped (an overflow as it is being disabled is not a sample,
 * by perf's design: E2 - E1 is almost always 0). Every overflow delivered
 * means E1 <= S <= E2 with T = L = 0 (a throttled event stops counting,
 * so it would not inflate E). K: samples of COMMAND's process, W: samples
 * from another CPU, X: samples with another period.
 *
 * -s FILE: write "0" to FILE as soon as COMMAND has exited (for
 * tracing_on: so that what the CPU does afterwards does not overwrite
 * COMMAND's part of a trace).
 *
 * Exit status: 0 when every event had E1 <= S <= E2, no throttle, no lost
 * record, W = X = 0 and at least one sample; 1 otherwise; 2 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXEV		3
#define DATA_PAGES	64		/* a power of two */

struct ev {
	int fd;
	struct perf_event_mmap_page *meta;
	char *data;
	uint64_t size;
	uint64_t samples, throttle, unthrottle, lost, wrong_cpu,
		 wrong_period, child, other;
};

static int cpu = 1;
static uint64_t period = 1000000;
static pid_t child_pid = -1;
static volatile sig_atomic_t child_done;

static void on_sigchld(int sig)
{
	child_done = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "perfsample: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The sample layout of PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD */
struct sample {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint32_t cpu, res;
	uint64_t period;
};

static void drain(struct ev *e)
{
	uint64_t head = __atomic_load_n(&e->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = e->meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		char rec[256];
		uint64_t off = tail % e->size;
		size_t i;

		/* a record may wrap around the end of the buffer */
		for (i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = e->data[(off + i) % e->size];
		if (h.size < sizeof(h) || tail + h.size > head) {
			fprintf(stderr, "perfsample: bad record size %u\n", h.size);
			exit(2);
		}
		for (i = 0; i < h.size && i < sizeof(rec); i++)
			rec[i] = e->data[(off + i) % e->size];
		switch (h.type) {
		case PERF_RECORD_SAMPLE: {
			struct sample *s = (struct sample *)rec;

			e->samples++;
			if (s->cpu != (uint32_t)cpu)
				e->wrong_cpu++;
			if (s->period != period)
				e->wrong_period++;
			if ((pid_t)s->pid == child_pid)
				e->child++;
			break;
		}
		case PERF_RECORD_THROTTLE:
			e->throttle++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			e->unthrottle++;
			break;
		case PERF_RECORD_LOST: {
			/* header, id, lost */
			uint64_t n;

			memcpy(&n, rec + sizeof(h) + 8, sizeof(n));
			e->lost += n;
			break;
		}
		default:
			e->other++;
		}
		tail += h.size;
	}
	__atomic_store_n(&e->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* read_format: value, time_enabled, time_running */
static void readcount(struct ev *e, uint64_t v[3])
{
	if (read(e->fd, v, 3 * sizeof(uint64_t)) != 3 * sizeof(uint64_t))
		die("read");
}

int main(int argc, char **argv)
{
	struct ev ev[MAXEV];
	struct pollfd pfd[MAXEV];
	long pg = sysconf(_SC_PAGESIZE);
	int nev = 1, opt, i, status, bad = 0;
	sigset_t block, unblocked;
	struct sigaction sa;
	uint64_t tot_s = 0, tot_e1 = 0, tot_e2 = 0;

	const char *stop = NULL;

	while ((opt = getopt(argc, argv, "c:p:n:s:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'p':
			period = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nev = atoi(optarg);
			break;
		case 's':
			stop = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || nev < 1 || nev > MAXEV || !period) {
usage:
		fprintf(stderr, "usage: perfsample [-c CPU] [-p PERIOD] [-n 1..3] -- COMMAND [ARG...]\n");
		return 2;
	}

	memset(ev, 0, sizeof(ev));
	for (i = 0; i < nev; i++) {
		struct perf_event_attr a;
		void *m;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 1;
		a.pinned = 1;		/* on the PMU all the time, or an error */
		a.wakeup_watermark = DATA_PAGES * pg / 4;
		a.watermark = 1;
		ev[i].fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
		if (ev[i].fd < 0)
			die("perf_event_open");
		m = mmap(NULL, (DATA_PAGES + 1) * pg, PROT_READ | PROT_WRITE,
			 MAP_SHARED, ev[i].fd, 0);
		if (m == MAP_FAILED)
			die("mmap");
		ev[i].meta = m;
		ev[i].data = (char *)m + pg;
		ev[i].size = DATA_PAGES * pg;
		pfd[i].fd = ev[i].fd;
		pfd[i].events = POLLIN;
	}
	for (i = 0; i < nev; i++)
		if (ioctl(ev[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			die("enable");

	/* SIGCHLD only inside ppoll(): no wait that a signal could miss */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	child_pid = fork();
	if (child_pid < 0)
		die("fork");
	if (!child_pid) {
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	/*
	 * drain while the command runs: woken at a quarter of a buffer, or
	 * by SIGCHLD when the command is done
	 */
	while (!child_done) {
		if (ppoll(pfd, nev, NULL, &unblocked) < 0 && errno != EINTR)
			die("ppoll");
		for (i = 0; i < nev; i++)
			drain(&ev[i]);
	}
	if (stop) {
		FILE *f = fopen(stop, "w");

		if (!f || fputs("0\n", f) < 0 || fclose(f))
			die(stop);
	}
	if (waitpid(child_pid, &status, 0) != child_pid)
		die("waitpid");

	for (i = 0; i < nev; i++) {
		struct ev *e = &ev[i];
		uint64_t c1[3], c2[3], e1, e2;
		int fine;

		readcount(e, c1);
		if (ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0))
			die("disable");
		readcount(e, c2);
		drain(e);
		e1 = c1[0] / period;
		e2 = c2[0] / period;
		fine = e1 <= e->samples && e->samples <= e2 && !e->throttle &&
		       !e->lost && !e->wrong_cpu && !e->wrong_period && e->samples;
		bad |= !fine;
		tot_s += e->samples;
		tot_e1 += e1;
		tot_e2 += e2;
		printf("event=%d samples=%llu expected=%llu..%llu count=%llu..%llu period=%llu throttle=%llu unthrottle=%llu lost=%llu wrong_cpu=%llu wrong_period=%llu child=%llu enabled=%llu running=%llu %s\n",
		       i, (unsigned long long)e->samples, (unsigned long long)e1,
		       (unsigned long long)e2, (unsigned long long)c1[0],
		       (unsigned long long)c2[0], (unsigned long long)period,
		       (unsigned long long)e->throttle, (unsigned long long)e->unthrottle,
		       (unsigned long long)e->lost, (unsigned long long)e->wrong_cpu,
		       (unsigned long long)e->wrong_period, (unsigned long long)e->child,
		       (unsigned long long)c2[1], (unsigned long long)c2[2],
		       fine ? "ok" : "BAD");
	}
	printf("total samples=%llu expected=%llu..%llu command_status=%d %s\n",
	       (unsigned long long)tot_s, (unsigned long long)tot_e1,
	       (unsigned long long)tot_e2,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1, bad ? "BAD" : "ok");
	return bad;
}
