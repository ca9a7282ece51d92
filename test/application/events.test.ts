/** Change events: listeners added and removed, their failures reported, never thrown at the writer. */
import { expect } from "chai";
import { ChangeEvents, CommittedChanges, type ResourceChanged, type ScopeTouched } from "../../src/application/events.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";

const changed: ResourceChanged = { action: "create", collection: "articles", parentId: "", timestamp: 5, impacted: [], userId: "alice" };
const touched: ScopeTouched = { scope: { collection: "articles", parentId: "" }, timestamp: 6 };

describe("change events", () => {
  it("calls each listener until it is removed", () => {
    const events = new ChangeEvents(() => undefined);
    const seen: unknown[] = [];
    const stopResource = events.onResourceChanged((e) => void seen.push(e));
    const stopScope = events.onScopeTouched((e) => void seen.push(e));
    events.publishResourceChanged(changed);
    events.publishScopeTouched(touched);
    stopResource();
    stopScope();
    events.publishResourceChanged(changed);
    events.publishScopeTouched(touched);
    expect(seen).to.deep.equal([changed, touched]);
  });

  it("reports a listener's throw or rejection with its event, and still calls the other listeners", async () => {
    const reported: [unknown, unknown][] = [];
    const events = new ChangeEvents((error, event) => void reported.push([(error as Error).message, event]));
    const seen: string[] = [];
    events.onResourceChanged(() => {
      throw new Error("sync");
    });
    events.onResourceChanged(() => Promise.reject(new Error("async")));
    events.onResourceChanged(() => void seen.push("resource"));
    events.onScopeTouched(() => {
      throw new Error("scope");
    });
    events.onScopeTouched(() => void seen.push("scope"));
    events.publishResourceChanged(changed);
    events.publishScopeTouched(touched);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).to.deep.equal(["resource", "scope"]);
    expect(reported).to.deep.equal([
      ["sync", changed],
      ["scope", touched],
      ["async", changed],
    ]);
  });

  it("publishes a resource change and a scope touched only after their unit of work commits", () => {
    const events = new ChangeEvents(() => undefined);
    const seen: unknown[] = [];
    events.onResourceChanged((e) => void seen.push(e));
    events.onScopeTouched((e) => void seen.push(e));
    const afterCommit: (() => void)[] = [];
    const unitOfWork = { afterCommit: (f: () => void) => void afterCommit.push(f) } as unknown as UnitOfWork;
    const committed = new CommittedChanges(events, unitOfWork);
    committed.resourceChanged(changed);
    committed.scopeTouched(touched);
    expect(seen).to.deep.equal([]);
    for (const f of afterCommit) f();
    expect(seen).to.deep.equal([changed, touched]);
  });
});
