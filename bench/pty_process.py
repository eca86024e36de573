"""The reader's end of the bare pty hop in a process of its own (``ProcPtyHop``,
bench/hops.py): it opens the pty's slave, raw, and blocks in ``read`` until each sample's
``SIZE`` bytes are in, then writes the moment (``time.perf_counter``, CLOCK_MONOTONIC, the
bench's clock too) to stdout as 8 bytes. The least a process that reads the board can do:
no event loop, no decoding. It stops when the pty's master closes.

    python bench/pty_process.py SLAVE_PATH SIZE
"""

from __future__ import annotations

import os
import struct
import sys
import time
import tty


def main(path: str, size: int) -> None:
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    got = 0
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the master closed
            return
        if not chunk:
            return
        got += len(chunk)
        if got >= size:
            now = time.perf_counter()
            got = 0
            out.write(struct.pack("d", now))
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
