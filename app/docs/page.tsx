import { pageServices } from '@/server/handover';

export const metadata = { title: 'API · Launchdex' };

type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  parameters: {
    name: string;
    in: string;
    required: boolean;
    description?: string;
    schema: Record<string, unknown>;
  }[];
  responses: Record<string, { description: string }>;
};

/** Human view of /api/v1/openapi.json, rendered from the same document. */
export default function ApiDocsPage() {
  const document = pageServices().openApiDocument();
  return (
    <main>
      <h1>Launchdex API</h1>
      <p className="muted">
        {document.info.description} Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>{' '}
        (OpenAPI 3.1).
      </p>
      {Object.entries(document.paths).map(([path, methods]) =>
        Object.entries(methods as Record<string, Operation>).map(([method, op]) => (
          <section
            key={`${method} ${path}`}
            className="panel"
            id={op.operationId}
            style={{ marginBottom: 16 }}
          >
            <h2>
              <code>
                {method.toUpperCase()} {path}
              </code>
            </h2>
            <p>
              <strong>{op.summary}.</strong> {op.description}
            </p>
            {op.parameters.length > 0 && (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Parameter</th>
                    <th scope="col">In</th>
                    <th scope="col">Schema</th>
                    <th scope="col">Notes</th>
                  </tr>
                </thead>
                <tbody>
                  {op.parameters.map((p) => (
                    <tr key={p.name}>
                      <td>
                        <code>{p.name}</code>
                        {p.required ? ' (required)' : ''}
                      </td>
                      <td>{p.in}</td>
                      <td>
                        <code>{JSON.stringify(p.schema)}</code>
                      </td>
                      <td>{p.description ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h3>Responses</h3>
            <ul>
              {Object.entries(op.responses).map(([status, response]) => (
                <li key={status}>
                  <code>{status}</code> {response.description}
                </li>
              ))}
            </ul>
          </section>
        )),
      )}
    </main>
  );
}
