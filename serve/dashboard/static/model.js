// Model page: the current prices first (every billed component, sync and batch, peak and off-peak,
// the last change and any announced one), the providers that host the model, the forward curve
// with its 90% band, the price history's change points with provenance, events and the Greek
// sheet (folded), from /v1/greeks/{t}, /v1/scheduled, /v1/providers, /v1/forwards/{t},
// /v1/history/{t} and /v1/events.
import { ALL_EVENTS_SINCE, getJSON, mainElement, markNavigation, modelPath, postJSON, problemBox, showStatus }
  from "./api.js";
import { addBand, addLine, addMarkers, createPlot, dateText, dateValue, extent, legend } from "./chart.js";
import { DASH, cell, cost, el, keyValues, modelPage, number, numericCell, percent, price, section, share, table,
  yesNo } from "./format.js";

// What each provenance marker means (README, "How the data is reconciled"), and how it is drawn.
export const PROVENANCE = [
  { key: "published", shape: "circle", label: "published", description: "a dated price the provider documented" },
  { key: "first_observed", shape: "ring", label: "first observed",
    description: "the first date a dataset shows this price; the true start may be earlier" },
  { key: "archived", shape: "square", label: "archived",
    description: "read from an archived public price list (OpenRouter, via the Wayback Machine) on that date" },
  { key: "current", shape: "diamond", label: "current", description: "today's catalogue price" },
  { key: "carried_forward", shape: "circle", label: "carried forward",
    description: "a day with no new observation: the last observed price, repeated" },
];
const OTHER = { shape: "triangle", description: "a marker this page does not know" };

function nameFromPath() {
  const raw = window.location.pathname.replace(/^\/dashboard\/models\//, "");
  return raw.split("/").map(decodeURIComponent).join("/");
}

function modeTabs(model, mode) {
  const link = (value, label, disabled) => (disabled
    ? el("span", { class: "note" }, `${label}: not sold in batch`)
    : el("a", { href: `?mode=${value}`, "aria-current": String(mode === value), "data-mode": value }, label));
  return el("div", { class: "tabs" }, link("sync", "Sync prices"), link("batch", "Batch prices", !model.ticker_batch));
}

function headerFacts(model) {
  return keyValues([
    ["Model id", model.model_id, model.model_id],
    ["Provider", model.provider, model.provider],
    ["Family", model.family, model.family],
    ["Tier", model.tier, model.tier],
    ["Reasoning", yesNo(model.is_reasoning), model.is_reasoning],
    ["Context window", model.context_window ? `${model.context_window.toLocaleString("en-US")} tokens` : DASH,
      model.context_window],
  ], "model");
}

// Every billed component the sheet names: token prices in $ per million tokens, fees in $ per 1,000.
const PRICE_ROWS = [
  ["input", "Input", "input", "tokens"], ["cache_read", "Cached input (cache read)", "cache_read", "tokens"],
  ["cache_write", "Cache write (5 min)", "cache_write", "tokens"], ["cache_write_1h", "Cache write (1 h)",
    "cache_write_1h", "tokens"], ["output", "Output", "beta", "tokens"], ["reasoning", "Thinking", "reasoning", "tokens"],
  ["citation", "Citation tokens", "citation", "tokens"], ["request_fee", "Per request", "request_fee", "fee"],
  ["web_search_fee", "Per web search", "web_search_fee", "fee"], ["file_search_fee", "Per file search",
    "file_search_fee", "fee"], ["grounding_fee", "Per grounded prompt", "grounding_fee", "fee"],
];
const PROVIDER_PROFILE = { n_in: 3000, n_out: 1000 }; // the board's 3:1 blend, as one request
const LINE_MONTHS = 6; // the line forward said beside the model's own 6M outlook
const PHONE_PAGE = 20; // the rows of a long list a phone shows at first, and at each "show more"
const HOSTS_PAGE = 10; // the hosts a phone shows at first: the cheapest ten

function priceText(value, unit) {
  if (value === null || value === undefined) return DASH;
  return unit === "fee" ? `${price(value)} /1k` : `${price(value)} /M`;
}

function pricesSection(model, events, scheduled, record, curve, line) {
  const rows = PRICE_ROWS.filter(([, , column]) => model[`${column}_sync`] != null || model[`${column}_batch`] != null)
    .map(([key, label, column, unit]) => el("tr", { "data-price": key }, [
      el("th", { scope: "row" }, label),
      cell(priceText(model[`${column}_sync`], unit), model[`${column}_sync`], { class: "num", "data-col": "sync" }),
      cell(priceText(model[`${column}_batch`], unit), model[`${column}_batch`], { class: "num", "data-col": "batch" }),
    ]));
  const prices = el("div", { class: "table-scroll" }, el("table", { class: "data", "data-table": "prices" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Price"), el("th", { scope: "col", class: "num" }, "Sync"),
      el("th", { scope: "col", class: "num" }, "Batch"))), el("tbody", {}, rows)));
  const last = (events?.events || []).find((event) => event.mode === "sync" &&
    (event.kind === "price_cut" || event.kind === "price_increase"));
  const peak = model.peak_sync ? JSON.parse(model.peak_sync) : null;
  const coming = scheduled?.scheduled_changes || [];
  return section("Prices now", prices,
    peak ? el("p", { class: "note", "data-peak": "" }, `Priced by the hour: peak ${peak.days} ` +
      `${peak.hours_utc.map(([from, to]) => `${from}–${to}`).join(", ")} UTC (output ${price(peak.peak.output)} /M), ` +
      `off-peak otherwise (output ${price(peak.off_peak.output)} /M).`) : null,
    keyValues([
      ["Status", statusInWords(record || model), model.status],
      ["Will it get cheaper?", outlookIn(curve, "6M"), "6M"],
      // Only for its line's current model: the API refuses to follow the line from any other.
      ...(line ? [[`Its line, ${line.line}`, line.outlook, line.expected_change]] : []),
      ["Last change", last ? `${last.effective_date}: ${last.field} ${percent(last.percent_change)} ` +
        `(${number(last.before)} → ${number(last.after)} $/M)` : "none recorded", last ? last.percent_change : null],
      ["Announced", coming.length ? coming.map((change) => `${change.effective_date}: ${change.field} ` +
        `${number(change.before)} → ${number(change.after)} (${change.mode})`).join("; ") : "no change announced",
      coming.length],
      ["Observed", `${model.observed_on_sync || DASH} (${model.provenance_sync || DASH}, ${model.source_sync || DASH})`,
        model.observed_on_sync],
    ], "now"));
}

