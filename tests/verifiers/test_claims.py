from __future__ import annotations

import httpx
import pytest
import respx

from bench.hidden_findings import FINDINGS, TALK_SHAPES, fill
from verifiers.checkworthy import bare_term, is_checkworthy, list_lead
from verifiers.claims import LLMDecomposer, RuleDecomposer, create_decomposer


@pytest.mark.parametrize(
    "sentence",
    [
        "What is the recommended dose?",
        "Hello! ",
        "Here is a summary of the evidence:",
        "I hope this helps.",
        "It is unclear whether zinc shortens colds.",
        "Please consult your doctor before changing medication.",
        "## Summary",
        # An opener and nothing that asserts anything after it.
        "In summary:",
        "Certainly! Here is what the abstracts say:",
        "In conclusion, further research is needed.",
        "To summarize, the evidence is mixed.",
        # A yes or no and nothing that asserts anything after it.
        "Yes, more research is needed.",
        "No. I cannot say.",
        # Every piece is meta talk.
        "Thank you for your question.",
        "I hope this helps, and let me know if you have questions.",
        "Here are the key results:",
        "According to the studies reviewed here, no.",
        "The evidence is mixed.",
        # PubMedQA 14518645's and 24785562's conclusions (MIT): the second piece goes on with
        # the first; an adverb is no assertion.
        "More research is needed into the effects of unemployment and being single on the "
        "health of young men, and to investigate the motivations behind risk taking and "
        "self-destructive behaviour.",
        "However, more research is needed to examine the role of dexamethasone in hospitalized "
        "children.",
    ],
)
def test_not_checkworthy(sentence: str) -> None:
    assert not is_checkworthy(sentence)


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("Hello, statins reduce LDL by 50%.", "statins reduce LDL by 50%."),
        ("Thanks to its long half-life, apixaban is dosed twice daily.", "Thanks to its long"),
        ("Please note that metformin is contraindicated in renal failure.", "metformin is"),
        ("Here are the key results: statins cut mortality by 30%.", "statins cut mortality"),
        ("Based on the provided evidence, metformin lowers HbA1c.", "metformin lowers HbA1c."),
        # Without a comma the source named once made the whole sentence meta talk.
        ("Based on the studies statins reduce LDL by 30%.", "statins reduce LDL by 30%."),
        ("According to the evidence provided metformin lowers HbA1c.", "metformin lowers HbA1c."),
        ("Based on the evidence provided, statins reduce LDL.", "statins reduce LDL."),
        ("The following drugs reduce mortality: beta-blockers and ACE inhibitors.", "The follow"),
        ("The evidence is mixed, but most trials found no benefit of vitamin D.", "most trials"),
        ("I cannot give medical advice, but ibuprofen raises bleeding risk.", "ibuprofen raises"),
        ("Consult your doctor before combining warfarin with aspirin, because bleeding risk "
         "doubles.", "Consult your doctor before combining warfarin"),
        ("Studies are limited to small cohorts of fewer than 50 patients.", "Studies are limited"),
        ("Hi-C maps reveal chromatin loops in T cells.", "Hi-C maps"),
    ],
)  # fmt: skip
def test_meta_talk_never_hides_the_finding_it_opens(sentence: str, claim: str) -> None:
    """A greeting, an introducer, a lead-in or a disclaimer before a finding once made the whole
    sentence not check-worthy: the finding went out unverified (and, in gate mode, unblocked).
    The claim now starts after a greeting, an introducer or a lead-in; a disclaimer that is a
    clause of its own is no claim, one that holds what the claim is about stays in it."""
    assert is_checkworthy(sentence)
    claims = RuleDecomposer().decompose(sentence)
    assert claims[0].text.startswith(claim)
    assert all(sentence[c.start : c.end] == c.text for c in claims)


