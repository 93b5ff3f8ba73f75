// Cost calculator: a task profile, ranked over every model by POST /v1/compare; the address
// holds the profile, and the page shows the curl command that makes the same call.
import { mainElement, markNavigation, postJSON, problemBox, showStatus } from "./api.js";
import { barChart } from "./chart.js";
import { DASH, cell, cost, el, keyValues, modelPage, number, numericCell, queryParams, replaceQuery, section, table,
  yesNo } from "./format.js";

const FIELDS = [
  { name: "n_in", label: "Input tokens (n_in)", step: "1", min: "0", fallback: "30000" },
  { name: "n_out", label: "Output tokens (n_out)", step: "1", min: "0", fallback: "800" },
  { name: "eta", label: "Cache hit ratio (eta)", step: "0.01", min: "0", max: "1", fallback: "0.6" },
  { name: "n_think", label: "Thinking tokens (n_think)", step: "1", min: "0", fallback: "0" },
  { name: "horizon", label: "Horizon, months (optional)", step: "0.5", min: "0", max: "12", fallback: "" },
];
const BARS = 20;

// The request body exactly as the form states it: empty optional fields are left out, so the
// API applies its own defaults; anything else is sent as typed and the API judges it.
function payloadOf(values) {
  const body = {};
  for (const field of FIELDS) {
    const raw = (values[field.name] ?? "").trim();
    if (raw === "") continue;
    body[field.name === "horizon" ? "horizon_months" : field.name] = Number(raw);
  }
  if (values.mode === "batch") body.mode = "batch";
  return body;
}

export function curlCommand(origin, body) {
  return `curl -s -X POST '${origin}/v1/compare' -H 'content-type: application/json' -d '${JSON.stringify(body)}'`;
}

function formElement(values, onSubmit) {
  const inputs = FIELDS.map((field) => el("label", { "data-field": field.name }, field.label,
    el("input", { type: "number", name: field.name, value: values[field.name], step: field.step, min: field.min,
      max: field.max, inputmode: "decimal" }),
    el("span", { class: "field-error", "data-error-for": field.name })));
  const mode = el("label", {}, "Prices", el("select", { name: "mode" },
    el("option", { value: "sync", selected: values.mode !== "batch" }, "sync"),
    el("option", { value: "batch", selected: values.mode === "batch" }, "batch")));
  // novalidate: the API judges the profile, and its answer says what is wrong in its own words.
  const form = el("form", { class: "controls", "data-form": "calculator", novalidate: true }, inputs, mode,
    el("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onSubmit(Object.fromEntries(new FormData(form)));
  });
  return form;
}

function rankingSection(data, withForward) {
  // The bars show what the API ranks by (spot cost, cheapest first), so they fall in order; a
  // horizon's forward costs are in the table beside it.
  const bars = barChart(data.models.slice(0, BARS).map((model) => ({
    label: model.ticker, value: model.spot_cost, data: { ticker: model.ticker } })),
  { name: "compare-bars", format: cost, label: `The ${BARS} cheapest models for this profile` });
  const columns = [
    { key: "rank", label: "#", numeric: true }, { key: "ticker", label: "Ticker" }, { key: "provider", label: "Provider" },
    { key: "spot_cost", label: "Spot cost", numeric: true },
    ...(withForward ? [{ key: "forward_cost", label: "Forward cost", numeric: true }] : []),
    { key: "kappa", label: "Kappa", numeric: true }, { key: "beta", label: "β $/M", numeric: true },
    { key: "r_in_eff", label: "r_in eff", numeric: true }, { key: "is_reasoning", label: "Reasoning" },
  ];
  const rows = data.models.map((model, position) => el("tr", { "data-ticker": model.ticker }, [
    numericCell(position + 1, String),
    el("td", {}, el("a", { href: modelPage(model.ticker) }, model.ticker)),
    cell(model.provider, model.provider),
    numericCell(model.spot_cost, cost, { "data-col": "spot_cost" }),
    ...(withForward ? [numericCell(model.forward_cost, cost, { "data-col": "forward_cost" })] : []),
    numericCell(model.kappa, number, { "data-col": "kappa" }), numericCell(model.beta, number, { "data-col": "beta" }),
    numericCell(model.r_in_eff, number, { "data-col": "r_in_eff" }), cell(yesNo(model.is_reasoning), model.is_reasoning),
  ]));
  return section("Ranking",
    el("p", { class: "note" }, `Spot cost of one task, in dollars, for the ${BARS} cheapest (the API ranks by ` +
      `spot cost)${withForward ? "; the table adds each model's forward cost at the horizon" : ""}:`),
    bars, table(columns, rows, { name: "ranking", tall: true }));
}