// A host whose listing states no price (zero, or none, for the request the list is priced on):
// a request there does not cost nothing, its price is unknown. Such hosts are marked and listed
// after every priced one, so the cheapest host is never one without a price.
export function statesNoPrice(host) {
  return !(typeof host.spot_cost === "number" && host.spot_cost > 0);
}

export function hostsInOrder(providers) {
  return [...providers.filter((host) => !statesNoPrice(host)), ...providers.filter(statesNoPrice)];
}

const NO_PRICE = "no price stated";

function providersSection(answer) {
  const rows = hostsInOrder(answer.providers).map((host) => {
    const unpriced = statesNoPrice(host);
    const shown = (formatter) => (value) => (unpriced ? DASH : formatter(value));
    return el("tr", { "data-provider": host.provider, "data-unpriced": unpriced }, [
      el("td", { "data-col": "provider", "data-value": host.provider },
        host.provider + (host.is_origin ? " (maker)" : ""),
        unpriced ? el("span", { class: "badge", "data-badge": "unpriced",
          title: "The listing gives this model a price of zero or none: its cost is unknown" }, NO_PRICE) : null),
      cell(host.provider_model_id, host.provider_model_id),
      numericCell(host.input, number, { "data-col": "input" }), numericCell(host.output, number, { "data-col": "output" }),
      numericCell(host.spot_cost, shown(cost), { "data-col": "spot_cost" }),
      numericCell(host.spread_to_origin, shown((value) => share(value, 1)), { "data-col": "spread_to_origin" }),
    ]);
  });
  const unpriced = answer.providers.filter(statesNoPrice).length;
  return section("Providers", el("p", { class: "note" }, `Every host of the model, cheapest first for one request of ` +
    `${PROVIDER_PROFILE.n_in.toLocaleString("en-US")} input and ${PROVIDER_PROFILE.n_out.toLocaleString("en-US")} ` +
    "output tokens; the spread is to the maker's own price." + (unpriced ? ` ${unpriced === 1 ? "A host whose " +
      "listing states" : `${unpriced} hosts whose listings state`} no price (zero or none) ${unpriced === 1 ? "is" : "are"} ` +
      `marked "${NO_PRICE}" and listed last.` : "")),
  rows.length ? table([{ key: "provider", label: "Provider" },
    { key: "provider_model_id", label: "Its model id", card: "wide" },
    { key: "input", label: "Input $/M", numeric: true, card: "lead" },
    { key: "output", label: "Output $/M", numeric: true, card: "lead" },
    { key: "spot_cost", label: "Cost", numeric: true, card: "lead" },
    { key: "spread_to_origin", label: "vs maker", numeric: true, card: "lead" }],
  rows, { name: "providers", page: HOSTS_PAGE }) : el("p", { class: "note" }, "No host is listed."));
}

