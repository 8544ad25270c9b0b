"""Checkpoint-interval policies for any scheduler (pure policies: no simulation state).

A policy (one small file each: none, fixed, young, daly) is a class with a frozen dataclass of
parameters, registered by name like a scheduler; `parse_policy("young:cost=600")` validates a
policy string into a `CheckpointPolicy`.  The checkpoint component that drives them
(`ckptsim.components.checkpoint`, name "checkpoint", `--checkpoint NAME:key=value,...`) asks
the policy for the interval of each job and writes the checkpoints.
"""
