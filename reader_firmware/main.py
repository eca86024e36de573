"""Copied to the Pico's root as main.py: MicroPython runs it after every boot."""

from reader_firmware import pico

pico.run()
