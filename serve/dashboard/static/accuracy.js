// Accuracy page: the backtest headline per tenor against the two baselines (/v1/accuracy), and
// the oracle's individual predictions against what was realised (/v1/backtest), a page at a time.
import { getJSON, mainElement, markNavigation, problemBox, showStatus } from "./api.js";
import { addLine, addMarkers, barChart, createPlot, extent, legend } from "./chart.js";
import { cell, el, number, numericCell, queryParams, section, share, table } from "./format.js";

const METHODS = [
  { key: "", label: "oracle",
    description: "the published forecast: the price unchanged, or moved by a draw of the change law, with its chance" },
  { key: "_flat", label: "flat", description: "the price stays at today's spot" },
  { key: "_single_exp", label: "single_exp",
    description: "the original oracle's estimator: an exponential decay fitted per model family" },
];
// The chart draws the oracle and flat; the tables add the original oracle's estimator.
const CHARTED = METHODS.slice(0, 2);
const TENORS = ["1M", "3M", "6M"];
const PAGE = 1000;
const SCOPES = [
  { key: "all", title: "Every model" },
  { key: "fixed_name", title: "Fixed-name models (no -latest, preview or unversioned name)" },
];
// A line forward (the price of whatever model a line offers at the horizon) against flat and
// against the fixed model's own forecast (methodology §9, "Line forwards, scored walk-forward").
const LINE_METHODS = [
  { key: "", label: "line", description: "the line forward: the current model's law and a successor that may come" },
  { key: "_fixed", label: "fixed", description: "the current model's own forecast: no successor ever comes" },
  { key: "_flat", label: "flat", description: "the price stays at today's spot" },
];
const MODEL_SCORES = { methods: METHODS, units: "tickers", changed: "changed",
  changedTitle: "Share of outcomes whose price changed", brier: "Brier oracle",
  brierTitle: "Brier score of the chance of change: lower is better",
  baseTitle: "Brier score of the base rate of change known at each anchor", gaps: [] };
const LINE_SCORES = { methods: LINE_METHODS, units: "lines", changed: "successor came",
  changedTitle: "Share of outcomes where the line offered a successor by the target date",
  brier: "Brier line", brierTitle: "Brier score of the chance a successor comes: lower is better",
  baseTitle: "Brier score of every line's pooled rate of successions known at each anchor",
  gaps: [{ key: "crps_fixed_gap_se", label: "gap s.e. fixed", numeric: true,
    title: "Bootstrap s.e. (over lines) of the CRPS gap to the fixed model's forecast" }] };

function scoreTable(rows, scope, scores = MODEL_SCORES) {
  const { methods, units } = scores;
  const columns = [{ key: "tenor", label: "Tenor" }, { key: "n", label: "n", numeric: true },
    { key: "changed_share", label: scores.changed, numeric: true, title: scores.changedTitle },
    ...methods.map((m) => ({ key: `crps${m.key}`, label: `CRPS ${m.label}`, numeric: true,
      title: "Continuous ranked probability score of the whole distribution, in units of the spot: lower is better" })),
    { key: "crps_gap_se", label: "gap s.e.", numeric: true, title: `Bootstrap s.e. (over ${units}) of the CRPS gap to flat` },
    ...scores.gaps,
    { key: "brier", label: scores.brier, numeric: true, title: scores.brierTitle },
    { key: "brier_base", label: "Brier base rate", numeric: true, title: scores.baseTitle },
    ...methods.map((m) => ({ key: `rel_rmse${m.key}`, label: `rel RMSE ${m.label}`, numeric: true })),
    { key: "rel_rmse_gap_se", label: "gap s.e.", numeric: true, title: `Bootstrap s.e. (over ${units}) of the RMSE gap to flat` },
    ...methods.map((m) => ({ key: `coverage${m.key}`, label: `90% band ${m.label}`, numeric: true,
      title: "Randomised-PIT share of outcomes inside the 90% band: 90% is calibrated" }))];
  const shown = (key) => (key.startsWith("coverage") || key === "changed_share" ? (v) => share(v, 1)
    : key === "n" ? String : (v) => number(v, 5));
  const body = rows.map((row) => el("tr", { "data-tenor": row.tenor, "data-scope": scope }, columns.map((column) => (
    column.key === "tenor" ? cell(row.tenor, row.tenor, { "data-col": "tenor" })
      : numericCell(row[column.key], shown(column.key), { "data-col": column.key })))));
  return table(columns, body, { name: `accuracy-${scope}` });
}

