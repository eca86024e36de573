"""NXP PN5180 driver at its SPI command level, and ISO/IEC 15693 inventory with 16-slot
anti-collision. MicroPython subset (see protocol.py).

The chip is reached through a :class:`SpiPort` (one per front end): the Pico binding drives
the real bus (reader_firmware/pico.py), the host's emulation answers the same bytes
(reader_firmware/emulation/pn5180_emu.py). Command and register numbers: PN5180 datasheet
(PN5180A0XX-C1/C2, section 11.4.3.3 "Host interface command list" and the register map);
the inventory sequence follows NXP's application note on ISO 15693 with the PN5180
(16 slots; the next slot is opened by sending an EOF alone, TX_CONFIG bits cleared).
"""

from reader_firmware import timing

# host interface commands (datasheet 11.4.3.3)
WRITE_REGISTER = 0x00
WRITE_REGISTER_OR_MASK = 0x01
WRITE_REGISTER_AND_MASK = 0x02
READ_REGISTER = 0x04
READ_EEPROM = 0x07
SEND_DATA = 0x09
READ_DATA = 0x0A
LOAD_RF_CONFIG = 0x11
RF_ON = 0x16
RF_OFF = 0x17

# registers
SYSTEM_CONFIG = 0x00
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
TRANSCEIVE_CONTROL = 0x04
RX_STATUS = 0x13
TX_CONFIG = 0x18
RF_STATUS = 0x1D

# IRQ_STATUS bits
RX_IRQ = 1 << 0
TX_IRQ = 1 << 1
IDLE_IRQ = 1 << 2
GENERAL_ERROR_IRQ = 1 << 17
# RX_STATUS fields
RX_LEN_MASK = 0x1FF
RX_DATA_INTEGRITY_ERROR = 1 << 17
RX_COLLISION = 1 << 18

TX_CONFIG_EOF_ONLY_AND = 0xFFFFFB3F  # clears bits 6, 7, 10: the next SEND_DATA is an EOF alone
TX_CONFIG_FRAME_BITS = 0x000004C0
EEPROM_PRODUCT_VERSION = 0x10
EEPROM_FIRMWARE_VERSION = 0x12
RF_CONFIG_15693_TX = 0x0D  # ISO 15693 ASK100, 26 kbit/s
RF_CONFIG_15693_RX = 0x8D  # ISO 15693 26 kbit/s, fc/32 subcarrier

# ISO 15693 requests
FLAG_HIGH_RATE = 0x02
FLAG_INVENTORY = 0x04
FLAG_ONE_SLOT = 0x20
CMD_INVENTORY = 0x01
MAX_ROUNDS = 48  # rounds per antenna scan before the rest is flagged a collision (40 random
# tags took at most 22 in 1,500 draws; each round costs 13 ms or more of air time)
MAX_TAGS = 40


class FrontEndError(Exception):
    """The front end does not answer (BUSY stuck, no SPI reply) or answers nonsense."""

    def __init__(self, message: str, detail: int = 0) -> None:
        super().__init__(message)
        self.detail = detail & 0xFFFF


class SpiPort:
    """One PN5180 on the SPI bus: NSS, the BUSY handshake and a reset line.

    ``exchange(tx, rx_len)`` sends one command frame and, when ``rx_len`` > 0, reads the
    answer in a second frame, waiting for BUSY to drop after each (raising
    :class:`FrontEndError` when it does not within the port's timeout). ``wait_us`` lets
    the radio run (the Pico sleeps; the emulation advances its clock).
    """

    def exchange(self, tx: bytes, rx_len: int = 0) -> bytes:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError

    def wait_us(self, us: float) -> None:
        raise NotImplementedError


class Inventory:
    """One antenna's scan: the UIDs read (most significant byte first, as printed), whether a
    collision was left unresolved, and the scan's air time by the timing model (us)."""

    def __init__(self) -> None:
        self.uids: list[bytes] = []
        self.collision = False
        self.air_us = 0.0
        self.rounds = 0


