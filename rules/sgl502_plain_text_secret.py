"""A Hugging Face token or other credential written in plain text.

## What it does
Finds literal credentials in a linted file: Hugging Face access tokens
(`hf_` + 34 letters and digits), OpenAI/Anthropic keys (`sk-…`), GitHub
tokens (`ghp_…`), AWS access key ids (`AKIA…`) wherever they are written —
env values of a Kubernetes container, compose `environment:`, SkyPilot
`envs:`, `docker run -e`, a shell `export`, a Secret's `stringData` — and a
literal assigned to a name that holds a credential (`HF_TOKEN`,
`OPENAI_API_KEY`, `*_SECRET`, `*_PASSWORD`; a Kubernetes `- name: HF_TOKEN`
item's `value:`) or to SGLang's `--api-key`/`--admin-api-key`, when the
literal looks real. It points at the value. Placeholders (`hf_xxxxxxxx`,
`<your token>`, `${HF_TOKEN}`, `EMPTY`, values shorter than 16 characters or
with fewer than 10 distinct characters) are not reported.

The credential itself is never printed: the message shows its first six
characters and its length, every output format's code frame replaces the rest
with `*`, and the SARIF fingerprint hashes the masked text.

## Why is this bad?
A token in a manifest, a compose file or a launch script lands in git, in
the pod spec (`kubectl get pod -o yaml` shows env values to anyone who can
read pods), in shell history and in CI logs. A Hugging Face token reads (and,
with write scope, overwrites) every gated and private model of its owner.
SGLang reads `HF_TOKEN` from its environment like any Hub client: it does
not need to be in the file.

## Example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
          env:
            - name: HF_TOKEN
              value: hf_Qm7vRzT2kWpL9sNbX4cYhJ8dFgA3eUoMiK
```

## Use instead
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
          env:
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef: {name: hf-token, key: token}
```

## References
- Hugging Face, "User access tokens" (`hf_` prefix; revoke at https://huggingface.co/settings/tokens).
- Kubernetes, "Using Secrets as environment variables":
  https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables
- Docker Compose `secrets`/variable interpolation: https://docs.docker.com/compose/how-tos/use-secrets/
- SkyPilot `secrets:` / `sky launch --secret HF_TOKEN`: https://docs.skypilot.co/en/latest/running-jobs/environment-variables.html
- SGLang `--api-key`: `sglang/srt/server_args.py` (`api_key: Optional[str] = None`, all releases).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.secrets import secret_findings

#: a made-up token in the shape huggingface.co issues (never a real one)
TOKEN = "hf_Qm7vRzT2kWpL9sNbX4cYhJ8dFgA3eUoMiK"  # sgllint: ignore[SGL502]
MODEL = "--model-path meta-llama/Llama-3.1-8B-Instruct"


class PlainTextSecret(Rule):
    code = "SGL502"
    name = "plain-text-secret"
    severity = ERROR

    VALID = [
        Valid.sh(f"HF_TOKEN=$HF_TOKEN python -m sglang.launch_server {MODEL}"),
        Valid.sh(f"export HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\npython -m sglang.launch_server {MODEL}"),
        Valid.sh(f"docker run --gpus all -e HF_TOKEN lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server {MODEL}"),
        Valid.sh(f"python -m sglang.launch_server {MODEL} --api-key sk-123456"),
        Valid.yaml(
            f"""
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                environment:
                  HF_TOKEN: ${{HF_TOKEN}}
                command: python3 -m sglang.launch_server {MODEL} --host 0.0.0.0
            """
        ),
        Valid.yaml(
            f"""
            envs:
              HF_TOKEN: null
            secrets:
              HF_TOKEN: null
            resources:
              accelerators: L4:1
            run: python -m sglang.launch_server {MODEL} --port 30000
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"HF_TOKEN={TOKEN} python -m sglang.launch_server {MODEL}", at=TOKEN, message="hf_Qm7…(37 chars)"),
        Invalid.sh(
            f"docker run --gpus all -e HUGGING_FACE_HUB_TOKEN={TOKEN} lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server {MODEL}",
            at=TOKEN,
        ),
        Invalid.sh(f"python -m sglang.launch_server {MODEL} --api-key Zq81LmN4pRt7VwX9", at="Zq81LmN4pRt7VwX9", message="Zq81Lm…(16 chars)"),
        Invalid.yaml(
            f"""
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                environment:
                  - HF_TOKEN={TOKEN}
                command: python3 -m sglang.launch_server {MODEL} --host 0.0.0.0
            """,
            at=TOKEN,
        ),
        Invalid.yaml(
            f"""
            envs:
              HF_TOKEN: {TOKEN}
            resources:
              accelerators: L4:1
            run: python -m sglang.launch_server {MODEL} --port 30000
            """,
            at=TOKEN,
        ),
        Invalid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: sglang
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  args: ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct"]
                  env:
                    - name: OPENAI_API_KEY
                      value: "Vb7Qw2Zr9KxLm4Np8Ts1"
            """,
            at="Vb7Qw2Zr9KxLm4Np8Ts1",
        ),
    ]

    def check_file(self, facts):
        for finding in secret_findings(facts):
            yield self.diagnostic(
                finding.span,
                f"{finding.what} in plain text ({finding.shown}): anyone who can read this file, the pod spec or the logs can use it",
                help="revoke it, and pass it from a secret store: a Kubernetes Secret (`valueFrom: secretKeyRef`), "
                "compose `${HF_TOKEN}` or `secrets:`, SkyPilot `secrets:`/`--secret HF_TOKEN`, or the caller's environment",
            )
