/* Known-share workload for checking sampling profiles (hemkit.sampling.record).
 *
 * usage: shares GRANULARITY SEED UNITS_0 [UNITS_1 ... UNITS_7]
 *
 * Up to 8 functions work_0 .. work_7 with identical bodies run UNITS_k work units each
 * (one unit = ITERS dependent multiply-adds).  Calls are interleaved at random, each call
 * running a number of units drawn uniformly from [GRANULARITY/2, 3*GRANULARITY/2] (the
 * running granularity), a function picked with probability proportional to its remaining
 * units, so every function's share holds at any point of the run.  The thread CPU time of
 * every call is measured (CLOCK_THREAD_CPUTIME_ID) and printed at the end as
 *   work_k UNITS CPU_NS CALLS
 * which is the true share of CPU time each function took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NMAX 8
#define ITERS 1000

static volatile double sink;

#define WORK(name)                                                       \
    __attribute__((noinline, noipa, aligned(64))) double name(long units) \
    {                                                                     \
        double x = sink;                                                  \
        for (long u = 0; u < units; u++)                                  \
            for (int i = 0; i < ITERS; i++)                               \
                x = x * 1.0000001 + 1e-9;                                 \
        return x;                                                         \
    }

WORK(work_0) WORK(work_1) WORK(work_2) WORK(work_3)
WORK(work_4) WORK(work_5) WORK(work_6) WORK(work_7)

static double (*const fns[NMAX])(long) = {work_0, work_1, work_2, work_3, work_4, work_5, work_6, work_7};

static unsigned long long rng_state;
static unsigned long long next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 3 + NMAX) {
        fprintf(stderr, "usage: %s GRANULARITY SEED UNITS_0 [... UNITS_%d]\n", argv[0], NMAX - 1);
        return 2;
    }
    long gran = atol(argv[1]);
    rng_state = strtoull(argv[2], NULL, 10) * 2654435761ULL + 88172645463325252ULL;
    int k = argc - 3;
    long units[NMAX], left[NMAX], calls[NMAX];
    long long cpu[NMAX];
    long total = 0;
    if (gran < 1) {
        fprintf(stderr, "granularity must be >= 1\n");
        return 2;
    }
    for (int i = 0; i < k; i++) {
        units[i] = left[i] = atol(argv[3 + i]);
        if (units[i] < 0) {
            fprintf(stderr, "units must be >= 0\n");
            return 2;
        }
        cpu[i] = 0;
        calls[i] = 0;
        total += units[i];
    }
    double acc = 0;
    while (total > 0) {
        long pick = (long)(next_random() % (unsigned long long)total);
        int f = 0;
        while (pick >= left[f]) {
            pick -= left[f];
            f++;
        }
        long lo = gran / 2 > 0 ? gran / 2 : 1;
        long chunk = lo + (long)(next_random() % (unsigned long long)(gran + 1));
        if (chunk > left[f])
            chunk = left[f];
        long long t0 = now_ns();
        acc += fns[f](chunk);
        cpu[f] += now_ns() - t0;
        calls[f]++;
        left[f] -= chunk;
        total -= chunk;
    }
    sink = acc;
    for (int i = 0; i < k; i++)
        printf("work_%d %ld %lld %ld\n", i, units[i], cpu[i], calls[i]);
    return 0;
}
