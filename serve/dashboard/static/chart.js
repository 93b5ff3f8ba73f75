// Charts as inline SVG, drawn at the width they are shown at (see drawnAtItsWidth), and every mark
// carries the API's value in data-* attributes, so a reader (or a test) can check the picture
// against the answer it was drawn from.

const NS = "http://www.w3.org/2000/svg";

export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  node.append(...children.filter(Boolean));
  return node;
}

// {name: value} as data-name attributes: each mark carries the API's values it was drawn from.
function dataAttributes(data = {}) {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [`data-${key}`, value]));
}

function title(text) {
  const node = svg("title");
  node.textContent = text;
  return node;
}

// --- scales ----------------------------------------------------------------------------------------

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

function linearTicks([low, high], count) {
  if (low === high) return [low];
  const step = niceStep(high - low, count);
  const ticks = [];
  for (let value = Math.ceil(low / step) * step; value <= high + step * 1e-9; value += step) {
    ticks.push(Number(value.toPrecision(12)));
  }
  return ticks;
}

function logTicks([low, high]) {
  const ticks = [];
  for (let power = Math.floor(Math.log10(low)); power <= Math.ceil(Math.log10(high)); power += 1) {
    for (const multiple of [1, 2, 5]) {
      const value = multiple * 10 ** power;
      if (value >= low && value <= high) ticks.push(Number(value.toPrecision(12)));
    }
  }
  return ticks.length > 12 ? ticks.filter((value) => Math.log10(value) % 1 === 0) : ticks;
}

function timeTicks([low, high]) {
  const days = (high - low) / 86400000;
  const stepMonths = days > 1400 ? 12 : days > 700 ? 6 : days > 200 ? 3 : 1;
  const ticks = [];
  const start = new Date(low);
  let cursor = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - (start.getUTCMonth() % stepMonths) + stepMonths, 1);
  while (cursor <= high) {
    ticks.push(cursor);
    const date = new Date(cursor);
    cursor = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + stepMonths, 1);
  }
  return ticks;
}

function scale(type, domain, range) {
  let [low, high] = domain;
  if (type === "log") {
    low = Math.max(low, 1e-9);
    high = Math.max(high, low * 1.0001);
  } else if (low === high) {
    const pad = Math.abs(low) * 0.05 || 1;
    low -= pad;
    high += pad;
  }
  const [start, end] = range;
  const forward = type === "log" ? Math.log10 : (value) => value;
  const a = forward(low);
  const b = forward(high);
  const map = (value) => start + ((forward(value) - a) / (b - a)) * (end - start);
  map.domain = [low, high];
  map.ticks = (count) => (type === "log" ? logTicks([low, high]) : type === "time" ? timeTicks([low, high])
    : linearTicks([low, high], count));
  return map;
}

export function extent(values, { pad = 0, zero = false } = {}) {
  const finite = values.filter((value) => Number.isFinite(value));
  if (!finite.length) return [0, 1];
  let low = Math.min(...finite);
  let high = Math.max(...finite);
  if (zero) low = Math.min(0, low);
  const span = high - low || Math.abs(high) || 1;
  return [low - span * pad * (zero && low === 0 ? 0 : 1), high + span * pad];
}

export function dateValue(text) {
  return Date.parse(`${text}T00:00:00Z`);
}

export function dateText(milliseconds) {
  return new Date(milliseconds).toISOString().slice(0, 10);
}

// --- a plot with axes -----------------------------------------------------------------------------

// A chart is drawn at the width it is shown at, a unit of its viewBox to a CSS pixel, so that its
// text is as large on a phone as on a wide screen (a fixed viewBox scaled to a 350 px card shrank
// 12 px labels to 6). `layout(width)` draws it; it is drawn first at a guess and again whenever its
// width changes (a ResizeObserver), once it is on the page.
function drawnAtItsWidth(root, layout, guess) {
  let drawn = 0;
  const draw = (width) => {
    drawn = width;
    layout(width);
  };
  draw(Math.max(MIN_WIDTH, Math.round(guess)));
  if (typeof ResizeObserver !== "function") return;
  new ResizeObserver((entries) => {
    const width = Math.round(entries[entries.length - 1].contentRect.width);
    if (width >= MIN_WIDTH && Math.abs(width - drawn) > 1) draw(width);
  }).observe(root);
}

const MIN_WIDTH = 240;
const CHAR_WIDTH = 7.5; // about a character's width at the charts' 12 px, to keep labels apart
const LINE_HEIGHT = 18;

// Before the chart is on the page: the page's width less its margins, at most `width`.
function guessWidth(width) {
  return Math.min(width, (document.querySelector("main")?.clientWidth || window.innerWidth) - 32);
}

// Every step-th tick with its label, the step such that labels `size` pixels long (by default, as
// wide as the widest) do not overlap along `span` pixels.
function spaced(ticks, labels, span, size = null) {
  const room = size ?? Math.max(1, ...labels.map((label) => label.length)) * CHAR_WIDTH + 12;
  const step = Math.max(1, Math.ceil((ticks.length * room) / Math.max(span, 1)));
  return ticks.map((tick, position) => [tick, labels[position]]).filter((_, position) => position % step === 0);
}

