"""A PN5180 front end emulated at its SPI command level, over a :class:`TableModel`.

It answers the bytes the driver (reader_firmware/pn5180.py) sends, as the chip would: the
EEPROM's product version, registers (IRQ_STATUS, RX_STATUS, TX_CONFIG, SYSTEM_CONFIG), the
RF field, and ISO 15693 inventories. Each field-on draws the tags that answer from the table
model; an inventory request (1 or 16 slots, with a mask) sorts them into slots by their UID
bits above the mask (ISO/IEC 15693-3 anti-collision): a slot with one tag returns its
response (flags, DSFID, UID least significant byte first), a slot with two or more sets
RX_STATUS's collision bit, an empty slot stays silent. An EOF alone (TX_CONFIG's frame bits
cleared, empty SEND_DATA) opens the next slot. A missing front end never drops BUSY: the
port raises the timeout the Pico's port raises.

It also counts the air time of what it was made to do (``air_us``, by reader_firmware.timing)
so that tests can check the firmware's cost model against the emulated radio.
"""

from reader_firmware import pn5180 as chip
from reader_firmware import timing
from reader_firmware.emulation.table_model import TableModel
from reader_firmware.pn5180 import FrontEndError, SpiPort

PRODUCT_VERSION = bytes([0x05, 0x03])  # 3.5 (minor, major), as the EEPROM stores it
TX_CONFIG_DEFAULT = 0x00000FC0  # frame bits set (as after LOAD_RF_CONFIG)


class ProtocolViolation(AssertionError):
    """The driver sent the chip something a real PN5180 would not accept."""


