// Ticker board: every model's prices (input, cached input, output, the 3:1 blend, batch), context
// window, modality and status from /v1/spots, and the price changes of the last 30 or 90 days
// from /v1/events, cuts and rises apart. Current text models are shown unless the visitor asks
// for every model: a budget is made of those.
import { getJSON, mainElement, markNavigation, modelPath, problemBox, showStatus } from "./api.js";
import { DASH, cell, dayBefore, el, modelPage, number, numericCell, percent, queryParams, replaceQuery, section,
  select, table } from "./format.js";

const SPOT_FIELDS = ["ticker", "ticker_batch", "model_id", "display_name", "provider", "tier", "is_reasoning",
  "context_window", "status", "input_modalities", "output_modalities", "input_sync", "cache_read_sync", "beta_sync",
  "beta_batch"];
// The blend most price lists quote: three input tokens to one output token.
const BLEND_INPUT_SHARE = 3 / 4;
const RECENT_DAYS = ["30", "90"];
const PHONE_PAGE = 50; // the cards a phone shows at first, and at each "show more"
const COLUMNS = [
  { key: "ticker", label: "Ticker" },
  { key: "display_name", label: "Model" },
  { key: "provider", label: "Provider" },
  { key: "input_sync", label: "Input $/M", numeric: true, card: "lead", title: "Input (prompt) price, sync, USD per million tokens" },
  { key: "cache_read_sync", label: "Cached $/M", numeric: true,
    title: "Cached-input price (a cache read), sync; — where the model has no cache price" },
  { key: "beta_sync", label: "Output $/M", numeric: true, card: "lead", title: "Output price, sync (β)" },
  { key: "blended", label: "Blended $/M", numeric: true,
    title: "Three input tokens to one output token: (3 × input + output) / 4, sync" },
  { key: "beta_batch", label: "Batch out $/M", numeric: true, title: "Output price in batch mode; — where none" },
  { key: "context_window", label: "Context", numeric: true, title: "Context window, tokens" },
  { key: "modality", label: "Modality", title: "What the model takes → what it gives" },
  { key: "status", label: "Status" },
];
const CHANGE_COLUMNS = [
  { key: "effective_date", label: "Date" },
  { key: "ticker", label: "Ticker", card: "title" },
  { key: "field", label: "Price" },
  { key: "before", label: "Before $/M", numeric: true, card: "lead" },
  { key: "after", label: "After $/M", numeric: true, card: "lead" },
  { key: "percent_change", label: "Change", numeric: true, card: "lead", title: "After over before, in percent" },
];

// A text model takes and gives text, as a comparison counts it (pipelines/quotes.py scope_masks).
function isText(model) {
  return (model.input_modalities || []).includes("text") && (model.output_modalities || []).includes("text");
}

function rowsOf(spots) {
  return spots.map((model) => ({
    ...model,
    blended: model.input_sync === null || model.beta_sync === null ? null
      : BLEND_INPUT_SHARE * model.input_sync + (1 - BLEND_INPUT_SHARE) * model.beta_sync,
    modality: `${(model.input_modalities || []).join(", ")} → ${(model.output_modalities || []).join(", ")}`,
    current: model.status === "active" && isText(model),
    search: [model.ticker, model.ticker_batch, model.model_id, model.display_name].filter(Boolean).join(" ")
      .toLowerCase(),
  }));
}

function labelled(column, node) {
  node.setAttribute("data-label", column.label);
  return node;
}

const COLUMN = Object.fromEntries(COLUMNS.map((column) => [column.key, column]));

