#!/usr/bin/env bash
# Boots the Debian guest image (build-debian.sh) once under TCG with plain qemu-system-x86_64 and checks it as a
# customer would: a NoCloud seed ISO (label cidata: an SSH key, a hostname), then over SSH with that key:
# /etc/os-release says Debian 12, `apt-get --version` runs, `df /` shows the root file system grown to the disk's
# size, and the guest agent answers guest-ping on its virtio-serial port (org.qemu.guest_agent.0). Prints the
# boot-to-SSH time. Nothing of libvirt is used, so it runs beside the libvirt tests' private daemon.
#
# Host packages: qemu-system-x86, qemu-utils, genisoimage, openssh-client, python3 (the agent's socket), plus
# build-debian.sh's.
#
# Usage: try-debian.sh [disk GiB (default 4)] [memory MiB (default 1024)]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
disk_gb="${1:-4}"
mem_mb="${2:-1024}"

image="$(bash "$here/build-debian.sh")"
work="$(mktemp -d /tmp/irontech-try-debian.XXXXXX)"
qemu_pid=""
cleanup() {
  [ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null || true
  [ -n "$qemu_pid" ] && wait "$qemu_pid" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The machine's own copy-on-write disk over the image, at the size sold.
qemu-img create -q -f qcow2 -F qcow2 -b "$image" "$work/disk.qcow2" "${disk_gb}G"

# The NoCloud seed: what the driver's seed.ts writes (a user with a key, a hostname).
ssh-keygen -q -t ed25519 -N '' -C try-debian -f "$work/key"
mkdir "$work/seed"
cat > "$work/seed/meta-data" <<EOF
instance-id: try-debian-$(date +%s)
local-hostname: try-debian
EOF
cat > "$work/seed/user-data" <<EOF
#cloud-config
hostname: 'try-debian'
ssh_pwauth: true
chpasswd: { expire: false }
users:
  - name: 'root'
    lock_passwd: false
    plain_text_passwd: 'Try-Debian-1'
    sudo: 'ALL=(ALL) NOPASSWD:ALL'
    shell: /bin/bash
    ssh_authorized_keys:
      - '$(cat "$work/key.pub")'
disable_root: false
write_files:
  - path: /etc/ssh/sshd_config.d/60-irontech-root.conf
    content: 'PermitRootLogin yes'
runcmd:
  - [sh, -c, 'systemctl reload ssh || systemctl reload sshd || true']
EOF
genisoimage -quiet -output "$work/seed.iso" -volid cidata -joliet -rock "$work/seed/user-data" "$work/seed/meta-data"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
ssh_opts=(-i "$work/key" -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes
  -o ConnectTimeout=5 -o LogLevel=ERROR)
guest() { ssh "${ssh_opts[@]}" root@127.0.0.1 "$@"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
secs() { printf '%d.%d s' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# Boots the machine (the same disk every time) and waits until SSH with the key logs in.
boot() {
  rm -f "$work/qga.sock" "$work/qmp.sock"
  started_ms=$(now_ms)
  qemu-system-x86_64 -machine q35,accel=tcg -cpu max -smp 1 -m "$mem_mb" -nodefaults -no-user-config \
    -display none -vga std \
    -drive "file=$work/disk.qcow2,if=virtio,format=qcow2,discard=unmap" \
    -drive "file=$work/seed.iso,if=virtio,format=raw,readonly=on" \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-net-pci,netdev=n0 \
    -device virtio-rng-pci \
    -chardev "file,id=s0,path=$work/serial.log" -serial chardev:s0 \
    -device virtio-serial-pci \
    -chardev "socket,id=qga0,path=$work/qga.sock,server=on,wait=off" \
    -device virtserialport,chardev=qga0,name=org.qemu.guest_agent.0 \
    -qmp "unix:$work/qmp.sock,server=on,wait=off" &
  qemu_pid=$!
  until guest true 2>/dev/null; do
    kill -0 "$qemu_pid" 2>/dev/null || { echo "qemu exited; serial log:" >&2; tail -50 "$work/serial.log" >&2; exit 1; }
    if [ $(( $(now_ms) - started_ms )) -gt 600000 ]; then
      echo "no SSH within 600 s; serial log:" >&2; tail -50 "$work/serial.log" >&2; exit 1
    fi
    sleep 1
  done
  boot_ms=$(( $(now_ms) - started_ms ))
}

# One JSON command on a QEMU socket (QMP needs its capabilities negotiated first), the answer on stdout.
qjson() { # socket, command...
  python3 - "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect(sys.argv[1])
f = s.makefile('rwb')
qmp = sys.argv[1].endswith('qmp.sock')
if qmp: f.readline()
for cmd in sys.argv[2:]:
    f.write(cmd.encode() + b'\n'); f.flush()
    while True:
        line = json.loads(f.readline())
        if 'event' not in line and 'QMP' not in line: break
print(json.dumps(line, separators=(',', ':')))
PY
}

boot
echo "boot to SSH (key login), first boot: $(secs $boot_ms)"

# cloud-init may still be at work when SSH first answers (it reloads sshd at the end): wait for it to finish.
for _ in $(seq 1 60); do guest 'cloud-init status --wait >/dev/null 2>&1; true' 2>/dev/null && break; sleep 2; done
echo "boot to cloud-init done: $(secs $(( $(now_ms) - started_ms )))"

fail=0
check() { # name, command output, pattern
  if grep -qE "$3" <<< "$2"; then echo "ok   $1"; else echo "FAIL $1: $2"; fail=1; fi
}
check "os-release says Debian 12" "$(guest cat /etc/os-release)" 'VERSION_ID="12"'
check "apt-get --version runs" "$(guest apt-get --version 2>&1 | head -1)" '^apt [0-9]'
check "hostname from the seed" "$(guest hostname)" '^try-debian$'
root_kb="$(guest "df -k --output=size / | tail -1" | tr -d ' ')"
check "root fs grown to the ${disk_gb} GiB disk (df /: $((root_kb / 1024)) MiB)" \
  "$([ "$root_kb" -gt $((disk_gb * 1024 * 1024 * 90 / 100)) ] && echo grown || echo "only ${root_kb} kB")" '^grown$'
check "cloud-init finished without errors" "$(guest cloud-init status --long 2>&1)" 'status: done'
ping="$(qjson "$work/qga.sock" '{"execute":"guest-ping"}')"
check "qemu-guest-agent answers guest-ping" "$ping" '^\{"return":\{\}\}$'
check "serial console shows a login prompt" "$(tr -d '\r' < "$work/serial.log")" 'login:'

# The root file system is on the disk: a file survives an ACPI power-off (the portal's Stop) and a new boot.
guest 'echo kept > /root/persist && sync'
off_ms=$(now_ms)
qjson "$work/qmp.sock" '{"execute":"qmp_capabilities"}' '{"execute":"system_powerdown"}' >/dev/null
for _ in $(seq 1 240); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$qemu_pid" 2>/dev/null; then check "ACPI power button powers off" "still running after 120 s" '^$'
else wait "$qemu_pid" || true; check "ACPI power button powers off ($(secs $(( $(now_ms) - off_ms ))))" ok '^ok$'; fi
qemu_pid=""
boot
echo "boot to SSH (key login), second boot: $(secs $boot_ms)"
check "a file written before the power-off is still there" "$(guest cat /root/persist)" '^kept$'
check "the root fs keeps its grown size" "$(guest "df -k --output=size / | tail -1" | tr -d ' ')" "^$root_kb\$"
echo "image: $image ($(du -m "$image" | cut -f1) MB)"
exit $fail
