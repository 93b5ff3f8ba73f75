// Budget calculator: a task profile (typed, or a published task type's), ranked over every model
// (or a shortlist) by POST /v1/compare, with the cost per request and per 1,000 requests; for a
// monthly volume, the monthly spend of the cheapest models with its 5%–95% range from
// POST /v1/simulate, staying on each model or following its line (moving to each successor as it
// comes, priced by the line forward). The provider and tier filters are the page's own, applied to
// the API's ranking (the tier of each model from /v1/spots). The address holds the inputs; the curl
// command of the same call is last.
import { getJSON, mainElement, markNavigation, postJSON, problemBox, showStatus } from "./api.js";
import { barChart } from "./chart.js";
import { DASH, cell, dollars, el, keyValues, modelPage, number, numericCell, queryParams, replaceQuery, section,
  select, table, yesNo } from "./format.js";

const FIELDS = [
  { name: "n_in", label: "Input tokens per request", step: "1", min: "0", fallback: "30000" },
  { name: "n_out", label: "Output tokens per request", step: "1", min: "0", fallback: "800" },
  { name: "eta", label: "Share of input read from cache (0–1)", step: "0.01", min: "0", max: "1", fallback: "0.6" },
  { name: "n_think", label: "Thinking tokens per request", step: "1", min: "0", fallback: "0" },
  { name: "horizon", label: "Months ahead (optional)", step: "0.5", min: "0", max: "12", fallback: "" },
];
const PROFILE = ["n_in", "n_out", "eta", "n_think"];
const BARS = 20;
// The ranked models a phone shows at first (the chart has the 20 cheapest), and at each "show more".
const PHONE_PAGE = 10;
const BUDGETED = 3; // the cheapest models whose monthly spend is simulated
const BUDGET_PATHS = 2000;
const BUDGET_SEED = 1; // the same inputs give the same range

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
  const shortlist = (values.models ?? "").split(",").map((name) => name.trim()).filter(Boolean);
  if (shortlist.length) body.models = shortlist;
  return body;
}

export function curlCommand(origin, body) {
  return `curl -s -X POST '${origin}/v1/compare' -H 'content-type: application/json' -d '${JSON.stringify(body)}'`;
}

function formElement(values, taskTypes, roster, onSubmit) {
  const inputs = FIELDS.map((field) => el("label", { "data-field": field.name }, field.label,
    el("input", { type: "number", name: field.name, value: values[field.name], step: field.step, min: field.min,
      max: field.max, inputmode: "decimal" }),
    el("span", { class: "field-error", "data-error-for": field.name })));
  // A preset fills the profile with a published task type's tokens; editing a field makes it custom.
  const preset = el("select", { name: "task" }, el("option", { value: "" }, "custom"),
    taskTypes.map((task) => el("option", { value: task.task_type, selected: task.task_type === values.task,
      title: task.description }, task.task_type)));
  // What the preset's thinking tokens stand for: with none, a reasoning model's cost is a floor.
  const thinking = el("p", { class: "note", "data-name": "task-thinking" });
  const sayThinking = () => {
    const task = taskTypes.find((candidate) => candidate.task_type === preset.value);
    thinking.textContent = task ? `${task.task_type} ${task.thinking}.` : "";
  };
  preset.addEventListener("change", () => {
    const task = taskTypes.find((candidate) => candidate.task_type === preset.value);
    sayThinking();
    if (!task) return;
    for (const name of PROFILE) inputs.find((label) => label.dataset.field === name).querySelector("input").value = task[name];
  });
  for (const label of inputs) {
    if (PROFILE.includes(label.dataset.field)) {
      label.querySelector("input").addEventListener("input", () => { preset.value = ""; sayThinking(); });
    }
  }
  sayThinking();
  const volume = el("label", { "data-field": "requests" }, "Requests per month (optional)",
    el("input", { type: "number", name: "requests", value: values.requests, step: "1", min: "0", inputmode: "numeric" }));
  const shortlist = el("label", { "data-field": "models" }, "Shortlist (tickers, comma-separated; optional)",
    el("input", { type: "text", name: "models", value: values.models, placeholder: "all models", autocomplete: "off" }));
  const distinct = (key) => [...new Set(roster.map((row) => row[key]).filter(Boolean))].sort();
  const provider = select("provider", "Provider", distinct("provider"), values.provider);
  const tier = select("tier", "Tier", distinct("tier"), values.tier);
  const mode = el("label", {}, "Prices", el("select", { name: "mode" },
    el("option", { value: "sync", selected: values.mode !== "batch" }, "sync"),
    el("option", { value: "batch", selected: values.mode === "batch" }, "batch")));
  const follow = el("label", { "data-field": "follow" }, "Monthly budget", el("select", { name: "follow" },
    el("option", { value: "model", selected: values.follow !== "line" }, "stay on this model"),
    el("option", { value: "line", selected: values.follow === "line" }, "follow the line")));
  // novalidate: the API judges the profile, and its answer says what is wrong in its own words.
  const form = el("form", { class: "controls", "data-form": "calculator", novalidate: true },
    el("label", {}, "Task", preset), thinking, inputs, volume, follow, shortlist, provider, tier, mode,
    el("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onSubmit(Object.fromEntries(new FormData(form)));
  });
  return form;
}

