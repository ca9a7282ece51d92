import { expect } from "chai";

/** Awaits a promise that must reject with `type`; returns the error for further checks. */
export async function expectRejection<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}`);
}