class EmulatedPN5180(SpiPort):
    def __init__(self, model: TableModel, antenna: int) -> None:
        self.model = model
        self.antenna = antenna
        self.regs: dict[int, int] = {}
        self.rf = False
        self.rf_loaded = False
        self.answering: list[bytes] = []
        self.slots: list[list[bytes]] = []
        self.slot = -1
        self.rx = b""
        self.air_us = 0.0
        self.requests: list[bytes] = []  # every inventory request, for tests
        self.resets = 0

    # ---- SpiPort --------------------------------------------------------------------------

    def reset(self) -> None:
        self._check_present()
        self.resets += 1
        self.regs = {chip.TX_CONFIG: TX_CONFIG_DEFAULT}
        self.rf = self.rf_loaded = False

    def wait_us(self, us: float) -> None:
        self.air_us += us

    def exchange(self, tx: bytes, rx_len: int = 0) -> bytes:
        self._check_present()
        if not tx:
            raise ProtocolViolation("an empty SPI frame")
        cmd, args = tx[0], tx[1:]
        out = self._command(cmd, bytes(args))
        if rx_len and len(out) < rx_len:
            out = out + b"\xff" * (rx_len - len(out))
        return out[:rx_len] if rx_len else b""

    def _check_present(self) -> None:
        if not self.model.antennas[self.antenna].present:
            raise FrontEndError(
                f"front end of antenna {self.antenna}: BUSY did not fall within 10 ms", 0xFFFF
            )

    # ---- the chip -------------------------------------------------------------------------

    def _command(self, cmd: int, a: bytes) -> bytes:
        regs = self.regs
        if cmd == chip.READ_EEPROM:
            addr, n = a[0], a[1]
            data = {chip.EEPROM_PRODUCT_VERSION: PRODUCT_VERSION}.get(addr, b"\x00\x01")
            return (data + bytes(n))[:n]
        if cmd == chip.READ_REGISTER:
            return regs.get(a[0], 0).to_bytes(4, "little")
        if cmd in (chip.WRITE_REGISTER, chip.WRITE_REGISTER_OR_MASK, chip.WRITE_REGISTER_AND_MASK):
            if len(a) != 5:
                raise ProtocolViolation(f"register write of {len(a)} bytes, expected 5")
            reg, value = a[0], int.from_bytes(a[1:5], "little")
            if reg == chip.IRQ_CLEAR:
                regs[chip.IRQ_STATUS] = regs.get(chip.IRQ_STATUS, 0) & ~value
                return b""
            old = regs.get(reg, 0)
            regs[reg] = (
                value if cmd == chip.WRITE_REGISTER
                else old | value if cmd == chip.WRITE_REGISTER_OR_MASK
                else old & value
            )  # fmt: skip
            return b""
        if cmd == chip.LOAD_RF_CONFIG:
            if (a[0], a[1]) != (chip.RF_CONFIG_15693_TX, chip.RF_CONFIG_15693_RX):
                raise ProtocolViolation(
                    f"RF configuration {a[0]:#04x}/{a[1]:#04x} is not ISO 15693"
                )
            regs[chip.TX_CONFIG] = TX_CONFIG_DEFAULT
            self.rf_loaded = True
            return b""
        if cmd == chip.RF_ON:
            if not self.rf_loaded:
                raise ProtocolViolation("RF_ON before LOAD_RF_CONFIG")
            self.rf = True
            self.answering = self.model.answering(self.antenna)
            return b""
        if cmd == chip.RF_OFF:
            self.rf = False
            self.slot = -1
            return b""
        if cmd == chip.SEND_DATA:
            self._send(a[1:])
            return b""
        if cmd == chip.READ_DATA:
            return self.rx
        raise ProtocolViolation(f"unknown PN5180 command {cmd:#04x}")

    def _send(self, data: bytes) -> None:
        regs = self.regs
        if not self.rf:
            raise ProtocolViolation("SEND_DATA with the RF field off")
        if regs.get(chip.SYSTEM_CONFIG, 0) & 0x7 != 0x3:
            raise ProtocolViolation("SEND_DATA outside the transceive state")
        eof_only = not regs.get(chip.TX_CONFIG, 0) & chip.TX_CONFIG_FRAME_BITS
        if eof_only:
            if data:
                raise ProtocolViolation("data sent while TX_CONFIG sends an EOF alone")
            if not 0 <= self.slot < len(self.slots) - 1:
                raise ProtocolViolation("an EOF with no inventory slot left to open")
            self.slot += 1
            self.air_us += timing.VCD_EOF_US
            self._answer()
            return
        if len(data) < 3 or data[1] != chip.CMD_INVENTORY or not data[0] & chip.FLAG_INVENTORY:
            raise ProtocolViolation(f"not an inventory request: {data.hex()}")
        flags, bits = data[0], data[2]
        if len(data) != 3 + (bits + 7) // 8:
            raise ProtocolViolation(f"inventory request of {len(data)} bytes for a {bits}-bit mask")
        mask = int.from_bytes(data[3:], "little")
        self.requests.append(bytes(data))
        self.air_us += timing.request_us(bits)
        nslots = 1 if flags & chip.FLAG_ONE_SLOT else 16
        self.slots = [[] for _ in range(nslots)]
        for uid in self.answering:
            value = int.from_bytes(uid, "big")  # the UID as a number; sent LSB first
            if value & ((1 << bits) - 1) != mask:
                continue
            slot = 0 if nslots == 1 else (value >> bits) & 0xF
            self.slots[slot].append(uid)
        self.slot = 0
        self._answer()

    def _answer(self) -> None:
        here = self.slots[self.slot]
        irq = self.regs.get(chip.IRQ_STATUS, 0) | chip.TX_IRQ
        if not here:
            self.regs[chip.RX_STATUS] = 0
            self.rx = b""
            self.air_us += timing.T3_US
        elif len(here) == 1:
            self.rx = bytes([0x00, 0x00]) + bytes(reversed(here[0]))
            self.regs[chip.RX_STATUS] = len(self.rx)
            irq |= chip.RX_IRQ
            self.air_us += timing.T1_MAX_US + timing.response_us() + timing.T2_MIN_US
        else:
            self.rx = b""
            self.regs[chip.RX_STATUS] = chip.RX_COLLISION | 10
            irq |= chip.RX_IRQ
            self.air_us += timing.T1_MAX_US + timing.response_us() + timing.T2_MIN_US
        self.regs[chip.IRQ_STATUS] = irq
