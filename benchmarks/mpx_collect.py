"""Record the OCOE interval traces behind the multiplexing benchmark (issue 13), with ``hemkit mpx trace``.

    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --out ~/mpx-data/traces --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh3 --out ~/mpx-data/fresh3 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh4 --out ~/mpx-data/fresh4 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh5 --out ~/mpx-data/fresh5 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh6 --out ~/mpx-data/fresh6 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh7 --out ~/mpx-data/fresh7 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh8 --out ~/mpx-data/fresh8 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh9 --out ~/mpx-data/fresh9 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh10 --out ~/mpx-data/fresh10 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh11 --out ~/mpx-data/fresh11 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh12 --out ~/mpx-data/fresh12 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh13 --out ~/mpx-data/fresh13 --runs 4  # held out
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh14 --out ~/mpx-data/fresh14 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh15 --out ~/mpx-data/fresh15 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh16 --out ~/mpx-data/fresh16 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh17 --out ~/mpx-data/fresh17 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh18 --out ~/mpx-data/fresh18 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh19 --out ~/mpx-data/fresh19 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh20 --out ~/mpx-data/fresh20 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh21 --out ~/mpx-data/fresh21 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh22 --out ~/mpx-data/fresh22 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh23 --out ~/mpx-data/fresh23 --runs 4  # the next
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh24 --out ~/mpx-data/fresh24 --runs 4  # the next
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh25 --out ~/mpx-data/fresh25 --runs 4  # the next
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh26 --out ~/mpx-data/fresh26 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh27 --out ~/mpx-data/fresh27 --runs 4
    nice -n 10 .venv/bin/python benchmarks/mpx_collect.py --fresh28 --out ~/mpx-data/fresh28 --runs 4  # the next

The sets as recorded on 2026-11-26 (the eighth session of issue 26; the earlier recordings, outside the
repository, were lost with their machine) are kept in ``benchmarks/data/mpx/<set>.tar.xz`` (``traces`` is
the development set ``sw``; 0.3-1.9 MB each); unpack them where the commands of BENCHMARKS.md read them::

    mkdir -p ~/mpx-data && for f in benchmarks/data/mpx/*.tar.xz; do tar -xJf "$f" -C ~/mpx-data; done

Each workload x event set x run is one ``hemkit mpx trace`` run (the library function behind
it, :func:`hemkit.mpx.record.record_traces`), i.e. for the workload ``gzip``::

    hemkit mpx trace -e task-clock,page-faults,... -e kmem:kmalloc,... -e ... --runs 4 -w gzip \\
        -o ~/mpx-data/traces -- gzip -c -6 text.txt

writing ``gzip_s1_r1.csv`` ... in exactly the format of ``shared/data/zen5/traces``.  The events
are software events and tracepoints (5 per set, read together: no multiplexing, so every
interval is exact), because the machines of this project mostly have no PMU.  The workloads
are distinct programs (compressors, compilers, sorts, scripts, archivers, checksums,
databases) on generated, deterministic inputs, plus the bundled phased C kernels.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from hemkit.external.compiler import compile_c
from hemkit.mpx.record import TraceOptions, record_traces
from truth_record import (  # benchmarks run as scripts from this folder
    gcc_cc1,
    write_c_sources,
    write_catalogue,
    write_cmake_loop,
    write_ninja_targets,
)

EVENT_SETS = [
    ["task-clock", "page-faults", "context-switches", "syscalls:sys_enter_read", "syscalls:sys_enter_write"],
    ["kmem:kmalloc", "kmem:kfree", "kmem:mm_page_alloc", "kmem:mm_page_free", "syscalls:sys_enter_brk"],
    [
        "syscalls:sys_enter_mmap",
        "syscalls:sys_enter_munmap",
        "syscalls:sys_enter_openat",
        "sched:sched_wakeup",
        "kmem:kmem_cache_alloc",
    ],
]

PY_DICT = r"""
import json, os, tempfile, time
d = {}
for r in range(10):
    for i in range(60000): d[i] = str(i) * 3
    with tempfile.TemporaryFile('w+') as f:
        for i in range(3000): f.write(json.dumps({'k': i, 'v': d[i]}) + '\n')
        f.seek(0); n = sum(len(x) for x in f)
    time.sleep(0.05)
    d.clear()
"""

PY_TEXT = r"""
import collections, re, sys
words = collections.Counter()
with open(sys.argv[1]) as f:
    for k, line in enumerate(f):
        for w in re.findall(r"[a-z]{3,}", line):
            words[w[::-1]] += 1
        if k % 50000 == 0:
            items = sorted(words.items(), key=lambda kv: -kv[1])[:1000]