function rankingSection(data, withForward) {
  // The bars show what the API ranks by (the cost of one request, cheapest first), so they fall
  // in order; a horizon's forward costs are in the table beside it.
  const bars = barChart(data.models.slice(0, BARS).map((model) => ({
    label: model.ticker, value: model.spot_cost, data: { ticker: model.ticker } })),
  { name: "compare-bars", format: dollars, label: `The ${BARS} cheapest models for this profile` });
  const columns = [
    { key: "rank", label: "#", numeric: true }, { key: "ticker", label: "Ticker", card: "title" },
    { key: "provider", label: "Provider" },
    { key: "spot_cost", label: "Per request", numeric: true, card: "lead",
      title: "The cost of one request at today's prices" },
    { key: "per_thousand", label: "Per 1,000 requests", numeric: true, card: "lead" },
    ...(withForward ? [{ key: "forward_cost", label: "Per request, ahead", numeric: true, card: "lead",
      title: "The expected cost of one request at the horizon (the forward)" },
    { key: "outlook", label: "Will it get cheaper?", card: "wide", title: "The forward in words: an announced change, else the " +
      "chance of a change by the horizon and the expected move" }] : []),
    { key: "beta", label: "Output $/M", numeric: true, title: "The output price used" },
    { key: "kappa", label: "Output weight", numeric: true,
      title: "κ = 1 + (input tokens / output tokens) × (input ÷ output price): the cost per output token, in " +
        "output prices" },
    { key: "r_in_eff", label: "Input ÷ output price", numeric: true,
      title: "The input price over the output price, after the cached share's discount" },
    { key: "is_reasoning", label: "Reasoning" },
  ];
  const rows = data.models.map((model, position) => el("tr", { "data-ticker": model.ticker }, [
    numericCell(position + 1, String),
    el("td", {}, el("a", { href: modelPage(model.ticker) }, model.ticker)),
    cell(model.provider, model.provider),
    numericCell(model.spot_cost, dollars, { "data-col": "spot_cost" }),
    numericCell(model.spot_cost * 1000, dollars, { "data-col": "per_thousand" }),
    ...(withForward ? [numericCell(model.forward_cost, dollars, { "data-col": "forward_cost" }),
      cell(model.outlook, model.outlook, { "data-col": "outlook" })] : []),
    numericCell(model.beta, number, { "data-col": "beta" }), numericCell(model.kappa, number, { "data-col": "kappa" }),
    numericCell(model.r_in_eff, number, { "data-col": "r_in_eff" }), cell(yesNo(model.is_reasoning), model.is_reasoning),
  ]));
  return section("Ranking",
    el("p", { class: "note" }, `The cost of one request, in dollars, for the ${BARS} cheapest (the API ranks by ` +
      `it)${withForward ? "; the table adds each model's expected cost at the horizon" : ""}:`),
    bars, table(columns, rows, { name: "ranking", tall: true, page: PHONE_PAGE }));
}