const MIN_SWING = 0.1;
const DAY_MS = 86_400_000;

function fromSpot(value, spot) {
  if (!spot) return DASH;
  const change = (value / spot - 1) * 100;
  return Math.abs(change) < 0.05 ? "spot" : percent(change, 0);
}

function timeDomain(first, last) {
  return first === last ? [first - 30 * DAY_MS, last + 30 * DAY_MS] : [first, last];
}

function forwardSection(curve) {
  const points = curve.forwards;
  const plot = createPlot({
    name: "forward-curve", label: `Forward curve of ${curve.ticker}`, height: 300, marginLeft: 100,
    x: { domain: [0, Math.max(...points.map((point) => point.months))], format: (m) => `${m}M`, label: "months ahead" },
    // At least 10% either side of the spot, so that a small drift looks small; each tick says how
    // far it is from the spot.
    y: { domain: extent([curve.spot * (1 - MIN_SWING), curve.spot * (1 + MIN_SWING),
      ...points.flatMap((p) => [p.beta_forward, p.beta_median, p.p05, p.p95])], { pad: 0.05 }),
    format: (value) => `${number(value, 3)} (${fromSpot(value, curve.spot)})`, label: "$ per M output tokens" },
  });
  // The band starts at the spot: today's price is known, so its band has no width.
  addBand(plot, [{ x: 0, low: curve.spot, high: curve.spot },
    ...points.map((point) => ({ x: point.months, low: point.p05, high: point.p95 }))], { name: "p05-p95" });
  addLine(plot, [{ x: 0, y: curve.spot }, ...points.map((point) => ({ x: point.months, y: point.beta_median }))],
    { name: "median", className: "median" });
  addLine(plot, [{ x: 0, y: curve.spot }, ...points.map((point) => ({ x: point.months, y: point.beta_forward }))],
    { name: "forward" });
  addMarkers(plot, [{ x: 0, y: curve.spot, data: { tenor: "spot", value: curve.spot } }],
    { name: "spot", className: "spot", label: () => `spot: ${number(curve.spot)} $/M` });
  addMarkers(plot, points.map((point) => ({ x: point.months, y: point.beta_forward, data: {
    tenor: point.tenor, value: point.beta_forward, p05: point.p05, p95: point.p95, p_change: point.p_change } })),
  { name: "forwards", className: "forward",
    label: (point) => `${point.data.tenor}: mean ${number(point.y)} $/M, chance of a change ` +
      `${share(point.data.p_change, 1)} (90%: ${number(point.data.p05)}–${number(point.data.p95)})` });
  const rows = points.map((point) => [
    cell(point.tenor, point.tenor), cell(point.ticker_forward, point.ticker_forward),
    numericCell(point.beta_forward), numericCell(point.beta_median), numericCell(point.p05), numericCell(point.p95),
    numericCell(point.p_change, (v) => share(v, 1)), numericCell(point.scheduled)]);
  const law = points[0];
  return section(`Forward curve (${curve.mode})`, plot.root,
    legend([{ shape: "line", className: "", label: "forward (mean)", description: "expected output price at each tenor" },
      { shape: "line", className: "median", label: "median", description: "the price as likely to be above as below" },
      { shape: "band", className: "", label: "90% band", description: "5th to 95th percentile of the forecast" }],
    "forward"),
    el("p", { class: "note" }, "The price stays where it is (at an announced price from its date) unless it " +
      "changes; the chance of a change by each tenor is in the table. A change, if it comes, multiplies the price " +
      `by ${number(law?.change_p50, 3)} at the median (90% between ${number(law?.change_p05, 3)} and ` +
      `${number(law?.change_p95, 3)}; mean ${number(law?.change_mean, 3)}). The mean counts that chance, so it ` +
      "can differ from the median, which stays at the price while a change is less likely than not."),
    table([{ key: "tenor", label: "Tenor" }, { key: "ticker_forward", label: "Forward ticker", card: "wide" },
      { key: "beta_forward", label: "Mean $/M", numeric: true, card: "lead" },
      { key: "beta_median", label: "Median $/M", numeric: true, card: "lead" },
      { key: "p05", label: "p05", numeric: true }, { key: "p95", label: "p95", numeric: true },
      { key: "p_change", label: "Chance of a change", numeric: true },
      { key: "scheduled", label: "Scheduled $/M", numeric: true }], rows, { name: "forwards" }));
}

