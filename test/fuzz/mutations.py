"""Mutations of MLIR source text for the tool fuzz test.

Each mutator takes a random.Random and the text and returns the mutated
text, or None when the text has nothing the mutator applies to. They edit
the text the way a kernel author's mistakes would (a line too many or too
few, a wrong shape, type or attribute, an op outside its function), so most
mutants get past the lexer and reach the verifiers, passes and lowering.
"""

import re

# Integers that sit on the edges verifiers and lowerings tend to get wrong:
# zero, one, negative, non-powers of two, powers of two and values that
# overflow 32 and 64 bits.
INTEGERS = [0, 1, -1, 2, 3, 7, 16, 31, 32, 33, 64, 1024, 65536,
            2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, -2**63, 10**30]
DIMS = ["0", "1", "2", "3", "5", "7", "64", "256", "4096", "65536",
        str(2**31), str(2**40), "?"]
ELEMENT_TYPES = ["f32", "bf16", "f16", "f64", "i1", "i8", "i16", "i32",
                 "i64", "index", "f8E4M3FN", "f8E5M2"]
TILE_OPS = ["program_id", "num_programs", "addptr", "make_view", "load",
            "store", "gather", "atomic", "scatter", "splat", "iota",
            "expand_dims", "broadcast", "convert_layout", "reduce", "scan",
            "sort", "histogram", "dot", "transpose", "fence", "cluster_size",
            "cluster_rank", "cluster_barrier", "alloc_shared", "store_shared",
            "load_shared"]
ARITH_OPS = ["addf", "addi", "subf", "subi", "mulf", "muli", "divf",
             "divsi", "maximumf", "minsi", "andi", "xori", "cmpi", "cmpf",
             "select", "truncf", "extf", "index_cast", "sitofp", "bitcast"]
KEYWORDS = ["add", "max", "min", "mul", "xor", "and", "or", "along", "at",
            "x", "y", "z", "pad", "mask", "descending", "reverse",
            "exclusive", "runs", "async", "pending", "strides"]

INT_RE = re.compile(r"(?<![\w%#@.^!$-])-?\d+(?![\w.])")
SHAPED_RE = re.compile(r"(tensor|!tile\.view|!tile\.smem)<([^<>]*)")
ELEMENT_RE = re.compile(r"\b(" + "|".join(ELEMENT_TYPES) + r")\b")
NUM_WARPS_RE = re.compile(r"tile\.num_warps\s*=\s*[^,}]+")
LAYOUT_RE = re.compile(r"#tile\.(blocked|slice|mma|dot_operand|swizzle)<")
ENCODING_RE = re.compile(r",\s*#[\w.]+(<[^<>]*(<[^<>]*>[^<>]*)*>)?(?=>)")
PLAIN_FUNC_RE = re.compile(
    r"(func\.func @\w+\([^{}]*?\)(\s*->\s*(?:(?!attributes)[^{}])*?)?)\s*\{")
SSA_RE = re.compile(r"%[A-Za-z_][\w$.]*|%\d+")
OP_RE = re.compile(r"\b(tile|arith)\.([a-z_]+)\b")
TOKEN_RE = re.compile(r"->|[:,\[\]{}()<>=]|%[\w.$]+|\b\w+\b")


def _lines(text):
    return text.split("\n")


def _replace_span(text, start, end, new):
    return text[:start] + new + text[end:]


def _pick_match(rng, regex, text):
    matches = list(regex.finditer(text))
    return rng.choice(matches) if matches else None


def delete_lines(rng, text):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    start = rng.randrange(len(lines))
    count = rng.choice([1, 1, 1, 2, 3])
    del lines[start:start + count]
    return "\n".join(lines)


def duplicate_line(rng, text):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    # Right after itself (a redefinition) or anywhere (a use before its
    # operands, or a second terminator).
    j = i + 1 if rng.random() < 0.5 else rng.randrange(len(lines) + 1)
    lines.insert(j, lines[i])
    return "\n".join(lines)


def swap_lines(rng, text):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines) - 1)
    j = i + 1 if rng.random() < 0.5 else rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def change_integer(rng, text):
    m = _pick_match(rng, INT_RE, text)
    if not m:
        return None
    return _replace_span(text, m.start(), m.end(), str(rng.choice(INTEGERS)))


def change_shape(rng, text):
    m = _pick_match(rng, SHAPED_RE, text)
    if not m:
        return None
    body = m.group(2)
    # "4x128xf32, #layout": dimensions, then the element type and the rest.
    dims = []
    rest = body
    while True:
        d = re.match(r"(\?|\d+)x", rest)
        if not d:
            break
        dims.append(d.group(1))
        rest = rest[d.end():]
    how = rng.choice(["set", "set", "drop", "add", "swap"])
    if how == "set" or not dims:
        if dims:
            dims[rng.randrange(len(dims))] = rng.choice(DIMS)
        else:
            dims.append(rng.choice(DIMS))
    elif how == "drop":
        del dims[rng.randrange(len(dims))]
    elif how == "add":
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(DIMS))
    else:
        rng.shuffle(dims)
    new = "".join(d + "x" for d in dims) + rest
    return _replace_span(text, m.start(2), m.end(2), new)


