/** The OpenID Connect policy's settings: Kinto's names and defaults, and every problem named at startup. */
import { expect } from "chai";
import { pino } from "pino";
import { openIdSettings, OpenIdSettingsError } from "../../src/adapters/auth/openid/openid-settings.js";
import { startServer } from "../../src/bootstrap/server.js";
import { SettingsError } from "../../src/bootstrap/settings.js";
import { settingsFromIni } from "../support/account-ini.js";

function problemsOf(read: () => unknown): readonly string[] {
  try {
    read();
  } catch (error) {
    if (error instanceof OpenIdSettingsError) return error.problems;
    throw error;
  }
  return expect.fail("expected an OpenIdSettingsError");
}

describe("OpenID Connect settings", () => {
  it("reads a Kinto configuration, with Kinto's defaults (sub, Bearer, audience = client_id)", () => {
    const settings = settingsFromIni(
      [
        "kinto.includes = kinto.plugins.openid",
        "multiauth.policies = google",
        "multiauth.policy.google.use = kinto.plugins.openid.OpenIDConnectPolicy",
        "multiauth.policy.google.issuer = https://accounts.google.com",
        "multiauth.policy.google.client_id = 248628588820.apps.googleusercontent.com",
        "multiauth.policy.google.client_secret = UAXXXXXXXXXX",
        "multiauth.policy.google.userid_field = email",
      ].join("\n"),
    );
    const [policy] = settings.auth.policies;
    expect(policy?.use).to.equal("openid");
    const openid = openIdSettings("google", policy?.options ?? {});
    expect(openid).to.deep.include({
      name: "google",
      issuer: "https://accounts.google.com",
      clientId: "248628588820.apps.googleusercontent.com",
      clientSecret: "UAXXXXXXXXXX",
      audience: "248628588820.apps.googleusercontent.com",
      useridField: "email",
      headerType: "Bearer",
      groupsClaim: undefined,
      clockSkewSeconds: 30,
    });
  });

  it("keeps the issuer as written (a trailing slash is part of it)", () => {
    expect(openIdSettings("a", { issuer: "https://tenant.example/", client_id: "c" }).issuer).to.equal("https://tenant.example/");
  });

  it("refuses to start, naming every problem, when a provider is misconfigured", async () => {
    const settings = settingsFromIni(
      [
        "listen_port = 0",
        "multiauth.policies = sso",
        "multiauth.policy.sso.use = openid",
        "multiauth.policy.sso.issuer = ftp://idp.example",
        "multiauth.policy.sso.clock_skew_seconds = -5",
        "multiauth.policy.sso.header_type = Bearer token",
      ].join("\n"),
    );
    const error = await startServer(settings, { logger: pino({ level: "silent" }) }).then(
      async (running) => {
        await running.stop();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(SettingsError);
    expect((error as SettingsError).problems).to.have.members([
      'multiauth.policy.sso.issuer must be an http(s) URL, not "ftp://idp.example"',
      'multiauth.policy.sso.client_id is required by the OpenID Connect policy "sso"',
      'multiauth.policy.sso.clock_skew_seconds must be a number of seconds >= 0, not "-5"',
      'multiauth.policy.sso.header_type must be one word, not "Bearer token"',
    ]);
  });

  it("reads userinfo: true, false, or auto (the default): on unless an audience is set", () => {
    const read = (options: Record<string, string>) => openIdSettings("sso", { issuer: "https://idp.example", client_id: "c", ...options });
    expect(read({}).userinfo).to.equal(true);
    expect(read({ userinfo: "auto" }).userinfo).to.equal(true);
    expect(read({ audience: "api" }).userinfo).to.equal(false);
    expect(read({ audience: "api", userinfo: "true" }).userinfo).to.equal(true);
    expect(read({ userinfo: "False" }).userinfo).to.equal(false);
    expect(problemsOf(() => read({ userinfo: "sometimes" }))).to.deep.equal([
      'multiauth.policy.sso.userinfo must be true, false or auto, not "sometimes"',
    ]);
  });

  it("reads the per-address userinfo budget (10 refusals a minute by default), refusing malformed values", () => {
    const read = (options: Record<string, string>) => openIdSettings("sso", { issuer: "https://idp.example", client_id: "c", ...options });
    expect(read({})).to.deep.include({ userinfoRefusalsPerAddress: 10, userinfoRefusalWindowSeconds: 60 });
    expect(read({ userinfo_refusals_per_address: "3", userinfo_refusal_window_seconds: "5" })).to.deep.include({
      userinfoRefusalsPerAddress: 3,
      userinfoRefusalWindowSeconds: 5,
    });
    expect(problemsOf(() => read({ userinfo_refusals_per_address: "2.5", userinfo_refusal_window_seconds: "0" }))).to.have.members([
      'multiauth.policy.sso.userinfo_refusals_per_address must be a whole number >= 1, not "2.5"',
      'multiauth.policy.sso.userinfo_refusal_window_seconds must be a number of seconds >= 1, not "0"',
    ]);
    expect(problemsOf(() => read({ userinfo_refusals_per_address: "0" }))).to.have.length(1);
  });

  it("warns about an option it does not know (a typo would be silently ignored)", async () => {
    const lines: string[] = [];
    const running = await startServer(
      settingsFromIni(
        [
          "listen_port = 0",
          "multiauth.policies = sso",
          "multiauth.policy.sso.use = openid",
          "multiauth.policy.sso.issuer = http://127.0.0.1:9",
          "multiauth.policy.sso.client_id = c",
          "multiauth.policy.sso.group_claim = groups",
        ].join("\n"),
      ),
      { logger: pino({ level: "warn" }, { write: (line: string) => void lines.push(line) }) },
    );
    await running.stop();
    expect(lines.join("\n")).to.include("multiauth.policy.sso.group_claim is not an option of the OpenID Connect policy");
  });
});
