/** The public HTTP API as the admin page uses it: JSON in and out, the `Authorization` header per call (none: anonymous). */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Detail {
  readonly location?: string;
  readonly name?: string | null;
  readonly description?: string;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json | undefined;
}

/** A non-2xx answer: the service's message and, for a 400, its validation details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: readonly Detail[],
  ) {
    super(message);
  }
}

export interface Resource {
  readonly name: string;
  readonly kind: string;
  readonly permissions: readonly string[];
}

export interface Root {
  readonly capabilities?: JsonObject;
  readonly user?: { readonly id: string; readonly principals: readonly string[] };
  readonly resources?: readonly Resource[];
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class Api {
  constructor(private readonly authorization: string | undefined) {}

  /** `target` is an API path (`/notes`) or a URL the service gave (`Next-Page`). */
  async call(method: string, target: string, body?: JsonObject, headers: Record<string, string> = {}): Promise<Answer> {
    const url = /^https?:/.test(target) ? target : `/v1${target}`;
    const init: RequestInit = {
      method,
      headers: {
        ...(this.authorization === undefined ? {} : { Authorization: this.authorization }),
        Accept: "application/json",
        ...headers,
      },
    };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["Content-Type"] = "application/json";
    }
    const response = await fetch(url, init);
    const text = await response.text();
    const parsed = text === "" ? undefined : (JSON.parse(text) as Json);
    if (!response.ok) {
      const error = isObject(parsed) ? parsed : {};
      const details = Array.isArray(error.details) ? (error.details.filter(isObject) as Detail[]) : [];
      throw new ApiError(
        response.status,
        typeof error.message === "string" ? error.message : `${response.status} ${response.statusText}`,
        details,
      );
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }
}
