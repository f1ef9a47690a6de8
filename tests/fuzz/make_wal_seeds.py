#!/usr/bin/python3
"""Writes the seed corpus of wal_reader_fuzzer (seeds/wal_reader/*.bin).

Each seed is a write-ahead-log segment in the format of
server/durability/record_format.h: whole, truncated, with a corrupt middle
record, with a damaged header, with garbage between records, zero-filled at
the tail. The CRC-32C here is an independent implementation of the same
polynomial (RFC 3720), so the seeds also check the C++ encoder's framing.
Run once and commit the output; rerunning rewrites the same bytes.
"""
import os
import struct

POLY = 0x82F63B78  # Reflected Castagnoli polynomial (RFC 3720, 12.1).


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ POLY if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def header() -> bytes:
    head = b"SATORWAL" + struct.pack("<I", 1)
    return head + struct.pack("<I", crc32c(head))


def record(kind: int, lsn: int, payload: bytes) -> bytes:
    rest = struct.pack("<IBQI", len(payload), kind, lsn, crc32c(payload))
    return struct.pack("<I", crc32c(rest)) + rest + payload


def main() -> None:
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds",
                       "wal_reader")
    os.makedirs(out, exist_ok=True)
    records = [
        record(1, 1, b"\n\x05arena\x12\x02\x08\x02"),  # CreateSceneRequest.
        record(4, 2, b"\n\x05arena" + b"\x12\x10" + bytes(range(16))),
        record(5, 3, b"\n\x05arena\x12\x01\x07"),
        record(2, 4, b"\n\x05arena"),
    ]
    whole = header() + b"".join(records)
    corrupt = bytearray(whole)
    corrupt[len(header()) + len(records[0]) + 30] ^= 0x40
    bad_header = bytearray(whole)
    bad_header[3] ^= 0x01
    seeds = {
        "whole": whole,
        "truncated_tail": whole[:-5],
        "corrupt_middle": bytes(corrupt),
        "bad_header": bytes(bad_header),
        "garbage_between": header() + records[0] + b"\x5a" * 64 +
        b"".join(records[1:]),
        "zero_tail": whole + bytes(512),
        "header_only": header(),
        "empty": b"",
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
