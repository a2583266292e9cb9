"""Starting other programs: the one place hemkit calls :mod:`subprocess`.

Every program hemkit runs -- ``perf``, ``valgrind``, the C compiler, a measured program, a
co-runner -- goes through :func:`run` or :func:`start`.  They give the program the user's
own environment unchanged (``PATH``, an activated virtual environment, the current
directory) unless a caller adds variables, and turn "not found", "not executable" and time
limits into one-line :class:`hemkit.core.errors.HemkitError` subclasses.

Examples
--------
>>> run(["echo", "hello"]).stdout
'hello\\n'
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from hemkit.core.errors import InputError, MeasurementError, SetupError


def user_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The user's environment (``os.environ``) with ``extra`` variables added."""
    env = dict(os.environ)
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True)
class Completed:
    """A finished program: its arguments, exit status and (captured) output."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def failed(self) -> bool:
        """Whether the program exited non-zero or was killed."""
        return self.returncode != 0

    def status(self) -> str:
        """``exit code N`` or ``killed by signal NAME``, as a user reads it."""
        return describe_status(self.returncode)


def describe_status(returncode: int) -> str:
    """``exit code 3`` or ``killed by signal SIGKILL`` for a :mod:`subprocess` return code."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = str(-returncode)
        return f"killed by signal {name}"
    return f"exit code {returncode}"


@dataclass(frozen=True)
class Program:
    """A program to start when a plain argument list is not enough.

    Parameters
    ----------
    args : tuple of str
        The arguments the program sees, ``args[0]`` included.
    executable : str, optional
        The file to execute when ``args[0]`` is only the name the program should see.
        ``perf`` needs this: started as ``/usr/bin/perf`` it puts ``/usr/bin`` in front of
        the measured program's ``PATH`` (so ``python3`` would be the system one); started
        as ``perf`` it leaves the user's folders first.
    die_with_parent : bool
        Linux: the program gets SIGTERM when hemkit dies, even by SIGKILL.

    Examples
    --------
    >>> import shutil
    >>> run(Program(("echo", "hi"), executable=shutil.which("echo"))).stdout
    'hi\\n'
    """

    args: tuple[str, ...]
    executable: str | None = None
    die_with_parent: bool = False


def find_tool(name: str | None, *, env: str, default: str, install: str) -> str:
    """Path of one of hemkit's tools: ``name``, else ``$env``, else ``default``, on ``PATH``.

    Raises
    ------
    SetupError
        Not found, with how to install it (``install``).

    Examples
    --------
    >>> find_tool(None, env="HEMKIT_NO_SUCH_VARIABLE", default="sh", install="").endswith("/sh")
    True
    """
    wanted = name or os.environ.get(env, default)
    path = shutil.which(wanted)
    if path is None:
        raise SetupError(f"{default} not found ({wanted!r}); install it ({install})")
    return path


def resolve_program(name: str, *, what: str = "program") -> str:
    """The file that runs for ``name``: looked up on the user's ``PATH`` unless it names a path.

    Parameters
    ----------
    name : str
        A program name (``python3``) or a path (``./prog``, ``/usr/bin/true``).
    what : str
        How to call it in messages (``"program"``, ``"co-runner"``).

    Raises
    ------
    InputError
        Not found on ``PATH``, no such file, or not executable (naming ``name``).

    Examples
    --------
    >>> resolve_program("sh").endswith("/sh")
    True
    """
    if not name:
        raise InputError(f"{what}: empty program name")
    if "/" not in name:
        found = shutil.which(name, path=os.environ.get("PATH", os.defpath))
        if found is None:
            raise InputError(f"{what} {name!r} not found on PATH")
        return found
    if not os.path.exists(name):
        raise InputError(f"{what} {name!r}: no such file")
    if os.path.isdir(name) or not os.access(name, os.X_OK):
        raise InputError(f"{what} {name!r}: not an executable file")
    return name


def _kill_group(proc: subprocess.Popen[Any], group: bool) -> None:
    """SIGKILL ``proc`` (and its whole process group when it leads one), then reap it."""
    if proc.poll() is None:
        try:
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except (ProcessLookupError, PermissionError):
            pass
    proc.wait()


