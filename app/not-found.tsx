import Link from 'next/link';

export default function NotFound() {
  return (
    <main>
      <h1>Not found</h1>
      <p className="muted">
        Nothing is indexed at this address. It may not be a launched token, or not yet indexed.
      </p>
      <p>
        <Link href="/">Back to all tokens</Link>
      </p>
    </main>
  );
}
