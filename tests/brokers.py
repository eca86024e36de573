"""Private mosquitto brokers for tests: each on a free loopback port with its own config file
in a temporary directory, stopped (and killed if need be) on exit.

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
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"mosquitto exited with {proc.returncode}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"mosquitto did not listen on {port} within {timeout} s")


@dataclass
class Broker:
    """One private mosquitto process; restartable on the same ports."""

    directory: Path
    config: Path
    ports: list[int]
    host: str = "127.0.0.1"
    proc: subprocess.Popen[bytes] | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return self.ports[0]

    @property
    def log(self) -> str:
        p = self.directory / "mosquitto.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        logf = (self.directory / "mosquitto.log").open("ab")
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],
            stdout=logf,
            stderr=subprocess.STDOUT,
            cwd=self.directory,
        )
        logf.close()
        for port in self.ports:
            _wait_listening(port, self.proc)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def kill(self) -> None:
        """Stop abruptly (SIGKILL): no clean disconnects, wills of clients not sent."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


def _user_line() -> str:
    # As root, mosquitto drops privileges to "mosquitto", which cannot read our 0600 files.
    return "user root\n" if os.geteuid() == 0 else ""


@contextlib.contextmanager
def broker_with_config(body: str, ports: list[int], files: Mapping[str, str] = {}) -> Iterator[
    Broker
]:
    """Start mosquitto with ``body`` (``{dir}`` is replaced by the temp dir) plus ``files``."""
    with tempfile.TemporaryDirectory(prefix="rg-mosq-") as tmp:
        d = Path(tmp)
        for name, text in files.items():
            (d / name).write_text(text)
            os.chmod(d / name, 0o600)
        conf = d / "mosquitto.conf"
        conf.write_text(
            "persistence false\nlog_dest stdout\nlog_type error\nlog_type warning\n"
            "log_type notice\nlog_type information\nlog_timestamp false\n"
            + _user_line()
            + body.replace("{dir}", str(d))
        )
        broker = Broker(d, conf, ports)
        try:
            broker.start()
            yield broker
        finally:
            broker.stop()


@contextlib.contextmanager
def plain_broker() -> Iterator[Broker]:
    """Anonymous plain-TCP broker on a free loopback port."""
    port = free_port()
    body = f"listener {port} 127.0.0.1\nallow_anonymous true\n"
    with broker_with_config(body, [port]) as b:
        yield b


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
    tls_port = free_port()
    plain_port = free_port() if plaintext_listener else None
    with tempfile.TemporaryDirectory(prefix="rg-mosq-sec-") as tmp:
        d = Path(tmp)
        pw = d / "passwd"
        first = True
        for user, password in users.items():
            args = [MOSQUITTO_PASSWD, "-b"] + (["-c"] if first else []) + [str(pw), user, password]
            subprocess.run(args, check=True, capture_output=True, timeout=10)
            first = False
        os.chmod(pw, 0o600)
        tls = write_tls_files(ca, d)
        body = (
            "per_listener_settings false\n"
            "allow_anonymous false\n"
            f"password_file {pw}\n"
            "acl_file {dir}/acl\n"
            f"listener {tls_port} 127.0.0.1\n"
            f"cafile {tls['cafile']}\ncertfile {tls['certfile']}\nkeyfile {tls['keyfile']}\n"
            "tls_version tlsv1.2\n"
        )
        if plain_port is not None:
            body += f"listener {plain_port} 127.0.0.1\n"
        ports = [tls_port] + ([plain_port] if plain_port is not None else [])
        with broker_with_config(body, ports, {"acl": acl}) as b:
            b.info.update(tls_port=tls_port, plain_port=plain_port, **tls)
            yield b
