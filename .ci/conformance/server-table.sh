#!/usr/bin/env bash
# The README "Conformance" server table, from the results server.sh left in OUTDIR: one
# row per server scenario, per wire version a column saying how that wire's requirement set
# lists the scenario and one column each for the run against the backend directly and the
# run through `mcp-bridge serve`; each run's cell the checks passed of those scored
# (successes, failures and warnings; informational and skipped checks are not counted),
# marked ✗ where it failed, with the number of attempts where it took more than one.
#
#   .ci/conformance/server-table.sh OUTDIR            prints the table
#   .ci/conformance/server-table.sh OUTDIR README.md  writes it into README between the markers
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/node_modules/.bin/node" - "$@" <<'JS'
const fs = require("fs"), path = require("path");
const [out, readme] = process.argv.slice(2);
if (!out) { console.error("usage: server-table.sh OUTDIR [README.md]"); process.exit(2); }

const sides = ["direct", "serve"];
const wires = fs.readdirSync(out).filter(n => /^\d{4}-\d{2}-\d{2}$/.test(n)).sort();
const rows = [], cells = new Map(), kinds = new Map();
const read = p => { try { return fs.readFileSync(p, "utf8").trim(); } catch { return null; } };
const stamp = /^\d{4}-\d{2}-\d{2}T[\d-]+Z$/;
for (const wire of wires) {
  // Scenarios in the order server.sh ran them, each with how the set lists it.
  const dir = path.join(out, wire);
  const names = [];
  for (const line of (read(path.join(dir, "scenarios")) || "").split("\n")) {
    const [s, kind] = line.split(" ");
    if (s) { names.push(s); kinds.set(`${s}\0${wire}`, kind); }
  }
  for (const s of names) {
    if (!rows.includes(s)) rows.push(s);
    for (const side of sides) {
      const sd = path.join(dir, side), exit = read(path.join(sd, s + ".exit"));
      if (exit === null) continue;
      const tries = Number(read(path.join(sd, s + ".attempts")) || 1);
      // The newest result folder: the attempt that passed, or the last that failed.
      const found = fs.existsSync(sd) ? fs.readdirSync(sd)
        .filter(n => n.startsWith(`server-${s}-`) && stamp.test(n.slice(`server-${s}-`.length))).sort().pop() : undefined;
      let pass = 0, total = 0;
      if (found) {
        try {
          for (const c of JSON.parse(fs.readFileSync(path.join(sd, found, "checks.json"), "utf8"))) {
            if (c.status === "SUCCESS") pass++;
            if (["SUCCESS", "FAILURE", "WARNING"].includes(c.status)) total++;
          }
        } catch { /* no checks.json: counted as none */ }
      }
      const ok = exit === "0";
      const text = `${ok ? "" : "✗ "}${pass}/${total}${tries > 1 ? ` (${tries} attempts)` : ""}`;
      cells.set(`${s}\0${wire}\0${side}`, { text, ok, pass, total });
    }
  }
}

const kindText = { required: "required", extension: "extension", pending: "pending", "added-after-release": "added after release", unlisted: "in no set" };
const lines = [];
lines.push(`| scenario | ${wires.map(w => `${w}: set | ${w}: direct | ${w}: through serve`).join(" | ")} |`);
lines.push(`|---|${wires.map(() => "---|---|---|").join("")}`);
for (const s of rows) {
  const cs = wires.flatMap(w => {
    const k = kinds.get(`${s}\0${w}`);
    return [k ? (kindText[k] ?? k) : "", ...sides.map(side => cells.get(`${s}\0${w}\0${side}`)?.text ?? "")];
  });
  lines.push(`| \`${s}\` | ${cs.join(" | ")} |`);
}
const sum = wires.flatMap(w => ["", ...sides.map(side => {
  const cs = rows.map(s => cells.get(`${s}\0${w}\0${side}`)).filter(Boolean);
  const ok = cs.filter(x => x.ok).length, p = cs.reduce((a, x) => a + x.pass, 0), t = cs.reduce((a, x) => a + x.total, 0);
  return `${ok} of ${cs.length} pass (${p}/${t} checks)`;
})]);
lines.push(`| **all** | ${sum.join(" | ")} |`);
const table = lines.join("\n") + "\n";

if (!readme) { process.stdout.write(table); process.exit(0); }
const begin = "<!-- conformance server table: begin (.ci/conformance/server-table.sh writes it) -->", end = "<!-- conformance server table: end -->";
const text = fs.readFileSync(readme, "utf8"), i = text.indexOf(begin), j = text.indexOf(end);
if (i < 0 || j < i) { console.error(`server-table.sh: ${readme} has no "${begin}" … "${end}" markers`); process.exit(1); }
fs.writeFileSync(readme, text.slice(0, i + begin.length) + "\n" + table + text.slice(j));
console.error(`server-table.sh: wrote the table into ${readme}`);
JS
