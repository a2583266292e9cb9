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
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hemkit.core.errors import MeasurementError, SetupError


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


def run(
    args: Sequence[str],
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
    env : mapping, optional
        Variables *added* to the user's environment.
    timeout : float, optional
        Seconds before the program is killed; then a :class:`MeasurementError`.
    capture : bool, default True
        Capture stdout and stderr (else stdout is discarded and stderr captured).
    start_new_session : bool
        Own session, so a Ctrl-C at the terminal does not reach the program.
    what : str, optional
        How to name the program in messages (default: its file name).

    Raises
    ------
    SetupError
        The program does not exist or cannot be executed.
    MeasurementError
        It ran longer than ``timeout``.
    """
    args = [os.fspath(a) for a in args]
    name = what or os.path.basename(args[0])
    try:
        proc = subprocess.run(
            args,
            env=user_environment(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            start_new_session=start_new_session,
        )
    except FileNotFoundError:
        raise SetupError(f"{name}: program not found ({args[0]})") from None
    except PermissionError:
        raise SetupError(f"{name}: not executable ({args[0]})") from None
    except subprocess.TimeoutExpired:
        raise MeasurementError(f"{name}: still running after {timeout:g} s; stopped") from None
    return Completed(tuple(args), proc.returncode, proc.stdout or "", proc.stderr or "")


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


__all__ = ["Completed", "describe_status", "run", "start", "stop", "user_environment"]
