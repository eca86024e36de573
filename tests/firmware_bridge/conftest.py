"""Fixtures shared by the firmware_bridge tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's MockFactory as the default pin factory for the test, reset after it."""
    old = Device.pin_factory
    f = MockFactory()
    Device.pin_factory = f
    try:
        yield f
    finally:
        f.reset()
        Device.pin_factory = old
