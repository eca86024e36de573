"""The railguard daemon: configuration, the asyncio service, systemd notification.

The package re-exports nothing: ``service.py`` is the composition root that imports every
part, and a part (or hwsim, or a test) that imports a sibling such as ``config`` or
``recovery`` must not load the root with it (that was a run-time import circle). Import
``Daemon`` and ``run_daemon`` from ``controller.daemon.service``.
"""
