/**
 * `GET /v1/__api__`: an OpenAPI 3.1 document of this very server, built from the declared
 * resources (and Kinto's tree, when served) and the methods they serve, so it never describes a
 * route that answers 405.
 */
import type Router from "@koa/router";
import type { JsonObject } from "../../domain/json.js";
import type { HttpServices } from "./http-services.js";
import { preflightOperation, sharedComponents, withCommonHeaders } from "./openapi-components.js";
import { flatMount, resourceDocument, type ResourceDocument } from "./openapi-resource-paths.js";
import { treeDocuments } from "./openapi-tree-paths.js";
import { accountPaths } from "./openapi-account-paths.js";
import { accessPaths } from "./openapi-access-paths.js";
import { securityDocument } from "./openapi-security.js";
import { utilityPaths } from "./openapi-utility-paths.js";
import { VERSION_PREFIX } from "./routing-middleware.js";
import { readOnlyRoute } from "./utility-routes.js";
import { requestUrl } from "./urls.js";

/** The document; `serverUrl` (the absolute `/v1` URL) defaults to the relative `/v1`. */
export function openApiDocument(services: HttpServices, serverUrl: string = VERSION_PREFIX): JsonObject {
  const { options } = services;
  const security = securityDocument(options.capabilities);
  const components = sharedComponents(security.schemes);
  const schemas = components.schemas as JsonObject;
  const paths: JsonObject = utilityPaths(security.requirements);
  const flat = [...services.resources.values()];
  const described: ResourceDocument[] = flat.map((r) => resourceDocument(r.definition, flatMount(services, r)));
  if (services.tree) described.push(...treeDocuments(services, services.tree));
  for (const resource of described) {
    Object.assign(schemas, resource.schemas);
    Object.assign(paths, resource.paths);
    if (resource.responses) Object.assign(components.responses as JsonObject, withCommonHeaders(resource.responses));
  }
  if (services.accounts) Object.assign(paths, accountPaths(options.readonly));
  const definitions = flat.map((r) => r.definition);
  if (services.access) Object.assign(paths, accessPaths(definitions, services.tree !== undefined));
  for (const [path, item] of Object.entries(paths)) paths[path] = completed(path, item as JsonObject);
  const document: JsonObject = {
    openapi: "3.1.0",
    info: {
      title: options.projectName,
      version: options.projectVersion,
      description: "HTTP/JSON record service with per-record permissions (Kinto 1.x compatible).",
    },
    externalDocs: { url: options.projectDocs },
    servers: [{ url: serverUrl }],
    tags: [...described.flatMap((resource) => resource.tags), { name: "utilities", description: "Server information, health, batch." }],
    paths,
    components,
  };
  // Anonymous requests are allowed too: what they may do depends on each record's permissions.
  if (security.requirements.length > 0) document.security = [...security.requirements, {}];
  return document;
}

const METHODS = ["get", "head", "post", "put", "patch", "delete"];

/** A path item with the headers any answer may carry on each response, and its CORS preflight (`OPTIONS`). */
function completed(path: string, item: JsonObject): JsonObject {
  const out: JsonObject = { ...item };
  let tags: readonly string[] = [];
  for (const method of METHODS) {
    const operation = item[method] as JsonObject | undefined;
    if (!operation) continue;
    tags = (operation.tags as string[] | undefined) ?? tags;
    out[method] = { ...operation, responses: withCommonHeaders(operation.responses as JsonObject) };
  }
  const name = path === "/" ? "root" : path.replace(/[^a-zA-Z0-9]+/g, "_").replace(/^_|_$/g, "");
  out.options = preflightOperation(`preflight_${name}`, tags);
  return out;
}

export function registerOpenApiRoute(router: Router, services: HttpServices): void {
  readOnlyRoute(router, "/__api__", (ctx) => {
    ctx.body = openApiDocument(services, `${requestUrl(ctx, services.options).origin}${VERSION_PREFIX}`);
  });
}
