"""Sentence segmentation for biomedical answers, offline and incrementally on a growing stream.

Built on pysbd's rule-based sentencizer (the component scispaCy wraps as ``pysbd_sentencizer``),
which already keeps "e.g.", "i.v.", "et al.", "vs.", "Fig. 2", "p < 0.05" and "2.5 mg/kg"
together. Around it: markdown blocks (headings, list items, quotes, blank lines) are hard
boundaries and their markers are left out of the sentence span, a few repairs merge splits
pysbd makes inside a sentence (before "(ii)" enumerations, before "/ml", after "ng."), and a
sentence that runs into a section heading without a space ("results.RESULTS: We") is cut, and
citations written after a sentence's full stop ("Statins lower LDL. [PMID:1] They ...") stay with
that sentence rather than opening the next.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache

import pysbd

from verifiers.errors import UnsegmentedText

# A character of a word: a stretch between pysbd's sentences holding one is a sentence too.
_WORD_CHARACTER = re.compile(r"\w")
# A numbered list's marker ("1. ", "12) "), wherever it stands: left out of its item's span.
_NUMBERED_ITEM = re.compile(r"(?:^|(?<=\s))\d{1,3}[.)](?!\S)")
# A list item's marker: a bullet or a number.
_LIST_MARKER = re.compile(r"[-*+•]|\d{1,3}[.)]")
# A sentence that introduces a list: it ends in a colon, emphasis or citations after it or not
# ("The core subunits are:", "**Subunits:**", "Subunits [PMID:1]:").
_INTRODUCING = re.compile(r":[*_]*(?:\s*\[[^\[\]\n]*\])*[*_]*\s*$")
# A markdown block starts at a blank line or at a line that opens a heading, list item,
# block quote, table row or code fence; the marker itself is not part of the sentence.
_BLOCK_MARKER = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|[-*+•][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]*|\|)")
# A table's delimiter row ("|---|:--:|"): the row above it is the table's header.
_TABLE_DELIMITER = re.compile(
    r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$", re.M
)
# Streaming: a row followed by what may still become a delimiter row is not known yet to be a
# header.
_OPEN_DELIMITER = re.compile(r"[^\n]*\n[ \t]*\|[ \t|:-]*\Z")
_TERMINAL = frozenset(".!?…:;\"')]*\u201d\u2019")
_ABBREV_END = re.compile(r"(?:^|[\s(])[A-Za-z][A-Za-z.]{0,3}\.$")
# A segment starting like this continues the previous sentence.
_CONTINUATION_START = re.compile(r"[/,;%)\]]|\([ivx]{1,4}\)|\([a-h]\)")
# An inline enumeration item ("1) ", "b) ") after a colon continues the colon's sentence.
_ENUMERATION = re.compile(r"(?:\d{1,2}|[a-h])\)\s")
# Streaming: a boundary is final once this much text follows it (a word, a space, a character),
# because pysbd decides a boundary from the next token.
_LOOKAHEAD = re.compile(r"\S+\s+\S")
# A streamed sentence still open after this many characters is emitted as it stands (cut at a
# space when there is one): an answer that never ends a sentence must not hold the stream.
MAX_SENTENCE_CHARS = 2000
# pysbd's cost grows with the square of its input on some text ("e.g. e.g. …"), so a longer
# block is handed to it in pieces of at most this size, cut after a sentence end where possible.
_PIECE_CHARS = 4000
_PIECE_CUT = re.compile(r"[.!?][\"')\]]*\s+(?=[A-Z0-9(\[])")
_SURROGATE = re.compile("[\ud800-\udfff]")
# PubMed's text sometimes runs a sentence into the next section's heading without a space
# ("... all of them provide biased results.RESULTS: We provide here a tool"; 93 of the 3,725
# abstracts of `eval answers`). pysbd sees no boundary there, so the end of one section and the
# start of the next were read as one sentence: a methods sentence joined to a finding.
_JOINED_HEADING = re.compile(r"(?<=[a-z0-9)\]%]\.)(?=[A-Z][A-Z ]{1,}[A-Z]:)")
# A citation right after a full stop and a capital after it: pysbd often sees no boundary in
# "... by day 3.[1] This may ..." (the next sentence starts after the space).
_CITED_RUN_ON = re.compile(
    r"(?<=[a-z0-9)%]\.)(?:\[\s*(?:PMIDs?\s*:?\s*)?\d[^\[\]\n]*\])+\s+(?=[A-Z])"
)
# A quoted citation still open where pysbd split (verifiers.quoting.syntax reads the whole).
_OPEN_QUOTED_CITATION = re.compile(
    r"\[\s*(?:PMIDs?\s*:?\s*[\w.-]*\w|\d+)[^\[\]\n]*[\"\u201c\u201e\u00ab][^\]\n]*$",
    re.IGNORECASE,
)

# Citations an answer writes after a sentence's full stop, one or more ("... LDL. [PMID:1]",
# "... LDL.[1], [2]"): pysbd opens the next sentence with them, which cited the next sentence to
# this one's evidence and left this one uncited. A bracket opening with a number or PMID, or a
# parenthesis naming a PMID ("(1)" opens an enumeration).
_CITATION_BRACKET = r"\[\s*(?:PMIDs?\s*:?\s*)?\d[^\[\]\n]*\]|\(\s*PMIDs?\s*:?\s*\d[^()\n]*\)"
_LEADING_CITATIONS = re.compile(
    rf"(?:[ \t]*[,;|]?[ \t]*(?:{_CITATION_BRACKET}))+(?:[ \t]*\|(?=[ \t]*$))?", re.IGNORECASE | re.M
)  # a table's cell rule may stand before a citation, and close its row
_ROW_END = re.compile(r"\|[ \t|]*(?:\r?\n|\Z)")
# A sentence that cites (as the segmenter sees it: the engine parses and validates citations),
# and a line that is nothing but citations ("[PMID:1] [PMID:2]", after a list).
_CITES = re.compile(_CITATION_BRACKET, re.IGNORECASE)
_ONLY_CITATIONS = re.compile(rf"(?:{_LEADING_CITATIONS.pattern})\.?", re.IGNORECASE | re.M)
# Streaming: a list's items wait for its end to learn whether it is cited there (``closing``),
# but no longer than this many sentences or characters; past either they go out as they are.
MAX_HELD_ITEMS = 24
MAX_HELD_CHARS = 4000
# Streaming: a bracket opened right after a sentence and not yet closed may be that sentence's
# citation ("... LDL. [PMID: 12", "... LDL. (PM").
_OPEN_CITATION_AFTER = re.compile(r"\s*[,;|]?\s*[\[(][^\[\]()\n]*$")


class _Block(Enum):
    """What a markdown block is: prose, a heading (or a table's header row), a list item."""

    PROSE = "prose"
    HEADING = "heading"
    ITEM = "item"


@dataclass(frozen=True, slots=True)
class SentenceSpan:
    """A sentence with its character offsets into the text it came from. ``heading``: it is a
    markdown heading (``## Key findings``), whose marker is not in the span. ``list_item``: it
    is in a list item; ``lead``: the line that introduced that list ("The core subunits are:"),
    which completes an item that is no clause of its own ("- WDR5 [PMID:1]"). ``closing``: for
    a sentence that cites nothing, in a list or a paragraph cited once at its end (its last
    sentence is the only one that cites, or none does and a line of citations follows it), that
    last sentence or line, whose citations the sentence is read with (``with_closings``).
    ``block``: where the markdown block holding it starts (its paragraph, list item, heading or
    table row), an offset into the text."""

    text: str
    start: int
    end: int
    heading: bool = False
    list_item: bool = False
    lead: str = ""
    closing: str = ""
    block: int = 0


def words_outside(
    text: str, spans: Sequence[SentenceSpan], start: int = 0, end: int | None = None
) -> str:
    """The letters and digits of ``text[start:end]`` that none of ``spans`` holds, a numbered
    list's markers aside: words no verdict would see."""
    end = len(text) if end is None else end
    inside = bytearray(end - start)
    for span in spans:
        a, b = max(span.start, start), min(span.end, end)
        if a < b:
            inside[a - start : b - start] = b"\1" * (b - a)
    for marker in _NUMBERED_ITEM.finditer(text, start, end):
        inside[marker.start() - start : marker.end() - start] = b"\1" * len(marker.group())
    return "".join(
        c for c, held in zip(text[start:end], inside, strict=True) if not held and c.isalnum()
    )


def require_covered(
    text: str, spans: Sequence[SentenceSpan], start: int = 0, end: int | None = None
) -> int:
    """Raise ``UnsegmentedText`` where a word of ``text[start:end]`` (``end``: by default, where
    the last span ends) lies outside ``spans``; return ``end``. The segmenter is built so that
    none does: this lock keeps a future fault of it from releasing unverified words."""
    if end is None:
        end = spans[-1].end if spans else start
    lost = words_outside(text, spans, start, end)
    if lost:
        raise UnsegmentedText(
            f"{len(lost)} letters and digits of the answer lie outside every sentence"
        )
    return end


@lru_cache(maxsize=1)
def pysbd_segmenter() -> pysbd.Segmenter:
    """The plain pysbd sentencizer this module builds on (shared, it compiles its rules once)."""
    return pysbd.Segmenter(language="en", clean=False)


def without_surrogates(text: str) -> str:
    """``text`` with each lone UTF-16 surrogate replaced by U+FFFD (one code point for one, so
    offsets hold); tokenizers and UTF-8 encoders reject them. (The proxy has its own copy in
    ``proxy.scrub``: this library never imports the proxy, and the proxy's config path must not
    load this library.)"""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def segment(text: str) -> list[SentenceSpan]:
    """Split ``text`` into sentences; offsets index into ``text``, whitespace is trimmed.
    Time is linear in the text's length (long blocks are segmented in pieces)."""
    return with_closings(with_list_leads(_segmented(text, _Block.PROSE))[0])


def _segmented(text: str, opening: _Block) -> list[SentenceSpan]:
    """``segment`` without the list leads and closings; ``opening``: the kind of a first block
    that opens with no marker (a stream's text goes on in the block its last sentence was in)."""
    spans: list[SentenceSpan] = []
    for block, block_start, block_end, kind in _blocks(text, opening):
        for start, end in _pieces(text, block_start, block_end):
            for span in _segment_block(text, start, end):
                spans.append(
                    replace(
                        span,
                        heading=kind is _Block.HEADING,
                        list_item=kind is _Block.ITEM,
                        block=block,
                    )
                )
    return spans


def with_list_leads(
    spans: Sequence[SentenceSpan], lead: str = ""
) -> tuple[list[SentenceSpan], str]:
    """``spans`` with each list item's ``lead``: the last sentence before its list that is no
    list item and ends in a colon (its citations after the colon too). ``lead``: the one open
    before ``spans`` (a stream's); returned: the one open after them. Any other sentence closes
    the list."""
    led: list[SentenceSpan] = []
    for span in spans:
        if span.list_item:
            led.append(replace(span, lead=lead))
            continue
        led.append(replace(span, lead=""))
        introduces = not span.heading and _INTRODUCING.search(span.text) is not None
        lead = span.text if introduces else ""
    return led, lead


def with_closings(
    spans: Sequence[SentenceSpan],
    *,
    continued: bool = False,
    continued_block: bool = False,
    following: SentenceSpan | None = None,
) -> list[SentenceSpan]:
    """``spans`` with ``closing`` set on the sentences that cite nothing, in each list or block
    (a paragraph, a list item) cited once at its end ("- metformin\n- insulin [PMID:1]",
    "Metformin is first-line. It lowers glucose [PMID:1].", or the list or paragraph and then
    "[PMID:1]" on a line of its own): a reader takes that citation for all of it. One whose other
    sentences cite keeps them as written (each cites what it cites, or nothing), and so does one
    too long to wait for in a stream (``MAX_HELD_ITEMS``, ``MAX_HELD_CHARS``). Every list and
    block in ``spans`` has ended; ``following``: the sentence after them, if known.
    ``continued`` (``continued_block``): the first list (block) goes on one whose first
    sentences went out before (a stream's, too long or cited sentence by sentence), and stays
    as written."""
    out = list(spans)
    passes = ((_list_runs(out), continued, False), (_block_runs(out), continued_block, True))
    for runs, goes_on, blocks in passes:
        for start, end in runs:
            after = out[end] if end < len(out) else following
            if blocks and out[start].list_item:
                after = None  # a line of citations after an item cites its list, if anything
            closer = "" if goes_on and start == 0 else _closer(out[start:end], after)
            for i in range(start, end):
                if closer and not out[i].closing and not _CITES.search(out[i].text):
                    out[i] = replace(out[i], closing=closer)
    return out


def _list_runs(spans: Sequence[SentenceSpan]) -> list[tuple[int, int]]:
    """The (start, end) indexes of each run of list items in ``spans``."""
    return _runs(spans, lambda span: span.list_item, lambda a, b: True)


def _block_runs(spans: Sequence[SentenceSpan]) -> list[tuple[int, int]]:
    """The (start, end) indexes of each run of sentences of one block in ``spans``, headings
    (and a table's header row) aside."""
    return _runs(spans, lambda span: not span.heading, lambda a, b: a.block == b.block)


def _runs(
    spans: Sequence[SentenceSpan],
    member: Callable[[SentenceSpan], bool],
    together: Callable[[SentenceSpan, SentenceSpan], bool],
) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for i, span in enumerate(spans):
        if not member(span):
            continue
        if runs and runs[-1][1] == i and together(spans[i - 1], span):
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def _closer(items: Sequence[SentenceSpan], after: SentenceSpan | None) -> str:
    """The text that cites the ended list or block ``items`` once at its end, if it is so
    cited: its last sentence, the only one that cites, or the line of citations ``after`` it
    where none does."""
    if not _may_be_cited_at_end(items):
        return ""
    if _CITES.search(items[-1].text):
        return items[-1].text
    return after.text if after is not None and _ONLY_CITATIONS.fullmatch(after.text) else ""


def _may_be_cited_at_end(items: Sequence[SentenceSpan]) -> bool:
    """Whether the list or block ``items`` (all of it, or the first sentences of a stream's
    open one) is, or may yet turn out, cited once at its end: no sentence but perhaps its last
    cites, and it is short enough to wait for."""
    if len(items) > MAX_HELD_ITEMS or items[-1].end - items[0].start > MAX_HELD_CHARS:
        return False
    citing = [i for i, item in enumerate(items) if _CITES.search(item.text)]
    return not citing or (citing == [len(items) - 1] and len(items) > 1)


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The block cut into pieces of at most ``_PIECE_CHARS``: after the last sentence end in the
    second half of a piece, else at its last space, else hard."""
    pieces: list[tuple[int, int]] = []
    while end - start > _PIECE_CHARS:
        limit = start + _PIECE_CHARS
        cut = -1
        for match in _PIECE_CUT.finditer(text, start + _PIECE_CHARS // 2, limit):
            cut = match.end()
        if cut < 0:
            cut = text.rfind(" ", start + 1, limit) + 1 or limit
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def _blocks(text: str, opening: _Block) -> list[tuple[int, int, int, _Block]]:
    """Markdown-aware blocks as (block, start, end, kind): where the block starts, and its
    text's bounds with any list/heading marker skipped; ``opening``: the kind of the first
    block if it has no marker."""
    cuts = [0]
    pos = 0
    after_heading = False  # a heading is one line: the line after it starts a block
    for line in text.splitlines(keepends=True):
        marker = _BLOCK_MARKER.match(line)
        if pos and (not line.strip() or marker or after_heading):
            cuts.append(pos)
        after_heading = (marker is not None and marker.group().lstrip().startswith("#")) or (
            pos == 0 and opening is _Block.HEADING  # the rest of a stream's heading line
        )
        pos += len(line)
    cuts.append(len(text))
    blocks: list[tuple[int, int, int, _Block]] = []
    for block, end in itertools.pairwise(cuts):
        start = block
        marker = _BLOCK_MARKER.match(text, start, end)
        opener = marker.group().strip() if marker is not None else ""
        kind = opening if start == 0 else _Block.PROSE
        if opener.startswith("#") or (
            opener == "|" and _TABLE_DELIMITER.match(text, end) is not None
        ):
            kind = _Block.HEADING
        elif _LIST_MARKER.fullmatch(opener):
            kind = _Block.ITEM
        if marker:
            start = marker.end()
        if text[start:end].strip():
            blocks.append((block, start, end, kind))
    return blocks


def _segment_block(text: str, start: int, end: int) -> list[SentenceSpan]:
    pieces: list[tuple[int, int]] = []
    for found, piece_end in _located(text, start, end):
        if pieces and _continues(text, pieces[-1], found):
            pieces[-1] = (pieces[-1][0], piece_end)
        else:
            pieces.append((found, piece_end))
    return [
        SentenceSpan(text[a:b].rstrip(), a, a + len(text[a:b].rstrip()))
        for s, e in _with_trailing_citations(text, pieces)
        for a, b in itertools.pairwise([s, *_inner_starts(text, s, e), e])
    ]


def _located(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """pysbd's sentences of ``text[start:end]`` as trimmed spans of ``text``, every word inside
    one. pysbd's own offsets (``Segmenter.segment``) search the whole text once per sentence
    with a freshly compiled pattern, and they drop a sentence whose text its rules altered ("M
    ☉ ." comes back as "M ?!"): that text would reach no verdict. So its sentences are found
    here in order, and a stretch none of them covers that holds a word is a sentence too."""
    # pysbd reads a unit separator before a number as part of it and fails on int("\x1f0"),
    # so it gets a space in its place (one character for one: the offsets hold).
    block = text[start:end].replace("\x1f", " ")
    located: list[tuple[int, int]] = []
    cursor = 0
    for raw in pysbd_segmenter().processor(block).process():
        stripped = raw.strip()
        if not stripped:
            continue
        found = block.find(stripped, cursor)
        if found < 0:  # altered: past the words it kept; the stretch is covered below
            kept = block[cursor:].lstrip()
            cursor = len(block) - len(kept) + _common_prefix(stripped, kept)
            continue
        located.append((start + found, start + found + len(stripped)))
        cursor = found + len(stripped)
    bounds = [start, *itertools.chain.from_iterable(located), end]
    gaps = [
        _trimmed(text, a, b)
        for a, b in zip(bounds[::2], bounds[1::2], strict=True)
        if _WORD_CHARACTER.search(text, a, b)
    ]
    return sorted(located + gaps)


def _common_prefix(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from the start."""
    shorter = min(len(a), len(b))
    return next((i for i in range(shorter) if a[i] != b[i]), shorter)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``start`` and ``end`` moved inwards past whitespace."""
    piece = text[start:end]
    return start + len(piece) - len(piece.lstrip()), end - len(piece) + len(piece.rstrip())


def _inner_starts(text: str, start: int, end: int) -> list[int]:
    """Where sentences pysbd did not cut start inside ``text[start:end]``: after a section
    heading run in without a space, and after a citation written right after a full stop
    ("... by day 3.[1] This may ...")."""
    starts = {m.start() for m in _JOINED_HEADING.finditer(text, start + 1, end)}
    starts |= {m.end() for m in _CITED_RUN_ON.finditer(text, start + 1, end) if m.end() < end}
    return sorted(starts)


def _with_trailing_citations(text: str, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``pieces`` with each run of citations that opens a piece on the same line as the one
    before moved to the end of that one (a piece that is nothing else is gone)."""
    moved: list[tuple[int, int]] = []
    for start, end in pieces:
        lead = _LEADING_CITATIONS.match(text, start, end)
        if moved and lead is not None and "\n" not in text[moved[-1][1] : start]:
            moved[-1] = (moved[-1][0], lead.end())
            rest = len(text[lead.end() : end]) - len(text[lead.end() : end].lstrip())
            start = lead.end() + rest
            if start >= end:
                continue
        moved.append((start, end))
    return moved


def _continues(text: str, previous: tuple[int, int], next_start: int) -> bool:
    """Whether pysbd split inside a sentence: no newline in the gap and a sentence cannot end or
    start there."""
    prev_text = text[previous[0] : previous[1]]
    if "\n" in text[previous[1] : next_start]:
        return False
    if _ROW_END.match(text, next_start):
        return True  # "| It bled less. |": the rule that closes a table's row
    if _OPEN_QUOTED_CITATION.search(prev_text):
        return True  # the quote of [PMID:123 "…"] holds a sentence end: the bracket is one unit
    if prev_text[-1] not in _TERMINAL:
        return True
    if _LEADING_CITATIONS.match(text, next_start):
        return False  # "LDL.[1], [2] They": the citations are moved to this sentence's end
    head = text[next_start : next_start + 6]
    if _CONTINUATION_START.match(head):
        return True
    if prev_text.endswith(":") and _ENUMERATION.match(head):
        return True  # "the following pathways: 1) MEK/ERK, 2) …" is one sentence
    abbreviated = bool(_ABBREV_END.search(prev_text))
    # "protein p.(Y650Sfs*22)": a sentence never ends without a space after it, an
    # abbreviation often does.
    return abbreviated and (head[:1].islower() or next_start == previous[1])


class StreamSegmenter:
    """Incremental segmentation of a growing text (an LLM stream).

    ``feed(delta)`` returns only the sentences that are surely complete: those followed by enough
    text that no later delta can move their boundary, and not in a list or block that may still
    be cited once at its end (``SentenceSpan.closing``). ``flush()`` returns the rest at the end.
    Offsets are into the whole text fed so far. ``closings=False``: a sentence goes out as soon
    as it is complete, without its closing (where there is no evidence, a citation lends
    nothing, so there is nothing to wait for).
    """

    def __init__(
        self, max_sentence_chars: int = MAX_SENTENCE_CHARS, *, closings: bool = True
    ) -> None:
        self._text = ""
        self._done = 0  # offset up to which sentences were emitted
        self._max = max_sentence_chars
        self._closings = closings
        self._lead = ""  # the line that introduced the list the stream is in (``with_list_leads``)
        # The last sentence segmented: the tail goes on in its block (``SentenceSpan.block``).
        self._last = SentenceSpan("", 0, 0)
        # The open list's items, or else the open block's sentences, held until it ends
        # (``with_closings``) ...
        self._held: list[SentenceSpan] = []
        # ... unless it cannot be cited once at its end: they then go out as they come.
        self._passing = False
        self._passing_block: int | None = None  # the block of such sentences, if any

    @property
    def text(self) -> str:
        return self._text

    def feed(self, delta: str) -> list[SentenceSpan]:
        self._text += delta
        if len(self._text) - self._done > self._max:
            return self._overlong()
        spans = self._pending()
        if len(spans) < 2:
            return []
        ready = spans[:-1]
        tail = ready[-1].end
        if (
            not _LOOKAHEAD.search(self._text, tail)
            or _OPEN_CITATION_AFTER.match(self._text, tail)
            or _OPEN_DELIMITER.match(self._text, tail)
        ):
            ready = ready[:-1]
        if ready:
            self._done = ready[-1].end
        return self._emit(ready, upcoming=spans[len(ready)])

    def flush(self) -> list[SentenceSpan]:
        spans = self._pending()
        self._done = len(self._text)
        return self._emit(spans, final=True)

    def _emit(
        self,
        spans: list[SentenceSpan],
        final: bool = False,
        upcoming: SentenceSpan | None = None,
    ) -> list[SentenceSpan]:
        """``spans`` with their list leads, read on from the sentences segmented before them,
        and their closings: an open list's items, or else an open block's sentences, wait for
        its end while it may be cited there (the text itself is not held: only these
        sentences' verdicts wait). ``upcoming``: the sentence after them, not complete yet; in
        another block, it ends the last one (a block, once cut, stays cut)."""
        led, self._lead = with_list_leads(spans, self._lead)
        if led:
            self._last = led[-1]
        pending = self._held + led
        if not pending or not self._closings:
            return pending
        list_from = block_from = len(pending)
        if not final:
            last = pending[-1]
            while list_from and pending[list_from - 1].list_item:
                list_from -= 1
            while (
                block_from
                and not pending[block_from - 1].heading
                and pending[block_from - 1].block == last.block
            ):
                block_from -= 1
        continued = self._passing
        continued_block = pending[0].block == self._passing_block and not pending[0].heading
        block_ended = upcoming is not None and upcoming.block != pending[-1].block
        held_from = len(pending)
        if self._may_hold(list_from, pending, continued):
            held_from = list_from
        elif self._may_hold(block_from, pending, continued_block, ended=block_ended):
            held_from = block_from
        # An open list or block some of whose sentences go out now, or went out before, is
        # passing: its later sentences go out as written.
        self._passing = held_from > list_from or (continued and list_from == 0)
        going_on = held_from > block_from or (continued_block and block_from == 0)
        self._passing_block = pending[-1].block if going_on else None
        self._held = pending[held_from:]
        following = pending[held_from] if self._held else None
        return with_closings(
            pending[:held_from],
            continued=continued,
            continued_block=continued_block,
            following=following,
        )

    @staticmethod
    def _may_hold(
        first: int, pending: Sequence[SentenceSpan], passing: bool, *, ended: bool = False
    ) -> bool:
        """Whether the open list or block ``pending[first:]`` may wait for its end: it is open,
        none of it went out before (``passing``), and it may still be cited at its end; one
        known to have ``ended`` waits only for a line of citations after it."""
        if first == len(pending) or (passing and first == 0):
            return False
        run = pending[first:]
        if not _may_be_cited_at_end(run):
            return False
        # Ended, it waits only for a line of citations after it: a paragraph that cites nothing.
        return not ended or not (run[0].list_item or any(_CITES.search(s.text) for s in run))

    def _overlong(self) -> list[SentenceSpan]:
        """The open text is longer than a sentence may be: emit what segments as complete, and
        the first ``max`` characters of the rest as one sentence, cut at a space if it has one."""
        spans = self._pending()
        ready = spans[:-1]
        # The pieces stay in the open sentence's block (a paragraph, a list item, a heading).
        open_span = spans[-1] if spans else self._last
        start = ready[-1].end if ready else self._done
        while len(self._text) - start > self._max:
            limit = start + self._max
            cut = self._text.rfind(" ", start + 1, limit)
            cut = limit if cut < 0 else cut
            piece = self._text[start:cut]
            lead = len(piece) - len(piece.lstrip())
            if piece.strip():
                end = start + len(piece.rstrip())
                ready.append(replace(open_span, text=piece.strip(), start=start + lead, end=end))
            start = cut
        self._done = start
        return self._emit(ready)

    def _pending(self) -> list[SentenceSpan]:
        tail = self._text[self._done :]
        # The tail's first block, from its first character, goes on the last sentence's.
        return [
            replace(
                s,
                start=s.start + self._done,
                end=s.end + self._done,
                block=s.block + self._done if s.block else self._last.block,
            )
            for s in _segmented(tail, _kind(self._last))
        ]


def _kind(span: SentenceSpan) -> _Block:
    """The kind of block ``span`` is in."""
    if span.heading:
        return _Block.HEADING
    return _Block.ITEM if span.list_item else _Block.PROSE
