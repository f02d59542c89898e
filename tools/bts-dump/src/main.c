// SPDX-License-Identifier: GPL-2.0
/*
 * bts-dump: print the branch histories that the bts tracer dumps
 * (/sys/kernel/tracing/bts/per_cpu/cpuN/{records,capture}) as symbolized,
 * source-annotated, call-depth-indented listings, JSON lines, perf-script
 * lines, or analyses (hot paths, call graph, folded stacks).
 *
 * This file is the driver: options, finding the inputs, and the loop that
 * turns each record into an event for the printers and analyses. It reads
 * no dump bytes itself (dump.c does) and formats nothing (print.c does).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "event.h"
#include "console.h"
#include "tracedat.h"
#include "vmcore.h"

#define BTS_DUMP_VERSION_STRING	"1.1"

static const char *const usage_lines[] = {
	"usage: bts-dump [options] [FILE|DIR]...",
	"",
	"  Print the branch histories written by the bts tracer: one dump per CPU,",
	"  oldest branch first. FILEs are dumps (per_cpu/cpuN/records or capture,",
	"  or copies of them), trace.dat files of ftrace:bts entries (trace-cmd",
	"  record/extract) or console text (ftrace_dump_on_oops lines in a serial",
	"  log, dmesg, pstore; needs -s or -k); a DIR is a tracing directory, its",
	"  bts/ directory or a directory of copied dumps.",
	"  A trace.dat recorded in stream mode gives one stream per CPU: a summary",
	"  line (records, gaps, records lost: by bts_gap, or as pos jumps: ring",
	"  buffer overwritten or unread), a '--- N records lost ---' line at each",
	"  loss (a \"gap\" object in JSON), and the call stacks restart there.",
	"",
	"  input:",
	"    -t, --tracing-dir DIR  read DIR/bts/per_cpu/cpu*/records (or capture)",
	"        --capture          read the fault captures instead of the records",
	"        --vmcore FILE      the capture kept in a kdump crash dump (/proc/vmcore",
	"                           copied, or makedumpfile -E output), as its capture",
	"                           files would give it; with -k the crashed kernel's vmlinux",
	"    -c, --cpu LIST         only these CPUs, e.g. 0,2-3",
	"  symbols and decoding:",
	"    -s, --symbols FILE     /proc/kallsyms or a System.map (modules from kallsyms)",
	"    -k, --vmlinux FILE     vmlinux: symbols, file:line and inline frames from",
	"                           DWARF, and instruction bytes to decode branch kinds",
	"        --kcore FILE       read instruction bytes from FILE (e.g. /proc/kcore)",
	"        --modules DIR      .ko files with debug info (searched down): file:line",
	"                           and inline frames of module text (needs -s kallsyms)",
	"        --no-symbols       do not read /proc/kallsyms when nothing is given",
	"        --no-lines         no file:line (faster with a large vmlinux)",
	"        --no-decode        do not decode instructions; guess kinds from symbols",
	"        --force            use a vmlinux/symbols that do not match the dumped",
	"                           kernel's build ID or _etext (a warning, not an error)",
	"  selecting records:",
	"    -n, --last N           only the last N records of each CPU's window (0: all)",
	"    -f, --since-fault      window starts at the fault record",
	"    -F, --until-fault      window ends at the fault record",
	"        --around SYM[+OFF] only the records around each branch into SYM",
	"                           (at OFF), with --context N records (default 5)",
	"                           before and after",
	"  output (default: readable text):",
	"    -j, --json             JSON lines: one \"dump\" object per CPU, one \"branch\" per record",
	"    -p, --perf             perf-script-like lines",
	"    -a, --addresses        also print raw addresses (text)",
	"        --no-indent        do not indent by call depth (text)",
	"        --insns            also the instructions each record's target ran to",
	"                           the next branch (text; needs -k or --kcore)",
	"        --no-summary       no fault summary above a history with a fault",
	"        --no-fold          list every run of a loop (text and JSON fold a cycle of",
	"                           up to 256 branches that ran 3 times or more into its",
	"                           first run and a count; --callgraph sets its calls apart)",
	"  analyses (instead of the listing, over all selected records):",
	"        --hist             hot branch targets and functions by count",
	"        --callgraph        every caller -> callee edge seen, with counts, as DOT",
	"        --folded           folded stacks for flamegraph.pl",
	"        --top N            rows per --hist table (default 25)",
	"",
	"    -h, --help             this text",
	"    -V, --version          version, and whether trace.dat input is built in",
	"",
	"  Kinds: call ret jmp jcc syscall sysret iret int exc (an interrupt or",
	"  exception left a non-branch instruction) patched (the vmlinux's bytes",
	"  do not go where the CPU went: code rewritten at run time; --kcore has",
	"  the live bytes) branch (unknown); a '?' means guessed from symbols,",
	"  not decoded. 'user->kernel'/'kernel->user' mark mode changes and",
	"  '<== FAULT' the record where the fault happened. '[user]' is a user",
	"  address the kernel cleared (bts_user 0, flag bit 61): not recorded,",
	"  never address 0 (null in JSON).",
	"  Exit status: 0 ok, 1 an input could not be read, 2 usage error.",
	"",
	"  examples:",
	"    bts-dump --capture -t /sys/kernel/tracing -k vmlinux -F -n 40",
	"    bts-dump -s System.map -k vmlinux cpu*/capture",
	"    bts-dump -k vmlinux trace.dat",
	"    bts-dump --vmcore /var/crash/vmcore -k vmlinux",
	"    bts-dump -s System.map -k vmlinux serial.log",
	"    bts-dump --folded -t /sys/kernel/tracing | flamegraph.pl > bts.svg",
	NULL,
};

