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

/** The failure a patch ends with, as the message a client reads (JsonPatchError only). */
function failure(document: unknown, ops: unknown[]): string {
  try {
    patch(document, ops);
  } catch (error) {
    expect(error, JSON.stringify(ops)).to.be.instanceOf(JsonPatchError);
    return (error as Error).message;
  }
  return expect.fail(`applied ${JSON.stringify(ops)}`);
}

describe("JSON Patch: the examples of RFC 6902 appendix A", () => {
  const examples: [string, unknown, unknown[], unknown][] = [
    ["A.1 adding an object member", { foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }], { baz: "qux", foo: "bar" }],
    ["A.2 adding an array element", { foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }], { foo: ["bar", "qux", "baz"] }],
    ["A.3 removing an object member", { baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }], { foo: "bar" }],
    ["A.4 removing an array element", { foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }], { foo: ["bar", "baz"] }],
    ["A.5 replacing a value", { baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }], { baz: "boo", foo: "bar" }],
    [
      "A.6 moving a value",
      { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
      [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
      { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
    ],
    [
      "A.7 moving an array element",
      { foo: ["all", "grass", "cows", "eat"] },
      [{ op: "move", from: "/foo/1", path: "/foo/3" }],
      { foo: ["all", "cows", "eat", "grass"] },
    ],
    [
      "A.8 testing a value: success",
      { baz: "qux", foo: ["a", 2, "c"] },
      [
        { op: "test", path: "/baz", value: "qux" },
        { op: "test", path: "/foo/1", value: 2 },
      ],
      { baz: "qux", foo: ["a", 2, "c"] },
    ],
    [
      "A.10 adding a nested member object",
      { foo: "bar" },
      [{ op: "add", path: "/child", value: { grandchild: {} } }],
      { foo: "bar", child: { grandchild: {} } },
    ],
    ["A.14 ~ escape ordering", { "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: 10 }], { "/": 9, "~1": 10 }],
    [
      "A.16 adding an array value",
      { foo: ["bar"] },
      [{ op: "add", path: "/foo/-", value: ["abc", "def"] }],
      { foo: ["bar", ["abc", "def"]] },
    ],
  ];
  for (const [name, document, ops, expected] of examples) {
    it(name, () => expect(patch(document, ops)).to.deep.equal(expected));
  }

  it("A.9, A.12, A.15: a failed test, an add to a non-existent target, a string compared with a number", () => {
    expect(failure({ baz: "qux" }, [{ op: "test", path: "/baz", value: "bar" }])).to.equal('"qux" is not equal to tested value "bar"');
    expect(failure({ foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }])).to.equal("member 'baz' not found (/baz/bat)");
    expect(failure({ "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: "10" }])).to.equal('10 is not equal to tested value "10"');
  });
});

describe("JSON Patch: what each failure says", () => {
  const document = { a: 1, l: [0], o: {}, n: null };
  const cases: [unknown[], string][] = [
    [[{ op: "add", path: "/x" }], "The operation does not contain a 'value' member"],
    [[{ op: "copy", path: "/x" }], "The operation does not contain a 'from' member"],
    [[{ op: "move", path: "/x" }], "The operation does not contain a 'from' member"],
    [[{ op: "remove", path: "/missing" }], "can't remove a non-existent object '/missing'"],
    [[{ op: "replace", path: "/missing", value: 1 }], "can't replace a non-existent object '/missing'"],
    [[{ op: "move", from: "/missing", path: "/x" }], "can't move a non-existent object '/missing'"],
    [[{ op: "copy", from: "/missing", path: "/x" }], "can't copy a non-existent object '/missing'"],
    [[{ op: "test", path: "/missing", value: 1 }], "can't test a non-existent object '/missing'"],
    [[{ op: "move", from: "/o", path: "/o/inner" }], "cannot move /o into its own child /o/inner"],
    [[{ op: "add", path: "/a/x", value: 1 }], "cannot add 'x' to a non-container (/a/x)"],
    [[{ op: "add", path: "/n/x", value: 1 }], "cannot add 'x' to a non-container (/n/x)"],
    // Array indexes: digits without leading zeros, at most the length when adding ("-" only then).
    [[{ op: "add", path: "/l/2", value: 1 }], "invalid array index '2'"],
    [[{ op: "add", path: "/l/01", value: 1 }], "invalid array index '01'"],
    [[{ op: "add", path: "/l/1/x", value: 1 }], "invalid array index '1'"],
    [[{ op: "add", path: "/l/-/x", value: 1 }], "invalid array index '-'"],
    [[{ op: "remove", path: "/l/1" }], "can't remove a non-existent object '/l/1'"],
    [[{ op: "remove", path: "/l/-" }], "can't remove a non-existent object '/l/-'"],
    // Members are the document's own: nothing inherited from Object.prototype.
    [[{ op: "remove", path: "/toString" }], "can't remove a non-existent object '/toString'"],
    [[{ op: "add", path: "/constructor/x", value: 1 }], "member 'constructor' not found (/constructor/x)"],
    [[{ op: "remove", path: "" }], "can't remove the whole document"],
  ];
  for (const [ops, message] of cases) {
    it(`${JSON.stringify(ops)}: ${message}`, () => expect(failure(document, ops)).to.equal(message));
  }
});

describe("JSON Patch: edge cases", () => {
  it("reads array indexes of several digits and adds at the very end by index", () => {
    const eleven = Array.from({ length: 11 }, (_, i) => i);
    expect(patch({ l: eleven }, [{ op: "remove", path: "/l/10" }])).to.deep.equal({ l: eleven.slice(0, 10) });
    expect(patch({ l: [0, 1] }, [{ op: "remove", path: "/l/1" }])).to.deep.equal({ l: [0] });
    expect(patch({ l: [0] }, [{ op: "add", path: "/l/1", value: 1 }])).to.deep.equal({ l: [0, 1] });
    expect(failure({ l: [0, 1] }, [{ op: "remove", path: "/l/01" }])).to.equal("can't remove a non-existent object '/l/01'");
  });

  it("walks through arrays and null members", () => {
    expect(
      patch({ l: [{ a: 1 }], n: null }, [
        { op: "add", path: "/l/0/b", value: 2 },
        { op: "test", path: "/n", value: null },
      ]),
    ).to.deep.equal({
      l: [{ a: 1, b: 2 }],
      n: null,
    });
  });

  it("moves a member next to itself (a sibling whose name starts the same) and onto itself", () => {
    expect(patch({ o: { m: 1 } }, [{ op: "move", from: "/o", path: "/other" }])).to.deep.equal({ other: { m: 1 } });
    expect(patch({ o: { m: 1 } }, [{ op: "move", from: "/o", path: "/o" }])).to.deep.equal({ o: { m: 1 } });
  });

  it('addresses the whole document with the root pointer (RFC 6901 "")', () => {
    expect(patch({ a: 1 }, [{ op: "add", path: "", value: { b: 2 } }])).to.deep.equal({ b: 2 });
    expect(patch({ a: 1 }, [{ op: "replace", path: "", value: [3] }])).to.deep.equal([3]);
    expect(patch({ a: 1 }, [{ op: "test", path: "", value: { a: 1 } }])).to.deep.equal({ a: 1 });
    expect(patch({ a: 1 }, [{ op: "copy", from: "", path: "/self" }])).to.deep.equal({ a: 1, self: { a: 1 } });
  });

  it("adds members that are ordinary data properties, like those JSON.parse makes", () => {
    const result = patch({}, [{ op: "add", path: "/x", value: 1 }]) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(result, "x")).to.deep.equal(Object.getOwnPropertyDescriptor(JSON.parse('{"x":1}'), "x"));
    expect(
      patch({}, [
        { op: "add", path: "/x", value: 1 },
        { op: "remove", path: "/x" },
      ]),
    ).to.deep.equal({});
  });

  it("counts only what copies add against the 1 MiB bound (1,048,576 characters of JSON), whatever the document's size", () => {
    // A string of n characters is n + 2 characters of JSON.
    const exactly = { s: "x".repeat(1_048_574) };
    expect(patch(exactly, [{ op: "copy", from: "/s", path: "/t" }])).to.have.property("t", exactly.s);
    expect(failure({ s: "x".repeat(1_048_575) }, [{ op: "copy", from: "/s", path: "/t" }])).to.equal(
      "copy operations may add at most 1048576 characters",
    );
    const big = { big: "x".repeat(700_000), small: "y" };
    expect(
      patch(big, [
        { op: "copy", from: "/small", path: "/c1" },
        { op: "add", path: "/a1", value: 1 },
        { op: "add", path: "/a2", value: 2 },
      ]),
    ).to.include({ c1: "y", a1: 1, a2: 2 });
  });
});

describe("JSON Patch: what each malformed operation is told", () => {
  const problems = (body: unknown) => {
    try {
      parseJsonPatch(body);
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      return (error as ValidationError).details;
    }
    return expect.fail(`accepted ${JSON.stringify(body)}`);
  };

  it("names the body, the operation, the key and the rule broken", () => {
    expect(problems({})).to.deep.equal([{ location: "body", name: null, description: "JSON Patch body must be a list of operations" }]);
    expect(problems([1])).to.deep.equal([{ location: "body", name: "0", description: "each operation must be an object" }]);
    expect(problems([{ op: "add", path: "/a", value: 1, extra: true }])).to.deep.equal([
      { location: "body", name: "0.extra", description: 'Unrecognized key "extra"' },
    ]);
    expect(problems([{ op: "frob", path: "/a" }])).to.deep.equal([
      { location: "body", name: "0.op", description: '"frob" is not one of test, add, remove, replace, move, copy' },
    ]);
    expect(problems([{ path: "/a" }])).to.deep.equal([
      { location: "body", name: "0.op", description: "null is not one of test, add, remove, replace, move, copy" },
    ]);
    expect(problems([{ op: "add", value: 1 }])).to.deep.equal([
      { location: "body", name: "0.path", description: "path must be a JSON pointer starting with /" },
    ]);
    expect(problems([{ op: "copy", path: "/a", from: ["/b"] }])).to.deep.equal([
      { location: "body", name: "0.from", description: "from must be a JSON pointer starting with /" },
    ]);
    expect(problems([{ op: "add", path: ["/a"], value: 1 }]).map((d) => d.name)).to.deep.equal(["0.path"]);
  });
});

describe("JSON Patch on a record: edge cases", () => {
  const record = { id: "r1", last_modified: 10, title: "t" };
  const names = ["read", "write"];
  const failureOf = (acl: Record<string, string[]>, ops: unknown[]) => {
    try {
      applyRecordJsonPatch(record, acl, ops as JsonPatchOperation[], names);
    } catch (error) {
      expect(error, JSON.stringify(ops)).to.be.instanceOf(ValidationError);
      return (error as ValidationError).details;
    }
    return expect.fail(`applied ${JSON.stringify(ops)}`);
  };
  const failed = (reason: string) => [{ location: "body", name: null, description: `JSON Patch operation failed: ${reason}` }];

  it("starts every permission of the resource as a set, empty when the ACL does not name it", () => {
    expect(applyRecordJsonPatch(record, { read: ["alice"] }, [], names).permissions).to.deep.equal({ read: ["alice"], write: [] });
  });

  it("gives a principal as its own value only under /permissions/<known permission>/<principal>", () => {
    const ops = [
      { op: "add", path: "/data/read", value: {} },
      { op: "add", path: "/data/read/x", value: 5 },
      { op: "add", path: "/data/other/y", value: 6 },
    ];
    const result = applyRecordJsonPatch({ ...record, other: {} }, {}, ops as JsonPatchOperation[], names);
    expect(result.data).to.deep.equal({ ...record, read: { x: 5 }, other: { y: 6 } });
    expect(failureOf({ read: ["alice"] }, [{ op: "add", path: "/permissions/read/alice/x" }])).to.deep.equal(
      failed("The operation does not contain a 'value' member"),
    );
  });

  it("unescapes ~1 and ~0 in a principal it tests", () => {
    const acl = { read: ["group:a/b", "c~d"] };
    expect(() =>
      applyRecordJsonPatch(
        record,
        acl,
        [
          { op: "test", path: "/permissions/read/group:a~1b" },
          { op: "test", path: "/permissions/read/c~0d" },
        ],
        names,
      ),
    ).not.to.throw();
  });

  it("says which operation failed and why, and what must remain", () => {
    expect(failureOf({}, [{ op: "remove", path: "/data/nothing" }])).to.deep.equal(
      failed("can't remove a non-existent object '/data/nothing'"),
    );
    expect(failureOf({}, [{ op: "replace", path: "/data", value: 3 }])).to.deep.equal(failed("data must remain an object"));
    expect(failureOf({}, [{ op: "replace", path: "/permissions", value: 3 }])).to.deep.equal(failed("permissions must remain an object"));
    expect(failureOf({}, [{ op: "add", path: "/permissions/admin", value: {} }])).to.deep.equal([
      { location: "body", name: "permissions.admin", description: '"admin" is not one of read, write' },
    ]);
    // An empty principal is no principal, even next to a valid one.
    expect(failureOf({ read: ["alice"] }, [{ op: "add", path: "/permissions/read/" }])).to.deep.equal(
      failed("permissions.read must remain a set of principals"),
    );
  });
});
