"""The command line: the only place that prints or exits.

`common` holds the shared helpers, `single` the commands on one workload (demo, run, gantt,
inspect), `listing` those that list schedulers and components, `campaign` the commands on
experiment specs and results stores (sweep, results, report), `papers` the seed papers'
figures (paper) and `convert` the workload formats (convert).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ckptsim import __version__
from ckptsim.errors import CkptsimError

#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    # The commands are imported here, inside `main`'s handling of Ctrl-C.
    from ckptsim.cli import campaign, convert, listing, papers, single

    parser = argparse.ArgumentParser(
        prog="ckptsim", description="Simulate parallel job scheduling with checkpointing, "
                                    "preemption, migration, failures and energy.")
    parser.add_argument("--version", action="version", version=f"ckptsim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    single.add_parsers(sub)
    listing.add_parsers(sub)
    campaign.add_parsers(sub)
    papers.add_parsers(sub)
    convert.add_parsers(sub)
    for command in sub.choices.values():  # an error names the command's own usage
        command.set_defaults(command_parser=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    status = _main(argv)
    if status == INTERRUPTED:
        # CPython marks a Ctrl-C that stopped code run from a string (as dataclasses build
        # their methods, while a module imports) as unhandled even once it was caught, and
        # `python -m ckptsim` then ended by SIGINT instead of with this status. Running code
        # from a string clears the mark.
        exec("")
    return status


def _main(argv: Sequence[str] | None) -> int:
    try:
        from ckptsim.cli.common import library_notes

        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:  # under the command's usage, not the top level's
            args.command_parser.error(
                f"unrecognized arguments: {' '.join(extra)}")
        with library_notes():
            return int(args.func(args))
    except KeyboardInterrupt:
        print("ckptsim: interrupted", file=sys.stderr)
        return INTERRUPTED
    except CkptsimError as exc:  # a plug-in's call that ckptsim refused names its line
        where = _user_line(exc)
        if where and f"({where})" in str(exc):  # the error names the line itself
            where = None
        print(f"ckptsim: error: {exc}" + (f" (from {where}, a plug-in's code)" if where else ""),
              file=sys.stderr)
        return 2
    except MemoryError as exc:  # e.g. demo --jobs 100000000000
        print(f"ckptsim: error: not enough memory: {exc or 'the run is too large'}",
              file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of stdout stopped (`| head`): stop quietly, as
        # a command killed by SIGPIPE does; nothing more goes to the closed pipe at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a file the command reads or writes, not reported more precisely
        where = f"{exc.filename}: " if exc.filename is not None else ""
        print(f"ckptsim: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # an error of a plug-in's own code is said so
        where = _user_line(exc)
        if where is None:
            raise  # ckptsim's own: its traceback as Python prints it
        import traceback

        traceback.print_exc()
        print(f"ckptsim: error: {type(exc).__name__}: {exc} (from {where}, a plug-in's code; "
              "the traceback is above)", file=sys.stderr)
        return 1


def _user_line(exc: BaseException) -> str | None:
    """`file, line N` of the last frame of `exc`'s traceback in a user's file (a plug-in:
    neither ckptsim's nor Python's nor an installed package's, unless it is the package of
    a plug-in the command loaded), or None."""
    import sysconfig
    import traceback
    from pathlib import Path

    from ckptsim.plugins import is_plugin_code

    own = Path(__file__).resolve().parents[1]
    skip = [own, *(Path(p).resolve() for p in {sysconfig.get_paths()["stdlib"],
                                               sysconfig.get_paths()["purelib"],
                                               sysconfig.get_paths()["platlib"]})]
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        file = Path(frame.filename)
        if frame.filename.startswith("<") or not file.is_file():
            continue
        resolved = file.resolve()
        if not any(resolved.is_relative_to(p) for p in skip) or is_plugin_code(resolved):
            found = f"{frame.filename}, line {frame.lineno}"
    return found
