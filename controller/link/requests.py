"""Commands the venue's own programs send and the answers they wait for: the floor console's
venue commands to a table and event commands to the tournament service, and the tournament
service's commands to its tables (docs/mqtt.md).

A command is a JSON body (``request_id``, ``ts``, ``command``, ``args``, ``issuer``; signed
with the command key when the receivers require one) published at QoS 1 on a ``.../cmd``
topic; its answer comes on the matching ``.../cmd/response`` with the same ``request_id``.
:class:`Requests` keeps the commands waiting for an answer: the owner's MQTT client hands it
every response body (:meth:`Requests.settle`), and :meth:`Requests.send` returns the answer,
or a refusal in the answer's form (``ok`` false, a ``reason``) when there is no client, the
broker fails or no answer comes in time.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

import aiomqtt

from controller.link.commands import sign


class Requests:
    """The commands of one client waiting for their answers; request ids ``<prefix>-<hex>``."""

    def __init__(self, prefix: str, command_key: bytes | None) -> None:
        self.prefix, self.command_key = prefix, command_key
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def settle(self, body: object) -> None:
        """A response body: the answer of the command waiting for its ``request_id``; any
        other body (no such command, already answered, not an object) is dropped."""
        if isinstance(body, dict):
            fut = self._waiting.get(str(body.get("request_id")))
            if fut is not None and not fut.done():
                fut.set_result(body)

    async def send(
        self,
        client: aiomqtt.Client | None,
        topic: str,
        command: str,
        args: dict[str, Any],
        issuer: str,
        *,
        timeout: float,
        offline: str,
        unanswered: str,
    ) -> dict[str, Any]:
        """Publish the command on ``topic`` and wait up to ``timeout`` seconds for its answer.
        Without a client the reason is ``offline``; with no answer in time, ``unanswered``."""
        if client is None:
            return {"ok": False, "reason": offline}
        rid = f"{self.prefix}-{uuid.uuid4().hex[:16]}"
        body: dict[str, Any] = {
            "request_id": rid,
            "ts": time.time(),
            "command": command,
            "args": args,
            "issuer": issuer,
        }
        if self.command_key is not None:
            body = sign(body, self.command_key)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            await client.publish(topic, json.dumps(body), qos=1)
            async with asyncio.timeout(timeout):  # not wait_for: gh-86296
                return await fut
        except TimeoutError:
            return {"ok": False, "reason": unanswered}
        except aiomqtt.MqttError as exc:
            return {"ok": False, "reason": f"broker: {exc}"}
        finally:
            self._waiting.pop(rid, None)
