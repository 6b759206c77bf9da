"""Whether an extracted tree is the tree it came from, for the shell tests.

usage: python3 tests/cli/same_tree.py EXPECTED EXTRACTED [--mtimes] [--link-group A,B ...]

Below the two roots: the same names; for each, the same type; the same
permission bits (symlinks aside: their mode is always 0777); the same
symlink targets; the same file bytes; the same groups of names sharing one
inode (hard links). With --mtimes regular files keep their mtime (whole
seconds); each --link-group names paths that must be one such group.
Exits 1 with the first difference on stderr.
"""
import os
import stat
import sys


def walk(root):
    found = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            found[os.path.relpath(path, root)] = os.lstat(path)
    return found


def same_tree(src, out, mtimes, link_groups):
    a, b = walk(src), walk(out)
    assert sorted(a) == sorted(b), sorted(set(a) ^ set(b))
    inodes_a, inodes_b = {}, {}
    for rel, sa in a.items():
        sb = b[rel]
        assert stat.S_IFMT(sa.st_mode) == stat.S_IFMT(sb.st_mode), rel
        if stat.S_ISLNK(sa.st_mode):
            ta, tb = os.readlink(os.path.join(src, rel)), os.readlink(os.path.join(out, rel))
            assert ta == tb, (rel, ta, tb)
            continue
        assert stat.S_IMODE(sa.st_mode) == stat.S_IMODE(sb.st_mode), \
            (rel, oct(sa.st_mode), oct(sb.st_mode))
        if stat.S_ISREG(sa.st_mode):
            with open(os.path.join(src, rel), "rb") as fa, open(os.path.join(out, rel), "rb") as fb:
                assert fa.read() == fb.read(), rel
            if mtimes:
                assert int(sa.st_mtime) == int(sb.st_mtime), (rel, sa.st_mtime, sb.st_mtime)
            inodes_a.setdefault(sa.st_ino, set()).add(rel)
            inodes_b.setdefault(sb.st_ino, set()).add(rel)
    groups = lambda m: sorted(sorted(g) for g in m.values())
    assert groups(inodes_a) == groups(inodes_b), (groups(inodes_a), groups(inodes_b))
    for group in link_groups:
        assert sorted(group) in groups(inodes_b), (group, groups(inodes_b))


def main(argv):
    src, out = argv[1], argv[2]
    mtimes, link_groups, rest = False, [], argv[3:]
    while rest:
        if rest[0] == "--mtimes":
            mtimes, rest = True, rest[1:]
        elif rest[0] == "--link-group" and len(rest) > 1:
            link_groups.append(rest[1].split(","))
            rest = rest[2:]
        else:
            sys.exit("same_tree.py: unknown argument %s" % rest[0])
    try:
        same_tree(src, out, mtimes, link_groups)
    except AssertionError as e:
        print("same_tree.py: %s differs from %s: %s" % (out, src, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
