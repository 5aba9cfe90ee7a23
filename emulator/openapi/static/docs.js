// The reference page's filter: type to show only the operations and schemas that match.
(function () {
  var input = document.getElementById("filter");
  var items = document.querySelectorAll("article[data-search]");
  input.addEventListener("input", function () {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    items.forEach(function (item) {
      var text = item.getAttribute("data-search").toLowerCase();
      var shown = words.every(function (w) { return text.indexOf(w) !== -1; });
      item.classList.toggle("hidden", !shown);
    });
  });
})();
