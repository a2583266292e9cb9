"""Record all-at-once truth tables of real programs for the merge benchmarks (issue 26).

    nice -n 10 .venv/bin/python benchmarks/truth_record.py --runs 300              # development set
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh --runs 300      # held out as a whole
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh2 --runs 300     # a second held-out set
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh3 --runs 300     # a third held-out set
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh4 --runs 300     # a fourth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh5 --runs 300     # a fifth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh6 --runs 300     # a sixth, for the next choices
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh7 --runs 300     # a seventh, after the sixth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh8 --runs 300     # an eighth, after the seventh
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh9 --runs 300     # a ninth, after the eighth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh10 --runs 300    # a tenth, after the ninth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh11 --runs 300    # an eleventh, after the tenth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh12 --runs 300    # a twelfth, after the eleventh
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh13 --runs 300    # a thirteenth, after the twelfth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh14 --runs 300    # a fourteenth, after the thirteenth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh15 --runs 300    # a fifteenth, after the fourteenth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh16 --runs 300    # a sixteenth, after the fifteenth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh17 --runs 300    # a seventeenth, after the sixteenth
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh18 --runs 300    # an eighteenth, after the 17th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh19 --runs 300    # a nineteenth, after the 18th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh20 --runs 300    # a twentieth, after the 19th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh21 --runs 300    # a 21st, after the 20th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh22 --runs 300    # a 22nd, after the 21st
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh23 --runs 300    # a 23rd, after the 22nd
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh24 --runs 300    # a 24th, after the 23rd
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh25 --runs 300    # a 25th, after the 24th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh26 --runs 300    # a 26th, after the 25th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh27 --runs 300    # a 27th, after the 26th
    nice -n 10 .venv/bin/python benchmarks/truth_record.py --fresh28 --runs 300    # a 28th, after the 27th

Software events and tracepoints use no hardware counter, so perf reads all of them in every
run: every run is a complete vector, and the correlations of the whole table are a known
truth.  Split the runs into the groups of a plan, merge, and compare with it
(``benchmarks/merge_truth.py --truth benchmarks/data/truth``).

Each workload is collected the way a user would, with hemkit itself::

    hemkit plan EVENTS... --pmcs 10 -o plan.toml           # one group: no counter limit
    hemkit collect plan.toml --runs 300 -o W.db [--corunner bundled] -- PROGRAM ARGS...
    hemkit export W.db -o W.csv

and written as ``benchmarks/data/truth/<workload>.csv.gz`` with the columns of the bundled
Zen 5 truth, ``run,event,value``.  Events constant in a workload are kept in the file (a
merge drops them: ordinary data).  The programs are distinct real tools on generated,
deterministic inputs; a few run beside hemkit's cache-thrashing co-runner, and a few are
given a random input size per run (a task whose input varies, as in the field), so the set
spans noise-only and input-driven correlation structure.  The ``--fresh`` set was written
after every merge setting had been chosen and is scored once; ``--fresh2`` (other programs
again) was recorded when ``fresh`` had been scored, for the next change of a default, and
is scored once with the settings frozen; ``--fresh3`` (other programs again) was recorded when
``fresh2`` had been scored, for the choices made after it; ``--fresh4`` when ``fresh3`` had been
scored, for the next ones; ``--fresh5`` when ``fresh4`` had been scored; ``--fresh6`` when ``fresh5`` had;
``--fresh7`` beside an unread ``fresh6``, so that a check remains once ``fresh6`` is read; ``--fresh8``
when ``fresh7`` had been scored; ``--fresh9`` when ``fresh8`` had; ``--fresh10`` when ``fresh9`` had;
``--fresh11`` when ``fresh10`` had; ``--fresh12`` when ``fresh11`` had; ``--fresh13`` when ``fresh12`` had;
``--fresh14`` when ``fresh13`` had; ``--fresh15`` when ``fresh14`` had; ``--fresh16`` when ``fresh15`` had;
``--fresh17`` when ``fresh16`` had; ``--fresh18`` when ``fresh17`` had; ``--fresh19`` when ``fresh18`` had;
``--fresh20`` when ``fresh19`` had; ``--fresh21`` when ``fresh20`` had; ``--fresh22`` when ``fresh21`` had;
``--fresh23`` when ``fresh22`` had; ``--fresh24`` when ``fresh23`` had; ``--fresh25`` when ``fresh24`` had;
``--fresh26`` when ``fresh25`` had; ``--fresh27`` when ``fresh26`` had; ``--fresh28`` when ``fresh27`` had.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

OUT = Path(__file__).parent / "data" / "truth"

EVENTS = [
    "task-clock",
    "context-switches",
    "cpu-migrations",
    "page-faults",
    "kmem:kfree",
    "kmem:mm_page_free",
    "sched:sched_wakeup",
    "irq:softirq_entry",
    "timer:hrtimer_start",
    "rcu:rcu_utilization",
]

PY_DICT = r"""
import json
d = {}
for i in range(40000): d[i] = str(i) * 3
s = json.dumps(d); json.loads(s)
print(len(s))
"""

PY_THREADS = r"""
import queue, threading
q = queue.Queue(maxsize=64)
def producer():
    for i in range(6000): q.put(i)
    q.put(None)
def consumer():
    n = 0
    while q.get() is not None: n += 1
t1, t2 = threading.Thread(target=producer), threading.Thread(target=consumer)
t1.start(); t2.start(); t1.join(); t2.join()
"""

PY_NUM = r"""
import math, random
random.seed(1)
xs = [random.random() for _ in range(120000)]
xs.sort(); print(sum(math.sqrt(x) for x in xs))
"""

NODE = r"""
const m = new Map();
for (let i = 0; i < 60000; i++) m.set('k' + i, {v: i, s: String(i).repeat(3)});
JSON.parse(JSON.stringify(Array.from(m.entries())));
"""

SQL = """
create table t(k integer primary key, a text, b integer);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 40000)
insert into t select x, hex(randomblob(8)), abs(random()) % 500 from c;
create index ib on t(b);
select b, count(*) from t group by b order by 2 desc limit 3;
"""


def gcc_cc1() -> str:
    """The path of GCC's compiler proper (``cc1``), a large binary the set-ups read."""
    return subprocess.run(["gcc", "-print-prog-name=cc1"], capture_output=True, text=True).stdout.strip()


def write_catalogue(path: Path, messages: int) -> None:
    """A gettext message catalogue (``.po``) of ``messages`` entries, for the gettext tools to work on."""
    po = "".join(f'msgid "m{k}"\nmsgstr "n{k}"\n\n' for k in range(messages))
    path.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n' + po)


