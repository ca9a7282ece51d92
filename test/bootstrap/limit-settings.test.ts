import { expect } from "chai";
import { loadSettings, SettingsError } from "../../src/bootstrap/settings.js";

const load = (env: Record<string, string> = {}) =>
  loadSettings({ argv: [], env: { TESSERA_USERID_HMAC_SECRET: "s", ...env }, defaultFile: false });

describe("settings of the limits", () => {
  it("defaults to the values docs/operating.md's Limits section documents", () => {
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
      maxConnectionsPerAddress: 100,
      trustedProxies: [],
    });
    expect(s).to.deep.include({ feedMaxStreamsPerAddress: 50, feedMaxStreamsPerUser: 10, feedMaxLifetimeSeconds: 3600 });
  });

  it("reads trusted_proxies as addresses and CIDR ranges, and refuses anything else", () => {
    expect(load({ TESSERA_TRUSTED_PROXIES: "10.0.0.1 192.168.0.0/16 fd00::/8 ::1" }).connections.trustedProxies).to.deep.equal([
      "10.0.0.1",
      "192.168.0.0/16",
      "fd00::/8",
      "::1",
    ]);
    for (const bad of ["10.0.0.0/33", "proxy.example.com", "10.0.0.1/8/8", "::1/129", "10.0.0.256"]) {
      expect(() => load({ TESSERA_TRUSTED_PROXIES: `10.0.0.1 ${bad}` }), bad)
        .to.throw(SettingsError)
        .with.property("message")
        .that.contains(`trusted_proxies must list IP addresses or CIDR ranges such as 10.0.0.0/8 (got "${bad}")`);
    }
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
        TESSERA_MAX_CONNECTIONS_PER_ADDRESS: "0",
        TESSERA_FEED_MAX_STREAMS_PER_USER: "x",
        TESSERA_FEED_MAX_LIFETIME_SECONDS: "-1",
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
      .and.contain("max_connections_per_address must be an integer >= 1")
      .and.contain("feed_max_streams_per_user must be an integer >= 1")
      .and.contain("feed_max_lifetime_seconds must be a number >= 0")
      .and.contain("headers_timeout_seconds (10) must not exceed request_timeout_seconds (5)");
  });

  it("refuses a stream lifetime longer than a timer can wait", () => {
    expect(() => load({ TESSERA_FEED_MAX_LIFETIME_SECONDS: "2147484" }))
      .to.throw(SettingsError)
      .with.property("message")
      .that.contains("feed_max_lifetime_seconds must be at most 2147483 (about 24 days; 0: no limit) (got 2147484)");
    expect(load({ TESSERA_FEED_MAX_LIFETIME_SECONDS: "2147483" }).feedMaxLifetimeSeconds).to.equal(2147483);
  });
});
