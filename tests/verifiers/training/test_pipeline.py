"""train-nli's work directory: a resume must read the pairs its checkpoints counted through."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from verifiers.errors import ResumeMismatch, VerifierError
from verifiers.training.pipeline import RUN_FILE, PipelineConfig, _mark_data


def test_a_resume_under_other_data_settings_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "work"
    config = PipelineConfig(tmp_path, tmp_path / "out", work, tmp_path, recipe="v2", max_length=256)
    _mark_data(config)
    assert (work / RUN_FILE).exists()
    _mark_data(replace(config, resume=True))  # the same settings resume
    for other in (
        replace(config, recipe="v1"),
        replace(config, max_length=128),
        replace(config, max_pairs=16),
        replace(config, seed=14),
    ):
        with pytest.raises(ResumeMismatch, match="resume with those settings") as raised:
            _mark_data(replace(other, resume=True))
        assert isinstance(raised.value, VerifierError)