print(len(words))
"""

SQL = """
create table t(k integer primary key, a text, b integer);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000)
insert into t select x, hex(randomblob(16)), abs(random()) % 1000 from c;
create index ib on t(b);
select b, count(*), max(a) from t group by b order by 2 desc limit 5;
update t set a = lower(a) where b < 300;
delete from t where b % 7 = 0;
vacuum;
"""


def make_inputs(root: Path) -> dict[str, Path]:
    """Generated, deterministic inputs: a text file, a C++ file, a C file, a tree of files, a SQL script."""
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    text = root / "text.txt"
    if not text.exists():
        with open(text, "w") as f:
            for _ in range(300000):
                f.write(" ".join(rng.choice(words) for _ in range(8)) + "\n")
    csrc = root / "big.c"
    if not csrc.exists():
        with open(csrc, "w") as f:
            for k in range(400):
                f.write(
                    f"double f{k}(double *a, int n) {{ double s = 0; for (int i = 0; i < n; i++) "
                    f"s += a[i] * {k + 1}.0 / (1.0 + a[(i * {k + 3}) % n]); return s; }}\n"
                )
    cxx = root / "big.cc"
    if not cxx.exists():
        with open(cxx, "w") as f:
            f.write("#include <map>\n#include <string>\n#include <vector>\n#include <algorithm>\n")
            for k in range(60):
                f.write(
                    f"std::map<std::string, std::vector<int>> g{k}(int n) {{ std::map<std::string, std::vector<int>> m;"
                    f" for (int i = 0; i < n; i++) m[std::to_string(i % {k + 7})].push_back(i * {k});"
                    " for (auto &kv : m) std::sort(kv.second.begin(), kv.second.end()); return m; }\n"
                )
    tree = root / "tree"
    if not tree.exists():
        tree.mkdir()
        for k in range(1500):
            (tree / f"f{k}.txt").write_text(" ".join(rng.choice(words) for _ in range(rng.randint(10, 4000))))
    sql = root / "work.sql"
    sql.write_text(SQL)
    pydict, pytext = root / "py_dict.py", root / "py_text.py"
    pydict.write_text(PY_DICT)
    pytext.write_text(PY_TEXT)
    return {"text": text, "csrc": csrc, "cxx": cxx, "tree": tree, "sql": sql, "pydict": pydict, "pytext": pytext}


def workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """Workload name -> command."""
    exe = str(compile_c("hemkit.mpx:c/phased.c"))
    text = str(inputs["text"])
    return {
        "gzip": ["gzip", "-c", "-6", text],
        "xz": ["xz", "-c", "-2", "-T1", text],
        "bzip2": ["bzip2", "-c", "-9", text],
        "zstd": ["zstd", "-c", "-12", "-T1", text],
        "sort": ["sort", "-k3,3", "-k1,1", "-S", "64M", "-T", str(scratch), text],
        "gcc": ["gcc", "-O2", "-c", str(inputs["csrc"]), "-o", str(scratch / "big.o")],
        "g++": ["g++", "-O1", "-c", str(inputs["cxx"]), "-o", str(scratch / "bigxx.o")],
        "py-dict": [sys.executable, str(inputs["pydict"])],
        "py-text": [sys.executable, str(inputs["pytext"]), text],
        "tar": ["tar", "czf", str(scratch / "tree.tgz"), "-C", str(inputs["tree"].parent), "tree"],
        "sha256": ["sh", "-c", f"for i in 1 2 3 4; do sha256sum {text}; done"],
        "awk": ["awk", "{for (i = 1; i <= NF; i++) c[$i]++} END {n = 0; for (w in c) n++; print n}", text],
        "sqlite": ["sh", "-c", f"rm -f {scratch}/w.db; sqlite3 {scratch}/w.db < {inputs['sql']}"],
        "perl": ["perl", "-ne", "$h{$_}++ for /(\\w{4,})/g; END { print scalar(keys %h), qq(\\n) }", text],
        "ph-alloc-compute": [exe, "a:300,c:300,a:200,c:400"],
        "ph-io-sleep": [exe, "i:300,s:200,i:300,s:200"],
        "ph-mixed": [exe, "a:150,i:150,c:150,s:100,p:150,b:200"],
        "ph-cycle": [exe, "a:40,i:40,c:40,p:40", "6"],
    }


NODE_WORK = r"""
const m = new Map();
for (let r = 0; r < 6; r++) {
  for (let i = 0; i < 200000; i++) m.set('k' + i, {v: i * r, s: String(i).repeat(3)});
  const j = JSON.stringify(Array.from(m.entries()).slice(0, 50000));
  JSON.parse(j);
  m.clear();
}
"""

PY_NUM = r"""
import random, statistics, math
random.seed(0)
xs = [random.random() for _ in range(400000)]
for r in range(6):
    xs.sort(); statistics.median(xs); sum(math.sqrt(x) for x in xs)
    xs = [x * 1.0001 % 1 for x in xs]
"""


def fresh_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A second, disjoint set of programs, recorded after the estimator was designed: a final held-out set."""
    text = str(inputs["text"])
    (scratch / "node.js").write_text(NODE_WORK)
    (scratch / "pynum.py").write_text(PY_NUM)
    proj = scratch / "proj"
    proj.mkdir(exist_ok=True)
    for k in range(12):
        (proj / f"u{k}.c").write_text("".join(f"int f{k}_{i}(int x) {{ return x * {i} + {k}; }}\n" for i in range(300)))
    (proj / "Makefile").write_text(
        "OBJ = " + " ".join(f"u{k}.o" for k in range(12)) + "\nall: $(OBJ)\n%.o: %.c\n\tgcc -O2 -c $< -o $@\n"
        "clean:\n\trm -f *.o\n"
    )
    return {
        "lz4": ["lz4", "-9", "-c", text],
        "md5sum": ["sh", "-c", f"for i in 1 2 3 4 5 6; do md5sum {text}; done"],
        "jq": ["sh", "-c", f"head -c 3000000 {text} | jq -R -c 'split(\" \") | length' | tail -1"],
        "node": ["node", str(scratch / "node.js")],
        "openssl": [
            "sh",
            "-c",
            f"for i in 1 2 3 4 5 6; do openssl enc -aes-256-cbc -pbkdf2 -pass pass:x -in {text} -out /dev/null; done",
        ],
        "bc": ["sh", "-c", "echo 'scale=1500; 4*a(1)' | bc -l"],
        "cp-tree": [
            "sh",
            "-c",
            f"rm -rf {scratch}/copy && cp -r {inputs['tree']} {scratch}/copy && rm -rf {scratch}/copy",
        ],
        "make": ["sh", "-c", f"make -s -C {proj} clean && make -s -C {proj}"],
        "py-num": [sys.executable, str(scratch / "pynum.py")],
        "grep": [
            "sh",
            "-c",
            f"for w in ab cd ef gh ij kl mn op qr st uv wx yz ba dc fe hg ji lk nm; do grep -c $w {text}; done",
        ],
    }


RUST_SRC = r"""
use std::collections::HashMap;
fn main() {
    let mut m: HashMap<String, Vec<u64>> = HashMap::new();
    for i in 0..200000u64 { m.entry(format!("k{}", i % 977)).or_default().push(i * 31 % 1009); }
    let mut v: Vec<(String, u64)> = m.into_iter().map(|(k, xs)| (k, xs.iter().sum())).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1));
    println!("{:?}", &v[..3]);
}
"""


