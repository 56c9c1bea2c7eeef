#!/usr/bin/env python3
"""png_check.py - what a browser screenshot (PNG) shows, without imaging
libraries: decodes 8-bit RGB/RGBA non-interlaced PNG (zlib + the five row
filters of the PNG specification, section 9) and reports the share of
pixels that are not near-white and how many distinct colours they use.

usage: png_check.py SHOT.png [--crop Y0 Y1 OUT.png]
Prints "pixels W x H, non-white F %, colours N". --crop writes rows Y0..Y1
as a new PNG (for looking at a part of a tall page).
"""
import struct
import sys
import zlib


def decode(path):
    d = open(path, "rb").read()
    if d[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(d):
        n, kind = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {ctype}")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def encode(path, w, rows, bpp):
    raw = b"".join(b"\x00" + r for r in rows)
    def chunk(k, b):
        return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b) & 0xffffffff)
    ihdr = struct.pack(">IIBBBBB", w, len(rows), 8, 2 if bpp == 3 else 6, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main(argv):
    w, h, bpp, rows = decode(argv[1])
    if len(argv) > 2 and argv[2] == "--crop":
        y0, y1 = int(argv[3]), int(argv[4])
        encode(argv[5], w, rows[y0:y1], bpp)
    dark, colours = 0, set()
    for r in rows:
        for x in range(0, w * bpp, bpp):
            px = r[x:x + 3]
            if min(px) < 230:
                dark += 1
                colours.add(bytes(v & 0xf0 for v in px))
    print(f"pixels {w} x {h}, non-white {100 * dark / (w * h):.2f} %, colours {len(colours)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
