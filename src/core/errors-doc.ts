/** Renders docs/errors.md from the error registry (scripts/gen-errors-doc.ts writes it; a test compares). */
import { ERROR_REGISTRY, type ErrorSpec } from './errors.js';

export function renderErrorsDoc(): string {
  const rows = Object.entries(ERROR_REGISTRY)
    .map(([code, spec]: [string, ErrorSpec]) => {
      const status =
        spec.namedQueryStatus === undefined ? `${spec.status}` : `${spec.status} (${spec.namedQueryStatus} on \`POST /<QueryName>\`)`;
      return `| \`${code}\` | ${status} | ${spec.retryable ? 'yes' : 'no'} | ${spec.meaning} |`;
    })
    .join('\n');
  return `# Error codes

Every error response has the body \`{"error": "<code>", "msg": "<text>"}\` and nothing else.
\`error\` is one of the stable codes below; \`msg\` says what was wrong and where (for request
mistakes it starts with the JSON path, e.g. \`query.read.entries[0].query.root.count: unknown key "foo"\`).
Clients should treat an unknown code by its HTTP status. A \`msg\` quotes at most 200 characters
of any one piece of the request (a path, header value, key or name); longer input is cut and
marked \`…(cut, N characters)\`.

Client mistakes are 4xx even when they are found while the query runs (an unbound parameter,
a missing \`add_e\` endpoint); 500 means a fault of the service itself and never carries a
stack trace. "Retryable" means replaying the same request unchanged can succeed.

This file is generated from \`src/core/errors.ts\` by \`npm run docs:errors\`; a test fails when
the two differ.

| code | HTTP status | retryable | meaning |
|---|---|---|---|
${rows}

## Where we differ from HelixDB on purpose

- Bodies over the limit are \`413 payload_too_large\` before parsing (HelixDB's local server says
  400 \`invalid_request_body\`).
- Runtime query mistakes (\`invalid_query\`, \`node_not_found\`, \`edge_not_found\`) are 400, not
  500: they are the client's to fix.
- A \`returns\` name that no entry binds is \`400 unknown_return_variable\` (HelixDB:
  \`internal_planner_error\`).
- \`X-Svc-Require-Writer\` on a reader is \`503 writer_mode_required\` (HelixDB:
  \`invalid_request_option\` with 503).
- Unknown routes are \`404 not_found\` and wrong methods \`405 method_not_allowed\`, with this
  body (HelixDB answers with an empty body).
- An option header (\`X-Svc-*\` or \`x-helix-*\`) sent twice with different values is
  \`400 invalid_request_option\` (HelixDB uses the first value); the same value repeated is accepted.
- \`Content-Length\` sent twice with different values, or a \`Transfer-Encoding\` other than
  \`chunked\`, is \`400 invalid_request_framing\` and the connection is closed.

## HelixDB codes Trellis never answers

- \`invalid_request_body\` (HelixDB: an unreadable body, or one over the limit): a body over the
  limit is \`413 payload_too_large\`, and a body that cannot be read means the client left, so
  no answer reaches it.
- \`invalid_node_id\`: an id that is not an unsigned 64-bit integer is \`400 invalid_query_json\`
  naming its JSON path, like any other value of the wrong shape; a well-formed id that names
  no node is \`node_not_found\` where the query needs the node, and skipped where the contract
  says missing ids are dropped.
- \`transaction_conflict\` (409): one writer thread applies every write batch in order, so no
  two writes can conflict and no request would succeed by being replayed.
`;
}
