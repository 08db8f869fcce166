"""Generate ``catalog/data/head_split.json``: for each SGLang release, the
architectures whose attention layer asserts that tensor parallelism splits
the attention heads (and the KV heads) evenly, with the file and lines.

    python -m sgllint.catalog._gen_head_split WHEELS/src

Read from each release's ``sglang/srt/models/*.py`` source text (nothing is
imported): a file counts when it has the three assertions SGLang's
Llama-style attention makes::

    assert self.total_num_heads % tp_size == 0
    if self.total_num_kv_heads >= tp_size:
        assert self.total_num_kv_heads % tp_size == 0
    else:
        assert tp_size % self.total_num_kv_heads == 0

(``attn_tp_size`` in the files that split attention by the attention-TP
group under DP attention); its architectures are the names in its
``EntryClass``. Files that assert only the heads (``num_heads % attn_tp_size``,
DeepSeek's MLA) are recorded with ``kv_line`` null.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUTPUT = Path(__file__).parent / "data" / "head_split.json"

_HEADS = re.compile(r"^[ \t]*assert (?:self\.total_num_heads|num_heads) % (tp_size|attn_tp_size) == 0", re.M)
_KV = re.compile(r"^[ \t]*assert self\.total_num_kv_heads % (tp_size|attn_tp_size) == 0", re.M)
_KV_ELSE = re.compile(r"^[ \t]*assert (tp_size|attn_tp_size) % self\.total_num_kv_heads == 0", re.M)
_ENTRY = re.compile(r"^EntryClass\s*=\s*(\[[^\]]*\]|\w+)", re.M)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def release_key(full: str) -> str:
    """``0.4.0.post2`` -> ``0.4.0`` (the catalog's release names)."""
    return re.sub(r"\.post\d+$", "", full)


def scan_release(root: Path) -> dict:
    out = {}
    models = root / "sglang" / "srt" / "models"
    for path in sorted(models.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        heads = _HEADS.search(text)
        entry = _ENTRY.search(text)
        if not heads or not entry:
            continue
        kv, kv_else = _KV.search(text), _KV_ELSE.search(text)
        archs = re.findall(r"\w+", entry.group(1))
        rel = str(path.relative_to(root))
        for arch in archs:
            out[arch] = {
                "file": rel,
                "heads_line": _line(text, heads.start()),
                "kv_line": _line(text, kv.start()) if kv and kv_else else None,
                "kv_else_line": _line(text, kv_else.start()) if kv and kv_else else None,
                "tp": heads.group(1),
            }
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m sgllint.catalog._gen_head_split DIR  (DIR/<version>/sglang/...: unpacked wheels)", file=sys.stderr)
        return 2
    src = Path(argv[0])
    releases = {}
    for root in sorted(p for p in src.iterdir() if (p / "sglang" / "srt" / "models").is_dir()):
        releases[release_key(root.name)] = {"wheel": root.name, "architectures": scan_release(root)}
    OUTPUT.write_text(json.dumps({"generated_by": "python -m sgllint.catalog._gen_head_split", "releases": releases},
                                 indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(releases)} releases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
