"""Values from another arm or measure: wrong claims that take a value the evidence's sentence
gives to other words, and correct claims beside them, through the engine.

14 PubMedQA abstracts (MIT) drawn at random (seed 707) among those with a sentence holding
values of one unit in two or more groups; for each, a wrong claim that takes another group's
value and a correct one, written as chat models write (27 claims, written after the
attribution reading of the numbers check was built, none from its tests). Each claim cites its
abstract, the only evidence record, as ``veriproxy check --evidence`` reads it (default
verifier, bundled model). Prints each verdict, ``needs_review`` and the failed checks, then
the counts: wrong claims ``supported`` and unmarked, correct claims ``contradicted`` and
unmarked, and either way supported or marked.

``python bench/other_arm.py`` (about a minute; needs ../shared/data).
"""

from __future__ import annotations

import json

from verifiers.config import verifier_config
from verifiers.engine import Verifier
from verifiers.eval.data import data_dir
from verifiers.windows import make_evidence

# (PMID, whether the claim is right, the claim)
CLAIMS = [
    ("25394614", False, "Infants given early surfactant had a mean gestational age of 29.4 weeks."),
    ("25394614", False, "CLD and mortality reached 20.0% in the early surfactant group."),
    (
        "25394614",
        True,
        "Infants in the early surfactant group were less mature, at 27.1 weeks on average.",
    ),
    ("26348845", False, "A glandular cell abnormality was found in 36.4% of samples."),
    (
        "26348845",
        True,
        "Of the 107 samples with a glandular cell abnormality, 36.4% were flagged by RPS.",
    ),
    ("10811329", False, "In all, 130 children had a 99mTc-WBC scan."),
    ("10811329", True, "A total of 313 children underwent a 99mTc-WBC scan."),
    ("26686513", False, "Cycloplegic refraction was performed 10 min after the drops."),
    ("26686513", True, "Refraction was measured 40 min after the second drop."),
    ("21398266", False, "64% of the patients had pain."),
    ("21398266", True, "About 80% of patients had pain."),
    ("23283159", False, "The incidence of wheezing was 4.5%."),
    ("23283159", True, "Wheezing incidence was 7.5%."),
    ("27581329", False, "The Harris-Benedict equation was accurate in 37% of cases."),
    ("27581329", True, "The Harris-Benedict equation was accurate in 45% of cases."),
    ("26079501", False, "Base excess was present in 81.5% of patients."),
    ("26079501", True, "Base deficit was found in 81.5% of patients."),
    ("21864397", False, "Median overall survival with combined therapy was 45.6 months."),
    ("21864397", True, "Combined therapy gave a median overall survival of 73.7 months."),
    ("25186850", False, "The FE track enrolled 110 participants."),
    ("25186850", True, "The SE track had 110 participants."),
    (
        "17096624",
        False,
        "Doubters, who were unsure whether the vaccine works, made up 19% of respondents.",
    ),
    ("17096624", True, "Doubters made up 27% of the sample."),
    ("27690714", False, "With the adult bag-valve mask, median volumes started at 570.5 mL."),
    (
        "27690714",
        True,
        "The pediatric bag-valve mask delivered median volumes of 570.5 to 664.0 mL.",
    ),
    ("27217036", False, "Exon 9 mutations were seen in 55.5% of patients."),
    ("27217036", True, "Exon 11 mutations were found in 55.5% of patients."),
]


def main() -> None:
    records = json.loads((data_dir() / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    verifier = Verifier.from_config(verifier_config({}))
    wrong_passed = right_flagged = wrong_caught = right_kept = 0
    for pmid, right, claim in CLAIMS:
        record = records[pmid]
        evidence = [
            make_evidence(
                pmid, record["QUESTION"], " ".join(record["CONTEXTS"]), retriever="client"
            )
        ]
        (sentence,) = verifier.verify(f"{claim} [PMID:{pmid}]", evidence).sentences
        verdict, marked = sentence.verdict.value, sentence.needs_review
        failed = sorted({c.name for cl in sentence.claims for c in cl.checks if not c.passed})
        label = "right" if right else "wrong"
        print(f"{label} {verdict:20} review={marked!s:5} {','.join(failed):30} | {claim}")
        if right:
            right_flagged += verdict == "contradicted" and not marked
            right_kept += verdict == "supported" or marked
        else:
            wrong_passed += verdict == "supported" and not marked
            wrong_caught += verdict != "supported" or marked
    wrong, right = sum(not r for _, r, _ in CLAIMS), sum(r for _, r, _ in CLAIMS)
    print(f"wrong claims supported and unmarked: {wrong_passed} of {wrong}", end="; ")
    print(f"caught or marked: {wrong_caught}")
    print(f"right claims contradicted and unmarked: {right_flagged} of {right}", end="; ")
    print(f"supported or marked: {right_kept}")


if __name__ == "__main__":
    main()
