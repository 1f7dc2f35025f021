from __future__ import annotations

import pytest

from verifiers.checks.numbers import (
    LABELLED,
    NUMBERS,
    UNSTATED,
    Reading,
    check_labelled_numbers,
    check_numbers,
    evidence_quantities,
    extract_quantities,
    in_digits,
    ratio_changes,
    stated_values,
    written_alike,
)

# Check-COVID dev, cord_id biho913w (MIT): the evidence sentence of claim 60536a226bc088b6d218dc56.
EVIDENCE = [
    (
        "biho913w",
        "The majority of COVID-19-positive patients were asymptomatic (81%, 104 patients).",
    )
]
DOSE = [
    ("1", "Patients received 5 mg daily for 12 weeks; 10-20 mg/kg was given i.v. to 3,199 adults.")
]


def test_extracts_values_units_and_ranges() -> None:
    found = {(q.low, q.high, q.unit) for q in extract_quantities(DOSE[0][1])}
    assert found == {
        (5.0, 5.0, "mg"),
        (12.0, 12.0, "wk"),
        (10.0, 20.0, "mg/kg"),
        (3199.0, 3199.0, "adults"),
    }


@pytest.mark.parametrize(
    ("claim", "passed"),
    [
        ("Most COVID-19-positive patients (81%) were asymptomatic.", True),
        ("Most COVID-19-positive patients (18%) were asymptomatic.", False),
        ("About 80.7 percent of patients had no symptoms.", False),
        ("Asymptomatic patients numbered 104 patients.", True),
    ],
)
def test_percentages_and_counts(claim: str, passed: bool) -> None:
    result = check_numbers(claim, EVIDENCE)
    assert result is not None and result.passed is passed


@pytest.mark.parametrize(
    ("claim", "passed"),
    [
        ("The dose was 5 mg.", True),
        ("The dose was 50 mg.", False),
        ("A dose of 15 mg/kg was used.", True),  # inside the stated range
        ("A dose of 25 mg/kg was used.", False),
        ("Treatment lasted 12 weeks.", True),
        ("Treatment lasted 6 weeks.", False),
    ],
)
def test_doses_and_durations(claim: str, passed: bool) -> None:
    result = check_numbers(claim, DOSE)
    assert result is not None and result.passed is passed


def test_rounding_follows_the_claim_precision() -> None:
    assert check_numbers("It fell by 30%.", [("1", "It fell by 29.7%.")]).passed  # type: ignore[union-attr]
    assert not check_numbers("It fell by 30.0%.", [("1", "It fell by 29.7%.")]).passed  # type: ignore[union-attr]


def test_a_quantity_the_evidence_never_states_is_unstated() -> None:
    result = check_numbers("The dose was 50 mg.", EVIDENCE)
    assert result is not None and not result.passed and result.name == "unstated_number"
    assert check_numbers("Aspirin lowers risk.", DOSE) is None  # no quantity, no verdict


def test_a_changed_value_outranks_an_unstated_one() -> None:
    result = check_numbers("Over 12 weeks, 50 mg was given for 3 cycles.", DOSE)
    assert result is not None and result.name == "numbers" and not result.passed


# SciFact corpus (ODC-By): doc 22995164 writes the Greek small letter mu (U+03BC), doc 23868856
# the micro sign (U+00B5), doc 8595678 uses the Lancet's middle-dot decimal point.
NAHS = [
    (
        "22995164",
        "The relaxation effect was pronouncedly enhanced by H2S- and HS\u2212-donor NaHS "
        "(30 \u03bcmol/l) at 7.",
    )
]
VITAMIN_C = [
    (
        "23868856",
        "Cells were incubated with vitamin C and divided into four groups: a control group "
        "(without vitamin C) and three treatment groups with vitamin C at 40, 80, and "
        "160 \u00b5mol/l.",
    )
]
FOLATE = [
    (
        "8595678",
        "individuals with TT versus CC genotype, 3\u00b712 \u03bcmol/L, "
        "95% CI 2\u00b723 to 4\u00b701)",
    )
]


FULL_WIDTH = [("x", "The difference was 3.12 \u00b5mol/L in 95% of the twins.")]


