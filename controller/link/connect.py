"""One reconnecting MQTT connection loop, shared by the table's :class:`VenueLink` and the
venue's :class:`VenueLogger`.

``async with client`` in a loop: serve a session until the connection breaks, then back off
(exponential, with jitter) and connect again; runs until cancelled. Connects, disconnects
and reconnects are logged at INFO, failures at WARNING, and a TLS handshake refused by the
broker says what to do (a plain-TCP broker needs ``--allow-plaintext``).

Why the errors are unwrapped here: a session runs its readers and writers in an
``asyncio.TaskGroup``, so a lost connection surfaces as an ``ExceptionGroup`` around
aiomqtt's ``MqttError`` ("Disconnected during message iteration"). Unwrapping it with
``except* MqttError: raise group.exceptions[0]`` is not portable: on CPython 3.11.2 (Debian
12, Raspberry Pi OS) a bare exception raised inside an ``except*`` clause is wrapped again
into ``ExceptionGroup('', [exc])`` (changed by gh-103590, released in 3.11.4), so the outer
``except MqttError`` missed it and the link ended for good at the first broker restart.
:func:`mqtt_error_of` looks inside groups with plain ``except`` semantics instead, the same
on every 3.11.
"""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
from collections.abc import Awaitable, Callable
from typing import Any

import aiomqtt

from controller.link.config import BrokerConfig

log = logging.getLogger(__name__)

Session = Callable[[aiomqtt.Client], Awaitable[None]]


def cancel_if_asked(task: asyncio.Task[Any] | None) -> None:
    """Raise CancelledError if ``task`` was asked to stop. On Python 3.11 asyncio.wait_for
    (which aiomqtt's publish awaits) can swallow a cancellation that arrives as the publish
    completes (CPython gh-86296, fixed in 3.12); the writer would then wait on its queue for
    ever and the daemon's stop would hang."""
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def mqtt_error_of(exc: BaseException) -> aiomqtt.MqttError | None:
    """The MqttError that ended a session: ``exc`` itself, or the first one inside an
    exception group (nested or not) made only of MqttErrors. None for anything else (a
    cancellation, a bug), which the caller must let propagate."""
    if isinstance(exc, aiomqtt.MqttError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        match, rest = exc.split(aiomqtt.MqttError)
        if match is not None and rest is None:
            first: BaseException = match
            while isinstance(first, BaseExceptionGroup):
                first = first.exceptions[0]
            return first if isinstance(first, aiomqtt.MqttError) else None
    return None


def where(broker: BrokerConfig) -> str:
    """``host:port (TLS)`` for log lines."""
    return f"{broker.host}:{broker.effective_port} ({'TLS' if broker.tls else 'plain TCP'})"


def tls_refused(exc: aiomqtt.MqttError) -> bool:
    """Whether a connect failed during the TLS handshake: aiomqtt raises ``MqttError(str)``
    ``from None``, which keeps the socket error as ``__context__``. A plain-TCP broker answers
    a ClientHello by closing the connection (reset or EOF) or with bytes that are not TLS."""
    cause = exc.__context__
    if isinstance(cause, ssl.SSLCertVerificationError):
        return False  # a TLS broker with a certificate we do not trust: a different fix
    return isinstance(cause, ssl.SSLError | ConnectionResetError | ConnectionAbortedError)


def explain(exc: aiomqtt.MqttError, broker: BrokerConfig, connected: bool) -> str:
    """The failure in words, with what to do where the cause is known."""
    text = str(exc) or type(exc).__name__
    if not connected and broker.tls and tls_refused(exc):
        return (
            f"TLS handshake with {broker.host}:{broker.effective_port} failed ({text}): the"
            " broker probably does not speak TLS on this port. Use the broker's TLS listener"
            " (8883), or for a lab broker without TLS pass --allow-plaintext (railguard"
            " venue-log) or set mqtt.tls = false and mqtt.allow_plaintext = true (daemon)"
        )
    if isinstance(exc.__context__, ssl.SSLCertVerificationError):
        return f"{text} (check the CA file: mqtt.ca_file / --ca-file)"
    return text


class Reconnector:
    """Connect ``client`` and run ``session`` on it, for ever; see the module docstring.

    ``before_connect`` runs before every attempt (the link sets its will there);
    ``on_down`` after every attempt or session, connected or not. ``connects`` and
    ``failures`` count connections made and attempts or sessions that ended in error;
    ``last_error`` is the latest explanation.
    """

    def __init__(
        self,
        name: str,
        broker: BrokerConfig,
        client: aiomqtt.Client,
        session: Session,
        *,
        backoff: tuple[float, float] = (0.2, 10.0),
        before_connect: Callable[[], None] | None = None,
        on_down: Callable[[], None] | None = None,
        describe: Callable[[], str] | None = None,
    ) -> None:
        self.name = name
        self.broker = broker
        self.client = client
        self.session = session
        self.backoff = backoff
        self.before_connect = before_connect
        self.on_down = on_down
        self.describe = describe
        self.connects = 0
        self.failures = 0
        self.last_error = ""

    async def run(self) -> None:
        delay = self.backoff[0]
        task = asyncio.current_task()
        while True:
            if self.before_connect is not None:
                self.before_connect()
            connected = False
            # a stop that aiomqtt's connect swallowed (its asyncio.wait_for on 3.11, gh-86296)
            # shows as a cancel request that is still pending after a failed connect
            asked = task.cancelling() if task is not None else 0
            try:
                async with self.client:
                    connected = True
                    self.connects += 1
                    delay = self.backoff[0]
                    extra = f"; {self.describe()}" if self.describe is not None else ""
                    verb = "reconnected" if self.connects > 1 else "connected"
                    log.info("%s: %s to %s%s", self.name, verb, where(self.broker), extra)
                    await self.session(self.client)
                log.info("%s: session with %s ended", self.name, where(self.broker))
            except BaseException as exc:
                err = mqtt_error_of(exc)
                if err is None:
                    raise
                # only for a failed connect: after a session, the TaskGroup of 3.11.2 may
                # leave its own cancel request counted (it is not a stop)
                if not connected and task is not None and task.cancelling() > asked:
                    raise asyncio.CancelledError from None
                self.failures += 1
                self.last_error = explain(err, self.broker, connected)
                if connected:
                    log.info(
                        "%s: disconnected from %s: %s; reconnecting in %.1f s",
                        self.name,
                        where(self.broker),
                        self.last_error,
                        delay,
                    )
                else:
                    log.warning(
                        "%s: cannot connect to %s: %s; retrying in %.1f s",
                        self.name,
                        where(self.broker),
                        self.last_error,
                        delay,
                    )
                _retrieve_disconnect(self.client)
            finally:
                if self.on_down is not None:
                    self.on_down()
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, self.backoff[1])


def _retrieve_disconnect(client: aiomqtt.Client) -> None:
    """Mark aiomqtt's disconnect future as seen: it holds the broker's reason, which the
    session error already reported; unseen, asyncio logs "Future exception was never
    retrieved" when aiomqtt replaces it at the next connect."""
    fut = getattr(client, "_disconnected", None)
    if isinstance(fut, asyncio.Future) and fut.done() and not fut.cancelled():
        fut.exception()