function historySection(history) {
  const prices = history.prices;
  if (!prices.length) return section("Price history", el("p", { class: "note" }, "No price history is published."));
  const x = prices.map((point) => dateValue(point.timestamp));
  const plot = createPlot({
    name: "history", label: `Price history of ${history.ticker}`, height: 300,
    // To the snapshot's date, where the last price still holds; a month either side of a lone point.
    x: { type: "time", domain: timeDomain(Math.min(...x), Math.max(dateValue(history.to), ...x)),
      format: (t) => dateText(t).slice(0, 7) },
    y: { domain: extent(prices.map((point) => point.beta), { pad: 0.08, zero: true }),
      format: (value) => number(value, 3), label: "$ per M output tokens" },
  });
  addLine(plot, [...prices.map((point, i) => ({ x: x[i], y: point.beta })),
    { x: Math.max(dateValue(history.to), ...x), y: prices[prices.length - 1].beta }], { name: "beta", step: true });
  const known = new Set(PROVENANCE.map((entry) => entry.key));
  const counts = {};
  for (const point of prices) counts[point.provenance] = (counts[point.provenance] || 0) + 1;
  // Carried-forward days first, so the observations are drawn on top of them.
  const order = ["carried_forward", ...PROVENANCE.map((e) => e.key).filter((k) => k !== "carried_forward"),
    ...Object.keys(counts).filter((key) => !known.has(key))];
  for (const key of order) {
    const entry = PROVENANCE.find((candidate) => candidate.key === key) || { key, ...OTHER };
    const points = [];
    prices.forEach((point, i) => {
      if (point.provenance === key) {
        points.push({ x: x[i], y: point.beta, data: { date: point.timestamp, value: point.beta, provenance: key,
          source: point.source } });
      }
    });
    if (!points.length) continue;
    addMarkers(plot, points, { name: key, shape: entry.shape, size: key === "carried_forward" ? 1.6 : 4.5,
      className: known.has(key) ? key : "other",
      label: (point) => `${point.data.date}: ${number(point.y)} $/M, ${key} (${point.data.source})` });
  }
  const entries = [...PROVENANCE, ...Object.keys(counts).filter((key) => !known.has(key))
    .map((key) => ({ key, label: key, ...OTHER }))].map((entry) => ({
    ...entry, className: known.has(entry.key) ? entry.key : "other",
    label: `${entry.label} (${counts[entry.key] || 0} ${counts[entry.key] === 1 ? "point" : "points"})` }));
  const observed = prices.filter((point) => point.provenance !== "carried_forward");
  const rows = observed.map((point) => [
    cell(point.timestamp, point.timestamp), numericCell(point.beta), numericCell(point.input),
    numericCell(point.cache_read), cell(point.provenance, point.provenance),
    el("td", { "data-col": "source" },
      point.source_url ? el("a", { href: point.source_url, rel: "noopener" }, point.source) : point.source),
    cell(point.observed_on, point.observed_on)]);
  return section(`Price history (${history.price_type})`, plot.root, legend(entries, "provenance"),
    el("p", { class: "note" }, `${history.count} change points from ${history.from} to ${history.to}: the first ` +
      "price and each day it changed, with where each price comes from; between them the price held."),
    table([{ key: "timestamp", label: "Date" }, { key: "beta", label: "Output $/M", numeric: true, card: "lead" },
      { key: "input", label: "Input $/M", numeric: true, card: "lead" },
      { key: "cache_read", label: "Cache read $/M", numeric: true },
      { key: "provenance", label: "Provenance" }, { key: "source", label: "Source", card: "wide" },
      { key: "observed_on", label: "Observed on" }], rows, { name: "observations", tall: true, page: PHONE_PAGE }));
}

