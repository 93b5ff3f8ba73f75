// The pages' only source of numbers: the public API, called as a browser client (anonymous, or
// with the visitor's own key: access.js).
// An answer that is not a success becomes an ApiError carrying the problem details (RFC 9457)
// the API sent, so every page can say what went wrong in the API's own words.

import { accessHeaders, noteLimits, setupAccessPanel } from "./access.js";
import { modelPage } from "./format.js";

// Every event the snapshot holds, not /v1/events' default of the last 30 days.
export const ALL_EVENTS_SINCE = "1970-01-01";

// A model name in a /v1 path: each part encoded, its slashes kept (`anthropic/claude-sonnet-4`).
export function modelPath(name) {
  return name.split("/").map(encodeURIComponent).join("/");
}

export class ApiError extends Error {
  constructor(status, problem, path) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.path = path;
  }
}

async function send(path, options) {
  let response;
  try {
    // With a key, a kept answer is checked with the server first (a 304 where it is unchanged), so
    // the RateLimit headers shown are the key's own, never those kept from browsing without one.
    const headers = accessHeaders();
    const cache = options.cache || (headers["x-api-key"] ? "no-cache" : "default");
    response = await fetch(path, { ...options, cache, headers: { ...options.headers, ...headers } });
  } catch (failure) {
    throw new ApiError(0, { title: "The server did not answer", detail: String(failure.message || failure) }, path);
  }
  noteLimits(response);
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const problem = body && typeof body === "object" ? body : { title: response.statusText, detail: text.slice(0, 300) };
    throw new ApiError(response.status, problem, path);
  }
  return body;
}

// GETs go through the browser's HTTP cache: the API sends Cache-Control max-age and an ETag,
// so moving between pages does not spend the free tier's hourly requests again.
export function getJSON(path) {
  return send(path, { headers: { accept: "application/json" } });
}

export function postJSON(path, payload) {
  return send(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(payload),
  });
}

// `/` is the service descriptor: it says whether the data is stale or the last run failed, and
// it is never counted against the free tier, so every page asks it.
export async function showStatus() {
  setupAccessPanel();
  const banner = document.getElementById("status");
  const stamp = document.getElementById("snapshot");
  let descriptor;
  try {
    descriptor = await getJSON("/");
  } catch (error) {
    banner.hidden = false;
    banner.className = "banner error";
    banner.textContent = `The service descriptor could not be read: ${error.message}`;
    return null;
  }
  const oracle = descriptor.oracle || {};
  if (stamp && oracle.last_update) {
    stamp.textContent = `Snapshot ${oracle.last_update} · ${oracle.model_count} models · data ${ageText(oracle.age_seconds)} old`;
  }
  if (descriptor.status !== "ok" || oracle.stale) {
    banner.hidden = false;
    banner.className = "banner warn";
    banner.dataset.status = descriptor.status;
    const reason = descriptor.status_reason || (oracle.stale ? "the data is older than the staleness bound" : "");
    banner.textContent = `Service ${descriptor.status}: ${reason}. Figures below come from the last good snapshot` +
      (oracle.last_update ? ` (${oracle.last_update}, ${ageText(oracle.age_seconds)} old).` : ".");
  }
  return descriptor;
}

export function ageText(seconds) {
  if (seconds === null || seconds === undefined) return "of unknown age";
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

// A clear message in place of the content a failed call would have filled.
export function problemBox(error, what) {
  const box = document.createElement("div");
  box.className = "problem";
  box.setAttribute("role", "alert");
  const problem = error instanceof ApiError ? error.problem : { title: "Unexpected error", detail: String(error) };
  const status = error instanceof ApiError && error.status ? ` (HTTP ${error.status})` : "";
  const head = document.createElement("strong");
  head.textContent = `${what}: ${problem.title || "error"}${status}`;
  const detail = document.createElement("p");
  detail.className = "problem-detail";
  detail.textContent = problem.detail || problem.error || "";
  box.append(head, detail);
  if (Array.isArray(problem.suggestions) && problem.suggestions.length) {
    const hint = document.createElement("p");
    hint.append("Perhaps: ");
    problem.suggestions.forEach((ticker, position) => {
      if (position) hint.append(", ");
      const link = document.createElement("a");
      link.href = modelPage(ticker);
      link.textContent = ticker;
      hint.append(link);
    });
    box.append(hint);
  }
  if (problem.retry_after_seconds) {
    const retry = document.createElement("p");
    retry.textContent = `The hourly limit resets in ${ageText(problem.retry_after_seconds)}. ` +
      "An API key has a higher limit: open the access panel at the top of the page to create or paste one.";
    box.append(retry);
  }
  if (error instanceof ApiError && error.status === 401) {
    const forget = document.createElement("p");
    forget.textContent = "The key these pages send is not accepted: open the access panel at the top of the page " +
      "to forget it or paste another.";
    box.append(forget);
  }
  return box;
}

// The page's main element, emptied and marked ready; pages build into it.
export function mainElement() {
  const main = document.getElementById("main");
  main.replaceChildren();
  main.setAttribute("aria-busy", "false");
  return main;
}

export function markNavigation(page) {
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === page) link.setAttribute("aria-current", "page");
  }
}
