"""The host's check of a chip the mount guest dumped (run-harness.sh --suite mount).

usage: python3 tests/qemu/check-dump.py NANDKIT IMAGE EXPECTED NAME

IMAGE is `nanddump --bb=dumpbad --oob` of the guest's nandsim K9F1G08
(2048+64 bytes a page, 64 pages a block, 1024 blocks, the kernel's software
Hamming and layout). EXPECTED is the tree the host built itself by running
tests/qemu/mount-ops.sh. The host's nandkit reads the image file, not the
device: `fsck` finds 0 problems; `ls -R --json` lists exactly EXPECTED's
names with their types, permission bits, sizes, link counts (files),
symlink targets and groups of names sharing an inode (a YAFFS2 hard link
object is listed as "hardlink", with its file's inode); `cat` of every file gives EXPECTED's bytes. One PASS or FAIL
line per check, as the guest's (NAME-fsck, NAME-ls, NAME-cat).
"""
import json
import os
import stat
import subprocess
import sys

GEOMETRY = ["--geometry", "2048,64,64"]
TYPES = {stat.S_IFREG: "file", stat.S_IFDIR: "dir", stat.S_IFLNK: "symlink"}


def report(ok, name, text):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, text))
    return ok


def nandkit(tool, *args):
    return subprocess.run([tool, *args, *GEOMETRY], capture_output=True)


def inode_groups(inodes):
    groups = {}
    for path, ino in inodes.items():
        groups.setdefault(ino, set()).add(path)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def expected_entries(root):
    entries, inodes = {}, {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            entry = {"type": TYPES[stat.S_IFMT(st.st_mode)]}
            if entry["type"] == "symlink":
                entry["link_target"] = os.readlink(path)
            else:
                entry["mode"] = oct(stat.S_IMODE(st.st_mode))
            if entry["type"] == "file":
                entry["size"] = st.st_size
                entry["nlink"] = st.st_nlink
                inodes["/" + os.path.relpath(path, root)] = st.st_ino
            entries["/" + os.path.relpath(path, root)] = entry
    return entries, inode_groups(inodes)


def listed_entries(listing):
    entries, inodes = {}, {}
    for obj in listing:
        if obj["path"] == "/lost+found":
            continue
        if obj["type"] == "hardlink":  # another name of a file: as on Linux
            obj = dict(obj, type="file")
        entry = {"type": obj["type"]}
        if obj["type"] == "symlink":
            entry["link_target"] = obj.get("link_target")
        else:
            entry["mode"] = oct(int(obj["mode"], 8) & 0o7777)
        if obj["type"] == "file":
            entry["size"] = obj["size"]
            entry["nlink"] = obj["nlink"]
            inodes[obj["path"]] = obj["ino"]
        entries[obj["path"]] = entry
    return entries, inode_groups(inodes)


def check_fsck(tool, image, name):
    run = nandkit(tool, "fsck", image)
    out = run.stdout.decode(errors="replace")
    summary = "; ".join(l for l in out.splitlines() if l.startswith(("objects:", "blocks:")))
    ok = run.returncode == 0 and ": 0 problems" in out
    return report(ok, name + "-fsck", summary if ok else "exit %d: %s" % (
        run.returncode, " | ".join(out.splitlines()[-4:] + run.stderr.decode().splitlines()[-2:])))


def check_ls(tool, image, want, want_groups, name):
    run = nandkit(tool, "ls", "-R", "--json", image, "/")
    if run.returncode != 0:
        return report(False, name + "-ls", "exit %d: %s" % (run.returncode, run.stderr.decode()))
    got, got_groups = listed_entries(json.loads(run.stdout))
    differ = sorted(p for p in set(got) | set(want) if got.get(p) != want.get(p))
    text = "; ".join("%s: %s on flash, %s expected" % (p, got.get(p), want.get(p))
                     for p in differ[:4])
    if got_groups != want_groups:
        text += "; hard links %s on flash, %s expected" % (got_groups, want_groups)
    return report(not text, name + "-ls", text or
                  "%d entries of nandkit ls -R --json as expected, hard links %s" %
                  (len(want), want_groups))


def check_cat(tool, image, root, want, name):
    files = sorted(p for p, e in want.items() if e["type"] == "file")
    bad, total = [], 0
    for path in files:
        with open(root + path, "rb") as f:
            data = f.read()
        run = nandkit(tool, "cat", image, path)
        total += len(data)
        if run.returncode != 0 or run.stdout != data:
            bad.append("%s (exit %d, %d bytes, %d expected)" %
                       (path, run.returncode, len(run.stdout), len(data)))
    return report(not bad, name + "-cat", "; ".join(bad[:4]) or
                  "%d files, %d bytes: nandkit cat gives the expected bytes" % (len(files), total))


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    tool, image, root, name = sys.argv[1:]
    want, want_groups = expected_entries(root)
    results = [check_fsck(tool, image, name), check_ls(tool, image, want, want_groups, name),
               check_cat(tool, image, root, want, name)]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
