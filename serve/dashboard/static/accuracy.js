// Accuracy page: the backtest headline per tenor against the two baselines (/v1/accuracy), and
// the oracle's individual predictions against what was realised (/v1/backtest), a page at a time.
import { getJSON, mainElement, markNavigation, problemBox, showStatus } from "./api.js";
import { addLine, addMarkers, barChart, createPlot, extent, legend } from "./chart.js";
import { cell, el, number, numericCell, queryParams, section, share, table } from "./format.js";

const METHODS = [
  { key: "", label: "oracle", description: "the fitted process's forward" },
  { key: "_flat", label: "flat", description: "the price stays at today's spot" },
  { key: "_single_exp", label: "single_exp",
    description: "the original oracle's estimator: an exponential decay fitted per model family" },
];
const TENORS = ["1M", "3M", "6M"];
const PAGE = 1000;

function accuracySection(accuracy) {
  const columns = [{ key: "tenor", label: "Tenor" }, { key: "n", label: "n", numeric: true },
    ...METHODS.map((m) => ({ key: `rel_rmse${m.key}`, label: `rel RMSE ${m.label}`, numeric: true })),
    { key: "rel_rmse_gap_se", label: "gap s.e.", numeric: true, title: "Bootstrap s.e. of the RMSE gap to flat" },
    ...METHODS.map((m) => ({ key: `mape${m.key}`, label: `MAPE ${m.label} %`, numeric: true })),
    ...METHODS.map((m) => ({ key: `bias${m.key}`, label: `bias ${m.label} %`, numeric: true })),
    { key: "coverage", label: "coverage oracle", numeric: true },
    { key: "coverage_single_exp", label: "coverage single_exp", numeric: true },
    { key: "no_change_share", label: "unchanged", numeric: true, title: "Share of outcomes equal to the spot" }];
  const shown = (key) => (key.startsWith("coverage") || key === "no_change_share" ? (v) => share(v, 1)
    : key === "n" ? String : (v) => number(v, 4));
  const rows = accuracy.tenors.map((row) => el("tr", { "data-tenor": row.tenor }, columns.map((column) => (
    column.key === "tenor" ? cell(row.tenor, row.tenor, { "data-col": "tenor" })
      : numericCell(row[column.key], shown(column.key), { "data-col": column.key })))));
  const bars = barChart(accuracy.tenors.flatMap((row) => METHODS.map((method) => ({
    label: `${row.tenor} ${method.label}`, value: row[`rel_rmse${method.key}`], className: method.label,
    data: { tenor: row.tenor, method: method.label } }))), {
    name: "accuracy-bars", format: (v) => number(v, 4), label: "Relative RMSE per tenor and method" });
  return section("Backtest per tenor", el("p", { class: "note" }, accuracy.note), bars,
    legend(METHODS.map((method) => ({ shape: "square", className: `bar-${method.label}`, label: method.label,
      description: method.description })), "methods"),
    table(columns, rows, { name: "accuracy" }));
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
    accuracy.status === "fulfilled" ? accuracySection(accuracy.value.data)
      : problemBox(accuracy.reason, "The accuracy table failed"),
    backtest.status === "fulfilled" ? predictionsSection(backtest.value.data, tenor)
      : problemBox(backtest.reason, "The predictions failed"));
}

render();
