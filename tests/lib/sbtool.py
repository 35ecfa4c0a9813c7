#!/usr/bin/env python3
"""Read and patch dm-ressd superblocks in a log range, for tests.

    sbtool.py show  <dev> <log_offset_sectors> <copy>
    sbtool.py patch <dev> <log_offset_sectors> <copy> field=value ... [--keep-csum]

Patching recomputes the checksum (crc32c seeded with the nonce, as the kernel
does) unless --keep-csum is given.  Field offsets follow dm-ressd-format.h.
"""
import os
import struct
import sys

FIELDS = {  # name: (offset, struct format)
    'magic': (0, '<Q'), 'csum': (8, '<I'), 'version': (12, '<I'),
    'location': (16, '<Q'), 'generation': (24, '<Q'), 'nonce': (32, '<Q'),
    'compat': (40, '<I'), 'ro_compat': (44, '<I'), 'incompat': (48, '<I'),
    'block_size': (52, '<I'), 'origin_offset': (56, '<Q'),
    'origin_sectors': (64, '<Q'), 'log_offset': (72, '<Q'),
    'log_sectors': (80, '<Q'), 'nr_slots': (88, '<I'),
    'small_write_max': (92, '<I'), 'mover_batch': (96, '<I'),
    'high_watermark': (100, '<I'), 'low_watermark': (104, '<I'),
    'tail_slot': (108, '<I'), 'tail_seq': (112, '<Q'), 'epoch': (120, '<Q'),
    'tail_epoch': (128, '<Q'),
}

_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _TABLE.append(c)


def crc32c_raw(seed, data):
    """The kernel's crc32c(seed, data): no pre- or post-inversion."""
    c = seed
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


def sb_csum(block):
    nonce = struct.unpack_from('<Q', block, 32)[0]
    seed = (nonce ^ (nonce >> 32)) & 0xFFFFFFFF
    return crc32c_raw(seed, bytes(block[:8]) + b'\0\0\0\0' + bytes(block[12:4096]))


def main():
    cmd, dev, off, copy = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pos = off * 512 + copy * 4096
    fd = os.open(dev, os.O_RDWR)
    try:
        block = bytearray(os.pread(fd, 4096, pos))
        if cmd == 'show':
            for name, (o, f) in FIELDS.items():
                print(f'{name}={struct.unpack_from(f, block, o)[0]}')
            print(f'csum_ok={int(sb_csum(block) == struct.unpack_from("<I", block, 8)[0])}')
            return
        keep = '--keep-csum' in sys.argv
        for arg in sys.argv[5:]:
            if arg == '--keep-csum':
                continue
            name, value = arg.split('=', 1)
            o, f = FIELDS[name]
            struct.pack_into(f, block, o, int(value, 0))
        if not keep:
            struct.pack_into('<I', block, 8, sb_csum(block))
        os.pwrite(fd, bytes(block), pos)
        os.fsync(fd)
    finally:
        os.close(fd)


if __name__ == '__main__':
    main()
