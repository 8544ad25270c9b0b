"""The shape every plug-in class must have, checked where it is named (`ckptsim.plugins`
loads it): mistakes that would otherwise surface as a traceback in the middle of a run, or
as parameters or hooks silently missing."""

from __future__ import annotations

import dataclasses
import inspect
import logging
from typing import Any

from ckptsim.errors import ConfigError
from ckptsim.params import validate_params


def check_shape(cls: type, kind: str, key: str, what: str) -> None:
    """Refuse the plug-in mistakes that would otherwise surface as a traceback in the middle
    of a run, or as parameters silently missing: a `Params` that is not a dataclass, a
    `param(...)` written on the class itself, a method every such class needs left out."""
    params = getattr(cls, "Params", None)
    if params is not None and not dataclasses.is_dataclass(params):
        raise ConfigError(key, f"{what}: its Params ({getattr(params, '__name__', params)}) is "
                               "not a dataclass; write it as @dataclasses.dataclass(frozen=True) "
                               "with fields made by ckptsim.param(...) (docs/plugins.md)")
    for c in cls.__mro__:
        if c.__module__.partition(".")[0] == "ckptsim":
            continue
        field = next((a for a, v in vars(c).items() if isinstance(v, dataclasses.Field)), None)
        if field is not None:
            raise ConfigError(key, f"{what}: {field} = param(...) is written on the {kind} "
                                   "class, where it is no parameter; parameters are the fields "
                                   "of the dataclass given as its Params (docs/plugins.md)")
    if params is not None:
        _check_defaults(params, key, what)
    base = getattr(cls, "params_base", None)
    if params is not None and isinstance(base, type) and not issubclass(params, base):
        raise ConfigError(key, f"{what}: its Params ({params.__name__}) does not extend "
                               f"ckptsim.{base.__name__}, as every {kind}'s must (the cost, "
                               "bandwidth, memory, constant, restart and mtbf options, given "
                               "once for a whole + combination; docs/plugins.md)")
    _note_unknown_hooks(cls, what)
    _check_signatures(cls, key, what)
    required = tuple(getattr(cls, "must_define", ()))
    if getattr(cls, "dynamic", False) is True:  # next_interval answers, not interval
        required = tuple("next_interval" if m == "interval" else m for m in required)
    for method in required:
        owner = next(c for c in cls.__mro__ if method in vars(c))
        if method in vars(owner).get("must_define", ()) or (
                "must_define" in vars(owner) and owner.__module__.startswith("ckptsim.")):
            sort = getattr(cls, "kind", "")
            label = f"{sort} {kind}" if isinstance(sort, str) and sort else kind
            raise ConfigError(key, f"{what}: {cls.__name__} defines no {method}(); every {label} "
                                   "must (docs/plugins.md)")


def _check_defaults(params: type, key: str, what: str) -> None:
    """Every parameter has a default (the value of a run that does not give it), inside its
    own range: otherwise the first run failed with a TypeError, or blamed the user's `--set`
    for a value they never gave."""
    for f in dataclasses.fields(params):
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ConfigError(key, f"{what}: parameter {f.name} has no default; every "
                                   "parameter needs one, the value of a run that does not "
                                   f"give it: {f.name}: ... = param(DEFAULT, help=...) "
                                   "(docs/plugins.md)")
    try:
        validate_params(params())
    except ConfigError as exc:
        raise ConfigError(key, f"{what}: the default of parameter {exc.key} is outside its "
                               f"own range ({exc.message})") from None


#: Method name beginnings of the engine's hooks.
_HOOK_PREFIXES = ("on_", "before_", "after_", "at_")
_NOTED: set[tuple[type, str]] = set()  # plug-ins already noted, once per process


def _note_unknown_hooks(cls: type, what: str) -> None:
    """Note (on the "ckptsim" logger) a plug-in component's methods named like hooks that are
    none (`on_started`): the engine never calls them, and the run would say nothing."""
    hooks = getattr(cls, "known_hooks", None)
    if not hooks:
        return
    odd = sorted({m for c in cls.__mro__ if c.__module__.partition(".")[0] != "ckptsim"
                  for m, v in vars(c).items()
                  if m.startswith(_HOOK_PREFIXES) and callable(v) and m not in hooks})
    if odd and (cls, what) not in _NOTED:
        _NOTED.add((cls, what))
        logging.getLogger("ckptsim.plugins").warning(
            f"{what}: {', '.join(odd)} {'is' if len(odd) == 1 else 'are'} named like a hook "
            f"but {'is' if len(odd) == 1 else 'are'} none, and never called; the hooks: "
            f"{', '.join(hooks)}")


