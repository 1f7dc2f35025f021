"""The annotate mode's background verifier, with the real bundled verifier and a real policy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from policies import PolicyStore
from proxy.evidence.documents import client_documents
from proxy.verification.annotate import Background
from proxy.verification.session import VerificationSession
from verifiers.config import verifier_config
from verifiers.engine import Verifier

DOC = json.loads((Path(__file__).parents[2] / "fixtures" / "pubmedqa_12442934.json").read_text())
FIRST = "Pretreatment with ibuprofen increases perioperative blood loss [PMID:12442934]. "
SECOND = "Fifty patients were scheduled for total hip replacement [PMID:12442934]. "


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier.from_config(verifier_config({"nli": {"name": "bundled", "threads": 1}}))


def test_annotations_finished_during_a_take_are_not_lost(verifier: Verifier) -> None:
    evidence = client_documents([{"pmid": DOC["pmid"], "title": DOC["title"], "text": DOC["text"]}])
    session = VerificationSession(verifier, PolicyStore().get("default"), evidence, timeout=60)

    async def run() -> tuple[list[int], list[int]]:
        worker = Background(session)
        worker.push(FIRST + SECOND)  # completes the first sentence; the second waits for more
        await asyncio.sleep(0)  # the background task is now inside the verifier call
        early = worker.take()  # taken while the call is running: nothing is ready yet
        late = await worker.drain()
        return [s.annotation.index for s in early], [s.annotation.index for s in late]

    early, late = asyncio.run(run())
    assert early == [] and late == [0]
