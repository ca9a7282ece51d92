/**
 * `npm run mutate:sql`: mutants of the SQL text itself, and of the code right around it, which
 * Stryker leaves alone (it only empties a string, and skips the statements kept in module
 * constants) or which a full Stryker run takes too long to reach. Each mutant is a plausible
 * one-line mistake in the compiled adapters (dist, built first): it is applied alone, the suites
 * named run with --bail, and the file is put back. A mutant is killed when a test fails; the
 * first failing test is reported. See docs/mutation-testing.md, "Adapters".
 *
 * Each mutant is keyed by its file and a distinctive snippet of the compiled code, found exactly
 * once: when the SQL moves (another file, other wording), re-point `file` and `find`. Every chosen
 * mutant's snippet is checked before anything runs, and the tool stops (exit code 2) naming each
 * one that is not found exactly once: a mutant is never skipped, nor counted killed, silently.
 *
 *   node tools/mutation/sql-mutants.mjs [name ...]   (no name: every mutant)
 *   node tools/mutation/sql-mutants.mjs --check      (only checks that every snippet is found)
 *   node tools/mutation/sql-mutants.mjs --dist=DIR [...]   (another build: tsc -p tsconfig.json --outDir DIR)
 *   node tools/mutation/sql-mutants.mjs --every-failure [name ...]
 *                                                    (no --bail: lists every test the mutant turns red)
 *
 * A run that fails without a failing test (a suite that does not load) or skips tests (a backend
 * missing, outside CI) is reported as an error, never as a kill or a survivor.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

// `--dist=DIR`: mutate and test another build of the project (`tsc --outDir DIR`), so that the
// build in dist stays free for other work while the mutants run.
const DIST = process.argv.find((arg) => arg.startsWith("--dist="))?.slice("--dist=".length) ?? "dist";
const PG = `${DIST}/src/adapters/postgres`;
const CONTRACTS = [`${DIST}/test/adapters/postgres.test.js`];
const SHARING = [`${DIST}/test/http/sharing-contract.test.js`];
const DIFFERENTIAL = [
  `${DIST}/test/adapters/granted-records-differential.test.js`,
  `${DIST}/test/adapters/permission-differential.test.js`,
];
const GROUP = [
  `${DIST}/test/adapters/postgres-group-commit-mutants.test.js`,
  `${DIST}/test/adapters/postgres-group-commit.test.js`,
  `${DIST}/test/adapters/postgres-batched-writes.test.js`,
  `${DIST}/test/adapters/postgres-transaction-edges.test.js`,
];
// The quickest suites first: --bail stops at the first failure.
// The RecordStore contract on a database whose default collation is not by code point.
const LINGUISTIC = [`${DIST}/test/adapters/postgres-collation-mutants.test.js`];
const PERMISSION_CHECKS = [`${DIST}/test/adapters/postgres-permission-check-mutants.test.js`];
const ALL = [...PERMISSION_CHECKS, ...SHARING, ...CONTRACTS, `${DIST}/test/adapters/postgres-specifics.test.js`, ...DIFFERENTIAL];
// Group commit and its batched statements: their own suites too.
const WRITES = [...GROUP, ...SHARING, ...CONTRACTS, `${DIST}/test/adapters/postgres-specifics.test.js`, ...DIFFERENTIAL];

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
    name: 'string filter compared in the database\'s collation (COLLATE "C" dropped)',
    file: `${PG}/record-query-sql.js`,
    find: "`((${x} #>> '{}') COLLATE \"C\") ${operator}",
    replace: "`(${x} #>> '{}') ${operator}",
    tests: [...LINGUISTIC, ...ALL],
  },
  {
    name: 'strings sorted in the database\'s collation (COLLATE "C" dropped)',
    file: `${PG}/record-query-sql.js`,
    find: "THEN ${x} #>> '{}' END) COLLATE \"C\"${direction}",
    replace: "THEN ${x} #>> '{}' END)${direction}",
    tests: [...LINGUISTIC, ...ALL],
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
    name: "a repeated loss keeps its old stamp",
    file: `${PG}/postgres-access-journal.js`,
    find: "u(id, principal, stamp)\n    ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified`",
    replace: "u(id, principal, stamp)\n    ON CONFLICT (collection, parent_id, principal, id) DO NOTHING`",
    tests: ALL,
  },
  {
    name: "losses read from the feed's cursor inclusive",
    file: `${PG}/postgres-access-journal.js`,
    find: "AND last_modified > $3",
    replace: "AND last_modified >= $3",
    tests: [...ALL, `${DIST}/test/sync/events.test.js`],
  },
  {
    // The access journal's own stamps (a group change's losses, gains, resyncs) on the scope's counter.
    name: "access stamp not above the collection timestamp",
    file: `${PG}/postgres-access-journal.js`,
    find: "GREATEST(${NOW_MS}, t.last_modified + 1) + ${count} - 1",
    replace: "GREATEST(${NOW_MS}, t.last_modified) + ${count} - 1",
    tests: ALL,
  },
  {
    name: "losses of every principal shown",
    file: `${PG}/access-journal-listing-sql.js`,
    find: "AND l.principal = ANY(${principals})",
    replace: "",
    tests: ALL,
  },
  {
    // The ACE check of a granted listing's losses (and of a restricted `_since`), shared since
    // commit 7448ede by both in grantsRecordSql.
    name: "a loss hidden while anyone reads the record (granted listing)",
    file: `${PG}/record-query-sql.js`,
    find: 'AND a.principal = ANY(${params.add(principals, "text[]")}) OFFSET 0)',
    replace: "OFFSET 0)",
    tests: ALL,
  },
  {
    name: "lost tombstones past upTo kept",
    file: `${PG}/access-journal-listing-sql.js`,
    find: 'conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")}`);\n    if (query.after)\n        conditions.push(keysetSql(params, query.sort, query.after));\n    return `(${lost})',
    replace:
      'conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")} + 1`);\n    if (query.after)\n        conditions.push(keysetSql(params, query.sort, query.after));\n    return `(${lost})',
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
    // Since 9df2820 (nested groups) USER_PRINCIPALS walks from an array of seeds ($1) instead of
    // `WHERE user_id = $1 OR user_id = $2`: system.Authenticated is dropped from that array.
    name: "user principals without those of system.Authenticated",
    file: `${PG}/postgres-permission-store.js`,
    find: "this.principalSet(USER_PRINCIPALS, [[userId, AUTHENTICATED], this.groupMaxDepth, [...held]])",
    replace: "this.principalSet(USER_PRINCIPALS, [[userId], this.groupMaxDepth, [...held]])",
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
    tests: [...ALL, `${DIST}/test/adapters/postgres-group-commit.test.js`],
  },
  // Group commit: the counter row's lock (group-commit.ts); the group's clock (group-clock.ts);
  // which writes use it (writeModeOf, write-mode.ts). The last two were in group-commit.ts (the
  // clock's class, GroupCommit.clockFor) until b9d7ed8.
  {
    name: "group's counter read without its row lock (FOR UPDATE lost)",
    file: `${PG}/group-commit.js`,
    find: "AND parent_id = ${parentId} FOR UPDATE`",
    replace: "AND parent_id = ${parentId}`",
    tests: WRITES,
  },
  {
    name: "group's counter locked by collection only (parent forgotten)",
    file: `${PG}/group-commit.js`,
    find: "WHERE collection = ${collection} AND parent_id = ${parentId} FOR UPDATE",
    replace: "WHERE collection = ${collection} FOR UPDATE",
    tests: WRITES,
  },
  {
    name: "group's clock not strictly increasing (max(now, last))",
    file: `${PG}/group-clock.js`,
    find: "Math.max(this.now, this.last + 1)",
    replace: "Math.max(this.now, this.last)",
    tests: WRITES,
  },
  {
    name: "group's clock honours a requested stamp equal to its last",
    file: `${PG}/group-clock.js`,
    find: "requested !== undefined && requested > this.last",
    replace: "requested !== undefined && requested >= this.last",
    tests: WRITES,
  },
  {
    name: "a group's clock used for a write to another scope",
    file: `${PG}/write-mode.js`,
    find: "if (clock && clock.scope.collection === scope.collection && clock.scope.parentId === scope.parentId)",
    replace: "if (clock)",
    tests: WRITES,
  },
  {
    name: "a group's clock used for another parent's scope of its collection",
    file: `${PG}/write-mode.js`,
    find: "clock.scope.collection === scope.collection && clock.scope.parentId === scope.parentId",
    replace: "clock.scope.collection === scope.collection",
    tests: WRITES,
  },
  {
    name: "a scope's first counter created without ON CONFLICT",
    file: `${PG}/group-commit.js`,
    find: "VALUES ($1, $2, ${NOW_MS}) ON CONFLICT DO NOTHING RETURNING last_modified",
    replace: "VALUES ($1, $2, ${NOW_MS}) RETURNING last_modified",
    tests: WRITES,
  },
  {
    name: "a group's counter kept when only a rolled-back member wrote",
    file: `${PG}/group-clock.js`,
    find: "this.pending = this.kept;",
    replace: "this.kept = this.pending;",
    tests: WRITES,
  },
  // Batched writes (batched-writes.ts): the statements a group sends for a run of creates or updates.
  {
    name: "batched update's If-Match compared with >=",
    file: `${PG}/batched-writes.js`,
    find: "(f.if_match IS NULL OR r.last_modified = f.if_match)",
    replace: "(f.if_match IS NULL OR r.last_modified >= f.if_match)",
    tests: WRITES,
  },
  {
    name: "batched update finds tombstones too",
    file: `${PG}/batched-writes.js`,
    find: "SELECT r.ctid FROM records r WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = i.id AND NOT r.deleted",
    replace: "SELECT r.ctid FROM records r WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = i.id",
    tests: WRITES,
  },
  {
    name: "batched create counts a tombstone as a live record in the way",
    file: `${PG}/batched-writes.js`,
    find: "SELECT r.id, r.last_modified, r.data FROM records r\n        WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = i.id AND NOT r.deleted",
    replace: "SELECT r.id, r.last_modified, r.data FROM records r\n        WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = i.id",
    tests: WRITES,
  },
  {
    name: "batched create overwrites a live record on conflict",
    file: `${PG}/batched-writes.js`,
    find: "data = EXCLUDED.data, deleted = FALSE WHERE r.deleted",
    replace: "data = EXCLUDED.data, deleted = FALSE",
    tests: WRITES,
  },
  {
    name: "batched create keeps the ACEs its ACL does not name",
    file: `${PG}/batched-writes.js`,
    find: "AND g.permission = n.permission AND g.principal = x.principal)",
    replace: "AND g.permission = n.permission)",
    tests: WRITES,
  },
  {
    name: "batched create's ACEs inserted without ON CONFLICT",
    file: `${PG}/batched-writes.js`,
    find: "FROM acl WHERE principal IS NOT NULL\n      ON CONFLICT DO NOTHING",
    replace: "FROM acl WHERE principal IS NOT NULL",
    tests: WRITES,
  },
  {
    name: "a refused batched write's stamp counts for the counter",
    file: `${PG}/batched-writes.js`,
    find: "own.some((row) => row.written)",
    replace: "own.length > 0",
    tests: WRITES,
  },
  // The permission store's checks (postgres-permission-store.ts).
  {
    name: "check with the user's groups without its principal filter",
    file: `${PG}/postgres-permission-store.js`,
    find: "\n            AND e.principal = ANY($3::text[] || ARRAY(SELECT principal FROM extra)) LIMIT 1",
    replace: " LIMIT 1",
    tests: ALL,
  },
  {
    name: "permission check's principal = ANY turned into <> ANY",
    file: `${PG}/postgres-permission-store.js`,
    find: "AND e.principal = ANY($3::text[]) LIMIT 1",
    replace: "AND e.principal <> ANY($3::text[]) LIMIT 1",
    tests: ALL,
  },
  {
    name: "accessible objects' principal = ANY turned into <> ANY",
    file: `${PG}/postgres-permission-store.js`,
    find: "FROM access_control_entries a WHERE a.principal = ANY($1::text[]) AND",
    replace: "FROM access_control_entries a WHERE a.principal <> ANY($1::text[]) AND",
    tests: ALL,
  },
  {
    name: "ACLs of many objects read with = ALL (one permission at most)",
    file: `${PG}/postgres-permission-store.js`,
    find: "AND e.permission = ANY($2::text[]) OFFSET 0",
    replace: "AND e.permission = ALL($2::text[]) OFFSET 0",
    tests: ALL,
  },
  {
    name: "permission check without inheritance (the asked pair only)",
    file: `${PG}/postgres-permission-store.js`,
    find: "await this.run(CHECK, [\n            pairs.map((p) => p.objectId),\n            pairs.map((p) => p.permission),",
    replace: "await this.run(CHECK, [\n            [objectId],\n            [permission],",
    tests: ALL,
  },
  {
    // Since f5a289b the pairs are built once (`checked`) for PRINCIPALS_AND_CHECK and its nested
    // variant PRINCIPALS_AND_CHECK_NESTED: the mutant drops inheritance from both.
    name: "check with the user's groups without inheritance (the asked pair only)",
    file: `${PG}/postgres-permission-store.js`,
    find: "const checked = [pairs.map((p) => p.objectId), pairs.map((p) => p.permission), [...known]];",
    replace: "const checked = [[objectId], [permission], [...known]];",
    tests: ALL,
  },
  {
    name: "authorized principals without inheritance (the asked pair only)",
    file: `${PG}/postgres-permission-store.js`,
    find: "this.principalSet(AUTHORIZED_PRINCIPALS, [pairs.map((p) => p.objectId), pairs.map((p) => p.permission)])",
    replace: "this.principalSet(AUTHORIZED_PRINCIPALS, [[objectId], [permission]])",
    tests: [...ALL, `${DIST}/test/sync/events.test.js`],
  },
  {
    name: "accessible objects without the prefix range's upper bound",
    file: `${PG}/postgres-permission-store.js`,
    find: "if (upper !== undefined) {\n                        values.push(upper);\n                        conditions.push(`a.object_id < $${values.length}`);\n                    }",
    replace: "",
    tests: ALL,
  },
  {
    name: "ACL replacement keeps the principals it does not name",
    file: `${PG}/postgres-permission-store.js`,
    find: "WHERE g.permission = a.permission AND g.principal = a.principal)",
    replace: "WHERE g.permission = a.permission)",
    tests: ALL,
  },
];

const args = process.argv.slice(2);
const checkOnly = args.includes("--check");
const everyFailure = args.includes("--every-failure");
const wanted = args.filter((arg) => !arg.startsWith("--"));
const unknown = wanted.filter((name) => !MUTANTS.some((m) => m.name === name));
if (unknown.length > 0) {
  console.error(`no such mutant: ${unknown.join("; ")}`);
  process.exit(2);
}
const chosen = wanted.length === 0 ? MUTANTS : MUTANTS.filter((m) => wanted.includes(m.name));

/** Why `mutant` cannot be applied to the build as it is (its file or snippet moved), if so. */
function problemOf(mutant) {
  if (!existsSync(mutant.file)) return `${mutant.file} does not exist (built? moved?)`;
  const found = readFileSync(mutant.file, "utf8").split(mutant.find).length - 1;
  if (found !== 1) return `its snippet is found ${found} times in ${mutant.file}, not once: re-point it`;
  const missing = mutant.tests.filter((file) => !existsSync(file));
  return missing.length > 0 ? `its suites ${missing.join(", ")} do not exist` : undefined;
}
const problems = chosen.flatMap((mutant) => {
  const problem = problemOf(mutant);
  return problem ? [`${mutant.name}: ${problem}`] : [];
});
if (problems.length > 0) {
  console.error(`${problems.length} mutant(s) cannot be applied, nothing run:\n  ${problems.join("\n  ")}`);
  process.exit(2);
}
if (checkOnly) {
  console.log(`every snippet of the ${chosen.length} mutant(s) is found once`);
  process.exit(0);
}

