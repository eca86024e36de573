"""What lies on the felt, antenna by antenna, and how each antenna's radio sees it.

Per antenna: the tags on it; per tag a flicker probability (missing from one field-on),
and crosstalk (the tag also answers on a neighbouring antenna now and then). Stacked cards
are no special case here: every tag in the field answers the inventory, and the front
end's anti-collision has to tell them apart (ISO 15693 can; see pn5180_emu.py).
"""


class Rng:
    """xorshift32: the same draws under CPython and MicroPython (whose ``random`` has no
    seeded generator objects)."""

    def __init__(self, seed: int) -> None:
        self.state = (seed * 2654435761 + 1) & 0xFFFFFFFF or 1
        for _ in range(4):  # stir a small seed
            self.random()

    def random(self) -> float:
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x / 4294967296.0


class AntennaRadio:
    def __init__(self, neighbours: tuple[int, ...] = ()) -> None:
        self.tags: dict[bytes, None] = {}  # insertion-ordered set
        self.flicker = 0.0  # probability per tag per field-on of not answering
        self.crosstalk = 0.0  # probability per field-on that a neighbour's tag answers here
        self.neighbours = neighbours
        self.present = True  # False: no front end answers on this antenna's SPI select


class TableModel:
    """The felt under ``count`` antennas, neighbours numbered ``a - 1`` and ``a + 1``."""

    def __init__(self, count: int, seed: int = 0) -> None:
        self.rng = Rng(seed)
        self.antennas = [AntennaRadio(neighbours=(a - 1, a + 1)) for a in range(count)]
        for radio in self.antennas:
            radio.neighbours = tuple(n for n in radio.neighbours if 0 <= n < count)

    def place(self, antenna: int, uid: bytes) -> None:
        if len(uid) != 8:
            raise ValueError("an ISO 15693 UID has 8 bytes, not %d" % len(uid))
        self.antennas[antenna].tags[bytes(uid)] = None

    def remove(self, antenna: int, uid: bytes) -> None:
        tags = self.antennas[antenna].tags
        if uid not in tags:
            raise KeyError("tag %s is not on antenna %d" % (uid.hex(), antenna))
        del tags[uid]

    def answering(self, antenna: int) -> list[bytes]:
        """The tags that answer while this antenna's field is on (drawn once per field-on)."""
        radio = self.antennas[antenna]
        out = [u for u in radio.tags if not (radio.flicker and self.rng.random() < radio.flicker)]
        for n in radio.neighbours:
            for uid in self.antennas[n].tags:
                if (
                    uid not in radio.tags
                    and radio.crosstalk
                    and self.rng.random() < radio.crosstalk
                ):
                    out.append(uid)
        return out
