"""Air time of ISO/IEC 15693 inventories, the front end's cost model and the scan bound.

Figures (fc = 13.56 MHz; sources in docs/reader-board.md, "Scan time"):

- VCD to VICC, 1-out-of-4 coding (ISO/IEC 15693-2): 2 bits per 75.52 us (26.48 kbit/s),
  SOF 75.52 us, EOF 37.76 us.
- VICC to VCD, high data rate, one subcarrier (ISO/IEC 15693-2): one bit per 37.76 us
  (fc/512, 26.48 kbit/s); SOF and EOF 151.04 us each (56.64 us unmodulated + 24 pulses of
  fc/32 = 56.64 us + one logic bit of 37.76 us).
- ISO/IEC 15693-3 timing: t1 (VICC response delay) max 4384/fc = 323.3 us; t2 (VCD wait
  after a response before the next EOF) min 4192/fc = 309.1 us; t3 (VCD wait in a slot with
  no response before its EOF) = t1 max + the VICC SOF = 474.3 us.
- Inventory request: flags, command, mask length, mask (0..8 bytes), CRC 2 bytes.
  Response: flags, DSFID, UID 8 bytes, CRC 2 bytes = 96 bits.

The firmware uses these to estimate what each antenna costs (its scheduler's budget) and
the emulation uses them as the front end's clock; ``python -m reader_firmware.timing``
prints the tables of docs/reader-board.md. All times in microseconds (floats).
"""

FC_HZ = 13560000.0
VCD_SOF_US = 75.52
VCD_EOF_US = 37.76
VCD_US_PER_BIT = 37.76  # 1-out-of-4: 75.52 us per 2 bits
VICC_US_PER_BIT = 512 * 1000000.0 / FC_HZ  # 37.76 us
VICC_SOF_US = 151.04
VICC_EOF_US = 151.04
T1_MAX_US = 4384 * 1000000.0 / FC_HZ  # 323.3 us
T2_MIN_US = 4192 * 1000000.0 / FC_HZ  # 309.1 us
T3_US = T1_MAX_US + VICC_SOF_US  # 474.3 us
RESPONSE_BITS = 96  # flags, DSFID, UID 8, CRC 2
FIELD_ON_GUARD_US = 1000.0  # field on to first request: VICCs ready within 1 ms (15693-3)
# Host overhead per SPI transaction (MicroPython on the RP2040 at 125 MHz, SPI at 7 MHz):
# an assumption to check with a scope (docs/reader-board.md says how); not from a datasheet.
SPI_OVERHEAD_US = 60.0
SPI_PER_SLOT = 5  # IRQ status, RX status, (read data), TX_CONFIG EOF-only, clear IRQ, send


def request_us(mask_bits: int = 0) -> float:
    nbytes = 3 + (mask_bits + 7) // 8 + 2
    return VCD_SOF_US + nbytes * 8 * VCD_US_PER_BIT + VCD_EOF_US


def response_us() -> float:
    return VICC_SOF_US + RESPONSE_BITS * VICC_US_PER_BIT + VICC_EOF_US


def slot_us(kind: str) -> float:
    """One slot of a 16-slot inventory, through the VCD's EOF that opens the next slot.
    ``kind``: "empty", "tag" (one clean response) or "collision" (two or more)."""
    if kind == "empty":
        return T3_US + VCD_EOF_US + SPI_PER_SLOT * SPI_OVERHEAD_US
    return T1_MAX_US + response_us() + T2_MIN_US + VCD_EOF_US + SPI_PER_SLOT * SPI_OVERHEAD_US


def round_us(responding: int, collided: int, slots: int = 16, mask_bits: int = 0) -> float:
    """One inventory request and its ``slots`` slots, ``responding`` of them with one clean
    response and ``collided`` with a collision."""
    empty = slots - responding - collided
    return (
        request_us(mask_bits)
        + 2 * SPI_OVERHEAD_US
        + empty * slot_us("empty")
        + (responding + collided) * slot_us("tag")
    )


def probe_us(answered: bool) -> float:
    """A 1-slot inventory (the probe of an antenna that was empty)."""
    if answered:
        return request_us() + T1_MAX_US + response_us() + T2_MIN_US + 4 * SPI_OVERHEAD_US
    return request_us() + T3_US + 3 * SPI_OVERHEAD_US


def antenna_us(tags: int, was_empty: bool, collided_slots: int = 0) -> float:
    """Scanning one antenna: field on, then a 1-slot probe if it was empty last time (and
    nothing more if the probe stays silent), else (or if the probe was answered) a 16-slot
    round, plus one masked 16-slot round per collided slot, each resolving its tags."""
    total = FIELD_ON_GUARD_US + 3 * SPI_OVERHEAD_US  # RF config, RF on, RF off
    if was_empty:
        total += probe_us(tags > 0)
        if tags == 0:
            return total
    clean = tags - 2 * collided_slots if collided_slots else tags
    total += round_us(max(clean, 0), collided_slots)
    for _ in range(collided_slots):
        total += round_us(2, 0, mask_bits=4)
    return total


def expected_collided_slots(tags: int, slots: int = 16) -> float:
    """Expected number of slots with two or more of ``tags`` random UIDs (first round)."""
    if tags < 2:
        return 0.0
    p_empty = ((slots - 1) / slots) ** tags
    p_one = tags * (1 / slots) * ((slots - 1) / slots) ** (tags - 1)
    return slots * (1 - p_empty - p_one)


def cycle_bound_us(antenna_times: list[float], hot: int, cold_per_cycle: int) -> tuple[float, int]:
    """Worst case from a card landing to its first read: (microseconds, cycles).

    The scheduler scans up to ``hot`` predicted antennas and at least ``cold_per_cycle``
    others (round robin) per cycle; the slowest antennas set the cycle's length. A card on an
    antenna the schedule did not predict waits for the round robin: at most
    ceil(n / cold_per_cycle) cycles, plus the scan that reads it.
    """
    n = len(antenna_times)
    slowest = sorted(antenna_times, reverse=True)
    cycle = sum(slowest[: hot + cold_per_cycle])
    cycles = (n + cold_per_cycle - 1) // cold_per_cycle
    return cycles * cycle + slowest[0], cycles


def main() -> None:
    print(f"request {request_us():.0f} us, response {response_us():.0f} us")
    print("slot: empty {:.0f} us, answered {:.0f} us".format(slot_us("empty"), slot_us("tag")))
    for tags in (0, 1, 2, 5):
        print(
            "%d tag(s): probe-first %.1f ms, 16-slot %.1f ms"
            % (tags, antenna_us(tags, True) / 1000, antenna_us(tags, False) / 1000)
        )


if __name__ == "__main__":
    main()
