/**
 * A response body that is JSON text already (a listing built from records read as text). The
 * outermost middleware sends the text as it is; a batch, which nests sub-responses in its own
 * JSON, gets the value back through `toJSON`.
 */
import type { JsonValue } from "../../domain/json.js";

export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): JsonValue {
    return JSON.parse(this.text) as JsonValue;
  }
}
