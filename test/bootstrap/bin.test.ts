/** `npm run build` leaves the `tessera` bin runnable as a command (`npx tessera …`). */
import { spawn } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { PROJECT_ROOT, settingsEnv } from "../support/tessera-process.js";

describe("the tessera bin after npm run build", function () {
  this.timeout(20_000);
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { bin: { tessera: string } };
  const bin = path.join(PROJECT_ROOT, manifest.bin.tessera);

  before(function () {
    // Running from sources (npm run test:ts) there is no build to check.
    if (import.meta.url.endsWith(".ts")) this.skip();
  });

  it("is executable and runs by itself (shebang + mode)", async () => {
    expect(() => accessSync(bin, constants.X_OK)).to.not.throw();
    const child = spawn(bin, ["no-such-command"], { env: settingsEnv({ userid_hmac_secret: "s" }), cwd: PROJECT_ROOT });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    expect(code).to.equal(2);
    expect(stderr).to.contain("unknown command");
  });

  it("prints its usage for --help and exits 0", async () => {
    const child = spawn(bin, ["--help"], { env: settingsEnv({}), cwd: PROJECT_ROOT });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const stuck = setTimeout(() => child.kill("SIGKILL"), 15_000); // a server started by mistake never exits
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    clearTimeout(stuck);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^usage: tessera /);
  });
});