static void usage(FILE *f)
{
	for (int i = 0; usage_lines[i]; i++)
		fprintf(f, "%s\n", usage_lines[i]);
}

struct cpu_range {
	uint32_t lo, hi;
};

struct options {
	struct walk_opts walk;
	const char *symbols;
	const char *vmlinux;
	const char *kcore;
	const char *modules;
	const char *vmcore;
	bool no_symbols;
	bool force;
	bool capture;
	bool hist, callgraph, folded;
	unsigned int top;
	struct cpu_range *cpus;		/* NULL: all */
	size_t ncpus;
};

struct inputs {
	char **paths;
	size_t n, cap;
};

static void add_path(struct inputs *in, const char *path)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 16;
		in->paths = xrealloc(in->paths, in->cap * sizeof(*in->paths));
	}
	in->paths[in->n++] = xstrdup(path);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int cpu_dir_cmp(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a + 3, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b + 3, NULL, 10);

	return x < y ? -1 : x > y;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in @dir: "cpuN" subdirectories if @cpus, else regular files. */
static char **list_dir(const char *dir, bool cpus, size_t *n)
{
	char **names = NULL;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*n = 0;
	d = opendir(dir);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char path[4096];

		if (cpus) {
			const char *p = de->d_name + 3;

			if (strncmp(de->d_name, "cpu", 3) || !*p ||
			    strspn(p, "0123456789") != strlen(p))
				continue;
		} else {
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (de->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cpus ? cpu_dir_cmp : name_cmp);
	return names;
}

/* Add DIR/cpuN/FILE for every cpuN subdirectory that has FILE. */
static size_t add_cpu_files(struct inputs *in, const char *per_cpu, const char *file)
{
	char path[4096 + 300];
	size_t n, before = in->n;
	char **names = list_dir(per_cpu, true, &n);

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", per_cpu, names[i], file);
		if (exists(path))
			add_path(in, path);
		free(names[i]);
	}
	free(names);
	return in->n - before;
}

/* A tracing directory: reading its files as dumps would block (trace_pipe). */
static bool is_tracing_dir(const char *dir)
{
	static const char *const marks[] = { "trace_pipe", "tracing_on", "current_tracer" };
	char path[4096 + 32];

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, marks[i]);
		if (exists(path))
			return true;
	}
	return false;
}