def write_ninja_targets(folder: Path, targets: int) -> None:
    """``folder/build.ninja``: ``targets`` outputs, each made by ``touch`` (ninja's own work, little else)."""
    folder.mkdir(exist_ok=True)
    rules = "rule t\n  command = touch $out\n" + "".join(f"build o{k}: t\n" for k in range(targets))
    (folder / "build.ninja").write_text(rules)


def write_cmake_loop(path: Path, steps: int) -> None:
    """A CMake script that grows a string ``steps`` times (CMake's interpreter alone)."""
    body = '  string(APPEND s "x${i}")\n  string(LENGTH "${s}" n)\n'
    path.write_text(f'set(s "")\nforeach(i RANGE {steps})\n{body}endforeach()\n')


def write_c_sources(folder: Path, files: int) -> None:
    """``files`` one-function C files in ``folder``, for the source indexers to read."""
    folder.mkdir(exist_ok=True)
    for k in range(files):
        (folder / f"f{k}.c").write_text(f"int g{k}(int x) {{ return x * {k}; }}\nstruct s{k} {{ int a; }};\n")


def make_inputs(root: Path) -> dict[str, Path]:
    """Generated, deterministic inputs."""
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    text = root / "text.txt"
    with open(text, "w") as f:
        for _ in range(40000):
            f.write(" ".join(rng.choice(words) for _ in range(8)) + "\n")
    nums = root / "nums.txt"
    nums.write_text("\n".join(str(rng.randint(0, 10**9)) for _ in range(60000)) + "\n")
    csrc = root / "small.c"
    csrc.write_text(
        "".join(
            f"double f{k}(double *a, int n) {{ double s = 0; for (int i = 0; i < n; i++) "
            f"s += a[i] * {k + 1}.0 / (1.0 + a[(i * {k + 3}) % n]); return s; }}\n"
            for k in range(40)
        )
    )
    tree = root / "tree"
    tree.mkdir()
    for k in range(200):
        (tree / f"f{k}.txt").write_text(" ".join(rng.choice(words) for _ in range(rng.randint(10, 800))))
    json_in = root / "data.json"
    json_in.write_text("[" + ",".join(f'{{"k":{i},"v":"{rng.choice(words)}"}}' for i in range(20000)) + "]")
    for name, src in [("py_dict.py", PY_DICT), ("py_threads.py", PY_THREADS), ("py_num.py", PY_NUM)]:
        (root / name).write_text(src)
    (root / "work.js").write_text(NODE)
    (root / "work.sql").write_text(SQL)
    return {"text": text, "nums": nums, "csrc": csrc, "tree": tree, "json": json_in}


def dev_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """Development set: name -> (command, beside the co-runner)."""
    text, scratch = str(root / "text.txt"), str(root / "scratch")
    py = sys.executable
    return {
        "gzip": (["gzip", "-c", "-6", text], False),
        "xz": (["xz", "-c", "-1", "-T1", text], False),
        "sort": (["sort", "-n", "-S", "16M", "-T", scratch, str(root / "nums.txt")], False),
        "gcc": (["gcc", "-O1", "-c", str(root / "small.c"), "-o", f"{scratch}/small.o"], False),
        "py-dict": ([py, str(root / "py_dict.py")], False),
        "py-threads": ([py, str(root / "py_threads.py")], False),
        "sqlite": (["sh", "-c", f"rm -f {scratch}/w.db; sqlite3 {scratch}/w.db < {root / 'work.sql'}"], False),
        "sha256": (["sha256sum", text, text, text], False),
        "tar": (["tar", "cf", "-", "-C", str(root), "tree"], False),
        "awk": (["awk", "{for (i = 1; i <= NF; i++) c[$i]++} END {n = 0; for (w in c) n++; print n}", text], False),
        "bzip2-corunner": (["bzip2", "-c", "-9", text], True),
        "perl-corunner": (["perl", "-ne", "$h{$_}++ for /(\\w{4,})/g; END { print scalar(keys %h) }", text], True),
        # input size drawn per run: the task's input varies, as a control task's does in the field
        "seq-gzip-varied": (["bash", "-c", "seq 1 $((20000 + RANDOM * 4)) | gzip -c | wc -c"], False),
        "find-varied": (
            ["bash", "-c", f"find {root}/tree -type f | head -n $((RANDOM % 200 + 1)) | xargs cat | wc"],
            False,
        ),
    }


def fresh_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """Held out as a whole: recorded after the merge settings were frozen."""
    text = str(root / "text.txt")
    return {
        "zstd": (["zstd", "-c", "-9", "-T1", text], False),
        "md5sum": (["md5sum", text, text, text, text], False),
        "node": (["node", str(root / "work.js")], False),
        "jq": (["jq", "-c", "map(select(.k % 3 == 0)) | length", str(root / "data.json")], False),
        "py-num-corunner": ([sys.executable, str(root / "py_num.py")], True),
        "grep-varied": (["bash", "-c", f"head -n $((RANDOM + 2000)) {text} | grep -c 'ab'"], False),
        "lz4": (["lz4", "-c", "-9", text], False),
        "bc": (["bash", "-c", "echo 'scale=600; 4*a(1)' | bc -l"], False),
    }


CXX = r"""
#include <map>
#include <string>
#include <vector>
#include <algorithm>
template <int N> struct F { static int v(int x) { return F<N - 1>::v(x) * 3 + N; } };
template <> struct F<0> { static int v(int x) { return x; } };
std::map<std::string, std::vector<int>> build(int n) {
  std::map<std::string, std::vector<int>> m;
  for (int i = 0; i < n; i++) m[std::to_string(i % 97)].push_back(F<40>::v(i));
  for (auto &kv : m) std::sort(kv.second.begin(), kv.second.end());
  return m;
}
"""


