export default function Home() {
  return (
    <main style={{ maxWidth: 640, margin: '4rem auto', padding: '0 1rem', lineHeight: 1.5 }}>
      <h1>Meeting Notes</h1>
      <p>A REST API over recorded meetings: transcripts, AI summaries and webhooks.</p>
      <ul>
        <li>
          API reference (OpenAPI 3.1): <a href="/api/openapi.json?form=A">Form A</a> · <a href="/api/openapi.json?form=B">Form B</a>
        </li>
        <li>
          Try it: <code>curl -H &quot;Authorization: Bearer $KEY&quot; http://localhost:3000/v1/notes</code>
        </li>
      </ul>
    </main>
  );
}
