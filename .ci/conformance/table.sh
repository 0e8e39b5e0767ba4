#!/usr/bin/env bash
# The README "Conformance" table, from the results run.sh left in OUTDIR: one row per
# client scenario, one column per suite version and wire version, each cell the checks
# passed of those scored (successes, failures and warnings; the suite's informational and
# skipped checks are not counted), marked ✗ where the run failed.
#
#   .ci/conformance/table.sh OUTDIR            prints the table
#   .ci/conformance/table.sh OUTDIR README.md  writes it into README between the markers
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/node_modules/.bin/node" - "$@" <<'JS'
const fs = require("fs"), path = require("path");
const [out, readme] = process.argv.slice(2);
if (!out) { console.error("usage: table.sh OUTDIR [README.md]"); process.exit(2); }

// Every <version>/<wire>/<scenario>.exit that run.sh wrote, in the order the suite ran them
// (by file time), and the newest <scenario>-<time>/checks.json beside it.
const runs = [];
function walk(dir, rel) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name), r = rel ? rel + "/" + e.name : e.name;
    if (e.isDirectory()) walk(p, r);
    else if (e.name.endsWith(".exit")) runs.push({ file: p, rel: r.slice(0, -".exit".length) });
  }
}
walk(out, "");
runs.sort((a, b) => fs.statSync(a.file).mtimeMs - fs.statSync(b.file).mtimeMs);

const cols = [], rows = [], cells = new Map();
for (const r of runs) {
  const [version, wire, ...rest] = r.rel.split("/");
  const scenario = rest.join("/");
  const col = `${version} ${wire}`;
  if (!cols.includes(col)) cols.push(col);
  if (!rows.includes(scenario)) rows.push(scenario);
  const exit = fs.readFileSync(r.file, "utf8").trim();
  let cell;
  if (exit === "unsupported") cell = { text: "not supported", ok: null };
  else {
    const dir = path.dirname(r.file), base = path.basename(scenario);
    const stamp = /^\d{4}-\d{2}-\d{2}T[\d-]+Z$/;
    const found = fs.readdirSync(dir).filter(n => n.startsWith(base + "-") && stamp.test(n.slice(base.length + 1))).sort().pop();
    let pass = 0, total = 0;
    if (found) {
      try {
        for (const c of JSON.parse(fs.readFileSync(path.join(dir, found, "checks.json"), "utf8"))) {
          if (c.status === "SUCCESS") pass++;
          if (["SUCCESS", "FAILURE", "WARNING"].includes(c.status)) total++;
        }
      } catch { /* no checks.json: counted as none */ }
    }
    const ok = exit === "0";
    cell = { text: `${ok ? "" : "✗ "}${pass}/${total}`, ok, pass, total };
  }
  cells.set(`${scenario}\0${col}`, cell);
}

// Columns: suite versions in the order they ran, each one's wires oldest first, the
// suite's default ("-": no wire named) last.
const order = [...new Set(cols.map(c => c.split(" ")[0]))];
const wireKey = w => (w === "-" ? "9999" : w);
cols.sort((a, b) => {
  const [va, wa] = a.split(" "), [vb, wb] = b.split(" ");
  return order.indexOf(va) - order.indexOf(vb) || wireKey(wa).localeCompare(wireKey(wb));
});
const head = c => { const [v, w] = c.split(" "); return `${v} @ ${w === "-" ? "default" : w}`; };
const lines = [];
lines.push(`| scenario | ${cols.map(head).join(" | ")} |`);
lines.push(`|---|${cols.map(() => "---|").join("")}`);
for (const s of rows) lines.push(`| \`${s}\` | ${cols.map(c => cells.get(`${s}\0${c}`)?.text ?? "").join(" | ")} |`);
const sum = cols.map(c => {
  const cs = rows.map(s => cells.get(`${s}\0${c}`)).filter(x => x && x.ok !== null);
  const ok = cs.filter(x => x.ok).length, p = cs.reduce((a, x) => a + x.pass, 0), t = cs.reduce((a, x) => a + x.total, 0);
  return `${ok} of ${cs.length} pass (${p}/${t} checks)`;
});
lines.push(`| **all** | ${sum.join(" | ")} |`);
const table = lines.join("\n") + "\n";

if (!readme) { process.stdout.write(table); process.exit(0); }
const begin = "<!-- conformance table: begin (.ci/conformance/table.sh writes it) -->", end = "<!-- conformance table: end -->";
const text = fs.readFileSync(readme, "utf8"), i = text.indexOf(begin), j = text.indexOf(end);
if (i < 0 || j < i) { console.error(`table.sh: ${readme} has no "${begin}" … "${end}" markers`); process.exit(1); }
fs.writeFileSync(readme, text.slice(0, i + begin.length) + "\n" + table + text.slice(j));
console.error(`table.sh: wrote the table into ${readme}`);
JS
