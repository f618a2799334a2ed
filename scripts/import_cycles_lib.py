"""Import graph of a Rust crate's files, for scripts/import-cycles (its docstring says how
imports are read)."""
import glob
import os
import re

KEYS = ("crate", "$crate", "super", "self")
RAW = re.compile(r"(?<![\w])b?r(#*)\"")
CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'")
TEST_CFG = re.compile(r"#\[cfg\((?![^\]]*not\(test\))[^\]]*\btest\b[^\]]*\)\]\s*")
ATTRS = r"(?:#\[[^\]]*\]\s*)*"
VIS = r"(?:pub(?:\s*\([^)]*\))?\s+)?"
MOD_DECL = re.compile(ATTRS + VIS + r"mod\s+(\w+)\s*([;{])")
USE = re.compile(r"(?<![\w$])(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);")
DEF = re.compile(r"\b(?:fn|struct|enum|trait|type|const|static|union)\s+(\w+)|"
                 r"\bmacro_rules!\s*(\w+)")
# Not `#x` (a `quote!` interpolation) nor `x ::y` (spaced: `#f ::toolsmith::..`).
CODE_PATH = re.compile(r"(?<![\w:$#])(\$crate|\w+)((?:::\w+)+)")
TEST_ITEM = re.compile(ATTRS + VIS + r"(?:(mod)\s+(\w+)\s*([;{])|use\b[^;]*;)")
PATH_ATTR = re.compile(r"#\[path\s*=\s*\"([^\"]+)\"\]\s*" + ATTRS + VIS + r"mod\s+(\w+)\s*;")


