/** Writers of one record take turns in this process; other records and stuck holders do not wait. */
import { expect } from "chai";
import { RecordTurns } from "../../src/application/record-turns.js";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("RecordTurns", () => {
  it("runs the work of one key one after another, in arrival order", async () => {
    const turns = new RecordTurns();
    const log: string[] = [];
    const work = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      await tick();
      log.push(`${name} end`);
    };
    await Promise.all([turns.take("r1", work("a")), turns.take("r1", work("b")), turns.take("r1", work("c"))]);
    expect(log).to.deep.equal(["a start", "a end", "b start", "b end", "c start", "c end"]);
  });

  it("lets different keys run at the same time", async () => {
    const turns = new RecordTurns();
    const log: string[] = [];
    const work = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
    };
    await Promise.all([turns.take("r1", work("a")), turns.take("r2", work("b"))]);
    expect(log.slice(0, 2)).to.deep.equal(["a start", "b start"]);
  });

  it("gives the next writer its turn when the previous one failed", async () => {
    const turns = new RecordTurns();
    const failed = turns.take("r1", () => Promise.reject(new Error("boom")));
    const next = turns.take("r1", () => Promise.resolve("ran"));
    expect(await failed.catch((error: Error) => error.message)).to.equal("boom");
    expect(await next).to.equal("ran");
  });

  it("stops waiting for a holder that outlives the bound (it may be stuck behind a database lock)", async () => {
    const turns = new RecordTurns(20);
    let releaseStuck = (): void => undefined;
    const stuck = turns.take("r1", () => new Promise<void>((resolve) => (releaseStuck = resolve)));
    expect(await turns.take("r1", () => Promise.resolve("ran"))).to.equal("ran");
    releaseStuck();
    await stuck;
  });
});