def _check_signatures(cls: type, key: str, what: str) -> None:
    """Refuse a plug-in's method that overrides one of its ckptsim base (a hook, `schedule`,
    `interval`, `counters`, `__init__`, ...) but cannot be called with the arguments the base's
    takes, as ckptsim calls it: otherwise the run stopped in the engine's own code with a
    TypeError (`schedule(self)` for `schedule(self, now)`)."""
    for c in cls.__mro__:
        if _builtin(c):
            continue
        for name, own in vars(c).items():
            if name.startswith("_") and name != "__init__":
                continue
            base = next((b for b in cls.__mro__ if _builtin(b) and name in vars(b)), None)
            if base is None:
                continue
            mine, theirs = _callable(own), _callable(vars(base)[name])
            if mine is None or theirs is None or mine[0] != theirs[0]:
                continue
            args, kwargs = _arguments(theirs[1])
            try:
                mine[1].bind(*args, **kwargs)
            except TypeError as exc:
                code = getattr(getattr(own, "__func__", own), "__code__", None)
                where = f" ({code.co_filename}, line {code.co_firstlineno})" if code else ""
                raise ConfigError(key, f"{what}: {c.__name__}.{name}{_plain(*mine)}{where} "
                                       "does not take the arguments ckptsim calls it with: "
                                       f"{name}{_plain(*theirs)}, as {base.__name__} declares "
                                       f"it ({exc})") from None


def _builtin(c: type) -> bool:
    return c is object or c.__module__.partition(".")[0] == "ckptsim"


def _callable(value: Any) -> tuple[str, inspect.Signature] | None:
    """(how it is bound, its signature with the bound argument left out) of a method defined
    in a class body; None for anything else (an attribute, a property)."""
    if isinstance(value, (classmethod, staticmethod)):
        kind, func = type(value).__name__, value.__func__
    elif inspect.isfunction(value):
        kind, func = "method", value
    else:
        return None
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if kind != "staticmethod" and params and params[0].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        params = params[1:]  # self, cls
    return kind, sig.replace(parameters=params)


def _arguments(sig: inspect.Signature) -> tuple[list[None], dict[str, None]]:
    """Arguments for every parameter of a base method's signature: its positional ones by
    position, its keyword-only ones by name (their values do not matter to `bind`)."""
    P = inspect.Parameter
    args = [None for p in sig.parameters.values()
            if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    kwargs = {p.name: None for p in sig.parameters.values() if p.kind is P.KEYWORD_ONLY}
    return args, kwargs


def _plain(kind: str, sig: inspect.Signature) -> str:
    """A method's signature as written, without annotations: ``(self, now)``."""
    text = str(sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty)
                                       for p in sig.parameters.values()],
                           return_annotation=inspect.Signature.empty))
    first = {"method": "self", "classmethod": "cls"}.get(kind)
    if first is None:
        return text
    return f"({first}{', ' if text != '()' else ''}{text[1:]}"


def check_class(obj: Any, base: type | None, kind: str, key: str, what: str,
                builtin: dict[str, Any], default: str = "") -> Any:
    """`obj` as a plug-in class of the registry: a subclass of `base` with a name of its own
    (its `name` when it sets one that is no built-in's, else `default` (an entry point's
    name) or its class name; `what`: how the user named it, for messages)."""
    from ckptsim import plugins

    if base is not None and isinstance(obj, base):
        raise ConfigError(key, f"an instance of {type(obj).__name__}: give the {kind} class "
                               "itself, which the run builds with the parameters given apart")
    if base is not None and not (isinstance(obj, type) and issubclass(obj, base)):
        found = (obj.__name__ if isinstance(obj, type) else
                 f"{getattr(obj, '__name__', repr(obj))} (a {type(obj).__name__})")
        raise ConfigError(key, f"{what}: {found} is not a {kind} class (a subclass of "
                               f"ckptsim.{base.__name__})")
    own = obj.__dict__.get("name")
    if own:
        if not isinstance(own, str):
            raise ConfigError(key, f"{what}: its name must be a string, got {own!r}")
        if own in builtin and builtin[own] is not obj:
            raise ConfigError(key, f"{what}: its name {own!r} is a built-in {kind}'s; "
                                   "give it another")
    if base is not None:
        check_shape(obj, kind, key, what)
    if not own and (getattr(obj, "name", "") in builtin or not getattr(obj, "name", "")):
        obj.name = default or _entry_point_name(obj, kind) or obj.__name__
    if not plugins._is_builtin(obj):
        plugins._note_code(obj)
    return obj


def _entry_point_name(cls: type, kind: str) -> str:
    """The name of an installed entry point designating `cls`, or "": a nameless class is
    named alike loaded by it or as module:Class first (run ids hash the name)."""
    from ckptsim.plugins import entry_points

    where = f"{cls.__module__}:{cls.__qualname__}"
    return next((str(n) for n, ep in sorted(entry_points(kind).items())
                 if ep.value.partition("[")[0].replace(" ", "") == where), "")
