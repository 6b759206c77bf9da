#!/bin/bash
# nandkit bench --fs: the structure of its JSON (every workload present, the
# derived figures computed from the counted operations and the virtual
# clock, YAFFS2's figures named), an SVG chart with axes and units, and
# one-line refusals. Never judges the figures themselves or wall-clock time.
#
# usage: bash tests/cli/bench_fs.sh NANDKIT_BINARY FIXTURES_DIR
. "$(dirname "$0")/lib.sh"
nk_test_begin "$@"

"$NK" bench --fs-small --json --no-progress --svg "$TMP/fs.svg" > "$TMP/fs.json" 2> "$TMP/err" ||
    fail "bench --fs-small --json failed: $(cat "$TMP/err")"
python3 - "$TMP/fs.json" <<'PY' || fail "bench --fs JSON structure or derived figures wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tool"] == "nandkit bench" and r["format"] == 3, "not of the bench --json family"
assert r["benchmark"] == "fs" and r["chip"] == "K9F1G08U0A" and r["small"] is True
g = r["geometry"]
assert g["page_size"] == 2048 and g["pages_per_block"] == 64
chunk = g["chunk_bytes"]
def close(a, b, tol=1e-3):
    assert abs(a - b) <= tol * max(1.0, abs(b)), (a, b)
def kBps(nbytes, ns):
    return nbytes / 1000.0 / (ns / 1e9)
raw = r["raw"]
close(raw["write_kBps"], 2048 / 1000.0 / (raw["program_us"] / 1e6), 1e-2)
seq = r["sequential"]
assert [s["io_size"] for s in seq] == [512, 2048, 16384, 131072]
for s in seq:
    assert s["chunks"] == -(-s["bytes"] // chunk)
    assert s["write"]["programs"] >= s["chunks"], "fewer programs than data chunks"
    close(s["programs_per_chunk"], s["write"]["programs"] / s["chunks"])
    close(s["reads_per_chunk"], s["read"]["page_reads"] / s["chunks"])
    close(s["write_kBps"], kBps(s["bytes"], s["write"]["time_ns"]), 1e-2)
    close(s["read_kBps"], kBps(s["bytes"], s["read"]["time_ns"]), 1e-2)
    assert s["read"]["programs"] == 0, "reading programmed pages"
    assert s["read"]["page_reads"] >= s["chunks"], "read the file without reading its chunks"
sf = r["small_files"]
assert sf["files"] == 100 and sf["file_bytes"] == 1024
assert sf["ops"]["programs"] >= sf["files"], "fewer programs than files"
close(sf["programs_per_file"], sf["ops"]["programs"] / sf["files"])
close(sf["page_reads_per_file"], sf["ops"]["page_reads"] / sf["files"])
close(sf["us_per_file"], sf["ops"]["time_ns"] / 1000.0 / sf["files"], 1e-2)
close(sf["kBps"], kBps(sf["files"] * sf["file_bytes"], sf["ops"]["time_ns"]), 1e-2)
ow = r["overwrite"]
assert [o["fill_percent"] for o in ow] == [50, 75, 88]
for o in ow:
    assert o["user_chunks"] == o["overwrites"] * 4096 // chunk
    assert o["ops"]["programs"] >= o["user_chunks"]
    close(o["write_amplification"], o["ops"]["programs"] / o["user_chunks"])
    close(o["kBps"], kBps(o["overwrites"] * 4096, o["ops"]["time_ns"]), 1e-2)
assert ow[0]["file_bytes"] < ow[1]["file_bytes"] < ow[2]["file_bytes"]
m = r["mount"]
close(m["clean_ms"], m["clean"]["time_ns"] / 1e6)
close(m["crash_ms"], m["crash"]["time_ns"] / 1e6)
assert m["crash"]["page_reads"] + m["crash"]["oob_reads"] > 0
ram = r["ram"]
assert 0 < ram["state_now"] <= ram["state_peak"] and 0 < ram["big_now"] <= ram["big_peak"]
e = r["erase_counts"]
assert 0 < e["min"] <= e["mean"] <= e["max"] and e["after_fill_percent"] == 88
y = r["yaffs2"]
assert "not measured by this run" in y["source"] and y["measured_by_this_run"] is False
assert y["seq_write_kBps"] == 5501 and y["overwrite_wa"] == [1.43, 2.36, 4.43]
PY

grep -q "<svg" "$TMP/fs.svg" || fail "--svg wrote no SVG"
grep -q "kB/s" "$TMP/fs.svg" || fail "the SVG's axis has no unit"
[ "$(grep -o '<rect' "$TMP/fs.svg" | wc -l)" -ge 24 ] || fail "the SVG lacks its bars"
grep -q "YAFFS2 Direct" "$TMP/fs.svg" || fail "the SVG does not name YAFFS2 Direct"
grep -q "log scale" "$TMP/fs.svg" || fail "the SVG's axis is not the log one"
# On the log axis a 1 KiB-files bar is more than a quarter of the plot high
# (on the old linear axis to 25000 kB/s it was a few pixels).
python3 - "$TMP/fs.svg" <<'PY' || fail "the SVG squashes the small-file bar"
import re, sys
rects = [(float(h)) for h in re.findall(r'<rect x="[0-9.]+" y="[0-9.]+" width="20" height="([0-9.]+)" fill="#2a6fb0"', open(sys.argv[1]).read())]
assert len(rects) == 12, rects
assert rects[8] > 300 / 4, rects  # the 1 KiB files bar, of a 300-pixel plot
PY

"$NK" bench --fs-small --no-progress > "$TMP/table" || fail "bench --fs-small table failed"
grep -q "YAFFS2 Direct's reference figures .* not measured by this run (docs/bench.md)" "$TMP/table" ||
    fail "table does not say where the YAFFS2 figures come from"
grep -q "^erase counts after" "$TMP/table" || fail "table lacks the erase-count spread"

"$NK" bench --fs some.img --geometry 2048,64,64 > /dev/null 2> "$TMP/err"
[ $? = 2 ] || fail "bench --fs on an image should exit 2"
[ "$(wc -l < "$TMP/err")" = 1 ] || fail "bench --fs on an image: not one line"
"$NK" bench --fs --chip NOPE > /dev/null 2> "$TMP/err"
[ $? = 2 ] && grep -q NOPE "$TMP/err" || fail "bench --fs --chip NOPE not refused naming NOPE"

nk_test_end "bench_fs: all passed"
