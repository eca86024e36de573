#!/usr/bin/env bash
# Run the README's test command on a freshly debootstrapped Debian 12 (bookworm): nothing that
# this machine happens to have installed or running is there. As root:
#
#   scripts/fresh-debian.sh [DIR]          # DIR defaults to /var/tmp/railguard-deb12
#
# It makes a minimal bookworm root in DIR/root (once; remove DIR to start again), clones this
# checkout's HEAD into it as /work/main with the project's ../shared beside it as /work/shared,
# runs scripts/setup.sh there (apt and pip need the network), then runs scripts/test.sh in a new
# network namespace that has only a loopback interface, so no service of the host (mosquitto,
# PostgreSQL on 5432, ...) can be reached by mistake. Extra arguments go to pytest.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/var/tmp/railguard-deb12}
shift || true
root=$dir/root
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: run as root" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
command -v unshare >/dev/null || { echo "fresh-debian: needs unshare (util-linux)" >&2; exit 2; }
command -v ip >/dev/null || apt-get install -y -qq iproute2

if [ ! -x "$root/usr/bin/python3" ] && [ ! -f "$root/etc/debian_version" ]; then
  mkdir -p "$dir"
  echo "fresh-debian: debootstrap bookworm into $root"
  debootstrap --variant=minbase --include=ca-certificates,git bookworm "$root" \
    http://deb.debian.org/debian
fi

mounts=()
mnt() { mount "$@"; mounts+=("${@: -1}"); }
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mnt -t proc proc "$root/proc"
mnt -t sysfs sys "$root/sys"
mnt -t tmpfs tmpfs "$root/dev/shm"
mkdir -p "$root/dev/pts"
mnt -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
ln -sf pts/ptmx "$root/dev/ptmx"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# this network's own CA certificates (a proxy's), and the variables that point pip and others at
# them: what a machine on this network is given, not something the project installs
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1 || true
fi
netenv=()
for v in PIP_CERT SSL_CERT_FILE REQUESTS_CA_BUNDLE PIP_INDEX_URL PIP_EXTRA_INDEX_URL \
         HTTP_PROXY HTTPS_PROXY http_proxy https_proxy NO_PROXY no_proxy; do
  [ -n "${!v:-}" ] && netenv+=("$v=${!v}")
done

rm -rf "$root/work"
mkdir -p "$root/work"
git clone -q "$here" "$root/work/main"
cp -r "$here/../shared" "$root/work/shared"
chmod -R a-w "$root/work/shared"

echo "fresh-debian: setup (with the network)"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${netenv[@]}" \
  /bin/bash -c 'cd /work/main && scripts/setup.sh'
echo "fresh-debian: scripts/test.sh in a network namespace with only loopback"
unshare --net /bin/bash -c '
  ip link set lo up
  exec chroot "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI=true \
    /bin/bash -c "cd /work/main && scripts/test.sh \"\$@\"" -- "$@"' "$root" "$@"
