#!/usr/bin/env bash
# Set up railguard on a fresh Debian / Raspberry Pi OS machine: OS packages (apt), the
# virtual environment at .venv, and the package with its extras. Safe to run again: it only
# installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# OS packages: the broker for tests and the demo, the PC/SC stack (pcscd, the vpcd virtual
# reader driver, and what pyscard needs to build), a compiler and Python headers; libpq5,
# the PostgreSQL client library psycopg (the venue logger's PostgreSQL store) loads, and the
# PostgreSQL server package, whose initdb/postgres the tests start privately (tests/pg.py).
# Debian's libpq5 rather than psycopg's "binary" wheel (which bundles its own libpq and
# OpenSSL): security fixes come with apt, and the server package needs it anyway.
APT_PACKAGES=(mosquitto pcscd vsmartcard-vpcd swig libpcsclite-dev gcc python3-dev python3-venv pkg-config
              libpq5 postgresql systemd  # systemd: systemd-analyze verifies the units
              chromium chromium-driver)  # the floor console's browser tests (tests/floor)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing OS packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if [[ " ${missing[*]} " == *" postgresql "* ]] && [ ! -d /etc/postgresql ]; then
      # only the server's programs are wanted (the tests start their own, tests/pg.py): no
      # cluster of Debian's running on 5432 after the install
      mkdir -p /etc/postgresql-common/createcluster.d
      echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/railguard.conf
    fi
    # a fresh Pi's first boot (unattended-upgrades) or another setup may hold apt's lock:
    # wait for it rather than fail
    apt-get -o DPkg::Lock::Timeout=900 update -qq
    apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing OS packages. Run:  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# The venv is made from the distribution's Python (/usr/bin/python3: 3.11.2 on Debian 12 and
# Raspberry Pi OS, the interpreter a table runs), not whatever python3 is first on PATH, so a
# developer's machine, CI and a Pi run the same interpreter. RAILGUARD_PYTHON overrides it.
if [ -n "${RAILGUARD_PYTHON:-}" ]; then
  PY=$RAILGUARD_PYTHON
elif [ -x /usr/bin/python3 ]; then
  PY=/usr/bin/python3
else
  PY=python3
fi
want_home=$(dirname "$("$PY" -c 'import sys; print(sys.executable)')")
if [ -f .venv/pyvenv.cfg ] && ! grep -qxF "home = $want_home" .venv/pyvenv.cfg; then
  echo "setup: .venv was made from another Python ($(grep '^home' .venv/pyvenv.cfg)); recreating it from $PY"
  rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv from $PY ($("$PY" --version 2>&1))"
  "$PY" -m venv .venv
fi
# Reinstall only when pyproject.toml changed since the last successful install.
stamp=.venv/.railguard-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing railguard and its extras into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[pcsc,pi,postgres,dev]'
  echo "$want" > "$stamp"
fi
echo "setup: ready (.venv/bin/railguard)"
