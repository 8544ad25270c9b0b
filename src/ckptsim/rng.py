"""Named, independent random streams derived from one seed.

Every random aspect of a run (arrivals, job sizes, runtimes, estimates, failures...) draws
from its own stream, so that changing how much randomness one aspect consumes never shifts
the numbers another aspect sees.  A stream depends only on the seed and its name: asking for
the streams in a different order, or asking for extra streams, gives the same numbers.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ckptsim.errors import ConfigError


def _name_key(name: str) -> tuple[int, ...]:
    """Four 32-bit words of the SHA-256 of `name`.

    Python's `hash()` is salted per process, so it would make runs irreproducible; a
    cryptographic digest is stable across processes, platforms and versions, and 128 bits make
    collisions between names practically impossible.
    """
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


class RandomStreams:
    """One seed -> one numpy `Generator` per stream name.

    `stream(name)` always returns the same Generator object for the same name, so successive
    draws continue the stream.  Each stream is seeded with
    `SeedSequence(seed, spawn_key=<hash of name>)`, i.e. it is a child of the seed's sequence
    that no other name can reach, which numpy guarantees to be statistically independent of its
    siblings.
    """

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ConfigError("seed", f"must be a non-negative integer, got {seed!r}")
        if seed < 0:
            raise ConfigError("seed", f"must be a non-negative integer, got {seed}")
        self._seed = int(seed)
        self._streams: dict[str, np.random.Generator] = {}

    @property
    def seed(self) -> int:
        """The seed every stream derives from."""
        return self._seed

    def stream(self, name: str) -> np.random.Generator:
        """The Generator of stream `name` (created on first use, then reused)."""
        if not isinstance(name, str) or not name:
            raise ConfigError("stream", f"a stream name must be a non-empty string, got {name!r}")
        gen = self._streams.get(name)
        if gen is None:
            seq = np.random.SeedSequence(self._seed, spawn_key=_name_key(name))
            gen = np.random.Generator(np.random.PCG64(seq))
            self._streams[name] = gen
        return gen

    def names(self) -> tuple[str, ...]:
        """The names of the streams created so far (in creation order)."""
        return tuple(self._streams)

    def __repr__(self) -> str:
        return f"RandomStreams(seed={self._seed})"
