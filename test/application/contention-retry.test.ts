import { expect } from "chai";
import { ContentionRetry } from "../../src/application/contention-retry.js";
import { BackendError, PreconditionFailedError } from "../../src/domain/errors.js";

describe("ContentionRetry", () => {
  it("keeps pausing, without a limit on rounds, until its deadline", async () => {
    const retry = new ContentionRetry(60_000);
    for (let round = 0; round < 12; round++) await retry.pause(new PreconditionFailedError(null));
  });

  it("gives up past its deadline as an overload (503), never as a failed precondition", async () => {
    const cause = new PreconditionFailedError(null);
    const error = await new ContentionRetry(0).pause(cause).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(BackendError);
    expect((error as BackendError).cause).to.equal(cause);
    expect(error).to.deep.include({ backend: "storage", message: "Too many concurrent writes to this record: try again later" });
  });
});