def fresh2_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A third, disjoint set of programs (issue 26, second held-out set), recorded before any choice read it."""
    text, tree = str(inputs["text"]), str(inputs["tree"])
    (scratch / "r.rs").write_text(RUST_SRC)
    half, changed = scratch / "half.txt", scratch / "changed.txt"
    if not changed.exists():
        lines = inputs["text"].read_text().splitlines(keepends=True)[:150000]
        half.write_text("".join(lines))
        changed.write_text("".join(ln.upper() if k % 40 == 7 else ln for k, ln in enumerate(lines)))
    return {
        "zip": ["sh", "-c", f"rm -f {scratch}/t.zip && zip -q -r -6 {scratch}/t.zip {tree}"],
        "git": [
            "sh",
            "-c",
            f"rm -rf {scratch}/repo && cp -r {tree} {scratch}/repo && cd {scratch}/repo && git init -q && "
            "git add -A && git -c user.name=a -c user.email=a@b commit -qm x && git gc -q",
        ],
        "sed": ["sh", "-c", f"head -n 100000 {text} | sed -E 's/([a-z]+) ([a-z]+)/\\2 \\1/g; s/e/E/g'"],
        "xxd": ["sh", "-c", f"xxd {text} | xxd -r | wc -c"],
        "objdump": ["objdump", "-d", "/usr/bin/git"],
        "diff": ["sh", "-c", f"diff {half} {changed} | wc -l"],
        "rustc": ["rustc", "-O", "-o", str(scratch / "r"), str(scratch / "r.rs")],
        "base64": ["sh", "-c", f"for i in 1 2 3 4; do base64 {text} | base64 -d | cksum; done"],
    }


TCL_WORK = r"""
set d [dict create]
for {set i 0} {$i < 1500000} {incr i} { dict incr d [expr {($i * 7919) % 100003}] }
set s 0
dict for {k v} $d { incr s [expr {$k * $v}] }
puts $s
"""


def fresh3_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A fourth, disjoint set of programs (issue 26, third held-out set), recorded before any choice read it."""
    text, tree = str(inputs["text"]), str(inputs["tree"])
    (scratch / "work.tcl").write_text(TCL_WORK)
    gnupg = scratch / "gnupg"
    gnupg.mkdir(mode=0o700, exist_ok=True)
    return {
        "sha512sum": ["sh", "-c", f"for i in $(seq 24); do sha512sum {text}; done"],
        "tac": ["sh", "-c", f"for i in $(seq 10); do tac {text} | wc -w; done"],
        "od": ["sh", "-c", f"od -An -tx1 {text} | tail -n 1"],
        "tclsh": ["tclsh", str(scratch / "work.tcl")],
        "factor": ["sh", "-c", "seq 1000000000 1001000000 | factor | wc -l"],
        "shuf": ["sh", "-c", f"for i in $(seq 20); do shuf --random-source={text} {text} | head -c 100; done"],
        "strings": ["sh", "-c", f"for i in 1 2 3; do cat {tree}/* | strings -n 6 | sort | uniq -c | wc -l; done"],
        "gpg": [
            "sh",
            "-c",
            f"gpg --batch --quiet --homedir {gnupg} --pinentry-mode loopback --passphrase x --symmetric "
            f"--output - {text} | wc -c",
        ],
    }


def fresh4_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A fifth, disjoint set of programs (issue 26, for the choices after ``fresh3`` was scored)."""
    text, tree = str(inputs["text"]), str(inputs["tree"])
    asm = scratch / "work.s"
    asm.write_text(
        "".join(
            f"    .globl f{k}\nf{k}:\n"
            + "".join(f"    addq ${i}, %rax\n    imulq %rbx, %rcx\n" for i in range(40))
            + "    ret\n"
            for k in range(3000)
        )
    )
    return {
        "cksum": ["sh", "-c", f"for i in $(seq 100); do cksum {text}; done"],
        "sha1sum": ["sh", "-c", f"for i in $(seq 30); do sha1sum {text}; done"],
        "nl-fold": ["sh", "-c", f"for i in $(seq 8); do nl {text} | fold -w 30 | wc -l; done"],
        "as": ["sh", "-c", f"for i in 1 2 3 4 5; do as -o {scratch}/work.o {asm}; done"],
        "split": [
            "sh",
            "-c",
            f"for i in $(seq 6); do rm -f {scratch}/part.*; split -l 500 {text} {scratch}/part.; done",
        ],
        "du": ["sh", "-c", f"for i in $(seq 200); do du -s {tree} > /dev/null; done"],
        "compileall": [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            "-f",
            *(
                os.path.join(os.path.dirname(os.__file__), d)
                for d in ("email", "json", "xml", "http", "urllib", "asyncio", "unittest")
            ),
        ],
        "paste-comm": [
            "sh",
            "-c",
            f"for i in 1 2 3; do paste {text} {text} | cut -c1-40 | sort -u > {scratch}/pc; "
            f"comm -12 {scratch}/pc {scratch}/pc | wc -l; done",
        ],
    }


def fresh5_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A sixth, disjoint set of programs (issue 26, for the choices after ``fresh4`` was scored)."""
    text = str(inputs["text"])
    return {
        "rev": ["sh", "-c", f"for i in $(seq 20); do rev {text} | wc -c; done"],
        "expand-unexpand": ["sh", "-c", f"for i in $(seq 10); do expand {text} | unexpand -a | wc -c; done"],
        "sum": ["sh", "-c", f"for i in $(seq 60); do sum {text}; done"],
        "fmt-pr": ["sh", "-c", f"for i in $(seq 8); do fmt -w 50 {text} | pr -2 -t | wc -l; done"],
        "column": ["sh", "-c", "for i in 1 2 3; do seq 1 60000 | paste - - - | column -t | wc -l; done"],
        "cmp": [
            "sh",
            "-c",
            f"for i in $(seq 10); do tr a-c x < {text} > {scratch}/t2; cmp -l {text} {scratch}/t2 | wc -l; done",
        ],
        "nroff": ["sh", "-c", f"for i in 1 2; do nroff -Tutf8 {text} | wc -l; done"],
        "base32": ["sh", "-c", f"for i in $(seq 20); do base32 {text} | wc -l; done"],
    }


