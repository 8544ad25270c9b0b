"""`ckptsim convert IN OUT`: a workload (SWF trace, Batsim JSON or generator string) written
as SWF or Batsim JSON, by OUT's suffix, after the transforms `run` applies."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from ckptsim.cli.common import load_workload, note
from ckptsim.errors import ConfigError

#: OUT suffixes and the format each writes.
SUFFIXES = {".swf": "swf", ".swf.gz": "swf", ".json": "batsim", ".json.gz": "batsim"}


def out_format(out: str) -> str:
    """`swf` or `batsim` by OUT's suffix, else a ConfigError naming the suffixes accepted."""
    lower = out.lower()
    for suffix, kind in SUFFIXES.items():
        if lower.endswith(suffix):
            return kind
    raise ConfigError("OUT", f"{out!r} has an unknown suffix {Path(out).suffix or '(none)'!r}; "
                             f"accepted: {', '.join(SUFFIXES)} (SWF, or Batsim JSON)")


def _check_not_the_input(source: str, out: str) -> None:
    """Refuse an OUT that is the IN file itself (also through another path or a link):
    writing it would destroy the input."""
    src, dst = Path(source).expanduser(), Path(out).expanduser()
    try:
        same = src.is_file() and dst.exists() and src.samefile(dst)
    except OSError:
        same = False
    if same:
        raise ConfigError("OUT", f"{out!r} is the input file {source!r}: converting would "
                                 "overwrite it; accepted: another file to write")


def cmd_convert(args: argparse.Namespace) -> int:
    kind = out_format(args.out)
    _check_not_the_input(args.source, args.out)
    args.workload = args.source
    w = load_workload(args)
    if _alpha(args) > 1:
        from ckptsim.cli.single import alpha_note

        note(alpha_note(w, args.alpha, None))
    # The source's job and record counts describe the source: the output's are its own jobs,
    # one record each (after --first, --window or the loader's rules, fewer).
    counted = {k: str(len(w)) for k in ("MaxJobs", "MaxRecords") if k in w.header}
    if counted:
        w = replace(w, header={**w.header, **counted})
    renumbered = w.counts.get("ids_renumbered", 0)
    if renumbered:
        note(f"{args.source}'s job ids are not all distinct whole numbers from 0 to 2^53 (SWF "
             f"job numbers): its {renumbered} jobs are numbered 1..n in file order; "
             + ("the file written keeps the ids as written" if kind == "batsim" else
                "an SWF file has no place for the ids as written (convert to .json to keep "
                "them)"))
    if kind == "batsim":
        from ckptsim.workload.batsim_write import write_batsim, zero_walltimes

        write_batsim(args.out, w)
        zero = int((w.runtime <= 0).sum())
        if zero:
            note(f"{zero} job(s) run for 0 s (profile delay_0): Batsim refuses a delay "
                 "profile that is not > 0 s, though ckptsim reads it; for Batsim, remove "
                 "those jobs from the input first (in an SWF trace: run time, field 4, is 0)")
        zero = zero_walltimes(w)
        if zero:
            clamps = _alpha(args) > 1
            note(f"{zero} job(s) have walltime 0 (their estimate is 0 s"
                 + (f"; --alpha {args.alpha:g} > 1 clamps the estimates it makes negative to 0"
                    if clamps else "")
                 + "): Batsim refuses a walltime that is neither -1 nor > 0, though ckptsim "
                   "reads it; for Batsim, " + ("use an --alpha of at most 1, or " if clamps
                                               else "")
                 + "remove those jobs from the input first")
    else:
        from ckptsim.workload.batsim import ID_COLUMN
        from ckptsim.workload.batsim_write import swf_fields
        from ckptsim.workload.swf_write import write_swf

        # MaxProcs where the source has it (a Batsim file's swf_header keeps its order through
        # SWF and back), else first; MaxNodes left out (docs/workloads.md).
        header = {k: v for k, v in w.header.items() if k != "MaxNodes"}
        if "MaxProcs" in header:
            header["MaxProcs"] = str(w.machine_size)
        else:
            header = {"MaxProcs": str(w.machine_size), **header}
        write_swf(args.out, swf_fields(w), header=header)
        written = w.extra.get(ID_COLUMN)
        if written is not None and not renumbered:  # the numbers are kept, not the ids
            note(f"an SWF file has no place for {args.source}'s job ids as written "
                 f"({str(written[0])!r}, ...): its job numbers are the numbers after each "
                 "id's last '!' (convert to .json to keep the ids)")
        dropped = _unwritten_columns(w)
        if dropped:
            note(f"the workload's {', '.join(dropped)} columns have no SWF field and are not "
                 "written (a grid workload's home clusters and bandwidths: coalloc refuses "
                 "the file); convert to .json to keep them")
    print(f"wrote {len(w)} jobs ({w.machine_size} nodes) to {args.out}")
    return 0


def _alpha(args: argparse.Namespace) -> float:
    return args.alpha if args.alpha is not None else 1.0


def _unwritten_columns(w: Any) -> list[str]:
    """The workload's numeric extra columns, which a Batsim file carries and SWF cannot
    (a Batsim workload's own ids aside)."""
    from ckptsim.workload.batsim import ID_COLUMN

    return [name for name, column in w.extra.items()
            if name != ID_COLUMN and column.ndim == 1 and column.dtype.kind in "iuf"]


def add_parsers(sub: Any) -> None:
    from ckptsim.cli.single import _add_workload_options, add_transform_options

    p = sub.add_parser("convert", help="write a workload (SWF, Batsim JSON or a generator "
                                       "string) as SWF or Batsim JSON")
    p.add_argument("source", metavar="IN",
                   help="an SWF trace (.swf, .swf.gz), a Batsim JSON workload (.json, "
                        ".json.gz) or a generator string ('lublin:...', 'grid:...', 'htc:...', "
                        "'builtin'); required")
    p.add_argument("out", metavar="OUT",
                   help="the file to write: .swf or .swf.gz (SWF) or .json or .json.gz "
                        "(Batsim JSON); required")
    add_transform_options(p)
    _add_workload_options(p)
    p.set_defaults(func=cmd_convert)