const results = [];
for (const mutant of chosen) {
  const original = readFileSync(mutant.file, "utf8");
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
        ...(everyFailure ? [] : ["--bail"]),
        "--require",
        "reflect-metadata",
        "--require",
        `${DIST}/test/support/database-cleanup.js`,
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
  // Mocha's summary: "  1) suite\n       sub-suite\n         test:\n     Error…" per failure.
  const failures = [...output.matchAll(/^ {2}\d+\) ([\s\S]*?):\n/gm)].map((match) =>
    match[1]
      .split("\n")
      .map((line) => line.trim())
      .join(" / "),
  );
  const pending = Number(/^ {2}(\d+) pending/m.exec(output)?.[1] ?? 0);
  const status = failures.length > 0 ? "killed" : run.status === 0 && pending === 0 ? "survived" : "error";
  const result = {
    name: mutant.name,
    file: mutant.file,
    status,
    killedBy: everyFailure ? failures : failures[0],
    seconds: Math.round((Date.now() - started) / 1000),
    ...(status === "error" ? { output: output.slice(-4000) } : {}),
  };
  results.push(result);
  const by =
    failures.length === 0
      ? ""
      : `\n                 by: ${(everyFailure ? failures : failures.slice(0, 1)).join("\n                     ")}`;
  const why = status === "error" ? `\n                 (no failing test, exit ${run.status}, ${pending} pending: see the report)` : "";
  console.log(`${result.status.padEnd(8)} ${String(result.seconds).padStart(4)} s  ${mutant.name}${by}${why}`);
}
mkdirSync("reports/mutation", { recursive: true });
const report = DIST === "dist" ? "sql-mutants.json" : `sql-mutants-${DIST.replace(/[^\w-]/g, "")}.json`;
writeFileSync(`reports/mutation/${report}`, `${JSON.stringify(results, null, 2)}\n`);
const killed = results.filter((r) => r.status === "killed").length;
const errors = results.filter((r) => r.status === "error").length;
console.log(`${killed} of ${results.length} SQL mutants killed${errors > 0 ? `, ${errors} not measured (errors)` : ""}`);
process.exitCode = killed === results.length ? 0 : 1;
