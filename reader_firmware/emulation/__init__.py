"""The reader board without its hardware (CPython only): the PN5180 front ends emulated at
their SPI command level over a table model, and the firmware on a pty (host.py)."""
