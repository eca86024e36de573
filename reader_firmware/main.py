"""Copied to the Pico's root as main.py: MicroPython runs it after every boot. A jumper
from GP9 to GND keeps the firmware off (the REPL stays usable, e.g. to update the files)."""

import machine

if machine.Pin(9, machine.Pin.IN, machine.Pin.PULL_UP).value():
    from reader_firmware import pico

    pico.run()