# Two arms compared, the unit written once: the first value is in days as well.
ARMS = [("1", "The variant had a shorter incubation period (4.0 vs. 6.0 days) and 12 versus 9 mg.")]


@pytest.mark.parametrize(
    ("claim", "passed"),
    [
        ("Symptoms first appeared around four days after exposure.", True),  # was contradicted
        ("Symptoms first appeared 5 days after exposure.", False),  # was contradicted too
        ("The dose was 12 mg.", True),
        ("The dose was 10 mg.", False),
    ],
)
def test_a_value_compared_before_a_quantity_shares_its_unit(claim: str, passed: bool) -> None:
    result = check_numbers(claim, ARMS)
    assert result is not None and result.name == "numbers" and result.passed is passed
    assert [(q.text, q.unit) for q in extract_quantities(ARMS[0][1])] == [
        ("4.0", "d"),
        ("6.0 days", "d"),
        ("12", "mg"),
        ("9 mg", "mg"),
    ]


@pytest.mark.parametrize(
    ("claim", "evidence", "name", "passed"),
    [
        ("NaHS at 30 \u00b5mol/L enhanced relaxation.", NAHS, "numbers", True),  # micro sign
        ("NaHS at 30 \u03bcmol/l enhanced relaxation.", NAHS, "numbers", True),  # Greek mu
        ("NaHS at 30\u00a0umol/l enhanced relaxation.", NAHS, "numbers", True),  # no-break space
        ("NaHS at 300 \u03bcmol/l enhanced relaxation.", NAHS, "numbers", False),
        ("Vitamin C was given at 80 \u03bcmol/l.", VITAMIN_C, "numbers", True),  # listed value
        ("Vitamin C was given at 120 \u03bcmol/l.", VITAMIN_C, "numbers", False),
        ("The difference was 3.12 \u00b5mol/L.", FOLATE, "numbers", True),
        ("The difference was 31.2 \u00b5mol/L.", FOLATE, "numbers", False),
        ("The difference was 3.12 \u00b5mol/L in 95\uff05.", FULL_WIDTH, "numbers", True),
        # A confidence level is no value of the finding: the folate abstract states no 95%.
        ("95\uff05 of the difference was genetic.", FOLATE, "unstated_number", False),
    ],
)
def test_units_in_any_unicode_form(
    claim: str, evidence: list[tuple[str, str]], name: str, passed: bool
) -> None:
    result = check_numbers(claim, evidence)
    assert result is not None and result.name == name and result.passed is passed


# SciFact corpus (ODC-By): doc 35747505 (a five-fold increase), doc 2158500 (13.2%).
FOLD = [("35747505", "peaking at 100 nM with a five-fold increase and displaying no change")]


@pytest.mark.parametrize(
    ("claim", "evidence", "name", "passed"),
    [
        ("Labeling rose five-fold.", FOLD, "numbers", True),
        ("Labeling rose 5-fold.", FOLD, "numbers", True),
        ("Labeling rose two-fold.", FOLD, "numbers", False),
        ("Labeling rose 10-fold.", FOLD, "numbers", False),
        ("Labeling was measured in 2019.", FOLD, "unstated_number", False),  # year
        ("Labeling involved 3 genes.", FOLD, "unstated_number", False),  # counted noun
        ("Labeling involved three genes.", [("1", "We sequenced 3 genes.")], "numbers", True),
        ("Labeling lasted 12 months.", FOLD, "unstated_number", False),
    ],
)
def test_fold_changes_years_and_counted_nouns(
    claim: str, evidence: list[tuple[str, str]], name: str, passed: bool
) -> None:
    result = check_numbers(claim, evidence)
    assert result is not None and result.name == name and result.passed is passed


@pytest.mark.parametrize(
    "text",
    [
        "Patients with type 2 diabetes were enrolled.",
        "COVID-19 patients were enrolled.",
        "IL-6 levels rose in phase 3 trials.",
        "In 2019, 5 mg was the dose.",
    ],
)
def test_numbers_that_name_things_are_not_quantities(text: str) -> None:
    found = {(q.low, q.unit) for q in extract_quantities(text)}
    assert (2.0, "count:diabete") not in found
    assert all(q.unit != "patients" for q in extract_quantities(text))
    assert all(q.unit != "mg" or q.low == 5.0 for q in extract_quantities(text))


