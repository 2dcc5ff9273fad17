#!/usr/bin/env bash
# Builds the Irontech "Debian 12" guest image from Debian packages only and prints its path (docs/guest-image.md).
#
# A real Debian 12 (bookworm) made by `mmdebstrap --variant=minbase`: systemd, openssh-server, Debian's cloud-init
# (NoCloud seed), qemu-guest-agent, cloud-guest-utils (growpart), apt, sudo, ifupdown and linux-image-amd64. It is
# a bootable disk like any cloud image, made without loop devices or mounts:
#   an MBR (SYSLINUX's mbr.bin), partition 1: a FAT boot partition with SYSLINUX in its boot sector, the kernel and
#   the initrd; partition 2 (last, so cloud-init's growpart + resize2fs grow it to the VM's disk at first boot): the
#   ext4 root file system, filled by `mke2fs -d` from the mmdebstrap tree and written at its offset.
# Consoles: the serial port ttyS0 (a getty) and VGA (tty1).
#
# Host packages (Debian 12): mmdebstrap, syslinux, syslinux-common, mtools, e2fsprogs, fdisk (sfdisk), qemu-utils.
# The result is cached by a hash of this script (its package list and settings), the suite and the mirror
# arguments, in $IRONTECH_GUEST_CACHE (default /var/cache/irontech-guest as root, else
# $XDG_CACHE_HOME/irontech-guest): the same directory as build.sh's test fixture.
#
# Environment: IRONTECH_DEBIAN_SUITE (bookworm), IRONTECH_DEBIAN_MIRROR (mmdebstrap MIRROR arguments, space
# separated; default: mmdebstrap's own default mirror with its updates and security suites; a snapshot URI pins
# the packages), IRONTECH_GUEST_CACHE.
#
# Usage: build-debian.sh [--print-key]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
self="$here/$(basename "$0")"

if [ "$(id -u)" = 0 ]; then default_cache=/var/cache/irontech-guest; else default_cache="${XDG_CACHE_HOME:-$HOME/.cache}/irontech-guest"; fi
cache="${IRONTECH_GUEST_CACHE:-$default_cache}"
suite="${IRONTECH_DEBIAN_SUITE:-bookworm}"
read -r -a mirrors <<< "${IRONTECH_DEBIAN_MIRROR:-}"

# What the guest is made of. Recommends are left out (mmdebstrap's default): every package it needs is named.
packages=(
  systemd systemd-sysv dbus udev kmod
  linux-image-amd64 initramfs-tools
  openssh-server sudo
  cloud-init cloud-guest-utils fdisk e2fsprogs
  qemu-guest-agent
  ifupdown isc-dhcp-client iproute2 netbase
  apt ca-certificates procps less locales
)
boot_mb=128

need() { command -v "$1" >/dev/null || { echo "missing $1: apt-get install --no-install-recommends $2" >&2; exit 1; }; }
need mmdebstrap mmdebstrap
need syslinux syslinux
need mcopy mtools
need mke2fs e2fsprogs
need sfdisk fdisk
need qemu-img qemu-utils
[ -r /usr/lib/syslinux/mbr/mbr.bin ] && [ -r /usr/lib/syslinux/modules/bios/ldlinux.c32 ] ||
  { echo "missing SYSLINUX's mbr.bin: apt-get install --no-install-recommends syslinux-common" >&2; exit 1; }

key="$(
  {
    sha256sum "$self" | awk '{ print $1 }'
    echo "suite=$suite mirrors=${mirrors[*]:-default}"
    for m in "${mirrors[@]}"; do [ -f "$m" ] && sha256sum "$m"; done
    syslinux --version 2>&1 | head -1
  } | sha256sum | cut -c1-16
)"
if [ "${1:-}" = --print-key ]; then echo "$key"; exit 0; fi
out="$cache/irontech-debian12-$key.qcow2"
if [ -s "$out" ]; then echo "$out"; exit 0; fi

