"""SGLang's start-up validation, derived from each release and evaluated on a
launch with three-valued logic (issue 17).

``evaluate(LaunchFacts) -> Verdict``: the first definite rejection in SGLang's
order, the rejections whose condition was Unknown, the definite rewrites of
user-given values. See ``interp`` (the abstract interpreter), ``envmodel``
(the only hand-written knowledge) and ``domain`` (the value domain).
"""

from .domain import Unknown, and3, is_unknown, join, not3, or3, truth
from .facts import GpuFacts, LaunchFacts, Rewrite, SiteHit, Verdict


def __getattr__(name: str):
    # the interpreter (~130 ms of imports) loads on first use, not when a lint
    # only asks whether derived validation is on
    if name == "evaluate":
        from .evaluator import evaluate

        return evaluate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["GpuFacts", "LaunchFacts", "Rewrite", "SiteHit", "Unknown", "Verdict", "and3", "evaluate", "is_unknown",
           "join", "not3", "or3", "truth"]
