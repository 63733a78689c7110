'use client';

/** Any page that failed to render: plain words and a way to try again, never a stack trace. */
export default function PageError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main>
      <h1>Something went wrong</h1>
      <p className="muted">
        This page could not be loaded. The database or the indexer may be briefly unavailable.
      </p>
      <button type="button" className="button" onClick={reset}>
        Try again
      </button>
    </main>
  );
}
