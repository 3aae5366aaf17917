/** The documentation's paths (anonymous; the Authorization header is ignored there). */
export const DOCS_PATHS = /^\/(?:openapi\.json|asyncapi\.json|docs(?:\/.*)?)$/;