/*
 * Expand a directory into dump files: a tracing directory (its bts/), the
 * bts directory itself, a copy of its per_cpu tree, or (not with
 * @tracing, -t) a directory of copied dump files.
 */
static int add_dir(struct inputs *in, const char *dir, bool capture, bool tracing)
{
	const char *file = capture ? "capture" : "records";
	char per_cpu[4096], path[4096 + 300];
	size_t n, before = in->n;
	char **names;

	snprintf(per_cpu, sizeof(per_cpu), "%s/bts/per_cpu", dir);
	if (is_dir(per_cpu)) {
		if (!add_cpu_files(in, per_cpu, file))
			return error_msg("%s: no cpu*/%s (is bts the current tracer?)",
					 per_cpu, file);
		return 0;
	}
	snprintf(per_cpu, sizeof(per_cpu), "%s/per_cpu", dir);
	if ((is_dir(per_cpu) && add_cpu_files(in, per_cpu, file)) || add_cpu_files(in, dir, file))
		return 0;
	if (tracing || is_tracing_dir(dir))
		return error_msg("%s: no bts/ directory (the bts tracer is not in this kernel, or this is not a tracing directory)",
				 dir);
	/* A directory of copied dumps. */
	names = list_dir(dir, false, &n);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		add_path(in, path);
		free(names[i]);
	}
	free(names);
	if (in->n == before)
		return error_msg("%s: no bts dumps (no per_cpu/cpu*/%s, no files)", dir, file);
	return 0;
}

static int parse_cpus(struct options *opt, const char *arg)
{
	const char *p = arg;

	while (*p) {
		char *end;
		unsigned long lo, hi;

		errno = 0;
		lo = strtoul(p, &end, 10);
		if (end == p || errno || lo > UINT32_MAX)
			goto bad;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || errno || hi > UINT32_MAX || hi < lo)
				goto bad;
		}
		opt->cpus = xrealloc(opt->cpus, (opt->ncpus + 1) * sizeof(*opt->cpus));
		opt->cpus[opt->ncpus++] = (struct cpu_range){ (uint32_t)lo, (uint32_t)hi };
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (opt->ncpus)
		return 0;
bad:
	return error_msg("--cpu: bad CPU list \"%s\" (want e.g. 0,2-3)", arg);
}

static bool cpu_selected(const struct options *opt, uint32_t cpu)
{
	if (!opt->cpus)
		return true;
	for (size_t i = 0; i < opt->ncpus; i++)
		if (cpu >= opt->cpus[i].lo && cpu <= opt->cpus[i].hi)
			return true;
	return false;
}

static int parse_count(const char *opt, const char *arg, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-')
		return error_msg("%s: want a number, got \"%s\"", opt, arg);
	return 0;
}

/* By CPU; within a CPU in the order read (a trace.dat has several each). */
/* --around SYM[+OFF]: OFF in hex with 0x, or decimal. */
static int parse_around(struct walk_opts *w, const char *arg)
{
	const char *plus = strchr(arg, '+');
	char *end;

	w->around = arg;
	w->around_len = plus ? (size_t)(plus - arg) : strlen(arg);
	w->around_has_off = plus;
	if (plus) {
		errno = 0;
		w->around_off = strtoull(plus + 1, &end, 0);
		if (!plus[1] || *end || errno)
			return error_msg("--around: want SYM or SYM+OFF, got \"%s\"", arg);
	}
	if (!w->around_len)
		return error_msg("--around: want SYM or SYM+OFF, got \"%s\"", arg);
	return 0;
}

