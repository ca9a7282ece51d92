import { expect } from "chai";
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
} from "class-validator";
import { classValidatorSchema } from "../../src/adapters/validation/class-validator-schema.js";

class Book {
  @IsString()
  @MinLength(1)
  @MaxLength(10)
  title!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  stars?: number;

  @IsOptional()
  @IsNumber()
  price?: number;

  @IsOptional()
  @IsBoolean()
  available?: boolean;

  @IsOptional()
  @IsIn(["paper", "ebook"])
  format?: string;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @ArrayMaxSize(3) // not mapped: validates, absent from the schema
  tags?: string[];
}

describe("classValidatorSchema", () => {
  const { validate, schema } = classValidatorSchema(Book);

  it("accepts data that satisfies every decorator", async () => {
    expect(await validate({ title: "Dune", stars: 5, price: 9.5, available: true, format: "paper", tags: ["sf"] })).to.deep.equal([]);
  });

  it("reports each failed constraint as a body detail named data.<property>", async () => {
    const details = await validate({ title: "far too long a title", stars: 9 });
    expect(details).to.deep.include({
      location: "body",
      name: "data.title",
      description: "title must be shorter than or equal to 10 characters",
    });
    expect(details).to.deep.include({ location: "body", name: "data.stars", description: "stars must not be greater than 5" });
    expect(details.every((d) => d.location === "body")).to.equal(true);
  });

  it("reports a missing required property", async () => {
    const details = await validate({});
    expect(details.map((d) => d.name)).to.include("data.title");
  });

  it("refuses properties the class does not declare", async () => {
    const details = await validate({ title: "Dune", author: "Herbert" });
    expect(details).to.deep.equal([{ location: "body", name: "data.author", description: "property author should not exist" }]);
  });

  it("keeps a __proto__ key a plain field instead of changing the prototype", async () => {
    const details = await validate(JSON.parse('{"title": "Dune", "__proto__": {"x": 1}}'));
    expect(details.map((d) => d.name)).to.deep.equal(["data.__proto__"]);
  });

  it("reports wrong types, item by item for each: true", async () => {
    const details = await validate({ title: 3, available: "yes", tags: ["a", 2] });
    expect(new Set(details.map((d) => d.name))).to.deep.equal(new Set(["data.title", "data.available", "data.tags"]));
    expect(details).to.deep.include({ location: "body", name: "data.tags", description: "each value in tags must be a string" });
  });

  it("derives a JSON Schema from the metadata storage", () => {
    expect(schema).to.deep.equal({
      type: "object",
      properties: {
        title: { type: "string", minLength: 1, maxLength: 10 },
        stars: { type: "integer", minimum: 1, maximum: 5 },
        price: { type: "number" },
        available: { type: "boolean" },
        format: { enum: ["paper", "ebook"] },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["title"],
      additionalProperties: false,
    });
  });

  it("includes decorated properties inherited from a parent class", () => {
    class Novel extends Book {
      @IsString()
      genre!: string;
    }
    const derived = classValidatorSchema(Novel).schema;
    expect(Object.keys(derived.properties as object)).to.include.members(["title", "genre"]);
    expect(derived.required).to.have.members(["title", "genre"]);
  });
});
