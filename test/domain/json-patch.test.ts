import { expect } from "chai";
import { ValidationError } from "../../src/domain/errors.js";
import { applyJsonPatch, JsonPatchError, parseJsonPatch, type JsonPatchOperation } from "../../src/domain/json-patch.js";
import { applyRecordJsonPatch } from "../../src/domain/record-json-patch.js";

const patch = (document: unknown, ops: unknown[]) => applyJsonPatch(document as never, ops as JsonPatchOperation[]);

describe("JSON Patch (RFC 6902)", () => {
  it("adds members, array elements by index and at the end (-)", () => {
    expect(
      patch({ a: 1, l: [1, 3] }, [
        { op: "add", path: "/b", value: { c: 2 } },
        { op: "add", path: "/l/1", value: 2 },
        { op: "add", path: "/l/-", value: 4 },
      ]),
    ).to.deep.equal({ a: 1, b: { c: 2 }, l: [1, 2, 3, 4] });
  });

  it("removes, replaces, moves and copies", () => {
    const result = patch({ a: 1, b: 2, l: ["x", "y"], n: { m: 1 } }, [
      { op: "remove", path: "/a" },
      { op: "replace", path: "/b", value: [true] },
      { op: "move", from: "/l/0", path: "/first" },
      { op: "copy", from: "/n", path: "/n2" },
      { op: "add", path: "/n2/extra", value: null },
    ]);
    expect(result).to.deep.equal({ b: [true], l: ["y"], first: "x", n: { m: 1 }, n2: { m: 1, extra: null } });
  });

  it("unescapes ~1 and ~0 in pointers", () => {
    expect(
      patch({ "a/b": 1, "c~d": 2 }, [
        { op: "remove", path: "/a~1b" },
        { op: "replace", path: "/c~0d", value: 3 },
      ]),
    ).to.deep.equal({ "c~d": 3 });
  });

  it("passes a test that holds (deep equality, key order ignored) and fails one that does not", () => {
    expect(patch({ o: { x: 1, y: [1] } }, [{ op: "test", path: "/o", value: { y: [1], x: 1 } }])).to.deep.equal({ o: { x: 1, y: [1] } });
    expect(() => patch({ a: 1 }, [{ op: "test", path: "/a", value: "1" }])).to.throw(JsonPatchError, "not equal");
  });

  it("fails on missing targets, bad indexes, missing value or from, and a move into its own child", () => {
    const failures: unknown[][] = [
      [{ op: "remove", path: "/missing" }],
      [{ op: "replace", path: "/missing", value: 1 }],
      [{ op: "add", path: "/missing/deeper", value: 1 }],
      [{ op: "add", path: "/l/5", value: 1 }],
      [{ op: "remove", path: "/l/01" }],
      [{ op: "add", path: "/x" }],
      [{ op: "copy", path: "/x" }],
      [{ op: "move", from: "/o", path: "/o/inner" }],
      [{ op: "add", path: "/a/x", value: 1 }],
    ];
    for (const ops of failures) expect(() => patch({ a: 1, l: [0], o: {} }, ops), JSON.stringify(ops)).to.throw(JsonPatchError);
  });

  it("stops copies that would blow the document up (each copy doubling it)", () => {
    const ops = Array.from({ length: 40 }, (_, i) => ({ op: "copy", from: "/d", path: `/d/m${i}` }));
    expect(() => patch({ d: { text: "x".repeat(100) } }, ops)).to.throw(JsonPatchError, "at most");
  });

  it("leaves the input document untouched and keeps __proto__ an ordinary member", () => {
    const input = { a: { b: 1 } };
    const result = patch(input, [
      { op: "add", path: "/a/c", value: 2 },
      { op: "add", path: "/__proto__", value: { polluted: true } },
    ]) as Record<string, unknown>;
    expect(input).to.deep.equal({ a: { b: 1 } });
    expect(Object.getPrototypeOf(result)).to.equal(Object.prototype);
    expect(Object.keys(result)).to.include("__proto__");
  });

  it("checks the shape of every operation, naming each problem", () => {
    expect(parseJsonPatch([{ op: "add", path: "/data/a", value: 1 }])).to.have.length(1);
    const cases: [unknown, string][] = [
      [{}, "body"],
      [[{ op: "frobnicate", path: "/data" }], "0.op"],
      [[{ op: "add", path: "data/a", value: 1 }], "0.path"],
      [[{ op: "copy", path: "/data/a", from: 3 }], "0.from"],
      [[{ op: "add", path: "/data/a", value: 1, extra: true }], "0.extra"],
      [[1], "0"],
    ];
    for (const [body, name] of cases) {
      try {
        parseJsonPatch(body);
        expect.fail(`accepted ${JSON.stringify(body)}`);
      } catch (error) {
        expect(error, JSON.stringify(body)).to.be.instanceOf(ValidationError);
        expect(
          (error as ValidationError).details.map((d) => d.name ?? "body"),
          JSON.stringify(body),
        ).to.include(name);
      }
    }
  });
});

describe("JSON Patch on a record (Kinto's {data, permissions} document)", () => {
  const record = { id: "r1", last_modified: 10, title: "t" };
  const acl = { read: ["alice"], write: ["bob"] };

  it("patches data and adds or removes principals without a value", () => {
    const result = applyRecordJsonPatch(
      record,
      acl,
      [
        { op: "replace", path: "/data/title", value: "new" },
        { op: "add", path: "/permissions/read/system.Everyone" },
        { op: "remove", path: "/permissions/write/bob" },
        { op: "add", path: "/permissions/write/carol" },
      ],
      ["read", "write"],
    );
    expect(result.data).to.deep.equal({ id: "r1", last_modified: 10, title: "new" });
    expect(result.permissions).to.deep.equal({ read: ["alice", "system.Everyone"], write: ["carol"] });
  });

  it("tests a principal's presence", () => {
    expect(() => applyRecordJsonPatch(record, acl, [{ op: "test", path: "/permissions/read/alice" }], ["read", "write"])).not.to.throw();
    expect(() => applyRecordJsonPatch(record, acl, [{ op: "test", path: "/permissions/read/zoe" }], ["read", "write"])).to.throw(
      ValidationError,
      "JSON Patch operation failed",
    );
  });

  it("answers a failed operation as a 400-kind validation error at body", () => {
    try {
      applyRecordJsonPatch(record, acl, [{ op: "remove", path: "/data/nothing" }], ["read", "write"]);
      expect.fail("applied");
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      const [detail] = (error as ValidationError).details;
      expect(detail).to.include({ location: "body", name: null });
      expect(detail?.description).to.match(/^JSON Patch operation failed: /);
    }
  });

  it("refuses a patch that turns data into a non-object or adds an unknown permission", () => {
    expect(() => applyRecordJsonPatch(record, acl, [{ op: "replace", path: "/data", value: 3 }], ["read", "write"])).to.throw(
      ValidationError,
    );
    expect(() => applyRecordJsonPatch(record, acl, [{ op: "add", path: "/permissions/admin", value: {} }], ["read", "write"])).to.throw(
      ValidationError,
      "admin",
    );
    expect(() =>
      applyRecordJsonPatch(
        record,
        acl,
        [
          { op: "add", path: "/permissions/read/x", value: 1 },
          { op: "replace", path: "/permissions/read", value: [] },
        ],
        ["read", "write"],
      ),
    ).to.throw(ValidationError);
  });
});
