/**
 * The example agent's API reference: `/openapi.json` (the document the plugin
 * writes with `openapi=true`, with this server's URL in `servers`) and
 * `/docs`, Swagger UI served from the swagger-ui-dist package (no CDN, and
 * no call to Swagger's online validator).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface DocsAnswer {
  readonly status: number;
  readonly type: string;
  readonly body: string | Buffer;
}

const swaggerDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
/** The only files /docs/ serves: a fixed list, so no path reaches outside the package. */
const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Example A2A agent: HTTP+JSON API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A script file rather than inline, so the page works under a strict Content-Security-Policy.
const init = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;

let documentText: string | undefined;

/** The generated document; `npm run generate` writes it (buf.gen.yaml sets openapi=true). */
function generatedDocument(): Record<string, unknown> {
  documentText ??= readFileSync(new URL("../gen/a2a_http.openapi.json", import.meta.url), "utf8");
  return JSON.parse(documentText) as Record<string, unknown>;
}

/** The answer for a GET of `path`, or undefined when the path is not one of the docs'. */
export function docsAnswer(path: string, serverUrl: string): DocsAnswer | undefined {
  if (path === "/openapi.json") {
    const doc = { ...generatedDocument(), servers: [{ url: serverUrl, description: "this example agent" }] };
    return { status: 200, type: "application/json; charset=utf-8", body: JSON.stringify(doc) };
  }
  if (path === "/docs" || path === "/docs/") return { status: 200, type: "text/html; charset=utf-8", body: page };
  if (path === "/docs/init.js") return { status: 200, type: "text/javascript; charset=utf-8", body: init };
  if (path.startsWith("/docs/")) {
    const name = path.slice("/docs/".length);
    const type = Object.hasOwn(assets, name) ? assets[name] : undefined;
    if (type === undefined) return { status: 404, type: "text/plain; charset=utf-8", body: "not found\n" };
    return { status: 200, type, body: readFileSync(join(swaggerDir, name)) };
  }
  return undefined;
}