// The monthly spend of the cheapest models at `requests` a month, with the range the forecast
// gives it: one /v1/simulate per model, to the horizon's month (the first without one). Following
// the line, each row says the line forward in the API's words; a model that is not its line's
// current one says why, in the API's words too, in place of its figures.
async function budgetSection(models, profile, requests, horizon, mode, follow) {
  const months = Math.min(12, Math.max(1, Math.ceil(horizon || 1)));
  const following = follow === "line";
  const answers = await Promise.all(models.map((model) => postJSON("/v1/simulate", {
    items: [{ model: model.ticker, mode, profile, requests_per_month: requests, ...(following ? { follow } : {}) }],
    horizon_months: months, paths: BUDGET_PATHS, seed: BUDGET_SEED }).catch((error) => {
    const refusal = (error.problem?.errors || []).find((item) => item.field === "items[0].follow");
    if (following && refusal) return { refusal: refusal.message };
    throw error;
  })));
  const rows = models.map((model, i) => {
    const answer = answers[i];
    const month = answer.data?.months[months - 1];
    const line = answer.data?.workloads[0].line;
    return el("tr", { "data-ticker": model.ticker }, [
      el("td", {}, el("a", { href: modelPage(model.ticker) }, model.ticker)),
      numericCell(month?.expected_spend, dollars, { "data-col": "expected_spend" }),
      numericCell(month?.p05, dollars, { "data-col": "p05" }), numericCell(month?.p95, dollars, { "data-col": "p95" }),
      ...(following ? [cell(line ? line.outlook : `cannot follow: ${answer.refusal}`, line?.expected_change ?? null,
        { "data-col": "line_outlook" })] : []),
    ]);
  });
  const how = following ? "following each model's line (moving to a successor if one comes)" : "staying on each model";
  return section(`Monthly budget, ${requests.toLocaleString("en-US")} requests a month`,
    el("p", { class: "note" }, `Spend in month ${months} for the ${models.length} cheapest, ${how}: expected, and ` +
      "the range the price forecast gives it (5% to 95%: a price change may come or not)."),
    table([{ key: "ticker", label: "Model" }, { key: "expected_spend", label: "Expected", numeric: true },
      { key: "p05", label: "Low (5%)", numeric: true }, { key: "p95", label: "High (95%)", numeric: true },
      ...(following ? [{ key: "line_outlook", label: "Following the line", card: "wide",
        title: "The line forward at the horizon over today's cost, and the chance a successor has come by then" }]
        : [])], rows,
    { name: "budget" }));
}

