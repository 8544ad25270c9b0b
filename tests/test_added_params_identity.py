"""A parameter added after runs were recorded (`param(..., added=True)`) is left out of run
identities at its default, for components as for policies, so stored runs keep their ids; a
parameter whose default changed later (`was=`) is left out at the value those runs had."""

from __future__ import annotations

import dataclasses

import pytest

import ckptsim.components  # noqa: F401  (registers the built-in components)
from ckptsim.engine.components import component_names, get_component
from ckptsim.params import identity_params, param


def _components_with_added_params():
    out = []
    for name in component_names():
        cls = get_component(name)
        params = getattr(cls, "Params", None)
        if params is None or not dataclasses.is_dataclass(params):
            continue
        added = [f.name for f in dataclasses.fields(params) if f.metadata.get("added")]
        if added:
            out.append((name, added))
    return out


CASES = _components_with_added_params()


def test_some_component_has_an_added_parameter():
    assert CASES, "no component declares an added parameter: the test below checks nothing"


@pytest.mark.parametrize("name, added", CASES, ids=[c[0] for c in CASES])
def test_added_parameters_at_their_default_leave_the_identity_alone(name, added):
    cls = get_component(name)
    defaults = cls.make_params({})
    identity = cls.identity(defaults)
    assert not set(added) & set(identity)
    for field in dataclasses.fields(cls.Params):
        if field.name not in added:
            continue
        value = field.metadata["was"]
        other = (not value if isinstance(value, bool) else
                 next((c for c in field.metadata.get("choices") or () if c != value), None)
                 if field.metadata.get("choices") else value + 60.0)
        changed = cls.identity(cls.make_params({field.name: other}))
        assert changed[field.name] == other


@dataclasses.dataclass(frozen=True)
class _Later:
    """`mode` came after runs were recorded (they ran `old`), and its default later became
    `new`; `extra` came after them too and kept its default."""

    p: float = param(0.5, "a parameter runs always had")
    mode: str = param("new", "how", choices=("old", "new"), added=True, was="old")
    extra: bool = param(False, "whether", added=True)


def test_an_added_parameter_is_left_out_at_the_value_recorded_runs_had():
    # A run recorded before `mode` existed had {"p": 0.5} as its parameters, and ran `old`.
    recorded = {"p": 0.5}
    assert identity_params(_Later(mode="old")) == recorded
    # The new default is another run: it must not take the recorded run's identity.
    assert identity_params(_Later()) == {"p": 0.5, "mode": "new"}
    assert identity_params(_Later(mode="new", extra=True)) == {"p": 0.5, "mode": "new",
                                                              "extra": True}


def test_was_is_only_for_added_parameters():
    with pytest.raises(ValueError, match="added"):
        param(1, "x", was=2)
