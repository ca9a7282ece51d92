/**
 * Numbers are JSON doubles on every backend: a number is stored when it is exactly the double it
 * parses to, and answered as that double prints, the same by id, in a listing and after a write;
 * any other number is refused with a 400 naming its field, whatever the body (record, JSON Patch,
 * batch), never rounded silently.
 */
import { expect } from "chai";
import { SYNC_BACKENDS, useSyncServer } from "../sync/backends.js";

const ALICE = "alice:pw";
const AUTH = `Basic ${Buffer.from(ALICE).toString("base64")}`;

/** Literals that are not exactly a double, and why they would change. */
const REFUSED = [
  "9007199254740993", // 2^53 + 1: stored as 2^53
  "123456789012345678901234567890", // 1.2345678901234568e+29
  "0.30000000000000000444", // more digits than a double keeps
  "-0",
  "-0.0",
  "1e400",
  "1e-400",
];

/** Literals that are doubles, with the text every answer prints them as (ECMAScript Number::toString). */
const KEPT: readonly [string, string][] = [
  ["0.1", "0.1"],
  ["1.10", "1.1"],
  ["1.0", "1"],
  ["9007199254740991", "9007199254740991"],
  ["9007199254740992", "9007199254740992"],
  ["1e-7", "1e-7"],
  ["0.0000001", "1e-7"],
  ["-2.5e-9", "-2.5e-9"],
  ["1e21", "1e+21"],
  ["123e20", "1.23e+22"],
  ["0.30000000000000004", "0.30000000000000004"],
  ["0", "0"],
];

for (const backend of SYNC_BACKENDS) {
  describe(`numbers as written or refused (${backend.name})`, function () {
    this.timeout(20_000);
    const open = useSyncServer(backend);
    const raw = async (method: string, path: string, body?: string) => {
      const headers: Record<string, string> = { Authorization: AUTH };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const res = await fetch(`${open().server.url}${path}`, { method, headers, body });
      return { status: res.status, text: await res.text() };
    };

    it("refuses each number that is not exactly a double with a 400 naming its field, and stores nothing", async () => {
      for (const literal of REFUSED) {
        const res = await raw("PUT", "/v1/articles/n1", `{"data": {"title": "t", "nested": {"list": [1, ${literal}]}}}`);
        expect(res.status, `${literal}: ${res.text}`).to.equal(400);
        const details = (JSON.parse(res.text) as { details: { location: string; name: string; description: string }[] }).details;
        expect(details[0]?.location, literal).to.equal("body");
        expect(details[0]?.name, literal).to.equal("data.nested.list.1");
        expect(details[0]?.description, literal).to.include(literal);
      }
      expect((await raw("GET", "/v1/articles/n1")).status).to.be.oneOf([403, 404]);
    });

    it("refuses them in a PATCH, a JSON Patch and a batch too", async () => {
      expect((await raw("PUT", "/v1/articles/n1", `{"data": {"v": 1}}`)).status).to.equal(201);
      const patch = await raw("PATCH", "/v1/articles/n1", `{"data": {"v": 9007199254740993}}`);
      expect(patch.status).to.equal(400);
      expect(JSON.parse(patch.text).details[0].name).to.equal("data.v");
      const jsonPatch = await fetch(`${open().server.url}/v1/articles/n1`, {
        method: "PATCH",
        headers: { Authorization: AUTH, "Content-Type": "application/json-patch+json" },
        body: `[{"op": "add", "path": "/data/w", "value": -0}]`,
      });
      expect(jsonPatch.status).to.equal(400);
      expect(((await jsonPatch.json()) as { details: { name: string }[] }).details[0]?.name).to.equal("0.value");
      const batch = await raw(
        "POST",
        "/v1/batch",
        `{"requests": [{"method": "PUT", "path": "/articles/n2", "body": {"data": {"big": 123456789012345678901234567890}}}]}`,
      );
      expect(batch.status).to.equal(400);
      expect(JSON.parse(batch.text).details[0].name).to.equal("requests.0.body.data.big");
      expect(JSON.parse((await raw("GET", "/v1/articles/n1")).text).data.v).to.equal(1);
    });

    it("keeps each double and prints it the same in the write's answer, by id and in a listing", async () => {
      const fields = KEPT.map(([literal], i) => `"n${i}": ${literal}`).join(", ");
      const written = await raw("PUT", "/v1/articles/k1", `{"data": {${fields}}}`);
      expect(written.status, written.text).to.equal(201);
      const byId = await raw("GET", "/v1/articles/k1");
      const listed = await raw("GET", "/v1/articles");
      for (const [i, [literal, printed]] of KEPT.entries()) {
        const member = new RegExp(`"n${i}":\\s*(-?[0-9.eE+-]+)`);
        expect(written.text.match(member)?.[1], `answer of ${literal}`).to.equal(printed);
        expect(byId.text.match(member)?.[1], `by id ${literal}`).to.equal(printed);
        expect(listed.text.match(member)?.[1], `listed ${literal}`).to.equal(printed);
      }
    });
  });
}
