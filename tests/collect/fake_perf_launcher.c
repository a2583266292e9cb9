/* Starts tests/collect/fake_perf.py the way the real perf starts: as a binary whose argv[0]
   the caller chooses.  A script cannot see its argv[0] (the kernel passes the script's path),
   so the launcher hands it over in FAKE_PERF_ARGV0; PYTHON and SCRIPT are set with -D. */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    char **args = calloc((size_t)argc + 2, sizeof(char *));
    if (!args) return 127;
    setenv("FAKE_PERF_ARGV0", argv[0], 1);
    args[0] = PYTHON;
    args[1] = SCRIPT;
    for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
    execv(PYTHON, args);
    return 127;
}