def resize_tiles(rng, text):
    """Gives every tile dimension of one extent another extent, so that the
    kernel stays consistent and its new shapes reach the lowering."""
    extents = sorted({d for m in re.finditer(r"tensor<([^<>]*)", text)
                      for d in re.findall(r"(\d+)x", m.group(1))})
    if not extents:
        return None
    old = rng.choice(extents)
    new = rng.choice(["1", "2", "3", "4", "8", "16", "32", "64", "100",
                      "256", "512", "2048"])

    def resize(m):
        return re.sub(r"(?<![\w])%s(?=x)" % old, new, m.group(0))
    return re.sub(r"tensor<[^<>]*", resize, text)


def swap_element_type(rng, text):
    matches = list(ELEMENT_RE.finditer(text))
    if not matches:
        return None
    old = rng.choice(matches)
    new = rng.choice([t for t in ELEMENT_TYPES if t != old.group(1)])
    if rng.random() < 0.3:
        # Every use of the type: a consistently retyped kernel reaches the
        # passes and lowering instead of stopping at a type mismatch.
        return re.sub(r"\b%s\b" % old.group(1), new, text)
    return _replace_span(text, old.start(), old.end(), new)


def mutate_attribute(rng, text):
    choices = []
    if "tile.kernel" in text:
        choices += ["drop_kernel"]
    if NUM_WARPS_RE.search(text):
        choices += ["num_warps", "num_warps"]
    if "attributes {" in text:
        choices += ["drop_attributes", "add_attribute"]
    if PLAIN_FUNC_RE.search(text):
        choices += ["add_kernel", "add_kernel"]
    if LAYOUT_RE.search(text):
        choices += ["layout", "layout"]
    if ENCODING_RE.search(text):
        choices += ["drop_encoding"]
    if not choices:
        return None
    how = rng.choice(choices)
    if how == "drop_kernel":
        spans = [m.span() for m in re.finditer(r"tile\.kernel,?\s*", text)]
        start, end = rng.choice(spans)
        return _replace_span(text, start, end, "")
    if how == "add_kernel":
        # The lit inputs' plain functions then go through every pass.
        m = _pick_match(rng, PLAIN_FUNC_RE, text)
        return _replace_span(text, m.end(1), m.end(1),
                             " attributes {tile.kernel}")
    if how == "num_warps":
        m = _pick_match(rng, NUM_WARPS_RE, text)
        value = rng.choice(["0 : i32", "-1 : i32", "3 : i32", "64 : i32",
                            "1024 : i32", "%d : i32" % 2**31, "8 : i64",
                            "8", "\"8\"", "8.0 : f32", "unit", "[8]"])
        return _replace_span(text, m.start(), m.end(),
                             "tile.num_warps = " + value)
    if how == "drop_attributes":
        m = _pick_match(rng, re.compile(r"attributes \{[^{}]*\}"), text)
        return _replace_span(text, m.start(), m.end(), "") if m else None
    if how == "add_attribute":
        m = _pick_match(rng, re.compile(r"attributes \{"), text)
        attr = rng.choice(["tile.max_registers = 0 : i32",
                           "tile.max_registers = 300 : i32",
                           "tile.max_registers = 64 : i32",
                           "tile.num_warps = 2 : i32",
                           "tile.shared_bytes = -1 : i32",
                           "tile.no_hoist", "tile.kernel = 1 : i32",
                           "tile.arg_names = [\"a\"]",
                           "tile.metadata = {block = 1 : i32}",
                           "tile.metadata = 1 : i32",
                           "tile.target = \"sm_80\"", "tile.unknown"])
        return _replace_span(text, m.end(), m.end(), attr + ", ")
    if how == "layout":
        m = _pick_match(rng, LAYOUT_RE, text)
        end = text.find(">", m.end())
        if end < 0:
            return None
        body = text[m.end():end]
        ints = list(INT_RE.finditer(body))
        if ints and rng.random() < 0.8:
            i = rng.choice(ints)
            body = _replace_span(body, i.start(), i.end(),
                                 str(rng.choice(INTEGERS)))
        else:
            # Drop one "key = value" entry.
            parts = body.split(", ")
            del parts[rng.randrange(len(parts))]
            body = ", ".join(parts)
        return _replace_span(text, m.end(), end, body)
    m = _pick_match(rng, ENCODING_RE, text)
    return _replace_span(text, m.start(), m.end(), "")


def _split(rng, total, parts):
    """`total` (a power of two) as `parts` powers of two multiplying to it."""
    out = [1] * parts
    while total > 1:
        out[rng.randrange(parts)] *= 2
        total //= 2
    return out


