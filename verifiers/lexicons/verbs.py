"""Verbs, as the rule-based text steps tell a clause from a phrase without a tagger.

``BASE_VERBS`` is the list the training rules have always read (kept as it is, so that runs
stay reproducible); the clause splitter reads it with the auxiliaries, the irregular past forms
and the regular inflections of every base form (``is_verb``).
"""

from __future__ import annotations

import re

_BASE_VERBS_WORDS = """
    affect improve increase reduce decrease predict influence cause have help change differ
    play correlate matter need require impact alter exist work lead result prevent protect
    contribute enhance modify mediate induce inhibit promote respond benefit lower raise
    remain reflect depend occur exert show provide make add allow explain regulate bind
    interact express encode target act confer predispose outperform translate compromise
    worsen delay shorten prolong trigger activate suppress block cross develop vary be serve
    mean carry differentiate identify detect replace support reverse account survive get use
    contain persist return decline rise limit modulate facilitate stimulate attenuate
    """
BASE_VERBS = frozenset(_BASE_VERBS_WORDS.split())
# Verbs a clause of an answer or an abstract often turns on that the training rules never
# needed; read by ``is_verb`` only.
_MORE_VERBS_WORDS = """
    include involve represent exhibit display demonstrate suggest indicate reveal find appear
    seem tend fail produce form drive control restore maintain cure treat kill stop
    fall grow become begin keep hold give take see say report observe associate link relate
    elevate accelerate impair disrupt damage reach exceed extend determine offer lack yield
    undergo receive attain achieve measure assess evaluate examine investigate test confirm
    establish prove define describe recommend approve administer prescribe diagnose share
    resemble resist tolerate mimic precede follow accompany coincide recur progress infect
    transmit secrete release generate create enter stay react outweigh surpass equal match
    cover span last range constitute comprise consist belong compare
    halve eliminate abolish eradicate augment amplify alleviate relieve ameliorate mitigate
    lessen diminish minimise minimize exacerbate aggravate potentiate hinder impede hamper
    weaken strengthen heal soothe lengthen widen normalise normalize
    """
_MORE_VERBS = frozenset(_MORE_VERBS_WORDS.split())
# Verbs whose base form is as often a noun or an adjective ("a double dose", "breast boost: 5
# Gy", "triple A syndrome"): only their inflected forms are read as verbs.
_INFLECTED_ONLY_WORDS = """
    doubles doubled triples tripled quadruples quadrupled boosts boosted
    """
_INFLECTED_ONLY = frozenset(_INFLECTED_ONLY_WORDS.split())
_AUXILIARIES_WORDS = """
    is are was were be been being am has have had can could may might must will would shall
    should does do did cannot
    """
AUXILIARIES = frozenset(_AUXILIARIES_WORDS.split())
_IRREGULAR_PAST_WORDS = """
    rose fell grew led found made took gave saw became began kept held met ran went came got
    brought thought sought taught bore drew won lost left spread shown seen given taken known
    grown risen fallen begun undergone underwent
    """
_IRREGULAR_PAST = frozenset(_IRREGULAR_PAST_WORDS.split())
# A word after one of these is a noun or an adjective, whatever its ending ("the analyses",
# "its reduced dose").
_DETERMINERS_WORDS = """
    the a an its their his her our your this these those such some most all any no each
    every both either neither several many few
    """
DETERMINERS = frozenset(_DETERMINERS_WORDS.split())
_REGULAR_PAST = re.compile(r"[a-z]{3,}ed")
_PUNCTUATION = ".,;:()[]\"'"


def _forms(base: str) -> set[str]:
    stem = base[:-1] if base.endswith("e") else base
    forms = {base, base + "s", base + "es", stem + "ed", base + "d"}
    if base.endswith("y"):
        forms |= {base[:-1] + "ies", base[:-1] + "ied"}
    return forms


_VERB_FORMS = (
    frozenset(form for base in BASE_VERBS | _MORE_VERBS for form in _forms(base))
    | AUXILIARIES
    | _IRREGULAR_PAST
    | _INFLECTED_ONLY
)


def is_verb(word: str, previous: str = "") -> bool:
    """Whether ``word`` (as written, punctuation around it ignored) can be a verb here: a known
    verb form or a regular past form, unless a determiner comes right before it."""
    w = word.strip(_PUNCTUATION).lower()
    if previous.strip(_PUNCTUATION).lower() in DETERMINERS:
        return False
    return w in _VERB_FORMS or bool(_REGULAR_PAST.fullmatch(w))