// options: {x: {type, domain, format, label}, y: {...}, width, height, marginLeft, name, label}.
// The marks are added by drawings (addLine, addBand, addMarkers), kept so that a new width draws
// them again on the new scales.
export function createPlot(options) {
  const root = svg("svg", { class: "chart", role: "img", "aria-label": options.label, "data-chart": options.name,
    preserveAspectRatio: "xMidYMid meet" });
  // What a focused or tapped point says, written in the plot: a tooltip only follows a mouse.
  const readout = svg("text", { "text-anchor": "end", class: "readout", "aria-live": "polite", "data-readout": "" });
  const plot = { root, drawings: [], show: (text) => { readout.textContent = text; } };
  plot.layer = (name) => {
    const group = svg("g", { class: `layer ${name}`, "data-layer": name });
    root.insertBefore(group, readout); // the readout stays drawn over every layer
    return group;
  };
  plot.draw = (drawing) => {
    plot.drawings.push(drawing);
    return drawing();
  };
  const layout = (width) => {
    const height = Math.round((options.height || 320) * (width < 500 ? 0.85 : 1));
    const margin = { top: 12, right: 16, bottom: 36, left: options.marginLeft || 64 };
    const x = scale(options.x.type || "linear", options.x.domain, [margin.left, width - margin.right]);
    const y = scale(options.y.type || "linear", options.y.domain, [height - margin.bottom, margin.top]);
    Object.assign(plot, { x, y, margin, width, height });
    root.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const grid = svg("g", { class: "grid" });
    const axes = svg("g", { class: "axes" });
    // As many labels as fit: one a line up the y axis, side by side along the x axis.
    const yTicks = y.ticks(5);
    const yLabels = yTicks.map((tick) => (options.y.format || String)(tick));
    for (const [tick, label] of spaced(yTicks, yLabels, height - margin.top - margin.bottom, LINE_HEIGHT)) {
      grid.append(svg("line", { x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick) }));
      const text = svg("text", { x: margin.left - 6, y: y(tick) + 4, "text-anchor": "end" });
      text.textContent = label;
      axes.append(text);
    }
    const xTicks = x.ticks(6);
    const xLabels = xTicks.map((tick) => (options.x.format || String)(tick));
    for (const [tick, label] of spaced(xTicks, xLabels, width - margin.left - margin.right)) {
      grid.append(svg("line", { x1: x(tick), x2: x(tick), y1: margin.top, y2: height - margin.bottom }));
      const text = svg("text", { x: x(tick), y: height - margin.bottom + 16, "text-anchor": "middle" });
      text.textContent = label;
      axes.append(text);
    }
    if (options.y.label) {
      const middle = margin.top + (height - margin.top - margin.bottom) / 2;
      const text = svg("text", { x: 12, y: middle, class: "axis-label", transform: `rotate(-90 12 ${middle})`,
        "text-anchor": "middle" });
      text.textContent = options.y.label;
      axes.append(text);
    }
    if (options.x.label) {
      const text = svg("text", { x: (margin.left + width - margin.right) / 2, y: height - 4, class: "axis-label",
        "text-anchor": "middle" });
      text.textContent = options.x.label;
      axes.append(text);
    }
    readout.setAttribute("x", width - margin.right);
    readout.setAttribute("y", margin.top + 12);
    root.replaceChildren(grid, axes, readout);
    for (const drawing of plot.drawings) drawing();
  };
  drawnAtItsWidth(root, layout, guessWidth(options.width || 720));
  return plot;
}

// points: [{x, y}]; a null y breaks the line. `step` holds each value until the next point,
// which is how a posted price behaves.
export function addLine(plot, points, { name, className, step = false, data = {} } = {}) {
  return plot.draw(() => {
    let path = "";
    let previous = null;
    for (const point of points) {
      if (!Number.isFinite(point.y)) {
        previous = null;
        continue;
      }
      const px = plot.x(point.x).toFixed(2);
      const py = plot.y(point.y).toFixed(2);
      if (previous === null) path += `M${px},${py}`;
      else path += step ? `H${px}V${py}` : `L${px},${py}`;
      previous = point;
    }
    const line = svg("path", { d: path || "M0,0", class: `line ${className || ""}`, "data-series": name,
      ...dataAttributes(data) });
    plot.layer(`line-${name}`).append(line);
    return line;
  });
}

// points: [{x, low, high}]; the shaded area between them.
export function addBand(plot, points, { name, className } = {}) {
  return plot.draw(() => {
    const upper = points.map((point) => `${plot.x(point.x).toFixed(2)},${plot.y(point.high).toFixed(2)}`);
    const lower = points.slice().reverse().map((point) => `${plot.x(point.x).toFixed(2)},${plot.y(point.low).toFixed(2)}`);
    const band = svg("polygon", { points: [...upper, ...lower].join(" "), class: `band ${className || ""}`,
      "data-band": name });
    plot.layer(`band-${name}`).append(band);
    return band;
  });
}