def fresh2_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A second held-out set: programs in neither the development nor the ``fresh`` set."""
    text, scratch = str(root / "text.txt"), str(root / "scratch")
    (root / "work.cpp").write_text(CXX)
    return {
        "sed": (["sed", "-e", "s/[aeiou]\\+/X/g", text], False),
        "b2sum": (["b2sum", text, text], False),
        "openssl-enc": (["openssl", "enc", "-aes-256-cbc", "-pbkdf2", "-pass", "pass:hemkit", "-in", text], False),
        "gxx": (["g++", "-O1", "-c", str(root / "work.cpp"), "-o", f"{scratch}/work.o"], False),
        "zip-tree": (["sh", "-c", f"cd {root} && zip -q -r -9 - tree | wc -c"], False),
        "cut-uniq": (["sh", "-c", f"cut -d' ' -f2 {text} | tr a-z A-Z | uniq -c | wc -l"], False),
        "xxd-corunner": (["sh", "-c", f"xxd {text} | tail -n 1"], True),
        # input size drawn per run
        "base64-varied": (["bash", "-c", f"head -c $((RANDOM * 40 + 1000)) {text} | base64 | wc -c"], False),
    }


TCL = r"""
set d [dict create]
for {set i 0} {$i < 60000} {incr i} { dict incr d [expr {($i * 7919) % 1013}] }
set s 0
dict for {k v} $d { incr s [expr {$k * $v}] }
puts $s
"""


def fresh3_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A third held-out set: programs in none of the development, ``fresh`` and ``fresh2`` sets."""
    text = str(root / "text.txt")
    (root / "work.tcl").write_text(TCL)
    return {
        "sha512sum": (["sha512sum", text, text, text], False),
        "tac-wc": (["sh", "-c", f"tac {text} | wc -w"], False),
        "od": (["sh", "-c", f"od -An -tx1 {text} | tail -n 1"], False),
        "tclsh": (["tclsh", str(root / "work.tcl")], False),
        "strings-corunner": (["sh", "-c", "strings /usr/bin/git | wc -l"], True),
        "shuf": (["sh", "-c", f"shuf --random-source={text} {text} | head -c 100"], False),
        "gpg-sym": (
            [
                "gpg",
                "--batch",
                "--quiet",
                "--homedir",
                str(root / "gnupg"),
                "--pinentry-mode",
                "loopback",
                "--passphrase",
                "hemkit",
                "--symmetric",
                "--output",
                "-",
                text,
            ],
            False,
        ),
        # input size drawn per run
        "factor-varied": (["bash", "-c", "seq 1000000 $((1000000 + RANDOM)) | factor | wc -l"], False),
    }


ASM = "".join(
    f"    .globl f{k}\nf{k}:\n"
    + "".join(f"    addq ${i}, %rax\n    imulq %rbx, %rcx\n" for i in range(40))
    + "    ret\n"
    for k in range(300)
)


def fresh4_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A fourth held-out set: programs in none of the earlier sets."""
    text, scratch = str(root / "text.txt"), str(root / "scratch")
    (root / "work.s").write_text(ASM)
    return {
        "cksum": (["cksum", text, text, text, text], False),
        "sha1sum": (["sha1sum", text, text, text], False),
        "nl-fold": (["sh", "-c", f"nl {text} | fold -w 30 | wc -l"], False),
        "as": (["as", "-o", f"{scratch}/work.o", str(root / "work.s")], False),
        "split-corunner": (["sh", "-c", f"rm -f {scratch}/part.*; split -l 2000 {text} {scratch}/part."], True),
        "diff": (["sh", "-c", f"tr a-e A-E < {text} | diff {text} - | wc -l"], False),
        "py-compile": (
            [
                sys.executable,
                "-c",
                f"import py_compile; py_compile.compile({str(root / 'py_dict.py')!r}, doraise=True)",
            ],
            False,
        ),
        # input size drawn per run
        "wc-varied": (["bash", "-c", f"head -n $((RANDOM + 1000)) {text} | wc"], False),
    }


def fresh5_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A fifth held-out set: programs in none of the earlier sets."""
    text, scratch = str(root / "text.txt"), str(root / "scratch")
    return {
        "rev": (["sh", "-c", f"rev {text} | wc -c"], False),
        "expand-unexpand": (["sh", "-c", f"expand {text} | unexpand -a | wc -c"], False),
        "sum": (["sum", text, text, text], False),
        "fmt-pr": (["sh", "-c", f"fmt -w 50 {text} | pr -2 -t | wc -l"], False),
        "column-corunner": (["sh", "-c", "seq 1 30000 | paste - - - | column -t | wc -l"], True),
        "cmp": (["sh", "-c", f"tr a-c x < {text} > {scratch}/t2; cmp -l {text} {scratch}/t2 | wc -l"], False),
        "nroff": (["sh", "-c", f"nroff -Tutf8 {text} | wc -l"], False),
        # input size drawn per run
        "base32-varied": (["bash", "-c", f"head -c $((RANDOM * 20 + 1000)) {text} | base32 | wc -l"], False),
    }


def fresh6_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A sixth held-out set: programs in none of the earlier sets."""
    text, scratch = str(root / "text.txt"), str(root / "scratch")
    return {
        "sha224sum": (["sha224sum", text, text, text], False),
        "sha384sum": (["sha384sum", text, text], False),
        "tsort": (["sh", "-c", "seq 1 4000 | paste -d' ' - - | tsort | wc -l"], False),
        "numfmt": (["sh", "-c", "seq 1 7 200000 | numfmt --to=si | tail -n 1"], False),
        "ptx-corunner": (["sh", "-c", f"head -n 300 {text} | ptx | wc -l"], True),
        "csplit": (["sh", "-c", f"cd {scratch} && rm -f xx* && csplit -s {text} 2000 '{{8}}' ; ls | wc -l"], False),
        "shred": (["sh", "-c", f"cp {text} {scratch}/s && shred -n 1 {scratch}/s"], False),
        # input size drawn per run
        "dd-varied": (["bash", "-c", f"dd if={text} bs=4096 count=$((RANDOM % 200 + 10)) status=none | wc -c"], False),
    }


def fresh7_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A seventh held-out set: programs in none of the earlier sets."""
    text, scratch = str(root / "text.txt"), str(root / "scratch")
    return {
        "tr-squeeze": (["sh", "-c", f"tr -s a-z A-Z < {text} | tr -d E | wc -c"], False),
        "join": (
            ["sh", "-c", f"nl -ba {text} | sort -k1,1 > {scratch}/j1; join {scratch}/j1 {scratch}/j1 | wc -l"],
            False,
        ),
        "tee": (["sh", "-c", f"tee {scratch}/t1 {scratch}/t2 < {text} | wc -l"], False),
        "comm": (["sh", "-c", f"sort -u {text} > {scratch}/c1; comm -23 {scratch}/c1 {scratch}/c1 | wc -l"], False),
        "xargs-corunner": (["sh", "-c", "seq 1 3000 | xargs -n 50 echo | wc -l"], True),
        "hexdump": (["sh", "-c", f"head -c 200000 {text} | hexdump -C | tail -n 1"], False),
        "ls-tree": (["sh", "-c", "ls -lR /usr/lib/python3* | wc -l"], False),
        # input size drawn per run
        "basenc-varied": (["bash", "-c", f"head -c $((RANDOM * 20 + 1000)) {text} | basenc --base16 | wc -c"], False),
    }