mkdir -p "$cache"
# One build at a time per cache (two test processes may ask at once): the second waits and takes the first's result.
exec 9> "$cache/.build-debian.lock"
flock 9
if [ -s "$out" ]; then echo "$out"; exit 0; fi
work="$(mktemp -d "$cache/build-debian.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
root_uuid="$(cat /proc/sys/kernel/random/uuid)"
boot_serial="$(printf %08X $(( $(od -An -N4 -tu4 /dev/urandom) )))"

# The guest's first-boot configuration, copied in by the customize hook.
files="$work/files"
mkdir -p "$files"
cat > "$files/fstab" <<FSTAB
UUID=$root_uuid / ext4 defaults,errors=remount-ro 0 1
FSTAB
# NoCloud only (the portal's seed ISO, label cidata), then None: no probing of cloud metadata services at boot.
cat > "$files/90-irontech.cfg" <<'CFG'
datasource_list: [ NoCloud, None ]
growpart:
  mode: auto
  devices: ['/']
resize_rootfs: true
# Host keys made at first boot: ECDSA and Ed25519 (an RSA key costs seconds of a TCG boot; every current client
# takes the others), not printed on the consoles.
ssh_genkeytypes: [ecdsa, ed25519]
ssh_quiet_keygen: true
CFG
# The FAT boot partition is not mounted; a new kernel or initrd (apt upgrades) is copied onto it by this hook.
cat > "$files/zz-irontech-boot" <<'HOOK'
#!/bin/sh
# Irontech: copies the newest kernel and initrd onto the FAT boot partition SYSLINUX boots from (label IRONBOOT).
set -e
kernel="$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)"
[ -n "$kernel" ] || exit 0
initrd="/boot/initrd.img-${kernel#/boot/vmlinuz-}"
[ -e "$initrd" ] || exit 0
dev="$(blkid -L IRONBOOT 2>/dev/null)" || exit 0
dir="$(mktemp -d)"
mount -t vfat "$dev" "$dir" || { rmdir "$dir"; exit 0; }
cp "$kernel" "$dir/vmlinuz.new" && mv "$dir/vmlinuz.new" "$dir/vmlinuz"
cp "$initrd" "$dir/initrd.new" && mv "$dir/initrd.new" "$dir/initrd.img"
umount "$dir"; rmdir "$dir"
HOOK

# The initrd holds only what finds and mounts the root file system on a virtual machine's disk (virtio, SCSI, SATA,
# IDE; ext4): 36 MB with initramfs-tools' MODULES=most, which SYSLINUX reads through the BIOS for many seconds
# under TCG. Every other module is on the root file system.
printf '%s\n' virtio_pci virtio_blk virtio_scsi virtio_net sd_mod ahci ata_piix ata_generic sr_mod ext4 crc32c_generic \
  > "$files/initramfs-modules"

echo "build-debian: mmdebstrap $suite (${#packages[@]} packages)" >&2
inc="$(IFS=,; echo "${packages[*]}")"
mmdebstrap --variant=minbase --mode=root --format=directory --include="$inc" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook="cp '$files/fstab' \"\$1/etc/fstab\"" \
  --customize-hook="cp '$files/90-irontech.cfg' \"\$1/etc/cloud/cloud.cfg.d/90-irontech.cfg\"" \
  --customize-hook="install -m 755 '$files/zz-irontech-boot' \"\$1/etc/kernel/postinst.d/zz-irontech-boot\"" \
  --customize-hook="mkdir -p \"\$1/etc/initramfs/post-update.d\" && install -m 755 '$files/zz-irontech-boot' \"\$1/etc/initramfs/post-update.d/zz-irontech-boot\"" \
  --customize-hook='echo localhost > "$1/etc/hostname"' \
  --customize-hook='printf "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" > "$1/etc/hosts"' \
  --customize-hook='printf "auto lo\niface lo inet loopback\n\nsource /etc/network/interfaces.d/*\n" > "$1/etc/network/interfaces"' \
  --customize-hook='rm -f "$1"/etc/ssh/ssh_host_*' \
  --customize-hook="cp '$files/initramfs-modules' \"\$1/etc/initramfs-tools/modules\" && echo MODULES=list > \"\$1/etc/initramfs-tools/conf.d/irontech\" && chroot \"\$1\" update-initramfs -u -k all" \
  --customize-hook='echo "en_US.UTF-8 UTF-8" > "$1/etc/locale.gen" && chroot "$1" locale-gen >/dev/null && echo LANG=en_US.UTF-8 > "$1/etc/default/locale"' \
  --customize-hook=': > "$1/etc/machine-id"; rm -f "$1/var/lib/dbus/machine-id"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log' \
  "$suite" "$work/root" "${mirrors[@]}" >&2