# SciFact corpus: "Nutritional excess is a major forerunner of type 2 diabetes." and the
# Arp2/3 inhibitors its abstract 4365 names (the claim, SciFact's, names another).
DIABETES = [("x", "Nutritional excess is a major forerunner of type 2 diabetes.")]
ARP = [
    ("4365", "CK-0944636 binds between Arp2 and Arp3, where it appears to block movement of "
     "Arp2 and Arp3 into their active conformation."),
    ("4365", "CK-0993548 inserts into the hydrophobic core of Arp3 and alters its shape."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("claim", "evidence", "flagged"),
    [
        ("Nutritional excess is a major forerunner of type 1 diabetes.", DIABETES, True),
        # Numbered as the evidence numbers it: nothing worth reporting.
        ("Nutritional excess is a major forerunner of type 2 diabetes.", DIABETES, False),
        (
            "Pretreatment with the Arp2/3 inhibitor CK-666 affects lamellipodia formation.",
            ARP,
            True,
        ),
        ("The Arp2/3 inhibitor CK-0944636 binds between Arp2 and Arp3.", ARP, False),
        # The label unnumbered in the evidence: nothing to compare.
        ("Nutritional excess is a major forerunner of phase 3 diabetes.", DIABETES, False),
    ],
)
def test_a_number_that_labels_a_name_is_the_evidence_s_number(
    claim: str, evidence: list[tuple[str, str]], flagged: bool
) -> None:
    result = check_labelled_numbers(claim, evidence)
    assert (result is not None) is flagged
    if result is not None:
        assert result.name == LABELLED and not result.passed


def test_a_labelled_number_stated_elsewhere_or_a_quantity_or_a_year_is_not_read() -> None:
    # The claim's number stated anywhere in the sources is no other name; a year and a
    # quantity are read as such, never as labels.
    evidence = [("x", "Type 2 diabetes was seen in 1 of 4 patients in 2019 at week 12.")]
    assert check_labelled_numbers("Type 1 diabetes was seen.", evidence) is None
    assert check_labelled_numbers("Patients were seen in 2020 at 40 weeks.", evidence) is None
    failed = check_labelled_numbers("Type 3 diabetes was seen.", evidence)
    assert failed is not None and not failed.passed
    assert failed.detail == "Type 3: the evidence numbers it otherwise (Type 2)"


# PubMedQA 23831910 and 17208539 (MIT): results as an answer restates them.
ENTEROSCOPY = [
    (
        "23831910",
        "The mean time per antegrade DBE was 107.4\u00b130.0 minutes with a distance of "
        "318.4\u00b1152.9 cm reached past the pylorus. 43 VCEs with pathology noted were "
        "performed prior to DBE, with findings endoscopically confirmed in 32 cases (74.4%).",
    )
]
PULL_THROUGH = [
    (
        "17208539",
        "Records of 41 patients more than 3 years old who underwent a pull-through for HD "
        "(TERPT, n = 20; ABD, n = 21) were reviewed.",
    )
]


@pytest.mark.parametrize(
    ("claim", "evidence", "name", "passed"),
    [
        # An approximate value: within 5% of itself or half its round step (75: 5).
        ("Findings were confirmed in about 75% of cases.", ENTEROSCOPY, "numbers", True),
        ("Findings were confirmed in ~75% of cases.", ENTEROSCOPY, "numbers", True),
        ("Findings were confirmed in 75% of cases.", ENTEROSCOPY, "numbers", False),  # exact
        ("Findings were confirmed in about 85% of cases.", ENTEROSCOPY, "numbers", False),
        ("Findings were confirmed in about 74.9% of cases.", ENTEROSCOPY, "numbers", False),
        # A fraction of a whole is the share it names (unmatched, it is not judged: below).
        ("Findings were confirmed in three quarters of cases.", ENTEROSCOPY, "numbers", True),
        # A mean before its spread has the spread's unit.
        ("An antegrade DBE took about 107 minutes.", ENTEROSCOPY, "numbers", True),
        ("An antegrade DBE took 214 minutes.", ENTEROSCOPY, "numbers", False),
        # A bound holds where a value lies on its side.
        ("Antegrade DBE took more than 100 minutes.", ENTEROSCOPY, "numbers", True),
        ("Antegrade DBE took less than 2 hours.", ENTEROSCOPY, "unstated_number", False),
        ("Antegrade DBE took more than 200 minutes.", ENTEROSCOPY, "numbers", False),
        # On the bound's side but far past it: allowed, not restated.
        ("Findings were confirmed in over 40% of cases.", ENTEROSCOPY, "unstated_number", False),
        ("Antegrade DBE took at least 50 minutes.", ENTEROSCOPY, "unstated_number", False),
        # A strict bound excludes its value: "less than 74.4%" is no restatement of 74.4%.
        ("Findings were confirmed in less than 74.4% of cases.", ENTEROSCOPY, "numbers", False),
        ("Findings were confirmed in at most 74.4% of cases.", ENTEROSCOPY, "numbers", True),
        # People counted under another name are the same count.
        ("The records of 41 children were reviewed.", PULL_THROUGH, "numbers", True),
        ("The records of 82 children were reviewed.", PULL_THROUGH, "unstated_number", False),
        ("The records of 82 patients were reviewed.", PULL_THROUGH, "numbers", False),
    ],
)
def test_values_restated_as_answers_restate_them(
    claim: str, evidence: list[tuple[str, str]], name: str, passed: bool
) -> None:
    result = check_numbers(claim, evidence)
    assert result is not None and (result.name, result.passed) == (name, passed), result


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        ("about 75%", Reading.APPROXIMATE),
        ("no more than 75%", Reading.AT_MOST),  # not "more than"
        ("not less than 75%", Reading.AT_LEAST),
        ("\u226575%", Reading.AT_LEAST),
        ("up to 75%", Reading.AT_MOST),
        ("more than 75%", Reading.ABOVE),
        ("<75%", Reading.BELOW),
        ("about 75-80%", Reading.EXACT),  # a range is read as stated
        ("one in four patients", Reading.APPROXIMATE),
        ("more than one third of cases", Reading.ABOVE),
        ("followed over 6 months", Reading.EXACT),  # a span of time, not a bound
        ("over 6 mg", Reading.ABOVE),
    ],
)
def test_the_words_before_a_value_say_how_it_is_meant(text: str, reading: Reading) -> None:
    [quantity] = extract_quantities(text)
    assert quantity.reading is reading


