"""The reader board's firmware: the message loop of docs/reader-protocol.md version 1.

MicroPython subset (see protocol.py); no hardware is touched here. The platform hands in
the front ends (one :class:`reader_firmware.pn5180.PN5180` per antenna) and a
:class:`SerialPort`, and calls :meth:`Firmware.poll` with a millisecond clock from its main
loop, feeding the hardware watchdog after each call (reader_firmware/pico.py on the Pico,
reader_firmware/emulation/host.py on a PC).
"""

from reader_firmware import protocol as P
from reader_firmware.pn5180 import PN5180, FrontEndError
from reader_firmware.scheduler import Scheduler

FIRMWARE_VERSION = (1, 0, 0)
RETRY_CYCLES = 50  # a front end that stopped answering is tried again this often
READ_HISTORY = 8  # the read-rate "RSSI" is over this many scans of the antenna


class SerialPort:
    """The link to the Pi: ``read()`` returns what arrived (b"" for nothing, never blocks);
    ``write(data)`` queues a whole frame or returns False when the TX buffer is full."""

    def read(self) -> bytes:
        raise NotImplementedError

    def write(self, data: bytes) -> bool:
        raise NotImplementedError


class _Antenna:
    def __init__(self) -> None:
        self.tags: dict[bytes, int] = {}  # uid -> bit history of reads (1 = read), newest low
        self.collision = False
        self.failed = False  # no reads until it recovers
        self.init_failed = False  # no reads until a reset
        self.last_sent: tuple[tuple[bytes, ...], bool] | None = None
        self.scans = 0


