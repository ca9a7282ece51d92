/** The policy chain from Kinto's multiauth settings: names, `.use`, options, warnings, startup errors, challenges. */
import { expect } from "chai";
import { pino } from "pino";
import type { TesseraExtension } from "../../src/application/extension.js";
import { buildContainer } from "../../src/bootstrap/container.js";
import { startServer } from "../../src/bootstrap/server.js";
import { SettingsError } from "../../src/bootstrap/settings.js";
import { settingsFromIni } from "../support/account-ini.js";

const BASE = "userid_hmac_secret = s3cret\nlisten_port = 0\n";

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(SettingsError);
    return (error as SettingsError).problems.join("\n");
  }
  return expect.fail("expected a SettingsError");
}

describe("authentication policies from multiauth settings", () => {
  it("maps each name to its implementation by .use, Kinto's dotted names included, keeping order and options", () => {
    const settings = settingsFromIni(
      BASE +
        [
          "multiauth.policies = account google basicauth local",
          "multiauth.policy.account.use = kinto.plugins.accounts.AccountsPolicy",
          "multiauth.policy.google.use = kinto.plugins.openid.OpenIDConnectPolicy",
          "multiauth.policy.google.issuer = https://accounts.google.com",
          "multiauth.policy.google.client_id = abc",
          "multiauth.policy.local.use = kinto.core.authentication.BasicAuthAuthenticationPolicy",
          "multiauth.policy.basicauth.wanted = true",
        ].join("\n"),
    );
    expect(settings.auth.policies).to.deep.equal([
      { name: "account", use: "accounts", options: {} },
      { name: "google", use: "openid", options: { issuer: "https://accounts.google.com", client_id: "abc" } },
      { name: "basicauth", use: "basicauth", options: { wanted: true } },
      { name: "local", use: "basicauth", options: {} },
    ]);
  });

  it("needs no .use for account and basicauth, and accepts our short names", () => {
    const settings = settingsFromIni(`${BASE}multiauth.policies = account basicauth mine\nmultiauth.policy.mine.use = accounts`);
    expect(settings.auth.policies.map((p) => p.use)).to.deep.equal(["accounts", "basicauth", "accounts"]);
  });

  it("warns when basicauth is on beside real policies, unless told it is wanted", () => {
    const beside = settingsFromIni(`${BASE}multiauth.policies = account basicauth`);
    expect(beside.warnings.join("\n")).to.contain("multiauth.policy.basicauth.wanted = true").and.contain("account");
    const wanted = settingsFromIni(`${BASE}multiauth.policies = account basicauth\nmultiauth.policy.basicauth.wanted = true`);
    expect(wanted.warnings.join("\n")).to.not.contain("basicauth");
    const alone = settingsFromIni(`${BASE}multiauth.policies = basicauth`);
    expect(alone.warnings.join("\n")).to.not.contain("basicauth");
  });

  it("refuses at startup a .use that no code registers, naming the setting", () => {
    const settings = settingsFromIni(
      `${BASE}multiauth.policies = basicauth ldap\nmultiauth.policy.ldap.use = kinto_ldap.LDAPBasicAuthAuthenticationPolicy`,
    );
    const problems = problemsOf(() => buildContainer(settings));
    expect(problems).to.contain("multiauth.policy.ldap.use").and.contain("kinto_ldap.LDAPBasicAuthAuthenticationPolicy");
  });

  it("accepts a Kinto ini's includes of built-in plugins, refuses others", () => {
    expect(() => settingsFromIni(`${BASE}kinto.includes = kinto.plugins.accounts kinto.plugins.admin`)).to.not.throw();
    expect(problemsOf(() => settingsFromIni(`${BASE}kinto.includes = kinto.plugins.history`))).to.contain("kinto.plugins.history");
  });
});

describe("policy names that principals give a meaning to", () => {
  const openid = (name: string) =>
    `${BASE}multiauth.policies = ${name}\nmultiauth.policy.${name}.use = openid\n` +
    `multiauth.policy.${name}.issuer = https://sso.example\nmultiauth.policy.${name}.client_id = c`;

  // group:<sub> would be a group principal, system.* the system principals, account:<sub> an account's owner.
  for (const name of ["group", "system", "System.corp", "account"])
    it(`refuses at startup an OpenID policy named "${name}", naming it`, () => {
      expect(problemsOf(() => settingsFromIni(openid(name)))).to.contain(`a policy may not be named "${name}"`);
    });

  it("refuses the names whatever their implementation, but account for the accounts policy", () => {
    const named = (name: string, use: string) => `${BASE}multiauth.policies = ${name}\nmultiauth.policy.${name}.use = ${use}`;
    expect(problemsOf(() => settingsFromIni(named("group", "accounts")))).to.contain('named "group"');
    expect(problemsOf(() => settingsFromIni(named("system", "basicauth")))).to.contain('named "system"');
    expect(problemsOf(() => settingsFromIni(named("account", "basicauth")))).to.contain('named "account"');
    // A colon in a name makes "a:b" + "c" and "a" + "b:c" one user id.
    expect(problemsOf(() => settingsFromIni(`${BASE}multiauth.policies = corp:staff`))).to.contain('named "corp:staff"');
  });

  it("accepts account for the accounts policy, by Kinto's names or none, and names that merely resemble", () => {
    for (const use of [
      "",
      "accounts",
      "kinto.plugins.accounts.AccountsPolicy",
      "kinto.plugins.accounts.authentication.AccountsAuthenticationPolicy",
    ]) {
      const settings = settingsFromIni(`${BASE}multiauth.policies = account${use ? `\nmultiauth.policy.account.use = ${use}` : ""}`);
      expect(settings.auth.policies, use).to.deep.equal([{ name: "account", use: "accounts", options: {} }]);
    }
    const similar = settingsFromIni(
      `${BASE}multiauth.policies = groups systems accountant\n` +
        ["groups", "systems", "accountant"].map((n) => `multiauth.policy.${n}.use = basicauth`).join("\n"),
    );
    expect(similar.auth.policies.map((p) => p.name)).to.deep.equal(["groups", "systems", "accountant"]);
  });
});

describe("authentication chain over HTTP", () => {
  const bearer: TesseraExtension = {
    authenticationPolicies: {
      token: () => ({
        name: "token",
        challenge: 'Bearer realm="Tessera"',
        authenticate: (request) => {
          const header = request.header("authorization");
          return header === "Bearer good" ? { userId: "t1", principals: ["group:editors"] } : undefined;
        },
      }),
    },
  };

  it("names every enabled scheme in WWW-Authenticate, and a policy's principals reach the requester", async () => {
    const settings = settingsFromIni(`${BASE}resources = notes:user\nmultiauth.policies = token basicauth`);
    const running = await startServer(settings, { extensions: [bearer], logger: pino({ level: "silent" }) });
    try {
      const anonymous = await fetch(`${running.url}/v1/notes/records`);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get("www-authenticate")).to.equal('Bearer realm="Tessera", Basic realm="Realm"');
      const root = await fetch(`${running.url}/v1/`, { headers: { Authorization: "Bearer good" } });
      const body = (await root.json()) as { user: { id: string; principals: string[] } };
      expect(body.user.id).to.equal("token:t1");
      expect(body.user.principals).to.include.members(["token:t1", "group:editors", "system.Authenticated", "system.Everyone"]);
    } finally {
      await running.stop();
    }
  });
});
