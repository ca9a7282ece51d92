/**
 * Early in a burst, its deliveries go out a slice of subscribers at a time, the event loop free
 * between slices (writers are answered meanwhile); past the burst's give-way time the rest goes
 * at once. What happens to a stream between two slices must see the stream as it is: sent up to
 * the burst's bound once its slice went out. A stream whose caller's principals change there
 * resumes after what it was sent (no event twice), and one handed over there is given its last
 * event's id as the cursor. Memory clock at 100.
 */
import { expect } from "chai";
import { articles, FeedWorld, HANG_GUARD_MS, RecordingSink } from "../support/live-feed-world.js";

type Sink = RecordingSink;

/** More than a slice: the first subscribers' slice goes out before the last ones'. */
const READERS = 40;
/** Longer than any test: every burst gives way between its slices, however slow the machine. */
const ALWAYS_GIVE_WAY_MS = 3_600_000;

describe("LiveFeed: deliveries a slice of subscribers at a time", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld;
  const users = Array.from({ length: READERS }, (_, i) => `u${i}`);

  beforeEach(async () => {
    world = await FeedWorld.started({ giveWayMs: ALWAYS_GIVE_WAY_MS });
    for (const user of users) await world.acls.addUserPrincipal(user, "group:many");
  });
  afterEach(() => world.feed.close());

  const subscribeAll = async (): Promise<[Sink, ...Sink[]]> => {
    const sinks: Sink[] = [];
    for (const user of users) sinks.push(await world.subscribe(user, 99));
    await Promise.all(sinks.map((sink) => sink.waitFor("live")));
    return sinks as [Sink, ...Sink[]];
  };

  it("sends every subscriber of a burst larger than a slice its event once", async () => {
    const sinks = await subscribeAll();
    await world.put("alice", "r1", { n: 1 }, { read: ["group:many"] }); // 100
    await Promise.all(sinks.map((sink) => sink.waitFor("create r1@100")));
    await world.put("alice", "r2", { n: 2 }, { read: ["group:many"] }); // 101
    await Promise.all(sinks.map((sink) => sink.waitFor("create r2@101")));
    for (const sink of sinks) expect(sink.events).to.deep.equal(["create r1@100", "create r2@101"]);
  });

  /** Whether the last subscriber had its event when a callback of the loop's turn after the first send ran. */
  const lastHadItOnTheNextTurn = async (): Promise<boolean | undefined> => {
    const sinks = await subscribeAll();
    const [first, last] = [sinks[0], sinks[sinks.length - 1] as Sink];
    const send = first.send.bind(first);
    let lastHadIt: boolean | undefined;
    first.send = (events) => {
      // As a writer's answer would be: a callback of the loop's next turn.
      setImmediate(() => (lastHadIt ??= last.events.length > 0));
      return send(events);
    };
    await world.put("alice", "r1", { n: 1 }, { read: ["group:many"] }); // 100
    await Promise.all(sinks.map((sink) => sink.waitFor("create r1@100")));
    await new Promise((resolve) => setImmediate(resolve)); // the callback has run
    return lastHadIt;
  };

  it("lets the event loop run between slices: what was waiting for it runs before the last slice", async () => {
    expect(await lastHadItOnTheNextTurn()).to.equal(false);
  });

  it("sends a burst at once past its give-way time: the loop's next turn finds every subscriber sent to", async () => {
    world.feed.close();
    world = await FeedWorld.started({ giveWayMs: 0 });
    for (const user of users) await world.acls.addUserPrincipal(user, "group:many");
    expect(await lastHadItOnTheNextTurn()).to.equal(true);
  });

  it("resumes a stream whose principals change between slices after what it was sent", async () => {
    const sinks = await subscribeAll();
    const [first] = sinks;
    const send = first.send.bind(first);
    let changed: Promise<void> | undefined;
    first.send = (events) => {
      const accepted = send(events);
      // Announced as the burst goes on: followed before the next slice, from its cursor then.
      changed ??= world.memberships.add("group:later", ["u0"]);
      return accepted;
    };
    await world.put("alice", "r1", { n: 1 }, { read: ["group:many"] }); // 100
    await Promise.all(sinks.map((sink) => sink.waitFor("create r1@100")));
    await changed;
    await world.put("alice", "r2", { n: 2 }, { read: ["group:many"] }); // 101
    await first.waitFor("create r2@101");
    expect(first.events).to.deep.equal(["create r1@100", "create r2@101"]);
    expect(first.lines).to.not.include("resync");
  });

  it("gives a stream handed over between slices its last event's id as the cursor", async () => {
    const cursors: (() => number)[] = [];
    const sinks: RecordingSink[] = [];
    for (const user of users) {
      const sink = new RecordingSink();
      const request = { requester: world.user(user), resource: articles, filters: [], since: 99 };
      const subscription = await world.feed.subscribe(request, () => sink);
      cursors.push(() => subscription.cursor());
      sinks.push(sink);
    }
    await Promise.all(sinks.map((sink) => sink.waitFor("live")));
    const [first, cursorOfFirst] = [sinks[0] as Sink, cursors[0] as () => number];
    const send = first.send.bind(first);
    let handedOverAt: number | undefined;
    first.send = (events) => {
      const accepted = send(events);
      // A stop hands streams over from another callback: here, as soon as this slice has gone out.
      queueMicrotask(() => (handedOverAt ??= cursorOfFirst()));
      return accepted;
    };
    await world.put("alice", "r1", { n: 1 }, { read: ["group:many"] }); // 100
    await Promise.all(sinks.map((sink) => sink.waitFor("create r1@100")));
    expect(handedOverAt).to.equal(100);
  });
});