def fresh6_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A seventh, disjoint set of programs (issue 26, for the choices after ``fresh5`` was scored)."""
    text = str(inputs["text"])
    return {
        "b2sum": ["sh", "-c", f"for i in $(seq 30); do b2sum {text}; done"],
        "tr-squeeze": ["sh", "-c", f"for i in $(seq 12); do tr -s a-z A-Z < {text} | tr -d E | wc -c; done"],
        "join": [
            "sh",
            "-c",
            f"for i in 1 2 3; do nl -ba {text} | sort -k1,1 > {scratch}/j1; "
            f"join {scratch}/j1 {scratch}/j1 | wc -l; done",
        ],
        "sha224sum": ["sh", "-c", f"for i in $(seq 25); do sha224sum {text}; done"],
        "tee": ["sh", "-c", f"for i in $(seq 15); do tee {scratch}/t1 {scratch}/t2 < {text} | wc -l; done"],
        "numfmt": ["sh", "-c", "for i in 1 2 3; do seq 1 7 400000 | numfmt --to=iec | tail -1; done"],
        "ptx": ["sh", "-c", f"head -c 300000 {text} > {scratch}/p1; for i in 1 2; do ptx {scratch}/p1 | wc -l; done"],
        "tsort": [
            "sh",
            "-c",
            "for i in 1 2 3; do seq 1 40000 | awk '{print $1, $1+1+($1%7)}' | tsort | wc -l; done",
        ],
    }


def fresh7_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """An eighth, disjoint set of programs (issue 26, recorded when ``fresh6`` had been scored)."""
    text, tree = str(inputs["text"]), str(inputs["tree"])
    cc1 = gcc_cc1()
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    return {
        "sha384sum": ["sh", "-c", f"for i in $(seq 25); do sha384sum {text}; done"],
        "uniq": ["sh", "-c", f"tr -cs A-Za-z '\\n' < {text} | sort | uniq -c | wc -l"],
        "csplit": [
            "sh",
            "-c",
            f"for i in $(seq 20); do rm -f {scratch}/xx*; csplit -s -z -f {scratch}/xx {text} '/e/' '{{200}}'; done",
        ],
        "iconv": ["sh", "-c", f"for i in $(seq 10); do iconv -f UTF-8 -t UTF-16 {text} | wc -c; done"],
        "dd": ["sh", "-c", f"for i in $(seq 20); do dd if={text} of={scratch}/dd.out bs=4k status=none; done"],
        "readelf": ["sh", "-c", f"for i in 1 2 3 4; do readelf -a -W {cc1} | wc -l; done"],
        "nm": ["sh", "-c", f"for i in $(seq 30); do nm -D --defined-only {libc} | sort | wc -l; done"],
        "file": ["sh", "-c", f"find {tree} -type f | head -300 | xargs file -b | sort | uniq -c | wc -l"],
    }


def fresh8_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A ninth, disjoint set of programs (issue 26, recorded when ``fresh7`` had been scored)."""
    text, tree = str(inputs["text"]), str(inputs["tree"])
    made = scratch / "fresh8"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a zip of the tree, a patch between two versions of the text, a sorted word list
    subprocess.run([sys.executable, "-m", "zipfile", "-c", str(made / "tree.zip"), tree], check=True)
    lines = Path(text).read_text().splitlines(keepends=True)[:60000]
    (made / "a.txt").write_text("".join(lines))
    (made / "b.txt").write_text("".join(ln.upper() if k % 13 == 0 else ln for k, ln in enumerate(lines)))
    diff = subprocess.run(["diff", "-u", str(made / "a.txt"), str(made / "b.txt")], capture_output=True, text=True)
    (made / "ab.patch").write_text(diff.stdout)
    words = sorted({w for ln in lines[:20000] for w in ln.split()})
    (made / "words").write_text("\n".join(words) + "\n")
    m = str(made)
    return {
        "unzip": ["sh", "-c", f"for i in 1 2 3; do rm -rf {m}/u; unzip -q -d {m}/u {m}/tree.zip; done"],
        "patch": ["sh", "-c", f"for i in $(seq 30); do patch -s -o {m}/p.out {m}/a.txt {m}/ab.patch; done"],
        "ar": ["sh", "-c", f"for i in $(seq 8); do rm -f {m}/x.a; ar rc {m}/x.a {tree}/f1*.txt; ar t {m}/x.a; done"],
        "hexdump": ["sh", "-c", f"for i in 1 2 3; do head -c 3000000 {text} | hexdump -C | tail -n 1; done"],
        "look": ["sh", "-c", f"for w in $(head -n 1200 {m}/words); do look $w {m}/words; done | wc -l"],
        "ed": ["sh", "-c", f"for i in $(seq 5); do printf ',s/e/E/g\\nw {m}/ed.out\\nq\\n' | ed -s {m}/a.txt; done"],
        "wc": ["sh", "-c", f"for i in $(seq 20); do wc -l -w -c {text}; done"],
        "xargs": ["sh", "-c", f"for i in $(seq 8); do ls {tree} | sed 's|^|{tree}/|' | xargs -n 20 cat | wc -c; done"],
    }


def fresh9_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A tenth, disjoint set of programs (issue 26, recorded when ``fresh8`` had been scored)."""
    text = str(inputs["text"])
    cc1 = gcc_cc1()
    made = scratch / "fresh9"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: mangled C++ names to demangle, addresses to look up, an object to link
    names = subprocess.run(["nm", "-D", "--defined-only", cc1], capture_output=True, text=True).stdout.split()
    (made / "mangled").write_text("\n".join(n for n in names if n.startswith("_Z")) + "\n")
    (made / "addrs").write_text("\n".join(hex(0x400000 + 64 * k) for k in range(20000)) + "\n")
    subprocess.run(["gcc", "-O1", "-c", "-o", str(made / "big.o"), str(inputs["csrc"])], check=True)
    m = str(made)
    return {
        "objcopy": ["sh", "-c", f"for i in $(seq 30); do objcopy -O binary {cc1} {m}/cc1.bin; done"],
        "size": ["sh", "-c", f"for i in $(seq 1000); do size -A {cc1} > /dev/null; done"],
        "cxxfilt": ["sh", "-c", f"for i in $(seq 20); do c++filt < {m}/mangled | wc -c; done"],
        "strip": ["sh", "-c", f"for i in $(seq 30); do strip -o {m}/cc1.s {cc1}; done"],
        "addr2line": ["sh", "-c", f"addr2line -f -e {cc1} < {m}/addrs | wc -l"],
        "cut": ["sh", "-c", f"for i in $(seq 10); do cut -d' ' -f2,5 {text} | cut -c1-6 | wc -c; done"],
        "stat": [
            "sh",
            "-c",
            f"for i in $(seq 60); do find {inputs['tree']} -type f -exec stat -c '%s %Y' {{}} + | wc -l; done",
        ],
        "ld": ["sh", "-c", f"for i in $(seq 300); do ld -r -o {m}/r.o {m}/big.o; done"],
    }


def fresh10_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """An eleventh, disjoint set of programs (issue 26, recorded when ``fresh9`` had been scored)."""
    made = scratch / "fresh10"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a message catalogue to compile, a Java class to compile
    write_catalogue(made / "x.po", 3000)
    (made / "H.java").write_text("class H { public static void main(String[] a) { System.out.println(a.length); } }\n")
    m = str(made)
    return {
        "valgrind": ["sh", "-c", "for i in 1 2 3 4; do valgrind -q --tool=none ls /usr/lib > /dev/null; done"],
        "ssh-keygen": [
            "sh",
            "-c",
            f"for i in 1 2 3; do rm -f {m}/k {m}/k.pub; ssh-keygen -q -t rsa -b 2048 -N '' -f {m}/k; done",
        ],
        "javac": ["javac", "-d", m, f"{m}/H.java"],
        "msgfmt": ["sh", "-c", f"for i in $(seq 100); do msgfmt -o {m}/x.mo {m}/x.po; done"],
        "touch-rm": ["sh", "-c", f"mkdir -p {m}/t; for i in $(seq 2000); do touch {m}/t/f$i; done; rm -rf {m}/t"],
        "dash": ["dash", "-c", "i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done"],
        "ldd": ["sh", "-c", "ldd /usr/bin/[a-m]* 2>/dev/null | wc -l"],
        "strace": [
            "sh",
            "-c",
            "for i in $(seq 8); do strace -f -c -o /dev/null ls -R /usr/share/doc > /dev/null; done",
        ],
    }


def fresh11_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twelfth, disjoint set of programs (issue 26, recorded when ``fresh10`` had been scored)."""
    made = scratch / "fresh11"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: three versions of a text to compare, a C file of messages to extract
    text = inputs["text"]
    lines = text.read_text().splitlines(keepends=True)[:20000]
    (made / "a.txt").write_text("".join(lines))
    (made / "b.txt").write_text("".join(ln.upper() if k % 11 == 0 else ln for k, ln in enumerate(lines)))
    (made / "c.txt").write_text("".join(ln for k, ln in enumerate(lines) if k % 17))
    (made / "msgs.c").write_text("".join(f'const char *m{k} = _("message {k} of the set");\n' for k in range(20000)))
    m = str(made)
    return {
        "mawk": [
            "sh",
            "-c",
            f"for i in $(seq 10); do mawk '{{s[$1] += length($0)}} END {{print length(s)}}' {text}; done",
        ],
        "groff": [
            "sh",
            "-c",
            "for f in /usr/share/man/man1/[a-c]*.1.gz; do zcat $f | groff -man -Tutf8 > /dev/null 2>&1; done",
        ],
        "dpkg-query": [
            "sh",
            "-c",
            "for i in $(seq 90); do dpkg-query -W -f '${Package} ${Installed-Size}\\n' > /dev/null; done",
        ],
        "xgettext": ["sh", "-c", f"for i in 1 2 3; do xgettext -k_ -o {m}/x.pot {m}/msgs.c; done"],
        "vim": [
            "sh",
            "-c",
            f"for i in 1 2 3; do vim -u NONE -es -c '%s/e/E/g' -c '%s/a/A/g' -c 'w! {m}/v.out' -c 'q!' {text}; done",
        ],
        "diff3": ["sh", "-c", f"for i in $(seq 30); do diff3 {m}/a.txt {m}/b.txt {m}/c.txt | wc -l; done"],
        "ps": ["sh", "-c", "for i in $(seq 150); do ps -e -o pid,rss,vsz,comm > /dev/null; done"],
        "sdiff": ["sh", "-c", f"for i in $(seq 40); do sdiff -s {m}/a.txt {m}/b.txt | wc -l; done"],
    }


