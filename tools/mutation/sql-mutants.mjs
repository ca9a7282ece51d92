/**
 * `npm run mutate:sql`: mutants of the SQL text itself, which Stryker leaves alone (it only
 * empties a string, and skips the statements kept in module constants). Each mutant is a
 * plausible one-line mistake in a statement of the compiled adapters (dist, built first): it is
 * applied alone, the suites named run with --bail, and the file is put back. A mutant is killed
 * when a test fails; the first failing test is reported. See docs/mutation-testing.md, "Adapters".
 *
 *   node tools/mutation/sql-mutants.mjs [name ...]   (no name: every mutant)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const PG = "dist/src/adapters/postgres";
const CONTRACTS = ["dist/test/adapters/postgres.test.js"];
const SHARING = ["dist/test/http/sharing-contract.test.js"];
const DIFFERENTIAL = ["dist/test/adapters/granted-records-differential.test.js", "dist/test/adapters/permission-differential.test.js"];
// The quickest suites first: --bail stops at the first failure.
const ALL = [...SHARING, ...CONTRACTS, "dist/test/adapters/postgres-specifics.test.js", ...DIFFERENTIAL];

/** name, file, text found exactly once, its replacement, the suites to run. */
const MUTANTS = [
  {
    name: "grant scan without its upper bound",
    file: `${PG}/record-query-sql.js`,
    find: '${upper === undefined ? "" : ` AND a.object_id < ${params.add(upper, "text")}`}',
    replace: "",
    tests: ALL,
  },
  {
    name: "grant scan on read only (write does not imply read)",
    file: `${PG}/record-query-sql.js`,
    find: "a.permission = q.permission",
    replace: "a.permission = 'read'",
    tests: ALL,
  },
  {
    name: "counter bump in a transaction not strictly increasing",
    file: `${PG}/postgres-record-store.js`,
    find: "GREATEST(${NOW_MS}, t.last_modified + 1) END",
    replace: "GREATEST(${NOW_MS}, t.last_modified) END",
    tests: ALL,
  },
  {
    name: "requested timestamp equal to the counter honoured",
    file: `${PG}/postgres-record-store.js`,
    find: "CASE WHEN ${req}::bigint > t.last_modified",
    replace: "CASE WHEN ${req}::bigint >= t.last_modified",
    tests: ALL,
  },
  {
    name: "bulk deletion's bump not strictly increasing",
    file: `${PG}/postgres-record-store.js`,
    find: "GREATEST(${NOW_MS}, t.last_modified + 1) + (SELECT max(total) FROM numbered) - 1",
    replace: "GREATEST(${NOW_MS}, t.last_modified) + (SELECT max(total) FROM numbered) - 1",
    tests: ALL,
  },
  {
    name: "loss in a transaction stamped at the counter",
    file: `${PG}/lost-access-sql.js`,
    find: "GREATEST(${NOW_MS}, t.last_modified + 1) + $6::bigint - 1",
    replace: "GREATEST(${NOW_MS}, t.last_modified) + $6::bigint - 1",
    tests: ALL,
  },
  {
    name: "a repeated loss keeps its old stamp",
    file: `${PG}/lost-access-sql.js`,
    find: "ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified`",
    replace: "ON CONFLICT (collection, parent_id, principal, id) DO NOTHING`",
    tests: ALL,
  },
  {
    name: "losses read from the feed's cursor inclusive",
    file: `${PG}/lost-access-sql.js`,
    find: "AND last_modified > $3",
    replace: "AND last_modified >= $3",
    tests: [...ALL, "dist/test/sync/events.test.js"],
  },
  {
    name: "losses of every principal shown",
    file: `${PG}/lost-access-sql.js`,
    find: "AND l.principal = ANY(${principals})",
    replace: "",
    tests: ALL,
  },
  {
    name: "a loss hidden while anyone reads the record (granted listing)",
    file: `${PG}/lost-access-sql.js`,
    find: "AND a.principal = ANY(${principals}))`",
    replace: ")`",
    tests: ALL,
  },
  {
    name: "lost tombstones past upTo kept",
    file: `${PG}/lost-access-sql.js`,
    find: 'conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")}`)',
    replace: 'conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")} + 1`)',
    tests: ALL,
  },
  {
    name: "listing's upTo bound exclusive",
    file: `${PG}/postgres-record-store.js`,
    find: '[`r.last_modified <= ${params.add(query.upTo, "bigint")}`]',
    replace: '[`r.last_modified < ${params.add(query.upTo, "bigint")}`]',
    tests: ALL,
  },
  {
    name: "collection check without the user's groups",
    file: `${PG}/postgres-permission-store.js`,
    find: "$3::text[] || ARRAY(SELECT principal FROM extra)",
    replace: "$3::text[]",
    tests: ALL,
  },
  {
    name: "permission check without its principals",
    file: `${PG}/postgres-permission-store.js`,
    find: "AND e.principal = ANY($3::text[]) LIMIT 1",
    replace: "LIMIT 1",
    tests: ALL,
  },
  {
    name: "user principals without those of system.Authenticated",
    file: `${PG}/postgres-permission-store.js`,
    find: "WHERE user_id = $1 OR user_id = $2",
    replace: "WHERE user_id = $1",
    tests: ALL,
  },
  {
    name: "tombstone purge bound inclusive",
    file: `${PG}/postgres-record-store.js`,
    find: 'conditions.push(`last_modified < ${params.add(before, "bigint")}`)',
    replace: 'conditions.push(`last_modified <= ${params.add(before, "bigint")}`)',
    tests: ALL,
  },
  {
    name: "group commit's counter stored one below its last stamp",
    file: `${PG}/group-commit.js`,
    find: "return `UPDATE timestamps SET last_modified = ${counter} WHERE",
    replace: "return `UPDATE timestamps SET last_modified = ${counter} - 1 WHERE",
    tests: [...ALL, "dist/test/adapters/postgres-group-commit.test.js"],
  },
];