# Meta talk run on into a finding with no comma between: each was read whole as meta talk, so
# the finding was `not_checkworthy`, went out unverified and passed gate mode (a hostile
# upstream's way past a block). Before 2026-12-05, 244 of these 495 sentences went out so
# (`python bench/hidden_findings.py`).
@pytest.mark.parametrize("finding", FINDINGS)
@pytest.mark.parametrize("talk", TALK_SHAPES)
def test_meta_talk_run_on_into_a_finding_is_checked(talk: str, finding: str) -> None:
    sentence = fill(talk, finding)
    assert is_checkworthy(sentence)
    claims = RuleDecomposer().decompose(sentence)
    assert finding in " ".join(c.text for c in claims)
    assert all(sentence[c.start : c.end] == c.text for c in claims)


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        # A clause after "but", "because" or "since" stands alone, as does one that the talk
        # asserts or presupposes: the claim is what plain prose would say.
        ("This is not medical advice but statins cut LDL by 30%.", "statins cut LDL by 30%."),
        ("I\u2019m not a doctor but ibuprofen raises bleeding risk.", "ibuprofen raises"),
        ("I'm not a doctor but yes, statins cut LDL by 30%.", "statins cut LDL by 30%."),
        ("Consult your doctor because warfarin doubles bleeding risk.", "warfarin doubles"),
        ("I cannot stress enough that metformin lowers HbA1c.", "metformin lowers HbA1c."),
        ("I am not surprised that metformin lowers HbA1c.", "metformin lowers HbA1c."),
        ("I cannot stress enough that, in adults, statins cut LDL.", "in adults, statins"),
        ("It is unclear why aspirin reduces stroke risk.", "aspirin reduces stroke risk."),
        # The talk stays where it doubts or denies what follows, where "that" opens a relative
        # clause, and after "how" (which may ask what is not yet so).
        ("It is not clear that metformin lowers HbA1c.", "It is not clear that metformin"),
        ("I cannot say that metformin lowers HbA1c.", "I cannot say that metformin"),
        ("Here are the trials that showed statins cut LDL.", "Here are the trials that"),
        ("It is not clear how aspirin reduces stroke risk.", "It is not clear how aspirin"),
    ],
)  # fmt: skip
def test_the_claim_after_run_on_talk_starts_where_it_is_asserted(sentence: str, claim: str) -> None:
    assert RuleDecomposer().decompose(sentence)[0].text.startswith(claim)


@pytest.mark.parametrize(
    "sentence",
    [
        "I hope this helps you make an informed decision.",
        "Let me know if you would like more details on any of these studies.",
        "Feel free to ask if there is anything else that you would like to know.",
        "Please consult your doctor before starting any new medication.",
        "Please consult a healthcare provider before making any changes to your treatment.",
        # The talk goes on in a relative clause (but "..., who will confirm that X" asserts X).
        "Please consult your physician, who can tailor the advice to your situation.",
        "This is not medical advice; always consult a professional.",
        "As an AI, I can only summarise the evidence provided.",
        "I hope this information is useful.",
        "More research is needed to confirm these findings.",
        "More research is needed in larger populations.",
        "It is unclear whether the benefit persists beyond one year.",
        "It is not clear how long the effect lasts.",
        "I don't know of any trials in children.",
        "I cannot stress enough that more research is needed.",
        "I cannot say for certain that this will work for you.",
        "As an AI language model, I cannot give personal medical advice.",
        "I\u2019m not a doctor.",  # a curly apostrophe, as chat models write it
        "I can\u2019t give medical advice.",
        "Here is a summary of what the evidence says about statins and LDL.",
        "Here are the main side effects reported in the trials:",  # the list after it is checked
        "Thank you so much.",
        "Thank you for your question about statins and muscle pain.",
    ],
)
def test_meta_talk_that_only_goes_on_is_not_checkworthy(sentence: str) -> None:
    assert not is_checkworthy(sentence)


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("Statins cause diabetes, don't they?", "Statins cause diabetes"),
        ("Aspirin halves stroke risk, right?", "Aspirin halves stroke risk"),
        ("Did you know that bleach cures COVID-19 in 90% of patients?",
         "bleach cures COVID-19 in 90% of patients?"),
        ("Hello, did you know statins cut LDL by 50%?", "statins cut LDL by 50%?"),
        ("Isn't it true that smoking is harmless?", "smoking is harmless?"),
        ("Is it not the case that the recommended dose is 4 g daily?",
         "the recommended dose is 4 g daily?"),
        ("Who knew aspirin halves stroke risk?", "aspirin halves stroke risk?"),
        # "Why do you think X?" and "How come X?" take X as given, as "Why X?" does not say.
        ("Why do you think vitamin C prevents colds?", "vitamin C prevents colds?"),
        ("Why is it that statins cause diabetes?", "statins cause diabetes?"),
        ("How come ivermectin eliminates SARS-CoV-2?", "ivermectin eliminates SARS-CoV-2?"),
    ],
)  # fmt: skip
def test_a_question_that_asserts_is_checked(sentence: str, claim: str) -> None:
    """A tag question asserts what comes before its tag, and "Did you know that X?" takes X as
    known: every question was `not_checkworthy`, so a finding asked went out unverified."""
    assert is_checkworthy(sentence)
    assert [c.text for c in RuleDecomposer().decompose(sentence)] == [claim]


