// Whatever stops a page's own script (an error, a module that did not load, an answer that never
// comes), the page says so instead of showing "Loading…" forever. A classic script, not a module:
// it runs even when the page's modules cannot be loaded or parsed.
(function guardThePage() {
  "use strict";
  var SLOW_MS = 15000;

  function say(title, reason) {
    var main = document.getElementById("main");
    if (!main || main.getAttribute("aria-busy") !== "true") return; // the page has shown itself
    var box = document.createElement("div");
    box.className = "problem";
    box.setAttribute("role", "alert");
    box.setAttribute("data-page-error", "");
    var heading = document.createElement("strong");
    heading.textContent = title;
    var detail = document.createElement("p");
    detail.textContent = reason;
    var help = document.createElement("p");
    help.append("Reload the page to try again. The same figures are in the ");
    var link = document.createElement("a");
    link.href = "/schema";
    link.textContent = "/v1 API";
    help.append(link, ".");
    box.append(heading, detail, help);
    main.replaceChildren(box);
  }

  // Capturing: a script element's load failure does not bubble, but reaches the window here.
  window.addEventListener("error", function (event) {
    var source = event.target && event.target.src;
    say("This page could not be shown.", source ? "A script of the page did not load: " + source
      : "The page's script failed: " + (event.message || "an unknown error"));
  }, true);
  window.addEventListener("unhandledrejection", function (event) {
    var reason = event.reason && event.reason.message ? event.reason.message : String(event.reason);
    say("This page could not be shown.", "The page's script failed: " + reason);
  });
  window.setTimeout(function () {
    say("This page is still loading.", "No answer after " + SLOW_MS / 1000 + " seconds: the API may be slow or "
      + "out of reach. The page fills in if its answers still come.");
  }, SLOW_MS);
})();
