import type { Metadata } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { AppProviders } from '@/components/app-providers';
import { SiteHeader } from '@/components/layout/site-header';
import { pageServices } from '@/server/handover';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Launchdex', template: '%s · Launchdex' },
  description: 'Open explorer and API for token launches: bonding curves graduating to Uniswap V3.',
  // Drawn by scripts/icons.ts into public/.
  icons: {
    icon: [
      { url: '/favicon.ico', sizes: '32x32' },
      { url: '/icon.svg', type: 'image/svg+xml' },
    ],
    apple: '/apple-touch-icon.png',
  },
  manifest: '/manifest.webmanifest',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Per request, never at build time: the chain and its browser RPC come from the runtime env.
  await connection();
  const chain = pageServices().chain;
  return (
    <html lang="en">
      <body>
        <AppProviders chain={chain}>
          <SiteHeader />
          {children}
        </AppProviders>
      </body>
    </html>
  );
}