def fresh8_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """An eighth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    text, scratch, tree = str(root / "text.txt"), root / "scratch", str(root / "tree")
    subprocess.run([sys.executable, "-m", "zipfile", "-c", str(scratch / "tree.zip"), tree], check=True)
    lines = Path(text).read_text().splitlines(keepends=True)
    (scratch / "a.txt").write_text("".join(lines))
    (scratch / "b.txt").write_text("".join(ln.upper() if k % 13 == 0 else ln for k, ln in enumerate(lines)))
    diff = subprocess.run(
        ["diff", "-u", str(scratch / "a.txt"), str(scratch / "b.txt")], capture_output=True, text=True
    )
    (scratch / "ab.patch").write_text(diff.stdout)
    (scratch / "words").write_text("\n".join(sorted({w for ln in lines for w in ln.split()})) + "\n")
    subprocess.run(["sh", "-c", f"gzip -c {text} > {scratch}/text.gz"], check=True)
    s = str(scratch)
    return {
        "unzip": (["sh", "-c", f"rm -rf {s}/u && unzip -q -d {s}/u {s}/tree.zip"], False),
        "patch-corunner": (["patch", "-s", "-o", f"{s}/p.out", f"{s}/a.txt", f"{s}/ab.patch"], True),
        "ar": (["sh", "-c", f"rm -f {s}/x.a && ar rc {s}/x.a {tree}/f1*.txt && ar t {s}/x.a | wc -l"], False),
        "ed": (["sh", "-c", f"printf ',s/e/E/g\\nw {s}/ed.out\\nq\\n' | ed -s {s}/a.txt"], False),
        "fold": (["sh", "-c", f"fold -w 37 {text} | wc -l"], False),
        "paste": (["sh", "-c", f"paste {text} {text} {text} | wc -c"], False),
        "zcat": (["sh", "-c", f"zcat {s}/text.gz | wc -l"], False),
        # input size drawn per run
        "look-varied": (
            [
                "bash",
                "-c",
                f"head -n $((RANDOM % 300 + 20)) {s}/words | while read w; do look $w {s}/words; done | wc -l",
            ],
            False,
        ),
    }


def fresh9_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A ninth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch, csrc = root / "scratch", str(root / "small.c")
    cc1 = gcc_cc1()
    names = subprocess.run(["nm", "-D", "--defined-only", cc1], capture_output=True, text=True).stdout.split()
    (scratch / "mangled").write_text("\n".join(n for n in names if n.startswith("_Z")) + "\n")
    (scratch / "addrs").write_text("\n".join(hex(0x400000 + 64 * k) for k in range(2000)) + "\n")
    subprocess.run(["gcc", "-O1", "-c", "-o", str(scratch / "small.o"), csrc], check=True)
    s = str(scratch)
    return {
        "objcopy": (["sh", "-c", f"for i in $(seq 30); do objcopy -O binary {s}/small.o {s}/small.bin; done"], False),
        "size": (["sh", "-c", f"for i in $(seq 40); do size -A {cc1} > /dev/null; done"], False),
        "cxxfilt-corunner": (["sh", "-c", f"c++filt < {s}/mangled | wc -c"], True),
        "strip": (["sh", "-c", f"for i in $(seq 30); do strip -o {s}/small.s {s}/small.o; done"], False),
        "addr2line": (["sh", "-c", f"addr2line -f -e {cc1} < {s}/addrs | wc -l"], False),
        "ld": (["sh", "-c", f"for i in $(seq 30); do ld -r -o {s}/r.o {s}/small.o; done"], False),
        "ranlib": (["sh", "-c", f"rm -f {s}/l.a && ar rc {s}/l.a {s}/small.o && ranlib {s}/l.a"], False),
        # input size drawn per run
        "stat-varied": (
            ["bash", "-c", f"find {root}/tree -type f | head -n $((RANDOM % 180 + 20)) | xargs stat -c '%s' | wc -l"],
            False,
        ),
    }


def fresh10_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A tenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    cc1 = gcc_cc1()
    write_catalogue(scratch / "x.po", 3000)
    s = str(scratch)
    return {
        "valgrind": (["valgrind", "-q", "--tool=none", "/bin/true"], False),
        "ssh-keygen-corunner": (["sh", "-c", f"rm -f {s}/e {s}/e.pub; ssh-keygen -q -t ed25519 -N '' -f {s}/e"], True),
        "msgfmt": (["msgfmt", "-o", f"{s}/x.mo", f"{s}/x.po"], False),
        "touch-rm": (
            ["sh", "-c", f"mkdir -p {s}/t; for i in $(seq 200); do touch {s}/t/f$i; done; rm -rf {s}/t"],
            False,
        ),
        "dash": (["dash", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"], False),
        "gdb": (["gdb", "-nx", "-batch", "-ex", "info functions ^main$", cc1], False),
        "strace": (["strace", "-f", "-c", "-o", "/dev/null", "ls", "-R", "/usr/share/doc/gcc-12-base"], False),
        # input size drawn per run
        "ldd-varied": (
            ["bash", "-c", "ls -d /usr/bin/* | head -n $((RANDOM % 40 + 5)) | xargs ldd 2>/dev/null | wc -l"],
            False,
        ),
    }


def fresh11_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """An eleventh held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    text, scratch = str(root / "text.txt"), root / "scratch"
    lines = Path(text).read_text().splitlines(keepends=True)[:4000]
    (scratch / "a.txt").write_text("".join(lines))
    (scratch / "b.txt").write_text("".join(ln.upper() if k % 11 == 0 else ln for k, ln in enumerate(lines)))
    (scratch / "c.txt").write_text("".join(ln for k, ln in enumerate(lines) if k % 17))
    (scratch / "msgs.c").write_text("".join(f'const char *m{k} = _("message {k} of the set");\n' for k in range(2000)))
    s = str(scratch)
    return {
        "mawk": (["mawk", "{n += length($0)} END {print n}", text], False),
        "groff": (["sh", "-c", "zcat /usr/share/man/man1/ls.1.gz | groff -man -Tutf8 | wc -l"], False),
        "dpkg-query": (
            ["sh", "-c", "dpkg-query -W -f '${Package} ${Installed-Size}\\n' | sort -k2 -n | tail -n 1"],
            False,
        ),
        "xgettext-corunner": (["xgettext", "-k_", "-o", f"{s}/x.pot", f"{s}/msgs.c"], True),
        "vim": (["vim", "-u", "NONE", "-es", "-c", "%s/e/E/g", "-c", f"w! {s}/v.out", "-c", "q!", f"{s}/a.txt"], False),
        "diff3": (["sh", "-c", f"diff3 {s}/a.txt {s}/b.txt {s}/c.txt | wc -l"], False),
        "ps": (["sh", "-c", "ps -e -o pid,rss,vsz,comm | wc -l"], False),
        # input size drawn per run
        "sdiff-varied": (
            [
                "bash",
                "-c",
                f"n=$((RANDOM % 3000 + 200)); sdiff -s <(head -n $n {s}/a.txt) <(head -n $n {s}/b.txt) | wc -l",
            ],
            False,
        ),
    }


