"""Reference firmware of the railguard reader board (docs/reader-board.md): MicroPython on a
Raspberry Pi Pico driving one NXP PN5180 ISO 15693 front end per antenna, speaking
docs/reader-protocol.md version 1 over USB CDC. Every module but ``pico.py`` (the Pico's
hardware) and ``emulation/`` (a PC stand-in for the hardware) is host-testable."""
