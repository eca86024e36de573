"""The tournament at the venue (issue 25): the event, its clock, the seat draw, balancing
and breaking tables, bust-outs and standings, from the tables' own hand records and states.

The core (``event``, ``clock``, ``draw``, ``balance``, ``standings``, ``state``) is pure: no
I/O, no clock, no randomness of its own; the time and a random source are passed in. The
venue service (``service``, ``store``, ``link``) runs it on the venue broker. docs/tournament.md.
"""