@pytest.mark.parametrize(
    "sentence",
    [
        "Is it true that statins cause diabetes?",  # the user's question, asked back
        "Does aspirin reduce stroke risk in adults over 70?",
        "Would you like more details?",
        "Have you discussed this with your doctor?",
        "Do you want me to summarise the trials, or list them?",
        "Why do you think that is?",
        "Why do you ask?",
        "How come?",
    ],
)
def test_a_question_that_only_asks_is_not_checkworthy(sentence: str) -> None:
    assert not is_checkworthy(sentence)


@pytest.mark.parametrize(
    ("line", "checked"),
    [
        ("Mortality fell by 30%:", True),
        ("The recommended dose is 4 g daily:", True),
        ("Aspirin does not prevent stroke:", True),
        ("Key mechanisms include:", False),
        ("The main side effects are:", False),
        ("Common side effects in patients with COVID-19 include:", False),
        ("Patients should not take metformin if they:", False),
        ("None of the following:", False),
        # A clause its verb closes says something of its own, number or not.
        ("Aspirin halves stroke risk:", True),
        ("Statins cause diabetes:", True),
        ("Smoking is harmless:", True),
        ("Aspirin reduced mortality:", True),
        ("Insulin should be stopped before surgery:", True),
        ("Statins clearly cause diabetes:", True),
        ("Aspirin Halves Stroke Risk:", True),  # title case hides nothing
        # A verb of a finding that takes no object closes the line.
        ("Mortality fell:", True),
        ("Symptoms usually resolve:", True),
        ("Patients can recover:", True),
        ("Several markers increased:", False),
        # ... unless it announces a list, is left open, or is a title.
        ("Statins have several benefits:", False),
        ("There are risks:", False),
        ("What the studies show:", False),
        ("Patients are excluded if:", False),
        ("AEs related to treatment:", False),
        ("Histologically confirmed invasive breast cancer:", False),
        ("Mask use during COVID-19:", False),
        ("Peer Support Program:", False),
        ("The purpose of this cadaveric study was twofold:", False),
    ],
)
def test_a_short_line_before_a_colon_is_checked_when_it_states_a_finding(
    line: str, checked: bool
) -> None:
    """A short line that ends in a colon introduces a list, whose items are checked; one with a
    measured quantity, a negation or a verb its complement closes says something of its own
    (each went out unverified)."""
    assert is_checkworthy(line) is checked


@pytest.mark.parametrize(
    ("item", "term"),
    [
        ("Hirschsprung disease", "Hirschsprung disease"),
        ("**casirivimab**", "casirivimab"),
        ("**Key finding:** tenecteplase.", "tenecteplase"),  # the label names nothing
        ("airway smooth muscle", "airway smooth muscle"),
        ("fever", "fever"),
        ("IL-6", "IL-6"),  # a number in a name is no quantity
        ("age ≥70", None),  # a comparison: a finding, judged
        ("20% lower mortality", None),  # a number: a finding, judged
        ("Lowers LDL", None),  # a verb: a clause
        ("mild to moderate renal impairment in older adults", None),  # too long for a name
        ("**Yes**", None),  # an answer names nothing
        ("Key findings", None),  # nor does a label
    ],
)
def test_a_bare_term_only_names_something(item: str, term: str | None) -> None:
    assert bare_term(item) == term


