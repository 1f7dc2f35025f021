"""A name in another's place: the claim puts a name where its evidence, in the same words,
puts another.

The entity check asks whether each name of a claim is in its evidence. A model that confuses
the entities of the abstract it read passes it: the name it puts in is there, in another role
("Among CYP enzymes, CYP3A4 and CYP2D6 are the most relevant" read as "CYP and CYP2D6 are the
most relevant"; "the CGRP receptor (erenumab)" read as "the FDA receptor"). Such a claim
keeps the evidence's words around the name and changes the name: the words on either side of
it (two before, two after, or one on each side, a content word among them) are the words that
stand around another name of the evidence, and nowhere around the claim's own.

Not a swap: a name listed with the other ("palbociclib, ribociclib and abemaciclib": what is
said of the list is said of each), a name the claim itself moves (two names reordered: a
relation or comparison turned round, left to the model and the other checks), or one spelled
the same way up to case, hyphens, Greek letters and a plural.

A short form is in another's place too where the claim defines it ("Y (X)", "X stands for Y")
as the long form the cited abstract gives another short form: "EGF stands for epiregulin"
where the abstract writes "epiregulin (EREG)" (``misdefined_names``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from verifiers.checks.names import SAME_ENTITY, Span, listed_with, name_key, names_in
from verifiers.checks.normalise import content_tokens

START, END = "\x02", "\x03"  # the text's edges, so a name opening a sentence has a side too
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_REACH = 4  # words read on each side for the nearest content words
_ARTICLES = frozenset({"a", "an", "the"})


@dataclass(frozen=True, slots=True)
class _Token:
    key: str  # a word casefolded, or a name's ``name_key``
    name: str | None  # the name as written, for a name


@dataclass(frozen=True, slots=True)
class Swap:
    """A claim's name where its evidence puts another in the same words."""

    ours: str
    theirs: str
    pmid: str
    context: str  # the words the two share, the name's place marked "…"

    def __str__(self) -> str:
        return f"{self.ours!r} where the evidence says {self.theirs!r} ({self.context})"


def _tokens(text: str, names: Sequence[Span]) -> list[_Token]:
    """The text's words and its ``names`` (joined by slashes: ``_joined``), between its edges."""
    names = _joined(names, text)
    tokens = [_Token(START, None)]
    at = 0
    for start, end, name in [*names, (len(text), len(text), "")]:
        tokens += [_Token(_word_key(m.group(0)), None) for m in _WORD.finditer(text, at, start)]
        if name:
            tokens.append(_Token(name_key(name), name))
        at = end
    return [*tokens, _Token(END, None)]


def _joined(names: Sequence[Span], text: str) -> list[Span]:
    """Names joined by a slash as one ("TCR/CD8", "YAP/TEAD"): a complex or a pair named as
    one, which the evidence may write "TCR-CD8"."""
    joined: list[Span] = []
    for start, end, name in names:
        if joined and text[joined[-1][1] : start] == "/":
            first = joined.pop()
            joined.append((first[0], end, text[first[0] : end]))
        else:
            joined.append((start, end, name))
    return joined


def _word_key(word: str) -> str:
    key = word.casefold()
    return "the" if key in _ARTICLES else key  # "a PD-1 inhibitor", "the PD-1 inhibitor"


def _contexts(tokens: Sequence[_Token], i: int) -> Iterator[tuple[str, ...]]:
    """The words around token ``i`` read as its place: the two words before it, the two after,
    one on each side, and a content word next to it with the nearest content word past it
    (within ``_REACH`` words: "LY6K overexpression was associated" and "ESCC overexpression is
    associated"). A context without a content word ("of the …") is not read: it holds any name."""
    keys = [t.key for t in tokens]
    sides = [
        ("<", *keys[max(i - 2, 0) : i]),
        (">", *keys[i + 1 : i + 3]),
        ("<>", *keys[i - 1 : i], *keys[i + 1 : i + 2]),
        ("<c", *_nearest_content(keys[max(i - _REACH, 0) : i][::-1])),
        (">c", *_nearest_content(keys[i + 1 : i + 1 + _REACH])),
    ]
    for side in sides:
        if len(side) == 3 and any(_is_content(k) for k in side[1:]):
            yield side


