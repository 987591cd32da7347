// The dashboard's pie of assets by status, drawn by Chartist (served joined before this file) from
// the table beside it, whose rows carry each label's count and colour: the numbers come with the
// page, and readers without JavaScript or sight read the same ones in the table.
(() => {
  const table = document.getElementById("assets-by-status");
  const target = document.getElementById("assets-by-status-chart");
  if (!table || !target || !window.Chartist) return;
  // Chartist sizes its SVG with a style attribute, which the pages' Content-Security-Policy refuses
  // (and reports as an error): the stylesheet sizes it instead, so the attribute is left out.
  const { Svg } = window.Chartist;
  const attr = Svg.prototype.attr;
  Svg.prototype.attr = function (attributes, namespace) {
    if (typeof attributes !== "object" || attributes === null || !("style" in attributes))
      return attr.call(this, attributes, namespace);
    const { style: _style, ...rest } = attributes;
    return attr.call(this, rest, namespace);
  };
  const rows = Array.from(table.tBodies[0].rows);
  const colors = rows.map((row) => row.dataset.color);
  const chart = new window.Chartist.PieChart(
    target,
    { series: rows.map((row) => Number(row.dataset.count)) },
    { showLabel: false, ignoreEmptyValues: true },
  );
  // A presentation attribute, not a style: the pages' Content-Security-Policy allows no inline style.
  chart.on("draw", (data) => {
    if (data.type === "slice") data.element.attr({ fill: colors[data.index] });
  });
})();
