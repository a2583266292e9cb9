#!/usr/bin/env bash
# Regenerate the real perf fixtures of tests/io (Linux perf 6.1, software events and tracepoints;
# no PMU needed).  Run from tests/io/data.  Every file here is perf's own output, untouched,
# except where a comment at the top of a file says otherwise (zen5/ slices, multiplexed.*).
set -euo pipefail
W='head -c $(( (RANDOM % 50 + 1) * 20000 )) /dev/urandom | gzip -1 > /dev/null'
G=("task-clock,page-faults,context-switches"
   "task-clock,page-faults,syscalls:sys_enter_read"
   "task-clock,context-switches,syscalls:sys_enter_read")
rm -rf runs_csv runs_json && mkdir -p runs_csv runs_json
# 3 event groups x 8 runs, one run per file, groups interleaved as a user's loop would do
for i in $(seq -w 1 24); do
  g=${G[$(( (10#$i - 1) % 3 ))]}
  LC_ALL=C perf stat -x, -o runs_csv/run_$i.csv -e "$g" -- bash -c "$W"
  LC_ALL=C perf stat -j -o runs_json/run_$i.json -e "$g" -- bash -c "$W"
done
# 3 runs whose cycles perf prints <not supported> (no PMU here)
rm -rf unsupported && mkdir -p unsupported
for i in 1 2 3; do LC_ALL=C perf stat -x, -o unsupported/run_$i.csv -e task-clock,page-faults,cycles -- bash -c "$W"; done
E=task-clock,page-faults,context-switches
mkdir -p perf
cd perf
perf stat -x, -o plain.csv -e $E,cycles -- true                       # <not supported> (no PMU)
perf stat -x, -o software.csv -e $E -- bash -c "$W"
perf stat -j -o software.json -e $E -- bash -c "$W"
perf stat -x, -o interval.csv -I 100 -e $E -- sleep 0.25             # -I, with idle <not counted>
perf stat -j -o interval.json -I 100 -e $E -- sleep 0.25
perf stat -x, -o summary.csv -I 100 --summary -e $E -- sleep 0.15     # -I with perf's own total
perf stat -x, -o no_csv_summary.csv -I 100 --summary --no-csv-summary -e $E -- sleep 0.15
perf stat -x, -o repeat.csv -r 3 -e $E -- true                        # -r: the variance column
perf stat -j -o repeat.json -r 3 -e $E -- true
perf stat -x, -o per_cpu.csv -A -a -e $E -- sleep 0.05               # -A: CPU0,...
perf stat -j -o per_cpu.json -A -a -e $E -- sleep 0.05
perf stat -x, -o per_core.csv --per-core -a -e $E -- sleep 0.05      # S0-D0-C0,1,...
perf stat -j -o per_core.json --per-core -a -e $E -- sleep 0.05
perf stat -x, -o per_socket.csv --per-socket -a -e $E -- sleep 0.05  # S0,2,...
perf stat -x, -o interval_per_cpu.csv -I 50 -A -a -e $E -- sleep 0.12
perf stat -x, -o not_counted.csv -D 500 -e $E -- true                 # events never enabled
perf stat -j -o not_counted.json -D 500 -e $E -- true
perf stat -x';' -o semicolon.csv -e $E -- true                        # other separators
perf stat -x"$(printf '\t')" -o tab.csv -e $E -- true
perf stat -x' ' -o space.csv -e $E -- true
perf stat -x, -o pmu_comma.csv -e 'software/config=2,period=1/',task-clock -- true
perf stat -x, -o tracepoints.csv -e syscalls:sys_enter_brk,raw_syscalls:sys_enter -- true
perf stat -o human.txt -e $E -- true                                  # no -x: not machine-readable
rm -f append.csv append.json
for i in 1 2 3; do perf stat -x, --append -o append.csv -e $E -- bash -c "$W"; done
for i in 1 2 3; do perf stat -j --append -o append.json -e $E -- bash -c "$W"; done
# decimal commas: perf under a German locale (localedef builds one where none is installed)
L=$(mktemp -d); localedef -i de_DE -f UTF-8 "$L/de_DE.UTF-8"
LOCPATH=$L LC_ALL=de_DE.UTF-8 perf stat -x, -o de_DE.csv -e $E -- true
LOCPATH=$L LC_ALL=de_DE.UTF-8 perf stat -x';' -o de_DE_semicolon.csv -e $E -- true
LOCPATH=$L LC_ALL=de_DE.UTF-8 perf stat -j -o de_DE.json -e $E -- true
rm -rf "$L"
