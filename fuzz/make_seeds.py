#!/usr/bin/env python3
"""Seeds for fuzz/fs_mount_fuzz.c, made from the YAFFS2 fixtures.

usage: fuzz/make_seeds.py OUT_DIR [FIXTURES_DIR]

FIXTURES_DIR defaults to the repository's tests/fixtures.

Each seed is one flags byte (the layout) and records of (page index, data
length / 16, 28 tag bytes, data) for a 2048+64-byte, 8-pages-per-block,
8-block device (see the target's comment). From each fixture image it takes
the chunks of a few blocks, re-numbers their sequence numbers so that each
8-page block is consistent (re-computing the tags ECC), keeps header chunks'
first 512 bytes and data chunks' first bytes, and for the linux layout also
writes a valid YAFFS2 block summary into some blocks, so the fuzzer starts
from images that mount into real trees.
"""
import lzma
import os
import struct
import sys

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


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: fuzz/make_seeds.py OUT_DIR [FIXTURES_DIR]")
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
