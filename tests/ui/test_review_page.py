"""The reviewers' page in headless Chromium against the demo stack with the review queue on
(PostgreSQL store): an item shows its sentence, verdict, confidence, harm, action, failed
checks and deciding evidence; the keyboard labels it (Enter: right, a digit: the right verdict,
n: a note, j/k: next/previous); a second reviewer's label shows as agreement; other keys get
nothing. Screenshots go to tests/artifacts/ (docs/img/review.png is one)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from proxy.cli.demo import load_recorded
from tests.ui.conftest import ARTIFACTS, ReviewStack
from tests.ui.reviewing import audit_records, queued, send, settled

IBUPROFEN, ETORICOXIB, *_ = load_recorded()


@pytest.fixture(scope="module")
def queue(review_stack: ReviewStack) -> list[dict[str, Any]]:
    send(review_stack, (IBUPROFEN, ETORICOXIB), ("clinical-strict",))
    records = [r for r in audit_records(review_stack) if "sentences" in r]
    expected = sum(
        1
        for r in records
        for s in r["sentences"]
        if s["action"] != "annotate" or s["verdict"] == "supported" or r["status"] == "verified"
    )
    found = settled(review_stack, review_stack.first, expected)
    assert len(found) == expected >= 3
    return found


def _open(browser: Any, stack: ReviewStack, key: str) -> None:
    browser.get(f"{stack.proxy.url}/ui/review")
    field = browser.find_element(By.ID, "key")
    field.clear()
    field.send_keys(key, Keys.TAB)  # "change": the queue loads with it
    WebDriverWait(browser, 10).until(lambda d: "of" in d.find_element(By.ID, "position").text)


def _position(browser: Any) -> str:
    return str(browser.find_element(By.ID, "position").text)


def _press(browser: Any, key: str) -> None:
    browser.find_element(By.TAG_NAME, "body").send_keys(key)


def test_a_reviewer_labels_from_the_keyboard(
    browser: Any, review_stack: ReviewStack, queue: list[dict[str, Any]]
) -> None:
    _open(browser, review_stack, review_stack.first)
    first, second, third = queue[:3]
    assert _position(browser) == f"1 of {len(queue)}"
    assert browser.find_element(By.ID, "sentence").text == first["text"]
    facts = browser.find_element(By.ID, "facts").text
    for shown in (
        first["verdict"].replace("_", " "),
        f"{first['confidence']:.2f}",
        first["action"],
    ):
        assert shown in facts
    evidence = browser.find_element(By.ID, "evidence")
    if first["evidence"]:
        marks = [m.text for m in evidence.find_elements(By.TAG_NAME, "mark")]
        assert marks == [q["text"] for q in first["evidence"]]
    browser.set_window_size(1280, 1200)  # the highlighted span inside its abstract in view
    browser.save_screenshot(str(ARTIFACTS / "review.png"))
    browser.set_window_size(1280, 900)

    _press(browser, Keys.ENTER)  # the verdict is right
    WebDriverWait(browser, 10).until(lambda d: _position(d) == f"2 of {len(queue)}")
    _press(browser, "n")  # a note, then the right verdict by its digit (4: contradicted)
    browser.find_element(By.ID, "note").send_keys("the dose is not in the abstract", Keys.ESCAPE)
    _press(browser, "4")
    WebDriverWait(browser, 10).until(lambda d: _position(d) == f"3 of {len(queue)}")
    _press(browser, "k")  # back: the item says what this reviewer gave it
    assert "labelled: contradicted" in browser.find_element(By.ID, "sentence").text
    _press(browser, "j")
    assert browser.find_element(By.ID, "sentence").text == third["text"]

    left = {item["id"] for item in queued(review_stack, review_stack.first)}
    assert first["id"] not in left and second["id"] not in left and third["id"] in left
    labels = [r for r in audit_records(review_stack) if r.get("event") == "review_label"]
    assert [(e["item_id"], e["verdict"], e["note"]) for e in labels] == [
        (first["id"], first["verdict"], ""),
        (second["id"], "contradicted", "the dose is not in the abstract"),
    ]

    # A second reviewer disagrees on the first item: the page reports the agreement.
    r = httpx.post(
        f"{review_stack.proxy.base_url}/review/items/{first['id']}/labels",
        json={"verdict": "unsupported" if first["verdict"] != "unsupported" else "supported"},
        headers={"authorization": f"Bearer {review_stack.second}"},
        timeout=30,
    )
    assert r.status_code == 201
    _open(browser, review_stack, review_stack.first)
    WebDriverWait(browser, 10).until(
        lambda d: "agreed on 0 of 1" in d.find_element(By.ID, "agreement").text
    )
    assert _position(browser) == f"1 of {len(queue) - 2}"


def test_a_key_without_the_role_gets_no_items(
    browser: Any, review_stack: ReviewStack, queue: list[dict[str, Any]]
) -> None:
    browser.get(f"{review_stack.proxy.url}/ui/review")
    field = browser.find_element(By.ID, "key")
    field.clear()
    field.send_keys(review_stack.caller, Keys.TAB)
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "state").text)
    assert "reviewer" in browser.find_element(By.ID, "state").text
    assert browser.find_element(By.ID, "sentence").text == ""