def fresh12_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A thirteenth, disjoint set of programs (issue 26, recorded when ``fresh11`` had been scored)."""
    made = scratch / "fresh12"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a ninja file of 400 targets, a CMake script, a message catalogue compiled, a template
    nj = made / "nj"
    write_ninja_targets(nj, 400)
    write_cmake_loop(made / "loop.cmake", 20000)
    write_catalogue(made / "y.po", 30000)
    subprocess.run(["msgfmt", "-o", str(made / "y.mo"), str(made / "y.po")], check=True)
    (made / "tpl.txt").write_text("".join(f"line {k} $HOME and ${{USER}} then $PATH\n" for k in range(200000)))
    m, text = str(made), inputs["text"]
    return {
        "ninja": [
            "sh",
            "-c",
            f"for i in 1 2 3 4 5; do ninja -C {nj} -t clean > /dev/null; ninja -C {nj} > /dev/null; done",
        ],
        "cmake": ["cmake", "-P", f"{m}/loop.cmake"],
        "apt-cache": ["sh", "-c", "for i in 1 2 3; do apt-cache dumpavail | wc -l; done"],
        "tic": [
            "sh",
            "-c",
            f"for i in $(seq 10); do for t in xterm xterm-256color screen vt100 linux rxvt tmux dumb ansi; do "
            f"infocmp -x $t > {m}/t.src 2>/dev/null && tic -x -o {m}/ti {m}/t.src; done; done",
        ],
        "msgcat": ["sh", "-c", f"for i in 1 2 3 4 5; do msgcat -o {m}/y2.po {m}/y.po; done"],
        "msgunfmt": ["sh", "-c", f"for i in $(seq 10); do msgunfmt {m}/y.mo | wc -l; done"],
        "envsubst": ["sh", "-c", f"for i in $(seq 8); do envsubst < {m}/tpl.txt | wc -c; done"],
        "curl": ["sh", "-c", f"for i in $(seq 30); do curl -s -o /dev/null file://{text}; done"],
    }


def fresh13_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A fourteenth, disjoint set of programs (issue 26, recorded when ``fresh12`` had been scored)."""
    made = scratch / "fresh13"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: 2000 small C files to index, a message catalogue
    src = made / "src"
    write_c_sources(src, 2000)
    write_catalogue(made / "z.po", 30000)
    m, text = str(made), inputs["text"]
    return {
        "ctags": ["sh", "-c", f"for i in $(seq 10); do ctags -R -f {m}/tags {src}; done"],
        "find": ["sh", "-c", "find /usr -xdev -name '*.h' | wc -l"],
        "msgmerge": ["sh", "-c", f"for i in 1 2; do msgmerge -q -o {m}/z2.po {m}/z.po {m}/z.po; done"],
        "msggrep": ["sh", "-c", f"for i in $(seq 20); do msggrep -K -e m1 {m}/z.po | wc -l; done"],
        "zdump": ["sh", "-c", "zdump -v Europe/Paris America/New_York Asia/Tokyo | wc -l"],
        "locale": ["sh", "-c", "for i in $(seq 200); do locale -a > /dev/null; done"],
        "apropos": ["sh", "-c", "for i in $(seq 10); do apropos -r '^s' > /dev/null; done"],
        "shasum": ["sh", "-c", f"for i in $(seq 20); do shasum -a 512 {text} > /dev/null; done"],
    }


def fresh14_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A fifteenth, disjoint set of programs (issue 26, recorded when ``fresh13`` had been scored)."""
    made = scratch / "fresh14"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a header-heavy C file to preprocess, a message catalogue, a JSON file, a zip of the tree
    (made / "inc.c").write_text("".join(f"#include <{h}.h>\n" for h in ("stdio", "stdlib", "string", "math", "time")))
    write_catalogue(made / "a.po", 30000)
    rng = random.Random(14)
    (made / "data.json").write_text(
        "[" + ",".join(f'{{"k":{i},"v":{rng.random():.6f},"s":"w{rng.randint(0, 999)}"}}' for i in range(60000)) + "]"
    )
    subprocess.run(["python3", "-m", "zipfile", "-c", str(made / "tree.zip"), str(inputs["tree"])], check=True)
    m, tree = str(made), str(inputs["tree"])
    return {
        "cpp": ["sh", "-c", f"for i in $(seq 40); do cpp {m}/inc.c > /dev/null; done"],
        "msgattrib": ["sh", "-c", f"for i in 1 2 3; do msgattrib --no-fuzzy -o {m}/a2.po {m}/a.po; done"],
        "getent": ["sh", "-c", "for i in $(seq 100); do getent services > /dev/null; done"],
        "top": ["top", "-b", "-d", "0.2", "-n", "5"],
        "ptar": ["sh", "-c", f"for i in 1 2 3; do ptar -c -f {m}/t.tar {tree}; done"],
        "json-tool": ["sh", "-c", f"for i in 1 2 3; do python3 -m json.tool {m}/data.json > /dev/null; done"],
        "zipdetails": ["sh", "-c", f"zipdetails {m}/tree.zip | wc -l"],
        "df": ["sh", "-c", "for i in $(seq 300); do df > /dev/null; done"],
    }


def fresh15_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A sixteenth, disjoint set of programs (issue 26, recorded when ``fresh14`` had been scored)."""
    made = scratch / "fresh15"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a message catalogue
    write_catalogue(made / "b.po", 30000)
    (made / "b4.po").write_bytes((made / "b.po").read_bytes())  # msgcomm reads a file named twice once
    m, tree = str(made), str(inputs["tree"])
    pms = " ".join(str(p) for p in sorted(Path("/usr/share/perl").glob("5*/*.pm"))[:40]) or "/dev/null"
    return {
        "msgen": ["sh", "-c", f"for i in 1 2 3; do msgen -o {m}/b2.po {m}/b.po; done"],
        "msgcomm": ["sh", "-c", f"for i in 1 2; do msgcomm -o {m}/b3.po {m}/b.po {m}/b4.po; done"],
        "pod2man": ["sh", "-c", f"for f in {pms}; do pod2man $f > /dev/null; done"],
        "localedef": ["localedef", "-i", "en_US", "-f", "UTF-8", f"{m}/loc"],
        "lscpu": ["sh", "-c", "for i in $(seq 100); do lscpu > /dev/null; done"],
        "ss": ["sh", "-c", "for i in $(seq 200); do ss -a > /dev/null; done"],
        "realpath": ["sh", "-c", f"for i in $(seq 30); do find {tree} | xargs realpath > /dev/null; done"],
        "ip": ["sh", "-c", "for i in $(seq 200); do ip addr > /dev/null; done"],
    }