root="$work/root"
kernel="$(ls "$root"/boot/vmlinuz-* | sort -V | tail -1)"
initrd="$root/boot/initrd.img-${kernel##*/vmlinuz-}"
[ -r "$initrd" ] || { echo "the guest has no initrd for ${kernel##*/}" >&2; exit 1; }

# Partition 1: FAT with SYSLINUX, the kernel and the initrd. `quiet`: the kernel's boot log on the emulated VGA and
# serial ports costs seconds under TCG; systemd's and the login prompt's lines still reach both consoles.
cat > "$work/syslinux.cfg" <<CFG
DEFAULT debian
PROMPT 0
TIMEOUT 0
LABEL debian
  KERNEL /vmlinuz
  INITRD /initrd.img
  APPEND root=UUID=$root_uuid ro console=tty0 console=ttyS0,115200 panic=10 quiet
CFG
boot_sectors=$((boot_mb * 2048))
truncate -s "${boot_mb}M" "$work/boot.raw"
mformat -i "$work/boot.raw" -T "$boot_sectors" -h 64 -s 32 -H 2048 -N "$boot_serial" -v IRONBOOT ::
mcopy -i "$work/boot.raw" "$kernel" ::/vmlinuz
mcopy -i "$work/boot.raw" "$initrd" ::/initrd.img
mcopy -i "$work/boot.raw" "$work/syslinux.cfg" ::/syslinux.cfg
syslinux --install "$work/boot.raw"

# Partition 2: ext4 from the tree, a quarter free (it grows to the VM's disk at first boot anyway).
used_mb=$(( $(du -sm --apparent-size "$root" | cut -f1) ))
root_mb=$(( (used_mb * 5 / 4 + 256 + 63) / 64 * 64 ))
mke2fs -q -t ext4 -L irontech-root -U "$root_uuid" -d "$root" "$work/root.raw" "${root_mb}M"

# The disk: MBR + partition table, then the two partitions at their offsets (1 MiB aligned).
root_start=$((2048 + boot_sectors))
disk_mb=$((1 + boot_mb + root_mb))
truncate -s "${disk_mb}M" "$work/disk.raw"
sfdisk -q "$work/disk.raw" <<PT
label: dos
start=2048, size=$boot_sectors, type=c, bootable
start=$root_start, type=83
PT
dd if=/usr/lib/syslinux/mbr/mbr.bin of="$work/disk.raw" bs=440 count=1 conv=notrunc status=none
dd if="$work/boot.raw" of="$work/disk.raw" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$work/root.raw" of="$work/disk.raw" bs=1M seek=$((1 + boot_mb)) conv=notrunc,sparse status=none
qemu-img convert -q -c -O qcow2 "$work/disk.raw" "$work/disk.qcow2"
chmod 644 "$work/disk.qcow2"
mv "$work/disk.qcow2" "$out"
echo "build-debian: $out in $(( $(date +%s) - started )) s, $(du -m "$out" | cut -f1) MB (virtual ${disk_mb} MiB)" >&2
find "$cache" -maxdepth 1 -name 'irontech-debian12-*.qcow2' ! -name "${out##*/}" -delete
echo "$out"