// The line forward of a price that followed the line, with the expected change it says in words.
function lineOf(priced) {
  const line = priced?.line_forward;
  return line ? { line: line.line, outlook: line.outlook, expected_change: line.cost / priced.spot_cost - 1 } : null;
}

// The forward at a tenor in words, as the curve publishes it ("no change announced; 1% chance ...").
function outlookIn(curve, tenor) {
  const point = (curve?.forwards || []).find((p) => p.tenor === tenor);
  return point ? `${point.outlook} (${curve.mode})` : "no forecast published";
}

// A status with its dates: "retired (deprecated 2023-07-06, retired 2024-01-04)".
export function statusInWords(model) {
  const dates = [["deprecated", model.deprecated_on], ["retired", model.retired_on]]
    .filter(([, day]) => day).map(([word, day]) => `${word} ${day}`);
  return model.status + (dates.length ? ` (${dates.join(", ")})` : "");
}

function eventsSection(events) {
  const rows = events.events.map((event) => [
    cell(event.effective_date, event.effective_date), cell(event.kind, event.kind), cell(event.mode, event.mode),
    cell(event.field, event.field), numericCell(event.before), numericCell(event.after),
    numericCell(event.percent_change, percent, { class: `num ${event.percent_change < 0 ? "down" : event.percent_change > 0 ? "up" : ""}` }),
    cell(event.provenance, event.provenance), cell(event.source, event.source)]);
  const span = events.since === ALL_EVENTS_SINCE ? "in its whole history" : `since ${events.since}`;
  return section("Events", el("p", { class: "note" }, `${events.count} price events ${span}, newest first.`),
    table([{ key: "effective_date", label: "Date" }, { key: "kind", label: "Kind" }, { key: "mode", label: "Mode" },
      { key: "field", label: "Field" }, { key: "before", label: "Before", numeric: true, card: "lead" },
      { key: "after", label: "After", numeric: true, card: "lead" },
      { key: "percent_change", label: "Change", numeric: true, card: "lead" },
      { key: "provenance", label: "Provenance" }, { key: "source", label: "Source", card: "wide" }], rows,
    { name: "events", tall: true, page: PHONE_PAGE }));
}

// The Greek sheet's fields in plain words (methodology §4), folded below the prices.
const GREEKS = [
  ["theta", "Expected fall per month, over a year (θ; negative: a rise)"],
  ["jump_rate", "Chance of a change in the coming month (hazard)"],
  ["jump_mean", "Typical size of a change (mean of its log)"],
  ["jump_std", "Spread of the size of a change (std of its log)"],
  ["n_jumps", "Changes seen in its history"], ["exposure_months", "Months since its first price"],
  ["pool", "Change law it follows"], ["prior_weight", "Weight of the pooled chance of a rise"],
  ["sigma", "Drift between changes (always 0: a price moves only by a change)"],
  ["r_in", "Input price over output price"], ["r_cache", "Cached-input price over output price"],
  ["r_think", "Thinking price over output price"], ["r_batch", "Batch output over sync output"],
  ["theta_batch", "Expected fall per month, batch"], ["jump_rate_batch", "Chance of a change next month, batch"],
  ["jump_mean_batch", "Typical size of a change, batch"], ["prior_weight_batch", "Weight of the pooled rise, batch"],
  ["beta_sync", "Output price, sync ($/M)"], ["beta_batch", "Output price, batch ($/M)"],
  ["context_window", "Context window (tokens)"], ["family", "Family"], ["tier", "Tier"],
  ["is_reasoning", "Reasoning model"],
];