@pytest.mark.parametrize(
    ("lead", "item", "claim_lead"),
    [
        # An item that is no clause of its own is read with the line that introduced it.
        ("The MLL4 complex core subunits are:", "WDR5", "The MLL4 complex core subunits are"),
        ("**Effector Treg cells express:**", "integrin αvβ8", "Effector Treg cells express"),  # noqa: RUF001 (as the abstract writes it)
        (
            "Patients should not take it if they:",
            "are pregnant",
            "Patients should not take it if they",
        ),
        ("Common side effects include:", "nausea and vomiting", "Common side effects include"),
        # An item that says something alone keeps its own words.
        ("Statins have several benefits:", "They lower LDL by 30%", None),
        # Talk, and labels with no verb, complete nothing.
        ("Here are the subunits:", "WDR5", None),
        ("Based on the provided abstracts:", "WDR5", None),
        ("Key findings:", "WDR5", None),
        ("References:", "WDR5", None),
    ],
)
def test_a_list_item_that_is_no_clause_is_read_with_its_lead(
    lead: str, item: str, claim_lead: str | None
) -> None:
    """A list of bare names ("The core subunits are:" then "- WDR5 [PMID:1]") went out
    unverified, however wrong its names; each item is now the claim its lead makes of it."""
    assert list_lead(lead, item) == claim_lead


@pytest.mark.parametrize(
    ("sentence", "second"),
    [
        # "it" stands for the clause after it: the first clause's subject is no part of it.
        (
            "Histone H4 becomes hyperacetylated, but it remains unclear whether this precedes "
            "E2F binding.",
            "it remains unclear whether this precedes E2F binding.",
        ),
        (
            "Most infected adults have mild disease, but it is unknown whether this induces "
            "lasting immune memory.",
            "it is unknown whether",
        ),
        # Before "to", a past participle raises the subject: "it" is the first clause's.
        (
            "The role of TNF in obesity is not fully understood, but it is thought to play a "
            "major role in fat storage.",
            "The role of TNF in obesity is thought to play",
        ),
    ],
)
def test_an_it_that_stands_for_what_follows_is_not_resolved(sentence: str, second: str) -> None:
    claims = RuleDecomposer().decompose(sentence)
    assert len(claims) == 2
    assert claims[1].text.startswith(second)


@pytest.mark.parametrize(
    ("heading", "label"),
    [
        ("Key findings", True),
        ("Benefits and risks", True),
        ("What the studies show", True),
        ("Statins reduce LDL", False),
        ("Drug X cures cancer", False),
        ("Aspirin halves stroke risk", False),  # verbs of effect the lexicon lacked
        ("Metformin doubled lactate levels", False),
        ("Colchicine alleviates gout flares", False),
        ("Double-dose regimens", True),
        ("Triple therapy outcomes", True),  # a base form that is as often an adjective
        ("Aspirin: no stroke benefit", False),
        ("Mortality fell by 30%", False),
        ("Dosing: 500 mg of metformin is taken twice daily with meals.", False),
    ],
)
def test_a_heading_is_checked_only_when_it_states_a_finding(heading: str, label: bool) -> None:
    """A markdown heading ("## Key findings") or a bold line on its own names what follows:
    it was judged as a sentence and flagged ``uncited``. One that states a finding is checked."""
    assert is_checkworthy(heading, heading=True) is not label
    assert is_checkworthy(f"**{heading}**") is not label


@pytest.mark.parametrize(
    "sentence",
    [
        "ALDH1 expression is associated with poorer prognosis in breast cancer.",
        "Treg-cell-specific deletion of integrin avb8 did not result in inflammation.",
        "The majority of COVID-19-positive patients were asymptomatic (81%, 104 patients).",
        # Words that begin like a greeting or a courtesy are not one ("hi", "sure").
        "High-dose aspirin reduced stroke risk in older adults.",
        "HIV infection increases the risk of tuberculosis.",
        "Surely the effect of surgery on survival was large in this trial.",
        # A conclusion is judged on what follows its opener, never skipped for it.
        "In summary, ibrutinib during CART cell culture improved yield and function.",
        "In conclusion, metformin lowered HbA1c by 1.2% compared with placebo.",
        "Of course, statins lower LDL cholesterol in adults.",
    ],
)
def test_checkworthy(sentence: str) -> None:
    assert is_checkworthy(sentence)


