/** What only the composition root can check: resources and policies added by code. */
import { expect } from "chai";
import { pino } from "pino";
import { startServer } from "../../src/bootstrap/server.js";
import { buildContainer } from "../../src/bootstrap/container.js";
import { SettingsError } from "../../src/bootstrap/settings.js";
import { settingsFrom } from "../support/http.js";

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(SettingsError);
    return [...(error as SettingsError).problems];
  }
  throw new Error("expected a SettingsError");
}

describe("composition root", () => {
  it("refuses at startup a shareable resource defined in code without a permission backend", () => {
    const settings = settingsFrom({ resources: "notes:user", permission_backend: undefined, articles_create_principals: undefined });
    const problems = problemsOf(() => buildContainer(settings, { extensions: [{ resources: [{ name: "posts", kind: "shareable" }] }] }));
    expect(problems.join("\n")).to.contain("permission_backend").and.contain("posts");
  });

  it("refuses a policy name that no code registers, and an invalid resource name", () => {
    const settings = settingsFrom({ "multiauth.policies": "basicauth sso" });
    const problems = problemsOf(() => buildContainer(settings, { extensions: [{ resources: [{ name: "bad-name", kind: "user" }] }] }));
    expect(problems.join("\n")).to.contain('"sso"').and.contain('"bad-name"');
  });

  it("accepts a policy registered by code", () => {
    const settings = settingsFrom({ "multiauth.policies": "basicauth sso" });
    expect(() => buildContainer(settings, { extensions: [{ authenticationPolicies: { sso: () => ({ name: "sso", authenticate: () => undefined }) } }] })).to.not.throw();
  });
});

describe("startup warnings", () => {
  it("calls a setting unknown unless an extension declares that it reads it", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    const running = await startServer(settingsFrom({ colour: "blue", shop_currency: "EUR" }), { logger, extensions: [{ settings: ["shop_currency"] }] });
    await running.stop();
    const warnings = lines.join("");
    expect(warnings).to.contain('unknown setting \\"colour\\"').and.not.contain("shop_currency");
  });
});
