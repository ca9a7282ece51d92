/**
 * An authentication policy registered by code: `X-Api-Key: <key>` authenticates as the user the
 * `publishing_api_keys` setting maps the key to (`key:user` entries, whitespace-separated).
 * Listed in `multiauth.policies` as `apikey`, its user ids read `apikey:<user>`.
 */
import type { JsonValue } from "../../src/domain/json.js";
import type { AuthenticationPolicy, RequestCredentials } from "../../src/application/ports/authentication-policy.js";
import { listValue } from "../../src/bootstrap/settings.js";

export const API_KEYS_SETTING = "publishing_api_keys";

export class ApiKeyPolicy implements AuthenticationPolicy {
  readonly name = "apikey";
  private readonly users: ReadonlyMap<string, string>;

  constructor(setting: JsonValue | undefined) {
    this.users = parseKeys(setting);
  }

  authenticate(request: RequestCredentials): string | undefined {
    const key = request.header("x-api-key")?.trim();
    return key ? this.users.get(key) : undefined;
  }
}

function parseKeys(setting: JsonValue | undefined): Map<string, string> {
  const users = new Map<string, string>();
  for (const entry of listValue(setting)) {
    const colon = entry.lastIndexOf(":");
    // A malformed entry is a configuration mistake worth stopping for, not a silent no-op.
    if (colon <= 0 || colon === entry.length - 1) throw new Error(`${API_KEYS_SETTING}: "${entry}" must be <key>:<user>`);
    users.set(entry.slice(0, colon), entry.slice(colon + 1));
  }
  return users;
}
