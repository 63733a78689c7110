import type { ReactNode } from 'react';

/** Only http(s) URLs are links; anything else is not rendered as a link at all. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * A link a creator supplied: never trusted with the opener, the referrer or our ranking, and
 * rendered as plain text when it is not http(s).
 */
export function ExternalLink({ href, children }: { href: string; children: ReactNode }) {
  if (!isHttpUrl(href)) return <span>{children}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow ugc" className="external-link">
      {children}
    </a>
  );
}
