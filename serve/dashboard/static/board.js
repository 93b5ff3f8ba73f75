// Ticker board: every model's spot prices, implied decay, forwards and last price change, from
// /v1/greeks (spots and the forecast's summary), /v1/forwards (every curve) and /v1/events.
import { ALL_EVENTS_SINCE, getJSON, mainElement, markNavigation, modelPath, problemBox, showStatus } from "./api.js";
import { DASH, cell, el, modelPage, number, numericCell, percent, queryParams, replaceQuery, table, yesNo }
  from "./format.js";

const TENORS = ["1M", "3M", "6M"];
const COLUMNS = [
  { key: "ticker", label: "Ticker" },
  { key: "display_name", label: "Model" },
  { key: "provider", label: "Provider" },
  { key: "tier", label: "Tier" },
  { key: "is_reasoning", label: "Reasoning" },
  { key: "beta_sync", label: "Sync $/M", numeric: true, title: "Spot output price, sync (β)" },
  { key: "beta_batch", label: "Batch $/M", numeric: true, title: "Spot output price, batch" },
  { key: "theta", label: "Theta /mo", numeric: true,
    title: "Average decay per month the forecast implies over a year (positive: prices expected to fall)" },
  ...TENORS.map((tenor) => ({ key: `forward_${tenor}`, label: `${tenor} fwd`, numeric: true,
    title: `Sync forward output price at ${tenor}: the mean of the forecast` })),
  { key: "last_change", label: "Last change", title: "Newest sync price cut or increase (/v1/events)" },
];

// "Last change" is the newest sync price_cut or price_increase event of the model, as /v1/events
// reports it; on one date an output-price change is preferred to an input-price change, since
// the board's prices are output prices.
function lastChanges(eventLists) {
  const newest = new Map();
  for (const event of eventLists.flat()) {
    if (event.mode !== "sync") continue;
    const known = newest.get(event.ticker);
    const newer = !known || event.effective_date > known.effective_date ||
      (event.effective_date === known.effective_date && event.field === "output" && known.field !== "output");
    if (newer) newest.set(event.ticker, event);
  }
  return newest;
}

function rowsOf(greeks, curves, changes) {
  const forwards = new Map(curves.map((curve) => [curve.ticker, curve.forwards]));
  return greeks.map((model) => {
    const points = forwards.get(model.ticker) || [];
    const row = { ...model, change: changes.get(model.ticker) || null };
    for (const tenor of TENORS) row[`forward_${tenor}`] = points.find((point) => point.tenor === tenor)?.beta_forward ?? null;
    row.last_change = row.change ? row.change.effective_date : null;
    row.search = [model.ticker, model.ticker_batch, model.model_id, model.display_name]
      .filter(Boolean).join(" ").toLowerCase();
    return row;
  });
}

function rowElement(row) {
  const link = el("a", { href: modelPage(row.ticker) }, row.ticker);
  const change = row.change;
  const changeCell = change
    ? cell(`${change.effective_date} ${percent(change.percent_change)}`, change.percent_change,
      { "data-col": "last_change", "data-date": change.effective_date, class: change.percent_change < 0 ? "down" : "up",
        title: `${change.field}: ${number(change.before)} → ${number(change.after)} $/M (${change.provenance})` })
    : cell(DASH, "", { "data-col": "last_change" });
  return el("tr", { "data-ticker": row.ticker }, [
    el("td", { "data-col": "ticker" }, link),
    cell(row.display_name, row.display_name, { "data-col": "display_name" }),
    cell(row.provider, row.provider, { "data-col": "provider" }),
    cell(row.tier, row.tier, { "data-col": "tier" }),
    cell(yesNo(row.is_reasoning), row.is_reasoning, { "data-col": "is_reasoning" }),
    numericCell(row.beta_sync, number, { "data-col": "beta_sync" }),
    numericCell(row.beta_batch, number, { "data-col": "beta_batch" }),
    numericCell(row.theta, (value) => number(value, 3), { "data-col": "theta" }),
    ...TENORS.map((tenor) => numericCell(row[`forward_${tenor}`], number, { "data-col": `forward_${tenor}` })),
    changeCell,
  ]);
}