// One mark per shape; `data` becomes data-* attributes, `label` its tooltip.
export function marker(shape, cx, cy, size, attributes = {}) {
  const r = size;
  switch (shape) {
    case "square":
      return svg("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, ...attributes });
    case "diamond":
      return svg("polygon", { points: `${cx},${cy - r * 1.3} ${cx + r * 1.3},${cy} ${cx},${cy + r * 1.3} ${cx - r * 1.3},${cy}`,
        ...attributes });
    case "triangle":
      return svg("polygon", { points: `${cx},${cy - r * 1.3} ${cx + r * 1.2},${cy + r} ${cx - r * 1.2},${cy + r}`,
        ...attributes });
    case "ring":
      return svg("circle", { cx, cy, r, ...attributes, class: `${attributes.class || ""} ring` });
    default:
      return svg("circle", { cx, cy, r, ...attributes });
  }
}

export function addMarkers(plot, points, { name, shape = "circle", size = 4, className, label } = {}) {
  return plot.draw(() => {
    const group = plot.layer(`points-${name}`);
    for (const point of points) {
      if (!Number.isFinite(point.y)) continue;
      const mark = marker(shape, plot.x(point.x), plot.y(point.y), size,
        { class: `point ${className || ""}`, ...dataAttributes(point.data) });
      if (label) {
        // Reached by Tab and by a tap, as well as by the mouse: its value is said in the readout.
        const text = label(point);
        mark.append(title(text));
        mark.setAttribute("tabindex", "0");
        mark.setAttribute("role", "img");
        mark.setAttribute("aria-label", text);
        mark.addEventListener("focus", () => plot.show(text));
        mark.addEventListener("click", () => plot.show(text));
      }
      group.append(mark);
    }
    return group;
  });
}

// Horizontal bars, one per item: [{label, value, className, data}]. Bars start at zero. Drawn at
// the width it is shown at (at most `width`), as a plot is.
export function barChart(items, { name, format = String, label, width = 720, barHeight = 18 } = {}) {
  const height = items.length * (barHeight + 6) + 24;
  const high = Math.max(...items.map((item) => item.value).filter(Number.isFinite), 0) || 1;
  const root = svg("svg", { class: "chart bars", role: "img", "aria-label": label, "data-chart": name });
  const longest = Math.max(...items.map((item) => String(item.label).length), 0);
  const layout = (shown) => {
    root.setAttribute("viewBox", `0 0 ${shown} ${height}`);
    // Room for the longest label, up to 45% of the width; a longer label is cut short with "…"
    // (its bar's tooltip names it in full).
    const left = Math.min(Math.max(80, 12 + CHAR_WIDTH * longest), Math.round(shown * 0.45));
    const fits = Math.floor((left - 12) / CHAR_WIDTH);
    const right = 90;
    root.replaceChildren();
    items.forEach((item, position) => {
      const top = 8 + position * (barHeight + 6);
      const length = Number.isFinite(item.value) ? ((shown - left - right) * item.value) / high : 0;
      const words = String(item.label);
      const text = svg("text", { x: left - 6, y: top + barHeight * 0.72, "text-anchor": "end", class: "bar-label" });
      text.textContent = words.length > fits ? `${words.slice(0, fits - 1)}…` : words;
      const bar = svg("rect", { x: left, y: top, width: Math.max(length, 1), height: barHeight,
        class: `bar ${item.className || ""}`, "data-value": item.value, ...dataAttributes(item.data) },
      title(`${item.label}: ${format(item.value)}`));
      const value = svg("text", { x: left + length + 4, y: top + barHeight * 0.72, class: "bar-value" });
      value.textContent = format(item.value);
      root.append(text, bar, value);
    });
  };
  drawnAtItsWidth(root, layout, guessWidth(width));
  return root;
}

// A legend in HTML: [{shape, className, label, description}], each with its own small mark.
export function legend(entries, name) {
  const list = document.createElement("ul");
  list.className = "legend";
  list.dataset.legend = name;
  for (const entry of entries) {
    const item = document.createElement("li");
    item.dataset.entry = entry.key || entry.label;
    const icon = svg("svg", { viewBox: "0 0 20 20", width: 20, height: 20, class: "legend-mark" });
    if (entry.shape === "line") icon.append(svg("line", { x1: 1, x2: 19, y1: 10, y2: 10, class: `line ${entry.className}` }));
    else if (entry.shape === "band") icon.append(svg("rect", { x: 1, y: 4, width: 18, height: 12, class: `band ${entry.className}` }));
    else icon.append(marker(entry.shape, 10, 10, 5, { class: `point ${entry.className}` }));
    const text = document.createElement("span");
    const strong = document.createElement("strong");
    strong.textContent = entry.label;
    text.append(strong, entry.description ? ` — ${entry.description}` : "");
    item.append(icon, text);
    list.append(item);
  }
  return list;
}
