"""Whose value it is: a number the evidence states, but for other words than the claim's.

Chat models copy a value from the wrong arm or measure of a sentence that states several:
"mortality was 23%" where the evidence reads "lower mortality (1% vs 9%) and reintubation (4%
vs 23%)", or "partial restriction: OR 3.3" from "partial restriction: OR = 2.1; no restriction:
OR = 3.3". The numbers check finds 23% and 3.3 stated, so this reads which words the evidence
gives each value, by where they stand:

- the values of one unit in the evidence sentence fall into groups, values joined only by
  "vs", "and", "to", commas or brackets ("1% vs 9%": one measure in two arms; a mean and its
  spread);
- the words just before the first group (a few, ``NEAR``) belong to it, the words just after
  the last group to that one, and the words between two groups to the one before or after a
  break ("; ", "and", "while", "compared with") where there is one, to either where there is
  none (a label may stand before its value or after it). Where every label follows its value,
  the first words name what all groups measure; where every label precedes it, the last words
  do. A word before a head that another group's words hold bare is a word that group left out
  ("the skin care protocol every 12 hours and ... the protocol every 6 hours"), no label;
- the claim's words are read with the short forms its abstract defines ("overall survival" is
  "OS"), its own unit word left out (every value of the unit has it);
- the claim's value is **given to other words** where some claim word belongs only to another
  group, holding other values, and no claim word belongs to the value's own group more than to
  that one.

A sentence with "respectively" gives the values of its last group before that word, in order,
to the items of one list, after them ("12% and 18% in men and women") or before them
("hypointense, isointense, and hyperintense lesions were 17%, 30%, and 40%"): a claim naming
another item's words and none of its value's item is given another's value. A list that is not
one of as many items as values is not read.

What this cannot place (a label between two values with no break, two arms inside one group)
passes: it flags only a value the sentence's layout clearly gives to something else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verifiers.checks.normalise import content_sequence, function_words, with_abbreviations

NEAR = 4  # words before the first group and after the last that name what it measures
# What may stand between values given together: "1% vs 9%", "12% and 18%", "(4.2%, 6.1%)",
# and a mean and its spread ("107.4±30.0 minutes", "68 +/- 14%").
_JOINED = re.compile(
    r"[\s(),:=]*(?:(?:vs\.?|versus|v\.|and|or|to|through|compared (?:with|to)|\u00b1|\+/?-)"
    r"[\s(),:=]*)?",
    re.IGNORECASE,
)
# A break between the words of two groups: before it, the words of the group before.
_BREAK = re.compile(
    r";|\b(?:and|while|whereas|but|than|compared (?:with|to)|versus|vs)\b", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
# The separators of a list's items, the one before its last item apart ("A, B, and C").
_LIST_SEPARATOR = re.compile(r"(,?\s+(?:and|or)\s+|,\s*)", re.IGNORECASE)
_LISTED_LAST = re.compile(r",?\s+(?:and|or)\s+", re.IGNORECASE)
_WORD = re.compile(r"\w[\w'-]*")
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "its", "their", "each", "both"}
)


@dataclass(frozen=True, slots=True)
class Value:
    """A value of the evidence sentence: its span and how it is written."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Misattribution:
    """The claim's value as the evidence gives it to other words."""

    words: tuple[str, ...]  # the claim's words the evidence sets beside other values
    values: tuple[str, ...]  # those other values


def _groups(values: Sequence[Value], text: str) -> list[list[Value]]:
    """``values`` (in order) in groups of values joined only by connecting words."""
    groups: list[list[Value]] = []
    for value in values:
        if groups and (
            value.start <= groups[-1][-1].end
            or _JOINED.fullmatch(text, groups[-1][-1].end, value.start)
        ):
            groups[-1].append(value)
        else:
            groups.append([value])
    return groups


def _sequence(text: str) -> list[str]:
    """The content tokens of ``text`` as overlap compares them, in order, numbers, letters and
    function words ("up" of "follow-up") left out."""
    return [
        t
        for t in content_sequence(text)
        if len(t) > 1 and t.casefold() not in function_words() and not any(c.isdigit() for c in t)
    ]


def _words(text: str) -> set[str]:
    return set(_sequence(text))


