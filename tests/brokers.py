"""Private mosquitto brokers for tests: the plain ones are hwsim.broker's (shared with the
demo); the TLS + password + ACL one is here. Each runs on a free loopback port with its own
config file in a temporary directory, and is stopped (killed if need be) on exit.

    with plain_broker() as b:                 # anonymous, plain TCP
        ... b.port ...
        b.stop(); b.start()                   # same port again (fault tests)

    with secure_broker(users={"v1/t1": "pw"}, acl=ACL, ca=trustme.CA()) as b:
        b.tls_port, b.plain_port ...          # TLS listener (+ optional plaintext one)

Never touches the system mosquitto on 1883.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hwsim.broker import Broker, broker_on_free_ports, broker_with_config, free_port, plain_broker

__all__ = [
    "Broker",
    "broker_on_free_ports",
    "broker_with_config",
    "documented_broker",
    "free_port",
    "plain_broker",
    "secure_broker",
]

MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def _password_file(users: Mapping[str, str], pw: Path) -> None:
    first = True
    for user, password in users.items():
        args = [MOSQUITTO_PASSWD, "-b"] + (["-c"] if first else []) + [str(pw), user, password]
        subprocess.run(args, check=True, capture_output=True, timeout=10)
        first = False
    os.chmod(pw, 0o600)


def write_tls_files(ca: Any, directory: Path) -> dict[str, str]:
    """Write a trustme CA and a server cert for 127.0.0.1/localhost into ``directory``."""
    cert = ca.issue_cert("127.0.0.1", "localhost")
    paths = {
        "cafile": directory / "ca.pem",
        "certfile": directory / "server.pem",
        "keyfile": directory / "server.key",
    }
    ca.cert_pem.write_to_path(str(paths["cafile"]))
    cert.cert_chain_pems[0].write_to_path(str(paths["certfile"]))
    for extra in cert.cert_chain_pems[1:]:
        extra.write_to_path(str(paths["certfile"]), append=True)
    cert.private_key_pem.write_to_path(str(paths["keyfile"]))
    return {k: str(v) for k, v in paths.items()}


@contextlib.contextmanager
def secure_broker(
    *,
    users: Mapping[str, str],
    acl: str,
    ca: Any,
    plaintext_listener: bool = False,
) -> Iterator[Broker]:
    """Password file (``mosquitto_passwd -b -c``), ACL file and a TLS listener with certs
    from a trustme CA; ``plaintext_listener`` adds a plain-TCP listener with the same
    authentication (``b.info['plain_port']``). ``b.info['tls_port']``, ``b.info['cafile']``."""
    with tempfile.TemporaryDirectory(prefix="rg-mosq-sec-") as tmp:
        d = Path(tmp)
        pw = d / "passwd"
        _password_file(users, pw)
        tls = write_tls_files(ca, d)

        def body(ports: list[int]) -> str:
            text = (
                "per_listener_settings false\n"
                "allow_anonymous false\n"
                f"password_file {pw}\n"
                "acl_file {dir}/acl\n"
                f"listener {ports[0]} 127.0.0.1\n"
                f"cafile {tls['cafile']}\ncertfile {tls['certfile']}\nkeyfile {tls['keyfile']}\n"
                "tls_version tlsv1.2\n"
            )
            if plaintext_listener:
                text += f"listener {ports[1]} 127.0.0.1\n"
            return text

        with broker_on_free_ports(2 if plaintext_listener else 1, body, {"acl": acl}) as b:
            plain_port = b.ports[1] if plaintext_listener else None
            b.info.update(tls_port=b.ports[0], plain_port=plain_port, **tls)
            yield b


@contextlib.contextmanager
def documented_broker(
    conf: str,
    *,
    users: Mapping[str, str],
    acl: str,
    ca: Any,
    without: tuple[str, ...] = (),
) -> Iterator[Broker]:
    """mosquitto with a configuration as documented (``conf``, e.g. docs/deployment.md's
    block): only the files it names (password_file, acl_file, cafile, certfile, keyfile)
    and its ``listener 8883`` are replaced by temporary ones on a free loopback port, each
    exactly once; every other line is kept verbatim. ``without`` drops the lines of those
    directives (a control run). ``b.info['tls_port']``, ``b.info['cafile']``."""
    with tempfile.TemporaryDirectory(prefix="rg-mosq-doc-") as tmp:
        d = Path(tmp)
        _password_file(users, d / "passwd")
        tls = write_tls_files(ca, d)
        swap = {
            "password_file": str(d / "passwd"),
            "acl_file": "{dir}/acl",
            "cafile": tls["cafile"],
            "certfile": tls["certfile"],
            "keyfile": tls["keyfile"],
        }

        def body(ports: list[int]) -> str:
            seen: list[str] = []
            lines = []
            for text in conf.splitlines():
                m = re.match(r"(\w+)\s+(\S+)\s*$", text)
                key = m.group(1) if m else ""
                if key in without:
                    seen.append(key)
                    continue
                out = text
                if key in swap:
                    out = f"{key} {swap[key]}"
                    seen.append(key)
                elif key == "listener":
                    assert m is not None and m.group(2) == "8883", text
                    out = f"listener {ports[0]} 127.0.0.1"
                    seen.append(key)
                lines.append(out)
            want = sorted([*swap, "listener", *without])
            assert sorted(seen) == want, f"documented config: expected one each of {want}: {seen}"
            return "\n".join(lines) + "\n"

        with broker_on_free_ports(1, body, {"acl": acl}) as b:
            b.info.update(tls_port=b.port, **tls)
            yield b
