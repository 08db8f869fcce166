"""One line saying what the rule finds (it becomes the README table entry).

## What it does
Say what the rule checks, in terms of flags and values a user writes.

## Why is this bad?
Say what SGLang does with such a launch: the exact error, the silent
rewrite, or the runtime failure, and when it happens (at parse time, at
start-up, on the first request).

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --bad-flag
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct
```

## References
- `sglang/srt/server_args.py` (the check this rule mirrors), releases X.Y.Z+
"""

# To add a rule: copy this file to rules/sglNNN_<bad_pattern>.py, rename the
# class, set code/name/severity, write the docstring sections and at least one
# Valid and one Invalid example per format, then implement check(). If the
# rule offers a fix, each Invalid example declares the text after it:
# fix="..." (and unsafe=True for an unsafe fix), or fix_to="..." when the fix
# only replaces the text at= names.
# `pytest tests/test_rules.py -k SGLNNN` runs the examples;
# `sgllint rules --markdown` refreshes the README table.

from sgllint.model.rule import ERROR, Invalid, Rule, Valid


class TemplateRule(Rule):
    # code = "SGLNNN"            # uncomment: a class without a code is not registered
    name = "bad-pattern"
    severity = ERROR

    VALID = [
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"),
    ]
    INVALID = [
        Invalid.sh("python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --bad-flag", at="--bad-flag"),
    ]

    def check(self, launch):
        for arg in launch.args:
            if arg.spelling == "--bad-flag":
                yield self.diagnostic(arg.flag_span, "'--bad-flag' is bad", help="remove it", launch=launch)
