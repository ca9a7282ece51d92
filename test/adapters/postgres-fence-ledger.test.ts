/**
 * The principal fence over the PostgreSQL ledger (LeasedPrincipalFence + PostgresFenceLedger),
 * with several processes simulated in this one, each with its own ledger connections: a process
 * holds a lease as soon as it serves, before its first stream; a fence resolves only after every other leased process ended the principal's streams; a process whose
 * lease ended, or that left, is not waited for (a crashed process delays a change by at most one
 * lease); a lost nudge is made up for by the next renewal; a process that cannot renew ends every
 * stream itself before its lease ends in the database, and refuses new ones.
 */
import { expect } from "chai";
import { LeasedPrincipalFence } from "../../src/application/leased-principal-fence.js";
import type { FenceLedger } from "../../src/application/ports/fence-ledger.js";
import { SingleProcessFence } from "../../src/application/single-process-fence.js";
import { PostgresFenceLedger } from "../../src/adapters/postgres/postgres-fence-ledger.js";
import { requireService } from "../support/services.js";
import { migratedDatabase } from "../support/shared-postgres.js";
import { withAdmin } from "../support/postgres.js";

const LEASE_MS = 1000;

interface Member {
  readonly fence: LeasedPrincipalFence;
  readonly ended: string[];
  /** Times (performance.now) at which every stream was ended. */
  readonly endedAll: number[];
  leave(): Promise<void>;
}

describe("principal fence over PostgreSQL", function () {
  requireService("postgresql");
  this.timeout(30_000);
  let url: string;
  const ledgers: PostgresFenceLedger[] = [];
  const leaving: (() => Promise<void>)[] = [];
  let count = 0;

  before(async () => {
    url = await migratedDatabase("tessera_fence_ledger_test", true);
  });
  afterEach(async () => {
    for (const leave of leaving.splice(0)) await leave();
    for (const ledger of ledgers.splice(0)) await ledger.close();
  });

  const ledger = () => {
    const opened = new PostgresFenceLedger({ connectionString: url, connectTimeoutMs: 5000, statementTimeoutMs: 5000 });
    ledgers.push(opened);
    return opened;
  };
  const member = async (over: FenceLedger = ledger(), streams = true): Promise<Member> => {
    const ended: string[] = [];
    const endedAll: number[] = [];
    const fence = new LeasedPrincipalFence({ ledger: over, processId: `p${++count}`, leaseMs: LEASE_MS, log: () => undefined });
    const stop = await fence.serve({ endStreamsOf: (p) => ended.push(p), endEveryStream: () => endedAll.push(performance.now()) });
    if (streams) expect(await fence.admit()).to.equal(true);
    leaving.push(stop);
    return { fence, ended, endedAll, leave: stop };
  };

  it("resolves once every other leased process ended the principal's streams, not before; the fencer's own are not asked", async () => {
    const [fencer, b, c] = [await member(), await member(), await member()];
    let resolved = false;
    const fencing = fencer.fence.fence("group:team").then(() => {
      resolved = true;
      // What each process was told, at the moment the fence resolved.
      return [b.ended.slice(), c.ended.slice()];
    });
    expect(await fencing).to.deep.equal([["group:team"], ["group:team"]]);
    expect(resolved).to.equal(true);
    expect(fencer.ended).to.deep.equal([]);
    const left = await withAdmin(url, async (client) => Number((await client.query("SELECT count(*) AS n FROM feed_fences")).rows[0].n));
    expect(left, "fence rows left behind").to.equal(0);
  });

  it("waits for a crashed process at most until its lease ends, and not at all for one that left", async () => {
    const fencer = await member();
    // A process that took a lease and died: it never acknowledges.
    await ledger().renewLease("crashed", LEASE_MS);
    const started = performance.now();
    await fencer.fence.fence("group:team");
    const waited = performance.now() - started;
    expect(waited).to.be.within(LEASE_MS / 2, LEASE_MS + 500);

    const gone = await member();
    await gone.leave();
    const again = performance.now();
    await fencer.fence.fence("group:team");
    expect(performance.now() - again).to.be.below(LEASE_MS / 2);
    expect(gone.ended).to.deep.equal([]);
  });

  it("holds its lease once serving, before any stream: a fence is acknowledged by it, and it admits without asking again", async () => {
    const real = ledger();
    let renewals = 0;
    const counted: FenceLedger = Object.assign(Object.create(real) as FenceLedger, {
      renewLease: (id: string, ms: number) => {
        renewals += 1;
        return real.renewLease(id, ms);
      },
    });
    const idle = await member(counted, false);
    expect(renewals, "the lease was asked for by serve()").to.equal(1);
    const leases = await withAdmin(
      url,
      async (client) => (await client.query("SELECT process_id FROM feed_leases WHERE lease_until > now()")).rows,
    );
    expect(leases).to.have.length(1);
    const fencer = await member();
    await fencer.fence.fence("group:team");
    expect(idle.ended).to.deep.equal(["group:team"]);
    expect(await idle.fence.admit()).to.equal(true);
    expect(renewals, "admitted on the lease it holds").to.equal(1);
  });

  it("acknowledges at the next renewal when the nudge is lost", async () => {
    const real = ledger();
    const deaf: FenceLedger = Object.assign(Object.create(real) as FenceLedger, { listen: () => () => undefined });
    const fencer = await member();
    const b = await member(deaf);
    const started = performance.now();
    await fencer.fence.fence("group:team");
    expect(b.ended).to.deep.equal(["group:team"]);
    // Renewals come every third of the lease.
    expect(performance.now() - started).to.be.below(LEASE_MS / 3 + 500);
  });

  it("ends every stream itself, before its lease ends in the database, when it cannot renew; refuses new streams until it can", async () => {
    const real = ledger();
    let reachable = true;
    const away = () => Promise.reject(new Error("database away"));
    const cut: FenceLedger = Object.assign(Object.create(real) as FenceLedger, {
      renewLease: (id: string, ms: number) => (reachable ? real.renewLease(id, ms) : away()),
      owedBy: (id: string) => (reachable ? real.owedBy(id) : away()),
      acknowledge: (id: string, fences: readonly string[]) => (reachable ? real.acknowledge(id, fences) : away()),
    });
    const b = await member(cut);
    expect(await b.fence.admit()).to.equal(true);
    reachable = false;
    const cutAt = performance.now();
    const fencer = await member();
    await fencer.fence.fence("group:team");
    const fenceReturned = performance.now();
    expect(b.endedAll, "every stream ended, before the fence stopped waiting").to.have.length(1);
    expect(b.endedAll[0]).to.be.below(fenceReturned);
    expect(b.endedAll[0]! - cutAt).to.be.below(LEASE_MS);
    expect(await b.fence.admit()).to.equal(false);
    reachable = true;
    expect(await b.fence.admit()).to.equal(true);
  });

  it("in one process resolves at once and always admits (the live feed ended its own streams)", async () => {
    const single = new SingleProcessFence();
    await single.fence();
    expect(await single.admit()).to.equal(true);
  });
});
