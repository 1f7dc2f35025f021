from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from policies import PolicyFileError, PolicyNotFound, PolicyStore
from policies.store import PRESETS_DIR


def write(path: Path, text: str) -> None:
    """Write and move the mtime forward, so a rewrite within one clock tick is still seen."""
    path.write_text(text, encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def policy_text(name: str, *, tenants: str = "", models: str = "", action: str = "flag") -> str:
    match = ""
    if tenants or models:
        match = "match:\n" + (f"  tenants: {tenants}\n" if tenants else "")
        match += f"  models: {models}\n" if models else ""
    rules = f"sentence_rules:\n  - name: r\n    when: {{harm: {{gte: 4}}}}\n    action: {action}\n"
    return f"name: {name}\n{match}{rules}"


def test_presets_are_loaded_and_every_preset_validates() -> None:
    store = PolicyStore()
    assert store.names() == ("audit-only", "clinical-strict", "default", "research", "veterinary")
    assert store.reload_errors == 0
    assert store.get("audit-only").shadow
    assert store.get("clinical-strict").stream_mode.value == "gate"
    assert {p.name for p in PRESETS_DIR.glob("*.yaml")} == {f"{n}.yaml" for n in store.names()}


def test_selection_by_tenant_model_and_request(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", policy_text("hospital", tenants="[hospital-a]"))
    write(tmp_path / "b.yaml", policy_text("gpt4-any", models='["gpt-4*"]'))
    write(
        tmp_path / "c.yaml", policy_text("hospital-gpt4", tenants="[hospital-a]", models="[gpt-4o]")
    )
    write(tmp_path / "d.yaml", policy_text("vets", tenants='["vet-*"]'))
    store = PolicyStore(tmp_path)
    assert store.select(tenant="hospital-a", model="gpt-4o").name == "hospital-gpt4"
    assert store.select(tenant="hospital-a", model="llama").name == "hospital"  # tenant > model
    assert store.select(tenant="someone", model="gpt-4-turbo").name == "gpt4-any"
    assert store.select(tenant="vet-clinic-3", model="x").name == "vets"
    assert store.select(tenant="someone", model="llama").name == "default"  # preset fallback
    assert store.select(tenant="hospital-a", requested="research").name == "research"
    with pytest.raises(PolicyNotFound):
        store.select(requested="nope")


def test_no_match_and_no_default(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", policy_text("only", tenants="[a]"))
    store = PolicyStore(tmp_path, include_presets=False)
    assert store.select(tenant="a").name == "only"
    with pytest.raises(PolicyNotFound, match="no default"):
        store.select(tenant="b")


def test_user_directory_overrides_a_preset_name(tmp_path: Path) -> None:
    write(tmp_path / "default.yaml", policy_text("default", action="block"))
    errors: list[Path] = []
    store = PolicyStore(tmp_path, on_reload_error=lambda path, _: errors.append(path))
    assert store.get("default").sentence_rules[0].action.value == "block"
    assert errors == [PRESETS_DIR / "default.yaml"]  # the clash is reported once, not hidden


def test_reload_picks_up_changes_and_keeps_old_on_invalid(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "ward.yaml"
    write(path, policy_text("ward", action="flag"))
    seen: list[tuple[Path, PolicyFileError]] = []
    store = PolicyStore(
        tmp_path, include_presets=False, on_reload_error=lambda p, e: seen.append((p, e))
    )
    assert store.get("ward").sentence_rules[0].action.value == "flag"
    assert store.reload() is False  # nothing changed

    write(path, policy_text("ward", action="block"))
    assert store.reload() is True
    assert store.get("ward").sentence_rules[0].action.value == "block"

    with caplog.at_level(logging.WARNING, logger="policies.store"):
        write(path, policy_text("ward", action="block").replace("when:", "wehn:"))
        store.reload()
    assert store.get("ward").sentence_rules[0].action.value == "block"  # old one stays
    assert store.reload_errors == 1
    [(bad_path, error)] = seen
    assert bad_path == path
    assert "sentence_rules[0].wehn" in {issue.key for issue in error.issues}
    assert "keeping the previous version of 'ward'" in caplog.text
    store.reload()
    assert store.reload_errors == 1  # the same bad file is not counted again

    write(path, policy_text("ward", action="redact"))
    store.reload()
    assert store.get("ward").sentence_rules[0].action.value == "redact"

    path.unlink()
    store.reload()
    assert store.names() == ()


def test_new_invalid_file_is_rejected(tmp_path: Path) -> None:
    store = PolicyStore(tmp_path, include_presets=False)
    write(tmp_path / "x.yml", "name: x\nstream_mode: sideways\n")
    store.reload()
    assert store.names() == ()
    assert store.reload_errors == 1


def test_background_polling_reloads(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    write(path, policy_text("p", action="flag"))
    reloaded = threading.Event()
    store = PolicyStore(tmp_path, include_presets=False, poll_seconds=0.02)
    with store:
        write(path, policy_text("p", action="block"))
        for _ in range(250):  # wait for the poller (a condition, not a timing assertion)
            if store.get("p").sentence_rules[0].action.value == "block":
                reloaded.set()
                break
            threading.Event().wait(0.02)
    assert reloaded.is_set()
    assert store._thread is None  # stopped on exit


def test_the_configured_default_is_the_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """verification.default_policy wins over every catch-all (``*``), the shipped ``default``
    included; a catch-all that can therefore never apply is logged when it is loaded."""
    assert PolicyStore(default="clinical-strict").select(tenant="t", model="m").name == (
        "clinical-strict"
    )
    write(tmp_path / "house.yaml", policy_text("house", tenants='["*"]'))
    with caplog.at_level(logging.WARNING, logger="policies.store"):
        store = PolicyStore(tmp_path, default="clinical-strict")
    assert store.select(tenant="t", model="m").name == "clinical-strict"
    assert store.select(tenant=None, model=None).name == "clinical-strict"
    assert "policy 'house' is never selected by its match" in caplog.text
    assert "default_policy: house" in caplog.text
    # Named as the default, the catch-all is the default, and nothing is shadowed.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="policies.store"):
        assert PolicyStore(tmp_path, default="house").select(tenant="t").name == "house"
    assert "never selected" not in caplog.text
    # A default that does not exist leaves the catch-all in force rather than failing.
    assert PolicyStore(tmp_path, default="missing").select(tenant="t").name == "house"


def test_a_specific_match_still_beats_the_default(tmp_path: Path) -> None:
    write(tmp_path / "vets.yaml", policy_text("vets", tenants='["vet-*"]'))
    write(tmp_path / "any-gpt.yaml", policy_text("any-gpt", tenants='["*"]', models='["gpt-*"]'))
    store = PolicyStore(tmp_path, default="research")
    assert store.select(tenant="vet-1", model="llama").name == "vets"
    assert store.select(tenant="acme", model="gpt-4o").name == "any-gpt"
    assert store.select(tenant="acme", model="llama").name == "research"


def test_two_policies_with_the_same_match_are_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path / "a.yaml", policy_text("ward-a", tenants="[ward]"))
    write(tmp_path / "b.yaml", policy_text("ward-b", tenants="[ward]"))
    with caplog.at_level(logging.WARNING, logger="policies.store"):
        store = PolicyStore(tmp_path)
    assert store.select(tenant="ward").name == "ward-a"
    assert "policy 'ward-b' is never selected by its match: policy 'ward-a'" in caplog.text


def test_the_poller_never_takes_a_half_written_file(tmp_path: Path) -> None:
    """Issue 26 item 12: a file cut before its ``sentence_rules`` is a valid, weaker policy; a
    non-atomic rewrite exposed it. The poller takes a file only once it stopped changing."""
    path = tmp_path / "bound.yaml"
    full = policy_text("bound", action="block")
    write(path, full)
    store = PolicyStore(tmp_path, include_presets=False)
    assert store.get("bound").sentence_rules
    cut = full[: full.index("sentence_rules")]
    write(path, cut)  # the writer is halfway
    assert store.reload(settle=True) is False  # seen once: not taken yet
    assert store.get("bound").sentence_rules
    write(path, full.replace("block", "redact"))  # the write completes
    assert store.reload(settle=True) is False  # changed again since the last poll
    assert store.get("bound").sentence_rules[0].action.value == "block"
    assert store.reload(settle=True) is True  # unchanged for a poll: taken whole
    assert store.get("bound").sentence_rules[0].action.value == "redact"
    assert store.reload_errors == 0


def test_a_rename_is_taken_at_the_next_settled_poll(tmp_path: Path) -> None:
    path = tmp_path / "bound.yaml"
    write(path, policy_text("bound", action="block"))
    store = PolicyStore(tmp_path, include_presets=False)
    staged = tmp_path / "bound.yaml.tmp"  # not a policy file
    write(staged, policy_text("bound", action="redact"))
    assert store.reload(settle=True) is False
    staged.replace(path)
    store.reload(settle=True)
    assert store.reload(settle=True) is True
    assert store.get("bound").sentence_rules[0].action.value == "redact"
