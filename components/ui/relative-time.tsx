'use client';

import { useEffect, useState } from 'react';
import { formatAge, formatTimestamp } from './format';

/**
 * "3m ago" that keeps ticking. The server renders the absolute time; the age appears after
 * hydration, so server and client markup agree.
 */
export function RelativeTime({ unixSeconds }: { unixSeconds: number }) {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  const absolute = formatTimestamp(unixSeconds);
  return (
    <time dateTime={new Date(unixSeconds * 1000).toISOString()} title={absolute}>
      {now === null ? absolute.slice(5, 16) : formatAge(unixSeconds, now)}
    </time>
  );
}
