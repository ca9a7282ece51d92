import { expect } from "chai";
import { Audience, type SharedRead, type Viewer } from "../../src/application/feed/feed-audience.js";
import type { RecordOrTombstone } from "../../src/domain/records.js";

/** A viewer as the feed builds it: collection-level (no principals) or restricted to its principals. */
function viewer(name: string, principals: string[] | undefined, cursor = 0, filterKey = ""): Viewer & { name: string } {
  return { name, cursor, principals: principals && new Set(principals), filterKey };
}

const record = (id: string, lastModified: number): RecordOrTombstone => ({ id, lastModified, data: { n: lastModified } });
const tombstone = (id: string, lastModified: number): RecordOrTombstone => ({ id, lastModified, deleted: true });

function read(partial: Partial<SharedRead>): SharedRead {
  return { entries: [], bound: 100, losses: [], readers: new Map(), matching: new Map(), ...partial };
}

/** viewer name → "id@last_modified" (deleted entries marked "-"), in delivery order. */
function summary<V extends Viewer & { name: string }>(deliveries: Map<V, RecordOrTombstone[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [v, entries] of deliveries) out[v.name] = entries.map((e) => `${e.deleted ? "-" : ""}${e.id}@${e.lastModified}`);
  return out;
}

describe("live feed audience (who sees what of one shared read)", () => {
  it("gives collection-level viewers every record and tombstone after their cursor, restricted ones what their ACL grants", () => {
    const audience = new Audience<Viewer & { name: string }>();
    const all = viewer("all", undefined, 1);
    const bob = viewer("bob", ["bob", "system.Authenticated"]);
    const carol = viewer("carol", ["carol", "group:g", "system.Authenticated"]);
    const dave = viewer("dave", ["dave", "system.Authenticated"]);
    for (const v of [all, bob, carol, dave]) audience.add(v);
    const deliveries = audience.deliveries(
      read({
        entries: [record("r1", 1), record("r2", 2), record("r3", 3), tombstone("r4", 4)],
        readers: new Map([
          ["r1", new Set(["bob"])],
          ["r2", new Set(["group:g", "alice"])],
          ["r3", new Set(["system.Authenticated"])],
          ["r4", new Set<string>()],
        ]),
      }),
    );
    expect(summary(deliveries)).to.deep.equal({
      all: ["r2@2", "r3@3", "-r4@4"],
      bob: ["r1@1", "r3@3"],
      carol: ["r2@2", "r3@3"],
      dave: ["r3@3"],
    });
  });

  it("applies a viewer's filters to records (through the filtered read) and lets tombstones through", () => {
    const audience = new Audience<Viewer & { name: string }>();
    const filtered = viewer("filtered", undefined, 0, "kind=a");
    audience.add(filtered);
    const deliveries = audience.deliveries(
      read({ entries: [record("a", 1), record("b", 2), tombstone("c", 3)], matching: new Map([["kind=a", new Set(["a@1"])]]) }),
    );
    expect(summary(deliveries)).to.deep.equal({ filtered: ["a@1", "-c@3"] });
  });

  it("tells a former reader of its lost access as a tombstone at its newest loss, unless it still reads the record", () => {
    const audience = new Audience<Viewer & { name: string }>();
    const bob = viewer("bob", ["bob", "group:g"], 2);
    const carol = viewer("carol", ["carol"]);
    const all = viewer("all", undefined);
    for (const v of [bob, carol, all]) audience.add(v);
    const deliveries = audience.deliveries(
      read({
        entries: [record("r9", 3)],
        bound: 10,
        losses: [
          { id: "r1", lastModified: 1, principals: ["bob"] }, // at or below bob's cursor alone...
          { id: "r1", lastModified: 5, principals: ["group:g"] }, // ...but his group lost it later
          { id: "r2", lastModified: 6, principals: ["bob", "carol"] }, // bob still reads r2 through his group
          { id: "r3", lastModified: 11, principals: ["carol"] }, // beyond the bound: next read
          { id: "r4", lastModified: 4, principals: ["carol"] },
        ],
        readers: new Map([
          ["r9", new Set(["carol"])],
          ["r1", new Set(["alice"])],
          ["r2", new Set(["group:g"])],
          ["r3", new Set<string>()],
          ["r4", new Set<string>()],
        ]),
      }),
    );
    expect(summary(deliveries)).to.deep.equal({
      all: ["r9@3"],
      carol: ["r9@3", "-r4@4", "-r2@6"],
      bob: ["-r1@5"],
    });
  });

  it("forgets a viewer that left", () => {
    const audience = new Audience<Viewer & { name: string }>();
    const bob = viewer("bob", ["bob"]);
    const all = viewer("all", undefined);
    audience.add(bob);
    audience.add(all);
    audience.delete(bob);
    audience.delete(all);
    expect(audience.hasRestricted).to.equal(false);
    const entries = [record("r1", 1)];
    expect(summary(audience.deliveries(read({ entries, readers: new Map([["r1", new Set(["bob"])]]) })))).to.deep.equal({});
  });
});

describe("live feed audience: edges", () => {
  it("gives a tombstone to no one for readers no viewer holds", () => {
    const audience = new Audience<Viewer & { name: string }>();
    audience.add(viewer("bob", ["bob"]));
    const deliveries = audience.deliveries(read({ entries: [tombstone("r1", 1)], readers: new Map([["r1", new Set(["stranger"])]]) }));
    expect(summary(deliveries)).to.deep.equal({});
  });

  it("keeps a filtered viewer's records only where the read matched its filters, tombstones always", () => {
    const audience = new Audience<Viewer & { name: string }>();
    audience.add(viewer("filtered", undefined, 0, "kind=a"));
    const deliveries = audience.deliveries(read({ entries: [record("a", 1), tombstone("b", 2)], matching: new Map() }));
    expect(summary(deliveries)).to.deep.equal({ filtered: ["-b@2"] });
  });

  it("tells of a loss whose record has no reader left, and of none at or below the viewer's cursor", () => {
    const audience = new Audience<Viewer & { name: string }>();
    audience.add(viewer("bob", ["bob"], 5));
    audience.add(viewer("carol", ["carol"], 5));
    const deliveries = audience.deliveries(
      read({
        losses: [
          { id: "r1", lastModified: 5, principals: ["carol"] },
          { id: "r2", lastModified: 6, principals: ["bob"] },
        ],
        readers: new Map(), // r1 and r2: no ACL read back
      }),
    );
    expect(summary(deliveries)).to.deep.equal({ bob: ["-r2@6"] });
  });
});
