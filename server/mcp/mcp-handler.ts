import { randomUUID } from 'node:crypto';
import { bearerToken, invalidApiKey, refusalOf } from '../accounts/authenticate-api-key';
import { AppError, type ErrorCode } from '../errors';
import { API_RESPONSE_HEADERS, type ApiHandlerDeps } from '../http/api-surfaces';
import { readJsonBody } from '../http/read-json-body';
import { errorHeaders, toAppError } from '../http/to-app-error';
import { FORMS, mapForms } from '../rest/forms';
import { annotateSpan } from '../telemetry/tracing';

// The MCP server at /mcp (docs/mcp.md): the Streamable HTTP transport of the Model Context
// Protocol, stateless. Every POST is one JSON-RPC message, authenticated with an API key and
// counted against the key's rate limits exactly as a /v1 request is; the answer is one JSON
// body. No session and no server-to-client stream: GET and DELETE are 405, as the transport
// allows a server without them.

export const MCP_PATH = '/mcp';

/** A JSON-RPC message is small: the largest is a tool call with a 256-character query. */
const MCP_MAX_BODY_BYTES = 64 * 1024;

let mcpServer: Promise<typeof import('./mcp-server')> | undefined;
const loadMcpServer = () => {
  // A failed load is tried again by the next request.
  mcpServer ??= import('./mcp-server').catch((err: unknown) => {
    mcpServer = undefined;
    throw err;
  });
  return mcpServer;
};

/**
 * How each refusal is written: its HTTP status and a JSON-RPC error code. The codes below −32000
 * are the protocol's own; the rest are this server's, in the range JSON-RPC leaves to servers.
 */
const REFUSALS: Record<ErrorCode, { status: number; rpc: number }> = {
  invalid_request: { status: 400, rpc: -32600 },
  validation_error: { status: 400, rpc: -32602 },
  payload_too_large: { status: 413, rpc: -32600 },
  not_found: { status: 404, rpc: -32601 },
  conflict: { status: 409, rpc: -32600 },
  invalid_api_key: { status: 401, rpc: -32001 },
  forbidden: { status: 403, rpc: -32003 },
  rate_limited: { status: 429, rpc: -32029 },
  service_unavailable: { status: 503, rpc: -32050 },
  internal_error: { status: 500, rpc: -32603 },
};

function refusal(error: AppError, requestId: string, status = REFUSALS[error.code].status): Response {
  const headers = new Headers(errorHeaders(error));
  if (error.code === 'invalid_api_key') headers.set('WWW-Authenticate', 'Bearer realm="mcp"');
  return Response.json(
    {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: REFUSALS[error.code].rpc,
        message: error.message,
        data: { code: error.code, request_id: requestId },
      },
    },
    { status, headers },
  );
}

/** GET (a server-to-client stream) and DELETE (the end of a session) have nothing to serve here. */
function methodNotAllowed(request: Request, requestId: string): Response {
  const error = new AppError(
    'invalid_request',
    `${request.method} is not served: this MCP server is stateless and answers each POST with JSON`,
  );
  const response = refusal(error, requestId, 405);
  response.headers.set('Allow', 'POST');
  return response;
}

/**
 * A browser page of another site must not reach the server through a user's machine (DNS
 * rebinding): a request that carries an Origin is refused unless it is this server's own.
 */
function foreignOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin === null) return false;
  const host = request.headers.get('host') ?? new URL(request.url).host;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

export function createMcpHandler(deps: ApiHandlerDeps) {
  const now = deps.now ?? (() => new Date());
  const rules = mapForms((form) => form.rateLimits);

  return async function handleMcp(request: Request): Promise<Response> {
    const requestId = randomUUID();
    const headers: Record<string, string> = { 'X-Request-Id': requestId, ...API_RESPONSE_HEADERS };
    let response: Response;
    try {
      if (request.method !== 'POST') {
        response = methodNotAllowed(request, requestId);
        for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
        return response;
      }
      if (foreignOrigin(request))
        throw new AppError('forbidden', 'Requests from another origin are refused (Origin header)');
      const { db } = await deps.getDatabase();
      const counted = await deps.services.requests.authenticateAndCount(
        db,
        bearerToken(request.headers.get('authorization')),
        {
          rules,
          now: now(),
        },
      );
      if (!counted) throw invalidApiKey();
      const { principal, form } = counted;
      const refused = refusalOf(counted, headers);
      if (refused) throw refused;

      const body = await readJsonBody(request, MCP_MAX_BODY_BYTES);
      // The SDK and the tools load with the first MCP request, not with the server.
      const { answerMcpRequest } = await loadMcpServer();
      response = await answerMcpRequest(request, body, {
        db,
        services: deps.services,
        accountId: principal.account.id,
        vocabulary: FORMS[form].notesVocabulary,
        requestId,
      });
      annotateSpan({ 'api.form': form });
    } catch (err) {
      const appError = toAppError(err, { requestId, method: request.method, path: MCP_PATH });
      response = refusal(appError, requestId);
    }
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  };
}
