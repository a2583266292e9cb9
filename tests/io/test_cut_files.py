"""Files cut short inside their last line (no newline at the end) are refused, never read as complete.

A tidy table cut inside its last value (``123`` of ``123456``) read as a whole, valid table: the
cut cannot be seen in the value, only in the missing newline, which hemkit and perf always write.
"""

import gzip
import re
from pathlib import Path

import pytest

from hemkit.core.errors import InputError
from hemkit.datasets import t2080_path
from hemkit.io import read_readings, read_table
from hemkit.io.traces import read_trace

HERE = Path(__file__).parent
TIDY = "group,run,event,value\n" + "".join(f"1,{r},a,{100000 + 7 * r}\n1,{r},b,{200000 + r % 3}\n" for r in range(4))
CUT = "the last line is cut (no newline at the end)"


def _cut(text: str, n: int) -> str:
    """``text`` without its last ``n`` characters (the newline first)."""
    return text[:-n]


@pytest.mark.parametrize(
    ("n", "shown"),
    [(1, "'1,3,b,200000'"), (4, "'1,3,b,200'"), (8, "'1,3,b'")],  # the newline; inside the value; a field short
)
def test_a_tidy_csv_cut_in_its_last_line_is_refused(tmp_path, one_line, n, shown):
    p = tmp_path / "t.csv"
    p.write_text(_cut(TIDY, n))
    with pytest.raises(InputError) as e:
        read_readings(p)
    one_line(e, InputError, f"{p}: {CUT}: {shown}", "end it with a newline if it is complete")
    gz = tmp_path / "t.csv.gz"  # compressed, the file it holds is read to its end
    gz.write_bytes(gzip.compress(_cut(TIDY, n).encode()))
    with pytest.raises(InputError, match=re.escape(CUT)):
        read_readings(gz)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\n\n", "\n  "])
def test_complete_tables_read_whatever_their_line_ends(tmp_path, end):
    p = tmp_path / "t.csv"
    p.write_bytes((TIDY.replace("\n", end) if end == "\r\n" else TIDY[:-1] + end).encode())
    assert read_readings(p)[1].loc[3, "b"] == 200000


def test_other_tables_and_the_raw_reader_without_pandas(tmp_path):
    # a mergingTools raw file cut inside its last count (read by NumPy first, then pandas)
    raw = t2080_path("much_raw.csv").read_bytes()
    p = tmp_path / "raw.csv"
    p.write_bytes(raw[:-3])
    with pytest.raises(InputError, match=re.escape(f"raw.csv: {CUT}")):
        read_readings(p, pmcs=6)
    p.write_bytes(raw)
    assert read_readings(p, pmcs=6).n_runs.sum() == 24000
    # any CSV table (truth, merged, measurements ...) goes through read_table
    t = tmp_path / "truth.csv"
    t.write_text("a,b\n1,2\n3,45")
    with pytest.raises(InputError, match=re.escape(f"truth.csv: {CUT}: '3,45'")):
        read_table(t)


def test_a_perf_stat_file_cut_in_its_last_line_is_refused(tmp_path):
    """Cut inside its percentage ('100.00' -> '10') it was refused as multiplexed, or dropped as such."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for r in range(3):
        lines = [f"{1000 + 37 * r},,page-faults,1000{r},100.00,,", f"{123456 + r},,minor-faults,1000{r},100.00,,"]
        (folder / f"run_{r}.csv").write_text("# started on Mon\n\n" + "\n".join(lines) + "\n")
    last = folder / "run_2.csv"
    last.write_text(last.read_text()[: last.read_text().rindex("100.00") + 2])
    with pytest.raises(InputError, match=re.escape(f"run_2.csv: {CUT}: '123458,,minor-faults,10002,10'")):
        read_readings(folder)


def test_traces_cut_in_their_last_line_are_refused(tmp_path):
    real = HERE.parent / "mpx" / "data" / "zen5_phases_r1.csv"  # real perf stat -I output
    p = tmp_path / "phases_r1.csv"
    p.write_text(real.read_text().rstrip("\n")[:-20])
    with pytest.raises(InputError, match=re.escape(f"phases_r1.csv: {CUT}")):
        read_trace(p)
    tidy = tmp_path / "t_r1.csv"  # hemkit's tidy trace
    tidy.write_text("run,step,event,value\n" + "".join(f"r,{s},e,{1000 + s}\n" for s in range(5))[:-2])
    with pytest.raises(InputError, match=re.escape(f"t_r1.csv: {CUT}: 'r,4,e,100'")):
        read_trace(tidy)


def test_commands_refuse_a_cut_file_and_write_nothing(tmp_path, bad_input):
    p = tmp_path / "t.csv"
    p.write_text(_cut(TIDY, 4))
    for args in (["merge", p, "-o", tmp_path / "m.csv"], ["export", p, "-o", tmp_path / "e.csv"]):
        bad_input(args, names=[str(p), CUT], watch=[tmp_path])
