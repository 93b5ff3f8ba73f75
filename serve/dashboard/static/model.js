// Model page: forward curve with its 90% band, price history with provenance, events and the
// Greek sheet, from /v1/greeks/{t}, /v1/forwards/{t}, /v1/history/{t} and /v1/events.
import { ALL_EVENTS_SINCE, getJSON, mainElement, markNavigation, modelPath, problemBox, showStatus } from "./api.js";
import { addBand, addLine, addMarkers, createPlot, dateText, dateValue, extent, legend } from "./chart.js";
import { DASH, cell, el, keyValues, modelPage, number, numericCell, percent, price, section, share, table, yesNo }
  from "./format.js";

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
    ["Sync output (β)", `${price(model.beta_sync)} /M`, model.beta_sync],
    ["Sync input", `${price(model.input_sync)} /M`, model.input_sync],
    ["Batch output", model.beta_batch === null ? DASH : `${price(model.beta_batch)} /M`, model.beta_batch],
    ["Spot observed", `${model.observed_on_sync || DASH} (${model.provenance_sync || DASH}, ${model.source_sync || DASH})`,
      model.observed_on_sync],
  ], "model");
}

function forwardSection(curve) {
  const points = curve.forwards;
  const plot = createPlot({
    name: "forward-curve", label: `Forward curve of ${curve.ticker}`, height: 300,
    x: { domain: [0, Math.max(...points.map((point) => point.months))], format: (m) => `${m}M`, label: "months ahead" },
    y: { domain: extent([curve.spot, ...points.flatMap((p) => [p.beta_forward, p.beta_median, p.p05, p.p95])],
      { pad: 0.08 }), format: (value) => number(value, 3), label: "$ per M output tokens" },
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
    table([{ key: "tenor", label: "Tenor" }, { key: "ticker_forward", label: "Forward ticker" },
      { key: "beta_forward", label: "Mean $/M", numeric: true }, { key: "beta_median", label: "Median $/M", numeric: true },
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
    x: { type: "time", domain: [Math.min(...x), Math.max(...x)], format: (t) => dateText(t).slice(0, 7) },
    y: { domain: extent(prices.map((point) => point.beta), { pad: 0.08, zero: true }),
      format: (value) => number(value, 3), label: "$ per M output tokens" },
  });
  addLine(plot, prices.map((point, i) => ({ x: x[i], y: point.beta })), { name: "beta", step: true });
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
    label: `${entry.label} (${counts[entry.key] || 0} ${counts[entry.key] === 1 ? "day" : "days"})` }));
  const observed = prices.filter((point) => point.provenance !== "carried_forward");
  const rows = observed.map((point) => [
    cell(point.timestamp, point.timestamp), numericCell(point.beta), numericCell(point.input),
    numericCell(point.cache_read), cell(point.provenance, point.provenance),
    el("td", {}, point.source_url ? el("a", { href: point.source_url, rel: "noopener" }, point.source) : point.source),
    cell(point.observed_on, point.observed_on)]);
  return section(`Price history (${history.price_type})`, plot.root, legend(entries, "provenance"),
    el("p", { class: "note" }, `${history.count} daily points from ${history.from} to ${history.to}; ` +
      `${observed.length} are observations, the rest carry the last one forward.`),
    table([{ key: "timestamp", label: "Date" }, { key: "beta", label: "Output $/M", numeric: true },
      { key: "input", label: "Input $/M", numeric: true }, { key: "cache_read", label: "Cache read $/M", numeric: true },
      { key: "provenance", label: "Provenance" }, { key: "source", label: "Source" },
      { key: "observed_on", label: "Observed on" }], rows, { name: "observations", tall: true }));
}

function eventsSection(events) {
  const rows = events.events.map((event) => [
    cell(event.effective_date, event.effective_date), cell(event.kind, event.kind), cell(event.mode, event.mode),
    cell(event.field, event.field), numericCell(event.before), numericCell(event.after),
    numericCell(event.percent_change, percent, { class: `num ${event.percent_change < 0 ? "down" : event.percent_change > 0 ? "up" : ""}` }),
    cell(event.provenance, event.provenance), cell(event.source, event.source)]);
  return section("Events", el("p", { class: "note" }, `${events.count} price events since ${events.since}, newest first.`),
    table([{ key: "effective_date", label: "Date" }, { key: "kind", label: "Kind" }, { key: "mode", label: "Mode" },
      { key: "field", label: "Field" }, { key: "before", label: "Before", numeric: true },
      { key: "after", label: "After", numeric: true }, { key: "percent_change", label: "Change", numeric: true },
      { key: "provenance", label: "Provenance" }, { key: "source", label: "Source" }], rows, { name: "events", tall: true }));
}

const GREEKS = ["beta_sync", "beta_batch", "r_in", "r_cache", "r_think", "r_batch", "context_window", "theta", "sigma",
  "jump_rate", "jump_mean", "jump_std", "prior_weight", "pool", "exposure_months", "n_jumps", "theta_batch",
  "sigma_batch", "jump_rate_batch", "jump_mean_batch", "prior_weight_batch", "family", "tier", "is_reasoning"];

function greekSection(model) {
  const shown = (value) => (typeof value === "number" ? number(value, 4) : typeof value === "boolean" ? yesNo(value)
    : value ?? DASH);
  return section("Greek sheet", keyValues(GREEKS.map((key) => [key, shown(model[key]), model[key]]), "greeks"),
    el("p", { class: "note" }, "theta: the average decay per month the forecast implies over a year (positive: " +
      "expected to fall). sigma: 0, the forecast has no drift between changes. jump_rate: the hazard of a change in " +
      "the coming month. jump_mean, jump_std: the mean and spread of the log size of a change. pool: the change " +
      "law (whether the model's family has risen in price before); prior_weight: how much of its chance of a rise " +
      "is the pooled one."));
}

function settled(result, what, build) {
  return result.status === "fulfilled" ? build(result.value.data) : section(what, problemBox(result.reason, `${what} failed`));
}

async function render() {
  markNavigation("model");
  showStatus();
  const name = nameFromPath();
  let model;
  try {
    model = (await getJSON(`/v1/greeks/${modelPath(name)}`)).data;
  } catch (error) {
    mainElement().append(el("h1", {}, `Model "${name}"`), problemBox(error, "This model could not be shown"));
    return;
  }
  const params = new URLSearchParams(window.location.search);
  const mode = params.get("mode") === "batch" && model.ticker_batch ? "batch" : "sync";
  // Any alias leads here; the address then names the model by its ticker.
  if (name !== model.ticker) {
    window.history.replaceState(null, "", `${modelPage(model.ticker)}${window.location.search}`);
  }
  document.title = `${model.ticker} · Inference Pricing Oracle`;
  const ticker = encodeURIComponent(model.ticker);
  const [curve, history, events] = await Promise.allSettled([
    getJSON(`/v1/forwards/${ticker}?mode=${mode}`),
    getJSON(`/v1/history/${ticker}?mode=${mode}`),
    getJSON(`/v1/events?ticker=${ticker}&since=${ALL_EVENTS_SINCE}&limit=1000`),
  ]);
  const main = mainElement();
  main.append(
    el("h1", { "data-ticker": model.ticker }, `${model.display_name} `, el("span", { class: "mono" }, model.ticker)),
    modeTabs(model, mode),
    el("div", { class: "grid-2" },
      settled(curve, "Forward curve", forwardSection),
      settled(history, "Price history", historySection)),
    el("div", { class: "grid-2" },
      section("Model", headerFacts(model)),
      greekSection(model)),
    settled(events, "Events", eventsSection));
}

render();