function compare(key, direction) {
  const sign = direction === "desc" ? -1 : 1;
  return (a, b) => {
    const left = a[key];
    const right = b[key];
    if (left === right) return a.ticker < b.ticker ? -1 : 1;
    if (left === null || left === undefined) return 1; // missing values last, whatever the direction
    if (right === null || right === undefined) return -1;
    return (left < right ? -1 : 1) * sign;
  };
}

function select(name, label, values, chosen) {
  return el("label", {}, label, el("select", { name, "data-filter": name },
    el("option", { value: "" }, "all"),
    values.map((value) => el("option", { value, selected: value === chosen }, value))));
}

async function render() {
  markNavigation("board");
  showStatus();
  const state = { q: "", provider: "", tier: "", reasoning: "", sort: "ticker", dir: "asc", ...queryParams() };
  let rows;
  try {
    const [greeks, curves, cuts, increases] = await Promise.all([
      getJSON("/v1/greeks"),
      getJSON("/v1/forwards?mode=sync"),
      getJSON(`/v1/events?since=${ALL_EVENTS_SINCE}&kind=price_cut&limit=1000`),
      getJSON(`/v1/events?since=${ALL_EVENTS_SINCE}&kind=price_increase&limit=1000`),
    ]);
    rows = rowsOf(greeks.data, curves.data, lastChanges([cuts.data.events, increases.data.events]));
  } catch (error) {
    mainElement().append(el("h1", {}, "Ticker board"), problemBox(error, "The board could not be loaded"));
    return;
  }
  const main = mainElement();
  const providers = [...new Set(rows.map((row) => row.provider))].sort();
  const search = el("input", { type: "search", name: "q", value: state.q, placeholder: "ticker, model id or alias",
    "aria-label": "Search models", autocomplete: "off" });
  const lookup = el("div", { class: "lookup" });
  const form = el("form", { class: "controls", role: "search" },
    el("label", {}, "Search", search),
    select("provider", "Provider", providers, state.provider),
    select("tier", "Tier", ["frontier", "mid", "efficient"], state.tier),
    select("reasoning", "Reasoning", ["yes", "no"], state.reasoning),
    el("button", { type: "submit" }, "Open model"));
  const count = el("p", { class: "count", "data-count": "" });
  const holder = el("div");
  main.append(el("h1", {}, "Ticker board"), form, lookup, count, holder);

  const draw = () => {
    const needle = state.q.trim().toLowerCase();
    const shown = rows.filter((row) => (!needle || row.search.includes(needle)) &&
      (!state.provider || row.provider === state.provider) && (!state.tier || row.tier === state.tier) &&
      (!state.reasoning || row.is_reasoning === (state.reasoning === "yes")))
      .sort(compare(state.sort, state.dir));
    count.textContent = `${shown.length} of ${rows.length} models` +
      (needle && !shown.length ? ` — press Enter to look "${state.q.trim()}" up as a model id or alias` : "");
    count.dataset.count = shown.length;
    holder.replaceChildren(table(COLUMNS, shown.map(rowElement), {
      name: "board", tall: true, sort: state.sort, direction: state.dir, onSort: (key) => {
        state.dir = state.sort === key && state.dir === "asc" ? "desc" : "asc";
        state.sort = key;
        update();
      },
    }));
  };
  const update = () => {
    replaceQuery({ q: state.q, provider: state.provider, tier: state.tier, reasoning: state.reasoning,
      sort: state.sort === "ticker" ? "" : state.sort, dir: state.dir === "asc" ? "" : state.dir });
    draw();
  };
  search.addEventListener("input", () => { state.q = search.value; lookup.replaceChildren(); update(); });
  for (const menu of form.querySelectorAll("select")) {
    menu.addEventListener("change", () => { state[menu.name] = menu.value; update(); });
  }
  // Enter opens the model: a ticker shown on the board, else whatever the API resolves the name
  // to (model ids and aliases such as `anthropic/claude-sonnet-4` are known only to the API).
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = search.value.trim();
    if (!name) return;
    const exact = rows.find((row) => row.ticker.toLowerCase() === name.toLowerCase());
    if (exact) {
      window.location.assign(modelPage(exact.ticker));
      return;
    }
    try {
      const found = await getJSON(`/v1/spots/${modelPath(name)}`);
      window.location.assign(modelPage(found.data.ticker));
    } catch (error) {
      lookup.replaceChildren(problemBox(error, `No model "${name}"`));
    }
  });
  draw();
}

render();