def _nearest_content(keys: Sequence[str]) -> list[str]:
    """The first word of ``keys`` (nearest first) and the nearest content word after it, when
    the first is a content word itself ("as gefitinib" holds no place)."""
    if not keys or not _is_content(keys[0]):
        return []
    return [keys[0], *[k for k in keys[1:] if _is_content(k)][:1]]


def _is_content(key: str) -> bool:
    return len(key) > 1 and bool(content_tokens(key))


def same_name(ours: str, theirs: str, following: Sequence[str] = ()) -> bool:
    """Whether the claim's name ``ours`` and the evidence's ``theirs`` are one entity to a
    reader: one spelling (``name_key``: "TCR/CD8" and "TCR-CD8"), a disease and its pathogen
    (``SAME_ENTITY``), the claim's name the head of the evidence's compound, its last part
    ("GAPDH" for "SNO-GAPDH": a kind of GAPDH; "RNA" for "RNA-seq" and "cis-eQTLs" for "eQTLs"
    name something else), one the other with a one-letter lower-case prefix ("NSC" and
    "aNSC", "TERT" and "hTERT"), or the evidence's name a short form the claim spells out with
    the words ``following`` its name ("ACE inhibitors" for "ACEIs")."""
    a, b = name_key(ours), name_key(theirs)
    if a == b or any({a, b} <= same for same in SAME_ENTITY):
        return True
    if "-" in theirs and a == name_key(theirs.rsplit("-", 1)[1]):
        return True  # the head of the evidence's compound: the claim names its kind
    longer, shorter = (ours, theirs) if len(ours) > len(theirs) else (theirs, ours)
    if longer[:1].islower() and name_key(longer[1:]) == name_key(shorter):
        return True
    rest = b.removeprefix(a) if b != a and b.startswith(a) else ""
    return bool(rest) and "".join(word[:1] for word in following[: len(rest)]) == rest


def _described(context: tuple[str, ...]) -> str:
    side, *words = (w for w in context if w not in (START, END))
    if side in ("<", "<c"):
        return " ".join([*(reversed(words) if side == "<c" else words), "…"])
    if side in (">", ">c"):
        return " ".join(["…", *words])
    return " ".join([*words[:1], "…", *words[1:]]) if len(words) == 2 else " ".join(words)


def swapped_names(claim: str, windows: Sequence[tuple[str, str]]) -> list[Swap]:
    """The claim's names that stand where one of ``windows`` (PMID, text) puts another name in
    the same words, and where none of them puts the claim's own."""
    ours = _tokens(claim, names_in(claim))
    claim_keys = {t.key for t in ours if t.name}
    # Each of the claim's names: its token's index, the name, and its places.
    our_names = [(i, t.name, list(_contexts(ours, i))) for i, t in enumerate(ours) if t.name]
    slots: dict[tuple[str, ...], dict[str, tuple[str, str]]] = {}  # context -> key -> name, PMID
    places: dict[str, set[tuple[str, ...]]] = {}  # name key -> its contexts in the evidence
    listed: dict[str, set[str]] = {}
    for pmid, text in windows:
        spans = names_in(text)
        theirs = _tokens(text, spans)
        for j, token in enumerate(theirs):
            if token.name is None:
                continue
            for context in _contexts(theirs, j):
                slots.setdefault(context, {}).setdefault(token.key, (token.name, pmid))
                places.setdefault(token.key, set()).add(context)
            if token.key in claim_keys:
                listed.setdefault(token.key, set()).update(listed_with(token.key, spans, text))
    # A name the claim moves (puts where the evidence does not) may have left its place to
    # another of the claim's names: two names reordered, which is no swap.
    moved = {
        ours[i].key
        for i, _, contexts in our_names
        if not places.get(ours[i].key, set()).intersection(contexts)
    }
    swaps: list[Swap] = []
    for i, ours_name, contexts in our_names:
        key = ours[i].key
        following = [t.key for t in ours[i + 1 : i + 4]]
        for context in contexts:
            there = slots.get(context, {})
            if any(same_name(ours_name, name, following) for name, _ in there.values()):
                continue  # the evidence puts this very name here too
            others = [
                (name, pmid)
                for other, (name, pmid) in there.items()
                if other not in moved and other not in listed.get(key, ())
            ]
            if others:
                name, pmid = others[0]
                swaps.append(Swap(ours_name, name, pmid, _described(context)))
                break
    return swaps


