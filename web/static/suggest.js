// Completions as you type: the words and titles /api/suggest offers for
// what is in the search box fill its datalist, which the browser shows
// under it. Nothing is sent until the typing pauses.
(function () {
  "use strict";
  var box = document.getElementById("q");
  var list = document.getElementById("completions");
  if (!box || !list) {
    return;
  }
  var timer = null;
  var asked = "";
  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var typed = box.value;
      if (typed === asked) {
        return;
      }
      asked = typed;
      fetch("/api/suggest?q=" + encodeURIComponent(typed), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : { completions: [] }; })
        .then(function (d) {
          if (box.value !== typed) {
            return; // typed on since
          }
          var options = (d.completions || []).map(function (c) {
            var o = document.createElement("option");
            o.value = c.text;
            return o;
          });
          list.replaceChildren.apply(list, options);
        })
        .catch(function () {});
    }, 150);
  });
})();
