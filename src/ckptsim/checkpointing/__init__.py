"""Checkpoint-interval policies for any scheduler, and the checkpoint component driving them.

A policy (one small file each: none, fixed, young, daly) is a class with a frozen dataclass of
parameters, registered by name like a scheduler; `parse_policy("young:cost=600")` validates a
policy string into a `CheckpointPolicy`.  The component (`checkpointing.component`, name
"checkpoint", `--checkpoint NAME:key=value,...`) asks the policy for the interval of each job
and writes the checkpoints.
"""