def fresh12_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twelfth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    cc1 = gcc_cc1()
    write_catalogue(scratch / "y.po", 3000)
    nj = scratch / "nj"
    write_ninja_targets(nj, 100)
    write_cmake_loop(scratch / "loop.cmake", 3000)
    repo = scratch / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    git = ["git", "-C", str(repo), "-c", "user.name=h", "-c", "user.email=h@x"]
    for k in range(20):
        (repo / f"f{k % 5}.txt").write_text(f"version {k}\n" * (k + 1))
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", f"c{k}"], check=True)
    s = str(scratch)
    return {
        "ninja": (["sh", "-c", f"ninja -C {nj} -t clean > /dev/null; ninja -C {nj} > /dev/null"], False),
        "cmake": (["cmake", "-P", f"{s}/loop.cmake"], False),
        "apt-cache": (["sh", "-c", "apt-cache showpkg bash coreutils | wc -l"], False),
        "tic": (["sh", "-c", f"infocmp -x xterm-256color > {s}/xt.src && tic -x -o {s}/ti {s}/xt.src"], False),
        "readelf": (["sh", "-c", f"readelf -s -W {cc1} | wc -l"], False),
        "msgcat-corunner": (["msgcat", "-o", f"{s}/y2.po", f"{s}/y.po"], True),
        "git": (["sh", "-c", f"git -C {repo} log -p | wc -l"], False),
        # input size drawn per run
        "file-varied": (
            ["bash", "-c", "ls -d /usr/bin/* | head -n $((RANDOM % 120 + 10)) | xargs file | wc -l"],
            False,
        ),
    }


def fresh13_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A thirteenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s, text = str(scratch), str(root / "text.txt")
    subprocess.run(["gcc", "-O2", "-c", str(root / "small.c"), "-o", f"{s}/small.o"], check=True)
    libc = subprocess.run(["gcc", "-print-file-name=libc.so.6"], check=True, capture_output=True, text=True)
    write_catalogue(scratch / "z.po", 3000)
    mk = scratch / "mk"
    mk.mkdir()
    targets = " ".join(f"o{k}" for k in range(100))
    (mk / "Makefile").write_text(
        f"T := {targets}\nall: $(T)\no%:\n\ttouch $@\nclean:\n\trm -f $(T)\n.PHONY: all clean\n"
    )
    src = scratch / "src"
    write_c_sources(src, 60)
    return {
        "objdump": (["sh", "-c", f"objdump -d -r {s}/small.o | wc -l"], False),
        "nm": (["sh", "-c", f"nm -D {libc.stdout.strip()} | wc -l"], False),
        "iconv": (["iconv", "-f", "utf-8", "-t", "utf-16", "-o", f"{s}/t16", text], False),
        "du": (["sh", "-c", "du -a /usr/share/locale | wc -l"], False),
        "msgmerge-corunner": (["msgmerge", "-q", "-o", f"{s}/z2.po", f"{s}/z.po", f"{s}/z.po"], True),
        "ctags": (["ctags", "-R", "-f", f"{s}/tags", str(src)], False),
        "make": (["make", "-s", "-C", str(mk), "clean", "all"], False),
        # input size drawn per run
        "zdump-varied": (
            [
                "bash",
                "-c",
                "zdump -c 2000,2030 -v $(ls /usr/share/zoneinfo/Europe | head -n $((RANDOM % 30 + 2))"
                " | sed 's#^#Europe/#') | wc -l",
            ],
            False,
        ),
    }


def fresh14_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A fourteenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s, text = str(scratch), str(root / "text.txt")
    src = scratch / "src"
    write_c_sources(src, 20)
    objs = []
    for c in sorted(src.glob("*.c")):
        subprocess.run(["gcc", "-O1", "-c", str(c), "-o", f"{s}/{c.stem}.o"], check=True)
        objs.append(f"{s}/{c.stem}.o")
    write_catalogue(scratch / "u.po", 3000)
    return {
        "ld-gold": (["ld.gold", "-r", "-o", f"{s}/r.o", *objs], False),
        "msguniq-corunner": (["msguniq", "-o", f"{s}/u2.po", f"{s}/u.po"], True),
        "json-pp": (["sh", "-c", f"json_pp < {root / 'data.json'} | wc -l"], False),
        "toe": (["sh", "-c", "toe -a | wc -l"], False),
        "recode-sr-latin": (["sh", "-c", f"recode-sr-latin < {text} | wc -c"], False),
        "lsof": (["sh", "-c", "lsof -n -P 2>/dev/null | wc -l"], False),
        "expr-loop": (["sh", "-c", "for i in $(seq 100); do expr $i + 1; done > /dev/null"], False),
        # input size drawn per run
        "getent-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do getent services; done | wc -l"],
            False,
        ),
    }


def fresh15_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A fifteenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    write_catalogue(scratch / "c.po", 3000)
    # a message source for gencat: 40 sets of 100 messages
    sets = (f"$set {k}\n" + "".join(f"{i} message {k}.{i}\n" for i in range(1, 101)) for k in range(1, 41))
    (scratch / "m.msg").write_text("".join(sets))
    pod = next(iter(sorted(Path("/usr/share/perl").glob("5*/pod/perldiag.pod"))), None)
    pod_file = str(pod) if pod else "/dev/null"
    return {
        "pod2text": (["sh", "-c", f"pod2text {pod_file} | wc -l"], False),
        "msgconv-corunner": (["msgconv", "-t", "ISO-8859-1", "-o", f"{s}/c2.po", f"{s}/c.po"], True),
        "zic": (["zic", "-d", f"{s}/zi", "/usr/share/zoneinfo/tzdata.zi"], False),
        "gencat": (["gencat", f"{s}/m.cat", f"{s}/m.msg"], False),
        "findmnt": (["sh", "-c", "findmnt -J | wc -c"], False),
        "dircolors": (["sh", "-c", "dircolors -p | dircolors -b - | wc -c"], False),
        "pmap": (["sh", "-c", "pmap -x $$ | wc -l"], False),
        # input size drawn per run
        "vmstat-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do vmstat -s; done | wc -l"],
            False,
        ),
    }


