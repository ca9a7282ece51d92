/**
 * CI must never pass with a rule unchecked: any non-empty `CI` counts as CI, the summary line
 * counts skipped tests, and `.ci/check-summary` (run by `.ci/run`) fails a run that skipped any.
 */
import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { underCi } from "../support/services.js";

const run = promisify(execFile);
const ROOT = process.cwd();

async function exitCode(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("CI semantics: nothing is skipped silently", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "tessera-ci-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("treats any non-empty CI as CI, and only an empty or missing one as local", () => {
    for (const value of ["true", "1", "yes", "false-but-set"]) expect(underCi({ CI: value }), value).to.equal(true);
    expect(underCi({ CI: "" })).to.equal(false);
    expect(underCi({})).to.equal(false);
  });

  it("prints the skipped count in the summary line, and .ci/check-summary fails such a run", async () => {
    const spec = path.join(dir, "skips.test.cjs");
    await writeFile(spec, `it("runs", () => {}); it("runs too", () => {}); it("needs a service", function () { this.skip(); });\n`);
    const mocha = await exitCode(process.execPath, [
      path.join(ROOT, "node_modules/mocha/bin/mocha.js"),
      "--no-config",
      "--reporter",
      path.join(ROOT, "test/support/summary-reporter.cjs"),
      spec,
    ]);
    expect(mocha.code).to.equal(0); // mocha itself passes a run with skips: hence the check
    expect(mocha.stdout).to.match(/^2 passed, 0 failed, 1 skipped$/m);

    const log = path.join(dir, "skipped.log");
    await writeFile(log, mocha.stdout);
    const check = await exitCode(path.join(ROOT, ".ci/check-summary"), [log]);
    expect(check.code).to.equal(1);
    expect(check.stderr).to.contain("1 skipped");
  });

  it(".ci/check-summary passes a clean run and fails a failing one or one without a summary", async () => {
    const cases: Array<[string, string, number]> = [
      ["clean", "…\n12 passed, 0 failed\n", 0],
      ["failing", "…\n11 passed, 1 failed\n", 1],
      ["no summary", "build error\n", 1],
    ];
    for (const [name, text, expected] of cases) {
      const log = path.join(dir, `${name.replace(" ", "-")}.log`);
      await writeFile(log, text);
      expect((await exitCode(path.join(ROOT, ".ci/check-summary"), [log])).code, name).to.equal(expected);
    }
  });
});