function excludedSection(excluded) {
  if (!excluded.length) return section("Excluded models", el("p", { class: "note" }, "No model was left out."));
  const rows = excluded.map((item) => [cell(item.ticker, item.ticker), cell(item.reason, item.reason),
    cell(item.detail || DASH, item.detail)]);
  return section(`Excluded models (${excluded.length})`, el("p", { class: "note" }, "Models the profile cannot be " +
    "priced on, and why:"), table([{ key: "ticker", label: "Ticker" }, { key: "reason", label: "Reason" },
    { key: "detail", label: "Detail" }], rows, { name: "excluded", tall: true }));
}

function showFieldErrors(form, error) {
  for (const slot of form.querySelectorAll("[data-error-for]")) slot.textContent = "";
  for (const item of error.problem?.errors || []) {
    const name = item.field === "horizon_months" ? "horizon" : item.field;
    const slot = form.querySelector(`[data-error-for="${name}"]`);
    if (slot) slot.textContent = item.message;
  }
}

async function render() {
  markNavigation("calculator");
  showStatus();
  const query = queryParams();
  const values = Object.fromEntries(FIELDS.map((field) => [field.name, query[field.name] ?? field.fallback]));
  values.mode = query.mode || "sync";
  const main = mainElement();
  const results = el("div", { "data-results": "" });
  const curl = el("pre", { class: "curl", "data-curl": "" });
  const permalink = el("a", { "data-permalink": "" }, "Link to this calculation");
  const copy = el("button", { type: "button", class: "button", onclick: () => navigator.clipboard?.writeText(curl.textContent) },
    "Copy curl command");
  const run = async (submitted) => {
    const body = payloadOf(submitted);
    replaceQuery({ ...Object.fromEntries(FIELDS.map((field) => [field.name, submitted[field.name]])),
      mode: submitted.mode === "batch" ? "batch" : "" });
    curl.textContent = curlCommand(window.location.origin, body);
    permalink.href = window.location.href;
    results.setAttribute("aria-busy", "true");
    try {
      const answer = (await postJSON("/v1/compare", body)).data;
      showFieldErrors(form, {});
      results.replaceChildren(
        section("Summary", keyValues([
          ["Models ranked", String(answer.count), answer.count],
          ["Cheapest", answer.cheapest || DASH, answer.cheapest],
          ["Most expensive", answer.most_expensive || DASH, answer.most_expensive],
          ["Prices", answer.mode, answer.mode],
          ["Profile", Object.entries(answer.task_profile).map(([k, v]) => `${k} ${number(v)}`).join(", "), ""],
        ], "summary")),
        rankingSection(answer, body.horizon_months !== undefined),
        excludedSection(answer.excluded || []));
    } catch (error) {
      showFieldErrors(form, error);
      results.replaceChildren(problemBox(error, "The comparison failed"));
    }
    results.setAttribute("aria-busy", "false");
  };
  const form = formElement(values, run);
  main.append(el("h1", {}, "Cost calculator"),
    el("p", { class: "note" }, "The cost of one task on every model, cheapest first. Tokens per task; prices in " +
      "dollars. A horizon adds each model's forward cost at that many months."),
    form, section("The same call with curl", curl, el("div", { class: "controls" }, copy, permalink)), results);
  await run(values);
}

render();