def run(
    args: Sequence[str] | Program,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    capture: bool = True,
    start_new_session: bool = False,
    what: str | None = None,
) -> Completed:
    """Run ``args`` to completion and return what happened (a non-zero exit is not an error here).

    Parameters
    ----------
    args : sequence of str or Program
        The program and its arguments.
    env : mapping, optional
        Variables *added* to the user's environment.
    timeout : float, optional
        Seconds before the program is killed; then a :class:`MeasurementError`.
    capture : bool, default True
        Capture stdout and stderr (else stdout is discarded and stderr captured).
    start_new_session : bool
        Own session, so a Ctrl-C at the terminal does not reach the program.  If hemkit
        is interrupted while waiting (Ctrl-C, SIGTERM) or the time runs out, the whole
        session is killed -- the program and what it started -- before the error goes on.
    what : str, optional
        How to name the program in messages (default: its file name).

    Raises
    ------
    SetupError
        The program does not exist or cannot be executed.
    MeasurementError
        It ran longer than ``timeout``.
    """
    spec = args if isinstance(args, Program) else Program(tuple(os.fspath(a) for a in args))
    argv = [os.fspath(a) for a in spec.args]
    name = what or os.path.basename(argv[0])
    try:
        proc = subprocess.Popen(
            argv,
            executable=spec.executable,
            env=user_environment(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=start_new_session,
            preexec_fn=_die_with_parent if spec.die_with_parent else None,
        )
    except FileNotFoundError:
        raise SetupError(f"{name}: program not found ({spec.executable or argv[0]})") from None
    except PermissionError:
        raise SetupError(f"{name}: not executable ({spec.executable or argv[0]})") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc, start_new_session)
        raise MeasurementError(f"{name}: still running after {timeout:g} s; stopped") from None
    except BaseException:  # Ctrl-C, SIGTERM: nothing of ours may outlive hemkit
        _kill_group(proc, start_new_session)
        raise
    return Completed(tuple(argv), proc.returncode, out or "", err or "")


class Writing:
    """A program started by :func:`writing`, whose standard output goes to a file.

    Attributes
    ----------
    completed : Completed or None
        Its exit status and standard error (``stdout`` is ``""``: the output is in the
        file), once the ``with`` block has ended.
    """

    def __init__(self, proc: subprocess.Popen[bytes], argv: list[str], err: Any, deadline: float | None) -> None:
        self.proc, self.argv, self._err, self.deadline = proc, argv, err, deadline
        self.completed: Completed | None = None

    def running(self) -> bool:
        """Whether the program is still running (past its time limit: stopped, MeasurementError)."""
        if self.proc.poll() is not None:
            return False
        if self.deadline is not None and time.monotonic() > self.deadline:
            _kill_group(self.proc, True)
            raise MeasurementError(f"{os.path.basename(self.argv[0])}: still running after its time limit; stopped")
        return True

    def _finish(self) -> None:
        self.proc.wait()
        self._err.seek(0)
        err = self._err.read().decode(errors="replace")
        self.completed = Completed(tuple(self.argv), self.proc.returncode, "", err)


@contextmanager
def writing(
    args: Sequence[str], output: str | os.PathLike[str], *, timeout: float | None = None, what: str | None = None
) -> Iterator[Writing]:
    """Run ``args`` with its standard output written to the file ``output`` while the block runs.

    The block may read ``output`` as it grows (:meth:`Writing.running` says when the
    program is done): a program's large output is then parsed while it is written, on
    another core, and never held in memory as a whole.  When the block ends the program is
    waited for (:attr:`Writing.completed`); if the block raises, or hemkit is interrupted,
    the program and what it started are killed first.

    Raises
    ------
    SetupError
        The program does not exist or cannot be executed.
    MeasurementError
        It ran longer than ``timeout`` (checked by :meth:`Writing.running`).

    Examples
    --------
    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with writing(["echo", "hello"], out) as job:
    ...     while job.running():
    ...         pass
    >>> open(out).read(), job.completed.returncode
    ('hello\\n', 0)
    """
    argv = [os.fspath(a) for a in args]
    name = what or os.path.basename(argv[0])
    with open(output, "wb") as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                argv, env=user_environment(), stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
            )
        except FileNotFoundError:
            raise SetupError(f"{name}: program not found ({argv[0]})") from None
        except PermissionError:
            raise SetupError(f"{name}: not executable ({argv[0]})") from None
        job = Writing(proc, argv, err, None if timeout is None else time.monotonic() + timeout)
        try:
            yield job
        except BaseException:  # an error, Ctrl-C, SIGTERM: nothing of ours may outlive hemkit
            _kill_group(proc, True)
            raise
        job._finish()


def start(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    die_with_parent: bool = True,
    what: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``args`` in the background (output discarded), in its own session.

    With ``die_with_parent`` (Linux) the program gets SIGTERM when hemkit dies, even by
    SIGKILL.  Stop it with :func:`stop`.
    """
    args = [os.fspath(a) for a in args]
    name = what or os.path.basename(args[0])
    try:
        return subprocess.Popen(
            args,
            env=user_environment(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent if die_with_parent else None,
        )
    except FileNotFoundError:
        raise SetupError(f"{name}: program not found ({args[0]})") from None
    except PermissionError:
        raise SetupError(f"{name}: not executable ({args[0]})") from None


def stop(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Terminate a program started with :func:`start` (and its session), then reap it."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:  # pragma: no cover - a program that ignores SIGTERM
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait()


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: deliver SIGTERM to this child when its parent dies (PR_SET_PDEATHSIG)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


__all__ = [
    "Completed",
    "Program",
    "Writing",
    "describe_status",
    "resolve_program",
    "run",
    "start",
    "stop",
    "user_environment",
    "writing",
]
