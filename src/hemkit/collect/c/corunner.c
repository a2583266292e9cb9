/* hemkit interference co-runner: varies its memory pressure over time so that the runs of
 * a workload on another core see different contention.
 *
 * usage: corunner [MAX_MIB=64] [PERIOD_MS=50] [SECONDS=0 (forever)]
 * Every PERIOD_MS it draws a new working-set size between 1 MiB and MAX_MIB (log-uniform)
 * and streams over it, writing one byte per cache line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    long max_mib = argc > 1 ? atol(argv[1]) : 64;
    double period = (argc > 2 ? atof(argv[2]) : 50.0) / 1000.0;
    double seconds = argc > 3 ? atof(argv[3]) : 0.0;
    if (max_mib < 1) max_mib = 1;
    size_t max_bytes = (size_t)max_mib << 20;
    volatile uint8_t *buf = malloc(max_bytes);
    if (!buf) return 1;
    uint64_t s = 0x2545F4914F6CDD1Dull ^ (uint64_t)now();
    double start = now(), next = start;
    size_t size = 1 << 20;
    while (seconds <= 0 || now() - start < seconds) {
        if (now() >= next) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            double u = (double)(s >> 11) / 9007199254740992.0;
            size = (size_t)((double)(1 << 20) * __builtin_pow(max_bytes / (double)(1 << 20), u));
            next += period;
        }
        for (size_t i = 0; i < size; i += 64) buf[i]++;
    }
    return 0;
}
