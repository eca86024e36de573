"""Scenarios: house rules as executable examples (``docs/scenarios.md``).

A ``.scn`` file says what happens at the table in physical terms and what the controller
must conclude; :mod:`hwsim.scenario.parse` reads it, :mod:`hwsim.scenario.runner` plays it
through the simulated reader board, MockFactory GPIO, a private mosquitto and the real
daemon, and checks the expectations against what the venue receives (and, for what the
venue is not sent, what the daemon's public observer list ``Daemon.watchers`` reports).
"""