def test_rule_split_keeps_negation_quantities_and_time_with_their_clause() -> None:
    sentence = (
        "Aspirin reduced mortality by 20% at 30 days, but it did not reduce stroke in patients "
        "over 65; bleeding rose (p < 0.05; n = 300) in 2019."
    )
    claims = RuleDecomposer().decompose(sentence)
    assert [c.text for c in claims] == [
        "Aspirin reduced mortality by 20% at 30 days",
        "Aspirin did not reduce stroke in patients over 65",
        "bleeding rose (p < 0.05; n = 300) in 2019.",
    ]
    assert sentence[claims[1].start : claims[1].end].startswith("it did not reduce stroke")
    assert sentence[claims[2].start : claims[2].end] == claims[2].text


def test_rule_split_does_not_cut_lists_or_short_fragments() -> None:
    sentence = "Metformin, sulfonylureas, and insulin lower glucose."
    assert [c.text for c in RuleDecomposer().decompose(sentence)] == [sentence]


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("Yes, simvastatin decreases depressive symptoms.", "simvastatin decreases"),
        ("No, Pim-1 is a kinase and not a phosphatase.", "Pim-1 is a kinase"),
        ("yes,\nplatelets transport serotonin.", "platelets transport"),
        ("No. Indinavir is not effective in ALS.", "Indinavir is not"),
        # After a lead-in, as `eval shapes` writes the first sentence of its `lead_ins` shape.
        (
            "Based on the provided abstracts, yes, simvastatin decreases depressive symptoms.",
            "simvastatin decreases",
        ),
        ("Yes, based on the abstracts, simvastatin decreases symptoms.", "simvastatin decreases"),
    ],
)
def test_a_yes_or_no_that_answers_the_question_is_no_part_of_the_claim(
    sentence: str, claim: str
) -> None:
    """A "No" answering the user would read to the model as a negation of what follows."""
    (first,) = RuleDecomposer().decompose(sentence)
    assert first.text.startswith(claim)
    assert sentence[first.start : first.end] == first.text


@pytest.mark.parametrize(
    "sentence",
    [
        "No association was found between statin use and dementia.",
        "No-reflow occurred in 12% of patients after primary PCI.",
        "No. 3 trials reported bleeding as a primary outcome.",
    ],
)
def test_no_as_a_word_of_the_claim_stays_in_it(sentence: str) -> None:
    assert [c.text for c in RuleDecomposer().decompose(sentence)] == [sentence]


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("**Efficacy:** Statins reduced LDL cholesterol by 50%.", "Statins reduced LDL"),
        ("- **Key finding:** Yes, platelets transport serotonin.", "platelets transport"),
        ("**Key finding:** Results suggest that ADHD raises the risk.", "Results suggest"),
        ("__Safety__: No serious adverse events occurred with apixaban.", "No serious adverse"),
    ],
)
def test_a_label_in_bold_is_no_part_of_the_claim_after_it(sentence: str, claim: str) -> None:
    (first,) = RuleDecomposer().decompose(sentence)
    assert first.text.startswith(claim)
    assert sentence[first.start : first.end] == first.text


@pytest.mark.parametrize(
    "sentence",
    [
        "**Metformin:** lowers HbA1c by about 1% in type 2 diabetes.",  # the label is the subject
        "**Dose 5 mg:** Apixaban reduced strokes in atrial fibrillation.",  # a number says much
        "**Statins** reduce LDL cholesterol in most patients.",  # bold words, not a label
    ],
)
def test_a_bold_label_that_says_something_stays_in_the_claim(sentence: str) -> None:
    assert [c.text for c in RuleDecomposer().decompose(sentence)] == [sentence]


def test_a_tables_header_row_is_a_label_unless_a_cell_states_a_finding() -> None:
    assert not is_checkworthy("Drug | Finding | Source | Year |", heading=True)
    assert is_checkworthy("Drug | Aspirin reduces stroke risk |", heading=True)


