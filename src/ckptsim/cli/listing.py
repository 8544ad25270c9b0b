"""The commands that list what a run can use: schedulers, components (and checkpoint policies
named where a component is asked for), with their parameters."""

from __future__ import annotations

import argparse
from typing import Any

from ckptsim.errors import ConfigError


def cmd_components(args: argparse.Namespace) -> int:
    from ckptsim.components import component_names, get_component

    for name in args.names or component_names():
        try:
            cls = get_component(name)
        except ConfigError as exc:
            if not args.names:  # an installed entry point that does not load
                _broken(name, exc)
            elif not _describe_policy(name):
                raise exc from None
            continue
        _describe(cls.name if args.names else name, cls)
        for line in cls.help_lines():
            print(f"    {line}")
    return 0


def _describe_policy(name: str) -> bool:
    """A checkpoint policy named where a component was asked for (`ckptsim components young`,
    a plug-in policy's file): described with its own parameters; False if it is none."""
    import dataclasses

    from ckptsim.checkpointing.base import CostParams, get_policy

    try:
        pol = get_policy(name)
    except ConfigError:
        return False
    _describe(f"{pol.name} [{pol.kind} checkpoint policy: a part of the checkpoint "
              f"component's policy]", pol, skip={f.name for f in dataclasses.fields(CostParams)})
    return True


def cmd_schedulers(args: argparse.Namespace) -> int:
    from ckptsim.policies.base import get_scheduler, scheduler_names

    for name in args.names or scheduler_names():
        try:
            cls = get_scheduler(name)
        except ConfigError as exc:
            if args.names:
                raise
            _broken(name, exc)  # an installed entry point that does not load
            continue
        _describe(cls.name if args.names else name, cls)
    return 0


def _broken(name: str, exc: ConfigError) -> None:
    """An installed entry point that does not load, listed with its error in place of its
    description: the others are listed still."""
    print(f"{name}: cannot be loaded ({exc.message})")


def _describe(name: str, cls: Any, skip: set[str] | frozenset[str] = frozenset()) -> None:
    """A scheduler's, component's or checkpoint policy's name, description (else its
    docstring's first line) and parameters (those in `skip` left out), as listed."""
    import dataclasses

    from ckptsim.policies.base import describe_range

    doc = (cls.__dict__.get("__doc__") or "").strip().splitlines()
    text = cls.__dict__.get("description") or (doc[0] if doc else "")
    if not text and cls.description:  # a subclass that says nothing of itself
        parent = next((c for c in cls.__mro__[1:] if c.__dict__.get("description")), None)
        text = f"a subclass of {getattr(parent, 'name', '')}: {cls.description}"
    print(f"{name}: {text}".rstrip())
    for f in dataclasses.fields(cls.Params):
        if f.name not in skip:
            print(f"    {f.name} = {f.default!r}  ({describe_range(f)}) "
                  f"{f.metadata.get('help', '')}")


def add_parsers(sub: Any) -> None:
    for command, func in (("schedulers", cmd_schedulers), ("components", cmd_components)):
        p = sub.add_parser(command, help=f"list {command} and their parameters")
        p.add_argument("names", nargs="*", metavar="NAME",
                       help="only these: names, or plug-ins (FILE.py:Class, module:Class) to "
                            "see their parameters as ckptsim reads them (default: every "
                            "built-in and installed one)")
        p.set_defaults(func=func)
