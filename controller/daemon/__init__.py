"""The railguard daemon: configuration, the asyncio service, systemd notification."""

from controller.daemon.config import DaemonConfig, load, loads
from controller.daemon.service import Daemon, run_daemon

__all__ = ["Daemon", "DaemonConfig", "load", "loads", "run_daemon"]