static int dump_cmp(const void *a, const void *b)
{
	const struct bts_dump *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Dump files of the running kernel: its /proc/kallsyms names them. */
static bool same_release(const struct bts_dump *d, size_t n)
{
	struct utsname u;

	if (uname(&u))
		return false;
	for (size_t i = 0; i < n; i++)
		if (d[i].origin || (d[i].release[0] && strcmp(d[i].release, u.release)))
			return false;
	return true;
}

/*
 * One input file: a dump, or a trace.dat (told by its magic) holding any
 * number of histories. Symbols a trace.dat saved go into @st if not NULL.
 */
static int load_input(const char *path, struct dump_list *list, struct resolver *r,
		      bool want_syms, struct console_pending *pend)
{
	static uint8_t head[65536];
	struct utsname u;
	struct stat sb;
	ssize_t got;
	int fd, ret;

	fd = open_input(path, &sb);
	if (fd < 0)
		return -1;
	got = read_full(fd, 0, head, sizeof(head));
	if (got > 0 && tracedat_magic(head, (size_t)got)) {
		size_t before = r->st.n;

		ret = tracedat_load(path, fd, list, want_syms ? &r->st : NULL);
		close(fd);
		if (want_syms && r->st.n > before) {
			r->have_syms = true;
			r->symbols_path = path;
		}
		return ret;
	}
	/* Not a dump, and text: a console log or the trace file. */
	if (got >= 8 && memcmp(head, BTS_MAGIC, 8) && console_is_text(head, (size_t)got)) {
		ret = console_load(path, fd, list, pend, uname(&u) ? NULL : u.release);
		close(fd);
		return ret;
	}
	close(fd);
	/* An ELF core (e_type ET_CORE): a crash dump, read with --vmcore. */
	if (got >= 18 && !memcmp(head, "\177ELF", 4) && head[16] == 4 && head[17] == 0)
		return error_msg("%s: an ELF core, not a dump: for a kdump crash dump give --vmcore %s",
				 path, path);
	if (bts_dump_load(path, dump_list_add(list))) {
		list->n--;
		return -1;
	}
	return 0;
}

enum {
	OPT_CAPTURE = 256,
	OPT_KCORE,
	OPT_NO_SYMBOLS,
	OPT_NO_LINES,
	OPT_NO_DECODE,
	OPT_NO_INDENT,
	OPT_HIST,
	OPT_CALLGRAPH,
	OPT_FOLDED,
	OPT_TOP,
	OPT_FORCE,
	OPT_MODULES,
	OPT_INSNS,
	OPT_AROUND,
	OPT_CONTEXT,
	OPT_NO_SUMMARY,
	OPT_VMCORE,
	OPT_NO_FOLD,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tracing-dir", required_argument, NULL, 't' },
		{ "capture", no_argument, NULL, OPT_CAPTURE },
		{ "vmcore", required_argument, NULL, OPT_VMCORE },
		{ "cpu", required_argument, NULL, 'c' },
		{ "symbols", required_argument, NULL, 's' },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kcore", required_argument, NULL, OPT_KCORE },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "no-lines", no_argument, NULL, OPT_NO_LINES },
		{ "no-decode", no_argument, NULL, OPT_NO_DECODE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "insns", no_argument, NULL, OPT_INSNS },
		{ "around", required_argument, NULL, OPT_AROUND },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "no-summary", no_argument, NULL, OPT_NO_SUMMARY },
		{ "no-fold", no_argument, NULL, OPT_NO_FOLD },
		{ "last", required_argument, NULL, 'n' },
		{ "since-fault", no_argument, NULL, 'f' },
		{ "until-fault", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "perf", no_argument, NULL, 'p' },
		{ "addresses", no_argument, NULL, 'a' },
		{ "no-indent", no_argument, NULL, OPT_NO_INDENT },
		{ "hist", no_argument, NULL, OPT_HIST },
		{ "callgraph", no_argument, NULL, OPT_CALLGRAPH },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .walk.po = { .fmt = FMT_TEXT, .indent = true }, .walk.context = 5,
			       .top = 25 };
	bool no_lines = false, no_decode = false;
	struct analysis *an = NULL;
	struct inputs in = { 0 };
	struct dump_list list = { 0 };
	struct console_pending pend = { 0 };
	struct bts_dump *dumps;
	const char **tdirs = NULL;
	size_t ndumps = 0, ntdirs = 0;
	struct resolver r;
	struct out o;
	int c, status = 0;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "t:c:s:k:n:fFjpahV", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tdirs = xrealloc(tdirs, (ntdirs + 1) * sizeof(*tdirs));
			tdirs[ntdirs++] = optarg;
			break;
		case OPT_CAPTURE:
			opt.capture = true;
			break;
		case OPT_VMCORE:
			if (opt.vmcore) {
				error_msg("--vmcore: give one crash dump");
				return 2;
			}
			opt.vmcore = optarg;
			break;
		case 'c':
			if (parse_cpus(&opt, optarg))
				return 2;
			break;
		case 's':
			opt.symbols = optarg;
			break;
		case 'k':
			opt.vmlinux = optarg;
			break;
		case OPT_KCORE:
			opt.kcore = optarg;
			break;
		case OPT_NO_SYMBOLS:
			opt.no_symbols = true;
			break;
		case OPT_NO_LINES:
			no_lines = true;
			break;
		case OPT_NO_DECODE:
			no_decode = true;
			break;
		case OPT_FORCE:
			opt.force = true;
			break;
		case OPT_MODULES:
			opt.modules = optarg;
			break;
		case OPT_INSNS:
			opt.walk.insns = true;
			break;
		case OPT_AROUND:
			if (parse_around(&opt.walk, optarg))
				return 2;
			break;
		case OPT_CONTEXT:
			if (parse_count("--context", optarg, &v))
				return 2;
			opt.walk.context = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
			break;
		case OPT_NO_SUMMARY:
			opt.walk.no_summary = true;
			break;
		case OPT_NO_FOLD:
			opt.walk.no_fold = true;
			break;
		case 'n':
			if (parse_count("--last", optarg, &opt.walk.last))
				return 2;
			break;
		case 'f':
			opt.walk.since_fault = true;
			break;
		case 'F':
			opt.walk.until_fault = true;
			break;
		case 'j':
			opt.walk.po.fmt = FMT_JSON;
			break;
		case 'p':
			opt.walk.po.fmt = FMT_PERF;
			break;
		case 'a':
			opt.walk.po.addresses = true;
			break;
		case OPT_NO_INDENT:
			opt.walk.po.indent = false;
			break;
		case OPT_HIST:
			opt.hist = true;
			break;
		case OPT_CALLGRAPH:
			opt.callgraph = true;
			break;
		case OPT_FOLDED:
			opt.folded = true;
			break;
		case OPT_TOP:
			if (parse_count("--top", optarg, &v))
				return 2;
			opt.top = v > UINT32_MAX ? UINT32_MAX : (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("bts-dump %s (dump format version %d)\n", BTS_DUMP_VERSION_STRING,
			       BTS_VERSION);
			printf("trace.dat input: %s\n", tracedat_supported ? "yes (libtracecmd)" :
			       "no (built without libtracecmd)");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (opt.hist + opt.callgraph + opt.folded > 1) {
		error_msg("--hist, --callgraph and --folded: choose one");
		return 2;
	}
	for (size_t i = 0; i < ntdirs; i++) {
		if (!is_dir(tdirs[i])) {
			error_msg("%s: not a directory", tdirs[i]);
			status = 1;
		} else if (add_dir(&in, tdirs[i], opt.capture, true)) {
			status = 1;
		}
	}
	free(tdirs);
	for (int i = optind; i < argc; i++) {
		if (is_dir(argv[i])) {
			if (add_dir(&in, argv[i], opt.capture, false))
				status = 1;
		} else {
			add_path(&in, argv[i]);
		}
	}
	if (!in.n && !opt.vmcore) {
		if (status)
			return status;
		error_msg("no input: give dump files, a directory, --tracing-dir or --vmcore (see --help)");
		return 2;
	}

	resolver_init(&r);
	if (opt.vmcore && vmcore_load(opt.vmcore, -1, &list))
		status = 1;
	for (size_t i = 0; i < in.n; i++) {
		if (load_input(in.paths[i], &list, &r, !opt.symbols && !opt.vmlinux, &pend))
			status = 1;
		free(in.paths[i]);
	}
	free(in.paths);
	dumps = list.d;
	ndumps = list.n;

	r.want_src = !no_lines;
	r.want_decode = !no_decode;
	if (opt.symbols && resolver_add_symbols(&r, opt.symbols))
		status = 1;
	if (opt.vmlinux && resolver_add_vmlinux(&r, opt.vmlinux))
		status = 1;
	if (opt.kcore && resolver_add_kcore(&r, opt.kcore))
		status = 1;
	if (opt.modules && resolver_add_modules(&r, opt.modules))
		status = 1;
	if (!opt.symbols && !opt.vmlinux && !opt.no_symbols && ndumps && !r.have_syms &&
	    (same_release(dumps, ndumps) || pend.header_release == 1 ||
	     (pend.mentions_release && pend.header_release != 2)) &&
	    access("/proc/kallsyms", R_OK) == 0) {
		/*
		 * Live system (or a console log naming its release): its
		 * kallsyms names the addresses, if root may see them.
		 */
		if (resolver_add_symbols(&r, "/proc/kallsyms"))
			warn_msg("continuing without symbols");
	}
	r.st.want_names = r.st.want_names || pend.n > 0;
	resolver_ready(&r);
	/*
	 * Is the vmlinux / symbol table the dumped kernel's? Before console
	 * text is named: its bts_history lines carry the build ID too.
	 */
	for (size_t i = 0; i < ndumps; i++) {
		char why[512];

		if (!cpu_selected(&opt, dumps[i].cpu) ||
		    !resolver_check_kernel(&r, &dumps[i], why, sizeof(why)))
			continue;
		if (!opt.force) {
			error_msg("%s; give that kernel's, or --force", why);
			status = 1;
			console_pending_free(&pend);
			goto out;
		}
		warn_msg("%s; --force: using it anyway", why);
		break;
	}
	if (pend.n) {
		/* Console text names its addresses: back to numbers, by name. */
		if (!r.have_syms) {
			error_msg("console text names symbols, not addresses: give -s (System.map or kallsyms) or -k vmlinux of the kernel that printed it");
			status = 1;
			/* Its histories cannot be shown: leave them out. */
			ndumps = 0;
			for (size_t i = 0; i < list.n; i++) {
				if (list.d[i].origin && !strcmp(list.d[i].origin, "console"))
					bts_dump_free(&list.d[i]);
				else
					list.d[ndumps++] = list.d[i];
			}
		} else {
			int ret = console_resolve(&pend, &list, &r.st, opt.force, &r);

			if (ret)
				status = 1;
			if (ret == -2) {
				/* another kernel's symbols: print nothing */
				console_pending_free(&pend);
				goto out;
			}
		}
	}
	console_pending_free(&pend);
	if (ndumps)
		qsort(dumps, ndumps, sizeof(*dumps), dump_cmp);

	out_init(&o, STDOUT_FILENO, 1 << 20);
	if (opt.hist || opt.callgraph || opt.folded)
		an = analysis_new();
	/* Of the analyses only the call graph shows loops: the others count. */
	if (opt.hist || opt.folded)
		opt.walk.no_fold = true;
	for (size_t i = 0; i < ndumps && !o.failed; i++) {
		if (cpu_selected(&opt, dumps[i].cpu))
			walk_dump(&opt.walk, &r, &o, an, &dumps[i]);
	}
	if (an && !o.failed) {
		if (opt.hist)
			print_hist(&o, an, &r, opt.top);
		else if (opt.callgraph)
			print_callgraph(&o, an, &r);
		else
			print_folded(&o, an);
	}
	out_free(&o);
	analysis_free(an);
out:
	for (size_t i = 0; i < ndumps; i++)
		bts_dump_free(&dumps[i]);
	free(dumps);
	free(opt.cpus);
	resolver_free(&r);
	return status;
}
