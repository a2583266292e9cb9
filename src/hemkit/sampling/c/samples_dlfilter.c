/*
 * A perf script "dlfilter" (Linux perf 5.14+): writes every sample as one fixed-size binary
 * record instead of a line of text, and drops it, so that perf prints nothing.
 *
 *     perf script -i perf.data --dlfilter samples_dlfilter.so --dlarg RECORDS --dlarg NAMES
 *
 * RECORDS: one struct record per sample, in perf's (time) order.
 * NAMES:   the names the records refer to (command, event, symbol, DSO), each written once
 *          when first seen, as a 32-bit length and the bytes; name i (from 1) is the i-th.
 *          Id 0 is "no name" (perf could not resolve the symbol or the object).
 *
 * Reading a sample costs perf the same as printing it, minus the formatting; parsing the
 * records costs hemkit nothing (numpy.frombuffer): see hemkit.io.perf_script.read_dlfilter_output.
 * The structures below are the first members of perf's <perf/perf_dlfilter.h>, copied so that
 * the header need not be installed; each has a size field that says which members perf filled.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct perf_dlfilter_sample {
	uint32_t size;
	uint16_t ins_lat;
	uint16_t p_stage_cyc;
	uint64_t ip;
	int32_t pid;
	int32_t tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint64_t period;
	uint64_t weight;
	uint64_t transaction;
	uint64_t insn_cnt;
	uint64_t cyc_cnt;
	int32_t cpu;
	uint32_t flags;
	uint64_t data_src;
	uint64_t phys_addr;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t cgroup;
	uint8_t cpumode;
	uint8_t addr_correlates_sym;
	uint16_t misc;
	uint32_t raw_size;
	const void *raw_data;
	uint64_t brstack_nr;
	const void *brstack;
	uint64_t raw_callchain_nr;
	const uint64_t *raw_callchain;
	const char *event;
};

struct perf_dlfilter_al {
	uint32_t size;
	uint32_t symoff;
	const char *sym;
	uint64_t addr;
	uint64_t sym_start;
	uint64_t sym_end;
	const char *dso;
	uint8_t sym_binding;
	uint8_t is_64_bit;
	uint8_t is_kernel_ip;
	uint32_t buildid_size;
	uint8_t *buildid;
	uint8_t filtered;
	const char *comm;
};

struct perf_dlfilter_fns {
	const struct perf_dlfilter_al *(*resolve_ip)(void *ctx);
	const struct perf_dlfilter_al *(*resolve_addr)(void *ctx);
	char **(*args)(void *ctx, int *dlargc);
	void *(*other[125])(void *);
};

struct perf_dlfilter_fns perf_dlfilter_fns;

struct record { /* 48 bytes, little-endian on the machines perf runs on */
	int32_t tid;
	uint32_t comm;
	uint64_t time; /* ns */
	uint64_t period;
	uint64_t ip;
	uint32_t event;
	uint32_t sym;
	uint32_t dso;
	uint32_t pad;
};

struct names { /* open addressing on the names' bytes */
	char **keys;
	uint32_t *ids;
	size_t cap, used;
};

static FILE *records, *names_out;
static struct names names;
static int failed;

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int grow(void)
{
	size_t cap = names.cap ? names.cap * 2 : 4096;
	char **keys = calloc(cap, sizeof *keys);
	uint32_t *ids = calloc(cap, sizeof *ids);
	if (!keys || !ids)
		return -1;
	for (size_t i = 0; i < names.cap; i++) {
		if (!names.keys[i])
			continue;
		size_t j = hash(names.keys[i]) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = names.keys[i];
		ids[j] = names.ids[i];
	}
	free(names.keys);
	free(names.ids);
	names.keys = keys;
	names.ids = ids;
	names.cap = cap;
	return 0;
}

static uint32_t intern(const char *s)
{
	if (!s)
		return 0;
	if (2 * (names.used + 1) > names.cap && grow() != 0) {
		failed = 1;
		return 0;
	}
	size_t j = hash(s) & (names.cap - 1);
	while (names.keys[j]) {
		if (strcmp(names.keys[j], s) == 0)
			return names.ids[j];
		j = (j + 1) & (names.cap - 1);
	}
	size_t len = strlen(s);
	uint32_t n = (uint32_t)len;
	names.keys[j] = strdup(s);
	names.ids[j] = (uint32_t)++names.used;
	if (!names.keys[j] || fwrite(&n, sizeof n, 1, names_out) != 1 || fwrite(s, 1, len, names_out) != len)
		failed = 1;
	return names.ids[j];
}

int start(void **data, void *ctx)
{
	int argc = 0;
	char **argv = perf_dlfilter_fns.args ? perf_dlfilter_fns.args(ctx, &argc) : NULL;
	(void)data;
	if (argc != 2) {
		fprintf(stderr, "samples_dlfilter: needs --dlarg RECORDS --dlarg NAMES\n");
		return -1;
	}
	records = fopen(argv[0], "wb");
	names_out = fopen(argv[1], "wb");
	if (!records || !names_out) {
		fprintf(stderr, "samples_dlfilter: cannot write %s or %s\n", argv[0], argv[1]);
		return -1;
	}
	setvbuf(records, NULL, _IOFBF, 1 << 20);
	return 0;
}

int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	const struct perf_dlfilter_al *al = perf_dlfilter_fns.resolve_ip(ctx);
	struct record r;
	(void)data;
	memset(&r, 0, sizeof r);
	r.tid = sample->tid;
	r.time = sample->time;
	r.period = sample->period;
	r.ip = sample->ip;
	if (sample->size >= offsetof(struct perf_dlfilter_sample, event) + sizeof sample->event)
		r.event = intern(sample->event);
	if (al) {
		r.sym = intern(al->sym);
		r.dso = intern(al->dso);
		if (al->size >= offsetof(struct perf_dlfilter_al, comm) + sizeof al->comm)
			r.comm = intern(al->comm);
	}
	if (fwrite(&r, sizeof r, 1, records) != 1)
		failed = 1;
	return 1; /* filtered out: perf prints nothing */
}

int stop(void *data, void *ctx)
{
	(void)data;
	(void)ctx;
	if (records && fclose(records) != 0)
		failed = 1;
	if (names_out && fclose(names_out) != 0)
		failed = 1;
	if (failed)
		fprintf(stderr, "samples_dlfilter: could not write every sample (disk full?)\n");
	return failed ? -1 : 0;
}

const char *filter_description(const char **long_description)
{
	*long_description = "hemkit: samples as binary records";
	return "hemkit samples";
}
