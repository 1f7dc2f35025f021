"""The shared case of the verification end-to-end tests: a PubMedQA abstract (PMID 12442934,
ibuprofen and perioperative blood loss) sent as the client's own evidence, and answer sentences
the verifier must call supported, contradicted (a tenfold dose) or an invalid citation."""

from __future__ import annotations

import json
from pathlib import Path

DOC = json.loads((Path(__file__).parents[1] / "fixtures" / "pubmedqa_12442934.json").read_text())
DOCUMENTS = [{"pmid": DOC["pmid"], "title": DOC["title"], "text": DOC["text"]}]
QUESTION = [{"role": "user", "content": DOC["title"]}]
SUPPORTED = (
    "Pretreatment with ibuprofen before elective total hip surgery increases the perioperative "
    "blood loss [PMID:12442934]."
)
# The abstract's own result sentence: supported at a confidence above the shipped review
# threshold (SUPPORTED, a restated conclusion, is supported too but the model's stance on it is
# 0.51, so it needs review).
CLEAN = (
    "The perioperative blood loss increased by 45% in the ibuprofen group compared with placebo "
    "[PMID:12442934]."
)
WRONG_DOSE = (
    "All patients were injected intrathecally with bupivacaine 200 mg plus morphine 0.1 mg "
    "[PMID:12442934]."
)
FABRICATED = "Ibuprofen also halves the rate of wound infection [PMID:31415926]."
# Generous: these tests check what is verified, not how fast (CI machines may be busy).
VERIFICATION = {"enabled": True, "timeout_seconds": 300}