def fresh16_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A sixteenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s, text = str(scratch), str(root / "text.txt")
    write_catalogue(scratch / "f.po", 100)
    pod = next(iter(sorted(Path("/usr/share/perl").glob("5*/pod/perldiag.pod"))), None)
    pod_file = str(pod) if pod else "/dev/null"
    return {
        "pod2html": (["pod2html", f"--infile={pod_file}", f"--outfile={s}/p.html", f"--cachedir={s}"], False),
        "msgfilter-corunner": (["msgfilter", "-i", f"{s}/f.po", "-o", f"{s}/f2.po", "tr", "a-z", "A-Z"], True),
        "getconf": (["sh", "-c", "for i in $(seq 50); do getconf -a > /dev/null; done"], False),
        "infocmp": (["sh", "-c", "for t in xterm vt100 linux screen ansi dumb; do infocmp -a $t; done | wc -l"], False),
        "iconvconfig": (["iconvconfig", "-o", f"{s}/gconv.cache"], False),
        "colrm": (["sh", "-c", f"head -n 20000 {text} | colrm 10 40 | wc -l"], False),
        "piconv": (["sh", "-c", f"head -n 3000 {text} | piconv -f utf8 -t latin1 | wc -c"], False),
        # input size drawn per run
        "namei-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do namei -l /usr/share/zoneinfo/Europe/Paris; done"],
            False,
        ),
    }


def fresh17_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A seventeenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s, tree = str(scratch), str(root / "tree")
    write_catalogue(scratch / "g.po", 3000)
    shutil.copytree(root / "tree", scratch / "tree2")  # hardlink compares files of equal size only
    rows = "".join(f"r{k}\t{k * 3}\t{k % 7}\tx{k}\n" for k in range(2000))
    (scratch / "t.ms").write_text(".TS\nallbox;\nl n n l.\n" + rows + ".TE\n")
    (scratch / "t").mkdir()
    for k in range(5):
        (scratch / "t" / f"t{k}.t").write_text('use strict; print "1..3\\n"; print "ok $_\\n" for 1..3;\n')
    return {
        "corelist": (["sh", "-c", "corelist -a Storable | wc -l"], False),
        "msgcmp-corunner": (["msgcmp", f"{s}/g.po", f"{s}/g.po"], True),
        "sysctl": (["sh", "-c", "sysctl -a 2>/dev/null | wc -l"], False),
        "tbl": (["sh", "-c", f"tbl {s}/t.ms | wc -c"], False),
        "hardlink": (["hardlink", "-n", "-c", tree, f"{s}/tree2"], False),
        "prove": (["prove", "-Q", f"{s}/t"], False),
        "lsns": (["lsns"], False),
        # input size drawn per run
        "whereis-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do whereis ls gcc perl; done"],
            False,
        ),
    }


