"""Table set-up commands run by staff at the table: ``railguard calibrate``, ``railguard
enroll`` and ``railguard deck check``. Each opens the reader board (or the PC/SC desk reader)
from the daemon's config; the daemon must be stopped while they run (it holds the port).
"""
