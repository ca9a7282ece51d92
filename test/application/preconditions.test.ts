/** `If-Match` / `If-None-Match` against a record or collection timestamp: every outcome written out by hand. */
import { expect } from "chai";
import { NotModifiedError, PreconditionFailedError } from "../../src/domain/errors.js";
import { checkPreconditions, type Preconditions } from "../../src/application/preconditions.js";

const record = { id: "r1", lastModified: 10, data: { title: "t" } };
const existing = { timestamp: 10, record };
const missing = { timestamp: undefined };

/** "ok", "304" or "412" (with the body the 412 shows). */
function outcome(
  preconditions: Preconditions,
  target: { timestamp: number | undefined; record?: typeof record },
  isRead: boolean,
): unknown {
  try {
    checkPreconditions(preconditions, target, isRead);
    return "ok";
  } catch (error) {
    if (error instanceof NotModifiedError) return `304 at ${error.timestamp}`;
    if (error instanceof PreconditionFailedError) return { 412: error.existing };
    throw error;
  }
}

describe("preconditions", () => {
  const cases: [string, Preconditions, typeof existing | typeof missing, boolean, unknown][] = [
    ["none", {}, existing, true, "ok"],
    ["If-Match matching", { ifMatch: 10 }, existing, false, "ok"],
    ["If-Match stale", { ifMatch: 9 }, existing, false, { 412: { title: "t", id: "r1", last_modified: 10 } }],
    ["If-Match on a missing target", { ifMatch: 10 }, missing, false, { 412: null }],
    ["If-Match on a missing target, read", { ifMatch: 10 }, missing, true, { 412: null }],
    ["If-Match: * on an existing target", { ifMatch: "*" }, existing, false, "ok"],
    ["If-Match: * on a missing target", { ifMatch: "*" }, missing, false, { 412: null }],
    ["If-None-Match: * on an existing target", { ifNoneMatch: "*" }, existing, false, { 412: { title: "t", id: "r1", last_modified: 10 } }],
    ["If-None-Match: * on a missing target", { ifNoneMatch: "*" }, missing, false, "ok"],
    ["If-None-Match current, read", { ifNoneMatch: 10 }, existing, true, "304 at 10"],
    ["If-None-Match current, write", { ifNoneMatch: 10 }, existing, false, "ok"],
    ["If-None-Match stale, read", { ifNoneMatch: 9 }, existing, true, "ok"],
    ["If-None-Match on a missing target, read", { ifNoneMatch: 10 }, missing, true, "ok"],
    ["If-None-Match current and If-Match stale, read: 304 first", { ifNoneMatch: 10, ifMatch: 9 }, existing, true, "304 at 10"],
    [
      "If-None-Match: * and If-Match matching, existing: 412 first",
      { ifNoneMatch: "*", ifMatch: 10 },
      existing,
      true,
      { 412: { title: "t", id: "r1", last_modified: 10 } },
    ],
  ];
  for (const [name, preconditions, target, isRead, expected] of cases) {
    it(`${name}: ${JSON.stringify(expected)}`, () => {
      expect(outcome(preconditions, target, isRead)).to.deep.equal(expected);
    });
  }

  it("shows no record in a 412 on a collection", () => {
    expect(outcome({ ifMatch: 9 }, { timestamp: 10 }, true)).to.deep.equal({ 412: null });
  });
});