// Whether the oracle beat "the price stays flat" at a tenor, in words: by its CRPS (the score of
// the whole forecast, lower is better), against the gap's standard error. A gap within one
// standard error either way is no win and no loss.
export function plainVerdict(row) {
  const gap = row.crps_flat - row.crps;
  const se = row.crps_gap_se;
  if (!Number.isFinite(se)) {  // no standard error (one ticker): no win and no loss can be claimed
    return ["about_the_same", `At ${row.tenor}, not known: too few models were scored for a margin of error.`];
  }
  if (gap > se) {
    return ["better", `At ${row.tenor}, yes: the oracle's forecasts beat "the price stays flat", by more than ` +
      "the margin of error."];
  }
  if (gap >= -se) {
    return ["about_the_same", `At ${row.tenor}, no better and no worse: the oracle's forecasts and "the price ` +
      "stays flat\" score within the margin of error of each other."];
  }
  return ["worse", `At ${row.tenor}, no: "the price stays flat" scored better than the oracle's forecasts, by ` +
    "more than the margin of error."];
}

// Why cases were left out of the scores: the kinds of revision (`excluded_*`), in words.
const REVISION_KINDS = [
  ["excluded_hosts_changed", "a host median moving"], ["excluded_restated", "a restated listing"],
  ["excluded_switch", "a switch of source"], ["excluded_slip", "a move undone within 62 days"],
];

export function exclusions(row) {
  const parts = REVISION_KINDS.filter(([key]) => row[key] > 0).map(([key, words]) => `${row[key]} ${words}`);
  return `At ${row.tenor}, ${row.n} cases scored; ${row.revisions_excluded} left out as revisions` +
    (parts.length ? ` (${parts.join(", ")}).` : ".");
}

function accuracySection(accuracy) {
  const every = accuracy.tenors.filter((row) => row.scope === "all");
  const bars = barChart(every.flatMap((row) => CHARTED.map((method) => ({
    label: `${row.tenor} ${method.label}`, value: row[`crps${method.key}`], className: method.label,
    data: { tenor: row.tenor, method: method.label } }))), {
    name: "accuracy-bars", format: (v) => number(v, 5), label: "CRPS per tenor, oracle and flat (lower is better)" });
  return section("Backtest per tenor",
    el("ul", { class: "plain-verdicts" }, every.map((row) => {
      const [verdict, words] = plainVerdict(row);
      return el("li", { "data-tenor": row.tenor, "data-verdict": verdict }, words);
    })),
    el("p", { class: "verdict", "data-name": "headline" }, accuracy.headline),
    bars,
    legend(CHARTED.map((method) => ({ shape: "square", className: `bar-${method.label}`, label: method.label,
      description: method.description })), "methods"),
    ...SCOPES.flatMap((scope) => [el("h3", {}, scope.title),
      scoreTable(accuracy.tenors.filter((row) => row.scope === scope.key), scope.key)]),
    el("ul", { class: "verdicts" }, every.map((row) => el("li", { "data-tenor": row.tenor }, row.verdict))),
    el("ul", { class: "exclusions" }, every.map((row) => el("li", { "data-tenor": row.tenor }, exclusions(row)))),
    el("p", { class: "note" }, accuracy.note));
}

