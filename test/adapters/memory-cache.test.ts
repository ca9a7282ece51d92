import { expect } from "chai";
import { createMemoryCacheStore, MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { cacheContract } from "../contract/cache.contract.js";

// One store shared by every instance of this run, as several Redis clients share one server.
const shared = createMemoryCacheStore();

cacheContract("memory", (options) => {
  const port = new MemoryCache(options?.prefix ?? "tessera:cache:", undefined, shared);
  return Promise.resolve({ port, reset: () => port.flush(), close: () => port.close() });
});

describe("MemoryCache", () => {
  function fixedClock(start: number) {
    const clock = { t: start, now: () => clock.t };
    return clock;
  }

  it("honours the injected clock, with fractional ttls", async () => {
    const clock = fixedClock(1_000_000);
    const cache = new MemoryCache("p:", clock);
    await cache.set("k", "v", 0.25);
    expect(await cache.ttl("k")).to.equal(0.25);
    clock.t += 249;
    expect(await cache.get("k")).to.equal("v");
    clock.t += 1;
    expect(await cache.get("k")).to.equal(undefined);
  });

  it("sweeps expired entries of a large store on set", async () => {
    const clock = fixedClock(0);
    const store = createMemoryCacheStore();
    const cache = new MemoryCache("", clock, store);
    for (let i = 0; i < 1100; i++) await cache.set(`k${i}`, i, 1);
    clock.t += 2000;
    for (let i = 0; i < 1000; i++) await cache.set(`fresh${i}`, i, 1);
    expect(store.size).to.equal(1000);
  });

  it("flushes only its own prefix", async () => {
    const store = createMemoryCacheStore();
    const a = new MemoryCache("a:", undefined, store);
    const b = new MemoryCache("b:", undefined, store);
    await a.set("k", 1, 10);
    await b.set("k", 2, 10);
    await a.flush();
    expect(await b.get("k")).to.equal(2);
  });
});
