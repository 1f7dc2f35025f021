// veriproxy playground: streams a chat completion from this proxy and paints each sentence
// with its verdict as the annotation chunks arrive. The proxy key stays in this browser
// (sessionStorage, or localStorage when "remember" is ticked) and only goes to this origin.
"use strict";
(() => {
  const KEY_STORE = "veriproxy.key";
  const PUBMED = "https://pubmed.ncbi.nlm.nih.gov/";
  const $ = (id) => document.getElementById(id);
  const el = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) node.append(child);
    return node;
  };
  const pct = (x) => (typeof x === "number" ? x.toFixed(2) : "—");
  const words = (name) => name.replace(/_/g, " ");
  // The report's `support` fields hold VetScore: the share of claims the evidence supports,
  // weighted by harm (1.00 = all supported, higher is better); `risk` is the rest.
  const SUPPORT = "harm-weighted support";

  // ---- the proxy key, models and policies ------------------------------------------------
  const keyInput = $("key"), remember = $("remember");
  keyInput.value = sessionStorage.getItem(KEY_STORE) || localStorage.getItem(KEY_STORE) || "";
  remember.checked = localStorage.getItem(KEY_STORE) !== null;
  function saveKey() {
    sessionStorage.removeItem(KEY_STORE);
    localStorage.removeItem(KEY_STORE);
    if (keyInput.value) (remember.checked ? localStorage : sessionStorage).setItem(KEY_STORE, keyInput.value);
  }
  function authHeaders() {
    return keyInput.value ? { Authorization: "Bearer " + keyInput.value } : {};
  }
  async function getList(path) {
    const response = await fetch(path, { headers: authHeaders() });
    if (!response.ok) throw new Error(await errorMessage(response));
    return (await response.json()).data || [];
  }
  async function loadChoices() {
    try {
      const models = await getList("/v1/models");
      $("models").replaceChildren(...models.map((m) => el("option", { value: m.id })));
      if (!$("model").value && models.length) $("model").value = models[0].id;
      const policies = await getList("/v1/policies");
      const select = $("policy"), chosen = select.value;
      select.replaceChildren(select.options[0],
        ...policies.map((p) => el("option", { value: p.id, textContent: p.id, title: p.description || "" })));
      select.value = policies.some((p) => p.id === chosen) ? chosen : "";
      setState("");
    } catch (err) {
      setState(err.message, true);
    }
  }
  keyInput.addEventListener("change", () => { saveKey(); loadChoices(); });
  remember.addEventListener("change", saveKey);

  // ---- one response's state ---------------------------------------------------------------
  let answer = "";          // the text the client received
  let marks = [];           // {from, to, ann, replaced}: sentence ranges in `answer`
  let cursor = 0;           // where the next sentence is searched from
  let lastDelta = 0;        // where the latest content delta starts in `answer`
  let blockedAt = null;     // offset of the block message, once the stream ended with content_filter
  let report = null;
  let documents = new Map(); // pmid -> {title, abstract, journal, year, score, retriever}
  let requestId = null;     // X-Request-Id of the answer: names its audit record
  let originals = new Map(); // sentence index -> {text, rule, rules_fired}: a reviewer's view
  let reviewNote = "";
  let controller = null;

  function reset() {
    answer = ""; marks = []; cursor = 0; lastDelta = 0; blockedAt = null; report = null; documents = new Map();
    requestId = null; originals = new Map(); reviewNote = "";
    hideDetail();
    renderAnswer(); renderSide();
  }

  function addSentence(ann) {
    let from = answer.indexOf(ann.text, cursor);
    let to = from + ann.text.length;
    let replaced = false;
    if (from < 0) {
      // Gate mode sends the policy's message, in one delta, in place of a redacted sentence.
      const start = Math.max(cursor, lastDelta);
      from = start + (answer.length - start - answer.slice(start).trimStart().length);
      to = answer.length;
      replaced = true;
    }
    marks.push({ from, to, ann, replaced });
    cursor = to;
  }

  function addReport(value, docs) {
    report = value;
    for (const doc of docs || []) documents.set(doc.pmid, doc);
    // Annotate mode asks the LLM judge when the answer is done: a sentence it re-decided has
    // its final annotation in the report (the streamed one was the NLI model's alone).
    const latest = new Map((value.sentences || []).map((s) => [s.index, s]));
    for (const mark of marks) {
      const judged = latest.get(mark.ann.index);
      if (judged && judged.bundled_verdict && !mark.ann.bundled_verdict) mark.ann = judged;
    }
    renderAnswer();
    // A sentence withheld by a block in gate mode (and any after it) appears only in the report.
    const shown = new Set(marks.map((m) => m.ann.index));
    for (const s of value.sentences || []) {
      if (!shown.has(s.index) && (s.action === "block" || s.withheld)) marks.push({ from: null, to: null, ann: s, replaced: true });
    }
    renderSide();
  }

  // ---- rendering ----------------------------------------------------------------------------
  function sentenceNode(mark) {
    const ann = mark.ann, blocked = ann.action === "block", redacted = ann.action === "redact";
    const node = el("span", { className: "sent", tabIndex: 0 });
    node.dataset.index = ann.index;
    node.dataset.verdict = ann.verdict;
    node.dataset.action = ann.action;
    // A verdict the verifier cannot vouch for keeps its colour but is marked: a person must look.
    if (ann.needs_review) node.dataset.review = "needs_review";
    node.setAttribute("role", "button");
    const sent = mark.from === null ? "" : answer.slice(mark.from, mark.to);
    node.setAttribute("aria-label", `${ann.withheld ? "withheld sentence" : sent} (${words(ann.verdict)}${ann.needs_review ? ", needs review" : ""}${blocked || redacted ? ", " + ann.action + "ed" : ""})`);
    // Gate mode withholds the words: a redacted sentence arrives as the policy's message (shown as
    // sent, labelled, not struck); a blocked one is a placeholder, the block is told once below
    // the answer. Annotate mode strikes what was sent.
    const missing = ann.withheld && (blocked || mark.from === null);
    const shown = missing ? "sentence withheld" : mark.replaced || ann.withheld ? ann.text : sent;
    node.append(el("span", { className: missing ? "text placeholder" : "text", textContent: shown }));
    if (blocked || redacted) {
      if (!ann.withheld) node.classList.add("struck");
      node.append(el("span", { className: "label", textContent: blocked ? "blocked" : "redacted" }));
      if (mark.replaced && mark.from !== null && !ann.withheld) {
        node.append(el("span", { className: "replacement", textContent: sent }));
      }
    }
    const original = originals.get(ann.index);
    if (original) node.append(originalNode(original));
    return node;
  }

  // What a reviewer key reads back from the audit record: the sentence's own words and the rule.
  function originalNode(original) {
    const text = original.text === null ? "(the audit log keeps no text: audit.include_text is off)" : original.text;
    return el("span", { className: "original" }, el("span", { className: "label", textContent: "original" }), " ", text,
      el("span", { className: "meta", textContent: ` — ${original.action}ed by rule ${original.rule || original.rules_fired.join(", ")}` }));
  }

  function renderAnswer() {
    const box = $("answer");
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.index : undefined;
    const parts = [];
    let at = 0;
    const end = blockedAt === null ? answer.length : blockedAt;
    for (const mark of marks) {
      if (mark.from === null) { parts.push(" ", sentenceNode(mark)); continue; }
      if (mark.from > at) parts.push(answer.slice(at, mark.from));
      parts.push(sentenceNode(mark));
      at = Math.max(at, mark.to);
    }
    if (at < end) parts.push(el("span", { className: "pending", textContent: answer.slice(at, end) }));
    if (blockedAt !== null) parts.push(el("span", { className: "blocked-message", role: "alert", textContent: blockNotice() }));
    box.replaceChildren(...parts);
    if (focused !== undefined) {
      const again = box.querySelector(`.sent[data-index="${focused}"]`);
      if (again) again.focus();
    }
  }

  // One block message, worded for what the reviewer sees: the proxy's own message says the answer
  // was withheld, which is true only when no sentence of it was released.
  function blockNotice() {
    const released = marks.filter((m) => m.from !== null && !m.ann.withheld && m.ann.action !== "block").length;
    const blocked = marks.find((m) => m.ann.action === "block");
    if (!blocked) return released ? "The rest of the answer was withheld." : answer.slice(blockedAt).trim();
    const which = `sentence ${blocked.ann.index + 1}`;
    const rules = (blocked.ann.rules_fired || []).length ? ` (rules fired: ${blocked.ann.rules_fired.join(", ")})` : "";
    if (report && report.delivered_before_block) {
      return `The policy blocked ${which}${rules} after it had reached the client: annotate mode cannot take sent text back, so the stream was cut there.`;
    }
    if (!released) return `The policy blocked ${which}${rules}: the whole answer was withheld and the client got only the policy's block message.`;
    return `The policy blocked ${which}${rules}: it and everything after it were withheld, and the client got the policy's block message in their place. The ${released === 1 ? "sentence" : `${released} sentences`} above had been verified and released.`;
  }

  // The label a reviewer reads. "verified" only when every check-worthy sentence is supported and
  // cited: a policy may let an uncited or unsupported sentence through with status "verified".
  function responseLabel(r) {
    if (r.status === "needs_review") {
      const unsure = (r.sentences || []).filter((s) => s.needs_review);
      return { label: "needs review", status: "needs_review", gaps: unsure };
    }
    if (r.status !== "verified") return { label: r.status, status: r.status, gaps: [] };
    const gaps = (r.sentences || []).filter((s) => s.verdict !== "supported" && s.verdict !== "not_checkworthy");
    if (!gaps.length) return { label: "verified", status: "verified", gaps };
    return { label: "not fully supported", status: "gaps", gaps };
  }

  // Evidence that decided a verdict: the deciding spans, and the abstracts of failed checks.
  function decidingPmids(r) {
    const ids = new Set();
    for (const s of r.sentences || []) {
      for (const span of s.evidence || []) ids.add(span.pmid);
      for (const c of s.claims || []) {
        for (const span of c.evidence || []) ids.add(span.pmid);
        for (const check of c.checks || []) if (!check.passed && check.pmid) ids.add(check.pmid);
      }
    }
    return ids;
  }

  function renderSide() {
    const status = $("status"), support = $("support");
    if (!report) {
      status.textContent = "—"; support.textContent = "—";
      $("counts").textContent = ""; $("rules").textContent = "";
      $("abstracts").replaceChildren();
      return;
    }
    const outcome = responseLabel(report);
    status.replaceChildren(el("span", { className: "badge", textContent: outcome.label }));
    status.firstChild.dataset.status = outcome.status;
    support.textContent = pct(report.support);
    const counts = Object.entries(report.counts || {}).filter(([, n]) => n).map(([k, n]) => `${words(k)}: ${n}`);
    if (outcome.gaps.length) {
      const kinds = [...new Set(outcome.gaps.map((s) => words(s.verdict)))].join(", ");
      counts.push(`not every sentence is supported and cited: ${outcome.gaps.length} of ${report.sentences.length} ${kinds}`);
    }
    $("counts").textContent = counts.join(" · ");
    const rules = [`policy ${report.policy || "—"}`];
    if ((report.rules_fired || []).length) rules.push("rules fired: " + report.rules_fired.join(", "));
    if (report.error) rules.push("verification incomplete: " + report.error);
    const judge = report.escalation;
    if (judge) {
      const failed = judge.judge_error ? `, failed: ${judge.judge_error}` : "";
      rules.push(`LLM judge ${judge.judge}: ${judge.escalated} claims asked, ${judge.judged} decided, ${judge.overturned} overturned${failed}`);
    }
    if (reviewNote) rules.push(reviewNote);
    $("rules").textContent = rules.join(" · ");
    // Every injected abstract when the report carries them, else the evidence it lists.
    const deciding = decidingPmids(report);
    const listed = documents.size ? [...documents.values()] : report.evidence || [];
    $("abstracts").replaceChildren(...listed.map((doc) => {
      const used = deciding.has(doc.pmid);
      const meta = [doc.journal, doc.year, `retrieval score ${pct(doc.score)}`, doc.retriever].filter(Boolean).join(" · ");
      const item = el("li", {}, pmidLink(doc.pmid), " ", el("strong", { textContent: doc.title }), el("div", { className: "meta", textContent: meta }));
      if (used) item.append(el("div", { className: "decided", textContent: "decided a verdict" }));
      item.dataset.pmid = doc.pmid;
      item.dataset.used = used;
      if (doc.abstract) item.append(el("details", {}, el("summary", { textContent: "abstract" }), el("p", { className: "abstract", textContent: doc.abstract })));
      return item;
    }));
  }

  function pmidLink(pmid) {
    return el("a", { href: PUBMED + encodeURIComponent(pmid) + "/", textContent: "PMID " + pmid, target: "_blank", rel: "noopener noreferrer" });
  }

  // The abstract with [start, end) highlighted, or just the span while the abstract is unknown.
  function highlighted(span) {
    const doc = documents.get(span.pmid);
    const text = doc && doc.abstract;
    if (!text || text.slice(span.start, span.end) !== span.text) {
      return el("p", { className: "abstract" }, "… ", el("mark", { textContent: span.text }), " …");
    }
    return el("p", { className: "abstract" }, text.slice(0, span.start), el("mark", { textContent: span.text }), text.slice(span.end));
  }

  // Text with several [start, end) spans marked (in order; overlapping ones merged into the first).
  function marked(text, spans, className) {
    const parts = [];
    let at = 0;
    for (const span of [...spans].sort((a, b) => a.start - b.start)) {
      if (span.start < at) continue;
      parts.push(text.slice(at, span.start), el("mark", { className, textContent: text.slice(span.start, span.end) }));
      at = span.end;
    }
    parts.push(text.slice(at));
    return parts;
  }

  // Where the spans are: in the abstract, or in the title (`in_title`); null while the abstract
  // is unknown or the spans are not its words.
  function inRecord(pmid, spans, className) {
    const doc = documents.get(pmid);
    if (!doc || !spans.length) return null;
    const title = spans.every((s) => s.in_title), text = title ? doc.title : doc.abstract;
    if (!text || spans.some((s) => s.in_title !== title || text.slice(s.start, s.end) !== s.text)) return null;
    return el("p", { className: title ? "abstract title" : "abstract" }, ...marked(text, spans, className));
  }

  // A quoted citation checked against the evidence: the quote, what became of it, and its words
  // highlighted in the abstract (a misquote: the cited abstract's closest words, and what differs).
  const QUOTE_STATUS = {
    found: "found in the abstract it cites",
    misquote: "misquote: these words are not in the abstract it cites",
    other_abstract: "not in the abstract it cites, but in another one retrieved",
  };
  function quoteBox(q) {
    const box = el("div", { className: "quote-check" }, pmidLink(q.pmid), " ",
      el("q", { textContent: q.quote }), el("div", { className: "meta", textContent: QUOTE_STATUS[q.status] || q.status }));
    box.dataset.status = q.status;
    if (q.status === "misquote") {
      const closest = q.closest ? [q.closest] : [];
      box.append(inRecord(q.pmid, closest, "closest") || el("p", { className: "abstract" }, "closest words: ", el("mark", { className: "closest", textContent: q.closest ? q.closest.text : "none" })));
      if (q.difference) box.append(el("p", { className: "difference", textContent: q.difference }));
    } else {
      const where = q.found_in || q.pmid;
      if (where !== q.pmid) box.append(el("div", { className: "meta" }, "found in ", pmidLink(where)));
      box.append(inRecord(where, q.spans || [], "quote") || el("p", { className: "abstract" }, ...(q.spans || []).map((s) => el("mark", { className: "quote", textContent: s.text }))));
    }
    return box;
  }

  // A span's label agrees with the verdict of the claim it decided, and names what decided it:
  // the NLI model, a check (numbers, direction, negation, entity) that overruled the model's
  // reading, or the LLM judge, whose spans carry no probability of their own.
  const NLI_VERDICT = { entailment: "supported", contradiction: "contradicted", neutral: "unsupported" };
  const READS = { supported: "supports", contradicted: "contradicts", partially_supported: "partly supports" };
  const OVERRULING = ["numbers", "unstated_number", "misattributed_number", "direction", "negation", "entity"];
  const JUDGE_PREFIX = "judge:";
  function spanReading(ann, span) {
    const same = (e) => e.pmid === span.pmid && e.start === span.start && e.end === span.end;
    const claim = (ann.claims || []).find((c) => (c.evidence || []).some(same));
    const verdict = claim ? claim.verdict : NLI_VERDICT[span.label];
    const reads = READS[verdict] || "does not settle the claim";
    if (claim && (claim.decided_by || "").startsWith(JUDGE_PREFIX)) {
      const note = claim.escalation || {};
      const quote = note.quote ? `, quoting “${note.quote}”` : "";
      const alone = note.bundled_verdict ? `; the NLI model alone said ${words(note.bundled_verdict)}` : "";
      return { verdict, text: `${reads} · decided by the LLM judge ${claim.decided_by.slice(JUDGE_PREFIX.length)}${quote}${alone} · characters ${span.start}–${span.end}` };
    }
    const model = `${span.label} ${pct(span.score)}`;
    const checks = verdict === NLI_VERDICT[span.label] ? [] : ((claim && claim.checks) || []).filter((c) => !c.passed && OVERRULING.includes(c.name));
    const by = checks.length
      ? `decided by the ${checks.map((c) => words(c.name) + (c.detail ? ` check (${c.detail})` : " check")).join(" and the ")}; the NLI model alone read ${model}`
      : `decided by the NLI model (${model})`;
    return { verdict, text: `${reads} · ${by} · characters ${span.start}–${span.end}` };
  }

  // What became of a claim an escalation rule sent (or meant to send) to the LLM judge.
  function escalationText(claim) {
    const note = claim.escalation;
    if (!note) return "";
    const said = note.verdict ? words(note.verdict) : "nothing";
    const kept = `the NLI model's ${words(note.bundled_verdict)} stands`;
    const texts = {
      judged: `decided by the LLM judge ${note.judge} (the NLI model alone: ${words(note.bundled_verdict)})`,
      quote_rejected: `the LLM judge said ${said}, but its quote is not in the evidence: ${kept}`,
      quote_irrelevant: `the LLM judge said ${said}, but its quote does not bear on the claim: ${kept}`,
      check_failed: `the LLM judge said ${said}, but a check failed: ${kept}`,
      quote_contradicts: `the LLM judge said ${said}, but its own quote says the opposite: ${kept}`,
      judge_error: `the LLM judge failed (${note.reason}): ${kept}`,
      budget: `not sent to the LLM judge: the judge budget is spent`,
      max_claims: `not sent to the LLM judge: more claims than max_claims`,
    };
    return " · " + (texts[note.outcome] || note.outcome);
  }

  function detailContent(ann) {
    const body = [el("h3", { id: "detail-title", textContent: `${words(ann.verdict)} · confidence ${pct(ann.confidence)}` })];
    const facts = [`harm ${ann.harm}/5`, `${SUPPORT} ${pct(ann.support)}`, `action ${ann.action}`];
    body.push(el("p", { textContent: facts.join(" · ") }));
    if (ann.needs_review) {
      body.push(el("p", { className: "review-reason", textContent: `Needs review: ${ann.review_reason}` }));
    }
    if (ann.verdict === "uncited") {
      body.push(el("p", { className: "meta", textContent: "The answer cites nothing for this sentence: the evidence below was found by checking it against every retrieved abstract." }));
    }
    if (ann.withheld) {
      const original = originals.get(ann.index);
      body.push(el("p", { className: "meta", textContent: "The client was not shown this sentence's words." }));
      if (original) body.push(el("h4", { textContent: "Original (reviewer, from the audit record)" }), el("p", {}, originalNode(original)));
      else if (reviewNote) body.push(el("p", { className: "meta", textContent: reviewNote }));
    }
    if ((ann.harm_reasons || []).length) body.push(el("p", { className: "meta", textContent: "harm: " + ann.harm_reasons.join("; ") }));
    if ((ann.rules_fired || []).length) body.push(el("p", { className: "meta", textContent: "rules fired: " + ann.rules_fired.join(", ") }));
    if ((ann.claims || []).length) {
      body.push(el("h4", { textContent: "Claims" }));
      body.push(el("ul", {}, ...ann.claims.map((c) => el("li", { textContent: `${c.text || "(claim withheld)"} — ${words(c.verdict)}, harm ${c.harm}${escalationText(c)}` }))));
    }
    const citations = ann.citations || [];
    if (citations.length) {
      body.push(el("h4", { textContent: "Citations" }));
      body.push(el("ul", {}, ...citations.map((c) => el("li", {}, pmidLink(c.pmid), c.valid ? " — among the retrieved evidence" : " — not among the retrieved evidence (invalid)"))));
    }
    const fromLead = ann.lead_citations || [];
    if (!citations.length && fromLead.length) {
      body.push(el("h4", { textContent: "Citations (lent by its list or paragraph: where it is cited once)" }));
      body.push(el("ul", {}, ...fromLead.map((pmid) => el("li", {}, pmidLink(pmid), " — judged against it as cited"))));
    }
    const quotes = ann.quotes || [];
    if (quotes.length) {
      const judged = {
        quote: "Quotes (the sentence was judged against them)",
        quote_and_window: "Quotes (the sentence was judged against them; a claim they left open was supported by another window of the abstract, under Evidence)",
      };
      body.push(el("h4", { textContent: judged[ann.premise] || "Quotes" }));
      body.push(...quotes.map(quoteBox));
    }
    const failed = (ann.checks || []).filter((c) => !c.passed);
    if (failed.length) {
      body.push(el("h4", { textContent: "Failed checks" }));
      body.push(el("ul", {}, ...failed.map((c) => el("li", { textContent: c.detail ? `${c.name}: ${c.detail}` : c.name }))));
    }
    body.push(el("h4", { textContent: "Evidence" }));
    const spans = ann.evidence || [];
    if (!spans.length) body.push(el("p", { className: "meta", textContent: "No evidence span decided this sentence." }));
    for (const span of spans) {
      const reading = spanReading(ann, span);
      const box = el("div", { className: "evidence" }, pmidLink(span.pmid), " ", el("strong", { textContent: span.title }),
        el("div", { className: "meta", textContent: reading.text }), highlighted(span));
      box.dataset.pmid = span.pmid;
      box.dataset.reads = reading.verdict;
      body.push(box);
    }
    return body;
  }

  // ---- the sentence popover: hover shows, focus shows, click/Enter pins, Escape closes -----
  const detail = $("detail");
  let pinned = false, owner = null;
  function showDetail(node, pin) {
    const mark = marks.find((m) => String(m.ann.index) === node.dataset.index);
    if (!mark) return;
    owner = node; pinned = pinned || pin;
    $("detail-body").replaceChildren(...detailContent(mark.ann));
    detail.hidden = false;
    const box = node.getBoundingClientRect();
    const left = Math.min(window.scrollX + box.left, window.scrollX + document.documentElement.clientWidth - detail.offsetWidth - 12);
    detail.style.left = Math.max(12, left) + "px";
    detail.style.top = window.scrollY + box.bottom + 6 + "px";
  }
  function hideDetail(force = true) {
    if (!force && pinned) return;
    detail.hidden = true; pinned = false;
    const previous = owner; owner = null;
    return previous;
  }
  // Closing gives the focus back to the sentence without reopening the popover.
  let returning = false;
  function closeAndReturn() {
    const back = hideDetail();
    if (!back) return;
    returning = true;
    back.focus();
    returning = false;
  }
  const answerBox = $("answer");
  answerBox.addEventListener("mouseover", (e) => { const s = e.target.closest(".sent"); if (s && !pinned) showDetail(s, false); });
  answerBox.addEventListener("mouseleave", () => hideDetail(false));
  answerBox.addEventListener("focusin", (e) => { const s = e.target.closest(".sent"); if (s && !returning) { pinned = false; showDetail(s, false); } });
  answerBox.addEventListener("click", (e) => { const s = e.target.closest(".sent"); if (s) { pinned = false; showDetail(s, true); } });
  answerBox.addEventListener("keydown", (e) => {
    const s = e.target.closest(".sent");
    // Enter pins the popover and moves into it, so its PubMed links are reachable by Tab.
    if (s && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); pinned = false; showDetail(s, true); $("detail-close").focus(); }
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !detail.hidden) closeAndReturn(); });
  document.addEventListener("click", (e) => {
    if (pinned && !detail.contains(e.target) && !e.target.closest(".sent")) hideDetail();
  });
  $("detail-close").addEventListener("click", closeAndReturn);

  // ---- streaming ------------------------------------------------------------------------------
  function setState(text, isError = false) {
    const state = $("state");
    state.textContent = text;
    state.classList.toggle("error", isError);
  }

  async function errorMessage(response) {
    try {
      const body = await response.json();
      return (body.error && body.error.message) || `HTTP ${response.status}`;
    } catch (err) {
      return `HTTP ${response.status}`;
    }
  }

  function handleEvent(data) {
    const chunk = JSON.parse(data);
    if (chunk.error) throw new Error(chunk.error.message || "the stream failed");
    const choice = (chunk.choices || []).find((c) => (c.index || 0) === 0);
    const content = choice && choice.delta && choice.delta.content;
    if (content) { lastDelta = answer.length; answer += content; }
    // A block ends the stream with the policy's message as the last delta, then content_filter.
    if (choice && choice.finish_reason === "content_filter" && blockedAt === null) blockedAt = Math.max(cursor, lastDelta);
    const v = chunk.verification;
    if (v && v.type === "sentence") addSentence(v);
    if (v && v.type === "report") addReport(v, chunk.evidence_documents);
    renderAnswer();
  }

  // A reviewer key may read the withheld words back from the audit record; any other key is
  // refused (403) and the page says so. Only choice 0 is shown.
  async function loadOriginals() {
    if (!requestId) return;
    const response = await fetch(`/v1/audit/${encodeURIComponent(requestId)}/withheld`, { headers: authHeaders() });
    if (response.ok) {
      for (const item of (await response.json()).data) if (item.choice === 0) originals.set(item.index, item);
      reviewNote = "withheld words shown from the audit record (reviewer key)";
    } else {
      reviewNote = response.status === 403 ? "withheld words are shown to reviewer keys only" : "withheld words: " + (await errorMessage(response));
    }
    renderAnswer(); renderSide();
  }

  async function ask(event) {
    event.preventDefault();
    const question = $("question").value.trim();
    if (!question || controller) return;
    saveKey();
    reset();
    const options = { include_evidence: true };
    if ($("policy").value) options.policy = $("policy").value;
    controller = new AbortController();
    $("send").disabled = true; $("stop").disabled = false;
    $("answer").setAttribute("aria-busy", "true");
    setState("streaming…");
    try {
      const response = await fetch("/v1/chat/completions", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...authHeaders() },
        body: JSON.stringify({ model: $("model").value, stream: true, messages: [{ role: "user", content: question }], veriproxy: options }),
        signal: controller.signal,
      });
      if (!response.ok) throw new Error(await errorMessage(response));
      requestId = response.headers.get("x-request-id");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          for (const line of event.split("\n")) {
            if (!line.startsWith("data: ")) continue;
            const data = line.slice(6);
            if (data !== "[DONE]") handleEvent(data);
          }
        }
      }
      if (report && marks.some((m) => m.ann.withheld)) await loadOriginals();
      setState(report ? `done: ${responseLabel(report).label}, ${SUPPORT} ${pct(report.support)}` : "done (no verification report)");
    } catch (err) {
      setState(err.name === "AbortError" ? "stopped" : err.message, err.name !== "AbortError");
    } finally {
      controller = null;
      $("send").disabled = false; $("stop").disabled = true;
      $("answer").setAttribute("aria-busy", "false");
      document.body.dataset.done = "true";
    }
  }

  $("ask").addEventListener("submit", (e) => { delete document.body.dataset.done; ask(e); });
  $("stop").addEventListener("click", () => controller && controller.abort());
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("ask").requestSubmit();
  });
  // ?q=… prefills the question (veriproxy demo --serve prints such links).
  const preset = new URLSearchParams(location.search).get("q");
  if (preset) $("question").value = preset;
  loadChoices();
})();