function greekSection(model) {
  const shown = (value) => (typeof value === "number" ? number(value, 4) : typeof value === "boolean" ? yesNo(value)
    : value ?? DASH);
  const facts = el("dl", { class: "facts", "data-facts": "greeks" }, GREEKS.flatMap(([key, label]) => [
    el("dt", { title: key }, label), el("dd", { "data-key": key, "data-value": String(model[key] ?? "") },
      shown(model[key]))]));
  return el("details", { class: "card fold", "data-fold": "greeks" },
    el("summary", {}, el("h2", {}, "Forecast sheet (Greeks)")), facts,
    el("p", { class: "note" }, "What the forecast behind the forward curve assumes of this model: how likely a " +
      "change is and how large, fitted on the price history of it and its family (methodology §4)."));
}

function settled(result, what, build) {
  return result.status === "fulfilled" ? build(result.value.data) : section(what, problemBox(result.reason, `${what} failed`));
}

// The panels beside the prices, for the model's ticker in one mode: settled together.
function panels(ticker, mode) {
  const path = encodeURIComponent(ticker);
  return Promise.allSettled([
    getJSON(`/v1/forwards/${path}?mode=${mode}`),
    getJSON(`/v1/history/${path}?mode=${mode}&points=changes`),
    getJSON(`/v1/events?ticker=${path}&since=${ALL_EVENTS_SINCE}&limit=1000`),
    getJSON(`/v1/scheduled?ticker=${path}`),
    postJSON("/v1/providers", { model: ticker, mode, ...PROVIDER_PROFILE }),
    getJSON(`/v1/models/${path}`),  // the record: the status's dates
    // Following the model's line for six months (`line_forward`): a 400 unless it is the line's current model.
    postJSON("/v1/price", { model: ticker, mode, ...PROVIDER_PROFILE, horizon_months: LINE_MONTHS, follow: "line" }),
  ]);
}

const TICKER_LIKE = /^[A-Z0-9][A-Z0-9._-]*$/;

async function render() {
  markNavigation("model");
  const name = nameFromPath();
  const params = new URLSearchParams(window.location.search);
  const asked = params.get("mode") === "batch" ? "batch" : "sync";
  const sheet = getJSON(`/v1/greeks/${modelPath(name)}`);
  // The address usually names a ticker (every link here does): ask for the panels at once rather
  // than a round trip later, and again only if the model turns out to be known by another name.
  // With the sheet they fill a browser's six connections to a host (the line's price, asked last,
  // waits for one), so the status comes after.
  const early = TICKER_LIKE.test(name) ? panels(name, asked) : null;
  showStatus();
  let model;
  try {
    model = (await sheet).data;
  } catch (error) {
    mainElement().append(el("h1", {}, `Model "${name}"`), problemBox(error, "This model could not be shown"));
    return;
  }
  const mode = asked === "batch" && model.ticker_batch ? "batch" : "sync";
  // Any alias leads here; the address then names the model by its ticker.
  if (name !== model.ticker) {
    window.history.replaceState(null, "", `${modelPage(model.ticker)}${window.location.search}`);
  }
  document.title = `${model.ticker} · Inference Pricing Oracle`;
  const [curve, history, events, scheduled, hosts, record, followed] =
    await (early && name === model.ticker && mode === asked ? early : panels(model.ticker, mode));
  const value = (result) => (result.status === "fulfilled" ? result.value.data : null);
  const main = mainElement();
  main.append(
    el("h1", { "data-ticker": model.ticker }, `${model.display_name} `, el("span", { class: "mono" }, model.ticker)),
    modeTabs(model, mode),
    el("div", { class: "grid-2" },
      pricesSection(model, value(events), value(scheduled), value(record), value(curve), lineOf(value(followed))),
      settled(hosts, "Providers", providersSection)),
    el("div", { class: "grid-2" },
      settled(curve, "Forward curve", forwardSection),
      settled(history, "Price history", historySection)),
    el("div", { class: "grid-2" },
      section("Model", headerFacts(model)),
      greekSection(model)),
    settled(events, "Events", eventsSection));
}

render();
