/**
 * The /docs page's own files, kept in code so the compiled gateway needs no files beside it. The
 * page loads only same-origin scripts and styles (its Content-Security-Policy allows nothing else).
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Movement detection service API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="stylesheet" href="/docs/page.css" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" />
  </head>
  <body>
    <header class="mds-header">
      <strong>Movement detection service API</strong>
      <a href="/openapi.json">openapi.json</a>
      <a href="/asyncapi.json">asyncapi.json (realtime stream)</a>
    </header>
    <main id="reference"></main>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/page.js"></script>
  </body>
</html>
`;

/** Renders /openapi.json with Swagger UI (the gateway serves its bundle: no CDN, works offline). */
export const PAGE_JS = `// Renders /openapi.json with Swagger UI, served by the gateway itself (no CDN: works offline).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
  validatorUrl: null,
});
`;

export const PAGE_CSS = `.mds-header {
  display: flex;
  gap: 1.5rem;
  align-items: baseline;
  padding: 0.75rem 1.5rem;
  font-family: sans-serif;
  border-bottom: 1px solid #ddd;
}
`;
