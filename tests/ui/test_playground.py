"""The playground in headless Chromium against the demo stack: the page loads, an answer
streams in, sentences take their verdict's colour, the popover shows the evidence (PMID link,
the deciding span highlighted in its abstract, labelled as the verdict it decided and by what),
the response is labelled truthfully (harm-weighted support, never "verified" over an uncited
sentence), a blocked answer shows one truthful message, and a reviewer key sees the words a
policy withheld while other keys do not. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from policies import PolicyStore
from proxy.auth import FileKeyStore, new_key
from proxy.cli.demo import DEMO_MODEL, RecordedAnswer, load_recorded
from proxy.data import DEMO_INDEX
from proxy.testing.server_thread import RunningEmulator, RunningProxy
from tests.conftest import ProxyFactory
from tests.ui.conftest import ARTIFACTS, JUDGE, ReviewedProxy

IBUPROFEN, ETORICOXIB, AMOXAPINE, IGM = load_recorded()
# style.css, light scheme: the background of each verdict.
BACKGROUNDS = {
    "supported": "rgba(215, 245, 221, 1)",
    "partially_supported": "rgba(255, 227, 194, 1)",
    "unsupported": "rgba(255, 243, 176, 1)",
    "contradicted": "rgba(255, 214, 214, 1)",
    "invalid_citation": "rgba(243, 217, 255, 1)",
    "uncited": "rgba(230, 232, 235, 1)",
}
STREAM_TIMEOUT_S = 120
PHONE_WIDTH = 390  # CSS pixels of a common phone


def _abstract(pmid: str) -> str:
    with sqlite3.connect(f"file:{DEMO_INDEX}?mode=ro", uri=True) as db:
        (text,) = db.execute("SELECT abstract FROM docs WHERE pmid = ?", (pmid,)).fetchone()
    return str(text)


def _open(browser: Any, proxy: RunningProxy) -> None:
    browser.get(f"{proxy.url}/ui")
    WebDriverWait(browser, 10).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#policy option")) > 1
    )


def _ask(browser: Any, item: RecordedAnswer, policy: str = "") -> list[str]:
    """Asks, and returns the answer texts seen while the stream was still running."""
    Select(browser.find_element(By.ID, "policy")).select_by_value(policy)
    question = browser.find_element(By.ID, "question")
    question.clear()
    question.send_keys(item.question)
    question.send_keys(Keys.CONTROL, Keys.ENTER)
    partial: list[str] = []
    deadline = time.monotonic() + STREAM_TIMEOUT_S
    while not browser.find_element(By.TAG_NAME, "body").get_attribute("data-done"):
        assert time.monotonic() < deadline, "the answer did not finish streaming"
        partial.append(browser.find_element(By.ID, "answer").text)
        time.sleep(0.05)
    return partial


def _use_key(browser: Any, proxy: RunningProxy, key: str) -> None:
    browser.get(f"{proxy.url}/ui")
    field = browser.find_element(By.ID, "key")
    field.clear()
    field.send_keys(key, Keys.TAB)  # "change": saved, and the lists load with it
    WebDriverWait(browser, 10).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#policy option")) > 1
    )


def _side(browser: Any) -> str:
    return str(browser.find_element(By.ID, "side").text)


def _sentences(browser: Any) -> list[Any]:
    return list(browser.find_elements(By.CSS_SELECTOR, "#answer .sent"))


def _shot(browser: Any, name: str) -> None:
    browser.save_screenshot(str(ARTIFACTS / f"playground-{name}.png"))


def test_page_loads_with_models_and_policies(browser: Any, demo_proxy: RunningProxy) -> None:
    _open(browser, demo_proxy)
    assert browser.title == "veriproxy playground"
    assert browser.find_element(By.ID, "model").get_attribute("value") == DEMO_MODEL
    options = browser.find_elements(By.CSS_SELECTOR, "#policy option")
    assert [o.get_attribute("value") for o in options[1:]] == list(PolicyStore().names())
    assert browser.find_element(By.ID, "state").text == ""  # no error loading the lists


def test_answer_streams_and_sentences_take_their_colours(
    browser: Any, demo_proxy: RunningProxy
) -> None:
    _open(browser, demo_proxy)
    partial = _ask(browser, IBUPROFEN)
    # Seen while streaming: some text, but not yet the whole answer.
    assert any(text and text != IBUPROFEN.answer for text in partial)
    assert browser.find_element(By.ID, "answer").text == IBUPROFEN.answer
    sentences = _sentences(browser)
    verdicts = [s.get_attribute("data-verdict") for s in sentences]
    assert len(verdicts) == 3
    assert verdicts[0] == "supported"
    assert verdicts[2] == "contradicted"  # bupivacaine 200 mg; the abstract says 20mg
    for sentence, verdict in zip(sentences, verdicts, strict=True):
        assert sentence.value_of_css_property("background-color") == BACKGROUNDS[verdict]
    assert browser.find_element(By.CSS_SELECTOR, "#status .badge").text == "flagged"
    # The report's `support` (harm-weighted supported share, higher is better): named so.
    side = _side(browser)
    assert "Harm-weighted support" in side and "risk" not in side.lower()
    assert "faithful" not in side
    assert browser.find_element(By.ID, "support").text == "0.54"
    # Only the abstract whose spans and checks decided a verdict is marked.
    listed = browser.find_elements(By.CSS_SELECTOR, "#abstracts li")
    marked = [li for li in listed if li.get_attribute("data-used") == "true"]
    assert [li.get_attribute("data-pmid") for li in marked] == [IBUPROFEN.pmid]
    assert len(listed) > 1 and side.count("decided a verdict") == 1
    _shot(browser, "streamed")


def test_popover_shows_pmid_link_and_highlighted_span(
    browser: Any, demo_proxy: RunningProxy
) -> None:
    _open(browser, demo_proxy)
    _ask(browser, IBUPROFEN)
    sentences = _sentences(browser)
    sentences[2].click()  # the contradicted dose: its failed check and harm
    detail = browser.find_element(By.ID, "detail")
    assert detail.is_displayed()
    assert "numbers: 200 mg not in the evidence" in detail.text and "harm 5/5" in detail.text
    assert "harm-weighted support 0.00" in detail.text and "risk" not in detail.text
    # The deciding span reads as the verdict it decided, and names the check that decided it
    # (the NLI model alone read it as entailment).
    [deciding] = detail.find_elements(By.CSS_SELECTOR, ".evidence")
    assert deciding.get_attribute("data-reads") == "contradicted"
    meta = deciding.find_element(By.CSS_SELECTOR, ".meta").text
    # Which part decided depends on the model: the numbers check when the NLI model alone read
    # entailment (the page then says so), else the model's own contradiction.
    if "numbers check" in meta:
        assert meta.startswith("contradicts · decided by the numbers check (200 mg not in")
        assert "the NLI model alone read entailment" in meta
    else:
        assert meta.startswith("contradicts · decided by the NLI model (contradiction")
    failed = detail.find_element(By.XPATH, ".//h4[text()='Failed checks']")
    browser.execute_script("arguments[0].scrollTop = arguments[1].offsetTop - 8", detail, failed)
    _shot(browser, "contradicted")
    sentences[0].click()  # supported: the span that decided it
    evidence = detail.find_elements(By.CSS_SELECTOR, ".evidence")
    assert evidence, "a supported sentence names the span that decided it"
    box = evidence[0]
    assert box.get_attribute("data-pmid") == IBUPROFEN.pmid
    assert box.get_attribute("data-reads") == "supported"
    assert box.find_element(By.CSS_SELECTOR, ".meta").text.startswith(
        "supports · decided by the NLI model (entailment"
    )
    link = box.find_element(By.TAG_NAME, "a")
    assert link.get_attribute("href") == f"https://pubmed.ncbi.nlm.nih.gov/{IBUPROFEN.pmid}/"
    # The whole abstract, with the deciding span marked at its place.
    paragraph = box.find_element(By.CSS_SELECTOR, "p.abstract")
    mark = paragraph.find_element(By.TAG_NAME, "mark")
    abstract = _abstract(IBUPROFEN.pmid)
    assert paragraph.get_attribute("textContent") == abstract
    start, end = map(int, re.findall(r"characters (\d+)\u2013(\d+)", box.text)[0])
    assert mark.get_attribute("textContent") == abstract[start:end]
    before = browser.execute_script("return arguments[0].firstChild.textContent", paragraph)
    assert before == abstract[:start]
    _shot(browser, "popover")
    # Keyboard: Escape closes and gives focus back; focusing a sentence opens it again.
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not detail.is_displayed()
    second = _sentences(browser)[1]
    browser.execute_script("arguments[0].focus()", second)
    assert detail.is_displayed()
    # Enter pins it and moves focus into it; Tab reaches the PubMed link.
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    assert browser.switch_to.active_element.get_attribute("id") == "detail-close"
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("href").startswith("https://pubmed")
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not detail.is_displayed()
    assert browser.switch_to.active_element.get_attribute("data-index") == "1"


def test_fabricated_pmid_and_uncited_sentence(browser: Any, demo_proxy: RunningProxy) -> None:
    _open(browser, demo_proxy)
    _ask(browser, AMOXAPINE)
    fabricated = _sentences(browser)[-1]
    assert fabricated.get_attribute("data-verdict") == "invalid_citation"
    fabricated.click()
    assert "PMID 31415926 — not among the retrieved evidence" in (
        browser.find_element(By.ID, "detail").text
    )
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    _ask(browser, ETORICOXIB)
    uncited = _sentences(browser)[-1]
    assert uncited.get_attribute("data-verdict") == "uncited"
    assert uncited.value_of_css_property("background-color") == BACKGROUNDS["uncited"]
    # The default policy passes it (support 1.00), but the model's verdict on the uncited
    # sentence is one the verifier cannot vouch for: the report's status is needs_review, the
    # sentence is marked, and the page never calls the answer verified.
    assert uncited.get_attribute("data-review") == "needs_review"
    badge = browser.find_element(By.CSS_SELECTOR, "#status .badge")
    assert badge.text == "needs review" and badge.get_attribute("data-status") == "needs_review"
    assert "1 of 3 uncited" in browser.find_element(By.ID, "counts").text
    assert "verified" not in browser.find_element(By.ID, "state").text
    uncited.click()
    detail = browser.find_element(By.ID, "detail").text
    assert "The answer cites nothing for this sentence" in detail
    _shot(browser, "uncited")
    _ask(browser, IGM)  # a correct answer: "verified" only if the model supports every sentence
    verdicts = {s.get_attribute("data-verdict") for s in _sentences(browser)}
    badge = browser.find_element(By.CSS_SELECTOR, "#status .badge").text
    assert (badge == "verified") == (verdicts == {"supported"}), (badge, verdicts)


def test_blocked_answer_shows_one_truthful_message(browser: Any, demo_proxy: RunningProxy) -> None:
    _open(browser, demo_proxy)
    _ask(browser, IBUPROFEN, policy="clinical-strict")
    [shown] = browser.find_elements(By.CSS_SELECTOR, ".blocked-message")
    assert shown.get_attribute("role") == "alert"
    # Two sentences were released before the block: the page does not say the answer was
    # withheld (the policy's own message, sent to the client, does), and says it once.
    answer = browser.find_element(By.ID, "answer").text
    policy_message = " ".join(PolicyStore().get("clinical-strict").messages.block.split())
    assert policy_message not in answer and "answer was withheld" not in answer
    assert shown.text.startswith("The policy blocked sentence 3 (rules fired: block-contradicted")
    assert "The 2 sentences above had been verified and released." in shown.text
    blocked = browser.find_element(By.CSS_SELECTOR, '.sent[data-action="block"]')
    assert blocked.find_element(By.CSS_SELECTOR, ".label").text.lower() == "blocked"
    assert blocked.find_element(By.CSS_SELECTOR, ".text").text == "sentence withheld"
    assert "200 mg" not in answer  # withheld words
    assert browser.find_element(By.CSS_SELECTOR, "#status .badge").text == "blocked"
    assert not browser.find_elements(By.CSS_SELECTOR, ".original")  # keyless: no reviewer
    _shot(browser, "blocked")


def test_phone_width_shows_the_evidence_as_a_bottom_sheet(
    browser: Any, demo_proxy: RunningProxy
) -> None:
    browser.set_window_size(PHONE_WIDTH, 844)
    try:
        _open(browser, demo_proxy)
        _ask(browser, AMOXAPINE)
        _sentences(browser)[0].click()
        detail = browser.find_element(By.ID, "detail")
        assert detail.value_of_css_property("position") == "fixed"
        page_width = browser.execute_script("return document.documentElement.scrollWidth")
        assert page_width <= browser.execute_script("return window.innerWidth")
        _shot(browser, "phone")
    finally:
        browser.set_window_size(1280, 900)


def test_dark_scheme_repaints_the_verdicts(browser: Any, demo_proxy: RunningProxy) -> None:
    def colours() -> tuple[str, str]:
        body = browser.find_element(By.TAG_NAME, "body").value_of_css_property("background-color")
        legend = browser.find_element(By.CSS_SELECTOR, '#legend .sent[data-verdict="supported"]')
        return body, legend.value_of_css_property("background-color")

    _open(browser, demo_proxy)
    assert colours() == ("rgba(255, 255, 255, 1)", BACKGROUNDS["supported"])
    scheme = {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", scheme)
    try:
        _open(browser, demo_proxy)
        assert colours() == ("rgba(13, 17, 23, 1)", "rgba(18, 54, 31, 1)")  # style.css, dark
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_gate_mode_shows_a_redacted_sentence_as_its_replacement(
    browser: Any, demo_proxy: RunningProxy
) -> None:
    _open(browser, demo_proxy)
    _ask(browser, AMOXAPINE, policy="clinical-strict")
    fabricated = _sentences(browser)[-1]
    assert fabricated.get_attribute("data-action") == "redact"
    assert fabricated.find_element(By.CSS_SELECTOR, ".label").text.lower() == "redacted"
    # Gate mode withholds the sentence's words from the page and from its annotation alike.
    shown = fabricated.find_element(By.CSS_SELECTOR, ".text")
    assert shown.text == PolicyStore().get("clinical-strict").messages.redact
    assert "line-through" not in shown.value_of_css_property("text-decoration-line")
    assert "halved relapse" not in browser.find_element(By.ID, "answer").text
    assert browser.find_element(By.CSS_SELECTOR, "#status .badge").text == "redacted"


def test_key_stays_in_the_browser_and_opens_the_api(
    browser: Any, proxy_factory: ProxyFactory, emulator: RunningEmulator, tmp_path: Path
) -> None:
    store = tmp_path / "keys.json"
    key, record = new_key("acme")
    asyncio.run(FileKeyStore(store).put(record))
    proxy = proxy_factory({"auth": {"store": str(store)}})
    browser.get(f"{proxy.url}/ui")
    state = browser.find_element(By.ID, "state")
    WebDriverWait(browser, 10).until(lambda d: "missing proxy key" in state.text)
    field = browser.find_element(By.ID, "key")
    field.send_keys(key, Keys.TAB)  # "change": saved, and the lists load with it
    WebDriverWait(browser, 10).until(lambda d: state.text == "")
    stored = (
        "return [sessionStorage.getItem('veriproxy.key'), localStorage.getItem('veriproxy.key')]"
    )
    assert browser.execute_script(stored) == [key, None]
    browser.find_element(By.ID, "model").send_keys("gpt-x")
    _ask(browser, IBUPROFEN)
    assert browser.find_element(By.ID, "answer").text == IBUPROFEN.question  # the echo
    # The proxy took the key off before calling the upstream.
    assert all(key not in str(headers) for headers in emulator.stats.headers)
    browser.find_element(By.ID, "remember").click()
    assert browser.execute_script(stored) == [None, key]
    browser.execute_script("localStorage.clear(); sessionStorage.clear()")


def test_a_reviewer_key_sees_the_withheld_words_and_the_rule(
    browser: Any, reviewed_proxy: ReviewedProxy
) -> None:
    proxy = reviewed_proxy.proxy
    try:
        _use_key(browser, proxy, reviewed_proxy.reviewer)
        _ask(browser, AMOXAPINE, policy="clinical-strict")
        redacted = _sentences(browser)[-1]
        assert redacted.get_attribute("data-action") == "redact"
        original = redacted.find_element(By.CSS_SELECTOR, ".original")
        assert "halved relapse rates" in original.text
        assert "redacted by rule redact-fabricated-citation" in original.text
        redacted.click()
        detail = browser.find_element(By.ID, "detail")
        assert "Original (reviewer, from the audit record)" in detail.text
        assert "halved relapse rates" in detail.text
        _shot(browser, "reviewer")
        browser.switch_to.active_element.send_keys(Keys.ESCAPE)
        _ask(browser, IBUPROFEN, policy="clinical-strict")
        blocked = browser.find_element(By.CSS_SELECTOR, '.sent[data-action="block"]')
        original = blocked.find_element(By.CSS_SELECTOR, ".original")
        assert "bupivacaine 200 mg" in original.text
        assert "blocked by rule block-contradicted-high-harm" in original.text
        assert len(browser.find_elements(By.CSS_SELECTOR, ".blocked-message")) == 1
    finally:
        browser.execute_script("localStorage.clear(); sessionStorage.clear()")


def test_other_keys_never_get_the_withheld_words(
    browser: Any, reviewed_proxy: ReviewedProxy
) -> None:
    proxy = reviewed_proxy.proxy
    try:
        _use_key(browser, proxy, reviewed_proxy.caller)
        _ask(browser, AMOXAPINE, policy="clinical-strict")
        assert not browser.find_elements(By.CSS_SELECTOR, ".original")
        assert "halved relapse" not in browser.page_source
        assert "withheld words are shown to reviewer keys only" in _side(browser)
        _sentences(browser)[-1].click()
        assert "reviewer keys only" in browser.find_element(By.ID, "detail").text
    finally:
        browser.execute_script("localStorage.clear(); sessionStorage.clear()")


def test_a_judged_sentence_names_the_judge_and_its_quote(
    browser: Any, judged_proxy: RunningProxy
) -> None:
    """Every claim escalated to a judge that calls everything supported: the supported sentence
    names the judge and its quote, not an NLI probability; the tenfold dose stays contradicted
    because the numbers check failed, and the page says the judge was overruled."""
    _open(browser, judged_proxy)
    _ask(browser, IBUPROFEN)
    sentences = _sentences(browser)
    detail = browser.find_element(By.ID, "detail")
    sentences[2].click()
    assert sentences[2].get_attribute("data-verdict") == "contradicted"
    assert "the LLM judge said supported, but a check failed" in detail.text, detail.text
    sentences[0].click()
    assert sentences[0].get_attribute("data-verdict") == "supported"
    box = detail.find_elements(By.CSS_SELECTOR, ".evidence")[0]
    meta = box.find_element(By.CSS_SELECTOR, ".meta").text
    assert meta.startswith(f"supports · decided by the LLM judge {JUDGE}, quoting \u201c"), meta
    assert "entailment 100%" not in meta
    assert f"decided by the LLM judge {JUDGE} (the NLI model alone: supported)" in detail.text
    # The response panel sums up what the judge did: three claims asked, the dose overruled.
    assert f"LLM judge {JUDGE}: 3 claims asked, 2 decided, 0 overturned" in _side(browser)
    _shot(browser, "judged")
