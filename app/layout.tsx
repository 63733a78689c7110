import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/components/trpc/provider';
import './globals.css';

export const metadata: Metadata = {
  title: 'Launchdex',
  description: 'Open explorer and API for token launches: bonding curves graduating to Uniswap V3.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <Link href="/">Launchdex</Link>
          <nav aria-label="Main">
            <Link href="/docs">API</Link>
          </nav>
        </header>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
