/**
 * The Swagger UI options that are the same on every render of the API reference, apart from the
 * page's own (its node, the document's URL, the form's request interceptor).
 */
export const SWAGGER_UI_OPTIONS = {
  // No deep links. With them each operation's path is a link inside the button
  // that expands it (axe: nested-interactive, serious).
  deepLinking: false,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  // The key typed into "Authorize" stays in memory only, never in localStorage.
  persistAuthorization: false,
  // No validator badge. Swagger UI's default sends the document's URL to
  // validator.swagger.io whenever the page's host is not localhost.
  validatorUrl: null,
} as const;
