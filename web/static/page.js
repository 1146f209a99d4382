// The result page's small helpers: dates in the reader's locale, and the
// "copy path" buttons of files a browser will not open from a web page.
(function () {
  "use strict";
  // <time datetime="2026-03-01">2026-03-01</time>: the server writes ISO
  // dates; the reader sees them as their locale writes dates.
  var fmt;
  try {
    fmt = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
  } catch (e) {
    return;
  }
  document.querySelectorAll("time.date[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime") + "T00:00:00Z");
    if (!isNaN(d)) {
      el.textContent = fmt.format(d);
    }
  });
})();

(function () {
  "use strict";
  // Copies text without the asynchronous clipboard, which a page served
  // over plain HTTP (most intranets) does not have.
  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (e) {}
    area.remove();
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest("button.copy[data-copy]");
    if (!button) {
      return;
    }
    var text = button.getAttribute("data-copy");
    var copy = navigator.clipboard && window.isSecureContext ? navigator.clipboard.writeText(text) : fallback(text);
    var status = button.nextElementSibling;
    copy.then(function () {
      if (status) status.textContent = "copied";
    }, function () {
      if (status) status.textContent = "select the path and copy it";
    });
  });
})();