const wanted = process.argv.slice(2);
const chosen = wanted.length === 0 ? MUTANTS : MUTANTS.filter((m) => wanted.includes(m.name));
const results = [];
for (const mutant of chosen) {
  const original = readFileSync(mutant.file, "utf8");
  const found = original.split(mutant.find).length - 1;
  if (found !== 1) throw new Error(`${mutant.name}: the text is found ${found} times in ${mutant.file}`);
  writeFileSync(
    mutant.file,
    original.replace(mutant.find, () => mutant.replace),
  );
  const started = Date.now();
  let run;
  try {
    run = spawnSync(
      "npx",
      [
        "mocha",
        "--no-config",
        "--bail",
        "--require",
        "reflect-metadata",
        "--require",
        "dist/test/support/database-cleanup.js",
        "--timeout",
        "20000",
        "--reporter",
        "dot",
        ...mutant.tests,
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
  } finally {
    writeFileSync(mutant.file, original);
  }
  const output = `${run.stdout}\n${run.stderr}`;
  const failure = /^ {2}1\) ([\s\S]*?):\n/m.exec(output);
  const killedBy = failure
    ? failure[1]
        .split("\n")
        .map((line) => line.trim())
        .join(" / ")
    : undefined;
  const result = {
    name: mutant.name,
    file: mutant.file,
    status: run.status === 0 ? "survived" : "killed",
    killedBy,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  results.push(result);
  console.log(
    `${result.status.padEnd(8)} ${String(result.seconds).padStart(4)} s  ${mutant.name}${killedBy ? `\n                 by: ${killedBy}` : ""}`,
  );
}
mkdirSync("reports/mutation", { recursive: true });
writeFileSync("reports/mutation/sql-mutants.json", `${JSON.stringify(results, null, 2)}\n`);
const killed = results.filter((r) => r.status === "killed").length;
console.log(`${killed} of ${results.length} SQL mutants killed`);
process.exitCode = killed === results.length ? 0 : 1;
