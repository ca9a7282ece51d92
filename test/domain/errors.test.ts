/** The messages of domain errors reach clients as the `message` of error bodies. */
import { expect } from "chai";
import {
  BackendError,
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  NotModifiedError,
  PreconditionFailedError,
  RecordNotFoundError,
  UnauthenticatedError,
  ValidationError,
} from "../../src/domain/errors.js";

describe("domain errors", () => {
  it("summarises validation errors the Kinto way: the first detail by name, without repeating the name", () => {
    expect(new ValidationError([{ location: "body", name: "data.title", description: "required" }]).message).to.equal(
      "data.title in body: required",
    );
    expect(new ValidationError([{ location: "querystring", name: "_limit", description: "_limit is not an integer" }]).message).to.equal(
      "_limit is not an integer",
    );
    const two = [
      { location: "body", name: "data.title", description: "required" },
      { location: "querystring", name: null, description: "bad query" },
    ] as const;
    expect(new ValidationError(two).message, "no name sorts as None, before lower-case names").to.equal("querystring: bad query");
    const unsorted = [
      { location: "body", name: "zeta", description: "z" },
      { location: "body", name: "alpha", description: "a" },
      { location: "body", name: "mid", description: "m" },
    ] as const;
    expect(new ValidationError(unsorted).message).to.equal("alpha in body: a");
    const upperCase = [
      { location: "querystring", name: null, description: "bad query" },
      { location: "body", name: "Abc", description: "x" },
    ] as const;
    expect(new ValidationError(upperCase).message, "None sorts after upper-case names").to.equal("Abc in body: x");
    const noNameLast = [
      { location: "body", name: "Abc", description: "x" },
      { location: "querystring", name: null, description: "bad query" },
    ] as const;
    expect(new ValidationError(noNameLast).message, "None sorts after upper-case names, wherever it stands").to.equal("Abc in body: x");
    const sameName = [
      { location: "querystring", name: null, description: "first" },
      { location: "body", name: null, description: "second" },
      { location: "header", name: null, description: "third" },
    ] as const;
    expect(new ValidationError(sameName).message, "details of the same name keep their order").to.equal("querystring: first");
    expect(new ValidationError([]).message).to.equal("Invalid parameters");
    expect(new ValidationError([], "given").message).to.equal("given");
  });

  it("has the documented default messages", () => {
    expect(new UnauthenticatedError().message).to.equal("Please authenticate yourself to use this endpoint.");
    expect(new ForbiddenError().message).to.equal("This user cannot access this resource.");
    expect(new RecordNotFoundError("articles", "a1").message).to.equal("Record a1 not found in articles");
    expect(new PreconditionFailedError(null).message).to.equal("Resource was modified meanwhile");
    expect(new ConflictError(null).message).to.equal("Conflict with an existing object");
    expect(new MethodNotAllowedError(["GET"]).message).to.equal("Method not allowed on this endpoint.");
    expect(new BackendError("storage").message).to.equal("The storage backend is unavailable");
    expect(new BackendError("storage", undefined, "given").message).to.equal("given");
    expect(new NotModifiedError(1).message).to.equal("Not modified");
    expect(new ForbiddenError().name).to.equal("ForbiddenError");
  });
});
