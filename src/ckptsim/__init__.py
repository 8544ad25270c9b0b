"""ckptsim: trace-driven simulation of parallel job scheduling with checkpointing,
preemption, migration, failures and energy."""

__version__ = "0.1.0"