# A NEJM-style result: the ratio and its interval, no percentage reduction written out.
RATIO = [
    (
        "1",
        "Empagliflozin reduced death from cardiovascular causes (hazard ratio, 0.62; 95% CI, "
        "0.49 to 0.77). Mortality was 3.7% vs 5.9%; the odds of admission were higher (OR 1.8).",
    )
]


@pytest.mark.parametrize(
    ("claim", "name", "passed"),
    [
        ("Empagliflozin reduced cardiovascular death by 38%.", "numbers", True),
        ("Empagliflozin gave a 38% lower risk of cardiovascular death.", "numbers", True),
        ("The odds of admission were 80% higher.", "numbers", True),
        # The change points the other way, or is another size: no restatement of the ratio.
        ("Empagliflozin increased cardiovascular death by 38%.", "numbers", False),
        ("Empagliflozin reduced cardiovascular death by 60%.", "numbers", False),
    ],
)
def test_a_ratio_states_the_change_it_names(claim: str, name: str, passed: bool) -> None:
    result = check_numbers(claim, RATIO)
    assert result is not None and (result.name, result.passed) == (name, passed), result


# PubMedQA 21276532 (MIT): three odds ratios listed, each with its interval.
RATIOS = [
    (
        "21276532",
        "Compared with nonanemic patients, those with severe, moderate, and mild anemia were "
        "more likely to have the adverse CO with odds ratios of 1.83 (95% CI 1.05 to 3.19), 2.19 "
        "(95 % CI 1.63 to 2.94), and 1.49 (95% CI 1.20 to 1.86), respectively.",
    )
]


def test_each_ratio_of_a_list_states_its_change() -> None:
    assert [q.low for q in ratio_changes(RATIOS[0][1])] == [83.0, 119.0, 49.0]
    restated = check_numbers("Even mild anemia raised the odds by roughly 50%.", RATIOS)
    assert restated is not None and restated.passed
    other = check_numbers("Even mild anemia raised the odds by 30%.", RATIOS)
    assert other is not None and not other.passed


