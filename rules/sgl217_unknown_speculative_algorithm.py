"""A `--speculative-algorithm` name SGLang does not know (0.5.12+).

## What it does
From 0.5.12 `--speculative-algorithm` is a free string: SGLang upper-cases it
and looks it up among its built-in algorithms (per release: `EAGLE`,
`EAGLE3`, `NEXTN`, `STANDALONE`, `NGRAM`, `DFLASH`, `FROZEN_KV_MTP`, `DSPARK`
from 0.5.16, `UNO` from 0.5.20) and the algorithms plugins registered. Up to
0.5.11 the value is an argparse choice and SGL103 reports it instead.

## Why is this bad?
The server exits while resolving the arguments: `ValueError: Unknown
speculative algorithm name: X`.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm MEDUSA
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm NGRAM
```

## References
- `sglang/srt/speculative/spec_info.py` `SpeculativeAlgorithm.from_string`
  (the enum members per release) and `spec_registry.py` (`NEXTN` alias,
  plugin registry), called from `server_args.py` (0.5.12–0.5.18) /
  `arg_groups/speculative_hook.py` `handle_speculative_decoding` (0.5.19+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"


class UnknownSpeculativeAlgorithm(Rule):
    code = "SGL217"
    name = "unknown-speculative-algorithm"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm ngram"),
        Valid.sh(f"{L} --speculative-algorithm $ALG"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="NGRAM")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-algorithm MEDUSA", at="MEDUSA", message="Unknown speculative algorithm name: MEDUSA"),
        Invalid.sh(f"{L} --speculative-algorithm UNO", at="UNO", sglang="0.5.19", message="UNO"),
        Invalid.sh(f"{L} --speculative-algorithm DSPARK", at="DSPARK", sglang="0.5.15"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="lookahead")
            """,
            at='"lookahead"',
        ),
    ]

    def check(self, launch):
        names = par.known_spec_algorithms(launch)
        if names is None:
            return
        value, arg = par.str_value(launch, "speculative_algorithm")
        if arg is None or not isinstance(value, str) or value.upper() in names:
            return
        yield self.diagnostic(
            par.value_span(arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: 'Unknown speculative algorithm name: {value}'",
            help=f"use one of {', '.join(n for n in names if n != 'NONE')} (or the name a speculative-decoding plugin you install registers)",
            launch=launch,
        )
