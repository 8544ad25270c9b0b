"""A parameter added after runs were recorded (`param(..., added=True)`) is left out of run
identities at its default, for components as for policies, so stored runs keep their ids."""

from __future__ import annotations

import dataclasses

import pytest

import ckptsim.components  # noqa: F401  (registers the built-in components)
from ckptsim.engine.components import component_names, get_component


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
        value = field.default
        other = (not value if isinstance(value, bool) else
                 next((c for c in field.metadata.get("choices") or () if c != value), None)
                 if field.metadata.get("choices") else value + 60.0)
        changed = cls.identity(cls.make_params({field.name: other}))
        assert changed[field.name] == other
