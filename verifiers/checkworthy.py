"""Check-worthiness: whether a sentence states something to verify, read piece by piece.

Questions, greetings, meta talk ("Here is a summary"), disclaimers, list introductions and
headings that are labels state nothing; a finding run on into talk ("This is not medical advice
but X"), asked ("Did you know that X?", "X, right?") or written as a heading still does, and is
checked (``python bench/hidden_findings.py``). ``verifiers.claims`` cuts what is check-worthy
into claims and reads the same pieces (``asserting_pieces``) to leave talk out of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import Enum

from verifiers.checks.normalise import content_tokens
from verifiers.checks.numbers import extract_quantities
from verifiers.lexicons.verbs import AUXILIARIES, is_verb
from verifiers.markup import without_emphasis

# Pieces of a sentence that assert nothing about the world. A sentence is read piece by piece
# (``_PIECE_BREAK``), and only when every piece is one of these (or says too little) is it not
# check-worthy: "Hello, statins halve LDL", "I cannot give medical advice, but ibuprofen raises
# bleeding risk" and "Here are the results: statins cut mortality" each state a finding that
# must be verified. Greetings, and words that introduce what follows them (unless their piece
# goes on to a verb of its own: "The following drugs reduce mortality: ..."), open no claim.
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|thank you|thanks?(?!\s+to\b)|great question|good question)(?![\w-])",
    re.IGNORECASE,  # whole words: "hi" is not "High", "HIV" or "Hi-C"
)
# What an answer rests on, named to introduce it ("Based on the provided abstracts", "According
# to the studies reviewed here"; possessive, so that no lead-in gives back its "provided").
_SOURCES = (
    r"(?:based on|according to) the (?:provided |given )?(?:evidence|abstracts|studies|sources)"
    r"(?:\s+(?:provided|given|above|cited|reviewed|retrieved|available|here))*+"
)
_INTRODUCER = re.compile(
    rf"^\W*(?:here (?:is|are)|below (?:is|are)|(?P<following>the following)|{_SOURCES})(?!\w)",
    re.IGNORECASE,
)
# The same sources pointing at a clause in their own piece, no comma between ("Based on the
# studies statins reduce LDL"): the clause decides, as after a lead-in. Read as an introducer,
# the whole sentence was meta talk and went out unverified.
_SOURCES_LEAD_IN = re.compile(rf"\W*{_SOURCES}\s+(?=\w)", re.IGNORECASE)
# Asides: disclaimers, sign-offs and hedges.
_ASIDE = re.compile(
    r"^\W*(?:i hope (?:this|it) (?:helps|information|answer|summary|overview|explanation)"
    r"|hope this helps|let me know|feel free|please (?:consult|see|ask)"
    r"|i can only (?:summari[sz]e|report|share|speak|go by|tell you)"
    r"|(?:overall,? )?(?:the )?(?:evidence|studies|literature) (?:is|are) (?:mixed|limited)(?=\W*$)"
    r"|i(?: am|['\u2019]m) (?:not|an ai)|as an ai|i cannot|i can['\u2019]t|i don['\u2019]t know"
    r"|i do not know"
    r"|it is (?:unclear|not clear|difficult to say)|more research is needed"
    r"|further (?:research|studies) (?:is|are) needed"
    r"|(?:always )?consult (?:your|a) (?:doctor|physician|(?:healthcare )?professional)"
    r"|this is not medical advice)(?!\w)",
    re.IGNORECASE,
)
# Words that go on from meta talk to a clause it asserts or presupposes: "This is not medical
# advice but X", "I cannot stress enough that X", "I don't know why X" and "It is unclear how X
# works" (both presuppose X; "how long" and "how cold it got" do not), "... because X". Where
# the claim then starts: ``_stands_alone``.
_ASSERTING = re.compile(
    r"\b(?:(?P<alone>but|because|since)|(?P<that>that)"
    r"|(?P<presupposed>why|how(?!\s+(?:long|much|many|often|well|far|soon|to|best|likely)\b)"
    r"(?!\s+\w+\s+(?:the|an?|it|its|they|their|this|these|those|he|she|we|you|i)\b)))[\s,]+",
    re.IGNORECASE,
)
# Words other than verbs after which "that" opens what is said, not a relative clause.
_COMPLEMENT_TAKERS = frozenset(
    {"enough", "surprised", "clear", "true", "sure", "certain", "aware", "likely", "evident"}
    | {"obvious", "known", "glad", "fact"}
)
# Talk that doubts or denies the "that" clause after it ("It is not clear that X", "I cannot say
# that X"): the claim keeps it, as X alone would assert what the sentence does not.
_DOUBTING = re.compile(
    r"\b(?:unclear|doubt\w*|unlikely|no\s+evidence|difficult\s+to\s+say"
    r"|not\s+(?:clear|sure|certain|true|the\s+case|known|proven|established)"
    r"|(?:cannot|can['\u2019]t|can\s+not)\s+(?:say|confirm|tell|conclude)"
    r"|(?:don['\u2019]t|do\s+not|didn['\u2019]t|did\s+not)\s+(?:think|believe|know))\b",
    re.IGNORECASE,
)
# Words that go on from meta talk with what it does not assert: an infinitive, a condition, an
# indirect question ("More research is needed to confirm these findings", "Let me know if you
# have questions", "It is unclear whether ...", "Here is what the studies show").
_NOT_ASSERTING = re.compile(
    r"\b(?:to|if|whether|what|how|when|where|which|who|before|until|unless)\b", re.IGNORECASE
)
# Words meta talk goes on in ("Here is a brief summary of the evidence", "I cannot provide
# personal medical advice", "Please consult a healthcare professional").
_TALK_WORDS = """
    summary overview brief short answer question questions asking advice medical personal
    personalised personalized doctor physician provider healthcare health professional
    pharmacist clinician information details help provide give offer diagnose diagnosis
    recommend recommendation specific key main important relevant points things findings
    results evidence studies study research literature abstracts sources data facts here
    following look model language assistant examine treatment decision situation case make
    informed clarify understand useful helpful say certain sure so much very again anyway