def _owners(
    text: str, groups: Sequence[Sequence[Value]], start: int, end: int
) -> dict[str, set[int]]:
    """Each content word of the sentence ``text[start:end]`` near a group, with the groups
    (by index) it may belong to. A value's own words ("108 participants") are its group's."""
    regions = _regions(text, groups, start, end)
    owners: dict[str, set[int]] = {}
    for region in regions:
        for word, _ in region.tokens:
            owners.setdefault(word, set()).update(region.groups)
    # A word before a head noun that another group's words hold bare ("the protocol") is no
    # label of its own, but words that group left out: "the skin care protocol every 12 hours
    # and ... the protocol every 6 hours". A head another group's words modify otherwise
    # ("no restriction" against "partial restriction") leaves the word a label.
    for region in regions:
        for i, (word, _) in enumerate(region.tokens):
            later = {head for head, _ in region.tokens[i + 1 :]}
            for other in regions:
                if not set(other.groups) <= set(region.groups) and any(
                    head in later and _bare(text, start, at) for head, at in other.tokens
                ):
                    owners[word].update(other.groups)
    return owners


@dataclass(frozen=True, slots=True)
class _Region:
    """A stretch of the sentence and the groups (by index) its words may belong to."""

    start: int
    end: int
    groups: tuple[int, ...]
    tokens: tuple[tuple[str, int], ...]  # content tokens and the offsets of their words


def _region(text: str, start: int, end: int, *groups: int) -> _Region:
    tokens = tuple(
        (token, m.start())
        for m in _WORD.finditer(text, start, end)
        for token in _sequence(m.group(0))
    )
    return _Region(start, end, groups, tokens)


def _bare(text: str, start: int, at: int) -> bool:
    """Whether the word at ``at`` opens the sentence from ``start``, a clause, or follows an
    article or determiner: nothing modifies it."""
    before = list(_WORD.finditer(text, max(start, at - 40), at))
    if not before:
        return True
    word = before[-1].group(0)
    return word.lower() in _DETERMINERS or _BREAK.fullmatch(word) is not None


def _regions(text: str, groups: Sequence[Sequence[Value]], start: int, end: int) -> list[_Region]:
    """The stretches of the sentence ``text[start:end]`` whose words may name a group."""
    regions = [_region(text, v.start, v.end, i) for i, group in enumerate(groups) for v in group]
    last = len(groups) - 1
    labels_before = labels_after = 0
    for i in range(last):
        gap_start, gap_end = groups[i][-1].end, groups[i + 1][0].start
        breaks = list(_BREAK.finditer(text, gap_start, gap_end))
        if breaks:
            ahead = _region(text, gap_start, breaks[-1].start(), i)
            behind = _region(text, breaks[-1].end(), gap_end, i + 1)
            regions += [ahead, behind]
            labels_after += bool(ahead.tokens) and not behind.tokens
            labels_before += bool(behind.tokens) and not ahead.tokens
        else:
            regions.append(_region(text, gap_start, gap_end, i, i + 1))
    # Where every label follows its value ("12% in the intervention group and 18% in the
    # control group"), the words before the first value name what all of them measure; where
    # every label precedes it, the words after the last do.
    everyone = tuple(range(last + 1))
    before = list(_WORD.finditer(text, start, groups[0][0].start))[-NEAR:]
    if before:
        shared = labels_after and not labels_before
        owner = everyone if shared else (0,)
        regions.append(_region(text, before[0].start(), groups[0][0].start, *owner))
    after = list(_WORD.finditer(text, groups[-1][-1].end, end))[:NEAR]
    if after:
        shared = labels_before and not labels_after
        owner = everyone if shared else (last,)
        regions.append(_region(text, groups[-1][-1].end, after[-1].end(), *owner))
    return regions


def _sentence(text: str, at: int) -> tuple[int, int]:
    """The bounds of the sentence of ``text`` that holds offset ``at``."""
    start, end = 0, len(text)
    for m in _SENTENCE_END.finditer(text):
        if m.end() <= at:
            start = m.end()
        else:
            end = m.start()
            break
    return start, end