function excludedSection(excluded) {
  if (!excluded.length) return section("Excluded models", el("p", { class: "note" }, "No model was left out."));
  const rows = excluded.map((item) => [cell(item.ticker, item.ticker), cell(item.reason, item.reason),
    cell(item.detail || DASH, item.detail)]);
  return section(`Excluded models (${excluded.length})`, el("p", { class: "note" }, "Models the profile cannot be " +
    "priced on, and why:"), table([{ key: "ticker", label: "Ticker" }, { key: "reason", label: "Reason" },
    { key: "detail", label: "Detail", card: "wide" }], rows, { name: "excluded", tall: true, page: PHONE_PAGE }));
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
  values.follow = query.follow === "line" ? "line" : "model";
  values.requests = query.requests ?? "100000";
  values.models = query.models ?? "";
  values.task = query.task ?? "";
  values.provider = query.provider ?? "";
  values.tier = query.tier ?? "";
  // The first comparison is asked beside the presets and the roster, not after them.
  const first = postJSON("/v1/compare", payloadOf(values));
  first.catch(() => {}); // its failure is shown where it is awaited, by `run`
  // The presets and the filters' roster are conveniences: the calculator works without them.
  const [taskTypes, roster] = await Promise.all([
    getJSON("/v1/task-types").then((answer) => answer.data, () => []),
    getJSON("/v1/spots?fields=ticker,provider,tier").then((answer) => answer.data, () => []),
  ]);
  const tierOf = new Map(roster.map((row) => [row.ticker, row.tier]));
  const main = mainElement();
  const results = el("div", { "data-results": "" });
  const budget = el("div", { "data-budget": "" });
  const curl = el("pre", { class: "curl", "data-curl": "" });
  const permalink = el("a", { "data-permalink": "" }, "Link to this calculation");
  const copy = el("button", { type: "button", class: "button", onclick: () => navigator.clipboard?.writeText(curl.textContent) },
    "Copy curl command");
  const run = async (submitted, asked = null) => {
    const body = payloadOf(submitted);
    replaceQuery({ ...Object.fromEntries(FIELDS.map((field) => [field.name, submitted[field.name]])),
      mode: submitted.mode === "batch" ? "batch" : "", follow: submitted.follow === "line" ? "line" : "",
      task: submitted.task, requests: submitted.requests,
      models: submitted.models, provider: submitted.provider, tier: submitted.tier });
    curl.textContent = curlCommand(window.location.origin, body);
    permalink.href = window.location.href;
    results.setAttribute("aria-busy", "true");
    budget.setAttribute("aria-busy", "true");
    budget.replaceChildren();
    let answer = null;
    try {
      answer = (await (asked ?? postJSON("/v1/compare", body))).data;
      const ranked = answer.count;
      answer = { ...answer, models: answer.models.filter((model) =>
        (!submitted.provider || model.provider === submitted.provider) &&
        (!submitted.tier || tierOf.get(model.ticker) === submitted.tier)) };
      const filtered = [submitted.provider, submitted.tier].filter(Boolean).join(", ");
      const cheapest = filtered ? answer.models[0]?.ticker : answer.cheapest;
      const dearest = filtered ? answer.models.at(-1)?.ticker : answer.most_expensive;
      showFieldErrors(form, {});
      results.replaceChildren(
        section("Summary", keyValues([
          ["Models ranked", String(ranked), ranked],
          ...(filtered ? [["Shown", `${answer.models.length} (${filtered})`, answer.models.length]] : []),
          ["Cheapest", cheapest || DASH, cheapest],
          ["Most expensive", dearest || DASH, dearest],
          ["Prices", answer.mode, answer.mode],
          ["Profile", Object.entries(answer.task_profile).filter(([, v]) => v).map(([k, v]) => `${k} ${number(v)}`)
            .join(", "), ""],
        ], "summary")),
        rankingSection(answer, body.horizon_months !== undefined),
        excludedSection(answer.excluded || []));
    } catch (error) {
      showFieldErrors(form, error);
      results.replaceChildren(problemBox(error, "The comparison failed"));
    }
    results.setAttribute("aria-busy", "false");
    const requests = Number(submitted.requests);
    if (answer && answer.models.length && requests > 0) {
      const profile = Object.fromEntries(PROFILE.map((name) => [name, body[name] ?? 0]));
      try {
        budget.replaceChildren(await budgetSection(answer.models.slice(0, BUDGETED), profile, requests,
          body.horizon_months, answer.mode, submitted.follow));
      } catch (error) {
        budget.replaceChildren(problemBox(error, "The monthly budget could not be simulated"));
      }
    }
    budget.setAttribute("aria-busy", "false");
  };
  const form = formElement(values, taskTypes, roster, run);
  main.append(el("h1", {}, "Budget calculator"),
    el("p", { class: "note" }, "What a request costs on every model, cheapest first, and what a month of them " +
      "costs. Pick a task or type its tokens; costs are in dollars. Months ahead adds each model's expected cost then."),
    form, budget, results, section("The same call with curl", curl, el("div", { class: "controls" }, copy, permalink)));
  await run(values, first);
}

render();
