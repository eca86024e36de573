"""The MQTT topic tree: one base topic per table, ``railguard/<venue>/<table>``.

Venue and table ids are 1-32 letters, digits or ``-`` and start with a letter or digit, so
they can never be a wildcard, a ``$`` system topic, contain ``/`` or collide with the
reserved ``_logger`` level used by the venue logger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.link.errors import ConfigError

ROOT = "railguard"
LOGGER_LEVEL = "_logger"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9-]{0,31}$"
_ID = re.compile(ID_PATTERN)


def check_id(what: str, value: str) -> str:
    """Return ``value`` if it is a valid venue/table/instance id, else raise ConfigError."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ConfigError(
            f"{what} {value!r}: use 1-32 letters, digits or '-', starting with a letter or digit"
        )
    return value


@dataclass(frozen=True, slots=True)
class TableTopics:
    """Every topic one table publishes or subscribes to."""

    venue: str
    table: str

    def __post_init__(self) -> None:
        check_id("venue id", self.venue)
        check_id("table id", self.table)

    @property
    def base(self) -> str:
        return f"{ROOT}/{self.venue}/{self.table}"

    @property
    def status(self) -> str:
        """Retained ``online``/``offline`` with bdseq; also the last will."""
        return f"{self.base}/status"

    @property
    def state(self) -> str:
        """Retained redacted live state."""
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def alerts(self) -> str:
        return f"{self.base}/alerts"

    @property
    def hands(self) -> str:
        """Completed hand records (only the venue logger may read them)."""
        return f"{self.base}/hands"

    @property
    def hands_ack(self) -> str:
        """The logger's acknowledgements of stored hand records."""
        return f"{self.base}/hands/ack"

    @property
    def commands(self) -> str:
        return f"{self.base}/cmd"

    @property
    def responses(self) -> str:
        return f"{self.base}/cmd/response"

    @property
    def logger_status_filter(self) -> str:
        """Every venue logger instance's retained status."""
        return logger_status_filter()


def logger_status_topic(instance: str) -> str:
    check_id("logger instance id", instance)
    return f"{ROOT}/{LOGGER_LEVEL}/{instance}/status"


def logger_status_filter() -> str:
    return f"{ROOT}/{LOGGER_LEVEL}/+/status"


def hands_share_filter(group: str) -> str:
    """The venue logger's shared subscription to every table's hand records."""
    check_id("share group", group)
    return f"$share/{group}/{ROOT}/+/+/hands"


def split_table_topic(topic: str) -> tuple[str, str, str] | None:
    """``railguard/<venue>/<table>/<rest>`` -> (venue, table, rest), or None."""
    parts = topic.split("/", 3)
    if len(parts) != 4 or parts[0] != ROOT:
        return None
    if not _ID.fullmatch(parts[1]) or not _ID.fullmatch(parts[2]):
        return None
    return parts[1], parts[2], parts[3]
