/**
 * Calls gathered into one statement per burst: sent at once when idle, together while one is in
 * flight, in order, never more than the limits, and each call with its own outcome. The statement
 * here is a function the test holds open, so every interleaving is chosen by the test.
 */
import { expect } from "chai";
import { StatementBursts } from "../../src/adapters/postgres/statement-bursts.js";
import { BackendError, ValidationError } from "../../src/domain/errors.js";

/** A statement the test answers by hand: every send is recorded and waits for `answer`. */
class HeldStatement {
  readonly sent: number[][] = [];
  private readonly pending: { items: number[]; resolve: (results: string[]) => void; reject: (error: unknown) => void }[] = [];
  inFlight = 0;
  mostInFlight = 0;

  readonly send = (items: readonly number[]): Promise<string[]> => {
    this.sent.push([...items]);
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    return new Promise<string[]>((resolve, reject) => this.pending.push({ items: [...items], resolve, reject })).finally(
      () => this.inFlight--,
    );
  };

  /** Answers the oldest send with `result(item)` per item. */
  answer(result: (item: number) => string = (item) => `r${item}`): Promise<void> {
    return this.answerWith((items) => items.map(result));
  }

  async answerWith(results: (items: number[]) => string[]): Promise<void> {
    const next = this.pending.shift();
    next?.resolve(results(next.items));
    await settle();
  }

  async fail(error: unknown): Promise<void> {
    this.pending.shift()?.reject(error);
    await settle();
  }
}

/** Lets every promise callback queued so far run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("statement bursts", () => {
  it("sends a call at once, alone, when nothing is in flight", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 1, maxBurst: 10 });
    const answer = bursts.submit(7);
    expect(statement.sent).to.deep.equal([[7]]);
    await statement.answer();
    expect(await answer).to.equal("r7");
  });

  it("gathers the calls made while a statement is in flight into the next one, in order, each with its own result", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 1, maxBurst: 10 });
    const answers = [1, 2, 3, 4].map((item) => bursts.submit(item));
    expect(statement.sent).to.deep.equal([[1]]);
    await statement.answer();
    expect(statement.sent).to.deep.equal([[1], [2, 3, 4]]);
    await statement.answer((item) => `second ${item}`);
    expect(await Promise.all(answers)).to.deep.equal(["r1", "second 2", "second 3", "second 4"]);
    expect(statement.sent).to.have.length(2);
  });

  it("with gatherTurn, waits when idle for the calls of the same turn and sends them together", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 1, maxBurst: 10, gatherTurn: true });
    const answers = [1, 2, 3].map((item) => bursts.submit(item));
    expect(statement.sent).to.deep.equal([]);
    await settle();
    expect(statement.sent).to.deep.equal([[1, 2, 3]]);
    const later = bursts.submit(4);
    await statement.answer();
    expect(statement.sent).to.deep.equal([[1, 2, 3], [4]]);
    await statement.answer();
    expect(await Promise.all([...answers, later])).to.deep.equal(["r1", "r2", "r3", "r4"]);
  });

  it("puts at most maxBurst calls in one statement and keeps at most maxInFlight statements under way", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 2, maxBurst: 3 });
    const answers = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((item) => bursts.submit(item));
    expect(statement.sent).to.deep.equal([[1], [2]]);
    while (statement.inFlight > 0) {
      expect(statement.inFlight).to.be.at.most(2);
      await statement.answer();
    }
    expect(statement.sent).to.deep.equal([[1], [2], [3, 4, 5], [6, 7, 8], [9]]);
    expect(statement.mostInFlight).to.equal(2);
    expect(await Promise.all(answers)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9].map((item) => `r${item}`));
  });

  it("fails every call of a burst on a backend outage, without sending them again", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 1, maxBurst: 10 });
    const answers = [1, 2, 3].map((item) => bursts.submit(item).catch((error: unknown) => error));
    await statement.answer();
    const outage = new BackendError("storage");
    await statement.fail(outage);
    expect(await Promise.all(answers)).to.deep.equal(["r1", outage, outage]);
    expect(statement.sent).to.deep.equal([[1], [2, 3]]);
  });

  it("sends each call of a burst alone after any other failure, so that only the call that fails alone fails", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 1, maxBurst: 10 });
    const answers = [1, 2, 3, 4].map((item) => bursts.submit(item).catch((error: unknown) => error));
    await statement.answer();
    const badInput = ValidationError.single("body", null, "strings may not contain the NUL character (\\u0000)");
    await statement.fail(badInput);
    expect(statement.sent).to.deep.equal([[1], [2, 3, 4], [2]]);
    await statement.answer();
    await statement.fail(badInput);
    await statement.answer();
    expect(statement.sent).to.deep.equal([[1], [2, 3, 4], [2], [3], [4]]);
    expect(await Promise.all(answers)).to.deep.equal(["r1", "r2", badInput, "r4"]);
  });

  it("fails the calls of a statement that answers a result count other than its calls'", async () => {
    const statement = new HeldStatement();
    const bursts = new StatementBursts(statement.send, { maxInFlight: 1, maxBurst: 10 });
    const answer = bursts.submit(1).catch((error: unknown) => error);
    await statement.answerWith(() => ["r1", "r1 again"]);
    const error = await answer;
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal("a burst statement answered 2 results for 1 calls");
  });
});
