// veriproxy review: one sampled answer sentence at a time, labelled from the keyboard. The key
// stays in this browser (sessionStorage) and only goes to this origin.
"use strict";
(() => {
  const KEY_STORE = "veriproxy.key";
  const PUBMED = "https://pubmed.ncbi.nlm.nih.gov/";
  const VERDICTS = ["supported", "partially_supported", "unsupported", "contradicted",
    "invalid_citation", "uncited", "not_checkworthy"];
  const $ = (id) => document.getElementById(id);
  const el = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) node.append(child);
    return node;
  };
  const words = (name) => name.replace(/_/g, " ");
  const keyInput = $("key");
  keyInput.value = sessionStorage.getItem(KEY_STORE) || localStorage.getItem(KEY_STORE) || "";

  let items = [];     // the queue as last fetched
  let at = 0;         // the item shown
  const done = new Map();  // item id -> the verdict this reviewer gave

  function setState(text, error = false) {
    $("state").textContent = text;
    $("state").className = error ? "error" : "";
  }
  async function call(path, options = {}) {
    const headers = { Authorization: "Bearer " + keyInput.value, ...(options.headers || {}) };
    const response = await fetch(path, { ...options, headers });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
    return body;
  }

  // ---- the verdict choices, one key each ------------------------------------------------------
  $("verdicts").append(...VERDICTS.map((v, i) => el("label", {},
    el("input", { type: "radio", name: "verdict", value: v, id: "verdict-" + v }),
    el("kbd", { textContent: String(i + 1) }), words(v))));

  // ---- showing one item -----------------------------------------------------------------------
  function fact(name, value) { return [el("dt", { textContent: name }), el("dd", { textContent: value })]; }
  function show() {
    const item = items[at];
    $("position").textContent = items.length ? `${at + 1} of ${items.length}` : "— (queue empty)";
    if (!item) {
      for (const id of ["sentence", "facts", "evidence", "checks"]) $(id).replaceChildren();
      return;
    }
    const given = done.get(item.id);
    const sentence = $("sentence");
    sentence.dataset.verdict = item.verdict;
    sentence.replaceChildren(item.text, ...(given ? [" ", el("span", { className: "done", textContent: "labelled: " + words(given) })] : []));
    $("facts").replaceChildren(
      ...fact("Verdict", words(item.verdict)),
      ...fact("Confidence", item.confidence.toFixed(2)),
      ...fact("Harm", String(item.harm)),
      ...fact("Policy action", item.action + (item.rules_fired.length ? ` (${item.rules_fired.join(", ")})` : "")),
      ...fact("Response", item.response_status),
      ...fact("Why here", `${words(item.reason)}, inclusion ${item.inclusion.toFixed(3)}`),
      ...fact("Model", item.model),
    );
    $("evidence").replaceChildren(...(item.evidence.length ? item.evidence.map((q) => el("li", {},
      el("a", { href: PUBMED + encodeURIComponent(q.pmid) + "/", target: "_blank", rel: "noopener noreferrer", textContent: "PMID " + q.pmid }),
      " ", q.title, el("span", { className: "meta", textContent: ` (${words(q.label)} ${q.score.toFixed(2)}, characters ${q.start}–${q.end})` }),
      spanIn(q))) : [el("li", { textContent: "none" })]));
    $("checks").replaceChildren(...(item.failed_checks.length
      ? item.failed_checks.map((c) => el("li", { textContent: `${c.name}: ${c.detail}` }))
      : [el("li", { textContent: "none" })]));
    for (const radio of document.querySelectorAll("input[name=verdict]")) radio.checked = radio.value === (given || item.verdict);
    $("note").value = "";
  }

  // The abstract with the deciding span highlighted, or the span alone when the abstract is unknown.
  function spanIn(q) {
    if (!q.abstract) return el("p", { className: "abstract" }, "… ", el("mark", { textContent: q.text }), " …");
    return el("p", { className: "abstract" }, q.abstract.slice(0, q.start), el("mark", { textContent: q.text }), q.abstract.slice(q.end));
  }

  async function load() {
    if (!keyInput.value) { setState("enter a reviewer key"); return; }
    $("agreement").textContent = "";
    try {
      items = (await call("/v1/review/items?limit=200")).data;
      at = 0;
      show();
      setState(items.length ? "" : "nothing to review");
      await agreement();
    } catch (err) {
      items = [];  // nothing from an earlier key stays on screen
      show();
      setState(err.message, true);
    }
  }
  async function agreement() {
    const s = await call("/v1/review/summary");
    const a = s.agreement;
    const kappa = a.kappa === null ? "—" : a.kappa.toFixed(2);
    $("agreement").textContent = `${s.labelled} items labelled; two reviewers agreed on ${a.agreed} of ${a.items} (kappa ${kappa}).`;
  }

  // ---- labelling ------------------------------------------------------------------------------
  async function label(verdict) {
    const item = items[at];
    if (!item || done.has(item.id)) { move(1); return; }
    try {
      await call(`/v1/review/items/${item.id}/labels`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ verdict, note: $("note").value }),
      });
      done.set(item.id, verdict);
      setState(`saved: ${words(verdict)}`);
      await agreement();
      move(1);
    } catch (err) {
      setState(err.message, true);
    }
  }
  function move(step) {
    at = Math.max(0, Math.min(items.length - 1, at + step));
    show();
  }
  function chosen() {
    const radio = document.querySelector("input[name=verdict]:checked");
    return radio ? radio.value : null;
  }
  $("right").addEventListener("click", () => items[at] && label(items[at].verdict));
  $("decide").addEventListener("submit", (event) => { event.preventDefault(); const v = chosen(); if (v) label(v); });
  keyInput.addEventListener("change", () => { sessionStorage.setItem(KEY_STORE, keyInput.value); load(); });
  $("note").addEventListener("keydown", (event) => { if (event.key === "Escape") $("note").blur(); });

  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type !== "radio")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const digit = Number(event.key);
    if (Number.isInteger(digit) && digit >= 1 && digit <= VERDICTS.length) {
      label(VERDICTS[digit - 1]);
    } else if (event.key === "Enter" || event.key === "y") {
      if (items[at]) label(items[at].verdict);
    } else if (event.key === "j" || event.key === "ArrowRight") {
      move(1);
    } else if (event.key === "k" || event.key === "ArrowLeft") {
      move(-1);
    } else if (event.key === "n") {
      $("note").focus();
    } else {
      return;
    }
    event.preventDefault();
  });
  load();
})();