def test_a_threshold_moved_on_its_side_is_a_changed_number() -> None:
    # A threshold moved as eval citations moves one: "less than three hours" -> "less than 30".
    evidence = [
        ("1", "Troponin may not be diagnostic when symptoms began less than three hours before.")
    ]
    moved = check_numbers("Symptoms began less than 30 hours before.", evidence)
    assert moved is not None and (moved.name, moved.passed) == ("numbers", False)
    kept = check_numbers("Symptoms began under 3 hours before.", evidence)
    assert kept is not None and kept.passed
    # Compared with the evidence's bound, not with a range that starts near it.
    counts = [("1", "In patients with less than 200 cells/ml or 200 to 350 cells/ml, risk fell.")]
    nudged = check_numbers("Risk fell with less than 202 cells/ml.", counts)
    assert nudged is not None and (nudged.name, nudged.passed) == ("numbers", False)


def test_a_fraction_the_evidence_does_not_state_as_a_percentage_is_not_judged() -> None:
    # "half the patients" may be the evidence's "31 of 58": no verdict either way.
    assert check_numbers("Findings were confirmed in half of the cases.", ENTEROSCOPY) is None


def test_an_evidence_bound_shows_no_value_changed() -> None:
    evidence = [("1", "More than 1,000 patients were enrolled.")]
    assert check_numbers("1,000 patients were enrolled.", evidence).passed  # type: ignore[union-attr]
    result = check_numbers("1,200 patients were enrolled.", evidence)
    assert result is not None and result.name == "unstated_number"


# PubMedQA (MIT): 18568239 spells out the count it opens a sentence with, 22849512 gives a count
# after its noun, 26505821 one with words between, 26104852 a sensitivity as a proportion,
# 22154448 the share "one in seven" is.
SPELLED = [
    (
        "18568239",
        "Sixty-seven patients undergoing transurethral resection of the prostate were randomly "
        "allocated into three groups (Group I - 24 patients; Group III - 19 patients).",
    )
]
NAMED_COUNT = [
    (
        "22849512",
        "Adolescents (n = 852) completed a questionnaire asking for sports participation.",
    )
]
DESCRIBED = [
    (
        "26505821",
        "A total of 371 untreated postmenopausal osteoporotic women aged 50 to 84 years with a "
        "lumbar T-score ≤ -2.5 SD or ≤ -1 SD with at least one osteoporotic fracture.",
    )
]
PROPORTION = [
    (
        "26104852",
        "This classification presented both high sensitivity (0.939) and specificity (0.833).",
    )
]
SHARE = [
    (
        "22154448",
        "Five subjects (14%) had a thrombopenia or a prothrombin time less than 60% before "
        "catheter removal.",
    )
]