class PN5180:
    def __init__(self, port: SpiPort) -> None:
        self.port = port
        self.product = (0, 0)

    # ---- commands -------------------------------------------------------------------

    def write_register(self, reg: int, value: int) -> None:
        self.port.exchange(bytes([WRITE_REGISTER, reg]) + _le32(value))

    def or_register(self, reg: int, mask: int) -> None:
        self.port.exchange(bytes([WRITE_REGISTER_OR_MASK, reg]) + _le32(mask))

    def and_register(self, reg: int, mask: int) -> None:
        self.port.exchange(bytes([WRITE_REGISTER_AND_MASK, reg]) + _le32(mask))

    def read_register(self, reg: int) -> int:
        rx = self.port.exchange(bytes([READ_REGISTER, reg]), 4)
        return rx[0] | (rx[1] << 8) | (rx[2] << 16) | (rx[3] << 24)

    def read_eeprom(self, addr: int, n: int) -> bytes:
        return self.port.exchange(bytes([READ_EEPROM, addr, n]), n)

    def send_data(self, data: bytes, last_bits: int = 0) -> None:
        self.port.exchange(bytes([SEND_DATA, last_bits]) + data)

    def read_data(self, n: int) -> bytes:
        return self.port.exchange(bytes([READ_DATA, 0x00]), n)

    def load_rf_config(self, tx: int, rx: int) -> None:
        self.port.exchange(bytes([LOAD_RF_CONFIG, tx, rx]))

    def rf_on(self) -> None:
        self.port.exchange(bytes([RF_ON, 0x00]))

    def rf_off(self) -> None:
        self.port.exchange(bytes([RF_OFF, 0x00]))

    def clear_irq(self) -> None:
        self.write_register(IRQ_CLEAR, 0x000FFFFF)

    # ---- set-up ---------------------------------------------------------------------

    def init(self) -> None:
        """Reset the chip, check it answers with a plausible product version, load the
        ISO 15693 RF configuration. Raises :class:`FrontEndError`."""
        self.port.reset()
        version = self.read_eeprom(EEPROM_PRODUCT_VERSION, 2)
        if version[1] in (0x00, 0xFF):
            raise FrontEndError(
                "front end answers product version %d.%d" % (version[1], version[0]),
                version[0] | (version[1] << 8),
            )
        self.product = (version[1], version[0])
        self.load_rf_config(RF_CONFIG_15693_TX, RF_CONFIG_15693_RX)

    # ---- ISO 15693 inventory -----------------------------------------------------------

    def inventory(self, probe_first: bool) -> Inventory:
        """Read every tag in the field: field on, optionally a 1-slot probe (an empty field
        ends there), then 16-slot rounds, each collided slot resolved by a round masked with
        the slot's 4 UID bits, until no collision is left (or MAX_ROUNDS / MAX_TAGS)."""
        inv = Inventory()
        # the RF settings again: a reset on the shared RST line (another front end's
        # recovery) loses them
        self.load_rf_config(RF_CONFIG_15693_TX, RF_CONFIG_15693_RX)
        self.rf_on()
        self.port.wait_us(timing.FIELD_ON_GUARD_US)
        inv.air_us += timing.FIELD_ON_GUARD_US + 3 * timing.SPI_OVERHEAD_US
        try:
            if probe_first:
                answered = self._probe()
                inv.air_us += timing.probe_us(answered)
                if not answered:
                    return inv
            found: dict[bytes, bool] = {}
            queue = [(0, 0)]  # (mask value, mask length in bits)
            while queue:
                mask, bits = queue.pop(0)
                if bits > 60 or inv.rounds >= MAX_ROUNDS or len(found) >= MAX_TAGS:
                    inv.collision = True
                    break
                inv.rounds += 1
                clean, collided = self._round(mask, bits, found, queue)
                inv.air_us += timing.round_us(clean, collided, mask_bits=bits)
            inv.uids = list(found)
            return inv
        finally:
            self.rf_off()

    def _request(self, flags: int, mask: int, bits: int) -> None:
        nbytes = (bits + 7) // 8
        req = bytearray([flags, CMD_INVENTORY, bits])
        for i in range(nbytes):
            req.append((mask >> (8 * i)) & 0xFF)
        # reload the ISO 15693 settings: restores TX_CONFIG after the EOF-only sends
        self.load_rf_config(RF_CONFIG_15693_TX, RF_CONFIG_15693_RX)
        self.and_register(SYSTEM_CONFIG, 0xFFFFFFF8)  # command: idle (stop a transceive)
        self.or_register(SYSTEM_CONFIG, 0x00000003)  # command: transceive
        self.clear_irq()
        self.send_data(bytes(req))

    def _slot(self) -> tuple[int, bytes]:
        """What the current slot got: (0 silence, 1 one response, 2 collision), the UID."""
        irq = self.read_register(IRQ_STATUS)
        rx = self.read_register(RX_STATUS)
        length = rx & RX_LEN_MASK
        if rx & RX_COLLISION:
            return 2, b""
        if not irq & RX_IRQ and not length:
            return 0, b""
        if rx & RX_DATA_INTEGRITY_ERROR or length < 10:
            return 2, b""  # a garbled answer: treated as a collision, resolved by a mask
        data = self.read_data(length)
        if data[0] & 0x01:  # the response's error flag
            return 2, b""
        return 1, bytes(reversed(data[2:10]))  # UID arrives least significant byte first

    def _probe(self) -> bool:
        self._request(FLAG_HIGH_RATE | FLAG_INVENTORY | FLAG_ONE_SLOT, 0, 0)
        got, _ = self._slot()
        return got != 0

    def _round(
        self, mask: int, bits: int, found: dict[bytes, bool], queue: list[tuple[int, int]]
    ) -> tuple[int, int]:
        self._request(FLAG_HIGH_RATE | FLAG_INVENTORY, mask, bits)
        clean = collided = 0
        for slot in range(16):
            got, uid = self._slot()
            if got == 1:
                clean += 1
                found[uid] = True
            elif got == 2:
                collided += 1
                queue.append((mask | (slot << bits), bits + 4))
            if slot < 15:  # open the next slot: an EOF alone
                self.and_register(TX_CONFIG, TX_CONFIG_EOF_ONLY_AND)
                self.clear_irq()
                self.send_data(b"")
        return clean, collided


def _le32(value: int) -> bytes:
    return bytes((value >> s) & 0xFF for s in (0, 8, 16, 24))
