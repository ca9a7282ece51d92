/**
 * The Cache contract (application/ports/cache.ts), modelled on Kinto's CacheTest suite. Runs
 * unchanged against every adapter, so it only uses the port. `open` may be asked for a cache with a
 * given key prefix: the adapter must prepend it to every key (as Kinto does), after any prefix of
 * its own, so that `prefix "p_" + key "k"` and `prefix "" + key "p_k"` are the same entry.
 * Failure injection (BackendError) is adapter-specific and lives in adapter tests.
 */
import { expect } from "chai";
import type { Cache } from "../../src/application/ports/cache.js";
import type { JsonValue } from "../../src/domain/json.js";
import type { Harness } from "../support/harness.js";

export interface CacheOpenOptions {
  /** Key prefix for this cache instance; the adapter's default when absent. */
  prefix?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function cacheContract(name: string, open: (options?: CacheOpenOptions) => Promise<Harness<Cache>>): void {
  describe(`Cache contract [${name}]`, function () {
    let h: Harness<Cache>;
    let cache: Cache;

    before(async () => {
      h = await open();
      cache = h.port;
    });
    beforeEach(() => h.reset());
    after(() => h?.close());

    /** Opens extra caches with prefixes, emptied before and closed after the test body. */
    async function withPrefixes<const P extends readonly string[]>(
      prefixes: P,
      body: (caches: { [K in keyof P]: Cache }) => Promise<void>,
    ): Promise<void> {
      const harnesses: Harness<Cache>[] = [];
      try {
        for (const prefix of prefixes) harnesses.push(await open({ prefix }));
        for (const extra of harnesses) await extra.reset();
        await body(harnesses.map((x) => x.port) as { [K in keyof P]: Cache });
      } finally {
        for (const extra of harnesses) {
          await extra.reset();
          await extra.close();
        }
      }
    }

    describe("schema and health", () => {
      it("initializes the schema idempotently, keeping what is stored", async () => {
        await cache.set("kept", { v: 1 }, 60);
        await cache.initializeSchema();
        await cache.initializeSchema();
        expect(await cache.get("kept")).to.deep.equal({ v: 1 });
      });

      it("answers the heartbeat when available", async () => {
        expect(await cache.heartbeat()).to.equal(true);
      });
    });

    describe("get and set", () => {
      it("stores a value", async () => {
        await cache.set("foobar", "toto", 42);
        expect(await cache.get("foobar")).to.equal("toto");
      });

      it("returns undefined for a missing key", async () => {
        expect(await cache.get("missing")).to.equal(undefined);
      });

      it("round-trips JSON values", async () => {
        const values: Record<string, JsonValue> = {
          int: 3,
          float: 3.14,
          negative: -0.5,
          string: "héllo ✓",
          empty: "",
          yes: true,
          no: false,
          nothing: null,
          list: ["a", 1, null, { b: [1, 2] }],
          object: { b: [1, 2], c: { d: "e" } },
          emptyObject: {},
          emptyList: [],
        };
        for (const [key, value] of Object.entries(values)) await cache.set(key, value, 42);
        for (const [key, value] of Object.entries(values)) expect(await cache.get(key), key).to.deep.equal(value);
      });

      it("replaces a previous value and its ttl", async () => {
        await cache.set("k", { v: 1 }, 42);
        await cache.set("k", { v: 2 }, 10);
        expect(await cache.get("k")).to.deep.equal({ v: 2 });
        const ttl = await cache.ttl("k");
        expect(ttl).to.be.greaterThan(0).and.at.most(10);
      });

      it("returns a copy that callers may modify", async () => {
        await cache.set("k", { list: [1] }, 42);
        const first = (await cache.get("k")) as { list: number[] };
        first.list.push(2);
        expect(await cache.get("k")).to.deep.equal({ list: [1] });
      });

      it("is not affected by later changes to the value set", async () => {
        const value = { list: [1] };
        await cache.set("k", value, 42);
        value.list.push(2);
        expect(await cache.get("k")).to.deep.equal({ list: [1] });
      });

      it("keeps keys with special characters apart", async () => {
        const keys = ["*", "a:b", "a", "a*", "é", "a b", "a%", "a_", "[x]", "?"];
        for (const key of keys) await cache.set(key, `v-${key}`, 42);
        for (const key of keys) expect(await cache.get(key)).to.equal(`v-${key}`);
      });

      it("accepts an empty key", async () => {
        await cache.set("", "empty", 42);
        expect(await cache.get("")).to.equal("empty");
      });
    });

    describe("expiry", () => {
      it("expires a value set with a fractional ttl", async () => {
        await cache.set("short", "v", 0.05);
        expect(await cache.get("short")).to.equal("v");
        await sleep(150);
        expect(await cache.get("short")).to.equal(undefined);
        expect(await cache.ttl("short")).to.be.lessThan(0);
      });

      it("expires a value after expire() with a fractional ttl", async () => {
        await cache.set("foobar", "toto", 42);
        await cache.expire("foobar", 0.05);
        await sleep(150);
        expect(await cache.get("foobar")).to.equal(undefined);
      });

      it("expires at once with expire(key, 0)", async () => {
        await cache.set("foobar", "toto", 42);
        await cache.expire("foobar", 0);
        await sleep(10);
        expect(await cache.get("foobar")).to.equal(undefined);
      });

      it("returns the time to live in seconds", async () => {
        await cache.set("foobar", "toto", 42);
        await cache.expire("foobar", 10);
        const ttl = await cache.ttl("foobar");
        expect(ttl).to.be.greaterThan(0).and.at.most(10);
      });

      it("returns fractions of seconds", async () => {
        await cache.set("foobar", "toto", 1.5);
        const ttl = await cache.ttl("foobar");
        expect(ttl).to.be.greaterThan(1).and.at.most(1.5);
      });

      it("lengthens a ttl with expire()", async () => {
        await cache.set("foobar", "toto", 0.2);
        await cache.expire("foobar", 30);
        await sleep(300);
        expect(await cache.get("foobar")).to.equal("toto");
        expect(await cache.ttl("foobar"))
          .to.be.greaterThan(25)
          .and.at.most(30);
      });

      it("returns a negative ttl for a missing key", async () => {
        expect(await cache.ttl("unknown")).to.be.lessThan(0);
      });

      it("ignores expire() on a missing key", async () => {
        await cache.expire("unknown", 10);
        expect(await cache.get("unknown")).to.equal(undefined);
        expect(await cache.ttl("unknown")).to.be.lessThan(0);
      });
    });

    describe("increment", () => {
      it("starts a missing key at `by`, living the ttl given", async () => {
        expect(await cache.increment("n", 3, 10)).to.equal(3);
        expect(await cache.increment("n", 4, 10)).to.equal(7);
        expect(await cache.ttl("n"))
          .to.be.greaterThan(9)
          .and.at.most(10);
      });

      it("keeps the remaining ttl of an existing key, neither extended nor shortened", async () => {
        await cache.increment("counted", 1, 10);
        await cache.set("stored", 5, 10);
        expect(await cache.increment("counted", 1, 100)).to.equal(2);
        expect(await cache.increment("stored", 1, 100)).to.equal(6);
        expect(await cache.increment("stored", 1, 1)).to.equal(7);
        for (const key of ["counted", "stored"]) {
          expect(await cache.ttl(key), key)
            .to.be.greaterThan(9)
            .and.at.most(10);
        }
      });

      it("adds a negative `by`", async () => {
        expect(await cache.increment("n", -2, 10)).to.equal(-2);
        expect(await cache.increment("n", -3, 10)).to.equal(-5);
        expect(await cache.increment("n", 8, 10)).to.equal(3);
      });

      it("starts an expired key again from 0, with a fresh ttl", async () => {
        await cache.increment("counted", 5, 0.05);
        await cache.set("stored", 5, 0.05);
        await sleep(150);
        for (const key of ["counted", "stored"]) {
          expect(await cache.increment(key, 2, 10), key).to.equal(2);
          expect(await cache.ttl(key), key)
            .to.be.greaterThan(9)
            .and.at.most(10);
        }
      });

      it("starts a key holding a non-integer from 0, with a fresh ttl", async () => {
        const values: Record<string, JsonValue> = {
          text: "text",
          digits: "12",
          float: 1.5,
          object: { a: 1 },
          list: [1],
          yes: true,
          nothing: null,
        };
        for (const [key, value] of Object.entries(values)) await cache.set(key, value, 1000);
        for (const key of Object.keys(values)) {
          expect(await cache.increment(key, 2, 10), key).to.equal(2);
          expect(await cache.get(key), key).to.equal(2);
          expect(await cache.ttl(key), key).to.be.at.most(10);
        }
      });

      it("is read back by get as a JSON number", async () => {
        await cache.increment("n", 41, 10);
        await cache.increment("n", 1, 10);
        expect(await cache.get("n")).to.equal(42);
        await cache.set("n", 10, 10);
        await cache.increment("n", -1, 10);
        expect(await cache.get("n")).to.equal(9);
      });

      it("counts under the prefix", async () => {
        await withPrefixes(["prefix_", ""], async ([prefixed, bare]) => {
          await bare.set("prefix_n", 4, 10);
          expect(await prefixed.increment("n", 1, 10)).to.equal(5);
          expect(await bare.get("prefix_n")).to.equal(5);
          expect(await bare.get("n")).to.equal(undefined);
        });
      });

      it("is atomic across instances: 50 concurrent increments return 1..50", async () => {
        await withPrefixes(["shared_", "shared_"], async ([one, two]) => {
          // Two waves: the first races to create the key, the second to update it.
          const wave = () => Promise.all(Array.from({ length: 25 }, (_, i) => (i % 2 === 0 ? one : two).increment("hits", 1, 60)));
          const returned = [...(await wave()), ...(await wave())];
          expect(returned.sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
          expect(await one.get("hits")).to.equal(50);
          expect(await two.get("hits")).to.equal(50);
        });
      });
    });

    describe("delete and flush", () => {
      it("deletes a key and returns its value", async () => {
        await cache.set("foobar", { a: "toto" }, 42);
        expect(await cache.delete("foobar")).to.deep.equal({ a: "toto" });
        expect(await cache.get("foobar")).to.equal(undefined);
        expect(await cache.ttl("foobar")).to.be.lessThan(0);
      });

      it("returns undefined when deleting a missing key", async () => {
        expect(await cache.delete("unknown")).to.equal(undefined);
      });

      it("returns undefined when deleting an expired key", async () => {
        await cache.set("short", "v", 0.03);
        await sleep(100);
        expect(await cache.delete("short")).to.equal(undefined);
      });

      it("flushes every key", async () => {
        await cache.set("a", 1, 42);
        await cache.set("b", 2, 42);
        await cache.flush();
        expect(await cache.get("a")).to.equal(undefined);
        expect(await cache.get("b")).to.equal(undefined);
      });

      it("stores again after a flush", async () => {
        await cache.flush();
        await cache.set("a", 1, 42);
        expect(await cache.get("a")).to.equal(1);
      });
    });

    describe("prefixes", () => {
      it("prepends the prefix to keys", async () => {
        await withPrefixes(["prefix_", ""], async ([prefixed, bare]) => {
          await prefixed.set("key", "foo", 42);
          expect(await bare.get("prefix_key")).to.equal("foo");
          expect(await bare.get("key")).to.equal(undefined);
        });
      });

      it("reads, deletes and times out keys through the prefix", async () => {
        await withPrefixes(["prefix_", ""], async ([prefixed, bare]) => {
          await bare.set("prefix_key", "foo", 10);
          expect(await prefixed.get("key")).to.equal("foo");
          const ttl = await prefixed.ttl("key");
          expect(ttl).to.be.greaterThan(9).and.at.most(10);
          await prefixed.expire("key", 20);
          expect(await bare.ttl("prefix_key")).to.be.greaterThan(19);
          expect(await prefixed.delete("key")).to.equal("foo");
          expect(await bare.get("prefix_key")).to.equal(undefined);
        });
      });

      it("isolates caches with different prefixes, flush included", async () => {
        await withPrefixes(["one:", "two:"], async ([one, two]) => {
          await one.set("k", "from one", 42);
          await two.set("k", "from two", 42);
          expect(await one.get("k")).to.equal("from one");
          expect(await two.get("k")).to.equal("from two");
          await one.flush();
          expect(await one.get("k")).to.equal(undefined);
          expect(await two.get("k")).to.equal("from two");
        });
      });
    });
  });
}
