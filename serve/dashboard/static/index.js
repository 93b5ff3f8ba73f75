// Index page: the three variants of the Inference Cost Index from /v1/ici, their daily levels on
// one chart, and each variant's constituents, weights and verification hash. Each variant is
// labelled with the basket it covers: batch prices only the constituents with a batch price, so
// its level is another basket's, never "batch against sync".
import { getJSON, mainElement, markNavigation, problemBox, showStatus } from "./api.js";
import { addLine, createPlot, dateText, dateValue, extent, legend } from "./chart.js";
import { DASH, cell, dayBefore, el, keyValues, modelPage, number, numericCell, percent, section, share, table }
  from "./format.js";

const VARIANTS = [
  { type: "unified", label: "unified (whole basket, 25% batch where offered)",
    description: "the whole basket, each constituent at a fixed share of batch volume where batch exists" },
  { type: "sync", label: "sync (whole basket)", description: "the whole basket at sync prices" },
  { type: "batch", label: "batch (only constituents offering batch)",
    description: "another basket: only the constituents that offer batch, at batch prices; its level is not " +
      "comparable with sync's" },
];

const variantLabel = (type) => VARIANTS.find((variant) => variant.type === type).label;

function historyChart(levels) {
  const all = levels.flatMap((level) => level.history);
  const x = all.map((point) => dateValue(point.date));
  const plot = createPlot({
    name: "ici-history", label: "Daily level of the three index variants", width: 1000, height: 380,
    x: { type: "time", domain: [Math.min(...x), Math.max(...x)], format: (t) => dateText(t).slice(0, 7) },
    y: { domain: extent(all.map((point) => point.value), { pad: 0.06, zero: true }), format: (v) => number(v, 3),
      label: "$ per M blended tokens" },
  });
  for (const level of levels) {
    // The whole series rides on the path, so the picture can be checked against the answer.
    addLine(plot, level.history.map((point) => ({ x: dateValue(point.date), y: point.value })), {
      name: level.type, className: level.type, step: true,
      data: { count: level.history.length, first: level.history[0]?.date,
        values: level.history.map((point) => (point.value === null ? "null" : point.value)).join(",") },
    });
  }
  return section("Daily level", plot.root,
    legend(levels.map((level) => ({ shape: "line", className: level.type, label: variantLabel(level.type),
      description: VARIANTS.find((variant) => variant.type === level.type).description })), "ici"),
    el("p", { class: "note" }, "Level in dollars per million blended tokens, blend = (3·input + output)/4, " +
      "chain-linked: a change of basket never moves it. Each variant covers its own basket and starts on its own " +
      "first day, so compare their changes, not their levels. A gap is a day on which the variant had no level."));
}

// The level's change over a span: from the last level on or before `since` to today's, in percent
// (the one figure this page computes from the API's levels).
function changeSince(level, since) {
  const before = level.history.filter((point) => point.date <= since && point.value !== null).at(-1);
  return before && before.value ? (level.value / before.value - 1) * 100 : null;
}

function headline(level) {
  const month = changeSince(level, dayBefore(level.as_of, { months: 1 }));
  const year = changeSince(level, `${Number(level.as_of.slice(0, 4)) - 1}-12-31`);
  const change = (value, name) => el("span", { class: value < 0 ? "down" : value > 0 ? "up" : "", "data-change": name,
    "data-value": value ?? "" }, `${name} ${value === null ? DASH : percent(value)}`);
  return el("p", { class: "headline", "data-headline": level.type },
    el("a", { href: `#${level.type}` }, variantLabel(level.type)), el("strong", {}, ` ${number(level.value, 4)}`),
    " $ per M blended tokens · ", change(month, "1M"), " · ", change(year, "YTD"));
}

function variantSection(level) {
  const rows = level.constituents.map((item) => el("tr", { "data-ticker": item.ticker }, [
    el("td", {}, el("a", { href: modelPage(item.ticker) }, item.ticker)),
    numericCell(item.weight, (v) => share(v, 1), { "data-col": "weight" }),
    numericCell(item.price, number, { "data-col": "price" }),
    numericCell(item.contribution, (v) => number(v, 4), { "data-col": "contribution" })]));
  return el("section", { class: "card", "data-variant": level.type, id: level.type },
    el("h2", {}, `${variantLabel(level.type)}: ${number(level.value, 6)}`),
    el("p", { class: "note", "data-covers": level.type }, `Covers ${level.covers}.`),
    keyValues([
      ["Value", number(level.value, 6), level.value],
      ["As of", level.as_of, level.as_of],
      ["Rebalanced", level.rebalance_date, level.rebalance_date],
      ["Methodology", level.methodology_version, level.methodology_version],
      ["Verification hash", el("code", { class: "hash" }, level.verification_hash), level.verification_hash],
      ["Link factor", number(level.link_factor, 6), level.link_factor],
    ], `ici-${level.type}`),
    table([{ key: "ticker", label: "Constituent" }, { key: "weight", label: "Weight", numeric: true },
      { key: "price", label: "Price $/M", numeric: true }, { key: "contribution", label: "Contribution", numeric: true }],
    rows, { name: `constituents-${level.type}` }));
}

async function render() {
  markNavigation("index");
  showStatus();
  const answers = await Promise.allSettled(VARIANTS.map((variant) => getJSON(`/v1/ici?type=${variant.type}`)));
  const main = mainElement();
  main.append(el("h1", {}, "Inference Cost Index"));
  const levels = answers.filter((answer) => answer.status === "fulfilled").map((answer) => answer.value.data);
  answers.forEach((answer, position) => {
    if (answer.status === "rejected") main.append(problemBox(answer.reason, `The ${VARIANTS[position].type} index failed`));
  });
  if (!levels.length) return;
  main.append(section("Today", ...levels.map(headline)), historyChart(levels),
    el("div", { class: "grid-3" }, levels.map(variantSection)),
    el("p", { class: "note" }, "The verification hash is computed over the sorted constituents, the link factor and " +
      "the methodology version (docs/methodology.md), so anyone can recompute it from the figures above; each " +
      "contribution is link factor × weight × price."));
}

render();
