"""The built-in components: the platform-side actors a run plugs into the engine.

availability (+ interruptions: owners, reboots, maintenance, traces, failures taking machines
out of service), failures, energy (+ machines, energybulk, energyhtc, energyparams, energywake:
the meter's per-machine states, node-set accounting, HTC attribution, parameters and the
charge of a wake-up a job waits out), powermgr (the power manager), bound (the
execution-time bound), rounding (capacity counts a BG/L box's nodes beyond the job's requested
size as lost), gridrates (the grid's links as a rate model, attached by `coalloc`), speed
(the platform's machine speeds as a rate model) and
checkpoint (+ checkpointagent: the checkpoint component driving the `ckptsim.checkpointing`
policies for any scheduler).

The component base class and the registry are the engine's (`ckptsim.engine.components`);
importing this package adds the loader that registers the built-in components there, so that
lookups by name through this package always see them.  The registered names are those of the
classes (`failures`, `availability`, `energy`, `power`, `bound`, `rounding`, `checkpoint`,
`speed`).
"""

from __future__ import annotations

from ckptsim.engine.component_text import split_component
from ckptsim.engine.components import (
    Component,
    add_loader,
    alias_keys,
    build_components,
    component_classes,
    component_names,
    get_component,
    known_component,
    merge_counters,
    portable_name,
    register_component,
)
from ckptsim.registry import package_loader

#: Imports the package's modules that register a component (`@register_component`), once.
_load_builtin = package_loader("ckptsim.components", "register_component")

add_loader(_load_builtin)

__all__ = ["Component", "alias_keys", "build_components", "component_classes",
           "component_names", "get_component", "known_component", "merge_counters",
           "portable_name", "register_component", "split_component"]
