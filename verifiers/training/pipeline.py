"""``veriproxy train-nli`` end to end: data → stage one (general NLI) → stage two (biomedical)
→ ONNX → int8 → parity → calibrated thresholds → model directory (graph, tokenizer,
``nli_config.json``, ``MODEL_CARD.md``).

Each stage trains in its own folder under ``work_dir`` with its own checkpoints, so ``--resume``
picks up wherever the run stopped; stage two starts from stage one's weights.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from verifiers.engine import Verifier
from verifiers.errors import ResumeMismatch
from verifiers.nli.bundled import CONFIG_FILE, BundledNLI, load_tokenizer
from verifiers.training import benchmarks, card, confidence
from verifiers.training.aggregate import RuleChoice, choose_rule
from verifiers.training.dataset import VALIDATION_FRACTION, StageData, build_stages
from verifiers.training.evaluate import score_items
from verifiers.training.examples import LABEL_NAMES
from verifiers.training.export import INPUT_NAMES, OUTPUT_NAME, export_onnx, parity, quantize
from verifiers.training.general import snli_test
from verifiers.training.model import FactorizedNLI
from verifiers.training.recipe import DEFAULT_RECIPE, RECIPES
from verifiers.training.reviews import SOURCE as REVIEWS
from verifiers.training.reviews import review_examples
from verifiers.training.train import (
    TrainConfig,
    is_finished,
    predict_labels,
    train,
    trained_on,
)

log = logging.getLogger(__name__)

INT8_FILE = "model.int8.onnx"
FP32_FILE = "model.fp32.onnx"
TOKENIZER_FILE = "tokenizer.json"
WINDOW_SIZES = (1, 2)


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    data_dir: Path
    out: Path
    work_dir: Path
    base_path: Path
    epochs: int = 1
    general_epochs: int = 1
    max_length: int = 128
    max_pairs: int | None = None
    threads: int = 2
    seed: int = 13
    resume: bool = False
    max_steps: int | None = None
    precision: Literal["fp32", "bf16"] = "bf16"
    device: str = "cpu"  # where both stages train ("cuda": an NVIDIA GPU); the rest runs on CPU
    # At most this share of held-out supported claims called contradicted (None: macro-F1 only).
    false_alarm_ceiling: float | None = None
    reviews: Path | None = None  # ``veriproxy review export`` rows for the biomedical stage
    recipe: str = DEFAULT_RECIPE  # which sources each stage reads (``verifiers.training.recipe``)


def _snli_accuracy(model: FactorizedNLI, config: PipelineConfig) -> float:
    rows = snli_test(config.data_dir)
    if config.max_pairs is not None:
        rows = rows[: max(config.max_pairs // 4, 8)]
    tokenizer = load_tokenizer(config.base_path / TOKENIZER_FILE, config.max_length)
    predicted = predict_labels(model, tokenizer, rows, device=config.device)
    return sum(p == r.label for p, r in zip(predicted, rows, strict=True)) / len(rows)


# Beside stage one's weights: its SNLI test accuracy, so that a run resumed after stage two
# finished (or whose stages trained on another machine) needs neither stage one's weights nor
# its evaluation again.
SNLI_FILE = "snli_test_accuracy.json"


def stage_configs(config: PipelineConfig) -> tuple[TrainConfig, TrainConfig]:
    """Stage one's and stage two's training settings; stage two starts from stage one."""
    stage_one = TrainConfig(
        base_path=str(config.base_path),
        work_dir=config.work_dir / "general",
        epochs=config.general_epochs,
        max_length=config.max_length,
        seed=config.seed,
        threads=config.threads,
        max_steps=config.max_steps,
        precision=config.precision,
        device=config.device,
    )
    stage_two = replace(
        stage_one,
        work_dir=config.work_dir / "biomedical",
        epochs=config.epochs,
        init_weights=stage_one.work_dir / "model.pt",
    )
    return stage_one, stage_two


def train_stages(config: PipelineConfig, data: StageData) -> tuple[FactorizedNLI, float]:
    """Trains (or resumes) both stages; returns the final model and stage one's SNLI test
    accuracy. Stage one is skipped when stage two has already finished."""
    stage_one, stage_two = stage_configs(config)
    tokenizer_path = config.base_path / TOKENIZER_FILE
    recorded = stage_one.work_dir / SNLI_FILE
    if is_finished(stage_two, len(data.mixed.train)) and recorded.exists():
        snli_general = float(json.loads(recorded.read_text(encoding="utf-8"))["accuracy"])
    else:
        log.info("stage one data: %s", data.general.summary())
        model = train(stage_one, data.general.train, tokenizer_path)
        snli_general = _snli_accuracy(model, config)
        recorded.write_text(json.dumps({"accuracy": snli_general}) + "\n", encoding="utf-8")
    log.info("stage one: SNLI test accuracy %.3f", snli_general)
    log.info("stage two data: %s", data.biomedical.summary())
    log.info("stage two rehearses %d of stage one's pairs", data.rehearsed)
    return train(stage_two, data.mixed.train, tokenizer_path), snli_general


def stage_data(config: PipelineConfig) -> StageData:
    """Both stages' pairs under the config's recipe (no training)."""
    recipe = RECIPES[config.recipe]
    reviewed = review_examples(config.reviews) if config.reviews is not None else []
    tokenizer_path = config.base_path / TOKENIZER_FILE
    return build_stages(
        config.data_dir,
        config.seed,
        config.max_pairs,
        reviewed,
        recipe.general,
        recipe.stage_two(tokenizer_path, config.max_length),
        recipe.repeats,
        recipe.emphasis,
    )


def run(config: PipelineConfig) -> Path:
    """Reproduces the bundled model into ``config.out``; returns that directory."""
    work = config.work_dir
    if not config.resume and work.exists():
        shutil.rmtree(work)
    _mark_data(config)

    data = stage_data(config)
    general, splits = data.general, data.biomedical
    log.info("recipe %s, pairs per source:\n%s", config.recipe, data.table())
    model, snli_general = train_stages(config, data)
    snli_final = _snli_accuracy(model, config)
    log.info("stage two: SNLI test accuracy %.3f", snli_final)

    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    fp32 = work / FP32_FILE
    export_onnx(model, fp32)
    kept = quantize(fp32, out / INT8_FILE)
    shutil.copyfile(config.base_path / TOKENIZER_FILE, out / TOKENIZER_FILE)
    _write_config(out, config, {})

    int8_backend = BundledNLI(out, threads=config.threads)
    fp32_backend = BundledNLI(out, threads=config.threads, model_file=str(fp32.resolve()))
    check = parity(fp32_backend, int8_backend, splits.validation)
    log.info("parity: %s (passed: %s)", check, check.passed)

    choice, items = _choose_rule(int8_backend, config)
    thresholds = choice.thresholds

    stage_two = stage_configs(config)[1]
    training = {
        "settings": {
            k: v
            for k, v in asdict(stage_two).items()
            if k not in {"base_path", "work_dir", "init_weights", "device", "checkpoint_seconds"}
        }
        | {
            "base_model": "sentence-transformers/all-MiniLM-L6-v2",
            "trained_on": trained_on(stage_two),
            "general_epochs": config.general_epochs,
            "recipe": config.recipe,
        },
        "pairs": {
            "general": len(general.train),
            "train": len(splits.train),
            "rehearsed": data.rehearsed,
            "reviewed": {
                "train": sum(e.source == REVIEWS for e in splits.train),
                "validation": sum(e.source == REVIEWS for e in splits.validation),
            },
            "validation": len(splits.validation),
        },
        "pairs_by_source": data.by_source(),
        "snli_test_accuracy": {"stage_one": round(snli_general, 4), "final": round(snli_final, 4)},
        "parity": asdict(check) | {"passed": check.passed},
        "precision_kept": kept,
        **_calibration_record(choice, items, config),
    }
    _write_config(out, config, training, asdict(thresholds))
    _fit_confidence(out, config)
    card.write(out)
    return out


RUN_FILE = "run.json"


def _mark_data(config: PipelineConfig) -> None:
    """Records in the work directory what decides the pairs, and refuses to resume a run under
    other settings: its checkpoints count steps through the pairs it was started with."""
    settings = {
        "recipe": config.recipe,
        "max_length": config.max_length,
        "max_pairs": config.max_pairs,
        "seed": config.seed,
    }
    marker = config.work_dir / RUN_FILE
    if marker.exists():
        started = json.loads(marker.read_text(encoding="utf-8"))
        if started != settings:
            raise ResumeMismatch(
                f"{config.work_dir} holds a run started with {started}, not {settings}: "
                "resume with those settings, or use another --work-dir"
            )
    config.work_dir.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(settings) + "\n", encoding="utf-8")


def _fit_confidence(out: Path, config: PipelineConfig) -> None:
    """The confidence model of the finished model (its version is final once the thresholds
    are written): P(verdict right) and the default review threshold."""
    pairs = config.max_pairs
    confidence.fit_for(
        Verifier(BundledNLI(out, threads=config.threads)),
        config.data_dir,
        out,
        max_answers=confidence.DEFAULT_MAX_ANSWERS if pairs is None else max(pairs // 400, 2),
        max_claims=None if pairs is None else max(pairs // 8, 4),
        seed=config.seed,
    )


def _choose_rule(backend: BundledNLI, config: PipelineConfig) -> tuple[RuleChoice, int]:
    """The claim-level rule and thresholds, by cross-validation on held-out training claims."""
    items = benchmarks.validation(config.data_dir, VALIDATION_FRACTION)
    if config.max_pairs is not None:
        items = items[: max(config.max_pairs // 8, 4)]
    log.info("calibrating the decision rule on %d held-out training claims", len(items))
    scored = score_items(backend, items, WINDOW_SIZES)
    choice = choose_rule(scored, [i.label for i in items], config.seed, config.false_alarm_ceiling)
    log.info(
        "decision rule %s on %d held-out claims, cross-validated macro-F1 %s, supported "
        "claims called contradicted %s",
        choice.thresholds.rule,
        len(items),
        {k: round(v, 3) for k, v in choice.cv_macro_f1.items()},
        {k: round(v, 3) for k, v in choice.cv_false_alarms.items()},
    )
    return choice, len(items)


def _calibration_record(
    choice: RuleChoice, items: int, config: PipelineConfig
) -> dict[str, object]:
    return {
        "calibration_items": items,
        "false_alarm_ceiling": config.false_alarm_ceiling,
        "calibration_cv_macro_f1": {k: round(v, 4) for k, v in choice.cv_macro_f1.items()},
        "calibration_cv_false_alarms": {k: round(v, 4) for k, v in choice.cv_false_alarms.items()},
    }


def recalibrate(config: PipelineConfig) -> Path:
    """Calibrates the decision rule of the model already in ``config.out`` again (its graph
    unchanged) and rewrites its config and card. The version changes with the thresholds, and
    benchmark figures recorded under the old ones are dropped."""
    out = config.out
    document = json.loads((out / CONFIG_FILE).read_text(encoding="utf-8"))
    # The graph's own pair length, whatever the command line's recipe would default to.
    config = replace(config, max_length=int(document["max_length"]))
    choice, items = _choose_rule(BundledNLI(out, threads=config.threads), config)
    training = document.get("training", {}) | _calibration_record(choice, items, config)
    (out / card.METRICS_FILE).unlink(missing_ok=True)
    _write_config(out, config, training, asdict(choice.thresholds))
    card.write(out)
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_config(
    out: Path,
    config: PipelineConfig,
    training: dict[str, object],
    thresholds: dict[str, object] | None = None,
) -> None:
    digest = _sha256(out / INT8_FILE)
    thresholds = thresholds or {"contradiction": 0.5, "entailment": 0.5}
    # Named after the graph and the calibrated thresholds: a change to either changes verdicts.
    named = hashlib.sha256((digest + json.dumps(thresholds, sort_keys=True)).encode()).hexdigest()
    document = {
        "version": f"veriproxy-nli-minilm-{named[:12]}",
        "labels": list(LABEL_NAMES),
        "max_length": config.max_length,
        "input_names": list(INPUT_NAMES),
        "output_name": OUTPUT_NAME,
        "model_file": INT8_FILE,
        "tokenizer_file": TOKENIZER_FILE,
        "thresholds": thresholds,
        "window_sizes": list(WINDOW_SIZES),
        "sha256": {INT8_FILE: digest, TOKENIZER_FILE: _sha256(out / TOKENIZER_FILE)},
        "training": training,
    }
    (out / CONFIG_FILE).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
