// Formatting and small DOM helpers. Numbers are only formatted here, never computed (the board's
// blended price, a documented mix of two API prices, is the one exception): every cell
// keeps the API's own value in `data-value`, so what is shown can be checked against the answer.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

export const DASH = "—";

// A model's dashboard page.
export function modelPage(ticker) {
  return `/dashboard/models/${encodeURIComponent(ticker)}`;
}

export function isNumber(value) {
  return typeof value === "number" && Number.isFinite(value);
}

// Prices in $/M and costs in $ span six orders of magnitude: significant digits, not decimals.
export function number(value, digits = 4) {
  if (!isNumber(value)) return DASH;
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-4) return value.toExponential(digits - 1);
  if (magnitude >= 1000) return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
  return Number(value.toPrecision(digits)).toString();
}

export function price(value) {
  return isNumber(value) ? `$${number(value)}` : DASH;
}

// Dollars in plain decimals, never in e-notation: cents from a dollar up, four significant digits below.
export function dollars(value) {
  if (!isNumber(value)) return DASH;
  const magnitude = Math.abs(value);
  if (magnitude === 0) return "$0";
  if (magnitude >= 1) return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `$${value.toFixed(Math.min(20, Math.max(2, 3 - Math.floor(Math.log10(magnitude)))))}`;
}

export function cost(value) {
  return isNumber(value) ? `$${number(value, 4)}` : DASH;
}

// `share` is a fraction (0.953 is 95.3%); `percent` is already in percent (the API's percent_change).
export function share(value, digits = 1) {
  return isNumber(value) ? `${(value * 100).toFixed(digits)}%` : DASH;
}

export function percent(value, digits = 1) {
  if (!isNumber(value)) return DASH;
  return `${value > 0 ? "+" : ""}${value.toFixed(digits)}%`;
}

export function yesNo(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  return DASH;
}

// A table cell that shows `text` and keeps the API's raw value for sorting and for checks.
export function cell(text, value, attributes = {}) {
  const raw = value === null || value === undefined ? "" : String(value);
  return el("td", { "data-value": raw, ...attributes }, text);
}

export function numericCell(value, formatter = number, attributes = {}) {
  return cell(formatter(value), value, { class: "num", ...attributes });
}

// A table inside its own scrolling box, so a narrow screen scrolls the table, not the page.
// columns: [{key, label, numeric, title, card}]; rows: arrays of <td> (or <tr> holding them).
// Every cell is given its column's label (data-label): on a phone (under 600 px, dashboard.css)
// each row is a card of "label value" pairs. `card` places a column in that card: "title" heads
// it, unlabelled (by default the first column); "lead" comes right after the title, for the key
// figures (the costs); "wide" takes a whole line, for long text (which also wraps on a wide screen).
// options: {name, className, tall, sort, direction, onSort(key, direction), page}. With onSort the
// headers sort, and a menu does the same on a phone, where the headers are hidden. `page`: a phone
// shows that many rows first, and a button shows the next as many.
export function table(columns, rows, options = {}) {
  const sortable = Boolean(options.onSort);
  const nextDirection = (key) => (options.sort === key && options.direction === "asc" ? "desc" : "asc");
  const head = el("tr", {}, columns.map((column) => el("th", {
    scope: "col", class: column.numeric ? "num" : null, title: column.title, "data-key": column.key,
    "aria-sort": options.sort === column.key ? (options.direction === "desc" ? "descending" : "ascending") : null,
  }, sortable ? el("button", { type: "button", onclick: () => options.onSort(column.key, nextDirection(column.key)) },
    column.label) : column.label)));
  const rowElements = rows.map((cells) => (cells instanceof HTMLElement ? cells : el("tr", {}, cells)));
  const titled = columns.some((column) => column.card === "title");
  for (const row of rowElements) labelCells(row, columns, titled);
  const body = el("tbody", {}, rowElements);
  const scroll = el("div", { class: options.tall ? "table-scroll tall" : "table-scroll" },
    el("table", { class: `${options.className || "data"} cards`, "data-table": options.name },
      el("thead", {}, head), body));
  const more = options.page ? pager(rowElements, options.page, options.name) : null;
  if (!sortable && !more) return scroll;
  return el("div", { class: "table-block" }, sortable ? sortMenu(columns, options) : null, scroll, more);
}

function labelCells(row, columns, titled) {
  [...row.cells].forEach((node, position) => {
    const column = columns[position];
    if (!column) return;
    if (!node.hasAttribute("data-label")) node.setAttribute("data-label", column.label);
    const place = column.card || (!titled && position === 0 ? "title" : null);
    if (place) node.setAttribute("data-card", place);
  });
}

// The headers' sorting as two menus, for a phone: the column, and the direction.
function sortMenu(columns, options) {
  const column = el("select", { name: "sort", "aria-label": "Sort by" },
    columns.map((item) => el("option", { value: item.key, selected: item.key === options.sort }, item.label)));
  const direction = el("select", { name: "dir", "aria-label": "Sort direction" },
    el("option", { value: "asc", selected: options.direction !== "desc" }, "ascending"),
    el("option", { value: "desc", selected: options.direction === "desc" }, "descending"));
  const sort = () => options.onSort(column.value, direction.value);
  column.addEventListener("change", sort);
  direction.addEventListener("change", sort);
  return el("div", { class: "controls sort-menu", "data-sort-menu": options.name },
    el("label", {}, "Sort by", column), el("label", {}, "Order", direction));
}

// A phone shows `size` rows, then `size` more at each press: a list of hundreds of cards would be
// a page tens of thousands of pixels long. Every row stays in the table (a wide screen shows them
// all, in a box that scrolls); the rows not yet shown only carry the class `later`.
function pager(rowElements, size, name) {
  let shown = size;
  rowElements.forEach((row, position) => row.classList.toggle("later", position >= shown));
  if (rowElements.length <= shown) return null;
  const words = () => `Show ${Math.min(size, rowElements.length - shown)} more ` +
    `(${shown} of ${rowElements.length} shown)`;
  const button = el("button", { type: "button", class: "button more", "data-more": name }, words());
  button.addEventListener("click", () => {
    for (const row of rowElements.slice(shown, shown + size)) row.classList.remove("later");
    shown += size;
    if (shown >= rowElements.length) button.remove();
    else button.textContent = words();
  });
  return button;
}

export function section(title, ...children) {
  return el("section", { class: "card" }, el("h2", {}, title), ...children);
}

// A labelled menu of `values`, `chosen` selected; `all` names the first, empty choice (null: none).
export function select(name, label, values, chosen, all = "all") {
  return el("label", {}, label, el("select", { name },
    all === null ? null : el("option", { value: "" }, all),
    values.map((value) => el("option", { value, selected: value === chosen }, value))));
}

export function keyValues(pairs, name) {
  return el("dl", { class: "facts", "data-facts": name }, pairs.flatMap(([label, text, value]) => [
    el("dt", {}, label), el("dd", { "data-value": value === undefined ? "" : String(value ?? "") }, text),
  ]));
}

// The day (YYYY-MM-DD) `days` and `months` before `day`, in UTC.
export function dayBefore(day, { days = 0, months = 0 } = {}) {
  const moment = new Date(`${day}T00:00:00Z`);
  moment.setUTCMonth(moment.getUTCMonth() - months, moment.getUTCDate() - days);
  return moment.toISOString().slice(0, 10);
}

// The query string as a plain object, and a writer that keeps the address a permalink.
export function queryParams() {
  return Object.fromEntries(new URLSearchParams(window.location.search));
}

export function replaceQuery(values) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, value);
  }
  const query = params.toString();
  window.history.replaceState(null, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
}
