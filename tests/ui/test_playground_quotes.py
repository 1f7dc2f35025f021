"""Quoted citations in the playground (issue 30), in headless Chromium: the demo stack (the
shipped index, the bundled verifier) answering with the model's quotes of the ibuprofen
abstract, one exact and one misquoted. The answer reads with bare ``[PMID:...]``; a sentence's
popover shows its quote highlighted inside the abstract, and the misquote the abstract's
closest words and what differs. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from proxy.cli.demo import load_recorded
from proxy.testing.emulator import Emulator
from proxy.testing.server_thread import RunningProxy, ServerThread
from tests.ui.conftest import ARTIFACTS, _demo_stack
from tests.ui.test_playground import STREAM_TIMEOUT_S, _abstract

IBUPROFEN = load_recorded()[0]
QUOTE = "The perioperative blood loss increased by 45% in the ibuprofen group compared with placebo"
MISQUOTE = "All patients were injected intrathecally with bupivacaine 200mg plus morphine 0.1 mg"
FOUND = "In the trial, blood loss was 45% higher with ibuprofen than with placebo"
WRONG = "All patients received bupivacaine 200 mg"
ANSWER = (
    f'{FOUND} [PMID:{IBUPROFEN.pmid} "{QUOTE}"]. '
    f"{WRONG} [PMID:{IBUPROFEN.pmid} \u201c{MISQUOTE}\u201d]."
)
SHOWN = f"{FOUND} [PMID:{IBUPROFEN.pmid}]. {WRONG} [PMID:{IBUPROFEN.pmid}]."


@pytest.fixture(scope="module")
def quoting_proxy() -> Iterator[RunningProxy]:
    """The demo stack whose model quotes what it cites."""
    with ServerThread(Emulator(reply=ANSWER, drip_s=0.01).app()) as upstream:
        app, settings = _demo_stack(upstream.url)
        with ServerThread(app) as server:
            yield RunningProxy(app, settings, server.url)


def _ask(browser: Any, proxy: RunningProxy) -> None:
    browser.get(f"{proxy.url}/ui")
    WebDriverWait(browser, 10).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#policy option")) > 1
    )
    question = browser.find_element(By.ID, "question")
    question.send_keys(IBUPROFEN.question, Keys.CONTROL, Keys.ENTER)
    deadline = time.monotonic() + STREAM_TIMEOUT_S
    while not browser.find_element(By.TAG_NAME, "body").get_attribute("data-done"):
        assert time.monotonic() < deadline, "the answer did not finish streaming"
        time.sleep(0.05)


def test_each_quote_is_highlighted_inside_its_abstract(
    browser: Any, quoting_proxy: RunningProxy
) -> None:
    _ask(browser, quoting_proxy)
    assert browser.find_element(By.ID, "answer").text == SHOWN  # quotes stripped
    first, second = browser.find_elements(By.CSS_SELECTOR, "#answer .sent")
    abstract = _abstract(IBUPROFEN.pmid)
    detail = browser.find_element(By.ID, "detail")

    first.click()
    [found] = detail.find_elements(By.CSS_SELECTOR, ".quote-check")
    assert found.get_attribute("data-status") == "found"
    assert "found in the abstract it cites" in found.text
    paragraph = found.find_element(By.CSS_SELECTOR, "p.abstract")
    assert paragraph.get_attribute("textContent") == abstract  # the whole abstract
    [mark] = paragraph.find_elements(By.CSS_SELECTOR, "mark.quote")
    assert mark.get_attribute("textContent") == QUOTE
    start = abstract.index(QUOTE)
    before = browser.execute_script("return arguments[0].firstChild.textContent", paragraph)
    assert before == abstract[:start]  # marked at its place
    _scroll_to(browser, detail, found)
    browser.save_screenshot(str(ARTIFACTS / "playground-quote.png"))

    second.click()
    [misquote] = detail.find_elements(By.CSS_SELECTOR, ".quote-check")
    assert misquote.get_attribute("data-status") == "misquote"
    assert misquote.find_element(By.TAG_NAME, "q").text == MISQUOTE
    closest = misquote.find_element(By.CSS_SELECTOR, "p.abstract mark.closest")
    words = closest.get_attribute("textContent")
    assert words in abstract and "20mg" in words  # the abstract's own words
    difference = misquote.find_element(By.CSS_SELECTOR, ".difference").text
    assert "200" in difference and "20" in difference
    _scroll_to(browser, detail, misquote)
    browser.save_screenshot(str(ARTIFACTS / "playground-misquote.png"))


def _scroll_to(browser: Any, detail: Any, box: Any) -> None:
    browser.execute_script("arguments[0].scrollTop = arguments[1].offsetTop - 8", detail, box)