def fresh18_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """An eighteenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    img = f"{s}/fs.img"  # a small ext4 image to check, dump and list
    subprocess.run(["truncate", "-s", "16M", img], check=True)
    subprocess.run(["mke2fs", "-q", "-F", img], check=True)
    with open(scratch / "s.xz", "wb") as f:  # numbers to grep in, compressed
        seq = subprocess.run(["seq", "1", "300000"], capture_output=True, check=True).stdout
        f.write(subprocess.run(["xz", "-1"], input=seq, capture_output=True, check=True).stdout)
    (scratch / "ph").mkdir()
    libs = "/usr/lib/x86_64-linux-gnu/*.so*"
    return {
        "e2fsck": (["e2fsck", "-fn", img], False),
        "dumpe2fs-corunner": (["sh", "-c", f"dumpe2fs {img} 2>/dev/null | wc -l"], True),
        "debugfs": (["sh", "-c", f"debugfs -R 'ls -l /' {img} 2>/dev/null | wc -l"], False),
        "h2ph": (["h2ph", "-d", f"{s}/ph", "/usr/include/stdio.h", "/usr/include/string.h"], False),
        "fincore": (["sh", "-c", f"fincore {libs} | wc -l"], False),
        "tput-loop": (["sh", "-c", "for i in $(seq 50); do tput -T xterm cols; done | wc -l"], False),
        "xzgrep": (["xzgrep", "-c", "99", f"{s}/s.xz"], False),
        # input size drawn per run
        "mcookie-varied": (["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do mcookie; done | wc -l"], False),
    }


def fresh19_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A nineteenth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    with open(scratch / "e.ms", "w") as f:  # equations for eqn, pictures for pic, both set by troff
        for i in range(200):
            f.write(f".EQ\nx sup {i} + y sub i over {{a + b}} = sqrt {{z}}\n.EN\nLine {i} of text.\n")
    with open(scratch / "f.pic", "w") as f:
        f.write('.PS\nbox "a"; arrow; circle "b"; arrow; ellipse "c"\n.PE\n' * 100)
    subprocess.run(["truncate", "-s", "16M", f"{s}/sw.img"], check=True)
    return {
        "eqn-troff": (["sh", "-c", f"eqn {s}/e.ms | troff -Tps > /dev/null"], False),
        "pic": (["sh", "-c", f"pic {s}/f.pic | troff -Tps > /dev/null"], False),
        "pydoc": (["sh", "-c", "pydoc3 json > /dev/null"], False),
        "lslogins": (["sh", "-c", "lslogins > /dev/null"], False),
        "lsfd-corunner": (["sh", "-c", "lsfd > /dev/null"], True),
        "mkswap": (["sh", "-c", f"mkswap -f {s}/sw.img > /dev/null 2>&1"], False),
        "ipcs": (["ipcs"], False),
        # input size drawn per run
        "getopt-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do getopt -o ab: -- -a -b x y; done | wc -l"],
            False,
        ),
    }


def fresh20_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twentieth held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    certs = scratch / "certs"  # five certificates for c_rehash to hash and link
    certs.mkdir()
    for pem in sorted(Path("/etc/ssl/certs").glob("*.pem"))[:5]:
        (certs / pem.name).write_bytes(pem.read_bytes())
    with open(scratch / "old.py", "w") as f:  # Python 2 for 2to3 to read (and not write)
        f.write("".join(f"print 'line %d' % {i}\nd = dict()\nif d.has_key({i}): pass\n" for i in range(40)))
    with open(scratch / "bs.txt", "w") as f:  # overstruck text (bold and underline by backspaces) for col
        f.write("".join(f"B\bBo\bol\bld_\bl_\bi_\bn_\be {i}\n" for i in range(5000)))
    return {
        "splain": (["sh", "-c", "echo 'Use of uninitialized value in addition (+) at - line 1.' | splain"], False),
        "c_rehash": (["sh", "-c", f"c_rehash {certs} > /dev/null"], False),
        "lastlog": (["sh", "-c", "lastlog > /dev/null"], False),
        "pinky": (["sh", "-c", "pinky > /dev/null"], False),
        "debconf-show": (["sh", "-c", "debconf-show debconf > /dev/null 2>&1"], False),
        "2to3": (["sh", "-c", f"2to3 {s}/old.py > /dev/null 2>&1"], False),
        "col-corunner": (["sh", "-c", f"col -b < {s}/bs.txt > /dev/null"], True),
        # input size drawn per run
        "id-varied": (["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do id; done | wc -l"], False),
    }


def fresh21_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-first held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    files = scratch / "files"  # twenty small files for lsattr, zip and mv
    files.mkdir()
    for i in range(20):
        (files / f"a{i}.txt").write_text(f"file {i}\n" * (i + 1))
    subprocess.run(["zip", "-q", "-j", str(scratch / "t.zip"), *sorted(str(f) for f in files.iterdir())], check=True)
    numbers = "".join(f"{i}\n" for i in range(100000)).encode()
    (scratch / "s.xz").write_bytes(subprocess.run(["xz"], input=numbers, capture_output=True, check=True).stdout)
    f = str(files)
    mv = f"mv {f}/a1.txt {f}/b1.txt; mv {f}/b1.txt {f}/a1.txt"
    return {
        "dpkg-architecture": (["sh", "-c", "dpkg-architecture > /dev/null"], False),
        "cargo-list": (["sh", "-c", "cargo --list > /dev/null"], False),
        "lsattr": (["sh", "-c", f"lsattr {f} > /dev/null"], False),
        "pgrep": (["sh", "-c", "pgrep -l sh > /dev/null"], False),
        "xzcat": (["sh", "-c", f"xzcat {s}/s.xz > /dev/null"], False),
        "sotruss-corunner": (["sh", "-c", "sotruss ls > /dev/null 2>&1"], True),
        "zipgrep": (["sh", "-c", f"zipgrep 'file 1' {s}/t.zip > /dev/null"], False),
        # input size drawn per run
        "mv-varied": (["bash", "-c", f"for i in $(seq $((RANDOM % 20 + 1))); do {mv}; done"], False),
    }


def fresh22_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-second held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    (scratch / "f.txt").write_text("".join(f"line {i} of the file\n" for i in range(5000)))
    subprocess.run(["zip", "-q", "-j", str(scratch / "f.zip"), str(scratch / "f.txt")], check=True)
    subprocess.run(["bzip2", "-k", str(scratch / "f.txt")], check=True)
    return {
        "icuinfo": (["sh", "-c", "icuinfo > /dev/null"], False),
        "javap": (["sh", "-c", "javap java.lang.String > /dev/null"], False),
        "encguess": (["sh", "-c", f"encguess {s}/f.txt > /dev/null"], False),
        "dpkg-buildflags": (["sh", "-c", "dpkg-buildflags > /dev/null"], False),
        "getcap": (["sh", "-c", "getcap -r /usr/bin > /dev/null 2>&1"], False),
        "funzip": (["sh", "-c", f"funzip {s}/f.zip > /dev/null"], False),
        "bzgrep-corunner": (["sh", "-c", f"bzgrep 'line 4' {s}/f.txt.bz2 > /dev/null"], True),
        # input size drawn per run
        "filefrag-varied": (
            ["bash", "-c", f"for i in $(seq $((RANDOM % 20 + 1))); do filefrag {s}/f.txt > /dev/null; done"],
            False,
        ),
    }


def fresh23_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-third held-out set: programs in none of the earlier sets (set-up files made once, here)."""
    scratch = root / "scratch"
    s = str(scratch)
    with open(scratch / "c.c", "w") as f:  # a C file for etags
        for k in range(300):
            f.write(f"static int f{k}(int x) {{ return x * {k + 1} + f{max(k - 1, 0)}(x - 1); }}\n")
    return {
        "keytool": (["sh", "-c", "keytool -list -cacerts -storepass changeit > /dev/null"], False),
        "fc-match": (["sh", "-c", "fc-match sans > /dev/null"], False),
        "dpkg-vendor": (["sh", "-c", "dpkg-vendor --query vendor > /dev/null"], False),
        "etags": (["sh", "-c", f"etags -o {s}/TAGS {s}/c.c"], False),
        "glib-compile-schemas": (
            ["sh", "-c", "glib-compile-schemas --strict --dry-run /usr/share/glib-2.0/schemas"],
            False,
        ),
        "ctest": (["sh", "-c", "ctest --version > /dev/null"], False),
        "gio-corunner": (["sh", "-c", "gio info /etc/hostname > /dev/null"], True),
        # input size drawn per run
        "dbus-uuidgen-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do dbus-uuidgen > /dev/null; done"],
            False,
        ),
    }


def fresh24_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-fourth held-out set: programs in none of the earlier sets."""
    return {
        "pg_config": (["sh", "-c", "pg_config > /dev/null"], False),
        "pkg-config": (["sh", "-c", "pkg-config --cflags --libs libcrypto xft > /dev/null"], False),
        "whatis": (["sh", "-c", "whatis ls cp mv > /dev/null"], False),
        "lexgrog": (["sh", "-c", "lexgrog /usr/share/man/man1/ls.1.gz /usr/share/man/man1/cp.1.gz > /dev/null"], False),
        "gpgsm": (["sh", "-c", "gpgsm --version > /dev/null"], False),
        "psql": (["sh", "-c", "psql --version > /dev/null"], False),
        "wget-corunner": (["sh", "-c", "wget --version > /dev/null"], True),
        # input size drawn per run
        "watchgnupg-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do watchgnupg --version > /dev/null; done"],
            False,
        ),
    }


def fresh25_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-fifth held-out set: programs in none of the earlier sets."""
    return {
        "llvm-size": (["sh", "-c", "llvm-size /usr/bin/bash > /dev/null"], False),
        "llvm-mc": (["sh", "-c", "echo nop | llvm-mc > /dev/null"], False),
        "manpath": (["sh", "-c", "manpath > /dev/null"], False),
        "fc-cat": (["sh", "-c", "fc-cat > /dev/null"], False),
        "mimetype": (["sh", "-c", "mimetype /etc/hostname > /dev/null"], False),
        "icupkg": (["sh", "-c", "icupkg --help > /dev/null 2>&1"], False),
        "gcov-dump-corunner": (["sh", "-c", "gcov-dump --version > /dev/null"], True),
        # input size drawn per run
        "lsirq-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do lsirq > /dev/null; done"],
            False,
        ),
    }