def fresh16_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A seventeenth, disjoint set of programs (issue 26, recorded when ``fresh15`` had been scored)."""
    made = scratch / "fresh16"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a small message catalogue (msgexec starts one process per message)
    write_catalogue(made / "e.po", 800)
    m, text = str(made), str(inputs["text"])
    pms = " ".join(str(p) for p in sorted(Path("/usr/share/perl").glob("5*/*.pm"))[:40]) or "/dev/null"
    return {
        "lsblk": ["sh", "-c", "for i in $(seq 300); do lsblk > /dev/null; done"],
        "free": ["sh", "-c", "for i in $(seq 300); do free > /dev/null; done"],
        "ldconfig": ["sh", "-c", "for i in $(seq 1000); do ldconfig -p > /dev/null; done"],
        "podchecker": ["sh", "-c", f"for f in {pms}; do podchecker $f > /dev/null 2>&1; done; true"],
        "msgexec": ["sh", "-c", f"msgexec -i {m}/e.po wc -c | tail -1"],
        "seq": ["sh", "-c", "seq 1 30000000 | tail -1"],
        "lsipc": ["sh", "-c", "for i in $(seq 500); do lsipc > /dev/null; done"],
        "tail": ["sh", "-c", f"for i in $(seq 600); do tail -n 1000 {text} > /dev/null; done"],
    }


def fresh17_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """An eighteenth, disjoint set of programs (issue 26, recorded when ``fresh16`` had been scored)."""
    import typing  # a large module of the standard library, for Python's tokenizer to read

    made = scratch / "fresh17"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a message catalogue, a termcap entry (from terminfo), a tree to change modes in
    write_catalogue(made / "h.po", 30000)
    cap = subprocess.run(["infocmp", "-C", "xterm"], capture_output=True, text=True, check=True).stdout
    (made / "x.cap").write_text(cap)
    m, tree, py = str(made), str(inputs["tree"]), typing.__file__
    return {
        "lslocks": ["sh", "-c", "for i in $(seq 1000); do lslocks > /dev/null; done"],
        "lsmem": ["sh", "-c", "for i in $(seq 300); do lsmem > /dev/null; done"],
        "yes-head": ["sh", "-c", "yes hemkit | head -n 60000000 | wc -l"],
        "py-tokenize": ["sh", "-c", f"for i in 1 2 3; do python3 -m tokenize {py} > /dev/null; done"],
        "chmod-tree": ["sh", "-c", f"for i in $(seq 500); do chmod -R u+w {tree}; done"],
        "gpgconf": ["sh", "-c", "for i in $(seq 600); do gpgconf --list-components > /dev/null; done"],
        "captoinfo": ["sh", "-c", f"for i in $(seq 1000); do captoinfo {m}/x.cap > /dev/null 2>&1; done"],
        "msginit": [
            "sh",
            "-c",
            f"for i in 1 2 3; do msginit --no-translator -l de_DE.UTF-8 -i {m}/h.po -o {m}/h2.po 2>/dev/null; done",
        ],
    }


def fresh18_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A nineteenth, disjoint set of programs (issue 26, recorded when ``fresh17`` had been scored)."""
    made = scratch / "fresh18"
    made.mkdir(parents=True, exist_ok=True)
    # set-up, once: a small ext4 image for blkid and wipefs to read
    img = str(made / "fs.img")
    subprocess.run(["truncate", "-s", "16M", img], check=True)
    subprocess.run(["mke2fs", "-q", "-F", img], check=True)
    m, text = str(made), str(inputs["text"])
    return {
        "mke2fs": ["sh", "-c", f"for i in $(seq 30); do truncate -s 8M {m}/x.img; mke2fs -q -F {m}/x.img; done"],
        "blkid": ["sh", "-c", f"for i in $(seq 300); do blkid -p {img} > /dev/null; done"],
        "wipefs": ["sh", "-c", f"for i in $(seq 300); do wipefs {img} > /dev/null; done"],
        "ngettext": ["sh", "-c", "for i in $(seq 500); do ngettext -d coreutils file files 2 > /dev/null; done"],
        "streamzip": ["sh", "-c", f"for i in 1 2; do streamzip < {text} > {m}/t.zip; done"],
        "prlimit": ["sh", "-c", "for i in $(seq 500); do prlimit > /dev/null; done"],
        "uptime": ["sh", "-c", "for i in $(seq 600); do uptime > /dev/null; done"],
        "colcrt": ["sh", "-c", f"for i in 1 2 3; do colcrt {text} > /dev/null; done"],
    }


