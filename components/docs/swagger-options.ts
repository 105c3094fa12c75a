/**
 * The Swagger UI options that are the same on every render of the API reference, apart from the
 * page's own (its node, the document's URL, the form's request interceptor).
 */
export const SWAGGER_UI_OPTIONS = {
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  // The key typed into "Authorize" stays in memory only, never in localStorage.
  persistAuthorization: false,
  // Issue 11: no validator badge. Swagger UI's default sends the document's URL to
  // validator.swagger.io whenever the page's host is not localhost.
  validatorUrl: null,
} as const;
