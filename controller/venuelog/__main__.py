"""``python -m controller.venuelog ...``: the same as ``railguard venue-log ...``."""

import argparse
import sys

from controller.venuelog.cli import main, register

parser = argparse.ArgumentParser(prog="railguard venue-log")
register(parser)
sys.exit(main(parser.parse_args()))