def fresh19_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twentieth, disjoint set of programs (issue 26, recorded when ``fresh18`` had been scored)."""
    made = scratch / "fresh19"
    made.mkdir(parents=True, exist_ok=True)
    m, text = str(made), str(inputs["text"])
    return {
        "who": ["sh", "-c", "for i in $(seq 500); do who > /dev/null; done"],
        "uname": ["sh", "-c", "for i in $(seq 800); do uname -a > /dev/null; done"],
        "preconv": ["sh", "-c", f"for i in $(seq 10); do preconv -e latin1 {text} > /dev/null; done"],
        "fallocate": ["sh", "-c", f"for i in $(seq 300); do fallocate -l 4M {m}/f.bin; rm {m}/f.bin; done"],
        "chrt": ["sh", "-c", "for i in $(seq 500); do chrt -p $$ > /dev/null; done"],
        "hd": ["sh", "-c", f"for i in 1 2; do hd {text} > /dev/null; done"],
        "mktemp": ["sh", "-c", f"for i in $(seq 500); do rm $(mktemp -p {m}); done"],
        "taskset": ["sh", "-c", "for i in $(seq 500); do taskset -c 0 true; done"],
    }


def fresh20_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-first, disjoint set of programs (issue 26, recorded when ``fresh19`` had been scored)."""
    made = scratch / "fresh20"
    made.mkdir(parents=True, exist_ok=True)
    m, text = str(made), str(inputs["text"])
    return {
        "printenv": ["sh", "-c", "for i in $(seq 800); do printenv HOME > /dev/null; done"],
        "flock": ["sh", "-c", f"for i in $(seq 500); do flock {m}/f.lock true; done"],
        "ionice": ["sh", "-c", "for i in $(seq 500); do ionice -c3 true; done"],
        "setsid": ["sh", "-c", "for i in $(seq 1000); do setsid true; done"],
        "pathchk": ["sh", "-c", "for i in $(seq 800); do pathchk -p a/b/c; done"],
        "hostid": ["sh", "-c", "for i in $(seq 800); do hostid > /dev/null; done"],
        "users": ["sh", "-c", "for i in $(seq 1000); do users > /dev/null; done"],
        "ul": ["sh", "-c", f"for i in 1 2; do ul {text} > /dev/null; done"],
    }


def fresh21_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-second, disjoint set of programs (issue 26, recorded when ``fresh20`` had been scored)."""
    made = scratch / "fresh21"
    made.mkdir(parents=True, exist_ok=True)
    m, text = str(made), str(inputs["text"])
    return {
        "readlink": ["sh", "-c", "for i in $(seq 800); do readlink -f /usr/bin/python3 > /dev/null; done"],
        "basename": ["sh", "-c", "for i in $(seq 1000); do basename /a/b/c.txt .txt > /dev/null; done"],
        "whoami": ["sh", "-c", "for i in $(seq 800); do whoami > /dev/null; done"],
        "env": ["sh", "-c", "for i in $(seq 800); do env > /dev/null; done"],
        "nproc": ["sh", "-c", "for i in $(seq 1000); do nproc > /dev/null; done"],
        "hostname": ["sh", "-c", "for i in $(seq 800); do hostname > /dev/null; done"],
        "mkfifo": ["sh", "-c", f"for i in $(seq 500); do mkfifo {m}/p; rm {m}/p; done"],
        "bzcat": ["sh", "-c", f"bzip2 -c {text} > {m}/t.bz2; for i in 1 2; do bzcat {m}/t.bz2 > /dev/null; done"],
    }


def fresh22_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-third, disjoint set of programs (issue 26, recorded when ``fresh21`` had been scored).

    Three are single long processes (a JVM tool, a Perl script, a checksum of the text), as the
    sets of loops of short processes since ``fresh17`` were not.
    """
    made = scratch / "fresh22"
    made.mkdir(parents=True, exist_ok=True)
    m, text = str(made), str(inputs["text"])
    jar = str(sorted(Path("/usr/lib/jvm").glob("*/lib/jrt-fs.jar"))[0])
    return {
        "jdeps": ["jdeps", "-s", jar],
        "encguess-text": ["encguess", text],
        "hmac256": ["sh", "-c", f"for i in 1 2 3 4; do hmac256 key {text} > /dev/null; done"],
        "dnsdomainname": ["sh", "-c", "for i in $(seq 800); do dnsdomainname > /dev/null; done"],
        "i386": ["sh", "-c", "for i in $(seq 800); do i386 true; done"],
        "killall-list": ["sh", "-c", "for i in $(seq 800); do killall -l > /dev/null; done"],
        "lessecho": ["sh", "-c", "for i in $(seq 1000); do lessecho a b c > /dev/null; done"],
        "install": ["sh", "-c", f"for i in $(seq 500); do install /etc/hostname {m}/t; rm {m}/t; done"],
    }


def fresh23_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-fourth, disjoint set of programs (issue 26, recorded when ``fresh22`` had been scored)."""
    made = scratch / "fresh23"
    made.mkdir(parents=True, exist_ok=True)
    m, csrc = str(made), str(inputs["csrc"])
    modules = str(sorted(Path("/usr/lib/jvm").glob("*/lib/modules"))[0])
    return {
        "jimage": ["sh", "-c", f"for i in 1 2; do jimage list {modules} > /dev/null; done"],
        "cscope": ["sh", "-c", f"for i in $(seq 300); do cscope -b -f {m}/cs.out {csrc}; done"],
        "gsettings": ["sh", "-c", "for i in $(seq 800); do gsettings list-schemas > /dev/null; done"],
        "fc-list": ["sh", "-c", "for i in $(seq 500); do fc-list > /dev/null; done"],
        "gpgv": ["sh", "-c", "for i in $(seq 800); do gpgv --version > /dev/null; done"],
        "appstreamcli": ["sh", "-c", "for i in $(seq 300); do appstreamcli --version > /dev/null; done"],
        "gencnval": ["sh", "-c", "for i in $(seq 800); do gencnval --help > /dev/null 2>&1; done"],
        "elfedit": ["sh", "-c", "for i in $(seq 800); do elfedit --version > /dev/null; done"],
    }


def fresh24_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-fifth, disjoint set of programs (issue 26, recorded when ``fresh23`` had been scored).

    Three are single processes of a second or so (node, the JVM, Tcl), the rest loops of short processes."""
    tcl = "set s 0; for {set i 0} {$i < 3000000} {incr i} {incr s $i}; puts $s"
    return {
        "npm": ["sh", "-c", "for i in 1 2 3; do npm --version > /dev/null; done"],
        "jshell": ["sh", "-c", "jshell --version > /dev/null"],
        "tclsh": ["sh", "-c", f"echo '{tcl}' | tclsh8.6 > /dev/null"],
        "dirmngr": ["sh", "-c", "for i in $(seq 500); do dirmngr --version > /dev/null; done"],
        "kbxutil": ["sh", "-c", "for i in $(seq 800); do kbxutil --version > /dev/null; done"],
        "gprof": ["sh", "-c", "for i in $(seq 800); do gprof --version > /dev/null; done"],
        "gpgsplit": ["sh", "-c", "for i in $(seq 800); do gpgsplit --help > /dev/null; done"],
        "gpgparsemail": ["sh", "-c", "for i in $(seq 800); do gpgparsemail --help > /dev/null 2>&1; done"],
    }


