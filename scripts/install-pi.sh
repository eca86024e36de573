#!/bin/sh
# Install railguard as a systemd service on a Raspberry Pi (Raspberry Pi OS / Debian 12).
# Idempotent: run it again after a `git pull` to update. Run as root from the checkout.
#
#   1. OS packages: python3-venv, pcscd (badges), mosquitto-clients (diagnostics).
#   2. A system user `railguard` in the dialout (serial) and gpio groups.
#   3. The code in /opt/railguard with its own venv (extras: pi, pcsc); the rules core
#      compiled with mypyc, profile-guided (about five times as fast; RAILGUARD_COMPILE_CORE=0
#      keeps it pure Python, RAILGUARD_PGO=0 compiles it without the training run, and a
#      failed compile falls back to pure Python).
#   4. /etc/railguard/railguard.toml (only if absent: your edits are kept).
#   5. The udev rule (/dev/railguard-reader) and the units; daemon-reload; enable.
#   6. `railguard doctor` as the service user; start the service if everything passes.
set -eu

[ "$(id -u)" -eq 0 ] || { echo "run as root (sudo $0)" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/railguard
CONF=/etc/railguard/railguard.toml
COMPILE_CORE=${RAILGUARD_COMPILE_CORE:-1}
case "$COMPILE_CORE" in
    0|1) ;;
    *) echo "RAILGUARD_COMPILE_CORE must be 1 (compile the rules core, the default) or 0" >&2; exit 1 ;;
esac

echo "== 1. packages"
apt-get update -q
apt-get install -y -q python3-venv python3-dev gcc swig libpcsclite-dev pcscd mosquitto-clients

echo "== 2. user"
getent group gpio >/dev/null || groupadd --system gpio
id railguard >/dev/null 2>&1 || useradd --system --home-dir /var/lib/railguard \
    --shell /usr/sbin/nologin --user-group railguard
usermod -a -G dialout,gpio railguard

echo "== 3. code and venv in $PREFIX"
mkdir -p "$PREFIX"
if command -v rsync >/dev/null; then
    rsync -a --delete --exclude .venv --exclude .git "$SRC/" "$PREFIX/"
else
    (cd "$SRC" && tar --exclude=.venv --exclude=.git -cf - .) | (cd "$PREFIX" && tar -xf -)
fi
[ -x "$PREFIX/.venv/bin/python" ] || python3 -m venv "$PREFIX/.venv"
"$PREFIX/.venv/bin/pip" install -q --upgrade pip
# Non-editable installs from $PREFIX: the venv gets its own copy, so no compiled module ever
# sits beside a source file. First pure Python with every dependency (isolated builds)...
rm -rf "$PREFIX/build" "$PREFIX/.mypy_cache"  # pip builds in the tree: no stale objects
RAILGUARD_COMPILE_CORE=0 "$PREFIX/.venv/bin/pip" install -q "${PREFIX}[pi,pcsc]"
# ...then, by default, railguard alone again with the rules core compiled by mypyc (setup.py;
# needs mypy and setuptools in the venv, gcc and python3-dev). On failure the pure install stays.
if [ "$COMPILE_CORE" = 1 ]; then
    echo "   compiling the rules core with mypyc (minutes on a Pi; RAILGUARD_COMPILE_CORE=0 skips it)"
    # profile-guided (controller/core_pgo.py): built instrumented, trained on generated
    # hands, built again from the counts; RAILGUARD_PGO=0 builds it once, plainly
    PGO=$([ "${RAILGUARD_PGO:-1}" = 0 ] && echo --no-pgo || echo)
    WHEELS=$(mktemp -d)
    if ! { "$PREFIX/.venv/bin/pip" install -q mypy "setuptools>=77" &&
        WHEEL=$(cd / && env -u RAILGUARD_CORE_PGO "$PREFIX/.venv/bin/python" \
            -m controller.core_build "$PREFIX" "$WHEELS" $PGO) &&
        "$PREFIX/.venv/bin/pip" install -q --no-deps --force-reinstall "$WHEEL"; }; then
        echo "   WARNING: compiling the rules core failed (output above); the pure-Python core" \
            "stays installed and works the same, only slower" >&2
    fi
    rm -rf "$WHEELS"
fi
echo "   rules core: $(cd / && "$PREFIX/.venv/bin/python" -c \
    'from controller.core_build import core_build; print(core_build())')"

echo "== 4. config"
install -d -m 0750 -o root -g railguard /etc/railguard
if [ ! -e "$CONF" ]; then
    cat > "$CONF" <<'TOML'
# railguard daemon configuration: see /opt/railguard/docs/configuration.md
[table]
id = "t1"
venue = "venue"
profile = "tda-2024"

[reader]
ports = ["/dev/railguard-reader"]

[mqtt]
host = "broker.venue.lan"
ca_file = "/etc/railguard/ca.pem"
username = "venue/t1"
password = "change-me"

[storage]
path = "/var/lib/railguard"
TOML
    chown root:railguard "$CONF"
    chmod 0640 "$CONF"
    echo "   wrote $CONF: edit table, venue and [mqtt] before starting"
fi

echo "== 5. udev rule and units"
install -D -m 0644 -t /etc/udev/rules.d "$SRC/systemd/99-railguard-reader.rules"
{ udevadm control --reload-rules && udevadm trigger --subsystem-match=tty; } || true
install -D -m 0644 -t /etc/systemd/system "$SRC/systemd/railguard.service" \
    "$SRC/systemd/railguard-venue-log.service"
systemctl daemon-reload
systemctl enable railguard.service
systemctl enable --now pcscd.socket || true

echo "== 6. doctor"
if runuser -u railguard -- "$PREFIX/.venv/bin/railguard" doctor --config "$CONF"; then
    systemctl restart railguard.service
    echo "railguard is running: journalctl -u railguard -f"
else
    echo "fix the failures above, then: systemctl start railguard" >&2
    exit 1
fi
