/* Known-share workload for checking sampling profiles (hemkit.sampling.record).
 *
 * usage: shares [-t THREADS] GRANULARITY SEED UNITS_0 [UNITS_1 ... UNITS_7]
 *
 * Up to 8 functions work_0 .. work_7 with identical bodies run UNITS_k work units each
 * (one unit = ITERS dependent multiply-adds).  Calls are interleaved at random, each call
 * running a number of units drawn uniformly from [GRANULARITY/2, 3*GRANULARITY/2] (the
 * running granularity), a function picked with probability proportional to its remaining
 * units, so every function's share holds at any point of the run.  The thread CPU time of
 * every call is measured (CLOCK_THREAD_CPUTIME_ID) and printed at the end as
 *   work_k UNITS CPU_NS CALLS
 * which is the true share of CPU time each function took.
 *
 * With -t THREADS the units of every function are split evenly over THREADS threads, each
 * with its own interleaving (its own random stream); the printed times are their sums.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NMAX 8
#define TMAX 64
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

struct job {
    int k;
    long gran;
    unsigned long long rng;
    long left[NMAX];
    long long cpu[NMAX];
    long calls[NMAX];
    double acc;
};

static unsigned long long next_random(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *run_job(void *arg)
{
    struct job *j = arg;
    long total = 0;
    for (int i = 0; i < j->k; i++)
        total += j->left[i];
    while (total > 0) {
        long pick = (long)(next_random(&j->rng) % (unsigned long long)total);
        int f = 0;
        while (pick >= j->left[f]) {
            pick -= j->left[f];
            f++;
        }
        long lo = j->gran / 2 > 0 ? j->gran / 2 : 1;
        long chunk = lo + (long)(next_random(&j->rng) % (unsigned long long)(j->gran + 1));
        if (chunk > j->left[f])
            chunk = j->left[f];
        long long t0 = now_ns();
        j->acc += fns[f](chunk);
        j->cpu[f] += now_ns() - t0;
        j->calls[f]++;
        j->left[f] -= chunk;
        total -= chunk;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 1, a = 1;
    if (argc > 2 && strcmp(argv[1], "-t") == 0) {
        threads = atoi(argv[2]);
        a = 3;
    }
    if (argc - a < 3 || argc - a > 2 + NMAX || threads < 1 || threads > TMAX) {
        fprintf(stderr, "usage: %s [-t THREADS<=%d] GRANULARITY SEED UNITS_0 [... UNITS_%d]\n", argv[0], TMAX,
                NMAX - 1);
        return 2;
    }
    long gran = atol(argv[a]);
    unsigned long long seed = strtoull(argv[a + 1], NULL, 10);
    int k = argc - a - 2;
    long units[NMAX];
    if (gran < 1) {
        fprintf(stderr, "granularity must be >= 1\n");
        return 2;
    }
    for (int i = 0; i < k; i++) {
        units[i] = atol(argv[a + 2 + i]);
        if (units[i] < 0) {
            fprintf(stderr, "units must be >= 0\n");
            return 2;
        }
    }
    static struct job jobs[TMAX];
    pthread_t tids[TMAX];
    for (int t = 0; t < threads; t++) {
        struct job *j = &jobs[t];
        memset(j, 0, sizeof *j);
        j->k = k;
        j->gran = gran;
        j->rng = (seed + (unsigned long long)t * 1000003ULL) * 2654435761ULL + 88172645463325252ULL;
        for (int i = 0; i < k; i++)
            j->left[i] = units[i] * (t + 1) / threads - units[i] * t / threads;
    }
    if (threads == 1) {
        run_job(&jobs[0]);
    } else {
        for (int t = 0; t < threads; t++)
            if (pthread_create(&tids[t], NULL, run_job, &jobs[t]) != 0) {
                fprintf(stderr, "cannot start thread %d\n", t);
                return 1;
            }
        for (int t = 0; t < threads; t++)
            pthread_join(tids[t], NULL);
    }
    double acc = 0;
    for (int t = 0; t < threads; t++)
        acc += jobs[t].acc;
    sink = acc;
    for (int i = 0; i < k; i++) {
        long long cpu = 0;
        long calls = 0;
        for (int t = 0; t < threads; t++) {
            cpu += jobs[t].cpu[i];
            calls += jobs[t].calls[i];
        }
        printf("work_%d %ld %lld %ld\n", i, units[i], cpu, calls);
    }
    return 0;
}
