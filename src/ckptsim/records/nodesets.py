"""Node sets in Batsim's interval-set form (``0-3 8 10-11``), as allocations.csv,
unavailability.csv and out_jobs.csv write them, from and to the int bitmasks the engine
holds (node k is bit k)."""

from __future__ import annotations

#: A node set spanning more nodes than this is cut into intervals from its bytes
#: (`_wide_text`): each step of the bit loop costs as much as the span (a large machine's
#: masks are big ints).
WIDE_SPAN = 2048


def node_text(mask: int) -> str:
    """A node set (int bitmask) in the interval-set form: ``0-3 8 10-11``."""
    if not mask:
        return ""
    base = (mask & -mask).bit_length() - 1
    run = mask >> base
    if not run & (run + 1):  # one interval: the common case
        last = base + run.bit_length() - 1
        return f"{base}-{last}" if last > base else str(base)
    if run.bit_length() > WIDE_SPAN:
        return _wide_text(run, base)
    parts = []
    mask = run
    while mask:
        low = (mask & -mask).bit_length() - 1
        mask >>= low
        base += low
        run = (~mask & (mask + 1)).bit_length() - 1  # trailing ones
        parts.append(f"{base}-{base + run - 1}" if run > 1 else str(base))
        mask >>= run
        base += run
    return " ".join(parts)


#: Each byte's kind for `_wide_text`: ``0`` no node, ``1`` eight nodes, ``x`` some.
_KIND = bytes(48 if b == 0 else 49 if b == 255 else 120 for b in range(256))
#: Where the bits of a byte differ from the one below each, given the bit below the byte.
_EDGES = [[[j for j in range(8) if (b >> j & 1) != ((b << 1 | first) >> j & 1)]
           for b in range(256)] for first in (0, 1)]


def _wide_text(run: int, base: int) -> str:
    """`node_text` of ``run << base`` (run odd), from its bytes: runs of empty and of full
    bytes are skipped by `bytes.find` (a machine of 90,000 nodes has masks of 11 KB and a
    few intervals each); only the bytes with some nodes are read bit by bit."""
    raw = run.to_bytes((run.bit_length() + 7) // 8, "little")
    kind = raw.translate(_KIND)
    find, n = kind.find, len(kind)
    edges: list[int] = []  # where a bit differs from the one below it
    below = 0
    i = 0
    while i < n:
        k = kind[i]
        if k == 120:
            at = 8 * i
            edges.extend([at + j for j in _EDGES[below][raw[i]]])
            below = raw[i] >> 7
            i += 1
            continue
        if k - 48 != below:
            edges.append(8 * i)
            below ^= 1
        other, some = find(97 - k, i), find(120, i)  # the next byte of another kind
        i = min(other if other >= 0 else n, some if some >= 0 else n)
    if below:
        edges.append(8 * n)
    return " ".join([f"{a + base}-{b + base - 1}" if b - 1 > a else str(a + base)
                     for a, b in zip(edges[0::2], edges[1::2], strict=True)])


def mask_of(text: str) -> int:
    """The int bitmask of a node set in the interval-set form (`node_text`'s inverse)."""
    mask = 0
    for first, last in parse_nodes(text):
        mask |= ((1 << (last - first + 1)) - 1) << first
    return mask


def parse_nodes(text: str) -> list[tuple[int, int]]:
    """The closed intervals ``(first, last)`` of a node set in the interval-set form."""
    out = []
    for part in text.split():
        first, _, last = part.partition("-")
        out.append((int(first), int(last or first)))
    return out
