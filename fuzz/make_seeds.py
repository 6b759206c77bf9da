#!/usr/bin/env python3
"""Seeds for the fuzz targets.

usage: fuzz/make_seeds.py OUT_DIR [FIXTURES_DIR]      (fs_mount_fuzz)
       fuzz/make_seeds.py --target NAME OUT_DIR      (the other targets:
       chip_identify, bbt_attach, sim_sidecar, fs_codec, fs_roundtrip)

FIXTURES_DIR defaults to the repository's tests/fixtures. The other targets'
seeds are generated here from their input formats (see each target's
comment): valid parameter-page edits, table blocks, sidecars, tags and
headers, and small trees.

fs_mount_fuzz:

Each seed is one flags byte (the layout) and records of (page index, data
length / 16, 28 tag bytes, data) for a 2048+64-byte, 8-pages-per-block,
8-block device (see the target's comment). From each fixture image it takes
the chunks of a few blocks, re-numbers their sequence numbers so that each
8-page block is consistent (re-computing the tags ECC), keeps header chunks'
first 512 bytes and data chunks' first bytes, and for the linux layout also
writes a valid YAFFS2 block summary into some blocks, so the fuzzer starts
from images that mount into real trees. Each of those seeds also comes in
checkpoint mode (flags bits 4 and 5: nandkit's checkpoint written, then
changed, with and without its CRC made to match).
"""
import lzma
import os
import struct
import sys
import zlib

PAGE, OOB, PPB, BLOCKS = 2048, 64, 8, 8


def parity(b):
    return bin(b).count("1") & 1


def tags_ecc(tags):
    col, line, prime = 0, 0, 0
    for i, b in enumerate(tags):
        col ^= (parity(b & 0xF0) << 5 | parity(b & 0x0F) << 4 | parity(b & 0xCC) << 3 |
                parity(b & 0x33) << 2 | parity(b & 0xAA) << 1 | parity(b & 0x55))
        if parity(b):
            line ^= i
            prime ^= (~i) & 0xFFFFFFFF
    return bytes([col, 0, 0, 0]) + struct.pack("<II", line, prime)