def strip(text):
    """Comments removed, string literals emptied, char literals blanked."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif (m := RAW.match(text, i)):
            end = text.find('"' + m.group(1), m.end())
            out.append('""')
            i = n if end < 0 else end + 1 + len(m.group(1))
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif text[i] == "'" and (m := CHAR.match(text, i)):
            out.append("' '")
            i = m.end()
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def block_end(text, open_at):
    """Index just past the `}` matching the `{` at open_at."""
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def drop_tests(text):
    """Text without `#[cfg(test)]` modules and uses; also the names of such `mod x;`."""
    skipped = set()
    while (m := TEST_CFG.search(text)):
        r = TEST_ITEM.match(text, m.end())
        if not r:
            text = text[:m.start()] + text[m.end():]
            continue
        end = r.end()
        if r.group(1) and r.group(3) == "{":
            end = block_end(text, r.end() - 1)
        elif r.group(1):
            skipped.add(r.group(2))
        text = text[:m.start()] + " " + text[end:]
    return text, skipped


def parse_use(s):
    """`a::{b, c::{d as e, self}, *}` -> [(segments, alias)]; alias '*' for a glob."""
    toks = re.findall(r"::|[{},*]|\$crate|\w+", s)
    pos = 0

    def tree(prefix):
        nonlocal pos
        segs, out = list(prefix), []
        while pos < len(toks):
            t = toks[pos]
            pos += 1
            if t == "::":
                continue
            if t == "{":
                while pos < len(toks) and toks[pos] != "}":
                    out += tree(segs)
                    if pos < len(toks) and toks[pos] == ",":
                        pos += 1
                pos += 1
                return out
            if t == "*":
                return out + [(segs, "*")]
            if t in ",}":
                pos -= 1
                return out
            segs.append(t)
            if pos < len(toks) and toks[pos] == "::":
                continue
            alias = t
            if pos + 1 < len(toks) and toks[pos] == "as":
                alias, pos = toks[pos + 1], pos + 2
            if t == "self":
                segs = segs[:-1]
                alias = segs[-1] if alias == "self" and segs else alias
            return out + [(segs, alias)]
        return out

    return tree([])


class Module:
    def __init__(self, path, file, text):
        self.path, self.file = path, file
        self.children, self.uses, self.globs, self.pub = set(), {}, [], set()
        self.defs = {a or b for a, b in DEF.findall(text)}
        for m in USE.finditer(text):
            for segs, alias in parse_use(m.group(2)):
                if alias == "*":
                    self.globs.append((segs, bool(m.group(1))))
                elif segs:
                    self.uses[alias] = segs
                    if m.group(1):
                        self.pub.add(alias)
        self.code = USE.sub(" ", text)


def load_crate(root_file, mods):
    """Every module reachable from root_file into mods: path tuple -> Module."""
    todo = [((), root_file, os.path.dirname(root_file))]
    while todo:
        path, file, cdir = todo.pop()
        raw = open(file, encoding="utf-8").read()
        attrs = dict((n, p) for p, n in PATH_ATTR.findall(raw))
        text, skipped = drop_tests(strip(raw))
        add_module(path, file, text, cdir, mods, attrs, skipped, todo)


def add_module(path, file, text, cdir, mods, attrs, skipped, todo):
    """One module and its inline `mod x { .. }` modules; file modules go on todo."""
    inline, parts, last = [], [], 0
    for m in MOD_DECL.finditer(text):
        if m.start() < last:
            continue
        name = m.group(1)
        if m.group(2) == "{":
            end = block_end(text, m.end() - 1)
            inline.append((name, text[m.end():end - 1]))
            parts.append(text[last:m.start()])
            last = end
            continue
        if name in skipped or name == "tests":
            continue
        if name in attrs:
            cands = [os.path.join(os.path.dirname(file), attrs[name])]
        else:
            cands = [os.path.join(cdir, name + ".rs"), os.path.join(cdir, name, "mod.rs")]
        found = next((c for c in cands if os.path.isfile(c)), None)
        if found:
            stem = os.path.splitext(found)[0]
            sub = os.path.dirname(found) if found.endswith("mod.rs") else stem
            todo.append((path + (name,), os.path.normpath(found), sub))
    own = "".join(parts) + text[last:]
    mods[path] = mod = Module(path, file, own)
    for name, body in inline:
        mod.children.add(name)
        add_module(path + (name,), file, body, os.path.join(cdir, name), mods, {}, set(), todo)
    mod.children |= {p[-1] for p, _, _ in todo if p[:-1] == path}


def resolve(mods, ctx, segs, seen=frozenset()):
    """(file, name) that a path used in module ctx names, or None when outside the crate."""
    i, cur = 0, ctx
    while i < len(segs) and segs[i] in KEYS:
        cur = () if segs[i] in ("crate", "$crate") else cur[:-1] if segs[i] == "super" else cur
        i += 1
    mod = mods[ctx]
    if i == 0 and segs[0] not in mod.children:
        if segs[0] in mod.uses and (ctx, segs[0]) not in seen:
            return resolve(mods, ctx, mod.uses[segs[0]] + segs[1:], seen | {(ctx, segs[0])})
        return None
    for seg in segs[i:]:
        if cur + (seg,) not in mods:
            return resolve_name(mods, cur, seg, seen)
        cur += (seg,)
    return mods[cur].file, (segs[i:] or ["self"])[-1]


def resolve_name(mods, mpath, name, seen):
    """The file defining `name` as seen from module mpath, through its imports."""
    mod = mods[mpath]
    if (mpath, name) in seen:
        return None
    seen = seen | {(mpath, name)}
    if name in mod.defs:
        return mod.file, name
    if name in mod.uses:
        return resolve(mods, mpath, mod.uses[name], seen)
    for segs, _ in mod.globs:
        hit = resolve(mods, mpath, segs + [name], seen)
        if hit:
            return hit
    return mod.file, name


def crate_roots(src):
    """The crate root files in src: lib.rs, main.rs, bin/*.rs, bin/*/main.rs."""
    roots = [os.path.join(src, f) for f in ("lib.rs", "main.rs")]
    roots += sorted(glob.glob(os.path.join(src, "bin", "*.rs")))
    roots += sorted(glob.glob(os.path.join(src, "bin", "*", "main.rs")))
    return [os.path.normpath(r) for r in roots if os.path.isfile(r)]


def analyze_root(root):
    """(mods, edges) for one crate root: edges[a][b] = names file a takes from file b."""
    mods, edges = {}, {}
    load_crate(root, mods)
    for mod in mods.values():
        hits = []
        for alias, segs in mod.uses.items():
            if alias not in mod.pub or re.search(r"\b%s\b" % re.escape(alias), mod.code):
                hits.append(resolve(mods, mod.path, segs))
        for segs, pub in mod.globs:
            if not pub:
                hits.append(resolve(mods, mod.path, segs))
        for m in CODE_PATH.finditer(mod.code):
            segs = [m.group(1)] + re.findall(r"\w+", m.group(2))
            hits.append(resolve(mods, mod.path, segs))
        for hit in hits:
            if hit and hit[0] != mod.file:
                edges.setdefault(mod.file, {}).setdefault(hit[0], set()).add(hit[1])
    return mods, edges


def analyze(src):
    """(files, edges) for one src folder, every crate root together."""
    files, edges = set(), {}
    for root in crate_roots(src):
        mods, found = analyze_root(root)
        files |= {mod.file for mod in mods.values()}
        for a, bs in found.items():
            for b, names in bs.items():
                edges.setdefault(a, {}).setdefault(b, set()).update(names)
    return files, edges


def sibling_edges(mods, edges):
    """File edges lifted to the child modules of each module: {parent path: {a: {b: [(file
    a, file b, names)]}}}, a and b two children of parent, each with its whole subtree. An
    edge between a module's own file and one below it lifts to nothing."""
    where = {}
    for path, mod in sorted(mods.items(), key=lambda kv: len(kv[0])):
        where.setdefault(mod.file, path)
    out = {}
    for fa, bs in edges.items():
        for fb, names in bs.items():
            pa, pb, k = where[fa], where[fb], 0
            while k < min(len(pa), len(pb)) and pa[k] == pb[k]:
                k += 1
            if k < len(pa) and k < len(pb):
                out.setdefault(pa[:k], {}).setdefault(pa[k], {}).setdefault(pb[k], []).append(
                    (fa, fb, names))
    return out


def components(nodes, edges):
    """Tarjan's strongly connected components, iterative."""
    index, low, on, stack, out, work = {}, {}, set(), [], [], []

    def push(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        work.append((v, iter(sorted(edges.get(v, {})))))

    for v0 in sorted(nodes):
        if v0 not in index:
            push(v0)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    push(w)
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while not comp or comp[-1] != v:
                    comp.append(stack.pop())
                    on.discard(comp[-1])
                out.append(sorted(comp))
    return [c for c in out if len(c) > 1]


def cycle(comp, edges):
    """A shortest cycle through comp's first file, staying inside comp."""
    start, inside = comp[0], set(comp)
    prev, frontier = {}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, {})):
                if w in inside and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        if start in prev:
            break
        frontier = nxt
    path, v = [start], prev[start]
    while v != start:
        path.append(v)
        v = prev[v]
    return [start] + path[::-1][:-1] + [start]
