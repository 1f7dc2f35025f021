"""The store's labels against the audit log's label events: a label changed, removed or added
behind the proxy's back is reported."""

from __future__ import annotations

from proxy.review.event import LabelEvent
from proxy.review.items import Label, Labelled
from proxy.review.verify import check_labels
from tests.proxy.review.factory import NOW, item


def _labelled(*labels: Label) -> list[Labelled]:
    return [Labelled(item(f"req-{label.item_id}", id=label.item_id), (label,)) for label in labels]


def test_matching_labels_pass_and_every_kind_of_edit_is_named() -> None:
    a = Label(1, "r1", True, "supported", "sk-abcdefghijklmnopqrstuvwx in the note", NOW)
    b = Label(2, "r1", False, "unsupported", "", NOW)
    c = Label(3, "r2", True, "supported", "", NOW)
    logged = [LabelEvent(x.item, x.labels[0]).to_dict() for x in _labelled(a, b, c)]
    logged.append({"request_id": "req-9", "sentences": []})  # a response record: not a label
    assert check_labels(_labelled(a, b, c), logged).ok  # notes compare as the log keeps them

    edited = Label(2, "r1", True, "supported", "", NOW)
    added = Label(4, "r3", True, "supported", "", NOW)
    found = check_labels(_labelled(a, edited, added), logged)
    assert not found.ok and found.matched == 1
    assert (found.changed, found.missing, found.unlogged) == (
        ((2, "r1"),),
        ((3, "r2"),),
        ((4, "r3"),),
    )
    assert "changed in the store: item 2 by r1" in found.describe()
