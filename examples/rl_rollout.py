"""An RL rollout worker: the engine must be deterministic (on-policy)."""

import sglang as sgl

MODEL = "moonshotai/Kimi-K2-Instruct"


def make_engine(tp: int):
    return sgl.Engine(
        model_path=MODEL,
        tp_size=tp,
        enable_deterministic_inference=True,
        attention_backend="fa4",  # fine on B200, rejected on H100: pin the GPU
        mem_fraction_static=0.85,
    )
