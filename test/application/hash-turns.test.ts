/** Password checks take turns by address: a burst from one never holds another back, and a gone client costs nothing. */
import { expect } from "chai";
import { HashTurns } from "../../src/application/accounts/hash-turns.js";
import { SignInThrottledError } from "../../src/application/accounts/sign-in-throttled-error.js";
import { BackendError } from "../../src/domain/errors.js";
import { expectRejection } from "../support/rejection.js";

/** Work that ends when the test says so, recording when it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { work: () => (log.push(name), done), open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("hash turns", () => {
  it("keeps the last free slot for another address, and gives it a freed slot before the busy one's next check", async () => {
    const turns = new HashTurns({ atOnce: 3, waitingPerAddress: 4, waitingInAll: 64 });
    const started: string[] = [];
    const attacker = [1, 2, 3, 4, 5].map((i) => gate(started, `x${i}`));
    const running = attacker.map((g) => turns.run("10.0.0.66", g.work));
    await tick();
    expect(started).to.deep.equal(["x1", "x2"]); // never the last slot
    const owner = gate(started, "owner");
    const ownerDone = turns.run("10.0.0.7", owner.work);
    await tick();
    expect(started).to.deep.equal(["x1", "x2", "owner"]); // at once, in the slot kept free
    const other = gate(started, "other");
    const otherDone = turns.run("10.0.0.8", other.work);
    attacker[0]!.open();
    await tick();
    expect(started).to.deep.equal(["x1", "x2", "owner", "other"]);
    owner.open();
    await tick();
    expect(started).to.deep.equal(["x1", "x2", "owner", "other"]); // x2 runs: the free slot is the last one
    other.open();
    await tick();
    expect(started).to.deep.equal(["x1", "x2", "owner", "other", "x3"]);
    for (const g of attacker) g.open();
    await Promise.all([...running, ownerDone, otherDone]);
    expect(started).to.deep.equal(["x1", "x2", "owner", "other", "x3", "x4", "x5"]);
    expect(turns.load).to.deep.equal({ running: 0, waiting: 0 });
  });

  it("alternates between waiting addresses", async () => {
    const turns = new HashTurns({ atOnce: 1, waitingPerAddress: 4, waitingInAll: 64 });
    const started: string[] = [];
    const first = gate(started, "a1");
    const all = [turns.run("a", first.work)];
    const rest = [gate(started, "a2"), gate(started, "a3"), gate(started, "b1"), gate(started, "b2")];
    all.push(turns.run("a", rest[0]!.work), turns.run("a", rest[1]!.work), turns.run("b", rest[2]!.work), turns.run("b", rest[3]!.work));
    for (const g of [first, ...rest]) g.open();
    await Promise.all(all);
    expect(started).to.deep.equal(["a1", "b1", "a2", "b2", "a3"]);
  });

  it("refuses an address's checks beyond its waiting bound with 429, and everyone's beyond the total with 503", async () => {
    const turns = new HashTurns({ atOnce: 1, waitingPerAddress: 2, waitingInAll: 3 });
    const started: string[] = [];
    const blocker = gate(started, "a0");
    const admitted = [turns.run("a", blocker.work), turns.run("a", () => Promise.resolve()), turns.run("a", () => Promise.resolve())];
    await expectRejection(
      turns.run("a", () => Promise.resolve()),
      SignInThrottledError,
    );
    admitted.push(turns.run("b", () => Promise.resolve()));
    await expectRejection(
      turns.run("c", () => Promise.resolve()),
      BackendError,
    );
    blocker.open();
    await Promise.all(admitted);
  });

  it("drops a waiting check whose client has gone, before it starts", async () => {
    const turns = new HashTurns({ atOnce: 1, waitingPerAddress: 4, waitingInAll: 64 });
    const started: string[] = [];
    const blocker = gate(started, "first");
    const running = turns.run("a", blocker.work);
    const client = new AbortController();
    const queued = turns.run("b", gate(started, "gone").work, client.signal);
    client.abort();
    await expectRejection(queued, BackendError);
    await expectRejection(turns.run("c", gate(started, "never").work, AbortSignal.abort()), BackendError);
    blocker.open();
    await running;
    expect(started).to.deep.equal(["first"]);
    expect(turns.load).to.deep.equal({ running: 0, waiting: 0 });
  });
});
