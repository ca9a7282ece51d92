/** The publishing example over HTTP: every extension point it uses, seen from a client. */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { publishingExtension } from "../../examples/publishing/publishing-extension.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const AUTHOR = "alice:pw";
const EDITOR = "erin:pw"; // listed in publishing_staff
const READER = "carol:pw";

describe("publishing example", () => {
  let server: TestServer;
  let feedUp = true;

  before(async () => {
    server = await startTestServer(
      {
        "multiauth.policies": "basicauth apikey",
        publishing_api_keys: "k-bot:publisher-bot k-alice:alice",
        publishing_staff: userId(EDITOR),
        posts_create_principals: "system.Authenticated",
        posts_publish_principals: "group:staff",
        posts_write_principals: "apikey:publisher-bot",
      },
      [publishingExtension({ feedHealthy: () => Promise.resolve(feedUp) })],
    );
  });
  after(() => server.stop());

  const createPost = async (user = AUTHOR, permissions?: Record<string, string[]>) => {
    const response = await server.request("POST", "/v1/posts", {
      user,
      body: { data: { title: "Hello", body: "First post" }, permissions },
    });
    expect(response.status).to.equal(201);
    return response.body.data.id as string;
  };

  describe("the posts record schema (class-validator)", () => {
    it("refuses a POST without a title, naming the field", async () => {
      const response = await server.request("POST", "/v1/posts", { user: AUTHOR, body: { data: { body: "no title" } } });
      expect(response.status).to.equal(400);
      expect(response.body.details).to.deep.include({ location: "body", name: "data.title", description: "title must be a string" });
    });

    it("refuses a PUT with a title over 200 characters and an unknown field", async () => {
      const response = await server.request("PUT", "/v1/posts/p-long", {
        user: AUTHOR,
        body: { data: { title: "x".repeat(201), tags: [] } },
      });
      expect(response.status).to.equal(400);
      expect(response.body.details).to.deep.include({
        location: "body",
        name: "data.title",
        description: "title must be shorter than or equal to 200 characters",
      });
      expect(response.body.details).to.deep.include({ location: "body", name: "data.tags", description: "property tags should not exist" });
    });

    it("refuses a PATCH that makes published a non-boolean", async () => {
      const id = await createPost();
      const response = await server.request("PATCH", `/v1/posts/${id}`, { user: EDITOR, body: { data: { published: "yes" } } });
      expect(response.status).to.equal(400);
      expect(response.body.details).to.deep.equal([
        { location: "body", name: "data.published", description: "published must be a boolean value" },
      ]);
    });

    it("shows the schema in the OpenAPI document", async () => {
      const response = await server.request("GET", "/v1/__api__");
      const data = response.body.components.schemas["posts.Data"];
      expect(data.properties.title).to.deep.equal({ type: "string", maxLength: 200 });
      expect(data.properties.published).to.deep.equal({ type: "boolean" });
      expect(data.required).to.deep.equal(["title"]);
      expect(Object.keys(response.body.components.schemas["posts.Permissions"].properties)).to.deep.equal(["read", "write", "publish"]);
    });
  });

  describe("the publish rule (view mapping, policy and root factory)", () => {
    it("lets the author rewrite their post with PUT but not publish it with PATCH", async () => {
      const id = await createPost();
      const rewritten = await server.request("PUT", `/v1/posts/${id}`, { user: AUTHOR, body: { data: { title: "Hello again" } } });
      expect(rewritten.status).to.equal(200);
      const published = await server.request("PATCH", `/v1/posts/${id}`, { user: AUTHOR, body: { data: { published: true } } });
      expect(published.status).to.equal(403);
    });

    it("lets staff publish, through publish on the collection", async () => {
      const id = await createPost();
      const response = await server.request("PATCH", `/v1/posts/${id}`, { user: EDITOR, body: { data: { published: true } } });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.include({ title: "Hello", published: true });
    });

    it("lets a user publish a post whose own permissions grant them publish", async () => {
      const id = await createPost(AUTHOR, { publish: [userId("bob:pw")] });
      const response = await server.request("PATCH", `/v1/posts/${id}`, { user: "bob:pw", body: { data: { published: true } } });
      expect(response.status).to.equal(200);
    });

    it("lets a collection writer publish (write on the collection grants publish)", async () => {
      const id = await createPost();
      const response = await server.request("PATCH", `/v1/posts/${id}`, {
        headers: { "X-Api-Key": "k-bot" },
        body: { data: { published: true } },
      });
      expect(response.status).to.equal(200);
    });

    it("never lets anonymous callers publish, even when a post grants publish to everyone", async () => {
      const id = await createPost(AUTHOR, { read: ["system.Everyone"], publish: ["system.Everyone"] });
      expect((await server.request("GET", `/v1/posts/${id}`)).status).to.equal(200);
      const response = await server.request("PATCH", `/v1/posts/${id}`, { body: { data: { published: true } } });
      expect(response.status).to.equal(401);
    });

    it("lets those who may publish every post read every draft", async () => {
      const id = await createPost();
      const editorList = await server.request("GET", "/v1/posts", { user: EDITOR });
      expect(editorList.body.data.map((p: { id: string }) => p.id)).to.include(id);
      const readerList = await server.request("GET", "/v1/posts", { user: READER });
      expect(readerList.status).to.equal(200);
      expect(readerList.body.data.map((p: { id: string }) => p.id)).to.not.include(id);
      expect((await server.request("GET", `/v1/posts/${id}`, { user: READER })).status).to.equal(403);
    });
  });

  describe("the X-Api-Key authentication policy", () => {
    it("authenticates a known key as apikey:<user>", async () => {
      const response = await server.request("GET", "/v1/", { headers: { "X-Api-Key": "k-alice" } });
      expect(response.body.user.id).to.equal("apikey:alice");
    });

    it("leaves an unknown key anonymous", async () => {
      const root = await server.request("GET", "/v1/", { headers: { "X-Api-Key": "nope" } });
      expect(root.body).to.not.have.property("user");
      const create = await server.request("POST", "/v1/posts", { headers: { "X-Api-Key": "nope" }, body: { data: { title: "t" } } });
      expect(create.status).to.equal(401);
    });

    it("works next to Basic Auth, which is asked first", async () => {
      const created = await server.request("POST", "/v1/posts", {
        headers: { "X-Api-Key": "k-alice" },
        body: { data: { title: "by key" } },
      });
      expect(created.status).to.equal(201);
      expect(created.body.permissions.write).to.deep.equal(["apikey:alice"]);
      const both = await server.request("GET", "/v1/", { user: AUTHOR, headers: { "X-Api-Key": "k-alice" } });
      expect(both.body.user.id).to.equal(userId(AUTHOR));
    });
  });

  describe("the staff group finder", () => {
    it("adds group:staff to a staff member's principals, on top of the permission backend's", async () => {
      const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      await permissions.addUserPrincipal(userId(EDITOR), "group:editors");
      const response = await server.request("GET", "/v1/", { user: EDITOR });
      expect(response.body.user.principals).to.include.members([userId(EDITOR), "group:staff", "group:editors"]);
    });

    it("adds nothing for other users", async () => {
      const response = await server.request("GET", "/v1/", { user: READER });
      expect(response.body.user.principals).to.not.include("group:staff");
    });
  });

  describe("the heartbeat check", () => {
    afterEach(() => {
      feedUp = true;
    });

    it("is reported by /v1/__heartbeat__", async () => {
      const response = await server.request("GET", "/v1/__heartbeat__");
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ storage: true, publishing_feed: true });
    });

    it("makes the heartbeat fail with 503 when it fails", async () => {
      feedUp = false;
      const response = await server.request("GET", "/v1/__heartbeat__");
      expect(response.status).to.equal(503);
      expect(response.body).to.include({ storage: true, publishing_feed: false });
    });
  });
});