def given_elsewhere(
    claim: str,
    text: str,
    hit: Value,
    values: Sequence[Value],
    claimed: Sequence[Value] = (),
    forms: Mapping[str, frozenset[str]] | None = None,
    written: str = "",
) -> Misattribution | None:
    """Whether the sentence of ``text`` that states the claim's value at ``hit`` gives it to
    other words than the claim's. ``values``: the values of ``text`` in the claim value's unit
    (``hit`` among them), any order; ``claimed``: those the claim's other values restate (a
    claim that states both arms' values speaks of both). None where it gives it to the
    claim's or cannot tell. ``forms``: the short forms ``text``'s abstract defines, so that
    "overall survival" names the group of "OS (73.7 months vs. 46.2 months)"; ``written``: the
    claim's value as written, whose unit ("minutes" of "107.4 minutes") names no group: every
    value of the unit has it ("107.4±30.0 minutes")."""
    start, end = _sentence(text, hit.start)
    ordered = sorted(
        (v for v in values if start <= v.start and v.end <= end), key=lambda v: v.start
    )
    groups = _groups(ordered, text)
    if not any(hit in group for group in groups):
        return None
    words = with_abbreviations(_words(claim), forms or {})
    if respectively := _RESPECTIVELY.search(text, start, end):
        return _respective(words, claim, text, hit, groups, claimed, (start, respectively.start()))
    own = {i for i, group in enumerate(groups) if hit in group or set(group) & set(claimed)}
    if len(groups) < 2:
        return None
    owners = _owners(text, groups, start, end)
    placed = {word: owners[word] for word in words if word in owners}
    unit = _words(written)
    for other in set(range(len(groups))) - own:
        elsewhere = [
            w for w, given in placed.items() if other in given and not given & own and w not in unit
        ]
        if not elsewhere:
            continue
        if any(given & own and other not in given for given in placed.values()):
            continue
        pointed = sorted(set().union(*(placed[w] for w in elsewhere)) - own)
        named = tuple(_written_words(claim, elsewhere))
        return Misattribution(named, tuple(v.text for i in pointed for v in groups[i]))
    return None


def _respective(
    words: set[str],
    claim: str,
    text: str,
    hit: Value,
    groups: Sequence[Sequence[Value]],
    claimed: Sequence[Value],
    span: tuple[int, int],
) -> Misattribution | None:
    """The claim's value in a sentence that gives its values "respectively" (``words``: the
    claim's, its abbreviations' forms added): the values of the
    group holding ``hit`` (the last before "respectively", at ``span[1]``) go, in order, to the
    items of the one list before the group ("hypointense, isointense, and hyperintense lesions
    were 17%, 30%, and 40%") or between it and "respectively" ("12% and 18% in men and women").
    None where the list is not one of as many items as values."""
    start, respectively = span
    group = next(g for g in groups if hit in g)
    if (
        len(group) < 2
        or group[-1].end > respectively
        or any(g[0].start > group[-1].end and g[0].start < respectively for g in groups)
    ):
        return None
    after = text[group[-1].end : respectively]
    listed = after if _LISTED_LAST.search(after) else text[start : group[0].start]
    items = _items(listed, len(group))
    if items is None:
        return None
    if words & items[group.index(hit)]:
        return None
    for item, value in zip(items, group, strict=True):
        if value not in claimed and words & item:
            return Misattribution(tuple(_written_words(claim, sorted(words & item))), (value.text,))
    return None


def _items(listed: str, count: int) -> list[set[str]] | None:
    """The words of each of the ``count`` items of the list ``listed`` holds, the one "and"
    or "or" its last item follows ("A, B, and C"), words two items share left out: the first
    item's last content word, the last item's first, the others' all. None unless ``listed``
    holds one such list of ``count`` items."""
    if len(_LISTED_LAST.findall(listed)) != 1:
        return None
    pieces = _LIST_SEPARATOR.split(listed)
    last = next(i for i, p in enumerate(pieces) if _LISTED_LAST.fullmatch(p))
    items = [_sequence(p) for p in pieces[: last + 2] if not _LIST_SEPARATOR.fullmatch(p)]
    if len(items) < count or not all(items[-count:]):
        return None
    words = [set(item) for item in items[-count:]]
    words[0], words[-1] = {items[-count][-1]}, {items[-1][0]}
    shared = {w for i, ws in enumerate(words) for w in ws if any(w in o for o in words[i + 1 :])}
    return [ws - shared for ws in words]


def _written_words(claim: str, tokens: Sequence[str]) -> list[str]:
    """The claim's words as written whose content tokens are ``tokens``."""
    wanted = set(tokens)
    return [m.group(0) for m in _WORD.finditer(claim) if wanted & set(content_sequence(m.group(0)))]
