/**
 * kinto-http 5.3.0 sharing through Tessera's tree: record ACLs, a bucket's group granting read on
 * a collection, batch requests aggregated by the client, and the permissions endpoint.
 */
import { expect } from "chai";
import { userId } from "../support/http.js";
import { failureStatus, onEveryBackend } from "./client-world.js";
import type { KintoHttpClient } from "./kinto-http-module.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const CAROL = "carol:pw";

interface Note {
  [field: string]: unknown;
  id: string;
  last_modified: number;
  n?: number;
}

onEveryBackend("kinto-http sharing", (world) => {
  const notes = (user: string) => world.http(user).bucket("team").collection("notes");
  beforeEach(async () => {
    const alice = world.http(ALICE);
    await alice.createBucket("team");
    await alice.bucket("team").createCollection("notes");
  });

  it("shares one record through its permissions, and unshares it", async () => {
    await notes(ALICE).createRecord({ id: "shared", n: 1 }, { permissions: { read: [userId(BOB)] } });
    await notes(ALICE).createRecord({ id: "private", n: 2 });
    expect((await notes(BOB).getRecord<Note>("shared")).data.n).to.equal(1);
    expect(await failureStatus(notes(BOB).getRecord("private"))).to.equal(403);
    expect((await notes(BOB).listRecords<Note>()).data.map((r) => r.id)).to.deep.equal(["shared"]);
    expect(await failureStatus(notes(CAROL).getRecord("shared"))).to.equal(403);

    const permissions = (await notes(ALICE).getRecord<Note>("shared")).permissions;
    expect(permissions).to.deep.equal({ read: [userId(BOB)], write: [userId(ALICE)] });
    await notes(ALICE).updateRecord({ id: "shared", n: 1 }, { permissions: { read: [] } });
    expect(await failureStatus(notes(BOB).getRecord("shared"))).to.equal(403);
  });

  it("adds and removes a reader of the whole collection (JSON Patch on its permissions)", async () => {
    await notes(ALICE).createRecord({ id: "private", n: 2 });
    const collection = world.http(ALICE).bucket("team").collection("notes");
    await collection.addPermissions({ read: [userId(CAROL)] });
    expect(await collection.getPermissions()).to.deep.equal({ read: [userId(CAROL)], write: [userId(ALICE)] });
    expect((await notes(CAROL).listRecords<Note>()).data.map((r) => r.id)).to.deep.equal(["private"]);
    await collection.removePermissions({ read: [userId(CAROL)] });
    expect((await collection.getPermissions()).read ?? []).to.deep.equal([]);
    expect(await failureStatus(notes(CAROL).getRecord("private"))).to.equal(403);
  });

  it("grants a collection to a bucket's group: its members read, a removed member no longer does", async () => {
    const bucket = world.http(ALICE).bucket("team");
    const group = await bucket.createGroup("readers", [userId(BOB)]);
    expect(group.data.members).to.deep.equal([userId(BOB)]);
    await notes(ALICE).createRecord({ id: "minutes", n: 1 });
    // setPermissions, not addPermissions: kinto-http puts the principal in a JSON Patch path
    // unescaped, which a group URI's slashes break (on Kinto as well).
    await bucket.collection("notes").setPermissions({ read: ["/buckets/team/groups/readers"] });
    expect(await bucket.collection("notes").getPermissions()).to.deep.equal({
      read: ["/buckets/team/groups/readers"],
      write: [userId(ALICE)],
    });

    expect((await notes(BOB).getRecord<Note>("minutes")).data.n).to.equal(1);
    expect((await notes(BOB).listRecords<Note>()).data.map((r) => r.id)).to.deep.equal(["minutes"]);
    expect(await failureStatus(notes(CAROL).getRecord("minutes"))).to.equal(403);
    const principals = (await world.http(BOB).fetchUser())?.principals;
    expect(principals).to.include("/buckets/team/groups/readers");

    const moved = await bucket.updateGroup({ id: "readers" }, { data: { members: [userId(CAROL)] }, patch: true });
    expect(moved.data.members).to.deep.equal([userId(CAROL)]);
    expect(await failureStatus(notes(BOB).getRecord("minutes"))).to.equal(403);
    expect((await notes(CAROL).getRecord<Note>("minutes")).data.n).to.equal(1);
  });

  it("batches record writes and aggregates published, conflicts, skipped and errors", async () => {
    const result = await world.http(ALICE).batch(
      (batch: KintoHttpClient) => {
        // Inside a batch the calls only queue their requests: their promises carry nothing.
        const collection = batch.bucket("team").collection("notes");
        void collection.createRecord({ id: "one", n: 1 });
        void collection.createRecord({ id: "two", n: 2 });
        void collection.createRecord({ id: "one", n: 9 }, { safe: true });
        void collection.deleteRecord("missing");
      },
      { aggregate: true },
    );
    if (!("published" in result)) throw new Error("aggregate: true gives an aggregate");
    expect(result.published.map((p) => [(p.data as Note).id, (p.data as Note).n])).to.deep.equal([
      ["one", 1],
      ["two", 2],
    ]);
    expect(result.conflicts).to.have.length(1);
    expect(result.conflicts[0].local.data).to.deep.equal({ id: "one", n: 9 });
    expect(result.conflicts[0].remote).to.include({ id: "one", n: 1 });
    expect(result.skipped.map((s: { id: string }) => s.id)).to.deep.equal(["missing"]);
    expect(result.errors).to.deep.equal([]);

    // Bob may not write into Alice's collection: the refusal comes back as an error.
    const refused = await world
      .http(BOB)
      .batch((batch: KintoHttpClient) => void batch.bucket("team").collection("notes").createRecord({ id: "bob", n: 0 }), {
        aggregate: true,
      });
    if (!("errors" in refused)) throw new Error("aggregate: true gives an aggregate");
    expect(refused.errors.map((e) => e.error.code)).to.deep.equal([403]);
    const stored = await notes(ALICE).listRecords<Note>({ sort: "id" });
    expect(stored.data.map((r) => [r.id, r.n])).to.deep.equal([
      ["one", 1],
      ["two", 2],
    ]);
  });

  it("lists the tree objects a user holds permissions on, with the ones they imply", async () => {
    const bucket = world.http(ALICE).bucket("team");
    await bucket.createGroup("readers", [userId(BOB)]);
    await notes(ALICE).createRecord({ id: "minutes", n: 1 });
    await bucket.collection("notes").setPermissions({ read: ["/buckets/team/groups/readers"] });

    const entries = (await world.http(ALICE).listPermissions()).data.filter((e) => e.uri.startsWith("/buckets/"));
    const byUri = Object.fromEntries(entries.map((e) => [e.uri, [...e.permissions].sort()]));
    expect(byUri).to.deep.equal({
      "/buckets/team": ["collection:create", "group:create", "read", "read:attributes", "write"],
      "/buckets/team/collections/notes": ["read", "read:attributes", "record:create", "write"],
      "/buckets/team/groups/readers": ["read", "write"],
      "/buckets/team/collections/notes/records/minutes": ["read", "write"],
    });
    const record = entries.find((e) => e.resource_name === "record") as Record<string, unknown> | undefined;
    expect(record).to.include({ id: "minutes", bucket_id: "team", collection_id: "notes", record_id: "minutes" });

    // Bob holds read on the collection through the group; what it contains is inherited, not listed.
    const bobs = (await world.http(BOB).listPermissions()).data.filter((e) => e.uri.startsWith("/buckets/"));
    expect(bobs.map((e) => e.uri)).to.deep.equal(["/buckets/team/collections/notes"]);
    expect(bobs[0]?.permissions).to.include("read");
  });

  it("lists the root's bucket:create for a user who may create buckets, as Kinto does", async () => {
    const entries = (await world.http(CAROL).listPermissions()).data;
    const root = entries.find((e) => e.uri === "/");
    expect(root).to.deep.equal({ uri: "/", resource_name: "root", permissions: ["bucket:create"] });
  });
});
