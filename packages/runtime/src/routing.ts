// The HttpRule template parser and the router, without the servers, codecs
// and client: what the plugin shares with generated code at generation time.
export { parsePathTemplate, PathTemplateError, templateShape } from "./path-template.js";
export type { PathTemplate, TemplateSegment, TemplateVariable } from "./path-template.js";
export { createRouter } from "./router.js";
export type { Router, RouterBinding, RouteMatch, MethodNotAllowed } from "./router.js";
