"""The project's error types. Every error a user can cause derives from CkptsimError,
so the CLI can print it without a traceback."""

from __future__ import annotations

from collections.abc import Iterable


class CkptsimError(Exception):
    """Base class of every error ckptsim raises on purpose."""


class WorkloadError(CkptsimError):
    """A trace or workload cannot be read: names the file, the line and the field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field {field}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


def shown(value: object, most: int = 60) -> str:
    """A value of a user's file as an error quotes it: its repr, cut after `most` characters
    with its length (a number of 400 digits, a field of 5,000 characters, a whole list given
    as a job are no message)."""
    text = repr(value)
    return text if len(text) <= most else f"{text[:most]}... ({len(text)} characters)"


def shown_key(key: str, most: int = 60) -> str:
    """A key a user typed (`--set KEY=...`, an option of `--component`, a spec's key) as an
    error names it: cut after `most` characters with its length, as `shown` cuts a value (a
    key of 3,000 characters is no message)."""
    key = str(key)
    return key if len(key) <= most else f"{key[:most]}... ({len(key)} characters)"


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """` (did you mean 'NAME'?)` for the accepted name closest to a misspelt `word` (case
    aside), or "" when none is close: appended where an error names an unknown name."""
    import difflib

    if not isinstance(word, str) or not word.strip():
        return ""
    names = {c.lower(): c for c in choices if isinstance(c, str)}
    close = difflib.get_close_matches(word.strip().lower(), list(names), n=1, cutoff=0.75)
    return f" (did you mean {names[close[0]]!r}?)" if close else ""


class ConfigError(CkptsimError):
    """A parameter or option is wrong: names the key and what is accepted."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        self.message = message
        super().__init__(f"{key}: {message}")


class OutputError(CkptsimError):
    """An output file or folder cannot be written: names the path and the reason."""

    def __init__(self, path: str, message: str) -> None:
        self.path = str(path)
        super().__init__(f"{path}: {message}")


class DecisionError(CkptsimError):
    """A policy asked the engine for something impossible (names the job and the reason)."""

    def __init__(self, job_id: int | None, reason: str, time: float | None = None) -> None:
        self.job_id = job_id
        self.reason = reason
        self.time = time
        at = f" at t={time:g}" if time is not None else ""
        who = f"job {job_id}" if job_id is not None else "decision"
        super().__init__(f"{who}{at}: {reason}")


class InvariantError(CkptsimError):
    """The invariant checker found a state that must never happen (a simulator bug)."""
