#!/usr/bin/env bash
# Builds the Irontech guest image from Debian packages only (nothing is downloaded) and prints its path.
#
# The image is a small disk that boots on its own: a FAT file system (no partition table) with SYSLINUX in
# its boot sector, the host's Debian kernel and an initramfs holding busybox, dropbear (SSH) and the kernel
# modules for virtio. Its /init reads the cloud-init NoCloud seed (a disk labelled `cidata`: meta-data,
# user-data), applies hostname, password and SSH key, brings eth0 up by DHCP, starts the SSH server and gives
# a login on the serial console (ttyS0) and the display (tty1). Real Debian/Ubuntu cloud images read the same
# seed with cloud-init (docs/virtual-machines.md).
#
# Host packages (Debian 12): linux-image-amd64, busybox-static, dropbear-bin, syslinux, syslinux-common,
# mtools, qemu-utils, cpio, kmod. The result is cached by a hash of this directory and every input file, in
# $IRONTECH_GUEST_CACHE (default /var/cache/irontech-guest as root, else $XDG_CACHE_HOME/irontech-guest).
#
# Usage: build.sh [--print-key]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ "$(id -u)" = 0 ]; then default_cache=/var/cache/irontech-guest; else default_cache="${XDG_CACHE_HOME:-$HOME/.cache}/irontech-guest"; fi
cache="${IRONTECH_GUEST_CACHE:-$default_cache}"

kernel="${IRONTECH_GUEST_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)}"
[ -n "$kernel" ] && [ -r "$kernel" ] || { echo "no kernel in /boot: apt-get install --no-install-recommends linux-image-amd64" >&2; exit 1; }
kver="${kernel##*/vmlinuz-}"
need() { [ -e "$1" ] || { echo "missing $1: apt-get install --no-install-recommends $2" >&2; exit 1; }; }
need /bin/busybox busybox-static
need /usr/sbin/dropbear dropbear-bin
need /usr/lib/syslinux/modules/bios/ldlinux.c32 syslinux-common
command -v syslinux >/dev/null || { echo "missing syslinux: apt-get install --no-install-recommends syslinux mtools" >&2; exit 1; }
command -v mcopy >/dev/null || { echo "missing mtools: apt-get install --no-install-recommends mtools" >&2; exit 1; }
command -v qemu-img >/dev/null || { echo "missing qemu-img: apt-get install --no-install-recommends qemu-utils" >&2; exit 1; }

modules="virtio_pci virtio_blk virtio_net virtio-rng isofs evdev button"
module_files() {
  for m in $modules; do modprobe --show-depends -S "$kver" "$m" | awk '$1 == "insmod" { print $2 }'; done | awk '!seen[$0]++'
}
binaries="/usr/sbin/dropbear /usr/bin/dropbearkey"
libraries() {
  for b in $binaries; do ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'; done | sort -u
}

# The cache key: this directory's files and every input file's content.
key="$(
  {
    for f in "$here"/*; do sha256sum "$f"; done
    sha256sum "$kernel" /bin/busybox $binaries /usr/lib/syslinux/modules/bios/ldlinux.c32 $(libraries) $(module_files) | awk '{ print $1 }'
    syslinux --version 2>&1 | head -1
  } | sha256sum | cut -c1-16
)"
if [ "${1:-}" = --print-key ]; then echo "$key"; exit 0; fi
out="$cache/irontech-guest-$key.qcow2"
if [ -s "$out" ]; then echo "$out"; exit 0; fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"/{bin,sbin,dev,etc/dropbear,home,lib/modules,proc,root,run,sys,tmp,usr/bin,usr/sbin,var/log,mnt/seed}
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
for b in $binaries; do cp "$b" "$root$b"; done
for l in $(libraries); do mkdir -p "$root$(dirname "$l")"; cp -L "$l" "$root$l"; done
i=0
for m in $(module_files); do cp "$m" "$root/lib/modules/$(printf %02d $i)-$(basename "$m")"; i=$((i + 1)); done
cp "$here/init" "$root/init"
cp "$here/udhcpc.script" "$root/etc/udhcpc.script"
cp "$here/seed.awk" "$root/etc/seed.awk"
cp "$here/power-button" "$root/etc/power-button"
chmod 755 "$root/init" "$root/etc/udhcpc.script" "$root/etc/power-button"
# Device nodes need root; without them /init reopens its stdio on devtmpfs's console (so non-root builds work).
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$root/dev/null" c 1 3 2>/dev/null || true
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet --owner=0:0) | gzip -6 > "$work/initrd.gz"

# The boot disk: a FAT file system over the whole disk, SYSLINUX in its boot sector.
size_mb=$(( ( $(stat -c %s "$kernel") + $(stat -c %s "$work/initrd.gz") ) / 1048576 + 8 ))
truncate -s "${size_mb}M" "$work/disk.raw"
mformat -i "$work/disk.raw" -T $((size_mb * 2048)) -h 64 -s 32 -v IRONTECH ::
# `quiet`: printing the kernel's boot log on the emulated VGA and serial ports costs about 6 s of a 30 s boot
# under TCG; the guest's own lines and the login prompt still reach both consoles.
cat > "$work/syslinux.cfg" <<CFG
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /vmlinuz
  INITRD /initrd.gz
  APPEND console=tty0 console=ttyS0,115200 panic=10 quiet
CFG
mcopy -i "$work/disk.raw" "$kernel" ::/vmlinuz
mcopy -i "$work/disk.raw" "$work/initrd.gz" ::/initrd.gz
mcopy -i "$work/disk.raw" "$work/syslinux.cfg" ::/syslinux.cfg
syslinux --install "$work/disk.raw"
qemu-img convert -q -O qcow2 "$work/disk.raw" "$work/disk.qcow2"
chmod 644 "$work/disk.qcow2"
mv "$work/disk.qcow2" "$out"
# Older builds are no longer needed here: pools hold their own copies of the images their disks stand on.
find "$cache" -maxdepth 1 -name 'irontech-guest-*.qcow2' ! -name "${out##*/}" -delete
echo "$out"