class Firmware:
    def __init__(
        self,
        frontends: list[PN5180],
        port: SerialPort,
        board_id: int,
        reset_reason: int = P.RESET_POWER_ON,
        now_ms: int = 0,
        firmware: tuple[int, int, int] = FIRMWARE_VERSION,
        restart: object = None,
    ) -> None:
        self.frontends = frontends
        self.port = port
        self.board_id = board_id
        self.firmware = firmware
        # restart(reason): the platform restarts the chip (the Pico: machine.reset()); None:
        # the firmware restarts itself in place (the emulation)
        self.restart = restart
        self.boot(reset_reason, now_ms)

    # ---- boot ---------------------------------------------------------------------------

    def boot(self, reason: int, now_ms: int) -> None:
        n = len(self.frontends)
        self.config = P.Config()
        self.seq = 0
        self.cycle = 0
        self.boot_ms = now_ms
        self.counters = [0, 0, 0, 0, 0]  # crc, malformed, tx dropped, overruns, faults
        self.deframer = P.Deframer()
        self.antennas = [_Antenna() for _ in range(n)]
        self.scheduler = Scheduler(n)
        self.next_cycle_ms = now_ms + self.config.scan_period_ms
        self.next_beat_ms = now_ms + self.config.heartbeat_interval_ms
        self.overflowed = False
        self.last_cycle_us = 0.0
        self.port.write(b"\x00")  # end whatever came before
        self._send(P.HELLO, P.hello_body(self.firmware, self.board_id, n, reason))
        for number in range(n):
            try:
                self.frontends[number].init()
            except FrontEndError as exc:
                ant = self.antennas[number]
                ant.init_failed = ant.failed = True
                self.counters[4] += 1
                self._send(P.ERROR, P.error_body(P.ERR_ANTENNA_INIT, number, exc.detail))

    # ---- output -------------------------------------------------------------------------

    def _send(self, msg_type: int, body: bytes) -> None:
        if self.overflowed and msg_type != P.ERROR:  # say so first, in sequence
            self.overflowed = False
            self._send(P.ERROR, P.error_body(P.ERR_TX_OVERFLOW, P.NO_ANTENNA, self.counters[2]))
        wire = P.seal(msg_type, self.seq, body)
        self.seq = (self.seq + 1) % P.SEQ_MODULO
        if not self.port.write(wire):
            self.counters[2] += 1  # the sequence number is spent: the host sees the gap
            self.overflowed = True

    def _state(self, number: int) -> None:
        ant = self.antennas[number]
        tags = []
        for uid in sorted(ant.tags):
            tags.append((uid, _read_rate(ant.tags[uid])))
        tags = tags[: P.MAX_TAGS]
        collision = ant.collision or len(ant.tags) > P.MAX_TAGS
        body = P.state_body(number, self.cycle, tags, collision, self.config.report_rssi)
        ant.last_sent = (tuple(sorted(ant.tags)), collision)
        self._send(P.ANTENNA_STATE, body)

    # ---- the loop -----------------------------------------------------------------------

    def poll(self, now_ms: int) -> None:
        """One pass of the main loop: host commands, the heartbeat, a scan cycle when due."""
        data = self.port.read()
        if data:
            for item in self.deframer.feed(data):
                if item[0] == "frame":
                    self._command(item[1], item[2], item[3], now_ms)  # type: ignore[arg-type]
                else:
                    self._bad_frame(item[1], item[2])  # type: ignore[arg-type]
        if now_ms >= self.next_beat_ms:
            self.next_beat_ms = now_ms + self.config.heartbeat_interval_ms
            uptime = now_ms - self.boot_ms
            self._send(P.HEARTBEAT, P.heartbeat_body(uptime, self.counters))
        if now_ms >= self.next_cycle_ms:
            period = self.config.scan_period_ms
            self.next_cycle_ms += period
            if now_ms - self.next_cycle_ms > period:  # more than a whole period late
                self.counters[3] += 1
                self.next_cycle_ms = now_ms + period
            self.run_cycle()

    def run_cycle(self) -> None:
        self.cycle = (self.cycle + 1) % (1 << 32)
        skip = [a.failed for a in self.antennas]
        budget = self.config.scan_period_ms * 1000.0
        spent = 0.0
        for number in self.scheduler.plan(self.cycle, budget, skip):
            spent += self._scan(number)
        self.last_cycle_us = spent
        if spent > budget:
            self.counters[3] += 1
        if self.cycle % RETRY_CYCLES == 0:
            self._retry_failed()
        self._report(False)

    def _scan(self, number: int) -> float:
        ant = self.antennas[number]
        try:
            inv = self.frontends[number].inventory(not ant.tags)
        except FrontEndError as exc:
            ant.failed = True
            self.counters[4] += 1
            self._send(P.ERROR, P.error_body(P.ERR_ANTENNA_TIMEOUT, number, exc.detail))
            return 0.0
        before = sorted(ant.tags)
        seen = inv.uids
        for uid in list(ant.tags):
            if uid not in seen:
                del ant.tags[uid]
        for uid in seen:
            ant.tags[uid] = ((ant.tags.get(uid, 0) << 1) | 1) & ((1 << READ_HISTORY) - 1)
        ant.scans += 1
        if sorted(ant.tags) != before or inv.collision != ant.collision:
            self.scheduler.changed(number, self.cycle)
        ant.collision = inv.collision
        cost: float = inv.air_us
        self.scheduler.scanned(number, cost)
        return cost

    def _retry_failed(self) -> None:
        for number in range(len(self.antennas)):
            ant = self.antennas[number]
            if ant.failed and not ant.init_failed:
                try:
                    self.frontends[number].init()
                except FrontEndError:
                    continue
                ant.failed = False
                ant.tags = {}
                ant.last_sent = None
                self._send(P.ERROR, P.error_body(P.ERR_ANTENNA_RECOVERED, number))

    def _report(self, force: bool, only: int = -1) -> None:
        cfg = self.config
        refresh = self.cycle % cfg.full_refresh_cycles == 0
        for number in range(len(self.antennas)):
            if only >= 0 and number != only:
                continue
            ant = self.antennas[number]
            if ant.failed:
                continue
            key = (tuple(sorted(ant.tags)), ant.collision)
            if force or not cfg.changes_only or refresh or key != ant.last_sent:
                self._state(number)

    # ---- host commands ------------------------------------------------------------------

    def _bad_frame(self, code: int, detail: int) -> None:
        if code == P.ERR_RX_BAD_FRAME and detail == P.DETAIL_CRC:
            self.counters[0] += 1
        else:
            self.counters[1] += 1
        self._send(P.ERROR, P.error_body(code, P.NO_ANTENNA, detail))

    def _command(self, msg_type: int, seq: int, body: bytes, now_ms: int) -> None:
        if msg_type == P.PING:
            self._send(P.ACK, P.ack_body(msg_type, seq))
        elif msg_type == P.GET_SNAPSHOT:
            antenna = body[0]
            if antenna != P.NO_ANTENNA and antenna >= len(self.antennas):
                self._send(P.ACK, P.ack_body(msg_type, seq, P.ACK_REJECTED))
                return
            self._send(P.ACK, P.ack_body(msg_type, seq))
            self._report(True, -1 if antenna == P.NO_ANTENNA else antenna)
        elif msg_type == P.SET_CONFIG:
            try:
                cfg = P.parse_config(body)
            except P.ProtocolError:
                self.counters[1] += 1
                self._send(P.ACK, P.ack_body(msg_type, seq, P.ACK_REJECTED))
                return
            if not cfg.valid():
                self._send(P.ACK, P.ack_body(msg_type, seq, P.ACK_REJECTED))
                return
            self.config = cfg
            self.next_cycle_ms = min(self.next_cycle_ms, now_ms + cfg.scan_period_ms)
            self.next_beat_ms = min(self.next_beat_ms, now_ms + cfg.heartbeat_interval_ms)
            self._send(P.ACK, P.ack_body(msg_type, seq))
        elif msg_type == P.RESET:
            self._send(P.ACK, P.ack_body(msg_type, seq))
            if self.restart is not None:
                self.restart(P.RESET_HOST)  # type: ignore[operator]  # does not return
            else:
                self.boot(P.RESET_HOST, now_ms)


def _read_rate(history: int) -> int:
    """The RSSI byte, 0..255: how many of the antenna's last READ_HISTORY scans read the tag
    in a row. The PN5180 reports no per-response signal strength; a card lying on the
    antenna is read scan after scan (255 after 8), a neighbour's card seen through crosstalk
    now and then (low)."""
    hits = 0
    for i in range(READ_HISTORY):
        if history & (1 << i):
            hits += 1
    return (hits * 255) // READ_HISTORY