def record(page, tags16, data, with_ecc=True):
    data = data[: 127 * 16]
    pad = (-len(data)) % 16
    data = data + b"\xff" * pad
    tail = tags_ecc(tags16) if with_ecc else b"\xff" * 12
    return bytes([page, len(data) // 16]) + tags16 + tail + data


def chunks_of(image, page_size, oob_size, layout, blocks):
    """(tags16, data) of every written page of `blocks`, oldest first."""
    out = []
    for b in blocks:
        for p in range(64):
            off = (b * 64 + p) * (page_size + oob_size)
            page = image[off: off + page_size + oob_size]
            if len(page) < page_size + oob_size:
                return out
            if layout == "inband":
                tags = page[page_size - 16: page_size]
            elif layout == "mkyaffs2":
                tags = page[page_size: page_size + 16]
            else:
                tags = page[page_size + 2: page_size + 18]
            seq, obj, chunk, nbytes = struct.unpack("<4I", tags)
            if seq == 0xFFFFFFFF or seq == 0x21 or obj == 0x10:
                continue
            header = chunk == 0 or chunk & 0x80000000
            keep = 512 if header else min(nbytes, 96)
            data = page[:keep]
            out.append((obj, chunk, nbytes, data))
    return out


def history_of(image, page_size, oob_size, layout, nblocks):
    """Chunks of the objects that were truncated, deleted or renamed over,
    in the order they were written (blocks by sequence number): stale
    copies, shrink headers, deletions and shadows, the scan's hard cases.
    Headers all kept, data chunks thinned to fit a seed."""
    blocks = []
    for b in range(nblocks):
        off = b * 64 * (page_size + oob_size)
        page = image[off: off + page_size + oob_size]
        tags = (page[page_size - 16: page_size] if layout == "inband"
                else page[page_size + 2: page_size + 18])
        seq = struct.unpack("<I", tags[:4])[0]
        if 0x1000 <= seq < 0xEFFFFF00:
            blocks.append((seq, b))
    chunks = chunks_of(image, page_size, oob_size, layout, [b for _, b in sorted(blocks)])
    shrunk, deleted = [], []
    for obj, chunk, nbytes, data in chunks:
        if chunk & 0x80000000:
            o = obj & 0x0FFFFFFF
            if (chunk & 0x0FFFFFFF) in (3, 4):
                if o not in deleted:
                    deleted.append(o)
            elif chunk & 0x60000000 and o not in shrunk:
                shrunk.append(o)
    wanted = set(shrunk[:2] + deleted[:2])
    picked = [c for c in chunks if (c[0] & 0x0FFFFFFF) in wanted]
    last_header = {}
    for i, c in enumerate(picked):
        if c[1] & 0x80000000 or c[1] == 0:
            last_header[c[0] & 0x0FFFFFFF] = i
    must = set(last_header.values())
    step = max(1, len(picked) // (56 - len(must)))
    keep = must | set(range(0, len(picked), step))
    return [c for i, c in enumerate(picked) if i in keep][:56]


def build_seed(chunks, layout, summaries):
    flags = {"linux": 0, "mkyaffs2": 1, "inband": 2}[layout]
    recs = []
    per_block = PPB - 1 if summaries else PPB
    for i, (obj, chunk, nbytes, data) in enumerate(chunks[: per_block * BLOCKS]):
        block, slot = divmod(i, per_block)
        seq = 0x1000 + block
        tags = struct.pack("<4I", seq, obj, chunk, nbytes)
        recs.append((block, slot, tags, data))
    out = bytearray([flags])
    for block, slot, tags, data in recs:
        out += record(block * PPB + slot, tags, data, layout != "inband")
    if summaries:
        for block in range(BLOCKS):
            mine = [r for r in recs if r[0] == block]
            if len(mine) != PPB - 1:
                continue
            entries = b"".join(r[2][4:16] for r in mine)
            seq = 0x1000 + block
            head = struct.pack("<4I", 1, block + 1, seq, sum(entries) & 0xFFFFFFFF)
            tags = struct.pack("<4I", seq, 0x10, 1, 16 + len(entries))
            out += record(block * PPB + PPB - 1, tags, head + entries)
    return bytes(out)


def sidecar(page, oob, ppb, blocks, model, flags_of=lambda i: 0, weak_rows=None):
    """A sidecar: version 1, or version 2 with weak-page entries when
    `weak_rows` is a list (32-byte entry, then a page+OOB mask each)."""
    version = 1 if weak_rows is None else 2
    out = bytearray(b"NKSIMCAR")
    out += struct.pack("<8I", version, 80, page, oob, ppb, blocks, 7, 0)
    out += struct.pack("<II", 16, len(weak_rows or []))
    out += model.encode().ljust(32, b"\0")
    assert len(out) == 80
    for i in range(blocks):
        out += struct.pack("<IIBBBBI", i * 3, i, flags_of(i), 0, 0, 0, 0)
    for n, row in enumerate(weak_rows or []):
        out += struct.pack("<IIHHIQQ", row, n, 300 + n, 0, 0, 0x1234 + n, 1000)
        out += bytes([0x81] * (page + oob))
    out += struct.pack("<I", zlib.crc32(bytes(out)) & 0xFFFFFFFF)
    return bytes(out)


def header(obj_type, parent, name, mode, mtime, size=0, alias=b""):
    h = bytearray(b"\xff" * 512)
    h[0:8] = struct.pack("<II", obj_type, parent)
    h[10:266] = name.ljust(256, b"\0")
    h[268:300] = struct.pack("<IIIIIIII", mode, 0, 0, mtime & 0xFFFFFFFF, mtime & 0xFFFFFFFF,
                             mtime & 0xFFFFFFFF, size & 0xFFFFFFFF, 0)
    h[300:460] = alias.ljust(160, b"\0")
    for at in (464, 472, 480):
        h[at:at + 8] = struct.pack("<q", mtime)
    h[496:500] = struct.pack("<I", size >> 32)
    return bytes(h)


def generated_seeds(target):
    """(name, bytes) seeds of a generated-seed target."""
    if target == "chip_identify":
        # flags: preset (bits 0..2), recompute CRCs (bit 3), copy 0 over all (bit 4)
        seeds = [("preset-%d" % p, bytes([0x08 | p])) for p in range(5)]
        seeds.append(("onfi-cycles", bytes([0x18, 101, 0, 0x22])))
        seeds.append(("onfi-blocks", bytes([0x18, 99, 0, 0x01, 100, 0, 2])))
        seeds.append(("jedec-oob", bytes([0x1a, 84, 0, 0x40, 85, 0, 0])))
        seeds.append(("onfi-ext-ecc", bytes([0x19, 0x00, 0x03, 8])))
        seeds.append(("no-crc-fix", bytes([0x00, 10, 0, 0x55])))
        return seeds
    if target == "bbt_attach":
        seeds = []
        for flags in range(8):
            seeds.append(("clean-%d" % flags, bytes([flags, 5])))
        main_pattern = b"Bbt0\x01"
        poke = bytes([0, 15 * 4 % 16, (2048 + 8) & 0xFF, (2048 + 8) >> 8, len(main_pattern)])
        seeds.append(("stale-main", bytes([0, 9]) + poke + main_pattern))
        seeds.append(("bad-and-failing", bytes([1, 61, 1, 7, 0, 0, 0, 2, 62, 0, 0, 0,
                                                3, 63, 0, 0, 0])))
        seeds.append(("mark-table-block", bytes([0, 62])))
        return seeds
    if target == "sim_sidecar":
        return [
            ("geometry", b"\x00" + sidecar(2048, 64, 4, 16, "GEOMETRY-2048+64x4")),
            ("bad-blocks", b"\x00" + sidecar(2048, 64, 4, 16, "x", lambda i: i % 4)),
            ("preset", b"\x00" + sidecar(2048, 64, 64, 1024, "K9F1G08U0A")),
            ("fix-crc", b"\x01" + sidecar(512, 16, 32, 8, "small")),
            ("fix-count", b"\x03" + sidecar(4096, 224, 4, 4, "")),
            ("v2-none", b"\x00" + sidecar(2048, 64, 4, 16, "v2", weak_rows=[])),
            ("v2-weak", b"\x00" + sidecar(2048, 64, 4, 16, "v2", weak_rows=[5, 17])),
        ]
    if target == "fs_codec":
        tags = struct.pack("<4I", 0x1000, 257, 1, 2048)
        extra = struct.pack("<4I", 0x1001, 0x10000000 | 258, 0x80000000 | 1, 12345)
        return [
            ("tags", tags + tags_ecc(tags)),
            ("tags-extra", extra + tags_ecc(extra)),
            ("header-file", header(1, 1, b"file", 0o100644, 1704283358, 12345)),
            ("header-old", header(1, 1, b"old", 0o100644, -302486400)),
            ("header-big", header(1, 1, b"big", 0o100644, 0x1000000AA, 0x123456789)),
            ("header-link", header(2, 1, b"link", 0o120777, 0, 0, b"../target")),
        ]
    if target == "fs_roundtrip":
        def rec(kind, parent, size, mtime):
            return struct.pack("<BBHi", kind, parent, size, mtime)
        tree = (rec(1, 0, 0, 1000) + rec(0, 1, 3000, -302486400) + rec(2, 1, 12, 5) +
                rec(0, 0, 0, 0) + rec(1, 1, 0, -1) + rec(0, 2, 4999, 2**31 - 1))
        return [("layout-%d" % layout, bytes([layout, 40]) + tree) for layout in range(3)] + [
            ("cut-%d" % layout, bytes([4 | layout, 30]) + tree) for layout in range(3)]
    raise SystemExit("unknown target %s" % target)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--target":
        target, out_dir = sys.argv[2], sys.argv[3]
        os.makedirs(out_dir, exist_ok=True)
        for name, data in generated_seeds(target):
            path = os.path.join(out_dir, "seed-" + name)
            with open(path, "wb") as f:
                f.write(data)
            print(path, len(data))
        return
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: fuzz/make_seeds.py OUT_DIR [FIXTURES_DIR] | --target NAME OUT_DIR")
    out_dir = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "..", "tests", "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    # (image, layout, blocks, summaries, headers first): contiguous history
    # from several places (stale copies, shrinks, deletions as written), and
    # headers-first selections that build large trees.
    plans = [
        ("mkyaffs2-2k", "mkyaffs2", range(0, 2), False, False),
        ("mkyaffs2-2k", "mkyaffs2", range(3, 6), False, False),
        ("linux-2k-nockpt", "linux", range(20, 40), False, True),
        ("linux-2k-nockpt", "linux", range(20, 40), True, True),
        ("linux-2k-nockpt", "linux", range(0, 3), True, False),
        ("linux-2k-nockpt", "linux", range(26, 28), False, False),
        ("linux-2k-nockpt", "linux", range(47, 49), True, False),
        ("linux-2k-nockpt", "linux", range(150, 160), False, False),
        ("linux-2k-nockpt", "linux", range(200, 256), True, False),
        ("inband-2k", "inband", range(20, 40), False, True),
        ("inband-2k", "inband", range(20, 40), True, True),
        ("inband-2k", "inband", range(49, 51), False, False),
    ]
    extra = [("linux-2k-nockpt", "linux", 256), ("inband-2k", "inband", 256)]
    images = {}
    for n, (name, layout, blocks, summaries, headers_first) in enumerate(plans):
        if name not in images:
            with lzma.open(os.path.join(fixtures, "yaffs2", name + ".img.xz")) as f:
                images[name] = f.read()
        chunks = chunks_of(images[name], PAGE, OOB, layout, blocks)
        if headers_first:
            chunks.sort(key=lambda c: 0 if (c[1] == 0 or c[1] & 0x80000000) else 1)
        seed = build_seed(chunks, layout, summaries)
        path = os.path.join(out_dir, "seed-%d-%s-%s%s" % (n, name, layout,
                                                         "-summary" if summaries else ""))
        with open(path, "wb") as f:
            f.write(seed)
        print(path, len(seed))
        # Checkpoint mode (flags bit 4, bit 5 = CRC made to match): a few
        # changed stream bytes appended as triples, their count last.
        for mode, corr in ((0x10, b""), (0x30, bytes([0x44, 0x00, 0x01, 0x90, 0x00, 0x80]))):
            ck = bytes([seed[0] | mode]) + seed[1:] + corr + bytes([len(corr) // 3])
            ck_path = path + "-checkpoint-%x" % mode
            with open(ck_path, "wb") as f:
                f.write(ck)
            print(ck_path, len(ck))
    for m, (name, layout, nblocks) in enumerate(extra):
        if name not in images:
            with lzma.open(os.path.join(fixtures, "yaffs2", name + ".img.xz")) as f:
                images[name] = f.read()
        chunks = history_of(images[name], PAGE, OOB, layout, nblocks)
        for summaries in (False, True):
            seed = build_seed(chunks, layout, summaries)
            path = os.path.join(out_dir, "seed-history-%d-%s%s" % (m, name,
                                                                   "-summary" if summaries else ""))
            with open(path, "wb") as f:
                f.write(seed)
            print(path, len(seed))


if __name__ == "__main__":
    main()