# "X stands for Y": what the claim says a short form means, up to the clause's end.
_STANDS_FOR = re.compile(
    r"\s+(?:stands for|is short for|is (?:an|the) (?:abbreviation|acronym) (?:of|for))\s+"
    r"(?P<long>[^,.;:()\[\]]+)",
    re.IGNORECASE,
)
_LONG_FORM_WORDS = 8  # words before "(X)" read as the long form it abbreviates
_WORDS_BEFORE = re.compile(rf"(?:\S+\s+){{0,{_LONG_FORM_WORDS - 1}}}\S+\s*$")


def misdefined_names(
    claim: str,
    forms: Mapping[str, Mapping[str, frozenset[str]]],
    texts: Sequence[str] = (),
) -> list[Swap]:
    """Short forms the claim defines ("Y (X)", "X stands for Y") where the cited abstract
    defines Y as another short form and X, if at all, as something else: "EGF stands for
    epiregulin" where the abstract writes "epiregulin (EREG)". ``forms``: per PMID, the short
    forms its abstract defines (short-form token -> the content tokens of its long form);
    ``texts``: where to find the other short form as written, for the report."""
    swaps = []
    for definition in _definitions(claim):
        ours = content_tokens(definition.name)
        if len(ours) != 1 or not definition.words:
            continue
        short = next(iter(ours))
        for pmid, defined in forms.items():
            own = defined.get(short) or defined.get(_plural(short), frozenset())
            if own and definition.gives(own, short):
                break  # the abstract defines the claim's short form as the claim does
            others = (
                (s, said)
                for s, words in defined.items()
                if _singular(s) != _singular(short) and (said := definition.gives(words, short))
            )
            other = next(others, None)
            if other is not None:
                written = _as_written(other[0], texts)
                context = f"the abstract's short form for {other[1]!r}"
                swaps.append(Swap(definition.name, written, pmid, context))
                break
    return swaps


@dataclass(frozen=True, slots=True)
class _Definition:
    """A short form the claim defines, and the words it gives for it."""

    name: str
    long: str  # "stands for": the words said; "(X)": up to _LONG_FORM_WORDS words before
    words: tuple[frozenset[str], ...]  # the content tokens of each word of ``long`` (some none)
    stated: bool  # "X stands for Y" (Y is all the long form), else "Y (X)"

    def gives(self, long_form: frozenset[str], short: str) -> str | None:
        """The claim's words for its short form ``short`` where they are ``long_form`` (content
        tokens), or None:
        all of what it says for a stated definition, ending in its last word; the words right
        before the parenthesis for "Y (X)", unless the word before them opens the short form
        too ("neurotrophic tropomyosin receptor kinase (NTRK)" is no "tropomyosin receptor
        kinase (TRK)")."""
        said = [w for w in self.words if w]
        if not long_form or not said:
            return None
        if self.stated:
            return self.long if said[-1] <= long_form <= frozenset().union(*said) else None
        words = self.long.split()
        taken: set[str] = set()
        for i in range(len(self.words) - 1, -1, -1):
            taken |= self.words[i]
            if taken == long_form:
                before = words[i - 1] if i else ""
                return " ".join(words[i:]) if before[:1].casefold() != short[:1] else None
            if not taken <= long_form:
                return None
        return None


def _definitions(claim: str) -> Iterator[_Definition]:
    """The short forms the claim defines: "Y (X)" and "X stands for Y"."""
    for start, end, name in names_in(claim):
        before, after = claim[:start].rstrip(), claim[end:].lstrip()
        if before.endswith("(") and after.startswith(")"):
            found = _WORDS_BEFORE.search(before[:-1].rstrip())
            if found:
                yield _definition(name, found.group(0).strip(), stated=False)
        stated = _STANDS_FOR.match(claim, end)
        if stated:
            yield _definition(name, stated.group("long").strip(), stated=True)


def _definition(name: str, long: str, *, stated: bool) -> _Definition:
    words = tuple(frozenset(content_tokens(word)) for word in long.split())
    return _Definition(name, long, words, stated)


def _singular(short: str) -> str:
    return short.removesuffix("s")


def _plural(short: str) -> str:
    return short if short.endswith("s") else short + "s"


def _as_written(short: str, texts: Sequence[str]) -> str:
    """``short`` (a short-form token) as ``texts`` write it ("YLDs" for "ylds")."""
    for text in texts:
        for word in _WORD.finditer(text):
            if word.group(0) != word.group(0).lower() and content_tokens(word.group(0)) == {short}:
                return word.group(0)
    return short