function linesSection(accuracy) {
  const rows = accuracy.tenors.filter((row) => row.scope === "line");
  if (!rows.length) return null;
  return section("Following the line",
    el("p", {}, "A team that moves to each new model of its line pays the line's price, not one model's. The line " +
      "forward forecasts it; here it is scored walk-forward like the forecasts above, with what was known at each " +
      "anchor, against flat and against the fixed model's own forecast, the standard errors by lines."),
    el("ul", { class: "methods", "data-name": "line-methods" }, LINE_METHODS.map((method) =>
      el("li", {}, el("strong", {}, method.label), `: ${method.description}`))),
    scoreTable(rows, "line", LINE_SCORES),
    el("ul", { class: "line-verdicts" }, rows.map((row) =>
      el("li", { "data-tenor": row.tenor }, row.verdict))));
}

function predictionsSection(backtest, tenor) {
  const predictions = backtest.predictions;
  const values = predictions.flatMap((p) => [p.forecast, p.realised]).filter((v) => v > 0);
  const [low, high] = values.length ? extent(values) : [0.01, 100];
  const plot = createPlot({
    name: "predictions", label: `Predicted against realised output price, ${tenor}`, height: 420,
    x: { type: "log", domain: [low * 0.8, high * 1.25], format: (v) => number(v, 2), label: "predicted $/M" },
    y: { type: "log", domain: [low * 0.8, high * 1.25], format: (v) => number(v, 2), label: "realised $/M" },
  });
  addLine(plot, [{ x: low * 0.8, y: low * 0.8 }, { x: high * 1.25, y: high * 1.25 }], { name: "diagonal",
    className: "diagonal" });
  addMarkers(plot, predictions.filter((p) => p.forecast > 0 && p.realised > 0).map((p) => ({
    x: p.forecast, y: p.realised, data: { ticker: p.ticker, anchor: p.anchor, forecast: p.forecast, realised: p.realised,
      covered: p.covered } })), { name: "predictions", size: 3, className: "prediction",
    label: (point) => `${point.data.ticker} from ${point.data.anchor}: predicted ${number(point.x)}, realised ${number(point.y)}` });
  const tabs = el("div", { class: "tabs" }, TENORS.map((value) => el("a", { href: `?tenor=${value}`,
    "aria-current": String(value === tenor), "data-tenor": value }, value)));
  const first = backtest.offset + 1;
  const last = backtest.offset + backtest.count;
  const pager = el("p", { class: "count", "data-total": backtest.total },
    `Predictions ${backtest.count ? `${first}–${last}` : "none"} of ${backtest.total}. `,
    backtest.offset > 0 ? el("a", { href: `?tenor=${tenor}&offset=${Math.max(0, backtest.offset - PAGE)}` }, "previous") : "",
    backtest.offset > 0 && backtest.next_offset !== null ? " · " : "",
    backtest.next_offset !== null ? el("a", { href: `?tenor=${tenor}&offset=${backtest.next_offset}` }, "next") : "");
  return section(`Predicted against realised (oracle, ${tenor})`, tabs, pager, plot.root,
    el("p", { class: "note" }, "Each dot is one forecast of a model's sync output price, made at its anchor date with " +
      "only the data known then; on the dashed line the forecast was exact. Both axes are logarithmic."));
}

async function render() {
  markNavigation("accuracy");
  showStatus();
  const query = queryParams();
  const tenor = TENORS.includes(query.tenor) ? query.tenor : "3M";
  const offset = Math.max(0, Number.parseInt(query.offset || "0", 10) || 0);
  const [accuracy, backtest] = await Promise.allSettled([
    getJSON("/v1/accuracy"),
    getJSON(`/v1/backtest?method=oracle&tenor=${tenor}&limit=${PAGE}&offset=${offset}`),
  ]);
  const main = mainElement();
  main.append(el("h1", {}, "Forecast accuracy"),
    ...(accuracy.status === "fulfilled"
      ? [accuracySection(accuracy.value.data), linesSection(accuracy.value.data)].filter(Boolean)
      : [problemBox(accuracy.reason, "The accuracy table failed")]),
    backtest.status === "fulfilled" ? predictionsSection(backtest.value.data, tenor)
      : problemBox(backtest.reason, "The predictions failed"));
}

render();