def test_a_bold_label_over_a_bare_answer_word_is_not_checkworthy() -> None:
    assert not is_checkworthy("**Key finding:** Yes.")
    assert not is_checkworthy("**More research** is needed into the effects of unemployment.")
    assert is_checkworthy("**Key finding:** Yes, platelets transport serotonin.")


def test_unknown_decomposer_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown decomposer"):
        create_decomposer("nope")


def _completion(content: str) -> dict[str, object]:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "judge",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@respx.mock
@pytest.mark.usefixtures("litellm_httpx")
def test_llm_decomposer_maps_claims_back_to_spans() -> None:
    sentence = "Aspirin cut mortality by 20% and it lowered stroke risk in 2019."
    reply = '{"claims": ["Aspirin cut mortality by 20%.", "Aspirin lowered stroke risk in 2019."]}'
    route = respx.post("http://llm.test/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=_completion(reply))
    )
    decomposer = LLMDecomposer("openai/judge", api_base="http://llm.test/v1", api_key="k")
    claims = decomposer.decompose(sentence)
    assert route.called
    assert [c.text for c in claims] == [
        "Aspirin cut mortality by 20%.",
        "Aspirin lowered stroke risk in 2019.",
    ]
    assert sentence[claims[0].start : claims[0].end] == "Aspirin cut mortality by 20%"
    assert sentence[claims[1].start : claims[1].end].endswith("stroke risk in 2019")


@respx.mock
@pytest.mark.usefixtures("litellm_httpx")
def test_llm_decomposer_falls_back_to_rules_on_a_bad_reply() -> None:
    respx.post("http://llm.test/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=_completion("I cannot do that."))
    )
    sentence = "Statins lower LDL cholesterol in adults."
    claims = LLMDecomposer("openai/judge", api_base="http://llm.test/v1", api_key="k").decompose(
        sentence
    )
    assert [c.text for c in claims] == [sentence]


def test_pronoun_clauses_get_the_subject_but_keep_their_span() -> None:
    sentence = "Aspirin reduced mortality by 20% at 30 days, but it did not reduce stroke."
    first, second = RuleDecomposer().decompose(sentence)
    assert second.text == "Aspirin did not reduce stroke."
    assert sentence[second.start : second.end] == "it did not reduce stroke."
    assert first.text == sentence[first.start : first.end]


# Conclusions of PubMedQA abstracts (MIT; PMIDs 26237424, 26879871, 22302658, 18534072): the
# split must not leave a list item or a verb phrase without its subject, which the model cannot
# judge and calls anything but supported.
@pytest.mark.parametrize(
    "sentence",
    [
        "PPM after AVR does not affect survival, functional status, and QoL in patients aged at "
        "least 75 years.",
        "New depression diagnosis and antidepressant use was shown to be less likely in areas of "
        "higher own-ethnic density for some, but not all, ethnic groups.",
        "Headache, joint pain, myalgias, and loss of smell have also been reported.",
    ],
)
def test_rule_split_keeps_list_items_and_asides_in_their_clause(sentence: str) -> None:
    assert [c.text for c in RuleDecomposer().decompose(sentence)] == [sentence]


def test_a_clause_opening_with_its_verb_gets_the_reported_subject() -> None:
    sentence = (
        "These data suggest that limb-salvage surgery offers better gait efficiency and return "
        "to normal living compared with above-knee amputation, but does not improve the "
        "patient's perception of quality of life."
    )
    first, second = RuleDecomposer().decompose(sentence)
    assert first.text == sentence[first.start : first.end]
    assert second.text == (
        "limb-salvage surgery does not improve the patient's perception of quality of life."
    )
    assert sentence[second.start : second.end].startswith("does not improve")


def test_that_before_a_clause_with_its_own_subject_is_left_out() -> None:
    sentence = (
        "The analyses show that structural characteristics of a practice are not associated "
        "with uptake of a new IT facility, but that its use may be influenced by post-graduate "
        "education in the relevant clinical condition."
    )
    claims = RuleDecomposer().decompose(sentence)
    assert [c.text for c in claims][1] == (
        "its use may be influenced by post-graduate education in the relevant clinical condition."
    )
    assert sentence[claims[1].start : claims[1].end].startswith("that its use")
