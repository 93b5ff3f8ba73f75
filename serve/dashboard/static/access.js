// Whose requests these pages make. Without a key the pages are an anonymous client of /v1 and
// share the free tier's hourly limit of the visitor's address; with a key (pasted, or created
// here with POST /v1/keys) every /v1 call carries it as X-API-Key and counts against its tier.
// The key is kept in this browser's localStorage only, and sent only to this server.

const STORAGE_NAME = "oracle.apiKey";
const KEY_NAME = "dashboard"; // the name a key created here is given (shown by /v1/keys/usage)

export function storedKey() {
  try {
    return window.localStorage.getItem(STORAGE_NAME) || "";
  } catch {
    return ""; // storage switched off: the pages stay on the free tier
  }
}

function storeKey(key) {
  try {
    if (key) window.localStorage.setItem(STORAGE_NAME, key);
    else window.localStorage.removeItem(STORAGE_NAME);
    return true;
  } catch {
    return false;
  }
}

// The headers every /v1 request carries.
export function accessHeaders() {
  const key = storedKey();
  return key ? { "x-api-key": key } : {};
}

// The RateLimit headers of the latest /v1 answer, shown in the panel's summary line.
export function noteLimits(response) {
  const limit = response.headers.get("ratelimit-limit");
  const remaining = response.headers.get("ratelimit-remaining");
  const summary = document.getElementById("access-summary");
  if (!summary || limit === null || remaining === null) return;
  summary.dataset.limit = limit;
  summary.dataset.remaining = remaining;
  summary.textContent = `${storedKey() ? "Your key" : "Browsing without a key"}: ${Number(remaining).toLocaleString("en")} of ` +
    `${Number(limit).toLocaleString("en")} requests left this hour`;
}

function say(text, key) {
  const message = document.getElementById("key-message");
  message.replaceChildren(text);
  if (key) {
    const code = document.createElement("code");
    code.id = "new-key";
    code.textContent = key;
    message.append(" ", code);
  }
}

async function createKey() {
  let response;
  let body = null;
  try {
    response = await fetch("/v1/keys", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ name: KEY_NAME }),
    });
    body = await response.json();
  } catch (failure) {
    say(`The key could not be created: ${failure.message || failure}`);
    return;
  }
  if (!response.ok) {
    say(`The key could not be created: ${body?.detail || body?.title || `HTTP ${response.status}`}`);
    return;
  }
  const created = body.data;
  storeKey(created.key);
  say(`A ${created.tier} key (${Number(created.requests_per_hour).toLocaleString("en")} requests an hour) is now ` +
    "used by these pages. It is kept in this browser only and not shown again: copy it now to use it elsewhere:",
  created.key);
}

// Wires the panel that shell.html holds; called once per page.
export function setupAccessPanel() {
  const form = document.getElementById("key-form");
  if (!form) return;
  const input = document.getElementById("key-input");
  const summary = document.getElementById("access-summary");
  summary.textContent = storedKey() ? "Using your API key" : "No key: browsing limit";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      say("Paste a key first.");
      return;
    }
    storeKey(key);
    input.value = "";
    say("These pages now send your key. Reload to fetch again with it.");
  });
  document.getElementById("key-forget").addEventListener("click", () => {
    storeKey("");
    say("The key is forgotten: these pages are back on the free tier.");
  });
  document.getElementById("key-create").addEventListener("click", createKey);
}
