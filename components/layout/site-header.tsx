import Link from 'next/link';
import { HeaderWallet } from '@/components/wallet/header-wallet';

export function SiteHeader() {
  return (
    <header className="site-header">
      <Link href="/" className="brand">
        Launchdex
      </Link>
      <nav aria-label="Main">
        <Link href="/">Tokens</Link>
        <Link href="/launch">Launch</Link>
        <Link href="/docs">API</Link>
      </nav>
      <HeaderWallet />
    </header>
  );
}
