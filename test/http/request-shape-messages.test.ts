/**
 * The exact details of the batch body shape errors (class-validator classes, batch-dto.ts) and of
 * the payload envelope's data check (hand-written, payload.ts): each name, description and their
 * order, written out by hand.
 */
import { expect } from "chai";
import { ValidationError } from "../../src/domain/errors.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { parseBatch } from "../../src/adapters/http/batch-route.js";
import { parseRecordPayload } from "../../src/adapters/http/payload.js";

const LIMITS = { maxRequests: 25, maxUrlLength: 8000, routesToBatch: () => false };
const ARTICLES: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};

function detailsOf(parse: () => unknown): unknown {
  try {
    parse();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return (error as ValidationError).details;
  }
  expect.fail("expected a ValidationError");
}

describe("request shape details", () => {
  it("names a non-object defaults, then a requests that is not a list", () => {
    expect(detailsOf(() => parseBatch({ defaults: 3, requests: "x" }, LIMITS))).to.deep.equal([
      { location: "body", name: "defaults", description: "defaults must be an object" },
      { location: "body", name: "requests", description: "requests must be a list" },
    ]);
  });

  it("puts unknown defaults keys before a missing requests list", () => {
    expect(detailsOf(() => parseBatch({ defaults: { bogus: 1 } }, LIMITS))).to.deep.equal([
      { location: "body", name: "defaults.bogus", description: 'Unrecognized key "bogus"' },
      { location: "body", name: "requests", description: "requests must be a list" },
    ]);
  });

  it("names every bad field of a sub-request, in the order method, path, headers, body", () => {
    const body = {
      requests: [
        { method: "get", path: "x", headers: { "bad name": "v" }, body: [1] },
        { path: "/ok", body: null },
      ],
    };
    expect(detailsOf(() => parseBatch(body, LIMITS))).to.deep.equal([
      {
        location: "body",
        name: "requests.0.method",
        description: "method must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (uppercase)",
      },
      { location: "body", name: "requests.0.path", description: "path is required and must start with /" },
      { location: "body", name: "requests.0.headers", description: "headers must be an object of valid header names and string values" },
      { location: "body", name: "requests.0.body", description: "body must be an object" },
      { location: "body", name: "requests.1.body", description: "body must be an object" },
    ]);
  });

  it("reads a null method and null headers as GET without headers", () => {
    expect(parseBatch({ requests: [{ method: null, path: "/x", headers: null }] }, LIMITS)).to.deep.equal([
      { method: "GET", path: "/v1/x", headers: {}, body: undefined },
    ]);
  });

  it("quotes data that is not a mapping, null included", () => {
    expect(detailsOf(() => parseRecordPayload({ data: [1, "a"] }, ARTICLES, Date.now()))).to.deep.equal([
      { location: "body", name: "data", description: '[1,"a"] is not a mapping type' },
    ]);
    expect(detailsOf(() => parseRecordPayload({ data: null }, ARTICLES, Date.now()))).to.deep.equal([
      { location: "body", name: "data", description: "null is not a mapping type" },
    ]);
  });
});
