// Swagger UI on the gateway's OpenAPI document (served by the gateway: no inline script, no CDN).
// The page is /api/docs/, the document /api/schema/: relative, so a path prefix in front of the gateway works.
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../schema/', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No call to validator.swagger.io (no internet needed; the document is validated by the test suite).
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