@pytest.mark.parametrize(
    ("claim", "evidence", "name", "passed"),
    [
        # A count spelled out is the count (it was no quantity: "67 patients" was a changed
        # number, against the groups' 24 and 19).
        ("The study randomized 67 patients.", SPELLED, "numbers", True),
        ("The study randomized 76 patients.", SPELLED, "numbers", False),
        (
            "Sixty-seven patients were randomized.",
            [("1", "67 patients were randomized.")],
            "numbers",
            True,
        ),
        # A count after its noun; people under another name are the same count.
        ("The study surveyed 852 adolescents.", NAMED_COUNT, "numbers", True),
        ("The study surveyed 852 participants.", NAMED_COUNT, "numbers", True),
        ("The study surveyed 825 adolescents.", NAMED_COUNT, "numbers", False),
        # PubMedQA 26505821: an answer drops the words that describe the women.
        ("In 371 postmenopausal women, markers correlated modestly.", DESCRIBED, "numbers", True),
        ("In 317 postmenopausal women, markers correlated modestly.", DESCRIBED, "numbers", False),
        # A diagnostic proportion is the percentage an answer writes.
        ("The sensitivity was about 94%.", PROPORTION, "numbers", True),
        ("The specificity was 83%.", PROPORTION, "numbers", True),
        ("The sensitivity was 84%.", PROPORTION, "numbers", False),
        # "One in seven" is a share of 14.3%, whatever its denominator's word.
        ("About one in seven patients had thrombopenia.", SHARE, "numbers", True),
    ],
)
def test_numbers_written_out_after_their_noun_or_as_proportions(
    claim: str, evidence: list[tuple[str, str]], name: str, passed: bool
) -> None:
    result = check_numbers(claim, evidence)
    assert result is not None and (result.name, result.passed) == (name, passed), result


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Sixty two patients", [(62.0, "patients")]),
        ("one hundred and twelve patients", [(112.0, "patients")]),
        ("a hundred patients", [(100.0, "patients")]),
        # PubMedQA 16971978 opens with its count in words and words between.
        ("One thousand fourteen consecutive patients", [(1014.0, "patients")]),
        ("two thousand, two hundred and twenty-nine patients", [(2229.0, "patients")]),
        ("twenty-one days", [(21.0, "d")]),
        ("Seventeen cases", [(17.0, "cases")]),
        ("a threefold rise", [(3.0, "fold")]),
        # People counted with words that describe them between, but no function word.
        ("371 untreated postmenopausal osteoporotic women", [(371.0, "women")]),
        ("in 10 randomly selected patients", [(10.0, "patients")]),
        ("a score of 5 in most patients", []),
        ("with 5 or more patients", []),
        # An ordinal is no number of hours, a measure in millimetres no proportion.
        ("on the eighth day", []),
        ("an accuracy of 0.5 mm", []),
    ],
)
def test_number_words_are_read_whole(text: str, values: list[tuple[float, str]]) -> None:
    assert [(q.low, q.unit) for q in extract_quantities(text)] == values


# PubMedQA 10759659, 24669960, 25034219, 11601252, 2224269 (MIT): abstract sentences.
PART = [
    ("10759659", "Of 83 patients examined by flexible cystoscopy, 26 were found to have a tumour.")
]
WOMEN = [
    ("24669960", "Of the women, 53 (31.2%) had complete recanalization, 46 (27%) had partial.")
]
HALF = [
    (
        "25034219",
        "While 64.4% of mothers were found obese in the study, only half of them consider "
        "themselves as obese.",
    )
]
SCORE = [
    (
        "11601252",
        "The score for pancreatic hemorrhage was 2.4 +/- 0.2 in this group. In the rats "
        "pretreated with BQ123, the score was reduced to 1.0 +/- 0.0.",
    )
]
SETTING = [
    ("2224269", "5 General practices in Lothian. 475 Patients consulting 30 general practitioners.")
]


@pytest.mark.parametrize(
    ("claim", "evidence", "name", "passed"),
    [
        # A part of a counted whole, counted before its verb, is counted in the whole's unit
        # (a spelled-out "Twenty-six patients" was a changed number: the evidence's only
        # patients were 83).
        ("Twenty-six patients had a tumour.", PART, NUMBERS, True),
        ("Twenty-eight patients had a tumour.", PART, NUMBERS, False),
        ("53 women had complete recanalization.", WOMEN, NUMBERS, True),
        # A fraction word of the evidence restates a share written as a fraction or a round
        # value, not a precise one: "46%" is no "half of them", and 64.4% shows it changed.
        ("About 46% of the mothers were obese.", HALF, NUMBERS, False),
        ("About half of the obese mothers saw themselves as obese.", HALF, NUMBERS, True),
        ("About 50% of the obese mothers saw themselves as obese.", HALF, NUMBERS, True),
        # A bare number is looked for, as a number, anywhere in the evidence.
        ("BQ123 reduced the hemorrhage score to 1.4.", SCORE, UNSTATED, False),
        ("BQ123 reduced the hemorrhage score from 2.4 to 1.4.", SCORE, UNSTATED, False),
        # A number after a word in lower case, or before a hyphen, is looked for (the held-out
        # answers' distortions: "subunit 1" made "subunit 2", "22-item" made "44-item").
        ("The hemorrhage score of subunit 7 was 2.4.", SCORE, UNSTATED, False),
        ("A 44-item score was reduced to 1.0.", SCORE, UNSTATED, False),
        # Things counted with words between in the evidence; the answer's own words counted
        # nothing ("five practices" restates "5 General practices").
        ("The survey covered five practices.", SETTING, NUMBERS, True),
        ("The survey covered seven practices.", SETTING, NUMBERS, False),
    ],
)
def test_parts_shares_bare_numbers_and_described_things(
    claim: str, evidence: list[tuple[str, str]], name: str, passed: bool
) -> None:
    result = check_numbers(claim, evidence)
    assert result is not None and (result.name, result.passed) == (name, passed), result


