"""The venue logger: stores every table's hand records (SQLite or PostgreSQL), acknowledges
them, and exports them as OHH or PHH."""

from controller.venuelog.logger import LoggerStats, VenueLogger
from controller.venuelog.store import HandStore, PostgresHandStore, SqliteHandStore, open_store

__all__ = [
    "HandStore",
    "LoggerStats",
    "PostgresHandStore",
    "SqliteHandStore",
    "VenueLogger",
    "open_store",
]