def fresh26_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-sixth held-out set: programs in none of the earlier sets."""
    return {
        "llvm-readelf": (["sh", "-c", "llvm-readelf -h /usr/bin/bash > /dev/null"], False),
        "llvm-cxxfilt": (
            ["sh", "-c", "echo _ZN3foo3barEv _ZNSt6vectorIiSaIiEE9push_backERKi | llvm-cxxfilt > /dev/null"],
            False,
        ),
        "uconv": (["sh", "-c", "uconv -l > /dev/null"], False),
        "derb": (["sh", "-c", "derb --help > /dev/null 2>&1"], False),
        "gdbus": (["sh", "-c", "gdbus help > /dev/null 2>&1"], False),
        "fc-query": (["sh", "-c", "fc-query /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf > /dev/null"], False),
        "jinfo-corunner": (["sh", "-c", "jinfo -help > /dev/null 2>&1"], True),
        # input size drawn per run
        "gencfu-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do gencfu --help > /dev/null 2>&1; done"],
            False,
        ),
    }


def fresh27_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-seventh held-out set: programs in none of the earlier sets."""
    return {
        "llvm-symbolizer": (["sh", "-c", "llvm-symbolizer --obj=/usr/bin/bash 0x30000 0x40000 > /dev/null"], False),
        "llvm-config": (["sh", "-c", "llvm-config --libs all > /dev/null"], False),
        "genbrk": (["sh", "-c", "genbrk --help > /dev/null 2>&1"], False),
        "busctl": (["sh", "-c", "busctl --help > /dev/null"], False),
        "gendict": (["sh", "-c", "gendict --help > /dev/null 2>&1"], False),
        "llvm-ar": (["sh", "-c", "llvm-ar t /usr/lib/x86_64-linux-gnu/libc.a > /dev/null"], False),
        "jstat-corunner": (["sh", "-c", "jstat -options > /dev/null 2>&1"], True),
        # input size drawn per run
        "llvm-profdata-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do llvm-profdata --help > /dev/null; done"],
            False,
        ),
    }


def fresh28_workloads(root: Path) -> dict[str, tuple[list[str], bool]]:
    """A twenty-eighth held-out set: programs in none of the earlier sets."""
    return {
        "llvm-undname": (["sh", "-c", "llvm-undname '?x@@3HA' > /dev/null"], False),
        "llvm-extract": (["sh", "-c", "llvm-extract --help > /dev/null"], False),
        "timedatectl": (["sh", "-c", "timedatectl --help > /dev/null"], False),
        "hostnamectl": (["sh", "-c", "hostnamectl --help > /dev/null"], False),
        "gpg-connect-agent": (["sh", "-c", "gpg-connect-agent --help > /dev/null 2>&1"], False),
        "llvm-diff": (["sh", "-c", "llvm-diff --help > /dev/null"], False),
        "jrunscript-corunner": (["sh", "-c", "jrunscript -help > /dev/null 2>&1"], True),
        # input size drawn per run
        "localectl-varied": (
            ["bash", "-c", "for i in $(seq $((RANDOM % 20 + 1))); do localectl --help > /dev/null; done"],
            False,
        ),
    }


def hemkit(*args: str, cwd: Path) -> None:
    """Run the hemkit CLI as a user would (this interpreter's hemkit)."""
    subprocess.run([sys.executable, "-m", "hemkit", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def record(name: str, cmd: list[str], corunner: bool, runs: int, root: Path, out: Path) -> None:
    """Collect ``runs`` all-at-once runs of one workload and write ``out/<name>.csv.gz``."""
    work = root / f"w-{name}"
    work.mkdir()
    hemkit("plan", *EVENTS, "--pmcs", str(len(EVENTS)), "-o", "plan.toml", cwd=work)
    extra = ["--corunner", "bundled"] if corunner else []
    hemkit("collect", "plan.toml", "--runs", str(runs), "-q", "-o", "w.db", *extra, "--", *cmd, cwd=work)
    hemkit("export", "w.db", "-o", "w.csv", cwd=work)
    tidy = pd.read_csv(work / "w.csv")
    tidy = tidy[["run", "event", "value"]].sort_values(["run", "event"], kind="stable")
    tidy.to_csv(out / f"{name}.csv.gz", index=False)
    shutil.rmtree(work)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--out", type=Path, default=OUT)
    held_sets = {
        "fresh": fresh_workloads,
        "fresh2": fresh2_workloads,
        "fresh3": fresh3_workloads,
        "fresh4": fresh4_workloads,
        "fresh5": fresh5_workloads,
        "fresh6": fresh6_workloads,
        "fresh7": fresh7_workloads,
        "fresh8": fresh8_workloads,
        "fresh9": fresh9_workloads,
        "fresh10": fresh10_workloads,
        "fresh11": fresh11_workloads,
        "fresh12": fresh12_workloads,
        "fresh13": fresh13_workloads,
        "fresh14": fresh14_workloads,
        "fresh15": fresh15_workloads,
        "fresh16": fresh16_workloads,
        "fresh17": fresh17_workloads,
        "fresh18": fresh18_workloads,
        "fresh19": fresh19_workloads,
        "fresh20": fresh20_workloads,
        "fresh21": fresh21_workloads,
        "fresh22": fresh22_workloads,
        "fresh23": fresh23_workloads,
        "fresh24": fresh24_workloads,
        "fresh25": fresh25_workloads,
        "fresh26": fresh26_workloads,
        "fresh27": fresh27_workloads,
        "fresh28": fresh28_workloads,
    }
    for i, name in enumerate(held_sets, start=1):
        ap.add_argument(f"--{name}", action="store_true", help=f"record held-out set {i} (into OUT/{name})")
    ap.add_argument("--only", nargs="*", help="workload names (default: all of the set)")
    args = ap.parse_args()
    held = next((name for name in held_sets if getattr(args, name)), None)
    out = args.out / held if held else args.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hemkit-truth-") as tmp:
        root = Path(tmp)
        (root / "scratch").mkdir()
        make_inputs(root)
        (root / "gnupg").mkdir(mode=0o700)
        sets = held_sets[held](root) if held else dev_workloads(root)
        for name, (cmd, corunner) in sets.items():
            if args.only and name not in args.only:
                continue
            t0 = time.perf_counter()
            record(name, cmd, corunner, args.runs, root, out)
            print(f"{name}: {args.runs} runs in {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