@pytest.mark.parametrize(
    "claim",
    [
        "Figitumumab (CP-751,871) trials were stopped.",  # a name's number, after a comma
        "BQ123 lowered it (p = 0.03).",  # a p value's number
        "As shown in Table 3, it fell [12].",  # a table's and a reference's
        "The score fell by about 7.",  # approximate: no exact value to look for
        "Beer cannot prevent COVID 19.",  # a whole number after a word may be its label
        # SciFact dev: a lipid's name, as the claim spells it.
        "PTEN converts Ptdlns(3,4)P 2.",
        # Stated bare numbers pass silently: they show nothing about what they measure.
        "BQ123 reduced the hemorrhage score from 2.4 to 1.0.",
        "BQ123 reduced the hemorrhage score to 1.",
    ],
)
def test_bare_numbers_that_are_no_values_are_not_looked_for(claim: str) -> None:
    assert check_numbers(claim, SCORE) is None


def test_the_answer_s_own_nouns_count_nothing_the_evidence_s_do() -> None:
    claim = "The study reviewed 35 spinal deformity corrections."
    evidence = "The data from 35 pediatric spinal deformity correction procedures were reviewed."
    assert extract_quantities(claim) == []
    assert check_numbers(claim, [("26222664", evidence)]) is None  # its bare 35 is stated
    described = [(q.low, q.unit) for q in evidence_quantities(SETTING[0][1])]
    assert described == [(5.0, "count:practice"), (475.0, "patients"), (30.0, "count:practitioner")]
    assert extract_quantities("5 General practices") == []
    assert evidence_quantities("In 2019 hospital admissions rose") == ()


def test_every_number_a_text_writes() -> None:
    assert stated_values("Twenty-six of 83 (31.2%) and CP-751,871") == (26.0, 83.0, 31.2, 751871.0)


def test_values_written_as_digits_on_both_sides() -> None:
    # PubMedQA 14599616 (MIT): the model contradicted "39 cases" against "Thirty-nine cases".
    evidence = "Thirty-nine cases of lymphedema were identified by the academic trial."
    assert in_digits(evidence) == "39 cases of lymphedema were identified by the academic trial."
    assert in_digits("half of them, one in five") == "half of them, one in five"
    claim = "The academic trial identified 39 cases of lymphedema."
    assert written_alike(claim, [("14599616", evidence)]) == (claim, [in_digits(evidence)])
    assert written_alike("The trial identified 93 cases.", [("14599616", evidence)]) is None
    assert written_alike(claim, [("14599616", in_digits(evidence))]) is None  # alike already


def test_a_range_spanning_listed_values_and_a_numbered_exon() -> None:
    """PubMedQA 27690714 and 27217036 (MIT): "570.5 to 664.0 mL" spans values the evidence
    lists one by one (an end it does not list is still a change), and "Exon 11" is a name, not
    11 mutations."""
    volumes = [
        (
            "27690714",
            "Median volumes for each scenario were 570.5mL, 664.0mL, 663.0mL for the pediatric "
            "BMV and 796.0mL, 994.5mL, 981.5mL for the adult BVM.",
        )
    ]
    spanned = check_numbers("The pediatric mask gave median volumes of 570.5 to 664.0 mL.", volumes)
    assert spanned is not None and spanned.passed
    moved = check_numbers("The pediatric mask gave median volumes of 570.5 to 700.0 mL.", volumes)
    assert moved is not None and (moved.name, moved.passed) == (NUMBERS, False)
    exons = [("27217036", "Exon 11 was seen in 25 patients (55.5 %), 3 with exon 9 (6.7 %).")]
    result = check_numbers("Exon 11 mutations were found in 55.5% of patients.", exons)
    assert result is not None and result.passed
