import { expect } from "chai";
import { loadSettings, SettingsError } from "../../src/bootstrap/settings.js";

const load = (env: Record<string, string> = {}) =>
  loadSettings({ argv: [], env: { TESSERA_USERID_HMAC_SECRET: "s", ...env }, defaultFile: false });

describe("settings of the limits", () => {
  it("defaults to the values the README's Limits section documents", () => {
    const s = load();
    expect(s).to.deep.include({
      maxBodyBytes: 1048576,
      maxJsonDepth: 64,
      maxFilters: 20,
      maxSortFields: 10,
      maxUrlLength: 8192,
      batchMaxRequests: 25,
    });
    expect(s.connections).to.deep.equal({
      requestTimeoutSeconds: 30,
      headersTimeoutSeconds: 10,
      keepAliveTimeoutSeconds: 5,
      maxConnections: 1000,
    });
  });

  it("reads them from the environment, fractions of seconds included", () => {
    const s = load({
      TESSERA_MAX_JSON_DEPTH: "8",
      TESSERA_REQUEST_TIMEOUT_SECONDS: "1.5",
      TESSERA_HEADERS_TIMEOUT_SECONDS: "0.5",
      TESSERA_MAX_CONNECTIONS: "3",
    });
    expect(s.maxJsonDepth).to.equal(8);
    expect(s.connections).to.deep.include({ requestTimeoutSeconds: 1.5, headersTimeoutSeconds: 0.5, maxConnections: 3 });
  });

  it("refuses nonsense, and a headers timeout longer than the request timeout", () => {
    let problems: readonly string[] = [];
    try {
      load({
        TESSERA_MAX_JSON_DEPTH: "0",
        TESSERA_MAX_FILTERS: "x",
        TESSERA_MAX_CONNECTIONS: "0",
        TESSERA_REQUEST_TIMEOUT_SECONDS: "5",
        TESSERA_HEADERS_TIMEOUT_SECONDS: "10",
      });
    } catch (error) {
      expect(error).to.be.instanceOf(SettingsError);
      problems = (error as SettingsError).problems;
    }
    expect(problems.join("\n"))
      .to.contain("max_json_depth")
      .and.contain("max_filters")
      .and.contain("max_connections")
      .and.contain("headers_timeout_seconds (10) must not exceed request_timeout_seconds (5)");
  });
});