function rowElement(row) {
  const price = (key) => labelled(COLUMN[key], numericCell(row[key], number, { "data-col": key }));
  return el("tr", { "data-ticker": row.ticker, "data-status": row.status }, [
    labelled(COLUMN.ticker, el("td", { "data-col": "ticker", "data-value": row.ticker, class: "sticky" },
      el("a", { href: modelPage(row.ticker) }, row.ticker))),
    labelled(COLUMN.display_name, cell(row.display_name, row.display_name, { "data-col": "display_name" })),
    labelled(COLUMN.provider, cell(row.provider, row.provider, { "data-col": "provider" })),
    price("input_sync"), price("cache_read_sync"), price("beta_sync"), price("blended"), price("beta_batch"),
    labelled(COLUMN.context_window, numericCell(row.context_window,
      (value) => (value ? value.toLocaleString("en-US") : DASH), { "data-col": "context_window" })),
    labelled(COLUMN.modality, cell(row.modality, row.modality, { "data-col": "modality" })),
    labelled(COLUMN.status, cell(row.status, row.status, { "data-col": "status", class: `status-${row.status}` })),
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

function changeRow(event) {
  return el("tr", { "data-ticker": event.ticker, "data-event": event.event_id }, [
    cell(event.effective_date, event.effective_date, { "data-col": "effective_date" }),
    el("td", { "data-col": "ticker", "data-value": event.ticker }, el("a", { href: modelPage(event.ticker) },
      event.ticker)),
    cell(event.field, event.field, { "data-col": "field" }),
    numericCell(event.before, number, { "data-col": "before" }),
    numericCell(event.after, number, { "data-col": "after" }),
    numericCell(event.percent_change, percent, { "data-col": "percent_change",
      class: `num ${event.percent_change < 0 ? "down" : "up"}` }),
  ]);
}

const EVENTS_DEFAULT_DAYS = 30; // what /v1/events answers without `since`: the snapshot's last 30 days

async function recentChanges(holder, state) {
  const kinds = ["price_cut", "price_increase"];
  let [cuts, rises] = await Promise.all(kinds.map((kind) => getJSON(`/v1/events?kind=${kind}&limit=1000`)));
  let since = cuts.data.since;
  if (Number(state.days) !== EVENTS_DEFAULT_DAYS) {
    since = dayBefore(since, { days: Number(state.days) - EVENTS_DEFAULT_DAYS });
    [cuts, rises] = await Promise.all(kinds.map((kind) => getJSON(`/v1/events?since=${since}&kind=${kind}&limit=1000`)));
  }
  const sorts = { cuts: { key: "percent_change", dir: "asc" }, rises: { key: "percent_change", dir: "desc" } };
  const part = (name, title, events) => {
    const box = el("div");
    const draw = () => {
      const order = sorts[name];
      const rows = events.filter((event) => event.mode === "sync").sort(compare(order.key, order.dir));
      box.replaceChildren(rows.length ? table(CHANGE_COLUMNS, rows.map(changeRow), {
        name, sort: order.key, direction: order.dir, onSort: (key, direction) => {
          order.dir = direction;
          order.key = key;
          draw();
        },
      }) : el("p", { class: "note" }, `No ${title.toLowerCase()} since ${since}.`));
    };
    draw();
    return el("div", {}, el("h3", {}, `${title} (${events.filter((event) => event.mode === "sync").length})`), box);
  };
  holder.dataset.since = since;
  holder.replaceChildren(el("p", { class: "note" }, `Sync price changes since ${since}, as /v1/events reports them.`),
    el("div", { class: "grid-2" }, part("cuts", "Price cuts", cuts.data.events),
      part("rises", "Price increases", rises.data.events)));
}

async function render() {
  markNavigation("board");
  showStatus();
  const state = { q: "", provider: "", tier: "", reasoning: "", all: "", days: "30", sort: "ticker", dir: "asc",
    ...queryParams() };
  let spots;
  try {
    spots = await getJSON(`/v1/spots?fields=${SPOT_FIELDS.join(",")}`);
  } catch (error) {
    mainElement().append(el("h1", {}, "Ticker board"), problemBox(error, "The board could not be loaded"));
    return;
  }
  const rows = rowsOf(spots.data);
  const main = mainElement();
  const providers = [...new Set(rows.map((row) => row.provider))].sort();
  const search = el("input", { type: "search", name: "q", value: state.q, placeholder: "ticker, model id or alias",
    "aria-label": "Search models", autocomplete: "off" });
  const everyModel = el("input", { type: "checkbox", name: "all", checked: state.all === "1" });
  const lookup = el("div", { class: "lookup" });
  const form = el("form", { class: "controls", role: "search" },
    el("label", {}, "Search", search),
    select("provider", "Provider", providers, state.provider),
    select("tier", "Tier", ["frontier", "mid", "efficient"], state.tier),
    select("reasoning", "Reasoning", ["yes", "no"], state.reasoning),
    el("label", { class: "check" }, everyModel, "Show deprecated, retired and non-text models"),
    el("button", { type: "submit" }, "Open model"));
  const count = el("p", { class: "count", "data-count": "" });
  const holder = el("div");
  const days = select("days", "Period", RECENT_DAYS, state.days, null);
  const changes = el("div", { "data-changes": "" });
  main.append(el("h1", {}, "Ticker board"), form, lookup, count, holder,
    section("Recent price changes", el("form", { class: "controls" }, days), changes));

  const draw = () => {
    const needle = state.q.trim().toLowerCase();
    // A search looks through every model: whoever types a name wants that model, current or not.
    const shown = rows.filter((row) => (state.all === "1" || needle || row.current) &&
      (!needle || row.search.includes(needle)) &&
      (!state.provider || row.provider === state.provider) && (!state.tier || row.tier === state.tier) &&
      (!state.reasoning || row.is_reasoning === (state.reasoning === "yes")))
      .sort(compare(state.sort, state.dir));
    const hidden = state.all === "1" || needle ? "" : " (current text models; tick the box to show every model)";
    count.textContent = `${shown.length} of ${rows.length} models${hidden}` +
      (needle && !shown.length ? ` — press Enter to look "${state.q.trim()}" up as a model id or alias` : "");
    count.dataset.count = shown.length;
    holder.replaceChildren(table(COLUMNS, shown.map(rowElement), {
      name: "board", tall: true, className: "data board", page: PHONE_PAGE, sort: state.sort, direction: state.dir,
      onSort: (key, direction) => {
        state.dir = direction;
        state.sort = key;
        update();
      },
    }));
  };
  const update = () => {
    replaceQuery({ q: state.q, provider: state.provider, tier: state.tier, reasoning: state.reasoning,
      all: state.all, days: state.days === "30" ? "" : state.days,
      sort: state.sort === "ticker" ? "" : state.sort, dir: state.dir === "asc" ? "" : state.dir });
    draw();
  };
  const showChanges = () => recentChanges(changes, state).catch((error) =>
    changes.replaceChildren(problemBox(error, "The recent changes could not be loaded")));
  search.addEventListener("input", () => { state.q = search.value; lookup.replaceChildren(); update(); });
  for (const menu of form.querySelectorAll("select")) {
    menu.addEventListener("change", () => { state[menu.name] = menu.value; update(); });
  }
  everyModel.addEventListener("change", () => { state.all = everyModel.checked ? "1" : ""; update(); });
  days.querySelector("select").addEventListener("change", (event) => {
    state.days = event.target.value;
    update();
    showChanges();
  });
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
  showChanges();
}

render();
