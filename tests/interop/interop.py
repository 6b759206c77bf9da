#!/usr/bin/env python3
"""YAFFS2 as the judge: YAFFS2 Direct (nk_yaffs2, built from the YAFFS2 sources
handed to CMake) and nandkit read, and take turns writing, the same image.

Every object is compared against a model of what was written and between the
two readers: name, type, permission bits, size, every byte, symlink target,
link count, hard-link identity and extended attributes (set by mkimage from the
host tree and by YAFFS2's yaffs_lsetxattr, kept by both sides' rewrites). Scenarios, each on one layout and page size,
on a device of 40-48 blocks so that both sides collect garbage:

  A  nandkit writes (mkimage, CLI sequences, factory-bad blocks), YAFFS2 reads
  B  ping-pong: YAFFS2 writes, nandkit reads and writes, 6 rounds
  C  YAFFS2 loses power inside an operation, nandkit recovers, YAFFS2 reads
  D  nandkit removes hard links and symlinks, YAFFS2 collects garbage hard

A failed check prints `FAIL scenario: reader path what: got / want`; the run
ends with the counts and exits 1 when any check failed.

YAFFS2 behaviours that differ from POSIX, and how the scenarios meet them
(named here so that nothing is skipped silently):
  yaffs-chmod-high-bits   yaffs_chmod rejects bits above 0777 (direct/yaffsfs.c,
                          yaffs_chmod_reldir): the model's modes stay within 0777.
  yaffs-open-permission   YAFFS2 Direct checks the permission bits on open: the
                          model's files keep owner read, its directories owner rwx.
  yaffs-symlink-mode      yaffs_symlink stores mode 0 (direct/yaffsfs.c, yaffs_symlink_reldir:
                          "int mode = 0; ignore for now"), where Linux shows 0777: a
                          symlink's permission bits are not compared.
  yaffs-unlink-linked-cut When the name of a file that has hard links goes (unlink, or a
                          rename over it), YAFFS2 writes the file onto a link's name and then
                          the link's deletion: two headers (core/yaffs_guts.c:3866 and :3869,
                          yaffs_unlink_worker). A power cut between them leaves the file and
                          the link under one name, which YAFFS2 itself then lists twice: the
                          test requires nandkit to list it twice too (its fsck names it
                          duplicate-name) and both to agree from there on.
  yaffs-resumes-partial-block  YAFFS2's scan goes on allocating in the block with the
                          highest sequence number, after its last written page
                          (core/yaffs_yaffs2.c:1171-1181), also when nandkit's power cut
                          left that page torn: the torn page is then no longer the last
                          of its block and nandkit's fsck counts it as tags-ecc damage.
                          After YAFFS2 writes on a cut image, tags-ecc is not a failure
                          of the fsck check; every object is still compared.
  yaffs-torn-header       A power cut that lands a header's tags but not its data ECC (or
                          not all its data) leaves YAFFS2 taking the torn header as the
                          object's newest (its scan reads tags only, core/yaffs_yaffs2.c
                          yaffs2_scan_chunk) and failing to read its name: it lists the object
                          as objN (core/yaffs_guts.c, yaffs_get_obj_name's fallback) and its
                          lstat fails, and the object's older name is gone; when the cut landed
                          the tags and none of the data (the page reads as erased bytes, which
                          its ECC accepts), the name is 255 bytes of 0xFF and what lies below
                          that directory cannot be reached (ENAMETOOLONG). That view, before
                          nandkit touches the image, is named and not failed. nandkit's
                          recovering mount writes what it chose (the older header again, a
                          deletion, the live copy of a torn data chunk, a shrink header) newer
                          than the torn page, and from then on YAFFS2 must agree with it.
  yaffs-grow-truncate     YAFFS2 Direct loses a truncate that grows a file across
                          a remount (core/yaffs_guts.c yaffs_resize_file writes no
                          header for a grow): the model truncates only to shrink.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

LAYOUTS = ("linux", "mkyaffs2", "inband")


class Suite:
    def __init__(self, args):
        self.y = args.yaffs2
        self.nk = args.nandkit
        self.layout = args.layout
        self.page = args.page
        self.oob = 64 if args.page == 2048 else 128
        self.ppb = 64
        self.blocks = 48 if args.page == 2048 else 40
        self.chunk = self.page - 16 if self.layout == "inband" else self.page
        self.tmp = tempfile.mkdtemp(prefix="interop-")
        self.checks = self.failed = self.objects = self.bytes = self.xattrs = 0
        self.failures = []
        self.rng = random.Random(args.seed)
        self.hostfiles = 0
        self.cut_oob_modes = args.cut_oob.split(",")

    # ---- plumbing -------------------------------------------------------
    def geo(self, with_blocks=True):
        g = "%d,%d,%d" % (self.page, self.oob, self.ppb)
        return g + (",%d" % self.blocks if with_blocks else "")

    def nandkit(self, *args, check=True):
        cmd = [self.nk] + list(args[:1]) + list(args[1:]) + [
            "--geometry", self.geo(), "--layout", self.layout]
        r = subprocess.run(cmd, capture_output=True)
        if check and r.returncode != 0:
            self.fail("nandkit", "exit", " ".join(args), r.returncode, 0,
                      r.stderr.decode(errors="replace").strip()[:300])
        return r

    def yaffs(self, cmd, image, arg, *extra):
        full = [self.y, cmd, image, arg, "--geometry", self.geo(), "--layout",
                self.layout] + list(extra)
        return subprocess.run(full, capture_output=True)

    def new_image(self, name, *sim_args):
        img = os.path.join(self.tmp, name + ".img")
        for f in (img, img + ".nksim"):
            if os.path.exists(f):
                os.remove(f)
        subprocess.run([self.nk, "sim", "create", img, "--geometry", self.geo()] +
                       list(sim_args), check=True, capture_output=True)
        return img

    def hostfile(self, data, mode=0o644):
        self.hostfiles += 1
        p = os.path.join(self.tmp, "h%d" % self.hostfiles)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)
        return p

    def data(self, size):
        return bytes(self.rng.getrandbits(8) for _ in range(size)) if size < 4096 else \
            self.rng.randbytes(size)

    def sizes(self):
        c = self.chunk
        return [0, 1, c - 1, c, c + 1, 2 * c - 1, 2 * c, 2 * c + 1, 3 * c + 7, 5 * c]

    # ---- checks -----------------------------------------------------------
    def fail(self, scen, reader, path, got, want, note=""):
        if any(not (" " <= c <= "~") for c in path) or len(path) > 120:
            # a name of unwritten bytes, say: shown short and printable
            path = "".join(c if " " <= c <= "~" else "?" for c in path)
            path = path if len(path) <= 120 else path[:60] + "...(%d)" % len(path)
        self.failed += 1
        line = "FAIL %s: %s %s: got %r, want %r%s" % (
            scen, reader, path, got, want, (" (" + note + ")") if note else "")
        self.failures.append(line)
        print(line, flush=True)

    def check(self, scen, reader, what, got, want):
        self.checks += 1
        if got != want:
            self.fail(scen, reader, what, got, want)
            return False
        return True

    def read_yaffs(self, scen, img, dups=None, torn=None):
        out = os.path.join(self.tmp, "ywalk")
        shutil.rmtree(out, ignore_errors=True)
        r = self.yaffs("walk", img, out)
        self.checks += 1
        if r.returncode not in (0, 1):
            self.fail(scen, "yaffs2", "walk", "exit %d" % r.returncode, "exit 0",
                      r.stderr.decode(errors="replace").strip()[-300:])
            return None
        objs = {}
        for line in r.stdout.decode().splitlines():
            o = json.loads(line)
            erased_name = "\xff" * 8 in o["path"]
            if "error" in o:
                if torn is not None and o["error"] == "lstat" and \
                        (re.fullmatch(r"obj[0-9]+", o["path"].rsplit("/", 1)[-1]) or erased_name):
                    torn.append(o["path"])  # yaffs-torn-header: named, checked after recovery
                    continue
                self.fail(scen, "yaffs2", o["path"], o["error"], "ok", "errno %d" % o["errno"])
                continue
            if o["path"] in objs:
                if dups is not None:
                    dups.add(o["path"])  # yaffs-unlink-linked-cut: named, checked below
                else:
                    self.fail(scen, "yaffs2", o["path"], "listed twice", "once")
            name = o["path"].rsplit("/", 1)[-1]
            if torn is not None and name == "\xff" * 255:
                torn.append(o["path"])  # yaffs-torn-header, its data erased: checked after recovery
                continue
            if len(name.encode("latin-1", "replace")) > 255 or "\xff" * 8 in name:
                self.fail(scen, "yaffs2", o["path"], "a name of %d bytes, %d of them 0xFF"
                          % (len(name), name.count("\xff")), "a name written")
                continue
            if o["type"] == "file" and "read_errno" not in o:
                with open(os.path.join(out, "data") + o["path"], "rb") as f:
                    o["data"] = f.read()
            o["xattrs"] = {k: bytes.fromhex(v) if v is not None else None
                           for k, v in o.get("xattrs", {}).items()}
            objs[o["path"]] = o
        return objs

    def read_nandkit(self, scen, img, dups=None):
        r = self.nandkit("ls", "-R", "--json", img, check=False)
        self.checks += 1
        if r.returncode != 0:
            self.fail(scen, "nandkit", "ls", "exit %d" % r.returncode, "exit 0",
                      r.stderr.decode(errors="replace").strip()[-300:])
            if not r.stdout:
                return None
        out = os.path.join(self.tmp, "nwalk")
        shutil.rmtree(out, ignore_errors=True)
        self.nandkit("extract", img, out, check=False)
        objs = {}
        for o in json.loads(r.stdout.decode(errors="surrogateescape")):
            p = "/" + o["path"].lstrip("/")
            t = o["type"]
            o = {"path": p, "type": "file" if t == "hardlink" else t,
                 "mode": o["mode"][-4:].lstrip("0") or "0", "size": o.get("size", 0),
                 "nlink": o.get("nlink"), "ino": o.get("ino"),
                 "target": o.get("link_target"),
                 "xattrs": {k: bytes.fromhex(v) for k, v in o.get("xattrs", {}).items()}}
            o["mode"] = "%o" % (int(o["mode"], 8) & 0o7777)
            if p in objs:
                if dups is not None and p in dups:
                    self.check(scen, "nandkit", p + " listed twice, as YAFFS2 lists it", True, True)
                    dups.discard(p)
                else:
                    self.fail(scen, "nandkit", p, "listed twice", "once")
            if o["type"] == "file":
                try:
                    with open(out + p, "rb") as f:
                        o["data"] = f.read()
                except OSError as e:
                    o["read_errno"] = e.errno
            objs[p] = o
        objs.pop("/", None)
        return objs

    def compare(self, scen, reader, objs, model):
        """model: path -> dict(type, mode, data | target, group)."""
        if objs is None:
            return
        objs = dict(objs)
        objs.pop("/", None)
        lf = objs.pop("/lost+found", None)
        extra = [p for p in objs if p.startswith("/lost+found/")]
        self.check(scen, reader, "/lost+found entries", extra, [])
        self.check(scen, reader, "/lost+found present", lf is not None, True)
        for p in extra:
            objs.pop(p)
        names = set(model) | set(objs)
        inos = {}
        for p in sorted(names):
            m, o = model.get(p), objs.get(p)
            if not self.check(scen, reader, p + " exists", o is not None, m is not None) or not m:
                continue
            self.objects += 1
            if not self.check(scen, reader, p + " type", o["type"], m["type"]):
                continue
            if m["type"] != "symlink":  # see yaffs-symlink-mode
                self.check(scen, reader, p + " mode", int(o["mode"], 8) & 0o777, m["mode"])
            if m["type"] != "symlink":
                self.check(scen, reader, p + " xattrs", o.get("xattrs", {}), m.get("xattrs", {}))
                self.xattrs += len(m.get("xattrs", {}))
            if m["type"] == "symlink":
                self.check(scen, reader, p + " target", o.get("target"), m["target"])
            elif m["type"] == "file":
                want = m["data"]
                self.check(scen, reader, p + " size", o["size"], len(want))
                got = o.get("data")
                if self.check(scen, reader, p + " bytes", got is not None and got == want, True):
                    self.bytes += len(want)
                elif got is not None:
                    first = next((i for i in range(min(len(got), len(want)))
                                  if got[i] != want[i]), min(len(got), len(want)))
                    print("      %s: %d bytes read, first difference at %d" %
                          (p, len(got), first))
                links = m.get("nlink") or sum(1 for q in model.values()
                                               if q.get("group") == m["group"])
                self.check(scen, reader, p + " nlink", o["nlink"], links)
                inos.setdefault(m["group"], set()).add(o["ino"])
        # one inode per group of hard links, different groups different inodes
        seen = {}
        for g, s in inos.items():
            self.check(scen, reader, "hard-link group %s one inode" % g, len(s), 1)
            for i in s:
                self.check(scen, reader, "inode %s names one group" % i, seen.setdefault(i, g), g)

    def fsck(self, scen, img, torn_ok=False):
        """nandkit's fsck: no hard link to a missing object, ever; and, but after
        a power cut (torn pages are reported), no problem at all."""
        r = self.nandkit("fsck", img, check=False)
        out = (r.stdout + r.stderr).decode(errors="replace")
        dangling = [l for l in out.splitlines() if "hard link" in l and "missing" in l or
                    "dangling-hardlink" in l]
        self.check(scen, "nandkit", "fsck: hard links to missing objects", dangling, [])
        if not scen.startswith("C-"):
            problems = [l for l in out.splitlines() if "problem:" in l]
            code = r.returncode
            if code == 3:  # only the traces of a write cut by power loss: nothing lost
                code = 0
            if torn_ok:  # yaffs-resumes-partial-block
                torn = [l for l in problems if "tags-ecc" in l]
                problems = [l for l in problems if "tags-ecc" not in l]
                if torn and code in (1, 3):
                    print("      %s: fsck: %d tags-ecc page(s) (yaffs-resumes-partial-block)"
                          % (scen, len(torn)))
                    code = 0
            self.check(scen, "nandkit", "fsck exit", (code, problems), (0, []))

    def both(self, scen, img, model, torn_ok=False):
        self.fsck(scen, img, torn_ok)
        y = self.read_yaffs(scen, img)
        n = self.read_nandkit(scen, img)
        self.compare(scen, "yaffs2", y, model)
        self.compare(scen, "nandkit", n, model)
        if y is not None and n is not None:
            for p in sorted(set(y) & set(n)):
                if y[p]["type"] == "file" and n[p]["type"] == "file":
                    self.check(scen, "yaffs2-vs-nandkit", p + " bytes",
                               y[p].get("data") == n[p].get("data"), True)
                self.check(scen, "yaffs2-vs-nandkit", p + " xattrs", y[p].get("xattrs", {}),
                           n[p].get("xattrs", {}))
        return y, n

    # ---- model ------------------------------------------------------------
    def new_group(self):
        self.hostfiles += 1
        return "g%d" % self.hostfiles

    def model_tree(self, model, root):
        """Writes the model to a host tree (for mkimage)."""
        made = {}
        for p in sorted(model, key=lambda q: (q.count("/"), q)):
            m, h = model[p], root + p
            if m["type"] == "dir":
                os.makedirs(h, exist_ok=True)
        for p in sorted(model):
            m, h = model[p], root + p
            if m["type"] == "file":
                if m["group"] in made:
                    os.link(made[m["group"]], h)
                else:
                    with open(h, "wb") as f:
                        f.write(m["data"])
                    made[m["group"]] = h
            elif m["type"] == "symlink":
                os.symlink(m["target"], h)
        for p in sorted(model, reverse=True):
            m = model[p]
            if m["type"] != "symlink":
                for k, v in m.get("xattrs", {}).items():
                    if k not in os.listxattr(root + p):
                        os.setxattr(root + p, k, v)
                os.chmod(root + p, m["mode"])

    def random_model(self, files=24):
        model = {"/d1": {"type": "dir", "mode": 0o755}, "/d1/d2": {"type": "dir", "mode": 0o700},
                 "/d3": {"type": "dir", "mode": 0o775}}
        dirs = ["", "/d1", "/d1/d2", "/d3"]
        for i in range(files):
            size = self.rng.choice(self.sizes())
            p = "%s/f%02d" % (self.rng.choice(dirs), i)
            model[p] = {"type": "file", "mode": self.rng.choice([0o644, 0o600, 0o755, 0o400]),
                        "data": self.data(size), "group": self.new_group()}
        for p in sorted(model):
            if self.rng.random() < 0.4:
                model[p]["xattrs"] = self.random_xattrs()
        fl = sorted(p for p in model if model[p]["type"] == "file")
        for i in range(4):
            src = model[self.rng.choice(fl)]
            model["%s/hl%d" % (self.rng.choice(dirs), i)] = dict(src)
        for i in range(3):
            model["%s/sl%d" % (self.rng.choice(dirs), i)] = {
                "type": "symlink", "mode": 0o777, "target": self.rng.choice(fl)[1:]}
        return model

    def random_xattrs(self):
        """A few user.* attributes (user.* is what a host tree without privilege can hold),
        values of 0..120 bytes, one binary."""
        out = {}
        for i in range(self.rng.randrange(1, 4)):
            n = self.rng.choice([0, 1, 7, 40, 120])
            out["user.k%d" % self.rng.randrange(100)] = bytes(
                self.rng.randrange(256) for _ in range(n))
        return out

    @staticmethod
    def link_mode(model, group, mode):
        for q in model.values():
            if q.get("group") == group:
                q["mode"] = mode

    # ---- scenario A: nandkit writes ---------------------------------------
    def scen_a_mkimage(self):
        scen = "A-mkimage"
        model = self.random_model()
        root = os.path.join(self.tmp, "treeA")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        self.model_tree(model, root)
        img = self.new_image("a")
        self.nandkit("mkimage", root, img)
        self.both(scen, img, model)
        return img, model

    def cli_ops(self, scen, img, model, count, compare_every=8):
        dirs = [""] + sorted(p for p in model if model[p]["type"] == "dir")
        for step in range(count):
            files = sorted(p for p in model if model[p]["type"] == "file")
            links = sorted(p for p in model if model[p]["type"] == "symlink")
            op = self.rng.choice(["put", "put", "put_over", "rm", "rm_linked", "mkdir", "mv",
                                  "mv_over", "chmod", "rm_symlink"])
            if op in ("put", "put_over") or not files:
                if op == "put_over" and files:
                    p = self.rng.choice(files)
                else:
                    p = "%s/n%d" % (self.rng.choice(dirs), self.hostfiles)
                    if p in model:
                        continue
                data = self.data(self.rng.choice(self.sizes()))
                mode = self.rng.choice([0o644, 0o600, 0o755, 0o440])
                # put replaces the name with a new file (its other links keep the old one)
                # with the host file's permission bits
                self.nandkit("put", img, self.hostfile(data, mode), p)
                model[p] = {"type": "file", "mode": mode, "data": data,
                            "group": self.new_group()}
            elif op in ("rm", "rm_linked"):
                groups = {}
                for q in files:
                    groups.setdefault(model[q]["group"], []).append(q)
                linked = [q for q in files if len(groups[model[q]["group"]]) > 1]
                p = self.rng.choice(linked if op == "rm_linked" and linked else files)
                self.nandkit("rm", img, p)
                del model[p]
            elif op == "rm_symlink":
                if not links:
                    continue
                p = self.rng.choice(links)
                self.nandkit("rm", img, p)
                del model[p]
            elif op == "mkdir":
                p = "%s/m%d" % (self.rng.choice(dirs), self.hostfiles)
                self.hostfiles += 1
                if p in model:
                    continue
                self.nandkit("mkdir", img, p)
                model[p] = {"type": "dir", "mode": 0o755}
                dirs.append(p)
            elif op in ("mv", "mv_over"):
                src = self.rng.choice(files + links)
                if op == "mv_over":
                    dst = self.rng.choice(files)
                    if dst == src:
                        continue
                    if model[dst].get("group") == model[src].get("group"):
                        continue  # POSIX: renaming a name onto another name of the same file is a no-op
                else:
                    dst = "%s/r%d" % (self.rng.choice(dirs), self.hostfiles)
                    if dst in model:
                        continue
                self.nandkit("mv", img, src, dst)
                model[dst] = model.pop(src)
            elif op == "chmod":
                p = self.rng.choice(files)
                mode = self.rng.choice([0o644, 0o600, 0o640, 0o700, 0o444])
                self.nandkit("chmod", img, "%o" % mode, p)
                self.link_mode(model, model[p]["group"], mode)
            if (step + 1) % compare_every == 0:
                self.both("%s step %d" % (scen, step + 1), img, model)
        self.both(scen, img, model)

    def scen_a_cli(self, img, model):
        self.cli_ops("A-cli", img, model, 40)

    def scen_a_cli_cuts(self, img, model):
        """nandkit put loses power at flash operation N, a recovering write
        follows; put is atomic: the name holds the old file or the whole new one
        (absent when it was absent), every other object is untouched, and both
        readers agree."""
        files = sorted(p for p in model if model[p]["type"] == "file")
        for i, k in enumerate((1, 2, 3, 5, 8, 13)):
            p = self.rng.choice(files) if i % 2 == 0 else "/cut%d" % i
            old = model.get(p)
            data = self.data(self.rng.choice(self.sizes()[3:]) * 3)
            # --power-cut-after counts the mount's reads too: find the first
            # operation after the mounts (on a copy), then cut k operations later
            probe = os.path.join(self.tmp, "probe.img")
            lo, hi = 1, 4096
            while lo < hi:
                mid = (lo + hi) // 2
                for ext in ("", ".nksim"):
                    if os.path.exists(img + ext):
                        shutil.copyfile(img + ext, probe + ext)
                r = self.nandkit("put", probe, self.hostfile(data), p, "--power-cut-after",
                                 str(mid), "--seed", "1", check=False)
                if b"mount failed" in r.stderr:
                    lo = mid + 1
                else:
                    hi = mid
            n = lo + k
            scen = "A-cli-cut%d-after-%d" % (i + 1, n)
            r = self.nandkit("put", img, self.hostfile(data), p, "--power-cut-after", str(n),
                             "--seed", str(i + 1), check=False)
            self.nandkit("put", img, self.hostfile(b"r" * (i + 1)), "/repair-cli")
            model["/repair-cli"] = {"type": "file", "mode": 0o644, "data": b"r" * (i + 1),
                                    "group": "grep"}
            n_objs = self.read_nandkit(scen, img)
            if n_objs is None:
                return
            got = n_objs.get(p)
            new = {"type": "file", "mode": 0o644, "data": data, "group": self.new_group()}
            if got is not None and got.get("data") == data:
                model[p] = new
            elif old is not None:
                self.check(scen, "nandkit", p + " old file or new after the cut",
                           got is not None and got.get("data") == old["data"], True)
            else:
                self.check(scen, "nandkit", p + " absent or new after the cut", got, None)
            stray = [q for q in n_objs if ".nkput" in q]
            for q in stray:  # put's temporary name may be left behind (put --help)
                o = n_objs[q]
                model[q] = {"type": "file", "mode": int(o["mode"], 8), "data": o.get("data", b""),
                            "group": self.new_group()}
            self.check(scen, "nandkit", "put exit", r.returncode in (0, 1), True)
            if os.environ.get("INTEROP_DEBUG"):
                print(scen, p, "cut" if r.returncode else "no cut", r.stderr.decode()[:150])
            self.both(scen, img, model)
        # YAFFS2 writes after nandkit's cuts (yaffs-resumes-partial-block: it goes
        # on writing in a block nandkit's cut left torn, so nandkit's fsck then
        # counts the torn page among damaged ones; both readers must still agree)
        lines = self.yaffs_ops("A-cli-cuts", img, model, 12)
        r = self.run_yaffs("A-cli-cuts yaffs2-writes", img, lines, "--checkpoint", "off")
        self.check("A-cli-cuts", "yaffs2", "apply exit", r.returncode, 0)
        self.both("A-cli-cuts after yaffs2", img, model, torn_ok=True)

    def scen_a_bad(self):
        scen = "A-factory-bad"
        model = self.random_model(12)
        root = os.path.join(self.tmp, "treeAb")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        self.model_tree(model, root)
        img = self.new_image("ab", "--bad-blocks-random", "3", "--seed", "5")
        self.nandkit("mkimage", root, img)
        self.both(scen, img, model)
        r = self.nandkit("fsck", img, check=False)
        self.check(scen, "nandkit", "fsck exit", r.returncode, 0)
        # both writers keep off the same blocks
        for rnd in range(2):
            lines = self.yaffs_ops(scen, img, model, 12)
            r = self.run_yaffs(scen + " yaffs2-writes", img, lines, "--checkpoint", "off")
            self.check(scen, "yaffs2", "apply exit", r.returncode, 0)
            self.both("%s round %d after yaffs2" % (scen, rnd + 1), img, model)
            self.cli_ops("%s round %d nandkit-writes" % (scen, rnd + 1), img, model, 6,
                         compare_every=100)
        r = self.nandkit("fsck", img, check=False)
        self.check(scen, "nandkit", "fsck exit at the end", r.returncode, 0)

    # ---- YAFFS2 writes ----------------------------------------------------
    def yaffs_ops(self, scen, img, model, count, checkpoint="on", extra_ops=()):
        lines = list(extra_ops)
        dirs = [""] + sorted(p for p in model if model[p]["type"] == "dir")
        for step in range(count):
            files = sorted(p for p in model if model[p]["type"] == "file")
            links = sorted(p for p in model if model[p]["type"] == "symlink")
            op = self.rng.choice(["put", "put", "put_over", "rm", "ln", "symlink", "mv",
                                  "mv_over", "trunc", "mkdir", "chmod", "setxattr", "rmxattr"])
            tag = "y%d_%d" % (self.hostfiles, step)
            writable = [q for q in files if model[q]["mode"] & 0o200]  # yaffs-open-permission
            if op in ("put", "put_over") or not files:
                p = self.rng.choice(writable) if op == "put_over" and writable else \
                    "%s/%s" % (self.rng.choice(dirs), tag)
                data = self.data(self.rng.choice(self.sizes()))
                old = model.get(p)
                mode = old["mode"] if old else 0o644
                lines.append("put %s %s %o" % (self.hostfile(data), p, mode))
                if old:
                    old["data"] = data  # YAFFS2 writes into the same file: every link sees it
                    for q in model.values():
                        if q.get("group") == old["group"]:
                            q["data"] = data
                else:
                    model[p] = {"type": "file", "mode": mode, "data": data,
                                "group": self.new_group()}
            elif op == "rm":
                p = self.rng.choice(files + links)
                lines.append("rm %s" % p)
                del model[p]
            elif op == "ln":
                src = self.rng.choice(files)
                p = "%s/%s" % (self.rng.choice(dirs), tag)
                lines.append("ln %s %s" % (src, p))
                model[p] = model[src]
            elif op == "symlink":
                p = "%s/%s" % (self.rng.choice(dirs), tag)
                t = self.rng.choice(files)[1:]
                lines.append("symlink %s %s" % (t, p))
                model[p] = {"type": "symlink", "mode": 0o777, "target": t}
            elif op in ("mv", "mv_over"):
                src = self.rng.choice(files + links)
                if op == "mv_over":
                    dst = self.rng.choice(files)
                    if dst == src or model[dst].get("group") == model[src].get("group"):
                        continue
                else:
                    dst = "%s/%s" % (self.rng.choice(dirs), tag)
                lines.append("mv %s %s" % (src, dst))
                model[dst] = model.pop(src)
            elif op == "trunc":
                p = self.rng.choice(files)
                m = model[p]
                size = self.rng.randrange(0, len(m["data"]) + 1)
                lines.append("trunc %s %d" % (p, size))
                cut = m["data"][:size]
                for q in model.values():
                    if q.get("group") == m["group"]:
                        q["data"] = cut
            elif op == "mkdir":
                p = "%s/%s" % (self.rng.choice(dirs), tag)
                lines.append("mkdir %s 755" % p)
                model[p] = {"type": "dir", "mode": 0o755}
                dirs.append(p)
            elif op == "chmod":
                p = self.rng.choice(files)
                mode = self.rng.choice([0o644, 0o600, 0o640, 0o700, 0o444])
                lines.append("chmod %s %o" % (p, mode))
                self.link_mode(model, model[p]["group"], mode)
            elif op == "setxattr":
                p = self.rng.choice(files + [d for d in dirs if d])
                name = "user.y%d" % self.rng.randrange(6)
                value = bytes(self.rng.randrange(256) for _ in range(self.rng.choice([0, 3, 60])))
                lines.append("setxattr %s %s %s" % (p, name, value.hex() or "-"))
                self.set_xattr(model, p, name, value)
            elif op == "rmxattr":
                have = [q for q in files + dirs if q and model[q].get("xattrs")]
                if not have:
                    continue
                p = self.rng.choice(have)
                name = self.rng.choice(sorted(model[p]["xattrs"]))
                lines.append("rmxattr %s %s" % (p, name))
                self.set_xattr(model, p, name, None)
        # Shared dicts from "ln" are one object: make them independent copies
        # that keep their group (the model compares by group).
        for p in list(model):
            model[p] = dict(model[p])
        return lines

    @staticmethod
    def set_xattr(model, p, name, value):
        """Sets (value None: removes) an attribute of p's object: every name of a file."""
        m = model[p]
        targets = [q for q in model.values() if m.get("group") and q.get("group") == m["group"]]
        for q in targets or [m]:
            x = dict(q.get("xattrs", {}))
            if value is None:
                x.pop(name, None)
            else:
                x[name] = value
            q["xattrs"] = x

    def run_yaffs(self, scen, img, lines, *extra):
        script = self.hostfile("\n".join(lines).encode() + b"\n")
        r = self.yaffs("apply", img, script, *extra)
        out = r.stdout.decode(errors="replace")
        if os.environ.get("INTEROP_DEBUG"):
            print("\n".join(lines))
            print(out, r.stderr.decode(errors="replace"))
        for line in out.splitlines():
            if line.startswith("op "):
                self.fail(scen, "yaffs2", "apply", line, "ok")
        return r

    def scen_b(self, img, model):
        for rnd in range(6):
            scen = "B-round%d" % (rnd + 1)
            ck = "on" if rnd % 2 == 0 else "off"
            lines = self.yaffs_ops(scen, img, model, 14, ck)
            r = self.run_yaffs(scen + " yaffs2-writes", img, lines, "--checkpoint", ck)
            self.check(scen, "yaffs2", "apply exit", r.returncode, 0)
            self.both(scen + " after yaffs2", img, model)
            self.cli_ops(scen + " nandkit-writes", img, model, 8, compare_every=100)

    # ---- scenario C: YAFFS2 power cuts, nandkit recovers ------------------
    def scen_c(self, img, model):
        cuts = [("all", self.page), ("tags", 0), ("tags", self.page // 2 + 3), ("none", 0),
                ("all", 7 * self.page // 8 + 3)]
        cuts = [c for c in cuts if c[0] in self.cut_oob_modes]
        for i, (oob, data) in enumerate(cuts):
            scen = "C-cut%d-%s-%d" % (i + 1, oob, data)
            before = {p: dict(m) for p, m in model.items()}
            lines = self.yaffs_ops(scen, img, model, 10)
            n_ops = self.rng.randrange(20, 120)
            r = self.run_yaffs(scen, img, lines, "--cut", str(n_ops), "--cut-oob", oob,
                               "--cut-data", str(data))
            cut = r.returncode == 3
            # After a cut the state is between `before` and `model`: take nandkit's
            # recovered reading as the state, and check that YAFFS2 agrees with it
            # and that every object both states share unchanged is intact.
            # YAFFS2's own view of what its cut left, before nandkit touches it.
            # yaffs-unlink-linked-cut: a name YAFFS2 itself lists twice here must
            # be listed twice by nandkit too, and both keep agreeing.
            dups = set()
            torn = []
            self.read_yaffs(scen + " before recovery", img, dups, torn)
            if torn:
                shown = [t.replace("\xff" * 255, "<255 bytes 0xFF>") for t in torn]
                print("      %s: YAFFS2 lists %s and cannot stat it after its own cut "
                      "(yaffs-torn-header)" % (scen, ", ".join(shown)))
            twice = set(dups)
            if twice:
                print("      %s: YAFFS2 lists %s twice after its own cut (yaffs-unlink-linked-cut)"
                      % (scen, ", ".join(sorted(twice))))
            rep = self.data(self.chunk + 5)
            self.nandkit("put", img, self.hostfile(rep), "/repair")
            n = self.read_nandkit(scen, img, dups)
            self.check(scen, "nandkit", "names YAFFS2 lists twice, listed twice", sorted(dups), [])
            if n is None:
                return
            state = {}
            for p, o in n.items():
                if p == "/lost+found" or p.startswith("/lost+found/"):
                    continue
                if any(not ("!" <= c <= "~") for c in p):
                    self.fail(scen, "nandkit", p, "listed", "no name that no writer wrote")
                    continue
                want = before.get(p) if cut else model.get(p)
                if want is None:
                    want = model.get(p) or before.get(p)
                if o["type"] == "file":
                    m = {"type": "file", "mode": int(o["mode"], 8), "data": o.get("data", b""),
                         "group": "ino%s" % o["ino"]}
                elif o["type"] == "symlink":
                    m = {"type": "symlink", "mode": 0o777, "target": o["target"]}
                else:
                    m = {"type": o["type"], "mode": int(o["mode"], 8)}
                if o["type"] != "symlink":
                    m["xattrs"] = o.get("xattrs", {})
                if p in twice:
                    m["nlink"] = o["nlink"]
                state[p] = m
                if not cut:
                    continue
                old, new = before.get(p), model.get(p)
                if p != "/repair" and old and new and old.get("data") == new.get("data") and \
                        old["type"] == new["type"] == "file":
                    self.check(scen, "nandkit", p + " untouched bytes kept",
                               m["data"] == old["data"], True)
                if p != "/repair" and old and new and old["type"] == new["type"] != "symlink" and \
                        old.get("xattrs", {}) == new.get("xattrs", {}):
                    self.check(scen, "nandkit", p + " untouched xattrs kept",
                               m.get("xattrs", {}), old.get("xattrs", {}))
            for p, old in before.items():
                new = model.get(p)
                if cut and p != "/repair" and new is not None and old["type"] == "file" and new["type"] == "file" \
                        and old["data"] == new["data"] and old["group"] == new["group"]:
                    self.check(scen, "nandkit", p + " untouched object kept", p in state, True)
            self.check(scen, "nandkit", "/repair written", state.get("/repair", {}).get("data"), rep)
            y = self.read_yaffs(scen, img, set(twice))
            self.compare(scen + " after recovery", "yaffs2", y, state)
            model.clear()
            model.update(state)
            for m in model.values():
                if m["type"] == "file" and "ino" not in m["group"]:
                    pass

    # ---- scenario D: nandkit removes links, YAFFS2 collects hard ----------
    def scen_d(self):
        scen = "D-links-gc"
        model = {"/a": {"type": "file", "mode": 0o644, "data": self.data(3 * self.chunk + 11),
                        "group": "ga"}}
        for i in range(40):
            model["/f%02d" % i] = {"type": "file", "mode": 0o644,
                                   "data": self.data(self.rng.choice(self.sizes())),
                                   "group": "gf%d" % i}
        model["/z"] = dict(model["/a"])
        model["/zs"] = {"type": "symlink", "mode": 0o777, "target": "a"}
        model["/dd"] = {"type": "dir", "mode": 0o755}
        model["/dd/zz"] = dict(model["/f05"])
        root = os.path.join(self.tmp, "treeD")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        self.model_tree(model, root)
        img = self.new_image("d")
        self.nandkit("mkimage", root, img)
        for p in ("/z", "/zs", "/dd/zz"):
            self.nandkit("rm", img, p)
            del model[p]
        self.nandkit("rm", img, "/f07")
        del model["/f07"]
        self.both(scen + " before gc", img, model)
        lines = []
        for i in range(80):
            data = self.data(self.rng.choice([self.chunk * 6, self.chunk * 9 + 1]))
            lines.append("put %s /churn 644" % self.hostfile(data))
        lines.append("gc 200")
        model["/churn"] = {"type": "file", "mode": 0o644, "data": data, "group": "gc"}
        r = self.run_yaffs(scen, img, lines, "--checkpoint", "off")
        self.check(scen, "yaffs2", "apply exit", r.returncode, 0)
        self.both(scen + " after yaffs2 gc", img, model)
        r = self.nandkit("fsck", img, check=False)
        self.check(scen, "nandkit", "fsck exit", r.returncode, 0)

    def run(self, only):
        try:
            if "A" in only:
                img, model = self.scen_a_mkimage()
                self.scen_a_cli(img, model)
                cut_img = os.path.join(self.tmp, "acut.img")
                for ext in ("", ".nksim"):
                    if os.path.exists(img + ext):
                        shutil.copyfile(img + ext, cut_img + ext)
                cut_model = {p: dict(m) for p, m in model.items()}
                self.scen_a_cli_cuts(cut_img, cut_model)
                self.scen_a_bad()
            else:
                img, model = self.scen_a_mkimage()
            if "B" in only:
                self.scen_b(img, model)
            if "C" in only:
                self.scen_c(img, model)
            if "D" in only:
                self.scen_d()
        finally:
            if os.environ.get("INTEROP_KEEP"):
                print("kept", self.tmp)
            else:
                shutil.rmtree(self.tmp, ignore_errors=True)
        print("interop %s %d+%d: %d checks, %d objects, %d bytes, %d extended attributes "
              "compared, %d failed" % (self.layout, self.page, self.oob, self.checks, self.objects,
                                       self.bytes, self.xattrs, self.failed))
        return 1 if self.failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--yaffs2", required=True, help="the nk_yaffs2 program")
    ap.add_argument("--nandkit", required=True, help="the nandkit program")
    ap.add_argument("--layout", choices=LAYOUTS, default="linux")
    ap.add_argument("--page", type=int, choices=(2048, 4096), default=2048)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="ABCD", help="scenarios to run (default ABCD)")
    ap.add_argument("--cut-oob", default="all,tags,none",
                    help="what of the OOB a YAFFS2 cut lands in scenario C: all, tags (the tags "
                         "without their ECC and the data ECC), none; default all,tags,none")
    args = ap.parse_args()
    sys.exit(Suite(args).run(args.only))


if __name__ == "__main__":
    main()
