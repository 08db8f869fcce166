"""The launch model's closed vocabularies (sgllint.model.kinds): members are
typed, yet print and serialise exactly as the strings they replaced."""

from __future__ import annotations

import json

import pytest

from sgllint.model.facts import ContextHint, LaunchSite, Source, Span
from sgllint.model.kinds import HintKind, LaunchForm


def _site(form) -> LaunchSite:
    src = Source("x.sh", "sglang serve")
    return LaunchSite(src, Span(src, 0, 12), "sglang serve", Span(src, 0, 12), form)


def test_a_hint_kind_is_a_member_however_it_was_written():
    assert ContextHint("gpu-count", 2).kind is HintKind.GPU_COUNT
    assert ContextHint(HintKind.GPU_COUNT, 2).kind is HintKind.GPU_COUNT


def test_a_launch_form_is_a_member_however_it_was_written():
    assert _site("kwargs").form is LaunchForm.KWARGS
    assert _site(LaunchForm.ARGV).form is LaunchForm.ARGV


@pytest.mark.parametrize("make", [lambda: ContextHint("gpu_count", 2), lambda: _site("args")])
def test_a_misspelt_kind_fails_where_it_is_written(make):
    with pytest.raises(ValueError):
        make()


@pytest.mark.parametrize("member", [*HintKind, *LaunchForm])
def test_members_print_and_serialise_as_their_strings(member):
    assert member == member.value and str(member) == member.value and f"{member}" == member.value
    assert json.dumps({"kind": member}) == json.dumps({"kind": member.value})


def test_deployment_kinds():
    deployment = {k for k in HintKind if k.describes_deployment}
    assert HintKind.DEPLOY_SHM in deployment and HintKind.GPU_COUNT not in deployment
    assert all(k.value.startswith("deploy-") for k in deployment)
