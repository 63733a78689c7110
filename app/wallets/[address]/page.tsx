import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { shortAddress } from '@/components/ui/format';
import { WalletView } from '@/components/wallets/wallet-view';
import { isAddress } from '@/shared/address';

type Props = { params: Promise<{ address: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Wallet ${shortAddress((await params).address)}` };
}

export default async function WalletPage({ params }: Props) {
  const { address } = await params;
  if (!isAddress(address)) notFound();
  return <WalletView address={address.toLowerCase()} />;
}