def _random_layout(rng, rank):
    """A layout for tiles of `rank`, mostly well formed, so that mutants
    reach the code that distributes tiles by hand-written layouts."""
    warps = rng.choice([1, 2, 4, 8])
    kinds = ["blocked", "blocked", "slice"] + (["mma"] if rank == 2 else [])
    kind = rng.choice(kinds)
    if kind == "mma":
        if rng.random() < 0.5:
            return "#tile.mma<version = 2, warps = [%d, %d], instr = " \
                   "[16, 8, %d]>" % (tuple(_split(rng, warps, 2)) +
                                     (rng.choice([16, 32]),))
        return "#tile.mma<version = 3, warps = [%d, 1], instr = [64, %d, " \
               "%d]>" % (max(4, warps), rng.choice([8, 64, 128, 256]),
                         rng.choice([16, 32]))
    if kind == "slice":
        parent = _random_layout_blocked(rng, rank + 1, warps)
        return "#tile.slice<dim = %d, parent = %s>" % (
            rng.randrange(rank + 1), parent)
    return _random_layout_blocked(rng, rank, warps)


def _random_layout_blocked(rng, rank, warps):
    order = list(range(rank))
    rng.shuffle(order)

    def listed(values):
        return "[" + ", ".join(str(v) for v in values) + "]"
    return ("#tile.blocked<size = %s, threads = %s, warps = %s, order = %s>"
            % (listed([rng.choice([1, 1, 2, 4, 8]) for _ in range(rank)]),
               listed(_split(rng, 32, rank)), listed(_split(rng, warps, rank)),
               listed(order)))


def add_layout(rng, text):
    """Gives every tile of one type (without a layout) the same written
    layout, as kernels do to keep reductions in registers."""
    types = sorted(set(re.findall(r"tensor<(?:\d+x)+[\w]+>", text)))
    if not types:
        return None
    old = rng.choice(types)
    rank = len(re.findall(r"\d+x", old))
    new = old[:-1] + ", " + _random_layout(rng, rank) + ">"
    return text.replace(old, new)


def hoist_op(rng, text):
    lines = _lines(text)
    body = [i for i, l in enumerate(lines)
            if re.match(r"\s+(%|tile\.|arith\.|scf\.|math\.|return)", l)]
    if not body:
        return None
    i = rng.choice(body)
    op = lines.pop(i).strip()
    # Before the first function, after the last, or between two.
    tops = [0, len(lines)] + [k + 1 for k, l in enumerate(lines) if l == "}"]
    lines.insert(rng.choice(tops), op)
    return "\n".join(lines)


def rename_ssa(rng, text):
    matches = list(SSA_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    names = sorted({x.group(0) for x in matches} - {m.group(0)})
    if names and rng.random() < 0.7:
        new = rng.choice(names)  # a redefinition or a mistyped use
    else:
        new = "%undefined_value"
    return _replace_span(text, m.start(), m.end(), new)


def swap_op(rng, text):
    m = _pick_match(rng, OP_RE, text)
    if not m:
        return None
    pool = TILE_OPS if m.group(1) == "tile" else ARITH_OPS
    return _replace_span(text, m.start(2), m.end(2), rng.choice(pool))


def swap_keyword(rng, text):
    m = _pick_match(rng, re.compile(r"\b(%s)\b" % "|".join(KEYWORDS)), text)
    if not m:
        return None
    return _replace_span(text, m.start(), m.end(), rng.choice(KEYWORDS))


def delete_token(rng, text):
    m = _pick_match(rng, TOKEN_RE, text)
    if not m:
        return None
    return _replace_span(text, m.start(), m.end(), "")


def truncate(rng, text):
    if len(text) < 2:
        return None
    return text[:rng.randrange(1, len(text))]


# (name, weight): structural edits are cheap to reject in the parser, so
# the edits that keep a kernel parseable weigh more.
MUTATORS = [
    (delete_lines, 3),
    (duplicate_line, 2),
    (swap_lines, 2),
    (change_integer, 5),
    (change_shape, 5),
    (resize_tiles, 4),
    (swap_element_type, 4),
    (mutate_attribute, 4),
    (add_layout, 3),
    (hoist_op, 2),
    (rename_ssa, 3),
    (swap_op, 3),
    (swap_keyword, 2),
    (delete_token, 1),
    (truncate, 1),
]


def mutate(rng, text):
    """Applies one to three mutations; returns (text, [mutator names])."""
    names = []
    count = rng.choice([1, 1, 1, 1, 2, 2, 3])
    fns = [f for f, _ in MUTATORS]
    weights = [w for _, w in MUTATORS]
    attempts = 0
    while len(names) < count and attempts < 20:
        attempts += 1
        fn = rng.choices(fns, weights)[0]
        new = fn(rng, text)
        if new is None or new == text:
            continue
        text = new
        names.append(fn.__name__)
    return text, names