def fresh25_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-sixth, disjoint set of programs (issue 26, recorded when ``fresh24`` had been scored).

    Three are single processes of about a second (llvm-objdump twice, jps twice (a JVM each), llvm-stress piped
    into llvm-as), the rest loops of short processes."""
    return {
        "llvm-objdump": ["sh", "-c", "for i in 1 2; do llvm-objdump -d /usr/bin/bash > /dev/null; done"],
        "jps": ["sh", "-c", "for i in 1 2; do jps > /dev/null; done"],
        "llvm-stress": ["sh", "-c", "llvm-stress -size 100000 | llvm-as -o /dev/null"],
        "llvm-strings": ["sh", "-c", "for i in $(seq 150); do llvm-strings /usr/bin/ls > /dev/null; done"],
        "llvm-dwarfdump": ["sh", "-c", "for i in $(seq 100); do llvm-dwarfdump /usr/bin/bash > /dev/null; done"],
        "gcov": ["sh", "-c", "for i in $(seq 1500); do gcov --version > /dev/null; done"],
        "mountpoint": ["sh", "-c", "for i in $(seq 800); do mountpoint -q /; done"],
        "fc-pattern": ["sh", "-c", "for i in $(seq 500); do fc-pattern sans > /dev/null; done"],
    }


def fresh26_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-seventh, disjoint set of programs (issue 26, recorded when ``fresh25`` had been scored).

    Three are processes of about a second together (llvm-nm of libLLVM twice, jcmd -l twice (a JVM each), llvm-readelf
    -a of libstdc++ six times), the rest loops of short processes."""
    llvm = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    return {
        "llvm-nm": ["sh", "-c", f"for i in 1 2; do llvm-nm -C -D {llvm} > /dev/null; done"],
        "jcmd": ["sh", "-c", "for i in 1 2; do jcmd -l > /dev/null; done"],
        "llvm-readelf": [
            "sh",
            "-c",
            "for i in $(seq 6); do llvm-readelf -a /usr/lib/x86_64-linux-gnu/libstdc++.so.6 > /dev/null; done",
        ],
        "lzmainfo": ["sh", "-c", "for i in $(seq 1500); do lzmainfo --help > /dev/null; done"],
        "fc-validate": ["sh", "-c", "for i in $(seq 1000); do fc-validate --help > /dev/null 2>&1; done"],
        "gcov-tool": ["sh", "-c", "for i in $(seq 800); do gcov-tool --help > /dev/null 2>&1; done"],
        "fc-scan": ["sh", "-c", f"for i in $(seq 500); do fc-scan {font} > /dev/null; done"],
        "llvm-cov": ["sh", "-c", "for i in $(seq 300); do llvm-cov --version > /dev/null; done"],
    }


def fresh27_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-eighth, disjoint set of programs (issue 26, recorded when ``fresh26`` had been scored).

    Three are processes of about a second together (llvm-objcopy of libLLVM three times, jlink --list-plugins twice
    (a JVM each), llvm-strip of libLLVM three times), the rest loops of short processes."""
    llvm = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
    return {
        "llvm-objcopy": ["sh", "-c", f"for i in 1 2 3; do llvm-objcopy {llvm} {scratch}/o.so; done; rm {scratch}/o.so"],
        "jlink": ["sh", "-c", "for i in 1 2; do jlink --list-plugins > /dev/null; done"],
        "llvm-strip": ["sh", "-c", f"for i in 1 2 3; do llvm-strip -o {scratch}/s.so {llvm}; done; rm {scratch}/s.so"],
        "genccode": ["sh", "-c", "for i in $(seq 1500); do genccode --help > /dev/null 2>&1; done"],
        "gensprep": ["sh", "-c", "for i in $(seq 1500); do gensprep --help > /dev/null 2>&1; done"],
        "icuexportdata": ["sh", "-c", "for i in $(seq 1500); do icuexportdata --help > /dev/null 2>&1; done"],
        "fc-conflist": ["sh", "-c", "for i in $(seq 800); do fc-conflist > /dev/null; done"],
        "llvm-size": ["sh", "-c", f"for i in $(seq 800); do llvm-size {llvm} > /dev/null; done"],
    }


def fresh28_workloads(inputs: dict[str, Path], scratch: Path) -> dict[str, list[str]]:
    """A twenty-ninth, disjoint set of programs (issue 26, recorded when ``fresh27`` had been scored).

    Three are processes of about a second together (llvm-mca of one instruction over 200000 iterations twice,
    jrunscript -help three times (a JVM each), llvm-readobj --dyn-symbols of libLLVM three times), the rest loops of
    short processes."""
    llvm = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
    mca = "echo 'addl %eax, %ebx' | llvm-mca -mcpu=znver3 -iterations=200000 > /dev/null"
    return {
        "llvm-mca": ["sh", "-c", f"for i in 1 2; do {mca}; done"],
        "jrunscript": ["sh", "-c", "for i in 1 2 3; do jrunscript -help > /dev/null 2>&1; done"],
        "llvm-readobj": ["sh", "-c", f"for i in 1 2 3; do llvm-readobj --dyn-symbols {llvm} > /dev/null; done"],
        "llvm-dwp": ["sh", "-c", "for i in $(seq 600); do llvm-dwp --help > /dev/null; done"],
        "llvm-split": ["sh", "-c", "for i in $(seq 600); do llvm-split --help > /dev/null; done"],
        "llvm-cat": ["sh", "-c", "for i in $(seq 600); do llvm-cat --help > /dev/null; done"],
        "llvm-xray": ["sh", "-c", "for i in $(seq 500); do llvm-xray --help > /dev/null; done"],
        "llvm-opt-report": ["sh", "-c", "for i in $(seq 600); do llvm-opt-report --help > /dev/null; done"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=os.path.expanduser("~/mpx-data/traces"))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--only", nargs="*", help="workload names to record (default: all)")
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
    for i, name in enumerate(held_sets, start=2):
        ap.add_argument(f"--{name}", action="store_true", help=f"record disjoint set of programs {i} (issue 13, 26)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    inputs = make_inputs(out.parent / "inputs")
    scratch = out.parent / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    held = [name for name in held_sets if getattr(args, name)]
    wl = held_sets[held[-1]](inputs, scratch) if held else workloads(inputs, scratch)
    if args.only:
        wl = {k: v for k, v in wl.items() if k in args.only}
    t0 = time.perf_counter()
    n = 0
    for name, command in wl.items():
        # every run listed alike, as every set before fresh16 was (the runs' orders are the benchmark's choice:
        # mpx_orders.py reorders the truth after the fact)
        options = TraceOptions(runs=args.runs, timeout=300, same_order=True)
        rec = record_traces(command, EVENT_SETS, out, workload=name, options=options)
        n += len(rec.files)
        print(f"{name}: {len(rec.files)} runs, {int(rec.runs['intervals'].sum())} intervals", flush=True)
    print(f"wrote {n} trace files in {out} in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    os.environ.setdefault("HEMKIT_CACHE", os.path.expanduser("~/mpx-data/cache"))
    main()