"""
_TALK_TOKENS = content_tokens(_TALK_WORDS)
# A phrase that qualifies an aside ("... is needed in children", "I don't know of any trials").
_QUALIFIER = re.compile(r"\s*(?:in|on|of|for|about|among|with|into|across|beyond)\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# Labels of what an answer lists about itself, not of the world ("References:", "Sources:").
_LISTING_TOKENS = content_tokens("references reference bibliography citations notes note links")
_TERM_WORDS = 4  # a list item this short with no verb names something (``bare_term``)
# Answers a list item may give that name nothing ("- Yes [PMID:1]", "- Unclear").
_ANSWER_TOKENS = content_tokens("yes maybe none unknown unclear uncertain neither applicable")
_THANKED_WORDS = 3  # "Thank you for your question about statins and muscle pain"
# Words that only point at what follows them in the same piece ("Please note that metformin is
# contraindicated in ..."): the rest of the piece decides.
_LEAD_IN = re.compile(
    r"^\W*(?:please note|note|keep in mind|bear in mind"
    r"|it is (?:important|worth) (?:to note|noting)|importantly|notably)(?:\s+that\b)?[\s,:]*",
    re.IGNORECASE,
)
# A piece that opens with an infinitive goes on with the piece before it.
_CONTINUATION = re.compile(r"to\s", re.IGNORECASE)
# A relative clause that goes on from the piece before it.
_RELATIVE = re.compile(r"(?:who|which)\s", re.IGNORECASE)
# Where a sentence's pieces meet: a comma, semicolon, colon or exclamation mark, and the
# conjunction after it ("..., but ibuprofen ...").
_PIECE_BREAK = re.compile(
    r"[,;:!\u2013\u2014]\s+(?:(?:and|or|but|because|although|though|however|so)\b[\s,]*)?"
)
# Openers that introduce what follows ("In summary, X reduces Y"; "Certainly! Here is ..."):
# the rest of the sentence decides, so a conclusion is never skipped for its first words.
_OPENER = re.compile(
    r"^\W*(?:sure|certainly|of course|in summary|in short|in conclusion|to summari[sz]e)\b"
    r"[\s,:;!.\-\u2013\u2014]*",
    re.IGNORECASE,
)
# The answer to a yes/no question that opens a sentence ("Yes, statins reduce stroke"; "No,
# Pim-1 is a kinase"): it answers the user, it is no part of the claim, and a small NLI model
# reads a "No" as a negation of what follows. "No" before a noun is a determiner ("No
# association was found") and stays, as do "No-reflow" and "No. 3".
_ANSWER_WORD = re.compile(
    r"^\W*(?:yes|no)(?:\s*[,.:;!]+|\s+[\u2013\u2014-]+)(?!\s*\d)\s*", re.IGNORECASE
)
# A line that is all bold or underlined: a heading written without "#".
_BOLD_LINE = re.compile(r"(\*\*|__)[^*_\n]+\1:?|(\*\*|__)[^*_\n]+:\2")
# A label in bold that opens a sentence or list item ("**Efficacy:** Statins reduced ...",
# "**Key finding:** ..."): a topic for the reader, no part of the claim after it.
_BOLD_LABEL = re.compile(r"\W*?(\*\*|__)(?P<label>[^*_\n:]+?)(?::\1|\1:)\s+")
# Last words that leave a line open for the list after its colon ("None of the following:").
_OPEN_ENDS = frozenset({"except", "following", "including", "below", "follows", "namely"})
# Words by which a short line before a colon announces the list after it ("Statins have
# several benefits:", "There are two options:", "Aspirin can be taken in these cases:").
_ANNOUNCING = frozenset(
    {"several", "some", "many", "various", "multiple", "few", "numerous", "these", "those"}
    | {"two", "three", "four", "five", "main", "key", "major", "common", "other", "certain"}
    | {"different", "possible", "potential", "such", "there", "here", "include", "includes"}
    | {"below", "following", "like", "as", "examples", "ways", "types", "kinds", "reasons"}
    | {"twofold", "threefold", "fourfold"}
)
# After a past participle: it modifies the noun before it ("AEs related to treatment:").
_PREPOSITIONS = frozenset(
    {"to", "from", "by", "with", "in", "at", "on", "for", "as", "into", "due", "during", "of"}
)
_CONJUNCTIONS = frozenset({"if", "when", "that", "than", "because", "whether", "and", "or", "but"})
# Verbs of a finding that take no object, so a line they end is whole ("Mortality fell:"); a
# line that ends in another verb waits for its list ("Key mechanisms include:").
_CLOSING_VERBS = frozenset(
    f"{stem}{ending}"
    for stem, endings in (
        ("improve", ("", "s", "d")),
        ("worsen", ("", "s", "ed")),
        ("decline", ("", "s", "d")),
        ("increase", ("", "s", "d")),
        ("decrease", ("", "s", "d")),
        ("recover", ("", "s", "ed")),
        ("resolve", ("", "s", "d")),
        ("persist", ("", "s", "ed")),
        ("disappear", ("", "s", "ed")),
        ("subside", ("", "s", "d")),
        ("recur", ("", "s", "red")),
        ("die", ("", "s", "d")),
        ("survive", ("", "s", "d")),
        ("fail", ("", "s", "ed")),
        ("work", ("", "s", "ed")),
        ("differ", ("", "s", "ed")),
        ("halve", ("", "s", "d")),
        ("double", ("s", "d")),
        ("triple", ("s", "d")),
        ("drop", ("ped",)),
        ("fall", ("", "s")),
        ("rise", ("", "s")),
        ("fell", ("",)),
        ("rose", ("",)),
    )
    for ending in endings
)
_INTRO_WORDS = 8  # "Key mechanisms include:" introduces a list; a longer one says something
_LABEL_WORDS = 6  # a longer heading is read as a sentence
_NEGATION = r"\b(?:no|not|never|none|nor|without|lacks?|cannot)\b"
_NEGATED = re.compile(_NEGATION, re.IGNORECASE)
# What no label holds: a number, a colon before what it says of its subject ("Aspirin: no
# stroke benefit"), a negation.
_NO_LABEL = re.compile(rf"[\d:]|{_NEGATION}", re.IGNORECASE)
# A question that asserts: a statement before a tag ("Statins cause diabetes, don't they?",
# "..., right?"), or a clause it takes as known ("Did you know that X?", "Isn't it true that
# X?", "Who knew X?", "Why do you think X?", "How come X?"). A question that only asks ("Is
# it true that X?", "Would you like more details?") asserts nothing.
_QUESTION_TAG = re.compile(
    r",\s*(?:(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)n['\u2019]t"
    r"(?:\s+\w+){1,2}|right|correct|true|no)\W*\?\W*$",
    re.IGNORECASE,
)
_TAKEN_AS_KNOWN = re.compile(
    r"(?:^\W*|[,;:!]\s+)(?:(?:did|didn['\u2019]t)\s+you\s+(?:know|hear|realis\w*|realiz\w*)"
    r"|(?:isn['\u2019]t|wasn['\u2019]t)\s+it\s+(?:true|the\s+case|clear|obvious|known)"
    r"|is\s+it\s+not\s+(?:true|the\s+case|clear|obvious)|who\s+knew|how\s+come"
    r"|why\s+(?:do|would|did)\s+you\s+(?:think|believe|suppose|say)|why\s+is\s+it(?=\s+that\b)"
    r"|(?:don['\u2019]t|wouldn['\u2019]t)\s+you\s+(?:think|agree))(?:\s+that)?\s+",
    re.IGNORECASE,
)
_QUESTION_WORDS = frozenset({"what", "how", "why", "when", "who", "which", "where"})
MIN_CONTENT_TOKENS = 2


def is_checkworthy(sentence: str, heading: bool = False) -> bool:
    """False for questions, greetings, meta sentences, hedges and headings: a sentence whose
    every piece is meta talk (a greeting, an introducer or an aside), or that says too little
    once those are set aside. ``heading``: the sentence is a markdown heading, which is a label
    unless it states a finding (``_is_label``); so is a line in bold on its own."""
    stripped = sentence.strip()
    if (heading or _BOLD_LINE.fullmatch(stripped)) and all(
        _is_label(cell.strip("*_#: ")) for cell in stripped.split("|") if cell.strip()
    ):
        return False  # a table's header row is a label cell by cell
    stripped = without_emphasis(stripped[_label_length(stripped) :])
    stripped = _ANSWER_WORD.sub("", stripped.strip("#> "), count=1)
    stripped = _OPENER.sub("", stripped, count=1)
    if stripped.endswith("?"):
        asserted = question_claim(stripped)
        stripped = "" if asserted is None else stripped[asserted[0] : asserted[1]]
    if not stripped:
        return False
    introduces = stripped.endswith(":") and len(stripped.split()) <= _INTRO_WORDS
    if introduces and not _states_a_finding(stripped):  # "Key mechanisms include:"
        return False
    said = " ".join(stripped[start:end] for start, end in asserting_pieces(stripped))
    return len(content_tokens(said)) >= MIN_CONTENT_TOKENS


def list_lead(lead: str, item: str, *, labels: bool = False) -> str | None:
    """The words of ``lead``, the line that introduced a list ("The core subunits are:"), that
    complete a list ``item`` that is no clause of its own ("WDR5", "aspirin 81 mg") into a claim
    ("The core subunits are WDR5"), or None: where the item says something alone (a verb of its
    own and enough words: "Lowers LDL by 30%"), the lead is talk ("Here are the subunits:"), or
    the two still say too little. A label with no verb ("Cures for cancer:") completes nothing
    unless ``labels`` (an uncited item, which no record can check): then the claim reads
    "Cures for cancer: homeopathy", and talk labels ("Key findings:", "References:") still
    complete nothing. Unread, a list of bare names went out unverified however wrong its names
    were, and a fragment judged alone is one the model calls anything but supported."""
    if has_verb(item, finite=True) and is_checkworthy(item):
        return None
    words = without_emphasis(lead).strip().rstrip(":").strip()
    if not words or not asserting_pieces(words):
        return None
    if not has_verb(words, finite=True):
        if not labels or not content_tokens(words) - _TALK_TOKENS - _LISTING_TOKENS:
            return None
        words += ":"
    return words if is_checkworthy(f"{words} {item}") else None


def bare_term(item: str) -> str | None:
    """What a list item names when it only names something ("Hirschsprung disease",
    "**casirivimab**", "IL-6", "**Key finding:** tenecteplase" names "tenecteplase"): a few
    words, no quantity, no comparison, no verb; None otherwise. Judged alone it is a fragment
    the model reads as it likes; what can be checked is that the record it cites names it."""
    term = without_emphasis(item[_label_length(item) :]).strip().rstrip(".;,").strip()
    words = term.split()
    if not words or len(words) > _TERM_WORDS or has_verb(term) or _comparison(term):
        return None
    if len(words) >= 3 and _plural(words[0].lower()):
        return None  # a clause whose verb no lexicon holds: "Platelets transport serotonin"
    if any(_DIGIT.search(q.text) for q in extract_quantities(term)):
        return None  # "20% lower mortality" states a finding; "IL-6" and "miR-214" are names
    return term if content_tokens(term) - _TALK_TOKENS - _ANSWER_TOKENS else None


def _comparison(item: str) -> bool:
    """Whether ``item`` holds a comparison sign ("age ≥70", "HbA1c < 7%")."""
    return any(sign in item for sign in "<>≤≥")


def _states_a_finding(line: str) -> bool:
    """Whether a short line that ends in a colon says something of its own: it holds a measured
    quantity ("Mortality fell by 30%:"), a negation ("Aspirin does not prevent stroke:") or a
    verb its complement closes ("Aspirin halves stroke risk:"), and it is no clause left open
    for the list to finish ("Patients should not take it if they:", "Women cannot have:")."""
    words = line.rstrip(":").split()
    last = words[-1].lower() if words else ""
    if last in _CLOSING_VERBS and _closes_on_its_verb(words):
        return True  # "Mortality fell:", "Symptoms usually resolve:"
    if not last or last in _OPEN_ENDS or is_verb(last) or not content_tokens(last):
        return False
    measured = any(any(c.isdigit() for c in q.text) for q in extract_quantities(line))
    return measured or _NEGATED.search(line) is not None or _asserts_plainly(words)


def _asserts_plainly(words: Sequence[str]) -> bool:
    """Whether a short line closed by a complement says what its verb does ("Aspirin halves
    stroke risk:", "Statins cause diabetes:", "Smoking is harmless:"), not what a list will name
    ("Statins have several benefits:", "There are two options:", "What the studies show:"). A
    noun that can be a verb after a singular noun is none ("Peer Support Program:", "Mask use
    during COVID-19:"); title case hides nothing ("Aspirin Halves Stroke Risk:" is checked)."""
    lowered = _plain(words)
    if _announces_a_list(lowered):
        return False
    if lowered[-1] in _PREPOSITIONS or lowered[-1] in _CONJUNCTIONS:
        return False  # a clause left open for the list ("Patients are excluded if:")
    for i in range(1, len(words) - 1):
        subject = i - 1
        if lowered[subject].endswith("ly"):  # an adverb: "Statins clearly cause diabetes:"
            if not subject:
                continue  # no subject before it: "Histologically confirmed cancer:"
            subject -= 1
        if _subject_word(words[subject]) and _finite_verb(
            lowered[i], lowered[subject], lowered[i + 1]
        ):
            return True
    return False


def _closes_on_its_verb(words: Sequence[str]) -> bool:
    """Whether a line that ends in a verb of ``_CLOSING_VERBS`` is a clause of its own: a
    subject before the verb (an adverb or an auxiliary between them or not: "Patients can
    recover:"), a verb that agrees with it ("Outcomes improved:", "Symptoms resolve:", not
    "Symptom resolve:"), and no list announced ("Several markers increased:")."""
    lowered = _plain(words)
    if _announces_a_list(lowered):
        return False
    verb, before = lowered[-1], lowered[:-1]
    if before and before[-1].endswith("ly"):
        before = before[:-1]
    if before and before[-1] in AUXILIARIES:
        before, verb = before[:-1], before[-1]
    if not before or not _subject_word(before[-1]):
        return False
    if verb in AUXILIARIES or verb.endswith(("s", "d")) or verb in ("fell", "rose"):
        return True
    return _plural(before[-1])


def _finite_verb(word: str, previous: str, following: str) -> bool:
    """Whether ``word``, between the subject word ``previous`` and ``following``, is a verb
    its subject governs: an auxiliary, a form in -s, a base form after a plural ("Statins
    cause"), or a past form that takes an object ("Aspirin reduced mortality:"; "AEs related to
    treatment:", "Histologically confirmed cancer:" are participles)."""
    if not is_verb(word, previous) or word.endswith("ing"):
        return False
    if word in AUXILIARIES or (word.endswith("s") and not word.endswith("ss")):
        return True
    if word.endswith("ed") or not is_verb(word + "s"):  # a past form ("reduced", "fell")
        return following not in _PREPOSITIONS
    return _plural(previous)


def _plain(words: Sequence[str]) -> list[str]:
    """``words`` lower-cased, without the emphasis and punctuation around them."""
    return [w.strip("*_,;()").lower() for w in words]


def _announces_a_list(lowered: Sequence[str]) -> bool:
    """Whether a line's words announce the list after it, or ask ("What the studies show:")."""
    return any(w in _ANNOUNCING or w in _QUESTION_WORDS for w in lowered)


def _plural(word: str) -> bool:
    """Whether ``word`` reads as a plural subject a base-form verb agrees with ("Statins")."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _subject_word(word: str) -> bool:
    """Whether ``word`` can end a verb's subject: a content word with a letter, no enumerator
    ("(1) control (n = 7):") and no preposition ("for target lesions:")."""
    return any(c.isalpha() for c in word) and bool(content_tokens(word)) and "(" not in word


def question_claim(question: str) -> tuple[int, int] | None:
    """The (start, end) of the statement ``question`` asserts; None when it only asks."""
    tag = _QUESTION_TAG.search(question)
    if tag is not None:
        return 0, tag.start()
    known = _TAKEN_AS_KNOWN.search(question)
    return (known.end(), len(question)) if known is not None else None


class _Meta(Enum):
    """What kind of meta talk a piece of a sentence is."""

    NONE = "none"  # it may assert something
    GREETING = "greeting"
    INTRODUCER = "introducer"
    ASIDE = "aside"


def asserting_pieces(sentence: str) -> list[tuple[int, int]]:
    """The (start, end) of each piece of ``sentence`` that is not meta talk, a lead-in
    ("please note that") left out of its piece."""
    return [(start, end) for start, end, meta in _pieces(sentence) if meta is _Meta.NONE]


def _pieces(sentence: str) -> list[tuple[int, int, _Meta]]:
    """Each piece of ``sentence`` as (start, end, what meta talk it is), without its
    lead-in."""
    bounds = [0, *(i for m in _PIECE_BREAK.finditer(sentence) for i in (m.start(), m.end()))]
    bounds.append(len(sentence))
    pieces: list[tuple[int, int, _Meta]] = []
    for start, end in zip(bounds[::2], bounds[1::2], strict=True):
        lead = _LEAD_IN.match(sentence, start, end)
        start = lead.end() if lead is not None else start
        sources = _SOURCES_LEAD_IN.match(sentence, start, end)
        if sources is not None and has_verb(sentence[sources.end() : end]):
            start = sources.end()
        if start >= end:
            continue
        meta, talk_end = _meta(sentence[start:end])
        rest = sentence[start + talk_end :]  # a clause the talk asserts may run past the piece
        # "Here are the main side effects reported in the trials: ..." introduces what it
        # names, and what follows the colon is checked.
        listing = meta is _Meta.INTRODUCER and _introduces(sentence, end)
        opening = sentence[start : start + talk_end]
        asserted = (
            None
            if meta is _Meta.NONE or listing
            else _asserted(rest, end - start - talk_end, meta, opening)
        )
        if asserted is not None:  # "This is not medical advice but X": X is checked
            start += talk_end + asserted if asserted else 0
            meta = _Meta.NONE
        if pieces and _CONTINUATION.match(sentence, start):
            meta = pieces[-1][2]  # "more research is needed into X, and to investigate Y"
        elif meta is _Meta.NONE and pieces and pieces[-1][2] is not _Meta.NONE:
            # "Please consult your physician, who can tailor the advice": the talk goes on in
            # a relative clause, unless that asserts ("..., who will confirm that X").
            relative = _RELATIVE.match(sentence, start)
            if relative is not None:
                after = relative.end()
                goes_on = _asserted(sentence[after:], end - after, pieces[-1][2], "")
                if goes_on is None:
                    meta = pieces[-1][2]
                elif goes_on:
                    start = after + goes_on
        pieces.append((start, end, meta))
    return pieces


def _meta(piece: str) -> tuple[_Meta, int]:
    """What meta talk ``piece`` opens with, and where in it that talk ends (where the words
    after it start; the whole piece when it holds emphasis: "**More research** is needed")."""
    plain = without_emphasis(piece)
    talk_end = len(piece) if plain != piece else None
    if greeting := _GREETING.match(plain):
        return _Meta.GREETING, talk_end or greeting.end()
    introducer = _INTRODUCER.match(plain)
    # "The following drugs reduce mortality: ..." introduces a list, and states a finding.
    following = introducer is not None and bool(introducer["following"])
    if introducer is not None and not (following and has_verb(plain[introducer.end() :])):
        return _Meta.INTRODUCER, talk_end or introducer.end()
    if aside := _ASIDE.match(plain):
        return _Meta.ASIDE, talk_end or aside.end()
    return _Meta.NONE, 0


def _introduces(sentence: str, end: int) -> bool:
    """Whether the piece of ``sentence`` that ends at ``end`` ends in a colon."""
    return sentence[:end].rstrip().endswith(":") or sentence[end : end + 1] == ":"


def _asserted(rest: str, piece: int, meta: _Meta, opening: str) -> int | None:
    """Where the claim starts in ``rest``, the words that follow meta talk (its piece's first
    ``piece`` characters, then the rest of the sentence), when they go on to assert something;
    None when they only go on with the talk.

    The talk goes on in its own words (``_TALK_WORDS``) and one word more at most ("Thanks for
    asking about statins"), in an infinitive, a condition or an indirect question ("... to
    confirm these findings", "... if you have questions"), and, after an aside or a greeting,
    in a phrase with no number and no verb but an "-ing" form ("More research is needed in
    larger populations"; after thanks, with three words at most that are not the talk's).

    A clause after "but", "because", "since", "that", "why" or "how" (``_ASSERTING``) makes the
    piece a claim when it says more and is no talk itself. Where the claim then starts is
    ``_stands_alone``'s call: at the clause, or with the talk (``opening``, the meta talk itself,
    and what follows it) where the talk may deny the clause. Talk that says more with no such
    word ("Here are the facts X") is claimed whole. Meta talk read whole, with no comma after
    it, sent findings out unverified; the words are counted rather than searched for a verb, so
    that a verb the lexicon lacks sends nothing out."""
    cut = _NOT_ASSERTING.search(rest, 0, piece)
    talk = rest[: cut.start() if cut is not None else piece]  # what the talk itself goes on to
    qualifier = meta is not _Meta.INTRODUCER and _QUALIFIER.match(talk) is not None
    if meta is _Meta.GREETING:  # thanks name at most what was asked about
        qualifier &= len(content_tokens(talk) - _TALK_TOKENS) <= _THANKED_WORDS
    if qualifier and not (has_verb(talk, finite=True) or _DIGIT.search(talk)):
        talk = ""  # "More research is needed in larger populations", "Thanks for the question"
    for match in _ASSERTING.finditer(rest):
        clause = rest[match.end() :]  # asserted only if it is no talk itself
        within = match.start() < (piece if match["presupposed"] else len(talk))
        if within and not asserting_pieces(clause):
            return None  # "I cannot stress enough that more research is needed"
        if within and _says_more(clause):
            return match.end() if _stands_alone(match, opening + rest[: match.start()]) else 0
    first = _ASSERTING.search(talk)
    return 0 if _says_more(talk[: first.start() if first is not None else None]) else None


def _stands_alone(connector: re.Match[str], before: str) -> bool:
    """Whether the clause after ``connector`` (an ``_ASSERTING`` match) is claimed without the
    talk ``before`` it: after "but", "because", "since" and "why", and after a "that" that
    follows a verb or an adjective ("stress enough that", "surprised that") in talk that does
    not doubt it. A "that" after a noun opens a relative clause ("the prospects that have
    ..."), and "how" may ask what is not yet so ("how the taxes will work"): the talk stays."""
    if connector["alone"] or (connector["presupposed"] or "").lower() == "why":
        return True
    if not connector["that"] or _DOUBTING.search(before):
        return False
    words = before.split()
    last = words[-1].lower() if words else ""
    return is_verb(last) or last in _COMPLEMENT_TAKERS


def _says_more(words: str) -> bool:
    """Whether ``words`` hold more than one content word that is not the talk's own."""
    return len(content_tokens(words) - _TALK_TOKENS) > 1


def lead_length(sentence: str) -> int:
    """Where the sentence's claims start: after a label in bold, the yes or no that answers
    the user, and the greetings, introducers and lead-ins that open it ("Hello, ", "Here are
    the key results: ", "Please note that"); 0 when it opens with what it claims, or says
    nothing else."""
    lead = _label_length(sentence)
    lead += _answer_length(sentence[lead:])
    for start, _, meta in _pieces(sentence[lead:]):
        if meta in (_Meta.NONE, _Meta.ASIDE):  # an aside may hold what the claim is about
            # The answer may follow a lead-in: "Based on the provided abstracts, yes, ...".
            claim = lead + start
            after = claim + (_answer_length(sentence[claim:]) if start else 0)
            return after if sentence[after:].strip() else claim
    return lead if lead < len(sentence) else 0


def _answer_length(text: str) -> int:
    """The length of the yes or no (and its punctuation) that opens ``text``, or 0."""
    answer = _ANSWER_WORD.match(text)
    return answer.end() if answer is not None else 0


def _label_length(sentence: str) -> int:
    """Where a sentence opened by a label in bold goes on (0 without one). The label stays
    where the words after it open with their verb: it is their subject ("**Metformin:** lowers
    HbA1c")."""
    match = _BOLD_LABEL.match(sentence)
    if match is None or not _is_label(match["label"]):
        return 0
    rest = sentence[match.end() :].split(maxsplit=1)
    if not rest or (rest[0][0].islower() and is_verb(rest[0])):
        return 0  # "Results show ..." has a subject of its own
    return match.end()


def _is_label(heading: str) -> bool:
    """A heading that names what follows ("Key findings", "Dosing and safety", "What the
    studies show") rather than stating a finding ("Statins reduce LDL", "Aspirin: no stroke
    benefit"): a short one without a number, colon or negation, and with no verb after its
    first word (a first word such as "Benefits" or "Uses" is a noun there) unless it opens with
    a question word. A heading that is no label is checked as a sentence: a heading is no way
    around verification."""
    words = heading.split()
    if len(words) > _LABEL_WORDS or heading.endswith(".") or _NO_LABEL.search(heading):
        return False
    if words and words[0].lower() in _QUESTION_WORDS:
        return True
    return not any(is_verb(w, words[i - 1]) for i, w in enumerate(words) if i)


def has_verb(text: str, *, finite: bool = False) -> bool:
    """Whether ``text`` holds a verb; ``finite``: one that is no "-ing" form ("... into the
    effects of being single" holds none)."""
    words = text.split()
    return any(
        is_verb(w, words[i - 1] if i else "") and not (finite and w.lower().endswith("ing"))
        for i, w in enumerate(words)
    )
